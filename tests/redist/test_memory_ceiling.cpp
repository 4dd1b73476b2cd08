// REDISTRIBUTE under a memory ceiling (RedistOptions::memory_ceiling_bytes; section/ceiling.hpp):
// - random moves between random layouts on random subsets of the ranks, at ceilings from the smallest
//   workable one to above the plan's own buffers, keep every value (gathered and compared);
// - each piece of a split really needs no more buffer bytes than its bound on any rank (its
//   SectionPlan's send and receive elements);
// - a ceiling below the smallest piece, and an array with a SHADOW, throw hpf::Error on every rank
//   with the array unchanged;
// - on 2 and 3 ranks, the process's peak resident memory (VmHWM, reset through
//   /proc/self/clear_refs) around a large REDISTRIBUTE grows by at most the target block plus the
//   ceiling plus 1 MiB, at ceilings of 1/4, 1/16 and 1/64 of the local block.
#include "hpf_test.hpp"
#include "peak_memory.hpp"
#include "random_dist.hpp"
#include "reference.hpp"
#include "test_scale.hpp"

#include <hpf/hpf.hpp>

#include <algorithm>
#include <numeric>
#include <optional>
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

constexpr double salt = 0.25;

template <int N> void fill(DistArray<double, N>& A) { hpf::test::fill_reference(A, salt); }

template <int N> bool holds_values(const DistArray<double, N>& A) {
  return hpf::test::holds_reference(A, salt);
}

/// Collective: a random layout of `ext` on a grid over a random subset of the ranks in random order
/// (1-D grid, or 2-D for N >= 2), every distribution kind, `*` included.
template <int N, class Rng> Layout<N> random_layout(const Index<N>& ext, Rng& rng) {
  std::vector<int> ranks(static_cast<std::size_t>(world_size()));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::shuffle(ranks.begin(), ranks.end(), rng);
  ranks.resize(static_cast<std::size_t>(pick(rng, 1, world_size())));
  const int n = static_cast<int>(ranks.size());
  std::array<Distribution, N> dists{};
  for (auto& d : dists) d = hpf::Collapsed();
  if constexpr (N >= 2) {
    if (n % 2 == 0 && pick(rng, 0, 1) == 0) {
      const std::vector<int> shape{2, n / 2};
      for (std::size_t d = 0; d < 2; ++d)
        dists[d] = hpf::test::random_distribution(ext[d], shape[d], rng, false);
      return Layout<N>(ext, dists, ProcessGrid(MPI_COMM_WORLD, ranks, shape));
    }
  }
  const auto keep = static_cast<std::size_t>(pick(rng, 0, N - 1));
  dists[keep] = hpf::test::random_distribution(ext[keep], n, rng, false);
  return Layout<N>(ext, dists, ProcessGrid(MPI_COMM_WORLD, ranks, {n}));
}

/// One move of a random array under a random ceiling, checked.
template <int N, class Rng> void random_move(Rng& rng, int round) {
  Index<N> ext{};
  for (auto& e : ext) e = pick(rng, 0, 9) == 0 ? 0 : pick(rng, 1, N == 1 ? 300 : 17);
  const Layout<N> from = random_layout<N>(ext, rng);
  const Layout<N> to = random_layout<N>(ext, rng);
  // From below one element each way to far above any buffer.
  static constexpr std::array<std::size_t, 7> ceilings{16, 24, 64, 200, 1000, 8000, std::size_t{1} << 30};
  RedistOptions o;
  o.memory_ceiling_bytes = ceilings[static_cast<std::size_t>(pick(rng, 0, ceilings.size() - 1))];
  SCOPED_TRACE("round " + std::to_string(round) + " from " + from.describe_dists() + " to " +
               to.describe_dists() + " ceiling " + std::to_string(*o.memory_ceiling_bytes));
  DistArray<double, N> A("A", from);
  fill(A);
  if (pick(rng, 0, 1) == 0) {
    A.redistribute(to, o);
    EXPECT_TRUE(A.layout() == to);
    EXPECT_TRUE(holds_values(A));
  } else {
    const DistArray<double, N> B = hpf::redistribute(A, to, o);
    EXPECT_TRUE(holds_values(B));
    EXPECT_TRUE(holds_values(A));
  }
}

TEST(MemoryCeiling, RandomMovesKeepEveryValue) {
  std::mt19937 rng(99); // the same draws on every rank
  const int rounds = hpf::test::cases(240);
  for (int round = 0; round < rounds; ++round) {
    switch (round % 3) {
    case 0:
      random_move<1>(rng, round);
      break;
    case 1:
      random_move<2>(rng, round);
      break;
    default:
      random_move<3>(rng, round);
    }
  }
}

TEST(MemoryCeiling, EveryPieceFitsItsBoundOnEveryRank) {
  std::mt19937 rng(5);
  for (int round = 0; round < hpf::test::cases(60); ++round) {
    const Index<2> ext{pick(rng, 1, 40), pick(rng, 1, 40)};
    const Layout<2> from = random_layout<2>(ext, rng);
    const Layout<2> to = random_layout<2>(ext, rng);
    const hpf::Section<2> whole = hpf::whole_section<2>(ext);
    const hpf::Permutation<2> id{0, 1};
    const std::size_t ceiling = std::size_t{16} << pick(rng, 0, 8);
    const auto split =
        hpf::detail::ceiling_split<2>(to, whole, from, whole, id, sizeof(double), ceiling, "test");
    EXPECT_LE(split.piece_bytes, ceiling);
    hpf::detail::for_each_piece<2>(
        whole, whole, id, split, [&](const hpf::Section<2>& pb, const hpf::Section<2>& pa) {
          const hpf::SectionPlan<double, 2> plan(to, pb, from, pa, id);
          const auto bytes = [](index_t elements) {
            return hpf::detail::allocation_bytes(static_cast<std::size_t>(elements) * sizeof(double));
          };
          EXPECT_LE(bytes(plan.send_elements()) + bytes(plan.recv_elements()), split.piece_bytes)
              << "piece " << pb[0].to_string() << ", " << pb[1].to_string();
        });
  }
}

/// A random triplet selecting `count` elements of a dimension of extent n >= count.
template <class Rng> hpf::Triplet random_triplet(index_t n, index_t count, Rng& rng) {
  if (count == 0) return {0, -1, 1};
  const index_t most = count > 1 ? (n - 1) / (count - 1) : 1;
  const index_t stride = pick(rng, 1, static_cast<int>(std::min<index_t>(most, 3)));
  const index_t lo = pick(rng, 0, static_cast<int>(n - 1 - (count - 1) * stride));
  if (pick(rng, 0, 2) == 0) return {lo + (count - 1) * stride, lo, -stride};
  return {lo, lo + (count - 1) * stride, stride};
}

TEST(MemoryCeiling, SectionAssignAndTransposeMatchTheirMovesWithoutACeiling) {
  std::mt19937 rng(11);
  for (int round = 0; round < hpf::test::cases(80); ++round) {
    const Index<2> ea{pick(rng, 1, 30), pick(rng, 1, 30)};
    const Index<2> eb{pick(rng, 1, 30), pick(rng, 1, 30)};
    const hpf::Permutation<2> perm =
        pick(rng, 0, 1) == 0 ? hpf::Permutation<2>{0, 1} : hpf::Permutation<2>{1, 0};
    hpf::Section<2> sb{};
    hpf::Section<2> sa{};
    for (std::size_t d = 0; d < 2; ++d) {
      const auto ad = static_cast<std::size_t>(perm[d]);
      const index_t count = pick(rng, 0, static_cast<int>(std::min(eb[d], ea[ad])));
      sb[d] = random_triplet(eb[d], count, rng);
      sa[ad] = random_triplet(ea[ad], count, rng);
    }
    const hpf::MemoryCeiling ceiling{std::size_t{16} << pick(rng, 0, 12)};
    SCOPED_TRACE("round " + std::to_string(round) + " ceiling " + std::to_string(ceiling.bytes));
    DistArray<double, 2> A("A", random_layout<2>(ea, rng));
    fill(A);
    const Layout<2> lb = random_layout<2>(eb, rng);
    DistArray<double, 2> B1("B1", lb);
    DistArray<double, 2> B2("B2", lb);
    hpf::assign(B1, sb, A, sa, perm);
    hpf::assign(B2, sb, A, sa, perm, ceiling);
    EXPECT_EQ(B1.gather(0), B2.gather(0));
    const Layout<2> lt = random_layout<2>({ea[1], ea[0]}, rng);
    const DistArray<double, 2> T1 = hpf::transpose(A, lt, {1, 0});
    const DistArray<double, 2> T2 = hpf::transpose(A, lt, {1, 0}, ceiling);
    EXPECT_EQ(T1.gather(0), T2.gather(0));
  }
  DistArray<double, 2> A("A", random_layout<2>({8, 8}, rng));
  const hpf::Section<2> all = hpf::whole_section<2>({8, 8});
  HPF_EXPECT_ERROR(hpf::assign(A, all, A, all, hpf::MemoryCeiling{64}), "hpf::assign", "sharing storage");
}

/// BLOCK -> CYCLIC(1) of n doubles over every rank: every message is packed (pieces of one element).
Layout<1> world_1d(index_t n, Distribution d) {
  std::vector<int> ranks(static_cast<std::size_t>(world_size()));
  std::iota(ranks.begin(), ranks.end(), 0);
  return Layout<1>({n}, {d}, ProcessGrid(MPI_COMM_WORLD, ranks, {world_size()}));
}

TEST(MemoryCeiling, BelowTheSmallestPieceThrowsOnEveryRankWithTheArrayUnchanged) {
  if (world_size() < 2) GTEST_SKIP() << "one rank moves nothing through a buffer: every ceiling is met";
  DistArray<double, 1> A("A", world_1d(1000, hpf::Block()));
  fill(A);
  RedistOptions o;
  o.memory_ceiling_bytes = 15;
  HPF_EXPECT_ERROR(A.redistribute(world_1d(1000, hpf::Cyclic(1)), o), "DistArray::redistribute",
                   "memory_ceiling_bytes = 15", "smallest workable ceiling of 16 bytes");
  EXPECT_TRUE(A.layout() == world_1d(1000, hpf::Block()));
  EXPECT_TRUE(holds_values(A));
  DistArray<double, 1> B("B", world_1d(1000, hpf::Cyclic(1)));
  using Array1 = DistArray<double, 1>; // no comma inside the macro's argument
  HPF_EXPECT_ERROR(Array1::redistribute_into(A, B, o), "hpf::redistribute", "16 bytes");
  o.memory_ceiling_bytes = 16; // the smallest workable ceiling: one element each way per piece
  A.redistribute(world_1d(1000, hpf::Cyclic(1)), o);
  EXPECT_TRUE(holds_values(A));
}

TEST(MemoryCeiling, AShadowIsRefusedOnEveryRank) {
  const Layout<1> from = world_1d(100, hpf::Block()).with_shadow({1});
  DistArray<double, 1> A("A", from);
  fill(A);
  RedistOptions o;
  o.memory_ceiling_bytes = 1 << 20;
  HPF_EXPECT_ERROR(A.redistribute(world_1d(100, hpf::Cyclic(3)), o), "memory_ceiling_bytes", "SHADOW");
  EXPECT_TRUE(A.layout() == from);
  EXPECT_TRUE(holds_values(A));
}

/// Collective: the most extra KiB any rank's peak resident memory grew by during `move`, beyond
/// `target_kib` (the new block); empty on every rank when some rank cannot reset its peak.
template <class Move> std::optional<long> extra_peak_kib(long target_kib, Move&& move) {
  MPI_Barrier(MPI_COMM_WORLD);
  int ok = reset_peak() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  const long before = status_kib("VmRSS");
  move();
  long extra = status_kib("VmHWM") - before - target_kib;
  MPI_Allreduce(MPI_IN_PLACE, &extra, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (ok == 0) return std::nullopt;
  return extra;
}

TEST(MemoryCeiling, PeakResidentMemoryStaysUnderTheCeiling) {
  if (world_size() != 2 && world_size() != 3) GTEST_SKIP() << "measured on 2 and 3 ranks";
  // Nothing pooled: a pooled buffer or block would hide (or, reused, skip) the allocations measured.
  const std::size_t pool = hpf::detail::buffer_pool_limit();
  hpf::detail::set_buffer_pool_limit(0);
  const hpf::test::OnExit restore([pool] { hpf::detail::set_buffer_pool_limit(pool); });
#ifndef HPF_TEST_ASAN
  const index_t local = index_t{4} << 20; // 32 MiB of doubles per rank
#else
  const index_t local = index_t{1} << 18; // the peaks are not checked under AddressSanitizer (below)
#endif
  const index_t n = local * world_size();
  const long block_kib = static_cast<long>(local * static_cast<index_t>(sizeof(double)) / 1024);
  const index_t cols = 1024 * world_size();
  const Index<2> ext2{n / cols, cols};
  std::vector<int> ranks(static_cast<std::size_t>(world_size()));
  std::iota(ranks.begin(), ranks.end(), 0);
  const ProcessGrid line(MPI_COMM_WORLD, ranks, {world_size()});
  // Packed 1-D (pieces of one element) and a 2-D transposition of the distributed dimension.
  const Layout<1> a1({n}, {hpf::Block()}, line);
  const Layout<1> b1({n}, {hpf::Cyclic(1)}, line);
  const Layout<2> a2(ext2, {hpf::Collapsed(), hpf::Block()}, line);
  const Layout<2> b2(ext2, {hpf::Cyclic(2), hpf::Collapsed()}, line);
  const auto run = [&](const auto& from, const auto& to, std::size_t ceiling) {
    constexpr int N = std::decay_t<decltype(from)>::rank();
    hpf::clear_plan_cache(); // a cached executor keeps the buffers an earlier move allocated
    DistArray<double, N> A("A", from);
    fill(A);
    RedistOptions o;
    o.memory_ceiling_bytes = ceiling;
    const std::optional<long> extra = extra_peak_kib(block_kib, [&] { A.redistribute(to, o); });
    EXPECT_TRUE(holds_values(A));
    return extra;
  };
  (void)run(a1, b1, std::size_t{1} << 40); // warm-up: MPI's connections and shared segments
  // Without a ceiling that binds, the 1-D move packs every message whole: more than the largest
  // ceiling below, so that the ceilings are what keeps the peaks below down.
  const std::optional<long> unbound = run(a1, b1, std::size_t{1} << 40);
  if (unbound && world_rank() == 0) std::printf("no ceiling: extra peak %ld KiB (1-D)\n", *unbound);
#ifndef HPF_TEST_ASAN
  if (unbound) {
    EXPECT_GT(*unbound, block_kib / 4 + 1024);
  }
#endif
  for (const int div : {4, 16, 64}) {
    const auto ceiling = static_cast<std::size_t>(local) * sizeof(double) / static_cast<std::size_t>(div);
    const long limit_kib = static_cast<long>(ceiling / 1024) + 1024;
    const std::optional<long> e1 = run(a1, b1, ceiling);
    const std::optional<long> e2 = run(a2, b2, ceiling);
    if (!e1 || !e2) GTEST_SKIP() << "/proc/self/clear_refs cannot reset the peak here";
#ifndef HPF_TEST_ASAN // AddressSanitizer's shadow memory and quarantine are resident memory too
    EXPECT_LE(*e1, limit_kib) << "1-D BLOCK -> CYCLIC(1) at 1/" << div << " of the local block";
    EXPECT_LE(*e2, limit_kib) << "2-D (*, BLOCK) -> (CYCLIC(2), *) at 1/" << div << " of the local block";
#endif
    if (world_rank() == 0)
      std::printf("ceiling 1/%d (%ld KiB): extra peak %ld KiB (1-D), %ld KiB (2-D)\n", div,
                  static_cast<long>(ceiling / 1024), *e1, *e2);
  }
}

} // namespace
