// The matching engine (include/hpf/schedule/matching.hpp) against exhaustive search on thousands of
// small random bipartite graphs: the edge colourings (every class optimal for its rule, stepwise uses
// the fewest colours there are), the unit-priority maximum matching that the steady-state
// decomposition peels, determinism, and errors. Pure, no MPI.
#include <hpf/core/error.hpp>
#include <hpf/schedule/matching.hpp>

#include <gtest/gtest.h>

#include "hpf_test.hpp"

#include "test_scale.hpp"

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace {

using hpf::BipartiteEdge;
using hpf::ColouringRule;
using hpf::index_t;

std::size_t uz(int v) { return static_cast<std::size_t>(v); }

/// Best (first, second) sum over all matchings of `e`, first = priority or weight as `prio_first` says.
std::pair<index_t, index_t> best_matching(const std::vector<BipartiteEdge>& e, bool prio_first, std::size_t i,
                                          std::vector<char>& usedL, std::vector<char>& usedR) {
  if (i == e.size()) return {0, 0};
  auto best = best_matching(e, prio_first, i + 1, usedL, usedR);
  const BipartiteEdge& x = e[i];
  if (!usedL[uz(x.left)] && !usedR[uz(x.right)]) {
    usedL[uz(x.left)] = usedR[uz(x.right)] = 1;
    auto take = best_matching(e, prio_first, i + 1, usedL, usedR);
    usedL[uz(x.left)] = usedR[uz(x.right)] = 0;
    take.first += prio_first ? x.priority : x.weight;
    take.second += prio_first ? x.weight : x.priority;
    best = std::max(best, take);
  }
  return best;
}

/// Whether the edges from `i` on can take colours in [0, k) with no two edges at a vertex sharing one;
/// `used` colours are taken so far. Colours are interchangeable, so an edge tries the used ones and one
/// new one only.
bool colourable(const std::vector<BipartiteEdge>& e, int k, std::size_t i, int used, std::vector<char>& atL,
                std::vector<char>& atR) {
  if (i == e.size()) return true;
  const std::size_t l = uz(e[i].left) * uz(k);
  const std::size_t r = uz(e[i].right) * uz(k);
  for (int c = 0; c < std::min(k, used + 1); ++c) {
    if (atL[l + uz(c)] || atR[r + uz(c)]) continue;
    atL[l + uz(c)] = atR[r + uz(c)] = 1;
    const bool ok = colourable(e, k, i + 1, std::max(used, c + 1), atL, atR);
    atL[l + uz(c)] = atR[r + uz(c)] = 0;
    if (ok) return true;
  }
  return false;
}

/// The chromatic index by exhaustive search: the fewest colours of a proper edge colouring. Starts at
/// the maximum degree: the edges at one vertex need distinct colours, so fewer never works.
int chromatic_index(int nL, int nR, const std::vector<BipartiteEdge>& e) {
  std::vector<int> row(uz(nL), 0);
  std::vector<int> col(uz(nR), 0);
  int k = 0;
  for (const BipartiteEdge& b : e) k = std::max({k, ++row[uz(b.left)], ++col[uz(b.right)]});
  for (;; ++k) {
    std::vector<char> atL(uz(nL) * uz(k), 0);
    std::vector<char> atR(uz(nR) * uz(k), 0);
    if (colourable(e, k, 0, 0, atL, atR)) return k;
  }
}

struct RandomGraph {
  int nL = 0;
  int nR = 0;
  std::vector<BipartiteEdge> edges;
};

RandomGraph random_graph(std::mt19937_64& rng, int max_side, int max_edges, index_t max_weight) {
  auto uni = [&](index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); };
  RandomGraph g;
  g.nL = static_cast<int>(uni(1, max_side));
  g.nR = static_cast<int>(uni(1, max_side));
  const auto m = static_cast<int>(uni(0, max_edges));
  for (int k = 0; k < m; ++k) // parallel edges allowed
    g.edges.push_back(
        {static_cast<int>(uni(0, g.nL - 1)), static_cast<int>(uni(0, g.nR - 1)), uni(0, max_weight), 0});
  return g;
}

/// Checks one colouring of `g` class by class against exhaustive search. Returns the number of classes.
int check_colouring(const RandomGraph& g, ColouringRule rule, int t) {
  const auto classes = hpf::bipartite_edge_colouring(g.nL, g.nR, g.edges, rule);
  const bool saturate = rule == ColouringRule::SaturateMaxDegree;
  std::vector<char> coloured(g.edges.size(), 0);
  std::vector<int> row(uz(g.nL), 0);
  std::vector<int> col(uz(g.nR), 0);
  for (const BipartiteEdge& b : g.edges) {
    ++row[uz(b.left)];
    ++col[uz(b.right)];
  }
  for (const auto& cls : classes) {
    EXPECT_FALSE(cls.empty()) << "case " << t;
    EXPECT_TRUE(std::is_sorted(cls.begin(), cls.end())) << "case " << t;
    // The remaining graph, with the priorities the rule is defined by.
    const int delta =
        std::max(*std::max_element(row.begin(), row.end()), *std::max_element(col.begin(), col.end()));
    std::vector<BipartiteEdge> rest;
    for (std::size_t e = 0; e < g.edges.size(); ++e)
      if (!coloured[e]) {
        BipartiteEdge b = g.edges[e];
        b.priority = int(row[uz(b.left)] == delta) + int(col[uz(b.right)] == delta);
        rest.push_back(b);
      }
    std::vector<char> usedL(uz(g.nL), 0);
    std::vector<char> usedR(uz(g.nR), 0);
    std::pair<index_t, index_t> got{0, 0};
    for (std::size_t e : cls) {
      if (e >= g.edges.size() || coloured[e]) {
        ADD_FAILURE() << "case " << t << ": edge " << e << " out of range or coloured twice";
        return -1;
      }
      const BipartiteEdge& b = g.edges[e];
      EXPECT_FALSE(usedL[uz(b.left)] || usedR[uz(b.right)]) << "case " << t << ": not a matching";
      usedL[uz(b.left)] = usedR[uz(b.right)] = 1;
      const int prio = int(row[uz(b.left)] == delta) + int(col[uz(b.right)] == delta);
      got.first += saturate ? prio : b.weight;
      got.second += saturate ? b.weight : prio;
    }
    std::fill(usedL.begin(), usedL.end(), 0);
    std::fill(usedR.begin(), usedR.end(), 0);
    EXPECT_EQ(got, best_matching(rest, saturate, 0, usedL, usedR)) << "case " << t;
    for (std::size_t e : cls) {
      coloured[e] = 1;
      --row[uz(g.edges[e].left)];
      --col[uz(g.edges[e].right)];
    }
  }
  EXPECT_TRUE(std::all_of(coloured.begin(), coloured.end(), [](char c) { return c != 0; }))
      << "case " << t << ": some edge has no colour";
  return static_cast<int>(classes.size());
}

TEST(EdgeColouring, EveryClassIsOptimalAndStepwiseUsesTheFewestColours) {
  std::mt19937_64 rng(2025);
  int more_colours = 0; // greedy colourings with more colours than the chromatic index
  for (int t = 0; t < hpf::test::cases(3000); ++t) {
    const RandomGraph g = random_graph(rng, 5, 10, t % 3 == 0 ? 1 : 20);
    const int best = chromatic_index(g.nL, g.nR, g.edges);
    const int stepwise = check_colouring(g, ColouringRule::SaturateMaxDegree, t);
    ASSERT_EQ(stepwise, best) << "case " << t; // König: the chromatic index of a bipartite graph is Δ
    const int greedy = check_colouring(g, ColouringRule::MaxWeight, t);
    ASSERT_GE(greedy, best) << "case " << t;
    more_colours += greedy > best;
    if (::testing::Test::HasFailure()) return;
  }
  // Greedy trades colours for weight on some graphs (Example 5 of Desprez et al.): the search sees it.
  EXPECT_GT(more_colours, 0);
}

TEST(EdgeColouring, LargerGraphsUseMaxDegreeColours) {
  // Beyond exhaustive search: proper, complete, and exactly Δ classes for SaturateMaxDegree.
  std::mt19937_64 rng(11);
  for (int t = 0; t < hpf::test::cases(200); ++t) {
    const RandomGraph g = random_graph(rng, 40, 400, 1000);
    std::vector<int> row(uz(g.nL), 0);
    std::vector<int> col(uz(g.nR), 0);
    for (const BipartiteEdge& b : g.edges) {
      ++row[uz(b.left)];
      ++col[uz(b.right)];
    }
    const int delta =
        std::max(*std::max_element(row.begin(), row.end()), *std::max_element(col.begin(), col.end()));
    for (ColouringRule rule : {ColouringRule::SaturateMaxDegree, ColouringRule::MaxWeight}) {
      const auto classes = hpf::bipartite_edge_colouring(g.nL, g.nR, g.edges, rule);
      if (rule == ColouringRule::SaturateMaxDegree) {
        ASSERT_EQ(static_cast<int>(classes.size()), delta);
      }
      std::vector<char> seen(g.edges.size(), 0);
      for (const auto& cls : classes) {
        std::vector<char> usedL(uz(g.nL), 0);
        std::vector<char> usedR(uz(g.nR), 0);
        for (std::size_t e : cls) {
          ASSERT_LT(e, g.edges.size());
          ASSERT_FALSE(seen[e]);
          seen[e] = 1;
          ASSERT_FALSE(usedL[uz(g.edges[e].left)] || usedR[uz(g.edges[e].right)]);
          usedL[uz(g.edges[e].left)] = usedR[uz(g.edges[e].right)] = 1;
        }
      }
      ASSERT_TRUE(std::all_of(seen.begin(), seen.end(), [](char c) { return c != 0; }));
      // Deterministic: a second call gives the same classes.
      ASSERT_EQ(classes, hpf::bipartite_edge_colouring(g.nL, g.nR, g.edges, rule));
    }
  }
}

TEST(Matching, UnitPriorityIsMaximumCardinality) {
  // What the steady-state decomposition (steady/trees.cpp) asks of the engine: priority 1 on every
  // support entry gives a maximum-cardinality matching; weight 1 on some edges then prefers them.
  std::mt19937_64 rng(5);
  for (int t = 0; t < hpf::test::cases(3000); ++t) {
    RandomGraph g = random_graph(rng, 6, 14, 1);
    for (BipartiteEdge& b : g.edges) b.priority = 1;
    const auto match = hpf::max_weight_bipartite_matching(g.nL, g.nR, g.edges);
    std::vector<char> usedL(uz(g.nL), 0);
    std::vector<char> usedR(uz(g.nR), 0);
    std::pair<index_t, index_t> got{0, 0};
    for (std::size_t e : match) {
      ASSERT_FALSE(usedL[uz(g.edges[e].left)] || usedR[uz(g.edges[e].right)]);
      usedL[uz(g.edges[e].left)] = usedR[uz(g.edges[e].right)] = 1;
      got.first += 1;
      got.second += g.edges[e].weight;
    }
    std::fill(usedL.begin(), usedL.end(), 0);
    std::fill(usedR.begin(), usedR.end(), 0);
    ASSERT_EQ(got, best_matching(g.edges, true, 0, usedL, usedR)) << "case " << t;
  }
}

TEST(EdgeColouring, EmptyAndErrors) {
  EXPECT_TRUE(hpf::bipartite_edge_colouring(0, 0, {}).empty());
  EXPECT_TRUE(hpf::bipartite_edge_colouring(3, 2, {}, ColouringRule::MaxWeight).empty());
  // Zero weights still get coloured (priority drives every class).
  EXPECT_EQ(
      hpf::bipartite_edge_colouring(2, 2, {{0, 0, 0, 0}, {0, 1, 0, 0}}, ColouringRule::MaxWeight).size(), 2U);
  HPF_EXPECT_ERROR(hpf::bipartite_edge_colouring(2, 2, {{0, 2, 1, 0}}), "right vertex 2, expected [0, 2)");
  HPF_EXPECT_ERROR(hpf::bipartite_edge_colouring(2, 2, {{2, 0, 1, 0}}), "left vertex 2, expected [0, 2)");
  HPF_EXPECT_ERROR(hpf::bipartite_edge_colouring(2, 2, {{0, 1, -1, 0}}), "weight -1, expected >= 0");
  HPF_EXPECT_ERROR(hpf::bipartite_edge_colouring(2, 2, {{0, 1, 1, 2}}), "priority 2, expected 0");
  HPF_EXPECT_ERROR(hpf::bipartite_edge_colouring(-1, 2, {}), "num_left must be >= 0, got -1");
}

} // namespace
