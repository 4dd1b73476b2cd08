// GatherPlan / ScatterPlan on 1..8 ranks: random index arrays (duplicates, any order, empty lists,
// ranks outside the grid) against a serial reference, for every all-to-many algorithm and every
// executor, executed repeatedly; scatter with + and with a non-commutative associative op;
// out-of-range indices rejected on every rank.
#include <hpf/array/irregular.hpp>

#include "hpf_test.hpp"

#include <numeric>

namespace {

using hpf::AllToManyAlgo;
using hpf::DistArray;
using hpf::ExecMode;
using hpf::Index;
using hpf::index_t;
using hpf::IrregularOptions;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::test::world_rank;
using hpf::test::world_size;

/// Rank r's index list in trial t (every rank can rebuild every list for the serial reference).
std::vector<index_t> indices_of(int r, int t, index_t extent) {
  hpf::detail::SplitMix64 rng(static_cast<std::uint64_t>(t) * 7919 + static_cast<std::uint64_t>(r));
  const auto m = static_cast<std::size_t>(rng.below(3) == 0 ? rng.below(4) : rng.below(300));
  std::vector<index_t> idx(m);
  for (auto& i : idx) i = static_cast<index_t>(rng.below(static_cast<std::uint64_t>(extent)));
  if (m > 4) idx[m / 2] = idx[1]; // a guaranteed duplicate
  return idx;
}

double value_of(index_t g, int round) { return static_cast<double>(g) * 3.0 + round * 1000.0 + 0.25; }

std::vector<IrregularOptions> all_options() {
  std::vector<IrregularOptions> out;
  const bool pow2 = (world_size() & (world_size() - 1)) == 0;
  for (AllToManyAlgo a : hpf::all_to_many_algos()) {
    IrregularOptions o;
    o.schedule = {a, pow2 ? hpf::RoutingKind::Hypercube : hpf::RoutingKind::Mesh2D, 5};
    out.push_back(o); // the paper's executor for the algorithm
    for (ExecMode m : {ExecMode::Handshake, ExecMode::AllAtOnce})
      if (m != hpf::paper_exec_mode(a)) {
        o.mode = m;
        out.push_back(o);
      }
  }
  IrregularOptions v;
  v.mode = ExecMode::Alltoallv;
  out.push_back(v);
  return out;
}

/// Layouts of a 1-D array: over all ranks, and (with >= 3 ranks) over a subset in another order.
std::vector<Layout<1>> layouts(index_t n) {
  std::vector<Layout<1>> out;
  const ProcessGrid all = ProcessGrid::world({world_size()});
  out.emplace_back(Index<1>{n}, std::array<hpf::Distribution, 1>{hpf::Block()}, all);
  out.emplace_back(Index<1>{n}, std::array<hpf::Distribution, 1>{hpf::Cyclic(3)}, all);
  if (world_size() >= 3) {
    std::vector<int> ranks;
    for (int r = world_size() - 1; r >= 1; --r) ranks.push_back(r); // rank 0 outside, reversed
    const ProcessGrid sub(MPI_COMM_WORLD, ranks, {static_cast<int>(ranks.size())});
    out.emplace_back(Index<1>{n}, std::array<hpf::Distribution, 1>{hpf::Cyclic(2)}, sub);
  }
  return out;
}

TEST(IrregularPlans, GatherMatchesSerialReference) {
  const index_t n = 157;
  int trial = 0;
  for (const Layout<1>& L : layouts(n)) {
    DistArray<double, 1> x("x", L);
    for (const IrregularOptions& opt : all_options()) {
      const std::vector<index_t> idx = indices_of(world_rank(), ++trial, n);
      const hpf::GatherPlan<double, 1> plan(x, idx, opt);
      EXPECT_EQ(plan.size(), idx.size());
      EXPECT_EQ(hpf::check_schedule(plan.schedule(),
                                    [&] {
                                      hpf::CommMatrix t(world_size(), world_size());
                                      for (const hpf::Message& m : plan.com().entries())
                                        t.add(m.dst, m.src, m.len);
                                      return t;
                                    }()),
                "");
      for (int round = 0; round < 3; ++round) { // executed many times, x changing in between
        hpf::forall(x, [round](const Index<1>& g, double& v) { v = value_of(g[0], round); });
        const std::vector<double> y = plan.execute(x);
        EXPECT_EQ(y.size(), idx.size());
        // EXPECT, never ASSERT, inside loops that run collectives: an early return on one rank
        // would leave the others waiting in the next plan's collectives (a hang, not a failure).
        for (std::size_t i = 0; i < std::min(y.size(), idx.size()); ++i)
          if (y[i] != value_of(idx[i], round)) {
            ADD_FAILURE() << "y[" << i << "] = " << y[i] << ", expected " << value_of(idx[i], round)
                          << " (index " << idx[i] << ") algo " << hpf::to_string(opt.schedule.algo)
                          << " mode " << hpf::to_string(plan.mode()) << " layout " << L.describe_dists();
            break;
          }
      }
    }
  }
}

TEST(IrregularPlans, DuplicatesCrossTheNetworkOnce) {
  const ProcessGrid all = ProcessGrid::world({world_size()});
  const Layout<1> L({40}, {hpf::Block()}, all);
  DistArray<int, 1> x("x", L);
  // Every rank asks for element 39 (owned by the last rank) 50 times.
  const std::vector<index_t> idx(50, 39);
  const hpf::GatherPlan<int, 1> plan(x, idx);
  const int last = L.grid().rank_at(L.owner({39}));
  for (const hpf::Message& m : plan.com().entries()) {
    EXPECT_EQ(m.dst, last);
    EXPECT_EQ(m.len, 1);
  }
  EXPECT_EQ(static_cast<int>(plan.com().entries().size()), world_size() - 1);
}

TEST(IrregularPlans, Gather2D) {
  int rows = 1;
  for (int d = 1; d * d <= world_size(); ++d)
    if (world_size() % d == 0) rows = d;
  const ProcessGrid grid = ProcessGrid::world({rows, world_size() / rows});
  const Layout<2> L({13, 9}, {hpf::Cyclic(2), hpf::Block()}, grid);
  DistArray<double, 2> x("x2", L);
  hpf::forall(x, [](const Index<2>& g, double& v) { v = static_cast<double>(g[0] + 100 * g[1]); });
  hpf::detail::SplitMix64 rng(static_cast<std::uint64_t>(world_rank()) + 99);
  std::vector<Index<2>> idx(static_cast<std::size_t>(rng.below(80)));
  for (auto& g : idx) g = {static_cast<index_t>(rng.below(13)), static_cast<index_t>(rng.below(9))};
  IrregularOptions opt;
  opt.schedule.algo = AllToManyAlgo::Optimal;
  const hpf::GatherPlan<double, 2> plan(x, idx, opt);
  const std::vector<double> y = plan.execute(x);
  for (std::size_t i = 0; i < idx.size(); ++i)
    EXPECT_EQ(y[i], static_cast<double>(idx[i][0] + 100 * idx[i][1]));
}

TEST(IrregularPlans, ScatterAddMatchesSerialReference) {
  const index_t n = 101;
  int trial = 500;
  for (const Layout<1>& L : layouts(n)) {
    for (const IrregularOptions& opt : all_options()) {
      ++trial;
      DistArray<double, 1> x("x", L);
      const std::vector<index_t> idx = indices_of(world_rank(), trial, n);
      const hpf::ScatterPlan<double, 1> plan(x, idx, opt);
      std::vector<double> y(idx.size());
      for (std::size_t i = 0; i < y.size(); ++i)
        y[i] = static_cast<double>(world_rank() * 1000 + static_cast<int>(i));
      hpf::forall(x, [](const Index<1>& g, double& v) { v = static_cast<double>(g[0]); });
      for (int round = 0; round < 2; ++round) plan.execute(x, std::span<const double>(y));
      // Serial reference: x(g) = g + 2 * (sum of the contributions to g of every rank).
      std::vector<double> ref(static_cast<std::size_t>(n));
      std::iota(ref.begin(), ref.end(), 0.0);
      for (int r = 0; r < world_size(); ++r) {
        const std::vector<index_t> ri = indices_of(r, trial, n);
        for (std::size_t i = 0; i < ri.size(); ++i)
          ref[static_cast<std::size_t>(ri[i])] += 2.0 * static_cast<double>(r * 1000 + static_cast<int>(i));
      }
      const std::vector<double> all = x.gather(0);
      if (world_rank() == 0) {
        EXPECT_EQ(all, ref) << "algo " << hpf::to_string(opt.schedule.algo) << " mode "
                            << hpf::to_string(plan.mode()) << " layout " << L.describe_dists();
      }
    }
  }
}

TEST(IrregularPlans, ScatterNonCommutativeOpUsesRankPositionOrder) {
  // op(a, b) = b is associative but not commutative: the last contribution in (rank, position)
  // order wins, whatever the schedule and executor.
  const index_t n = 37;
  const ProcessGrid all = ProcessGrid::world({world_size()});
  const Layout<1> L({n}, {hpf::Cyclic(2)}, all);
  for (const IrregularOptions& opt : all_options()) {
    DistArray<long long, 1> x("x", L);
    x.fill(-1);
    const std::vector<index_t> idx = indices_of(world_rank(), 900, n);
    std::vector<long long> y(idx.size());
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = world_rank() * 100000LL + static_cast<long long>(i);
    const hpf::ScatterPlan<long long, 1> plan(x, idx, opt);
    plan.execute(x, std::span<const long long>(y), [](long long, long long b) { return b; });
    std::vector<long long> ref(static_cast<std::size_t>(n), -1);
    for (int r = 0; r < world_size(); ++r) {
      const std::vector<index_t> ri = indices_of(r, 900, n);
      for (std::size_t i = 0; i < ri.size(); ++i)
        ref[static_cast<std::size_t>(ri[i])] = r * 100000LL + static_cast<long long>(i);
    }
    const std::vector<long long> got = x.gather(0);
    if (world_rank() == 0) {
      EXPECT_EQ(got, ref) << hpf::to_string(opt.schedule.algo) << " " << hpf::to_string(plan.mode());
    }
  }
}

TEST(IrregularPlans, DistributedIndexArrayForm) {
  // HPF form y(i) = x(idx(i)) with idx and y distributed alike.
  const ProcessGrid all = ProcessGrid::world({world_size()});
  const Layout<1> Lx({64}, {hpf::Cyclic(3)}, all);
  const Layout<1> Li({50}, {hpf::Block()}, all);
  DistArray<double, 1> x("x", Lx);
  DistArray<index_t, 1> idx("idx", Li);
  DistArray<double, 1> y("y", Li);
  hpf::forall(x, [](const Index<1>& g, double& v) { v = 0.5 * static_cast<double>(g[0]); });
  hpf::forall(idx, [](const Index<1>& g, index_t& v) { v = (g[0] * 37 + 11) % 64; });
  const hpf::GatherPlan<double, 1> plan(x, idx);
  plan.execute(x, y);
  const std::vector<double> all_y = y.gather(0);
  if (world_rank() == 0) {
    for (index_t i = 0; i < 50; ++i)
      EXPECT_EQ(all_y[static_cast<std::size_t>(i)], 0.5 * static_cast<double>((i * 37 + 11) % 64));
  }
}

TEST(IrregularPlans, BadIndexThrowsOnEveryRank) {
  const ProcessGrid all = ProcessGrid::world({world_size()});
  const Layout<1> L({20}, {hpf::Block()}, all);
  DistArray<double, 1> x("x", L);
  std::vector<index_t> idx{0, 5, 19, 3, 7};
  const int bad_rank = world_size() - 1;
  if (world_rank() == bad_rank) {
    idx[3] = 20;
    idx[4] = -1; // the first bad one is reported
  }
  HPF_EXPECT_ERROR((void)(hpf::GatherPlan<double, 1>(x, idx)), "GatherPlan", "index (20)", "position 3",
                   "rank " + std::to_string(bad_rank), "extents (20)");
  HPF_EXPECT_ERROR((void)(hpf::ScatterPlan<double, 1>(x, idx)), "ScatterPlan", "index (20)", "position 3");
  // A plan still works after the failed ones (no message was left behind).
  const hpf::GatherPlan<double, 1> ok(x, std::vector<index_t>{0, 19});
  hpf::forall(x, [](const Index<1>& g, double& v) { v = static_cast<double>(g[0]); });
  EXPECT_EQ(ok.execute(x), (std::vector<double>{0.0, 19.0}));
  std::vector<double> small(1);
  HPF_EXPECT_ERROR(ok.execute(x, std::span<double>(small)), "GatherPlan::execute", "y holds 1", "2");
  const Layout<1> other({20}, {hpf::Cyclic(1)}, all);
  DistArray<double, 1> z("z", other);
  if (world_size() > 1)
    HPF_EXPECT_ERROR((void)ok.execute(z), "GatherPlan::execute", "'z' has layout (CYCLIC(1))",
                     "plan was built for ((BLOCK)");
}

} // namespace
