// The one median of hpfrt: measurements (the machine model, cost measurements) and benchmarks use it,
// and the interval benchmarks give a ratio of two medians (median_ratio_interval).
#pragma once

#include <hpf/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace hpf {

/// Median of `samples` (the upper median for an even count). Throws hpf::Error if there are none.
[[nodiscard]] inline double median(std::vector<double> samples) {
  detail::require(!samples.empty(), "median: no samples");
  const auto mid = samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2);
  std::nth_element(samples.begin(), mid, samples.end());
  return *mid;
}

/// A percentile-bootstrap interval of median(a) / median(b) for paired samples: a[i] and b[i] were
/// taken in the same round (a benchmark's methods run in turn), so rounds are resampled whole and a
/// drift of the machine's load moves both sides alike. `level` in (0, 1) (0.95: the 2.5th and 97.5th
/// percentiles of `resamples` resampled ratios); deterministic for a `seed`. Throws hpf::Error for
/// empty or unequal sample sets, a level outside (0, 1), fewer than 2 resamples, or a sample <= 0.
[[nodiscard]] inline std::pair<double, double>
median_ratio_interval(const std::vector<double>& a, const std::vector<double>& b, double level = 0.95,
                      int resamples = 2000, std::uint64_t seed = 1) {
  if (a.empty() || a.size() != b.size())
    detail::fail("median_ratio_interval: expected two non-empty sample sets of one size (paired), got ",
                 a.size(), " and ", b.size());
  if (!(level > 0 && level < 1)) detail::fail("median_ratio_interval: level must be in (0, 1), got ", level);
  if (resamples < 2) detail::fail("median_ratio_interval: resamples must be >= 2, got ", resamples);
  for (const std::vector<double>* v : {&a, &b})
    for (const double x : *v)
      if (!(x > 0)) detail::fail("median_ratio_interval: samples must be > 0, got ", x);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, a.size() - 1);
  std::vector<double> ratios(static_cast<std::size_t>(resamples));
  std::vector<double> ra(a.size());
  std::vector<double> rb(b.size());
  for (double& ratio : ratios) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::size_t k = pick(rng);
      ra[i] = a[k];
      rb[i] = b[k];
    }
    ratio = median(ra) / median(rb);
  }
  std::sort(ratios.begin(), ratios.end());
  const auto at = [&](double q) {
    const auto i = static_cast<std::size_t>(std::lround(q * static_cast<double>(ratios.size() - 1)));
    return ratios[std::min(i, ratios.size() - 1)];
  };
  return {at((1 - level) / 2), at((1 + level) / 2)};
}

} // namespace hpf
