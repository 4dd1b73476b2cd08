// hpf_array_dim_runs on 1..7 ranks: for BLOCK, CYCLIC(r), `*`, GEN_BLOCK (with empty blocks) and
// INDIRECT dimensions, with and without SHADOW (INDIRECT takes none), and sections of every stride sign (past
// the ends, empty), the runs give exactly the owned (index, slot) pairs that a walk over every storage slot
// with hpf_array_slot finds in the section, in increasing order; bad arguments are statuses.
#include "capi_test.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using hpf::test::ArrayGuard;
using hpf::test::GridGuard;
using hpf::test::world_size;

/// Whether the section lo:hi:stride (Fortran's rule, any stride sign) contains i.
bool in_section(const hpf_triplet& t, int64_t i) {
  if (t.stride > 0) return i >= t.lo && i <= t.hi && (i - t.lo) % t.stride == 0;
  return i <= t.lo && i >= t.hi && (t.lo - i) % -t.stride == 0;
}

/// Checks the runs of dimension `dim` of `a` (extents `ext`, storage extents `sext`) against a walk
/// over the storage for each of `sections`.
void check_runs(hpf_array a, int rank, const int64_t* sext, int dim, const std::vector<hpf_triplet>& sections,
                const std::string& what) {
  int64_t storage = 1;
  for (int d = 0; d < rank; ++d) storage *= sext[d];
  for (const hpf_triplet& t : sections) {
    const std::string where = what + " dim " + std::to_string(dim) + " section " + std::to_string(t.lo) +
                              ":" + std::to_string(t.hi) + ":" + std::to_string(t.stride);
    // Expected: the owned (global index along dim, slot along dim) pairs in the section.
    std::set<std::pair<int64_t, int64_t>> want;
    for (int64_t off = 0; off < storage; ++off) {
      int owned = 0;
      int64_t g[4] = {0, 0, 0, 0};
      HPF_C_OK(hpf_array_slot(a, off, &owned, g));
      if (!owned || !in_section(t, g[dim])) continue;
      int64_t slot = off;
      for (int d = 0; d < dim; ++d) slot /= sext[d];
      want.insert({g[dim], slot % sext[dim]});
    }
    int64_t count = -1;
    HPF_C_OK(hpf_array_dim_runs(a, dim, &t, 0, &count, nullptr, nullptr, nullptr));
    std::vector<int64_t> first(static_cast<std::size_t>(count) + 1), last(first.size()), slot(first.size());
    int64_t again = -1;
    HPF_C_OK(hpf_array_dim_runs(a, dim, &t, count, &again, first.data(), last.data(), slot.data()));
    ASSERT_EQ(again, count) << where;
    std::set<std::pair<int64_t, int64_t>> got;
    const int64_t s = t.stride > 0 ? t.stride : -t.stride;
    for (int64_t k = 0; k < again; ++k) {
      const auto ku = static_cast<std::size_t>(k);
      ASSERT_LE(first[ku], last[ku]) << where << " run " << k;
      ASSERT_EQ((last[ku] - first[ku]) % s, 0) << where << " run " << k;
      if (k > 0) {
        EXPECT_GT(first[ku], last[ku - 1]) << where << ": runs ascend";
      }
      for (int64_t i = first[ku]; i <= last[ku]; i += s) got.insert({i, slot[ku] + (i - first[ku])});
    }
    EXPECT_EQ(got, want) << where;
  }
}

std::vector<hpf_triplet> sections_of(int64_t n) {
  return {{0, n - 1, 1},  {n - 1, 0, -1},    {1, n - 2, 2},     {n - 1, 0, -4}, {2, n, 5},
          {-3, n + 4, 3}, {n + 3, -2, -7},   {n / 2, n / 2, 1}, {5, 4, 1},      {4, 5, -1},
          {n - 2, 1, -3}, {0, n - 1, n + 1}, {1, n - 1, 7}};
}

TEST(CApiRuns, OneDimensionalMapsWithAndWithoutShadow) {
  const int P = world_size();
  GridGuard grid;
  const int shape[1] = {P};
  HPF_C_OK(hpf_grid_create_world(1, shape, &grid.g));
  const int64_t n = 23;
  std::vector<int64_t> sizes(static_cast<std::size_t>(P), 0);
  int64_t used = 0;
  for (int p = 0; p + 1 < P; ++p)
    if (p % 2 == 0) sizes[static_cast<std::size_t>(p)] = 3, used += 3;
  sizes.back() = n - used;
  std::vector<int32_t> owners(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    owners[static_cast<std::size_t>(i)] = static_cast<int32_t>((i * 5 + i / 3) % P);
  const std::vector<std::pair<std::string, hpf_dist>> dists = {
      {"BLOCK", {HPF_DIST_BLOCK, 0, nullptr}},
      {"CYCLIC(3)", {HPF_DIST_CYCLIC, 3, nullptr}},
      {"CYCLIC(1)", {HPF_DIST_CYCLIC, 1, nullptr}},
      {"GEN_BLOCK", {HPF_DIST_GEN_BLOCK, 0, sizes.data()}},
      {"INDIRECT", {HPF_DIST_INDIRECT, 0, owners.data()}}};
  for (const auto& [name, dist] : dists) {
    // INDIRECT dimensions take no SHADOW: the second array is then a copy of the first.
    const bool indirect = dist.kind == HPF_DIST_INDIRECT;
    ArrayGuard A[2];
    for (const int64_t w : {0, 1}) {
      const int64_t width = indirect ? 0 : w;
      HPF_C_OK(hpf_array_create_shadow(name.c_str(), HPF_FLOAT64, 1, &n, &dist, &width, grid.g, &A[w].a));
      int64_t sext[1] = {0};
      HPF_C_OK(hpf_array_local(A[w].a, nullptr, sext));
      check_runs(A[w].a, 1, sext, 0, sections_of(n), name + " shadow " + std::to_string(width));
    }
    // Arrays of one distribution get the same runs whatever their shadow widths.
    for (const hpf_triplet& t : sections_of(n)) {
      std::vector<int64_t> runs[2];
      for (int w = 0; w < 2; ++w) {
        int64_t count = 0;
        int64_t f[32], l[32], s[32];
        HPF_C_OK(hpf_array_dim_runs(A[w].a, 0, &t, 32, &count, f, l, s));
        ASSERT_LE(count, 32);
        for (int64_t k = 0; k < count; ++k) runs[w].insert(runs[w].end(), {f[k], l[k]});
      }
      EXPECT_EQ(runs[0], runs[1]) << name << " section " << t.lo << ":" << t.hi << ":" << t.stride;
    }
  }
}

TEST(CApiRuns, EachDimensionOfA3DArray) {
  GridGuard grid;
  const std::array<int, 2> shape = hpf::test::grid_2d_shape(world_size());
  HPF_C_OK(hpf_grid_create_world(2, shape.data(), &grid.g));
  const int64_t ext[3] = {9, 5, 13};
  const hpf_dist dists[3] = {
      {HPF_DIST_CYCLIC, 2, nullptr}, {HPF_DIST_COLLAPSED, 0, nullptr}, {HPF_DIST_BLOCK, 0, nullptr}};
  const int64_t w[3] = {2, 1, 3};
  ArrayGuard A;
  HPF_C_OK(hpf_array_create_shadow("A", HPF_INT32, 3, ext, dists, w, grid.g, &A.a));
  int64_t sext[3] = {0, 0, 0};
  HPF_C_OK(hpf_array_local(A.a, nullptr, sext));
  for (int d = 0; d < 3; ++d) check_runs(A.a, 3, sext, d, sections_of(ext[d]), "3-D");
}

TEST(CApiRuns, BadArgumentsAreStatuses) {
  GridGuard grid;
  const int shape[1] = {world_size()};
  HPF_C_OK(hpf_grid_create_world(1, shape, &grid.g));
  const int64_t n = 10;
  const hpf_dist dist = {HPF_DIST_CYCLIC, 2, nullptr};
  ArrayGuard A;
  HPF_C_OK(hpf_array_create("A", HPF_FLOAT64, 1, &n, &dist, grid.g, &A.a));
  const hpf_triplet all = {0, n - 1, 1};
  const hpf_triplet zero = {0, n - 1, 0};
  int64_t count = 0;
  int64_t f[8], l[8], s[8];
  EXPECT_EQ(hpf_array_dim_runs(A.a, 1, &all, 8, &count, f, l, s), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find("dim must be in [0, 1)"), std::string::npos)
      << hpf_last_error();
  EXPECT_EQ(hpf_array_dim_runs(A.a, 0, &zero, 8, &count, f, l, s), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find("stride must be non-zero"), std::string::npos);
  EXPECT_EQ(hpf_array_dim_runs(A.a, 0, &all, -1, &count, f, l, s), HPF_ERR_ARG);
  EXPECT_EQ(hpf_array_dim_runs(A.a, 0, &all, 8, &count, nullptr, l, s), HPF_ERR_ARG);
  EXPECT_EQ(hpf_array_dim_runs(A.a, 0, nullptr, 8, &count, f, l, s), HPF_ERR_ARG);
  EXPECT_EQ(hpf_array_dim_runs(nullptr, 0, &all, 8, &count, f, l, s), HPF_ERR_ARG);
  // Too little room: the count says how much is needed, and what fits is written.
  int64_t needed = -1;
  HPF_C_OK(hpf_array_dim_runs(A.a, 0, &all, 1, &needed, f, l, s));
  int64_t exact = -1;
  HPF_C_OK(hpf_array_dim_runs(A.a, 0, &all, 8, &exact, f, l, s));
  EXPECT_EQ(needed, exact);
  EXPECT_LE(exact, 8);
}

} // namespace
