// Arguments that differ between ranks are the same hpf::Error on every
// rank (no hang, no silent wrong answer), and layouts at the edges of 64-bit integers are refused or
// right. Runs at 1 to 4 and 7 ranks; mismatches need two ranks or more.
#include "hpf_test.hpp"
#include "test_scale.hpp"

#include <hpf/hpf.hpp>
#include <hpf/layout/agree.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

namespace {

using hpf::DistArray;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::test::world_rank;
using hpf::test::world_size;

/// Number of ranks on which `f` threw hpf::Error with `needle` in its message (collective).
template <class F> int ranks_that_threw(F&& f, const std::string& needle) {
  int mine = 0;
  try {
    f();
  } catch (const hpf::Error& e) {
    mine = std::string(e.what()).find(needle) != std::string::npos ? 1 : 0;
    EXPECT_EQ(mine, 1) << e.what();
  }
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

constexpr const char* kDiffers = "the ranks passed different arguments to a collective";

TEST(Issue15, CheckSameOnAllRanksAgreesOrThrowsEverywhere) {
  const int n = world_size();
  const std::vector<std::int64_t> same = {3, 1, 4, 1, 5};
  EXPECT_EQ(ranks_that_threw([&] { hpf::check_same_on_all_ranks(MPI_COMM_WORLD, "t", same); }, kDiffers), 0);
  if (n < 2) return;
  std::vector<std::int64_t> one_differs = same;
  if (world_rank() == n - 1) one_differs[2] = 40;
  EXPECT_EQ(
      ranks_that_threw([&] { hpf::check_same_on_all_ranks(MPI_COMM_WORLD, "t", one_differs); }, kDiffers), n);
  // Different lengths, and the extreme values (INT64_MIN / MAX) are told apart too.
  std::vector<std::int64_t> longer = same;
  if (world_rank() == 0) longer.push_back(9);
  EXPECT_EQ(
      ranks_that_threw([&] { hpf::check_same_on_all_ranks(MPI_COMM_WORLD, "t", longer); }, "t: the ranks"),
      n);
  const std::vector<std::int64_t> extreme = {world_rank() == 0 ? std::numeric_limits<std::int64_t>::min()
                                                               : std::numeric_limits<std::int64_t>::max()};
  EXPECT_EQ(ranks_that_threw([&] { hpf::check_same_on_all_ranks(MPI_COMM_WORLD, "t", extreme); }, kDiffers),
            n);
}

TEST(Issue15, ProcessGridRankListsAndShapesMustAgree) {
  const int n = world_size();
  std::vector<int> ranks(static_cast<std::size_t>(n));
  std::iota(ranks.begin(), ranks.end(), 0);
  EXPECT_EQ(ranks_that_threw([&] { (void)ProcessGrid(MPI_COMM_WORLD, ranks, {n}); }, kDiffers), 0);
  if (n < 2) return;
  std::vector<int> reversed(ranks.rbegin(), ranks.rend());
  EXPECT_EQ(
      ranks_that_threw([&] { (void)ProcessGrid(MPI_COMM_WORLD, world_rank() == 0 ? reversed : ranks, {n}); },
                       kDiffers),
      n);
  // A shape that is valid on some ranks and invalid on others: the same error everywhere, no hang.
  EXPECT_EQ(ranks_that_threw([&] { (void)ProcessGrid::world({world_rank() == 0 ? n + 1 : n}); }, kDiffers),
            n);
  const std::vector<int> sub = {0};
  EXPECT_EQ(
      ranks_that_threw(
          [&] { (void)ProcessGrid(MPI_COMM_WORLD, world_rank() == 1 ? std::vector<int>{1} : sub, {1}); },
          kDiffers),
      n);
}

TEST(Issue15, DistArrayCollectivesRefuseDifferentLayoutsAndRoots) {
  const int n = world_size();
  const auto grid = ProcessGrid::world({n});
  DistArray<double, 1> A("A", Layout<1>({25}, {hpf::Cyclic(2)}, grid));
  hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
  const int last = n - 1;
  if (n >= 2) {
    // The reported case: CYCLIC(3) on one rank, CYCLIC(5) on the others.
    const Layout<1> target({25}, {hpf::Cyclic(world_rank() == 0 ? 3 : 5)}, grid);
    EXPECT_EQ(ranks_that_threw([&] { A.redistribute(target); }, kDiffers), n);
    // One rank asks for the layout it already has (it used to return early, alone).
    const Layout<1> mixed({25}, {hpf::Cyclic(world_rank() == 0 ? 2 : 4)}, grid);
    EXPECT_EQ(ranks_that_threw([&] { A.redistribute(mixed); }, kDiffers), n);
    EXPECT_EQ(ranks_that_threw([&] { (void)A.gather(world_rank() == 0 ? 0 : last); }, kDiffers), n);
    std::vector<double> data(world_rank() == 0 || world_rank() == last ? 25 : 0, 1.0);
    EXPECT_EQ(ranks_that_threw([&] { A.scatter(world_rank() == 0 ? 0 : last, data); }, kDiffers), n);
    // Arrays of different extents on different ranks: the collective says so.
    DistArray<double, 1> B("B", Layout<1>({world_rank() == 0 ? 10 : 12}, {hpf::Block()}, grid));
    EXPECT_EQ(ranks_that_threw([&] { (void)B.gather(0); }, kDiffers), n);
  }
  // Nothing is out of step afterwards, and the data is intact.
  A.redistribute(Layout<1>({25}, {hpf::Cyclic(3)}, grid));
  EXPECT_EQ(hpf::sum(A), 300.0);
  const auto all = A.gather(0);
  if (world_rank() == 0) {
    for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i], double(i));
  }
}

// DistArray::redistribute_into and the free hpf::redistribute check their arguments in one allreduce:
// a target layout or an option that differs on one rank is the same error everywhere, neither array
// changes, and the next call (every rank alike) moves the right values.
TEST(Issue15, RedistributeIntoAndCopyRefuseDifferentArguments) {
  const int n = world_size();
  const int me = world_rank();
  if (n < 2) GTEST_SKIP() << "needs two ranks";
  const auto grid = ProcessGrid::world({n});
  const index_t M = 100;
  const Layout<1> a({M}, {hpf::Cyclic(2)}, grid);
  DistArray<double, 1> A("A", a);
  hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
  const auto check = [&](const DistArray<double, 1>& X, const char* what) {
    const auto all = X.gather(0);
    if (me == 0) {
      ASSERT_EQ(all.size(), static_cast<std::size_t>(M)) << what;
      for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], double(i)) << what;
    }
  };
  for (int odd = 0; odd < n; odd += n - 1) { // the first rank differs, then the last
    const Layout<1> mine({M}, {hpf::Cyclic(me == odd ? 3 : 5)}, grid);
    DistArray<double, 1> Y("Y", mine);
    hpf::forall(Y, [](const hpf::Index<1>&, double& x) { x = -1.0; });
    EXPECT_EQ(ranks_that_threw([&] { DistArray<double, 1>::redistribute_into(A, Y); }, kDiffers), n);
    for (const double y : Y.owned_copy()) EXPECT_EQ(y, -1.0); // nothing written into the target
    EXPECT_EQ(ranks_that_threw([&] { (void)hpf::redistribute(A, mine); }, kDiffers), n);
    hpf::RedistOptions opt;
    if (me == odd) opt.tag += 1;
    const Layout<1> b({M}, {hpf::Cyclic(5)}, grid);
    DistArray<double, 1> Z("Z", b);
    EXPECT_EQ(ranks_that_threw([&] { DistArray<double, 1>::redistribute_into(A, Z, opt); }, kDiffers), n);
    EXPECT_EQ(ranks_that_threw([&] { (void)hpf::redistribute(A, b, opt); }, kDiffers), n);
    EXPECT_EQ(A.layout(), a);
    DistArray<double, 1>::redistribute_into(A, Z);
    check(Z, "redistribute_into after a refusal");
    check(hpf::redistribute(A, b), "hpf::redistribute after a refusal");
    check(A, "the source");
  }
}

// The agreement of A.redistribute (one allreduce before any message): ranks that disagree all throw,
// in every mode, and no message of a refused call reaches a later one: every refused call is followed
// by a correct one whose data is checked. Also with options that differ on one rank (the placement,
// the tag, the cost model).
TEST(Issue15, RedistributeAgreementRefusesAndRecovers) {
  const int n = world_size();
  const int me = world_rank();
  const auto grid = ProcessGrid::world({n});
  const index_t M = 1000;
  {
    for (const hpf::Strategy st : {hpf::Strategy::AllAtOnce, hpf::Strategy::KoenigStepwise,
                                   hpf::Strategy::Alltoallv, hpf::Strategy::Auto}) {
      hpf::RedistOptions opt;
      opt.strategy = st;
      DistArray<double, 1> A("A", Layout<1>({M}, {hpf::Cyclic(2)}, grid));
      hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
      for (int round = 0; round < 6; ++round) {
        const index_t good = 3 + round;
        if (n >= 2) {
          // Every rank moves data in both plans, in different amounts: unmatched and truncated messages.
          const Layout<1> bad({M}, {hpf::Cyclic(me == round % n ? good + 1 : good)}, grid);
          EXPECT_EQ(ranks_that_threw([&] { A.redistribute(bad, opt); }, kDiffers), n)
              << "strategy " << hpf::to_string(st) << " round " << round;
          // The message names the argument that differs, in release builds too.
          EXPECT_EQ(ranks_that_threw([&] { A.redistribute(bad, opt); }, "target.dists[0].block ranges from " +
                                                                            std::to_string(good) + " to " +
                                                                            std::to_string(good + 1)),
                    n);
          // One rank asks for a different strategy only.
          hpf::RedistOptions other = opt;
          if (me == 0)
            other.strategy =
                st == hpf::Strategy::AllAtOnce ? hpf::Strategy::KoenigStepwise : hpf::Strategy::AllAtOnce;
          EXPECT_EQ(ranks_that_threw(
                        [&] { A.redistribute(Layout<1>({M}, {hpf::Cyclic(good)}, grid), other); }, kDiffers),
                    n);
          // One rank passes another placement, tag or cost model (each would give messages on
          // different tags, or different schedules).
          for (int which = 0; which < 3; ++which) {
            hpf::RedistOptions odd = opt;
            if (me == (round + which) % n) {
              if (which == 0) odd.one_node = !opt.one_node.value_or(true);
              if (which == 1) odd.tag = opt.tag + 1;
              if (which == 2) odd.alpha = 1e-3;
            }
            EXPECT_EQ(ranks_that_threw(
                          [&] { A.redistribute(Layout<1>({M}, {hpf::Cyclic(good)}, grid), odd); }, kDiffers),
                      n)
                << "option " << which << " strategy " << hpf::to_string(st);
          }
        }
        A.redistribute(Layout<1>({M}, {hpf::Cyclic(good)}, grid), opt);
        EXPECT_EQ(A.layout().dist(0).block(), good);
        const auto all = A.gather(0);
        if (me == 0) {
          for (std::size_t i = 0; i < all.size(); ++i)
            ASSERT_EQ(all[i], double(i)) << "strategy " << hpf::to_string(st) << " round " << round;
        }
      }
    }
  }
}

// A rank whose own part of A.redistribute fails before it sends anything (here an option
// invalid on that rank only: the tag) reports it in the agreement's allreduce instead of leaving the
// others waiting for its messages. Every rank throws that rank's error (before any word of the check is
// compared), whether the others' exchange carries the agreement (all at once) or agrees first (a step mode),
// and the next call works.
TEST(Issue15, RedistributeReportsOneRanksOwnFailureEverywhere) {
  const int n = world_size();
  const int me = world_rank();
  const auto grid = ProcessGrid::world({n});
  const index_t M = 1000;
  {
    for (const hpf::Strategy st : {hpf::Strategy::AllAtOnce, hpf::Strategy::KoenigStepwise}) {
      hpf::RedistOptions opt;
      opt.strategy = st;
      DistArray<double, 1> A("A", Layout<1>({M}, {hpf::Cyclic(2)}, grid));
      hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
      for (int round = 0; round < 4; ++round) {
        const Layout<1> good({M}, {hpf::Cyclic(3 + round)}, grid);
        hpf::RedistOptions odd = opt;
        if (me == round % n) odd.tag = -1;
        EXPECT_EQ(ranks_that_threw([&] { A.redistribute(good, odd); }, "tag"), n)
            << "strategy " << hpf::to_string(st) << " round " << round;
        EXPECT_EQ(A.layout().dist(0).block(), 2 + round); // unchanged: CYCLIC(2), then the last good one
        A.redistribute(good, opt);
        const auto all = A.gather(0);
        if (me == 0) {
          for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], double(i)) << "round " << round;
        }
      }
    }
  }
}

// A rank whose target block cannot be allocated (here the only rank of the target's grid, with a
// shadow of 2^40 elements: 8 TiB) while every rank passed the same arguments: every rank throws its
// error through the agreement's allreduce (the failure used to come after the check, leaving the others
// in the exchange),
// the array is unchanged, and the next call works.
#ifndef HPF_TEST_ASAN // ASan aborts on an allocation past its limit instead of failing it
TEST(Issue15, RedistributeReportsOneRanksFailedAllocationEverywhere) {
  const int n = world_size();
  const int me = world_rank();
  const auto grid = ProcessGrid::world({n});
  const index_t M = 4000; // messages of 32000 / n bytes each way: past the eager limit at 2 ranks
  {
    for (int round = 0; round < 2; ++round) {
      const int f = round % n;
      const ProcessGrid only_f(MPI_COMM_WORLD, std::vector<int>{f}, {1});
      const Layout<1> huge =
          Layout<1>({M}, {hpf::Block()}, only_f).with_shadow(hpf::Index<1>{index_t{1} << 40});
      DistArray<double, 1> A("A", Layout<1>({M}, {hpf::Cyclic(3)}, grid));
      hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
      EXPECT_EQ(ranks_that_threw([&] { A.redistribute(huge); }, "cannot allocate"), n) << "round " << round;
      EXPECT_EQ(A.layout().dist(0).block(), 3);
      A.redistribute(Layout<1>({M}, {hpf::Block()}, only_f));
      if (me == f) {
        const auto all = A.owned_copy();
        ASSERT_EQ(all.size(), static_cast<std::size_t>(M));
        for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], double(i)) << "round " << round;
      }
    }
  }
}
#endif

// The free hpf::redistribute allocates its copy before anything moves: where that fails on one rank
// (the only rank of the copy's grid, a shadow of 2^40 elements), every rank throws its error, `A` is
// unchanged, and the next copy works.
#ifndef HPF_TEST_ASAN // ASan aborts on an allocation past its limit instead of failing it
TEST(Issue15, RedistributeCopyReportsOneRanksFailedAllocationEverywhere) {
  const int n = world_size();
  const int me = world_rank();
  const auto grid = ProcessGrid::world({n});
  const index_t M = 1000;
  const Layout<1> a({M}, {hpf::Cyclic(3)}, grid);
  DistArray<double, 1> A("A", a);
  hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
  for (int f = 0; f < n; f += std::max(1, n - 1)) {
    const ProcessGrid only_f(MPI_COMM_WORLD, std::vector<int>{f}, {1});
    const Layout<1> huge =
        Layout<1>({M}, {hpf::Block()}, only_f).with_shadow(hpf::Index<1>{index_t{1} << 40});
    EXPECT_EQ(ranks_that_threw([&] { (void)hpf::redistribute(A, huge); }, "cannot allocate"), n)
        << "rank " << f;
    EXPECT_EQ(A.layout(), a);
    const DistArray<double, 1> B = hpf::redistribute(A, Layout<1>({M}, {hpf::Block()}, only_f));
    if (me == f) {
      const auto all = B.owned_copy();
      ASSERT_EQ(all.size(), static_cast<std::size_t>(M));
      for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], double(i)) << "rank " << f;
    }
  }
}
#endif

// The first REDISTRIBUTE on a communicator without a cost model measures one (exec/model.hpp), which
// is collective. Every rank enters the measurement whatever its arguments, so a rank that asks for
// another strategy (which needs no model) or whose target is its own layout (an early return) gets
// the same error as the others instead of leaving them in the measurement.
TEST(Issue15, FirstRedistributeOnAFreshCommunicatorRefusesDifferentArguments) {
  const int n = world_size();
  const int me = world_rank();
  if (n < 2) GTEST_SKIP() << "needs two ranks";
  {
    for (int which = 0; which < 2; ++which) {
      MPI_Comm fresh = MPI_COMM_NULL;
      ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, 0, me, &fresh), MPI_SUCCESS);
      {
        const ProcessGrid grid(fresh, {n});
        ASSERT_FALSE(hpf::has_machine_model(grid.comm().get()));
        const index_t M = 1000;
        const Layout<1> a({M}, {hpf::Cyclic(2)}, grid);
        const Layout<1> b({M}, {hpf::Cyclic(3)}, grid);
        DistArray<double, 1> A("A", a);
        hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
        const bool odd = me == (which + 1) % n;
        hpf::RedistOptions opt;
        if (which == 0 && odd) opt.strategy = hpf::Strategy::AllAtOnce;
        const Layout<1>& target = which == 1 && odd ? a : b;
        EXPECT_EQ(ranks_that_threw([&] { A.redistribute(target, opt); }, kDiffers), n) << "case " << which;
        EXPECT_TRUE(hpf::has_machine_model(grid.comm().get()));
        EXPECT_EQ(A.layout().dist(0).block(), 2);
        A.redistribute(b);
        const auto all = A.gather(0);
        if (me == 0) {
          for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], double(i)) << "case " << which;
        }
      }
      MPI_Comm_free(&fresh);
    }
  }
}

// The agreement comes before any message, so that a rank with other arguments never has a large
// message truncated (Open MPI 4.1.4 wrote past such a receive's buffer). Messages of about 100 KB each
// way, packed and in place.
TEST(Issue15, RedistributeRefusesDifferentLayoutsWithLargeMessages) {
  const int n = world_size();
  const int me = world_rank();
  const auto grid = ProcessGrid::world({n});
  const index_t M = 25000 * n;
  DistArray<double, 1> A("A", Layout<1>({M}, {hpf::Cyclic(2)}, grid));
  hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
  for (int round = 0; round < 6; ++round) {
    const index_t good = 3 + round;
    hpf::RedistOptions opt;
    opt.strategy = hpf::Strategy::AllAtOnce;
    opt.in_place_min_piece_bytes = round % 2 == 0 ? SIZE_MAX : hpf::RedistOptions{}.in_place_min_piece_bytes;
    if (n >= 2) {
      // One rank moves blocks of another size (its messages are longer or shorter than expected).
      const Layout<1> bad({M}, {me == round % n ? hpf::Cyclic(good * 40) : hpf::Cyclic(good)}, grid);
      EXPECT_EQ(ranks_that_threw([&] { A.redistribute(bad, opt); }, kDiffers), n) << "round " << round;
    }
    A.redistribute(Layout<1>({M}, {hpf::Cyclic(good)}, grid), opt);
    const auto all = A.gather(0);
    if (me == 0) {
      for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], double(i)) << "round " << round;
    }
  }
}

TEST(Issue15, ReductionsRefuseDifferentArrays) {
  const int n = world_size();
  const int me = world_rank();
  const auto grid = ProcessGrid::world({n});
  DistArray<double, 1> A("A", Layout<1>({25}, {hpf::Cyclic(2)}, grid));
  hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
  const hpf::TreeReducer reducer(MPI_COMM_WORLD, hpf::ReduceCosts{1.0, 1.0});
  auto plus = [](double a, double b) { return a + b; };
  EXPECT_EQ(ranks_that_threw([&] { EXPECT_EQ(hpf::sum(A), 300.0); }, kDiffers), 0);
  EXPECT_EQ(ranks_that_threw([&] { EXPECT_EQ(hpf::min(A), 0.0); }, kDiffers), 0);
  EXPECT_EQ(ranks_that_threw([&] { EXPECT_EQ(hpf::max(A), 24.0); }, kDiffers), 0);
  EXPECT_EQ(ranks_that_threw(
                [&] {
                  const auto r = hpf::tree_reduce(reducer, A, plus);
                  EXPECT_EQ(r.has_value(), me == reducer.root());
                  EXPECT_EQ(r.value_or(300.0), 300.0);
                },
                kDiffers),
            0);
  if (n < 2) return;
  // The reported case: extents that differ on one rank gave a wrong sum and no error.
  DistArray<double, 1> B("B", Layout<1>({me == n - 1 ? 13 : 12}, {hpf::Block()}, grid));
  B.fill(1.0);
  EXPECT_EQ(ranks_that_threw([&] { (void)hpf::sum(B); }, kDiffers), n);
  EXPECT_EQ(ranks_that_threw([&] { (void)hpf::min(B); }, kDiffers), n);
  EXPECT_EQ(ranks_that_threw([&] { (void)hpf::max(B); }, kDiffers), n);
  EXPECT_EQ(ranks_that_threw([&] { (void)hpf::tree_reduce(reducer, B, plus); }, kDiffers), n);
  // Another distribution on one rank only.
  DistArray<double, 1> C("C", Layout<1>({25}, {hpf::Cyclic(me == 0 ? 3 : 2)}, grid));
  C.fill(1.0);
  EXPECT_EQ(ranks_that_threw([&] { (void)hpf::sum(C); }, kDiffers), n);
  // Empty on one rank only: min/max refused empty arrays on that rank alone (and the others hung).
  DistArray<double, 1> E("E", Layout<1>({me == 0 ? 0 : 5}, {hpf::Block()}, grid));
  E.fill(1.0);
  EXPECT_EQ(ranks_that_threw([&] { (void)hpf::min(E); }, kDiffers), n);
  EXPECT_EQ(ranks_that_threw([&] { (void)hpf::max(E); }, kDiffers), n);
  // A reducer whose root differs between ranks (each rank planned its own).
  const hpf::TreeReducer other(MPI_COMM_WORLD, hpf::ReduceCosts{1.0, 1.0}, {.root = me == 0 ? 1 : 0});
  EXPECT_EQ(ranks_that_threw([&] { (void)hpf::tree_reduce(other, A, plus); }, kDiffers), n);
  // Nothing is out of step afterwards.
  EXPECT_EQ(hpf::sum(A), 300.0);
}

TEST(Issue15, ShadowsAndShiftsRefuseDifferentArguments) {
  const int n = world_size();
  const int me = world_rank();
  const auto grid = ProcessGrid::world({n});
  const Layout<2> L({9, 7}, {hpf::Block(), hpf::Collapsed()}, grid);
  DistArray<double, 2> A("A", L.with_shadow({1, 0}));
  hpf::forall(A, [](const hpf::Index<2>& g, double& x) { x = double(g[0] * 7 + g[1]); });
  DistArray<double, 2> R("R", A.layout());
  EXPECT_EQ(ranks_that_threw([&] { A.update_shadow(hpf::Boundary::Periodic); }, kDiffers), 0);
  EXPECT_EQ(ranks_that_threw([&] { hpf::cshift(A, 2, 0, R); }, kDiffers), 0);
  hpf::forall(R,
              [](const hpf::Index<2>& g, double& x) { EXPECT_EQ(x, double(((g[0] + 2) % 9) * 7 + g[1])); });
  // Ranks that own nothing (extent 2 on 3 or more ranks) shift along with the others.
  DistArray<double, 1> Small("Small", Layout<1>({2}, {hpf::Block()}, grid));
  hpf::forall(Small, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
  DistArray<double, 1> SmallR("SmallR", Small.layout());
  EXPECT_EQ(ranks_that_threw([&] { hpf::cshift(Small, 1, 0, SmallR); }, "cshift"), 0);
  hpf::forall(SmallR, [](const hpf::Index<1>& g, double& x) { EXPECT_EQ(x, double((g[0] + 1) % 2)); });
  EXPECT_EQ(ranks_that_threw([&] { hpf::eoshift(Small, 1, 0, -1.0, SmallR); }, "eoshift"), 0);
  if (n < 2) return;
  // Another boundary on one rank.
  EXPECT_EQ(ranks_that_threw(
                [&] { A.update_shadow(me == 0 ? hpf::Boundary::Plain : hpf::Boundary::Periodic); }, kDiffers),
            n);
  // Another SHADOW width on one rank.
  DistArray<double, 2> S("S", L.with_shadow({me == n - 1 ? 0 : 1, 0}));
  EXPECT_EQ(ranks_that_threw([&] { S.update_shadow(); }, kDiffers), n);
  // Shifts: another shift, another dim, a dim out of range on one rank only, another target layout.
  EXPECT_EQ(ranks_that_threw([&] { hpf::cshift(A, me == 0 ? 1 : 2, 0, R); }, kDiffers), n);
  EXPECT_EQ(ranks_that_threw([&] { hpf::cshift(A, 1, me == 0 ? 1 : 0, R); }, kDiffers), n);
  EXPECT_EQ(ranks_that_threw([&] { hpf::eoshift(A, 1, me == 0 ? 5 : 0, -1.0, R); }, kDiffers), n);
  DistArray<double, 2> T("T", me == 0 ? L : L.with_shadow({1, 0}));
  EXPECT_EQ(ranks_that_threw([&] { hpf::eoshift(A, 1, 0, -1.0, T); }, kDiffers), n);
  // Nothing is out of step afterwards: a shift and a shadow update give the right values.
  hpf::cshift(A, 3, 0, R);
  hpf::forall(R,
              [](const hpf::Index<2>& g, double& x) { EXPECT_EQ(x, double(((g[0] + 3) % 9) * 7 + g[1])); });
  A.update_shadow(hpf::Boundary::Periodic);
}

TEST(Issue15, AssignAndTransposeRefuseDifferentArguments) {
  const int n = world_size();
  const int me = world_rank();
  const auto grid = ProcessGrid::world({n});
  const Layout<2> LA({6, 5}, {hpf::Cyclic(2), hpf::Collapsed()}, grid);
  const Layout<2> LT({5, 6}, {hpf::Block(), hpf::Collapsed()}, grid);
  DistArray<double, 2> A("A", LA);
  hpf::forall(A, [](const hpf::Index<2>& g, double& x) { x = double(g[0] * 10 + g[1]); });
  DistArray<double, 2> B("B", LA);
  const hpf::Section<2> all = hpf::whole_section<2>({6, 5});
  EXPECT_EQ(ranks_that_threw([&] { hpf::assign(B, all, A, all); }, kDiffers), 0);
  EXPECT_EQ(ranks_that_threw([&] { (void)hpf::transpose(A, LT); }, kDiffers), 0);
  if (n < 2) return;
  // Another section on one rank (valid everywhere, but a different assignment).
  hpf::Section<2> half = all;
  if (me == n - 1) half[0] = {0, 4, 2};
  hpf::Section<2> dst_half = all;
  if (me == n - 1) dst_half[0] = {1, 5, 2};
  EXPECT_EQ(ranks_that_threw([&] { hpf::assign(B, dst_half, A, half); }, kDiffers), n);
  // A section invalid on one rank only: that rank's planning error, thrown on every rank.
  hpf::Section<2> bad = all;
  if (me == 0) bad[1] = {0, 5, 1};
  EXPECT_EQ(ranks_that_threw([&] { hpf::assign(B, all, A, bad); }, "its last element 5"), n);
  // Another permutation on one rank.
  DistArray<double, 2> Q("Q", Layout<2>({6, 6}, {hpf::Block(), hpf::Collapsed()}, grid));
  DistArray<double, 2> P("P", Layout<2>({6, 6}, {hpf::Block(), hpf::Collapsed()}, grid));
  const hpf::Section<2> sq = hpf::whole_section<2>({6, 6});
  const hpf::Permutation<2> perm = me == 0 ? hpf::Permutation<2>{0, 1} : hpf::Permutation<2>{1, 0};
  EXPECT_EQ(ranks_that_threw([&] { hpf::assign(Q, sq, P, sq, perm); }, kDiffers), n);
  // A transpose target of other extents on one rank (its extent check threw there alone before).
  const Layout<2> wrong = me == 0 ? Layout<2>({6, 5}, {hpf::Block(), hpf::Collapsed()}, grid) : LT;
  EXPECT_EQ(ranks_that_threw([&] { (void)hpf::transpose(A, wrong); }, kDiffers), n);
  // Nothing is out of step afterwards.
  auto C = hpf::transpose(A, LT);
  hpf::forall(C, [](const hpf::Index<2>& g, double& x) { EXPECT_EQ(x, double(g[1] * 10 + g[0])); });
}

TEST(Issue15, LayoutsAtTheEdgesOf64Bits) {
  const int n = world_size();
  const auto grid = ProcessGrid::world({n});
  constexpr index_t kMax = std::numeric_limits<index_t>::max();
  // CYCLIC(2^62): local extents are right and add up (they were negative on 3 ranks).
  const Layout<1> huge({kMax}, {hpf::Cyclic(index_t{1} << 62)}, grid);
  __extension__ __int128 total = 0;
  for (int p = 0; p < n; ++p) {
    const index_t e = huge.local_extents(p)[0];
    EXPECT_GE(e, 0);
    total += e;
  }
  EXPECT_TRUE(total == kMax);
  const Layout<1> block({kMax}, {hpf::Block()}, grid);
  EXPECT_EQ(block.owner({kMax - 1}), n - 1);
  EXPECT_EQ(block.owner({0}), 0);
  // Extents whose product overflows are refused; an empty dimension makes the array empty.
  const auto one = ProcessGrid(MPI_COMM_WORLD, std::vector<int>{0}, {1});
  HPF_EXPECT_ERROR((Layout<2>({index_t{1} << 32, index_t{1} << 32}, {hpf::Block(), hpf::Collapsed()}, grid)),
                   "Layout: the number of elements", "overflows");
  EXPECT_EQ((Layout<2>({0, kMax}, {hpf::Block(), hpf::Collapsed()}, grid).global_size()), 0);
  // An array too large to allocate is an hpf::Error naming it (was Kokkos' std::runtime_error): its
  // bytes overflow 64 bits, or they fit but no allocator has them. Only rank 0 holds data.
  if (world_rank() == 0) {
    HPF_EXPECT_ERROR((DistArray<double, 1>("H", Layout<1>({kMax / 2}, {hpf::Collapsed()}, one))),
                     "DistArray 'H'", "overflows");
#ifndef HPF_TEST_ASAN // ASan aborts on an allocation past its limit instead of failing it
    HPF_EXPECT_ERROR((DistArray<double, 1>("G", Layout<1>({kMax / 16}, {hpf::Collapsed()}, one))),
                     "DistArray 'G': cannot allocate the local block of 4611686018427387896 bytes");
#endif
  } else {
    EXPECT_EQ((DistArray<double, 1>("H", Layout<1>({kMax / 2}, {hpf::Collapsed()}, one)).local_size()), 0);
  }
}

} // namespace
