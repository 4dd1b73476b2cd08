// hpf::TreeReducer: runs a reduction tree of Canon and Antoniu over MPI.
//
// Plan once, execute many times: the constructor plans the tree for the communicator's size and the
// costs (d, c) -- the same tree on every rank, no broadcast -- and reduce() follows it. The operator
// may be any callable and need not be commutative: the tree is in rank order (Lemma 1 of Canon and Antoniu),
// so the result on the root is the left-to-right fold x_0 * x_1 * ... * x_{size-1}.
//
// One engine (DESIGN.md): the tree's transfers are an hpf::Schedule (tree_schedule) run by
// hpf::Exchange in ExecMode::Pipelined; unpack combines an input into the accumulator, pack copies
// the accumulator. Overlap as in the model (Section 3.1): the receive window is 1 receive in flight,
// so the next input's receive is posted as soon as the current one has arrived, and it travels while
// the current one is combined; two inputs never share the receiver's link (one-port). Inputs are unpacked one
// at a time, in the planned order (one-port). MPI libraries without an asynchronous progress thread move a
// message larger than the eager limit only while the receiver calls into MPI, so buffer reductions combine in
// chunks of progress_chunk_bytes and call drive_progress between chunks.
//
// The executor follows the tree and the receive order, not the planned clock: a rank sends as soon as
// its partial result is ready. Algorithm 2's limit of K concurrent transfers (which it reaches by
// delaying transfers) therefore holds in the plan, not necessarily at run time.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/core/stats.hpp>
#include <hpf/core/tags.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/reduce/tree.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

namespace hpf {

namespace detail {
/// Message tag of the tree reducer on its own (duplicated) communicator.
inline constexpr int tag_tree_reduce = tags::reduce.base;

/// Collective over `comm`: the largest of every rank's `value`, on every rank.
double allreduce_max(MPI_Comm comm, double value);
} // namespace detail

/// Collective over `comm`: the transfer cost d of a message of `bytes` bytes, in seconds: half the
/// median round trip of `repeats` ping-pongs between ranks 0 and 1 (hpf::ping_pong, exec/model),
/// broadcast from rank 0 so that it is the same value on every rank (0 on a single rank).
double measure_transfer_cost(MPI_Comm comm, std::size_t bytes, int repeats = 21);

/// Collective over `comm`: the computation cost c, in seconds: the median time of `repeats` calls of
/// `call()` on each rank, the largest over ranks (so that every rank plans with the same c).
template <class F> double measure_compute_cost(MPI_Comm comm, F&& call, int repeats = 21) {
  detail::require(repeats >= 1, "measure_compute_cost: repeats must be >= 1, got ", repeats);
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(repeats));
  for (int r = 0; r < repeats; ++r) {
    // MPI_Wtime, not std::chrono: under SimGrid SMPI it is the simulated clock.
    const double t0 = MPI_Wtime();
    call();
    t.push_back(MPI_Wtime() - t0);
  }
  return detail::allreduce_max(comm, median(std::move(t)));
}

/// Runs a planned reduction tree over MPI (see the top of this header and docs/reduce.md): plan once
/// in the constructor, reduce() many times.
class TreeReducer {
public:
  /// Collective over `comm`: duplicates it and plans the tree of `opts.strategy` for its size and
  /// `costs`, with the result on opts.root. Throws hpf::Error on every rank for negative or
  /// non-finite costs, K < 1 with a limited strategy, or a root outside the communicator.
  TreeReducer(MPI_Comm comm, ReduceCosts costs, const TreeOptions& opts = {});

  /// Collective over `comm`: a reducer that runs a tree planned elsewhere (e.g. in_rank_order of an
  /// evaluated parent array). Throws hpf::Error on every rank unless the tree has one machine per
  /// rank, its root is a rank, and it passes check_rank_order.
  static TreeReducer from_tree(MPI_Comm comm, ReductionTree tree);

  /// Collective over `comm`: measures d (measure_transfer_cost of `bytes`) and c (the time of
  /// `op_call()`), then plans as the constructor does.
  template <class F>
  static TreeReducer measured(MPI_Comm comm, std::size_t bytes, F&& op_call, const TreeOptions& opts = {}) {
    const double d = measure_transfer_cost(comm, bytes);
    const double c = measure_compute_cost(comm, op_call);
    return TreeReducer(comm, ReduceCosts{d, c}, opts);
  }

  /// The planned tree (the same on every rank).
  [[nodiscard]] const ReductionTree& tree() const noexcept { return m_tree; }
  /// The reducer's own duplicate of the communicator.
  [[nodiscard]] const Comm& comm() const noexcept { return m_comm; }
  /// The rank that gets the result.
  [[nodiscard]] int root() const noexcept { return m_tree.root; }
  /// Number of ranks.
  [[nodiscard]] int size() const noexcept { return m_tree.size(); }
  /// The calling rank.
  [[nodiscard]] int rank() const noexcept { return m_rank; }

  /// Collective over the communicator: reduces one value per rank with op(left, right) -> T in rank
  /// order. The result is on root() (std::nullopt on the other ranks). T must be trivially copyable.
  template <class T, class Op> [[nodiscard]] std::optional<T> reduce(const T& value, Op op) const {
    static_assert(std::is_trivially_copyable_v<T>, "TreeReducer::reduce: T must be trivially copyable");
    T acc = value;
    run<T>(std::span<T>(&acc, 1), [&](bool input_is_left, const T* in, T* a, std::size_t /*count 1*/) {
      *a = input_is_left ? static_cast<T>(op(*in, *a)) : static_cast<T>(op(*a, *in));
    });
    if (m_rank != m_tree.root) return std::nullopt;
    return acc;
  }

  /// Collective over the communicator: element-wise reduction of `in` (the same number of elements on
  /// every rank, possibly none) with op(left, right) -> T in rank order; the result is written to
  /// `out` on root() (`out` is not touched elsewhere and may be empty there). On the root `out` may
  /// be `in` itself (in place, like MPI_IN_PLACE) but must not otherwise overlap it. Throws
  /// hpf::Error if `out` on the root is smaller than `in`.
  template <class T, class Op> void reduce(std::span<const T> in, std::span<T> out, Op op) const {
    static_assert(std::is_trivially_copyable_v<T>, "TreeReducer::reduce: T must be trivially copyable");
    detail::require(m_rank != m_tree.root || out.size() >= in.size(),
                    "TreeReducer::reduce: the output on root ", m_tree.root, " holds ", out.size(),
                    " elements; expected at least ", in.size());
    // The root accumulates in `out` directly; the others in a buffer that is never zero-filled.
    const std::size_t count = in.size();
    std::unique_ptr<T[]> own;
    T* acc = out.data();
    if (m_rank != m_tree.root) {
      own = std::make_unique_for_overwrite<T[]>(count);
      acc = own.get();
    }
    if (acc != in.data()) std::copy(in.begin(), in.end(), acc); // in place on the root otherwise
    run<T>(std::span<T>(acc, count), [&](bool input_is_left, const T* x, T* a, std::size_t m) {
      if (input_is_left)
        for (std::size_t i = 0; i < m; ++i) a[i] = static_cast<T>(op(x[i], a[i]));
      else
        for (std::size_t i = 0; i < m; ++i) a[i] = static_cast<T>(op(a[i], x[i]));
    });
  }

  /// Bytes of a buffer combined between two calls into MPI's progress engine.
  static constexpr std::size_t progress_chunk_bytes = 16384;

private:
  TreeReducer() = default;

  /// The plan of this rank: its part of tree_schedule(m_tree), one byte per message (run() scales it).
  void make_plan();

  /// Runs this rank's part of the tree schedule through the Pipelined Exchange: each input is
  /// combined into `acc` in planned order, chunk by chunk (`combine(input_is_left, x, a, m)` combines
  /// m elements), with the next input's receive in flight meanwhile (window 1); then `acc` is sent to
  /// the parent, or from the sink to the root when the sink forwards (the root then copies it).
  template <class T, class Combine> void run(std::span<T> acc, Combine combine) const {
    const std::size_t bytes = acc.size() * sizeof(T);
    if (bytes == 0) return; // every message would be empty: exchange_plan drops them on every rank
    ExchangePlan plan = m_plan;
    for (Transfer& t : plan.sends) t.bytes = bytes;
    for (Transfer& t : plan.recvs) t.bytes = bytes;
    const std::size_t nr = plan.recvs.size();
    Exchange ex(m_comm, std::move(plan), ExecMode::Pipelined, detail::tag_tree_reduce);
    // The next input arrives while this one is combined (Canon and Antoniu, Section 3.1).
    ex.set_receive_window(1);
    // The received bytes are copied chunk by chunk into properly typed, aligned scratch elements
    // before combining (an L1-sized copy; reading T out of a byte buffer in place is not portable).
    const std::size_t chunk = std::max<std::size_t>(1, progress_chunk_bytes / sizeof(T));
    const std::size_t count = acc.size();
    std::unique_ptr<T[]> scratch;
    if (nr > 0) scratch = std::make_unique_for_overwrite<T[]>(std::min(chunk, count));
    const auto pack = [&](std::size_t, std::byte* buf) { std::memcpy(buf, acc.data(), bytes); };
    const auto unpack = [&](std::size_t i, const std::byte* buf) {
      const int peer = m_plan.recvs[i].peer;
      if (m_recv_forward[i] != 0) { // the result, forwarded by the sink to the root
        std::memcpy(acc.data(), buf, bytes);
        return;
      }
      for (std::size_t lo = 0; lo < count; lo += chunk) {
        const std::size_t m = std::min(count - lo, chunk);
        std::memcpy(scratch.get(), buf + lo * sizeof(T), m * sizeof(T));
        combine(peer < m_rank, scratch.get(), acc.data() + lo, m);
        // Let MPI move the prefetched input meanwhile; Exchange::test() must not be re-entered here.
        if (lo + m < count || i + 1 < nr) drive_progress(m_comm);
      }
    };
    ex.execute(pack, unpack);
  }

  Comm m_comm;
  ReductionTree m_tree;
  int m_rank = 0;
  ExchangePlan m_plan;
  std::vector<char> m_recv_forward; ///< per receive of m_plan: the forwarded result, not an input
};

} // namespace hpf
