// ColouringRule::Fast (König by alternating paths) against brute-force checks on thousands of random
// bipartite multigraphs: every class is a matching, every edge is in exactly one class, and there are
// exactly max-degree classes. And the König schedulers' fallback on a grid too large for one matching
// per step: a valid schedule with NS = max degree, planned quickly.
#include <hpf/schedule/matching.hpp>
#include <hpf/schedule/strategy.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace {

using hpf::BipartiteEdge;
using hpf::index_t;

TEST(FastColouring, ValidWithMaxDegreeColoursOnRandomGraphs) {
  std::mt19937_64 rng(2026);
  for (int t = 0; t < 4000; ++t) {
    const int L = 1 + static_cast<int>(rng() % 12);
    const int R = 1 + static_cast<int>(rng() % 12);
    const int density = static_cast<int>(rng() % 101); // percent of pairs, some repeated (multigraph)
    std::vector<BipartiteEdge> edges;
    for (int u = 0; u < L; ++u)
      for (int v = 0; v < R; ++v) {
        const int copies = static_cast<int>(rng() % 100) < density ? 1 + static_cast<int>(rng() % 2) : 0;
        for (int k = 0; k < copies; ++k) edges.push_back({u, v, static_cast<index_t>(rng() % 50), 0});
      }
    std::shuffle(edges.begin(), edges.end(), rng);
    std::vector<int> deg(static_cast<std::size_t>(L + R), 0);
    for (const auto& e : edges) {
      ++deg[static_cast<std::size_t>(e.left)];
      ++deg[static_cast<std::size_t>(L + e.right)];
    }
    const int delta = edges.empty() ? 0 : *std::max_element(deg.begin(), deg.end());
    const auto classes = hpf::bipartite_edge_colouring(L, R, edges, hpf::ColouringRule::Fast);
    ASSERT_EQ(static_cast<int>(classes.size()), delta) << "t=" << t;
    std::vector<int> seen(edges.size(), 0);
    for (const auto& cls : classes) {
      ASSERT_FALSE(cls.empty());
      std::set<int> lefts;
      std::set<int> rights;
      for (std::size_t e : cls) {
        ASSERT_LT(e, edges.size());
        ++seen[e];
        ASSERT_TRUE(lefts.insert(edges[e].left).second)
            << "t=" << t << ": two edges at left " << edges[e].left;
        ASSERT_TRUE(rights.insert(edges[e].right).second)
            << "t=" << t << ": two edges at right " << edges[e].right;
      }
    }
    for (std::size_t e = 0; e < edges.size(); ++e) ASSERT_EQ(seen[e], 1) << "t=" << t << " edge " << e;
  }
}

/// The grid of CYCLIC(1) on P -> CYCLIC(1) on Q over one slice of P Q elements: all-to-all, one
/// element per pair (Lemma 2 of Desprez et al.), plus some heavier pairs so that weights differ.
hpf::CommMatrix dense(int P, int Q) {
  hpf::CommMatrix g(P, Q);
  for (int p = 0; p < P; ++p)
    for (int q = 0; q < Q; ++q) g.add(p, q, 1 + (p * 7 + q * 3) % 5);
  return g;
}

// A dense all-to-all grid (600 x 599): one matching per step would take tens of seconds; the
// fallback gives a valid schedule with NS = max degree.
TEST(FastColouring, KoenigFallsBackOnLargeDenseGrids) {
  const hpf::CommMatrix grid = dense(600, 599);
  ASSERT_TRUE(hpf::koenig_uses_fast_colouring(grid));
  for (const hpf::Schedule& s : {hpf::koenig_stepwise_schedule(grid), hpf::koenig_greedy_schedule(grid)}) {
    EXPECT_EQ(hpf::check_schedule(s, grid), "");
    EXPECT_EQ(s.num_steps(), grid.max_degree());
    EXPECT_GE(s.total_cost(), grid.max_volume());
  }
  // A small grid still takes the exact matchings.
  EXPECT_FALSE(hpf::koenig_uses_fast_colouring(dense(20, 19)));
}

} // namespace
