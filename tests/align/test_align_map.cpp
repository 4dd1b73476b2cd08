// ALIGN's per-dimension maps, pure: detail::aligned_distribution against brute
// force on thousands of random bases (BLOCK, CYCLIC(r), GEN_BLOCK with zero-size blocks, INDIRECT),
// extents, strides (negative too) and offsets: the aligned map's owner of every i is the base's owner
// of a*i + b, its local/global maps are inverse, and the kind chosen is the documented one.
#include "hpf_test.hpp"
#include "random_dist.hpp"

#include <hpf/layout/align.hpp>

#include <random>
#include <vector>

namespace {

using hpf::CyclicMap;
using hpf::Distribution;
using hpf::index_t;

struct Base {
  Distribution dist;
  CyclicMap map;
};

Base random_base(std::mt19937_64& rng, index_t n, int P) {
  std::uniform_int_distribution<int> kind(0, 3);
  switch (kind(rng)) {
  case 0: {
    Distribution d = hpf::Block();
    return {d, d.map(n, P)};
  }
  case 1: {
    Distribution d = hpf::Cyclic(std::uniform_int_distribution<index_t>(1, 7)(rng));
    return {d, d.map(n, P)};
  }
  case 2: { // random cut points: zero-size blocks are likely
    Distribution d = hpf::test::random_gen_block(n, P, rng);
    return {d, d.map(n, P)};
  }
  default: {
    Distribution d = hpf::test::random_indirect(n, P, rng);
    return {d, d.map(n, P)};
  }
  }
}

TEST(AlignMap, OwnersEqualTheBaseOwnersOnRandomCases) {
  std::mt19937_64 rng(20261125);
  int kinds[5] = {};
  for (int trial = 0; trial < 6000; ++trial) {
    const int P = std::uniform_int_distribution<int>(1, 7)(rng);
    const index_t nb = std::uniform_int_distribution<index_t>(0, 60)(rng);
    const Base base = random_base(rng, nb, P);
    index_t a = std::uniform_int_distribution<index_t>(-4, 4)(rng);
    if (a == 0) a = 1;
    if (trial % 5 == 0) a = 1;
    // The longest n with a*i + b inside [0, nb), and an offset that keeps it inside.
    index_t n = 0;
    index_t b = 0;
    if (nb > 0) {
      const index_t absa = a < 0 ? -a : a;
      const index_t nmax = (nb - 1) / absa + 1;
      n = std::uniform_int_distribution<index_t>(0, nmax)(rng);
      if (trial % 7 == 0) n = nmax;
      const index_t span = n > 0 ? absa * (n - 1) : 0;
      const index_t slack = nb - 1 - span;
      const index_t shift = std::uniform_int_distribution<index_t>(0, std::max<index_t>(slack, 0))(rng);
      b = a > 0 ? shift : span + shift;
      if (trial % 11 == 0 && a == 1 && n == nb) b = 0;
    }
    const Distribution d = hpf::detail::aligned_distribution(base.dist, base.map, n, a, b, "test");
    const CyclicMap m = d.map(n, P);
    ++kinds[static_cast<int>(d.kind())];
    for (index_t i = 0; i < n; ++i) {
      ASSERT_EQ(m.owner(i), base.map.owner(a * i + b))
          << "trial " << trial << " base " << base.dist.to_string() << " nb " << nb << " P " << P << " n "
          << n << " a " << a << " b " << b << " aligned " << d.to_string() << " i " << i;
      ASSERT_EQ(m.global(m.owner(i), m.local(i)), i);
    }
    index_t total = 0;
    for (int p = 0; p < P; ++p) total += m.local_extent(p);
    ASSERT_EQ(total, n);
    // The documented choices.
    if (a == 1 && b == 0 && n == nb) {
      EXPECT_EQ(d, base.dist);
    }
    if (P > 1 && n > 0 && base.map.regular() && a == 1 && b % (P * base.map.r) == 0 && !(b == 0 && n == nb)) {
      EXPECT_EQ(d.kind(), Distribution::Kind::Cyclic);
    }
    if (P > 1 && n > 0 && base.map.is_gen_block() && a > 0 && !(a == 1 && b == 0 && n == nb)) {
      EXPECT_EQ(d.kind(), Distribution::Kind::GenBlock);
    }
  }
  // Every kind was exercised.
  EXPECT_GT(kinds[static_cast<int>(Distribution::Kind::Cyclic)], 50);
  EXPECT_GT(kinds[static_cast<int>(Distribution::Kind::GenBlock)], 50);
  EXPECT_GT(kinds[static_cast<int>(Distribution::Kind::Indirect)], 50);
}

TEST(AlignMap, BlockWithAnOffsetIsAGenBlock) {
  const Distribution base = hpf::Block();
  const CyclicMap bm = base.map(10, 3); // blocks [0,4) [4,8) [8,10)
  const Distribution d = hpf::detail::aligned_distribution(base, bm, 7, 1, 3, "test");
  ASSERT_EQ(d.kind(), Distribution::Kind::GenBlock);
  EXPECT_EQ(d.sizes(), (std::vector<index_t>{1, 4, 2}));
}

TEST(AlignMap, CyclicStrideIsAPeriodicIndirectTable) {
  const Distribution base = hpf::Cyclic(2);
  const CyclicMap bm = base.map(40, 3); // period of a = 4 over P r = 6: 6 / gcd(4, 6) = 3
  const Distribution d = hpf::detail::aligned_distribution(base, bm, 10, 4, 1, "test");
  ASSERT_EQ(d.kind(), Distribution::Kind::Indirect);
  for (std::size_t i = 3; i < d.owners().size(); ++i) EXPECT_EQ(d.owners()[i], d.owners()[i - 3]);
}

TEST(AlignMap, BadAlignmentsThrow) {
  const Distribution base = hpf::Cyclic(3);
  const CyclicMap bm = base.map(20, 2);
  HPF_EXPECT_ERROR(hpf::detail::aligned_distribution(base, bm, 5, 0, 0, "dims[0]"), "dims[0]", "stride",
                   "got 0");
  HPF_EXPECT_ERROR(hpf::detail::aligned_distribution(base, bm, 11, 2, 0, "dims[1]"), "dims[1]", "20",
                   "outside the base extent", "[0, 20)");
  HPF_EXPECT_ERROR(hpf::detail::aligned_distribution(base, bm, 5, -1, 3, "dims[0]"), "offset 3", "-1");
  HPF_EXPECT_ERROR(hpf::detail::aligned_distribution(base, bm, 3, 1, -1, "x"), "offset -1");
  // Huge strides: the end of the range overflows 64 bits and is still refused.
  HPF_EXPECT_ERROR(hpf::detail::aligned_distribution(base, bm, 5, INT64_MAX / 2, 0, "x"), "outside");
  // An empty aligned dimension maps nowhere: any offset is fine.
  EXPECT_NO_THROW((void)hpf::detail::aligned_distribution(base, bm, 0, 5, 100, "x"));
}

} // namespace
