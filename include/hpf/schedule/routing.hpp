// Static routing models for link-contention-free scheduling (RS_NL, Wang and Ranka §5).
//
// Pure data, no MPI. RS_NL assumes "a deterministic routing algorithm": the path of a message
// depends only on its source and destination, so the scheduler can claim the links of a path and
// refuse, in the same phase, any other message whose path shares a link (Check_Path / Mark_Path of
// Figure 4). A path is the list of *directed* links it uses: a physical link carries one message in
// each direction at once, which is what lets the pairwise exchanges of LP and RS_NL run
// concurrently on the iPSC/860 (Wang and Ranka §2.2, observation 1).
//
//   | model     | nodes            | path of src -> dst                                             |
//   |-----------|------------------|----------------------------------------------------------------|
//   | hypercube | n = 2^k          | e-cube: fix differing address bits from the least significant  |
//   |           |                  | to the most significant (the iPSC/860's routing, Wang and Ranka §2.2) |
//   | mesh2d    | rows x cols      | dimension-ordered (XY): along the row (x) first, then along the |
//   |           |                  | column (y); node = y * cols + x                                 |
//   | full      | n                | one direct link per ordered pair: only node contention remains |
//
// A message to oneself uses no link (empty path).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpf {

enum class RoutingKind { Hypercube, Mesh2D, Full };

[[nodiscard]] std::string to_string(RoutingKind k);
/// "hypercube", "mesh2d" or "full"; throws hpf::Error naming `what` and the value otherwise.
[[nodiscard]] RoutingKind parse_routing_kind(std::string_view name, std::string_view what = "routing");

/// A network model for Wang and Ranka's RS_NL scheduler: which directed links a message from one node
/// to another crosses (e-cube on a hypercube, dimension-ordered on a 2-D mesh, or one link per pair).
class Routing {
public:
  /// e-cube routing on a hypercube of n nodes. Throws hpf::Error unless n is a power of two >= 1.
  static Routing hypercube(int n);
  /// Dimension-ordered routing on a rows x cols mesh (no wrap-around). Throws unless both >= 1.
  static Routing mesh2d(int rows, int cols);
  /// A rows x cols mesh of n nodes with rows the largest divisor of n that is <= sqrt(n).
  static Routing mesh2d(int n);
  /// A fully connected network of n >= 1 nodes.
  static Routing full(int n);
  /// The model `kind` for n nodes (mesh2d: the near-square factorisation above).
  static Routing make(RoutingKind kind, int n);

  /// Which model.
  [[nodiscard]] RoutingKind kind() const noexcept { return m_kind; }
  /// Number of nodes.
  [[nodiscard]] int num_nodes() const noexcept { return m_nodes; }
  /// Link ids are in [0, num_links()).
  [[nodiscard]] int num_links() const noexcept;
  /// Mesh rows (0 for the other models).
  [[nodiscard]] int rows() const noexcept { return m_rows; }
  /// Mesh columns (0 for the other models).
  [[nodiscard]] int cols() const noexcept { return m_cols; }

  /// Directed links of the path src -> dst in traversal order. Throws on a node out of range.
  [[nodiscard]] std::vector<int> path(int src, int dst) const;
  /// Appends the path to `out` without allocating a new vector (the schedulers' inner loop).
  void append_path(int src, int dst, std::vector<int>& out) const;
  /// (from, to) nodes of a directed link: lets a test walk a path hop by hop.
  [[nodiscard]] std::pair<int, int> link_endpoints(int link) const;
  /// "hypercube(64)", "mesh2d(8x8)", "full(10)".
  [[nodiscard]] std::string describe() const;

private:
  Routing(RoutingKind kind, int nodes, int rows, int cols, int dims)
      : m_kind(kind), m_nodes(nodes), m_rows(rows), m_cols(cols), m_dims(dims) {}
  void check_node(int node, const char* what) const;

  RoutingKind m_kind = RoutingKind::Full;
  int m_nodes = 0;
  int m_rows = 0;
  int m_cols = 0;
  int m_dims = 0; // hypercube dimension
};

} // namespace hpf
