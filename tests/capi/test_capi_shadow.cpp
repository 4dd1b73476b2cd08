// The C ABI's SHADOW and shift entry points on 1..7 ranks: a 2-D BLOCK x BLOCK array with
// shadows filled through hpf_array_update_shadow and read at the offsets hpf_array_local and
// hpf_array_locate describe; hpf_cshift / hpf_eoshift against a serial shift; every error a status.
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

double value(int64_t i, int64_t j) { return static_cast<double>(i + 100 * j) + 0.25; }

TEST(CApiShadow, UpdateShadowAndReadTheStorage) {
  GridGuard grid;
  const std::array<int, 2> shape = hpf::test::grid_2d_shape(world_size());
  HPF_C_OK(hpf_grid_create_world(2, shape.data(), &grid.g));
  const int64_t n = 11, m = 7;
  const int64_t ext[2] = {n, m};
  const hpf_dist dists[2] = {{HPF_DIST_BLOCK, 0, nullptr}, {HPF_DIST_BLOCK, 0, nullptr}};
  const int64_t w[2] = {1, 2};
  ArrayGuard A;
  HPF_C_OK(hpf_array_create_shadow("A", HPF_FLOAT64, 2, ext, dists, w, grid.g, &A.a));
  int64_t got_w[2] = {-1, -1};
  HPF_C_OK(hpf_array_shadow_widths(A.a, got_w));
  EXPECT_EQ(got_w[0], 1);
  EXPECT_EQ(got_w[1], 2);

  void* data = nullptr;
  int64_t sext[2] = {0, 0};
  HPF_C_OK(hpf_array_local(A.a, &data, sext));
  auto* x = static_cast<double*>(data);
  // Owner computes: each owned element, found by hpf_array_locate, gets its value; the offsets are
  // storage offsets, and hpf_array_global_index maps them back.
  int64_t first[2] = {-1, -1}; // global index of the first owned element
  int64_t owned_count = 0;
  for (int64_t j = 0; j < m; ++j)
    for (int64_t i = 0; i < n; ++i) {
      const int64_t g[2] = {i, j};
      int owned = 0;
      int64_t off = -1;
      HPF_C_OK(hpf_array_locate(A.a, g, &owned, &off));
      if (!owned) continue;
      if (owned_count++ == 0) {
        first[0] = i;
        first[1] = j;
      }
      x[off] = value(i, j);
      int64_t back[2] = {-1, -1};
      HPF_C_OK(hpf_array_global_index(A.a, off, back));
      EXPECT_EQ(back[0], i);
      EXPECT_EQ(back[1], j);
    }
  // hpf_array_slot tells owned slots from shadow slots across the whole storage: as many owned slots
  // as owned elements, each mapping back to the element whose value it holds.
  int64_t owned_slots = 0;
  for (int64_t off = 0; off < sext[0] * sext[1]; ++off) {
    int owned = -1;
    int64_t g[2] = {-1, -1};
    HPF_C_OK(hpf_array_slot(A.a, off, &owned, g));
    if (owned == 0) continue;
    ASSERT_EQ(owned, 1);
    ++owned_slots;
    EXPECT_EQ(x[off], value(g[0], g[1])) << "slot " << off;
  }
  EXPECT_EQ(owned_slots, owned_count);
  int dummy = 0;
  EXPECT_EQ(hpf_array_slot(A.a, sext[0] * sext[1], &dummy, nullptr), HPF_ERR_ARG);
  HPF_C_OK(hpf_array_update_shadow(A.a, HPF_BOUNDARY_PERIODIC));
  if (owned_count > 0) {
    // The owned block starts at slot (1, 2); slot (0, 0) holds the element one up and two left,
    // wrapped around the array.
    const int64_t gi = (first[0] - 1 + n) % n, gj = (first[1] - 2 + m) % m;
    EXPECT_EQ(x[0], value(gi, gj)) << "corner of the shadow, rank " << world_rank();
    EXPECT_EQ(x[1 + 2 * sext[0]], value(first[0], first[1]));
    if (sext[0] > 0) {
      const int64_t shadow_off = 0 + 2 * sext[0]; // slot (0, 2): the west neighbour of the first element
      int64_t g[2];
      EXPECT_EQ(hpf_array_global_index(A.a, shadow_off, g), HPF_ERR_ARG);
      EXPECT_NE(std::string(hpf_last_error()).find("is a shadow slot"), std::string::npos)
          << hpf_last_error();
      EXPECT_EQ(x[shadow_off], value((first[0] - 1 + n) % n, first[1]));
    }
  }
  double s = 0;
  HPF_C_OK(hpf_array_sum(A.a, &s));
  double ref = 0;
  for (int64_t j = 0; j < m; ++j)
    for (int64_t i = 0; i < n; ++i) ref += value(i, j);
  EXPECT_DOUBLE_EQ(s, ref) << "the sum sees owned elements only";

  // Shifts into a target of the same layout, against a serial CSHIFT / EOSHIFT of the gathered array.
  ArrayGuard R;
  HPF_C_OK(hpf_array_create_shadow("R", HPF_FLOAT64, 2, ext, dists, w, grid.g, &R.a));
  std::vector<double> out(static_cast<std::size_t>(n * m));
  HPF_C_OK(hpf_cshift(A.a, -3, 1, R.a));
  HPF_C_OK(hpf_array_gather(R.a, 0, out.data()));
  if (world_rank() == 0) {
    for (int64_t j = 0; j < m; ++j)
      for (int64_t i = 0; i < n; ++i) {
        EXPECT_EQ(out[static_cast<std::size_t>(i + n * j)], value(i, (j - 3 + m) % m));
      }
  }
  const double bnd = -1;
  HPF_C_OK(hpf_eoshift(A.a, 2, 0, &bnd, R.a));
  HPF_C_OK(hpf_array_gather(R.a, 0, out.data()));
  if (world_rank() == 0) {
    for (int64_t j = 0; j < m; ++j)
      for (int64_t i = 0; i < n; ++i) {
        EXPECT_EQ(out[static_cast<std::size_t>(i + n * j)], i + 2 < n ? value(i + 2, j) : -1.0);
      }
  }

  // Errors: statuses with messages, never exceptions.
  EXPECT_EQ(hpf_array_update_shadow(A.a, 7), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find("boundary must be HPF_BOUNDARY_PLAIN (0)"), std::string::npos);
  EXPECT_EQ(hpf_cshift(A.a, 1, 2, R.a), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find("dim must be in [0, 2), got 2"), std::string::npos)
      << hpf_last_error();
  ArrayGuard I;
  HPF_C_OK(hpf_array_create("I", HPF_INT32, 2, ext, dists, grid.g, &I.a));
  EXPECT_EQ(hpf_cshift(A.a, 1, 0, I.a), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find("element type or rank differs"), std::string::npos);
  EXPECT_EQ(hpf_cshift(A.a, 1, 0, nullptr), HPF_ERR_ARG);
  const int64_t bad[2] = {-1, 0};
  hpf_array never = nullptr;
  EXPECT_EQ(hpf_array_create_shadow("B", HPF_FLOAT64, 2, ext, dists, bad, grid.g, &never), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find("width[0] must be >= 0, got -1"), std::string::npos);
  EXPECT_EQ(never, nullptr);
}

} // namespace
