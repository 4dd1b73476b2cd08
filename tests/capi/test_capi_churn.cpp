// The C ABI over a long run (the standard's "long loops"): hundreds of operations on grids created and
// freed over random subsets of the ranks, in random order, with arrays living on them while other
// grids come and go. Each step redistributes, assigns a section or reduces, and checks the result
// against the serial answer. A handle table, a plan cache or a communicator keyed by a reused
// handle would mix grids up here; every random choice is an argument of a collective, so all ranks
// draw them from the same stream (hpf::test::pick).
#include "capi_test.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace {

using hpf::test::pick;
using hpf::test::world_rank;
using hpf::test::world_size;

/// A random non-empty subset of the ranks in random order, and a 1-D or 2-D shape for it.
struct GridSpec {
  std::vector<int> ranks;
  std::vector<int> shape;
};

GridSpec random_grid_spec() {
  std::vector<int> all(static_cast<std::size_t>(world_size()));
  std::iota(all.begin(), all.end(), 0);
  for (std::size_t i = all.size(); i > 1; --i)
    std::swap(all[i - 1], all[static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(i) - 1))]);
  GridSpec g;
  g.ranks.assign(all.begin(), all.begin() + pick(1, world_size()));
  const int n = static_cast<int>(g.ranks.size());
  std::vector<int> divisors;
  for (int f = 1; f <= n; ++f)
    if (n % f == 0) divisors.push_back(f);
  if (pick(0, 1) == 0) {
    g.shape = {n};
  } else {
    const int a = divisors[static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(divisors.size()) - 1))];
    g.shape = {a, n / a};
  }
  return g;
}

/// A live grid: its handle and how many dimensions it has.
struct LiveGrid {
  hpf_grid g = nullptr;
  int ndims = 0;
  int size = 0;
};

/// A random distribution for a dimension of extent n over P processes (P = 0: collapsed). The
/// GEN_BLOCK and INDIRECT tables go to `sizes` / `owners`, which must outlive the call taking it.
hpf_dist random_dist(std::int64_t n, int P, std::vector<std::int64_t>& sizes,
                     std::vector<std::int32_t>& owners) {
  if (P == 0) return {HPF_DIST_COLLAPSED, 0, nullptr};
  switch (pick(0, 3)) {
  case 0:
    return {HPF_DIST_BLOCK, 0, nullptr};
  case 1:
    return {HPF_DIST_CYCLIC, pick(1, 5), nullptr};
  case 2: {
    std::vector<std::int64_t> cuts{0, n};
    for (int p = 1; p < P; ++p) cuts.push_back(pick(0, n));
    std::sort(cuts.begin(), cuts.end());
    sizes.clear();
    for (int p = 0; p < P; ++p)
      sizes.push_back(cuts[static_cast<std::size_t>(p) + 1] - cuts[static_cast<std::size_t>(p)]);
    return {HPF_DIST_GEN_BLOCK, 0, sizes.data()};
  }
  default:
    owners.resize(static_cast<std::size_t>(n));
    for (auto& o : owners) o = static_cast<std::int32_t>(pick(0, P - 1));
    return {HPF_DIST_INDIRECT, 0, owners.data()};
  }
}

/// Distributions for a 2-D array (extents ext) on `grid`: each grid dimension takes one array
/// dimension; on a 1-D grid the other array dimension is collapsed.
struct Dists {
  hpf_dist d[2];
  std::vector<std::int64_t> sizes[2];
  std::vector<std::int32_t> owners[2];
};

void random_dists(Dists& out, const std::int64_t ext[2], const LiveGrid& grid,
                  const std::vector<int>& shape) {
  if (grid.ndims == 2) {
    for (int k = 0; k < 2; ++k)
      out.d[k] = random_dist(ext[k], shape[static_cast<std::size_t>(k)], out.sizes[k], out.owners[k]);
    return;
  }
  const int along = static_cast<int>(pick(0, 1));
  for (int k = 0; k < 2; ++k)
    out.d[k] = random_dist(ext[k], k == along ? shape[0] : 0, out.sizes[k], out.owners[k]);
}

double value(std::int64_t i, std::int64_t j, int salt) {
  return static_cast<double>(salt) + static_cast<double>(i) + 1000.0 * static_cast<double>(j);
}

TEST(CApiChurn, HundredsOfOperationsOnGridsOverRandomSubsets) {
  constexpr int kSlots = 3;
  LiveGrid grids[kSlots];
  std::vector<int> shapes[kSlots];
  auto make = [&](int s) {
    const GridSpec spec = random_grid_spec();
    HPF_C_OK(hpf_grid_create(MPI_COMM_WORLD, static_cast<int>(spec.ranks.size()), spec.ranks.data(),
                             static_cast<int>(spec.shape.size()), spec.shape.data(), &grids[s].g));
    grids[s].ndims = static_cast<int>(spec.shape.size());
    grids[s].size = static_cast<int>(spec.ranks.size());
    shapes[s] = spec.shape;
  };
  for (int s = 0; s < kSlots; ++s) make(s);
  std::int64_t done[3] = {0, 0, 0};

  const int steps = 300;
  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    // Replace one grid (freed while an array made on it may still live below: arrays keep theirs).
    const int renew = static_cast<int>(pick(0, kSlots - 1));
    hpf_array keep = nullptr;
    const std::int64_t ext[2] = {pick(0, 29), pick(1, 5)};
    const int from = static_cast<int>(pick(0, kSlots - 1));
    Dists df;
    random_dists(df, ext, grids[from], shapes[from]);
    HPF_C_OK(hpf_array_create("churn", HPF_FLOAT64, 2, ext, df.d, grids[from].g, &keep));
    HPF_C_OK(hpf_grid_free(&grids[renew].g));
    make(renew);
    std::vector<double> global(static_cast<std::size_t>(ext[0] * ext[1]));
    for (std::int64_t j = 0; j < ext[1]; ++j)
      for (std::int64_t i = 0; i < ext[0]; ++i)
        global[static_cast<std::size_t>(i + ext[0] * j)] = value(i, j, step);
    HPF_C_OK(hpf_array_scatter(keep, 0, global.data(),
                               world_rank() == 0 ? static_cast<std::int64_t>(global.size()) : 0));

    const int to = static_cast<int>(pick(0, kSlots - 1));
    Dists dt;
    random_dists(dt, ext, grids[to], shapes[to]);
    const auto kind = pick(0, 2);
    ++done[kind];
    switch (kind) {
    case 0: { // REDISTRIBUTE onto another grid, then the gathered array is the same
      HPF_C_OK(hpf_array_redistribute(keep, dt.d, grids[to].g, HPF_STRATEGY_AUTO));
      std::vector<double> back(global.size());
      HPF_C_OK(hpf_array_gather(keep, 0, back.data()));
      if (world_rank() == 0) {
        EXPECT_EQ(back, global);
      }
      break;
    }
    case 1: { // a reversed section of every other row into an array on another grid
      hpf_array B = nullptr;
      HPF_C_OK(hpf_array_create("churn-b", HPF_FLOAT64, 2, ext, dt.d, grids[to].g, &B));
      const std::int64_t rows = (ext[0] + 1) / 2;
      const hpf_triplet src[2] = {{2 * (rows - 1), 0, -2}, {0, ext[1] - 1, 1}};
      const hpf_triplet dst[2] = {{0, rows - 1, 1}, {0, ext[1] - 1, 1}};
      if (rows > 0) {
        HPF_C_OK(hpf_array_assign_section(B, dst, keep, src, nullptr));
      }
      std::vector<double> back(global.size());
      HPF_C_OK(hpf_array_gather(B, 0, back.data()));
      for (std::int64_t j = 0; j < ext[1] && world_rank() == 0; ++j) {
        for (std::int64_t i = 0; i < ext[0]; ++i) {
          EXPECT_EQ(back[static_cast<std::size_t>(i + ext[0] * j)],
                    i < rows ? value(2 * (rows - 1 - i), j, step) : 0.0)
              << "(" << i << ", " << j << ")";
        }
      }
      HPF_C_OK(hpf_array_free(&B));
      break;
    }
    default: { // the sum, on every rank
      double sum = -1;
      HPF_C_OK(hpf_array_sum(keep, &sum));
      EXPECT_EQ(sum, std::accumulate(global.begin(), global.end(), 0.0));
      break;
    }
    }
    HPF_C_OK(hpf_array_free(&keep));
  }
  for (auto& g : grids) HPF_C_OK(hpf_grid_free(&g.g));
  RecordProperty("redistributions", static_cast<int>(done[0]));
  RecordProperty("sections", static_cast<int>(done[1]));
  RecordProperty("sums", static_cast<int>(done[2]));
  EXPECT_GT(done[0] * done[1] * done[2], 0);
}

} // namespace
