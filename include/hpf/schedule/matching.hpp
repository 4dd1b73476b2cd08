// Maximum-weight matching in a bipartite graph, the building block of the König schedulers
// (Theorem 1 and section 4.5 of seed 004). Pure and deterministic.
#pragma once

#include <hpf/core/math.hpp>

#include <cstddef>
#include <vector>

namespace hpf {

/// An edge of a bipartite graph between left vertex `left` and right vertex `right`.
/// The objective is lexicographic: first the sum of `priority`, then the sum of `weight`.
struct BipartiteEdge {
  int left = 0;
  int right = 0;
  index_t weight = 0; ///< >= 0
  int priority = 0;   ///< >= 0
};

/// A matching (indices into `edges`, increasing) that maximises (sum of priority, sum of weight)
/// lexicographically among all matchings of the graph. Parallel edges are allowed.
///
/// Successive shortest paths (min-cost flow with costs -(priority K + weight), K > any matching's
/// weight, in 128-bit) with Dijkstra on reduced costs; each phase augments along a maximal set of
/// vertex-disjoint shortest paths found by depth-first search in the zero-reduced-cost subgraph, so
/// the number of Dijkstra runs is the number of distinct augmenting-path costs, not the matching
/// size. O(phases * E log V). Throws hpf::Error for vertices out of range or negative values.
[[nodiscard]] std::vector<std::size_t> max_weight_bipartite_matching(int num_left, int num_right,
                                                                     const std::vector<BipartiteEdge>& edges);

} // namespace hpf
