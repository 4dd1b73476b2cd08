// max_weight_assignment: the linear assignment problem as a minimum-cost flow, solved by LEMON's
// network simplex (see assignment.hpp for the network and why the result is exact).
#include <hpf/core/error.hpp>
#include <hpf/schedule/assignment.hpp>

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace hpf {

Assignment max_weight_assignment(int n, std::span<const index_t> weights) {
  detail::require(n >= 0, "max_weight_assignment: n must be >= 0, got ", n);
  const auto un = static_cast<std::size_t>(n);
  detail::require(weights.size() == un * un, "max_weight_assignment: weights has ", weights.size(),
                  " entries; expected n * n = ", un * un, " (n = ", n, ")");
  index_t total = 0;
  std::size_t positive = 0;
  for (std::size_t k = 0; k < weights.size(); ++k) {
    const index_t w = weights[k];
    if (w < 0)
      detail::fail("max_weight_assignment: weights[", k, "] (row ", k / un, ", column ", k % un, ") = ", w,
                   "; expected >= 0");
    total = detail::checked_add(total, w, "max_weight_assignment: the sum of the weights");
    positive += w > 0 ? 1 : 0;
  }
  detail::require(total <= max_assignment_total, "max_weight_assignment: the weights sum to ", total,
                  "; expected at most ", max_assignment_total,
                  " (the network simplex's 64-bit potentials must not overflow)");

  Assignment out;
  out.row_of.assign(un, -1);
  if (positive > 0) {
    using Graph = lemon::SmartDigraph;
    Graph g;
    g.reserveNode(2 * n + 2);
    g.reserveArc(static_cast<int>(positive) + 2 * n + 1);
    const Graph::Node source = g.addNode();
    const Graph::Node sink = g.addNode();
    std::vector<Graph::Node> row(un);
    std::vector<Graph::Node> col(un);
    for (auto& v : row) v = g.addNode();
    for (auto& v : col) v = g.addNode();
    for (std::size_t i = 0; i < un; ++i) g.addArc(source, row[i]);
    for (std::size_t j = 0; j < un; ++j) g.addArc(col[j], sink);
    const Graph::Arc bypass = g.addArc(source, sink); // the units of unmatched rows
    // The row-to-column arcs, in row-major order of their entries.
    std::vector<std::pair<Graph::Arc, std::size_t>> match;
    match.reserve(positive);
    for (std::size_t k = 0; k < weights.size(); ++k)
      if (weights[k] > 0) match.emplace_back(g.addArc(row[k / un], col[k % un]), k);
    // Maps of built-in value types (LEMON's vector maps): its array maps of class types call
    // std::allocator::construct, which C++20 removed.
    Graph::ArcMap<int> upper(g, 1);
    Graph::ArcMap<long long> cost(g, 0);
    upper[bypass] = n;
    for (const auto& [arc, k] : match) cost[arc] = -static_cast<long long>(weights[k]);
    lemon::NetworkSimplex<Graph, int, long long> simplex(g);
    simplex.upperMap(upper).costMap(cost).stSupply(source, sink, n);
    const auto status = simplex.run();
    detail::require(status == lemon::NetworkSimplex<Graph, int, long long>::OPTIMAL,
                    "max_weight_assignment: internal error: LEMON's network simplex found no optimal flow "
                    "(status ",
                    static_cast<int>(status), ") on a network that always has one");
    std::vector<char> row_taken(un, 0);
    for (const auto& [arc, k] : match)
      if (simplex.flow(arc) > 0) {
        out.row_of[k % un] = static_cast<int>(k / un);
        row_taken[k / un] = 1;
      }
    // The rows and columns the flow leaves free, paired in increasing order (weight 0 or more).
    std::size_t next_row = 0;
    for (std::size_t j = 0; j < un; ++j) {
      if (out.row_of[j] >= 0) continue;
      while (row_taken[next_row] != 0) ++next_row;
      out.row_of[j] = static_cast<int>(next_row);
      row_taken[next_row] = 1;
    }
    for (std::size_t j = 0; j < un; ++j)
      out.weight += weights[static_cast<std::size_t>(out.row_of[j]) * un + j];
    // The completion adds weight-0 entries only (a free row and a free column of positive weight would
    // make the flow better): the assignment keeps exactly the flow's value.
    detail::require(out.weight == -simplex.totalCost<long long>(),
                    "max_weight_assignment: internal error: the assignment keeps ", out.weight,
                    " but the flow ", -simplex.totalCost<long long>());
  } else {
    for (std::size_t j = 0; j < un; ++j) out.row_of[j] = static_cast<int>(j); // nothing to keep
  }
  return out;
}

} // namespace hpf
