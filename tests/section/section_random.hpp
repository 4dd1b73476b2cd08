// Random numbers and random triplets shared by the section tests. Every rank that uses the same seed
// draws the same numbers (MPI tests build the same layouts everywhere).
#pragma once

#include <hpf/section/triplet.hpp>

#include <algorithm>
#include <random>

namespace hpf::test {

struct Rng {
  std::mt19937_64 gen;
  explicit Rng(unsigned long long seed) : gen(seed) {}
  hpf::index_t between(hpf::index_t lo, hpf::index_t hi) {
    return std::uniform_int_distribution<hpf::index_t>(lo, hi)(gen);
  }
};

/// A random valid triplet of a dimension of extent n selecting `cnt` elements (cnt <= n); hi may lie
/// beyond the last element (Fortran allows it when no element is outside).
inline hpf::Triplet random_triplet(Rng& rng, hpf::index_t n, hpf::index_t cnt) {
  if (cnt == 0) {
    const hpf::index_t lo = rng.between(-3, n + 3);
    const hpf::index_t s = rng.between(0, 1) ? rng.between(1, 4) : -rng.between(1, 4);
    return hpf::Triplet{lo, s > 0 ? lo - rng.between(1, 3) : lo + rng.between(1, 3), s};
  }
  // A stride that fits cnt elements: |s| (cnt - 1) <= n - 1.
  const hpf::index_t smax = cnt == 1 ? 9 : std::max<hpf::index_t>(1, (n - 1) / (cnt - 1));
  const hpf::index_t a = rng.between(1, std::min<hpf::index_t>(smax, 9));
  const bool down = rng.between(0, 1) == 1;
  const hpf::index_t span = a * (cnt - 1);
  const hpf::index_t start = rng.between(0, n - 1 - span); // smallest element
  hpf::Triplet t;
  t.stride = down ? -a : a;
  t.lo = down ? start + span : start;
  const hpf::index_t last = down ? start : start + span;
  const hpf::index_t slack = rng.between(0, a - 1);
  t.hi = down ? last - slack : last + slack;
  return t;
}

} // namespace hpf::test
