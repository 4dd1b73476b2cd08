// Sub-commands of the `hpfrt` tool. Each command lives in its own file and registers itself with
// HPF_CLI_COMMAND(name, register_fn), so adding a command never touches main.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

namespace hpf::cli {

/// Adds the command's sub-command (its options and callback) to the tool.
using RegisterFn = void (*)(CLI::App& app);

/// The registered commands, in registration order (main() sorts them by name).
std::vector<std::pair<std::string, RegisterFn>>& commands();

/// Records a command; called from a static initialiser by HPF_CLI_COMMAND.
bool add_command(std::string name, RegisterFn fn);

/// Bounded work: every sub-command estimates its work or output before it starts
/// and calls check_work, which throws hpf::Error (exit 2) when the estimate passes `limit` unless
/// --force (a flag of every sub-command) was given. The limits are listed in main.cpp.
bool& force_flag();
void check_work(double estimate, double limit, const std::string& what);

} // namespace hpf::cli

/// Registers `fn` as the sub-command `name` of the tool (at namespace scope, once per command file).
#define HPF_CLI_COMMAND(name, fn)                                                                            \
  [[maybe_unused]] static const bool hpf_cli_registered_##fn = ::hpf::cli::add_command(name, fn)
