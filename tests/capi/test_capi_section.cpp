// The C ABI's array sections, transposes and transforms on 1..7 ranks: random sections with
// positive and negative strides between random distributions over random grids, and permuted
// transposes, each checked against the same assignment done serially on the gathered arrays; every
// error is a status on every rank, with the target unchanged.
#include "capi_test.hpp"

#include <array>
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

hpf_dist random_dist() {
  switch (pick(0, 2)) {
  case 0:
    return {HPF_DIST_BLOCK, 0, nullptr};
  case 1:
    return {HPF_DIST_CYCLIC, pick(1, 4), nullptr};
  default:
    return {HPF_DIST_COLLAPSED, 0, nullptr};
  }
}

/// A grid for arrays distributed by d: one grid dimension per distributed dimension (a random
/// factorisation of the ranks for two), or a one-rank grid when nothing is distributed.
void make_grid(GridGuard& grid, const hpf_dist d[2]) {
  const int P = world_size();
  const int k = (d[0].kind != HPF_DIST_COLLAPSED ? 1 : 0) + (d[1].kind != HPF_DIST_COLLAPSED ? 1 : 0);
  if (k == 0) {
    const int rank0 = 0, one = 1;
    ASSERT_EQ(hpf_grid_create(MPI_COMM_WORLD, 1, &rank0, 1, &one, &grid.g), HPF_OK) << hpf_last_error();
    return;
  }
  if (k == 1) {
    ASSERT_EQ(hpf_grid_create_world(1, &P, &grid.g), HPF_OK) << hpf_last_error();
    return;
  }
  std::vector<int> fs;
  for (int f = 1; f <= P; ++f)
    if (P % f == 0) fs.push_back(f);
  const int a = fs[static_cast<std::size_t>(pick(0, static_cast<int64_t>(fs.size()) - 1))];
  const int shape[2] = {a, P / a};
  ASSERT_EQ(hpf_grid_create_world(2, shape, &grid.g), HPF_OK) << hpf_last_error();
}

/// A 2-D float64 array filled with f(i, j) by scatter from rank 0.
void make_array(ArrayGuard& A, const int64_t ext[2], const hpf_dist d[2], hpf_grid grid, double base) {
  ASSERT_EQ(hpf_array_create("A", HPF_FLOAT64, 2, ext, d, grid, &A.a), HPF_OK) << hpf_last_error();
  std::vector<double> all(static_cast<std::size_t>(ext[0] * ext[1]));
  for (int64_t j = 0; j < ext[1]; ++j)
    for (int64_t i = 0; i < ext[0]; ++i)
      all[static_cast<std::size_t>(i + ext[0] * j)] =
          base + static_cast<double>(i) + 1000.0 * static_cast<double>(j);
  ASSERT_EQ(hpf_array_scatter(A.a, 0, all.data(), static_cast<int64_t>(all.size())), HPF_OK)
      << hpf_last_error();
}

std::vector<double> gathered(hpf_array a, const int64_t ext[2]) {
  std::vector<double> out(static_cast<std::size_t>(ext[0] * ext[1]));
  EXPECT_EQ(hpf_array_gather(a, 0, out.data()), HPF_OK) << hpf_last_error();
  return out;
}

/// A random triplet of `count` elements inside [0, n), either direction.
hpf_triplet random_triplet(int64_t n, int64_t count) {
  const int64_t max_stride = count > 1 ? (n - 1) / (count - 1) : n;
  const int64_t s = pick(1, std::max<int64_t>(1, std::min<int64_t>(max_stride, 4)));
  const int64_t span = (count - 1) * s;
  const int64_t lo = pick(0, n - 1 - span);
  if (pick(0, 1) == 0) return {lo, lo + span, s};
  return {lo + span, lo, -s};
}

int64_t element(const hpf_triplet& t, int64_t k) { return t.lo + k * t.stride; }

TEST(CApiSection, RandomSectionsAndPermutationsMatchASerialAssignment) {
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t ea[2] = {pick(1, 13), pick(1, 9)};
    const int64_t eb[2] = {pick(1, 13), pick(1, 9)};
    const hpf_dist da[2] = {random_dist(), random_dist()};
    const hpf_dist db[2] = {random_dist(), random_dist()};
    GridGuard ga, gb;
    make_grid(ga, da);
    make_grid(gb, db);
    const bool permute = pick(0, 1) == 1;
    const int32_t perm[2] = {1, 0};
    // Counts that fit both arrays: dst dim d takes src dim perm[d] (or d).
    std::array<int64_t, 2> count{};
    hpf_triplet sa[2]{}, sb[2]{};
    for (int d = 0; d < 2; ++d) {
      const int a = permute ? perm[d] : d;
      count[static_cast<std::size_t>(d)] = pick(1, std::min(ea[a], eb[d]));
      sb[d] = random_triplet(eb[d], count[static_cast<std::size_t>(d)]);
      sa[a] = random_triplet(ea[a], count[static_cast<std::size_t>(d)]);
    }
    ArrayGuard A, B;
    make_array(A, ea, da, ga.g, 0.5);
    make_array(B, eb, db, gb.g, -7.0);
    const auto a0 = gathered(A.a, ea);
    auto expect = gathered(B.a, eb);
    HPF_C_OK(hpf_array_assign_section(B.a, sb, A.a, sa, permute ? perm : nullptr));
    const auto got = gathered(B.a, eb);
    if (world_rank() != 0) continue;
    for (int64_t k1 = 0; k1 < count[1]; ++k1)
      for (int64_t k0 = 0; k0 < count[0]; ++k0) {
        const std::array<int64_t, 2> k{k0, k1};
        std::array<int64_t, 2> ia{};
        for (int d = 0; d < 2; ++d) {
          const int a = permute ? perm[d] : d;
          ia[static_cast<std::size_t>(a)] = element(sa[a], k[static_cast<std::size_t>(d)]);
        }
        expect[static_cast<std::size_t>(element(sb[0], k0) + eb[0] * element(sb[1], k1))] =
            a0[static_cast<std::size_t>(ia[0] + ea[0] * ia[1])];
      }
    ASSERT_EQ(got, expect) << "iteration " << iter;
  }
}

TEST(CApiSection, OverlappingSectionsOfOneArrayReadTheRightSideFirst) {
  const int64_t ext[2] = {10, 3};
  const hpf_dist d[2] = {{HPF_DIST_CYCLIC, 2, nullptr}, {HPF_DIST_BLOCK, 0, nullptr}};
  GridGuard g;
  make_grid(g, d);
  ArrayGuard A;
  make_array(A, ext, d, g.g, 0.0);
  const auto before = gathered(A.a, ext);
  const hpf_triplet dst[2] = {{1, 9, 1}, {0, 2, 1}}, src[2] = {{0, 8, 1}, {0, 2, 1}}; // A(2:10,:) = A(1:9,:)
  HPF_C_OK(hpf_array_assign_section(A.a, dst, A.a, src, nullptr));
  const auto after = gathered(A.a, ext);
  if (world_rank() != 0) return;
  for (int64_t j = 0; j < 3; ++j)
    for (int64_t i = 1; i < 10; ++i)
      EXPECT_EQ(after[static_cast<std::size_t>(i + 10 * j)],
                before[static_cast<std::size_t>(i - 1 + 10 * j)]);
}

TEST(CApiSection, TransposeIntoAnyDistribution) {
  for (int iter = 0; iter < 10; ++iter) {
    const int64_t ea[2] = {pick(0, 12), pick(1, 8)}; // zero extents too
    const int64_t eb[2] = {ea[1], ea[0]};
    const hpf_dist da[2] = {random_dist(), random_dist()}, db[2] = {random_dist(), random_dist()};
    GridGuard ga, gb;
    make_grid(ga, da);
    make_grid(gb, db);
    ArrayGuard A, B;
    make_array(A, ea, da, ga.g, 1.0);
    make_array(B, eb, db, gb.g, 0.0);
    HPF_C_OK(hpf_array_transpose(A.a, nullptr, B.a));
    const auto a = gathered(A.a, ea);
    const auto b = gathered(B.a, eb);
    if (world_rank() != 0) continue;
    for (int64_t j = 0; j < ea[1]; ++j)
      for (int64_t i = 0; i < ea[0]; ++i)
        ASSERT_EQ(b[static_cast<std::size_t>(j + eb[0] * i)], a[static_cast<std::size_t>(i + ea[0] * j)]);
  }
}

// hpf_array_transform: B = alpha A^T + beta B between two random distributions, against the same
// arithmetic on the gathered arrays (small integers: exact); and its NULL scalars fail on every rank.
TEST(CApiSection, TransformWithTransposeAndScalars) {
  for (int iter = 0; iter < 10; ++iter) {
    const int64_t ea[2] = {pick(0, 12), pick(1, 8)};
    const int64_t eb[2] = {ea[1], ea[0]};
    const hpf_dist da[2] = {random_dist(), random_dist()}, db[2] = {random_dist(), random_dist()};
    GridGuard ga, gb;
    make_grid(ga, da);
    make_grid(gb, db);
    ArrayGuard A, B;
    make_array(A, ea, da, ga.g, 1.0);
    make_array(B, eb, db, gb.g, 0.0);
    const auto a = gathered(A.a, ea);
    const auto b0 = gathered(B.a, eb);
    const double alpha = static_cast<double>(pick(-3, 3)), beta = iter % 3 == 0 ? 0.0 : 2.0;
    const hpf_triplet sa[2] = {{0, ea[0] - 1, 1}, {0, ea[1] - 1, 1}},
                      sb[2] = {{0, eb[0] - 1, 1}, {0, eb[1] - 1, 1}};
    const int32_t perm[2] = {1, 0};
    HPF_C_OK(hpf_array_transform(B.a, sb, A.a, sa, perm, &alpha, &beta, 0));
    const auto b = gathered(B.a, eb);
    if (world_rank() != 0) continue;
    for (int64_t j = 0; j < ea[1]; ++j)
      for (int64_t i = 0; i < ea[0]; ++i) {
        const auto k = static_cast<std::size_t>(j + eb[0] * i);
        ASSERT_EQ(b[k], alpha * a[static_cast<std::size_t>(i + ea[0] * j)] + beta * b0[k])
            << "iteration " << iter;
      }
  }
  const int64_t ext[2] = {5, 4};
  const hpf_dist d[2] = {{HPF_DIST_BLOCK, 0, nullptr}, {HPF_DIST_CYCLIC, 1, nullptr}};
  GridGuard g;
  make_grid(g, d);
  ArrayGuard A, B;
  make_array(A, ext, d, g.g, 3.0);
  make_array(B, ext, d, g.g, -1.0);
  const hpf_triplet whole[2] = {{0, 4, 1}, {0, 3, 1}};
  const double one = 1.0;
  EXPECT_EQ(hpf_array_transform(B.a, whole, A.a, whole, nullptr, &one, nullptr, 0), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find("beta"), std::string::npos) << hpf_last_error();
  const double mine = world_rank() == 0 ? 1.0 : 2.0; // agreed: every rank fails when they differ
  const hpf_status st = hpf_array_transform(B.a, whole, A.a, whole, nullptr, &mine, &one, 0);
  EXPECT_EQ(st, world_size() > 1 ? HPF_ERR_ARG : HPF_OK) << hpf_last_error();
}

TEST(CApiSection, BadInputFailsOnEveryRankAndLeavesTheTargetAlone) {
  const int64_t ext[2] = {6, 4};
  const hpf_dist d[2] = {{HPF_DIST_BLOCK, 0, nullptr}, {HPF_DIST_CYCLIC, 1, nullptr}};
  GridGuard g;
  make_grid(g, d);
  ArrayGuard A, B, I;
  make_array(A, ext, d, g.g, 3.0);
  make_array(B, ext, d, g.g, -1.0);
  HPF_C_OK(hpf_array_create("I", HPF_INT32, 2, ext, d, g.g, &I.a));
  const auto before = gathered(B.a, ext);
  const hpf_triplet whole[2] = {{0, 5, 1}, {0, 3, 1}};
  auto expect_arg = [&](hpf_status st, const std::string& words) {
    EXPECT_EQ(st, HPF_ERR_ARG);
    EXPECT_NE(std::string(hpf_last_error()).find(words), std::string::npos) << hpf_last_error();
  };
  const hpf_triplet zero[2] = {{0, 5, 0}, {0, 3, 1}};
  expect_arg(hpf_array_assign_section(B.a, whole, A.a, zero, nullptr), "stride");
  const hpf_triplet outside[2] = {{0, 6, 1}, {0, 3, 1}};
  expect_arg(hpf_array_assign_section(B.a, outside, A.a, whole, nullptr), "6");
  const hpf_triplet fewer[2] = {{0, 4, 1}, {0, 3, 1}};
  expect_arg(hpf_array_assign_section(B.a, fewer, A.a, whole, nullptr), "extents disagree");
  expect_arg(hpf_array_assign_section(B.a, nullptr, A.a, whole, nullptr), "dst_section");
  expect_arg(hpf_array_assign_section(I.a, whole, A.a, whole, nullptr), "element type or rank");
  const int32_t twice[2] = {0, 0};
  expect_arg(hpf_array_assign_section(B.a, whole, A.a, whole, twice), "twice");
  // Only rank 0 passes another section: agreed, so every rank fails (nobody waits in a collective).
  const hpf_triplet mine[2] = {{world_rank() == 0 ? 1 : 0, 5, 1}, {0, 3, 1}};
  const hpf_triplet mine_src[2] = {{world_rank() == 0 ? 1 : 0, 5, 1}, {0, 3, 1}};
  const hpf_status st = hpf_array_assign_section(B.a, mine, A.a, mine_src, nullptr);
  if (world_size() > 1) {
    expect_arg(st, "different arguments");
  } else {
    EXPECT_EQ(st, HPF_OK);
  }
  expect_arg(hpf_array_transpose(A.a, nullptr, I.a), "element type or rank");
  const int64_t e2[2] = {5, 6};
  ArrayGuard C;
  make_array(C, e2, d, g.g, 0.0);
  expect_arg(hpf_array_transpose(A.a, nullptr, C.a), "extents disagree");
  if (world_size() == 1) return; // the single-rank assignment above changed B legitimately
  EXPECT_EQ(gathered(B.a, ext), before);
}

} // namespace
