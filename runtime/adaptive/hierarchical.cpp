// Clustering (Lowekamp's Algorithm 1) and the inter-cluster heuristics of Steffenel (Sections 4.1.2
// and 5), and the two-level broadcast plan. Pure.
#include <hpf/adaptive/hierarchical.hpp>

#include <hpf/core/error.hpp>
#include <hpf/core/names.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>

namespace hpf {

namespace {
std::size_t idx(int i) { return static_cast<std::size_t>(i); }
constexpr double inf = std::numeric_limits<double>::infinity();
} // namespace

// ---------------------------------------------------------------------------------------------------
// Algorithm 1 (Lowekamp)

std::vector<std::vector<int>> lowekamp_clusters(std::span<const double> w, int n, double rho) {
  detail::require(n >= 1, "lowekamp_clusters: n (number of nodes) must be >= 1, got ", n);
  detail::require(w.size() == idx(n) * idx(n),
                  "lowekamp_clusters: distance matrix must have n*n = ", idx(n) * idx(n), " entries, got ",
                  w.size());
  detail::require(std::isfinite(rho) && rho >= 0, "lowekamp_clusters: tolerance rho must be >= 0, got ", rho);
  const double tol = 1.0 + rho;
  std::vector<double> node_min(idx(n), inf);
  std::vector<std::tuple<double, int, int>> edges;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const double x = w[idx(a) * idx(n) + idx(b)];
      detail::require(std::isfinite(x) && x >= 0, "lowekamp_clusters: distance w(", a, ",", b,
                      ") must be finite and >= 0, got ", x);
      if (a == b || x == 0) continue; // 0: no link (Steffenel's matrix M)
      node_min[idx(a)] = std::min(node_min[idx(a)], x);
      node_min[idx(b)] = std::min(node_min[idx(b)], x);
      if (a < b) edges.emplace_back(x, a, b);
    }
  std::sort(edges.begin(), edges.end());
  // Union-find over subnets; subnet_min is only meaningful at a representative (inf: not yet in a
  // subnet of two or more nodes, so the subnet test does not apply).
  std::vector<int> parent(idx(n));
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<double> subnet_min(idx(n), inf);
  auto find = [&](int x) {
    while (parent[idx(x)] != x) x = parent[idx(x)] = parent[idx(parent[idx(x)])];
    return x;
  };
  for (const auto& [wt, a, b] : edges) {
    const int ra = find(a), rb = find(b);
    if (ra == rb) continue;
    if (wt > tol * node_min[idx(a)] || wt > tol * node_min[idx(b)]) continue;
    if (wt > tol * subnet_min[idx(ra)] || wt > tol * subnet_min[idx(rb)]) continue;
    const double mn = std::min({wt, subnet_min[idx(ra)], subnet_min[idx(rb)]});
    parent[idx(rb)] = ra;
    subnet_min[idx(ra)] = mn;
  }
  std::vector<std::vector<int>> groups(idx(n));
  for (int v = 0; v < n; ++v) groups[idx(find(v))].push_back(v);
  std::vector<std::vector<int>> out;
  for (auto& g : groups)
    if (!g.empty()) out.push_back(std::move(g));
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.front() < y.front(); });
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Inter-cluster heuristics

namespace {
constexpr std::array<InterHeuristic, 7> k_heuristics = {
    InterHeuristic::flat,     InterHeuristic::fef,      InterHeuristic::ecef,     InterHeuristic::ecef_la,
    InterHeuristic::ecef_lat, InterHeuristic::ecef_laT, InterHeuristic::bottom_up};

// ECEF-LAt and ECEF-LAT of Steffenel differ only by the case of the T; in the one casing ECEF-LAT
// (F_j takes the max over B) is "ecef-lat-max".
constexpr NameTable<InterHeuristic, 7> heuristic_names{{{{InterHeuristic::flat, "flat"},
                                                         {InterHeuristic::fef, "fef"},
                                                         {InterHeuristic::ecef, "ecef"},
                                                         {InterHeuristic::ecef_la, "ecef-la"},
                                                         {InterHeuristic::ecef_lat, "ecef-lat"},
                                                         {InterHeuristic::ecef_laT, "ecef-lat-max"},
                                                         {InterHeuristic::bottom_up, "bottom-up"}}}};

void check_costs(const InterClusterCosts& c, int root_cluster) {
  detail::require(c.C >= 1, "inter-cluster costs: C (number of clusters) must be >= 1, got ", c.C);
  const std::size_t cc = idx(c.C) * idx(c.C);
  detail::require(c.gap.size() == cc, "inter-cluster costs: gap must have C*C = ", cc, " entries, got ",
                  c.gap.size());
  detail::require(c.latency.size() == cc, "inter-cluster costs: latency must have C*C = ", cc,
                  " entries, got ", c.latency.size());
  detail::require(c.intra.size() == idx(c.C), "inter-cluster costs: intra must have C = ", c.C,
                  " entries, got ", c.intra.size());
  for (const auto* v : {&c.gap, &c.latency, &c.intra})
    for (double x : *v)
      detail::require(std::isfinite(x) && x >= 0,
                      "inter-cluster costs: every time must be finite and >= 0, got ", x);
  detail::require(root_cluster >= 0 && root_cluster < c.C, "root_cluster: must be in [0, ", c.C, "), got ",
                  root_cluster);
}
} // namespace

std::span<const InterHeuristic> all_inter_heuristics() { return k_heuristics; }

std::string to_string(InterHeuristic h) { return std::string(heuristic_names.name(h)); }

InterHeuristic parse_inter_heuristic(std::string_view name, std::string_view what) {
  return heuristic_names.parse(name, what);
}

InterSchedule evaluate_inter(std::span<const InterTransfer> order, const InterClusterCosts& c,
                             int root_cluster, InterHeuristic label) {
  check_costs(c, root_cluster);
  const int C = c.C;
  std::vector<double> ready(idx(C), inf); // when the coordinator may send next
  std::vector<bool> sent_any(idx(C), false);
  ready[idx(root_cluster)] = 0;
  InterSchedule s;
  s.heuristic = label;
  s.root_cluster = root_cluster;
  for (const InterTransfer& t : order) {
    detail::require(t.from >= 0 && t.from < C && t.to >= 0 && t.to < C, "evaluate_inter: transfer ", t.from,
                    " -> ", t.to, " names a cluster outside [0, ", C, ")");
    detail::require(ready[idx(t.from)] < inf, "evaluate_inter: cluster ", t.from,
                    " sends before it holds the message");
    detail::require(ready[idx(t.to)] == inf, "evaluate_inter: cluster ", t.to, " receives twice");
    const std::size_t e = idx(t.from) * idx(C) + idx(t.to);
    InterTransfer done{t.from, t.to, ready[idx(t.from)], 0};
    ready[idx(t.from)] += c.gap[e];
    done.arrive = done.start + c.gap[e] + c.latency[e];
    ready[idx(t.to)] = done.arrive;
    sent_any[idx(t.from)] = true;
    s.transfers.push_back(done);
  }
  s.finish.resize(idx(C));
  for (int i = 0; i < C; ++i) {
    detail::require(ready[idx(i)] < inf, "evaluate_inter: cluster ", i, " never receives the message");
    // ready[i] is the arrival time for a cluster that sends nothing, else the end of its last send.
    s.finish[idx(i)] = ready[idx(i)] + c.intra[idx(i)];
  }
  s.makespan = *std::max_element(s.finish.begin(), s.finish.end());
  return s;
}

Schedule to_schedule(const InterSchedule& s, index_t len) {
  const int C = static_cast<int>(s.finish.size());
  detail::require(
      C >= 1 && s.root_cluster >= 0 && s.root_cluster < C,
      "to_schedule: the inter-cluster schedule has no clusters or a bad root (use schedule_inter)");
  // holds[i]: the step in which cluster i received the message (-1 for the root's, before step 0);
  // next[i]: the first step in which i may send again.
  std::vector<int> holds(idx(C), std::numeric_limits<int>::max()), next(idx(C), 0);
  holds[idx(s.root_cluster)] = -1;
  std::vector<Step> steps;
  for (const InterTransfer& t : s.transfers) {
    detail::require(t.from >= 0 && t.from < C && t.to >= 0 && t.to < C &&
                        holds[idx(t.from)] < std::numeric_limits<int>::max(),
                    "to_schedule: transfer ", t.from, " -> ", t.to,
                    " is not from a cluster that holds the message");
    const int k = std::max(holds[idx(t.from)] + 1, next[idx(t.from)]);
    if (steps.size() <= idx(k)) steps.resize(idx(k) + 1);
    steps[idx(k)].messages.push_back({t.from, t.to, len});
    holds[idx(t.to)] = k;
    next[idx(t.from)] = k + 1;
  }
  return Schedule(C, C, std::move(steps));
}

InterSchedule schedule_inter(InterHeuristic h, const InterClusterCosts& c, int root_cluster) {
  check_costs(c, root_cluster);
  const int C = c.C;
  auto gap = [&](int i, int j) { return c.gap[idx(i) * idx(C) + idx(j)]; };
  auto lat = [&](int i, int j) { return c.latency[idx(i) * idx(C) + idx(j)]; };
  std::vector<bool> inA(idx(C), false);
  inA[idx(root_cluster)] = true;
  std::vector<double> rt(idx(C), 0); // RT_i: when sender i is free (meaningful in A)
  std::vector<InterTransfer> order;
  // Lookahead F_j over k in B \ {j}; 0 when B holds only j.
  auto lookahead = [&](int j) {
    double best = 0;
    bool any = false;
    for (int k = 0; k < C; ++k) {
      if (inA[idx(k)] || k == j) continue;
      double v = gap(j, k) + lat(j, k);
      if (h == InterHeuristic::ecef_lat || h == InterHeuristic::ecef_laT) v += c.intra[idx(k)];
      if (!any)
        best = v;
      else
        best = h == InterHeuristic::ecef_laT ? std::max(best, v) : std::min(best, v);
      any = true;
    }
    return best;
  };
  for (int round = 1; round < C; ++round) {
    int bi = -1, bj = -1;
    double bkey = inf;
    if (h == InterHeuristic::flat) {
      bi = root_cluster;
      for (int j = 0; j < C && bj < 0; ++j)
        if (!inA[idx(j)]) bj = j;
    } else if (h == InterHeuristic::bottom_up) {
      // max over j in B of min over i in A of (g_ij + L_ij + T_j)
      double worst = -inf;
      for (int j = 0; j < C; ++j) {
        if (inA[idx(j)]) continue;
        int arg = -1;
        double mn = inf;
        for (int i = 0; i < C; ++i)
          if (inA[idx(i)] && gap(i, j) + lat(i, j) + c.intra[idx(j)] < mn) {
            mn = gap(i, j) + lat(i, j) + c.intra[idx(j)];
            arg = i;
          }
        if (mn > worst) {
          worst = mn;
          bi = arg;
          bj = j;
        }
      }
    } else {
      // F_j depends only on B: once per receiver and round.
      std::vector<double> F(idx(C), 0.0);
      if (h != InterHeuristic::fef && h != InterHeuristic::ecef)
        for (int j = 0; j < C; ++j)
          if (!inA[idx(j)]) F[idx(j)] = lookahead(j);
      for (int i = 0; i < C; ++i) {
        if (!inA[idx(i)]) continue;
        for (int j = 0; j < C; ++j) {
          if (inA[idx(j)]) continue;
          double key = 0;
          switch (h) {
          case InterHeuristic::fef:
            key = lat(i, j);
            break;
          case InterHeuristic::ecef:
            key = rt[idx(i)] + gap(i, j) + lat(i, j);
            break;
          default:
            key = rt[idx(i)] + gap(i, j) + lat(i, j) + F[idx(j)];
            break;
          }
          if (key < bkey) {
            bkey = key;
            bi = i;
            bj = j;
          }
        }
      }
    }
    order.push_back({bi, bj, rt[idx(bi)], 0});
    const double g = gap(bi, bj);
    rt[idx(bj)] = rt[idx(bi)] + g + lat(bi, bj);
    rt[idx(bi)] += g;
    inA[idx(bj)] = true;
  }
  return evaluate_inter(order, c, root_cluster, h);
}

// ---------------------------------------------------------------------------------------------------
// Cluster maps and the two-level plan

int ClusterMap::validate() const {
  const int C = static_cast<int>(clusters.size());
  detail::require(C >= 1, "ClusterMap: clusters must hold at least one cluster, got none");
  detail::require(inter.size() == idx(C) * idx(C), "ClusterMap: inter must have C*C = ", idx(C) * idx(C),
                  " pLogP entries, got ", inter.size());
  int P = 0;
  for (int c = 0; c < C; ++c) {
    detail::require(!clusters[idx(c)].ranks.empty(), "ClusterMap: cluster ", c, " has no ranks");
    P += static_cast<int>(clusters[idx(c)].ranks.size());
  }
  std::vector<int> seen(idx(P), -1);
  for (int c = 0; c < C; ++c)
    for (int r : clusters[idx(c)].ranks) {
      detail::require(r >= 0 && r < P, "ClusterMap: cluster ", c, " names rank ", r,
                      ", expected ranks in [0, ", P, ")");
      detail::require(seen[idx(r)] < 0, "ClusterMap: rank ", r, " is in clusters ", seen[idx(r)], " and ", c);
      seen[idx(r)] = c;
    }
  return P;
}

ClusterMap ClusterMap::uniform(std::span<const int> sizes, const PLogP& intra, const PLogP& inter) {
  detail::require(!sizes.empty(), "ClusterMap::uniform: sizes must name at least one cluster");
  ClusterMap map;
  int next = 0;
  for (int s : sizes) {
    detail::require(s >= 1, "ClusterMap::uniform: every cluster size must be >= 1, got ", s);
    ClusterSpec c{{}, intra};
    for (int i = 0; i < s; ++i) c.ranks.push_back(next++);
    map.clusters.push_back(std::move(c));
  }
  map.inter.assign(sizes.size() * sizes.size(), inter);
  return map;
}

std::vector<int> HierarchicalPlan::cluster_of() const {
  std::vector<int> of(idx(P), -1);
  for (std::size_t c = 0; c < clusters.size(); ++c)
    for (int r : clusters[c]) of[idx(r)] = static_cast<int>(c);
  return of;
}

double simulate_one_level(const ClusterMap& map, BcastAlgorithm a, int root, std::size_t m) {
  const int P = map.validate();
  detail::require(root >= 0 && root < P, "root: must be a rank in [0, ", P, "), got ", root);
  detail::require(a == BcastAlgorithm::flat || a == BcastAlgorithm::chain || a == BcastAlgorithm::binary ||
                      a == BcastAlgorithm::binomial,
                  "simulate_one_level: algorithm must be flat, chain, binary or binomial, got ",
                  to_string(a));
  const int C = static_cast<int>(map.clusters.size());
  std::vector<int> of(idx(P));
  for (int c = 0; c < C; ++c)
    for (int r : map.clusters[idx(c)].ranks) of[idx(r)] = c;
  auto link = [&](int x, int y) -> const PLogP& {
    const int cx = of[idx(x)], cy = of[idx(y)];
    return cx == cy ? map.clusters[idx(cx)].intra : map.inter[idx(cx) * idx(C) + idx(cy)];
  };
  const auto children = bcast_tree(a, P);
  std::vector<double> have(idx(P), 0); // relative ranks; children come after their parent
  double done = 0;
  for (int r = 0; r < P; ++r) {
    const int from = (root + r) % P;
    double t = have[idx(r)];
    for (int c : children[idx(r)]) {
      const PLogP& l = link(from, (root + c) % P);
      t += l.g(m);
      have[idx(c)] = t + l.L();
      done = std::max(done, have[idx(c)]);
    }
  }
  return done;
}

HierarchicalPlan plan_hierarchical(const ClusterMap& map, int root, std::size_t m,
                                   std::span<const InterHeuristic> heuristics) {
  const int P = map.validate();
  detail::require(root >= 0 && root < P, "root: must be a rank in [0, ", P, "), got ", root);
  if (heuristics.empty()) heuristics = k_heuristics;
  const int C = static_cast<int>(map.clusters.size());
  HierarchicalPlan plan;
  plan.P = P;
  plan.root = root;
  plan.m = m;
  int root_cluster = 0;
  InterClusterCosts costs;
  costs.C = C;
  for (int c = 0; c < C; ++c) {
    std::vector<int> ranks = map.clusters[idx(c)].ranks;
    std::sort(ranks.begin(), ranks.end());
    if (auto it = std::find(ranks.begin(), ranks.end(), root); it != ranks.end()) {
      std::rotate(ranks.begin(), it, it + 1); // the root coordinates its own cluster
      root_cluster = c;
    }
    plan.intra.push_back(choose_bcast(static_cast<int>(ranks.size()), m, map.clusters[idx(c)].intra));
    costs.intra.push_back(plan.intra.back().chosen().time);
    plan.clusters.push_back(std::move(ranks));
  }
  for (int i = 0; i < C; ++i)
    for (int j = 0; j < C; ++j) {
      const PLogP& e = map.inter[idx(i) * idx(C) + idx(j)];
      costs.gap.push_back(i == j ? 0.0 : e.g(m));
      costs.latency.push_back(i == j ? 0.0 : e.L());
    }
  for (InterHeuristic h : heuristics) plan.candidates.push_back(schedule_inter(h, costs, root_cluster));
  for (std::size_t i = 1; i < plan.candidates.size(); ++i)
    if (plan.candidates[i].makespan < plan.candidates[plan.best].makespan) plan.best = i;
  return plan;
}

} // namespace hpf
