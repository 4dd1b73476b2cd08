// The `hpfrt` command line: planning and inspection tools that need no MPI job.
// Exit codes: 0 success, 2 invalid arguments (with a message on stderr).
//
// One flag vocabulary across sub-commands (older names stay accepted as aliases, because tests,
// bench/ scripts and the docs use them):
//   --ranks N         a number of ranks, processes, machines or nodes    (alias --n or --P)
//   --extent M        an array extent                                    (alias --n in layout, --M in plan)
//   --algorithm NAME  the algorithm / strategy / scheduler to use        (alias --algo, --strategy)
//   --json            print JSON instead of text
//   --alpha, --beta   start-up cost per step and cost per unit, in every cost model
// Kept as they are because they are the seeds' own notation: plan's --P --Q --r --s (source and target
// processes and block sizes), reduce-tree's --d --c --K, bcast's --m; all-to-many's density is
// --degree (alias --d). steady's --op names the collective (scatter | gossip | reduce), not an
// algorithm for it, so it is not an alias of --algorithm.
// Names of values (algorithms, strategies, routings, ops) are lower-case with hyphens, one name table
// per enum (include/hpf/core/names.hpp); an unknown value names the option, the value and the choices.
// A schedule printed as JSON has one shape everywhere (schedule_json.hpp):
//   "steps": [[[src, dst, len], ...], ...], "num_steps": N, "cost": alpha * N + beta * sum of max lengths
#include "commands.hpp"

#include <hpf/core/error.hpp>

#include <algorithm>
#include <iostream>

namespace hpf::cli {

std::vector<std::pair<std::string, RegisterFn>>& commands() {
  static std::vector<std::pair<std::string, RegisterFn>> list;
  return list;
}

bool add_command(std::string name, RegisterFn fn) {
  commands().emplace_back(std::move(name), fn);
  return true;
}

} // namespace hpf::cli

int main(int argc, char** argv) {
  try {
    CLI::App app{"hpfrt: plans and schedules of the hpfrt runtime"};
    app.require_subcommand(1);
    auto cmds = hpf::cli::commands();
    std::sort(cmds.begin(), cmds.end());
    for (const auto& [name, fn] : cmds) fn(app);
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      std::cerr << "hpfrt: " << e.what() << "\n(run 'hpfrt --help' for usage)\n";
      return 2;
    }
  } catch (const hpf::Error& e) {
    std::cerr << "hpfrt: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) { // not bad input: a bug or an exhausted resource
    std::cerr << "hpfrt: internal error: " << e.what() << "\n";
    return 1;
  } catch (...) {
    std::cerr << "hpfrt: internal error\n";
    return 1;
  }
  return 0;
}
