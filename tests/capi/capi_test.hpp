// Shared by the C ABI tests: success assertions that print the ABI's message, and guards that free
// grids and arrays at scope exit.
#pragma once

#include "hpf_test.hpp"

#include <hpfrt.h>

#include <array>
#include <cstdint>
#include <random>

namespace hpf::test {

/// Asserts success, printing the ABI's message otherwise.
#define HPF_C_OK(call) ASSERT_EQ((call), HPF_OK) << #call << ": " << hpf_last_error()

struct GridGuard {
  hpf_grid g = nullptr;
  GridGuard() = default;
  GridGuard(const GridGuard&) = delete;
  GridGuard& operator=(const GridGuard&) = delete;
  ~GridGuard() { hpf_grid_free(&g); }
};
struct ArrayGuard {
  hpf_array a = nullptr;
  ArrayGuard() = default;
  ArrayGuard(const ArrayGuard&) = delete;
  ArrayGuard& operator=(const ArrayGuard&) = delete;
  ~ArrayGuard() { hpf_array_free(&a); }
};

/// The shape {P / b, b} of a 2-D grid of P ranks, b the largest divisor of P with b * b <= P.
inline std::array<int, 2> grid_2d_shape(int P) {
  int b = 1;
  for (int f = 1; f * f <= P; ++f)
    if (P % f == 0) b = f;
  return {P / b, b};
}

/// A uniform integer in [lo, hi] from one stream that every rank draws in the same order: the tests'
/// random choices are arguments of collective calls, so they must agree.
inline std::int64_t pick(std::int64_t lo, std::int64_t hi) {
  static std::mt19937_64 stream(20261125);
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(stream);
}

} // namespace hpf::test
