// Steady-state linear programs and their solution (Legrand, Marchal and Robert, Sections 3.1, 3.5 and 4.2).
#include <hpf/core/error.hpp>
#include <hpf/core/names.hpp>
#include <hpf/steady/steady.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace hpf::steady {

namespace {
constexpr NameTable<SteadyOp, 3> op_names{
    {{{SteadyOp::Scatter, "scatter"}, {SteadyOp::Gossip, "gossip"}, {SteadyOp::Reduce, "reduce"}}}};
} // namespace

std::string to_string(SteadyOp op) { return std::string(op_names.name(op)); }

SteadyOp parse_steady_op(std::string_view text, std::string_view what) { return op_names.parse(text, what); }

SteadyProblem SteadyProblem::scatter(int source, std::vector<int> targets) {
  SteadyProblem p;
  p.op = SteadyOp::Scatter;
  p.sources = {source};
  p.targets = std::move(targets);
  return p;
}

SteadyProblem SteadyProblem::gossip(std::vector<int> sources, std::vector<int> targets) {
  SteadyProblem p;
  p.op = SteadyOp::Gossip;
  p.sources = std::move(sources);
  p.targets = std::move(targets);
  return p;
}

SteadyProblem SteadyProblem::reduce(std::vector<int> participants, int target) {
  SteadyProblem p;
  p.op = SteadyOp::Reduce;
  p.participants = std::move(participants);
  p.targets = {target};
  return p;
}

int SteadySolution::type_index(const MessageType& t) const {
  const auto it = std::find(types.begin(), types.end(), t);
  return it == types.end() ? -1 : static_cast<int>(it - types.begin());
}

namespace {

void require_nodes(const Platform& g, const std::vector<int>& v, const char* what) {
  std::set<int> seen;
  for (int x : v) {
    detail::require(x >= 0 && x < g.node_count(), what, ": node index must be in [0, ", g.node_count(),
                    "), got ", x);
    detail::require(seen.insert(x).second, what, ": node '", g.node(x).name, "' listed twice");
  }
}

int reduce_target(const SteadyProblem& p) { return p.targets.front(); }
int operand_count(const SteadyProblem& p) { return static_cast<int>(p.participants.size()); }

} // namespace

void validate_problem(const Platform& g, const SteadyProblem& p) {
  if (p.message_size <= 0) detail::fail("message_size must be > 0, got ", to_string(p.message_size));
  if (p.task_work <= 0) detail::fail("task_work must be > 0, got ", to_string(p.task_work));
  switch (p.op) {
  case SteadyOp::Scatter:
    detail::require(p.sources.size() == 1, "scatter: exactly one source expected, got ", p.sources.size());
    require_nodes(g, p.sources, "scatter source");
    require_nodes(g, p.targets, "scatter targets");
    detail::require(!p.targets.empty(), "scatter targets: at least one target expected");
    for (int t : p.targets)
      detail::require(t != p.sources[0], "scatter targets: the source '", g.node(t).name,
                      "' cannot also be a target");
    break;
  case SteadyOp::Gossip:
    require_nodes(g, p.sources, "gossip sources");
    require_nodes(g, p.targets, "gossip targets");
    detail::require(!p.sources.empty() && !p.targets.empty(),
                    "gossip: at least one source and one target expected");
    detail::require(p.sources.size() > 1 || p.targets.size() > 1 || p.sources[0] != p.targets[0],
                    "gossip: the only source is the only target, nothing to send");
    break;
  case SteadyOp::Reduce:
    require_nodes(g, p.participants, "reduce participants");
    detail::require(p.targets.size() == 1, "reduce: exactly one target expected, got ", p.targets.size());
    require_nodes(g, p.targets, "reduce target");
    detail::require(!p.participants.empty(), "reduce participants: at least one participant expected");
    detail::require(p.participants.size() > 1 || p.participants[0] != p.targets[0],
                    "reduce: the only participant is the target, nothing to reduce (throughput unbounded)");
    break;
  }
}

std::vector<MessageType> message_types(const Platform& g, const SteadyProblem& p) {
  validate_problem(g, p);
  std::vector<MessageType> t;
  if (p.op == SteadyOp::Scatter)
    for (int d : p.targets) t.push_back({p.sources[0], d, -1, -1});
  else if (p.op == SteadyOp::Gossip)
    for (int s : p.sources)
      for (int d : p.targets)
        if (s != d) t.push_back({s, d, -1, -1});
  if (p.op == SteadyOp::Reduce) {
    const int n = operand_count(p);
    for (int k = 0; k < n; ++k)
      for (int m = k; m < n; ++m) t.push_back({-1, -1, k, m});
  }
  return t;
}

namespace {

// Whether send(edge, type) is a variable of the LP. The conservation law (5)/(10) of Legrand, Marchal and
// Robert is not imposed where a message is created or consumed; left free there, a message could loop back
// into its destination and be counted twice in TP, or be absorbed at its origin. Those variables are
// dropped: they can only carry useless flow, so the optimum is unchanged.
bool send_allowed(const Platform& g, const SteadyProblem& p, const MessageType& t, int e) {
  const auto& ed = g.edge(e);
  if (p.op != SteadyOp::Reduce) return ed.from != t.dst && ed.to != t.src;
  const int n = operand_count(p);
  if (t.first == t.last && ed.to == p.participants[static_cast<std::size_t>(t.first)]) return false;
  if (t.first == 0 && t.last == n - 1 && ed.from == reduce_target(p)) return false;
  return true;
}

// Conservation applies to (node, type) except at a message's origin and destination.
bool conserved(const SteadyProblem& p, const MessageType& t, int i) {
  if (p.op != SteadyOp::Reduce) return i != t.src && i != t.dst;
  const int n = operand_count(p);
  if (t.first == t.last && i == p.participants[static_cast<std::size_t>(t.first)]) return false;
  if (i == reduce_target(p) && t.first == 0 && t.last == n - 1) return false;
  return true;
}

} // namespace

SteadyLp build_lp(const Platform& g, const SteadyProblem& p) {
  SteadyLp out;
  out.types = message_types(g, p);
  const auto& types = out.types;
  const int nt = static_cast<int>(types.size());
  const int nv = g.node_count();
  LinearProgram& lp = out.lp;
  std::map<std::pair<int, int>, int> send_col; // (edge, type) -> column
  for (int e = 0; e < g.edge_count(); ++e)
    for (int t = 0; t < nt; ++t) {
      if (!send_allowed(g, p, types[static_cast<std::size_t>(t)], e)) continue;
      send_col[{e, t}] = lp.add_column(detail::concat("send(", g.node(g.edge(e).from).name, "->",
                                                      g.node(g.edge(e).to).name, ",type", t, ")"));
      SteadyLp::Column c;
      c.kind = SteadyLp::Column::Send;
      c.edge = e;
      c.type = t;
      out.columns.push_back(c);
    }
  std::map<std::tuple<int, int, int, int>, int> task_col; // (node, k, l, m) -> column
  const int n = p.op == SteadyOp::Reduce ? operand_count(p) : 0;
  for (int i = 0; i < nv; ++i) {
    if (p.op != SteadyOp::Reduce || g.node(i).speed == 0) continue; // routers cannot compute
    for (int k = 0; k < n; ++k)
      for (int m = k + 1; m < n; ++m)
        for (int l = k; l < m; ++l) {
          task_col[{i, k, l, m}] =
              lp.add_column(detail::concat("cons(", g.node(i).name, ",T", k, ",", l, ",", m, ")"));
          SteadyLp::Column c;
          c.kind = SteadyLp::Column::Task;
          c.node = i;
          c.k = k;
          c.l = l;
          c.m = m;
          out.columns.push_back(c);
        }
  }
  const int tp = lp.add_column("TP", Rational(1));
  {
    SteadyLp::Column c;
    c.kind = SteadyLp::Column::Throughput;
    out.columns.push_back(c);
  }
  auto type_of_interval = [&](int k, int m) {
    // Intervals are listed k-major: index = sum_{j<k} (n - j) + (m - k).
    return k * n - k * (k - 1) / 2 + (m - k);
  };

  // One-port constraints (2) and (3), with s(P_i -> P_j) substituted by equation (4) / (8).
  for (int i = 0; i < nv; ++i) {
    std::vector<std::pair<int, Rational>> out_terms, in_terms;
    for (const auto& [key, col] : send_col) {
      const auto& ed = g.edge(key.first);
      const Rational time = p.message_size * ed.cost;
      if (ed.from == i) out_terms.emplace_back(col, time);
      if (ed.to == i) in_terms.emplace_back(col, time);
    }
    if (!out_terms.empty())
      lp.add_row(out_terms, RowSense::LessEqual, Rational(1), "out-port " + g.node(i).name);
    if (!in_terms.empty())
      lp.add_row(in_terms, RowSense::LessEqual, Rational(1), "in-port " + g.node(i).name);
  }
  // Computation (7) with (9): alpha(P_i) = sum cons(P_i, T) * w(P_i, T) <= 1.
  if (p.op == SteadyOp::Reduce)
    for (int i = 0; i < nv; ++i) {
      if (g.node(i).speed == 0) continue;
      std::vector<std::pair<int, Rational>> terms;
      const Rational w = p.task_work / g.node(i).speed;
      for (const auto& [key, col] : task_col)
        if (std::get<0>(key) == i) terms.emplace_back(col, w);
      if (!terms.empty()) lp.add_row(terms, RowSense::LessEqual, Rational(1), "compute " + g.node(i).name);
    }
  // Conservation law (5) / (10).
  for (int i = 0; i < nv; ++i)
    for (int t = 0; t < nt; ++t) {
      const MessageType& ty = types[static_cast<std::size_t>(t)];
      if (!conserved(p, ty, i)) continue;
      std::vector<std::pair<int, Rational>> terms; // inflow - outflow = 0
      for (int e : g.in_edges(i))
        if (auto it = send_col.find({e, t}); it != send_col.end())
          terms.emplace_back(it->second, Rational(1));
      for (int e : g.out_edges(i))
        if (auto it = send_col.find({e, t}); it != send_col.end())
          terms.emplace_back(it->second, Rational(-1));
      if (p.op == SteadyOp::Reduce && g.node(i).speed > 0) {
        const int k = ty.first, m = ty.last;
        for (int l = k; l < m; ++l) terms.emplace_back(task_col.at({i, k, l, m}), Rational(1)); // produced
        for (int q = m + 1; q < n; ++q)
          terms.emplace_back(task_col.at({i, k, m, q}), Rational(-1)); // T_{k,m,q}
        for (int q = 0; q < k; ++q)
          terms.emplace_back(task_col.at({i, q, k - 1, m}), Rational(-1)); // T_{q,k-1,m}
      }
      if (terms.empty()) continue;
      lp.add_row(terms, RowSense::Equal, Rational(0),
                 detail::concat("conservation ", g.node(i).name, " type", t));
    }
  // Throughput: every destination receives TP messages of its type (Section 3.1 / 3.5), or the
  // target obtains TP complete results v[0,N] (equation (11)).
  if (p.op != SteadyOp::Reduce) {
    for (int t = 0; t < nt; ++t) {
      const MessageType& ty = types[static_cast<std::size_t>(t)];
      std::vector<std::pair<int, Rational>> terms{{tp, Rational(-1)}};
      for (int e : g.in_edges(ty.dst))
        if (auto it = send_col.find({e, t}); it != send_col.end())
          terms.emplace_back(it->second, Rational(1));
      lp.add_row(terms, RowSense::Equal, Rational(0), detail::concat("throughput type", t));
    }
  } else {
    const int target = reduce_target(p);
    const int all = type_of_interval(0, n - 1);
    std::vector<std::pair<int, Rational>> terms{{tp, Rational(-1)}};
    for (int e : g.in_edges(target))
      if (auto it = send_col.find({e, all}); it != send_col.end())
        terms.emplace_back(it->second, Rational(1));
    if (g.node(target).speed > 0)
      for (int l = 0; l < n - 1; ++l) terms.emplace_back(task_col.at({target, 0, l, n - 1}), Rational(1));
    lp.add_row(terms, RowSense::Equal, Rational(0), "throughput");
  }
  return out;
}

namespace {

// Removes directed cycles from the flow of each message type. A cycle moves messages around and
// back, so conservation holds without it; an optimal vertex may still carry one on links that are
// not saturated. Cancelling keeps every constraint and TP, frees port time, and lets FIND_TREE
// (Figure 8) walk back from the destination without looping.
Rational cancel_cycles(const Platform& g, std::vector<EdgeFlow>& sends, int ntypes) {
  Rational cancelled = 0;
  for (int t = 0; t < ntypes; ++t) {
    for (;;) {
      // Adjacency of the positive flow of type t.
      std::vector<std::vector<std::size_t>> out(static_cast<std::size_t>(g.node_count()));
      for (std::size_t f = 0; f < sends.size(); ++f)
        if (sends[f].type == t && sends[f].rate > 0)
          out[static_cast<std::size_t>(g.edge(sends[f].edge).from)].push_back(f);
      // Iterative DFS looking for a back edge.
      std::vector<int> state(static_cast<std::size_t>(g.node_count()), 0); // 0 new, 1 on stack, 2 done
      std::vector<std::size_t> via(static_cast<std::size_t>(g.node_count()));
      std::vector<std::size_t> cycle;
      for (int s = 0; s < g.node_count() && cycle.empty(); ++s) {
        if (state[static_cast<std::size_t>(s)] != 0) continue;
        std::vector<std::pair<int, std::size_t>> stack{{s, 0}};
        state[static_cast<std::size_t>(s)] = 1;
        while (!stack.empty() && cycle.empty()) {
          auto& [v, pos] = stack.back();
          const auto& adj = out[static_cast<std::size_t>(v)];
          if (pos == adj.size()) {
            state[static_cast<std::size_t>(v)] = 2;
            stack.pop_back();
            continue;
          }
          const std::size_t f = adj[pos++];
          const int w = g.edge(sends[f].edge).to;
          if (state[static_cast<std::size_t>(w)] == 1) {
            cycle.push_back(f);
            for (int x = v; x != w; x = g.edge(sends[via[static_cast<std::size_t>(x)]].edge).from)
              cycle.push_back(via[static_cast<std::size_t>(x)]);
          } else if (state[static_cast<std::size_t>(w)] == 0) {
            state[static_cast<std::size_t>(w)] = 1;
            via[static_cast<std::size_t>(w)] = f;
            stack.emplace_back(w, 0);
          }
        }
      }
      if (cycle.empty()) break;
      Rational low = sends[cycle[0]].rate;
      for (std::size_t f : cycle) low = std::min(low, sends[f].rate);
      for (std::size_t f : cycle) sends[f].rate -= low;
      cancelled += low * static_cast<long>(cycle.size());
    }
  }
  sends.erase(std::remove_if(sends.begin(), sends.end(), [](const EdgeFlow& f) { return f.rate == 0; }),
              sends.end());
  return cancelled;
}

BigInt lcm_big(const BigInt& a, const BigInt& b) { return a / boost::multiprecision::gcd(a, b) * b; }

} // namespace

SteadySolution make_solution(const Platform& g, const SteadyProblem& p, std::vector<EdgeFlow> sends,
                             std::vector<TaskRate> tasks) {
  SteadySolution s;
  s.problem = p;
  s.types = message_types(g, p);
  const int nt = static_cast<int>(s.types.size());
  for (const auto& f : sends) {
    (void)g.edge(f.edge);
    detail::require(f.type >= 0 && f.type < nt, "make_solution: type must be in [0, ", nt, "), got ", f.type);
    if (f.rate < 0) detail::fail("make_solution: send rates must be >= 0, got ", to_string(f.rate));
  }
  for (const auto& t : tasks) {
    (void)g.node(t.node);
    detail::require(p.op == SteadyOp::Reduce, "make_solution: tasks only exist for reduce");
    detail::require(0 <= t.k && t.k <= t.l && t.l < t.m && t.m < operand_count(p),
                    "make_solution: task T(k,l,m) needs 0 <= k <= l < m < ", operand_count(p), ", got T(",
                    t.k, ",", t.l, ",", t.m, ")");
    if (t.rate < 0) detail::fail("make_solution: task rates must be >= 0, got ", to_string(t.rate));
  }
  sends.erase(std::remove_if(sends.begin(), sends.end(), [](const EdgeFlow& f) { return f.rate == 0; }),
              sends.end());
  tasks.erase(std::remove_if(tasks.begin(), tasks.end(), [](const TaskRate& f) { return f.rate == 0; }),
              tasks.end());
  std::sort(sends.begin(), sends.end(), [](const EdgeFlow& a, const EdgeFlow& b) {
    return std::tie(a.edge, a.type) < std::tie(b.edge, b.type);
  });
  std::sort(tasks.begin(), tasks.end(), [](const TaskRate& a, const TaskRate& b) {
    return std::tie(a.node, a.k, a.l, a.m) < std::tie(b.node, b.k, b.l, b.m);
  });
  s.sends = std::move(sends);
  s.tasks = std::move(tasks);
  const auto nv = static_cast<std::size_t>(g.node_count());
  s.edge_load.assign(static_cast<std::size_t>(g.edge_count()), Rational(0));
  s.node_send.assign(nv, Rational(0));
  s.node_recv.assign(nv, Rational(0));
  s.node_compute.assign(nv, Rational(0));
  for (const auto& f : s.sends) {
    const auto& ed = g.edge(f.edge);
    const Rational time = f.rate * p.message_size * ed.cost;
    s.edge_load[static_cast<std::size_t>(f.edge)] += time;
    s.node_send[static_cast<std::size_t>(ed.from)] += time;
    s.node_recv[static_cast<std::size_t>(ed.to)] += time;
  }
  for (const auto& t : s.tasks) {
    detail::require(g.node(t.node).speed > 0, "make_solution: node '", g.node(t.node).name,
                    "' has speed 0 and cannot compute");
    s.node_compute[static_cast<std::size_t>(t.node)] += t.rate * p.task_work / g.node(t.node).speed;
  }
  // TP: what the destinations receive (the smallest over types, should they differ).
  if (p.op != SteadyOp::Reduce) {
    std::vector<Rational> got(static_cast<std::size_t>(nt), Rational(0));
    for (const auto& f : s.sends)
      if (g.edge(f.edge).to == s.types[static_cast<std::size_t>(f.type)].dst)
        got[static_cast<std::size_t>(f.type)] += f.rate;
    s.throughput = *std::min_element(got.begin(), got.end());
  } else {
    const int n = operand_count(p);
    const int target = reduce_target(p);
    const int all = s.type_index({-1, -1, 0, n - 1});
    s.throughput = 0;
    for (const auto& f : s.sends)
      if (f.type == all && g.edge(f.edge).to == target) s.throughput += f.rate;
    for (const auto& t : s.tasks)
      if (t.node == target && t.k == 0 && t.m == n - 1) s.throughput += t.rate;
  }
  BigInt T = denominator(s.throughput);
  for (const auto& f : s.sends) T = lcm_big(T, denominator(f.rate));
  for (const auto& t : s.tasks) T = lcm_big(T, denominator(t.rate));
  // Section 3.4: "the period T such that every communication time is an integer" (Figure 2: T = 12
  // although the rates only need 4). Computation times are left out: with full overlap they need
  // not be integers, and Figure 6 uses T = 3 although P0 then computes for 3/2 time units.
  for (const auto* v : {&s.edge_load, &s.node_send, &s.node_recv})
    for (const auto& q : *v) T = lcm_big(T, denominator(q));
  s.period = T;
  return s;
}

SteadySolution solve(const Platform& g, const SteadyProblem& p, SolveGoal goal) {
  validate_problem(g, p);
  // Unreachable destinations make TP = 0 for the whole series; say which one instead of solving.
  std::string note;
  if (p.op != SteadyOp::Reduce) {
    for (int s : p.sources) {
      const auto reach = g.reachable_from(s);
      for (int d : p.targets)
        if (s != d && !reach[static_cast<std::size_t>(d)] && note.empty())
          note = detail::concat("target '", g.node(d).name, "' is unreachable from source '", g.node(s).name,
                                "'");
    }
  } else {
    const int target = reduce_target(p);
    for (int r : p.participants)
      if (!g.reachable_from(r)[static_cast<std::size_t>(target)] && note.empty())
        note = detail::concat("target '", g.node(target).name, "' is unreachable from participant '",
                              g.node(r).name, "'");
    bool can_compute = false;
    for (const auto& nd : g.nodes()) can_compute = can_compute || nd.speed > 0;
    if (note.empty() && p.participants.size() > 1 && !can_compute)
      note = "no node can compute (every speed is 0), so partial results can never be combined";
  }
  if (!note.empty()) {
    SteadySolution s = make_solution(g, p, {}, {});
    s.note = note;
    return s;
  }
  SteadyLp model = build_lp(g, p);
  ExactLpResult r = solve_exact(model.lp);
  if (r.status != LpStatus::Optimal)
    detail::fail("steady ", to_string(p.op), ": the LP is not optimal (status ", static_cast<int>(r.status),
                 "); this is a bug");
  if (goal == SolveGoal::LeastTraffic && r.objective > 0) {
    // Second stage: TP fixed at its optimum, maximise -(total transfer time).
    const Rational tp = r.objective;
    for (std::size_t j = 0; j < model.columns.size(); ++j) {
      const auto& c = model.columns[j];
      Rational obj(0);
      if (c.kind == SteadyLp::Column::Send) obj = -(p.message_size * g.edge(c.edge).cost);
      model.lp.set_objective(static_cast<int>(j), obj);
      if (c.kind == SteadyLp::Column::Throughput)
        model.lp.add_row({{static_cast<int>(j), Rational(1)}}, RowSense::Equal, tp, "TP fixed");
    }
    r = solve_exact(model.lp);
    if (r.status != LpStatus::Optimal)
      detail::fail("steady ", to_string(p.op), ": the least-traffic LP is not optimal (status ",
                   static_cast<int>(r.status), "); this is a bug");
    r.objective = tp;
  }
  std::vector<EdgeFlow> sends;
  std::vector<TaskRate> tasks;
  for (std::size_t j = 0; j < model.columns.size(); ++j) {
    const auto& c = model.columns[j];
    if (r.x[j] == 0) continue;
    if (c.kind == SteadyLp::Column::Send) sends.push_back({c.edge, c.type, r.x[j]});
    if (c.kind == SteadyLp::Column::Task) tasks.push_back({c.node, c.k, c.l, c.m, r.x[j]});
  }
  const Rational cancelled = cancel_cycles(g, sends, static_cast<int>(model.types.size()));
  SteadySolution s = make_solution(g, p, std::move(sends), std::move(tasks));
  s.cancelled_circulation = cancelled;
  if (s.throughput != r.objective)
    detail::fail("steady ", to_string(p.op), ": TP ", to_string(s.throughput),
                 " differs from the LP optimum ", to_string(r.objective), "; this is a bug");
  if (s.throughput == 0) s.note = "the linear program's optimum is 0";
  return s;
}

std::string check_solution(const Platform& g, const SteadySolution& s) {
  const SteadyLp model = build_lp(g, s.problem);
  std::map<std::pair<int, int>, std::size_t> send_col;
  std::map<std::tuple<int, int, int, int>, std::size_t> task_col;
  std::size_t tp = 0;
  for (std::size_t j = 0; j < model.columns.size(); ++j) {
    const auto& c = model.columns[j];
    if (c.kind == SteadyLp::Column::Send) send_col[{c.edge, c.type}] = j;
    if (c.kind == SteadyLp::Column::Task) task_col[{c.node, c.k, c.l, c.m}] = j;
    if (c.kind == SteadyLp::Column::Throughput) tp = j;
  }
  std::vector<Rational> x(model.columns.size(), Rational(0));
  for (const auto& f : s.sends) {
    auto it = send_col.find({f.edge, f.type});
    if (it == send_col.end())
      return detail::concat("send over edge ", f.edge, " of type ", f.type, " is not a variable of the LP");
    x[it->second] = f.rate;
  }
  for (const auto& t : s.tasks) {
    auto it = task_col.find({t.node, t.k, t.l, t.m});
    if (it == task_col.end())
      return detail::concat("task T(", t.k, ",", t.l, ",", t.m, ") on node ", t.node, " is not a variable");
    x[it->second] = t.rate;
  }
  x[tp] = s.throughput;
  return model.lp.violation(x);
}

} // namespace hpf::steady
