// A regression test: REDISTRIBUTE hung after a few hundred calls on grids created and destroyed over random
// subsets of the ranks. The network model was cached by MPI_Comm handle value; MPI reuses a freed
// handle value on some ranks and not on others, so some ranks skipped the collective measurement the
// others entered. Now the model is an attribute of the communicator (exec/model.hpp).
//
// Every rank draws the same random sequence (fixed seed), so all build the same grids. Each case
// is checked element by element with a global count, so a wrong value on any rank fails everywhere.
#include "hpf_test.hpp"
#include "test_scale.hpp"

#include <hpf/hpf.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace {

using hpf::DistArray;
using hpf::Index;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::test::world_size;

template <int N> double value_at(const Index<N>& g) {
  double v = 0.25;
  double scale = 1;
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
    v += static_cast<double>(g[d]) * scale;
    scale *= 1024;
  }
  return v;
}

/// Global number of elements whose value is not value_at(g); collective over MPI_COMM_WORLD.
template <int N> long long wrong_everywhere(DistArray<double, N>& A) {
  long long bad = 0;
  hpf::forall(A, [&](const Index<N>& g, double& x) {
    if (x != value_at<N>(g)) ++bad;
  });
  long long all = 0;
  HPF_MPI_CHECK(MPI_Allreduce(&bad, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  return all;
}

/// A random grid of N or fewer dimensions over a random subset of `parent`'s ranks, and a random
/// distribution per array dimension.
template <int N> Layout<N> random_layout(std::mt19937& rng, MPI_Comm parent, const Index<N>& extents) {
  const int size = hpf::comm_size(parent);
  std::vector<int> ranks(static_cast<std::size_t>(size));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::shuffle(ranks.begin(), ranks.end(), rng);
  ranks.resize(std::uniform_int_distribution<std::size_t>(1, ranks.size())(rng));
  // k distributed array dimensions (the others collapsed) on a k-dimensional grid.
  const int k = std::uniform_int_distribution<int>(1, N)(rng);
  std::vector<int> shape(static_cast<std::size_t>(k), 1);
  int rest = static_cast<int>(ranks.size());
  for (std::size_t d = 0; d + 1 < shape.size(); ++d) {
    std::vector<int> divisors;
    for (int x = 1; x <= rest; ++x)
      if (rest % x == 0) divisors.push_back(x);
    shape[d] = divisors[std::uniform_int_distribution<std::size_t>(0, divisors.size() - 1)(rng)];
    rest /= shape[d];
  }
  shape.back() = rest;
  std::array<int, N> order{};
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::array<hpf::Distribution, N> dists{};
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) dists[d] = hpf::Collapsed();
  for (int j = 0; j < k; ++j) {
    const auto d = static_cast<std::size_t>(order[static_cast<std::size_t>(j)]);
    if (std::uniform_int_distribution<int>(0, 1)(rng) == 0) {
      dists[d] = hpf::Block();
    } else {
      dists[d] = hpf::Cyclic(std::uniform_int_distribution<index_t>(1, 7)(rng));
    }
  }
  return Layout<N>(extents, dists, ProcessGrid(parent, ranks, shape));
}

template <int N> void run_cases(int cases, unsigned seed) {
  std::mt19937 rng(seed);
  // Every eighth case on a communicator with no model of its own (a split of MPI_COMM_WORLD, whose
  // duplicates inherit nothing), so the first REDISTRIBUTE on each grid measures collectively (a few
  // hundred ping-pongs: slow on 7 oversubscribed ranks, hence not more often).
  MPI_Comm split = MPI_COMM_NULL;
  HPF_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, world_size() - hpf::test::world_rank(), &split));
  for (int c = 0; c < cases; ++c) {
    const MPI_Comm parent = c % 8 == 7 ? split : MPI_COMM_WORLD;
    Index<N> ext{};
    for (auto& e : ext) e = std::uniform_int_distribution<index_t>(0, N == 1 ? 300 : 17)(rng);
    DistArray<double, N> A("A", random_layout<N>(rng, parent, ext));
    hpf::forall(A, [](const Index<N>& g, double& x) { x = value_at<N>(g); });
    for (int hop = 0; hop < 2; ++hop) {
      A.redistribute(random_layout<N>(rng, parent, ext)); // Strategy::Auto
      ASSERT_EQ(wrong_everywhere(A), 0) << "case " << c << " hop " << hop;
    }
  }
  hpf::clear_plan_cache(); // the cached plans hold grids on `split`
  HPF_MPI_CHECK(MPI_Comm_free(&split));
}

TEST(Issue9, AutoRedistributeOnFreshGrids1D) { run_cases<1>(hpf::test::cases(100), 91); }
TEST(Issue9, AutoRedistributeOnFreshGrids2D) { run_cases<2>(hpf::test::cases(60), 92); }
TEST(Issue9, AutoRedistributeOnFreshGrids3D) { run_cases<3>(hpf::test::cases(40), 93); }

// Two arrays redistribute through one cached plan with overlapping post()/wait(): the plan holds no
// execution state, each executor its own. The second is waited first (the same order on every rank:
// the step-synchronous modes block per step, so ranks that waited in different orders would wait for
// each other), and the two use distinct tags, so no message of one can match a receive of the other.
TEST(Issue9, TwoExecutorsShareOneCachedPlan) {
  const int n = world_size();
  const Layout<1> src({1001}, {hpf::Cyclic(3)}, ProcessGrid::world({n}));
  const Layout<1> dst({1001}, {hpf::Cyclic(5)}, ProcessGrid::world({n}));
  hpf::RedistOptions o;
  o.alpha = 1e-6;
  o.beta = 1e-9;
  for (hpf::Strategy s : hpf::all_strategies()) {
    if (s == hpf::Strategy::Class && !hpf::class_schedule_applies({n, 3, n, 5, 1001})) continue;
    o.strategy = s;
    const auto plan = hpf::cached_plan(src, dst, o);
    EXPECT_EQ(plan, hpf::cached_plan(src, dst, o)); // one shared plan
    DistArray<double, 1> A1("A1", src), A2("A2", src), B1("B1", dst), B2("B2", dst);
    hpf::forall(A1, [](const Index<1>& g, double& x) { x = value_at<1>(g); });
    hpf::forall(A2, [](const Index<1>& g, double& x) { x = value_at<1>(g); });
    hpf::RedistributionExecutor<1> e1(*plan, hpf::tags::redist.base + 11);
    hpf::RedistributionExecutor<1> e2(*plan, hpf::tags::redist.base + 12);
    e1.post(A1, B1);
    e2.post(A2, B2);
    e2.wait();
    e1.wait();
    EXPECT_EQ(wrong_everywhere(B1), 0) << hpf::to_string(s);
    EXPECT_EQ(wrong_everywhere(B2), 0) << hpf::to_string(s);
  }
}

} // namespace
