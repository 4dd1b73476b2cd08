// Reduction trees of Canon and Antoniu: Algorithms 1-3, the binomial and Fibonacci
// strategies, the evaluator of Proposition 3 and the rank-order relabelling of Lemma 1. Pure.
#include <hpf/reduce/tree.hpp>

#include <hpf/core/error.hpp>
#include <hpf/core/names.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <queue>
#include <sstream>
#include <utility>

namespace hpf {

namespace {

using Slot = std::pair<double, int>; // (reversed time s_j, machine j)
using MinHeap = std::priority_queue<Slot, std::vector<Slot>, std::greater<>>;

std::size_t idx(int i) { return static_cast<std::size_t>(i); }

void check_n(const char* where, int n) {
  detail::require(n >= 1, where, ": n (number of machines) must be >= 1, got ", n);
}

void check_costs(const char* where, ReduceCosts costs) {
  detail::require(std::isfinite(costs.d) && costs.d >= 0, where,
                  ": transfer cost d must be finite and >= 0, got ", costs.d);
  detail::require(std::isfinite(costs.c) && costs.c >= 0, where,
                  ": computation cost c must be finite and >= 0, got ", costs.c);
}

void check_K(const char* where, int K) { detail::require(K >= 1, where, ": K must be >= 1, got ", K); }

/// Machines in breadth-first order from the sink; throws unless `parent` is a tree.
std::vector<int> bfs_order(std::span<const int> parent, std::vector<std::vector<int>>& children, int& sink) {
  const int n = static_cast<int>(parent.size());
  detail::require(n >= 1, "evaluate_tree: the tree must have at least one machine, got 0");
  children.assign(idx(n), {});
  sink = -1;
  for (int i = 0; i < n; ++i) {
    const int p = parent[idx(i)];
    if (p == -1) {
      detail::require(sink < 0, "evaluate_tree: machines ", sink, " and ", i,
                      " both have parent -1; a tree has exactly one sink");
      sink = i;
      continue;
    }
    detail::require(p >= 0 && p < n && p != i, "evaluate_tree: parent[", i,
                    "] must be -1 or another machine in [0, ", n, "), got ", p);
    children[idx(p)].push_back(i);
  }
  detail::require(sink >= 0, "evaluate_tree: no machine has parent -1; a tree has exactly one sink");
  std::vector<int> order;
  order.reserve(idx(n));
  order.push_back(sink);
  for (std::size_t k = 0; k < order.size(); ++k)
    for (int u : children[idx(order[k])]) order.push_back(u);
  detail::require(static_cast<int>(order.size()) == n, "evaluate_tree: ", n - static_cast<int>(order.size()),
                  " machines do not reach the sink ", sink, " (the parent array has a cycle)");
  return order;
}

ReductionTree from_schedule(std::vector<int> parent, ReduceCosts costs, TreeSchedule s) {
  ReductionTree t;
  t.costs = costs;
  t.parent = std::move(parent);
  t.start = std::move(s.start);
  t.inputs = std::move(s.inputs);
  t.root = t.sink();
  t.length = s.length;
  return t;
}

/// Algorithm 1 (and Algorithm 3 when `reducers` < n): the parents of machines 1..n-1 (0-based; the
/// paper's machine 1 is our 0) and the length the reversed schedule reaches.
std::pair<std::vector<int>, double> greedy_parents(int n, ReduceCosts costs, int reducers) {
  std::vector<int> parent(idx(n), -1);
  const double step = std::max(costs.d, costs.c);
  double length = 0;
  MinHeap heap; // s_j for the machines that may still be chosen (the first `reducers` ones)
  heap.emplace(0.0, 0);
  for (int i = 1; i < n; ++i) {
    // Line 6/7: M <- argmin s_j + c + d; ties go to the lowest machine so every rank agrees.
    const auto [sM, M] = heap.top();
    heap.pop();
    const double si = sM + costs.c + costs.d; // Line 7/8: i is available once M's transfer ends
    heap.emplace(sM + step, M);               // Line 8/9: M's next combination overlaps the transfer
    if (i < reducers) heap.emplace(si, i);    // Algorithm 3 only lets the first K machines combine
    parent[idx(i)] = M;
    length = std::max(length, si);
  }
  return {std::move(parent), length};
}

} // namespace

namespace {
constexpr NameTable<ReduceStrategy, 5> reduce_strategy_names{
    {{{ReduceStrategy::greedy, "greedy"},
      {ReduceStrategy::binomial, "binomial"},
      {ReduceStrategy::fibonacci, "fibonacci"},
      {ReduceStrategy::limited_transfers, "limited-transfers"},
      {ReduceStrategy::limited_reducers, "limited-reducers"}}}};
} // namespace

std::string to_string(ReduceStrategy s) { return std::string(reduce_strategy_names.name(s)); }

ReduceStrategy parse_reduce_strategy(std::string_view name, std::string_view what) {
  return reduce_strategy_names.parse(name, what);
}

int ReductionTree::sink() const {
  const auto it = std::find(parent.begin(), parent.end(), -1);
  detail::require(it != parent.end(), "ReductionTree::sink: no machine has parent -1");
  return static_cast<int>(it - parent.begin());
}

int ReductionTree::reducers() const {
  return static_cast<int>(
      std::count_if(inputs.begin(), inputs.end(), [](const std::vector<int>& in) { return !in.empty(); }));
}

int ReductionTree::max_concurrent_transfers() const {
  if (costs.d <= 0) return 0;                 // transfers of length 0 never overlap
  std::vector<std::pair<double, int>> events; // (time, +1 start / -1 end)
  for (std::size_t i = 0; i < parent.size(); ++i)
    if (parent[i] >= 0) {
      events.emplace_back(start[i], +1);
      events.emplace_back(start[i] + costs.d, -1);
    }
  if (forward_start >= 0) {
    events.emplace_back(forward_start, +1);
    events.emplace_back(forward_start + costs.d, -1);
  }
  // Times come from sums of d and c: a transfer that ends when another starts may differ from it by
  // rounding. Treat such ends as happening first (intervals are half-open).
  const double eps = 1e-9 * std::max(1.0, length);
  for (auto& e : events)
    if (e.second < 0) e.first -= eps;
  std::sort(events.begin(), events.end());
  int cur = 0;
  int best = 0;
  for (const auto& e : events) best = std::max(best, cur += e.second);
  return best;
}

TreeSchedule evaluate_tree(std::span<const int> parent, ReduceCosts costs) {
  return evaluate_tree(parent, costs, {});
}

TreeSchedule evaluate_tree(std::span<const int> parent, ReduceCosts costs, std::span<const double> release) {
  check_costs("evaluate_tree", costs);
  std::vector<std::vector<int>> children;
  int sink = -1;
  const std::vector<int> order = bfs_order(parent, children, sink);
  const std::size_t n = parent.size();
  detail::require(release.empty() || release.size() == n,
                  "evaluate_tree: release must be empty or hold one time per "
                  "machine (",
                  n, "), got ", release.size());
  TreeSchedule s;
  s.start.assign(n, -1.0);
  s.ready.assign(n, 0.0);
  s.inputs.assign(n, {});
  std::vector<double> avail(n, 0.0);
  // Children before parents: reverse breadth-first order.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int v = *it;
    auto& in = s.inputs[idx(v)];
    in = children[idx(v)];
    for (int u : in) avail[idx(u)] = std::max(s.ready[idx(u)], release.empty() ? 0.0 : release[idx(u)]);
    // One-port: v receives one input at a time, in the order the inputs become available (first
    // come, first served; for identical jobs this order is optimal). Proposition 2/3: v's k-th
    // combination ends at max(previous end, arrival of input k) + c.
    std::sort(in.begin(), in.end(), [&](int a, int b) {
      return avail[idx(a)] != avail[idx(b)] ? avail[idx(a)] < avail[idx(b)] : a < b;
    });
    double port_free = 0.0;
    double done = 0.0;
    for (int u : in) {
      const double st = std::max(avail[idx(u)], port_free);
      s.start[idx(u)] = st;
      port_free = st + costs.d;
      done = std::max(done, st + costs.d) + costs.c;
    }
    s.ready[idx(v)] = done; // 0 for a leaf: its element is there from the start
  }
  s.length = s.ready[idx(sink)];
  return s;
}

ReductionTree greedy_tree(int n, ReduceCosts costs) {
  check_n("greedy_tree", n);
  check_costs("greedy_tree", costs);
  auto [parent, length] = greedy_parents(n, costs, n);
  (void)length;
  TreeSchedule s = evaluate_tree(parent, costs);
  return from_schedule(std::move(parent), costs, std::move(s));
}

double greedy_length(int n, ReduceCosts costs) {
  check_n("greedy_length", n);
  check_costs("greedy_length", costs);
  return greedy_parents(n, costs, n).second;
}

ReductionTree limited_reducers_tree(int n, int K, ReduceCosts costs) {
  check_n("limited_reducers_tree", n);
  check_K("limited_reducers_tree", K);
  check_costs("limited_reducers_tree", costs);
  auto [parent, length] = greedy_parents(n, costs, K);
  (void)length;
  TreeSchedule s = evaluate_tree(parent, costs);
  return from_schedule(std::move(parent), costs, std::move(s));
}

ReductionTree limited_transfers_tree(int n, int K, ReduceCosts costs) {
  check_n("limited_transfers_tree", n);
  check_K("limited_transfers_tree", K);
  check_costs("limited_transfers_tree", costs);
  // Algorithm 2 in reversed time: t[i] is when the transfer to machine i completes.
  std::vector<int> parent(idx(n), -1);
  std::vector<double> t(idx(n), 0.0);
  MinHeap heap;
  heap.emplace(0.0, 0);
  double L = 0;
  for (int i = 1; i < n; ++i) {
    const auto [sM, M] = heap.top();
    heap.pop();
    // Line 8: wait for the transfer K places earlier to complete, so that at most K are in
    // progress (t is non-decreasing in i). Transfers before the first one impose nothing.
    const double earlier = i - K >= 1 ? t[idx(i - K)] : 0.0;
    t[idx(i)] = std::max(sM + costs.c, earlier) + costs.d;
    heap.emplace(t[idx(i)], i);                                   // Line 9: s_i <- t_i
    heap.emplace(std::max(sM + costs.c, t[idx(i)] - costs.c), M); // Line 10
    parent[idx(i)] = M;
    L = std::max(L, t[idx(i)]);
  }
  // Lines 13-15: back to forward time. The transfer that completes at reversed time t[i] starts at
  // forward time L - t[i], L = max t = t_n. (Canon and Antoniu's line 14 reads t_n - t_i + c, which for n = 2
  // would start the only transfer at c instead of 0 and give 2c + d; LimitedTransfersOptimalAgainst-
  // ExhaustiveSearch checks that L - t[i] reaches the optimum.)
  std::vector<double> release(idx(n), 0.0);
  for (int i = 1; i < n; ++i) release[idx(i)] = L - t[idx(i)];
  TreeSchedule s = evaluate_tree(parent, costs, release);
  return from_schedule(std::move(parent), costs, std::move(s));
}

ReductionTree binomial_strategy_tree(int n, ReduceCosts costs) {
  check_n("binomial_strategy_tree", n);
  check_costs("binomial_strategy_tree", costs);
  // Section 7.3: min(d, c) set to 0. Algorithm 1 only compares sums of c + d and max(d, c), so any
  // (x, 0) with x > 0 gives the same structure.
  std::vector<int> parent = greedy_parents(n, ReduceCosts{1.0, 0.0}, n).first;
  TreeSchedule s = evaluate_tree(parent, costs);
  return from_schedule(std::move(parent), costs, std::move(s));
}

ReductionTree fibonacci_strategy_tree(int n, ReduceCosts costs) {
  check_n("fibonacci_strategy_tree", n);
  check_costs("fibonacci_strategy_tree", costs);
  std::vector<int> parent = greedy_parents(n, ReduceCosts{1.0, 1.0}, n).first; // Section 7.3: d = c
  TreeSchedule s = evaluate_tree(parent, costs);
  return from_schedule(std::move(parent), costs, std::move(s));
}

ReductionTree in_rank_order(const ReductionTree& tree, int root) {
  const int n = tree.size();
  detail::require(root >= 0 && root < n, "in_rank_order: root must be a machine in [0, ", n, "), got ", root);
  detail::require(tree.forward_start < 0 && tree.root == tree.sink(),
                  "in_rank_order: the tree is already relabelled (its result is forwarded to ", tree.root,
                  ")");
  const int sink = tree.sink();
  // Subtree sizes, children before parents.
  std::vector<int> order{sink};
  for (std::size_t k = 0; k < order.size(); ++k)
    for (int u : tree.inputs[idx(order[k])]) order.push_back(u);
  std::vector<int> size(idx(n), 1);
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    for (int u : tree.inputs[idx(*it)]) size[idx(*it)] += size[idx(u)];

  // Lemma 1: the machines are interchangeable, so give each subtree a contiguous range of ranks. The
  // sink's range is [0, n); its own position is the total size of the inputs placed on its left.
  // Choose them by subset sum so that the sink lands on `root`.
  const auto& top = tree.inputs[idx(sink)];
  std::vector<int> first_reach(idx(root) + 1, -1); // first input index that made a sum reachable
  std::vector<char> reach(idx(root) + 1, 0);
  reach[0] = 1;
  for (std::size_t k = 0; k < top.size() && !reach[idx(root)]; ++k) {
    const int sz = size[idx(top[k])];
    for (int sum = root; sum >= sz; --sum)
      if (!reach[idx(sum)] && reach[idx(sum - sz)]) {
        reach[idx(sum)] = 1;
        first_reach[idx(sum)] = static_cast<int>(k);
      }
  }
  std::vector<char> left(top.size(), 0);
  const bool placed = reach[idx(root)] != 0;
  if (placed)
    for (int sum = root; sum > 0;) {
      const int k = first_reach[idx(sum)]; // reached from sum - size, itself reached with earlier inputs
      left[idx(k)] = 1;
      sum -= size[idx(top[idx(k)])];
    }

  std::vector<int> pos(idx(n), -1);
  pos[idx(sink)] = placed ? root : 0;
  int next_left = pos[idx(sink)] - 1;
  int next_right = pos[idx(sink)] + 1;
  std::vector<std::pair<int, int>> stack; // (machine, lowest rank of its range)
  for (std::size_t k = 0; k < top.size(); ++k) {
    const int u = top[k];
    if (left[k]) {
      next_left -= size[idx(u)];
      stack.emplace_back(u, next_left + 1);
    } else {
      stack.emplace_back(u, next_right);
      next_right += size[idx(u)];
    }
  }
  // Below the sink every machine is the lowest rank of its range and its inputs follow it to the
  // right in receive order (a pre-order numbering), so every input is combined as (acc * input).
  while (!stack.empty()) {
    const auto [v, lo] = stack.back();
    stack.pop_back();
    pos[idx(v)] = lo;
    int next = lo + 1;
    for (int u : tree.inputs[idx(v)]) {
      stack.emplace_back(u, next);
      next += size[idx(u)];
    }
  }

  ReductionTree out;
  out.costs = tree.costs;
  out.parent.assign(idx(n), -1);
  out.start.assign(idx(n), -1.0);
  out.inputs.assign(idx(n), {});
  for (int v = 0; v < n; ++v) {
    const int pv = pos[idx(v)];
    out.parent[idx(pv)] = tree.parent[idx(v)] < 0 ? -1 : pos[idx(tree.parent[idx(v)])];
    out.start[idx(pv)] = tree.start[idx(v)];
    for (int u : tree.inputs[idx(v)]) out.inputs[idx(pv)].push_back(pos[idx(u)]);
  }
  out.root = root;
  out.length = tree.length;
  if (!placed) { // one more transfer: the sink (rank 0) sends the result to root
    out.forward_start = tree.length;
    out.length = tree.length + tree.costs.d;
  }
  return out;
}

void check_rank_order(const ReductionTree& tree) {
  const int n = tree.size();
  detail::require(static_cast<int>(tree.inputs.size()) == n && static_cast<int>(tree.start.size()) == n,
                  "check_rank_order: parent, start and inputs must all hold ", n, " entries");
  const int sink = tree.sink();
  std::vector<int> order{sink};
  for (std::size_t k = 0; k < order.size(); ++k)
    for (int u : tree.inputs[idx(order[k])]) {
      detail::require(u >= 0 && u < n && tree.parent[idx(u)] == order[k], "check_rank_order: machine ", u,
                      " is an input of ", order[k], " but its parent is ",
                      u >= 0 && u < n ? tree.parent[idx(u)] : -2);
      order.push_back(u);
    }
  detail::require(static_cast<int>(order.size()) == n, "check_rank_order: the inputs lists reach ",
                  order.size(), " of ", n, " machines");
  std::vector<int> lo(idx(n));
  std::vector<int> hi(idx(n));
  for (int v = 0; v < n; ++v) lo[idx(v)] = hi[idx(v)] = v;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int v = *it;
    for (int u : tree.inputs[idx(v)]) {
      if (u < v && hi[idx(u)] + 1 == lo[idx(v)])
        lo[idx(v)] = lo[idx(u)];
      else if (u > v && lo[idx(u)] == hi[idx(v)] + 1)
        hi[idx(v)] = hi[idx(u)];
      else
        detail::fail("check_rank_order: machine ", v, " holds ranks [", lo[idx(v)], ", ", hi[idx(v)],
                     "] and receives ranks [", lo[idx(u)], ", ", hi[idx(u)], "] from ", u,
                     ", which are not adjacent: a non-commutative operator would combine out of order");
    }
  }
  detail::require(lo[idx(sink)] == 0 && hi[idx(sink)] == n - 1, "check_rank_order: the sink ", sink,
                  " ends with ranks [", lo[idx(sink)], ", ", hi[idx(sink)], "], not [0, ", n - 1, "]");
  detail::require(tree.root == sink || tree.forward_start >= 0,
                  "check_rank_order: the result must reach root ", tree.root, " but the sink is ", sink,
                  " and nothing forwards it");
}

Schedule tree_schedule(const ReductionTree& tree) {
  const int n = tree.size();
  detail::require(static_cast<int>(tree.inputs.size()) == n,
                  "tree_schedule: parent and inputs must both hold ", n, " entries, inputs holds ",
                  tree.inputs.size());
  const int sink = tree.sink();
  detail::require(tree.root >= 0 && tree.root < n, "tree_schedule: root must be a machine in [0, ", n,
                  "), got ", tree.root);
  // Post-order walk from the sink, each machine's inputs in receive order: when input u of v is
  // finished, its own receives have their steps, and so has v's previous input. u's transfer takes
  // the first step after both (greedy levels: the longest dependency chain ending at it).
  std::vector<int> step(idx(n), -1);
  std::vector<int> last_recv(idx(n), -1); // step of the latest receive of each machine so far
  std::vector<char> seen(idx(n), 0);
  std::vector<std::pair<int, std::size_t>> stack{{sink, 0}};
  seen[idx(sink)] = 1;
  int visited = 1;
  while (!stack.empty()) {
    const auto [v, k] = stack.back();
    const auto& in = tree.inputs[idx(v)];
    if (k < in.size()) {
      const int u = in[k];
      detail::require(u >= 0 && u < n && tree.parent[idx(u)] == v && seen[idx(u)] == 0,
                      "tree_schedule: machine ", u, " is listed as an input of ", v, " but its parent is ",
                      u >= 0 && u < n ? tree.parent[idx(u)] : -2, " or it is listed twice");
      seen[idx(u)] = 1;
      ++visited;
      stack.emplace_back(u, 0);
      continue;
    }
    stack.pop_back();
    if (stack.empty()) break;
    const int p = stack.back().first;
    step[idx(v)] = std::max(last_recv[idx(v)], last_recv[idx(p)]) + 1;
    last_recv[idx(p)] = step[idx(v)];
    ++stack.back().second;
  }
  detail::require(visited == n, "tree_schedule: the inputs lists reach ", visited, " of ", n, " machines");
  // The sink forwards the result to the root once it has it (in_rank_order could not place it there).
  const int forward = tree.root != sink ? last_recv[idx(sink)] + 1 : -1;
  const int steps = std::max(forward, *std::max_element(step.begin(), step.end())) + 1;
  std::vector<Step> out(idx(steps));
  for (int u = 0; u < n; ++u) // by sender within each step, so every rank builds the same schedule
    if (u != sink) out[idx(step[idx(u)])].messages.push_back({u, tree.parent[idx(u)], 1});
  if (forward >= 0) out[idx(forward)].messages.push_back({sink, tree.root, 1});
  for (Step& s : out)
    std::sort(s.messages.begin(), s.messages.end(),
              [](const Message& a, const Message& b) { return a.src < b.src; });
  return Schedule(n, n, std::move(out));
}

ReductionTree plan_reduction_tree(int n, ReduceCosts costs, const TreeOptions& opts) {
  check_n("plan_reduction_tree", n);
  check_costs("plan_reduction_tree", costs);
  detail::require(opts.root >= 0 && opts.root < n, "plan_reduction_tree: root must be a machine in [0, ", n,
                  "), got ", opts.root);
  ReductionTree raw;
  switch (opts.strategy) {
  case ReduceStrategy::greedy:
    raw = greedy_tree(n, costs);
    break;
  case ReduceStrategy::binomial:
    raw = binomial_strategy_tree(n, costs);
    break;
  case ReduceStrategy::fibonacci:
    raw = fibonacci_strategy_tree(n, costs);
    break;
  case ReduceStrategy::limited_transfers:
    raw = limited_transfers_tree(n, opts.K, costs);
    break;
  case ReduceStrategy::limited_reducers:
    raw = limited_reducers_tree(n, opts.K, costs);
    break;
  }
  return in_rank_order(raw, opts.root);
}

std::string format_tree(const ReductionTree& tree) {
  std::ostringstream os;
  const int sink = tree.sink();
  std::vector<std::pair<int, int>> stack{{sink, 0}}; // (machine, depth)
  while (!stack.empty()) {
    const auto [v, depth] = stack.back();
    stack.pop_back();
    os << std::string(idx(2 * depth), ' ') << v;
    if (tree.parent[idx(v)] < 0) {
      os << "  sink, result at " << (tree.forward_start >= 0 ? tree.forward_start : tree.length);
      if (tree.forward_start >= 0) os << ", forwarded to " << tree.root << " at " << tree.forward_start;
    } else {
      os << "  sends to " << tree.parent[idx(v)] << " at " << tree.start[idx(v)];
    }
    os << "\n";
    const auto& in = tree.inputs[idx(v)];
    for (auto it = in.rbegin(); it != in.rend(); ++it) stack.emplace_back(*it, depth + 1); // receive order
  }
  return os.str();
}

} // namespace hpf
