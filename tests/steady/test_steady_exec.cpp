// The steady-state executor on 1..5 ranks (Legrand, Marchal and Robert): K scatters / gossips deliver every
// message exactly once with its content; K reductions with a non-commutative operator (2x2 matrix products
// modulo 2^64) equal the left-to-right fold of each time-stamp's operands.
#include "hpf_test.hpp"
#include "test_scale.hpp"

#include <hpf/steady/executor.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <random>

namespace {

using namespace hpf::steady;
using hpf::test::world_rank;

// Series lengths shrink under sanitizers (tests/support/test_scale.hpp), never below a few periods.
std::int64_t scaled(std::int64_t K) {
  return std::max<std::int64_t>(12, hpf::test::cases(static_cast<int>(K)));
}

Platform load(const char* name) { return load_platform(std::string(HPF_STEADY_PLATFORMS) + "/" + name); }

using Mat = std::array<std::uint64_t, 4>;

Mat mul(const Mat& x, const Mat& y) {
  return Mat{x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2],
             x[2] * y[1] + x[3] * y[3]};
}

Mat operand(int participant, std::int64_t stamp) {
  const auto s = static_cast<std::uint64_t>(stamp), i = static_cast<std::uint64_t>(participant);
  return Mat{1 + 3 * i + 7 * s, 2 + i * s, 5 * s + 11 * i + 1, 3 + i};
}

std::int64_t total_over_ranks(std::int64_t x) {
  std::int64_t all = 0;
  HPF_MPI_CHECK(MPI_Allreduce(&x, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
  return all;
}

// Messages: 24 bytes (type, stamp, checksum) so that a wrong route or a duplicate shows.
void check_messages(const Platform& g, const SteadyProblem& pb, std::int64_t K_full,
                    std::int64_t period_max = 0) {
  const std::int64_t K = scaled(K_full);
  const PipelinePlan plan = plan_pipeline(g, pb, K, period_max);
  std::map<std::pair<int, std::int64_t>, int> got;
  PipelineCallbacks cb;
  cb.make = [](int type, std::int64_t stamp, std::byte* out) {
    const std::array<std::int64_t, 3> v{type, stamp, type * 1000003 + stamp * 31};
    std::memcpy(out, v.data(), sizeof v);
  };
  cb.deliver = [&](int group, std::int64_t stamp, const std::byte* in) {
    std::array<std::int64_t, 3> v{};
    std::memcpy(v.data(), in, sizeof v);
    EXPECT_EQ(v[0], group);
    EXPECT_EQ(v[1], stamp);
    EXPECT_EQ(v[2], group * 1000003 + stamp * 31);
    ++got[{group, stamp}];
  };
  const PipelineStats st = run_pipeline(plan, MPI_COMM_WORLD, 24, cb);
  for (const auto& [key, n] : got) EXPECT_EQ(n, 1) << "type " << key.first << " stamp " << key.second;
  for (const auto& [key, n] : got) {
    EXPECT_GE(key.second, 0);
    EXPECT_LT(key.second, K);
  }
  EXPECT_EQ(st.delivered_here, static_cast<std::int64_t>(got.size()));
  EXPECT_EQ(total_over_ranks(st.delivered_here), K * plan.groups);
}

void check_reduce_plan(const PipelinePlan& plan, const SteadyProblem& pb, std::int64_t K);

void check_reduce(const Platform& g, const SteadyProblem& pb, std::int64_t K_full) {
  const std::int64_t K = scaled(K_full);
  check_reduce_plan(plan_pipeline(g, pb, K), pb, K);
}

void check_reduce_plan(const PipelinePlan& plan, const SteadyProblem& pb, std::int64_t K) {
  const int n = static_cast<int>(pb.participants.size());
  std::map<std::int64_t, int> got;
  PipelineCallbacks cb;
  cb.make = [](int i, std::int64_t stamp, std::byte* out) {
    const Mat m = operand(i, stamp);
    std::memcpy(out, m.data(), sizeof m);
  };
  cb.combine = [](const std::byte* a, const std::byte* b, std::byte* out) {
    Mat x{}, y{};
    std::memcpy(x.data(), a, sizeof x);
    std::memcpy(y.data(), b, sizeof y);
    const Mat z = mul(x, y);
    std::memcpy(out, z.data(), sizeof z);
  };
  cb.deliver = [&](int group, std::int64_t stamp, const std::byte* in) {
    EXPECT_EQ(group, 0);
    Mat want = operand(0, stamp);
    for (int i = 1; i < n; ++i) want = mul(want, operand(i, stamp)); // sequential left-to-right fold
    Mat have{};
    std::memcpy(have.data(), in, sizeof have);
    EXPECT_EQ(have, want) << "time-stamp " << stamp;
    ++got[stamp];
  };
  const PipelineStats st = run_pipeline(plan, MPI_COMM_WORLD, sizeof(Mat), cb);
  for (const auto& [stamp, c] : got) EXPECT_EQ(c, 1) << "time-stamp " << stamp;
  EXPECT_EQ(total_over_ranks(st.delivered_here), K);
  // Only the rank playing the target delivers.
  const int target_rank = pb.targets[0] % hpf::test::world_size();
  if (world_rank() != target_rank) {
    EXPECT_EQ(st.delivered_here, 0);
  }
}

} // namespace

TEST(SteadyExec, Figure2Scatter) {
  check_messages(load("figure2_scatter.json"), SteadyProblem::scatter(0, {3, 4}), 150);
}

TEST(SteadyExec, Figure2ScatterFixedPeriod) {
  check_messages(load("figure2_scatter.json"), SteadyProblem::scatter(0, {3, 4}), 90, 5);
}

TEST(SteadyExec, Figure2Gossip) {
  check_messages(load("figure2_scatter.json"), SteadyProblem::gossip({0, 2}, {3, 4}), 80);
}

TEST(SteadyExec, Figure6Reduce) {
  check_reduce(load("figure6_reduce.json"), SteadyProblem::reduce({0, 1, 2}, 0), 120);
}

TEST(SteadyExec, Figure7TwoTrees) {
  // The paper's own solution of Figure 6(b) (period 3): the two trees of Figure 7 carry time-stamps
  // 3j (tree of weight 1/3) and 3j+1, 3j+2 (weight 2/3) through different nodes, and every result
  // must still be the fold of its own operands.
  const Platform g = load("figure6_reduce.json");
  const SteadyProblem pb = SteadyProblem::reduce({0, 1, 2}, 0);
  const Rational third(1, 3), two(2, 3);
  const SteadySolution s = make_solution(g, pb, {{1, 3, two}, {3, 5, third}, {0, 4, third}, {2, 4, two}},
                                         {{1, 1, 1, 2, third}, {2, 1, 1, 2, two}, {0, 0, 0, 2, Rational(1)}});
  ASSERT_EQ(check_solution(g, s), "");
  const PipelinePlan plan = plan_pipeline(g, s, periodic_schedule(g, s, extract_trees(g, s), s.period), 100);
  ASSERT_EQ(plan.trees.size(), 2u);
  check_reduce_plan(plan, pb, 100);
}

TEST(SteadyExec, Figure6ReduceOtherOrder) {
  // Operands in the order P2, P0, P1 with the result on P1: another LP, other trees, same fold.
  Platform g = load("figure6_reduce.json");
  g.add_edge("P0", "P1", Rational(1));
  g.add_edge("P0", "P2", Rational(2));
  check_reduce(g, SteadyProblem::reduce({2, 0, 1}, 1), 100);
}

TEST(SteadyExec, RandomHeterogeneousReduce) {
  // Every rank builds the same platform from the same seed (plans are pure and deterministic).
  std::mt19937 rng(11);
  Platform g;
  const int n = 6;
  for (int i = 0; i < n; ++i) g.add_node("N" + std::to_string(i), Rational(1 + static_cast<long>(rng() % 4)));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j && (j == (i + 1) % n || rng() % 3 == 0))
        g.add_edge("N" + std::to_string(i), "N" + std::to_string(j),
                   Rational(1 + static_cast<long>(rng() % 3), 2));
  check_reduce(g, SteadyProblem::reduce({0, 1, 2, 3, 4}, 5), 60);
  check_messages(g, SteadyProblem::scatter(0, {2, 3, 5}), 60);
}

TEST(SteadyExec, RejectsBadArguments) {
  const Platform g = load("figure2_scatter.json");
  const PipelinePlan plan = plan_pipeline(g, SteadyProblem::scatter(0, {3, 4}), 5);
  PipelineCallbacks cb;
  HPF_EXPECT_ERROR((void)run_pipeline(plan, MPI_COMM_WORLD, 8, cb),
                   "make and callbacks.deliver are required");
  cb.make = [](int, std::int64_t, std::byte*) {};
  cb.deliver = [](int, std::int64_t, const std::byte*) {};
  HPF_EXPECT_ERROR((void)run_pipeline(plan, MPI_COMM_WORLD, 0, cb), "value_bytes must be >= 1, got 0");
  HPF_EXPECT_ERROR((void)run_pipeline(plan, MPI_COMM_WORLD, 8, cb, {0, 0}), "node_rank has 2 entries");
}
