// What the examples of examples/hpcc share: inputs every rank can regenerate from a global index
// (for HPCC's checks), and HPCC's near-square process grid.
#pragma once

#include <hpf/hpf.hpp>

#include <array>

/// A pseudo-random value in [-0.5, 0.5) from a 64-bit key (SplitMix64's finaliser).
inline double random_at(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<double>((x ^ (x >> 31)) >> 11) * 0x1.0p-53 - 0.5;
}

/// P x Q with P * Q = size, P <= Q and P as large as that allows (HPCC's choice of PTRANS grid).
inline std::array<int, 2> near_square(int size) {
  int p = 1;
  for (int f = 1; f * f <= size; ++f)
    if (size % f == 0) p = f;
  return {p, size / p};
}
