// The one bipartite matching engine of hpfrt: maximum-weight matching under a two-level
// lexicographic objective, and the edge colourings built from it. Every matching and colouring in
// the runtime goes through here: the König stepwise and greedy schedulers (Theorem 1 and section 4.5
// of Desprez et al.), the optimal all-to-many scheduler (Wang and Ranka, an edge colouring with max-degree
// colours) and the weighted-matching decomposition of a steady-state period (Legrand et al., Section 3.3:
// a perfect matching on the support is a maximum matching with unit priority). Pure and
// deterministic: the same input gives the same matching on every rank.
//
// Why not LEMON (`liblemon-dev`) or Boost.Graph: both only offer general-graph weighted matching
// (Edmonds; LEMON's MaxWeightedMatching), with one weight, so the lexicographic objective has to be
// folded into it as here; LEMON 1.3.1 does not compile as C++20 (its allocators call
// std::allocator::construct / destroy, removed in C++20); and built as C++17 it was slower than this
// solver on the first stepwise matching of large grids. So the runtime depends on neither.
#pragma once

#include <hpf/core/math.hpp>

#include <cstddef>
#include <vector>

namespace hpf {

/// An edge of a bipartite graph between left vertex `left` and right vertex `right`.
struct BipartiteEdge {
  int left = 0;       ///< vertex on the left side (a sender)
  int right = 0;      ///< vertex on the right side (a receiver)
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

/// How bipartite_edge_colouring picks each colour class.
enum class ColouringRule {
  /// Each class is a matching that saturates every vertex of maximum remaining degree and, among
  /// those, has the most weight. Uses exactly max-degree colours (König; Theorem 1 of Desprez et al.):
  /// the König stepwise scheduler and the optimal all-to-many scheduler.
  SaturateMaxDegree,
  /// Each class is a maximum-weight matching; ties go to the one covering the most maximum-degree
  /// vertices. At least max-degree colours, usually a lower sum of heaviest edges (the König greedy
  /// scheduler, Example 5 of Desprez et al.).
  MaxWeight,
  /// Exactly max-degree colours by alternating-path (Kempe chain) recolouring, König's constructive
  /// proof, with the edges taken heaviest first (so that heavy edges share colours, which keeps the
  /// sum of heaviest edges down); no weight optimisation beyond that order. For graphs where the
  /// matching-based rules are too slow (one matching per colour): dense P x Q grids with P, Q near
  /// 1000 take seconds here instead of minutes. Memory O(E + (left + right) * max degree).
  Fast
};

/// A proper edge colouring of the bipartite graph: colour classes in order, each a matching given as
/// increasing indices into `edges`; every edge is in exactly one class and no class is empty.
/// Parallel edges are allowed. Each class is one max_weight_bipartite_matching call on the edges not
/// yet coloured, with priority = the number of the edge's ends whose remaining degree is the
/// maximum (PriorityThenWeight for SaturateMaxDegree, WeightThenPriority for MaxWeight); so the
/// edges' own `priority` must be 0. Throws hpf::Error for vertices out of range, negative weights or a
/// non-zero priority.
[[nodiscard]] std::vector<std::vector<std::size_t>>
bipartite_edge_colouring(int num_left, int num_right, const std::vector<BipartiteEdge>& edges,
                         ColouringRule rule = ColouringRule::SaturateMaxDegree);

} // namespace hpf
