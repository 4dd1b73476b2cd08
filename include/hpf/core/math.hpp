// Integer arithmetic used by the index maps and the block-cyclic pattern.
#pragma once

#include <cstdint>
#include <numeric>

namespace hpf {

using index_t = std::int64_t; ///< global and local element indices, extents, message lengths

namespace detail {

/// floor(a / b) for b > 0 and any sign of a.
constexpr index_t floor_div(index_t a, index_t b) noexcept {
  const index_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

/// a mod b in [0, b) for b > 0 and any sign of a.
constexpr index_t pos_mod(index_t a, index_t b) noexcept {
  const index_t m = a % b;
  return m < 0 ? m + b : m;
}

/// ceil(a / b) for a >= 0, b > 0.
constexpr index_t ceil_div(index_t a, index_t b) noexcept { return (a + b - 1) / b; }

constexpr index_t clamp_index(index_t v, index_t lo, index_t hi) noexcept {
  return v < lo ? lo : (v > hi ? hi : v);
}

} // namespace detail
} // namespace hpf
