// Schedulers of Desprez et al. (see strategy.hpp): caterpillar, class by class, König stepwise and greedy,
// all-at-once, and the Auto choice between them.
#include <hpf/core/error.hpp>
#include <hpf/core/names.hpp>
#include <hpf/schedule/matching.hpp>
#include <hpf/schedule/strategy.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <optional>
#include <utility>

namespace hpf {

namespace {

constexpr NameTable<Strategy, 7> strategy_names{{{{Strategy::Auto, "auto"},
                                                  {Strategy::Caterpillar, "caterpillar"},
                                                  {Strategy::Class, "class"},
                                                  {Strategy::KoenigStepwise, "koenig-stepwise"},
                                                  {Strategy::KoenigGreedy, "koenig-greedy"},
                                                  {Strategy::AllAtOnce, "all-at-once"},
                                                  {Strategy::Alltoallv, "alltoallv"}}}};

std::size_t sz(int v) { return static_cast<std::size_t>(v); }

} // namespace

std::string to_string(Strategy s) { return std::string(strategy_names.name(s)); }

Strategy parse_strategy(std::string_view name, std::string_view what) {
  return strategy_names.parse(name, what);
}

const std::vector<Strategy>& all_strategies() {
  static const std::vector<Strategy> all = [] {
    std::vector<Strategy> v;
    v.reserve(strategy_names.entries.size());
    for (const auto& [s, name] : strategy_names.entries) v.push_back(s);
    return v;
  }();
  return all;
}

// ---------------------------------------------------------------------------------------------
// Caterpillar (ScaLAPACK pxgemr2d, section 3.2 of Desprez et al.)

Schedule caterpillar_schedule(const CommMatrix& grid) {
  const int P = grid.num_senders();
  const int Q = grid.num_receivers();
  const int n = std::max(P, Q);
  std::vector<Step> steps(sz(n));
  for (Step& step : steps) step.messages.reserve(sz(std::min(P, Q)));
  // Step k pairs p with (p + k) mod n, a permutation of [0, n): at most one message per sender and
  // per receiver. Pairs with nothing to send still meet (an empty message), as in ScaLAPACK.
  // Row by row, so the lengths are read from the sorted entries in order (no P x Q table).
  const std::vector<Message>& e = grid.entries();
  std::size_t row_begin = 0;
  for (int p = 0; p < P; ++p) {
    std::size_t row_end = row_begin;
    while (row_end < e.size() && e[row_end].src == p) ++row_end;
    // q = p + k for k < n - p, then q = p + k - n: two increasing runs of q.
    std::size_t it = row_begin;
    while (it < row_end && e[it].dst < p) ++it; // first entry with q >= p
    for (int k = 0; k < n; ++k) {
      const int q = p + k < n ? p + k : p + k - n;
      if (q == 0) it = row_begin; // wrapped around
      if (q >= Q) continue;
      while (it < row_end && e[it].dst < q) ++it;
      const index_t len = (it < row_end && e[it].dst == q) ? e[it].len : 0;
      steps[sz(k)].messages.push_back({p, q, len});
    }
    row_begin = row_end;
  }
  return Schedule(P, Q, std::move(steps));
}

// ---------------------------------------------------------------------------------------------
// All at once

Schedule all_at_once_schedule(const CommMatrix& grid) {
  Schedule sched(grid.num_senders(), grid.num_receivers());
  for (const Message& m : grid.entries()) sched.add_step(Step{{m}});
  return sched;
}

// ---------------------------------------------------------------------------------------------
// Class by class (Propositions 3 and 4, Desprez et al.)

namespace {

void check_params(const BlockCyclicParams& p) {
  detail::require(p.P >= 1, "block-cyclic params: P must be >= 1, got ", p.P);
  detail::require(p.Q >= 1, "block-cyclic params: Q must be >= 1, got ", p.Q);
  detail::require(p.r >= 1, "block-cyclic params: r must be >= 1, got ", p.r);
  detail::require(p.s >= 1, "block-cyclic params: s must be >= 1, got ", p.s);
  detail::require(p.M >= 0, "block-cyclic params: M must be >= 0, got ", p.M);
}

/// x with a x = 1 (mod m), for gcd(a, m) = 1 (extended Euclid).
index_t mod_inverse(index_t a, index_t m) {
  index_t old_r = detail::pos_mod(a, m);
  index_t r = m;
  index_t old_s = 1;
  index_t s = 0;
  while (r != 0) {
    const index_t q = old_r / r;
    old_r -= q * r;
    std::swap(old_r, r);
    old_s -= q * s;
    std::swap(old_s, s);
  }
  return detail::pos_mod(old_s, m);
}

} // namespace

bool class_schedule_applies(const BlockCyclicParams& params, std::string* why) {
  check_params(params);
  // Lemma 1: reduce by gcd(r, s) first; Prop. 3 then needs r' prime to Q and s' prime to P.
  const index_t D = std::gcd(params.r, params.s);
  const index_t r1 = params.r / D;
  const index_t s1 = params.s / D;
  const index_t gq = std::gcd(r1, static_cast<index_t>(params.Q));
  const index_t gp = std::gcd(s1, static_cast<index_t>(params.P));
  if (gq == 1 && gp == 1) return true;
  if (why)
    *why = detail::concat(
        "class-by-class scheduling (Prop. 3, Desprez et al.) needs gcd(r', Q) = gcd(s', P) = 1 with ",
        "r' = r / gcd(r, s) = ", r1, ", s' = s / gcd(r, s) = ", s1, "; here gcd(r', Q) = gcd(", r1, ", ",
        params.Q, ") = ", gq, " and gcd(s', P) = gcd(", s1, ", ", params.P, ") = ", gp);
  return false;
}

Schedule class_schedule(const CommMatrix& grid, const BlockCyclicParams& params) {
  std::string why;
  detail::require(class_schedule_applies(params, &why), why);
  const int P = params.P;
  const int Q = params.Q;
  detail::require(grid.num_senders() == P && grid.num_receivers() == Q, "class schedule: the grid is ",
                  grid.num_senders(), "x", grid.num_receivers(), " but the parameters say P = ", P,
                  ", Q = ", Q);
  const index_t D = std::gcd(params.r, params.s);
  const index_t r1 = params.r / D;
  const index_t s1 = params.s / D;
  // With gcd(r', Q) = gcd(s', P) = gcd(r', s') = 1, g' = gcd(P r', Q s') = gcd(P, Q) divides both P
  // and Q (Prop. 3).
  const index_t g = std::gcd(static_cast<index_t>(P), static_cast<index_t>(Q));
  const auto gi = static_cast<int>(g);
  const int bp = P / gi; // sender blocks
  const int bq = Q / gi; // receiver blocks
  const int n = std::max(bp, bq);
  const index_t s_inv = mod_inverse(s1, g);

  // Residues mod g' (< 2^31) keep every product below 2^62 whatever the sizes of r and s.
  const index_t r1g = r1 % g;
  auto class_of = [&](int p, int q) { return detail::pos_mod((p % g) * r1g - (q % g) * (s1 % g), g); };
  // Only classes holding data are scheduled (for one slice: those with some k in [1 - r', s' - 1]).
  std::vector<char> has_data(static_cast<std::size_t>(g), 0);
  for (const Message& m : grid.entries()) has_data[static_cast<std::size_t>(class_of(m.src, m.dst))] = 1;

  // Length of (p, q): a search within row p of the sorted entries (a search over all of them, once per
  // pair, was most of the planning time of dense P x Q grids near 1000 x 1000).
  const std::vector<Message>& entries = grid.entries();
  std::vector<std::size_t> row_start(sz(P + 1), entries.size());
  for (std::size_t i = entries.size(); i-- > 0;) row_start[sz(entries[i].src)] = i;
  for (int p = P; p-- > 0;) row_start[sz(p)] = std::min(row_start[sz(p)], row_start[sz(p + 1)]);
  auto length = [&](int p, int q) -> index_t {
    const auto first = entries.begin() + static_cast<std::ptrdiff_t>(row_start[sz(p)]);
    const auto last = entries.begin() + static_cast<std::ptrdiff_t>(row_start[sz(p + 1)]);
    const auto it = std::lower_bound(first, last, q, [](const Message& m, int d) { return m.dst < d; });
    return it != last && it->dst == q ? it->len : 0;
  };
  Schedule sched(P, Q);
  for (index_t c = 0; c < g; ++c) {
    if (!has_data[static_cast<std::size_t>(c)]) continue;
    std::vector<int> q0(sz(gi));
    for (int p0 = 0; p0 < gi; ++p0)
      q0[sz(p0)] = static_cast<int>(detail::pos_mod(static_cast<index_t>(p0) * r1g - c, g) * s_inv % g);
    for (int t = 0; t < n; ++t) {
      Step step;
      for (int a = 0; a < bp; ++a) {
        const int b = (a + t) % n;
        if (b >= bq) continue;
        for (int p0 = 0; p0 < gi; ++p0) {
          const int p = p0 + a * gi;
          const int q = q0[sz(p0)] + b * gi;
          if (const index_t l = length(p, q); l > 0) step.messages.push_back({p, q, l});
        }
      }
      if (!step.messages.empty()) {
        std::sort(step.messages.begin(), step.messages.end(),
                  [](const Message& x, const Message& y) { return x.src < y.src; });
        sched.add_step(std::move(step));
      }
    }
  }
  // Every pair (p, q) belongs to exactly one class and is met once in it, and every class holding
  // data is scheduled, so this is a valid schedule of any P x Q grid; it is optimal (NS and TC) for the grid
  // of `params` when M is a multiple of L.
  return sched;
}

// ---------------------------------------------------------------------------------------------
// König: stepwise and greedy (Theorem 1 and section 4.5, Desprez et al.)

namespace {

Schedule koenig_schedule(const CommMatrix& grid, bool stepwise) {
  // Stepwise: each step saturates every maximum-degree vertex, then has the most weight, so NS is
  // the maximum degree (Theorem 1). Greedy: each step has the most weight (section 4.5). Both are
  // colourings of the matching engine (matching.hpp).
  const std::vector<Message>& msgs = grid.entries(); // sorted by (src, dst)
  std::vector<BipartiteEdge> edges;
  edges.reserve(msgs.size());
  for (const Message& m : msgs) edges.push_back({m.src, m.dst, m.len, 0});
  Schedule sched(grid.num_senders(), grid.num_receivers());
  const ColouringRule rule = koenig_uses_fast_colouring(grid) ? ColouringRule::Fast
                             : stepwise                       ? ColouringRule::SaturateMaxDegree
                                                              : ColouringRule::MaxWeight;
  for (const std::vector<std::size_t>& cls :
       bipartite_edge_colouring(grid.num_senders(), grid.num_receivers(), edges, rule)) {
    Step step;
    for (std::size_t e : cls) step.messages.push_back(msgs[e]);
    sched.add_step(std::move(step));
  }
  return sched;
}

} // namespace

bool koenig_uses_fast_colouring(const CommMatrix& grid) {
  return static_cast<double>(grid.entries().size()) * static_cast<double>(grid.max_degree()) >
         koenig_exact_budget;
}

Schedule koenig_stepwise_schedule(const CommMatrix& grid) { return koenig_schedule(grid, true); }

Schedule koenig_greedy_schedule(const CommMatrix& grid) { return koenig_schedule(grid, false); }

// ---------------------------------------------------------------------------------------------
// Auto and the entry point

namespace {

void check_options(const ScheduleOptions& opt) {
  detail::require(std::isfinite(opt.alpha) && opt.alpha >= 0,
                  "schedule options: alpha must be finite and >= 0, got ", opt.alpha);
  detail::require(std::isfinite(opt.beta) && opt.beta >= 0,
                  "schedule options: beta must be finite and >= 0, got ", opt.beta);
  if (opt.params) check_params(*opt.params);
}

/// Candidates of Auto in tie-break order, with their schedules.
/// A candidate of Auto: its cost, and its schedule unless it is cheap to build again (caterpillar).
struct Candidate {
  Strategy strategy;
  double cost;
  std::optional<Schedule> schedule;
};

/// The caterpillar's cost without building its max(P, Q) x min(P, Q) messages: the message (p, q) is
/// in step (q - p) mod max(P, Q), and every step is taken.
double caterpillar_cost(const CommMatrix& grid, const ScheduleOptions& opt) {
  const int n = std::max(grid.num_senders(), grid.num_receivers());
  std::vector<index_t> step_max(sz(n), 0);
  for (const Message& m : grid.entries()) {
    index_t& x = step_max[sz(((m.dst - m.src) % n + n) % n)];
    x = std::max(x, m.len);
  }
  index_t tc = 0;
  for (index_t x : step_max) tc += x;
  return opt.alpha * static_cast<double>(n) + opt.beta * static_cast<double>(tc);
}

/// Candidates of Auto in tie-break order: optimal by theorem first, then fewest steps.
std::vector<Candidate> auto_candidates(const CommMatrix& grid, const ScheduleOptions& opt) {
  std::vector<Candidate> out;
  auto add = [&](Strategy st, Schedule sc) {
    const double c = sc.cost(opt.alpha, opt.beta);
    out.push_back({st, c, std::move(sc)});
  };
  if (opt.params && class_schedule_applies(*opt.params))
    add(Strategy::Class, class_schedule(grid, *opt.params));
  add(Strategy::KoenigStepwise, koenig_stepwise_schedule(grid));
  if (!koenig_uses_fast_colouring(grid))
    add(Strategy::KoenigGreedy, koenig_greedy_schedule(grid)); // else the same
  out.push_back({Strategy::Caterpillar, caterpillar_cost(grid, opt), std::nullopt});
  return out;
}

std::size_t pick(const std::vector<Candidate>& cands) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < cands.size(); ++i) {
    // Strictly better by more than rounding: ties keep the earlier (preferred) candidate.
    if (cands[i].cost < cands[best].cost - 1e-12 * std::abs(cands[best].cost)) best = i;
  }
  return best;
}

} // namespace

Strategy auto_strategy(const CommMatrix& grid, const ScheduleOptions& opt) {
  check_options(opt);
  const auto cands = auto_candidates(grid, opt);
  return cands[pick(cands)].strategy;
}

AutoChoice auto_choice(const CommMatrix& grid, const ScheduleOptions& opt) {
  check_options(opt);
  auto cands = auto_candidates(grid, opt);
  Candidate& best = cands[pick(cands)];
  return {best.strategy, best.schedule ? std::move(*best.schedule) : caterpillar_schedule(grid)};
}

Schedule make_schedule(const CommMatrix& grid, Strategy strategy, const ScheduleOptions& opt) {
  check_options(opt);
  switch (strategy) {
  case Strategy::Auto:
    return auto_choice(grid, opt).schedule;
  case Strategy::Caterpillar:
    return caterpillar_schedule(grid);
  case Strategy::Class:
    detail::require(opt.params.has_value(),
                    "strategy class: needs the block-cyclic parameters (ScheduleOptions::params)");
    return class_schedule(grid, *opt.params);
  case Strategy::KoenigStepwise:
    return koenig_stepwise_schedule(grid);
  case Strategy::KoenigGreedy:
    return koenig_greedy_schedule(grid);
  case Strategy::AllAtOnce:
  case Strategy::Alltoallv:
    return all_at_once_schedule(grid);
  }
  detail::fail("make_schedule: unknown strategy value ", static_cast<int>(strategy));
}

} // namespace hpf
