// `hpfrt reduce-tree --ranks 12 --d 1 --c 1 [--algorithm greedy|binomial|fibonacci|limited-transfers --K 3|
//  limited-reducers --K 3] [--root 0] [--json]`: the reduction tree of Canon and Antoniu for n
// machines, in rank order (safe for non-commutative operators), and its schedule length.
#include "commands.hpp"

#include <hpf/core/error.hpp>
#include <hpf/reduce/tree.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <memory>
#include <string>

namespace hpf::cli {

namespace {
struct ReduceTreeArgs {
  int n = 0;
  double d = 1.0;
  double c = 1.0;
  std::string strategy = "greedy";
  int K = 0;
  bool K_given = false;
  int root = 0;
  bool json = false;
};

void run_reduce_tree(const ReduceTreeArgs& a) {
  detail::require(a.n >= 1, "--ranks: number of machines must be >= 1, got ", a.n);
  check_work(a.n, 1e6, "reduce-tree: the machines of the tree (--ranks)");
  const ReduceStrategy s = parse_reduce_strategy(a.strategy, "--algorithm");
  const bool limited = s == ReduceStrategy::limited_transfers || s == ReduceStrategy::limited_reducers;
  detail::require(!limited || a.K_given, "--K: strategy ", a.strategy, " needs --K (>= 1)");
  detail::require(!a.K_given || a.K >= 1, "--K: must be >= 1, got ", a.K);
  detail::require(a.root >= 0 && a.root < a.n, "--root: must be a machine in [0, ", a.n, "), got ", a.root);
  const ReductionTree t = plan_reduction_tree(a.n, ReduceCosts{a.d, a.c}, TreeOptions{s, a.K, a.root});
  detail::require(std::isfinite(t.length),
                  "--d, --c: the schedule length overflows to infinity with d = ", a.d, " and c = ", a.c,
                  "; expected costs whose sums stay finite");
  if (a.json) {
    nlohmann::json j;
    j["n"] = a.n;
    j["d"] = a.d;
    j["c"] = a.c;
    j["strategy"] = to_string(s);
    if (limited) j["K"] = a.K;
    j["root"] = t.root;
    j["length"] = t.length;
    j["parent"] = t.parent;
    nlohmann::json start = nlohmann::json::array();
    for (std::size_t i = 0; i < t.start.size(); ++i)
      start.push_back(t.parent[i] < 0 ? nlohmann::json(nullptr) : nlohmann::json(t.start[i]));
    j["start"] = start;
    j["inputs"] = t.inputs;
    if (t.forward_start >= 0) j["forward_start"] = t.forward_start;
    std::cout << j.dump() << "\n";
    return;
  }
  std::cout << "reduction tree: n " << a.n << ", d " << a.d << ", c " << a.c << ", strategy " << to_string(s);
  if (limited) std::cout << " (K " << a.K << ")";
  std::cout << ", result on " << t.root << "\n"
            << "each machine, then the machines it receives from, in receive order (lower ranks are "
               "combined on the left):\n"
            << format_tree(t) << "length " << t.length << "\n";
}
} // namespace

namespace {
void register_reduce_tree(CLI::App& app) {
  auto args = std::make_shared<ReduceTreeArgs>();
  CLI::App* sub = app.add_subcommand("reduce-tree", "reduction tree and schedule length (Canon and Antoniu)");
  sub->add_option("--ranks,--n", args->n, "number of machines (elements)")->required();
  sub->add_option("--d", args->d, "transfer cost d (>= 0)")->capture_default_str();
  sub->add_option("--c", args->c, "computation cost c (>= 0)")->capture_default_str();
  sub->add_option("--algorithm,--strategy", args->strategy,
                  "greedy | binomial | fibonacci | limited-transfers | limited-reducers")
      ->capture_default_str();
  CLI::Option* k = sub->add_option("--K", args->K, "limit of the limited-* strategies (>= 1)");
  sub->add_option("--root", args->root, "machine that gets the result")->capture_default_str();
  sub->add_flag("--json", args->json, "print JSON");
  sub->callback([args, k] {
    args->K_given = k->count() > 0;
    run_reduce_tree(*args);
  });
}

} // namespace

HPF_CLI_COMMAND("reduce-tree", register_reduce_tree);

} // namespace hpf::cli
