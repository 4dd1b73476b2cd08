// Replay of a periodic steady-state schedule on message counts (Legrand, Marchal and Robert, Sections 3.4 and
// 4.3); see include/hpf/steady/pipeline.hpp for the execution model.
#include <hpf/core/error.hpp>
#include <hpf/steady/pipeline.hpp>

#include <algorithm>
#include <limits>
#include <map>

namespace hpf::steady {

namespace {

std::int64_t to_i64(const BigInt& x, const char* what) {
  detail::require(x >= 0 && x <= BigInt(std::numeric_limits<std::int64_t>::max()), what, " = ", x,
                  " does not fit 64 bits; use a fixed period (--period-max)");
  return x.convert_to<std::int64_t>();
}

std::int64_t floor_of(const Rational& q) {
  BigInt f = numerator(q) / denominator(q);
  if (q < 0 && Rational(f) != q) f -= 1;
  return to_i64(f, "message count");
}

} // namespace

std::size_t PipelinePlan::flat(std::size_t step, std::size_t i) const {
  std::size_t off = 0;
  for (std::size_t s = 0; s < step; ++s) off += steps[s].size();
  return off + i;
}

namespace {

// One hpf::Schedule step per matching: per platform edge of the matching, one message of the values
// its transfers carry (counts[i] for steps[step][i]), in order of first appearance.
Step schedule_step(const std::vector<PipelinePlan::Transfer>& transfers, const std::int64_t* counts,
                   double duration) {
  Step st;
  st.duration = duration;
  std::vector<int> edges;
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    const auto& tr = transfers[i];
    const auto at = std::find(edges.begin(), edges.end(), tr.edge);
    if (at == edges.end()) {
      edges.push_back(tr.edge);
      st.messages.push_back({tr.from, tr.to, counts[i]});
    } else {
      st.messages[static_cast<std::size_t>(at - edges.begin())].len += counts[i];
    }
  }
  return st;
}

} // namespace

Schedule PipelinePlan::period_schedule(std::int64_t p) const {
  detail::require(p >= 0 && p < periods, "PipelinePlan::period_schedule: period must be in [0, ", periods,
                  "), got ", p);
  Schedule out(node_count, node_count);
  out.set_period(schedule.period());
  const auto& mv = moved[static_cast<std::size_t>(p)];
  std::size_t off = 0;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    out.add_step(schedule_step(steps[s], mv.data() + off, schedule.steps()[s].duration));
    off += steps[s].size();
  }
  return out;
}

std::int64_t PipelinePlan::stamp(int tree, std::int64_t n) const {
  const auto t = static_cast<std::size_t>(tree);
  std::int64_t sum = 0, prefix = 0;
  for (std::size_t u = 0; u < trees.size(); ++u) {
    if (trees[u].group != trees[t].group) continue;
    if (u < t) prefix += tree_count[u];
    sum += tree_count[u];
  }
  return (n / tree_count[t]) * sum + prefix + n % tree_count[t];
}

std::int64_t PipelinePlan::tree_total(int tree) const {
  const auto t = static_cast<std::size_t>(tree);
  std::int64_t sum = 0, prefix = 0;
  for (std::size_t u = 0; u < trees.size(); ++u) {
    if (trees[u].group != trees[t].group) continue;
    if (u < t) prefix += tree_count[u];
    sum += tree_count[u];
  }
  const std::int64_t blocks = operations / sum, rem = operations % sum;
  return blocks * tree_count[t] + std::clamp<std::int64_t>(rem - prefix, 0, tree_count[t]);
}

PipelinePlan plan_pipeline(const Platform& g, const SteadySolution& s, const PeriodicSchedule& ps,
                           std::int64_t operations) {
  detail::require(operations >= 1, "plan_pipeline: the number of operations K must be >= 1, got ",
                  operations);
  detail::require(!ps.trees.empty(), "plan_pipeline: the schedule has no tree (TP = 0",
                  s.note.empty() ? std::string() : ": " + s.note, "), nothing can be pipelined");
  PipelinePlan p;
  p.op = s.problem.op;
  p.node_count = g.node_count();
  p.operations = operations;
  p.period = ps.period;
  p.trees = ps.trees;
  for (const auto& c : ps.tree_count) p.tree_count.push_back(to_i64(c, "operations per period of a tree"));
  p.groups = s.problem.op == SteadyOp::Reduce ? 1 : static_cast<int>(s.types.size());
  p.group_node.assign(static_cast<std::size_t>(p.groups), -1);
  if (s.problem.op == SteadyOp::Reduce)
    p.group_node[0] = s.problem.targets.front();
  else
    for (int t = 0; t < p.groups; ++t)
      p.group_node[static_cast<std::size_t>(t)] = s.types[static_cast<std::size_t>(t)].dst;
  std::vector<std::int64_t> per_group(static_cast<std::size_t>(p.groups), 0);
  for (std::size_t t = 0; t < p.trees.size(); ++t)
    per_group[static_cast<std::size_t>(p.trees[t].group)] += p.tree_count[t];
  for (std::int64_t c : per_group)
    detail::require(c > 0 && c == per_group[0], "plan_pipeline: every delivered type needs the same positive "
                                                "number of operations per period");
  p.throughput = Rational(per_group[0]) / Rational(p.period);

  // Whole messages per matching: a transfer sends in matching s the messages whose transmission ends
  // there, floor(cumulative end) - floor(cumulative start).
  std::map<std::pair<int, int>, Rational> cumulative;
  for (const auto& m : ps.matchings) {
    std::vector<PipelinePlan::Transfer> step;
    for (const auto& tr : m.transfers) {
      Rational& c = cumulative[{tr.tree, tr.task}];
      const std::int64_t whole = floor_of(c + tr.count) - floor_of(c);
      c += tr.count;
      if (whole == 0) continue;
      const auto& e = g.edge(tr.edge);
      step.push_back({tr.tree, tr.task, tr.edge, e.from, e.to, whole});
    }
    p.steps.push_back(std::move(step));
    p.step_duration.push_back(m.duration);
  }
  p.schedule = Schedule(p.node_count, p.node_count);
  p.schedule.set_period(p.period.convert_to<double>());
  for (std::size_t st = 0; st < p.steps.size(); ++st) {
    std::vector<std::int64_t> full;
    for (const auto& tr : p.steps[st]) full.push_back(tr.per_period);
    p.schedule.add_step(schedule_step(p.steps[st], full.data(), p.step_duration[st].convert_to<double>()));
  }
  for (std::size_t t = 0; t < p.trees.size(); ++t) {
    const auto& tasks = p.trees[t].tasks;
    for (std::size_t k = tasks.size(); k-- > 0;)
      if (tasks[k].kind == TreeTask::Compute)
        p.computes.emplace_back(static_cast<int>(t), static_cast<int>(k));
  }

  // Replay on counts.
  const std::size_t nt = p.trees.size();
  std::vector<std::vector<std::int64_t>> avail(nt), leaf_used(nt);
  std::vector<std::int64_t> total(nt);
  for (std::size_t t = 0; t < nt; ++t) {
    avail[t].assign(p.trees[t].tasks.size(), 0);
    leaf_used[t].assign(2 * p.trees[t].tasks.size(), 0);
    total[t] = p.tree_total(static_cast<int>(t));
  }
  auto input_avail = [&](std::size_t t, std::size_t k, int which) -> std::int64_t {
    const TreeTask& task = p.trees[t].tasks[k];
    const int in = which == 0 ? task.input_a : task.input_b;
    if (in >= 0) return avail[t][static_cast<std::size_t>(in)];
    return total[t] - leaf_used[t][2 * k + static_cast<std::size_t>(which)];
  };
  auto take_input = [&](std::size_t t, std::size_t k, int which, std::int64_t n) {
    const TreeTask& task = p.trees[t].tasks[k];
    const int in = which == 0 ? task.input_a : task.input_b;
    if (in >= 0)
      avail[t][static_cast<std::size_t>(in)] -= n;
    else
      leaf_used[t][2 * k + static_cast<std::size_t>(which)] += n;
  };
  std::vector<std::int64_t> got(static_cast<std::size_t>(p.groups), 0);
  auto produce = [&](std::size_t t, std::size_t k, std::int64_t n) {
    if (k == 0)
      got[static_cast<std::size_t>(p.trees[t].group)] += n;
    else
      avail[t][k] += n;
  };
  auto note_buffers = [&] {
    for (std::size_t t = 0; t < nt; ++t)
      for (std::size_t k = 1; k < avail[t].size(); ++k) {
        p.max_buffer = std::max(p.max_buffer, avail[t][k]);
        p.max_buffer_ratio = std::max(p.max_buffer_ratio, Rational(avail[t][k]) / Rational(p.tree_count[t]));
      }
  };
  std::int64_t first_full = -1, last_full = -1;
  // Deliveries finish within (depth of the deepest tree + K / per-period) periods; the guard only
  // catches a schedule that stops making progress.
  std::int64_t idle = 0;
  while (*std::min_element(got.begin(), got.end()) < operations) {
    bool full = true, progress = false;
    std::vector<std::int64_t> comp;
    for (const auto& [t, k] : p.computes) {
      const auto ut = static_cast<std::size_t>(t), uk = static_cast<std::size_t>(k);
      const std::int64_t n = std::min({p.tree_count[ut], input_avail(ut, uk, 0), input_avail(ut, uk, 1)});
      take_input(ut, uk, 0, n);
      take_input(ut, uk, 1, n);
      comp.push_back(n);
      full = full && n == p.tree_count[ut];
      progress = progress || n > 0;
    }
    // Computations overlap the period's transfers: their results are available from the next period.
    // Every buffer has a single producer and a single consumer, so the delay reorders nothing.
    std::vector<std::int64_t> mv;
    for (const auto& step : p.steps) {
      // Two passes: a step's transfers are concurrent, so what arrives cannot leave in the same step.
      std::vector<std::int64_t> n(step.size());
      for (std::size_t i = 0; i < step.size(); ++i) {
        const auto ut = static_cast<std::size_t>(step[i].tree), uk = static_cast<std::size_t>(step[i].task);
        n[i] = std::min(step[i].per_period, input_avail(ut, uk, 0));
        take_input(ut, uk, 0, n[i]);
        full = full && n[i] == step[i].per_period;
        progress = progress || n[i] > 0;
      }
      for (std::size_t i = 0; i < step.size(); ++i)
        produce(static_cast<std::size_t>(step[i].tree), static_cast<std::size_t>(step[i].task), n[i]);
      mv.insert(mv.end(), n.begin(), n.end());
      note_buffers();
    }
    for (std::size_t c = 0; c < p.computes.size(); ++c)
      produce(static_cast<std::size_t>(p.computes[c].first), static_cast<std::size_t>(p.computes[c].second),
              comp[c]);
    note_buffers();
    p.computed.push_back(std::move(comp));
    p.moved.push_back(std::move(mv));
    p.delivered.push_back(*std::min_element(got.begin(), got.end()));
    if (full) {
      if (first_full < 0) first_full = p.periods;
      last_full = p.periods;
    }
    ++p.periods;
    idle = progress ? 0 : idle + 1;
    detail::require(idle < 2, "plan_pipeline: the schedule stopped making progress after ", p.periods,
                    " periods; this is a bug");
  }
  if (first_full < 0) {
    p.init_periods = p.periods;
  } else {
    p.init_periods = first_full;
    p.steady_periods = last_full - first_full + 1;
    p.cleanup_periods = p.periods - last_full - 1;
  }
  return p;
}

PipelinePlan plan_pipeline(const Platform& g, const SteadyProblem& problem, std::int64_t operations,
                           std::int64_t period_max, SolveGoal goal) {
  detail::require(period_max >= 0, "plan_pipeline: period_max must be >= 0 (0 = exact period), got ",
                  period_max);
  const SteadySolution s = solve(g, problem, goal);
  std::vector<WeightedTree> trees = extract_trees(g, s);
  BigInt period = s.period;
  if (period_max > 0 && s.period > period_max) {
    FixedPeriod f = fixed_period(s, trees, BigInt(period_max));
    trees = std::move(f.trees);
    period = f.period;
  }
  return plan_pipeline(g, s, periodic_schedule(g, s, std::move(trees), period), operations);
}

} // namespace hpf::steady
