// Integer arithmetic used by the index maps and the block-cyclic pattern.
//
// Overflow: the noexcept helpers below never overflow for the arguments they
// document (ceil_div no longer computes a + b - 1); mul_nonneg reports an overflow as nullopt, and
// checked_add / checked_mul / checked_narrow throw hpf::Error naming what was computed.
#pragma once

#include <hpf/core/error.hpp>

#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>

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

/// ceil(a / b) for a >= 0, b > 0; exact up to a = INT64_MAX (no a + b - 1 to overflow).
constexpr index_t ceil_div(index_t a, index_t b) noexcept { return a / b + (a % b != 0 ? 1 : 0); }

/// a * b for a, b >= 0, or nullopt when the product exceeds INT64_MAX.
constexpr std::optional<index_t> mul_nonneg(index_t a, index_t b) noexcept {
  if (a != 0 && b > std::numeric_limits<index_t>::max() / a) return std::nullopt;
  return a * b;
}

/// a + b, or hpf::Error naming `what` when it leaves the range of index_t.
template <class... What> index_t checked_add(index_t a, index_t b, const What&... what) {
  index_t out = 0;
  if (__builtin_add_overflow(a, b, &out))
    fail(what..., ": ", a, " + ", b, " overflows 64-bit integers (largest ",
         std::numeric_limits<index_t>::max(), ")");
  return out;
}

/// a * b, or hpf::Error naming `what` when it leaves the range of index_t.
template <class... What> index_t checked_mul(index_t a, index_t b, const What&... what) {
  index_t out = 0;
  if (__builtin_mul_overflow(a, b, &out))
    fail(what..., ": ", a, " * ", b, " overflows 64-bit integers (largest ",
         std::numeric_limits<index_t>::max(), ")");
  return out;
}

/// v as To, or hpf::Error naming `what` when it does not fit.
template <class To, class From, class... What> To checked_narrow(From v, const What&... what) {
  To out{};
  if (__builtin_add_overflow(v, From{0}, &out))
    fail(what..., ": ", v, " does not fit in [", +std::numeric_limits<To>::min(), ", ",
         +std::numeric_limits<To>::max(), "]");
  return out;
}

constexpr index_t clamp_index(index_t v, index_t lo, index_t hi) noexcept {
  return v < lo ? lo : (v > hi ? hi : v);
}

} // namespace detail
} // namespace hpf
