// Integer safety: core/math.hpp and the CyclicMap of every layout at the edges of
// 64-bit integers, against a 128-bit reference, on fixed edge cases (2^31 +- 1, 2^62, 2^63 - 1 as
// extents and block sizes) and thousands of random ones.
#include "hpf_test.hpp"

#include <hpf/core/math.hpp>
#include <hpf/layout/cyclic_map.hpp>
#include <hpf/layout/distribution.hpp>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using hpf::index_t;
__extension__ typedef __int128 i128; // the reference arithmetic cannot overflow

constexpr index_t kMax = std::numeric_limits<index_t>::max();
const std::vector<index_t> kEdges = {1,
                                     2,
                                     3,
                                     (index_t{1} << 31) - 1,
                                     index_t{1} << 31,
                                     (index_t{1} << 31) + 1,
                                     index_t{1} << 62,
                                     (index_t{1} << 62) + 1,
                                     kMax - 1,
                                     kMax};

i128 ref_local_extent(index_t n, int P, index_t r, int p) {
  const i128 cycle = static_cast<i128>(P) * r;
  const i128 rest = n % cycle - static_cast<i128>(p) * r;
  return (n / cycle) * r + (rest < 0 ? 0 : (rest > r ? r : rest));
}

/// Checks one map against the reference: every process's extent, their sum, and owner / local /
/// global on indices near the ends, the middle and the block boundaries.
void check_map(const hpf::CyclicMap& m) {
  SCOPED_TRACE(::testing::Message() << "n " << m.n << ", P " << m.P << ", r " << m.r);
  // Every process when there are few; the first, last and a few between when P is huge.
  std::vector<int> ps;
  if (m.P <= 64) {
    for (int p = 0; p < m.P; ++p) ps.push_back(p);
  } else {
    ps = {0, 1, 2, m.P / 2, m.P - 2, m.P - 1};
  }
  i128 total = 0;
  for (const int p : ps) {
    const index_t e = m.local_extent(p);
    ASSERT_EQ(static_cast<i128>(e), ref_local_extent(m.n, m.P, m.r, p)) << "p " << p;
    ASSERT_GE(e, 0);
    total += e;
  }
  if (m.P <= 64) {
    ASSERT_EQ(total, static_cast<i128>(m.n));
  }
  if (m.n == 0) return;
  for (const index_t i :
       {index_t{0}, index_t{1}, m.n / 2, m.n - 2, m.n - 1, m.r - 1, m.r, m.r < kMax ? m.r + 1 : m.r}) {
    if (i < 0 || i >= m.n) continue;
    const i128 cycle = static_cast<i128>(m.P) * m.r;
    const int owner = static_cast<int>((i / m.r) % m.P);
    const i128 local = (i / cycle) * m.r + i % m.r;
    ASSERT_EQ(m.owner(i), owner) << "i " << i;
    ASSERT_EQ(static_cast<i128>(m.local(i)), local) << "i " << i;
    ASSERT_LT(m.local(i), m.local_extent(owner)) << "i " << i;
    ASSERT_EQ(m.global(owner, m.local(i)), i) << "i " << i;
  }
}

TEST(CheckedMath, CeilDivIsExactUpToInt64Max) {
  using hpf::detail::ceil_div;
  EXPECT_EQ(ceil_div(kMax, 3), static_cast<index_t>((static_cast<i128>(kMax) + 2) / 3));
  EXPECT_EQ(ceil_div(kMax, 1), kMax);
  EXPECT_EQ(ceil_div(kMax, kMax), 1);
  EXPECT_EQ(ceil_div(kMax - 1, kMax), 1);
  EXPECT_EQ(ceil_div(0, 7), 0);
  std::mt19937_64 rng(15);
  for (int t = 0; t < 20000; ++t) {
    const index_t a = static_cast<index_t>(rng() >> (rng() % 63 + 1));
    const index_t b = static_cast<index_t>(rng() >> (rng() % 63 + 1)) + 1;
    ASSERT_EQ(static_cast<i128>(ceil_div(a, b)), (static_cast<i128>(a) + b - 1) / b) << a << " / " << b;
  }
}

TEST(CheckedMath, CheckedOperationsThrowOnOverflowOnly) {
  using namespace hpf::detail;
  EXPECT_EQ(checked_add(kMax - 1, 1, "x"), kMax);
  EXPECT_EQ(checked_mul(index_t{1} << 31, index_t{1} << 31, "x"), index_t{1} << 62);
  HPF_EXPECT_ERROR(checked_add(kMax, 1, "the sum"),
                   "the sum: 9223372036854775807 + 1 overflows 64-bit integers");
  HPF_EXPECT_ERROR(checked_mul(index_t{1} << 62, 2, "P r"), "P r: 4611686018427387904 * 2 overflows");
  HPF_EXPECT_ERROR(checked_mul(-(index_t{1} << 62), 3, "x"), "overflows");
  EXPECT_EQ(mul_nonneg(3, index_t{1} << 61), 3 * (index_t{1} << 61));
  EXPECT_FALSE(mul_nonneg(3, index_t{1} << 62).has_value());
  EXPECT_EQ(mul_nonneg(0, kMax), 0);
  EXPECT_EQ((checked_narrow<int>(index_t{2147483647}, "x")), 2147483647);
  HPF_EXPECT_ERROR((checked_narrow<int>(index_t{2147483648}, "count")), "count: 2147483648 does not fit in");
}

// The reported cases: BLOCK of 2^63 - 1 on 3 ranks was CYCLIC(1); CYCLIC(2^62) on 3 ranks gave
// negative local extents.
TEST(CheckedMath, Issue15BlockAndHugeCyclicMaps) {
  const hpf::CyclicMap block = hpf::Block().map(kMax, 3);
  EXPECT_EQ(block.r, static_cast<index_t>((static_cast<i128>(kMax) + 2) / 3));
  check_map(block);
  check_map(hpf::Cyclic(index_t{1} << 62).map(kMax, 3));
  check_map(hpf::Cyclic(index_t{1} << 62).map(index_t{1} << 62, 3));
}

TEST(CheckedMath, CyclicMapsAtTheEdgesOf64Bits) {
  for (const index_t n : kEdges)
    for (const index_t r : kEdges)
      for (const int P : {1, 2, 3, 7, 2147483647}) check_map(hpf::CyclicMap{n, P, r});
  for (const index_t n : kEdges)
    for (const int P : {1, 2, 3, 7, 64}) check_map(hpf::Block().map(n, P));
}

TEST(CheckedMath, RandomMapsAgainstTheReference) {
  std::mt19937_64 rng(150);
  auto wide = [&] { return static_cast<index_t>(rng() >> (rng() % 63 + 1)); }; // log-uniform-ish in [0, 2^63)
  for (int t = 0; t < 5000; ++t) {
    const index_t n = wide();
    const index_t r = wide() + 1;
    const int P = static_cast<int>(rng() % 9 + 1);
    check_map(hpf::CyclicMap{n, P, r});
    check_map(hpf::Block().map(n, P));
  }
}

} // namespace
