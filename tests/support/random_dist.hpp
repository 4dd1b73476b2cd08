// Random GEN_BLOCK and INDIRECT distributions for the randomised tests (pure: no MPI). Each draws from
// the caller's generator, so a test's sequence of cases stays its own.
#pragma once

#include <hpf/layout/distribution.hpp>

#include <algorithm>
#include <random>
#include <vector>

namespace hpf::test {

/// A uniform integer in [lo, hi].
template <class Rng> int pick(Rng& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

/// GEN_BLOCK over P processes: the blocks between P - 1 cut points drawn uniformly from [0, n], so
/// zero-size blocks are likely.
template <class Rng> Distribution random_gen_block(index_t n, int P, Rng& rng) {
  std::vector<index_t> cuts{0, n};
  for (int p = 1; p < P; ++p) cuts.push_back(std::uniform_int_distribution<index_t>(0, n)(rng));
  std::sort(cuts.begin(), cuts.end());
  std::vector<index_t> sizes;
  for (std::size_t p = 0; p + 1 < cuts.size(); ++p) sizes.push_back(cuts[p + 1] - cuts[p]);
  return GenBlock(sizes);
}

/// INDIRECT over P processes: an owner drawn uniformly from [0, P) for every index.
template <class Rng> Distribution random_indirect(index_t n, int P, Rng& rng) {
  std::vector<int> owners(static_cast<std::size_t>(n));
  for (int& o : owners) o = std::uniform_int_distribution<int>(0, P - 1)(rng);
  return Indirect(owners);
}

/// Any distribution of n indices over P processes: CYCLIC(1..4), BLOCK, GEN_BLOCK, INDIRECT, or, with
/// allow_collapsed, `*`, each equally likely.
template <class Rng> Distribution random_distribution(index_t n, int P, Rng& rng, bool allow_collapsed) {
  switch (std::uniform_int_distribution<int>(0, allow_collapsed ? 4 : 3)(rng)) {
  case 0:
    return Cyclic(std::uniform_int_distribution<int>(1, 4)(rng));
  case 1:
    return Block();
  case 2:
    return random_gen_block(n, P, rng);
  case 3:
    return random_indirect(n, P, rng);
  default:
    return Collapsed();
  }
}

/// A distribution of extent n over P processes that REDISTRIBUTE plans in closed form or from its
/// breakpoints: BLOCK (1 in 5), GEN_BLOCK (1 in 5) or CYCLIC(1..5).
template <class Rng> Distribution random_regular_dist(index_t n, int P, Rng& rng) {
  switch (pick(rng, 0, 4)) {
  case 0:
    return Block();
  case 1:
    return random_gen_block(n, P, rng);
  default:
    return Cyclic(pick(rng, 1, 5));
  }
}

} // namespace hpf::test
