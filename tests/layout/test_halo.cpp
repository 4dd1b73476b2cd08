// Shadow storage and the pieces of shadow updates and shifts (layout/halo.hpp) against brute force:
// for thousands of random maps, every storage slot a plan fills is listed element by element with the
// global index it must hold, and compared with what the pieces say (owner, source slot).
#include <hpf/layout/halo.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

namespace {

using hpf::CyclicMap;
using hpf::HaloPiece;
using hpf::index_t;

index_t wrap(index_t x, index_t n) { return ((x % n) + n) % n; }

/// slot -> global index, element by element, from the pieces; fails on a slot listed twice.
std::map<index_t, std::pair<index_t, int>> expand(const CyclicMap& m, index_t w,
                                                  const std::vector<HaloPiece>& ps) {
  // Inverse of the owner's slots: (owner, src slot) -> global index, by enumerating every element.
  std::map<std::pair<int, index_t>, index_t> global_of;
  for (index_t g = 0; g < m.n; ++g) global_of[{m.owner(g), hpf::halo_slot(m, w, m.local(g))}] = g;
  std::map<index_t, std::pair<index_t, int>> out;
  for (const HaloPiece& p : ps) {
    EXPECT_GT(p.len, 0);
    for (index_t i = 0; i < p.len; ++i) {
      const auto it = global_of.find({p.owner, p.src + i});
      EXPECT_NE(it, global_of.end()) << "piece source slot " << p.src + i << " on " << p.owner
                                     << " holds no element";
      if (it == global_of.end()) continue;
      EXPECT_TRUE(out.emplace(p.dst + i, std::make_pair(it->second, p.owner)).second)
          << "slot " << p.dst + i << " twice";
    }
  }
  return out;
}

/// The brute-force expectation: for each local block of p, each position of the range `range(G, len)`.
template <class Range>
std::map<index_t, std::pair<index_t, int>> brute(const CyclicMap& m, int p, bool periodic, Range range) {
  std::map<index_t, std::pair<index_t, int>> out;
  const index_t e = m.local_extent(p);
  for (index_t l0 = 0, b = 0; l0 < e; l0 += m.r, ++b) {
    const index_t len = std::min(m.r, e - l0);
    const index_t G = m.global(p, l0);
    const auto [lo, hi, first_slot] = range(G, len, b, l0);
    for (index_t x = lo; x < hi; ++x) {
      if (!periodic && (x < 0 || x >= m.n)) continue;
      const index_t g = wrap(x, m.n);
      out[first_slot + (x - lo)] = {g, m.owner(g)};
    }
  }
  return out;
}

TEST(Halo, StorageSlotsAreDistinctAndInsideTheExtent) {
  std::mt19937 rng(7);
  for (int t = 0; t < 3000; ++t) {
    const CyclicMap m{static_cast<index_t>(rng() % 40), 1 + static_cast<int>(rng() % 6),
                      1 + static_cast<index_t>(rng() % 7)};
    const index_t w = static_cast<index_t>(rng() % 5);
    for (int p = 0; p < m.P; ++p) {
      const index_t ext = hpf::halo_extent(m, w, p);
      index_t prev = -1;
      for (index_t l = 0; l < m.local_extent(p); ++l) {
        const index_t s = hpf::halo_slot(m, w, l);
        EXPECT_GT(s, prev);
        EXPECT_EQ(hpf::halo_local(m, w, p, s), l);
        EXPECT_GE(s, w);
        EXPECT_LT(s, ext - w + 1);
        prev = s;
      }
      index_t owned_slots = 0;
      for (index_t s = -1; s <= ext; ++s) owned_slots += hpf::halo_local(m, w, p, s) >= 0 ? 1 : 0;
      EXPECT_EQ(owned_slots, m.local_extent(p)) << "every other slot is a shadow slot";
      if (m.local_extent(p) > 0) {
        EXPECT_EQ(prev + w + 1, ext) << "the last block's right shadow ends the storage";
      } else {
        EXPECT_EQ(ext, 0);
      }
    }
  }
}

TEST(Halo, ShadowPiecesMatchBruteForce) {
  std::mt19937 rng(11);
  for (int t = 0; t < 3000; ++t) {
    const CyclicMap m{static_cast<index_t>(rng() % 40), 1 + static_cast<int>(rng() % 6),
                      1 + static_cast<index_t>(rng() % 7)};
    // Any width (BLOCK-like maps may reach past neighbours; a CYCLIC width <= r is the API's rule,
    // but the pieces are correct for any width).
    const index_t w = static_cast<index_t>(rng() % 9);
    const bool periodic = rng() % 2;
    for (int p = 0; p < m.P; ++p) {
      const auto got = expand(m, w, hpf::shadow_pieces(m, w, p, periodic));
      const auto want = brute(m, p, periodic, [&](index_t G, index_t len, index_t b, index_t) {
        return std::make_tuple(G - w, G + len + w, b * (m.r + 2 * w));
      });
      EXPECT_EQ(got, want) << "n=" << m.n << " P=" << m.P << " r=" << m.r << " w=" << w << " p=" << p
                           << " periodic=" << periodic;
    }
  }
}

TEST(Halo, ShiftPiecesMatchBruteForce) {
  std::mt19937 rng(13);
  for (int t = 0; t < 3000; ++t) {
    const CyclicMap m{static_cast<index_t>(rng() % 40), 1 + static_cast<int>(rng() % 6),
                      1 + static_cast<index_t>(rng() % 7)};
    const index_t w = static_cast<index_t>(rng() % 3);
    const bool circular = rng() % 2;
    const index_t n = std::max<index_t>(m.n, 1);
    index_t s = static_cast<index_t>(rng() % static_cast<unsigned>(3 * n)) - n;
    if (circular) s = wrap(s, n);
    for (int p = 0; p < m.P; ++p) {
      const auto got = expand(m, w, hpf::shift_pieces(m, w, p, s, circular));
      const auto want = brute(m, p, circular, [&](index_t G, index_t len, index_t, index_t l0) {
        return std::make_tuple(G + s, G + len + s, hpf::halo_slot(m, w, l0));
      });
      EXPECT_EQ(got, want) << "n=" << m.n << " P=" << m.P << " r=" << m.r << " w=" << w << " s=" << s
                           << " circular=" << circular;
    }
  }
}

} // namespace
