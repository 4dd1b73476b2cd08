// Platform model of Legrand, Marchal and Robert, Section 2: a directed graph G = (V, E, c)
// where c(i, j) is the time to move a message of unit size over edge (i, j), plus a computation speed
// per node (a task of unit work takes 1 / speed on that node; speed 0 marks a router).
//
// Pure data: no MPI. The only I/O is the explicit JSON load and the SimGrid XML export.
//   JSON: {"nodes":[{"name":"Ps","speed":1}], "edges":[{"from":"Ps","to":"Pa","cost":"2/3"}]}
//   costs and speeds may be integers, decimals ("0.25") or fractions written "2/3".
#pragma once

#include <boost/multiprecision/cpp_int.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpf::steady {

/// Exact rationals: every steady-state quantity (throughput, rates, loads) is a fraction.
/// Expression templates off: values are small and `auto` must never capture a lazy expression.
using Rational =
    boost::multiprecision::number<boost::multiprecision::cpp_rational_backend, boost::multiprecision::et_off>;
/// Unbounded integers: periods are lcms of denominators and may be large (Legrand et al., footnote 2).
using BigInt =
    boost::multiprecision::number<boost::multiprecision::cpp_int_backend<>, boost::multiprecision::et_off>;

/// Parses "3", "-2", "2/3", "0.25" exactly; `what` names the argument in the hpf::Error on bad text.
[[nodiscard]] Rational parse_rational(std::string_view text, std::string_view what);
/// "1/2", "3", "-4/3".
[[nodiscard]] std::string to_string(const Rational& q);
/// Nearest double (for display and floating cross-checks only).
[[nodiscard]] double to_double(const Rational& q);

/// A processor (or a router, of speed 0) of a platform graph.
struct PlatformNode {
  std::string name; ///< unique name, as in the platform file
  Rational speed;   ///< tasks of unit work per time unit; 0 = router (cannot compute)
};

/// A directed link of a platform graph.
struct PlatformEdge {
  int from = 0;  ///< index of the sending node
  int to = 0;    ///< index of the receiving node
  Rational cost; ///< c(from, to) > 0: time per unit-size message
};

/// Options of the SimGrid export: how the abstract time unit and unit message map to seconds/bytes.
struct SimGridExport {
  double bytes_per_unit = 1e6;   ///< a unit-size message is this many bytes
  double flops_per_task = 1e9;   ///< a unit task is this many flops (host speed = speed * this)
  double latency_seconds = 1e-6; ///< per-link latency (the paper's model has none; keep it small)
  double router_flops = 1e6;     ///< SimGrid hosts need a speed > 0: routers get this
  /// Approximates the one-port model of Section 2 (SimGrid links alone are multi-port): every route
  /// also crosses its source's link "out-<name>" and its destination's "in-<name>", whose bandwidth is
  /// that of the node's fastest outgoing (incoming) edge, so concurrent transfers of a node share one
  /// port. Exact when a node's edges have equal costs; otherwise weaker than one-port (a slow edge
  /// leaves part of the port to the others).
  bool port_links = false;
};

/// The platform graph G = (V, E, c) of Legrand et al., Section 2: nodes with speeds, directed edges with
/// the time a unit message takes, under the one-port model (a node sends one message and receives one
/// at a time). Read from JSON (see the top of this header) or measured (measure.hpp).
class Platform {
public:
  /// Adds a node; throws on an empty or duplicate name or a negative speed.
  int add_node(std::string name, const Rational& speed);
  /// Adds edge from -> to; throws on an unknown node, a self loop, a duplicate edge or cost <= 0.
  int add_edge(std::string_view from, std::string_view to, const Rational& cost);

  /// Number of nodes.
  [[nodiscard]] int node_count() const noexcept { return static_cast<int>(m_nodes.size()); }
  /// Number of directed edges.
  [[nodiscard]] int edge_count() const noexcept { return static_cast<int>(m_edges.size()); }
  /// Node v; throws hpf::Error for v out of range.
  [[nodiscard]] const PlatformNode& node(int v) const;
  /// Edge e; throws hpf::Error for e out of range.
  [[nodiscard]] const PlatformEdge& edge(int e) const;
  /// Every node, by index.
  [[nodiscard]] const std::vector<PlatformNode>& nodes() const noexcept { return m_nodes; }
  /// Every edge, by index.
  [[nodiscard]] const std::vector<PlatformEdge>& edges() const noexcept { return m_edges; }
  /// Index of the node called `name`; throws hpf::Error naming `what` and the known nodes otherwise.
  [[nodiscard]] int index_of(std::string_view name, std::string_view what = "node") const;
  /// Index of the edge from -> to, if there is one.
  [[nodiscard]] std::optional<int> find_edge(int from, int to) const;
  /// Indices of the edges leaving v.
  [[nodiscard]] const std::vector<int>& out_edges(int v) const;
  /// Indices of the edges entering v.
  [[nodiscard]] const std::vector<int>& in_edges(int v) const;
  /// reachable[v] is true when a directed path leads from `source` to v (source included).
  [[nodiscard]] std::vector<bool> reachable_from(int source) const;
  /// Shortest (by summed cost) path from -> to as a list of edge indices; empty when unreachable.
  [[nodiscard]] std::vector<int> shortest_path(int from, int to) const;

  /// Parses the JSON text described at the top of this header (throws hpf::Error on bad input).
  [[nodiscard]] static Platform from_json(std::string_view text);
  /// The JSON text from_json reads.
  [[nodiscard]] std::string to_json() const;
  /// SimGrid 3.x platform XML: one host per node (`name`), one link per directed edge with bandwidth
  /// bytes_per_unit / cost, routes along shortest paths for every ordered pair (so that barriers and
  /// timing collectives work); pairs with no path share one slow "ctl" link.
  [[nodiscard]] std::string to_simgrid_xml(const SimGridExport& opts = {}) const;

private:
  void check_node(int v, std::string_view what) const;

  std::vector<PlatformNode> m_nodes;
  std::vector<PlatformEdge> m_edges;
  std::vector<std::vector<int>> m_out;
  std::vector<std::vector<int>> m_in;
};

/// Reads and parses a platform JSON file (throws hpf::Error naming the path on failure).
[[nodiscard]] Platform load_platform(const std::string& path);
/// Writes platform.to_simgrid_xml(opts) to `path`.
void save_simgrid_xml(const Platform& platform, const std::string& path, const SimGridExport& opts = {});

} // namespace hpf::steady
