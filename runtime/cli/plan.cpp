// `hpfrt plan --P 15 --Q 6 --r 2 --s 3 [--extent 1000] [--algorithm koenig-stepwise] [--alpha a --beta b]
//  [--json]`: the communication grid of CYCLIC(r) on P -> CYCLIC(s) on Q and its schedule, printed as
// the tables of Desprez et al. (rows p, columns q; in the step table each message is the letter of its
// step), with NS, TC and their lower bounds.
#include "commands.hpp"
#include "schedule_json.hpp"

#include <hpf/core/error.hpp>
#include <hpf/redist/pattern.hpp>
#include <hpf/schedule/strategy.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

namespace hpf::cli {

namespace {

struct PlanArgs {
  int P = 0;
  int Q = 0;
  index_t r = 0;
  index_t s = 0;
  std::optional<index_t> M;
  index_t M_value = 0; ///< --extent as parsed; M is set when the option was given
  std::string strategy = "auto";
  double alpha = ScheduleOptions{}.alpha;
  double beta = ScheduleOptions{}.beta;
  bool json = false;
};

/// Step names as in the tables of Desprez et al.: a, b, ..., z, then aa, ab, ... (spreadsheet style).
std::string step_name(int k) {
  std::string name;
  for (int n = k + 1; n > 0; n = (n - 1) / 26)
    name.insert(name.begin(), static_cast<char>('a' + (n - 1) % 26));
  return name;
}

/// A P x Q table with row and column headers; `cell(p, q)` is "" for an empty cell (printed ".").
template <class Cell> void print_table(std::ostream& os, int P, int Q, Cell&& cell) {
  std::vector<std::string> cells(static_cast<std::size_t>(P) * static_cast<std::size_t>(Q));
  std::size_t width = std::to_string(std::max(Q - 1, 0)).size();
  for (int p = 0; p < P; ++p)
    for (int q = 0; q < Q; ++q) {
      std::string c = cell(p, q);
      if (c.empty()) c.push_back('.'); // not c = ".": GCC 12's -Wrestrict misfires there at -O3 (PR 105329)
      width = std::max(width, c.size());
      cells[static_cast<std::size_t>(p) * static_cast<std::size_t>(Q) + static_cast<std::size_t>(q)] =
          std::move(c);
    }
  const std::size_t head = std::max<std::size_t>(std::to_string(std::max(P - 1, 0)).size(), 3);
  const auto w = static_cast<int>(width);
  os << std::setw(static_cast<int>(head)) << "p\\q";
  for (int q = 0; q < Q; ++q) os << ' ' << std::setw(w) << q;
  os << '\n';
  for (int p = 0; p < P; ++p) {
    os << std::setw(static_cast<int>(head)) << p;
    for (int q = 0; q < Q; ++q)
      os << ' ' << std::setw(w)
         << cells[static_cast<std::size_t>(p) * static_cast<std::size_t>(Q) + static_cast<std::size_t>(q)];
    os << '\n';
  }
}

void run_plan(const PlanArgs& a) {
  detail::require(a.P >= 1, "--P: number of source processes must be >= 1, got ", a.P);
  detail::require(a.Q >= 1, "--Q: number of target processes must be >= 1, got ", a.Q);
  detail::require(a.r >= 1, "--r: source block size must be >= 1, got ", a.r);
  detail::require(a.s >= 1, "--s: target block size must be >= 1, got ", a.s);
  detail::require(!a.M || *a.M >= 0, "--extent: array length must be >= 0, got ", a.M.value_or(0));
  check_work(static_cast<double>(a.P) * a.Q, 1e7, "plan: the cells of the P x Q communication grid");
  const Strategy strategy = parse_strategy(a.strategy, "--algorithm");
  const BlockCyclicGeometry geo = block_cyclic_geometry(a.P, a.r, a.Q, a.s);
  // Without --M the convention of Desprez et al.: one slice of L = lcm(P r, Q s) elements.
  const index_t M = a.M ? *a.M : slice_length(a.P, a.r, a.Q, a.s);
  // Refuse, before allocating, what would not fit: every pair holding data is a message (at most
  // min(P Q, M) of them, a few hundred bytes each with the JSON), and the fast König colouring keeps
  // a (P + Q) x (max degree) table of 4-byte entries.
  constexpr double max_messages = 1 << 21;
  constexpr double max_table = 1 << 27;
  const double pairs = std::min(static_cast<double>(a.P) * static_cast<double>(a.Q), static_cast<double>(M));
  const double degree = std::min(static_cast<double>(std::max(a.P, a.Q)), pairs);
  detail::require(
      pairs <= max_messages && (static_cast<double>(a.P) + a.Q) * degree <= max_table, "--P ", a.P, " --Q ",
      a.Q, " --extent ", M, ": up to ", static_cast<long long>(pairs), " messages and a colouring table of ",
      static_cast<long long>((static_cast<double>(a.P) + a.Q) * degree * 4 / 1e6),
      " MB; hpfrt plan handles at most ", static_cast<long long>(max_messages), " messages and ",
      static_cast<long long>(max_table * 4 / 1e6), " MB of table (fewer processes or a smaller --extent)");
  const CommMatrix grid = block_cyclic_pattern(a.P, a.r, a.Q, a.s, M);
  ScheduleOptions opt;
  opt.alpha = a.alpha;
  opt.beta = a.beta;
  opt.params = BlockCyclicParams{a.P, a.r, a.Q, a.s, M};
  AutoChoice choice = strategy == Strategy::Auto ? auto_choice(grid, opt) : AutoChoice{strategy, {}};
  const Strategy chosen = choice.strategy;
  const Schedule sched =
      strategy == Strategy::Auto ? std::move(choice.schedule) : make_schedule(grid, chosen, opt);
  validate(sched, grid);

  if (a.json) {
    nlohmann::json j;
    j["P"] = a.P;
    j["Q"] = a.Q;
    j["r"] = a.r;
    j["s"] = a.s;
    j["M"] = a.M ? nlohmann::json(*a.M) : nlohmann::json(nullptr);
    j["L"] = geo.L ? nlohmann::json(*geo.L) : nlohmann::json(nullptr);
    j["g"] = geo.g;
    j["strategy"] = to_string(strategy);
    if (strategy == Strategy::Auto) j["chosen"] = to_string(chosen);
    j["lower_bound_NS"] = grid.max_degree();
    j["lower_bound_TC"] = grid.max_volume();
    j["koenig_fast_colouring"] = koenig_uses_fast_colouring(grid);
    j["NS"] = sched.num_nonempty_steps();
    j["TC"] = sched.total_cost();
    nlohmann::json g = nlohmann::json::array();
    for (const Message& m : grid.entries()) g.push_back({m.src, m.dst, m.len});
    j["grid"] = g;
    put_schedule(j, sched, a.alpha, a.beta);
    std::cout << j.dump() << "\n";
    return;
  }

  std::cout << "redistribution CYCLIC(" << a.r << ") on P = " << a.P << " -> CYCLIC(" << a.s
            << ") on Q = " << a.Q << ", g = " << geo.g << ", L = ";
  if (geo.L)
    std::cout << *geo.L;
  else
    std::cout << "(beyond 64 bits)";
  std::cout << ", M = " << M << (a.M ? "" : " (one slice)") << "\n"
            << (geo.all_to_all ? "all-to-all" : "not all-to-all") << " per slice (Lemma 2: g' = " << geo.g_red
            << (geo.all_to_all ? " <= " : " > ") << "r' + s' - 1 = " << geo.r_red + geo.s_red - 1 << ")\n\n"
            << "communication grid (elements from p to q):\n";
  print_table(std::cout, a.P, a.Q, [&](int p, int q) {
    const index_t v = grid.at(p, q);
    return v == 0 ? std::string() : std::to_string(v);
  });
  std::vector<std::string> label(static_cast<std::size_t>(a.P) * static_cast<std::size_t>(a.Q));
  for (std::size_t k = 0; k < sched.steps().size(); ++k)
    for (const Message& m : sched.steps()[k].messages)
      if (m.len > 0)
        label[static_cast<std::size_t>(m.src) * static_cast<std::size_t>(a.Q) +
              static_cast<std::size_t>(m.dst)] = step_name(static_cast<int>(k));
  std::cout << "\ncommunication steps (" << to_string(chosen)
            << (strategy == Strategy::Auto ? ", chosen by auto" : "")
            << "; the step in which p sends to q):\n";
  print_table(std::cout, a.P, a.Q, [&](int p, int q) {
    return label[static_cast<std::size_t>(p) * static_cast<std::size_t>(a.Q) + static_cast<std::size_t>(q)];
  });
  std::cout << "\nstep costs (longest message):";
  for (std::size_t k = 0; k < sched.steps().size(); ++k)
    std::cout << ' ' << step_name(static_cast<int>(k)) << '=' << sched.steps()[k].max_len();
  std::cout << "\nNS " << sched.num_nonempty_steps();
  if (sched.num_steps() != sched.num_nonempty_steps())
    std::cout << " (" << sched.num_steps() << " steps taken, "
              << sched.num_steps() - sched.num_nonempty_steps() << " of them empty)";
  std::cout << ", TC " << sched.total_cost() << "\n"
            << "lower bounds: NS >= " << grid.max_degree() << " (max degree), TC >= " << grid.max_volume()
            << " (max row/column volume)\n"
            << (koenig_uses_fast_colouring(grid)
                    ? "the König schedules use the fast colouring (NS = max degree; TC not optimised)\n"
                    : "");
}

void register_plan(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* sub =
      app.add_subcommand("plan", "block-cyclic redistribution grid and schedule (Desprez et al.)");
  sub->add_option("--P", args->P, "source processes (>= 1)")->required();
  sub->add_option("--Q", args->Q, "target processes (>= 1)")->required();
  sub->add_option("--r", args->r, "source block size, CYCLIC(r) (>= 1)")->required();
  sub->add_option("--s", args->s, "target block size, CYCLIC(s) (>= 1)")->required();
  CLI::Option* m = sub->add_option("--extent,--M", args->M_value,
                                   "array length (>= 0); default one slice of L = lcm(P r, Q s)");
  sub->add_option("--algorithm,--strategy", args->strategy,
                  "auto | caterpillar | class | koenig-stepwise | koenig-greedy | all-at-once | alltoallv")
      ->capture_default_str();
  sub->add_option("--alpha", args->alpha, "seconds per step, for auto")->capture_default_str();
  sub->add_option("--beta", args->beta, "seconds per element, for auto")->capture_default_str();
  sub->add_flag("--json", args->json, "print JSON");
  sub->callback([args, m] {
    if (m->count() > 0) args->M = args->M_value;
    run_plan(*args);
  });
}

} // namespace

HPF_CLI_COMMAND("plan", register_plan);

} // namespace hpf::cli
