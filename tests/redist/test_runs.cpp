// Message runs against element-by-element enumeration: for every (p, q) the runs cover exactly the
// elements owned by p in the source and q in the target, in global order, with correct local indices,
// and the sender's and receiver's views of a message are identical.
#include <hpf/redist/runs.hpp>

#include <gtest/gtest.h>

#include <numeric>
#include <random>

namespace {

using hpf::CyclicMap;
using hpf::index_t;
using RunT = hpf::Run;

TEST(RedistRuns, MatchBruteForceAndAgreeBetweenSides) {
  std::mt19937_64 rng(4);
  for (int t = 0; t < 3000; ++t) {
    const int P = 1 + static_cast<int>(rng() % 9);
    const int Q = 1 + static_cast<int>(rng() % 9);
    const index_t r = 1 + static_cast<index_t>(rng() % 8);
    const index_t s = 1 + static_cast<index_t>(rng() % 8);
    const index_t n = static_cast<index_t>(
        rng() % static_cast<std::uint64_t>(3 * P * r * Q * s / std::max<index_t>(1, std::min(r, s)) + 3));
    const CyclicMap S{n, P, r};
    const CyclicMap T{n, Q, s};
    std::vector<std::vector<std::vector<RunT>>> to(static_cast<std::size_t>(Q));
    for (int q = 0; q < Q; ++q) to[static_cast<std::size_t>(q)] = hpf::runs_to(S, T, q);
    index_t covered = 0;
    for (int p = 0; p < P; ++p) {
      const auto from = hpf::runs_from(S, T, p);
      for (int q = 0; q < Q; ++q) {
        std::vector<index_t> want;
        for (index_t i = 0; i < n; ++i)
          if (S.owner(i) == p && T.owner(i) == q) want.push_back(i);
        std::vector<index_t> got;
        for (const RunT& run : from[static_cast<std::size_t>(q)]) {
          ASSERT_GT(run.len, 0);
          for (index_t k = 0; k < run.len; ++k) {
            const index_t g = S.global(p, run.src_local + k);
            ASSERT_EQ(T.global(q, run.dst_local + k), g);
            got.push_back(g);
          }
        }
        ASSERT_EQ(got, want) << "P=" << P << " Q=" << Q << " r=" << r << " s=" << s << " n=" << n;
        ASSERT_EQ(from[static_cast<std::size_t>(q)],
                  to[static_cast<std::size_t>(q)][static_cast<std::size_t>(p)]);
        covered += static_cast<index_t>(got.size());
      }
    }
    ASSERT_EQ(covered, n);
  }
}

// One stored slice, repeated, gives exactly the runs of the whole extent (seed 004: the pattern repeats
// every L = lcm(P r, Q s) elements), including extents below, at and far above L and n = 0.
TEST(RedistRuns, PeriodicRunsExpandToTheFullRunList) {
  std::mt19937_64 rng(7);
  for (int t = 0; t < 3000; ++t) {
    const int P = 1 + static_cast<int>(rng() % 9);
    const int Q = 1 + static_cast<int>(rng() % 9);
    const index_t r = 1 + static_cast<index_t>(rng() % 8);
    const index_t s = 1 + static_cast<index_t>(rng() % 8);
    const index_t L = std::lcm(P * r, Q * s);
    const index_t n = static_cast<index_t>(rng() % static_cast<std::uint64_t>(4 * L + 2));
    const CyclicMap S{n, P, r};
    const CyclicMap T{n, Q, s};
    for (int p = 0; p < P; ++p) {
      const auto full = hpf::runs_from(S, T, p);
      const auto per = hpf::periodic_runs_from(S, T, p);
      ASSERT_EQ(per.size(), full.size());
      for (std::size_t q = 0; q < full.size(); ++q) {
        std::vector<RunT> got;
        per[q].for_each([&](index_t so, index_t dof, index_t len) { got.push_back({so, dof, len}); });
        ASSERT_EQ(got, full[q]) << "P=" << P << " Q=" << Q << " r=" << r << " s=" << s << " n=" << n;
        index_t total = 0;
        for (const RunT& run : full[q]) total += run.len;
        ASSERT_EQ(per[q].elements, total);
      }
    }
    for (int q = 0; q < Q; ++q) {
      const auto full = hpf::runs_to(S, T, q);
      const auto per = hpf::periodic_runs_to(S, T, q);
      for (std::size_t p = 0; p < full.size(); ++p) {
        std::vector<RunT> got;
        per[p].for_each([&](index_t so, index_t dof, index_t len) { got.push_back({so, dof, len}); });
        ASSERT_EQ(got, full[p]);
      }
    }
  }
}

} // namespace
