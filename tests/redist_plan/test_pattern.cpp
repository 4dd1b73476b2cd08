// The block-cyclic communication pattern (Desprez et al., sections 4.1-4.2) against element-by-element
// enumeration, and the class structure (Lemma 1, Lemma 2, Propositions 1-2).
#include <hpf/core/error.hpp>
#include <hpf/layout/cyclic_map.hpp>
#include <hpf/redist/pattern.hpp>

#include <gtest/gtest.h>

#include "hpf_test.hpp"

#include "test_scale.hpp"

#include <chrono>
#include <limits>
#include <random>
#include <string>

namespace {

using hpf::CommMatrix;
using hpf::index_t;
using hpf::detail::PartialSliceMethod;

/// The definition: element i goes from floor(i / r) mod P to floor(i / s) mod Q.
CommMatrix brute_force(int P, index_t r, int Q, index_t s, index_t M) {
  std::vector<index_t> dense(static_cast<std::size_t>(P) * static_cast<std::size_t>(Q), 0);
  for (index_t i = 0; i < M; ++i) ++dense[static_cast<std::size_t>(((i / r) % P) * Q + (i / s) % Q)];
  CommMatrix m(P, Q);
  for (int p = 0; p < P; ++p)
    for (int q = 0; q < Q; ++q) m.add(p, q, dense[static_cast<std::size_t>(p * Q + q)]);
  return m;
}

std::string describe(int P, index_t r, int Q, index_t s, index_t M) {
  return "P " + std::to_string(P) + " r " + std::to_string(r) + " Q " + std::to_string(Q) + " s " +
         std::to_string(s) + " M " + std::to_string(M);
}

TEST(BlockCyclicPattern, MatchesBruteForceOnRandomCases) {
  std::mt19937_64 rng(20260423);
  auto uni = [&](index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); };
  int cases = 0;
  index_t elements = 0;
  for (; cases < hpf::test::cases(12000); ++cases) {
    const int P = static_cast<int>(uni(1, 64));
    const int Q = static_cast<int>(uni(1, 64));
    const index_t r = uni(1, 40);
    const index_t s = uni(1, 40);
    const index_t L = hpf::slice_length(P, r, Q, s);
    // Enumeration costs M per case: whole slices only when L is small, prefixes otherwise.
    index_t M = 0;
    switch (cases % 5) {
    case 0:
      M = 0;
      break;
    case 1:
      M = uni(0, P * r - 1);
      break; // M < P r
    case 2:
      M = L <= 30000 ? L * uni(1, 3) : uni(0, 30000);
      break; // multiple of L
    case 3:
      M = L <= 30000 ? L * uni(0, 2) + uni(1, L - 1 + (L == 1)) : uni(0, 30000);
      break; // + rest
    default:
      M = uni(0, std::min<index_t>(30000, 2 * L));
      break;
    }
    elements += M;
    const CommMatrix want = brute_force(P, r, Q, s, M);
    ASSERT_EQ(hpf::block_cyclic_pattern(P, r, Q, s, M), want) << describe(P, r, Q, s, M);
    if (cases % 3 == 0) {
      // Both ways of computing the partial slice, whichever Auto picked.
      ASSERT_EQ(hpf::detail::block_cyclic_pattern(P, r, Q, s, M, PartialSliceMethod::Sweep), want)
          << describe(P, r, Q, s, M);
      ASSERT_EQ(hpf::detail::block_cyclic_pattern(P, r, Q, s, M, PartialSliceMethod::FloorSum), want)
          << describe(P, r, Q, s, M);
    }
  }
  EXPECT_EQ(cases, hpf::test::cases(12000)); // >= 10,000 random cases outside sanitizers
  EXPECT_GT(elements, 0);
}

TEST(BlockCyclicPattern, EdgeCases) {
  // M = 0: an empty grid of the right shape.
  const CommMatrix empty = hpf::block_cyclic_pattern(5, 3, 7, 2, 0);
  EXPECT_EQ(empty.num_senders(), 5);
  EXPECT_EQ(empty.num_receivers(), 7);
  EXPECT_TRUE(empty.entries().empty());
  // P = Q = 1: a local copy of everything.
  EXPECT_EQ(hpf::block_cyclic_pattern(1, 4, 1, 9, 1001).at(0, 0), 1001);
  // P = 1 -> Q: target q gets its CYCLIC(s) share: 83 cycles of 12, then 3 + 1 elements.
  const CommMatrix scatter = hpf::block_cyclic_pattern(1, 1000, 4, 3, 1000);
  const index_t share[] = {252, 250, 249, 249};
  for (int q = 0; q < 4; ++q) EXPECT_EQ(scatter.at(0, q), share[q]);
  EXPECT_EQ(scatter, brute_force(1, 1000, 4, 3, 1000));
  // Identical layouts: the diagonal.
  const CommMatrix same = hpf::block_cyclic_pattern(6, 4, 6, 4, 1000);
  EXPECT_EQ(same.entries().size(), 6u);
  EXPECT_EQ(same, brute_force(6, 4, 6, 4, 1000));
  // A collapsed (BLOCK of the whole extent) source dimension of a large array: L exceeds M, one prefix.
  const index_t n = 5'000'003;
  const CommMatrix collapsed = hpf::block_cyclic_pattern(1, n, 7, 5, n);
  EXPECT_EQ(collapsed, brute_force(1, n, 7, 5, n));
  // A slice length beyond 64 bits: no whole slice, the prefix is everything.
  const index_t big = index_t{1} << 40;
  const CommMatrix huge = hpf::block_cyclic_pattern(3, big + 1, 2, big - 1, 100000);
  EXPECT_EQ(huge.at(0, 0), 100000);
  EXPECT_THROW((void)hpf::slice_length(3, big + 1, 2, big - 1), hpf::Error);
  EXPECT_EQ(hpf::block_cyclic_pattern(7, big + 1, 2, big - 1, 100000).at(0, 0), 100000);
  // Block sizes whose product exceeds 64 bits, an array of several blocks: every row holds the
  // source's local extent and every column the target's (CyclicMap, section 2 of Desprez et al.).
  const index_t r2 = (index_t{1} << 33) + 1;
  const index_t s2 = (index_t{1} << 33) - 1;
  const index_t M2 = 5 * r2 + 12345;
  const CommMatrix wide = hpf::block_cyclic_pattern(3, r2, 2, s2, M2);
  for (int p = 0; p < 3; ++p) {
    index_t row = 0;
    for (int q = 0; q < 2; ++q) row += wide.at(p, q);
    EXPECT_EQ(row, (hpf::CyclicMap{M2, 3, r2}.local_extent(p))) << p;
  }
  for (int q = 0; q < 2; ++q)
    EXPECT_EQ(wide.at(0, q) + wide.at(1, q) + wide.at(2, q), (hpf::CyclicMap{M2, 2, s2}.local_extent(q)));
  // M = 2^63 - 1 with blocks of 2^62 and 2^61: no intermediate may wrap.
  const index_t max = std::numeric_limits<index_t>::max();
  const CommMatrix edge = hpf::block_cyclic_pattern(1, index_t{1} << 62, 2, index_t{1} << 61, max);
  for (int q = 0; q < 2; ++q)
    EXPECT_EQ(edge.at(0, q), (hpf::CyclicMap{max, 2, index_t{1} << 61}.local_extent(q)));
  // Element 4 r2 (source 1, block 4) lies in target block floor(4 r2 / s2) = 4, owned by q = 0.
  EXPECT_GT(wide.at(1, 0), 0);
}

TEST(BlockCyclicPattern, CostDoesNotGrowWithM) {
  // P = Q = 1024, r = 3, s = 5: L = 15360; M = 10^7 and M = 10^15 + 7 cost the same.
  const auto t0 = std::chrono::steady_clock::now();
  const CommMatrix a = hpf::block_cyclic_pattern(1024, 3, 1024, 5, 10'000'000);
  const CommMatrix b = hpf::block_cyclic_pattern(1024, 3, 1024, 5, 1'000'000'000'000'007);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(a.total_volume(), 10'000'000);
  EXPECT_EQ(b.total_volume(), 1'000'000'000'000'007);
  EXPECT_EQ(a.entries().size(), b.entries().size());
  EXPECT_LT(secs, 5.0); // generous: a shared, loaded machine; ~0.03 s measured
  // Sweep and floor sums agree on large prefixes too.
  for (index_t M : {index_t{15359}, index_t{10'000'000}, index_t{123'456'789}}) {
    EXPECT_EQ(hpf::detail::block_cyclic_pattern(96, 7, 80, 9, M, PartialSliceMethod::Sweep),
              hpf::detail::block_cyclic_pattern(96, 7, 80, 9, M, PartialSliceMethod::FloorSum))
        << M;
  }
}

TEST(BlockCyclicPattern, SliceStructure) {
  std::mt19937_64 rng(7);
  auto uni = [&](index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); };
  for (int t = 0; t < 400; ++t) {
    const int P = static_cast<int>(uni(1, 24));
    const int Q = static_cast<int>(uni(1, 24));
    const index_t r = uni(1, 12);
    const index_t s = uni(1, 12);
    const hpf::BlockCyclicGeometry geo = hpf::block_cyclic_geometry(P, r, Q, s);
    ASSERT_TRUE(geo.L.has_value());
    const CommMatrix slice = hpf::block_cyclic_slice_pattern(P, r, Q, s);
    ASSERT_EQ(slice, brute_force(P, r, Q, s, *geo.L));
    // Every source process holds L / P elements of a slice and every target L / Q.
    for (int p = 0; p < P; ++p) {
      index_t row = 0;
      for (int q = 0; q < Q; ++q) row += slice.at(p, q);
      ASSERT_EQ(row, *geo.L / P);
    }
    // Lemma 2: all-to-all iff g' <= r' + s' - 1.
    ASSERT_EQ(geo.all_to_all, slice.entries().size() == static_cast<std::size_t>(P * Q))
        << describe(P, r, Q, s, *geo.L);
    // Lemma 1 and Proposition 2: a pair's slice length is D times the sum of vol'(k) over the k of
    // its class, and all pairs of a class exchange the same length; Proposition 1: P Q / g' pairs.
    for (index_t c = 0; c < geo.g_red; ++c) {
      index_t vol = 0;
      for (index_t k : hpf::class_offsets(geo, c)) {
        ASSERT_EQ((k - c) % geo.g_red, 0);
        vol += geo.D * hpf::block_overlap(geo.r_red, geo.s_red, k);
      }
      ASSERT_EQ(vol, hpf::class_slice_volume(geo, c));
      const auto members = hpf::class_members(geo, c);
      ASSERT_EQ(static_cast<index_t>(members.size()), static_cast<index_t>(P) * Q / geo.g_red);
      for (const auto& [p, q] : members) {
        ASSERT_EQ(hpf::pair_class(geo, p, q), c);
        ASSERT_EQ(slice.at(p, q), vol) << describe(P, r, Q, s, *geo.L) << " pair " << p << "," << q;
      }
    }
  }
}

TEST(BlockCyclicPattern, SeedExamples) {
  // Example 1 (P = Q = 16, r = 3, s = 5): 7 messages per row and column, lengths 1 to 3 per slice.
  const CommMatrix ex1 = hpf::block_cyclic_slice_pattern(16, 3, 16, 5);
  EXPECT_EQ(hpf::slice_length(16, 3, 16, 5), 240);
  for (int d : ex1.row_degrees()) EXPECT_EQ(d, 7);
  for (int d : ex1.col_degrees()) EXPECT_EQ(d, 7);
  index_t lo = 99;
  index_t hi = 0;
  for (const auto& m : ex1.entries()) {
    lo = std::min(lo, m.len);
    hi = std::max(hi, m.len);
  }
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 3);
  // Example 2 (r = 7, s = 11): all-to-all (Lemma 2: g = 16 <= 17), lengths 2 to 7 (ratio 2 to 7).
  EXPECT_TRUE(hpf::is_all_to_all(16, 7, 16, 11));
  EXPECT_FALSE(hpf::is_all_to_all(16, 3, 16, 5));
  const CommMatrix ex2 = hpf::block_cyclic_slice_pattern(16, 7, 16, 11);
  EXPECT_EQ(ex2.entries().size(), 256u);
  // Example 3 (P = Q = 15, r = 3, s = 5): unbalanced, rows and columns of 6 and 9 messages... and a
  // processor with 10 messages (the optimal NS).
  const CommMatrix ex3 = hpf::block_cyclic_slice_pattern(15, 3, 15, 5);
  EXPECT_EQ(ex3.max_degree(), 10);
  // Example 4 (P = 12, Q = 8, r = 4, s = 3): some receiver has 4 messages.
  const CommMatrix ex4 = hpf::block_cyclic_slice_pattern(12, 4, 8, 3);
  EXPECT_EQ(ex4.max_degree(), 4);
  // Example 4 in the proof of Lemma 2: g = gcd(48, 24) = 24 > r + s - 1 = 6, not all-to-all.
  EXPECT_FALSE(hpf::is_all_to_all(12, 4, 8, 3));
  // Lemma 1 / Example 3 scaled (Table 13): r = 6, s = 10 doubles every length of r = 3, s = 5.
  const CommMatrix ex3x2 = hpf::block_cyclic_slice_pattern(15, 6, 15, 10);
  for (const auto& m : ex3.entries()) EXPECT_EQ(ex3x2.at(m.src, m.dst), 2 * m.len);
  EXPECT_EQ(ex3x2.entries().size(), ex3.entries().size());
}

TEST(BlockCyclicPattern, BadInputsThrow) {
  HPF_EXPECT_ERROR(hpf::block_cyclic_pattern(0, 3, 4, 5, 10), "P (source processes) must be >= 1, got 0");
  HPF_EXPECT_ERROR(hpf::block_cyclic_pattern(2, 0, 4, 5, 10), "r (source block size) must be >= 1, got 0");
  HPF_EXPECT_ERROR(hpf::block_cyclic_pattern(2, 3, -1, 5, 10), "Q (target processes) must be >= 1, got -1");
  HPF_EXPECT_ERROR(hpf::block_cyclic_pattern(2, 3, 4, -5, 10), "s (target block size) must be >= 1, got -5");
  HPF_EXPECT_ERROR(hpf::block_cyclic_pattern(2, 3, 4, 5, -1), "M (array length) must be >= 0, got -1");
  HPF_EXPECT_ERROR(hpf::block_cyclic_pattern(4, index_t{1} << 62, 4, 5, 10), "P r must fit in 64 bits");
  const hpf::BlockCyclicGeometry geo = hpf::block_cyclic_geometry(4, 3, 4, 5);
  HPF_EXPECT_ERROR(hpf::pair_class(geo, 4, 0), "p must be in [0, 4), got 4");
  HPF_EXPECT_ERROR(hpf::class_members(geo, geo.g_red), "class c must be in [0, g' = 4), got 4");
  HPF_EXPECT_ERROR(hpf::block_overlap(0, 3, 1), "r and s must be >= 1");
  const hpf::BlockCyclicGeometry collapsed = hpf::block_cyclic_geometry(1, index_t{1} << 40, 1, 3);
  HPF_EXPECT_ERROR(hpf::class_offsets(collapsed, 0), "more than the 2^24 this listing allows");
}

TEST(FloorSum, MatchesDirectSum) {
  std::mt19937_64 rng(11);
  auto uni = [&](index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); };
  for (int t = 0; t < 2000; ++t) {
    const index_t n = uni(0, 200);
    const index_t m = uni(1, 1000);
    const index_t a = uni(0, 5000);
    const index_t b = uni(0, 5000);
    index_t want = 0;
    for (index_t i = 0; i < n; ++i) want += (a * i + b) / m;
    ASSERT_EQ(static_cast<index_t>(hpf::detail::floor_sum(n, m, a, b)), want)
        << n << " " << m << " " << a << " " << b;
  }
}

} // namespace
