// Maximum-weight bipartite matching by successive shortest paths with blocking augmentations, and
// the edge colourings built from it (see matching.hpp). Written here rather than taken from LEMON /
// Boost.Graph: both only offer general-graph weighted matching (Edmonds, O(V E log V) or O(V^3) per
// call), the colourings call this once per colour, and LEMON 1.3.1 does not compile as C++20
// (std::allocator::construct). Checked against LEMON's MaxWeightedMatching (built as C++17) on the
// first stepwise step of P = Q = 1024 grids: the same optimum, and faster. The schedules built from
// these matchings are described in docs/redistribute.md.
#include <hpf/core/error.hpp>
#include <hpf/schedule/matching.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <queue>
#include <utility>

namespace hpf {

namespace {

__extension__ typedef __int128 i128;

constexpr i128 kInf = static_cast<i128>(std::numeric_limits<std::int64_t>::max()) << 40;

} // namespace

namespace {
/// The checks both entry points make: vertex counts >= 0, endpoints in range, weights >= 0.
void check_edges(const char* who, int num_left, int num_right, const std::vector<BipartiteEdge>& edges) {
  detail::require(num_left >= 0, who, ": num_left must be >= 0, got ", num_left);
  detail::require(num_right >= 0, who, ": num_right must be >= 0, got ", num_right);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const BipartiteEdge& b = edges[e];
    detail::require(b.left >= 0 && b.left < num_left, who, ": edge ", e, " has left vertex ", b.left,
                    ", expected [0, ", num_left, ")");
    detail::require(b.right >= 0 && b.right < num_right, who, ": edge ", e, " has right vertex ", b.right,
                    ", expected [0, ", num_right, ")");
    detail::require(b.weight >= 0, who, ": edge ", e, " has weight ", b.weight, ", expected >= 0");
  }
}
} // namespace

std::vector<std::size_t> max_weight_bipartite_matching(int num_left, int num_right,
                                                       const std::vector<BipartiteEdge>& edges,
                                                       MatchingObjective objective) {
  check_edges("max_weight_bipartite_matching", num_left, num_right, edges);
  i128 total_weight = 0;
  i128 total_priority = 0;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const BipartiteEdge& b = edges[e];
    detail::require(b.priority >= 0, "max_weight_bipartite_matching: edge ", e, " has priority ", b.priority,
                    ", expected >= 0");
    total_weight += b.weight;
    total_priority += b.priority;
  }
  // Lexicographic objective as one 128-bit value: the multiplier exceeds the secondary sum of any
  // matching (edge sums of 64-bit values, so the products stay far below 2^127).
  const bool prio_first = objective == MatchingObjective::PriorityThenWeight;
  const i128 K = (prio_first ? total_weight : total_priority) + 1;
  auto value = [&](const BipartiteEdge& b) {
    return prio_first ? static_cast<i128>(b.priority) * K + b.weight
                      : static_cast<i128>(b.weight) * K + b.priority;
  };

  const int nL = num_left;
  const int nR = num_right;
  const int S = nL + nR; // source
  const int T = S + 1;   // sink
  const int V = T + 1;
  auto idx = [](int v) { return static_cast<std::size_t>(v); };

  // Adjacency of left vertices (edge ids), sorted for determinism (they are, by construction).
  std::vector<std::vector<std::size_t>> adj(idx(nL));
  for (std::size_t e = 0; e < edges.size(); ++e) adj[idx(edges[e].left)].push_back(e);

  std::vector<std::size_t> mate_edge_left(idx(nL), edges.size()); // matched edge of a left vertex
  std::vector<std::size_t> mate_edge_right(idx(nR), edges.size());
  const std::size_t none = edges.size();

  // Potentials pi with reduced cost c(u, v) + pi(u) - pi(v) >= 0 on every residual arc. Costs:
  // s -> free left 0, left -> right (unmatched) -value, right -> left (matched) +value,
  // free right -> t 0 (and the reverses of matched s/t arcs, cost 0).
  // Start: pi(s) = pi(left) = 0, pi(right q) = -max value at q, pi(t) = min pi(right).
  std::vector<i128> pi(idx(V), 0);
  for (const BipartiteEdge& b : edges) pi[idx(nL + b.right)] = std::min(pi[idx(nL + b.right)], -value(b));
  for (int q = 0; q < nR; ++q) pi[idx(T)] = std::min(pi[idx(T)], pi[idx(nL + q)]);

  std::vector<i128> dist(idx(V));
  std::vector<char> done(idx(V));
  using Item = std::pair<i128, int>;
  while (true) {
    // Dijkstra from s on reduced costs, stopped when t is settled.
    std::fill(dist.begin(), dist.end(), kInf);
    std::fill(done.begin(), done.end(), 0);
    std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
    dist[idx(S)] = 0;
    heap.emplace(0, S);
    auto relax = [&](int v, i128 d) {
      if (d < dist[idx(v)]) {
        dist[idx(v)] = d;
        heap.emplace(d, v);
      }
    };
    while (!heap.empty()) {
      const auto [d, u] = heap.top();
      heap.pop();
      if (done[idx(u)] || d != dist[idx(u)]) continue;
      done[idx(u)] = 1;
      if (u == T) break;
      if (u == S) {
        for (int p = 0; p < nL; ++p)
          if (mate_edge_left[idx(p)] == none && !adj[idx(p)].empty()) relax(p, d + pi[idx(S)] - pi[idx(p)]);
      } else if (u < nL) {
        for (std::size_t e : adj[idx(u)]) {
          if (mate_edge_left[idx(u)] == e) continue;
          const int v = nL + edges[e].right;
          relax(v, d - value(edges[e]) + pi[idx(u)] - pi[idx(v)]);
        }
      } else {
        const int q = u - nL;
        const std::size_t e = mate_edge_right[idx(q)];
        if (e == none)
          relax(T, d + pi[idx(u)] - pi[idx(T)]);
        else
          relax(edges[e].left, d + value(edges[e]) + pi[idx(u)] - pi[idx(edges[e].left)]);
      }
    }
    if (!done[idx(T)]) break; // no augmenting path at all
    const i128 dt = dist[idx(T)];
    // Actual cost of the shortest path: reduced length - pi(s) + pi(t). Stop when it does not gain.
    if (dt - pi[idx(S)] + pi[idx(T)] >= 0) break;
    for (int v = 0; v < V; ++v) pi[idx(v)] += done[idx(v)] ? dist[idx(v)] : dt;

    // Augment along a maximal set of vertex-disjoint s-t paths of zero reduced cost: each is a
    // shortest path, so augmenting them together is the same as one by one.
    std::vector<char> used(idx(V), 0);
    std::vector<std::size_t> next_arc(idx(nL), 0);
    auto reduced_fwd = [&](std::size_t e) {
      const int u = edges[e].left;
      const int v = nL + edges[e].right;
      return -value(edges[e]) + pi[idx(u)] - pi[idx(v)];
    };
    for (int p0 = 0; p0 < nL; ++p0) {
      if (mate_edge_left[idx(p0)] != none || used[idx(p0)] || pi[idx(S)] - pi[idx(p0)] != 0) continue;
      // Iterative DFS: stack of left vertices and the edges taken to reach the next one.
      std::vector<int> lefts{p0};
      std::vector<std::size_t> taken;
      used[idx(p0)] = 1;
      bool found = false;
      while (!lefts.empty() && !found) {
        const int u = lefts.back();
        bool advanced = false;
        auto& a = next_arc[idx(u)];
        while (a < adj[idx(u)].size()) {
          const std::size_t e = adj[idx(u)][a++];
          if (mate_edge_left[idx(u)] == e || reduced_fwd(e) != 0) continue;
          const int q = edges[e].right;
          if (used[idx(nL + q)]) continue;
          used[idx(nL + q)] = 1;
          const std::size_t me = mate_edge_right[idx(q)];
          if (me == none) {
            if (pi[idx(nL + q)] - pi[idx(T)] != 0) continue; // q -> t not admissible
            taken.push_back(e);
            found = true;
            advanced = true;
            break;
          }
          const int w = edges[me].left;
          // q -> w along the matched edge is tight (reduced cost 0) by the invariant.
          if (used[idx(w)]) continue;
          used[idx(w)] = 1;
          taken.push_back(e);
          lefts.push_back(w);
          advanced = true;
          break;
        }
        if (!advanced) {
          lefts.pop_back();
          if (!taken.empty()) taken.pop_back();
        }
      }
      if (!found) continue;
      // Flip: every taken edge becomes matched; the edges they replace become unmatched.
      for (std::size_t e : taken) {
        mate_edge_left[idx(edges[e].left)] = e;
        mate_edge_right[idx(edges[e].right)] = e;
      }
    }
  }

  std::vector<std::size_t> result;
  for (int p = 0; p < nL; ++p)
    if (mate_edge_left[idx(p)] != none) result.push_back(mate_edge_left[idx(p)]);
  std::sort(result.begin(), result.end());
  return result;
}

namespace {

/// ColouringRule::Fast: a proper edge colouring with exactly max-degree colours (König's proof).
/// Each edge (u, v), heaviest first (then by diagonal), takes the lowest colour a free at u if it is free at
/// v too, else the lowest colour b free at v if it is free at u; otherwise a and b are swapped along the path
/// from v that alternates a, b, a, ... That path enters left vertices by a-edges, so it never reaches u (a is
/// free there, bipartite parity), and afterwards a is free at both ends.
std::vector<std::vector<std::size_t>> kempe_edge_colouring(int num_left, int num_right,
                                                           const std::vector<BipartiteEdge>& edges) {
  const auto nl = static_cast<std::size_t>(num_left);
  const auto nr = static_cast<std::size_t>(num_right);
  std::vector<std::size_t> deg(nl + nr, 0);
  for (const BipartiteEdge& b : edges) {
    ++deg[static_cast<std::size_t>(b.left)];
    ++deg[nl + static_cast<std::size_t>(b.right)];
  }
  std::size_t delta = 0;
  for (std::size_t d : deg) delta = std::max(delta, d);
  if (edges.empty()) return {};
  detail::require(edges.size() < std::numeric_limits<std::uint32_t>::max(),
                  "bipartite_edge_colouring: more than 2^32 - 1 edges: ", edges.size());
  using Id = std::uint32_t; // edge ids: halves the table below
  constexpr Id none = std::numeric_limits<Id>::max();
  // at[x * delta + c]: the edge of colour c at vertex x (left x < nl, right nl + v), or none. Memory
  // (left + right) * max degree * 4 bytes: callers bound it (hpfrt plan refuses larger grids).
  std::vector<Id> at((nl + nr) * delta, none);
  std::vector<std::size_t> colour(edges.size(), none);
  std::vector<std::size_t> hint(nl + nr, 0); // no colour below hint[x] is free at x
  auto vertex = [&](std::size_t e, bool right) {
    return right ? nl + static_cast<std::size_t>(edges[e].right) : static_cast<std::size_t>(edges[e].left);
  };
  auto free_at = [&](std::size_t x) {
    std::size_t c = hint[x];
    while (at[x * delta + c] != none)
      ++c; // a vertex of degree <= delta has a free colour while uncoloured edges remain
    hint[x] = c;
    return c;
  };
  auto set = [&](std::size_t e, std::size_t c) {
    colour[e] = c;
    at[vertex(e, false) * delta + c] = static_cast<Id>(e);
    at[vertex(e, true) * delta + c] = static_cast<Id>(e);
  };
  auto unset = [&](std::size_t e) {
    const std::size_t c = colour[e];
    for (bool right : {false, true}) {
      const std::size_t x = vertex(e, right);
      at[x * delta + c] = none;
      hint[x] = std::min(hint[x], c);
    }
    colour[e] = none;
  };
  // Heaviest first; among equal weights by diagonal (right - left) mod max(left, right), as the
  // caterpillar orders them: a diagonal is a matching, so on dense grids the lowest free colours fit
  // with almost no alternating path (in left-major order the paths grow long and the colouring slow).
  // The keys are computed once (a comparator that divides was most of the planning time).
  struct Key {
    index_t weight;
    long long diagonal;
    std::size_t edge;
  };
  const auto n = static_cast<long long>(std::max(num_left, num_right));
  std::vector<Key> keys(edges.size());
  for (std::size_t e = 0; e < edges.size(); ++e)
    keys[e] = {edges[e].weight, ((edges[e].right - edges[e].left) % n + n) % n, e};
  std::sort(keys.begin(), keys.end(), [](const Key& x, const Key& y) {
    if (x.weight != y.weight) return x.weight > y.weight;
    if (x.diagonal != y.diagonal) return x.diagonal < y.diagonal;
    return x.edge < y.edge;
  });
  std::vector<std::size_t> order(edges.size());
  for (std::size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].edge;
  std::vector<std::size_t> path;
  for (std::size_t e : order) {
    const std::size_t u = vertex(e, false);
    const std::size_t v = vertex(e, true);
    const std::size_t a = free_at(u);
    if (at[v * delta + a] != none) {
      const std::size_t b = free_at(v);
      if (at[u * delta + b] == none) {
        set(e, b);
        continue;
      }
      // Swap a and b on the path from v that starts with colour a (it alternates a, b, a, ...).
      path.clear();
      std::size_t x = v;
      std::size_t c = a;
      while (at[x * delta + c] != none) {
        const std::size_t f = at[x * delta + c];
        path.push_back(f);
        x = vertex(f, false) == x ? vertex(f, true) : vertex(f, false);
        c = c == a ? b : a;
      }
      std::vector<std::size_t> was(path.size());
      for (std::size_t i = 0; i < path.size(); ++i) {
        was[i] = colour[path[i]];
        unset(path[i]);
      }
      for (std::size_t i = 0; i < path.size(); ++i) set(path[i], was[i] == a ? b : a);
      detail::require(at[u * delta + a] == none && at[v * delta + a] == none,
                      "bipartite_edge_colouring: internal error, the alternating path reached both ends");
    }
    set(e, a);
  }
  std::vector<std::vector<std::size_t>> classes(delta);
  for (std::size_t e = 0; e < edges.size(); ++e) classes[colour[e]].push_back(e);
  std::erase_if(classes, [](const std::vector<std::size_t>& c) { return c.empty(); });
  return classes;
}

} // namespace

std::vector<std::vector<std::size_t>> bipartite_edge_colouring(int num_left, int num_right,
                                                               const std::vector<BipartiteEdge>& edges,
                                                               ColouringRule rule) {
  check_edges("bipartite_edge_colouring", num_left, num_right, edges);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const BipartiteEdge& b = edges[e];
    detail::require(b.priority == 0, "bipartite_edge_colouring: edge ", e, " has priority ", b.priority,
                    ", expected 0 (the colouring sets priorities from the degrees)");
  }
  if (rule == ColouringRule::Fast) return kempe_edge_colouring(num_left, num_right, edges);
  auto idx = [](int v) { return static_cast<std::size_t>(v); };
  std::vector<int> row(idx(num_left), 0);
  std::vector<int> col(idx(num_right), 0);
  for (const BipartiteEdge& b : edges) {
    ++row[idx(b.left)];
    ++col[idx(b.right)];
  }
  auto max_degree = [&] {
    int d = 0;
    for (int x : row) d = std::max(d, x);
    for (int x : col) d = std::max(d, x);
    return d;
  };
  const bool saturate = rule == ColouringRule::SaturateMaxDegree;
  std::vector<std::size_t> left(edges.size()); // edges not yet coloured, increasing
  for (std::size_t e = 0; e < edges.size(); ++e) left[e] = e;
  std::vector<std::vector<std::size_t>> classes;
  std::vector<BipartiteEdge> sub;
  std::vector<char> taken;
  while (!left.empty()) {
    const int delta = max_degree();
    sub.clear();
    for (std::size_t e : left) {
      // Priority counts the maximum-degree ends. Maximising it first saturates every maximum-degree
      // vertex (such a matching exists in a bipartite graph, which is what makes König's theorem
      // constructive, Theorem 1 of Desprez et al.), so the maximum degree drops by one per colour. Greedy
      // maximises the weight first and breaks ties towards maximum-degree vertices (a deterministic
      // tie-break that keeps the colour count down; Desprez et al. leave ties open).
      BipartiteEdge b = edges[e];
      b.priority = int(row[idx(b.left)] == delta) + int(col[idx(b.right)] == delta);
      sub.push_back(b);
    }
    const std::vector<std::size_t> match = max_weight_bipartite_matching(
        num_left, num_right, sub,
        saturate ? MatchingObjective::PriorityThenWeight : MatchingObjective::WeightThenPriority);
    // Never empty: an edge at a maximum-degree vertex has priority >= 1, so some matching gains.
    detail::require(!match.empty(), "bipartite_edge_colouring: internal error, empty matching");
    taken.assign(left.size(), 0);
    std::vector<std::size_t> cls;
    cls.reserve(match.size());
    for (std::size_t k : match) {
      taken[k] = 1;
      cls.push_back(left[k]);
      --row[idx(edges[left[k]].left)];
      --col[idx(edges[left[k]].right)];
    }
    if (saturate) {
      const int now = max_degree();
      detail::require(now == delta - 1, "bipartite_edge_colouring: internal error, the matching left degree ",
                      now, " after degree ", delta);
    }
    std::size_t w = 0;
    for (std::size_t i = 0; i < left.size(); ++i)
      if (!taken[i]) left[w++] = left[i];
    left.resize(w);
    classes.push_back(std::move(cls));
  }
  return classes;
}

} // namespace hpf
