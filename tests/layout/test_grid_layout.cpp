// ProcessGrid and Layout<N> on 1..7 ranks: coordinates, subsets, owner maps and every error.
#include "hpf_test.hpp"

#include <numeric>
#include <random>

namespace {

using hpf::Index;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::test::world_rank;
using hpf::test::world_size;

TEST(ProcessGrid, WorldGridCoordinates) {
  const int n = world_size();
  const auto g = ProcessGrid::world({n});
  EXPECT_EQ(g.size(), n);
  EXPECT_TRUE(g.contains_me());
  EXPECT_EQ(g.my_position(), world_rank());
  EXPECT_EQ(g.my_coords(), std::vector<int>{world_rank()});
  // Every factorisation into a 2-D grid: Fortran-order positions round-trip.
  for (int a = 1; a <= n; ++a) {
    if (n % a) continue;
    const ProcessGrid g2(MPI_COMM_WORLD, {a, n / a});
    for (int pos = 0; pos < n; ++pos) {
      const auto c = g2.coords_of(pos);
      EXPECT_EQ(c[0], pos % a);
      EXPECT_EQ(c[1], pos / a);
      EXPECT_EQ(g2.position_of(c), pos);
    }
  }
}

TEST(ProcessGrid, SubsetInReverseOrder) {
  const int n = world_size();
  std::vector<int> ranks;
  for (int r = n - 1; r >= 0; r -= 2) ranks.push_back(r); // every other rank, reversed
  const ProcessGrid g(MPI_COMM_WORLD, ranks, {static_cast<int>(ranks.size())});
  const int me = world_rank();
  const bool in = (n - 1 - me) % 2 == 0;
  EXPECT_EQ(g.contains_me(), in);
  if (in) {
    EXPECT_EQ(g.rank_at(g.my_position()), me);
  } else {
    HPF_EXPECT_ERROR((void)g.my_coords(), "not in the grid");
  }
  EXPECT_EQ(g.position_of_rank(n - 1), 0);
}

TEST(ProcessGrid, Errors) {
  const int n = world_size();
  HPF_EXPECT_ERROR(ProcessGrid(MPI_COMM_WORLD, {n + 1}), "shape {" + std::to_string(n + 1) + "}",
                   "but " + std::to_string(n) + " ranks were given", "(rank ");
  HPF_EXPECT_ERROR(ProcessGrid(MPI_COMM_WORLD, {0, n}, {1}), "ranks", "shape {1}");
  HPF_EXPECT_ERROR(ProcessGrid(MPI_COMM_WORLD, {n}, {1}), "ranks[0] = " + std::to_string(n),
                   "outside the parent communicator");
  HPF_EXPECT_ERROR(ProcessGrid(MPI_COMM_WORLD, {-1}, {1}), "ranks[0] = -1");
  HPF_EXPECT_ERROR(ProcessGrid(MPI_COMM_WORLD, {0, 0}, {2}), "rank 0 appears twice");
  HPF_EXPECT_ERROR(ProcessGrid(MPI_COMM_WORLD, {0}, {1, 1, 1, 1, 1}), "1 to 4 dimensions");
  HPF_EXPECT_ERROR(ProcessGrid(MPI_COMM_WORLD, {0}, {}), "1 to 4 dimensions");
}

TEST(Layout, Errors) {
  const auto g = ProcessGrid::world({world_size()});
  HPF_EXPECT_ERROR(Layout<1>({-3}, {hpf::Block()}, g), "extent[0] must be >= 0, got -3");
  HPF_EXPECT_ERROR(Layout<2>({4, 4}, {hpf::Block(), hpf::Block()}, g), "2 distributed dimension",
                   "grid has 1");
  if (world_size() > 1) {
    HPF_EXPECT_ERROR(Layout<2>({4, 4}, {hpf::Collapsed(), hpf::Collapsed()}, g), "0 distributed");
  }
  const Layout<2> whole({4, 4}, {hpf::Collapsed(), hpf::Collapsed()}, ProcessGrid(MPI_COMM_WORLD, {0}, {1}));
  EXPECT_EQ(whole.local_extents(0), (Index<2>{4, 4}));
  const Layout<1> ok({5}, {hpf::Cyclic(2)}, g);
  HPF_EXPECT_ERROR(ok.check_bounds({5}, "here"), "global index (5) is outside the extents (5)");
}

// Equality: copies share a cache (the fast path of operator==), layouts made apart compare their
// fields, and with_shadow makes a layout of its own (equal to the original only at width 0).
TEST(Layout, Equality) {
  const auto g = ProcessGrid::world({world_size()});
  const Layout<2> a({9, 5}, {hpf::Cyclic(2), hpf::Collapsed()}, g);
  const Layout<2> copy = a; // NOLINT(performance-unnecessary-copy-initialization): the copy is the point
  const Layout<2> apart({9, 5}, {hpf::Cyclic(2), hpf::Collapsed()}, g);
  const Layout<2> other({9, 5}, {hpf::Cyclic(3), hpf::Collapsed()}, g);
  EXPECT_TRUE(a == copy);
  EXPECT_TRUE(a == apart);
  EXPECT_FALSE(a == other);
  EXPECT_FALSE(a == a.with_shadow({1, 0}));
  EXPECT_TRUE(a == a.with_shadow({0, 0}));
  const Layout<2> shadowed = a.with_shadow({1, 0});
  const Layout<2> shadowed_copy = shadowed; // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_TRUE(shadowed == shadowed_copy);
  EXPECT_TRUE(shadowed == apart.with_shadow({1, 0}));
}

/// Every global index of a 3-D layout maps to an owner and local index consistent with
/// global_index() and local_extents(), against enumeration of all elements.
TEST(Layout, ThreeDimensionalMapsAgainstEnumeration) {
  const int n = world_size();
  std::mt19937 rng(99);
  for (int t = 0; t < 40; ++t) {
    // A 2-D grid a x b = n; dimension 1 collapsed.
    std::vector<int> divisors;
    for (int a = 1; a <= n; ++a)
      if (n % a == 0) divisors.push_back(a);
    const int a = divisors[rng() % divisors.size()];
    const ProcessGrid g(MPI_COMM_WORLD, {a, n / a});
    const Index<3> ext{static_cast<hpf::index_t>(rng() % 13), static_cast<hpf::index_t>(rng() % 4),
                       static_cast<hpf::index_t>(rng() % 11)};
    const Layout<3> L(ext, {hpf::Cyclic(1 + rng() % 4), hpf::Collapsed(), hpf::Block()}, g);
    std::vector<hpf::index_t> count(static_cast<std::size_t>(n), 0);
    for (hpf::index_t k = 0; k < ext[2]; ++k)
      for (hpf::index_t j = 0; j < ext[1]; ++j)
        for (hpf::index_t i = 0; i < ext[0]; ++i) {
          const Index<3> gi{i, j, k};
          const int owner = L.owner(gi);
          EXPECT_EQ(g.position_of(L.owner_coords(gi)), owner);
          const Index<3> li = L.local_index(gi);
          const Index<3> le = L.local_extents(owner);
          for (int d = 0; d < 3; ++d)
            EXPECT_LT(li[static_cast<std::size_t>(d)], le[static_cast<std::size_t>(d)]);
          EXPECT_EQ(L.global_index(owner, li), gi);
          ++count[static_cast<std::size_t>(owner)];
        }
    for (int pos = 0; pos < n; ++pos) {
      const Index<3> le = L.local_extents(pos);
      EXPECT_EQ(count[static_cast<std::size_t>(pos)], le[0] * le[1] * le[2]);
    }
  }
}

} // namespace
