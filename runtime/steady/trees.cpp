// Weighted trees (Legrand, Marchal and Robert, Sections 4.3-4.4, Figure 8), the fixed-period approximation
// (Section 4.6) and the weighted-matching decomposition of one period (Section 3.3).
#include <hpf/core/error.hpp>
#include <hpf/schedule/matching.hpp>
#include <hpf/steady/steady.hpp>

#include <algorithm>
#include <map>
#include <tuple>

namespace hpf::steady {

namespace {

// The remaining solution A of Figure 8, indexed for FIND_TREE.
struct Remaining {
  std::map<std::pair<int, int>, Rational> send;            // (edge, type)
  std::map<std::tuple<int, int, int, int>, Rational> cons; // (node, k, l, m)
};

struct TreeBuilder {
  const Platform& g;
  const SteadySolution& s;
  Remaining& A;
  std::vector<TreeTask> tasks;

  [[nodiscard]] bool is_leaf(int type, int node) const {
    const MessageType& t = s.types[static_cast<std::size_t>(type)];
    if (s.problem.op != SteadyOp::Reduce) return node == t.src;
    return t.first == t.last && node == s.problem.participants[static_cast<std::size_t>(t.first)];
  }

  // FIND_TREE (Figure 8), depth first: the task producing (type at node), then its inputs.
  // Returns the task index, or -1 for a leaf input. Each (value, node) has finitely many producers
  // and, after cycle cancellation, the flow of a value is acyclic and computations only grow
  // intervals, so the recursion terminates.
  int find(int type, int node, int depth) {
    detail::require(depth <= 4 * (g.node_count() + 1) * static_cast<int>(s.types.size() + 1),
                    "extract_trees: FIND_TREE does not terminate (the solution has a cycle)");
    if (is_leaf(type, node)) return -1;
    const MessageType& t = s.types[static_cast<std::size_t>(type)];
    if (s.problem.op == SteadyOp::Reduce) {
      for (int l = t.first; l < t.last; ++l) {
        auto it = A.cons.find({node, t.first, l, t.last});
        if (it == A.cons.end() || it->second <= 0) continue;
        // "the message v[k,m] is computed in place": inputs v[k,l] and v[l+1,m] on the same node.
        const int me = static_cast<int>(tasks.size());
        TreeTask task;
        task.kind = TreeTask::Compute;
        task.node = node;
        task.type = type;
        task.k = t.first;
        task.l = l;
        task.m = t.last;
        tasks.push_back(task);
        const int a = find(s.type_index({-1, -1, t.first, l}), node, depth + 1);
        const int b = find(s.type_index({-1, -1, l + 1, t.last}), node, depth + 1);
        tasks[static_cast<std::size_t>(me)].input_a = a;
        tasks[static_cast<std::size_t>(me)].input_b = b;
        return me;
      }
    }
    for (int e : g.in_edges(node)) {
      auto it = A.send.find({e, type});
      if (it == A.send.end() || it->second <= 0) continue;
      // "the message v[k,m] is received from P_j".
      const int me = static_cast<int>(tasks.size());
      TreeTask task;
      task.kind = TreeTask::Send;
      task.node = g.edge(e).from;
      task.peer = node;
      task.edge = e;
      task.type = type;
      task.k = t.first;
      task.m = t.last;
      tasks.push_back(task);
      tasks[static_cast<std::size_t>(me)].input_a = find(type, g.edge(e).from, depth + 1);
      return me;
    }
    detail::fail("extract_trees: FIND_TREE found no producer of type ", type, " on node '", g.node(node).name,
                 "' (the solution violates the conservation law)");
  }
};

Rational& remaining_of(Remaining& A, const TreeTask& t) {
  if (t.kind == TreeTask::Send) return A.send.at({t.edge, t.type});
  return A.cons.at({t.node, t.k, t.l, t.m});
}

} // namespace

std::vector<WeightedTree> extract_trees(const Platform& g, const SteadySolution& s) {
  Remaining A;
  for (const auto& f : s.sends) A.send[{f.edge, f.type}] += f.rate;
  for (const auto& t : s.tasks) A.cons[{t.node, t.k, t.l, t.m}] += t.rate;
  // Groups of trees: one per delivered type (scatter/gossip), one for reduce.
  std::vector<std::pair<int, int>> roots; // (type, node)
  if (s.problem.op == SteadyOp::Reduce)
    roots.emplace_back(s.type_index({-1, -1, 0, static_cast<int>(s.problem.participants.size()) - 1}),
                       s.problem.targets.front());
  else
    for (std::size_t t = 0; t < s.types.size(); ++t) roots.emplace_back(static_cast<int>(t), s.types[t].dst);
  std::vector<WeightedTree> trees;
  const std::size_t max_trees = A.send.size() + A.cons.size() + 1; // each tree zeroes one task (Thm 1)
  for (std::size_t gi = 0; gi < roots.size(); ++gi) {
    Rational got = 0;
    // EXTRACT_TREE: while sum w(T) < TP.
    while (got < s.throughput) {
      detail::require(trees.size() < max_trees, "extract_trees: more trees than tasks; this is a bug");
      TreeBuilder b{g, s, A, {}};
      const int root = b.find(roots[gi].first, roots[gi].second, 0);
      detail::require(root == 0, "extract_trees: the delivered value is a leaf; nothing to reduce");
      Rational w = s.throughput - got; // a tree never carries more than what is left to deliver
      for (const auto& t : b.tasks) w = std::min(w, remaining_of(A, t));
      for (const auto& t : b.tasks) remaining_of(A, t) -= w;
      trees.push_back({w, s.problem.op == SteadyOp::Reduce ? 0 : roots[gi].first, std::move(b.tasks)});
      got += w;
    }
  }
  return trees;
}

std::string type_name(const Platform& g, const SteadySolution& s, int type) {
  detail::require(type >= 0 && type < static_cast<int>(s.types.size()), "type_name: type must be in [0, ",
                  s.types.size(), "), got ", type);
  const MessageType& t = s.types[static_cast<std::size_t>(type)];
  if (s.problem.op == SteadyOp::Scatter) return "m[" + g.node(t.dst).name + "]";
  if (s.problem.op == SteadyOp::Gossip) return "m[" + g.node(t.src).name + "," + g.node(t.dst).name + "]";
  return detail::concat("v[", t.first, ",", t.last, "]");
}

std::string task_name(const Platform& g, const SteadySolution& s, const TreeTask& t) {
  if (t.kind == TreeTask::Compute)
    return detail::concat("cons ", g.node(t.node).name, " T(", t.k, ",", t.l, ",", t.m, ")");
  return "send " + g.node(t.node).name + "->" + g.node(t.peer).name + " " + type_name(g, s, t.type);
}

FixedPeriod fixed_period(const SteadySolution& s, const std::vector<WeightedTree>& trees,
                         const BigInt& period) {
  detail::require(period >= 1, "fixed_period: T_fixed must be >= 1, got ", period);
  FixedPeriod out;
  out.period = period;
  // r(T) = floor(w(T) / T * T_fixed), with w(T) / T the rate per time unit (Section 4.6).
  std::vector<BigInt> r;
  std::map<int, BigInt> per_group;
  for (const auto& t : trees) {
    const Rational x = t.weight * Rational(period);
    r.push_back(numerator(x) / denominator(x));
    per_group[t.group] += r.back();
  }
  BigInt delivered = 0;
  if (s.problem.op == SteadyOp::Reduce) {
    for (const auto& x : r) delivered += x;
  } else if (!per_group.empty()) {
    // Every destination must receive the same number per period: trim each type to the smallest.
    delivered = per_group.begin()->second;
    for (const auto& [grp, x] : per_group) delivered = std::min(delivered, x);
    if (per_group.size() < s.types.size()) delivered = 0; // some type has no route at all
    std::map<int, BigInt> excess;
    for (const auto& [grp, x] : per_group) excess[grp] = x - delivered;
    for (std::size_t i = r.size(); i-- > 0;) {
      BigInt& ex = excess[trees[i].group];
      const BigInt cut = std::min(ex, r[i]);
      r[i] -= cut;
      ex -= cut;
    }
  }
  for (std::size_t i = 0; i < trees.size(); ++i) {
    if (r[i] == 0) continue;
    WeightedTree t = trees[i];
    t.weight = Rational(r[i]) / Rational(period);
    out.trees.push_back(std::move(t));
  }
  out.throughput = Rational(delivered) / Rational(period);
  out.loss_bound = Rational(static_cast<long>(trees.size())) / Rational(period);
  return out;
}

std::vector<MatrixMatching> decompose_weighted_bipartite(const std::vector<std::vector<Rational>>& w) {
  const std::size_t n = w.size();
  for (const auto& row : w) {
    detail::require(row.size() == n, "decompose_weighted_bipartite: the matrix must be square, got a row of ",
                    row.size(), " for ", n, " rows");
    for (const auto& x : row)
      if (x < 0) detail::fail("decompose_weighted_bipartite: entries must be >= 0, got ", to_string(x));
  }
  // Delta = the largest row or column sum: the length of the shortest schedule (one-port).
  std::vector<Rational> rs(n, Rational(0)), cs(n, Rational(0));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      rs[i] += w[i][j];
      cs[j] += w[i][j];
    }
  Rational delta = 0;
  for (std::size_t i = 0; i < n; ++i) delta = std::max({delta, rs[i], cs[i]});
  // Pad to a 2n x 2n matrix whose rows and columns all sum to Delta: [[W, diag(D - r)], [diag(D - c), W^T]].
  // By Birkhoff / König it is Delta times a doubly stochastic matrix, so its support always holds a
  // perfect matching; peeling matchings off by their smallest entry zeroes one entry per round.
  const std::size_t m = 2 * n;
  std::vector<std::vector<Rational>> B(m, std::vector<Rational>(m, Rational(0)));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      B[i][j] = w[i][j];
      B[n + j][n + i] = w[i][j];
    }
  for (std::size_t i = 0; i < n; ++i) {
    B[i][n + i] = delta - rs[i];
    B[n + i][i] = delta - cs[i];
  }
  std::vector<MatrixMatching> out;
  Rational left = delta;
  while (left > 0) {
    // A perfect matching on the support from the matching engine (schedule/matching.hpp): with unit
    // priority, its priority-first optimum is a maximum-cardinality matching, which is perfect here;
    // weight 1 on the real (top-left) pairs makes it carry as many real transfers as it can.
    std::vector<BipartiteEdge> support;
    for (std::size_t r = 0; r < m; ++r)
      for (std::size_t c = 0; c < m; ++c)
        if (B[r][c] > 0)
          support.push_back(
              {static_cast<int>(r), static_cast<int>(c), r < n && c < n ? index_t{1} : index_t{0}, 1});
    const std::vector<std::size_t> match =
        max_weight_bipartite_matching(static_cast<int>(m), static_cast<int>(m), support);
    detail::require(match.size() == m, "decompose_weighted_bipartite: no perfect matching; this is a bug");
    std::vector<int> match_col(m, -1);
    for (std::size_t e : match) match_col[static_cast<std::size_t>(support[e].right)] = support[e].left;
    Rational step = left;
    for (std::size_t c = 0; c < m; ++c) step = std::min(step, B[static_cast<std::size_t>(match_col[c])][c]);
    MatrixMatching mm{step, std::vector<int>(n, -1)};
    bool real = false;
    for (std::size_t c = 0; c < m; ++c) {
      const auto r = static_cast<std::size_t>(match_col[c]);
      B[r][c] -= step;
      if (r < n && c < n) {
        mm.perm[r] = static_cast<int>(c);
        real = true;
      }
    }
    left -= step;
    if (real) out.push_back(std::move(mm));
  }
  return out;
}

PeriodicSchedule periodic_schedule(const Platform& g, const SteadySolution& s,
                                   std::vector<WeightedTree> trees, const BigInt& period) {
  detail::require(period >= 1, "periodic_schedule: period must be >= 1, got ", period);
  PeriodicSchedule ps;
  ps.period = period;
  const auto n = static_cast<std::size_t>(g.node_count());
  // Per platform edge (= pair P_i^send -> P_j^recv of G_B): its transfers in (tree, task) order.
  struct Item {
    int tree, task, edge, type;
    Rational count, time;
  };
  std::map<int, std::vector<Item>> per_edge;
  std::vector<std::vector<Rational>> w(n, std::vector<Rational>(n, Rational(0)));
  for (std::size_t ti = 0; ti < trees.size(); ++ti) {
    const Rational c = trees[ti].weight * Rational(period);
    if (denominator(c) != 1)
      detail::fail("periodic_schedule: tree ", ti, " carries ", to_string(c),
                   " operations per period; the period must make every tree count an integer");
    ps.tree_count.push_back(numerator(c));
    for (std::size_t k = 0; k < trees[ti].tasks.size(); ++k) {
      const TreeTask& t = trees[ti].tasks[k];
      if (t.kind != TreeTask::Send) continue;
      const Rational time = c * s.problem.message_size * g.edge(t.edge).cost;
      per_edge[t.edge].push_back({static_cast<int>(ti), static_cast<int>(k), t.edge, t.type, c, time});
      w[static_cast<std::size_t>(t.node)][static_cast<std::size_t>(t.peer)] += time;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    Rational r = 0, c = 0;
    for (std::size_t j = 0; j < n; ++j) {
      r += w[i][j];
      c += w[j][i];
    }
    if (r > Rational(period) || c > Rational(period))
      detail::fail("periodic_schedule: node '", g.node(static_cast<int>(i)).name, "' would send ",
                   to_string(r), " and receive ", to_string(c), " time units per period of ", period);
  }
  const auto mm = decompose_weighted_bipartite(w);
  // Hand each pair's time to its transfers in order; a transfer may straddle matchings (Figure 3).
  std::map<int, std::pair<std::size_t, Rational>> cursor; // edge -> (item index, time already used)
  for (const auto& m : mm) {
    Matching out;
    out.duration = m.duration;
    for (std::size_t i = 0; i < n; ++i) {
      if (m.perm[i] < 0) continue;
      const int e = *g.find_edge(static_cast<int>(i), m.perm[i]);
      auto& items = per_edge.at(e);
      auto& [idx, used] = cursor[e];
      Rational budget = m.duration;
      while (budget > 0 && idx < items.size()) {
        const Item& it = items[idx];
        const Rational take = std::min(budget, it.time - used);
        const Rational unit = s.problem.message_size * g.edge(e).cost;
        out.transfers.push_back({it.tree, it.task, e, it.type, take / unit, take});
        used += take;
        budget -= take;
        if (used == it.time) {
          ++idx;
          used = 0;
        }
      }
    }
    ps.busy += m.duration;
    ps.matchings.push_back(std::move(out));
  }
  ps.trees = std::move(trees);
  return ps;
}

} // namespace hpf::steady
