// The T-independent part of the series API (see include/hpf/array/series.hpp).
#include <hpf/array/series.hpp>
#include <hpf/core/stats.hpp>
#include <hpf/reduce/tree.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>

namespace hpf {

std::string to_string(SeriesStrategy s) {
  switch (s) {
  case SeriesStrategy::Auto:
    return "auto";
  case SeriesStrategy::SteadyState:
    return "steady-state";
  case SeriesStrategy::TreePerOperation:
    return "tree-per-operation";
  case SeriesStrategy::Collective:
    return "collective";
  }
  return "?";
}

namespace detail {

struct VendorReduce {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  std::vector<std::byte> scratch; ///< the receive buffer of ranks other than the root (one piece)
};

void VendorReduceFree::operator()(VendorReduce* v) const noexcept {
  int finalized = 1;
  MPI_Finalized(&finalized);
  if (finalized == 0) { // after MPI_Finalize the handles are gone with MPI itself
    if (v->op != MPI_OP_NULL) MPI_Op_free(&v->op);
    if (v->type != MPI_DATATYPE_NULL) MPI_Type_free(&v->type);
  }
  delete v;
}

struct SteadyPlans {
  steady::SteadySolution solution;
  steady::PeriodicSchedule schedule;
  std::map<std::int64_t, steady::PipelinePlan> plans;
};

namespace {

// Solved LPs by (platform, problem, period target), so that series on one platform solve once per
// process: the key is the values themselves (the platform's JSON is the same text on every rank),
// and every rank builds the same series in the same order, so every rank hits or misses together.
// At most 8 entries are kept (the cache is emptied when a ninth arrives).
std::map<std::string, std::shared_ptr<SteadyPlans>>& solved_cache() {
  static std::map<std::string, std::shared_ptr<SteadyPlans>> cache;
  return cache;
}

double median_edge_seconds(const steady::MeasuredPlatform& m) {
  std::vector<double> c;
  for (const auto& e : m.platform.edges()) c.push_back(steady::to_double(e.cost) * m.time_unit);
  if (c.empty()) return 0;
  std::nth_element(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(c.size() / 2), c.end());
  return c[c.size() / 2];
}

// MPI's user function has no context argument: run_collective publishes its fold here for the
// duration of its reductions (MPI calls the function only from inside those calls, on this thread).
struct ActiveFold {
  const ByteFold* fold = nullptr;
};
thread_local ActiveFold t_active;

void vendor_fold(void* in, void* inout, int* len, MPI_Datatype*) {
  (*t_active.fold)(static_cast<const std::byte*>(in), static_cast<std::byte*>(inout), *len);
}

/// Phases of the steady-state calibration batch (Auto, reductions) and its interleaved rounds.
constexpr std::int64_t k_calibration_phases = 128;
constexpr int k_calibration_rounds = 3;
/// The vendor reduction of a batch goes in MPI_Reduce calls of at most this many bytes (at least one
/// value each): it bounds the receive buffer of the other ranks and what MPI allocates inside.
constexpr std::size_t k_vendor_piece_bytes = std::size_t{1} << 20;

double slowest_task_seconds(const steady::MeasuredPlatform& m) {
  double worst = 0;
  for (const auto& n : m.platform.nodes())
    if (n.speed > 0) worst = std::max(worst, m.time_unit / steady::to_double(n.speed));
  return worst;
}

} // namespace

SeriesCore::SeriesCore(MPI_Comm comm, steady::SteadyOp op, std::size_t value_bytes,
                       std::function<void()> op_timer, const SeriesOptions& opts, const char* who)
    : m_comm(Comm::duplicate(comm)), m_opts(opts), m_who(who) {
  m_rank = m_comm.rank();
  m_size = m_comm.size();
  // Every check below reads data every rank has (the options are the same everywhere), so every rank
  // throws together, before any collective.
  detail::require(opts.root >= 0 && opts.root < m_size, who, ": opts.root must be a rank in [0, ", m_size,
                  "), got ", opts.root);
  // The plan of a batch keeps per-period counts: a batch is a bounded amount of memory (header).
  detail::require(opts.batch >= 1 && opts.batch <= 1000000, who, ": opts.batch must be in [1, 1000000], got ",
                  opts.batch);
  detail::require(opts.expected >= 0, who, ": opts.expected must be >= 0 (0: one batch), got ",
                  opts.expected);
  detail::require(opts.ops_per_period >= 1, who, ": opts.ops_per_period must be >= 1, got ",
                  opts.ops_per_period);
  detail::require(opts.strategy != SeriesStrategy::Collective || op == steady::SteadyOp::Reduce, who,
                  ": SeriesStrategy::Collective is for reductions only (a ReductionSeries), got it for a ",
                  steady::to_string(op));
  m_value_bytes = value_bytes;
  if (opts.platform) {
    detail::require(opts.platform->platform.node_count() == m_size, who, ": opts.platform has ",
                    opts.platform->platform.node_count(), " nodes; expected one per rank (", m_size, ")");
    m_platform = *opts.platform;
  } else {
    steady::MeasureOptions mo = opts.measure;
    mo.unit_bytes = value_bytes;
    mo.compute = std::move(op_timer);
    m_platform = steady::measure_platform(m_comm, mo);
  }
  m_choice.phases = opts.expected > 0 ? opts.expected : opts.batch;
  if (m_size == 1) {
    m_choice.chosen = SeriesStrategy::TreePerOperation;
    m_choice.reason = "one rank: nothing to communicate";
    return;
  }

  // The LP and the plans are pure (the same on every rank); only the time they take differs, and the
  // maximum over ranks makes it the same.
  const double t0 = MPI_Wtime();
  std::vector<int> all(static_cast<std::size_t>(m_size));
  for (int r = 0; r < m_size; ++r) all[static_cast<std::size_t>(r)] = r;
  const std::string key = m_platform.platform.to_json() + "|" + steady::to_string(op) + "|" +
                          std::to_string(opts.root) + "|" + std::to_string(opts.ops_per_period);
  auto& cache = solved_cache();
  if (const auto hit = cache.find(key); hit != cache.end()) {
    m_steady = hit->second;
  } else {
    m_steady = std::make_shared<SteadyPlans>();
    steady::SteadySolution& sol = m_steady->solution;
    steady::SteadyProblem problem;
    if (op == steady::SteadyOp::Reduce) {
      problem = steady::SteadyProblem::reduce(all, opts.root);
    } else if (op == steady::SteadyOp::Gossip) {
      problem = steady::SteadyProblem::gossip(all, all);
    } else {
      all.erase(all.begin() + opts.root);
      problem = steady::SteadyProblem::scatter(opts.root, all);
    }
    // Of the optimal solutions, the one that moves the least data: at small K a batch is a few
    // periods, and every transfer of a value is a step of its pipeline (docs/series.md).
    sol = steady::solve(m_platform.platform, problem, steady::SolveGoal::LeastTraffic);
    detail::require(sol.throughput > 0, who, ": the steady-state LP has throughput 0 (", sol.note, ")");
    auto trees = steady::extract_trees(m_platform.platform, sol);
    // About ops_per_period operations per period (at least 4 per tree): fewer, longer periods cost less
    // to run. A short exact period T is repeated m times (period m T, still exact: every count is m
    // times T's); a longer one is replaced by Section 4.6's fixed period, whose loss card(Trees) /
    // T_fixed then stays below TP / 4.
    const steady::Rational want(
        std::max<std::int64_t>(opts.ops_per_period, 4 * static_cast<std::int64_t>(trees.size())));
    const steady::Rational span = want / sol.throughput; // time units for `want` operations
    steady::BigInt period = numerator(span) / denominator(span) + 1;
    if (steady::Rational(sol.period) <= span) {
      const steady::Rational m = span / steady::Rational(sol.period);
      period = sol.period * (numerator(m) / denominator(m) + 1);
    } else {
      steady::FixedPeriod f = steady::fixed_period(sol, trees, period);
      trees = std::move(f.trees);
    }
    m_steady->schedule = steady::periodic_schedule(m_platform.platform, sol, std::move(trees), period);
    if (cache.size() >= 8) cache.clear();
    cache.emplace(key, m_steady);
  }
  m_choice.steady_seconds = predicted_steady(m_choice.phases);
  m_choice.throughput = steady::to_string(m_steady->solution.throughput);
  const double lp = MPI_Wtime() - t0;
  HPF_MPI_CHECK(MPI_Allreduce(&lp, &m_choice.lp_seconds, 1, MPI_DOUBLE, MPI_MAX, m_comm.get()));

  const double d = median_edge_seconds(m_platform), c = slowest_task_seconds(m_platform);
  const auto K = static_cast<double>(m_choice.phases);
  if (op == steady::SteadyOp::Reduce)
    m_choice.tree_seconds = K * greedy_length(m_size, ReduceCosts{d, c});
  else
    m_choice.tree_seconds = K * (m_size - 1) * d; // one port sends its P - 1 blocks in turn

  if (op == steady::SteadyOp::Reduce) {
    detail::require(value_bytes <= static_cast<std::size_t>(INT32_MAX), who, ": a value of ", value_bytes,
                    " bytes is too large for one MPI datatype; expected at most ", INT32_MAX);
    m_vendor.reset(new VendorReduce);
    HPF_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(value_bytes), MPI_BYTE, &m_vendor->type));
    HPF_MPI_CHECK(MPI_Type_commit(&m_vendor->type));
    HPF_MPI_CHECK(MPI_Op_create(&vendor_fold, 0, &m_vendor->op)); // 0: not commutative, rank order
    if (opts.strategy == SeriesStrategy::Auto) {
      calibrate(m_choice.phases);
    } else if (opts.strategy == SeriesStrategy::Collective) {
      // The first reduction on a new communicator, datatype and op pays the library's set-up; pay it
      // here, with the rest of the construction, and not in the first batch (calibrate does too).
      std::vector<std::byte> in(value_bytes), out(value_bytes);
      run_collective(1, in.data(), m_rank == opts.root ? out.data() : nullptr,
                     [](const std::byte*, std::byte*, int) {});
    }
  }

  std::ostringstream why;
  const double steady_total = m_choice.steady_seconds + m_choice.lp_seconds;
  if (opts.strategy != SeriesStrategy::Auto) {
    m_choice.chosen = opts.strategy;
    why << "asked for " << to_string(opts.strategy);
  } else {
    m_choice.chosen =
        steady_total < m_choice.tree_seconds ? SeriesStrategy::SteadyState : SeriesStrategy::TreePerOperation;
    // The LP is solved by now whatever is chosen: it decides only whether the steady state pays it
    // back against the tree; the vendor reduction, measured after the solve, is
    // compared with the run time of that choice alone.
    const double base =
        m_choice.chosen == SeriesStrategy::SteadyState ? m_choice.steady_seconds : m_choice.tree_seconds;
    if (m_choice.collective_seconds > 0 && m_choice.collective_seconds < base) {
      m_choice.chosen = SeriesStrategy::Collective;
      why << "the vendor reduction is the fastest measured";
    } else {
      why << (m_choice.chosen == SeriesStrategy::SteadyState ? "steady state pays back its LP"
                                                             : "the series is too short to pay back the LP");
    }
  }
  why << ": predicted " << m_choice.steady_seconds << " s steady state";
  if (m_choice.steady_correction != 1) why << " (model x " << m_choice.steady_correction << ", measured)";
  why << " + " << m_choice.lp_seconds << " s LP vs " << m_choice.tree_seconds << " s one "
      << (op == steady::SteadyOp::Reduce ? "tree" : "direct exchange") << " per operation";
  if (m_choice.collective_seconds > 0) why << " vs " << m_choice.collective_seconds << " s vendor MPI_Reduce";
  why << ", for " << m_choice.phases << " phases";
  m_choice.reason = why.str();
  if (op == steady::SteadyOp::Reduce && m_choice.chosen == SeriesStrategy::TreePerOperation) {
    TreeOptions to;
    to.root = opts.root;
    m_tree = std::make_unique<TreeReducer>(m_comm.get(), ReduceCosts{d, c}, to);
  }
}

const steady::PipelinePlan& SeriesCore::plan(std::int64_t K) {
  detail::require(m_size > 1, m_who, ": a one-rank series has no pipeline plan");
  auto& plans = m_steady->plans;
  auto it = plans.find(K);
  if (it == plans.end())
    it =
        plans
            .emplace(K, steady::plan_pipeline(m_platform.platform, m_steady->solution, m_steady->schedule, K))
            .first;
  return it->second;
}

// The plan's makespan charges every value the cost of a one-unit message on its edge. The executor
// sends one message per edge and matching, carrying every value of the period, so when the platform
// knows the marginal time of a value in a long message (value_seconds), a batch is predicted as its
// makespan with each value charged that marginal time, plus one median edge cost (a message's
// latency) per step of every period.
double SeriesCore::predicted_steady(std::int64_t phases) {
  const double d = median_edge_seconds(m_platform);
  const double v = m_platform.value_seconds;
  auto batch = [&](std::int64_t K) {
    const steady::PipelinePlan& p = plan(K);
    const double makespan = p.makespan().convert_to<double>() * m_platform.time_unit;
    if (v <= 0 || d <= 0 || v >= d) return makespan;
    return makespan * (v / d) + static_cast<double>(p.periods) * static_cast<double>(p.steps.size()) * d;
  };
  const std::int64_t full = phases / m_opts.batch, rest = phases % m_opts.batch;
  double seconds = 0;
  if (full > 0) seconds += static_cast<double>(full) * batch(m_opts.batch);
  if (rest > 0) seconds += batch(rest);
  return seconds;
}

void SeriesCore::agree(bool failed, const std::string& message) {
  struct {
    int failed;
    int rank;
  } mine{failed ? 1 : 0, m_rank}, first{0, 0};
  // MAXLOC over (failed, rank) picks the lowest failing rank.
  HPF_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MAXLOC, m_comm.get()));
  if (first.failed == 0) return;
  std::string text = m_rank == first.rank ? message : std::string();
  unsigned long long n = text.size();
  HPF_MPI_CHECK(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, first.rank, m_comm.get()));
  text.resize(n);
  HPF_MPI_CHECK(MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, first.rank, m_comm.get()));
  m_cancelled = true;
  throw Error(std::string(m_who) + ": on rank " + std::to_string(first.rank) + ": " + text +
              "; the series is cancelled on every rank");
}

void SeriesCore::check_phase(std::int64_t t, std::int64_t submitted) {
  if (t >= 0 && t < submitted) return;
  m_cancelled = true;
  throw Error(std::string(m_who) + "::result: phase " + std::to_string(t) +
              " was never submitted (phases 0.." + std::to_string(submitted - 1) +
              " were); the series is cancelled");
}

void SeriesCore::run(std::int64_t K, std::size_t value_bytes, const steady::PipelineCallbacks& cb) {
  std::vector<int> identity(static_cast<std::size_t>(m_size));
  for (int r = 0; r < m_size; ++r) identity[static_cast<std::size_t>(r)] = r;
  steady::run_pipeline_private(plan(K), m_comm, value_bytes, cb, std::move(identity));
}

void SeriesCore::run_collective(std::int64_t K, const std::byte* in, std::byte* out, const ByteFold& fold) {
  detail::require(m_vendor != nullptr, m_who,
                  ": the vendor reduction is for reductions only (internal error)");
  const ActiveFold saved = t_active;
  t_active = {&fold};
  // The whole batch in one MPI_Reduce (count = phases; in pieces of at most k_vendor_piece_bytes):
  // MPI applies the non-commutative op to every phase in rank order. One MPI_Reduce per phase
  // was slower than plain back-to-back MPI_Reduce: the series' own work per phase (the layout check,
  // the fold, storing the value) sat on the critical path of every reduction, and a window of
  // MPI_Ireduce was slower still on Open MPI 4.1. Ranks other than the root pass a
  // scratch receive buffer: Open MPI's in-order reduction for non-commutative ops combines away from
  // the root and allocates one per call when given none.
  const std::int64_t piece =
      std::max<std::int64_t>(1, static_cast<std::int64_t>(k_vendor_piece_bytes / m_value_bytes));
  if (out == nullptr)
    m_vendor->scratch.resize(
        std::max(m_vendor->scratch.size(), static_cast<std::size_t>(std::min(K, piece)) * m_value_bytes));
  for (std::int64_t t = 0; t < K; t += piece) {
    const auto at = static_cast<std::size_t>(t) * m_value_bytes;
    const int n = static_cast<int>(std::min(piece, K - t)); // <= 1 MiB / value_bytes, or 1
    HPF_MPI_CHECK(MPI_Reduce(in + at, out == nullptr ? m_vendor->scratch.data() : out + at, n, m_vendor->type,
                             m_vendor->op, m_opts.root, m_comm.get()));
  }
  t_active = saved;
}

// Auto, reductions: the model's steady-state prediction corrected by measurement, and the vendor's
// reduction measured (header comment). Dummy values (zeros, folds that keep their left operand):
// what is measured is the communication and the executors, not the user's operator, which every
// strategy applies P - 1 times per phase.
void SeriesCore::calibrate(std::int64_t phases) {
  const double start = MPI_Wtime();
  // The steady state on at most 128 phases, scaled by the model; the vendor reduction on what it
  // reduces in one call: one batch (or the series, if shorter), at most one 1 MiB piece (beyond a
  // piece, each piece is one more call, so scaling up is linear).
  const std::size_t vb = m_value_bytes;
  const std::int64_t kc = std::max<std::int64_t>(1, std::min({phases, m_opts.batch, k_calibration_phases}));
  const auto piece = static_cast<std::int64_t>(k_vendor_piece_bytes / vb);
  const std::int64_t kv = std::max<std::int64_t>(1, std::min({phases, m_opts.batch, piece}));
  std::vector<std::byte> in(static_cast<std::size_t>(kv) * vb), out(in.size());
  std::byte* to = m_rank == m_opts.root ? out.data() : nullptr;
  const ByteFold keep = [](const std::byte*, std::byte*, int) {};
  steady::PipelineCallbacks cb;
  cb.make = [vb](int, std::int64_t, std::byte* o) { std::memset(o, 0, vb); };
  cb.combine = [vb](const std::byte* l, const std::byte*, std::byte* o) { std::memcpy(o, l, vb); };
  cb.deliver = [](int, std::int64_t, const std::byte*) {};
  run(kc, vb, cb); // warm-up: first-use costs (buffers, the library's connections)
  run_collective(kv, in.data(), to, keep);
  std::vector<double> t(2 * k_calibration_rounds + 1);
  for (std::size_t r = 0; r < static_cast<std::size_t>(k_calibration_rounds); ++r) {
    HPF_MPI_CHECK(MPI_Barrier(m_comm.get()));
    double s = MPI_Wtime();
    run(kc, vb, cb);
    t[2 * r] = MPI_Wtime() - s;
    HPF_MPI_CHECK(MPI_Barrier(m_comm.get()));
    s = MPI_Wtime();
    run_collective(kv, in.data(), to, keep);
    t[2 * r + 1] = MPI_Wtime() - s;
  }
  t.back() = MPI_Wtime() - start;
  // One agreement: every time as its maximum over ranks, so every rank decides from the same numbers.
  HPF_MPI_CHECK(
      MPI_Allreduce(MPI_IN_PLACE, t.data(), static_cast<int>(t.size()), MPI_DOUBLE, MPI_MAX, m_comm.get()));
  std::vector<double> steady_t, vendor_t;
  for (std::size_t r = 0; r < static_cast<std::size_t>(k_calibration_rounds); ++r) {
    steady_t.push_back(t[2 * r]);
    vendor_t.push_back(t[2 * r + 1]);
  }
  const double predicted = predicted_steady(kc);
  if (predicted > 0) {
    m_choice.steady_correction = median(steady_t) / predicted;
    m_choice.steady_seconds *= m_choice.steady_correction;
  }
  m_choice.collective_seconds =
      std::max(median(vendor_t), 1e-12) * static_cast<double>(phases) / static_cast<double>(kv);
  m_choice.calibration_seconds = t.back();
}

void SeriesCore::check_live(const char* call) const {
  detail::require(!m_cancelled, m_who, "::", call, ": the series was cancelled by an earlier error");
}

} // namespace detail

} // namespace hpf
