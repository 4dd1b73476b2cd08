// `hpfrt lower FILE [-o OUT]`: lowers an HPF main program's !HPF$ directives to calls of the hpfrt
// Fortran module (the accepted subset is documented in compiler-support/lower/hpf_lower.hpp).
#include "commands.hpp"

#include <hpf/core/error.hpp>
#include <hpf_lower.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

namespace hpf::cli {

namespace {

struct LowerArgs {
  std::string input;
  std::string output;
};

void run_lower(const LowerArgs& a) {
  std::ifstream in(a.input);
  detail::require(in.good(), "FILE: cannot read '", a.input, "'");
  std::stringstream src;
  src << in.rdbuf();
  const std::string lowered = lower_hpf(src.str(), a.input);
  if (a.output.empty() || a.output == "-") {
    std::cout << lowered;
    return;
  }
  std::ofstream out(a.output);
  detail::require(out.good(), "-o: cannot write '", a.output, "'");
  out << lowered;
}

void register_lower(CLI::App& app) {
  auto args = std::make_shared<LowerArgs>();
  CLI::App* sub =
      app.add_subcommand("lower", "lower !HPF$ directives of a Fortran main program to hpfrt calls");
  sub->add_option("FILE", args->input, "HPF source (free-form Fortran)")->required();
  sub->add_option("-o,--output", args->output, "lowered Fortran (default: standard output)");
  sub->callback([args] { run_lower(*args); });
}

} // namespace

HPF_CLI_COMMAND("lower", register_lower);

} // namespace hpf::cli
