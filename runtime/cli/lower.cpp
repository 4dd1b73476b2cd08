// `hpfrt lower FILE [-o OUT] [--fixed | --free]`: lowers an HPF main program's !HPF$ directives to calls of
// the hpfrt Fortran module (the accepted subset is documented in compiler-support/lower/hpf_lower.hpp).
#include "commands.hpp"

#include <hpf/core/error.hpp>
#include <hpf_lower.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

namespace hpf::cli {

namespace {

struct LowerArgs {
  std::string input;
  std::string output;
  bool fixed = false;
  bool free = false;
};

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in.good()) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void run_lower(const LowerArgs& a) {
  const auto src = read_file(a.input);
  detail::require(src.has_value(), "FILE: cannot read '", a.input, "'");
  LowerOptions options;
  if (a.fixed) options.form = SourceForm::Fixed;
  if (a.free) options.form = SourceForm::Free;
  options.include = read_file;
  const std::string lowered = lower_hpf(*src, a.input, options);
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
  sub->add_option("FILE", args->input,
                  "HPF source: fixed form for .f, .for, .f77, .ftn (any case), free form otherwise")
      ->required();
  sub->add_option("-o,--output", args->output,
                  "lowered Fortran, always free form (default: standard output)");
  auto* fixed = sub->add_flag("--fixed", args->fixed, "read FILE as fixed-form source, whatever its suffix");
  sub->add_flag("--free", args->free, "read FILE as free-form source, whatever its suffix")->excludes(fixed);
  sub->callback([args] { run_lower(*args); });
}

} // namespace

HPF_CLI_COMMAND("lower", register_lower);

} // namespace hpf::cli
