// TEMPLATE and ALIGN through the C ABI on 1..7 ranks: arrays aligned with
// random templates (strides of either sign, offsets, transposed dimensions, collapsed, replicated and
// fixed base dimensions) live exactly where the template's elements live; their data survives
// scatter, gather, sums that count every element once, and REALIGN after the template is
// redistributed; bad alignments fail on every rank with the entry named.
#include "capi_test.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace {

using hpf::test::ArrayGuard;
using hpf::test::GridGuard;
using hpf::test::pick;
using hpf::test::world_rank;
using hpf::test::world_size;

struct TemplateGuard {
  hpf_template t = nullptr;
  TemplateGuard() = default;
  TemplateGuard(const TemplateGuard&) = delete;
  TemplateGuard& operator=(const TemplateGuard&) = delete;
  ~TemplateGuard() { hpf_template_free(&t); }
};

/// A random 2-D distribution over a 2-D grid of all ranks (both dimensions distributed).
void random_dists(hpf_dist d[2]) {
  for (int k = 0; k < 2; ++k) {
    if (pick(0, 1) == 0) {
      d[k] = {HPF_DIST_BLOCK, 0, nullptr};
    } else {
      d[k] = {HPF_DIST_CYCLIC, pick(1, 4), nullptr};
    }
  }
}

/// A 2-D grid of every rank, a random factorisation; returns its extent along dimension 1.
int make_grid2(GridGuard& g) {
  const int P = world_size();
  std::vector<int> fs;
  for (int f = 1; f <= P; ++f)
    if (P % f == 0) fs.push_back(f);
  const int a = fs[static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(fs.size()) - 1))];
  const int shape[2] = {a, P / a};
  EXPECT_EQ(hpf_grid_create_world(2, shape, &g.g), HPF_OK) << hpf_last_error();
  return shape[1];
}

/// Whether this rank owns global index `g` of `a` (a copy counts).
bool owns(hpf_array a, const std::int64_t* g) {
  int owned = -1;
  std::int64_t off = -1;
  EXPECT_EQ(hpf_array_locate(a, g, &owned, &off), HPF_OK) << hpf_last_error();
  return owned != 0;
}

/// An alignment dimension of extent n into a base dimension of extent nb: a random stride of either
/// sign (|a| <= 3) and the offset that keeps a*i + b inside [0, nb), when one exists.
hpf_align_dim random_align_dim(int base_dim, std::int64_t n, std::int64_t nb) {
  for (;;) {
    const std::int64_t a = pick(1, 3) * (pick(0, 1) == 0 ? 1 : -1);
    const std::int64_t span = n > 0 ? std::abs(a) * (n - 1) : 0;
    if (span >= nb) continue;
    const std::int64_t lo = pick(0, nb - 1 - span); // the smallest base index reached
    return {base_dim, a, a > 0 ? lo : lo + span};
  }
}

std::vector<double> gathered(hpf_array a, std::size_t n) {
  std::vector<double> out(n);
  EXPECT_EQ(hpf_array_gather(a, 0, out.data()), HPF_OK) << hpf_last_error();
  return out;
}

TEST(CApiAlign, AlignedArraysLiveWhereTheirTemplateElementsLive) {
  for (int trial = 0; trial < 24; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    GridGuard grid;
    const int P1 = make_grid2(grid);
    const std::int64_t text[2] = {pick(1, 19), pick(1, 11)};
    hpf_dist td[2];
    random_dists(td);
    TemplateGuard t;
    HPF_C_OK(hpf_template_create(2, text, td, grid.g, &t.t));
    // The template's owners, read from an array laid out like it.
    ArrayGuard ref;
    HPF_C_OK(hpf_array_create("ref", HPF_FLOAT64, 2, text, td, grid.g, &ref.a));

    // A 2-D array aligned transposed (its dimension 0 with the template's 1, and 1 with 0).
    const std::int64_t aext[2] = {pick(0, text[1]), pick(1, text[0])};
    const hpf_align_dim dims[2] = {random_align_dim(1, aext[0], text[1]),
                                   random_align_dim(0, aext[1], text[0])};
    ArrayGuard A;
    HPF_C_OK(hpf_array_create_aligned("A", HPF_FLOAT64, 2, aext, t.t, dims, nullptr, &A.a));
    for (std::int64_t j = 0; j < aext[1]; ++j)
      for (std::int64_t i = 0; i < aext[0]; ++i) {
        const std::int64_t g[2] = {i, j};
        const std::int64_t b[2] = {dims[1].stride * j + dims[1].offset, dims[0].stride * i + dims[0].offset};
        EXPECT_EQ(owns(A.a, g), owns(ref.a, b))
            << "A(" << i << ", " << j << ") at t(" << b[0] << ", " << b[1] << ")";
      }

    // The template's rows on a 2-D array with one column per grid coordinate along dimension 1: a
    // row replicated over dimension 1 lives on every process of the grid row that owns it (HPF's
    // `*`: every coordinate along the dimension holds a copy, whether or not it owns columns).
    const std::int64_t rext[2] = {text[0], P1};
    const hpf_dist rd[2] = {td[0], {HPF_DIST_BLOCK, 0, nullptr}};
    ArrayGuard rows;
    HPF_C_OK(hpf_array_create("rows", HPF_FLOAT64, 2, rext, rd, grid.g, &rows.a));

    // A 1-D array along the template's dimension 0, replicated over dimension 1 or fixed at a column.
    const std::int64_t xext[1] = {pick(0, text[0])};
    const hpf_align_dim xd[1] = {random_align_dim(0, xext[0], text[0])};
    const bool replicated = pick(0, 1) == 0;
    const std::int64_t column = pick(0, text[1] - 1);
    const std::int64_t base_index[2] = {0, replicated ? HPF_ALIGN_REPLICATED : column};
    ArrayGuard X;
    HPF_C_OK(hpf_array_create_aligned("X", HPF_FLOAT64, 1, xext, t.t, xd, base_index, &X.a));
    for (std::int64_t i = 0; i < xext[0]; ++i) {
      const std::int64_t g[1] = {i};
      const std::int64_t row = xd[0].stride * i + xd[0].offset;
      bool expected = false;
      for (std::int64_t c = 0; c < (replicated ? P1 : text[1]); ++c) {
        const std::int64_t b[2] = {row, c};
        if (replicated ? owns(rows.a, b) : c == column && owns(ref.a, b)) expected = true;
      }
      EXPECT_EQ(owns(X.a, g), expected)
          << "X(" << i << ") at t(" << row << ", " << (replicated ? "*" : std::to_string(column)) << ")";
    }

    // Data: scatter, a sum that counts each element once, REALIGN after the template moves.
    std::vector<double> xs(static_cast<std::size_t>(xext[0]));
    std::iota(xs.begin(), xs.end(), 1.0);
    HPF_C_OK(hpf_array_scatter(X.a, 0, xs.data(), world_rank() == 0 ? xext[0] : 0));
    double sum = -1;
    HPF_C_OK(hpf_array_sum(X.a, &sum));
    EXPECT_EQ(sum, std::accumulate(xs.begin(), xs.end(), 0.0));
    std::vector<double> as(static_cast<std::size_t>(aext[0] * aext[1]));
    std::iota(as.begin(), as.end(), 100.0);
    HPF_C_OK(
        hpf_array_scatter(A.a, 0, as.data(), world_rank() == 0 ? static_cast<std::int64_t>(as.size()) : 0));

    hpf_dist td2[2];
    random_dists(td2);
    HPF_C_OK(hpf_template_redistribute(t.t, td2, grid.g));
    HPF_C_OK(hpf_array_realign(A.a, t.t, dims, nullptr, HPF_STRATEGY_AUTO));
    HPF_C_OK(hpf_array_realign(X.a, t.t, xd, base_index, HPF_STRATEGY_AUTO));
    ArrayGuard ref2;
    HPF_C_OK(hpf_array_create("ref2", HPF_FLOAT64, 2, text, td2, grid.g, &ref2.a));
    for (std::int64_t j = 0; j < aext[1]; ++j)
      for (std::int64_t i = 0; i < aext[0]; ++i) {
        const std::int64_t g[2] = {i, j};
        const std::int64_t b[2] = {dims[1].stride * j + dims[1].offset, dims[0].stride * i + dims[0].offset};
        EXPECT_EQ(owns(A.a, g), owns(ref2.a, b)) << "realigned A(" << i << ", " << j << ")";
      }
    const auto back = gathered(A.a, as.size());
    const auto xback = gathered(X.a, xs.size());
    if (world_rank() == 0) {
      EXPECT_EQ(back, as);
      EXPECT_EQ(xback, xs);
    }
    HPF_C_OK(hpf_array_sum(X.a, &sum));
    EXPECT_EQ(sum, std::accumulate(xs.begin(), xs.end(), 0.0));
  }
}

TEST(CApiAlign, AnArraysLayoutIsABaseToo) {
  GridGuard grid;
  const int P = world_size();
  HPF_C_OK(hpf_grid_create_world(1, &P, &grid.g));
  const std::int64_t n[1] = {29};
  const hpf_dist d[1] = {{HPF_DIST_CYCLIC, 2, nullptr}};
  ArrayGuard B;
  HPF_C_OK(hpf_array_create("B", HPF_INT64, 1, n, d, grid.g, &B.a));
  TemplateGuard t;
  HPF_C_OK(hpf_template_of_array(B.a, &t.t));
  int rank = 0;
  std::int64_t ext[4] = {};
  HPF_C_OK(hpf_template_extents(t.t, &rank, ext));
  EXPECT_EQ(rank, 1);
  EXPECT_EQ(ext[0], 29);
  // C(i) WITH B(28 - 2 i): reversed, every other element.
  const std::int64_t m[1] = {15};
  const hpf_align_dim dims[1] = {{0, -2, 28}};
  ArrayGuard C;
  HPF_C_OK(hpf_array_create_aligned("C", HPF_INT64, 1, m, t.t, dims, nullptr, &C.a));
  for (std::int64_t i = 0; i < 15; ++i) {
    const std::int64_t g[1] = {i};
    const std::int64_t b[1] = {28 - 2 * i};
    EXPECT_EQ(owns(C.a, g), owns(B.a, b)) << "C(" << i << ")";
  }
}

/// Expects `call` to fail with HPF_ERR_ARG and a message containing `needle`.
#define HPF_C_REJECTS(call, needle)                                                                          \
  do {                                                                                                       \
    EXPECT_EQ((call), HPF_ERR_ARG) << #call;                                                                 \
    EXPECT_NE(std::string(hpf_last_error()).find(needle), std::string::npos)                                 \
        << #call << ": '" << hpf_last_error() << "' lacks '" << (needle) << "'";                             \
  } while (0)

TEST(CApiAlign, BadAlignmentsFailOnEveryRank) {
  GridGuard grid;
  const int P = world_size();
  HPF_C_OK(hpf_grid_create_world(1, &P, &grid.g));
  const std::int64_t n[1] = {10};
  const hpf_dist d[1] = {{HPF_DIST_BLOCK, 0, nullptr}};
  TemplateGuard t;
  HPF_C_OK(hpf_template_create(1, n, d, grid.g, &t.t));
  hpf_array a = nullptr;
  const std::int64_t m[1] = {6};
  const hpf_align_dim zero[1] = {{0, 0, 0}};
  HPF_C_REJECTS(hpf_array_create_aligned("a", HPF_FLOAT64, 1, m, t.t, zero, nullptr, &a), "stride");
  const hpf_align_dim outside[1] = {{0, 2, 0}}; // 2 * 5 = 10 is past the template
  HPF_C_REJECTS(hpf_array_create_aligned("a", HPF_FLOAT64, 1, m, t.t, outside, nullptr, &a), "10");
  const hpf_align_dim far[1] = {{3, 1, 0}};
  HPF_C_REJECTS(hpf_array_create_aligned("a", HPF_FLOAT64, 1, m, t.t, far, nullptr, &a), "3");
  const hpf_align_dim ok[1] = {{0, 1, 0}};
  HPF_C_REJECTS(hpf_array_create_aligned("a", HPF_FLOAT64, 5, m, t.t, ok, nullptr, &a),
                "rank must be 1 to 4");
  HPF_C_REJECTS(hpf_array_create_aligned("a", 9, 1, m, t.t, ok, nullptr, &a), "type");
  // Only one rank passes a bad stride: every rank fails, none waits.
  const hpf_align_dim mine[1] = {{0, world_rank() == P - 1 ? 0 : 1, 0}};
  HPF_C_REJECTS(hpf_array_create_aligned("a", HPF_FLOAT64, 1, m, t.t, mine, nullptr, &a), "stride");
  EXPECT_EQ(a, nullptr);
  hpf_template bad = nullptr;
  HPF_C_REJECTS(hpf_template_free(&bad), "NULL");
}

} // namespace
