// CyclicMap: the index map of one dimension distributed over P processes.
//
// CYCLIC(r) (no tables): element i of a dimension of extent n lives on process
// owner(i) = floor(i / r) mod P, in cycle (block row) l = floor(i / (P r)) at offset x = i mod r, so
// its local index is  l r + x  (Desprez et al., section 2). BLOCK is CYCLIC(ceil(n / P)); a collapsed (`*`)
// dimension is CYCLIC(n) over one process. Extents need not be multiples of P r; a process may own
// nothing (n < P r).
//
// HPF 2.0's irregular distributions keep their shared, immutable tables (`irregular`, null for
// CYCLIC(r); built once per Layout and shared by its copies):
//   GEN_BLOCK(b_0..b_{P-1}): offset[p] = b_0 + ... + b_{p-1}; owner(i) by binary search in offset,
//     local(i) = i - offset[owner]; one contiguous block per process (r = the largest block).
//   INDIRECT(owner table): owner(i) read from the table, local(i) = rank of i among the indices of its
//     owner (increasing global order); global(p, l) from per-process tables; r = 1.
// Every query keeps the closed form of CYCLIC(r) as its first, predicted branch (no indirection on the
// regular path). `r` is, for every kind, a length such that each run of r local elements starting at
// a multiple of r is contiguous in the global index space: code that walks local blocks by r (forall,
// gather, halo storage) works unchanged. Code that uses the cyclic closed forms beyond owner / local /
// global / local_extent / block_end must check regular() first.
#pragma once

#include <hpf/core/math.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace hpf {

/// The tables of a GEN_BLOCK or INDIRECT dimension (see CyclicMap).
struct IrregularTables {
  /// Which distribution the tables describe.
  enum class Kind { GenBlock, Indirect };
  Kind kind = Kind::GenBlock;   ///< GEN_BLOCK or INDIRECT
  std::vector<index_t> offset;  ///< GenBlock: P + 1 prefix offsets of the blocks
  std::vector<int> owner;       ///< Indirect: owner of each global index
  std::vector<index_t> local;   ///< Indirect: local index of each global index on its owner
  std::vector<index_t> first;   ///< Indirect: P + 1 offsets of each process's part of `globals`
  std::vector<index_t> globals; ///< Indirect: per process, its global indices in increasing order
  std::uint64_t hash = 0;       ///< of the kind and the defining vector (layout agreement)

  /// The process that owns global index i.
  [[nodiscard]] int owner_of(index_t i) const noexcept {
    if (kind == Kind::Indirect) return owner[static_cast<std::size_t>(i)];
    // The last p with offset[p] <= i: zero-size blocks (equal offsets) are skipped.
    const auto it = std::upper_bound(offset.begin() + 1, offset.end(), i);
    return static_cast<int>(it - offset.begin()) - 1;
  }
  /// Same kind and the same defining table.
  friend bool operator==(const IrregularTables& a, const IrregularTables& b) {
    return a.hash == b.hash && a.kind == b.kind && a.offset == b.offset && a.owner == b.owner;
  }
};

/// The 1-D index map of one array dimension over the P processes along it: CYCLIC(r) in closed form
/// (BLOCK is CYCLIC(ceil(n / P)), `*` is CYCLIC(n) on one process), or GEN_BLOCK and INDIRECT through
/// shared tables. Maps global index <-> (owner, local index) without per-element storage for the
/// regular kinds.
struct CyclicMap {
  index_t n = 0; ///< extent of the dimension
  int P = 1;     ///< number of processes along it
  index_t r = 1; ///< block size (CYCLIC); the largest block (GEN_BLOCK); 1 (INDIRECT)
  std::shared_ptr<const IrregularTables> irregular{}; ///< null for CYCLIC(r), BLOCK and `*`

  /// True for CYCLIC(r), BLOCK and `*`: the closed forms of Desprez et al. apply.
  [[nodiscard]] bool regular() const noexcept { return !irregular; }
  /// True for a GEN_BLOCK dimension.
  [[nodiscard]] bool is_gen_block() const noexcept {
    return irregular && irregular->kind == IrregularTables::Kind::GenBlock;
  }
  /// True for an INDIRECT dimension.
  [[nodiscard]] bool is_indirect() const noexcept {
    return irregular && irregular->kind == IrregularTables::Kind::Indirect;
  }

  /// Process that owns global index i.
  [[nodiscard]] int owner(index_t i) const noexcept {
    if (!irregular) [[likely]]
      return static_cast<int>((i / r) % P);
    return irregular->owner_of(i);
  }
  /// Local index of global index i on its owner.
  [[nodiscard]] index_t local(index_t i) const noexcept {
    if (!irregular) [[likely]] {
      index_t c = 0; // no std::optional (cycle()) in these inline functions: see local_extent
      return cycle_fits(c) ? (i / c) * r + i % r : i % r;
    }
    if (irregular->kind == IrregularTables::Kind::Indirect)
      return irregular->local[static_cast<std::size_t>(i)];
    return i - irregular->offset[static_cast<std::size_t>(irregular->owner_of(i))];
  }
  /// Global index of local index l on process p.
  [[nodiscard]] index_t global(int p, index_t l) const noexcept {
    if (!irregular) [[likely]]
      return (l / r) * P * r + static_cast<index_t>(p) * r + l % r;
    const auto up = static_cast<std::size_t>(p);
    if (irregular->kind == IrregularTables::Kind::Indirect)
      return irregular->globals[static_cast<std::size_t>(irregular->first[up] + l)];
    return irregular->offset[up] + l;
  }
  /// Number of elements process p owns.
  [[nodiscard]] index_t local_extent(int p) const noexcept {
    if (!irregular) [[likely]] {
      // Written without std::optional: GCC 12.2 at -O1 miscompiled the form that took cycle() once it
      // was inlined into a caller's loop (test_halo built at -O1 counted r elements where a process
      // owned 2r; -fno-tree-sra or clang gave the right count, UBSan found nothing).
      index_t c = 0;
      const bool cycles = cycle_fits(c);
      const index_t full = cycles ? n / c : 0; // complete cycles
      const index_t tail = cycles ? n % c : n; // elements of the last, partial cycle
      index_t start = 0;                       // p's first offset in a cycle; past the tail on overflow
      const bool reached = !__builtin_mul_overflow(static_cast<index_t>(p), r, &start);
      return full * r + (reached ? detail::clamp_index(tail - start, 0, r) : 0);
    }
    const auto up = static_cast<std::size_t>(p);
    const auto& t = irregular->kind == IrregularTables::Kind::Indirect ? irregular->first : irregular->offset;
    return t[up + 1] - t[up];
  }
  /// End (exclusive) of the maximal interval [g, end) of global indices that one process owns at
  /// consecutive local indices and that contains g: the end of g's block (CYCLIC, GEN_BLOCK), or of
  /// the run of equal owners (INDIRECT, found by scanning the table).
  [[nodiscard]] index_t block_end(index_t g) const noexcept {
    if (!irregular) [[likely]] {
      const index_t start = g - g % r; // no (g / r + 1) r: it overflows for r near INT64_MAX
      return start + std::min(r, n - start);
    }
    if (irregular->kind == IrregularTables::Kind::GenBlock)
      return irregular->offset[static_cast<std::size_t>(irregular->owner_of(g)) + 1];
    const int p = irregular->owner[static_cast<std::size_t>(g)];
    index_t e = g + 1;
    while (e < n && irregular->owner[static_cast<std::size_t>(e)] == p) ++e;
    return e;
  }
  /// Calls fn(global_begin, global_end, local_begin) for every maximal contiguous block of process p,
  /// in increasing global (and local) order.
  template <class Fn> void for_each_block(int p, Fn&& fn) const {
    const index_t e = local_extent(p);
    if (!irregular || irregular->kind == IrregularTables::Kind::GenBlock) {
      for (index_t l = 0; l < e; l += r) {
        const index_t g = global(p, l);
        fn(g, g + std::min(r, e - l), l);
      }
      return;
    }
    for (index_t l = 0; l < e;) {
      const index_t g = global(p, l);
      index_t k = 1;
      while (l + k < e && global(p, l + k) == g + k) ++k;
      fn(g, g + k, l);
      l += k;
    }
  }
  /// P r, the length of one cycle, or nullopt when it exceeds INT64_MAX (then every index of the
  /// dimension is in the first cycle, e.g. CYCLIC(2^62) on 3 processes). CYCLIC only.
  [[nodiscard]] constexpr std::optional<index_t> cycle() const noexcept { return detail::mul_nonneg(P, r); }
  /// cycle() without std::optional: true and `c` = P r when it fits index_t.
  [[nodiscard]] bool cycle_fits(index_t& c) const noexcept {
    return !__builtin_mul_overflow(static_cast<index_t>(P), r, &c);
  }
  /// Same extent, processes, block size and tables (by content).
  friend bool operator==(const CyclicMap& a, const CyclicMap& b) {
    if (a.n != b.n || a.P != b.P || a.r != b.r || a.regular() != b.regular()) return false;
    return a.regular() || a.irregular == b.irregular || *a.irregular == *b.irregular;
  }
};

} // namespace hpf
