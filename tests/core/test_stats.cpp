// core/stats.hpp: median and median_ratio_interval, the paired percentile bootstrap that benchmarks
// give with a ratio of medians. Pure (no MPI): against the exact bootstrap distribution, enumerated.
#include <hpf/core/stats.hpp>

#include <gtest/gtest.h>

#include "test_scale.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

namespace {

/// Every resample of n rounds (n^n index tuples, each equally likely): the sorted ratios of medians.
std::vector<double> exact_bootstrap(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n = a.size();
  std::size_t total = 1;
  for (std::size_t i = 0; i < n; ++i) total *= n;
  std::vector<double> out;
  std::vector<double> ra(n);
  std::vector<double> rb(n);
  for (std::size_t code = 0; code < total; ++code) {
    std::size_t c = code;
    for (std::size_t i = 0; i < n; ++i, c /= n) {
      ra[i] = a[c % n];
      rb[i] = b[c % n];
    }
    out.push_back(hpf::median(ra) / hpf::median(rb));
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The exact distribution's q-quantile: the smallest ratio whose share of resamples at or below it is
/// at least q (q clamped to [0, 1]; every resample equally likely).
double quantile(const std::vector<double>& sorted, double q) {
  q = std::min(1.0, std::max(0.0, q));
  const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[k == 0 ? 0 : k - 1];
}

TEST(Stats, MedianIsTheUpperMiddle) {
  EXPECT_EQ(hpf::median({3.0}), 3.0);
  EXPECT_EQ(hpf::median({4.0, 1.0, 3.0}), 3.0);
  EXPECT_EQ(hpf::median({4.0, 1.0, 3.0, 2.0}), 3.0);
  EXPECT_THROW((void)hpf::median({}), hpf::Error);
}

// The Monte Carlo interval's ends lie where the exact bootstrap distribution puts them: within one
// percentage point of the 2.5th and 97.5th percentiles (20000 resamples: ~0.1 points of error).
TEST(Stats, MedianRatioIntervalMatchesTheExactBootstrap) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.5, 3.0);
  for (int c = 0; c < hpf::test::cases(300); ++c) {
    const std::size_t n = 2 + static_cast<std::size_t>(c % 4); // 2..5 rounds: up to 3125 resamples
    std::vector<double> a(n);
    std::vector<double> b(n);
    for (std::size_t i = 0; i < n; ++i) {
      b[i] = u(rng);
      a[i] = c % 3 == 0 ? b[i] * 1.5 : u(rng); // paired and shifted, or unrelated
    }
    const auto [lo, hi] = hpf::median_ratio_interval(a, b, 0.95, 20000, static_cast<std::uint64_t>(c));
    const std::vector<double> exact = exact_bootstrap(a, b);
    EXPECT_LE(lo, hi) << "case " << c;
    EXPECT_GE(lo, quantile(exact, 0.025 - 0.01)) << "case " << c;
    EXPECT_LE(lo, quantile(exact, 0.025 + 0.01)) << "case " << c;
    EXPECT_GE(hi, quantile(exact, 0.975 - 0.01)) << "case " << c;
    EXPECT_LE(hi, quantile(exact, 0.975 + 0.01)) << "case " << c;
    if (c % 3 == 0) { // a = 1.5 b round by round: every resample gives 1.5
      EXPECT_NEAR(lo, 1.5, 1e-12) << "case " << c;
      EXPECT_NEAR(hi, 1.5, 1e-12) << "case " << c;
    }
  }
}

TEST(Stats, MedianRatioIntervalSeparatesADifferenceFromNoise) {
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> noise(0.0, 0.2);
  std::vector<double> base(99);
  std::vector<double> slower(99);
  std::vector<double> same(99);
  for (std::size_t i = 0; i < base.size(); ++i) {
    base[i] = 1e-6 * noise(rng);
    slower[i] = 1.3e-6 * noise(rng);
    same[i] = 1e-6 * noise(rng);
  }
  const auto [lo, hi] = hpf::median_ratio_interval(slower, base);
  EXPECT_GT(lo, 1.0);
  EXPECT_LT(lo, 1.3);
  EXPECT_GT(hi, 1.3);
  const auto [lo2, hi2] = hpf::median_ratio_interval(same, base);
  EXPECT_LT(lo2, 1.0);
  EXPECT_GT(hi2, 1.0);
  // Deterministic for a seed.
  EXPECT_EQ(hpf::median_ratio_interval(same, base, 0.9, 500, 3),
            hpf::median_ratio_interval(same, base, 0.9, 500, 3));
}

TEST(Stats, MedianRatioIntervalRefusesBadInput) {
  const std::vector<double> two{1.0, 2.0};
  const std::vector<double> three{1.0, 2.0, 3.0};
  EXPECT_THROW((void)hpf::median_ratio_interval({}, {}), hpf::Error);
  EXPECT_THROW((void)hpf::median_ratio_interval(two, three), hpf::Error);
  EXPECT_THROW((void)hpf::median_ratio_interval(two, two, 0.0), hpf::Error);
  EXPECT_THROW((void)hpf::median_ratio_interval(two, two, 1.0), hpf::Error);
  EXPECT_THROW((void)hpf::median_ratio_interval(two, two, 0.95, 1), hpf::Error);
  EXPECT_THROW((void)hpf::median_ratio_interval({1.0, 0.0}, two), hpf::Error);
  EXPECT_THROW((void)hpf::median_ratio_interval({1.0, std::numeric_limits<double>::quiet_NaN()}, two),
               hpf::Error);
  try {
    (void)hpf::median_ratio_interval(two, three);
  } catch (const hpf::Error& e) {
    EXPECT_NE(std::string(e.what()).find("got 2 and 3"), std::string::npos) << e.what();
  }
}

} // namespace
