// Message runs of a 1-D block-cyclic redistribution: which local elements a sender packs for each
// receiver, and where the receiver puts them — by whole contiguous runs, never by an owner
// computation per element (seed 004's message generation).
//
// A run is a maximal interval of global indices owned by one source process p and one target
// process q: the intersection of a source block of r and a target block of s, contiguous in both
// local memories. The sender finds its runs by cutting its own blocks at target block boundaries,
// the receiver by cutting its blocks at source boundaries; both obtain the same intervals in the
// same (global) order, so a message needs no header.
#pragma once

#include <hpf/layout/cyclic_map.hpp>

#include <vector>

namespace hpf {

struct Run {
  index_t src_local = 0; ///< local index on the source process
  index_t dst_local = 0; ///< local index on the target process
  index_t len = 0;
  friend bool operator==(const Run&, const Run&) = default;
};

/// Runs sent by source process p, grouped by target process: result[q] in increasing global order.
/// Cost: O(number of runs of p), i.e. O(local elements / min(r, s) + local blocks).
std::vector<std::vector<Run>> runs_from(const CyclicMap& src, const CyclicMap& dst, int p);

/// Runs received by target process q, grouped by source process: result[p] in increasing global order.
std::vector<std::vector<Run>> runs_to(const CyclicMap& src, const CyclicMap& dst, int q);

/// The runs between one source and one target process, stored for one period of the pattern.
///
/// Seed 004, section 2: the communication pattern repeats every L = lcm(P r, Q s) global elements (a
/// slice). Element g + L sits L / P further in the source local block and L / Q further in the target
/// block, so the runs of slice k are those of slice 0 shifted by (k L / P, k L / Q). Storing one slice
/// keeps the plan small (O(L / min(r, s)) runs instead of O(n / min(r, s))) and the packing loop
/// streams the data, not a table as large as the data.
struct PeriodicRuns {
  std::vector<Run> period; ///< runs of slice 0 (the whole extent when L >= n)
  index_t reps = 0;        ///< how many times `period` repeats
  index_t src_shift = 0;   ///< L / P: source local offset from one slice to the next
  index_t dst_shift = 0;   ///< L / Q
  std::vector<Run> tail;   ///< runs of the last, partial slice (already shifted)
  index_t elements = 0;    ///< total length of all runs

  /// Calls fn(src_local, dst_local, len) for every run, in increasing global order.
  template <class Fn> void for_each(Fn&& fn) const {
    for (index_t k = 0; k < reps; ++k) {
      const index_t so = k * src_shift;
      const index_t dof = k * dst_shift;
      for (const Run& r : period) fn(so + r.src_local, dof + r.dst_local, r.len);
    }
    for (const Run& r : tail) fn(r.src_local, r.dst_local, r.len);
  }
};

/// periodic_runs_from(src, dst, p)[q]: the runs source process p sends to target process q, as
/// runs_from(src, dst, p)[q] would list them. Cost O(L / min(r, s)) for L = lcm(P r, Q s) (capped at n).
std::vector<PeriodicRuns> periodic_runs_from(const CyclicMap& src, const CyclicMap& dst, int p);
/// periodic_runs_to(src, dst, q)[p]: the runs target process q receives from source process p.
std::vector<PeriodicRuns> periodic_runs_to(const CyclicMap& src, const CyclicMap& dst, int q);

} // namespace hpf
