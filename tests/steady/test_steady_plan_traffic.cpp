// solve(..., SolveGoal::LeastTraffic): the same throughput as the plain solve, with the least total
// transfer time among the optimal solutions (the series' choice, docs/series.md).
#include <hpf/steady/steady.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

using namespace hpf::steady;

namespace {

Rational traffic(const SteadySolution& s) {
  Rational sum(0);
  for (const Rational& l : s.edge_load) sum += l;
  return sum;
}

void expect_least_traffic(const Platform& g, const SteadyProblem& pb) {
  const SteadySolution any = solve(g, pb);
  const SteadySolution least = solve(g, pb, SolveGoal::LeastTraffic);
  EXPECT_EQ(check_solution(g, least), "");
  EXPECT_EQ(least.throughput, any.throughput);
  EXPECT_LE(traffic(least), traffic(any));
  EXPECT_GT(traffic(least), 0); // every operation moves at least one message
  if (pb.op != SteadyOp::Reduce) return;
  // A reduction's trees carry the whole throughput (Theorem 1).
  const auto trees = extract_trees(g, least);
  Rational weight(0);
  for (const auto& t : trees) weight += t.weight;
  EXPECT_EQ(weight, least.throughput);
}

} // namespace

TEST(SteadyLeastTraffic, TwoNodesTheTargetCombines) {
  // Communication is the bottleneck (cost 4, speed 1): "1 sends, 0 combines" and "0 sends, 1
  // combines, 1 sends back" both reach TP = 1/4; only the first moves one message per operation.
  Platform g;
  g.add_node("r0", Rational(1));
  g.add_node("r1", Rational(1));
  g.add_edge("r0", "r1", Rational(4));
  g.add_edge("r1", "r0", Rational(4));
  const SteadyProblem pb = SteadyProblem::reduce({0, 1}, 0);
  const SteadySolution s = solve(g, pb, SolveGoal::LeastTraffic);
  EXPECT_EQ(s.throughput, Rational(1, 4));
  EXPECT_EQ(traffic(s), Rational(1)); // TP x one message of cost 4
  for (const auto& f : s.sends) EXPECT_EQ(g.edge(f.edge).to, 0) << "a value travelled away from the target";
  ASSERT_EQ(s.tasks.size(), 1u);
  EXPECT_EQ(s.tasks[0].node, 0);
  expect_least_traffic(g, pb);
}

TEST(SteadyLeastTraffic, RandomPlatformsKeepThroughput) {
  std::mt19937 rng(77);
  const std::vector<Rational> costs{Rational(1, 2), Rational(1), Rational(2), Rational(3)};
  for (int trial = 0; trial < 8; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int n = 3 + trial % 3;
    Platform g; // complete graph, random speeds and costs (asymmetric)
    for (int i = 0; i < n; ++i)
      g.add_node("n" + std::to_string(i), Rational(1 + static_cast<long>(rng() % 4)));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i != j) g.add_edge("n" + std::to_string(i), "n" + std::to_string(j), costs[rng() % costs.size()]);
    std::vector<int> all;
    for (int i = 0; i < n; ++i) all.push_back(i);
    expect_least_traffic(g, SteadyProblem::reduce(all, static_cast<int>(rng() % static_cast<unsigned>(n))));
    expect_least_traffic(g, SteadyProblem::scatter(0, std::vector<int>(all.begin() + 1, all.end())));
  }
}
