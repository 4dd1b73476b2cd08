// Random process grids and layouts for the MPI tests of sections and transforms: every rank that
// draws with the same seed builds the same grids and layouts.
#pragma once

#include "hpf_test.hpp"
#include "section_random.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <vector>

namespace hpf::test {

/// A grid of `gd` dimensions over a random subset of the world's ranks (gd = 0: one rank, shape {1}).
inline hpf::ProcessGrid random_grid(Rng& rng, int gd) {
  const int size = hpf::test::world_size();
  std::vector<int> ranks(static_cast<std::size_t>(size));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::shuffle(ranks.begin(), ranks.end(), rng.gen);
  int count = gd == 0 ? 1 : static_cast<int>(rng.between(1, size));
  ranks.resize(static_cast<std::size_t>(count));
  std::vector<int> shape(static_cast<std::size_t>(std::max(gd, 1)), 1);
  shape[0] = count;
  for (std::size_t k = 1; k < shape.size(); ++k) { // move a random divisor of shape[0] to dimension k
    std::vector<int> divs;
    for (int v = 1; v <= shape[0]; ++v)
      if (shape[0] % v == 0) divs.push_back(v);
    const int v = divs[static_cast<std::size_t>(rng.between(0, static_cast<hpf::index_t>(divs.size()) - 1))];
    shape[k] = v;
    shape[0] /= v;
  }
  return hpf::ProcessGrid(MPI_COMM_WORLD, ranks, shape);
}

template <int N> hpf::Layout<N> random_layout(Rng& rng, const hpf::Index<N>& ext) {
  std::array<hpf::Distribution, N> dists{};
  int gd = 0;
  for (auto& d : dists) {
    switch (rng.between(0, 3)) {
    case 0:
      d = hpf::Collapsed();
      break;
    case 1:
      d = hpf::Block();
      ++gd;
      break;
    default:
      d = hpf::Cyclic(rng.between(1, 4));
      ++gd;
    }
  }
  return hpf::Layout<N>(ext, dists, random_grid(rng, gd));
}

/// A third of the time, the layout with SHADOW width 1 on every dimension (when it takes one): an
/// assignment moves owned elements only, and the local storage has shadow slots between them.
template <int N> hpf::Layout<N> maybe_shadow(Rng& rng, const hpf::Layout<N>& L) {
  if (rng.between(0, 2) != 0) return L;
  hpf::Index<N> w{};
  w.fill(1);
  try {
    return L.with_shadow(w);
  } catch (const hpf::Error&) { // e.g. a CYCLIC block shorter than the width: same on every rank
    return L;
  }
}

/// A random case's shapes: extents of A and B up to max_extent, a permutation (B's dimension d takes
/// A's perm[d]; the identity unless `permute`), and sections of matching extents (empty a fifth of
/// the time), drawn in that order.
template <int N> struct RandomSections {
  hpf::Index<N> ae{};
  hpf::Index<N> be{};
  std::array<int, N> perm{};
  hpf::Section<N> sa{};
  hpf::Section<N> sb{};
};
template <int N> RandomSections<N> random_sections(Rng& rng, hpf::index_t max_extent, bool may_permute) {
  RandomSections<N> r;
  for (auto& e : r.ae) e = rng.between(0, max_extent);
  for (auto& e : r.be) e = rng.between(0, max_extent);
  std::iota(r.perm.begin(), r.perm.end(), 0);
  if (may_permute && rng.between(0, 1) == 1) std::shuffle(r.perm.begin(), r.perm.end(), rng.gen);
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
    const auto ad = static_cast<std::size_t>(r.perm[d]);
    const hpf::index_t lim = std::min(r.be[d], r.ae[ad]);
    const hpf::index_t cnt = rng.between(0, 4) == 0 ? 0 : rng.between(std::min<hpf::index_t>(1, lim), lim);
    r.sb[d] = random_triplet(rng, r.be[d], cnt);
    r.sa[ad] = random_triplet(rng, r.ae[ad], cnt);
  }
  return r;
}

/// The offset of global index g in Fortran order of extents ext (how gather() orders an array).
template <int N> hpf::index_t linear(const hpf::Index<N>& ext, const hpf::Index<N>& g) {
  hpf::index_t off = 0;
  for (int d = N; d-- > 0;) off = off * ext[static_cast<std::size_t>(d)] + g[static_cast<std::size_t>(d)];
  return off;
}

} // namespace hpf::test
