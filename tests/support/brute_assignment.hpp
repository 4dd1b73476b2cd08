// The linear assignment problem by exhaustive search, the reference of the exact solver's tests
// (schedule/assignment.hpp) and of process relabeling's (redist/relabel.hpp). Pure; n! permutations.
#pragma once

#include <hpf/core/math.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

namespace hpf::test {

/// The largest sum_j w[row_of[j] * n + j] over every permutation row_of of 0..n-1 (0 for n = 0).
inline index_t brute_best_assignment(int n, const std::vector<index_t>& w) {
  std::vector<int> row(static_cast<std::size_t>(n));
  std::iota(row.begin(), row.end(), 0);
  index_t best = 0;
  do {
    index_t sum = 0;
    for (int j = 0; j < n; ++j)
      sum += w[static_cast<std::size_t>(row[static_cast<std::size_t>(j)]) * static_cast<std::size_t>(n) +
               static_cast<std::size_t>(j)];
    best = std::max(best, sum);
  } while (std::next_permutation(row.begin(), row.end()));
  return best;
}

} // namespace hpf::test
