// The MPI side of adaptive/: pLogP from the one machine model, cluster discovery, and
// hpf::AdaptiveBroadcast, which runs a broadcast plan (an algorithm of Table 1 of Steffenel, or a
// two-level plan over clusters) as hpf::Schedule steps through the one executor, hpf::Exchange
// (ExecMode::Pipelined; ExecMode::Handshake for the rendez-vous variants). No send loop of its own.
//
//   hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
//   auto bcast = hpf::AdaptiveBroadcast::measured(comm, bytes);  // collective once: measure, choose
//   bcast.execute(std::span<std::byte>(buf), root);              // collective, many times
//
// Plans are built locally from the same inputs on every rank, so constructing an AdaptiveBroadcast
// never communicates (except measured(), which measures first).
#pragma once

#include <hpf/adaptive/broadcast_model.hpp>
#include <hpf/adaptive/hierarchical.hpp>
#include <hpf/adaptive/plogp.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/exec/exchange.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

namespace hpf {

namespace detail {
/// The calling rank's part of one broadcast schedule, ready to run many times: the exchange (which
/// keeps its message buffers, so a repeated run allocates nothing) and the bytes of `data` each of
/// its messages carries. Default-constructed, or for a rank without messages, run() does nothing.
class BcastRun {
public:
  BcastRun() = default;
  /// Local: `schedule` is over ranks[0..n-1] of comm, `me` this rank's index in `ranks`, message i
  /// of step k carries pieces[k][i].
  BcastRun(const Comm& comm, const std::vector<int>& ranks, int me, const Schedule& schedule,
           const std::vector<std::vector<BcastPiece>>& pieces, ExecMode mode, int tag);
  /// Collective over the ranks of the schedule: pack copies a piece out of `data` (the root's bytes
  /// or a forwarded segment), unpack stores a received piece into it.
  void run(std::span<std::byte> data);

private:
  std::optional<Exchange> m_exchange;
  std::vector<BcastPiece> m_out, m_in;
};
} // namespace detail

/// Collective over `comm` on its first call for that communicator: the pLogP part of the one machine
/// model, hpf::machine_model(comm).plogp (exec/model.hpp: measured between ranks 0 and 1 at 0 B,
/// 1 KiB, 32 KiB and 1 MiB by the one ping-pong kernel, or loaded from HPF_MACHINE_MODEL; cached as
/// an MPI attribute on the communicator, so later calls and duplicates do not communicate).
PLogP measure_plogp(const Comm& comm);

/// Collective over `comm`: the paper's automatic discovery (Section 4.1). Measures the latency (half
/// round trip of empty messages, median of 11, hpf::ping_pong) of every pair of ranks in P-1 rounds
/// of disjoint pairs, partitions the ranks with lowekamp_clusters(latencies, P, rho), then measures
/// the machine model (hpf::measure_machine_model) once inside each cluster (between its two lowest
/// ranks) and once per pair of clusters (between their lowest ranks, taken as symmetric):
/// C + C(C-1)/2 measurements. Every rank returns the same map. Not cached.
/// Throws hpf::Error (on every rank) unless rho is finite and >= 0.
ClusterMap discover_clusters(const Comm& comm, double rho = 0.3);

/// How an AdaptiveBroadcast lets measured times correct its model's choice (natively never
/// slower than MPI_Bcast). MPI_Bcast is the extra candidate. On the first execute() for a (root,
/// bytes), every rank times `rounds` runs of the plan and `rounds` of MPI_Bcast, interleaved, each
/// after a barrier, on the caller's buffer (every run broadcasts the root's bytes, so the buffer ends
/// as one execute() leaves it), alternating which of the two runs first; one MPI_Allreduce (MPI_MAX)
/// makes every timing the slowest rank's, and detail::decide_bcast keeps the plan only when its median
/// is below (1 - margin) times MPI_Bcast's: a plan measured about as fast as MPI_Bcast does not
/// replace it, since timings of a few rounds are noisy and the goal is never to be slower. The same numbers
/// on every rank give the same decision. Later calls for that (root, bytes) run the winner without measuring.
/// Bounded: 2 * rounds broadcasts, 2 * rounds barriers and one allreduce per (root, bytes) entry of the
/// prepared cache (at most 8 entries; an evicted one is measured again).
struct BcastCalibration {
  bool enabled = false; ///< measure the plan against MPI_Bcast on the first execute() of each (root, bytes)
  int rounds = 9;       ///< in [1, 64]
  double margin = 0.05; ///< in [0, 1): how much faster the plan must measure to be kept
};

/// What execute() runs for one (root, bytes), and the agreed medians that decided it.
struct BcastDecision {
  bool vendor = false;       ///< MPI_Bcast was measured faster than the plan
  bool measured = false;     ///< false: no calibration ran (disabled, one rank, or 0 bytes)
  double plan_seconds = 0;   ///< median over rounds of the slowest rank's time of the plan
  double vendor_seconds = 0; ///< the same for MPI_Bcast
};

namespace detail {
/// Pure: the decision from agreed timings of the same number (>= 1) of rounds each. The plan is kept
/// only when its median is strictly below (1 - margin) times MPI_Bcast's. Throws hpf::Error on empty
/// or unequal counts, or a margin outside [0, 1).
BcastDecision decide_bcast(std::span<const double> plan, std::span<const double> vendor, double margin);
} // namespace detail

/// A broadcast plan bound to a communicator. Cheap to copy; execute() may be called many times.
class AdaptiveBroadcast {
public:
  /// Local: runs algorithm `a` of Table 1 over all ranks of `comm` with segments of `segment` bytes
  /// (used by the segmented variants only). Throws hpf::Error unless segment >= 1.
  AdaptiveBroadcast(Comm comm, BcastAlgorithm a, std::size_t segment);
  /// Local: the best algorithm and segment of choose_bcast(comm.size(), m, model); with
  /// calibration enabled, MPI_Bcast is a candidate measured against it (BcastCalibration).
  static AdaptiveBroadcast plan(Comm comm, std::size_t m, const PLogP& model,
                                BcastCalibration calibration = {});
  /// Collective over `comm`: measure_plogp(comm), then plan(comm, m, model, calibration): by default
  /// calibrated, so that natively it is never measured slower than MPI_Bcast.
  static AdaptiveBroadcast measured(Comm comm, std::size_t m,
                                    BcastCalibration calibration = BcastCalibration{true});
  /// Local: a broadcast that always runs the vendor's MPI_Bcast (the candidate calibration measures
  /// against the plan), behind the same interface.
  static AdaptiveBroadcast vendor(Comm comm);
  /// Local: this plan with another calibration policy (decisions already made are kept). Throws
  /// hpf::Error unless calibration.rounds is in [1, 64] and calibration.margin in [0, 1).
  [[nodiscard]] AdaptiveBroadcast with_calibration(BcastCalibration calibration) const;
  /// Local: a two-level plan (plan_hierarchical); its P must be comm.size() and execute() must use
  /// the plan's root. Throws hpf::Error otherwise.
  AdaptiveBroadcast(Comm comm, HierarchicalPlan plan);

  /// Collective over the communicator: every rank passes a buffer of the same size; afterwards every
  /// buffer holds root's bytes. Throws hpf::Error unless root is a rank of the communicator (and the
  /// plan's root for a two-level plan).
  void execute(std::span<std::byte> data, int root) const;
  /// Same on a vector of trivially copyable elements (the same size on every rank).
  template <class T> void execute(std::vector<T>& v, int root) const {
    static_assert(std::is_trivially_copyable_v<T>, "AdaptiveBroadcast: T must be trivially copyable");
    execute(std::as_writable_bytes(std::span<T>(v)), root);
  }

  /// The model's algorithm (not what a calibration decided: see decision()).
  [[nodiscard]] BcastAlgorithm algorithm() const noexcept { return m_algorithm; }
  /// True for vendor(): every execute() calls MPI_Bcast.
  [[nodiscard]] bool vendor_only() const noexcept { return m_vendor_only; }
  /// Bytes per segment of the segmented algorithms.
  [[nodiscard]] std::size_t segment() const noexcept { return m_segment; }
  /// True for a two-level plan.
  [[nodiscard]] bool hierarchical() const noexcept { return m_hier; }
  /// The two-level plan (meaningful when hierarchical()).
  [[nodiscard]] const HierarchicalPlan& hierarchical_plan() const noexcept { return m_plan; }
  /// The communicator the broadcast runs on.
  [[nodiscard]] const Comm& comm() const noexcept { return m_comm; }
  /// The calibration policy.
  [[nodiscard]] BcastCalibration calibration() const noexcept { return m_calibration; }
  /// Local: what execute() decided for (bytes, root), if it has run for them (and the entry is still
  /// cached). The same on every rank.
  [[nodiscard]] std::optional<BcastDecision> decision(std::size_t bytes, int root) const;

private:
  std::vector<detail::BcastRun> prepare(std::size_t bytes, int root) const;
  BcastDecision calibrate(std::vector<detail::BcastRun>& runs, std::span<std::byte> data, int root) const;

  Comm m_comm;
  BcastAlgorithm m_algorithm = BcastAlgorithm::binomial;
  std::size_t m_segment = 1;
  bool m_hier = false;
  HierarchicalPlan m_plan;
  BcastCalibration m_calibration;
  bool m_vendor_only = false;
  /// Per (root, bytes): this rank's prepared runs (the inter-cluster one of a coordinator, then the
  /// one of its group). Built by the first execute() for that pair and reused (plan once, run many
  /// times); shared by copies. At most k_prepared entries, the oldest dropped first.
  struct Prepared {
    int root = 0;
    std::size_t bytes = 0;
    std::vector<detail::BcastRun> runs;
    BcastDecision decision;
  };
  static constexpr std::size_t k_prepared = 8;
  std::shared_ptr<std::vector<Prepared>> m_prepared = std::make_shared<std::vector<Prepared>>();
};

namespace detail {
/// Collective over the ranks of `group` (ranks of comm; group[0] is the root, which holds the data):
/// broadcasts `data` with algorithm `a` and segments of `segment` bytes: bcast_schedule() run by
/// hpf::Exchange, using tags tag and tag + 1.
void bcast_group(const Comm& comm, std::span<const int> group, BcastAlgorithm a, std::size_t segment,
                 std::span<std::byte> data, int tag);
/// Local: the calling rank's prepared part of bcast_group for `bytes` bytes (run() it with the data).
BcastRun bcast_group_run(const Comm& comm, std::span<const int> group, BcastAlgorithm a, std::size_t segment,
                         std::size_t bytes, int tag);
} // namespace detail

} // namespace hpf
