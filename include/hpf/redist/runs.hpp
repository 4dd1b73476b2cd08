// Message runs of a 1-D block-cyclic redistribution: which local elements a sender packs for each
// receiver, and where the receiver puts them — by whole contiguous runs, never by an owner
// computation per element (Desprez et al.'s message generation).
//
// A run is a maximal interval of global indices owned by one source process p and one target
// process q: the intersection of a source block of r and a target block of s, contiguous in both
// local memories. The sender finds its runs by cutting its own blocks at target block boundaries,
// the receiver by cutting its blocks at source boundaries; both obtain the same intervals in the
// same (global) order, so a message needs no header. GEN_BLOCK and INDIRECT maps (layout/cyclic_map.hpp)
// have no period: their runs span the whole extent once (GEN_BLOCK blocks hold CYCLIC blocks as
// strided runs; INDIRECT is cut at every change of owner).
#pragma once

#include <hpf/layout/cyclic_map.hpp>
#include <hpf/schedule/schedule.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hpf {

/// A run: `len` elements consecutive in global order and at consecutive local indices on both the
/// source and the target process, the unit a redistribution message is cut into.
struct Run {
  index_t src_local = 0; ///< local index on the source process
  index_t dst_local = 0; ///< local index on the target process
  index_t len = 0;       ///< number of elements
  /// Runs compare equal field by field.
  friend bool operator==(const Run&, const Run&) = default;
};

/// Runs sent by source process p, grouped by target process: result[q] in increasing global order.
/// Cost: O(number of runs of p), i.e. O(local elements / min(r, s) + local blocks).
std::vector<std::vector<Run>> runs_from(const CyclicMap& src, const CyclicMap& dst, int p);

/// Runs received by target process q, grouped by source process: result[p] in increasing global order.
std::vector<std::vector<Run>> runs_to(const CyclicMap& src, const CyclicMap& dst, int q);

/// A run repeated `count` times: piece t (t < count) is `len` elements at source local index
/// src_local + t src_step and target local index dst_local + t dst_step, pieces in increasing global
/// order. Inside one large block of one side, the blocks of the other side that one process owns
/// follow each other at a fixed step (BLOCK -> CYCLIC(1): the elements a block sends to one receiver
/// are one StridedRun), so a message is a handful of these instead of one Run per element.
struct StridedRun {
  index_t src_local = 0; ///< local index of piece 0 on the source process
  index_t dst_local = 0; ///< local index of piece 0 on the target process
  index_t len = 0;       ///< elements per piece
  index_t count = 1;     ///< number of pieces
  index_t src_step = 0;  ///< source local index from one piece to the next
  index_t dst_step = 0;  ///< target local index from one piece to the next
  /// Strided runs compare equal field by field.
  friend bool operator==(const StridedRun&, const StridedRun&) = default;
};

namespace detail {

/// Which local offsets a copy walks by the runs: the sender's (Src: the other side is a packed
/// buffer), the receiver's (Dst: unpacking a buffer) or both (the locally kept part).
enum class Side { Src, Dst, Both };

/// Pieces of at least this many bytes are written by non-temporal stores where a copy asks for them
/// (copy_elements below): a shorter piece holds few whole lines, and its partial lines at either end
/// go by ordinary stores (stream_bytes).
inline constexpr std::size_t stream_min_piece_bytes = 256;

/// Bytes of a cache line: stream_bytes writes whole lines by non-temporal stores and the partial
/// lines at either end by ordinary ones.
inline constexpr std::size_t stream_line_bytes = 64;

/// Copies `n` bytes by non-temporal stores (SSE2; memcpy elsewhere): the lines go to memory without
/// being read first, where an ordinary store reads each line it writes. For a target far larger than
/// the cache, which no pass reads before it is evicted. Only whole lines go so: a line written in
/// part by non-temporal stores leaves the write-combining buffer as a partial write, which costs more
/// than ordinary stores.
/// Call stream_fence() before another thread or process may read what was written.
inline void stream_bytes(std::byte* d, const std::byte* s, std::size_t n) noexcept {
#if defined(__SSE2__)
  constexpr std::size_t line = stream_line_bytes;
  const std::size_t head =
      std::min(n, (line - (reinterpret_cast<std::uintptr_t>(d) & (line - 1))) & (line - 1));
  std::memcpy(d, s, head);
  d += head;
  s += head;
  n -= head;
  for (; n >= line; n -= line, d += line, s += line)
    for (std::size_t q = 0; q < line; q += 16)
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + q),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + q)));
#endif
  std::memcpy(d, s, n);
}
/// Orders the non-temporal stores before it with the stores after it (a release store of a counter).
inline void stream_fence() noexcept {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

/// Copies len elements; short runs (CYCLIC(r) with small r) by a loop, long ones by memcpy, or with
/// `nt` by non-temporal stores when they are at least stream_min_piece_bytes long.
template <class T, bool nt = false> inline void copy_elements(T* dst, const T* src, index_t len) noexcept {
  if constexpr (nt) {
    const std::size_t bytes = static_cast<std::size_t>(len) * sizeof(T);
    if (bytes >= stream_min_piece_bytes) {
      stream_bytes(reinterpret_cast<std::byte*>(dst), reinterpret_cast<const std::byte*>(src), bytes);
      return;
    }
  }
  if (len <= 8) {
    for (index_t i = 0; i < len; ++i) dst[i] = src[i];
  } else {
    std::memcpy(dst, src, static_cast<std::size_t>(len) * sizeof(T));
  }
}

/// Copies `count` pieces of L elements, piece t from s + t ss to d + t ds: L is a constant, so each
/// piece is a few vector moves instead of a loop (CYCLIC(7) -> BLOCK moves pieces of 7).
template <index_t L, class T>
inline void copy_pieces(T* d, const T* s, index_t count, index_t ds, index_t ss) noexcept {
  for (index_t t = 0; t < count; ++t)
    std::memcpy(d + t * ds, s + t * ss, static_cast<std::size_t>(L) * sizeof(T));
}

/// copy_pieces<len> when len is one of the lengths Ls; false (nothing copied) otherwise.
template <index_t... Ls, class T>
inline bool copy_pieces_of(index_t len, T* d, const T* s, index_t count, index_t ds, index_t ss) noexcept {
  return ((len == Ls && (copy_pieces<Ls>(d, s, count, ds, ss), true)) || ...);
}

/// Moves the pieces of `r`: from src + src_local (Src, Both) or from a packed buffer `src` (Dst),
/// to dst + dst_local (Dst, Both) or to a packed buffer `dst` (Src). Returns the elements moved.
/// `nt`: long pieces by non-temporal stores (copy_elements).
template <Side side, class T, bool nt = false>
inline index_t move_strided(const StridedRun& r, const T* src, T* dst) noexcept {
  const T* s = side == Side::Dst ? src : src + r.src_local;
  T* d = side == Side::Src ? dst : dst + r.dst_local;
  const index_t ss = side == Side::Dst ? r.len : r.src_step;
  const index_t ds = side == Side::Src ? r.len : r.dst_step;
  const index_t n = r.len * r.count;
  if (ss == r.len && ds == r.len) { // the pieces follow each other on both sides: one piece
    copy_elements<T, nt>(d, s, n);
  } else if (r.len == 1) { // CYCLIC(1): a strided element copy the compiler keeps tight
    for (index_t t = 0; t < r.count; ++t) d[t * ds] = s[t * ss];
  } else if (!copy_pieces_of<2, 3, 4, 5, 6, 7, 8>(r.len, d, s, r.count, ds, ss)) { // longer: memcpy each
    for (index_t t = 0; t < r.count; ++t) copy_elements<T, nt>(d + t * ds, s + t * ss, r.len);
  }
  return n;
}

} // namespace detail

/// The runs between one source and one target process, stored for one period of the pattern.
///
/// Desprez et al., section 2: the communication pattern repeats every L = lcm(P r, Q s) global elements (a
/// slice). Element g + L sits L / P further in the source local block and L / Q further in the target
/// block, so the runs of slice k are those of slice 0 shifted by (k L / P, k L / Q). Storing one slice
/// keeps the plan small, and inside a slice a large block of one side holds the blocks of the other
/// side as StridedRuns: O(L / max(r, s) + P + Q) runs instead of O(n / min(r, s)), so planning costs
/// O(period), not O(elements). When a slice carries few elements in short pieces that do not repeat at
/// a fixed step (CYCLIC(3) -> CYCLIC(5)), the plan also keeps their offsets as a table (`src_index`,
/// `dst_index`): moving a message is then one tight indexed loop per slice instead of one call per
/// piece.
struct PeriodicRuns {
  std::vector<StridedRun> period; ///< runs of slice 0 (the whole extent when L >= n)
  index_t reps = 0;               ///< how many times `period` repeats
  index_t src_shift = 0;          ///< L / P: source local offset from one slice to the next
  index_t dst_shift = 0;          ///< L / Q
  std::vector<StridedRun> tail;   ///< runs of the last, partial slice (already shifted)
  index_t elements = 0;           ///< total length of all runs
  index_t period_elements = 0;    ///< length of the runs of one slice
  std::vector<index_t> src_index; ///< per element of a slice, its source offset (empty: no table)
  std::vector<index_t> dst_index; ///< per element of a slice, its target offset

  /// Calls fn(src_local, dst_local, len) for every contiguous piece, in increasing global order.
  template <class Fn> void for_each(Fn&& fn) const {
    auto pieces = [&](const StridedRun& r, index_t so, index_t dof) {
      for (index_t t = 0; t < r.count; ++t)
        fn(so + r.src_local + t * r.src_step, dof + r.dst_local + t * r.dst_step, r.len);
    };
    for (index_t k = 0; k < reps; ++k)
      for (const StridedRun& r : period) pieces(r, k * src_shift, k * dst_shift);
    for (const StridedRun& r : tail) pieces(r, 0, 0);
  }

  /// Calls fn(src_local, dst_local, len) for every contiguous piece, in decreasing global order.
  template <class Fn> void for_each_reverse(Fn&& fn) const {
    auto pieces = [&](const StridedRun& r, index_t so, index_t dof) {
      for (index_t t = r.count; t-- > 0;)
        fn(so + r.src_local + t * r.src_step, dof + r.dst_local + t * r.dst_step, r.len);
    };
    for (auto r = tail.rbegin(); r != tail.rend(); ++r) pieces(*r, 0, 0);
    for (index_t k = reps; k-- > 0;)
      for (auto r = period.rbegin(); r != period.rend(); ++r) pieces(*r, k * src_shift, k * dst_shift);
  }

  /// Moves every element (see detail::move_strided for `side` and `nt`); returns the number moved.
  template <detail::Side side, class T, bool nt = false> index_t move(const T* src, T* dst) const noexcept {
    move_slices<side, T, nt>(0, reps, src, dst);
    move_tail<side, T, nt>(src, dst);
    return elements;
  }

  /// Moves the elements of slices [k0, k1) (k1 <= reps): on the packed side (Src: `dst`, Dst: `src`)
  /// slice k is period_elements long at k period_elements, in the blocks it is `period` at the slice's
  /// shift. A few slices at a time, several messages move in one pass over a block
  /// (RedistributionPlan::pack_many).
  template <detail::Side side, class T, bool nt = false>
  void move_slices(index_t k0, index_t k1, const T* src, T* dst) const noexcept {
    using detail::Side;
    const index_t E = period_elements;
    if (!src_index.empty()) {
      const index_t* si = src_index.data();
      const index_t* di = dst_index.data();
      for (index_t k = k0; k < k1; ++k) {
        if constexpr (side == Side::Src) {
          const T* s = src + k * src_shift;
          T* d = dst + k * E;
          for (index_t j = 0; j < E; ++j) d[j] = s[si[j]];
        } else if constexpr (side == Side::Dst) {
          const T* s = src + k * E;
          T* d = dst + k * dst_shift;
          for (index_t j = 0; j < E; ++j) d[di[j]] = s[j];
        } else {
          const T* s = src + k * src_shift;
          T* d = dst + k * dst_shift;
          for (index_t j = 0; j < E; ++j) d[di[j]] = s[si[j]];
        }
      }
      return;
    }
    for (index_t k = k0; k < k1; ++k) {
      const T* s = side == Side::Dst ? src + k * E : src + k * src_shift;
      T* d = side == Side::Src ? dst + k * E : dst + k * dst_shift;
      for (const StridedRun& r : period) {
        const index_t m = detail::move_strided<side, T, nt>(r, s, d);
        if constexpr (side == Side::Dst) s += m;
        if constexpr (side == Side::Src) d += m;
      }
    }
  }

  /// Moves the runs of the last, partial slice (after the reps whole ones on the packed side).
  template <detail::Side side, class T, bool nt = false> void move_tail(const T* src, T* dst) const noexcept {
    using detail::Side;
    index_t moved = reps * period_elements;
    for (const StridedRun& r : tail) {
      const T* s = side == Side::Dst ? src + moved : src;
      T* d = side == Side::Src ? dst + moved : dst;
      moved += detail::move_strided<side, T, nt>(r, s, d);
    }
  }

  /// Where a pass over the pieces in chunks stands (move_upto): slice `slice` (reps: the tail), run
  /// `run` of it, piece `piece` of that run, and the elements moved so far (the offset on the packed
  /// side). done() once every piece has moved.
  struct Cursor {
    index_t slice = 0;   ///< the slice (reps: the tail)
    std::size_t run = 0; ///< the run within the slice
    index_t piece = 0;   ///< the piece within the run
    index_t packed = 0;  ///< elements moved so far
  };
  /// True once every piece has moved.
  [[nodiscard]] bool done(const Cursor& c) const noexcept { return c.slice > reps; }

  /// Moves, from where `c` stands, every piece that starts before local offset `limit` of the block
  /// this pass walks (by_src: the source block, the default for Src and Both; else the target block),
  /// and advances `c`. The pieces of one message lie in increasing local order on both sides (they
  /// are in global order), so calls with increasing limits move every piece exactly once, in order:
  /// several messages then move a chunk of the block at a time, in one pass over it, when one slice
  /// is the whole extent (RedistributionPlan::pack_many; unpack_many walks the target, with the kept
  /// part as Both).
  template <detail::Side side, bool by_src = side != detail::Side::Dst, class T>
  void move_upto(Cursor& c, index_t limit, const T* src, T* dst) const noexcept {
    using detail::Side;
    static_assert(side == Side::Both || by_src == (side == Side::Src),
                  "a packed side is walked by its block");
    for (; c.slice <= reps; ++c.slice, c.run = 0) {
      const bool in_tail = c.slice == reps;
      const std::vector<StridedRun>& runs = in_tail ? tail : period;
      const index_t k = in_tail ? 0 : c.slice;
      const T* s = side == Side::Dst ? src : src + k * src_shift;
      T* d = side == Side::Src ? dst : dst + k * dst_shift;
      const index_t shift = by_src ? k * src_shift : k * dst_shift;
      for (; c.run < runs.size(); ++c.run, c.piece = 0) {
        const StridedRun& r = runs[c.run];
        const index_t first = shift + (by_src ? r.src_local : r.dst_local);
        const index_t step = by_src ? r.src_step : r.dst_step;
        if (first + c.piece * step >= limit) return;
        // Pieces t < end start before the limit (step 0 only for a run of one piece).
        const index_t end = step > 0 ? std::min(r.count, (limit - first + step - 1) / step) : r.count;
        const StridedRun part{r.src_local + c.piece * r.src_step,
                              r.dst_local + c.piece * r.dst_step,
                              r.len,
                              end - c.piece,
                              r.src_step,
                              r.dst_step};
        const index_t m = detail::move_strided<side>(part, side == Side::Dst ? s + c.packed : s,
                                                     side == Side::Src ? d + c.packed : d);
        c.packed += m;
        if (end < r.count) {
          c.piece = end;
          return;
        }
      }
    }
  }

  /// Elements [e0, e1) of these runs (0 <= e0 <= e1 <= elements, in the runs' order) as runs of
  /// their own, with no period: the part of a message that one chunk of a move under a memory
  /// ceiling carries (RedistributionPlan::pack_range). Cost: the runs that the range meets, after
  /// skipping whole slices before it.
  [[nodiscard]] PeriodicRuns range(index_t e0, index_t e1) const {
    PeriodicRuns out;
    out.elements = e1 - e0;
    index_t at = 0; // elements before the run being looked at
    const auto take = [&](const StridedRun& r, index_t so, index_t dof) {
      const index_t n = r.len * r.count;
      index_t x = std::max(e0, at) - at;
      const index_t end = std::min(e1, at + n) - at;
      at += n;
      if (x >= end) return;
      // A piece's part [u, u + len) of piece t, as a run of one piece.
      const auto part = [&](index_t t, index_t u, index_t len) {
        out.tail.push_back({so + r.src_local + t * r.src_step + u, dof + r.dst_local + t * r.dst_step + u,
                            len, 1, r.src_step, r.dst_step});
      };
      index_t t = x / r.len;
      if (x % r.len != 0) { // the end of a piece the range starts in
        const index_t len = std::min(r.len - x % r.len, end - x);
        part(t, x % r.len, len);
        x += len;
        ++t;
      }
      if (const index_t whole = (end - x) / r.len; whole > 0) {
        out.tail.push_back({so + r.src_local + t * r.src_step, dof + r.dst_local + t * r.dst_step, r.len,
                            whole, r.src_step, r.dst_step});
        x += whole * r.len;
        t += whole;
      }
      if (x < end) part(t, 0, end - x); // the start of the piece the range ends in
    };
    const index_t first = period_elements > 0 ? std::min(reps, e0 / period_elements) : reps;
    at = first * period_elements;
    for (index_t k = first; k < reps && at < e1; ++k)
      for (const StridedRun& r : period) take(r, k * src_shift, k * dst_shift);
    for (const StridedRun& r : tail)
      if (at < e1) take(r, 0, 0);
    return out;
  }

  /// Builds the offset tables when a slice is small and its runs carry few elements each (called by
  /// the planner; see runs.cpp for the measured rule).
  void tabulate();
  /// Builds the offset tables of one slice whatever its runs (for measurements: tabulate() decides).
  void build_tables();
};

/// periodic_runs_from(src, dst, p)[q]: the runs source process p sends to target process q, as
/// runs_from(src, dst, p)[q] would list them. Cost O(L / min(r, s)) for L = lcm(P r, Q s) (capped at n).
std::vector<PeriodicRuns> periodic_runs_from(const CyclicMap& src, const CyclicMap& dst, int p);
/// periodic_runs_to(src, dst, q)[p]: the runs target process q receives from source process p.
std::vector<PeriodicRuns> periodic_runs_to(const CyclicMap& src, const CyclicMap& dst, int q);

/// The 1-D communication grid (elements from source process p to target process q) read off the runs:
/// for GEN_BLOCK and INDIRECT maps, which have no closed form (redist/pattern.hpp's
/// block_cyclic_pattern is the closed form of two CYCLIC maps). O(number of strided runs of all
/// sources): O(P + Q) for GEN_BLOCK -> GEN_BLOCK, O(n) when a side is INDIRECT.
CommMatrix runs_pattern(const CyclicMap& src, const CyclicMap& dst);

/// The 1-D communication grid of any two maps of one extent (elements from source process p to target
/// process q): the closed form for two CYCLIC maps (block_cyclic_pattern, redist/pattern.hpp), the
/// O(P + Q) intervals for GEN_BLOCK -> GEN_BLOCK (gen_block_pattern, schedule/gen_block.hpp), else
/// runs_pattern. What RedistributionPlan schedules and best_relabeling weighs (redist/relabel.hpp).
CommMatrix dim_pattern(const CyclicMap& src, const CyclicMap& dst);

} // namespace hpf
