// Pipelines of K operations on the periodic schedule (Legrand, Marchal and Robert, Sections 3.4 and 4.3):
// Lemma 1 (no schedule beats TP * time), Proposition 1 (K / makespan -> TP), phases and buffer bound.
#include <hpf/core/error.hpp>
#include <hpf/steady/pipeline.hpp>

#include <gtest/gtest.h>

#include <algorithm>

#include "hpf_test.hpp"

using namespace hpf::steady;

namespace {

// Longest chain of tasks (transfers and computations) from a leaf to the delivered value.
std::int64_t depth(const WeightedTree& t, int task = 0) {
  const TreeTask& k = t.tasks[static_cast<std::size_t>(task)];
  std::int64_t d = 0;
  for (int in : {k.input_a, k.input_b})
    if (in >= 0) d = std::max(d, depth(t, in));
  return d + 1;
}

Platform load(const char* name) { return load_platform(std::string(HPF_STEADY_PLATFORMS) + "/" + name); }

// Section 3.4: steady(G, K) / opt(G, K) -> 1. Checks Lemma 1 exactly and the convergence.
void expect_asymptotically_optimal(const Platform& g, const SteadyProblem& pb) {
  const SteadySolution s = solve(g, pb);
  Rational previous = 0;
  for (std::int64_t K : {7, 60, 600, 3000}) {
    const PipelinePlan p = plan_pipeline(g, pb, K);
    SCOPED_TRACE("K = " + std::to_string(K));
    EXPECT_EQ(p.throughput, s.throughput);
    EXPECT_EQ(p.delivered.back(), K);
    // Lemma 1: within makespan time units no schedule completes more than TP * makespan operations.
    EXPECT_LE(Rational(K), s.throughput * Rational(p.makespan()));
    // Every period until the last completes at most TP * T operations.
    for (std::size_t i = 0; i < p.delivered.size(); ++i)
      EXPECT_LE(Rational(p.delivered[i]), s.throughput * Rational(p.period) * static_cast<long>(i + 1));
    // Proposition 1: the achieved rate approaches TP (monotonically here: a fixed start-up cost).
    const Rational rate = Rational(K) / Rational(p.makespan());
    EXPECT_GE(rate, previous);
    previous = rate;
    EXPECT_EQ(p.init_periods + p.steady_periods + p.cleanup_periods, p.periods);
    // Section 3.4: a buffer never holds more than twice what it forwards per period.
    EXPECT_LE(p.max_buffer_ratio, Rational(2));
    // Section 3.4: initialisation lasts at most I (the depth of the trees, in periods) and clean-up at
    // most I + T; a task advances a value at least one hop per period.
    std::int64_t I = 0;
    for (const auto& t : p.trees) I = std::max(I, depth(t));
    if (p.steady_periods > 0) {
      EXPECT_LE(p.init_periods, I);
      EXPECT_LE(p.cleanup_periods, I + 1);
    }
  }
  EXPECT_GE(previous, s.throughput * Rational(9, 10)); // within 10% of TP at K = 3000
}

} // namespace

TEST(SteadyPipeline, Figure2ScatterIsAsymptoticallyOptimal) {
  const Platform g = load("figure2_scatter.json");
  expect_asymptotically_optimal(g, SteadyProblem::scatter(0, {3, 4}));
  const PipelinePlan p = plan_pipeline(g, SteadyProblem::scatter(0, {3, 4}), 600);
  // Initialisation: two hops to P0/P1 take one period; then full periods; clean-up empties buffers.
  EXPECT_GE(p.init_periods, 1);
  EXPECT_GT(p.steady_periods, 90);
  EXPECT_EQ(p.period, 12);
}

TEST(SteadyPipeline, Figure6ReduceIsAsymptoticallyOptimal) {
  const Platform g = load("figure6_reduce.json");
  expect_asymptotically_optimal(g, SteadyProblem::reduce({0, 1, 2}, 0));
}

TEST(SteadyPipeline, GossipAndFixedPeriod) {
  const Platform g = load("figure2_scatter.json");
  expect_asymptotically_optimal(g, SteadyProblem::gossip({0, 2}, {3, 4}));
  // A fixed period of 5 on Figure 2: TP_fixed = 2/5 (Section 4.6), executed at that rate.
  const PipelinePlan p = plan_pipeline(g, SteadyProblem::scatter(0, {3, 4}), 400, 5);
  EXPECT_EQ(p.period, 5);
  EXPECT_EQ(p.throughput, Rational(2, 5));
  EXPECT_LE(Rational(400), Rational(1, 2) * Rational(p.makespan())); // still bounded by the optimum
}

TEST(SteadyPipeline, StampsPartitionTheOperations) {
  const Platform g = load("figure2_scatter.json");
  const PipelinePlan p = plan_pipeline(g, SteadyProblem::scatter(0, {3, 4}), 37);
  for (int grp = 0; grp < p.groups; ++grp) {
    std::vector<int> seen(37, 0);
    for (std::size_t t = 0; t < p.trees.size(); ++t) {
      if (p.trees[t].group != grp) continue;
      for (std::int64_t n = 0; n < p.tree_total(static_cast<int>(t)); ++n) {
        const std::int64_t st = p.stamp(static_cast<int>(t), n);
        ASSERT_GE(st, 0);
        ASSERT_LT(st, 37);
        ++seen[static_cast<std::size_t>(st)];
      }
    }
    EXPECT_EQ(seen, std::vector<int>(37, 1));
  }
}

TEST(SteadyPipeline, RejectsBadArguments) {
  const Platform g = load("figure2_scatter.json");
  HPF_EXPECT_ERROR((void)plan_pipeline(g, SteadyProblem::scatter(0, {3, 4}), 0), "K must be >= 1, got 0");
  HPF_EXPECT_ERROR((void)plan_pipeline(g, SteadyProblem::scatter(1, {3, 4}), 5), "TP = 0", "unreachable");
  HPF_EXPECT_ERROR((void)plan_pipeline(g, SteadyProblem::scatter(0, {3, 4}), 5, -1),
                   "period_max must be >= 0");
}

namespace {

// The period as the one hpf::Schedule: one step per matching, one message per platform edge
// with the values of a full period, the matching's duration and the period T; a valid schedule of
// the per-period edge volumes, and period_schedule(p) moves exactly moved[p].
void expect_schedule_of_period(const Platform& g, const PipelinePlan& p) {
  const hpf::Schedule& s = p.schedule;
  EXPECT_EQ(s.num_senders(), g.node_count());
  EXPECT_EQ(s.num_steps(), static_cast<int>(p.steps.size()));
  EXPECT_DOUBLE_EQ(s.period(), p.period.convert_to<double>());
  hpf::CommMatrix volumes(g.node_count(), g.node_count());
  for (std::size_t st = 0; st < p.steps.size(); ++st) {
    EXPECT_DOUBLE_EQ(s.steps()[st].duration, p.step_duration[st].convert_to<double>());
    for (const auto& tr : p.steps[st]) volumes.add(tr.from, tr.to, tr.per_period);
  }
  EXPECT_EQ(hpf::check_schedule(s, volumes), "");
  for (std::int64_t q = 0; q < p.periods; ++q) {
    const hpf::Schedule ps = p.period_schedule(q);
    std::int64_t sum = 0, want = 0;
    for (const auto& st : ps.steps())
      for (const auto& m : st.messages) sum += m.len;
    for (std::int64_t n : p.moved[static_cast<std::size_t>(q)]) want += n;
    EXPECT_EQ(sum, want) << "period " << q;
    if (q >= p.init_periods && q < p.init_periods + p.steady_periods) {
      EXPECT_EQ(ps.steps().size(), s.steps().size());
      for (std::size_t st = 0; st < s.steps().size(); ++st)
        EXPECT_EQ(ps.steps()[st].messages, s.steps()[st].messages);
    }
  }
  HPF_EXPECT_ERROR((void)p.period_schedule(p.periods), "period must be in");
}

TEST(SteadyPipeline, PeriodIsOneSchedule) {
  const Platform g2 = load("figure2_scatter.json");
  expect_schedule_of_period(g2, plan_pipeline(g2, SteadyProblem::scatter(0, {3, 4}), 600));
  expect_schedule_of_period(g2, plan_pipeline(g2, SteadyProblem::scatter(0, {3, 4}), 400, 5));
  const Platform g6 = load("figure6_reduce.json");
  expect_schedule_of_period(g6, plan_pipeline(g6, SteadyProblem::reduce({0, 1, 2}, 0), 300));
  expect_schedule_of_period(g2, plan_pipeline(g2, SteadyProblem::gossip({0, 2}, {3, 4}), 300));
}

} // namespace
