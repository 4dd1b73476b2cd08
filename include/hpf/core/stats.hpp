// The one median of hpfrt: measurements (the machine model, cost measurements) and benchmarks use it.
#pragma once

#include <hpf/core/error.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace hpf {

/// Median of `samples` (the upper median for an even count). Throws hpf::Error if there are none.
[[nodiscard]] inline double median(std::vector<double> samples) {
  detail::require(!samples.empty(), "median: no samples");
  const auto mid = samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2);
  std::nth_element(samples.begin(), mid, samples.end());
  return *mid;
}

} // namespace hpf
