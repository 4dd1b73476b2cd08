// Per-dimension distributions: hpf::Block(), hpf::Cyclic(r), hpf::Collapsed() (HPF's `*`).
#pragma once

#include <hpf/core/math.hpp>
#include <hpf/layout/cyclic_map.hpp>

#include <string>

namespace hpf {

class Distribution {
public:
  enum class Kind { Block, Cyclic, Collapsed };

  /// Default: BLOCK.
  constexpr Distribution() = default;

  [[nodiscard]] constexpr Kind kind() const noexcept { return m_kind; }
  /// Block size of CYCLIC(r); 0 for Block and Collapsed (resolved against an extent by map()).
  [[nodiscard]] constexpr index_t block() const noexcept { return m_block; }
  [[nodiscard]] constexpr bool is_collapsed() const noexcept { return m_kind == Kind::Collapsed; }

  /// The 1-D map of a dimension of extent n over P processes (P is 1 for a collapsed dimension).
  [[nodiscard]] CyclicMap map(index_t n, int P) const noexcept;
  /// "BLOCK", "CYCLIC(3)", "*".
  [[nodiscard]] std::string to_string() const;

  friend constexpr bool operator==(const Distribution&, const Distribution&) = default;

private:
  constexpr Distribution(Kind k, index_t r) : m_kind(k), m_block(r) {}
  friend Distribution Block() noexcept;
  friend Distribution Cyclic(index_t r);
  friend Distribution Collapsed() noexcept;

  Kind m_kind = Kind::Block;
  index_t m_block = 0;
};

/// BLOCK: contiguous blocks of ceil(n / P) elements.
Distribution Block() noexcept;
/// CYCLIC(r): blocks of r elements dealt round-robin. Throws hpf::Error for r < 1.
Distribution Cyclic(index_t r = 1);
/// `*`: the dimension is not distributed; every process along the array holds all of it.
Distribution Collapsed() noexcept;

} // namespace hpf
