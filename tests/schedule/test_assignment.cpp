// The exact linear assignment solver (schedule/assignment.hpp, LEMON's network simplex) against
// exhaustive search on thousands of random matrices of up to 7 x 7 (zero, sparse and dense, small and
// 2^40-sized weights), against the matching engine on larger ones, and its errors. Pure.
#include "brute_assignment.hpp"
#include "hpf_test.hpp"
#include "test_scale.hpp"

#include <hpf/schedule/assignment.hpp>
#include <hpf/schedule/matching.hpp>

#include <algorithm>
#include <random>
#include <vector>

namespace {

using hpf::index_t;

template <class Rng> int pick(Rng& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

TEST(Assignment, MatchesBruteForceAndTheMatchingEngine) {
  std::mt19937 rng(7);
  for (int t = 0; t < hpf::test::cases(2000); ++t) {
    const int n = pick(rng, 0, 7);
    const int density = pick(rng, 0, 4); // 0: all zero ... 4: dense
    const index_t scale = pick(rng, 0, 3) == 0 ? index_t{1} << 40U : 20;
    std::vector<index_t> w(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
    for (index_t& x : w)
      if (pick(rng, 0, 3) < density) x = std::uniform_int_distribution<index_t>(0, scale)(rng);
    const hpf::Assignment a = hpf::max_weight_assignment(n, w);
    ASSERT_EQ(a.row_of.size(), static_cast<std::size_t>(n));
    std::vector<int> sorted = a.row_of;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < n; ++i) ASSERT_EQ(sorted[static_cast<std::size_t>(i)], i) << "not a permutation";
    index_t sum = 0;
    for (int j = 0; j < n; ++j)
      sum += w[static_cast<std::size_t>(a.row_of[static_cast<std::size_t>(j)]) * static_cast<std::size_t>(n) +
               static_cast<std::size_t>(j)];
    EXPECT_EQ(a.weight, sum);
    EXPECT_EQ(a.weight, hpf::test::brute_best_assignment(n, w)) << "trial " << t << ", n " << n;
  }
  // Larger matrices: the matching engine (successive shortest paths) finds the same optimum.
  for (int t = 0; t < hpf::test::cases(40); ++t) {
    const int n = pick(rng, 8, 80);
    std::vector<index_t> w(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
    std::vector<hpf::BipartiteEdge> edges;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (pick(rng, 0, 2) == 0) {
          const index_t x = pick(rng, 1, 1000);
          w[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)] = x;
          edges.push_back({i, j, x, 0});
        }
    const auto m =
        hpf::max_weight_bipartite_matching(n, n, edges, hpf::MatchingObjective::WeightThenPriority);
    index_t engine = 0;
    for (const std::size_t e : m) engine += edges[e].weight;
    EXPECT_EQ(hpf::max_weight_assignment(n, w).weight, engine) << "n " << n;
  }
}

TEST(Assignment, ErrorsNameTheArgument) {
  HPF_EXPECT_ERROR(hpf::max_weight_assignment(-1, {}), "n must be >= 0, got -1");
  const std::vector<index_t> w{1, 2, 3};
  HPF_EXPECT_ERROR(hpf::max_weight_assignment(2, w), "weights has 3 entries", "n * n = 4");
  const std::vector<index_t> neg{1, -2, 3, 4};
  HPF_EXPECT_ERROR(hpf::max_weight_assignment(2, neg), "weights[1] (row 0, column 1) = -2", "expected >= 0");
  const std::vector<index_t> huge{hpf::max_assignment_total, 1, 0, 0};
  HPF_EXPECT_ERROR(hpf::max_weight_assignment(2, huge), "sum to", "expected at most");
}

} // namespace
