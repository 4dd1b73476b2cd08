// The `hpfrt` command line: planning and inspection tools that need no MPI job.
// Exit codes: 0 success, 2 invalid arguments (with a message on stderr).
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
