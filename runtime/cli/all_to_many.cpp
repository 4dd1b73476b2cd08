// `hpfrt all-to-many --ranks 64 --degree 8 [--len 1024] [--algorithm ac|lp|rs-n|rs-nl|optimal|all]
//  [--routing hypercube|mesh2d|full] [--seed 1] [--alpha 1e-5] [--beta 1e-9] [--com file.json] [--json]`:
// the all-to-many schedules of Wang and Ranka for a random d-regular pattern (the workload
// of the paper's §6) or for a pattern read from JSON, with their phase counts and alpha-beta costs
// (assumption 1 of Wang and Ranka §2.1: a phase costs alpha + beta * its longest message).
#include "com_json.hpp"
#include "commands.hpp"
#include "schedule_json.hpp"

#include <hpf/core/error.hpp>
#include <hpf/core/text.hpp>
#include <hpf/schedule/all_to_many.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <unordered_map>

namespace hpf::cli {

namespace {

struct AllToManyArgs {
  int n = 0;
  int d = 0;
  index_t len = 1024;
  std::string algo = "rs-n";
  std::string routing; // empty: hypercube for a power of two, mesh2d otherwise
  std::uint64_t seed = 1;
  double alpha = 1e-5;
  double beta = 1e-9;
  std::string com_file;
  bool json = false;
  bool n_given = false;
  bool d_given = false;
};

CommMatrix read_com(const std::string& path) {
  return com_from_json(detail::read_input_file(path, "--com"), path);
}

void run_all_to_many(const AllToManyArgs& a) {
  CommMatrix com;
  std::string pattern;
  if (!a.com_file.empty()) {
    detail::require(!a.n_given && !a.d_given, "--com: give either --com or --ranks/--degree, not both");
    com = read_com(a.com_file);
    pattern = "pattern from " + a.com_file;
  } else {
    detail::require(a.n_given, "--ranks: number of nodes is required (or give --com file.json)");
    detail::require(a.n >= 1 && a.n <= max_n, "--ranks: number of nodes must be in [1, ", max_n, "], got ",
                    a.n);
    detail::require(a.d_given, "--degree: density is required with --ranks");
    detail::require(a.d >= 0 && a.d < a.n, "--degree: density must be in [0, ranks - 1] = [0, ", a.n - 1,
                    "], got ", a.d);
    detail::require(a.len >= 1, "--len: message length must be >= 1, got ", a.len);
    check_work(static_cast<double>(a.n) * a.d, 1e7,
               "all-to-many: the messages of the pattern (ranks x degree)");
    com = random_regular_com(a.n, a.d, a.len, a.seed);
    pattern =
        detail::concat("random ", a.d, "-regular pattern, messages of ", a.len, " units, seed ", a.seed);
  }
  // Every cost below is a sum of message lengths: the total volume bounds them all, so it is checked
  // once, before anything is printed (unchecked, --len 2^63 - 1 summed to -2).
  try {
    (void)com.total_volume();
  } catch (const Error& e) {
    detail::fail("all-to-many: the message lengths (--len or --com) sum past 64 bits: ", e.what());
  }
  detail::require(a.alpha >= 0, "--alpha: start-up cost must be >= 0, got ", a.alpha);
  detail::require(a.beta >= 0, "--beta: cost per unit must be >= 0, got ", a.beta);
  const int n = com.num_senders();
  std::vector<AllToManyAlgo> algos;
  if (a.algo == "all")
    algos = all_to_many_algos();
  else
    algos.push_back(parse_all_to_many_algo(a.algo, "--algorithm"));
  const bool pow2 = (n & (n - 1)) == 0;
  const RoutingKind rk = a.routing.empty() ? (pow2 ? RoutingKind::Hypercube : RoutingKind::Mesh2D)
                                           : parse_routing_kind(a.routing, "--routing");
  detail::require(rk != RoutingKind::Hypercube || pow2,
                  "--routing: hypercube needs n a power of two, got n = ", n, " (use mesh2d or full)");
  const Routing routing = Routing::make(rk, n);

  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  if (!a.json) {
    std::cout << "all-to-many on n " << n << ": " << pattern << "\n"
              << com.entries().size() << " messages, max in/out degree " << com.max_degree()
              << " (the minimum number of phases), routing model " << routing.describe() << "\n"
              << "cost = alpha * phases + beta * sum of the longest message per phase, alpha " << a.alpha
              << ", beta " << a.beta << "\n"
              << std::left << std::setw(9) << "algo" << std::setw(8) << "phases" << std::setw(14)
              << "sum max len" << std::setw(14) << "cost"
              << "link-contention-free\n";
  }
  for (AllToManyAlgo algo : algos) {
    const Schedule s = schedule_all_to_many(com, AllToManyOptions{algo, rk, a.seed});
    validate(s, com); // a scheduler bug must never print a wrong schedule
    const std::string contention = check_link_contention(s, routing);
    if (a.json) {
      // n and algo, then the CLI's one schedule shape (a phase is a step); routing, contention
      // and the lower bound are in the text output only.
      nlohmann::ordered_json j;
      j["n"] = n;
      j["algo"] = to_string(algo);
      put_schedule(j, s, a.alpha, a.beta);
      out.push_back(std::move(j));
    } else {
      std::cout << std::setw(9) << to_string(algo) << std::setw(8) << s.num_steps() << std::setw(14)
                << s.total_cost() << std::setw(14) << s.cost(a.alpha, a.beta)
                << (contention.empty() ? "yes" : "no (" + contention + ")") << "\n";
    }
  }
  if (a.json) std::cout << (out.size() == 1 ? out[0] : out).dump() << "\n";
}

void register_all_to_many(CLI::App& app) {
  auto args = std::make_shared<AllToManyArgs>();
  CLI::App* sub =
      app.add_subcommand("all-to-many", "all-to-many schedules, phases and costs (Wang and Ranka)");
  CLI::Option* n = sub->add_option("--ranks,--n", args->n, "number of nodes (random pattern)");
  CLI::Option* d = sub->add_option("--degree,--d", args->d, "density: messages sent and received per node");
  sub->add_option("--len", args->len, "message length in units (bytes) of the random pattern")
      ->capture_default_str();
  sub->add_option("--algorithm,--algo", args->algo, "ac | lp | rs-n | rs-nl | optimal | all")
      ->capture_default_str();
  sub->add_option(
      "--routing", args->routing,
      "hypercube | mesh2d | full (RS_NL's model; default hypercube for a power of two, else mesh2d)");
  sub->add_option("--seed", args->seed, "seed of the pattern and of RS_N / RS_NL")
      // An unsigned option would silently wrap -1 to 2^64 - 1.
      ->check(CLI::Validator(
          [](const std::string& v) {
            return v.find('-') == std::string::npos ? "" : "must be >= 0, got " + v;
          },
          "SEED >= 0"))
      ->capture_default_str();
  sub->add_option("--alpha", args->alpha, "start-up cost per phase")->capture_default_str();
  sub->add_option("--beta", args->beta, "cost per unit of the longest message of a phase")
      ->capture_default_str();
  sub->add_option("--com", args->com_file, "pattern as JSON {\"n\":N,\"messages\":[[src,dst,len],...]}");
  sub->add_flag("--json", args->json, "print JSON (one object, or an array for --algorithm all)");
  sub->callback([args, n, d] {
    args->n_given = n->count() > 0;
    args->d_given = d->count() > 0;
    run_all_to_many(*args);
  });
}

} // namespace

HPF_CLI_COMMAND("all-to-many", register_all_to_many);

} // namespace hpf::cli
