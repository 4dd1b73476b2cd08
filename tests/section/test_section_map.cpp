// The pure planner of section/ against brute force: access sequences of l:h:s on CYCLIC(k) over P,
// communication grids and runs of B(tb) = A(ta) between two random maps (CYCLIC(r), BLOCK, collapsed),
// thousands of random cases with positive and negative strides, extent-1 and empty sections.
#include <hpf/schedule/strategy.hpp>
#include <hpf/section/section_map.hpp>

#include "hpf_test.hpp"
#include "section_random.hpp"

#include <random>
#include <tuple>
#include <vector>

namespace {

using hpf::CyclicMap;
using hpf::index_t;
using hpf::Triplet;
using hpf::test::random_triplet;
using hpf::test::Rng;

/// A random map of extent n: CYCLIC(r), BLOCK or collapsed, over 1..7 processes.
CyclicMap random_map(Rng& rng, index_t n) {
  const int P = static_cast<int>(rng.between(1, 7));
  switch (rng.between(0, 3)) {
  case 0:
    return hpf::Block().map(n, P);
  case 1:
    return hpf::Collapsed().map(n, 1);
  default:
    return hpf::Cyclic(rng.between(1, 9)).map(n, P);
  }
}

std::vector<std::pair<index_t, index_t>> brute_sequence(const CyclicMap& m, const Triplet& t, int p) {
  std::vector<std::pair<index_t, index_t>> out;
  for (index_t j = 0; j < t.extent(); ++j)
    if (m.owner(t.at(j)) == p) out.emplace_back(j, m.local(t.at(j)));
  return out;
}

std::vector<std::pair<index_t, index_t>> expand(const hpf::SectionRuns& r) {
  std::vector<std::pair<index_t, index_t>> out;
  r.for_each([&](index_t s, index_t d, index_t len, index_t ss, index_t ds) {
    for (index_t t = 0; t < len; ++t) out.emplace_back(s + t * ss, d + t * ds);
  });
  return out;
}

TEST(SectionMap, LocalSequenceMatchesBruteForce) {
  Rng rng(20261124);
  for (int c = 0; c < 4000; ++c) {
    const index_t n = rng.between(0, c < 3000 ? 60 : 400);
    const CyclicMap m = random_map(rng, n);
    const Triplet t = random_triplet(rng, n, n == 0 ? 0 : rng.between(0, n));
    ASSERT_NO_THROW(hpf::detail::check_triplet(t, n, "t")) << t.to_string() << " n=" << n;
    for (int p = 0; p < m.P; ++p) {
      const hpf::LocalSequence seq = hpf::local_sequence(m, t, p);
      std::vector<std::pair<index_t, index_t>> got;
      seq.for_each([&](index_t j, index_t l) { got.emplace_back(j, l); });
      const auto want = brute_sequence(m, t, p);
      ASSERT_EQ(got, want) << "case " << c << ": n=" << n << " P=" << m.P << " r=" << m.r
                           << " t=" << t.to_string() << " p=" << p;
      ASSERT_EQ(seq.owned, static_cast<index_t>(want.size()));
      // The period is P k / gcd(|s|, P k) and the table holds at most ceil(k / g) entries.
      ASSERT_EQ(seq.period, m.P * m.r / std::gcd(std::abs(t.stride), m.P * m.r));
      ASSERT_LE(static_cast<index_t>(seq.j.size()), m.r);
    }
  }
}

TEST(SectionMap, GridAndRunsMatchBruteForce) {
  Rng rng(7);
  index_t with_reps = 0;
  for (int c = 0; c < 3000; ++c) {
    const index_t na = rng.between(0, c < 1500 ? 50 : 500);
    const index_t nb = rng.between(0, c < 1500 ? 50 : 500);
    const index_t cnt = rng.between(0, std::min(na, nb));
    const hpf::SectionDim dim{random_map(rng, na), random_triplet(rng, na, cnt), random_map(rng, nb),
                              random_triplet(rng, nb, cnt)};
    const std::string what =
        "case " + std::to_string(c) + ": A n=" + std::to_string(na) + " P=" + std::to_string(dim.src.P) +
        " r=" + std::to_string(dim.src.r) + " " + dim.ts.to_string() + ", B n=" + std::to_string(nb) +
        " P=" + std::to_string(dim.dst.P) + " r=" + std::to_string(dim.dst.r) + " " + dim.td.to_string();
    // Brute force: every element's owners and local indices.
    std::vector<std::vector<std::vector<std::pair<index_t, index_t>>>> want(
        static_cast<std::size_t>(dim.src.P),
        std::vector<std::vector<std::pair<index_t, index_t>>>(static_cast<std::size_t>(dim.dst.P)));
    for (index_t j = 0; j < cnt; ++j) {
      const index_t ia = dim.ts.at(j);
      const index_t ib = dim.td.at(j);
      want[static_cast<std::size_t>(dim.src.owner(ia))][static_cast<std::size_t>(dim.dst.owner(ib))]
          .emplace_back(dim.src.local(ia), dim.dst.local(ib));
    }
    const hpf::CommMatrix grid = hpf::section_grid(dim);
    ASSERT_EQ(grid.total_volume(), cnt) << what;
    if (dim.pair_period() < cnt) ++with_reps;
    // SectionPlan's per-dimension schedule: contention-free steps realising the grid, NS = max degree.
    const hpf::Schedule sched = hpf::make_schedule(grid, hpf::Strategy::KoenigStepwise);
    ASSERT_EQ(hpf::check_schedule(sched, grid), "") << what;
    ASSERT_EQ(sched.num_nonempty_steps(), grid.max_degree()) << what;
    for (int p = 0; p < dim.src.P; ++p) {
      const auto from = hpf::section_runs_from(dim, p);
      for (int q = 0; q < dim.dst.P; ++q) {
        const auto& w = want[static_cast<std::size_t>(p)][static_cast<std::size_t>(q)];
        ASSERT_EQ(grid.at(p, q), static_cast<index_t>(w.size())) << what << " p=" << p << " q=" << q;
        ASSERT_EQ(expand(from[static_cast<std::size_t>(q)]), w) << what << " from p=" << p << " to q=" << q;
        ASSERT_EQ(from[static_cast<std::size_t>(q)].elements, static_cast<index_t>(w.size()));
      }
    }
    for (int q = 0; q < dim.dst.P; ++q) {
      const auto to = hpf::section_runs_to(dim, q);
      for (int p = 0; p < dim.src.P; ++p)
        ASSERT_EQ(expand(to[static_cast<std::size_t>(p)]),
                  want[static_cast<std::size_t>(p)][static_cast<std::size_t>(q)])
            << what << " to q=" << q << " from p=" << p;
    }
  }
  // The replication path (pair period shorter than the section) must have been exercised.
  EXPECT_GT(with_reps, 150);
}

TEST(SectionMap, UnitStrideRunsAreLong) {
  // A(0:99) CYCLIC(10) on 2 -> B(0:99) CYCLIC(10) on 2: one run per block, the pattern stored once.
  const hpf::SectionDim dim{hpf::Cyclic(10).map(100, 2), Triplet{0, 99, 1}, hpf::Cyclic(10).map(100, 2),
                            Triplet{0, 99, 1}};
  const auto from = hpf::section_runs_from(dim, 0);
  EXPECT_EQ(from[0].period.size(), 1U);
  EXPECT_EQ(from[0].reps, 5);
  EXPECT_TRUE(from[1].period.empty());
  EXPECT_EQ(from[0].elements, 50);
}

TEST(SectionMap, HugeSectionsArePlannedPerPeriod) {
  // 10^15 elements: only one pair period (lcm of the owner periods) is ever walked, so this is instant;
  // every element is accounted for exactly once on both sides.
  const index_t n = 1000000000000000;
  const Triplet ta{n - 1, 0, -2};
  const index_t cnt = ta.extent();
  const Triplet tb{5, 5 + 3 * (cnt - 1), 3};
  const hpf::SectionDim dim{hpf::Cyclic(7).map(n, 5), ta, hpf::Cyclic(4).map(2 * n, 3), tb};
  ASSERT_EQ(tb.extent(), cnt);
  const hpf::CommMatrix grid = hpf::section_grid(dim);
  EXPECT_EQ(grid.total_volume(), cnt);
  EXPECT_LT(dim.pair_period(), 1000);
  for (int p = 0; p < 5; ++p) {
    index_t sent = 0;
    const auto from = hpf::section_runs_from(dim, p);
    for (int q = 0; q < 3; ++q) {
      EXPECT_EQ(from[static_cast<std::size_t>(q)].elements, grid.at(p, q));
      EXPECT_LT(from[static_cast<std::size_t>(q)].period.size() +
                    from[static_cast<std::size_t>(q)].tail.size(),
                1000U);
      sent += grid.at(p, q);
    }
    EXPECT_EQ(sent, hpf::local_sequence(dim.src, ta, p).owned);
  }
}

TEST(SectionMap, BlockAndCollapsedAreWalkedByBlocks) {
  // BLOCK over 4 -> collapsed, reversed: the owner period is the whole extent (10^15), yet each
  // process sends one run and the grid comes from one visit per block.
  const index_t n = 1000000000000000;
  const hpf::SectionDim dim{hpf::Block().map(n, 4), Triplet{0, n - 1, 1}, hpf::Collapsed().map(n, 1),
                            Triplet{n - 1, 0, -1}};
  const hpf::CommMatrix grid = hpf::section_grid(dim);
  EXPECT_EQ(grid.total_volume(), n);
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(grid.at(p, 0), n / 4);
    const auto from = hpf::section_runs_from(dim, p);
    ASSERT_EQ(from[0].period.size() + from[0].tail.size(), 1U);
    const hpf::SectionRun& r = from[0].period.empty() ? from[0].tail[0] : from[0].period[0];
    EXPECT_EQ(r.dst_local, n - 1 - p * (n / 4));
    EXPECT_EQ(r.dst_step, -1);
  }
  const auto to = hpf::section_runs_to(dim, 0);
  EXPECT_EQ(to[3].elements, n / 4);
}

TEST(SectionMap, SparseSectionOnFineCyclicMap) {
  // 1000 elements 10^12 apart on CYCLIC(1) over 3 (10^15 elements): planned by the elements, not by
  // the 3 * 10^14 cycles they span; checked against brute force.
  const index_t n = 1000000000000000;
  const index_t s = 1000000000000;
  const hpf::SectionDim dim{hpf::Cyclic(1).map(n, 3), Triplet{5 + 999 * s, 5, -s},
                            hpf::Cyclic(2).map(1000, 2), Triplet{0, 999, 1}};
  const hpf::CommMatrix grid = hpf::section_grid(dim);
  std::vector<std::vector<std::vector<std::pair<index_t, index_t>>>> want(
      3, std::vector<std::vector<std::pair<index_t, index_t>>>(2));
  for (index_t j = 0; j < 1000; ++j) {
    const index_t ia = dim.ts.at(j);
    want[static_cast<std::size_t>(dim.src.owner(ia))][static_cast<std::size_t>(dim.dst.owner(j))]
        .emplace_back(dim.src.local(ia), dim.dst.local(j));
  }
  for (int p = 0; p < 3; ++p) {
    const auto from = hpf::section_runs_from(dim, p);
    for (int q = 0; q < 2; ++q) {
      const auto& w = want[static_cast<std::size_t>(p)][static_cast<std::size_t>(q)];
      EXPECT_EQ(grid.at(p, q), static_cast<index_t>(w.size()));
      EXPECT_EQ(expand(from[static_cast<std::size_t>(q)]), w) << "p=" << p << " q=" << q;
    }
  }
}

TEST(SectionMap, StridedRunsAreOnePerBlockCrossing) {
  // B(49:0:-1) = A(0:98:2), A BLOCK on 2 (blocks of 50), B collapsed: each source process sends one run
  // of 25 elements, at local step 2 in A and -1 in B.
  const hpf::SectionDim dim{hpf::Block().map(100, 2), Triplet{0, 98, 2}, hpf::Collapsed().map(50, 1),
                            Triplet{49, 0, -1}};
  for (int p = 0; p < 2; ++p) {
    const auto from = hpf::section_runs_from(dim, p);
    const auto& r = from[0];
    ASSERT_EQ(r.period.size() + r.tail.size(), 1U) << "p=" << p;
    const hpf::SectionRun& run = r.period.empty() ? r.tail[0] : r.period[0];
    EXPECT_EQ(run.len * std::max<index_t>(1, r.reps), 25);
    EXPECT_EQ(run.src_step, 2);
    EXPECT_EQ(run.dst_step, -1);
    EXPECT_EQ(run.src_local, 0);
    EXPECT_EQ(run.dst_local, p == 0 ? 49 : 24);
  }
}

TEST(SectionMap, BadInput) {
  const CyclicMap m = hpf::Cyclic(2).map(10, 3);
  HPF_EXPECT_ERROR(hpf::local_sequence(m, Triplet{0, 5, 0}, 0), "stride must be != 0, got 0");
  HPF_EXPECT_ERROR(hpf::local_sequence(m, Triplet{0, 5, 1}, 3), "process must be in [0, 3), got 3");
  HPF_EXPECT_ERROR(hpf::detail::check_triplet(Triplet{0, 10, 1}, 10, "sa[0]"), "sa[0] = 0:10:1",
                   "last element 10", "[0, 10)");
  HPF_EXPECT_ERROR(hpf::detail::check_triplet(Triplet{-1, 5, 1}, 10, "sa[1]"), "sa[1]",
                   "lo must be in [0, 10)", "got -1");
  EXPECT_NO_THROW(hpf::detail::check_triplet(Triplet{0, 10, 3}, 10, "t"));  // elements 0, 3, 6, 9
  EXPECT_NO_THROW(hpf::detail::check_triplet(Triplet{12, 11, 1}, 10, "t")); // empty: any bounds
  HPF_EXPECT_ERROR(hpf::section_grid({m, Triplet{0, 9, 1}, m, Triplet{0, 9, 2}}), "selects 10 elements",
                   "selects 5 elements", "expected equal extents");
}

} // namespace
