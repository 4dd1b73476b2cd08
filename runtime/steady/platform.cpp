// Platform model of Legrand, Marchal and Robert, Section 2 (see include/hpf/steady/platform.hpp).
#include <hpf/core/error.hpp>
#include <hpf/core/text.hpp>
#include <hpf/steady/platform.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <limits>
#include <queue>
#include <set>
#include <sstream>

namespace hpf::steady {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

BigInt parse_int(std::string_view s) {
  BigInt v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

// Decimal "[-]digits[.digits]" read exactly as a fraction over a power of ten.
std::optional<Rational> parse_decimal(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    neg = s.front() == '-';
    s.remove_prefix(1);
  }
  const auto dot = s.find('.');
  std::string_view ip = dot == std::string_view::npos ? s : s.substr(0, dot);
  std::string_view fp = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
  if (ip.empty() && fp.empty()) return std::nullopt;
  if ((!ip.empty() && !all_digits(ip)) || (!fp.empty() && !all_digits(fp))) return std::nullopt;
  if (dot != std::string_view::npos && fp.empty()) return std::nullopt;
  BigInt num = ip.empty() ? BigInt(0) : parse_int(ip);
  BigInt den = 1;
  for (char c : fp) {
    num = num * 10 + (c - '0');
    den *= 10;
  }
  Rational q(num, den);
  return neg ? Rational(-q) : q;
}

} // namespace

Rational parse_rational(std::string_view text, std::string_view what) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  const auto slash = s.find('/');
  if (slash == std::string_view::npos) {
    if (auto q = parse_decimal(s)) return *q;
  } else {
    auto num = parse_decimal(s.substr(0, slash));
    std::string_view d = s.substr(slash + 1);
    if (num && all_digits(d)) {
      const BigInt den = parse_int(d);
      detail::require(den != 0, what, ": denominator must be non-zero, got '", detail::printable(text), "'");
      return *num / Rational(den);
    }
  }
  detail::fail(what, ": expected a number such as 3, 0.25 or 2/3, got '", detail::printable(text), "'");
}

std::string to_string(const Rational& q) {
  std::ostringstream os;
  os << numerator(q);
  if (denominator(q) != 1) os << '/' << denominator(q);
  return os.str();
}

double to_double(const Rational& q) { return q.convert_to<double>(); }

int Platform::add_node(std::string name, const Rational& speed) {
  detail::require(!name.empty(), "platform node: name must be non-empty");
  if (speed < 0)
    detail::fail("platform node '", detail::printable(name), "': speed must be >= 0 (0 = router), got ",
                 to_string(speed));
  for (const auto& n : m_nodes)
    detail::require(n.name != name, "platform node '", detail::printable(name), "': duplicate node name");
  m_nodes.push_back({std::move(name), speed});
  m_out.emplace_back();
  m_in.emplace_back();
  return node_count() - 1;
}

int Platform::add_edge(std::string_view from, std::string_view to, const Rational& cost) {
  const int f = index_of(from, "edge 'from'");
  const int t = index_of(to, "edge 'to'");
  detail::require(f != t, "platform edge ", from, " -> ", to, ": self loops are not allowed");
  if (cost <= 0)
    detail::fail("platform edge ", from, " -> ", to, ": cost must be > 0, got ", to_string(cost));
  detail::require(!find_edge(f, t), "platform edge ", from, " -> ", to,
                  ": duplicate edge (one edge per ordered pair)");
  m_edges.push_back({f, t, cost});
  const int e = edge_count() - 1;
  m_out[static_cast<std::size_t>(f)].push_back(e);
  m_in[static_cast<std::size_t>(t)].push_back(e);
  return e;
}

void Platform::check_node(int v, std::string_view what) const {
  detail::require(v >= 0 && v < node_count(), what, ": node index must be in [0, ", node_count(), "), got ",
                  v);
}

const PlatformNode& Platform::node(int v) const {
  check_node(v, "Platform::node");
  return m_nodes[static_cast<std::size_t>(v)];
}

const PlatformEdge& Platform::edge(int e) const {
  detail::require(e >= 0 && e < edge_count(), "Platform::edge: edge index must be in [0, ", edge_count(),
                  "), got ", e);
  return m_edges[static_cast<std::size_t>(e)];
}

int Platform::index_of(std::string_view name, std::string_view what) const {
  for (int v = 0; v < node_count(); ++v)
    if (m_nodes[static_cast<std::size_t>(v)].name == name) return v;
  std::string known;
  for (const auto& n : m_nodes) known += (known.empty() ? "" : ", ") + n.name;
  detail::fail(what, ": unknown node '", detail::printable(name), "' (nodes: ", detail::printable(known, 200),
               ")");
}

std::optional<int> Platform::find_edge(int from, int to) const {
  check_node(from, "Platform::find_edge(from)");
  check_node(to, "Platform::find_edge(to)");
  for (int e : m_out[static_cast<std::size_t>(from)])
    if (m_edges[static_cast<std::size_t>(e)].to == to) return e;
  return std::nullopt;
}

const std::vector<int>& Platform::out_edges(int v) const {
  check_node(v, "Platform::out_edges");
  return m_out[static_cast<std::size_t>(v)];
}

const std::vector<int>& Platform::in_edges(int v) const {
  check_node(v, "Platform::in_edges");
  return m_in[static_cast<std::size_t>(v)];
}

std::vector<bool> Platform::reachable_from(int source) const {
  check_node(source, "Platform::reachable_from");
  std::vector<bool> seen(m_nodes.size(), false);
  std::vector<int> stack{source};
  seen[static_cast<std::size_t>(source)] = true;
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    for (int e : m_out[static_cast<std::size_t>(v)]) {
      const int w = m_edges[static_cast<std::size_t>(e)].to;
      if (!seen[static_cast<std::size_t>(w)]) {
        seen[static_cast<std::size_t>(w)] = true;
        stack.push_back(w);
      }
    }
  }
  return seen;
}

std::vector<int> Platform::shortest_path(int from, int to) const {
  check_node(from, "Platform::shortest_path(from)");
  check_node(to, "Platform::shortest_path(to)");
  // Dijkstra on exact costs; ties broken by node index so that every rank gets the same path.
  const auto n = m_nodes.size();
  std::vector<std::optional<Rational>> dist(n);
  std::vector<int> via(n, -1);
  using Item = std::pair<Rational, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> pq;
  dist[static_cast<std::size_t>(from)] = Rational(0);
  pq.push({Rational(0), from});
  while (!pq.empty()) {
    auto [d, v] = pq.top();
    pq.pop();
    if (d != *dist[static_cast<std::size_t>(v)]) continue;
    for (int e : m_out[static_cast<std::size_t>(v)]) {
      const auto& ed = m_edges[static_cast<std::size_t>(e)];
      const Rational nd = d + ed.cost;
      auto& cur = dist[static_cast<std::size_t>(ed.to)];
      if (!cur || nd < *cur) {
        cur = nd;
        via[static_cast<std::size_t>(ed.to)] = e;
        pq.push({nd, ed.to});
      }
    }
  }
  std::vector<int> path;
  if (from == to || !dist[static_cast<std::size_t>(to)]) return path;
  for (int v = to; v != from;) {
    const int e = via[static_cast<std::size_t>(v)];
    path.push_back(e);
    v = m_edges[static_cast<std::size_t>(e)].from;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

namespace {
Rational json_rational(const nlohmann::json& j, const std::string& what) {
  if (j.is_string()) return parse_rational(j.get<std::string>(), what);
  if (j.is_number_integer()) return Rational(j.get<long long>());
  if (j.is_number()) return parse_rational(j.dump(), what); // exact decimal of the literal as printed
  detail::fail(what, ": expected a number or a fraction string, got a JSON ", j.type_name());
}

std::string json_name(const nlohmann::json& obj, const char* key, const std::string& what) {
  detail::require(obj.is_object() && obj.contains(key) && obj[key].is_string(), what, ": missing string \"",
                  key, "\" (in a JSON ", obj.type_name(), ")");
  return obj[key].get<std::string>();
}
} // namespace

Platform Platform::from_json(std::string_view text) {
  // Nesting is bounded before parsing, and parse errors give a byte offset, never the input.
  detail::check_json_nesting(text, "platform JSON");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    detail::fail("platform JSON: not valid JSON at byte ", e.byte);
  } catch (const nlohmann::json::exception& e) {
    detail::fail("platform JSON: not valid JSON (nlohmann error ", e.id, ")");
  }
  detail::require(j.is_object() && j.contains("nodes") && j["nodes"].is_array(),
                  "platform JSON: expected an object with a \"nodes\" array");
  Platform p;
  for (std::size_t i = 0; i < j["nodes"].size(); ++i) {
    const auto& n = j["nodes"][i];
    const std::string what = "platform JSON nodes[" + std::to_string(i) + "]";
    const std::string name = json_name(n, "name", what);
    const Rational speed = n.contains("speed") ? json_rational(n["speed"], what + ".speed") : Rational(1);
    p.add_node(name, speed);
  }
  if (j.contains("edges")) {
    detail::require(j["edges"].is_array(), "platform JSON: \"edges\" must be an array");
    for (std::size_t i = 0; i < j["edges"].size(); ++i) {
      const auto& e = j["edges"][i];
      const std::string what = "platform JSON edges[" + std::to_string(i) + "]";
      detail::require(e.is_object() && e.contains("cost"), what, ": missing \"cost\" (in a JSON ",
                      e.type_name(), ")");
      p.add_edge(json_name(e, "from", what), json_name(e, "to", what),
                 json_rational(e["cost"], what + ".cost"));
    }
  }
  return p;
}

std::string Platform::to_json() const {
  nlohmann::json j;
  j["nodes"] = nlohmann::json::array();
  for (const auto& n : m_nodes) j["nodes"].push_back({{"name", n.name}, {"speed", to_string(n.speed)}});
  j["edges"] = nlohmann::json::array();
  for (const auto& e : m_edges)
    j["edges"].push_back({{"from", node(e.from).name}, {"to", node(e.to).name}, {"cost", to_string(e.cost)}});
  return j.dump(2);
}

std::string Platform::to_simgrid_xml(const SimGridExport& o) const {
  detail::require(o.bytes_per_unit > 0, "SimGridExport.bytes_per_unit must be > 0, got ", o.bytes_per_unit);
  detail::require(o.flops_per_task > 0, "SimGridExport.flops_per_task must be > 0, got ", o.flops_per_task);
  detail::require(o.latency_seconds >= 0, "SimGridExport.latency_seconds must be >= 0, got ",
                  o.latency_seconds);
  detail::require(o.router_flops > 0, "SimGridExport.router_flops must be > 0, got ", o.router_flops);
  std::ostringstream x;
  x.precision(17);
  x << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    << "<!-- Exported by hpfrt from a steady-state platform (Legrand, Marchal and Robert, Section 2): "
    << "link bandwidth = " << o.bytes_per_unit << " B / c(i,j). -->\n"
    << "<platform version=\"4.1\">\n  <zone id=\"steady\" routing=\"Full\">\n";
  for (const auto& n : m_nodes) {
    const double flops = n.speed > 0 ? to_double(n.speed) * o.flops_per_task : o.router_flops;
    x << "    <host id=\"" << n.name << "\" speed=\"" << flops << "f\"/>\n";
  }
  for (int e = 0; e < edge_count(); ++e) {
    const auto& ed = m_edges[static_cast<std::size_t>(e)];
    x << "    <link id=\"e" << e << "\" bandwidth=\"" << o.bytes_per_unit / to_double(ed.cost)
      << "Bps\" latency=\"" << o.latency_seconds << "s\"/>\n";
  }
  x << "    <link id=\"ctl\" bandwidth=\"1e6Bps\" latency=\"1e-3s\"/>\n";
  if (o.port_links)
    for (int v = 0; v < node_count(); ++v)
      for (const bool out : {true, false}) {
        const std::vector<int>& es = out ? out_edges(v) : in_edges(v);
        if (es.empty()) continue;
        Rational fastest = m_edges[static_cast<std::size_t>(es.front())].cost;
        for (int e : es) fastest = std::min(fastest, m_edges[static_cast<std::size_t>(e)].cost);
        x << "    <link id=\"" << (out ? "out-" : "in-") << node(v).name << "\" bandwidth=\""
          << o.bytes_per_unit / to_double(fastest) << "Bps\" latency=\"0s\"/>\n";
      }
  for (int a = 0; a < node_count(); ++a)
    for (int b = 0; b < node_count(); ++b) {
      if (a == b) continue;
      const std::vector<int> path = shortest_path(a, b);
      x << "    <route src=\"" << node(a).name << "\" dst=\"" << node(b).name << "\" symmetrical=\"NO\">";
      if (path.empty()) x << "<link_ctn id=\"ctl\"/>";
      // Every hop passes the ports of both its ends, intermediate nodes included: forwarded traffic
      // shares a node's ports with its own, as in the one-port model (routes stay cut-through).
      for (int e : path) {
        const PlatformEdge& ed = m_edges[static_cast<std::size_t>(e)];
        if (o.port_links) x << "<link_ctn id=\"out-" << node(ed.from).name << "\"/>";
        x << "<link_ctn id=\"e" << e << "\"/>";
        if (o.port_links) x << "<link_ctn id=\"in-" << node(ed.to).name << "\"/>";
      }
      x << "</route>\n";
    }
  x << "  </zone>\n</platform>\n";
  return x.str();
}

Platform load_platform(const std::string& path) {
  const std::string text = detail::read_input_file(path, "load_platform");
  try {
    return Platform::from_json(text);
  } catch (const Error& e) {
    throw Error(detail::printable(path, 200) + ": " + e.what());
  }
}

void save_simgrid_xml(const Platform& platform, const std::string& path, const SimGridExport& opts) {
  const std::string xml = platform.to_simgrid_xml(opts);
  std::ofstream out(path);
  detail::require(out.good(), "save_simgrid_xml: cannot open '", path, "' for writing");
  out << xml;
  detail::require(out.good(), "save_simgrid_xml: write to '", path, "' failed");
}

} // namespace hpf::steady
