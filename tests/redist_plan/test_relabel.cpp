// Process relabeling, pure (no MPI): the weights V against an enumeration of every element, and the
// arrangement against brute force over every arrangement of grids of up to 8 ranks, on thousands of
// random layout pairs (1-D and 2-D; BLOCK, CYCLIC(r), `*`, GEN_BLOCK, INDIRECT; extents that are
// multiples of nothing, and 0; grids of different shapes over the same ranks in different orders),
// and the errors.
#include "brute_assignment.hpp"
#include "hpf_test.hpp"
#include "random_dist.hpp"
#include "test_scale.hpp"

#include <hpf/redist/relabel.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace {

using hpf::Distribution;
using hpf::index_t;
using hpf::RelabelSide;

/// A side as a plain Layout would make it (RelabelSide::plain).
RelabelSide make_side(const std::vector<index_t>& extents, const std::vector<Distribution>& dists,
                      const std::vector<int>& shape, const std::vector<int>& ranks, int parent_size) {
  return RelabelSide::plain(extents, dists, shape, ranks, parent_size);
}

/// V by enumerating every element: its owner on each side from the maps, element by element.
std::vector<index_t> brute_volumes(const RelabelSide& a, const RelabelSide& b) {
  const std::size_t dims = a.maps.size();
  const auto position_of = [dims](const RelabelSide& s, const std::vector<int>& owner) {
    for (int pos = 0; pos < s.size(); ++pos) {
      bool same = true;
      for (std::size_t d = 0; d < dims; ++d) same = same && s.coord(pos, static_cast<int>(d)) == owner[d];
      if (same) return pos;
    }
    ADD_FAILURE() << "no grid position owns an element";
    return 0;
  };
  std::vector<index_t> V(static_cast<std::size_t>(a.size()) * static_cast<std::size_t>(b.size()), 0);
  std::vector<index_t> g(dims, 0);
  index_t count = 1;
  for (const auto& m : a.maps) count *= m.n;
  for (index_t e = 0; e < count; ++e) {
    index_t rest = e;
    std::vector<int> oa(dims);
    std::vector<int> ob(dims);
    for (std::size_t d = 0; d < dims; ++d) {
      g[d] = rest % a.maps[d].n;
      rest /= a.maps[d].n;
      oa[d] = a.maps[d].owner(g[d]);
      ob[d] = b.maps[d].owner(g[d]);
    }
    ++V[static_cast<std::size_t>(position_of(a, oa)) * static_cast<std::size_t>(b.size()) +
        static_cast<std::size_t>(position_of(b, ob))];
  }
  return V;
}

/// Every factorisation of n into a 2-D shape {a, n / a}.
std::vector<std::vector<int>> shapes_2d(int n) {
  std::vector<std::vector<int>> out;
  for (int a = 1; a <= n; ++a)
    if (n % a == 0) out.push_back({a, n / a});
  return out;
}

template <class Rng> int pick(Rng& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

/// A distribution of a distributed dimension of extent n over P processes.
template <class Rng> Distribution random_dist(index_t n, int P, Rng& rng) {
  switch (pick(rng, 0, 9)) {
  case 0:
  case 1:
  case 2:
    return hpf::Block();
  case 3:
    return hpf::test::random_gen_block(n, P, rng);
  case 4:
    return hpf::test::random_indirect(n, P, rng);
  default:
    return hpf::Cyclic(pick(rng, 1, 6));
  }
}

/// One random side over `ranks` (in that order) with `dims` array dimensions of `extents`.
template <class Rng> RelabelSide random_side(const std::vector<index_t>& extents,
                                             const std::vector<int>& ranks, int parent_size, Rng& rng) {
  const int n = static_cast<int>(ranks.size());
  std::vector<int> shape;
  std::vector<Distribution> dists;
  if (extents.size() == 1) {
    shape = {n};
    dists = {random_dist(extents[0], n, rng)};
  } else if (pick(rng, 0, 2) == 0) { // a 1-D grid: one dimension collapsed
    shape = {n};
    const int keep = pick(rng, 0, 1);
    for (int d = 0; d < 2; ++d)
      dists.push_back(d == keep ? random_dist(extents[static_cast<std::size_t>(d)], n, rng)
                                : hpf::Collapsed());
  } else {
    const auto all = shapes_2d(n);
    shape = all[static_cast<std::size_t>(pick(rng, 0, static_cast<int>(all.size()) - 1))];
    for (int d = 0; d < 2; ++d)
      dists.push_back(
          random_dist(extents[static_cast<std::size_t>(d)], shape[static_cast<std::size_t>(d)], rng));
  }
  return make_side(extents, dists, shape, ranks, parent_size);
}

/// The elements an arrangement keeps: target position j stays with ranks[j].
index_t kept_by(const RelabelSide& src, const std::vector<index_t>& V, int cols,
                const std::vector<int>& ranks) {
  index_t kept = 0;
  for (int j = 0; j < cols; ++j) {
    const auto it = std::find(src.ranks.begin(), src.ranks.end(), ranks[static_cast<std::size_t>(j)]);
    const auto i = static_cast<std::size_t>(it - src.ranks.begin());
    kept += V[i * static_cast<std::size_t>(cols) + static_cast<std::size_t>(j)];
  }
  return kept;
}

TEST(Relabel, MatchesBruteForceOnRandomLayoutPairs) {
  std::mt19937 rng(20261207);
  const int trials = hpf::test::cases(3000);
  int moved_less = 0;
  for (int t = 0; t < trials; ++t) {
    const int n = pick(rng, 1, 8);
    const int parent = n + pick(rng, 0, 3);
    std::vector<int> all(static_cast<std::size_t>(parent));
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<int> src_ranks(all.begin(), all.begin() + n);
    std::vector<int> dst_ranks = src_ranks;
    std::shuffle(dst_ranks.begin(), dst_ranks.end(), rng);
    const int dims = pick(rng, 1, 2);
    std::vector<index_t> extents;
    for (int d = 0; d < dims; ++d)
      extents.push_back(pick(rng, 0, 9) == 0 ? 0 : pick(rng, 1, dims == 1 ? 97 : 23));
    const RelabelSide src = random_side(extents, src_ranks, parent, rng);
    const RelabelSide dst = random_side(extents, dst_ranks, parent, rng);
    SCOPED_TRACE("trial " + std::to_string(t) + ": " + std::to_string(n) + " ranks, " + std::to_string(dims) +
                 "-D, extents " + std::to_string(extents[0]) +
                 (dims > 1 ? " x " + std::to_string(extents[1]) : ""));

    const hpf::RelabelVolumes V = hpf::relabel_volumes(src, dst);
    const std::vector<index_t> expect = brute_volumes(src, dst);
    ASSERT_EQ(V.v, expect);
    index_t total = 1;
    for (const index_t e : extents) total *= e;
    ASSERT_EQ(V.total, total);

    const std::size_t bytes = 1 + static_cast<std::size_t>(pick(rng, 0, 15));
    const hpf::Relabeling r = hpf::best_relabeling(src, dst, bytes);
    const index_t best = hpf::test::brute_best_assignment(n, expect);
    const auto b = static_cast<index_t>(bytes);
    EXPECT_EQ(r.bytes_moved, (total - best) * b);
    EXPECT_EQ(r.bytes_moved_given, (total - kept_by(src, expect, n, dst.ranks)) * b);
    std::vector<int> sorted_r = r.ranks;
    std::vector<int> sorted_t = dst.ranks;
    std::sort(sorted_r.begin(), sorted_r.end());
    std::sort(sorted_t.begin(), sorted_t.end());
    ASSERT_EQ(sorted_r, sorted_t) << "the arrangement is not a permutation of the target's ranks";
    EXPECT_EQ(kept_by(src, expect, n, r.ranks), best) << "the arrangement does not keep what it says";
    if (r.bytes_moved == r.bytes_moved_given) {
      EXPECT_EQ(r.ranks, dst.ranks) << "an equal arrangement must stay";
    }
    moved_less += r.bytes_moved < r.bytes_moved_given ? 1 : 0;
  }
  EXPECT_GT(moved_less, trials / 10) << "the random pairs hardly ever gain from relabeling";
}

TEST(Relabel, SameDistributionOnAReversedGridMovesNothing) {
  // BLOCK on 8 ranks in order, then on the same 8 ranks in reverse: the arrangement is the source's.
  const std::vector<int> fwd{0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<int> rev{7, 6, 5, 4, 3, 2, 1, 0};
  const RelabelSide src = make_side({1000}, {hpf::Block()}, {8}, fwd, 8);
  const RelabelSide dst = make_side({1000}, {hpf::Block()}, {8}, rev, 8);
  const hpf::Relabeling r = hpf::best_relabeling(src, dst, 8);
  EXPECT_EQ(r.ranks, fwd);
  EXPECT_EQ(r.bytes_moved, 0);
  EXPECT_EQ(r.bytes_moved_given, 1000 * 8); // every block leaves its rank
}

TEST(Relabel, ErrorsNameTheArgument) {
  const RelabelSide a = make_side({10}, {hpf::Block()}, {3}, {0, 1, 2}, 4);
  const RelabelSide other_set = make_side({10}, {hpf::Block()}, {3}, {0, 1, 3}, 4);
  HPF_EXPECT_ERROR(hpf::best_relabeling(a, other_set), "best_relabeling", "{0, 1, 3}", "{0, 1, 2}",
                   "same set of ranks");
  const RelabelSide subset = make_side({10}, {hpf::Block()}, {2}, {0, 1}, 4);
  HPF_EXPECT_ERROR(hpf::best_relabeling(a, subset), "same set of ranks");
  const RelabelSide other_parent = make_side({10}, {hpf::Block()}, {3}, {0, 1, 2}, 5);
  HPF_EXPECT_ERROR(hpf::best_relabeling(a, other_parent), "parent communicator has 4", "5");
  const RelabelSide other_extent = make_side({11}, {hpf::Block()}, {3}, {2, 1, 0}, 4);
  HPF_EXPECT_ERROR(hpf::best_relabeling(a, other_extent), "extent 10", "11");
  HPF_EXPECT_ERROR(hpf::best_relabeling(a, a, 0), "element_bytes must be >= 1, got 0");
  RelabelSide short_counts = a;
  short_counts.counts.pop_back();
  HPF_EXPECT_ERROR(hpf::relabel_volumes(short_counts, a), "source.counts has 2 entries", "(3)");
  RelabelSide twice = a;
  twice.ranks = {0, 0, 1};
  HPF_EXPECT_ERROR(hpf::best_relabeling(twice, make_side({10}, {hpf::Block()}, {3}, {0, 0, 1}, 4)), "rank 0",
                   "expected each rank once");
}

} // namespace
