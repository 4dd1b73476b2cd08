// `hpfrt bcast --ranks 16 --m 65536 [--clusters 8,8] [--model file.json] [--root 0] [--json]`: the
// predicted time of every broadcast algorithm of Table 1 of Steffenel and the choice; with
// --clusters, the two-level plan (per-cluster algorithm, every inter-cluster heuristic, the choice).
//
// Model file (JSON): {"intra": M, "inter": M}, "inter" optional, where M is either a linear pLogP
// {"L": s, "g0": s, "G": s/byte} or measured samples {"L": s, "samples": [{"m": bytes, "g": s,
// "os": s, "or": s}, ...]} ("os" and "or" default to 0). Without a file: intra L = 50 us,
// g(m) = 20 us + m * 10 ns (about 100 MB/s), inter L = 10 ms, g(m) = 1 ms + m * 100 ns.
#include "com_json.hpp"
#include "commands.hpp"

#include <hpf/adaptive/hierarchical.hpp>
#include <hpf/core/error.hpp>
#include <hpf/core/text.hpp>

#include <nlohmann/json.hpp>

#include <climits>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hpf::cli {

namespace {
struct BcastArgs {
  int P = 0;
  bool P_given = false;
  long long m = 0;
  std::vector<int> clusters;
  std::string model;
  int root = 0;
  bool json = false;
};

/// The number field `key` of `j` (or `fallback` when absent and one is given), naming the field and
/// its type when it is not a number.
double number_field(const nlohmann::json& j, const char* key, const std::string& where,
                    std::optional<double> fallback = std::nullopt) {
  if (!j.contains(key)) {
    detail::require(fallback.has_value(), "--model: ", where, " needs a number \"", key, "\"");
    return *fallback;
  }
  const auto& v = j.at(key);
  detail::require(v.is_number(), "--model: ", where, ".", key, " must be a number, got a JSON ",
                  v.type_name());
  return v.get<double>();
}

PLogP parse_plogp(const nlohmann::json& j, const std::string& where) {
  detail::require(j.is_object() && j.contains("L"), "--model: ", where, " must be an object with \"L\"");
  const double L = number_field(j, "L", where);
  if (j.contains("samples")) {
    const auto& samples = j.at("samples");
    detail::require(samples.is_array(), "--model: ", where, ".samples must be an array, got a JSON ",
                    samples.type_name());
    std::vector<PLogPSample> s;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const auto& e = samples[i];
      const std::string at = where + ".samples[" + std::to_string(i) + "]";
      detail::require(e.is_object(), "--model: ", at, " must be an object, got a JSON ", e.type_name());
      detail::require(e.contains("m") && e.at("m").is_number_unsigned(), "--model: ", at,
                      ".m must be an integer >= 0 (a message size in bytes)");
      s.push_back({e.at("m").get<std::size_t>(), number_field(e, "g", at), number_field(e, "os", at, 0.0),
                   number_field(e, "or", at, 0.0)});
    }
    return PLogP(L, std::move(s));
  }
  detail::require(j.contains("g0") && j.contains("G"), "--model: ", where,
                  " needs \"samples\" or both \"g0\" and \"G\"");
  return PLogP::linear(L, number_field(j, "g0", where), number_field(j, "G", where));
}

nlohmann::json prediction_json(const BcastPrediction& p) {
  return {{"algorithm", to_string(p.algorithm)}, {"segment", p.segment}, {"time", p.time}};
}

void run_bcast(const BcastArgs& a) {
  PLogP intra = PLogP::linear(50e-6, 20e-6, 1e-8);
  PLogP inter = PLogP::linear(10e-3, 1e-3, 1e-7);
  if (!a.model.empty()) {
    // A directory, a device or a huge file is refused before parsing; nesting is bounded.
    const std::string text = detail::read_input_file(a.model, "--model");
    const std::string shown = detail::printable(a.model, 200);
    const nlohmann::json j = parse_input_json(text, "--model", a.model);
    detail::require(j.is_object() && j.contains("intra"), "--model: '", shown,
                    "' must be an object with \"intra\" (and optionally \"inter\")");
    intra = parse_plogp(j.at("intra"), "intra");
    if (j.contains("inter")) inter = parse_plogp(j.at("inter"), "inter");
  }
  int P = a.P;
  if (!a.clusters.empty()) {
    long long sum = 0; // cannot overflow: at most 2^31 sizes below 2^31
    for (int s : a.clusters) {
      detail::require(s >= 1, "--clusters: every cluster size must be >= 1, got ", s);
      sum += s;
    }
    detail::require(sum <= INT_MAX, "--clusters: sizes sum to ", sum, "; expected at most ", INT_MAX,
                    " ranks");
    detail::require(!a.P_given || sum == a.P, "--clusters: sizes sum to ", sum, ", but --ranks is ", a.P);
    P = static_cast<int>(sum);
  }
  detail::require(a.P_given || !a.clusters.empty(),
                  "--ranks: number of ranks is required (or give --clusters)");
  detail::require(P >= 1, "--ranks: number of ranks must be >= 1, got ", P);
  detail::require(a.m >= 0, "--m: message size must be >= 0 bytes, got ", a.m);
  detail::require(a.root >= 0 && a.root < P, "--root: must be a rank in [0, ", P, "), got ", a.root);
  const double k = static_cast<double>(a.clusters.size());
  check_work(P + k * k, 1e7, "bcast: the ranks and cluster pairs modelled (ranks + clusters^2)");
  const auto m = static_cast<std::size_t>(a.m);
  const BcastChoice flat = choose_bcast(P, m, intra);
  std::unique_ptr<HierarchicalPlan> hier;
  if (!a.clusters.empty())
    hier = std::make_unique<HierarchicalPlan>(
        plan_hierarchical(ClusterMap::uniform(a.clusters, intra, inter), a.root, m));

  if (a.json) {
    nlohmann::json j;
    j["P"] = P;
    j["m"] = m;
    j["root"] = a.root;
    j["predictions"] = nlohmann::json::array();
    for (const auto& p : flat.predictions) j["predictions"].push_back(prediction_json(p));
    j["choice"] = prediction_json(flat.chosen());
    if (hier) {
      nlohmann::json h;
      h["clusters"] = hier->clusters;
      for (const auto& c : hier->intra) h["intra"].push_back(prediction_json(c.chosen()));
      for (const auto& s : hier->candidates) {
        nlohmann::json t = nlohmann::json::array();
        for (const auto& x : s.transfers) t.push_back({x.from, x.to});
        h["heuristics"].push_back(
            {{"name", to_string(s.heuristic)}, {"makespan", s.makespan}, {"transfers", t}});
      }
      h["choice"] = to_string(hier->inter().heuristic);
      h["predicted"] = hier->predicted();
      j["hierarchical"] = h;
    }
    std::cout << j.dump() << "\n";
    return;
  }
  std::cout << "broadcast of " << m << " bytes from rank " << a.root << " to " << P
            << " ranks (Steffenel, Table 1)\n"
            << "intra pLogP: L " << intra.L() << " s, g(m) " << intra.g(m) << " s\n"
            << std::left << std::setw(22) << "algorithm" << std::setw(12) << "segment"
            << "predicted (s)\n";
  for (const auto& p : flat.predictions)
    std::cout << std::setw(22) << to_string(p.algorithm) << std::setw(12) << p.segment << p.time << "\n";
  std::cout << "choice: " << to_string(flat.chosen().algorithm) << ", segment " << flat.chosen().segment
            << " bytes, predicted " << flat.chosen().time << " s\n";
  if (!hier) return;
  std::cout << "\ntwo-level plan over " << hier->clusters.size() << " clusters (inter pLogP: L " << inter.L()
            << " s, g(m) " << inter.g(m) << " s)\n";
  for (std::size_t c = 0; c < hier->clusters.size(); ++c) {
    const auto& ch = hier->intra[c].chosen();
    std::cout << "cluster " << c << ": " << hier->clusters[c].size() << " ranks, coordinator "
              << hier->clusters[c].front() << ", " << to_string(ch.algorithm) << " (segment " << ch.segment
              << "), T " << ch.time << " s\n";
  }
  std::cout << std::setw(22) << "heuristic"
            << "makespan (s)\n";
  for (const auto& s : hier->candidates)
    std::cout << std::setw(22) << to_string(s.heuristic) << s.makespan << "\n";
  std::cout << "choice: " << to_string(hier->inter().heuristic) << ", predicted " << hier->predicted()
            << " s\n";
}

void register_bcast(CLI::App& app) {
  auto args = std::make_shared<BcastArgs>();
  CLI::App* sub =
      app.add_subcommand("bcast", "predicted broadcast times and the adaptive choice (Steffenel)");
  CLI::Option* p = sub->add_option("--ranks,--P", args->P, "number of ranks");
  sub->add_option("--m", args->m, "message size in bytes")->required();
  sub->add_option("--clusters", args->clusters, "cluster sizes, e.g. 8,8 (two-level plan)")->delimiter(',');
  sub->add_option("--model", args->model, "pLogP parameters (JSON, see docs/broadcast.md)");
  sub->add_option("--root", args->root, "broadcast root")->capture_default_str();
  sub->add_flag("--json", args->json, "print JSON");
  sub->callback([args, p] {
    args->P_given = p->count() > 0;
    run_bcast(*args);
  });
}
} // namespace

HPF_CLI_COMMAND("bcast", register_bcast);

} // namespace hpf::cli
