// `hpfrt steady --platform p.json --op scatter|gossip|reduce ...`: the optimal steady-state
// throughput of a series of scatters, gossips or reductions on a heterogeneous platform (Legrand,
// Marchal and Robert), its period, loads, weighted trees and the matchings of one period.
//   scatter: --source X --targets a,b        gossip: --sources a,b --targets c,d
//   reduce:  --target X [--participants a,b,c]   (default: every node with speed > 0, in file order)
//   [--period-max N]: if T > N, use the fixed-period approximation of Section 4.6 with T_fixed = N.
//   [--operations K]: replay K operations on the schedule (Section 3.4): periods of initialisation,
//                     steady state and clean-up, makespan, K / makespan against TP, largest buffer.
//   [--simgrid-xml FILE [--port-links]]: also write the platform as SimGrid XML (for smpirun).
#include "commands.hpp"

#include <hpf/core/error.hpp>
#include <hpf/steady/pipeline.hpp>
#include <hpf/steady/steady.hpp>

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace hpf::cli {

namespace {

using namespace hpf::steady;

struct SteadyArgs {
  std::string platform;
  std::string op;
  std::string source;
  std::vector<std::string> sources;
  std::vector<std::string> targets;
  std::vector<std::string> participants;
  std::string target;
  long long period_max = 0;
  long long operations = 0;
  bool operations_given = false;
  std::string simgrid_xml;
  bool port_links = false;
  bool json = false;
};

std::vector<int> indices(const Platform& g, const std::vector<std::string>& names, const char* what) {
  std::vector<int> out;
  out.reserve(names.size());
  for (const auto& n : names) out.push_back(g.index_of(n, what));
  return out;
}

SteadyProblem make_problem(const Platform& g, const SteadyArgs& a) {
  const SteadyOp op = parse_steady_op(a.op, "--op");
  switch (op) {
  case SteadyOp::Scatter:
    detail::require(!a.source.empty(), "--source: scatter needs a source node");
    detail::require(!a.targets.empty(), "--targets: scatter needs at least one target node");
    detail::require(a.sources.empty() && a.participants.empty() && a.target.empty(),
                    "--op scatter takes --source and --targets only");
    return SteadyProblem::scatter(g.index_of(a.source, "--source"), indices(g, a.targets, "--targets"));
  case SteadyOp::Gossip:
    detail::require(!a.sources.empty(), "--sources: gossip needs at least one source node");
    detail::require(!a.targets.empty(), "--targets: gossip needs at least one target node");
    detail::require(a.source.empty() && a.participants.empty() && a.target.empty(),
                    "--op gossip takes --sources and --targets only");
    return SteadyProblem::gossip(indices(g, a.sources, "--sources"), indices(g, a.targets, "--targets"));
  case SteadyOp::Reduce: {
    detail::require(!a.target.empty(), "--target: reduce needs a target node");
    detail::require(a.source.empty() && a.sources.empty() && a.targets.empty(),
                    "--op reduce takes --participants and --target only");
    std::vector<int> parts = indices(g, a.participants, "--participants");
    if (a.participants.empty())
      for (int v = 0; v < g.node_count(); ++v)
        if (g.node(v).speed > 0) parts.push_back(v);
    return SteadyProblem::reduce(std::move(parts), g.index_of(a.target, "--target"));
  }
  }
  detail::fail("--op: unhandled operation");
}

std::string big(const BigInt& x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

void run_steady(const SteadyArgs& a) {
  detail::require(a.period_max >= 0, "--period-max: must be >= 1 when given, got ", a.period_max);
  detail::require(!a.operations_given || a.operations >= 1, "--operations: must be >= 1 when given, got ",
                  a.operations);
  detail::require(!a.port_links || !a.simgrid_xml.empty(), "--port-links: only with --simgrid-xml FILE");
  const Platform g = load_platform(a.platform);
  if (!a.simgrid_xml.empty()) {
    SimGridExport opts;
    opts.port_links = a.port_links;
    save_simgrid_xml(g, a.simgrid_xml, opts);
  }
  const SteadyProblem pb = make_problem(g, a);
  // Bounded work: the LP has a flow per edge and node for every message type.
  const auto n = static_cast<double>(pb.participants.size());
  const double types = pb.op == SteadyOp::Scatter ? static_cast<double>(pb.targets.size())
                       : pb.op == SteadyOp::Gossip
                           ? static_cast<double>(pb.sources.size()) * static_cast<double>(pb.targets.size())
                           : n * (n + 1) / 2;
  check_work((g.node_count() + g.edge_count()) * types, 1e6,
             "steady: the LP size ((nodes + edges) x message types)");
  check_work(static_cast<double>(a.operations) * g.edge_count(), 1e7,
             "steady --operations: the transfers replayed (operations x edges)");
  const SteadySolution s = solve(g, pb);
  std::vector<WeightedTree> trees = extract_trees(g, s);
  BigInt period = s.period;
  std::optional<FixedPeriod> fixed;
  if (a.period_max > 0 && s.period > a.period_max) {
    fixed = fixed_period(s, trees, BigInt(a.period_max));
    period = fixed->period;
    trees = fixed->trees;
  }
  const PeriodicSchedule ps = periodic_schedule(g, s, trees, period);
  std::optional<PipelinePlan> pipe;
  if (a.operations > 0) pipe = plan_pipeline(g, s, ps, a.operations);
  auto transfer_text = [&](const MatchedTransfer& t) {
    const auto& e = g.edge(t.edge);
    return g.node(e.from).name + "->" + g.node(e.to).name + " " + to_string(t.count) + " " +
           type_name(g, s, t.type);
  };
  if (a.json) {
    nlohmann::json j;
    j["op"] = to_string(pb.op);
    j["TP"] = to_string(s.throughput);
    j["period"] = big(s.period);
    if (s.period <= BigInt(std::numeric_limits<long long>::max()))
      j["period"] = s.period.convert_to<long long>();
    if (!s.note.empty()) j["note"] = s.note;
    j["edges"] = nlohmann::json::array();
    for (int e = 0; e < g.edge_count(); ++e) {
      nlohmann::json je{{"from", g.node(g.edge(e).from).name},
                        {"to", g.node(g.edge(e).to).name},
                        {"load", to_string(s.edge_load[static_cast<std::size_t>(e)])}};
      nlohmann::json msgs = nlohmann::json::object();
      for (const auto& f : s.sends)
        if (f.edge == e) msgs[type_name(g, s, f.type)] = to_string(f.rate);
      je["messages"] = msgs;
      j["edges"].push_back(je);
    }
    j["nodes"] = nlohmann::json::array();
    for (int v = 0; v < g.node_count(); ++v) {
      const auto i = static_cast<std::size_t>(v);
      j["nodes"].push_back({{"name", g.node(v).name},
                            {"send", to_string(s.node_send[i])},
                            {"recv", to_string(s.node_recv[i])},
                            {"compute", to_string(s.node_compute[i])}});
    }
    j["trees"] = nlohmann::json::array();
    for (const auto& t : trees) {
      nlohmann::json tasks = nlohmann::json::array();
      for (const auto& k : t.tasks) tasks.push_back(task_name(g, s, k));
      j["trees"].push_back({{"weight", to_string(t.weight)}, {"tasks", tasks}});
    }
    j["schedule_period"] = big(ps.period);
    j["matchings"] = nlohmann::json::array();
    for (const auto& m : ps.matchings) {
      nlohmann::json tr = nlohmann::json::array();
      for (const auto& t : m.transfers) tr.push_back(transfer_text(t));
      j["matchings"].push_back({{"duration", to_string(m.duration)}, {"transfers", tr}});
    }
    if (fixed)
      j["fixed_period"] = {{"period", big(fixed->period)},
                           {"TP", to_string(fixed->throughput)},
                           {"loss_bound", to_string(fixed->loss_bound)}};
    if (pipe)
      j["pipeline"] = {{"operations", pipe->operations},
                       {"periods", pipe->periods},
                       {"init_periods", pipe->init_periods},
                       {"steady_periods", pipe->steady_periods},
                       {"cleanup_periods", pipe->cleanup_periods},
                       {"makespan", big(pipe->makespan())},
                       {"rate", to_string(Rational(pipe->operations) / Rational(pipe->makespan()))},
                       {"max_buffer", pipe->max_buffer},
                       {"max_buffer_ratio", to_string(pipe->max_buffer_ratio)}};
    std::cout << j.dump() << "\n";
    return;
  }
  std::cout << "steady " << to_string(pb.op) << " on " << a.platform << " (" << g.node_count() << " nodes, "
            << g.edge_count() << " edges)\n";
  std::cout << "TP = " << to_string(s.throughput) << " operations per time unit";
  if (!s.note.empty()) std::cout << " (" << s.note << ")";
  std::cout << "\nperiod T = " << s.period << " (" << to_string(s.throughput * Rational(s.period))
            << " operations per period)\n";
  std::cout << "edges: load s(i->j) per time unit; messages per time unit\n";
  for (int e = 0; e < g.edge_count(); ++e) {
    std::cout << "  " << g.node(g.edge(e).from).name << " -> " << g.node(g.edge(e).to).name << "  load "
              << to_string(s.edge_load[static_cast<std::size_t>(e)]);
    for (const auto& f : s.sends)
      if (f.edge == e) std::cout << "  " << type_name(g, s, f.type) << ":" << to_string(f.rate);
    std::cout << "\n";
  }
  std::cout << "nodes: port occupation (send, recv) and computation alpha per time unit\n";
  for (int v = 0; v < g.node_count(); ++v) {
    const auto i = static_cast<std::size_t>(v);
    std::cout << "  " << g.node(v).name << "  send " << to_string(s.node_send[i]) << "  recv "
              << to_string(s.node_recv[i]) << "  compute " << to_string(s.node_compute[i]);
    for (const auto& t : s.tasks)
      if (t.node == v) std::cout << "  T(" << t.k << "," << t.l << "," << t.m << "):" << to_string(t.rate);
    std::cout << "\n";
  }
  if (fixed)
    std::cout << "fixed period T_fixed = " << fixed->period
              << " (--period-max): TP_fixed = " << to_string(fixed->throughput)
              << ", loss <= card(Trees)/T_fixed = " << to_string(fixed->loss_bound) << "\n";
  std::cout << (pb.op == SteadyOp::Reduce ? "reduction trees" : "routes") << " (weight per time unit):\n";
  for (const auto& t : trees) {
    std::cout << "  " << to_string(t.weight) << ":";
    for (const auto& k : t.tasks) std::cout << "  " << task_name(g, s, k);
    std::cout << "\n";
  }
  std::cout << "matchings of one period of " << ps.period << " (duration: transfers, messages):\n";
  for (const auto& m : ps.matchings) {
    std::cout << "  " << to_string(m.duration) << ":";
    for (const auto& t : m.transfers) std::cout << "  " << transfer_text(t);
    std::cout << "\n";
  }
  if (pipe) {
    const Rational rate = Rational(pipe->operations) / Rational(pipe->makespan());
    std::cout << "K = " << pipe->operations << " operations in " << pipe->periods << " periods ("
              << pipe->init_periods << " initialisation, " << pipe->steady_periods << " steady, "
              << pipe->cleanup_periods << " clean-up): makespan " << pipe->makespan()
              << ", K/makespan = " << to_string(rate) << " = " << to_double(rate / s.throughput) << " TP\n";
    std::cout << "largest buffer " << pipe->max_buffer << " values = " << to_string(pipe->max_buffer_ratio)
              << " x its per-period consumption (Section 3.4 bound: 2)\n";
  }
}

void register_steady(CLI::App& app) {
  auto args = std::make_shared<SteadyArgs>();
  CLI::App* sub = app.add_subcommand(
      "steady", "steady-state throughput and periodic schedule (Legrand, Marchal and Robert)");
  sub->add_option("--platform", args->platform, "platform JSON file")->required();
  sub->add_option("--op", args->op, "scatter | gossip | reduce")->required();
  sub->add_option("--source", args->source, "scatter: source node");
  sub->add_option("--sources", args->sources, "gossip: source nodes")->delimiter(',');
  sub->add_option("--targets", args->targets, "scatter/gossip: target nodes")->delimiter(',');
  sub->add_option("--participants", args->participants, "reduce: operands in order (default: speed > 0)")
      ->delimiter(',');
  sub->add_option("--target", args->target, "reduce: node receiving the result");
  sub->add_option("--period-max", args->period_max, "use a fixed period (Section 4.6) when T exceeds this");
  CLI::Option* ops =
      sub->add_option("--operations", args->operations, "replay K operations: phases, makespan, buffers");
  sub->add_option("--simgrid-xml", args->simgrid_xml, "also write the platform as SimGrid XML to this file");
  sub->add_flag("--port-links", args->port_links,
                "SimGrid XML: per-node port links (one-port approximation)");
  sub->add_flag("--json", args->json, "print JSON");
  sub->callback([args, ops] {
    args->operations_given = ops->count() > 0;
    run_steady(*args);
  });
}

} // namespace

HPF_CLI_COMMAND("steady", register_steady);

} // namespace hpf::cli
