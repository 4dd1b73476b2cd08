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
// Kept as they are because they are the papers' own notation: plan's --P --Q --r --s (source and target
// processes and block sizes), reduce-tree's --d --c --K, bcast's --m; all-to-many's density is
// --degree (alias --d). steady's --op names the collective (scatter | gossip | reduce), not an
// algorithm for it, so it is not an alias of --algorithm.
// Names of values (algorithms, strategies, routings, ops) are lower-case with hyphens, one name table
// per enum (include/hpf/core/names.hpp); an unknown value names the option, the value and the choices.
// A schedule printed as JSON has one shape everywhere (schedule_json.hpp):
//   "steps": [[[src, dst, len], ...], ...], "num_steps": N, "cost": alpha * N + beta * sum of max lengths
//
// Hostile and huge inputs: integer options take decimal integers within 64 bits (and within
// the option's own type), number options finite numbers; anything else exits 2 naming the option.
// Every sub-command estimates its work before starting and exits 2 past its limit unless --force:
//   | command      | estimate                                              | limit  |
//   |--------------|-------------------------------------------------------|--------|
//   | layout       | values printed: P lines, or 2 n + P with --json       | 10^7   |
//   | plan         | cells of the P x Q communication grid                 | 10^7   |
//   | reduce-tree  | machines n (the tree and its printout are O(n))       | 10^6   |
//   | all-to-many  | messages n d of the random pattern (n <= 4096 always) | 10^7   |
//   | bcast        | ranks, and clusters^2 for the two-level plan          | 10^7   |
//   | steady       | LP size (nodes + edges) x message types               | 10^6   |
//   |              | replayed transfers --operations x edges               | 10^7   |
//   | lower        | input <= 64 MiB, statements <= 1 MiB, names <= 63 characters (not lifted) |
#include "commands.hpp"

#include <hpf/core/error.hpp>

#include <hpf/core/text.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

namespace hpf::cli {

namespace {

/// Checks that `v` is a decimal integer (optional sign, no leading zeros: CLI11 would read 010 as
/// octal) within 64 bits, and for options of unsigned type >= 0. CLI11 alone clamps
/// 9223372036854775808 to 2^63 - 1 and says only "Could not convert".
std::string check_integer(const std::string& v, bool is_unsigned) {
  const std::string shown = detail::printable(v, 40);
  std::size_t i = 0;
  const bool negative = !v.empty() && v[0] == '-';
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) ++i;
  if (i == v.size() || !std::all_of(v.begin() + static_cast<std::ptrdiff_t>(i), v.end(),
                                    [](char c) { return c >= '0' && c <= '9'; }))
    return "expected an integer, got '" + shown + "'";
  if (v[i] == '0' && i + 1 < v.size())
    return "expected a decimal integer without leading zeros, got '" + shown + "'";
  if (is_unsigned && negative && v.substr(i) != "0") return "expected an integer >= 0, got " + shown;
  long long ll = 0;
  unsigned long long ull = 0;
  const char* first = v.data() + (v[0] == '+' ? 1 : 0);
  const auto r = is_unsigned && !negative ? std::from_chars(first, v.data() + v.size(), ull)
                                          : std::from_chars(first, v.data() + v.size(), ll);
  if (r.ec == std::errc::result_out_of_range)
    return "expected an integer in [" + std::to_string(is_unsigned ? 0 : LLONG_MIN) + ", " +
           (is_unsigned ? std::to_string(ULLONG_MAX) : std::to_string(LLONG_MAX)) + "], got " + shown;
  return "";
}

/// Checks that `v` is a finite number ("1e308" is, "1e309", "inf" and "nan" are not).
std::string check_number(const std::string& v) {
  const std::string shown = detail::printable(v, 40);
  char* end = nullptr;
  errno = 0;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size()) return "expected a number, got '" + shown + "'";
  if (errno == ERANGE || !std::isfinite(d)) return "expected a finite number, got " + shown;
  return "";
}

/// Gives every integer and floating-point option of every sub-command the strict checks above, and
/// every sub-command the --force flag.
void strict_numbers(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    sub->add_flag("--force", force_flag(),
                  "run even when the work estimate passes the limit (see hpfrt --help)");
    for (CLI::Option* opt : sub->get_options()) {
      const std::string type = opt->get_type_name();
      if (type == "INT" || type == "UINT") {
        const bool is_unsigned = type == "UINT";
        opt->check(CLI::Validator([is_unsigned](std::string& v) { return check_integer(v, is_unsigned); }, "",
                                  "integer"));
      } else if (type == "FLOAT") {
        opt->check(CLI::Validator([](std::string& v) { return check_number(v); }, "", "number"));
      }
    }
  }
}

} // namespace

bool& force_flag() {
  static bool force = false;
  return force;
}

void check_work(double estimate, double limit, const std::string& what) {
  if (force_flag() || estimate <= limit) return;
  std::ostringstream os;
  os << what << " would be about " << std::setprecision(3) << estimate << ", past the limit of " << limit
     << "; pass --force to run anyway";
  throw Error(os.str());
}

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
    hpf::cli::strict_numbers(app);
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::ConversionError& e) {
      // Past strict_numbers, only a 64-bit integer too large for a narrower option gets here.
      std::string what = e.what();
      const std::string prefix = "Could not convert: ";
      if (what.rfind(prefix, 0) == 0) what = what.substr(prefix.size());
      std::cerr << "hpfrt: " << hpf::detail::printable(what, 200)
                << ": out of range for this option; expected an integer in [-2147483648, 2147483647]\n";
      return 2;
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
