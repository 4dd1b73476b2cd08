// Issue 15, findings 4 and 5: arguments that differ between ranks are the same hpf::Error on every
// rank (no hang, no silent wrong answer), and layouts at the edges of 64-bit integers are refused or
// right. Runs at 1 to 4 and 7 ranks; mismatches need two ranks or more.
#include "hpf_test.hpp"

#include <hpf/hpf.hpp>
#include <hpf/layout/agree.hpp>

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
    // The issue's case: CYCLIC(3) on one rank, CYCLIC(5) on the others.
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
#ifndef __SANITIZE_ADDRESS__ // ASan aborts on an allocation past its limit instead of failing it
    HPF_EXPECT_ERROR((DistArray<double, 1>("G", Layout<1>({kMax / 16}, {hpf::Collapsed()}, one))),
                     "DistArray 'G': cannot allocate the local block of 4611686018427387896 bytes");
#endif
  } else {
    EXPECT_EQ((DistArray<double, 1>("H", Layout<1>({kMax / 2}, {hpf::Collapsed()}, one)).local_size()), 0);
  }
}

} // namespace
