// hpf::RedistributionPlan<N>: HPF REDISTRIBUTE of an N-d array from one Layout to another, planned
// once and executed many times.
//
// Each dimension is an independent 1-D problem CYCLIC(r) on P -> CYCLIC(s) on Q (a collapsed dimension
// is CYCLIC(n) on one process): its communication grid comes from the closed forms of Desprez, Dongarra,
// Petitet, Randriamaro and Robert ("Scheduling block-cyclic array redistribution") and its schedule
// from the chosen Strategy. A message of the N-d problem is the tuple of one message per dimension,
// and the product of the 1-D schedules is a schedule of the N-d problem (DESIGN.md): the N-d step
// (k_0, ..., k_{N-1}) holds the products of the messages of steps k_d, and every grid position still
// sends and receives at most once per step. Data moves by runs of the fastest dimension.
// A GEN_BLOCK or INDIRECT dimension has its grid read off the runs (redist/runs.hpp); GEN_BLOCK ->
// GEN_BLOCK under Strategy::Auto is scheduled by the O(P + Q) interval-graph colouring of
// schedule/gen_block.hpp, or on small grids by König's stepwise matchings when their TC is lower
// (reported as KoenigStepwise either way: both take max-degree steps).
//
// Plans are computed locally on every rank from the two layouts (no handshake, STYLE.md), and their
// constructor never calls MPI: the cost model of Strategy::Auto is an input (RedistOptions). A plan is
// immutable and may be shared (the plan cache does); the requests and buffers of an execution belong
// to a RedistributionExecutor, the caller's (Tpetra's Distributor plan/actor split). Source and target
// grids may be identical, overlap or be disjoint, with P != Q; they must share a parent communicator.
// Ranks in neither grid take part in execute() but move nothing.
//
// Replicated and fixed layouts (ALIGN, docs/align.md): only the primary copy of the source sends
// (Layout::is_primary), and every copy of the target receives. The product schedule above runs between
// primary copies; the message of step s to copy k of the target (k numbering the coordinates along
// the target's replicated grid dimensions) runs at step s + k S, S the product schedule's length, so
// every step stays a partial permutation.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/core/tags.hpp>
#include <hpf/exec/datatype.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/exec/model.hpp>
#include <hpf/layout/agree.hpp>
#include <hpf/layout/layout.hpp>
#include <hpf/layout/runs.hpp>
#include <hpf/redist/pattern.hpp>
#include <hpf/redist/runs.hpp>
#include <hpf/redist/runs_datatype.hpp>
#include <hpf/schedule/gen_block.hpp>
#include <hpf/schedule/strategy.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace hpf {

/// The options of a RedistributionPlan: how it schedules and runs its messages.
struct RedistOptions {
  /// How messages are ordered and run. Auto picks, per dimension, the schedule of least
  /// alpha*steps + beta*TC, and runs it step by step when the transfer term beta*TC dominates, or
  /// posts all messages at once when start-ups dominate (see RedistributionPlan::exec_mode()).
  Strategy strategy = Strategy::Auto;
  /// Cost model for Auto (seconds per step, seconds per byte). A plan never measures: what is not
  /// given comes from MachineModel::fallback(). DistArray::redistribute fills both from
  /// machine_model() of the source grid's communicator (exec/model.hpp).
  std::optional<double> alpha;
  /// Seconds per byte for Auto (see alpha).
  std::optional<double> beta;
  /// Bytes per element, for the cost model (DistArray sets it to sizeof(T)).
  std::size_t element_bytes = 8;
  /// A message whose contiguous pieces (in dimension 0) average at least this many bytes moves in
  /// place: MPI sends it from the source block and receives it into the target block through a
  /// derived datatype (redist/runs_datatype.hpp), with no pack, unpack or message buffer. Messages of
  /// shorter pieces are packed by the plan's copy loops. 0: every message in place; SIZE_MAX: none.
  /// Each end decides for itself (a packed end matches an in-place one). Alltoallv mode always packs.
  std::size_t in_place_min_piece_bytes = 256;
  /// Message tag, in hpf::tags::redist; executions in flight at the same time on one grid that are
  /// not waited in the same order on every rank need distinct tags.
  int tag = tags::redist.base + 1;
  /// For Auto (last, so that positional initialisers written before it keep their meaning): whether every
  /// rank of the grids' parent communicator runs on one node (DistArray fills it from
  /// detail::shares_one_node). There, a 1-D pattern that repeats in short slices (one_pass_pattern) runs all
  /// at once, every message in one pass over each block (RedistributionPlan::fuses_sends), whatever alpha and
  /// beta say: in one node's memory the steps of a contention-free schedule avoid no contention, and each
  /// step's pass over the whole block costs more than the messages (docs/redistribute.md, "One pass for all
  /// messages"). Empty or false: alpha and beta alone decide.
  std::optional<bool> one_node;
  /// For the one-pass choice: bytes of the cache private to one core. A local block that fits stays
  /// in that cache between messages, so moving it message by message costs no extra pass over memory.
  /// DistArray fills it from machine_model() (MachineModel::cache_bytes); empty: fuse_min_block_bytes.
  std::optional<std::size_t> cache_bytes;
  /// For DistArray::redistribute and hpf::redistribute (last, so that positional initialisers written
  /// before it keep their meaning): lay the array out by the target layout's distributions on the grid
  /// arranged by best_relabeling (redist/relabel.hpp), the target grid's ranks renumbered so that the
  /// most bytes stay where they are, instead of on the target grid as given. The array's
  /// layout().grid() then tells which arrangement was used. A RedistributionPlan and
  /// DistArray::redistribute_into refuse it: their target layout is fixed.
  bool relabel = false;
  /// For DistArray::redistribute, hpf::redistribute, hpf::assign and hpf::transpose (last, as above):
  /// the most bytes per rank the move may allocate beyond the source and target blocks (message
  /// buffers and staging). A move whose buffers would exceed it on some rank runs as a sequence of
  /// smaller section moves that each fit (docs/redistribute.md, "A memory ceiling"); a ceiling below
  /// the smallest such move throws hpf::Error on every rank, naming the smallest workable ceiling.
  /// Empty: no ceiling.
  std::optional<std::size_t> memory_ceiling_bytes;

  /// Member-wise equality.
  friend bool operator==(const RedistOptions&, const RedistOptions&) = default;
};

/// The options every rank must pass the same, as agreement words (DistArray::redistribute checks them
/// with the layouts): all but in_place_min_piece_bytes, which each end of a message decides for
/// itself, and element_bytes, which the array sets. Local.
[[nodiscard]] inline std::array<OptionWord, 11> agreement_words(const RedistOptions& o) {
  const auto given = [](const std::optional<double>& v) { return std::int64_t{v.has_value() ? 1 : 0}; };
  const auto bits = [](const std::optional<double>& v) {
    return std::bit_cast<std::int64_t>(v.value_or(0.0));
  };
  return {
      {{"options.strategy", static_cast<std::int64_t>(o.strategy)},
       {"options.alpha given", given(o.alpha)},
       {"options.alpha", bits(o.alpha)},
       {"options.beta given", given(o.beta)},
       {"options.beta", bits(o.beta)},
       {"options.one_node", o.one_node ? std::int64_t{*o.one_node ? 1 : 0} : std::int64_t{-1}},
       {"options.cache_bytes", o.cache_bytes ? static_cast<std::int64_t>(*o.cache_bytes) : std::int64_t{-1}},
       {"options.tag", o.tag},
       {"options.relabel", std::int64_t{o.relabel ? 1 : 0}},
       {"options.memory_ceiling_bytes given", std::int64_t{o.memory_ceiling_bytes ? 1 : 0}},
       {"options.memory_ceiling_bytes", std::bit_cast<std::int64_t>(o.memory_ceiling_bytes.value_or(0))}}};
}

namespace detail {

/// Per-dimension plan: the 1-D maps, communication grid and schedule.
struct DimPlan {
  CyclicMap src;
  CyclicMap dst;
  CommMatrix grid;
  Strategy strategy = Strategy::Auto; ///< the strategy used (Auto resolved)
  Schedule schedule;
};

/// Moves one N-d message (or the locally kept part): dimension 0 by its PeriodicRuns (tables or
/// strided runs, detail::Side says which side is a packed buffer), the dimensions above it element by
/// element along their runs (each is a new column; no owner computation). `so` / `dof` are the local
/// offsets of the current column in the source (strides `ss`) and target (strides `ds`) blocks;
/// `buf` walks the packed buffer. Elements go in the message's buffer order (global order, dimension
/// 0 fastest), the same on the sender and the receiver.
template <int D, int N, Side side, class T, bool nt = false>
void move_walk(const std::array<const PeriodicRuns*, N>& runs, const Index<N>& ss, const Index<N>& ds,
               index_t so, index_t dof, const T* src, T* dst, T*& wbuf, const T*& rbuf) {
  if constexpr (D == 0) {
    if constexpr (side == Side::Src) {
      wbuf += runs[0]->template move<side, T, nt>(src + so, wbuf);
    } else if constexpr (side == Side::Dst) {
      rbuf += runs[0]->template move<side, T, nt>(rbuf, dst + dof);
    } else {
      runs[0]->template move<side, T, nt>(src + so, dst + dof);
    }
  } else {
    runs[D]->for_each([&](index_t s, index_t d, index_t len) {
      for (index_t t = 0; t < len; ++t)
        move_walk<D - 1, N, side, T, nt>(runs, ss, ds, so + (s + t) * ss[D], dof + (d + t) * ds[D], src, dst,
                                         wbuf, rbuf);
    });
  }
}

/// Calls fn(source offset, target offset, length) for each contiguous piece of dimension 0 of a
/// message (or the locally kept part), in the message's order or, with `reverse`, backwards.
template <int D, int N, class Fn> void walk_pieces(const std::array<const PeriodicRuns*, N>& runs,
                                                   const Index<N>& ss, const Index<N>& ds, index_t so,
                                                   index_t dof, bool reverse, Fn&& fn) {
  const auto each = [&](auto&& piece) {
    if (reverse)
      runs[D]->for_each_reverse(piece);
    else
      runs[D]->for_each(piece);
  };
  if constexpr (D == 0) {
    each([&](index_t s, index_t d, index_t len) { fn(so + s, dof + d, len); });
  } else {
    each([&](index_t s, index_t d, index_t len) {
      for (index_t k = 0; k < len; ++k) {
        const index_t t = reverse ? len - 1 - k : k;
        walk_pieces<D - 1, N>(runs, ss, ds, so + (s + t) * ss[D], dof + (d + t) * ds[D], reverse, fn);
      }
    });
  }
}

/// Side::Src: packs the message whose per-dimension runs are `runs` from `src` into `buf`;
/// Side::Dst: unpacks it from `buf` into `dst`; Side::Both: copies it from `src` to `dst`. `nt`: long
/// pieces by non-temporal stores, fenced before it returns (stream_bytes).
template <int N, Side side, class T, bool nt = false>
void move_message(const std::array<const PeriodicRuns*, N>& runs, const Index<N>& ss, const Index<N>& ds,
                  const T* src, T* dst, const T* in, T* out) {
  for (const PeriodicRuns* r : runs)
    if (r->elements == 0) return;
  move_walk<N - 1, N, side, T, nt>(runs, ss, ds, 0, 0, src, dst, out, in);
  if constexpr (nt) stream_fence();
}

/// Writes into a target block of at least this many bytes go by non-temporal stores where their
/// pieces are long (stream_min_piece_bytes): such a block does not stay in cache until it is read,
/// and an ordinary store reads every line it writes first. Half the shared cache of the machine model
/// (MachineModel::shared_cache_bytes; hpf::Environment sets it from the world's model). SIZE_MAX
/// turns them off, for comparison. Process-wide and local, read at each move.
inline std::atomic<std::size_t>& stream_store_min_bytes() noexcept {
  static std::atomic<std::size_t> bytes{default_shared_cache_bytes / 2};
  return bytes;
}
/// Whether a move into an area of `elements` elements of `elem_bytes` bytes uses stream_store_min_bytes.
[[nodiscard]] inline bool streams_into(index_t elements, std::size_t elem_bytes) noexcept {
  return static_cast<double>(elements) * static_cast<double>(elem_bytes) >=
         static_cast<double>(stream_store_min_bytes().load(std::memory_order_relaxed));
}

/// The longest slice, in bytes on one side, that a 1-D plan moves in one pass for all its messages
/// (RedistributionPlan::fuses_sends): 128 KiB; 0 turns the one pass off, for comparison
/// (bench/redistribute/one_pass.cpp). Process-wide, read when a plan is made (cached plans keep
/// their choice).
inline std::atomic<std::size_t>& one_pass_max_slice_bytes() noexcept {
  static std::atomic<std::size_t> bytes{std::size_t{1} << 17U};
  return bytes;
}

/// Where slices are long or the whole extent is one (a BLOCK side), the longest average piece, in
/// bytes, of a side that a 1-D plan moves in one pass for all its messages, a chunk of the block at a
/// time (RedistributionPlan::fuses_sends): shorter pieces of several messages share cache lines, and
/// message by message each line crosses the memory bus once per message. 0 turns this pass off, for
/// comparison (bench/redistribute/one_pass.cpp). Process-wide, read when a plan is made.
inline std::atomic<std::size_t>& one_pass_max_piece_bytes() noexcept {
  static std::atomic<std::size_t> bytes{256};
  return bytes;
}

/// The executor mode that runs a strategy's schedule: the step schedules (caterpillar, class, König)
/// step by step as Desprez et al. prescribe; AllAtOnce and Alltoallv as their names say.
ExecMode exec_mode_of(Strategy s);

} // namespace detail

/// HPF REDISTRIBUTE of an N-d array from one Layout to another, planned once and executed many times
/// (see the header comment).
template <int N> class RedistributionPlan {
public:
  /// Plans the move of an array from `src` to `dst` (same extents). Local and pure: no MPI call.
  /// Throws hpf::Error (on every rank, as every rank passes the same layouts) for different extents,
  /// grids over parents of different sizes, a tag outside hpf::tags::redist, or a strategy that does
  /// not apply. (That both grids have the same parent communicator is checked when executing.)
  RedistributionPlan(const Layout<N>& src, const Layout<N>& dst, RedistOptions opt = {})
      : m_src(src), m_dst(dst), m_opt(opt) {
    if (src.extents() != dst.extents())
      detail::fail("RedistributionPlan: source extents ", Layout<N>::to_string(src.extents()),
                   " differ from target extents ", Layout<N>::to_string(dst.extents()),
                   "; expected the same global extents");
    detail::require(src.grid().parent_size() == dst.grid().parent_size(),
                    "RedistributionPlan: the source grid's parent communicator has ",
                    src.grid().parent_size(), " ranks and the target grid's ", dst.grid().parent_size(),
                    "; expected one parent");
    detail::require(tags::redist.contains(opt.tag), "RedistributionPlan: options.tag must be in [",
                    tags::redist.base, ", ", tags::redist.base + tags::redist.width, "), got ", opt.tag);
    detail::require(opt.element_bytes >= 1, "RedistributionPlan: options.element_bytes must be >= 1, got ",
                    opt.element_bytes);
    detail::require(!opt.relabel,
                    "RedistributionPlan: options.relabel = true; expected false (a plan moves to its target "
                    "layout as given: arrange the target with best_relabeling and relabeled_layout first, or "
                    "pass relabel to DistArray::redistribute)");
    detail::require(!opt.alpha || *opt.alpha >= 0, "RedistributionPlan: options.alpha must be >= 0, got ",
                    opt.alpha.value_or(0));
    detail::require(!opt.beta || *opt.beta >= 0, "RedistributionPlan: options.beta must be >= 0, got ",
                    opt.beta.value_or(0));
    const MachineModel fallback = MachineModel::fallback();
    ScheduleOptions so;
    so.alpha = opt.alpha.value_or(fallback.alpha);
    so.beta = opt.beta.value_or(fallback.beta) * static_cast<double>(opt.element_bytes);
    for (int d = 0; d < N; ++d) {
      auto& dp = m_dims[static_cast<std::size_t>(d)];
      dp.src = src.map(d);
      dp.dst = dst.map(d);
      ScheduleOptions sod = so;
      const bool regular = dp.src.regular() && dp.dst.regular();
      const bool gen_blocks = dp.src.is_gen_block() && dp.dst.is_gen_block();
      dp.grid = dim_pattern(dp.src, dp.dst); // closed form, GEN_BLOCK intervals, or off the runs
      if (regular) sod.params = BlockCyclicParams{dp.src.P, dp.src.r, dp.dst.P, dp.dst.r, dp.src.n};
      // Auto is resolved here so that the plan can say what it runs (per dimension).
      if (gen_blocks && opt.strategy == Strategy::Auto) {
        // The interval-graph colouring: max-degree steps (a König schedule) in O(P + Q).
        dp.strategy = Strategy::KoenigStepwise;
        dp.schedule = gen_block_schedule(dp.src.irregular->offset, dp.dst.irregular->offset);
        // On small grids one maximum-weight matching per step is cheap and often lowers TC: keep the
        // cheaper of the two (both take max-degree steps).
        if (gen_block_prefers_matchings(dp.grid)) {
          Schedule k = koenig_stepwise_schedule(dp.grid);
          if (k.total_cost() < dp.schedule.total_cost()) dp.schedule = std::move(k);
        }
      } else if (opt.strategy == Strategy::Auto) {
        AutoChoice c = auto_choice(dp.grid, sod);
        dp.strategy = c.strategy;
        dp.schedule = std::move(c.schedule);
      } else {
        dp.strategy = opt.strategy;
        dp.schedule = make_schedule(dp.grid, dp.strategy, sod);
      }
    }
    m_mode = detail::exec_mode_of(opt.strategy);
    if (opt.strategy == Strategy::Auto) {
      // The product schedule has NS = prod NS_d steps and TC = prod TC_d (a step's longest message is
      // the product of the dimensions' longest). Desprez et al. (section 5) schedule steps to avoid
      // contention, which matters when transfers dominate; when start-ups dominate (alpha NS > beta TC)
      // every step boundary only adds a synchronisation, and posting everything at once overlaps them.
      double ns = 1;
      double tc = 1;
      for (const auto& dp : m_dims) {
        ns *= static_cast<double>(dp.schedule.num_steps());
        tc *= static_cast<double>(dp.schedule.total_cost());
      }
      // On one node, a pattern that repeats in short slices moves in one pass for all messages
      // (RedistOptions::one_node), which only the all-at-once mode can do.
      const bool one_pass =
          opt.one_node.value_or(false) &&
          one_pass_pattern(src, dst, opt.element_bytes, opt.cache_bytes.value_or(fuse_min_block_bytes));
      m_mode = so.alpha * ns > so.beta * tc || one_pass ? ExecMode::AllAtOnce : ExecMode::StepSynchronous;
    }
    plan_my_part();
    m_identical = compute_storage_identical();
    plan_fusion();
  }

  /// True when the plan between `src` and `dst` may move its messages in one pass (fuses_sends on
  /// some rank): 1-D, two CYCLIC / BLOCK maps whose pattern repeats (L = lcm(P r, Q s)) at least twice,
  /// in slices of at most detail::one_pass_max_slice_bytes() on one side; or whose blocks on one side
  /// (of at least `cache_bytes`) hold the pieces of several processes of the other side, of at
  /// most detail::one_pass_max_piece_bytes() (CYCLIC(7) -> BLOCK: the target's). From the layouts
  /// alone: the same on every rank (Strategy::Auto's choice of mode depends on it).
  [[nodiscard]] static bool one_pass_pattern(const Layout<N>& src, const Layout<N>& dst,
                                             std::size_t elem_bytes,
                                             std::size_t cache_bytes = fuse_min_block_bytes) {
    if constexpr (N != 1) {
      return false;
    } else {
      const CyclicMap& a = src.map(0);
      const CyclicMap& b = dst.map(0);
      if (!a.regular() || !b.regular() || a.n == 0) return false;
      const auto bytes = [&](index_t elements) {
        return static_cast<double>(elements) * static_cast<double>(elem_bytes);
      };
      // Blocks of `mine` that hold short pieces of several processes of `other`, in large local blocks.
      const auto interleaved = [&](const CyclicMap& mine, const CyclicMap& other) {
        return mine.r > other.r && other.P > 1 &&
               bytes(other.r) <= static_cast<double>(detail::one_pass_max_piece_bytes().load()) &&
               bytes(detail::ceil_div(mine.n, index_t{mine.P})) >= static_cast<double>(cache_bytes);
      };
      if (interleaved(a, b) || interleaved(b, a)) return true;
      const std::optional<index_t> L = block_cyclic_geometry(a.P, a.r, b.P, b.r).L;
      if (!L || a.n / *L < 2) return false;
      const index_t slice_elements = *L / std::max(a.P, b.P); // exact: L is a multiple of P r and of Q s
      return bytes(slice_elements) <= static_cast<double>(detail::one_pass_max_slice_bytes().load());
    }
  }

  /// The source layout.
  [[nodiscard]] const Layout<N>& source() const noexcept { return m_src; }
  /// True when every rank's local block is the same in both layouts (same elements at the same local
  /// offsets; e.g. P = Q = 1, or BLOCK and CYCLIC(ceil(n / P)) on one grid): nothing needs to move,
  /// and an in-place REDISTRIBUTE only relabels the array. The same on every rank (from the layouts).
  [[nodiscard]] bool storage_identical() const noexcept { return m_identical; }
  /// The target layout.
  [[nodiscard]] const Layout<N>& target() const noexcept { return m_dst; }
  /// The options the plan was made with.
  [[nodiscard]] const RedistOptions& options() const noexcept { return m_opt; }
  /// How the executor runs the messages: from options().strategy, and for Auto from the cost model.
  [[nodiscard]] ExecMode exec_mode() const noexcept { return m_mode; }
  /// The 1-D communication grid and schedule of dimension d (lengths in elements).
  [[nodiscard]] const CommMatrix& dim_grid(int d) const { return dim(d).grid; }
  /// The 1-D schedule of dimension d (lengths in elements).
  [[nodiscard]] const Schedule& dim_schedule(int d) const { return dim(d).schedule; }
  /// The strategy that scheduled dimension d (what Strategy::Auto chose, or the requested one).
  [[nodiscard]] Strategy dim_strategy(int d) const { return dim(d).strategy; }

  /// The N-d schedule over (source grid position, target grid position), lengths in elements: the
  /// product of the per-dimension schedules (NS multiplies). Built on first use.
  [[nodiscard]] const Schedule& schedule() const {
    if (!m_product) m_product = std::make_shared<const Schedule>(build_product());
    return *m_product;
  }

  /// Elements this rank sends to / receives from other ranks, and copies locally.
  [[nodiscard]] index_t send_elements() const noexcept { return m_send_elems; }
  /// Elements this rank receives from other ranks.
  [[nodiscard]] index_t recv_elements() const noexcept { return m_recv_elems; }
  /// Elements this rank copies locally, from its source block to its target block.
  [[nodiscard]] index_t local_copy_elements() const noexcept { return m_self_elems; }
  /// Messages this rank sends / receives (the local copy not counted).
  [[nodiscard]] std::size_t num_sends() const noexcept { return m_sends.size(); }
  /// Messages this rank receives (the local copy not counted).
  [[nodiscard]] std::size_t num_recvs() const noexcept { return m_recvs.size(); }

  /// Collective over the parent communicator (every rank calls it; ranks in neither grid move
  /// nothing): moves the local block `src` (laid out by source(), my_local_extents() elements in
  /// Fortran order) into `dst` (laid out by target()). The two blocks must not overlap. Runs a
  /// RedistributionExecutor of its own; use one explicitly to split post() and wait().
  template <class T> void execute(const T* src, T* dst) const;

  /// Collective over the parent communicator: moves array `src` (laid out by source()) into array
  /// `dst` (laid out by target()), e.g. two hpf::DistArray of the same element type (a different
  /// element type does not compile). Throws hpf::Error on every rank when a layout differs from the
  /// plan's, before anything moves.
  template <class SrcArray, class DstArray>
  requires requires(const SrcArray& a, DstArray& b) {
    a.local_data();
    b.local_data();
    a.layout();
    b.layout();
  } && std::is_same_v<typename SrcArray::value_type, typename DstArray::value_type>
  void execute(const SrcArray& src, DstArray& dst) const {
    check_arrays(src, dst);
    execute(static_cast<const typename SrcArray::value_type*>(src.local_data()), dst.local_data());
  }

  /// Throws hpf::Error on every rank when an array's layout differs from the plan's.
  template <class SrcArray, class DstArray>
  void check_arrays(const SrcArray& src, const DstArray& dst) const {
    if (!(src.layout() == m_src))
      detail::fail("RedistributionPlan::execute: the source array's layout ", src.layout().describe_dists(),
                   " of extents ", Layout<N>::to_string(src.layout().extents()),
                   " is not the plan's source layout ", m_src.describe_dists(), " of extents ",
                   Layout<N>::to_string(m_src.extents()));
    if (!(dst.layout() == m_dst))
      detail::fail("RedistributionPlan::execute: the target array's layout ", dst.layout().describe_dists(),
                   " of extents ", Layout<N>::to_string(dst.layout().extents()),
                   " is not the plan's target layout ", m_dst.describe_dists(), " of extents ",
                   Layout<N>::to_string(m_dst.extents()));
  }

  /// This rank's part as an exchange plan for elements of `elem_bytes` bytes (peers are ranks of the
  /// parent communicator).
  [[nodiscard]] ExchangePlan exchange_plan(std::size_t elem_bytes) const {
    ExchangePlan xp;
    for (const Msg& m : m_sends)
      xp.sends.push_back(
          {m_dst.grid().rank_at(m.peer_pos), static_cast<std::size_t>(m.len) * elem_bytes, m.step});
    for (const Msg& m : m_recvs)
      xp.recvs.push_back(
          {m_src.grid().rank_at(m.peer_pos), static_cast<std::size_t>(m.len) * elem_bytes, m.step});
    return xp;
  }

  /// Packs send i into `out` / unpacks receive i from `in` / copies the locally kept part (the
  /// executor's callbacks).
  /// The long pieces written into a large target block (unpack, copy_local) go by non-temporal
  /// stores (detail::stream_store_min_bytes). A packed message does not: its receiver reads it next,
  /// maybe still from the shared cache.
  template <class T> void pack(std::size_t i, const T* src, T* out) const {
    detail::move_message<N, detail::Side::Src, T>(message_runs<detail::Side::Src>(m_sends[i]), m_src_strides,
                                                  m_dst_strides, src, nullptr, nullptr, out);
  }
  /// Unpacks receive i from `in` into the target block `dst` (the executor's unpack callback).
  template <class T> void unpack(std::size_t i, const T* in, T* dst) const {
    move_into_target<detail::Side::Dst>(message_runs<detail::Side::Dst>(m_recvs[i]),
                                        static_cast<const T*>(nullptr), dst, in);
  }
  /// Send i (`send`) or receive i as (outer, inner): its elements along the outermost dimension
  /// (N - 1) and the elements of the dimensions below per outer index (the same on both ends of a
  /// message). A move in chunks cuts messages along the outer dimension (pack_range).
  [[nodiscard]] std::pair<index_t, index_t> message_shape(bool send, std::size_t i) const {
    const auto runs = send ? message_runs<detail::Side::Src>(m_sends.at(i))
                           : message_runs<detail::Side::Dst>(m_recvs.at(i));
    index_t inner = 1;
    for (std::size_t d = 0; d + 1 < static_cast<std::size_t>(N); ++d) inner *= runs[d]->elements;
    return {runs[static_cast<std::size_t>(N - 1)]->elements, inner};
  }
  /// The schedule step of send i (`send`) or receive i.
  [[nodiscard]] int message_step(bool send, std::size_t i) const {
    return (send ? m_sends : m_recvs).at(i).step;
  }
  /// Packs the part of send i whose outermost-dimension elements are [e0, e1) (message_shape) into
  /// `out`: elements e0 inner to e1 inner of the whole packed message.
  template <class T> void pack_range(std::size_t i, index_t e0, index_t e1, const T* src, T* out) const {
    auto runs = message_runs<detail::Side::Src>(m_sends[i]);
    const PeriodicRuns part = runs[static_cast<std::size_t>(N - 1)]->range(e0, e1);
    runs[static_cast<std::size_t>(N - 1)] = &part;
    detail::move_message<N, detail::Side::Src, T>(runs, m_src_strides, m_dst_strides, src, nullptr, nullptr,
                                                  out);
  }
  /// Unpacks the part of receive i whose outermost-dimension elements are [e0, e1) from `in`.
  template <class T> void unpack_range(std::size_t i, index_t e0, index_t e1, const T* in, T* dst) const {
    auto runs = message_runs<detail::Side::Dst>(m_recvs[i]);
    const PeriodicRuns part = runs[static_cast<std::size_t>(N - 1)]->range(e0, e1);
    runs[static_cast<std::size_t>(N - 1)] = &part;
    move_into_target<detail::Side::Dst>(runs, static_cast<const T*>(nullptr), dst, in);
  }

  /// The datatype of send i (Side::Src, relative to the source block) or receive i (Side::Dst, relative
  /// to the target block) for elements of `elem_bytes` bytes, committed, when that message moves in
  /// place (see RedistOptions::in_place_min_piece_bytes; `min_piece_bytes` overrides it); a null
  /// Datatype when it is packed.
  template <detail::Side side>
  [[nodiscard]] Datatype message_datatype(std::size_t i, std::size_t elem_bytes,
                                          std::optional<std::size_t> min_piece_bytes = std::nullopt) const {
    static_assert(side != detail::Side::Both, "message_datatype: a message has a sender and a receiver side");
    const Msg& m = side == detail::Side::Src ? m_sends.at(i) : m_recvs.at(i);
    const std::array<const PeriodicRuns*, N> runs = message_runs<side>(m);
    const double bytes = static_cast<double>(m.len) * static_cast<double>(elem_bytes);
    if (bytes > static_cast<double>(max_message_bytes) ||
        detail::mean_piece_bytes(*runs[0], elem_bytes) <
            static_cast<double>(min_piece_bytes.value_or(m_opt.in_place_min_piece_bytes)) ||
        elem_bytes > static_cast<std::size_t>(INT_MAX))
      return {};
    Datatype type = detail::element_datatype(elem_bytes);
    const Index<N>& strides = side == detail::Side::Src ? m_src_strides : m_dst_strides;
    for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
      // Dimension 0's runs count elements of the column; dimension d > 0 steps over whole columns.
      const index_t stride = d == 0 ? 1 : strides[d];
      std::optional<Datatype> t = detail::runs_datatype(
          *runs[d], side, type.get(), static_cast<MPI_Aint>(stride * static_cast<index_t>(elem_bytes)));
      if (!t) return {};
      type = std::move(*t);
    }
    return detail::committed(std::move(type));
  }

  /// Copies the locally kept part from the source block `src` into the target block `dst`.
  template <class T> void copy_local(const T* src, T* dst) const {
    if (!m_self) return;
    if (m_identical) { // the whole block, as it is
      std::memcpy(dst, src, static_cast<std::size_t>(m_self_elems) * sizeof(T));
      return;
    }
    std::array<const PeriodicRuns*, N> runs{};
    for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
      runs[d] = &m_runs_from[d][static_cast<std::size_t>(m_my_dst[d])];
    move_into_target<detail::Side::Both>(runs, src, dst, static_cast<const T*>(nullptr));
  }

  /// Moves the locally kept part within one block, from where the source layout has it to where the
  /// target layout wants it (an in-place REDISTRIBUTE, once the sends are packed). The kept elements
  /// keep their order in both blocks (global order, per dimension), so a pass upwards moves those that
  /// go down and a pass downwards those that go up, each overwriting only places already read: an
  /// element's target place holds either an element that was sent, one that moved in the same
  /// direction earlier in its pass, or itself.
  template <class T> void move_kept_in_place(T* block) const {
    if (!m_self || m_identical) return;
    std::array<const PeriodicRuns*, N> runs{};
    for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
      runs[d] = &m_runs_from[d][static_cast<std::size_t>(m_my_dst[d])];
    for (const bool down : {true, false})
      detail::walk_pieces<N - 1, N>(
          runs, m_src_strides, m_dst_strides, 0, 0, !down, [&](index_t from, index_t to, index_t len) {
            if (down ? to < from : to > from)
              std::memmove(block + to, block + from, static_cast<std::size_t>(len) * sizeof(T));
          });
  }

  /// Whether pack_many moves this rank's sends and its locally kept part slice by slice, all in one
  /// pass over the source block, and unpack_many its receives in one pass over the target block. A
  /// message-by-message pass reads (writes) the whole block once per message when the pattern repeats
  /// with a short period (every message takes a few elements of every slice): CYCLIC(1) -> CYCLIC(64)
  /// on 4 ranks at 10^7 doubles took 0.36-0.95x the message-by-message time, median 0.51x
  /// (bench/redistribute/one_pass.sh; docs/redistribute.md, "One pass for all messages").
  /// 1-D plans with at least two messages on that side (counting the kept part) whose slice is at most
  /// detail::one_pass_max_slice_bytes() there (128 KiB) and repeats at least twice: a few slices at a
  /// time. Otherwise (one slice, the whole extent: a BLOCK side; or long slices), when the side's
  /// block holds at least fuse_min_block_bytes and its pieces average at most
  /// detail::one_pass_max_piece_bytes(): fuse_offset_chunk_bytes of the block at a time
  /// (PeriodicRuns::move_upto). Each end decides for itself: the bytes of a message are the same
  /// either way. AllAtOnce only (Exchange::set_batch).
  /// The locally kept part moves with the sends when they fuse, else with the receives when it makes
  /// them fuse (kept_with_recvs(): CYCLIC(3) -> BLOCK on 2 ranks, where one message and the kept part
  /// interleave in every cache line of the target block), else on its own (copy_local).
  [[nodiscard]] bool fuses_sends() const noexcept { return m_fuse_sends != Fusion::None; }
  /// Whether unpack_many moves this rank's receives in one pass over the target block (see fuses_sends()).
  [[nodiscard]] bool fuses_recvs() const noexcept { return m_fuse_recvs != Fusion::None; }
  /// True when unpack_many copies the locally kept part with the receives (see fuses_sends()).
  [[nodiscard]] bool kept_with_recvs() const noexcept { return m_kept_with_recvs; }
  /// Slices per chunk of a fused pass: about fuse_chunk_bytes of the block, at least one slice.
  static constexpr index_t fuse_chunk_bytes = index_t{1} << 11U;
  /// A fused pass by offsets moves this much of the block at a time.
  static constexpr index_t fuse_offset_chunk_bytes = index_t{1} << 14U;
  /// The smallest block a pass by offsets fuses when the options give no cache size
  /// (RedistOptions::cache_bytes, from the machine model): a smaller block stays in one core's cache
  /// between messages, and its tables or whole runs move faster. MachineModel's default.
  static constexpr std::size_t fuse_min_block_bytes = default_cache_bytes;

  /// Packs sends[j] into bufs[j] for every j and, unless `kept` is null, copies the locally kept part
  /// into it (the executor's Exchange::set_batch callback): in one pass when fuses_sends(), else
  /// message by message as pack() and copy_local().
  template <class T> void pack_many(std::span<const std::size_t> sends, std::span<std::byte* const> bufs,
                                    const T* src, T* kept) const {
    if constexpr (N == 1) {
      const PeriodicRuns* self = kept != nullptr && m_self && !m_identical
                                     ? &m_runs_from[0][static_cast<std::size_t>(m_my_dst[0])]
                                     : nullptr;
      if (m_fuse_sends == Fusion::Offsets) { // the kept part, if any, last
        std::vector<const PeriodicRuns*> runs;
        for (const std::size_t i : sends) runs.push_back(message_runs<detail::Side::Src>(m_sends[i])[0]);
        if (self != nullptr) runs.push_back(self);
        by_offsets(runs, offset_chunk<T>(), [&](std::size_t j, PeriodicRuns::Cursor& at, index_t limit) {
          if (j < sends.size())
            runs[j]->template move_upto<detail::Side::Src>(at, limit, src, reinterpret_cast<T*>(bufs[j]));
          else
            runs[j]->template move_upto<detail::Side::Both>(at, limit, src, kept);
        });
        if (self == nullptr && kept != nullptr) copy_local(src, kept);
        return;
      }
      if (m_fuse_sends == Fusion::Slices) {
        // A chunk of slices at a time (every peer's runs share reps and shifts: one slice length),
        // each message by its own tight loop over the chunk while the chunk is in cache.
        const PeriodicRuns& first = m_runs_from[0].front();
        const index_t chunk = fuse_chunk(first.src_shift);
        for (index_t k = 0; k < first.reps; k += chunk) {
          const index_t k1 = std::min(first.reps, k + chunk);
          for (std::size_t j = 0; j < sends.size(); ++j)
            message_runs<detail::Side::Src>(m_sends[sends[j]])[0]->template move_slices<detail::Side::Src>(
                k, k1, src, reinterpret_cast<T*>(bufs[j]));
          if (self != nullptr) self->template move_slices<detail::Side::Both>(k, k1, src, kept);
        }
        for (std::size_t j = 0; j < sends.size(); ++j)
          message_runs<detail::Side::Src>(m_sends[sends[j]])[0]->template move_tail<detail::Side::Src>(
              src, reinterpret_cast<T*>(bufs[j]));
        if (self != nullptr)
          self->template move_tail<detail::Side::Both>(src, kept);
        else if (kept != nullptr)
          copy_local(src, kept);
        return;
      }
    }
    for (std::size_t j = 0; j < sends.size(); ++j) pack(sends[j], src, reinterpret_cast<T*>(bufs[j]));
    if (kept != nullptr) copy_local(src, kept);
  }
  /// Unpacks receive recvs[j] from bufs[j] for every j into `dst` and, unless `kept` is null, copies
  /// the locally kept part from `kept` (the source block) into it: in one pass when fuses_recvs() (the
  /// kept part with them when kept_with_recvs()), else message by message as unpack() and copy_local().
  template <class T> void unpack_many(std::span<const std::size_t> recvs,
                                      std::span<const std::byte* const> bufs, T* dst,
                                      const T* kept = nullptr) const {
    if constexpr (N == 1) {
      const PeriodicRuns* self = kept != nullptr && m_kept_with_recvs
                                     ? &m_runs_from[0][static_cast<std::size_t>(m_my_dst[0])]
                                     : nullptr;
      if (m_fuse_recvs == Fusion::Offsets) { // the kept part, if any, last
        std::vector<const PeriodicRuns*> runs;
        for (const std::size_t i : recvs) runs.push_back(message_runs<detail::Side::Dst>(m_recvs[i])[0]);
        if (self != nullptr) runs.push_back(self);
        by_offsets(runs, offset_chunk<T>(), [&](std::size_t j, PeriodicRuns::Cursor& at, index_t limit) {
          if (j < recvs.size())
            runs[j]->template move_upto<detail::Side::Dst>(at, limit, reinterpret_cast<const T*>(bufs[j]),
                                                           dst);
          else
            runs[j]->template move_upto<detail::Side::Both, false>(at, limit, kept, dst);
        });
        if (self == nullptr && kept != nullptr) copy_local(kept, dst);
        return;
      }
      if (m_fuse_recvs == Fusion::Slices) {
        const PeriodicRuns& first = m_runs_to[0].front();
        const index_t chunk = fuse_chunk(first.dst_shift);
        for (index_t k = 0; k < first.reps; k += chunk) {
          const index_t k1 = std::min(first.reps, k + chunk);
          for (std::size_t j = 0; j < recvs.size(); ++j)
            message_runs<detail::Side::Dst>(m_recvs[recvs[j]])[0]->template move_slices<detail::Side::Dst>(
                k, k1, reinterpret_cast<const T*>(bufs[j]), dst);
          if (self != nullptr) self->template move_slices<detail::Side::Both>(k, k1, kept, dst);
        }
        for (std::size_t j = 0; j < recvs.size(); ++j)
          message_runs<detail::Side::Dst>(m_recvs[recvs[j]])[0]->template move_tail<detail::Side::Dst>(
              reinterpret_cast<const T*>(bufs[j]), dst);
        if (self != nullptr)
          self->template move_tail<detail::Side::Both>(kept, dst);
        else if (kept != nullptr)
          copy_local(kept, dst);
        return;
      }
    }
    for (std::size_t j = 0; j < recvs.size(); ++j) unpack(recvs[j], reinterpret_cast<const T*>(bufs[j]), dst);
    if (kept != nullptr) copy_local(kept, dst);
  }

private:
  /// Unpacks (Dst, from `in`) or copies the kept part (Both, from `src`) into the target block `dst`:
  /// by non-temporal stores for its long pieces when the block is large (detail::streams_into).
  template <detail::Side side, class T> void move_into_target(const std::array<const PeriodicRuns*, N>& runs,
                                                              const T* src, T* dst, const T* in) const {
    if (detail::streams_into(m_recv_elems + m_self_elems, sizeof(T)))
      detail::move_message<N, side, T, true>(runs, m_src_strides, m_dst_strides, src, dst, in, nullptr);
    else
      detail::move_message<N, side, T>(runs, m_src_strides, m_dst_strides, src, dst, in, nullptr);
  }

  /// How a side's messages move in pack_many / unpack_many: message by message, a few slices at a
  /// time, or a chunk of block offsets at a time (see fuses_sends()).
  enum class Fusion : std::uint8_t { None, Slices, Offsets };

  /// The pass by offsets: `chunk` elements of the walked block at a time, move(j, cursor, limit)
  /// moves the pieces of runs[j] up to that limit (PeriodicRuns::move_upto), until every one has
  /// moved.
  template <class Move>
  static void by_offsets(std::span<const PeriodicRuns* const> runs, index_t chunk, Move&& move) {
    std::vector<PeriodicRuns::Cursor> at(runs.size());
    for (index_t limit = chunk;; limit += chunk) {
      bool more = false;
      for (std::size_t j = 0; j < runs.size(); ++j) {
        move(j, at[j], limit);
        more = more || !runs[j]->done(at[j]);
      }
      if (!more) return;
    }
  }
  template <class T> static index_t offset_chunk() noexcept {
    return std::max<index_t>(1, fuse_offset_chunk_bytes / static_cast<index_t>(sizeof(T)));
  }

  [[nodiscard]] index_t fuse_chunk(index_t shift) const noexcept {
    const index_t slice_bytes = std::max<index_t>(1, shift * static_cast<index_t>(m_opt.element_bytes));
    return std::max<index_t>(1, fuse_chunk_bytes / slice_bytes);
  }
  /// See fuses_sends(): decided once the messages and the runs are known.
  void plan_fusion() {
    if constexpr (N == 1) {
      const auto repeats = [&](const std::vector<PeriodicRuns>& runs, index_t shift_of_slice) {
        if (runs.empty()) return false;
        const PeriodicRuns& r = runs.front(); // every peer's runs share reps and shifts (one slice length)
        const double slice_bytes =
            static_cast<double>(shift_of_slice) * static_cast<double>(m_opt.element_bytes);
        return r.reps >= 2 && slice_bytes <= static_cast<double>(detail::one_pass_max_slice_bytes().load());
      };
      // Otherwise: short pieces of several messages in a large block (every piece of this rank's
      // block on that side; a run whose pieces follow each other there is one piece).
      const auto short_pieces = [&](const std::vector<PeriodicRuns>& runs, bool by_src, index_t elements) {
        const auto count = [&](const std::vector<StridedRun>& list) {
          index_t c = 0;
          for (const StridedRun& x : list) c += (by_src ? x.src_step : x.dst_step) == x.len ? 1 : x.count;
          return c;
        };
        index_t pieces = 0;
        for (const PeriodicRuns& r : runs) pieces += count(r.period) * r.reps + count(r.tail);
        const double bytes = static_cast<double>(elements) * static_cast<double>(m_opt.element_bytes);
        return pieces > 0 && bytes >= static_cast<double>(m_opt.cache_bytes.value_or(fuse_min_block_bytes)) &&
               bytes <= static_cast<double>(pieces) *
                            static_cast<double>(detail::one_pass_max_piece_bytes().load());
      };
      const auto fusion = [&](std::size_t messages, const std::vector<PeriodicRuns>& runs, bool by_src) {
        if (messages < 2 || runs.empty()) return Fusion::None;
        if (repeats(runs, by_src ? runs.front().src_shift : runs.front().dst_shift)) return Fusion::Slices;
        const index_t elements = (by_src ? m_send_elems : m_recv_elems) + m_self_elems;
        return short_pieces(runs, by_src, elements) ? Fusion::Offsets : Fusion::None;
      };
      const std::size_t kept = m_self && !m_identical ? 1 : 0;
      m_fuse_sends = fusion(m_sends.size() + kept, m_runs_from[0], true);
      // The kept part with the receives when the sends leave it (see fuses_sends()).
      const std::size_t kept_here = m_fuse_sends == Fusion::None ? kept : 0;
      m_fuse_recvs = fusion(m_recvs.size() + kept_here, m_runs_to[0], false);
      m_kept_with_recvs = kept_here == 1 && m_fuse_recvs != Fusion::None;
    }
  }

  /// One message of this rank: the peer's grid position and per-dimension coordinates.
  struct Msg {
    int peer_pos = 0;
    std::array<int, N> coords{}; // the peer's per-dimension process coordinate
    int step = 0;
    index_t len = 0;
  };

  [[nodiscard]] const detail::DimPlan& dim(int d) const {
    detail::require(d >= 0 && d < N, "RedistributionPlan: dimension must be in [0, ", N, "), got ", d);
    return m_dims[static_cast<std::size_t>(d)];
  }

  // Per-dimension process coordinate of a grid position (0 for a collapsed dimension).
  static std::array<int, N> dim_coords(const Layout<N>& L, int pos) {
    const std::vector<int> c = L.grid().coords_of(pos);
    std::array<int, N> out{};
    for (int d = 0; d < N; ++d) out[static_cast<std::size_t>(d)] = L.coord(c, d);
    return out;
  }

  /// Grid position of the primary copy of the block with per-dimension coordinates dc.
  static int position_of(const Layout<N>& L, const std::array<int, N>& dc) {
    return L.position_of_dim_coords(dc);
  }

  /// Steps of the product schedule between primary copies.
  [[nodiscard]] int product_steps() const {
    int steps = 1;
    for (const auto& dp : m_dims) steps *= dp.schedule.num_steps();
    return steps;
  }

  /// Mixed-radix N-d step index (dimension 0 fastest) of per-dimension steps.
  [[nodiscard]] int product_step(const std::array<int, N>& k) const {
    int step = 0;
    for (int d = N; d-- > 0;)
      step = step * m_dims[static_cast<std::size_t>(d)].schedule.num_steps() + k[static_cast<std::size_t>(d)];
    return step;
  }

  /// Calls fn(idx) for every tuple of indices into the N lists (dimension 0 fastest).
  template <class List, class Fn> static void for_each_product(const std::array<List, N>& lists, Fn&& fn) {
    for (const auto& l : lists)
      if (l.empty()) return;
    std::array<std::size_t, N> idx{};
    while (true) {
      fn(idx);
      std::size_t d = 0;
      for (; d < static_cast<std::size_t>(N); ++d) {
        if (++idx[d] < lists[d].size()) break;
        idx[d] = 0;
      }
      if (d == static_cast<std::size_t>(N)) return;
    }
  }

  void plan_my_part() {
    const ProcessGrid& sg = m_src.grid();
    const ProcessGrid& tg = m_dst.grid();
    const int me = sg.parent_rank();
    // Only the primary copy of a replicated source sends; every copy of the target receives, and a
    // process off a fixed coordinate holds nothing on that side.
    const int sp = sg.position_of_rank(me) >= 0 && m_src.is_primary(sg.position_of_rank(me))
                       ? sg.position_of_rank(me)
                       : -1;
    const int tp =
        tg.position_of_rank(me) >= 0 && m_dst.holds(tg.position_of_rank(me)) ? tg.position_of_rank(me) : -1;
    const int S = product_steps();
    if (sp >= 0) {
      m_my_src = dim_coords(m_src, sp);
      m_src_strides = fortran_strides<N>(m_src.local_extents(sp));
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
        m_runs_from[d] = periodic_runs_from(m_dims[d].src, m_dims[d].dst, m_my_src[d]);
    }
    if (tp >= 0) {
      m_my_dst = dim_coords(m_dst, tp);
      m_dst_strides = fortran_strides<N>(m_dst.local_extents(tp));
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
        m_runs_to[d] = periodic_runs_to(m_dims[d].src, m_dims[d].dst, m_my_dst[d]);
    }
    // This rank's messages: products of its per-dimension messages, with the step of the product
    // schedule (DESIGN.md: a 2-D message is the pair of a row and a column message).
    auto collect = [&](bool sending) {
      std::array<std::vector<std::pair<int, Message>>, N> lists;
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
        const auto all =
            sending ? m_dims[d].schedule.sends_of(m_my_src[d]) : m_dims[d].schedule.receives_of(m_my_dst[d]);
        for (const auto& e : all) {
          if (e.second.len <= 0) continue;
          // The schedule's lengths come from the closed forms of the pattern, the runs from cutting
          // blocks: they must agree, or data would be lost.
          const auto& runs = sending ? m_runs_from[d] : m_runs_to[d];
          const int peer = sending ? e.second.dst : e.second.src;
          detail::require(peer >= 0 && static_cast<std::size_t>(peer) < runs.size() &&
                              runs[static_cast<std::size_t>(peer)].elements == e.second.len,
                          "RedistributionPlan: internal error: dimension ", d, " schedules ", e.second.len,
                          " elements between ", e.second.src, " and ", e.second.dst,
                          " but the runs hold a different number");
          lists[d].push_back(e);
        }
      }
      std::vector<Msg> out;
      for_each_product(lists, [&](const std::array<std::size_t, N>& idx) {
        Msg m;
        std::array<int, N> k{};
        m.len = 1;
        for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
          const auto& [step, msg] = lists[d][idx[d]];
          k[d] = step;
          m.coords[d] = sending ? msg.dst : msg.src;
          m.len *= msg.len;
        }
        m.step = product_step(k);
        m.peer_pos = position_of(sending ? m_dst : m_src, m.coords);
        out.push_back(m);
      });
      std::sort(out.begin(), out.end(), [](const Msg& a, const Msg& b) { return a.step < b.step; });
      return out;
    };
    if (sp >= 0) {
      for (const Msg& m0 : collect(true)) {
        const std::vector<int> copies = m_dst.copies_of(m0.peer_pos);
        for (std::size_t k = 0; k < copies.size(); ++k) {
          Msg m = m0;
          m.peer_pos = copies[k];
          m.step += static_cast<int>(k) * S;
          if (tg.rank_at(m.peer_pos) == me) { // kept: copied locally, never sent to oneself
            m_self = m;
            m_self_elems = m.len;
            continue;
          }
          m_sends.push_back(m);
          m_send_elems += m.len;
        }
      }
      std::sort(m_sends.begin(), m_sends.end(), [](const Msg& a, const Msg& b) { return a.step < b.step; });
    }
    if (tp >= 0) {
      const int my_copy = m_dst.copy_index(tp);
      for (Msg m : collect(false)) {
        if (sg.rank_at(m.peer_pos) == me) continue; // the local copy, found on the sending side
        m.step += my_copy * S;
        m_recvs.push_back(m);
        m_recv_elems += m.len;
      }
    }
  }

  /// See storage_identical(): every dimension maps each index to the same process coordinate and local
  /// index in both layouts, and every rank that holds elements has the same coordinates in both grids.
  [[nodiscard]] bool compute_storage_identical() const {
    for (const auto& dp : m_dims) {
      const CyclicMap& a = dp.src;
      const CyclicMap& b = dp.dst;
      const bool same = a.regular() && b.regular() ? a.n == 0 || std::min(a.r, b.r) >= a.n ||
                                                         (a.P == 1 && b.P == 1) || (a.P == b.P && a.r == b.r)
                                                   : a.n == 0 || (a.P == 1 && b.P == 1) || a == b;
      if (!same) return false;
    }
    const ProcessGrid& sg = m_src.grid();
    const ProcessGrid& tg = m_dst.grid();
    for (int x = 0; x < sg.parent_size(); ++x) {
      const int sp = sg.position_of_rank(x);
      const int tp = tg.position_of_rank(x);
      index_t ns = 0;
      index_t nt = 0;
      if (sp >= 0) ns = product(m_src.local_extents(sp));
      if (tp >= 0) nt = product(m_dst.local_extents(tp));
      if (ns != nt) return false;
      if (ns == 0) continue;
      if (m_src.local_extents(sp) != m_dst.local_extents(tp) ||
          dim_coords(m_src, sp) != dim_coords(m_dst, tp))
        return false;
    }
    return true;
  }

  static index_t product(const Index<N>& e) {
    index_t n = 1;
    for (index_t x : e) n *= x;
    return n;
  }

  /// Per-dimension runs of a message this rank sends (Side::Src) or receives (Side::Dst).
  template <detail::Side side> std::array<const PeriodicRuns*, N> message_runs(const Msg& m) const {
    std::array<const PeriodicRuns*, N> runs{};
    for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
      runs[d] = side == detail::Side::Src ? &m_runs_from[d][static_cast<std::size_t>(m.coords[d])]
                                          : &m_runs_to[d][static_cast<std::size_t>(m.coords[d])];
    return runs;
  }

  [[nodiscard]] Schedule build_product() const {
    const int steps = product_steps();
    const int copies = m_dst.copies();
    std::vector<Step> out(static_cast<std::size_t>(steps) * static_cast<std::size_t>(copies));
    std::array<int, N> k{};
    for (int s = 0; s < steps; ++s) {
      int rest = s;
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
        k[d] = rest % m_dims[d].schedule.num_steps();
        rest /= m_dims[d].schedule.num_steps();
      }
      std::array<const std::vector<Message>*, N> lists{};
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
        lists[d] = &m_dims[d].schedule.steps()[static_cast<std::size_t>(k[d])].messages;
      std::array<std::vector<Message>, N> copies;
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) copies[d] = *lists[d];
      for_each_product(copies, [&](const std::array<std::size_t, N>& idx) {
        std::array<int, N> sc{};
        std::array<int, N> tc{};
        index_t len = 1;
        for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
          const Message& m = copies[d][idx[d]];
          sc[d] = m.src;
          tc[d] = m.dst;
          len *= m.len;
        }
        const std::vector<int> to = m_dst.copies_of(position_of(m_dst, tc));
        for (std::size_t c = 0; c < to.size(); ++c)
          out[static_cast<std::size_t>(s) + c * static_cast<std::size_t>(steps)].messages.push_back(
              {position_of(m_src, sc), to[c], len});
      });
    }
    return Schedule(m_src.grid().size(), m_dst.grid().size(), std::move(out));
  }

  Layout<N> m_src;
  Layout<N> m_dst;
  RedistOptions m_opt;
  ExecMode m_mode = ExecMode::StepSynchronous;
  std::array<detail::DimPlan, N> m_dims;
  std::array<int, N> m_my_src{};
  std::array<int, N> m_my_dst{};
  Index<N> m_src_strides{};
  Index<N> m_dst_strides{};
  std::array<std::vector<PeriodicRuns>, N> m_runs_from; // [d][target coordinate]
  std::array<std::vector<PeriodicRuns>, N> m_runs_to;   // [d][source coordinate]
  std::vector<Msg> m_sends;
  std::vector<Msg> m_recvs;
  std::optional<Msg> m_self;
  bool m_identical = false;
  Fusion m_fuse_sends = Fusion::None; // see fuses_sends()
  Fusion m_fuse_recvs = Fusion::None;
  bool m_kept_with_recvs = false; // see kept_with_recvs()
  index_t m_send_elems = 0;
  index_t m_recv_elems = 0;
  index_t m_self_elems = 0;
  // Built on first use: the product schedule is derived data (the same on every call), shared by copies.
  mutable std::shared_ptr<const Schedule> m_product;
};

/// Runs a RedistributionPlan: owns the requests and buffers of one execution at a time (the plan
/// shares nothing mutable, so any number of executors may run one plan, also at the same time).
/// The plan must outlive the executor. Collective like the plan's execute().
template <int N> class RedistributionExecutor {
public:
  /// Local. `tag` overrides the plan's options().tag (executions of one plan in flight at the same
  /// time whose wait() calls may come in different orders on different ranks need distinct tags).
  explicit RedistributionExecutor(const RedistributionPlan<N>& plan, std::optional<int> tag = std::nullopt)
      : m_plan(&plan), m_tag(tag.value_or(plan.options().tag)) {
    detail::require(tags::redist.contains(m_tag), "RedistributionExecutor: tag must be in [",
                    tags::redist.base, ", ", tags::redist.base + tags::redist.width, "), got ", m_tag);
    int cmp = MPI_UNEQUAL; // local: both grids must be built on one parent communicator
    HPF_MPI_CHECK(
        MPI_Comm_compare(plan.source().grid().comm().get(), plan.target().grid().comm().get(), &cmp));
    detail::require(cmp == MPI_IDENT || cmp == MPI_CONGRUENT, "RedistributionPlan: the source grid (",
                    plan.source().grid().size(), " ranks) and the target grid (", plan.target().grid().size(),
                    " ranks) are built on different parent communicators; expected one parent");
  }

  /// Moves an idle executor: its exchange, buffers and datatypes go to the new one, and `other`
  /// stays an idle executor of the same plan (its next post() builds its exchange again). Throws
  /// hpf::Error, and moves nothing, when either executor has a post() pending: MPI holds addresses
  /// inside a pending exchange, and its callbacks point at the executor that posted it.
  // NOLINTNEXTLINE(bugprone-exception-escape,performance-noexcept-move-constructor): refuses by design
  RedistributionExecutor(RedistributionExecutor&& other) : m_plan(other.m_plan), m_tag(other.m_tag) {
    *this = std::move(other);
  }
  /// Moves an idle executor (see the move constructor).
  // NOLINTNEXTLINE(bugprone-exception-escape,performance-noexcept-move-constructor): refuses by design
  RedistributionExecutor& operator=(RedistributionExecutor&& other) {
    if (this == &other) return *this;
    require_idle("moved to");
    other.require_idle("moved from");
    m_exchange.reset(); // before the datatypes it refers to
    m_plan = other.m_plan;
    m_tag = other.m_tag;
    m_kept_done = other.m_kept_done;
    m_copy_kept = other.m_copy_kept;
    m_src_now = other.m_src_now;
    m_dst_now = other.m_dst_now;
    m_elem_bytes = std::exchange(other.m_elem_bytes, 0);
    m_comm = other.m_comm;
    m_send_types = std::move(other.m_send_types);
    m_recv_types = std::move(other.m_recv_types);
    m_exchange = std::exchange(other.m_exchange, std::nullopt);
    other.m_send_types.clear();
    other.m_recv_types.clear();
    return *this;
  }
  RedistributionExecutor(const RedistributionExecutor&) = delete;
  RedistributionExecutor& operator=(const RedistributionExecutor&) = delete;
  ~RedistributionExecutor() = default;

  /// The plan this executor runs.
  [[nodiscard]] const RedistributionPlan<N>& plan() const noexcept { return *m_plan; }
  /// True between post() and the wait() that completes it.
  [[nodiscard]] bool pending() const noexcept {
    const Exchange* ex = current();
    return ex != nullptr && ex->posted();
  }

  /// Collective: post() then wait().
  template <class T> void execute(const T* src, T* dst) {
    post(src, dst);
    wait();
  }
  /// Collective: post() then wait(), array form.
  template <class SrcArray, class DstArray> void execute(const SrcArray& src, DstArray& dst) {
    post(src, dst);
    wait();
  }

  /// Split phase, array form: the plan's check_arrays, then post.
  template <class SrcArray, class DstArray>
  requires std::is_same_v<typename SrcArray::value_type, typename DstArray::value_type>
  void post(const SrcArray& src, DstArray& dst) {
    m_plan->check_arrays(src, dst);
    post(static_cast<const typename SrcArray::value_type*>(src.local_data()), dst.local_data());
  }

  /// Split phase (collective like execute): starts the exchange (every send for the all-at-once
  /// modes, the first step for the step modes) and copies the locally kept part (all at once, with
  /// the sends' pack when they fuse, and with the receives in wait() when the plan's
  /// kept_with_recvs()); the caller may compute on
  /// other data before wait() completes it. `src` must stay alive and unchanged and `dst` untouched until
  /// wait() returns. Throws hpf::Error if a post() is still pending.
  template <class T> void post(const T* src, T* dst) { start(src, dst); }

  /// The next post() runs on `comm`, a communicator congruent with the plan's grid communicator
  /// (DistArray::redistribute passes its own grid's: a cached plan may hold an equal grid's
  /// communicator). The exchange is built again when the communicator changes. Local.
  void bind(const Comm& comm) {
    detail::require(!pending(), "RedistributionExecutor::bind: a post() is pending");
    if (comm.get() == m_comm.get()) return;
    m_exchange.reset(); // held the old communicator, which stays alive until here: no handle reuse
    m_comm = comm;
  }

  /// Builds this executor's exchange for elements of type T and allocates its message buffers, as the
  /// next post() would: a failure (hpf::Error, out of memory) comes before any message. Local.
  template <class T> void prepare() { prepared<T>().reserve(); }

  /// The bytes of message buffers prepare<T>() allocates: the packed messages (all of them in the
  /// all-at-once modes, the largest each way in the step modes), not those that move in place.
  /// What RedistOptions::memory_ceiling_bytes bounds. Local; allocates no buffer.
  template <class T> [[nodiscard]] std::size_t buffer_bytes() { return prepared<T>().buffer_bytes(); }

  /// Completes post(). Throws hpf::Error when nothing was posted.
  void wait() {
    detail::require(pending(), "RedistributionExecutor::wait: nothing was posted");
    current()->wait();
    copy_kept(); // left to a pack_many, an unpack_many or an after-sends call that did not come
  }

  /// Messages this executor moves in place (MPI datatypes, no packing) since its last element size:
  /// those whose pieces are long enough (RedistOptions::in_place_min_piece_bytes).
  [[nodiscard]] std::size_t in_place_sends() const noexcept {
    const Exchange* ex = current();
    return ex != nullptr ? ex->in_place_sends() : 0;
  }
  /// Like in_place_sends(), for receives.
  [[nodiscard]] std::size_t in_place_recvs() const noexcept {
    const Exchange* ex = current();
    return ex != nullptr ? ex->in_place_recvs() : 0;
  }

private:
  void require_idle(const char* side) const {
    if (pending())
      detail::fail("RedistributionExecutor: the executor ", side,
                   " has a post() pending; expected wait() to complete it before the move");
  }

  template <class T> void start(const T* src, T* dst) {
    static_assert(std::is_trivially_copyable_v<T>, "RedistributionPlan: T must be trivially copyable");
    detail::require(!pending(),
                    "RedistributionExecutor::post: the previous post() has not been completed by wait()");
    Exchange& exchange = prepared<T>();
    const RedistributionPlan<N>* plan = m_plan;
    PackFn pack = [plan, src](std::size_t i, std::byte* buf) {
      plan->pack(i, src, reinterpret_cast<T*>(buf));
    };
    UnpackFn unpack = [plan, dst](std::size_t i, const std::byte* buf) {
      plan->unpack(i, reinterpret_cast<const T*>(buf), dst);
    };
    // All at once, a plan that fuses packs every message (and the locally kept part, with them) in
    // one pass and unpacks them in one when they are all in (RedistributionPlan::fuses_sends); other
    // plans and modes go message by message, each receive unpacked as it arrives. The callbacks
    // capture two pointers at most (no allocation per call); pack_many, called inside post() only,
    // reads this post's blocks from the executor, unpack_many (in wait()) holds its own.
    m_kept_done = false;
    m_src_now = src;
    m_dst_now = dst;
    if (m_plan->exec_mode() == ExecMode::AllAtOnce) {
      PackManyFn pack_many;
      UnpackManyFn unpack_many;
      if (m_plan->fuses_sends())
        pack_many = [this](std::span<const std::size_t> sends, std::span<std::byte* const> bufs) {
          // The kept part with the sends, in the same pass over the source block.
          m_plan->pack_many(sends, bufs, static_cast<const T*>(m_src_now),
                            m_kept_done ? nullptr : static_cast<T*>(m_dst_now));
          m_kept_done = true;
        };
      if (m_plan->fuses_recvs())
        unpack_many = [this](std::span<const std::size_t> recvs, std::span<const std::byte* const> bufs) {
          // The kept part with the receives when the plan puts it there (kept_with_recvs).
          const bool kept = m_plan->kept_with_recvs() && !m_kept_done;
          m_plan->unpack_many(recvs, bufs, static_cast<T*>(m_dst_now),
                              kept ? static_cast<const T*>(m_src_now) : nullptr);
          m_kept_done = m_kept_done || kept;
        };
      exchange.set_batch(std::move(pack_many), std::move(unpack_many));
    }
    // The kept part on its own, once the first sends have started (Exchange::set_after_sends), so
    // that it overlaps their transfer instead of delaying them.
    const bool after_sends = Exchange::calls_after_sends(m_plan->exec_mode());
    if (after_sends) {
      std::function<void()> after;
      if (!m_plan->fuses_sends() && !m_plan->kept_with_recvs()) after = [this] { copy_kept(); };
      exchange.set_after_sends(std::move(after));
    }
    m_copy_kept = [](const RedistributionPlan<N>& p, const void* s, void* d) {
      p.copy_local(static_cast<const T*>(s), static_cast<T*>(d));
    };
    exchange.post(std::move(pack), std::move(unpack), src, dst);
    // The locally kept part goes with the sends or the receives, in their one pass, or on its own once
    // the first sends have started (above; Alltoallv: here, after its collective); wait() copies it if
    // none of them did.
    if (!after_sends) copy_kept();
  }

  // The exchange for elements of type T, built on first use (its buffers: by prepare() or the first post()).
  template <class T> Exchange& prepared() {
    if (m_elem_bytes != sizeof(T)) { // the exchange holds the raw datatypes that build_datatypes replaces
      m_exchange.reset();
      m_elem_bytes = sizeof(T);
      build_datatypes();
    }
    if (!m_exchange) {
      if (m_comm.is_null()) m_comm = m_plan->source().grid().comm();
      Exchange ex(m_comm, m_plan->exchange_plan(sizeof(T)), m_plan->exec_mode(), m_tag);
      if (!m_send_types.empty() || !m_recv_types.empty())
        ex.set_in_place(raw_handles(m_send_types), raw_handles(m_recv_types));
      m_exchange.emplace(std::move(ex));
    }
    return *m_exchange; // its buffers: allocated by prepare() or by the first post()
  }

  // This post()'s locally kept part, unless it was copied already.
  void copy_kept() {
    if (m_kept_done) return;
    m_copy_kept(*m_plan, m_src_now, m_dst_now);
    m_kept_done = true;
  }

  /// Builds the datatypes of the messages whose pieces are long enough to move in place, for the
  /// exchange to move them with (null for the others).
  void build_datatypes() {
    m_send_types.clear();
    m_recv_types.clear();
    if (m_plan->exec_mode() == ExecMode::Alltoallv) return; // one packed buffer
    for (std::size_t i = 0; i < m_plan->num_sends(); ++i)
      m_send_types.push_back(m_plan->template message_datatype<detail::Side::Src>(i, m_elem_bytes));
    for (std::size_t i = 0; i < m_plan->num_recvs(); ++i)
      m_recv_types.push_back(m_plan->template message_datatype<detail::Side::Dst>(i, m_elem_bytes));
  }

  // The exchange of the last post() (null before the first).
  [[nodiscard]] Exchange* current() noexcept { return m_exchange ? &*m_exchange : nullptr; }
  [[nodiscard]] const Exchange* current() const noexcept { return m_exchange ? &*m_exchange : nullptr; }

  const RedistributionPlan<N>* m_plan;
  int m_tag;
  // This post()'s kept part is copied (by pack_many, start(), unpack_many or wait()).
  bool m_kept_done = false;
  // copy_local for this post()'s element type (wait() is not a template).
  void (*m_copy_kept)(const RedistributionPlan<N>&, const void*, void*) = nullptr;
  const void* m_src_now = nullptr; // this post()'s blocks, for the batch callbacks
  void* m_dst_now = nullptr;
  std::size_t m_elem_bytes = 0;
  // Declared before the exchanges, so that they outlive them.
  std::vector<Datatype> m_send_types;
  std::vector<Datatype> m_recv_types;
  Comm m_comm; // what the exchange runs on: bind()'s, else the plan's grid communicator
  std::optional<Exchange> m_exchange; // on m_comm, made by the first post()
};

/// Runs a RedistributionPlan under a memory ceiling (RedistOptions::memory_ceiling_bytes;
/// docs/redistribute.md, "A memory ceiling"): every message is cut along its outermost dimension into
/// chunks of at most chunk_bytes(ceiling), and the chunks run step by step in the plan's schedule
/// order (step s's chunk c after step s's chunk c - 1), with one send and one receive buffer. A step
/// of the schedule is a partial permutation of the ranks, so its chunks are too, and both ends of a
/// message cut it alike (from its shape and the ceiling, which they share).
template <int N> class ChunkedRedistribution {
public:
  /// The largest chunk whose buffer, as allocate_large takes it (detail::allocation_bytes), is at most
  /// half of `ceiling`: the send and the receive buffer together stay under it.
  [[nodiscard]] static std::size_t chunk_bytes(std::size_t ceiling) noexcept {
    std::size_t b = ceiling / 2;
    if (detail::allocation_bytes(b) > b) {
      const std::size_t unit =
          b >= detail::huge_page_bytes ? detail::huge_page_bytes : detail::pool_unit_bytes;
      b = b / unit * unit;
    }
    return b;
  }
  /// True when each message of this rank can be cut into chunks of at most chunk_bytes(ceiling): one
  /// index of its outermost dimension, with all the elements below it, fits. Local.
  [[nodiscard]] static bool fits(const RedistributionPlan<N>& plan, std::size_t elem_bytes,
                                 std::size_t ceiling) {
    const double most = static_cast<double>(chunk_bytes(ceiling));
    for (const bool send : {true, false})
      for (std::size_t i = 0; i < (send ? plan.num_sends() : plan.num_recvs()); ++i)
        if (static_cast<double>(plan.message_shape(send, i).second) * static_cast<double>(elem_bytes) > most)
          return false;
    return true;
  }

  /// Cuts the messages and builds the exchange on `comm` (a communicator congruent with the plan's
  /// grid communicator), with its two buffers allocated. Local; throws hpf::Error (out of memory, or a
  /// message that does not fit: see fits()) before any message.
  ChunkedRedistribution(const RedistributionPlan<N>& plan, const Comm& comm, std::size_t elem_bytes,
                        std::size_t ceiling)
      : m_plan(&plan) {
    const std::size_t most = chunk_bytes(ceiling);
    detail::require(fits(plan, elem_bytes, ceiling), "ChunkedRedistribution: a message has more than ", most,
                    " bytes per index of its outermost dimension; expected a move in pieces");
    const ExchangePlan whole = plan.exchange_plan(elem_bytes);
    // Each message's chunks, keyed (schedule step, chunk): the order every rank runs them in.
    std::vector<std::pair<int, index_t>> keys;
    const auto cut = [&](bool send, std::vector<Chunk>& out) {
      for (std::size_t i = 0; i < (send ? plan.num_sends() : plan.num_recvs()); ++i) {
        const auto [outer, inner] = plan.message_shape(send, i);
        if (outer == 0 || inner == 0) continue;
        const index_t per =
            std::max<index_t>(1, static_cast<index_t>(most / (static_cast<std::size_t>(inner) * elem_bytes)));
        for (index_t e0 = 0, c = 0; e0 < outer; e0 += per, ++c) {
          out.push_back({i, e0, std::min(outer, e0 + per), plan.message_step(send, i), c, inner});
          keys.emplace_back(out.back().step, c);
        }
      }
    };
    cut(true, m_sends);
    cut(false, m_recvs);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    const auto step_of = [&](const Chunk& k) {
      return static_cast<int>(std::lower_bound(keys.begin(), keys.end(), std::pair{k.step, k.chunk}) -
                              keys.begin());
    };
    ExchangePlan xp;
    for (const Chunk& k : m_sends)
      xp.sends.push_back({whole.sends[k.msg].peer,
                          static_cast<std::size_t>((k.e1 - k.e0) * k.inner) * elem_bytes, step_of(k)});
    for (const Chunk& k : m_recvs)
      xp.recvs.push_back({whole.recvs[k.msg].peer,
                          static_cast<std::size_t>((k.e1 - k.e0) * k.inner) * elem_bytes, step_of(k)});
    m_exchange.emplace(comm, std::move(xp), ExecMode::StepSynchronous, plan.options().tag);
    m_exchange->reserve();
  }

  /// Collective like RedistributionPlan::execute: moves `src` (laid out by the plan's source) into
  /// `dst`, chunk by chunk, and the locally kept part directly.
  template <class T> void execute(const T* src, T* dst) {
    const RedistributionPlan<N>& plan = *m_plan;
    plan.copy_local(src, dst);
    m_exchange->execute(
        [&](std::size_t j, std::byte* buf) {
          const Chunk& k = m_sends[j];
          plan.pack_range(k.msg, k.e0, k.e1, src, reinterpret_cast<T*>(buf));
        },
        [&](std::size_t j, const std::byte* buf) {
          const Chunk& k = m_recvs[j];
          plan.unpack_range(k.msg, k.e0, k.e1, reinterpret_cast<const T*>(buf), dst);
        });
  }

  /// The bytes of the two buffers (Exchange::buffer_bytes).
  [[nodiscard]] std::size_t buffer_bytes() const noexcept { return m_exchange->buffer_bytes(); }

private:
  struct Chunk {
    std::size_t msg = 0; ///< the send or receive of the plan
    index_t e0 = 0;      ///< its outermost-dimension elements [e0, e1)
    index_t e1 = 0;
    int step = 0;      ///< the message's schedule step
    index_t chunk = 0; ///< which chunk of the message
    index_t inner = 1; ///< elements per outermost index
  };
  const RedistributionPlan<N>* m_plan;
  std::vector<Chunk> m_sends;
  std::vector<Chunk> m_recvs;
  std::optional<Exchange> m_exchange;
};

/// Collective like RedistributionPlan::execute, in one block (an in-place REDISTRIBUTE): `block` holds
/// this rank's block of the plan's source on entry and of its target on return, which must have the
/// same number of elements on this rank. Every send is packed first (the only buffer: this rank's
/// send bytes), then the kept part moves within the block (move_kept_in_place), then the receives
/// land in the block through MPI datatypes, with no receive buffer where a datatype can describe them.
/// Runs on `comm`, congruent with the plan's grid communicator. Throws hpf::Error (out of memory)
/// before any message; the caller agrees on it.
template <int N> class InPlaceRedistribution {
public:
  /// Local: the staging of the sends (allocated), their datatypes over it, and the receives' datatypes.
  InPlaceRedistribution(const RedistributionPlan<N>& plan, const Comm& comm, std::size_t elem_bytes)
      : m_plan(&plan), m_staging(static_cast<std::size_t>(plan.send_elements()) * elem_bytes) {
    ExchangePlan xp = plan.exchange_plan(elem_bytes);
    std::size_t at = 0;
    for (const Transfer& t : xp.sends) {
      m_offsets.push_back(at);
      at += t.bytes;
    }
    // A send is a byte range of the staging: in place when MPI can address it in one datatype.
    for (std::size_t i = 0; i < xp.sends.size(); ++i) {
      Datatype type;
      if (xp.sends[i].bytes <= static_cast<std::size_t>(INT_MAX) && xp.sends[i].bytes > 0) {
        MPI_Datatype raw = MPI_DATATYPE_NULL;
        const int len = static_cast<int>(xp.sends[i].bytes);
        const auto disp = static_cast<MPI_Aint>(m_offsets[i]);
        HPF_MPI_CHECK(MPI_Type_create_hindexed(1, &len, &disp, MPI_BYTE, &raw));
        type = detail::committed(Datatype(raw));
      }
      m_send_types.push_back(std::move(type));
    }
    // Every receive that a datatype can describe lands in the block, however short its pieces.
    for (std::size_t i = 0; i < plan.num_recvs(); ++i)
      m_recv_types.push_back(
          plan.template message_datatype<detail::Side::Dst>(i, elem_bytes, std::size_t{0}));
    m_exchange.emplace(comm, std::move(xp), ExecMode::AllAtOnce, plan.options().tag);
    m_exchange->set_in_place(raw_handles(m_send_types), raw_handles(m_recv_types));
    m_exchange->reserve();
  }

  /// Collective: the move (see the class comment).
  template <class T> void execute(T* block) {
    const RedistributionPlan<N>& plan = *m_plan;
    for (std::size_t i = 0; i < plan.num_sends(); ++i)
      plan.pack(i, static_cast<const T*>(block), reinterpret_cast<T*>(m_staging.data() + m_offsets[i]));
    plan.move_kept_in_place(block);
    m_exchange->post(
        [&](std::size_t i, std::byte* buf) { // a send too long for one datatype
          std::memcpy(buf, m_staging.data() + m_offsets[i], m_exchange->plan().sends[i].bytes);
        },
        [&](std::size_t i, const std::byte* buf) { plan.unpack(i, reinterpret_cast<const T*>(buf), block); },
        m_staging.data(), block);
    m_exchange->wait();
  }

  /// The bytes this move allocates: the staging of the sends and the exchange's buffers.
  [[nodiscard]] std::size_t extra_bytes() const noexcept {
    return detail::allocation_bytes(m_staging.size()) + m_exchange->buffer_bytes();
  }

private:
  const RedistributionPlan<N>* m_plan;
  detail::ByteBuffer m_staging;
  std::vector<std::size_t> m_offsets;
  std::vector<Datatype> m_send_types; // declared before the exchange, which refers to them
  std::vector<Datatype> m_recv_types;
  std::optional<Exchange> m_exchange;
};

template <int N> template <class T> void RedistributionPlan<N>::execute(const T* src, T* dst) const {
  RedistributionExecutor<N>(*this).execute(src, dst);
}

} // namespace hpf
