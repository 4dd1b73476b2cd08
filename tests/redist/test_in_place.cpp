// REDISTRIBUTE in the array's own storage (DistArray::redistribute_in_place, InPlaceRedistribution):
// - random moves between layouts under which every rank keeps the extents of its block (CYCLIC(r)
//   for r dividing the block, BLOCK, the grid's ranks in another order; 1-D, 2-D and 3-D) keep every
//   value and the array's storage (its local_data());
// - random moves between layouts under which every rank's block keeps its size but not its extents
//   ((BLOCK, *) -> (*, BLOCK), a line of ranks -> a 2 x P/2 grid; 2-D to 4-D) keep every value and the
//   storage, viewed with the new extents;
// - layouts under which some rank's block changes size, a SHADOW and options.relabel throw hpf::Error on
//   every rank with the array unchanged; a ceiling below the sends names the smallest workable one;
// - on 2 and 3 ranks, the peak resident memory of a large in-place move grows by at most the bytes a
//   rank sends plus 1 MiB: no second block.
#include "hpf_test.hpp"
#include "peak_memory.hpp"
#include "random_dist.hpp"
#include "reference.hpp"
#include "test_scale.hpp"

#include <hpf/hpf.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using hpf::DistArray;
using hpf::Distribution;
using hpf::Index;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::RedistOptions;
using hpf::test::pick;
using hpf::test::reset_peak;
using hpf::test::status_kib;
using hpf::test::world_rank;
using hpf::test::world_size;

constexpr double salt = 0.75;

/// A distribution that gives each of P processes exactly `per` indices of an extent of P per:
/// BLOCK, or CYCLIC(r) for r dividing per.
template <class Rng> Distribution even_distribution(index_t per, Rng& rng) {
  std::vector<index_t> divisors;
  for (index_t r = 1; r <= per; ++r)
    if (per % r == 0) divisors.push_back(r);
  if (pick(rng, 0, 3) == 0) return hpf::Block();
  return hpf::Cyclic(divisors[static_cast<std::size_t>(pick(rng, 0, static_cast<int>(divisors.size()) - 1))]);
}

/// Collective: a layout of N dimensions over the first `count` ranks in a random order, each
/// distributed dimension giving every process `per` indices (the first on a line of all of them, or
/// the first two on a 2 x count/2 grid).
template <int N, class Rng>
Layout<N> even_layout(const std::vector<int>& base, index_t per, bool two_d, Rng& rng) {
  std::vector<int> ranks = base;
  std::shuffle(ranks.begin(), ranks.end(), rng);
  const int n = static_cast<int>(ranks.size());
  Index<N> ext{};
  std::array<Distribution, N> dists{};
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
    ext[d] = 3 + static_cast<index_t>(d);
    dists[d] = hpf::Collapsed();
  }
  std::vector<int> shape{n};
  if (two_d && N >= 2) shape = {2, n / 2};
  for (std::size_t d = 0; d < shape.size(); ++d) {
    ext[d] = per * shape[d];
    dists[d] = even_distribution(per, rng);
  }
  return Layout<N>(ext, dists, ProcessGrid(MPI_COMM_WORLD, ranks, shape));
}

/// A random nonempty subset of the world's ranks (the same on every rank: the generators share a seed).
template <class Rng> std::vector<int> random_ranks(Rng& rng) {
  std::vector<int> all(static_cast<std::size_t>(world_size()));
  std::iota(all.begin(), all.end(), 0);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(static_cast<std::size_t>(pick(rng, 1, world_size())));
  return all;
}

template <int N, class Rng> void random_in_place(Rng& rng, int round) {
  const std::vector<int> base = random_ranks(rng);
  const int count = static_cast<int>(base.size());
  const bool two_d = N >= 2 && count % 2 == 0 && pick(rng, 0, 1) == 0;
  const index_t per = pick(rng, 1, 12);
  const Layout<N> from = even_layout<N>(base, per, two_d, rng);
  const Layout<N> to = even_layout<N>(base, per, two_d, rng);
  SCOPED_TRACE("round " + std::to_string(round) + " from " + from.describe_dists() + " to " +
               to.describe_dists());
  DistArray<double, N> A("A", from);
  hpf::test::fill_reference(A, salt);
  const double* storage = A.local_data();
  A.redistribute_in_place(to);
  EXPECT_TRUE(A.layout() == to);
  EXPECT_EQ(A.local_data(), storage);
  EXPECT_TRUE(hpf::test::holds_reference(A, salt));
}

TEST(InPlace, RandomMovesKeepEveryValueAndTheStorage) {
  std::mt19937 rng(17);
  for (int round = 0; round < hpf::test::cases(300); ++round) {
    if (round % 3 == 0) random_in_place<1>(rng, round);
    if (round % 3 == 1) random_in_place<2>(rng, round);
    if (round % 3 == 2) random_in_place<3>(rng, round);
  }
}

/// Collective: a layout of `ext` (each extent a multiple of count) over the first `count` ranks in a
/// random order, distributed along one random dimension on a line of them, or along two on a
/// 2 x count/2 grid: every rank holds the product of the extents over count elements, in blocks whose
/// extents differ from layout to layout.
template <int N, class Rng>
Layout<N> reshaping_layout(const std::vector<int>& base, const Index<N>& ext, Rng& rng) {
  std::vector<int> ranks = base;
  std::shuffle(ranks.begin(), ranks.end(), rng);
  const int n = static_cast<int>(ranks.size());
  std::vector<int> shape{n};
  if (N >= 2 && n % 2 == 0 && pick(rng, 0, 1) == 0) shape = {2, n / 2};
  std::vector<std::size_t> dims(static_cast<std::size_t>(N));
  std::iota(dims.begin(), dims.end(), std::size_t{0});
  std::shuffle(dims.begin(), dims.end(), rng);
  dims.resize(shape.size());
  std::sort(dims.begin(), dims.end());
  std::array<Distribution, N> dists{};
  dists.fill(hpf::Collapsed());
  for (std::size_t k = 0; k < dims.size(); ++k)
    dists[dims[k]] = even_distribution(ext[dims[k]] / shape[k], rng);
  return Layout<N>(ext, dists, ProcessGrid(MPI_COMM_WORLD, ranks, shape));
}

template <int N, class Rng> void random_reshaping(Rng& rng, int round) {
  const std::vector<int> base = random_ranks(rng);
  const int count = static_cast<int>(base.size());
  Index<N> ext{};
  for (auto& e : ext) e = count * pick(rng, 1, 4);
  const Layout<N> from = reshaping_layout<N>(base, ext, rng);
  const Layout<N> to = reshaping_layout<N>(base, ext, rng);
  SCOPED_TRACE("round " + std::to_string(round) + " from " + from.describe_dists() + " to " +
               to.describe_dists());
  DistArray<double, N> A("A", from);
  hpf::test::fill_reference(A, salt);
  const double* storage = A.local_size() > 0 ? A.local_data() : nullptr;
  A.redistribute_in_place(to);
  EXPECT_TRUE(A.layout() == to);
  if (storage != nullptr) EXPECT_EQ(A.local_data(), storage);
  EXPECT_TRUE(hpf::test::holds_reference(A, salt));
  // The block, viewed with its new extents, is the array's alone (the view of the old extents is
  // gone), and goes back and on like any block.
  if (storage != nullptr) EXPECT_EQ(A.local_view().use_count(), 1);
  A.redistribute_in_place(from);
  EXPECT_TRUE(hpf::test::holds_reference(A, salt));
  A.redistribute(to);
  EXPECT_TRUE(hpf::test::holds_reference(A, salt));
}

TEST(InPlace, BlocksThatChangeShapeKeepEveryValueAndTheStorage) {
  std::mt19937 rng(29);
  for (int round = 0; round < hpf::test::cases(300); ++round) {
    if (round % 3 == 0) random_reshaping<2>(rng, round);
    if (round % 3 == 1) random_reshaping<3>(rng, round);
    if (round % 3 == 2) random_reshaping<4>(rng, round);
  }
}

TEST(InPlace, TransposesSlabsInTheirStorage) {
  // FFTW's transposed slabs: (BLOCK, *) -> (*, BLOCK) of an n x n array, P dividing n.
  const int p = world_size();
  const index_t n = 6 * p;
  std::vector<int> ranks(static_cast<std::size_t>(p));
  std::iota(ranks.begin(), ranks.end(), 0);
  const ProcessGrid grid(MPI_COMM_WORLD, ranks, {p});
  const Layout<2> rows({n, n}, {hpf::Block(), hpf::Collapsed()}, grid);
  const Layout<2> cols({n, n}, {hpf::Collapsed(), hpf::Block()}, grid);
  DistArray<double, 2> A("A", rows);
  hpf::test::fill_reference(A, salt);
  const double* storage = A.local_data();
  A.redistribute_in_place(cols);
  EXPECT_EQ(A.local_data(), storage);
  EXPECT_EQ(A.local_view().extent(0), static_cast<std::size_t>(n));
  EXPECT_EQ(A.local_view().extent(1), static_cast<std::size_t>(6));
  EXPECT_TRUE(hpf::test::holds_reference(A, salt));
  A.redistribute_in_place(rows);
  EXPECT_EQ(A.local_data(), storage);
  EXPECT_TRUE(hpf::test::holds_reference(A, salt));
}

Layout<1> line(index_t n, Distribution d) {
  std::vector<int> ranks(static_cast<std::size_t>(world_size()));
  std::iota(ranks.begin(), ranks.end(), 0);
  return Layout<1>({n}, {d}, ProcessGrid(MPI_COMM_WORLD, ranks, {world_size()}));
}

TEST(InPlace, RefusalsOnEveryRankWithTheArrayUnchanged) {
  const index_t n = 12 * world_size() + (world_size() > 1 ? 1 : 0); // not a multiple of the ranks
  DistArray<double, 1> A("A", line(n, hpf::Block()));
  hpf::test::fill_reference(A, salt);
  if (world_size() > 1) {
    // BLOCK gives the first rank 13 elements, CYCLIC(5) 15.
    HPF_EXPECT_ERROR(A.redistribute_in_place(line(n, hpf::Cyclic(5))), "DistArray::redistribute_in_place",
                     "expected as many elements on every rank");
  }
  RedistOptions relabel;
  relabel.relabel = true;
  HPF_EXPECT_ERROR(A.redistribute_in_place(line(n, hpf::Cyclic(2)), relabel), "options.relabel");
  DistArray<double, 1> S("S", line(n, hpf::Block()).with_shadow({1}));
  HPF_EXPECT_ERROR(S.redistribute_in_place(line(n, hpf::Block()).with_shadow({2})), "SHADOW");
  EXPECT_TRUE(A.layout() == line(n, hpf::Block()));
  EXPECT_TRUE(hpf::test::holds_reference(A, salt));
  if (world_size() > 1) {
    const index_t m = 12 * world_size();
    DistArray<double, 1> B("B", line(m, hpf::Block()));
    hpf::test::fill_reference(B, salt);
    RedistOptions o;
    o.memory_ceiling_bytes = 8;
    HPF_EXPECT_ERROR(B.redistribute_in_place(line(m, hpf::Cyclic(1)), o), "smallest workable ceiling of");
    EXPECT_TRUE(hpf::test::holds_reference(B, salt));
    o.memory_ceiling_bytes = std::size_t{1} << 20;
    B.redistribute_in_place(line(m, hpf::Cyclic(1)), o);
    EXPECT_TRUE(hpf::test::holds_reference(B, salt));
  }
}

TEST(InPlace, PeakResidentMemoryGrowsByTheSendsNotABlock) {
  if (world_size() != 2 && world_size() != 3) GTEST_SKIP() << "measured on 2 and 3 ranks";
  const std::size_t pool = hpf::detail::buffer_pool_limit();
  hpf::detail::set_buffer_pool_limit(0);
  const hpf::test::OnExit restore([pool] { hpf::detail::set_buffer_pool_limit(pool); });
  const index_t local = index_t{4} << 20; // 32 MiB of doubles per rank
  const index_t n = local * world_size();
  DistArray<double, 1> A("A", line(n, hpf::Block()));
  hpf::test::fill_reference(A, salt);
  hpf::clear_plan_cache();
  const hpf::RedistributionPlan<1> plan(line(n, hpf::Block()), line(n, hpf::Cyclic(local / 4)));
  const long sends_kib =
      static_cast<long>(plan.send_elements() * static_cast<index_t>(sizeof(double)) / 1024);
  MPI_Barrier(MPI_COMM_WORLD);
  int ok = reset_peak() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  const long before = status_kib("VmRSS");
  A.redistribute_in_place(line(n, hpf::Cyclic(local / 4)));
  const long extra = status_kib("VmHWM") - before;
  EXPECT_TRUE(hpf::test::holds_reference(A, salt));
  if (ok == 0) GTEST_SKIP() << "/proc/self/clear_refs cannot reset the peak here";
  if (world_rank() == 0)
    std::printf("in place: extra peak %ld KiB, sends %ld KiB, block %ld KiB\n", extra, sends_kib,
                static_cast<long>(local * 8 / 1024));
#ifndef HPF_TEST_ASAN // AddressSanitizer's shadow memory and quarantine are resident memory too
  EXPECT_LE(extra, sends_kib + 1024);
  EXPECT_LT(extra, static_cast<long>(local * 8 / 1024)); // no second block
#endif
}

} // namespace
