// hpf::AdaptiveBroadcast on 1..4 and 7 ranks: every algorithm of Table 1 of Steffenel and every two-level
// schedule delivers root's exact bytes to every rank, from every root, for empty messages and sizes
// that the segment size does not divide; pLogP measurement agrees on every rank; bad input throws. The
// calibration decides from agreed timings, the same on every rank, and delivers.
#include "hpf_test.hpp"

#include <hpf/adaptive/broadcast.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace {

using hpf::AdaptiveBroadcast;
using hpf::BcastAlgorithm;
using hpf::test::world_rank;
using hpf::test::world_size;

std::byte pattern(std::size_t i, int root, int salt) {
  return static_cast<std::byte>(
      (i * 131 + static_cast<std::size_t>(root) * 7 + static_cast<std::size_t>(salt)) % 251);
}

/// Fills the buffer (root: the pattern, others: garbage), broadcasts, checks every byte.
void check_bcast(const AdaptiveBroadcast& b, std::size_t m, int root, int salt, const std::string& what) {
  std::vector<std::byte> buf(m, std::byte{0xEE});
  if (world_rank() == root)
    for (std::size_t i = 0; i < m; ++i) buf[i] = pattern(i, root, salt);
  b.execute(std::span<std::byte>(buf), root);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < m; ++i) bad += buf[i] != pattern(i, root, salt);
  EXPECT_EQ(bad, 0U) << what << " m " << m << " root " << root;
}

TEST(AdaptiveBroadcast, EveryAlgorithmFromEveryRoot) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  int salt = 0;
  for (BcastAlgorithm a : hpf::all_bcast_algorithms())
    for (std::size_t segment : {std::size_t(3), std::size_t(1000)}) {
      const AdaptiveBroadcast b(comm, a, segment);
      EXPECT_EQ(b.algorithm(), a);
      for (int root = 0; root < world_size(); ++root)
        for (std::size_t m :
             {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(1001), std::size_t(65537)}) {
          if (segment == 3 && m > 1001) continue; // 21846 segments: slow and adds nothing
          check_bcast(b, m, root, ++salt, hpf::to_string(a) + " segment " + std::to_string(segment));
        }
    }
}

TEST(AdaptiveBroadcast, VectorsAndPlansFromAModel) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const hpf::PLogP lan = hpf::PLogP::linear(50e-6, 20e-6, 1e-8);
  for (std::size_t m : {std::size_t(10), std::size_t(1) << 18}) {
    const AdaptiveBroadcast b = AdaptiveBroadcast::plan(comm, m * sizeof(double), lan);
    EXPECT_EQ(b.algorithm(), hpf::choose_bcast(world_size(), m * sizeof(double), lan).chosen().algorithm);
    for (int root = 0; root < world_size(); ++root) {
      std::vector<double> v(m, -1.0);
      if (world_rank() == root)
        for (std::size_t i = 0; i < m; ++i) v[i] = 0.5 * static_cast<double>(i) + root;
      b.execute(v, root);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < m; ++i) bad += v[i] != 0.5 * static_cast<double>(i) + root;
      EXPECT_EQ(bad, 0U) << "m " << m << " root " << root;
    }
  }
}

TEST(AdaptiveBroadcast, TwoLevelPlansWithEveryHeuristic) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const int P = world_size();
  const hpf::PLogP lan = hpf::PLogP::linear(50e-6, 20e-6, 1e-8);
  const hpf::PLogP wan = hpf::PLogP::linear(10e-3, 1e-3, 1e-7);
  // Clusters of interleaved ranks (even / odd), and one cluster per rank.
  std::vector<hpf::ClusterMap> maps;
  {
    hpf::ClusterMap m;
    for (int c = 0; c < std::min(P, 2); ++c) {
      hpf::ClusterSpec s{{}, lan};
      for (int r = c; r < P; r += 2) s.ranks.push_back(r);
      m.clusters.push_back(s);
    }
    m.inter.assign(m.clusters.size() * m.clusters.size(), wan);
    maps.push_back(m);
    maps.push_back(hpf::ClusterMap::uniform(std::vector<int>(static_cast<std::size_t>(P), 1), lan, wan));
  }
  int salt = 0;
  for (const auto& map : maps)
    for (hpf::InterHeuristic h : hpf::all_inter_heuristics())
      for (int root = 0; root < P; ++root)
        for (std::size_t m : {std::size_t(0), std::size_t(5), std::size_t(40000)}) {
          const std::array<hpf::InterHeuristic, 1> only{h};
          const AdaptiveBroadcast b(comm, hpf::plan_hierarchical(map, root, m, only));
          EXPECT_TRUE(b.hierarchical());
          check_bcast(b, m, root, ++salt, "two-level " + hpf::to_string(h));
        }
}

TEST(AdaptiveBroadcast, MeasuredModelIsTheSameOnEveryRankAndCached) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const hpf::PLogP p = hpf::measure_plogp(comm);
  double L[2] = {p.L(), -p.L()}, g[2] = {p.g(1 << 20), -p.g(1 << 20)};
  MPI_Allreduce(MPI_IN_PLACE, L, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, g, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(L[0], -L[1]);
  EXPECT_EQ(g[0], -g[1]);
  EXPECT_EQ(p.samples().size(), 4U);
  if (world_size() > 1) {
    EXPECT_GT(p.g(1 << 20), 0.0);
  }
  EXPECT_EQ(hpf::measure_plogp(comm), p); // cached: no communication, same values
  const AdaptiveBroadcast b = AdaptiveBroadcast::measured(comm, 4096);
  for (int root = 0; root < world_size(); ++root) check_bcast(b, 4096, root, root, "measured");
}

TEST(AdaptiveBroadcast, BadInputThrows) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const int P = world_size();
  const AdaptiveBroadcast b(comm, BcastAlgorithm::binomial, 64);
  std::vector<std::byte> buf(8);
  HPF_EXPECT_ERROR(b.execute(std::span<std::byte>(buf), P), "root", "[0, " + std::to_string(P) + ")",
                   "got " + std::to_string(P));
  HPF_EXPECT_ERROR(b.execute(std::span<std::byte>(buf), -1), "root", "got -1");
  HPF_EXPECT_ERROR(AdaptiveBroadcast(comm, BcastAlgorithm::segmented_chain, 0), "segment", ">= 1", "got 0");
  HPF_EXPECT_ERROR(AdaptiveBroadcast(comm, static_cast<BcastAlgorithm>(99), 1), "algorithm", "Table 1",
                   "got value 99");
  HPF_EXPECT_ERROR(hpf::parse_bcast_algorithm("ring"), "algorithm", "'ring'", "expected one of");
  const hpf::PLogP lan = hpf::PLogP::linear(1, 1, 0);
  const auto plan = hpf::plan_hierarchical(hpf::ClusterMap::uniform(std::vector<int>{P}, lan, lan), 0, 8);
  const AdaptiveBroadcast h(comm, plan);
  if (P > 1) HPF_EXPECT_ERROR(h.execute(std::span<std::byte>(buf), 1), "plan's root 0", "got 1");
  const auto other =
      hpf::plan_hierarchical(hpf::ClusterMap::uniform(std::vector<int>{P + 1}, lan, lan), 0, 8);
  HPF_EXPECT_ERROR(AdaptiveBroadcast(comm, other), "P = " + std::to_string(P + 1));
}

} // namespace

namespace {

// The pure decision of a calibration against brute force (sorted medians; the plan is
// kept on a tie), on thousands of random timing sets, including ties and one round.
TEST(AdaptiveBroadcast, CalibrationDecisionAgainstBruteForce) {
  std::uint64_t x = 88172645463325252ULL;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  auto brute_median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  int vendor_wins = 0, plan_wins = 0;
  for (int c = 0; c < 5000; ++c) {
    const std::size_t n = 1 + next() % 9;
    std::vector<double> plan(n), vendor(n);
    // Few distinct values, so that equal medians (ties) happen often.
    for (auto& t : plan) t = static_cast<double>(1 + next() % 6) * 1e-6;
    for (auto& t : vendor) t = static_cast<double>(1 + next() % 6) * 1e-6;
    const double margin = std::array<double, 3>{0.0, 0.05, 0.4}[static_cast<std::size_t>(c % 3)];
    const hpf::BcastDecision d = hpf::detail::decide_bcast(plan, vendor, margin);
    ASSERT_TRUE(d.measured);
    ASSERT_EQ(d.plan_seconds, brute_median(plan)) << "case " << c;
    ASSERT_EQ(d.vendor_seconds, brute_median(vendor)) << "case " << c;
    // The plan is kept only when clearly faster; ties and near-ties go to MPI_Bcast.
    ASSERT_EQ(d.vendor, !(brute_median(plan) < (1 - margin) * brute_median(vendor))) << "case " << c;
    (d.vendor ? vendor_wins : plan_wins) += 1;
  }
  EXPECT_GT(vendor_wins, 0);
  EXPECT_GT(plan_wins, 0);
  HPF_EXPECT_ERROR(hpf::detail::decide_bcast({}, {}, 0), "same number", "got 0 and 0");
  const std::vector<double> two{1, 2}, three{1, 2, 3};
  HPF_EXPECT_ERROR(hpf::detail::decide_bcast(two, three, 0), "got 2 and 3");
  HPF_EXPECT_ERROR(hpf::detail::decide_bcast(two, two, 1.0), "margin must be in [0, 1)", "got 1");
  HPF_EXPECT_ERROR(hpf::detail::decide_bcast(two, two, -0.1), "margin must be in [0, 1)", "got -0.1");
}

// A calibrated broadcast measures the plan against MPI_Bcast on its first call for a
// (root, bytes), decides the same on every rank, and delivers the root's bytes on that call and after.
TEST(AdaptiveBroadcast, CalibratedChoiceIsAgreedAndDelivers) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const int P = world_size();
  const hpf::PLogP lan = hpf::PLogP::linear(50e-6, 20e-6, 1e-8);
  const AdaptiveBroadcast b = AdaptiveBroadcast::plan(comm, 4096, lan, hpf::BcastCalibration{true, 3});
  EXPECT_TRUE(b.calibration().enabled);
  int salt = 500;
  for (int root = 0; root < P; ++root)
    for (std::size_t m : {std::size_t(0), std::size_t(1), std::size_t(1001), std::size_t(65537)}) {
      EXPECT_FALSE(b.decision(m, root).has_value());
      check_bcast(b, m, root, ++salt, "calibrated, first call");
      const std::optional<hpf::BcastDecision> d = b.decision(m, root);
      ASSERT_TRUE(d.has_value());
      EXPECT_EQ(d->measured, P > 1 && m > 0) << "m " << m;
      // The same decision and the same numbers on every rank.
      double v[3] = {d->vendor ? 1.0 : 0.0, d->plan_seconds, d->vendor_seconds};
      double lo[3], hi[3];
      MPI_Allreduce(v, lo, 3, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
      MPI_Allreduce(v, hi, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      for (int i = 0; i < 3; ++i)
        EXPECT_EQ(lo[i], hi[i]) << "value " << i << ", m " << m << ", root " << root;
      if (d->measured) {
        EXPECT_GT(d->plan_seconds, 0);
        EXPECT_GT(d->vendor_seconds, 0);
        EXPECT_EQ(d->vendor, !(d->plan_seconds < (1 - b.calibration().margin) * d->vendor_seconds));
      }
      check_bcast(b, m, root, ++salt, "calibrated, decided");
    }
  // The vendor candidate alone, and a calibrated two-level plan.
  const AdaptiveBroadcast v = AdaptiveBroadcast::vendor(comm);
  EXPECT_TRUE(v.vendor_only());
  for (int root = 0; root < P; ++root) check_bcast(v, 70001, root, root, "MPI_Bcast");
  EXPECT_TRUE(v.decision(8, 0)->vendor);
  const auto plan = hpf::plan_hierarchical(hpf::ClusterMap::uniform(std::vector<int>{P}, lan, lan), 0, 5000);
  const AdaptiveBroadcast h = AdaptiveBroadcast(comm, plan).with_calibration({true, 2});
  check_bcast(h, 5000, 0, 3, "calibrated two-level");
  check_bcast(h, 5000, 0, 4, "calibrated two-level, decided");
  HPF_EXPECT_ERROR(b.with_calibration({true, 0}), "calibration.rounds", "[1, 64]", "got 0");
  HPF_EXPECT_ERROR(b.with_calibration({true, 65}), "got 65");
  HPF_EXPECT_ERROR(b.with_calibration({true, 5, 1.0}), "calibration.margin", "[0, 1)", "got 1");
}

// Section 4.1 of Steffenel on this machine: the discovered map partitions the ranks, is the same on
// every rank, and its two-level plan delivers from every root.
TEST(AdaptiveBroadcast, DiscoveredClustersAreConsistentAndUsable) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const int P = world_size();
  const hpf::ClusterMap map = hpf::discover_clusters(comm, 0.3);
  EXPECT_EQ(map.validate(), P);
  // Same map everywhere: each rank's cluster index, and the inter latencies, agree under min and max.
  const int C = static_cast<int>(map.clusters.size());
  std::vector<double> sig;
  for (int c = 0; c < C; ++c)
    for (int r : map.clusters[static_cast<std::size_t>(c)].ranks) sig.push_back(c * 1000.0 + r);
  for (const auto& m : map.inter) sig.push_back(m.L());
  for (const auto& c : map.clusters) sig.push_back(c.intra.g(1 << 20));
  int n = static_cast<int>(sig.size()), nmin = n;
  MPI_Allreduce(MPI_IN_PLACE, &nmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  ASSERT_EQ(n, nmin);
  std::vector<double> lo = sig, hi = sig;
  MPI_Allreduce(MPI_IN_PLACE, lo.data(), n, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, hi.data(), n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, sig);
  EXPECT_EQ(hi, sig);
  for (int root = 0; root < P; ++root) {
    const AdaptiveBroadcast b(comm, hpf::plan_hierarchical(map, root, 30000));
    check_bcast(b, 30000, root, 7 * root, "discovered clusters");
  }
  HPF_EXPECT_ERROR(hpf::discover_clusters(comm, -1.0), "rho", "got -1");
}

} // namespace
