// Index maps against brute-force enumeration: the blocks of r elements are dealt round-robin to P
// processes, and each process stores what it receives in order.
#include <hpf/core/error.hpp>
#include <hpf/layout/distribution.hpp>

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

using hpf::CyclicMap;
using hpf::index_t;

/// Deals the elements 0..n-1 by blocks of r to P processes; returns, per process, its global indices.
std::vector<std::vector<index_t>> deal(index_t n, int P, index_t r) {
  std::vector<std::vector<index_t>> owned(static_cast<std::size_t>(P));
  int p = 0;
  for (index_t start = 0; start < n; start += r) {
    for (index_t i = start; i < std::min(n, start + r); ++i) owned[static_cast<std::size_t>(p)].push_back(i);
    p = (p + 1) % P;
  }
  return owned;
}

void check_against_brute_force(const CyclicMap& m) {
  const auto owned = deal(m.n, m.P, m.r);
  index_t total = 0;
  for (int p = 0; p < m.P; ++p) {
    const auto& mine = owned[static_cast<std::size_t>(p)];
    ASSERT_EQ(m.local_extent(p), static_cast<index_t>(mine.size()))
        << "n=" << m.n << " P=" << m.P << " r=" << m.r << " p=" << p;
    for (std::size_t l = 0; l < mine.size(); ++l) {
      const index_t g = mine[l];
      ASSERT_EQ(m.owner(g), p) << "n=" << m.n << " P=" << m.P << " r=" << m.r << " g=" << g;
      ASSERT_EQ(m.local(g), static_cast<index_t>(l))
          << "n=" << m.n << " P=" << m.P << " r=" << m.r << " g=" << g;
      ASSERT_EQ(m.global(p, static_cast<index_t>(l)), g);
    }
    total += m.local_extent(p);
  }
  ASSERT_EQ(total, m.n);
}

TEST(CyclicMap, MatchesBruteForceOnRandomCases) {
  std::mt19937_64 rng(20261122);
  for (int t = 0; t < 5000; ++t) {
    const int P = std::uniform_int_distribution<int>(1, 17)(rng);
    const index_t r = std::uniform_int_distribution<index_t>(1, 12)(rng);
    // Extents below, at and above multiples of P r, zero, and fewer elements than processes.
    const index_t n = std::uniform_int_distribution<index_t>(0, 3 * P * r + 5)(rng);
    check_against_brute_force({n, P, r});
  }
}

TEST(CyclicMap, EdgeCases) {
  check_against_brute_force({0, 4, 3});    // empty
  check_against_brute_force({2, 7, 1});    // more processes than elements
  check_against_brute_force({1, 1, 1});    // one element, one process
  check_against_brute_force({24, 4, 3});   // exact multiple of P r
  check_against_brute_force({25, 4, 3});   // one past it
  check_against_brute_force({10, 3, 100}); // block larger than the array: all on process 0
}

TEST(Distribution, BlockAndCollapsedResolveToCyclic) {
  std::mt19937_64 rng(7);
  for (int t = 0; t < 2000; ++t) {
    const int P = std::uniform_int_distribution<int>(1, 16)(rng);
    const index_t n = std::uniform_int_distribution<index_t>(0, 200)(rng);
    const CyclicMap b = hpf::Block().map(n, P);
    EXPECT_EQ(b.r, std::max<index_t>(1, (n + P - 1) / P));
    check_against_brute_force(b);
    // BLOCK gives each process one contiguous piece.
    for (int p = 0; p < P; ++p)
      for (index_t l = 1; l < b.local_extent(p); ++l) EXPECT_EQ(b.global(p, l), b.global(p, l - 1) + 1);
    const CyclicMap c = hpf::Collapsed().map(n, P);
    EXPECT_EQ(c.P, 1);
    EXPECT_EQ(c.local_extent(0), n);
  }
}

TEST(Distribution, CyclicRejectsBlockSizeBelowOne) {
  for (index_t r : {0, -1, -100}) {
    try {
      (void)hpf::Cyclic(r);
      FAIL() << "Cyclic(" << r << ") did not throw";
    } catch (const hpf::Error& e) {
      EXPECT_NE(std::string(e.what()).find("block size must be >= 1, got " + std::to_string(r)),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(hpf::Cyclic(3).to_string(), "CYCLIC(3)");
  EXPECT_EQ(hpf::Block().to_string(), "BLOCK");
  EXPECT_EQ(hpf::Collapsed().to_string(), "*");
}

} // namespace
