// Maximum-weight matching in a bipartite graph, the building block of the König schedulers
// (Theorem 1 and section 4.5 of seed 004). Pure and deterministic.
#pragma once

#include <hpf/core/math.hpp>

#include <cstddef>
#include <vector>

namespace hpf {

/// An edge of a bipartite graph between left vertex `left` and right vertex `right`.
struct BipartiteEdge {
  int left = 0;
  int right = 0;
  index_t weight = 0; ///< >= 0
  int priority = 0;   ///< >= 0
};

/// The objective of a matching: two sums compared lexicographically.
enum class MatchingObjective {
  PriorityThenWeight, ///< maximise the sum of priority, then the sum of weight
  WeightThenPriority  ///< maximise the sum of weight, then the sum of priority
};

/// A matching (indices into `edges`, increasing) that maximises `objective` among all matchings of
/// the graph. Parallel edges are allowed.
///
/// Successive shortest paths (min-cost flow with costs -(priority K + weight), K > any matching's
/// weight, in 128-bit, or the other way round) with Dijkstra on reduced costs; each phase augments along a
/// maximal set of vertex-disjoint shortest paths found by depth-first search in the zero-reduced-cost
/// subgraph, so the number of Dijkstra runs is the number of distinct augmenting-path costs, not the matching
/// size. O(phases * E log V). Throws hpf::Error for vertices out of range or negative values.
[[nodiscard]] std::vector<std::size_t>
max_weight_bipartite_matching(int num_left, int num_right, const std::vector<BipartiteEdge>& edges,
                              MatchingObjective objective = MatchingObjective::PriorityThenWeight);

} // namespace hpf
