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

} // namespace hpf
