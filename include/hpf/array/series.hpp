// Series of collectives that repeat across the phases of a DistArray program (docs/series.md), on the
// steady-state engine of Legrand, Marchal and Robert and a platform hpfrt measures itself.
//
//   hpf::ReductionSeries<T> red(A.layout(), op, opts);  // collective: measure, solve, choose
//   for (t = 0; t < K; ++t) { fill A for phase t; red.submit(A); }
//   red.wait_all();                                     // or red.result(t): on opts.root, in phase order
//
//   hpf::ScatterSeries<T> sc(A.layout(), opts);        // from opts.root into A's layout
//   for (t ...) sc.submit(whole_array_on_root);        // global Fortran order, significant on the root
//   sc.result(t, A);                                    // phase t's blocks into A
//
//   hpf::GossipSeries<T> gs(A.layout(), count, opts);  // every rank to every rank, count each
//
// What a reduction is: phase t's contribution of a rank is the fold of its local elements in local
// storage order (as hpf::tree_reduce); the result is the fold of the contributions in rank order of
// the grid's parent communicator, c_0 (+) c_1 (+) ... (+) c_{P-1}, exact for a non-commutative (+).
// Ranks that own nothing contribute nothing (an absent value is a two-sided identity).
//
// How it runs. The constructor (collective) measures the platform (steady::measure_platform: one
// node per rank, unit messages of the series' value size, node speeds from timing the operator),
// unless opts.platform gives one; solves the paper's LP (SSR for reductions, SSSP for scatters)
// exactly, keeping of its optimal solutions one with the least transfer time
// (steady::SolveGoal::LeastTraffic); and chooses, from predicted times, between
//   - SteadyState: batches of phases run on the periodic schedule (initialisation, steady state and
//     clean-up periods of Legrand et al., Section 3.4 / 4.3) by steady::run_pipeline_private (on the
//     series' own communicator: no duplicate, barrier or time agreement per batch);
//   - TreePerOperation: every phase alone, a reduction along Canon and Antoniu's optimal (greedy) tree for
//     reductions (hpf::TreeReducer), a direct root-to-every-rank scatter for scatters;
//   - Collective (reductions only): the vendor's own reduction of a whole batch, one MPI_Reduce whose
//     count is the batch's phases (in pieces of at most 1 MiB), on a user MPI_Op created with
//     commute = 0 (MPI then folds every phase in rank order, so the result is still the sequential
//     fold). One batch per MPI_Reduce keeps the series' own work per phase off the critical path of
//     every reduction.
// For a reduction under Auto, the constructor also measures (docs/series.md): one
// calibration batch of min(phases, batch, 128) dummy phases on the steady-state pipeline and one of
// min(phases, batch, 1 MiB of values) as a vendor reduction, 3 rounds interleaved, each time the
// maximum over ranks (one MPI_Allreduce), medians kept. The steady-state prediction is scaled by
// measured / predicted of its calibration batch, and the vendor's is its measured time scaled to
// `phases`.
// choice() reports every prediction and the reason. Every rank makes the same choice: the platform
// is the one rank 0 measured and broadcast, and the LP's solve time and the calibration times are
// agreed by a maximum.
//
// submit() never communicates: it folds (reduction) or stores (scatter, on the root) the phase and
// returns. When opts.batch phases are waiting, the next submit runs them (a collective: every rank
// submits the same number of phases). result(t) and wait_all() run what is waiting.
//
// Memory (the documented bound): at most opts.batch phases wait per rank (one value of
// sizeof(T) + 1 byte per reduction phase; the whole array per scatter phase on the root); the
// pipeline's buffers hold at most plan().max_buffer values each, at most 2 periods' worth (Legrand et al.,
// Section 3.4); Collective: a receive buffer of at most 1 MiB (or one value) on ranks other than
// the root, besides what MPI_Reduce allocates inside; results stay where they were delivered (one T
// per phase on the root for a reduction, each rank's block per phase for a scatter) until the series
// is destroyed.
//
// Errors, on every rank, and the series is cancelled (every later call throws): an operator that
// throws (on any rank; the pipeline finishes its batch with the failed value, then every rank learns
// which rank failed and why), a phase submitted with another layout, result(t) of a phase never
// submitted, submit on a cancelled series. Nothing hangs: every error is either found by every rank
// from data they all have, or agreed by a collective after the batch.
#pragma once

#include <hpf/array/dist_array.hpp>
#include <hpf/core/error.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/reduce/tree_reducer.hpp>
#include <hpf/steady/executor.hpp>
#include <hpf/steady/measure.hpp>
#include <hpf/steady/pipeline.hpp>

#include <algorithm>
#include <any>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace hpf {

/// How a series runs its phases (docs/series.md).
enum class SeriesStrategy {
  Auto,             ///< the smaller predicted time (steady state includes its LP's solve time)
  SteadyState,      ///< Legrand et al.'s periodic schedule
  TreePerOperation, ///< one Canon-Antoniu tree (reductions) or one direct scatter per phase
  Collective,       ///< reductions only: one vendor MPI_Reduce per batch (count = its phases), with a
                    ///< user op created non-commutative (MPI folds every phase in rank order)
};
std::string to_string(SeriesStrategy s);

/// Options of a series (docs/series.md): where results go, how to choose, how much may wait.
struct SeriesOptions {
  int root = 0;                                     ///< rank of the grid's parent communicator
  SeriesStrategy strategy = SeriesStrategy::Auto;   ///< see SeriesChoice for what Auto decided
  std::int64_t expected = 0;                        ///< phases the program will submit (0: one batch)
  std::int64_t batch = 1000;                        ///< phases waiting before they run (memory bound)
  std::int64_t ops_per_period = 256;                ///< fixed period: about this many phases per period
  std::optional<steady::MeasuredPlatform> platform; ///< given (e.g. loaded JSON) instead of measured
  steady::MeasureOptions measure;                   ///< unit_bytes and compute are set by the series
};

/// What the constructor chose and why (the same on every rank).
struct SeriesChoice {
  SeriesStrategy chosen = SeriesStrategy::TreePerOperation; ///< the strategy the series runs
  double steady_seconds = 0; ///< predicted: `phases` operations on the steady-state schedule, LP excluded
  double lp_seconds = 0;     ///< measured: solving the LP and planning (maximum over ranks)
  double tree_seconds = 0;   ///< predicted: `phases` operations one at a time
  /// Reductions under Auto: `phases` vendor reductions, extrapolated from a measured calibration run
  /// (0 when not measured).
  double collective_seconds = 0;
  /// Reductions under Auto: measured / predicted time of the steady-state calibration batch;
  /// steady_seconds is already multiplied by it (1 when not measured).
  double steady_correction = 1;
  double calibration_seconds = 0; ///< time the calibration runs took (0 when none ran)
  std::int64_t phases = 0;        ///< the series length the prediction is for
  std::string throughput;         ///< the LP's TP, operations per time unit (a fraction)
  std::string reason;             ///< why, in words
};

namespace detail {

struct SteadyPlans;
/// The MPI datatype and non-commutative MPI_Op of SeriesStrategy::Collective (series.cpp).
struct VendorReduce;
struct VendorReduceFree {
  void operator()(VendorReduce* v) const noexcept;
};
/// inout[i] = in[i] (+) inout[i] for `count` consecutive values of the series' value size (MPI's
/// user-function convention); in holds the lower ranks' fold.
using ByteFold = std::function<void(const std::byte* in, std::byte* inout, int count)>;

/// The part of a series that does not depend on T: platform, LP, choice, plans, error agreement.
class SeriesCore {
public:
  /// Collective over `comm` (the grid's parent communicator).
  SeriesCore(MPI_Comm comm, steady::SteadyOp op, std::size_t value_bytes, std::function<void()> op_timer,
             const SeriesOptions& opts, const char* who);

  [[nodiscard]] const Comm& comm() const noexcept { return m_comm; }
  [[nodiscard]] int rank() const noexcept { return m_rank; }
  [[nodiscard]] int size() const noexcept { return m_size; }
  [[nodiscard]] int root() const noexcept { return m_opts.root; }
  [[nodiscard]] const SeriesOptions& options() const noexcept { return m_opts; }
  /// What the constructor chose and why (the same on every rank).
  [[nodiscard]] const SeriesChoice& choice() const noexcept { return m_choice; }
  /// The platform the choice was made on (measured, or opts.platform).
  [[nodiscard]] const steady::MeasuredPlatform& platform() const noexcept { return m_platform; }
  /// The pipeline plan of a batch of K phases (cached per K). Pure, so the same on every rank.
  [[nodiscard]] const steady::PipelinePlan& plan(std::int64_t K);
  /// The reduction tree (TreePerOperation reductions only).
  [[nodiscard]] const TreeReducer& tree() const { return *m_tree; }

  /// Collective: throws hpf::Error on every rank, naming the rank and its message, when `failed` on
  /// some rank; marks the series cancelled first.
  void agree(bool failed, const std::string& message);
  void cancel() noexcept { m_cancelled = true; }
  void check_live(const char* call) const;
  /// Cancels and throws hpf::Error (on every rank: `submitted` is the same everywhere) unless
  /// 0 <= t < submitted.
  void check_phase(std::int64_t t, std::int64_t submitted);
  /// run_pipeline of the plan of K phases, rank r playing node r.
  void run(std::int64_t K, std::size_t value_bytes, const steady::PipelineCallbacks& cb);
  /// Collective (reductions): the vendor reduction of K values to the root, value t from
  /// in + t * value_bytes to out + t * value_bytes (significant on the root only; nullptr elsewhere),
  /// each folded by `fold` in rank order: one MPI_Reduce of count K, in pieces of at most 1 MiB.
  /// `fold` must not throw (it is called from inside MPI).
  void run_collective(std::int64_t K, const std::byte* in, std::byte* out, const ByteFold& fold);

private:
  [[nodiscard]] double predicted_steady(std::int64_t phases);
  void calibrate(std::int64_t phases);

  Comm m_comm;
  int m_rank = 0, m_size = 1;
  SeriesOptions m_opts;
  const char* m_who;
  steady::MeasuredPlatform m_platform;
  /// The solved LP, its periodic schedule and the batch plans, shared by every series of the process
  /// on the same platform and problem (a cache keyed by their values, never by a handle).
  std::shared_ptr<SteadyPlans> m_steady;
  std::unique_ptr<TreeReducer> m_tree;
  std::unique_ptr<VendorReduce, VendorReduceFree> m_vendor; ///< reductions only
  std::size_t m_value_bytes = 0;
  SeriesChoice m_choice;
  bool m_cancelled = false;
};

} // namespace detail

/// A series of reductions of a DistArray's phases to a root (see the header comment).
template <class T> class ReductionSeries {
  static_assert(std::is_trivially_copyable_v<T>, "hpf::ReductionSeries<T>: T must be trivially copyable");

public:
  /// Collective over the layout's grid's parent communicator: measures (or takes opts.platform),
  /// solves, chooses. `op(left, right) -> T` is associative, not necessarily commutative. Throws
  /// hpf::Error on every rank for a root outside the communicator or bad options.
  template <int N, class Op> ReductionSeries(const Layout<N>& layout, Op op, SeriesOptions opts = {})
      : m_layout(layout), m_op(op), m_fold_parts(parts_folder(op)), m_fold_run(run_folder(std::move(op))),
        m_core(layout.grid().comm().get(), steady::SteadyOp::Reduce, sizeof(Part), timer(), opts,
               "ReductionSeries") {
    // Room for the first batch of the phases announced, so that submit does not reallocate.
    const SeriesOptions& o = m_core.options();
    if (o.expected > 0) m_waiting.reserve(static_cast<std::size_t>(std::min(o.expected, o.batch)));
  }

  /// Not collective (unless opts.batch phases are then waiting: see the header comment). Folds this
  /// rank's local elements of A as phase submitted(). Throws hpf::Error (and cancels) when A's layout
  /// is not the series' layout: every rank sees the same layouts, so every rank throws.
  template <int N> void submit(const DistArray<T, N>& A) {
    m_core.check_live("submit");
    const Layout<N>* mine = std::any_cast<Layout<N>>(&m_layout);
    if (mine == nullptr || !(*mine == A.layout())) {
      m_core.cancel();
      throw Error("ReductionSeries::submit: phase " + std::to_string(submitted()) + " of DistArray '" +
                  A.label() + "' has layout " + A.layout().describe_dists() +
                  ", not the series' layout; the series is cancelled");
    }
    Part part{T{}, 0};
    // The owned elements in Fortran order of the owned block (shadow slots skipped), a run per call
    // of the typed fold (the operator inlined there, not one std::function call per element).
    if (!m_failed) {
      try {
        A.for_each_owned_run([&](const T* run, index_t len) { m_fold_run(run, len, part); });
      } catch (...) {
        fail(std::current_exception());
      }
    }
    m_waiting.push_back(part);
    if (static_cast<std::int64_t>(m_waiting.size()) >= m_core.options().batch) run_waiting();
  }

  /// Phases submitted so far (the same on every rank).
  [[nodiscard]] std::int64_t submitted() const noexcept {
    return m_done + static_cast<std::int64_t>(m_waiting.size());
  }

  /// Collective when phase t has not run yet. The result of phase t on the root; std::nullopt on the
  /// other ranks and when no rank owns an element. Throws hpf::Error on every rank (and cancels) for
  /// t outside [0, submitted()).
  [[nodiscard]] std::optional<T> result(std::int64_t t) {
    m_core.check_live("result");
    m_core.check_phase(t, submitted());
    if (t >= m_done) run_waiting();
    if (m_core.rank() != m_core.root()) return std::nullopt;
    const Part& p = m_results[static_cast<std::size_t>(t)];
    if (p.has == 0) return std::nullopt;
    return p.value;
  }

  /// Collective: runs every waiting phase.
  void wait_all() {
    m_core.check_live("wait_all");
    run_waiting();
  }

  /// What the constructor chose and why (the same on every rank).
  [[nodiscard]] const SeriesChoice& choice() const noexcept { return m_core.choice(); }
  /// The platform the choice was made on (measured, or opts.platform).
  [[nodiscard]] const steady::MeasuredPlatform& platform() const noexcept { return m_core.platform(); }
  /// The plan of a full batch (SteadyState only): periods, phases, buffer sizes.
  [[nodiscard]] const steady::PipelinePlan& plan() { return m_core.plan(m_core.options().batch); }

private:
  struct Part {
    T value;
    unsigned char has;
  };

  // Catches the operator's exceptions: the pipeline must finish its batch on every rank, so a failure
  // is remembered (the left operand stands for the result) and agreed after the batch.
  Part combine(const Part& a, const Part& b) {
    if (a.has == 0) return b;
    if (b.has == 0) return a;
    if (m_failed) return a;
    try {
      return Part{static_cast<T>(m_op(a.value, b.value)), 1};
    } catch (...) {
      fail(std::current_exception());
    }
    return a;
  }
  void fail(const std::exception_ptr& e) {
    m_failed = true;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      m_message = std::string("the operator threw: ") + x.what();
    } catch (...) {
      m_message = "the operator threw an exception not derived from std::exception";
    }
  }
  // part = part (+) run[0] (+) ... (+) run[len-1]; may throw (the operator's exception).
  template <class Op> static std::function<void(const T*, index_t, Part&)> run_folder(Op op) {
    return [op = std::move(op)](const T* run, index_t len, Part& part) {
      index_t i = 0;
      if (part.has == 0 && len > 0) part = Part{run[i++], 1};
      for (; i < len; ++i) part.value = static_cast<T>(op(part.value, run[i]));
    };
  }

  // The vendor reduction's fold: inout[i] = in[i] (+) inout[i] for `count` parts (the memory MPI
  // hands over need not be aligned for Part), as combine() does it, with the operator inlined: one
  // std::function call per MPI callback, not three per value. Never throws (called from inside MPI).
  using PartsFold = std::function<void(ReductionSeries&, const std::byte*, std::byte*, int)>;
  template <class Op> static PartsFold parts_folder(Op op) {
    return [op = std::move(op)](ReductionSeries& self, const std::byte* in, std::byte* inout, int count) {
      for (int i = 0; i < count; ++i) {
        const std::size_t at = static_cast<std::size_t>(i) * sizeof(Part);
        Part a, b;
        std::memcpy(static_cast<void*>(&a), in + at, sizeof a);
        if (a.has == 0) continue; // b stands
        std::memcpy(static_cast<void*>(&b), inout + at, sizeof b);
        if (b.has == 0 || self.m_failed) {
          b = a; // an absent right operand, or a failure already recorded: the left operand goes on
        } else {
          try {
            b.value = static_cast<T>(op(a.value, b.value));
          } catch (...) {
            self.fail(std::current_exception());
            b = a;
          }
        }
        std::memcpy(static_cast<void*>(inout + at), &b, sizeof b);
      }
    };
  }

  std::function<void()> timer() {
    // One operation on a unit of data: what a node of the platform computes per task.
    return [this] {
      T x{};
      std::memset(static_cast<void*>(&x), 0, sizeof x);
      try {
        volatile T y = static_cast<T>(m_op(x, x));
        (void)y;
      } catch (...) { // timed all the same; a throwing operator is reported when it runs
      }
    };
  }

  void run_waiting() {
    const auto K = static_cast<std::int64_t>(m_waiting.size());
    // A contribution's fold may have failed: the batch runs all the same (combine() passes the left
    // operand on once m_failed is set) and the one agreement after it reports the failure, so a batch
    // costs one collective besides the pipeline. With nothing waiting there is nothing to agree on:
    // a failure is only ever recorded by submit (which leaves its phase waiting) or inside a batch
    // (agreed at its end), and every rank has the same number of waiting phases.
    if (K == 0) return;
    const bool on_root = m_core.rank() == m_core.root();
    if (on_root) m_results.resize(static_cast<std::size_t>(m_done + K), Part{T{}, 0});
    if (m_core.size() == 1) {
      std::copy(m_waiting.begin(), m_waiting.end(), m_results.begin() + m_done);
    } else if (m_core.choice().chosen == SeriesStrategy::TreePerOperation) {
      for (std::int64_t t = 0; t < K; ++t) {
        const std::optional<Part> r =
            m_core.tree().reduce(m_waiting[static_cast<std::size_t>(t)],
                                 [this](const Part& a, const Part& b) { return combine(a, b); });
        if (on_root) m_results[static_cast<std::size_t>(m_done + t)] = *r;
      }
    } else if (m_core.choice().chosen == SeriesStrategy::Collective) {
      // MPI folds in rank order for an op created non-commutative: `in` is the lower ranks' part.
      // (Built here, not kept: a member capturing `this` would dangle in a moved-from series.)
      const detail::ByteFold fold = [this](const std::byte* in, std::byte* inout, int count) {
        m_fold_parts(*this, in, inout, count);
      };
      m_core.run_collective(K, reinterpret_cast<const std::byte*>(m_waiting.data()),
                            on_root ? reinterpret_cast<std::byte*>(m_results.data() + m_done) : nullptr,
                            fold);
    } else {
      steady::PipelineCallbacks cb;
      cb.make = [this](int i, std::int64_t stamp, std::byte* out) {
        (void)i; // participant i is rank i: the executor asks the rank playing it
        std::memcpy(out, &m_waiting[static_cast<std::size_t>(stamp)], sizeof(Part));
      };
      cb.combine = [this](const std::byte* l, const std::byte* r, std::byte* out) {
        Part a, b;
        std::memcpy(static_cast<void*>(&a), l, sizeof a);
        std::memcpy(static_cast<void*>(&b), r, sizeof b);
        const Part c = combine(a, b);
        std::memcpy(out, &c, sizeof c);
      };
      cb.deliver = [this](int, std::int64_t stamp, const std::byte* v) {
        std::memcpy(static_cast<void*>(&m_results[static_cast<std::size_t>(m_done + stamp)]), v,
                    sizeof(Part));
      };
      m_core.run(K, sizeof(Part), cb);
    }
    m_waiting.clear();
    m_done += K;
    m_core.agree(m_failed, m_message);
  }

  std::any m_layout;
  std::function<T(const T&, const T&)> m_op;
  PartsFold m_fold_parts;
  std::function<void(const T*, index_t, Part&)> m_fold_run;
  detail::SeriesCore m_core;
  std::vector<Part> m_waiting; // contributions of phases m_done.. (at most opts.batch)
  std::vector<Part> m_results; // root: results of phases 0..m_done-1
  std::int64_t m_done = 0;
  bool m_failed = false;
  std::string m_message;
};

/// A series of scatters from a root into a DistArray layout (see the header comment).
template <class T> class ScatterSeries {
  static_assert(std::is_trivially_copyable_v<T>, "hpf::ScatterSeries<T>: T must be trivially copyable");

public:
  /// Collective over the layout's grid's parent communicator (see ReductionSeries).
  template <int N> explicit ScatterSeries(const Layout<N>& layout, SeriesOptions opts = {})
      : m_layout(layout), m_blocks(blocks_of(layout)), m_global(layout.global_size()),
        m_core(layout.grid().comm().get(), steady::SteadyOp::Scatter, value_bytes(m_blocks), {}, opts,
               "ScatterSeries") {}

  /// Not collective (see ReductionSeries::submit). `global` holds the whole array in global Fortran
  /// order on the root (ignored elsewhere). Throws hpf::Error on every rank (and cancels) when the
  /// root's span has another size: the size is agreed when the batch runs.
  void submit(std::span<const T> global) {
    m_core.check_live("submit");
    if (m_core.rank() == m_core.root()) {
      if (static_cast<index_t>(global.size()) != m_global) {
        m_failed = true;
        m_message = "ScatterSeries::submit: phase " + std::to_string(submitted()) + " holds " +
                    std::to_string(global.size()) + " elements on the root; expected the global size " +
                    std::to_string(m_global);
      }
      m_waiting.emplace_back(global.begin(), global.end());
    } else {
      m_waiting.emplace_back();
    }
    if (static_cast<std::int64_t>(m_waiting.size()) >= m_core.options().batch) run_waiting();
  }

  /// Phases submitted so far (the same on every rank).
  [[nodiscard]] std::int64_t submitted() const noexcept {
    return m_done + static_cast<std::int64_t>(m_waiting.size());
  }

  /// Collective when phase t has not run yet: writes phase t's blocks into A (which must have the
  /// series' layout). Throws hpf::Error on every rank (and cancels) for a phase never submitted or
  /// another layout.
  template <int N> void result(std::int64_t t, DistArray<T, N>& A) {
    m_core.check_live("result");
    const Layout<N>* mine = std::any_cast<Layout<N>>(&m_layout);
    if (mine == nullptr || !(*mine == A.layout())) {
      m_core.cancel();
      throw Error("ScatterSeries::result: DistArray '" + A.label() + "' has layout " +
                  A.layout().describe_dists() + ", not the series' layout; the series is cancelled");
    }
    m_core.check_phase(t, submitted());
    if (t >= m_done) run_waiting();
    const auto& block = m_results[static_cast<std::size_t>(t)];
    if (!block.empty()) A.copy_owned(const_cast<T*>(block.data()), false); // reads block only
  }

  /// Collective: runs every waiting phase.
  void wait_all() {
    m_core.check_live("wait_all");
    run_waiting();
  }

  /// What the constructor chose and why (the same on every rank).
  [[nodiscard]] const SeriesChoice& choice() const noexcept { return m_core.choice(); }
  /// The platform the choice was made on (measured, or opts.platform).
  [[nodiscard]] const steady::MeasuredPlatform& platform() const noexcept { return m_core.platform(); }

private:
  // Per rank of the parent communicator: the global (Fortran-order) offsets of its block, in local
  // storage order. Every rank knows every block (pure layout arithmetic).
  template <int N> static std::vector<std::vector<index_t>> blocks_of(const Layout<N>& layout) {
    const ProcessGrid& grid = layout.grid();
    std::vector<std::vector<index_t>> out(static_cast<std::size_t>(grid.parent_size()));
    for (int pos = 0; pos < grid.size(); ++pos) {
      const Index<N> e = layout.local_extents(pos);
      index_t n = 1;
      for (int d = 0; d < N; ++d) n *= e[static_cast<std::size_t>(d)];
      auto& b = out[static_cast<std::size_t>(grid.rank_at(pos))];
      b.reserve(static_cast<std::size_t>(n));
      Index<N> l{};
      for (index_t k = 0; k < n; ++k) {
        index_t rest = k;
        for (int d = 0; d < N; ++d) {
          l[static_cast<std::size_t>(d)] = rest % e[static_cast<std::size_t>(d)];
          rest /= e[static_cast<std::size_t>(d)];
        }
        const Index<N> g = layout.global_index(pos, l);
        index_t off = 0, stride = 1;
        for (int d = 0; d < N; ++d) {
          off += g[static_cast<std::size_t>(d)] * stride;
          stride *= layout.extent(d);
        }
        b.push_back(off);
      }
    }
    return out;
  }
  static std::size_t value_bytes(const std::vector<std::vector<index_t>>& blocks) {
    std::size_t most = 1;
    for (const auto& b : blocks) most = std::max(most, b.size() * sizeof(T));
    return most;
  }

  void pack(std::int64_t t, int rank, std::byte* out) const {
    const auto& data = m_waiting[static_cast<std::size_t>(t)];
    const auto& b = m_blocks[static_cast<std::size_t>(rank)];
    T* o = reinterpret_cast<T*>(out);
    for (std::size_t i = 0; i < b.size(); ++i)
      std::memcpy(static_cast<void*>(o + i), &data[static_cast<std::size_t>(b[i])], sizeof(T));
  }
  void store(std::int64_t t, const std::byte* in) {
    auto& r = m_results[static_cast<std::size_t>(m_done + t)];
    r.resize(m_blocks[static_cast<std::size_t>(m_core.rank())].size());
    if (!r.empty()) std::memcpy(static_cast<void*>(r.data()), in, r.size() * sizeof(T));
  }

  void run_waiting() {
    const auto K = static_cast<std::int64_t>(m_waiting.size());
    // The root's sizes are known only there: agreed before anything moves.
    m_core.agree(m_failed, m_message);
    if (K == 0) return;
    m_results.resize(static_cast<std::size_t>(m_done + K));
    const int me = m_core.rank(), root = m_core.root();
    std::vector<std::byte> buf(value_bytes(m_blocks));
    if (me == root)
      for (std::int64_t t = 0; t < K; ++t) {
        pack(t, root, buf.data());
        store(t, buf.data());
      }
    if (m_core.size() > 1 && m_core.choice().chosen == SeriesStrategy::TreePerOperation) {
      // One direct scatter per phase: the root sends every other rank its block (one Exchange).
      ExchangePlan xp;
      for (int r = 0; r < m_core.size(); ++r) {
        const std::size_t bytes = m_blocks[static_cast<std::size_t>(r)].size() * sizeof(T);
        if (r == root || bytes == 0) continue;
        if (me == root) xp.sends.push_back({r, bytes, 0});
        if (me == r) xp.recvs.push_back({root, bytes, 0});
      }
      std::vector<int> to;
      for (const auto& s : xp.sends) to.push_back(s.peer);
      Exchange ex(m_core.comm(), std::move(xp), ExecMode::AllAtOnce, tags::steady.base + 50);
      for (std::int64_t t = 0; t < K; ++t)
        ex.execute([&](std::size_t i, std::byte* out) { pack(t, to[i], out); },
                   [&](std::size_t, const std::byte* in) { store(t, in); });
    } else if (m_core.size() > 1) {
      const steady::PipelinePlan& plan = m_core.plan(K);
      steady::PipelineCallbacks cb;
      // Message type k of the LP goes to plan.group_node[k]: rank group_node[k]'s block.
      cb.make = [&](int type, std::int64_t stamp, std::byte* out) {
        pack(stamp, plan.group_node[static_cast<std::size_t>(type)], out);
      };
      cb.deliver = [&](int, std::int64_t stamp, const std::byte* v) { store(stamp, v); };
      m_core.run(K, value_bytes(m_blocks), cb);
    }
    m_waiting.clear();
    m_done += K;
  }

  std::any m_layout;
  std::vector<std::vector<index_t>> m_blocks;
  index_t m_global = 0;
  detail::SeriesCore m_core;
  std::vector<std::vector<T>> m_waiting; // root: whole arrays of phases m_done.. (at most opts.batch)
  std::vector<std::vector<T>> m_results; // this rank's block of phases 0..m_done-1
  std::int64_t m_done = 0;
  bool m_failed = false;
  std::string m_message;
};

/// A series of personalized all-to-alls (gossips, Legrand et al. Section 3.5) among the ranks of a layout's
/// grid's parent communicator: in phase t every rank sends `count` elements to every other rank.
///   hpf::GossipSeries<T> gs(A.layout(), count, opts);
///   gs.submit(blocks);   // P * count elements: block d (elements d*count ..) goes to rank d
///   gs.result(t);        // P * count elements: block s came from rank s (block `me` is its own)
/// TreePerOperation sends every block directly (one Exchange of P - 1 sends and receives per rank).
template <class T> class GossipSeries {
  static_assert(std::is_trivially_copyable_v<T>, "hpf::GossipSeries<T>: T must be trivially copyable");

public:
  /// Collective over the layout's grid's parent communicator (see ReductionSeries). Throws hpf::Error
  /// on every rank for count < 1.
  template <int N> GossipSeries(const Layout<N>& layout, index_t count, SeriesOptions opts = {})
      : m_count(checked_count(count)),
        m_core(layout.grid().comm().get(), steady::SteadyOp::Gossip,
               static_cast<std::size_t>(count) * sizeof(T), {}, opts, "GossipSeries") {}

  /// What the constructor chose and why (the same on every rank).
  [[nodiscard]] const SeriesChoice& choice() const noexcept { return m_core.choice(); }
  /// The platform the choice was made on (measured, or opts.platform).
  [[nodiscard]] const steady::MeasuredPlatform& platform() const noexcept { return m_core.platform(); }

  /// Not collective (see ReductionSeries::submit). A span of another size than P * count cancels the
  /// series; every rank learns it when the batch runs.
  void submit(std::span<const T> blocks) {
    m_core.check_live("submit");
    const auto want = static_cast<std::size_t>(m_core.size()) * static_cast<std::size_t>(m_count);
    if (blocks.size() != want && !m_failed) {
      m_failed = true;
      m_message = "GossipSeries::submit: phase " + std::to_string(submitted()) + " holds " +
                  std::to_string(blocks.size()) + " elements; expected P * count = " + std::to_string(want);
    }
    m_waiting.emplace_back(blocks.begin(), blocks.end());
    m_waiting.back().resize(want);
    if (static_cast<std::int64_t>(m_waiting.size()) >= m_core.options().batch) run_waiting();
  }

  /// Phases submitted so far (the same on every rank).
  [[nodiscard]] std::int64_t submitted() const noexcept {
    return m_done + static_cast<std::int64_t>(m_waiting.size());
  }

  /// Collective when phase t has not run yet: what this rank received in phase t (block s from rank
  /// s). Throws hpf::Error on every rank (and cancels) for a phase never submitted.
  [[nodiscard]] std::span<const T> result(std::int64_t t) {
    m_core.check_live("result");
    m_core.check_phase(t, submitted());
    if (t >= m_done) run_waiting();
    return m_results[static_cast<std::size_t>(t)];
  }

  /// Collective: runs every waiting phase.
  void wait_all() {
    m_core.check_live("wait_all");
    run_waiting();
  }

private:
  static index_t checked_count(index_t count) {
    detail::require(count >= 1, "GossipSeries: count must be >= 1, got ", count);
    return count;
  }
  [[nodiscard]] std::size_t block_bytes() const { return static_cast<std::size_t>(m_count) * sizeof(T); }
  void pack(std::int64_t t, int to, std::byte* out) const {
    std::memcpy(out, m_waiting[static_cast<std::size_t>(t)].data() + static_cast<std::size_t>(to) * m_count,
                block_bytes());
  }
  void store(std::int64_t t, int from, const std::byte* in) {
    std::memcpy(static_cast<void*>(m_results[static_cast<std::size_t>(m_done + t)].data() +
                                   static_cast<std::size_t>(from) * m_count),
                in, block_bytes());
  }

  void run_waiting() {
    const auto K = static_cast<std::int64_t>(m_waiting.size());
    m_core.agree(m_failed, m_message);
    if (K == 0) return;
    const int me = m_core.rank(), P = m_core.size();
    m_results.resize(static_cast<std::size_t>(m_done + K));
    for (std::int64_t t = 0; t < K; ++t) {
      m_results[static_cast<std::size_t>(m_done + t)].resize(static_cast<std::size_t>(P) *
                                                             static_cast<std::size_t>(m_count));
      pack(t, me,
           reinterpret_cast<std::byte*>(m_results[static_cast<std::size_t>(m_done + t)].data() +
                                        static_cast<std::size_t>(me) * m_count));
    }
    if (P > 1 && m_core.choice().chosen == SeriesStrategy::TreePerOperation) {
      ExchangePlan xp;
      for (int r = 0; r < P; ++r)
        if (r != me) {
          xp.sends.push_back({r, block_bytes(), 0});
          xp.recvs.push_back({r, block_bytes(), 0});
        }
      std::vector<int> peers;
      for (const auto& s : xp.sends) peers.push_back(s.peer);
      Exchange ex(m_core.comm(), std::move(xp), ExecMode::AllAtOnce, tags::steady.base + 60);
      for (std::int64_t t = 0; t < K; ++t)
        ex.execute([&](std::size_t i, std::byte* out) { pack(t, peers[i], out); },
                   [&](std::size_t i, const std::byte* in) { store(t, peers[i], in); });
    } else if (P > 1) {
      // The LP's message types in order: m[s, d] for every source s, every target d != s.
      std::vector<std::pair<int, int>> types;
      for (int s = 0; s < P; ++s)
        for (int d = 0; d < P; ++d)
          if (s != d) types.emplace_back(s, d);
      steady::PipelineCallbacks cb;
      cb.make = [&](int type, std::int64_t stamp, std::byte* out) {
        pack(stamp, types[static_cast<std::size_t>(type)].second, out);
      };
      cb.deliver = [&](int type, std::int64_t stamp, const std::byte* v) {
        store(stamp, types[static_cast<std::size_t>(type)].first, v);
      };
      m_core.run(K, block_bytes(), cb);
    }
    m_waiting.clear();
    m_done += K;
  }

  index_t m_count;
  detail::SeriesCore m_core;
  std::vector<std::vector<T>> m_waiting; // this rank's outgoing blocks of phases m_done..
  std::vector<std::vector<T>> m_results; // received blocks of phases 0..m_done-1
  std::int64_t m_done = 0;
  bool m_failed = false;
  std::string m_message;
};

} // namespace hpf
