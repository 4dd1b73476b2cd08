// The series API (ReductionSeries, ScatterSeries, GossipSeries) and measure_platform, on 1, 2, 3,
// 5 and 7 ranks: every result equals the sequential fold in rank order of a non-commutative operator (2x2
// matrix products modulo 2^64), every scattered block its phase's data; bad input throws hpf::Error on every
// rank and cancels the series.
#include "hpf_test.hpp"
#include "test_scale.hpp"

#include <hpf/array/series.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <string>

namespace {

using hpf::test::world_rank;
using hpf::test::world_size;
using Mat = std::array<std::uint64_t, 4>;

Mat mul(const Mat& x, const Mat& y) {
  return Mat{x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2],
             x[2] * y[1] + x[3] * y[3]};
}

Mat element(hpf::index_t g, std::int64_t t) {
  const auto a = static_cast<std::uint64_t>(g), s = static_cast<std::uint64_t>(t);
  return Mat{1 + 3 * a + 7 * s, 2 + a * s, 5 * s + 11 * a + 1, 3 + a};
}

// The platform is measured once per process (every rank the same) and reused by the series below.
const hpf::steady::MeasuredPlatform& measured() {
  static const hpf::steady::MeasuredPlatform m = [] {
    hpf::steady::MeasureOptions o;
    o.unit_bytes = sizeof(Mat) + 8;
    o.compute = [] {
      volatile std::uint64_t sink = mul(element(1, 2), element(3, 4))[0];
      (void)sink;
    };
    return hpf::steady::measure_platform(hpf::Comm::duplicate(MPI_COMM_WORLD), o);
  }();
  return m;
}

bool same_on_every_rank(const std::string& text) {
  const std::uint64_t h = std::hash<std::string>{}(text);
  std::uint64_t lo = 0, hi = 0;
  HPF_MPI_CHECK(MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD));
  HPF_MPI_CHECK(MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD));
  return lo == hi;
}

TEST(Series, MeasuredPlatformIsTheSameOnEveryRank) {
  const auto& m = measured();
  const int P = world_size();
  EXPECT_EQ(m.platform.node_count(), P);
  EXPECT_EQ(m.platform.edge_count(), P * (P - 1));
  EXPECT_EQ(m.measured_pairs, P * (P - 1) / 2);
  EXPECT_GT(m.time_unit, 0);
  for (const auto& n : m.platform.nodes()) EXPECT_GT(n.speed, 0) << n.name;
  EXPECT_TRUE(same_on_every_rank(m.to_json()));
  // Above pairwise_max the cluster model measures fewer pairs, still the same everywhere.
  hpf::steady::MeasureOptions o;
  o.pairwise_max = 2;
  o.repeats = 3;
  const auto c = hpf::steady::measure_platform(hpf::Comm::duplicate(MPI_COMM_WORLD), o);
  EXPECT_EQ(c.platform.edge_count(), P * (P - 1));
  EXPECT_EQ(c.measured_pairs, static_cast<int>(hpf::steady::measurement_pairs(P, 2).size()));
  EXPECT_TRUE(same_on_every_rank(c.to_json()));
  // An operator that throws on one rank fails every rank, naming it; nothing hangs.
  hpf::steady::MeasureOptions bad;
  bad.compute = [P] {
    if (world_rank() == P - 1) throw std::runtime_error("no");
  };
  HPF_EXPECT_ERROR(hpf::steady::measure_platform(hpf::Comm::duplicate(MPI_COMM_WORLD), bad),
                   "threw on rank " + std::to_string(P - 1));
}

// Phase t of a CYCLIC(3) array of `n` elements; the reference is the fold of every rank's local
// elements (local order), rank after rank.
std::optional<Mat> reference(const hpf::Layout<1>& layout, std::int64_t t) {
  std::optional<Mat> acc;
  const auto& grid = layout.grid();
  for (int pos = 0; pos < grid.size(); ++pos)
    for (hpf::index_t l = 0; l < layout.local_extents(pos)[0]; ++l) {
      const Mat x = element(layout.global_index(pos, {l})[0], t);
      acc = acc ? mul(*acc, x) : x;
    }
  return acc;
}

void check_reduction(hpf::SeriesStrategy strategy, hpf::index_t n, std::int64_t K, std::int64_t batch,
                     int root, hpf::index_t shadow = 0) {
  const int P = world_size();
  root = root % P;
  const auto grid = hpf::ProcessGrid::world({P});
  // With a SHADOW width the local storage has slots between the blocks, which the fold skips.
  const hpf::Layout<1> layout = hpf::Layout<1>({n}, {hpf::Cyclic(3)}, grid).with_shadow({shadow});
  hpf::DistArray<Mat, 1> A("A", layout);
  hpf::SeriesOptions opts;
  opts.root = root;
  opts.strategy = strategy;
  opts.batch = batch;
  opts.expected = K;
  opts.platform = measured();
  hpf::ReductionSeries<Mat> red(layout, mul, opts);
  if (P > 1 && strategy != hpf::SeriesStrategy::Auto) {
    EXPECT_EQ(red.choice().chosen, strategy);
  }
  EXPECT_FALSE(red.choice().reason.empty());
  for (std::int64_t t = 0; t < K; ++t) {
    hpf::forall(A, [t](const hpf::Index<1>& g, Mat& x) { x = element(g[0], t); });
    red.submit(A);
    EXPECT_EQ(red.submitted(), t + 1);
  }
  red.wait_all();
  int wrong = 0;
  for (std::int64_t t = 0; t < K; ++t) {
    const std::optional<Mat> got = red.result(t);
    if (world_rank() == root) {
      const auto want = reference(layout, t);
      ASSERT_EQ(got.has_value(), want.has_value()) << "phase " << t;
      if (got && *got != *want) ++wrong;
    } else {
      EXPECT_FALSE(got.has_value());
    }
  }
  EXPECT_EQ(wrong, 0) << "phases differing from the sequential fold, " << hpf::to_string(strategy) << ", n "
                      << n << ", root " << root;
}

TEST(Series, ReductionSteadyStateEqualsTheSequentialFold) {
  check_reduction(hpf::SeriesStrategy::SteadyState, 37, hpf::test::cases(90), 40, 0);
  check_reduction(hpf::SeriesStrategy::SteadyState, 8, 25, 1000, 1); // fewer elements than ranks at 7
}

TEST(Series, ReductionTreePerOperationEqualsTheSequentialFold) {
  check_reduction(hpf::SeriesStrategy::TreePerOperation, 37, 30, 7, 2);
  check_reduction(hpf::SeriesStrategy::TreePerOperation, 37, 12, 5, 1, 2); // an array with SHADOW width 2
}

TEST(Series, ReductionAutoChoosesAndEqualsTheSequentialFold) {
  check_reduction(hpf::SeriesStrategy::Auto, 20, 30, 1000, 0);
  check_reduction(hpf::SeriesStrategy::Auto, 0, 5, 1000, 0); // an empty array: no result anywhere
}

TEST(Series, ReductionCollectiveEqualsTheSequentialFold) {
  check_reduction(hpf::SeriesStrategy::Collective, 37, 30, 7, 2);
  check_reduction(hpf::SeriesStrategy::Collective, 37, 12, 5, 1, 2); // an array with SHADOW width 2
  check_reduction(hpf::SeriesStrategy::Collective, 5, 9, 1000, 3);   // ranks that own nothing at 3+
  check_reduction(hpf::SeriesStrategy::Collective, 0, 4, 1000, 0);   // an empty array
}

// The vendor reduction takes a whole batch in one MPI_Reduce, cut into pieces of at most 1 MiB: with
// 64 KiB values a batch of 40 phases goes in pieces of 15, 15 and 10, and every phase is still the
// sequential fold in rank order (two batches here, the second shorter).
TEST(Series, ReductionCollectiveCutsABatchIntoPieces) {
  struct Big {
    Mat m;
    std::array<std::uint64_t, 8192> pad; // 64 KiB: 1 MiB holds 15 values with the series' flag
  };
  const int P = world_size();
  const auto grid = hpf::ProcessGrid::world({P});
  const hpf::Layout<1> layout({2 * P + 1}, {hpf::Cyclic(2)}, grid);
  hpf::DistArray<Big, 1> A("A", layout);
  hpf::SeriesOptions opts;
  opts.strategy = hpf::SeriesStrategy::Collective;
  opts.batch = 40;
  opts.expected = 55;
  opts.platform = measured(); // forced strategy: the platform only feeds the (unused) LP
  const auto big_mul = [](const Big& x, const Big& y) {
    Big z{};
    z.m = mul(x.m, y.m);
    z.pad[0] = x.pad[0] + y.pad[0];
    return z;
  };
  hpf::ReductionSeries<Big> red(layout, big_mul, opts);
  for (std::int64_t t = 0; t < opts.expected; ++t) {
    hpf::forall(A, [t](const hpf::Index<1>& g, Big& x) {
      x.m = element(g[0], t);
      x.pad.fill(0);
      x.pad[0] = 1;
    });
    red.submit(A);
  }
  red.wait_all();
  int wrong = 0;
  for (std::int64_t t = 0; t < opts.expected; ++t) {
    const std::optional<Big> got = red.result(t);
    if (world_rank() != 0) {
      EXPECT_FALSE(got.has_value());
      continue;
    }
    const std::optional<Mat> want = reference(layout, t);
    ASSERT_TRUE(got.has_value() && want.has_value()) << "phase " << t;
    if (got->m != *want || got->pad[0] != static_cast<std::uint64_t>(layout.global_size())) ++wrong;
  }
  EXPECT_EQ(wrong, 0) << "phases differing from the sequential fold";
}

// Auto measures the vendor reduction and the steady state (calibration) and decides from agreed
// numbers: the choice and its reason (which prints every number) are the same on every rank.
TEST(Series, ReductionAutoCalibratesAndAgreesOnItsChoice) {
  const int P = world_size();
  const auto grid = hpf::ProcessGrid::world({P});
  const hpf::Layout<1> layout({4 * P + 3}, {hpf::Block()}, grid);
  for (std::int64_t expected : {10, 300}) {
    hpf::SeriesOptions opts;
    opts.platform = measured();
    opts.expected = expected;
    opts.batch = 100;
    hpf::ReductionSeries<Mat> red(layout, mul, opts);
    const hpf::SeriesChoice& c = red.choice();
    EXPECT_TRUE(same_on_every_rank(c.reason + "|" + hpf::to_string(c.chosen))) << c.reason;
    if (P == 1) continue;
    EXPECT_GT(c.collective_seconds, 0) << c.reason;
    EXPECT_GT(c.steady_correction, 0) << c.reason;
    EXPECT_GT(c.calibration_seconds, 0) << c.reason;
    EXPECT_NE(c.reason.find("vendor MPI_Reduce"), std::string::npos) << c.reason;
    // Steady state against the tree charges the LP (it must pay it back); the vendor reduction is
    // chosen when it is faster than the run time of that choice.
    const bool steady = c.steady_seconds + c.lp_seconds < c.tree_seconds;
    const double base = steady ? c.steady_seconds : c.tree_seconds;
    const hpf::SeriesStrategy want = c.collective_seconds < base ? hpf::SeriesStrategy::Collective
                                     : steady                    ? hpf::SeriesStrategy::SteadyState
                                                                 : hpf::SeriesStrategy::TreePerOperation;
    EXPECT_EQ(c.chosen, want) << c.reason;
  }
  // Explicit strategies are not calibrated.
  hpf::SeriesOptions opts;
  opts.platform = measured();
  opts.strategy = hpf::SeriesStrategy::Collective;
  hpf::ReductionSeries<Mat> red(layout, mul, opts);
  EXPECT_EQ(red.choice().collective_seconds, 0);
  EXPECT_EQ(red.choice().steady_correction, 1);
}

TEST(Series, ResultBeforeWaitAllRunsTheWaitingPhases) {
  const int P = world_size();
  const auto grid = hpf::ProcessGrid::world({P});
  const hpf::Layout<1> layout({11}, {hpf::Block()}, grid);
  hpf::DistArray<Mat, 1> A("A", layout);
  hpf::SeriesOptions opts;
  opts.platform = measured();
  opts.strategy = hpf::SeriesStrategy::SteadyState;
  hpf::ReductionSeries<Mat> red(layout, mul, opts);
  for (std::int64_t t = 0; t < 6; ++t) {
    hpf::forall(A, [t](const hpf::Index<1>& g, Mat& x) { x = element(g[0], t); });
    red.submit(A);
    const auto r = red.result(t); // runs phase t now (a batch of one)
    if (world_rank() == 0) {
      EXPECT_EQ(r, reference(layout, t)) << "phase " << t;
    }
  }
}

TEST(Series, ScatterDeliversEveryBlockOfEveryPhase) {
  const int P = world_size();
  for (auto strategy : {hpf::SeriesStrategy::SteadyState, hpf::SeriesStrategy::TreePerOperation}) {
    const int Pr = P >= 2 && P % 2 == 0 ? 2 : 1;
    const auto grid = hpf::ProcessGrid::world({Pr, P / Pr});
    // The tree strategy's target has SHADOW widths: only the owned elements are written.
    const hpf::Index<2> widths{strategy == hpf::SeriesStrategy::TreePerOperation ? 1 : 0, 1};
    const hpf::Layout<2> layout =
        hpf::Layout<2>({7, 5}, {hpf::Cyclic(2), hpf::Block()}, grid).with_shadow(widths);
    hpf::DistArray<std::int64_t, 2> A("A", layout);
    hpf::SeriesOptions opts;
    opts.root = P - 1;
    opts.strategy = strategy;
    opts.batch = 9;
    opts.platform = measured();
    hpf::ScatterSeries<std::int64_t> sc(layout, opts);
    const std::int64_t K = 20;
    auto value = [](std::int64_t t, hpf::index_t i, hpf::index_t j) { return 1000 * t + 10 * i + j; };
    for (std::int64_t t = 0; t < K; ++t) {
      std::vector<std::int64_t> global;
      if (world_rank() == opts.root)
        for (hpf::index_t j = 0; j < 5; ++j)
          for (hpf::index_t i = 0; i < 7; ++i) global.push_back(value(t, i, j)); // Fortran order
      sc.submit(global);
    }
    int wrong = 0;
    for (std::int64_t t = 0; t < K; ++t) {
      A.fill(-1);
      sc.result(t, A);
      for (hpf::index_t j = 0; j < 5; ++j)
        for (hpf::index_t i = 0; i < 7; ++i)
          if (A.owns({i, j}) && A.get({i, j}) != value(t, i, j)) ++wrong;
    }
    EXPECT_EQ(wrong, 0) << "rank " << world_rank() << ", " << hpf::to_string(strategy);
  }
}

TEST(Series, GossipDeliversEveryBlockOfEveryPhase) {
  const int P = world_size(), me = world_rank();
  const auto grid = hpf::ProcessGrid::world({P});
  const hpf::Layout<1> layout({5}, {hpf::Block()}, grid);
  const hpf::index_t count = 3;
  auto value = [](std::int64_t t, int from, int to, hpf::index_t i) {
    return 1000000 * t + 10000 * from + 100 * to + i;
  };
  for (auto strategy : {hpf::SeriesStrategy::SteadyState, hpf::SeriesStrategy::TreePerOperation}) {
    hpf::SeriesOptions opts;
    opts.strategy = strategy;
    opts.batch = 8;
    opts.platform = measured();
    hpf::GossipSeries<std::int64_t> gs(layout, count, opts);
    const std::int64_t K = 19;
    for (std::int64_t t = 0; t < K; ++t) {
      std::vector<std::int64_t> blocks;
      for (int d = 0; d < P; ++d)
        for (hpf::index_t i = 0; i < count; ++i) blocks.push_back(value(t, me, d, i));
      gs.submit(blocks);
    }
    int wrong = 0;
    for (std::int64_t t = 0; t < K; ++t) {
      const auto got = gs.result(t);
      ASSERT_EQ(got.size(), static_cast<std::size_t>(P * count));
      for (int s = 0; s < P; ++s)
        for (hpf::index_t i = 0; i < count; ++i)
          if (got[static_cast<std::size_t>(s * count + i)] != value(t, s, me, i)) ++wrong;
    }
    EXPECT_EQ(wrong, 0) << "rank " << me << ", " << hpf::to_string(strategy);
  }
  hpf::SeriesOptions opts;
  opts.platform = measured();
  hpf::GossipSeries<std::int64_t> gs(layout, count, opts);
  std::vector<std::int64_t> short_blocks(me == P - 1 ? 1 : static_cast<std::size_t>(P * count));
  gs.submit(short_blocks);
  HPF_EXPECT_ERROR(gs.wait_all(), "on rank " + std::to_string(P - 1), "holds 1 elements");
  HPF_EXPECT_ERROR(gs.result(0), "cancelled");
  HPF_EXPECT_ERROR(hpf::GossipSeries<std::int64_t>(layout, 0, opts), "count must be >= 1");
}

TEST(Series, OperatorThatThrowsOnOneRankFailsEveryRank) {
  const int P = world_size();
  const auto grid = hpf::ProcessGrid::world({P});
  const hpf::Layout<1> layout({3 * P + 1}, {hpf::Cyclic(1)}, grid);
  hpf::DistArray<Mat, 1> A("A", layout);
  for (auto strategy : {hpf::SeriesStrategy::SteadyState, hpf::SeriesStrategy::TreePerOperation,
                        hpf::SeriesStrategy::Collective}) {
    hpf::SeriesOptions opts;
    opts.platform = measured();
    opts.strategy = strategy;
    opts.batch = 10;
    const int bad = P - 1;
    // Throws only on rank `bad`, only on phase 13's values (element(g, 13)[0] = 92 + 3 g).
    auto op = [bad](const Mat& x, const Mat& y) {
      if (world_rank() == bad && (x[0] == 92 + 3 * static_cast<std::uint64_t>(bad) ||
                                  y[0] == 92 + 3 * static_cast<std::uint64_t>(bad)))
        throw std::runtime_error("boom on phase 13");
      return mul(x, y);
    };
    hpf::ReductionSeries<Mat> red(layout, op, opts);
    bool threw = false;
    try {
      for (std::int64_t t = 0; t < 20; ++t) {
        hpf::forall(A, [t](const hpf::Index<1>& g, Mat& x) { x = element(g[0], t); });
        red.submit(A);
      }
      red.wait_all();
    } catch (const hpf::Error& e) {
      threw = true;
      EXPECT_NE(std::string(e.what()).find("boom on phase 13"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("on rank " + std::to_string(bad)), std::string::npos) << e.what();
    }
    EXPECT_TRUE(threw) << "rank " << world_rank() << ", " << hpf::to_string(strategy);
    HPF_EXPECT_ERROR(red.submit(A), "cancelled");
    HPF_EXPECT_ERROR(red.wait_all(), "cancelled");
  }
}

TEST(Series, AnotherLayoutOrAPhaseNeverSubmittedThrowsOnEveryRank) {
  const int P = world_size();
  const auto grid = hpf::ProcessGrid::world({P});
  const hpf::Layout<1> layout({10}, {hpf::Block()}, grid);
  const hpf::Layout<1> other({11}, {hpf::Block()}, grid); // (the same map may resolve equal)
  hpf::DistArray<Mat, 1> A("A", layout), B("B", other);
  hpf::SeriesOptions opts;
  opts.platform = measured();
  {
    hpf::ReductionSeries<Mat> red(layout, mul, opts);
    red.submit(A);
    HPF_EXPECT_ERROR(red.submit(B), "phase 1", "'B'", "not the series' layout");
    HPF_EXPECT_ERROR(red.submit(A), "cancelled");
  }
  {
    hpf::ReductionSeries<Mat> red(layout, mul, opts);
    red.submit(A);
    red.submit(A);
    HPF_EXPECT_ERROR(red.result(2), "phase 2 was never submitted", "0..1");
    HPF_EXPECT_ERROR(red.result(0), "cancelled");
  }
  {
    hpf::ScatterSeries<Mat> sc(layout, opts);
    HPF_EXPECT_ERROR(sc.result(0, A), "phase 0 was never submitted");
  }
  {
    hpf::ScatterSeries<Mat> sc(layout, opts);
    std::vector<Mat> wrong(world_rank() == 0 ? 3 : 0);
    sc.submit(wrong);
    HPF_EXPECT_ERROR(sc.wait_all(), "on rank 0", "holds 3 elements", "global size 10");
  }
  opts.strategy = hpf::SeriesStrategy::Collective; // the vendor path is for reductions only
  HPF_EXPECT_ERROR(hpf::ScatterSeries<Mat>(layout, opts), "Collective is for reductions only", "scatter");
  HPF_EXPECT_ERROR(hpf::GossipSeries<Mat>(layout, 2, opts), "Collective is for reductions only");
  opts.strategy = hpf::SeriesStrategy::Auto;
  opts.root = P;
  HPF_EXPECT_ERROR(hpf::ReductionSeries<Mat>(layout, mul, opts), "opts.root", "got " + std::to_string(P));
  opts.root = 0;
  opts.batch = 0;
  HPF_EXPECT_ERROR(hpf::ReductionSeries<Mat>(layout, mul, opts), "opts.batch", "got 0");
}

} // namespace
