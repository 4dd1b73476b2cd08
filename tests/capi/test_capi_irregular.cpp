// GEN_BLOCK and INDIRECT through the C ABI on 1..7 ranks: arrays created with
// either, REDISTRIBUTE between them and CYCLIC, and a section assignment, each checked against the
// gathered data; bad tables fail on every rank with a message naming the table.
#include "capi_test.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using hpf::test::ArrayGuard;
using hpf::test::GridGuard;
using hpf::test::pick;
using hpf::test::world_rank;
using hpf::test::world_size;

/// P sizes >= 0 summing to n (zero-size blocks included).
std::vector<int64_t> random_sizes(int64_t n, int P) {
  std::vector<int64_t> cuts{0, n};
  for (int p = 1; p < P; ++p) cuts.push_back(pick(0, n));
  std::sort(cuts.begin(), cuts.end());
  std::vector<int64_t> sizes;
  for (int p = 0; p < P; ++p)
    sizes.push_back(cuts[static_cast<std::size_t>(p) + 1] - cuts[static_cast<std::size_t>(p)]);
  return sizes;
}

std::vector<int32_t> random_owners(int64_t n, int P) {
  std::vector<int32_t> owners(static_cast<std::size_t>(n));
  for (auto& o : owners) o = static_cast<int32_t>(pick(0, P - 1));
  return owners;
}

std::vector<double> gathered(hpf_array a, int64_t n) {
  std::vector<double> out(static_cast<std::size_t>(n));
  EXPECT_EQ(hpf_array_gather(a, 0, out.data()), HPF_OK) << hpf_last_error();
  return out;
}

TEST(CApiIrregular, GenBlockAndIndirectRedistributeAndAssign) {
  const int P = world_size();
  GridGuard grid;
  HPF_C_OK(hpf_grid_create_world(1, &P, &grid.g));
  for (int iter = 0; iter < 20; ++iter) {
    const int64_t n = pick(0, 40);
    const auto sizes = random_sizes(n, P);
    const auto owners = random_owners(n, P);
    const hpf_dist gen = {HPF_DIST_GEN_BLOCK, 0, sizes.data()};
    const hpf_dist ind = {HPF_DIST_INDIRECT, 0, owners.data()};
    const hpf_dist cyc = {HPF_DIST_CYCLIC, pick(1, 4), nullptr};
    ArrayGuard A;
    HPF_C_OK(hpf_array_create("A", HPF_FLOAT64, 1, &n, &gen, grid.g, &A.a));
    std::vector<double> data(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i) data[static_cast<std::size_t>(i)] = 0.5 + static_cast<double>(i);
    HPF_C_OK(hpf_array_scatter(A.a, 0, data.data(), world_rank() == 0 ? n : 0));
    // The local block holds exactly this rank's GEN_BLOCK share.
    void* local = nullptr;
    int64_t local_n = -1;
    HPF_C_OK(hpf_array_local(A.a, &local, &local_n));
    EXPECT_EQ(local_n, sizes[static_cast<std::size_t>(world_rank())]);
    for (const hpf_dist* to : {&ind, &cyc, &gen}) {
      HPF_C_OK(hpf_array_redistribute(A.a, to, grid.g, HPF_STRATEGY_AUTO));
      const auto got = gathered(A.a, n);
      if (world_rank() == 0) {
        ASSERT_EQ(got, data) << "iteration " << iter << ", kind " << to->kind;
      }
    }
    // B(n-1:0:-1) = A(0:n-1) from GEN_BLOCK into INDIRECT.
    if (n == 0) continue;
    ArrayGuard B;
    HPF_C_OK(hpf_array_create("B", HPF_FLOAT64, 1, &n, &ind, grid.g, &B.a));
    const hpf_triplet sb = {n - 1, 0, -1}, sa = {0, n - 1, 1};
    HPF_C_OK(hpf_array_assign_section(B.a, &sb, A.a, &sa, nullptr));
    const auto b = gathered(B.a, n);
    if (world_rank() != 0) continue;
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(b[static_cast<std::size_t>(i)], data[static_cast<std::size_t>(n - 1 - i)])
          << "iteration " << iter;
  }
}

TEST(CApiIrregular, BadTablesFailOnEveryRank) {
  const int P = world_size();
  GridGuard grid;
  HPF_C_OK(hpf_grid_create_world(1, &P, &grid.g));
  const int64_t n = 10;
  auto expect_arg = [](hpf_status st, const std::string& words) {
    EXPECT_EQ(st, HPF_ERR_ARG);
    EXPECT_NE(std::string(hpf_last_error()).find(words), std::string::npos) << hpf_last_error();
  };
  ArrayGuard A;
  std::vector<int64_t> sizes(static_cast<std::size_t>(P), 0);
  sizes[0] = n + 1; // sums to 11, not 10
  const hpf_dist too_many = {HPF_DIST_GEN_BLOCK, 0, sizes.data()};
  expect_arg(hpf_array_create("A", HPF_FLOAT64, 1, &n, &too_many, grid.g, &A.a), "sum");
  EXPECT_EQ(A.a, nullptr);
  sizes[0] = -1;
  const hpf_dist negative = {HPF_DIST_GEN_BLOCK, 0, sizes.data()};
  expect_arg(hpf_array_create("A", HPF_FLOAT64, 1, &n, &negative, grid.g, &A.a), "-1");
  std::vector<int32_t> owners(static_cast<std::size_t>(n), 0);
  owners[3] = P; // outside the grid
  const hpf_dist outside = {HPF_DIST_INDIRECT, 0, owners.data()};
  expect_arg(hpf_array_create("A", HPF_FLOAT64, 1, &n, &outside, grid.g, &A.a), std::to_string(P));
  const hpf_dist null_map = {HPF_DIST_INDIRECT, 0, nullptr};
  expect_arg(hpf_array_create("A", HPF_FLOAT64, 1, &n, &null_map, grid.g, &A.a), "dists[0].map");
  const hpf_dist bad_kind = {7, 0, nullptr};
  expect_arg(hpf_array_create("A", HPF_FLOAT64, 1, &n, &bad_kind, grid.g, &A.a), "HPF_DIST_INDIRECT (4)");
  // A table that differs between ranks: every rank fails, none keeps an array.
  std::vector<int32_t> mine(static_cast<std::size_t>(n), 0);
  mine[0] = world_rank() % P;
  const hpf_dist differs = {HPF_DIST_INDIRECT, 0, mine.data()};
  const hpf_status st = hpf_array_create("A", HPF_FLOAT64, 1, &n, &differs, grid.g, &A.a);
  if (P > 1) {
    expect_arg(st, "different");
    EXPECT_EQ(A.a, nullptr);
  } else {
    EXPECT_EQ(st, HPF_OK);
  }
}

} // namespace
