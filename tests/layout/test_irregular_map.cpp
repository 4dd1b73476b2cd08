// GEN_BLOCK and INDIRECT index maps, and the redistribution runs between any two maps, against brute
// force on thousands of random cases (pure: no MPI).
#include <hpf/core/error.hpp>
#include <hpf/layout/distribution.hpp>
#include <hpf/redist/runs.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace {

using hpf::CyclicMap;
using hpf::Distribution;
using hpf::index_t;

/// Per process, its global indices in increasing order (the definition of local indices for every
/// distribution kind: a process stores what it owns in global order).
std::vector<std::vector<index_t>> owned_by(const std::vector<int>& owner, int P) {
  std::vector<std::vector<index_t>> out(static_cast<std::size_t>(P));
  for (std::size_t i = 0; i < owner.size(); ++i)
    out[static_cast<std::size_t>(owner[i])].push_back(static_cast<index_t>(i));
  return out;
}

/// Random sizes for P processes summing to n, with zero-size blocks likely.
std::vector<index_t> random_sizes(std::mt19937_64& rng, index_t n, int P) {
  std::vector<index_t> cuts{0, n};
  for (int p = 1; p < P; ++p) cuts.push_back(std::uniform_int_distribution<index_t>(0, n)(rng));
  std::sort(cuts.begin(), cuts.end());
  std::vector<index_t> sizes;
  for (int p = 0; p < P; ++p)
    sizes.push_back(cuts[static_cast<std::size_t>(p) + 1] - cuts[static_cast<std::size_t>(p)]);
  return sizes;
}

std::vector<int> random_owners(std::mt19937_64& rng, index_t n, int P) {
  std::vector<int> o(static_cast<std::size_t>(n));
  const bool runs = std::uniform_int_distribution<int>(0, 1)(rng) == 1; // runs of equal owners, or noise
  int cur = 0;
  for (auto& x : o) {
    if (!runs || std::uniform_int_distribution<int>(0, 3)(rng) == 0)
      cur = std::uniform_int_distribution<int>(0, P - 1)(rng);
    x = cur;
  }
  return o;
}

/// A random map of any kind over P processes.
CyclicMap random_map(std::mt19937_64& rng, index_t n, int P, std::string* what) {
  switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
  case 0: {
    const index_t r = std::uniform_int_distribution<index_t>(1, 5)(rng);
    *what = "CYCLIC(" + std::to_string(r) + ")";
    return hpf::Cyclic(r).map(n, P);
  }
  case 1:
    *what = "BLOCK";
    return hpf::Block().map(n, P);
  case 2: {
    const Distribution d = hpf::GenBlock(random_sizes(rng, n, P));
    *what = d.to_string();
    return d.map(n, P);
  }
  default: {
    const Distribution d = hpf::Indirect(random_owners(rng, n, P));
    *what = d.to_string();
    return d.map(n, P);
  }
  }
}

void check_map(const CyclicMap& m, const std::string& what) {
  std::vector<int> owner(static_cast<std::size_t>(m.n));
  for (index_t i = 0; i < m.n; ++i) owner[static_cast<std::size_t>(i)] = m.owner(i);
  const auto owned = owned_by(owner, m.P);
  for (int p = 0; p < m.P; ++p) {
    const auto& mine = owned[static_cast<std::size_t>(p)];
    ASSERT_EQ(m.local_extent(p), static_cast<index_t>(mine.size())) << what << " p=" << p;
    for (std::size_t l = 0; l < mine.size(); ++l) {
      ASSERT_EQ(m.local(mine[l]), static_cast<index_t>(l)) << what << " g=" << mine[l];
      ASSERT_EQ(m.global(p, static_cast<index_t>(l)), mine[l]) << what;
    }
    // for_each_block: maximal contiguous blocks covering exactly the owned indices, in order.
    std::vector<index_t> seen;
    m.for_each_block(p, [&](index_t b, index_t e, index_t l) {
      ASSERT_LT(b, e) << what;
      ASSERT_EQ(m.local(b), l) << what;
      for (index_t g = b; g < e; ++g) seen.push_back(g);
    });
    ASSERT_EQ(seen, mine) << what << " p=" << p;
    // Each run of r local elements starting at a multiple of r is contiguous globally.
    for (std::size_t l = 0; l < mine.size(); ++l)
      if (static_cast<index_t>(l) % m.r != 0) {
        ASSERT_EQ(mine[l], mine[l - 1] + 1) << what << " r=" << m.r;
      }
  }
  for (index_t g = 0; g < m.n; ++g) { // block_end: the end of g's same-owner, locally contiguous run
    const index_t e = m.block_end(g);
    ASSERT_GT(e, g) << what;
    ASSERT_LE(e, m.n) << what;
    for (index_t k = g; k < e; ++k) {
      ASSERT_EQ(m.owner(k), m.owner(g)) << what;
      ASSERT_EQ(m.local(k), m.local(g) + (k - g)) << what;
    }
    if (!m.regular() && e < m.n) { // the irregular maps end their runs exactly where the owner changes
      ASSERT_NE(m.owner(e) == m.owner(g) && m.local(e) == m.local(g) + (e - g), true) << what << " g=" << g;
    }
  }
}

TEST(IrregularMap, MatchesBruteForceOnRandomCases) {
  std::mt19937_64 rng(20261125);
  for (int t = 0; t < 4000; ++t) {
    const int P = std::uniform_int_distribution<int>(1, 9)(rng);
    const index_t n = std::uniform_int_distribution<index_t>(0, 40)(rng);
    std::string what;
    const CyclicMap m = random_map(rng, n, P, &what);
    check_map(m, what + " n=" + std::to_string(n) + " P=" + std::to_string(P));
    if (HasFatalFailure()) return;
  }
}

TEST(IrregularMap, GenBlockEdgeCases) {
  check_map(hpf::GenBlock({0, 0, 0}).map(0, 3), "all empty");
  check_map(hpf::GenBlock({0, 5, 0}).map(5, 3), "one holder in the middle");
  check_map(hpf::GenBlock({7}).map(7, 1), "one process");
  const CyclicMap m = hpf::GenBlock({2, 0, 3, 0}).map(5, 4);
  EXPECT_EQ(m.owner(1), 0);
  EXPECT_EQ(m.owner(2), 2); // the zero-size block of process 1 is skipped
  EXPECT_EQ(m.local(4), 2);
  EXPECT_EQ(m.block_end(2), 5);
  EXPECT_EQ(m.r, 3);
  EXPECT_TRUE(m.is_gen_block());
}

TEST(IrregularMap, IndirectEdgeCases) {
  const CyclicMap m = hpf::Indirect({1, 1, 0, 1, 2, 2}).map(6, 3);
  EXPECT_EQ(m.local_extent(0), 1);
  EXPECT_EQ(m.local_extent(1), 3);
  EXPECT_EQ(m.local(3), 2);
  EXPECT_EQ(m.global(1, 2), 3);
  EXPECT_EQ(m.block_end(0), 2);
  EXPECT_EQ(m.block_end(4), 6);
  check_map(hpf::Indirect({}).map(0, 2), "empty");
  check_map(hpf::Indirect({0, 0, 0}).map(3, 5), "all on one of five");
}

/// Expects hpf::Error whose message contains every one of `parts`.
template <class F> void expect_error(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no hpf::Error; expected one containing '" << parts.front() << "'";
  } catch (const hpf::Error& e) {
    for (const auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

TEST(IrregularMap, BadInputNamesArgumentValueAndExpectation) {
  expect_error([] { (void)hpf::GenBlock({3, -1, 2}); }, {"GenBlock(sizes)", "sizes[1]", ">= 0", "-1"});
  expect_error([] { (void)hpf::GenBlock({3, 1, 2}).map(7, 3); }, {"GenBlock(sizes)", "sum to 6", "7"});
  expect_error(
      [] {
        (void)hpf::GenBlock({3, 4}).map(7, 3);
      },
      {"GenBlock(sizes)", "got 2 sizes", "3 processes"});
  expect_error([] { (void)hpf::Indirect({0, -2}); }, {"Indirect(owners)", "owners[1]", "-2", ">= 0"});
  expect_error(
      [] {
        (void)hpf::Indirect({0, 1, 3}).map(3, 3);
      },
      {"Indirect(owners)", "owners[2] = 3", "[0, 3)"});
  expect_error([] { (void)hpf::Indirect({0, 1}).map(3, 2); }, {"Indirect(owners)", "2 entries", "(3)"});
}

TEST(IrregularMap, DistributionEqualityAndNames) {
  EXPECT_EQ(hpf::GenBlock({1, 2}), hpf::GenBlock({1, 2}));
  EXPECT_NE(hpf::GenBlock({1, 2}), hpf::GenBlock({2, 1}));
  EXPECT_NE(hpf::Indirect({0, 1}), hpf::Indirect({1, 0}));
  EXPECT_NE(hpf::GenBlock({1, 2}), hpf::Block());
  EXPECT_EQ(hpf::GenBlock({3, 0, 5}).to_string(), "GEN_BLOCK(3,0,5)");
  EXPECT_EQ(hpf::Indirect({0, 1, 1}).to_string(), "INDIRECT(0,1,1)");
  EXPECT_NE(hpf::GenBlock({1, 2}).table_hash(), hpf::GenBlock({2, 1}).table_hash());
  // Maps compare by content, not by table pointer.
  EXPECT_EQ(hpf::GenBlock({1, 2}).map(3, 2), hpf::GenBlock({1, 2}).map(3, 2));
  EXPECT_FALSE(hpf::GenBlock({1, 2}).map(3, 2) == hpf::GenBlock({2, 1}).map(3, 2));
}

/// Brute force: per (p, q), the (source local, target local) pairs in increasing global order.
using Pairs = std::vector<std::pair<index_t, index_t>>;
std::vector<std::vector<Pairs>> brute_pairs(const CyclicMap& a, const CyclicMap& b) {
  std::vector<std::vector<Pairs>> out(static_cast<std::size_t>(a.P),
                                      std::vector<Pairs>(static_cast<std::size_t>(b.P)));
  for (index_t g = 0; g < a.n; ++g)
    out[static_cast<std::size_t>(a.owner(g))][static_cast<std::size_t>(b.owner(g))].emplace_back(a.local(g),
                                                                                                 b.local(g));
  return out;
}

Pairs expand(const hpf::PeriodicRuns& pr) {
  Pairs out;
  pr.for_each([&](index_t s, index_t d, index_t len) {
    for (index_t k = 0; k < len; ++k) out.emplace_back(s + k, d + k);
  });
  return out;
}

TEST(IrregularRuns, EveryPairOfKindsMatchesBruteForce) {
  std::mt19937_64 rng(77);
  for (int t = 0; t < 3000; ++t) {
    const int P = std::uniform_int_distribution<int>(1, 6)(rng);
    const int Q = std::uniform_int_distribution<int>(1, 6)(rng);
    const index_t n = std::uniform_int_distribution<index_t>(0, 60)(rng);
    std::string wa;
    std::string wb;
    const CyclicMap a = random_map(rng, n, P, &wa);
    const CyclicMap b = random_map(rng, n, Q, &wb);
    const std::string what = wa + " -> " + wb + " n=" + std::to_string(n);
    const auto want = brute_pairs(a, b);
    const hpf::CommMatrix grid = hpf::runs_pattern(a, b);
    for (int p = 0; p < P; ++p) {
      const auto from = hpf::periodic_runs_from(a, b, p);
      for (int q = 0; q < Q; ++q) {
        const Pairs& w = want[static_cast<std::size_t>(p)][static_cast<std::size_t>(q)];
        ASSERT_EQ(expand(from[static_cast<std::size_t>(q)]), w) << what << " from p=" << p << " q=" << q;
        ASSERT_EQ(from[static_cast<std::size_t>(q)].elements, static_cast<index_t>(w.size())) << what;
        ASSERT_EQ(grid.at(p, q), static_cast<index_t>(w.size())) << what;
      }
    }
    for (int q = 0; q < Q; ++q) {
      const auto to = hpf::periodic_runs_to(a, b, q);
      for (int p = 0; p < P; ++p)
        ASSERT_EQ(expand(to[static_cast<std::size_t>(p)]),
                  want[static_cast<std::size_t>(p)][static_cast<std::size_t>(q)])
            << what << " to q=" << q << " p=" << p;
    }
  }
}

TEST(IrregularRuns, GenBlockAgainstCyclicIsStridedNotPerElement) {
  // GEN_BLOCK(600, 400) -> CYCLIC(1) on 4: inside each GEN_BLOCK block, the elements of one target are
  // one strided run, so the sender lists O(P Q) runs, not 1000.
  const CyclicMap a = hpf::GenBlock({600, 400}).map(1000, 2);
  const CyclicMap b = hpf::Cyclic(1).map(1000, 4);
  for (int p = 0; p < 2; ++p) {
    const auto from = hpf::periodic_runs_from(a, b, p);
    for (const auto& pr : from) EXPECT_LE(pr.period.size() + pr.tail.size(), 2U);
  }
  const auto to = hpf::periodic_runs_to(b, a, 1);
  for (const auto& pr : to) EXPECT_LE(pr.period.size() + pr.tail.size(), 2U);
}

} // namespace
