// Fidelity of tree extraction: EXTRACT_TREES (Legrand, Marchal and Robert, Figure 8) on the solver's *own*
// optimal solutions -- of Figure 6 and of random platforms, including the complete platforms that
// measure_platform builds -- gives reduction trees that each compute the whole v[0, N] at the target
// from the participants' own values in operand order, whose weights sum to TP exactly, and whose
// periodic schedule moves w(T) x period operations of each tree.
#include "hpf_test.hpp"
#include "test_scale.hpp"

#include <hpf/steady/measure.hpp>
#include <hpf/steady/steady.hpp>

#include <optional>
#include <random>
#include <utility>

namespace {

using namespace hpf::steady;

// The range [first, last] of operands a task's output holds, evaluated from the leaves up, checking
// on the way that every value is where the task uses it and that every computation joins adjacent
// ranges left to right (so a non-commutative operator gives the fold in operand order).
std::pair<int, int> range_of(const Platform& g, const SteadySolution& s, const WeightedTree& t, int k,
                             std::string& why) {
  const TreeTask& task = t.tasks[static_cast<std::size_t>(k)];
  const auto& parts = s.problem.participants;
  auto leaf = [&](int i, int node) {
    if (parts[static_cast<std::size_t>(i)] != node)
      why +=
          "leaf v[" + std::to_string(i) + "," + std::to_string(i) + "] used on " + g.node(node).name + "; ";
    return std::pair{i, i};
  };
  auto input = [&](int in, int leaf_index) {
    if (in < 0) return leaf(leaf_index, task.node);
    const TreeTask& src = t.tasks[static_cast<std::size_t>(in)];
    const int where = src.kind == TreeTask::Send ? src.peer : src.node;
    if (where != task.node) why += "an input of task " + std::to_string(k) + " is on another node; ";
    return range_of(g, s, t, in, why);
  };
  if (task.kind == TreeTask::Send) {
    const MessageType& m = s.types[static_cast<std::size_t>(task.type)];
    const auto r = input(task.input_a, m.first);
    if (r != std::pair{m.first, m.last}) why += "a send moves another range than its type; ";
    if (g.edge(task.edge).from != task.node || g.edge(task.edge).to != task.peer)
      why += "a send off its edge; ";
    return r;
  }
  const auto a = input(task.input_a, task.k), b = input(task.input_b, task.m);
  if (a != std::pair{task.k, task.l} || b != std::pair{task.l + 1, task.m})
    why += "T(" + std::to_string(task.k) + "," + std::to_string(task.l) + "," + std::to_string(task.m) +
           ") does not join v[k,l] and v[l+1,m]; ";
  if (g.node(task.node).speed <= 0) why += "a router computes; ";
  return {a.first, b.second};
}

void expect_faithful(const Platform& g, const SteadyProblem& pb) {
  const SteadySolution s = solve(g, pb);
  ASSERT_EQ(check_solution(g, s), "");
  ASSERT_GT(s.throughput, 0);
  const auto trees = extract_trees(g, s);
  ASSERT_FALSE(trees.empty());
  Rational total = 0;
  const int N = static_cast<int>(pb.participants.size()) - 1;
  for (std::size_t i = 0; i < trees.size(); ++i) {
    const WeightedTree& t = trees[i];
    EXPECT_GT(t.weight, 0) << "tree " << i;
    total += t.weight;
    std::string why;
    const auto r = range_of(g, s, t, 0, why);
    EXPECT_EQ(why, "") << "tree " << i;
    EXPECT_EQ(r, (std::pair{0, N})) << "tree " << i << " does not reduce every operand";
    // The root task delivers at the target: a computation there, or a send into it.
    const TreeTask& top = t.tasks.front();
    EXPECT_EQ(top.kind == TreeTask::Send ? top.peer : top.node, pb.targets.front()) << "tree " << i;
  }
  EXPECT_EQ(total, s.throughput) << "the trees' weights must sum to TP";
  const PeriodicSchedule ps = periodic_schedule(g, s, trees, s.period);
  for (std::size_t i = 0; i < trees.size(); ++i)
    EXPECT_EQ(Rational(ps.tree_count[i]), trees[i].weight * Rational(s.period)) << "tree " << i;
}

TEST(SteadyFidelity, Figure6SolversOwnSolution) {
  Platform g;
  g.add_node("P0", Rational(2));
  g.add_node("P1", Rational(1));
  g.add_node("P2", Rational(1));
  for (auto [a, b] : {std::pair{"P1", "P0"}, {"P1", "P2"}, {"P2", "P0"}, {"P2", "P1"}}) g.add_edge(a, b, 1);
  const SteadyProblem pb = SteadyProblem::reduce({0, 1, 2}, 0);
  EXPECT_EQ(solve(g, pb).throughput, Rational(1)); // Section 4.5: TP = 1
  expect_faithful(g, pb);
}

TEST(SteadyFidelity, RandomPlatformsSolversOwnSolutions) {
  std::mt19937 rng(1414);
  const std::vector<Rational> costs{Rational(1, 2), Rational(1), Rational(3, 2), Rational(2), Rational(3)};
  for (int trial = 0; trial < hpf::test::cases(40); ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int n = 3 + trial % 4;
    Platform g;
    for (int i = 0; i < n; ++i)
      g.add_node("N" + std::to_string(i), Rational(1 + static_cast<long>(rng() % 3)));
    auto name = [](int i) { return "N" + std::to_string(i); };
    for (int i = 0; i < n; ++i) g.add_edge(name(i), name((i + 1) % n), costs[rng() % costs.size()]);
    for (int k = 0; k < n; ++k) {
      const int a = static_cast<int>(rng() % static_cast<unsigned>(n)),
                b = static_cast<int>(rng() % static_cast<unsigned>(n));
      if (a != b && !g.find_edge(a, b)) g.add_edge(name(a), name(b), costs[rng() % costs.size()]);
    }
    std::vector<int> parts(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) parts[static_cast<std::size_t>(i)] = i;
    std::shuffle(parts.begin(), parts.end(), rng);
    parts.resize(static_cast<std::size_t>(2 + trial % (n - 1)));
    expect_faithful(g, SteadyProblem::reduce(parts, static_cast<int>(rng() % static_cast<unsigned>(n))));
  }
}

// The platforms the series runs on: complete, from (random) measurements, every rank a participant.
TEST(SteadyFidelity, MeasuredPlatformsSolversOwnSolutions) {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> secs(1e-6, 3e-6), task(1e-7, 1e-6);
  for (int trial = 0; trial < hpf::test::cases(12); ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int P = 2 + trial % 4;
    MeasuredCosts c;
    c.ranks = P;
    c.pairs = measurement_pairs(P, 8);
    for (std::size_t k = 0; k < c.pairs.size(); ++k) c.seconds.push_back(secs(rng));
    for (int r = 0; r < P; ++r) c.task_seconds.push_back(task(rng));
    MeasureOptions o;
    o.digits = 1; // coarse costs keep the exact LP small
    const MeasuredPlatform m = platform_from_costs(c, o);
    std::vector<int> all(static_cast<std::size_t>(P));
    for (int r = 0; r < P; ++r) all[static_cast<std::size_t>(r)] = r;
    expect_faithful(m.platform, SteadyProblem::reduce(all, trial % P));
  }
}

} // namespace
