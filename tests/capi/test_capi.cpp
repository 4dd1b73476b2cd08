// The C ABI (compiler-support/include/hpfrt.h) on 1..7 ranks: arrays of every element type and rank,
// local blocks against the C++ layout (also where a rank owns nothing), reductions, gather/scatter round
// trips, and every error path returning a status with a message instead of throwing.
#include "capi_test.hpp"

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace {

using hpf::test::ArrayGuard;
using hpf::test::GridGuard;
using hpf::test::world_rank;
using hpf::test::world_size;

TEST(CApi, TwoDimensionalDoubleRoundTrip) {
  const int n = world_size();
  GridGuard grid;
  const int shape[1] = {n};
  HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, 1, shape, &grid.g));
  int pos = -2;
  HPF_C_OK(hpf_grid_my_position(grid.g, &pos));
  EXPECT_EQ(pos, world_rank());
  int wr = -1;
  int ws = -1;
  HPF_C_OK(hpf_world(&wr, &ws));
  EXPECT_EQ(wr, world_rank());
  EXPECT_EQ(ws, n);

  // 13 x 5, CYCLIC(2) x * : extents that are no multiple of anything.
  const int64_t ext[2] = {13, 5};
  const hpf_dist dists[2] = {{HPF_DIST_CYCLIC, 2, nullptr}, {HPF_DIST_COLLAPSED, 0, nullptr}};
  ArrayGuard A;
  HPF_C_OK(hpf_array_create("A", HPF_FLOAT64, 2, ext, dists, grid.g, &A.a));

  std::vector<double> global(13 * 5);
  std::iota(global.begin(), global.end(), 1.0);
  HPF_C_OK(hpf_array_scatter(A.a, 0, world_rank() == 0 ? global.data() : nullptr,
                             world_rank() == 0 ? static_cast<int64_t>(global.size()) : 0));

  // Every owned element sits where hpf_array_locate says, and holds its global value.
  void* data = nullptr;
  int64_t lext[2] = {-1, -1};
  HPF_C_OK(hpf_array_local(A.a, &data, lext));
  const hpf::Layout<2> L({13, 5}, {hpf::Cyclic(2), hpf::Collapsed()}, hpf::ProcessGrid::world({n}));
  const auto expect = L.local_extents(world_rank());
  EXPECT_EQ(lext[0], expect[0]);
  EXPECT_EQ(lext[1], expect[1]);
  int64_t owned_count = 0;
  for (int64_t j = 0; j < 5; ++j) {
    for (int64_t i = 0; i < 13; ++i) {
      const int64_t g[2] = {i, j};
      int owned = -1;
      int64_t off = -2;
      HPF_C_OK(hpf_array_locate(A.a, g, &owned, &off));
      EXPECT_EQ(owned == 1, L.owner({i, j}) == world_rank());
      if (owned == 1) {
        ++owned_count;
        int64_t back[2] = {-1, -1};
        HPF_C_OK(hpf_array_global_index(A.a, off, back));
        EXPECT_EQ(back[0], i);
        EXPECT_EQ(back[1], j);
        EXPECT_EQ(static_cast<double*>(data)[off], global[static_cast<std::size_t>(i + 13 * j)]);
      } else {
        EXPECT_EQ(off, -1);
      }
    }
  }
  EXPECT_EQ(owned_count, lext[0] * lext[1]);

  double s = 0;
  double lo = 0;
  double hi = 0;
  HPF_C_OK(hpf_array_sum(A.a, &s));
  HPF_C_OK(hpf_array_min(A.a, &lo));
  HPF_C_OK(hpf_array_max(A.a, &hi));
  EXPECT_DOUBLE_EQ(s, 65.0 * 66.0 / 2.0);
  EXPECT_DOUBLE_EQ(lo, 1.0);
  EXPECT_DOUBLE_EQ(hi, 65.0);

  std::vector<double> back(world_rank() == n - 1 ? global.size() : 0);
  HPF_C_OK(hpf_array_gather(A.a, n - 1, back.data()));
  if (world_rank() == n - 1) {
    EXPECT_EQ(back, global);
  }
}

// A rank that owns nothing (past the last block, at every rank count from 2 on) gets NULL and the
// extents of what it owns, as the C++ layout gives them (found at 8 ranks, where
// TwoDimensionalDoubleRoundTrip's last rank owns nothing: it reported its storage's 0 x 0).
TEST(CApi, ARankThatOwnsNothingReportsWhatItOwns) {
  const int n = world_size();
  GridGuard grid;
  const int shape[1] = {n};
  HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, 1, shape, &grid.g));
  const int64_t ext[3] = {1, 4, 3}; // one block of dimension 0, on grid position 0 only
  const hpf_dist dists[3] = {
      {HPF_DIST_CYCLIC, 1, nullptr}, {HPF_DIST_COLLAPSED, 0, nullptr}, {HPF_DIST_COLLAPSED, 0, nullptr}};
  ArrayGuard A;
  HPF_C_OK(hpf_array_create("A", HPF_FLOAT32, 3, ext, dists, grid.g, &A.a));
  void* data = &A;
  int64_t lext[3] = {-1, -1, -1};
  HPF_C_OK(hpf_array_local(A.a, &data, lext));
  const hpf::Layout<3> L({1, 4, 3}, {hpf::Cyclic(1), hpf::Collapsed(), hpf::Collapsed()},
                         hpf::ProcessGrid::world({n}));
  const auto expect = L.local_extents(world_rank());
  for (int d = 0; d < 3; ++d) EXPECT_EQ(lext[d], expect[static_cast<std::size_t>(d)]) << "dimension " << d;
  EXPECT_EQ(lext[0], world_rank() == 0 ? 1 : 0);
  EXPECT_EQ(lext[1], 4);
  EXPECT_EQ(lext[2], 3);
  EXPECT_EQ(data == nullptr, world_rank() != 0);
}

TEST(CApi, RedistributeKeepsTheDataAcrossLayoutsAndGrids) {
  const int n = world_size();
  GridGuard all;
  const int shape[1] = {n};
  HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, 1, shape, &all.g));
  // Target grid: the ranks in reverse order, or only the first half of them.
  std::vector<int> half;
  for (int r = (n + 1) / 2 - 1; r >= 0; --r) half.push_back(r);
  GridGuard sub;
  const int sub_shape[1] = {static_cast<int>(half.size())};
  HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, static_cast<int>(half.size()), half.data(), 1, sub_shape, &sub.g));

  const int64_t ext[2] = {23, 3};
  const hpf_dist from[2] = {{HPF_DIST_CYCLIC, 3, nullptr}, {HPF_DIST_COLLAPSED, 0, nullptr}};
  ArrayGuard A;
  HPF_C_OK(hpf_array_create("R", HPF_INT64, 2, ext, from, all.g, &A.a));
  std::vector<int64_t> global(23 * 3);
  std::iota(global.begin(), global.end(), int64_t{100});
  HPF_C_OK(hpf_array_scatter(A.a, 0, global.data(), world_rank() == 0 ? 69 : 0));

  const hpf_dist to[2] = {{HPF_DIST_CYCLIC, 5, nullptr}, {HPF_DIST_COLLAPSED, 0, nullptr}};
  for (const hpf_strategy s :
       {HPF_STRATEGY_AUTO, HPF_STRATEGY_CATERPILLAR, HPF_STRATEGY_KOENIG_STEPWISE, HPF_STRATEGY_ALLTOALLV}) {
    HPF_C_OK(hpf_array_redistribute(A.a, to, sub.g, s));
    std::vector<int64_t> back(world_rank() == 0 ? global.size() : 0);
    HPF_C_OK(hpf_array_gather(A.a, 0, back.data()));
    if (world_rank() == 0) {
      EXPECT_EQ(back, global) << "strategy " << s;
    }
    HPF_C_OK(hpf_array_redistribute(A.a, from, all.g, s));
  }
  // Under a memory ceiling: the smallest workable one (one element each way), then a ceiling below it,
  // refused on every rank (where a buffer is needed at all) with the array unchanged.
  for (const uint64_t ceiling : {uint64_t{16}, uint64_t{1} << 20}) {
    HPF_C_OK(hpf_array_redistribute_ceiling(A.a, to, sub.g, HPF_STRATEGY_AUTO, ceiling));
    std::vector<int64_t> back(world_rank() == 0 ? global.size() : 0);
    HPF_C_OK(hpf_array_gather(A.a, 0, back.data()));
    if (world_rank() == 0) {
      EXPECT_EQ(back, global) << "ceiling " << ceiling;
    }
    HPF_C_OK(hpf_array_redistribute_ceiling(A.a, from, all.g, HPF_STRATEGY_AUTO, ceiling));
  }
  if (n > 1) {
    EXPECT_EQ(hpf_array_redistribute_ceiling(A.a, to, all.g, HPF_STRATEGY_AUTO, 8), HPF_ERR_ARG);
    EXPECT_NE(std::string(hpf_last_error()).find("smallest workable ceiling of 16 bytes"), std::string::npos)
        << hpf_last_error();
  }
  // Bad input leaves the array as it was.
  const hpf_dist bad[2] = {{HPF_DIST_CYCLIC, 0, nullptr}, {HPF_DIST_COLLAPSED, 0, nullptr}};
  EXPECT_EQ(hpf_array_redistribute(A.a, bad, all.g, HPF_STRATEGY_AUTO), HPF_ERR_ARG);
  EXPECT_EQ(hpf_array_redistribute(A.a, to, all.g, 42), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find("got 42"), std::string::npos) << hpf_last_error();
  int64_t sum = 0;
  HPF_C_OK(hpf_array_sum(A.a, &sum));
  EXPECT_EQ(sum, std::accumulate(global.begin(), global.end(), int64_t{0}));
}

TEST(CApi, RedistributeManyMovesSeveralArraysInOneExchange) {
  const int n = world_size();
  GridGuard all;
  const int shape[1] = {n};
  HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, 1, shape, &all.g));
  std::vector<int> reversed(static_cast<std::size_t>(n));
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  GridGuard back_g;
  HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, n, reversed.data(), 1, shape, &back_g.g));
  // A 1-D double array, a 2-D int32 array with a SHADOW, a 3-D int64 array.
  const int64_t ext_x[1] = {29};
  const int64_t ext_y[2] = {7, 11};
  const int64_t ext_z[3] = {5, 3, 4};
  const hpf_dist dx[1] = {{HPF_DIST_BLOCK, 0, nullptr}};
  const hpf_dist dy[2] = {{HPF_DIST_COLLAPSED, 0, nullptr}, {HPF_DIST_CYCLIC, 2, nullptr}};
  const int64_t wy[2] = {0, 1};
  const hpf_dist dz[3] = {
      {HPF_DIST_CYCLIC, 1, nullptr}, {HPF_DIST_COLLAPSED, 0, nullptr}, {HPF_DIST_COLLAPSED, 0, nullptr}};
  ArrayGuard X;
  ArrayGuard Y;
  ArrayGuard Z;
  HPF_C_OK(hpf_array_create("X", HPF_FLOAT64, 1, ext_x, dx, all.g, &X.a));
  HPF_C_OK(hpf_array_create_shadow("Y", HPF_INT32, 2, ext_y, dy, wy, all.g, &Y.a));
  HPF_C_OK(hpf_array_create("Z", HPF_INT64, 3, ext_z, dz, all.g, &Z.a));
  std::vector<double> gx(29);
  std::vector<int32_t> gy(77);
  std::vector<int64_t> gz(60);
  std::iota(gx.begin(), gx.end(), 0.5);
  std::iota(gy.begin(), gy.end(), 1000);
  std::iota(gz.begin(), gz.end(), int64_t{1} << 40);
  const bool root = world_rank() == 0;
  HPF_C_OK(hpf_array_scatter(X.a, 0, gx.data(), root ? 29 : 0));
  HPF_C_OK(hpf_array_scatter(Y.a, 0, gy.data(), root ? 77 : 0));
  HPF_C_OK(hpf_array_scatter(Z.a, 0, gz.data(), root ? 60 : 0));
  const auto holds = [&](const char* where) {
    std::vector<double> bx(root ? 29 : 0);
    std::vector<int32_t> by(root ? 77 : 0);
    std::vector<int64_t> bz(root ? 60 : 0);
    HPF_C_OK(hpf_array_gather(X.a, 0, bx.data()));
    HPF_C_OK(hpf_array_gather(Y.a, 0, by.data()));
    HPF_C_OK(hpf_array_gather(Z.a, 0, bz.data()));
    if (root) {
      EXPECT_EQ(bx, gx) << where;
      EXPECT_EQ(by, gy) << where;
      EXPECT_EQ(bz, gz) << where;
    }
  };
  const hpf_array arrays[3] = {X.a, Y.a, Z.a};
  // Every array's distributions in turn: X (1), Y (2), Z (3).
  const hpf_dist to[6] = {{HPF_DIST_CYCLIC, 3, nullptr},    {HPF_DIST_BLOCK, 0, nullptr},
                          {HPF_DIST_COLLAPSED, 0, nullptr}, {HPF_DIST_COLLAPSED, 0, nullptr},
                          {HPF_DIST_COLLAPSED, 0, nullptr}, {HPF_DIST_BLOCK, 0, nullptr}};
  const hpf_grid to_grids[3] = {back_g.g, all.g, back_g.g};
  const hpf_dist from[6] = {dx[0], dy[0], dy[1], dz[0], dz[1], dz[2]};
  const hpf_grid from_grids[3] = {all.g, all.g, all.g};
  for (int round = 0; round < 3; ++round) {
    HPF_C_OK(hpf_array_redistribute_many(3, arrays, to, to_grids, HPF_STRATEGY_AUTO));
    holds("after the move");
    HPF_C_OK(hpf_array_redistribute_many(3, arrays, from, from_grids, HPF_STRATEGY_AUTO));
    holds("after the move back");
  }
  HPF_C_OK(hpf_array_redistribute_many(0, nullptr, nullptr, nullptr, HPF_STRATEGY_AUTO));
  // Bad input: every rank fails, every array unchanged, the message names the array.
  const hpf_dist bad[6] = {to[0], to[1], {HPF_DIST_CYCLIC, -2, nullptr}, to[3], to[4], to[5]};
  EXPECT_EQ(hpf_array_redistribute_many(3, arrays, bad, to_grids, HPF_STRATEGY_AUTO), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find("arrays[1]"), std::string::npos) << hpf_last_error();
  EXPECT_EQ(hpf_array_redistribute_many(3, arrays, to, to_grids, 42), HPF_ERR_ARG);
  EXPECT_EQ(hpf_array_redistribute_many(-1, arrays, to, to_grids, HPF_STRATEGY_AUTO), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find("count = -1"), std::string::npos) << hpf_last_error();
  holds("after the refusals");
}

template <class T> void fill_and_sum(hpf_type type, int rank) {
  const int n = world_size();
  GridGuard grid;
  std::vector<int> shape(static_cast<std::size_t>(rank), 1);
  shape[0] = n;
  HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, rank, shape.data(), &grid.g));
  std::vector<int64_t> ext(static_cast<std::size_t>(rank), 3);
  ext[0] = 7;
  std::vector<hpf_dist> dists(static_cast<std::size_t>(rank), hpf_dist{HPF_DIST_BLOCK, 0, nullptr});
  ArrayGuard A;
  HPF_C_OK(hpf_array_create("F", type, rank, ext.data(), dists.data(), grid.g, &A.a));
  const T one = 2;
  HPF_C_OK(hpf_array_fill(A.a, &one));
  T s = 0;
  HPF_C_OK(hpf_array_sum(A.a, &s));
  int64_t count = 1;
  for (const int64_t e : ext) count *= e;
  EXPECT_EQ(s, static_cast<T>(2 * count)) << "type " << type << " rank " << rank;
}

TEST(CApi, EveryElementTypeAndRank) {
  for (int rank = 1; rank <= 4; ++rank) {
    fill_and_sum<double>(HPF_FLOAT64, rank);
    fill_and_sum<float>(HPF_FLOAT32, rank);
    fill_and_sum<std::int32_t>(HPF_INT32, rank);
    fill_and_sum<std::int64_t>(HPF_INT64, rank);
  }
}

TEST(CApi, GridOnASubsetAndRanksOutsideIt) {
  // The grid holds the odd ranks in reverse order; the others take part in collectives with nothing.
  const int n = world_size();
  std::vector<int> ranks;
  for (int r = n - 1; r >= 0; --r)
    if (r % 2 == 1) ranks.push_back(r);
  if (ranks.empty()) ranks.push_back(0);
  const int shape[1] = {static_cast<int>(ranks.size())};
  GridGuard grid;
  HPF_C_OK(hpf_grid_create_f(MPI_Comm_c2f(MPI_COMM_WORLD), static_cast<int>(ranks.size()), ranks.data(), 1,
                             shape, &grid.g));
  const int64_t ext[1] = {10};
  const hpf_dist dist[1] = {{HPF_DIST_CYCLIC, 3, nullptr}};
  ArrayGuard A;
  HPF_C_OK(hpf_array_create("S", HPF_INT64, 1, ext, dist, grid.g, &A.a));
  const int64_t v = 5;
  HPF_C_OK(hpf_array_fill(A.a, &v));
  int64_t s = 0;
  HPF_C_OK(hpf_array_sum(A.a, &s));
  EXPECT_EQ(s, 50);
  int pos = 0;
  HPF_C_OK(hpf_grid_my_position(grid.g, &pos));
  int64_t lext = -1;
  void* data = nullptr;
  HPF_C_OK(hpf_array_local(A.a, &data, &lext));
  if (pos < 0) {
    EXPECT_EQ(lext, 0);
    EXPECT_EQ(data, nullptr);
  }
}

/// Expects `call` to fail with `status` and a message containing `needle`.
#define HPF_C_FAILS(call, status, needle)                                                                    \
  do {                                                                                                       \
    EXPECT_EQ((call), status) << #call;                                                                      \
    EXPECT_NE(std::string(hpf_last_error()).find(needle), std::string::npos)                                 \
        << #call << ": '" << hpf_last_error() << "' lacks '" << (needle) << "'";                             \
  } while (0)

// hpf_array_allgather gives every rank the whole array in Fortran order; hpf_array_store_owned
// writes a whole array held on every rank back into the local blocks, no communication: the
// replicated copies a lowered program computes on where no owner-computes lowering applies. A
// 3-D CYCLIC(2) x * x BLOCK int64 array, and a rank-1 int32 array with a SHADOW, whose shadow
// slots (zero from the creation) the store leaves alone.
TEST(CApi, AllgatherAndStoreOwnedRoundTrip) {
  const int n = world_size();
  GridGuard grid;
  const int shape[2] = {n, 1};
  HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, 2, shape, &grid.g));
  const int64_t ext[3] = {7, 3, 4};
  const hpf_dist dists[3] = {
      {HPF_DIST_CYCLIC, 2, nullptr}, {HPF_DIST_COLLAPSED, 0, nullptr}, {HPF_DIST_BLOCK, 0, nullptr}};
  ArrayGuard A;
  HPF_C_OK(hpf_array_create("A", HPF_INT64, 3, ext, dists, grid.g, &A.a));
  std::vector<int64_t> whole(7 * 3 * 4);
  std::iota(whole.begin(), whole.end(), int64_t{10});
  HPF_C_OK(hpf_array_store_owned(A.a, whole.data()));
  std::vector<int64_t> back(whole.size(), -1);
  HPF_C_OK(hpf_array_allgather(A.a, back.data()));
  EXPECT_EQ(back, whole) << "rank " << world_rank();
  int64_t s = 0;
  HPF_C_OK(hpf_array_sum(A.a, &s));
  EXPECT_EQ(s, std::accumulate(whole.begin(), whole.end(), int64_t{0}));

  GridGuard line;
  const int line_shape[1] = {n};
  HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, 1, line_shape, &line.g));
  const int64_t ext1[1] = {11};
  const int64_t shadow[1] = {1};
  const hpf_dist block[1] = {{HPF_DIST_BLOCK, 0, nullptr}};
  ArrayGuard B;
  HPF_C_OK(hpf_array_create_shadow("B", HPF_INT32, 1, ext1, block, shadow, line.g, &B.a));
  std::vector<int32_t> values(11);
  std::iota(values.begin(), values.end(), 1);
  HPF_C_OK(hpf_array_store_owned(B.a, values.data()));
  std::vector<int32_t> got(11, 0);
  HPF_C_OK(hpf_array_allgather(B.a, got.data()));
  EXPECT_EQ(got, values) << "rank " << world_rank();
  void* data = nullptr;
  int64_t lext[1] = {0};
  HPF_C_OK(hpf_array_local(B.a, &data, lext));
  for (int64_t k = 0; k < lext[0]; ++k) {
    int owned = 0;
    HPF_C_OK(hpf_array_slot(B.a, k, &owned, nullptr));
    if (owned == 0) {
      EXPECT_EQ(static_cast<int32_t*>(data)[k], 0) << "shadow slot " << k << " on rank " << world_rank();
    }
  }
  HPF_C_OK(hpf_array_update_shadow(B.a, HPF_BOUNDARY_PLAIN));
}

// hpf_broadcast copies the root's bytes to every rank (a lowered READ sends what rank 0 read), and
// refuses a root outside MPI_COMM_WORLD on every rank.
TEST(CApi, BroadcastCopiesTheRootsBytes) {
  const int n = world_size();
  std::vector<double> v(5, -1.0);
  if (world_rank() == n - 1) std::iota(v.begin(), v.end(), 0.5);
  HPF_C_OK(hpf_broadcast(v.data(), static_cast<int64_t>(v.size() * sizeof(double)), n - 1));
  EXPECT_EQ(v, (std::vector<double>{0.5, 1.5, 2.5, 3.5, 4.5})) << "rank " << world_rank();
  HPF_C_OK(hpf_broadcast(nullptr, 0, 0));
  HPF_C_FAILS(hpf_broadcast(v.data(), 8, n), HPF_ERR_ARG, "root must be in [0, ");
  HPF_C_FAILS(hpf_broadcast(v.data(), -1, 0), HPF_ERR_ARG, "bytes must be >= 0");
}

TEST(CApi, ErrorsAreStatusesWithMessages) {
  const int n = world_size();
  const int shape[1] = {n};
  GridGuard grid;
  HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, 1, shape, &grid.g));
  const int bad_shape[1] = {n + 1};
  hpf_grid g2 = nullptr;
  HPF_C_FAILS(hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, 1, bad_shape, &g2), HPF_ERR_ARG, "shape");
  HPF_C_FAILS(hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, 5, shape, &g2), HPF_ERR_ARG,
              "ndims must be 1 to 4, got 5");
  EXPECT_EQ(g2, nullptr);

  const int64_t ext[1] = {10};
  const hpf_dist cyc0[1] = {{HPF_DIST_CYCLIC, 0, nullptr}};
  const hpf_dist badkind[1] = {{7, 1, nullptr}};
  const hpf_dist block[1] = {{HPF_DIST_BLOCK, 0, nullptr}};
  const int64_t negative[1] = {-4};
  hpf_array a = nullptr;
  HPF_C_FAILS(hpf_array_create("X", HPF_FLOAT64, 1, ext, cyc0, grid.g, &a), HPF_ERR_ARG, "got 0");
  HPF_C_FAILS(hpf_array_create("X", HPF_FLOAT64, 1, ext, badkind, grid.g, &a), HPF_ERR_ARG, "dists[0].kind");
  HPF_C_FAILS(hpf_array_create("X", HPF_FLOAT64, 1, negative, block, grid.g, &a), HPF_ERR_ARG, "got -4");
  HPF_C_FAILS(hpf_array_create("X", HPF_FLOAT64, 5, ext, block, grid.g, &a), HPF_ERR_ARG,
              "rank must be 1 to 4, got 5");
  HPF_C_FAILS(hpf_array_create("X", 9, 1, ext, block, grid.g, &a), HPF_ERR_ARG, "got 9");
  HPF_C_FAILS(hpf_array_create("X", HPF_FLOAT64, 1, ext, block, nullptr, &a), HPF_ERR_ARG, "handle is NULL");
  EXPECT_EQ(a, nullptr);

  ArrayGuard A;
  HPF_C_OK(hpf_array_create("X", HPF_FLOAT64, 1, ext, block, grid.g, &A.a));
  const int64_t out_of_range[1] = {10};
  int owned = 0;
  HPF_C_FAILS(hpf_array_locate(A.a, out_of_range, &owned, nullptr), HPF_ERR_ARG, "outside the extents");
  int64_t gi[1] = {0};
  HPF_C_FAILS(hpf_array_global_index(A.a, 1000, gi), HPF_ERR_ARG, "got 1000");
  double r = 0;
  HPF_C_FAILS(hpf_array_gather(A.a, n, &r), HPF_ERR_ARG, "root");
  std::vector<double> seven(7, 1.0);
  HPF_C_FAILS(hpf_array_scatter(A.a, 0, seven.data(), world_rank() == 0 ? 7 : 0), HPF_ERR_ARG,
              "expected the global size 10");
  HPF_C_FAILS(hpf_array_sum(nullptr, &r), HPF_ERR_ARG, "handle is NULL");

  const int64_t zero[1] = {0};
  ArrayGuard E;
  HPF_C_OK(hpf_array_create("E", HPF_FLOAT64, 1, zero, block, grid.g, &E.a));
  HPF_C_OK(hpf_array_sum(E.a, &r));
  EXPECT_EQ(r, 0.0);
  HPF_C_FAILS(hpf_array_min(E.a, &r), HPF_ERR_ARG, "empty");

  // The test main owns the environment: hpf_init nests (no-op), and a second one is refused.
  HPF_C_OK(hpf_init(nullptr, nullptr));
  HPF_C_FAILS(hpf_init(nullptr, nullptr), HPF_ERR_ARG, "already called");
  HPF_C_OK(hpf_finalize());
  HPF_C_FAILS(hpf_finalize(), HPF_ERR_ARG, "hpf_init was not called");
  int initialized = 0;
  MPI_Finalized(&initialized);
  EXPECT_EQ(initialized, 0) << "a nested hpf_finalize must not finalise MPI";
}

// Handles are checked, never trusted. Each of these used to write freed memory,
// abort in glibc or segfault; under ASan (scripts/test's sanitizer pass) any dereference would show.
TEST(CApi, Issue15FreedMadeUpAndMistypedHandlesAreArgumentErrors) {
  const int n = world_size();
  const int shape[1] = {n};
  GridGuard grid;
  HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, 1, shape, &grid.g));
  const int64_t ext[1] = {10};
  const hpf_dist block[1] = {{HPF_DIST_BLOCK, 0, nullptr}};
  hpf_array a = nullptr;
  HPF_C_OK(hpf_array_create("A", HPF_FLOAT64, 1, ext, block, grid.g, &a));
  const hpf_array stale = a;
  HPF_C_OK(hpf_array_free(&a));
  EXPECT_EQ(a, nullptr);

  // Use after free, and a double free through a copy of the handle.
  double r = 0;
  const double one = 1.0;
  HPF_C_FAILS(hpf_array_fill(stale, &one), HPF_ERR_ARG, "is not live");
  HPF_C_FAILS(hpf_array_sum(stale, &r), HPF_ERR_ARG, "is not live");
  hpf_array again = stale;
  HPF_C_FAILS(hpf_array_free(&again), HPF_ERR_ARG, "is not live");

  // The freed slot is reused by the next array; the stale handle stays dead, the new one works.
  ArrayGuard B;
  HPF_C_OK(hpf_array_create("B", HPF_FLOAT64, 1, ext, block, grid.g, &B.a));
  EXPECT_NE(B.a, stale);
  HPF_C_FAILS(hpf_array_fill(stale, &one), HPF_ERR_ARG, "is not live");
  HPF_C_OK(hpf_array_fill(B.a, &one));
  HPF_C_OK(hpf_array_sum(B.a, &r));
  EXPECT_EQ(r, 10.0);

  // Made-up values: small integers, the address of a local, all bits set, and a grid as an array.
  double local = 0;
  const hpf_array made_up[] = {
      reinterpret_cast<hpf_array>(std::uintptr_t{0x1234}), reinterpret_cast<hpf_array>(&local),
      reinterpret_cast<hpf_array>(~std::uintptr_t{0}), reinterpret_cast<hpf_array>(grid.g)};
  for (hpf_array m : made_up) {
    HPF_C_FAILS(hpf_array_fill(m, &one), HPF_ERR_ARG, "is not an hpf_array handle");
    HPF_C_FAILS(hpf_array_sum(m, &r), HPF_ERR_ARG, "is not an hpf_array handle");
    int64_t lext[1] = {0};
    HPF_C_FAILS(hpf_array_local(m, nullptr, lext), HPF_ERR_ARG, "is not an hpf_array handle");
    hpf_array copy = m;
    HPF_C_FAILS(hpf_array_free(&copy), HPF_ERR_ARG, "is not an hpf_array handle");
  }
  int pos = -1;
  HPF_C_FAILS(hpf_grid_my_position(reinterpret_cast<hpf_grid>(B.a), &pos), HPF_ERR_ARG,
              "is not an hpf_grid handle");
  hpf_array into = nullptr;
  HPF_C_FAILS(hpf_array_create("C", HPF_FLOAT64, 1, ext, block, reinterpret_cast<hpf_grid>(&local), &into),
              HPF_ERR_ARG, "is not an hpf_grid handle");
  EXPECT_EQ(into, nullptr);

  // Grids: use after free and double free.
  hpf_grid g2 = nullptr;
  HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, 1, shape, &g2));
  const hpf_grid stale_grid = g2;
  HPF_C_OK(hpf_grid_free(&g2));
  HPF_C_FAILS(hpf_grid_my_position(stale_grid, &pos), HPF_ERR_ARG, "is not live");
  hpf_grid g3 = stale_grid;
  HPF_C_FAILS(hpf_grid_free(&g3), HPF_ERR_ARG, "is not live");
}

/// Expects `status` and a message holding `needle` on this rank, and that every rank got `status`.
#define HPF_C_FAILS_EVERYWHERE(call, needle)                                                                 \
  do {                                                                                                       \
    const int hpf_rc = (call);                                                                               \
    EXPECT_EQ(hpf_rc, HPF_ERR_ARG) << #call << ": " << hpf_last_error();                                     \
    EXPECT_NE(std::string(hpf_last_error()).find(needle), std::string::npos)                                 \
        << #call << ": '" << hpf_last_error() << "' lacks '" << (needle) << "'";                             \
  } while (0)

// A C ABI call fails on all ranks or on none. NULL data on the root only
// used to return on the root while the others waited in MPI_Bcast forever; arguments that differ
// between ranks used to fail in MPI_Waitall on one rank or give a wrong answer silently.
TEST(CApi, Issue15ArgumentErrorsOnSomeRanksFailOnEveryRank) {
  const int n = world_size();
  const int me = world_rank();
  const int last = n - 1;
  const int shape[1] = {n};
  GridGuard grid;
  HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, 1, shape, &grid.g));
  const int64_t ext[1] = {10};
  const hpf_dist block[1] = {{HPF_DIST_BLOCK, 0, nullptr}};
  ArrayGuard A;
  HPF_C_OK(hpf_array_create("A", HPF_FLOAT64, 1, ext, block, grid.g, &A.a));
  const double one = 1.0;
  HPF_C_OK(hpf_array_fill(A.a, &one));

  HPF_C_FAILS_EVERYWHERE(hpf_array_scatter(A.a, 0, nullptr, me == 0 ? 10 : 0), "data (on the root)");
  HPF_C_FAILS_EVERYWHERE(hpf_array_scatter(A.a, last, nullptr, me == last ? -1 : 0), "count must be >= 0");
  HPF_C_FAILS_EVERYWHERE(hpf_array_gather(A.a, last, nullptr), "out (on the root)");
  double r = 0;
  HPF_C_FAILS_EVERYWHERE(hpf_array_sum(A.a, me == last ? nullptr : &r), "handle is NULL");
  const hpf_dist cyc3[1] = {{HPF_DIST_CYCLIC, 3, nullptr}};
  HPF_C_FAILS_EVERYWHERE(hpf_array_redistribute(A.a, cyc3, grid.g, me == last ? 42 : HPF_STRATEGY_AUTO),
                         "got 42");
  const hpf_dist cyc0[1] = {{HPF_DIST_CYCLIC, 0, nullptr}};
  HPF_C_FAILS_EVERYWHERE(hpf_array_redistribute(A.a, me == last ? cyc0 : cyc3, grid.g, HPF_STRATEGY_AUTO),
                         "got 0");
  hpf_array X = nullptr;
  HPF_C_FAILS_EVERYWHERE(hpf_array_create("X", HPF_FLOAT64, 1, ext, me == last ? cyc0 : block, grid.g, &X),
                         "got 0");
  EXPECT_EQ(X, nullptr);

  if (n > 1) {
    // Different arguments on different ranks: CYCLIC(3) on one rank, CYCLIC(5) on the others; extents
    // 10 and 12; roots 0 and 1.
    const hpf_dist cyc5[1] = {{HPF_DIST_CYCLIC, 5, nullptr}};
    HPF_C_FAILS_EVERYWHERE(hpf_array_redistribute(A.a, me == 0 ? cyc3 : cyc5, grid.g, HPF_STRATEGY_AUTO),
                           "passed different arguments");
    const int64_t ext12[1] = {12};
    HPF_C_FAILS_EVERYWHERE(hpf_array_create("X", HPF_FLOAT64, 1, me == 0 ? ext : ext12, block, grid.g, &X),
                           "passed different arguments");
    EXPECT_EQ(X, nullptr);
    std::vector<double> ten(10, 2.0);
    HPF_C_FAILS_EVERYWHERE(hpf_array_scatter(A.a, me == 0 ? 0 : 1, ten.data(), 10),
                           "passed different arguments");
    HPF_C_FAILS_EVERYWHERE(hpf_array_gather(A.a, me == 0 ? 0 : 1, ten.data()), "passed different arguments");
  }

  // Nothing got out of step: the array is intact and the next collectives agree.
  HPF_C_OK(hpf_array_sum(A.a, &r));
  EXPECT_EQ(r, 10.0);
  HPF_C_OK(hpf_array_redistribute(A.a, cyc3, grid.g, HPF_STRATEGY_AUTO));
  HPF_C_OK(hpf_array_sum(A.a, &r));
  EXPECT_EQ(r, 10.0);
}

} // namespace
