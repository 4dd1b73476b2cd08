// `hpfrt layout --extent 10 --ranks 3 (--r 2 | --block) [--json]`: who owns what in a 1-D CYCLIC(r) layout.
#include "commands.hpp"

#include <hpf/core/error.hpp>
#include <hpf/layout/distribution.hpp>

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <memory>

namespace hpf::cli {

namespace {
struct LayoutArgs {
  index_t n = 0;
  int P = 1;
  index_t r = 0;
  bool block = false;
  bool json = false;
};

void run_layout(const LayoutArgs& a) {
  detail::require(a.n >= 0, "--extent: extent must be >= 0, got ", a.n);
  detail::require(a.P >= 1, "--ranks: number of processes must be >= 1, got ", a.P);
  detail::require(a.block || a.r >= 1, "--r: block size must be >= 1, got ", a.r, " (or give --block)");
  check_work(a.json ? 2.0 * static_cast<double>(a.n) + a.P : a.P, 1e7,
             a.json ? "layout --json: the values printed (2 n + P)" : "layout: the lines printed (P)");
  const Distribution dist = a.block ? Block() : Cyclic(a.r);
  const CyclicMap m = dist.map(a.n, a.P);
  if (a.json) {
    nlohmann::json j;
    j["n"] = a.n;
    j["P"] = a.P;
    j["dist"] = dist.to_string();
    j["r"] = m.r;
    for (index_t i = 0; i < a.n; ++i) {
      j["owner"].push_back(m.owner(i));
      j["local"].push_back(m.local(i));
    }
    for (int p = 0; p < a.P; ++p) j["local_extent"].push_back(m.local_extent(p));
    std::cout << j.dump() << "\n";
    return;
  }
  std::cout << "extent " << a.n << " over " << a.P << " processes, " << dist.to_string() << " (block " << m.r
            << ")\n";
  for (int p = 0; p < a.P; ++p) {
    std::cout << "p" << std::setw(3) << std::left << p << std::right << " owns " << std::setw(6)
              << m.local_extent(p) << ":";
    for (index_t l = 0; l < m.local_extent(p) && l < 32; ++l) std::cout << ' ' << m.global(p, l);
    if (m.local_extent(p) > 32) std::cout << " ...";
    std::cout << "\n";
  }
}
} // namespace

namespace {
void register_layout(CLI::App& app) {
  auto args = std::make_shared<LayoutArgs>();
  CLI::App* sub = app.add_subcommand("layout", "ownership of a 1-D block-cyclic layout");
  sub->add_option("--extent,--n", args->n, "extent")->required();
  sub->add_option("--ranks,--P", args->P, "number of processes")->required();
  sub->add_option("--r", args->r, "CYCLIC block size");
  sub->add_flag("--block", args->block, "BLOCK distribution");
  sub->add_flag("--json", args->json, "print JSON");
  sub->callback([args] { run_layout(*args); });
}

} // namespace

HPF_CLI_COMMAND("layout", register_layout);

} // namespace hpf::cli
