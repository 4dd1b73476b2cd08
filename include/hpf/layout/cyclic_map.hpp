// CyclicMap: the index map of one dimension distributed CYCLIC(r) over P processes.
//
// Element i of a dimension of extent n lives on process  owner(i) = floor(i / r) mod P, in cycle
// (block row) l = floor(i / (P r)) at offset x = i mod r, so its local index is  l r + x  (seed 004,
// section 2). BLOCK is CYCLIC(ceil(n / P)); a collapsed (`*`) dimension is CYCLIC(n) over one process.
// Extents need not be multiples of P r; a process may own nothing (n < P r).
#pragma once

#include <hpf/core/math.hpp>

#include <optional>

namespace hpf {

struct CyclicMap {
  index_t n = 0; ///< extent of the dimension
  int P = 1;     ///< number of processes along it
  index_t r = 1; ///< block size

  /// Process that owns global index i.
  [[nodiscard]] constexpr int owner(index_t i) const noexcept { return static_cast<int>((i / r) % P); }
  /// Local index of global index i on its owner.
  [[nodiscard]] constexpr index_t local(index_t i) const noexcept {
    const auto c = cycle();
    return c ? (i / *c) * r + i % r : i % r;
  }
  /// Global index of local index l on process p.
  [[nodiscard]] constexpr index_t global(int p, index_t l) const noexcept {
    return (l / r) * P * r + static_cast<index_t>(p) * r + l % r;
  }
  /// Number of elements process p owns.
  [[nodiscard]] constexpr index_t local_extent(int p) const noexcept {
    const auto c = cycle();
    const index_t full = c ? n / *c : 0;         // complete cycles
    const index_t tail = c ? n % *c : n;         // elements of the last, partial cycle
    const auto start = detail::mul_nonneg(p, r); // p's first offset in a cycle; past the tail on overflow
    return full * r + (start ? detail::clamp_index(tail - *start, 0, r) : 0);
  }
  /// P r, the length of one cycle, or nullopt when it exceeds INT64_MAX (then every index of the
  /// dimension is in the first cycle: issue 15, CYCLIC(2^62) on 3 processes).
  [[nodiscard]] constexpr std::optional<index_t> cycle() const noexcept { return detail::mul_nonneg(P, r); }
  friend constexpr bool operator==(const CyclicMap&, const CyclicMap&) = default;
};

} // namespace hpf
