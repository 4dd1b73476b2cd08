// The pieces of a move under a memory ceiling (section/ceiling.hpp), pure: owned_bound is an upper
// bound of what one process owns of any window of a strided selection (brute force over every window
// and process on thousands of random block-cyclic maps), and for_each_piece tiles a section exactly
// once, pairing each element of B's section with its element of A's under the permutation; and
// PeriodicRuns::range, the part of a message one chunk carries, lists exactly those elements of the
// message's runs, at the same source and target offsets.
#include <hpf/redist/runs.hpp>
#include <hpf/section/ceiling.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

namespace {

using hpf::CyclicMap;
using hpf::index_t;
using hpf::Triplet;

template <class Rng> index_t draw(Rng& rng, index_t lo, index_t hi) {
  return std::uniform_int_distribution<index_t>(lo, hi)(rng);
}

/// A random valid triplet of a dimension of extent n >= 1 (stride +-1..4, possibly empty).
template <class Rng> Triplet random_triplet(index_t n, Rng& rng) {
  index_t stride = draw(rng, 1, 4);
  if (draw(rng, 0, 3) == 0) stride = -stride;
  const index_t a = draw(rng, 0, n - 1);
  const index_t b = draw(rng, 0, n - 1);
  return stride > 0 ? Triplet{std::min(a, b), std::max(a, b), stride}
                    : Triplet{std::max(a, b), std::min(a, b), stride};
}

TEST(CeilingSplit, OwnedBoundHoldsForEveryWindowAndProcess) {
  std::mt19937 rng(20261207);
  for (int c = 0; c < 3000; ++c) {
    CyclicMap m;
    m.n = draw(rng, 1, 160);
    m.P = static_cast<int>(draw(rng, 1, 7));
    m.r = draw(rng, 0, 2) == 0 ? hpf::detail::ceil_div(m.n, m.P) : draw(rng, 1, 9); // BLOCK or CYCLIC(r)
    const Triplet t = random_triplet(m.n, rng);
    const index_t count = t.extent();
    if (count == 0) continue;
    const index_t w = draw(rng, 1, count);
    index_t most = 0;
    for (index_t j = 0; j + w <= count; ++j)
      for (int p = 0; p < m.P; ++p) {
        index_t mine = 0;
        for (index_t k = j; k < j + w; ++k) mine += m.owner(t.at(k)) == p ? 1 : 0;
        most = std::max(most, mine);
      }
    const index_t bound = hpf::detail::owned_bound(m, t, w);
    ASSERT_GE(bound, most) << "n " << m.n << " P " << m.P << " r " << m.r << " t " << t.to_string() << " w "
                           << w;
    ASSERT_LE(bound, w);
  }
}

/// Every element of `r` as (source offset, target offset), in order.
std::vector<std::pair<index_t, index_t>> elements_of(const hpf::PeriodicRuns& r) {
  std::vector<std::pair<index_t, index_t>> out;
  r.for_each([&](index_t s, index_t d, index_t len) {
    for (index_t t = 0; t < len; ++t) out.emplace_back(s + t, d + t);
  });
  return out;
}

TEST(CeilingSplit, ARangeOfRunsHoldsExactlyThoseElements) {
  std::mt19937 rng(3);
  for (int c = 0; c < 3000; ++c) {
    CyclicMap a;
    CyclicMap b;
    a.n = b.n = draw(rng, 1, 300);
    a.P = static_cast<int>(draw(rng, 1, 5));
    b.P = static_cast<int>(draw(rng, 1, 5));
    a.r = draw(rng, 0, 2) == 0 ? hpf::detail::ceil_div(a.n, a.P) : draw(rng, 1, 7);
    b.r = draw(rng, 0, 2) == 0 ? hpf::detail::ceil_div(b.n, b.P) : draw(rng, 1, 7);
    const int p = static_cast<int>(draw(rng, 0, a.P - 1));
    const std::vector<hpf::PeriodicRuns> to = hpf::periodic_runs_from(a, b, p);
    const hpf::PeriodicRuns& runs = to[static_cast<std::size_t>(draw(rng, 0, b.P - 1))];
    const auto all = elements_of(runs);
    ASSERT_EQ(static_cast<index_t>(all.size()), runs.elements);
    if (all.empty()) continue;
    const index_t e0 = draw(rng, 0, runs.elements);
    const index_t e1 = draw(rng, e0, runs.elements);
    const hpf::PeriodicRuns part = runs.range(e0, e1);
    EXPECT_EQ(part.elements, e1 - e0);
    const std::vector<std::pair<index_t, index_t>> want(all.begin() + e0, all.begin() + e1);
    ASSERT_EQ(elements_of(part), want) << "n " << a.n << " P " << a.P << " r " << a.r << " Q " << b.P << " s "
                                       << b.r << " range [" << e0 << ", " << e1 << ")";
    // Moved as a packed message: the same values in the same order as the whole message's part.
    std::vector<double> block(static_cast<std::size_t>(a.n));
    std::iota(block.begin(), block.end(), 0.0);
    std::vector<double> whole(static_cast<std::size_t>(runs.elements));
    std::vector<double> packed(static_cast<std::size_t>(e1 - e0));
    runs.move<hpf::detail::Side::Src>(block.data(), whole.data());
    part.move<hpf::detail::Side::Src>(block.data(), packed.data());
    ASSERT_TRUE(std::equal(packed.begin(), packed.end(), whole.begin() + e0));
  }
}

TEST(CeilingSplit, PiecesTileTheSectionOncePairedByThePermutation) {
  constexpr int N = 3;
  std::mt19937 rng(7);
  for (int c = 0; c < 2000; ++c) {
    hpf::Section<N> sb{};
    hpf::Section<N> sa{};
    hpf::Permutation<N> perm{0, 1, 2};
    std::shuffle(perm.begin(), perm.end(), rng);
    for (std::size_t d = 0; d < N; ++d) {
      // B's dimension d and A's dimension perm[d] select the same number of elements.
      const index_t n = draw(rng, 0, 6);
      const index_t sbs = draw(rng, 1, 3);
      const index_t sas = draw(rng, 0, 1) == 0 ? draw(rng, 1, 3) : -draw(rng, 1, 3);
      sb[d] = Triplet{2, 2 + (n - 1) * sbs, sbs};
      const index_t alo = 40;
      sa[static_cast<std::size_t>(perm[d])] = Triplet{alo, alo + (n - 1) * sas, sas};
    }
    hpf::detail::CeilingSplit<N> split;
    split.dim = static_cast<int>(draw(rng, 0, N - 1));
    index_t total = 1;
    for (std::size_t d = 0; d < N; ++d) total *= sb[d].extent();
    split.width =
        total == 0 ? 0 : draw(rng, 1, std::max<index_t>(1, sb[static_cast<std::size_t>(split.dim)].extent()));
    // Every element of B's section, by its global indices, with the global indices of A's element.
    std::map<std::array<index_t, N>, std::array<index_t, N>> seen;
    index_t pieces = 0;
    hpf::detail::for_each_piece<N>(
        sb, sa, perm, split, [&](const hpf::Section<N>& pb, const hpf::Section<N>& pa) {
          ++pieces;
          for (std::size_t d = 0; d < N; ++d)
            ASSERT_EQ(pb[d].extent(), pa[static_cast<std::size_t>(perm[d])].extent());
          std::array<index_t, N> k{};
          for (k[2] = 0; k[2] < pb[2].extent(); ++k[2])
            for (k[1] = 0; k[1] < pb[1].extent(); ++k[1])
              for (k[0] = 0; k[0] < pb[0].extent(); ++k[0]) {
                std::array<index_t, N> gb{};
                std::array<index_t, N> ga{};
                for (std::size_t d = 0; d < N; ++d) {
                  gb[d] = pb[d].at(k[d]);
                  const auto ad = static_cast<std::size_t>(perm[d]);
                  ga[ad] = pa[ad].at(k[d]);
                }
                ASSERT_TRUE(seen.emplace(gb, ga).second) << "an element in two pieces";
              }
        });
    EXPECT_EQ(pieces, split.pieces(sb));
    ASSERT_EQ(static_cast<index_t>(seen.size()), total);
    // The pairing: B's section element j (per dimension) takes A's section element j of perm[d].
    std::array<index_t, N> k{};
    for (k[2] = 0; k[2] < sb[2].extent(); ++k[2])
      for (k[1] = 0; k[1] < sb[1].extent(); ++k[1])
        for (k[0] = 0; k[0] < sb[0].extent(); ++k[0]) {
          std::array<index_t, N> gb{};
          std::array<index_t, N> ga{};
          for (std::size_t d = 0; d < N; ++d) {
            gb[d] = sb[d].at(k[d]);
            ga[static_cast<std::size_t>(perm[d])] = sa[static_cast<std::size_t>(perm[d])].at(k[d]);
          }
          ASSERT_EQ(seen.at(gb), ga);
        }
  }
}

} // namespace
