// Per-dimension distributions: hpf::Block(), hpf::Cyclic(r), hpf::Collapsed() (HPF's `*`), and HPF
// 2.0's irregular hpf::GenBlock(sizes) and hpf::Indirect(owners).
#pragma once

#include <hpf/core/math.hpp>
#include <hpf/layout/cyclic_map.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hpf {

/// How one array dimension is spread over the processes along its grid dimension: BLOCK, CYCLIC(r),
/// `*` (collapsed), GEN_BLOCK or INDIRECT. A small value type; build it with hpf::Block(),
/// hpf::Cyclic(r), hpf::Collapsed(), hpf::GenBlock(sizes) or hpf::Indirect(owners). See docs/arrays.md.
class Distribution {
public:
  /// The HPF distribution kinds.
  enum class Kind { Block, Cyclic, Collapsed, GenBlock, Indirect };

  /// Default: BLOCK.
  Distribution() = default;

  /// Which kind.
  [[nodiscard]] Kind kind() const noexcept { return m_kind; }
  /// Block size of CYCLIC(r); 0 for the other kinds (resolved against an extent by map()).
  [[nodiscard]] index_t block() const noexcept { return m_block; }
  /// True for `*`.
  [[nodiscard]] bool is_collapsed() const noexcept { return m_kind == Kind::Collapsed; }
  /// True for GEN_BLOCK and INDIRECT (the map carries tables; see CyclicMap).
  [[nodiscard]] bool is_irregular() const noexcept {
    return m_kind == Kind::GenBlock || m_kind == Kind::Indirect;
  }
  /// GEN_BLOCK's block sizes (empty for the other kinds).
  [[nodiscard]] const std::vector<index_t>& sizes() const noexcept;
  /// INDIRECT's owner table (empty for the other kinds).
  [[nodiscard]] const std::vector<int>& owners() const noexcept;
  /// A hash of GEN_BLOCK's sizes or INDIRECT's owners (0 for the regular kinds): the word that layout
  /// agreement (agree.hpp) compares across ranks.
  [[nodiscard]] std::uint64_t table_hash() const noexcept { return m_hash; }

  /// The 1-D map of a dimension of extent n over P processes (P is 1 for a collapsed dimension).
  /// Throws hpf::Error when GEN_BLOCK's sizes are not P or do not sum to n, or when INDIRECT's table
  /// is not n long or names an owner outside [0, P).
  [[nodiscard]] CyclicMap map(index_t n, int P) const;
  /// "BLOCK", "CYCLIC(3)", "*", "GEN_BLOCK(3,0,5)", "INDIRECT(0,1,1,0)" (long tables shortened).
  [[nodiscard]] std::string to_string() const;

  /// Same kind, block size and tables.
  friend bool operator==(const Distribution& a, const Distribution& b) {
    return a.m_kind == b.m_kind && a.m_block == b.m_block && a.m_hash == b.m_hash && a.sizes() == b.sizes() &&
           a.owners() == b.owners();
  }

private:
  Distribution(Kind k, index_t r) : m_kind(k), m_block(r) {}
  friend Distribution Block() noexcept;
  friend Distribution Cyclic(index_t r);
  friend Distribution Collapsed() noexcept;
  friend Distribution GenBlock(std::vector<index_t> sizes);
  friend Distribution Indirect(std::vector<int> owners);

  Kind m_kind = Kind::Block;
  index_t m_block = 0;
  std::uint64_t m_hash = 0;
  std::shared_ptr<const std::vector<index_t>> m_sizes; // GenBlock
  std::shared_ptr<const std::vector<int>> m_owners;    // Indirect
};

/// BLOCK: contiguous blocks of ceil(n / P) elements.
Distribution Block() noexcept;
/// CYCLIC(r): blocks of r elements dealt round-robin. Throws hpf::Error for r < 1.
Distribution Cyclic(index_t r = 1);
/// `*`: the dimension is not distributed; every process along the array holds all of it.
Distribution Collapsed() noexcept;
/// HPF 2.0 GEN_BLOCK: process p (grid coordinate along the dimension) holds the `sizes[p]` elements
/// that follow those of processes 0..p-1. Sizes may be 0; they must number the processes along the
/// dimension and sum to its extent (checked by Layout). Throws hpf::Error for a negative size.
Distribution GenBlock(std::vector<index_t> sizes);
/// HPF 2.0 INDIRECT: element i belongs to grid coordinate owners[i]; each process stores its
/// elements in increasing global order. The table must be the same on every rank, have one entry per
/// index and name coordinates in [0, P) (checked by Layout). Throws hpf::Error for a negative owner.
Distribution Indirect(std::vector<int> owners);

} // namespace hpf
