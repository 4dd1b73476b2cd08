// Closed-form communication sets of strided sections on block-cyclic maps (one dimension). Pure: no
// MPI, no I/O; tested against brute force without mpirun.
//
// Local index sequence (the lattice / finite-state-machine method of Chatterjee et al. and of
// Kennedy, Nedeljkovic and Sethi; DESIGN.md "Formulas the section layer needs"). The section l:h:s has
// elements i_j = l + j s, 0 <= j < n. On CYCLIC(k) over P its owner pattern repeats every
// T = P k / g section elements, g = gcd(|s|, P k): element j + T sits T s = (s / g) P k further, on the
// same process, (s / g) k further in its local block. For each global residue x = p k + o (0 <= o < k)
// of process p with x = l (mod g), the one j in [0, T) that hits x is
//     j0 = ((x - l) / g) * inv(s / g mod T) mod T,
// one extended Euclid and O(k) work per process; sorting the j0 gives the access sequence.
//
// Sender/receiver pairs. Element j of the section goes from owner_A(l_A + j s_A) to
// owner_B(l_B + j s_B). The pairs repeat every L = lcm(T_A, T_B) section elements, so one period is
// planned and then replicated with fixed local shifts, plus a tail when L does not divide n. The sender
// walks its own blocks: the section elements inside one block are a contiguous range of j at local
// step s (two divisions), cut where B's index crosses a block boundary of B (one division per piece);
// every piece is a run with one receiver and a local step on each side. The receiver does the mirror
// walk. Both list a pair's elements in increasing j, so a message needs no header. Planning costs one
// step per block visit and per crossing in one period, never one per element: a unit-stride section
// on BLOCK or collapsed maps is a few runs however long it is.
//
// GEN_BLOCK and INDIRECT maps (layout/cyclic_map.hpp) have no owner period: a dimension with one of
// them is enumerated element by element (one owner lookup per section element), its runs merged
// where they continue each other; the whole section is the `tail` of SectionRuns.
#pragma once

#include <hpf/layout/cyclic_map.hpp>
#include <hpf/schedule/schedule.hpp>
#include <hpf/section/triplet.hpp>

#include <vector>

namespace hpf {

/// The part of section `t` that process p of a CYCLIC(k) map owns, as a periodic access sequence.
struct LocalSequence {
  index_t count = 0;        ///< n: elements of the section (all processes)
  index_t period = 1;       ///< T = P k / gcd(|s|, P k), in section elements
  std::vector<index_t> j;   ///< the j in [0, T) that p owns, increasing
  std::vector<index_t> loc; ///< local index of element j[i] (extrapolated linearly when j[i] >= n)
  index_t local_step = 0;   ///< local index change from element j to j + T: (s / g) k
  index_t owned = 0;        ///< number of section elements p owns

  /// Calls fn(j, local) for every owned j in [j_begin, j_end) (clamped to [0, n)), increasing.
  template <class Fn> void for_each(index_t j_begin, index_t j_end, Fn&& fn) const {
    if (j_end > count) j_end = count;
    if (j_begin < 0) j_begin = 0;
    if (j.empty() || j_begin >= j_end) return;
    for (index_t t = j_begin / period;; ++t) {
      const index_t base = t * period;
      if (base >= j_end) return;
      for (std::size_t i = 0; i < j.size(); ++i) {
        const index_t jj = base + j[i];
        if (jj < j_begin) continue;
        if (jj >= j_end) return;
        fn(jj, loc[i] + t * local_step);
      }
    }
  }
  /// Calls fn(j, local index) for every element of the sequence.
  template <class Fn> void for_each(Fn&& fn) const { for_each(0, count, fn); }
};

/// The access sequence of process p (0 <= p < m.P) for section t of map m. t must be valid for m.n
/// (detail::check_triplet); throws hpf::Error for stride 0 or p out of range.
[[nodiscard]] LocalSequence local_sequence(const CyclicMap& m, const Triplet& t, int p);

/// A run of section elements that advance by a fixed step in both local blocks: element t of the run
/// (0 <= t < len) goes from source local index src_local + t src_step to target local index
/// dst_local + t dst_step. A strided section on a blocked map is one run per block crossing, not one
/// per element (steps may be negative: reversed sections).
struct SectionRun {
  index_t src_local = 0; ///< source local index of element 0
  index_t dst_local = 0; ///< target local index of element 0
  index_t len = 0;       ///< number of elements
  index_t src_step = 1;  ///< source local index from one element to the next
  index_t dst_step = 1;  ///< target local index from one element to the next
  /// Runs compare equal field by field.
  friend bool operator==(const SectionRun&, const SectionRun&) = default;
};

/// The runs between one source and one target process, in increasing section order: `period` (the
/// runs of section elements [0, L)) repeated `reps` times, copy k shifted by (k src_shift,
/// k dst_shift) local indices, then `tail` (absolute local indices).
struct SectionRuns {
  std::vector<SectionRun> period; ///< runs of one period of the pair
  index_t reps = 0;               ///< times the period repeats
  index_t src_shift = 0;          ///< source local shift from one period to the next
  index_t dst_shift = 0;          ///< target local shift from one period to the next
  std::vector<SectionRun> tail;   ///< runs after the last whole period
  index_t elements = 0;           ///< total number of elements of all runs

  /// Calls fn(src_local, dst_local, len, src_step, dst_step) for every run, in section order.
  template <class Fn> void for_each(Fn&& fn) const {
    for (index_t k = 0; k < reps; ++k)
      for (const SectionRun& r : period)
        fn(r.src_local + k * src_shift, r.dst_local + k * dst_shift, r.len, r.src_step, r.dst_step);
    for (const SectionRun& r : tail) fn(r.src_local, r.dst_local, r.len, r.src_step, r.dst_step);
  }
};

/// One dimension of a section assignment B(tb) = A(ta): source map A, target map B. The two
/// triplets must have the same extent and be valid for their maps.
struct SectionDim {
  CyclicMap src; ///< the source dimension's map
  Triplet ts;    ///< the source triplet
  CyclicMap dst; ///< the target dimension's map
  Triplet td;    ///< the target triplet

  /// Number of section elements.
  [[nodiscard]] index_t count() const noexcept { return ts.extent(); }
  /// L = lcm(T_src, T_dst), or count() when L >= count() (then the whole section is one tail).
  [[nodiscard]] index_t pair_period() const;
};

/// Throws hpf::Error unless the triplets have equal extents and are valid for the maps' extents.
void check_section_dim(const SectionDim& dim);

/// The src.P x dst.P matrix of element counts: entry (p, q) is the number of section elements that go
/// from source process p to target process q.
[[nodiscard]] CommMatrix section_grid(const SectionDim& dim);

/// section_runs_from(dim, p)[q]: the runs source process p sends to target process q.
[[nodiscard]] std::vector<SectionRuns> section_runs_from(const SectionDim& dim, int p);
/// section_runs_to(dim, q)[p]: the runs target process q receives from source process p, in the same
/// order as the sender lists them.
[[nodiscard]] std::vector<SectionRuns> section_runs_to(const SectionDim& dim, int q);

} // namespace hpf
