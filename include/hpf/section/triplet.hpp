// hpf::Triplet and hpf::Section<N>: Fortran subscript triplets lo:hi:stride, 0-based and inclusive.
//
// A triplet l:h:s (s != 0; s < 0 walks downwards) selects the elements  i_j = l + j s,  0 <= j < n,
// with  n = floor((h - l) / s) + 1  when that is positive and n = 0 otherwise (Fortran's rule, so
// 5:4:1 is an empty section). A triplet with lo == hi selects one element: HPF's scalar subscript
// A(k, :) is the triplet {k, k, 1}, a dimension of extent 1 that assign() pairs up like Fortran's
// rank reduction. Pure, no MPI.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/core/math.hpp>

#include <array>
#include <cstddef>
#include <string>

namespace hpf {

/// A Fortran subscript triplet lo:hi:stride, 0-based and inclusive (see the header comment).
struct Triplet {
  index_t lo = 0;     ///< first index
  index_t hi = -1;    ///< bound of the last index, inclusive
  index_t stride = 1; ///< != 0; negative walks downwards

  /// Number of elements selected (0 for an empty triplet; stride must be != 0).
  [[nodiscard]] constexpr index_t extent() const noexcept {
    if (stride > 0) return hi < lo ? 0 : (hi - lo) / stride + 1;
    if (stride < 0) return hi > lo ? 0 : (lo - hi) / (-stride) + 1;
    return 0;
  }
  /// Index of the j-th selected element.
  [[nodiscard]] constexpr index_t at(index_t j) const noexcept { return lo + j * stride; }
  /// The whole dimension of extent n: 0:n-1:1.
  [[nodiscard]] static constexpr Triplet all(index_t n) noexcept { return Triplet{0, n - 1, 1}; }
  /// One element (a scalar subscript): k:k:1.
  [[nodiscard]] static constexpr Triplet single(index_t k) noexcept { return Triplet{k, k, 1}; }

  /// "lo:hi:stride".
  [[nodiscard]] std::string to_string() const {
    return std::to_string(lo) + ":" + std::to_string(hi) + ":" + std::to_string(stride);
  }
  /// Triplets compare equal field by field.
  friend constexpr bool operator==(const Triplet&, const Triplet&) = default;
};

/// One triplet per dimension: `hpf::Section<2> s{{ {0, n - 1, 2}, {3, 3, 1} }};`.
template <int N> using Section = std::array<Triplet, static_cast<std::size_t>(N)>;

/// The whole array of extents `ext` as a section.
template <int N>
[[nodiscard]] Section<N> whole_section(const std::array<index_t, static_cast<std::size_t>(N)>& ext) {
  Section<N> s{};
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) s[d] = Triplet::all(ext[d]);
  return s;
}

/// Per-dimension extents of a section.
template <int N>
[[nodiscard]] std::array<index_t, static_cast<std::size_t>(N)> section_extents(const Section<N>& s) {
  std::array<index_t, static_cast<std::size_t>(N)> e{};
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) e[d] = s[d].extent();
  return e;
}

namespace detail {

/// Throws hpf::Error naming `what` (e.g. "assign: sa[1]") unless t is a valid triplet of a dimension
/// of extent n: stride != 0 and, when t selects anything, its first and last elements inside [0, n).
/// (An empty triplet may have any bounds, as in Fortran.)
inline void check_triplet(const Triplet& t, index_t n, const std::string& what) {
  if (t.stride == 0) fail(what, " = ", t.to_string(), ": stride must be != 0, got 0");
  const index_t cnt = t.extent();
  if (cnt == 0) return;
  const index_t last = t.at(cnt - 1);
  if (t.lo < 0 || t.lo >= n)
    fail(what, " = ", t.to_string(), ": lo must be in [0, ", n, ") (the extent is ", n, "), got ", t.lo);
  if (last < 0 || last >= n)
    fail(what, " = ", t.to_string(), ": its last element ", last, " (hi = ", t.hi, ") must be in [0, ", n,
         ") (the extent is ", n, ")");
}

} // namespace detail
} // namespace hpf
