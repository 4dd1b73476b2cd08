#include <hpf/core/error.hpp>
#include <hpf/core/names.hpp>
#include <hpf/schedule/routing.hpp>

#include <cmath>

namespace hpf {

namespace {
// Mesh link directions: a link id is node * 4 + direction.
constexpr int east = 0;  // x + 1
constexpr int west = 1;  // x - 1
constexpr int south = 2; // y + 1
constexpr int north = 3; // y - 1

constexpr NameTable<RoutingKind, 3> routing_names{
    {{{RoutingKind::Hypercube, "hypercube"}, {RoutingKind::Mesh2D, "mesh2d"}, {RoutingKind::Full, "full"}}}};
} // namespace

std::string to_string(RoutingKind k) { return std::string(routing_names.name(k)); }

RoutingKind parse_routing_kind(std::string_view name, std::string_view what) {
  return routing_names.parse(name, what);
}

Routing Routing::hypercube(int n) {
  detail::require(n >= 1 && (n & (n - 1)) == 0, "Routing::hypercube: n must be a power of two >= 1, got ", n);
  int dims = 0;
  while ((1 << dims) < n) ++dims;
  return Routing(RoutingKind::Hypercube, n, 0, 0, dims);
}

Routing Routing::mesh2d(int rows, int cols) {
  detail::require(rows >= 1, "Routing::mesh2d: rows must be >= 1, got ", rows);
  detail::require(cols >= 1, "Routing::mesh2d: cols must be >= 1, got ", cols);
  detail::require(static_cast<long long>(rows) * cols <= (1LL << 28), "Routing::mesh2d: rows x cols = ", rows,
                  " x ", cols, " is too large; expected at most 2^28 nodes");
  return Routing(RoutingKind::Mesh2D, rows * cols, rows, cols, 0);
}

Routing Routing::mesh2d(int n) {
  detail::require(n >= 1, "Routing::mesh2d: n must be >= 1, got ", n);
  int rows = static_cast<int>(std::sqrt(static_cast<double>(n)));
  while (rows > 1 && n % rows != 0) --rows;
  return mesh2d(rows, n / rows);
}

Routing Routing::full(int n) {
  detail::require(n >= 1 && n <= (1 << 15), "Routing::full: n must be in [1, 32768], got ", n);
  return Routing(RoutingKind::Full, n, 0, 0, 0);
}

Routing Routing::make(RoutingKind kind, int n) {
  switch (kind) {
  case RoutingKind::Hypercube:
    return hypercube(n);
  case RoutingKind::Mesh2D:
    return mesh2d(n);
  case RoutingKind::Full:
    break;
  }
  return full(n);
}

int Routing::num_links() const noexcept {
  switch (m_kind) {
  case RoutingKind::Hypercube:
    return m_nodes * m_dims;
  case RoutingKind::Mesh2D:
    return m_nodes * 4;
  case RoutingKind::Full:
    break;
  }
  return m_nodes * m_nodes;
}

void Routing::check_node(int node, const char* what) const {
  // describe() allocates: build the message only on failure (this runs in the schedulers' inner loop).
  if (node < 0 || node >= m_nodes)
    detail::fail("Routing::path: ", what, " must be in [0, ", m_nodes, ") for ", describe(), ", got ", node);
}

std::vector<int> Routing::path(int src, int dst) const {
  std::vector<int> p;
  append_path(src, dst, p);
  return p;
}

void Routing::append_path(int src, int dst, std::vector<int>& out) const {
  check_node(src, "src");
  check_node(dst, "dst");
  switch (m_kind) {
  case RoutingKind::Hypercube: {
    // e-cube (Wang and Ranka §2.2): change the source address one bit at a time, least significant first.
    int cur = src;
    for (int b = 0; b < m_dims; ++b) {
      if (((cur ^ dst) >> b) & 1) {
        out.push_back(cur * m_dims + b);
        cur ^= 1 << b;
      }
    }
    return;
  }
  case RoutingKind::Mesh2D: {
    int x = src % m_cols;
    int y = src / m_cols;
    const int tx = dst % m_cols;
    const int ty = dst / m_cols;
    while (x != tx) {
      const int node = y * m_cols + x;
      out.push_back(node * 4 + (tx > x ? east : west));
      x += tx > x ? 1 : -1;
    }
    while (y != ty) {
      const int node = y * m_cols + x;
      out.push_back(node * 4 + (ty > y ? south : north));
      y += ty > y ? 1 : -1;
    }
    return;
  }
  case RoutingKind::Full:
    if (src != dst) out.push_back(src * m_nodes + dst);
    return;
  }
}

std::pair<int, int> Routing::link_endpoints(int link) const {
  if (link < 0 || link >= num_links())
    detail::fail("Routing::link_endpoints: link must be in [0, ", num_links(), ") for ", describe(), ", got ",
                 link);
  switch (m_kind) {
  case RoutingKind::Hypercube: {
    const int node = link / m_dims;
    return {node, node ^ (1 << (link % m_dims))};
  }
  case RoutingKind::Mesh2D: {
    const int node = link / 4;
    const int x = node % m_cols;
    const int y = node / m_cols;
    switch (link % 4) {
    case east:
      return {node, x + 1 < m_cols ? node + 1 : -1};
    case west:
      return {node, x > 0 ? node - 1 : -1};
    case south:
      return {node, y + 1 < m_rows ? node + m_cols : -1};
    default:
      return {node, y > 0 ? node - m_cols : -1};
    }
  }
  case RoutingKind::Full:
    break;
  }
  return {link / m_nodes, link % m_nodes};
}

std::string Routing::describe() const {
  switch (m_kind) {
  case RoutingKind::Hypercube:
    return detail::concat("hypercube(", m_nodes, ")");
  case RoutingKind::Mesh2D:
    return detail::concat("mesh2d(", m_rows, "x", m_cols, ")");
  case RoutingKind::Full:
    break;
  }
  return detail::concat("full(", m_nodes, ")");
}

} // namespace hpf
