// The machine model of hpfrt: one module, one ping-pong kernel, one median.
//
// Everything that chooses by cost -- Strategy::Auto of REDISTRIBUTE (alpha, beta), the broadcast
// models of Steffenel (pLogP), the transfer cost d of Canon and Antoniu's reduction trees -- reads
// the model from here or measures with ping_pong(). Plans take the model as input, so no plan
// constructor communicates.
//
// Where the model of a communicator comes from (machine_model(comm)), in this order:
//   1. the model cached on the communicator as an MPI attribute (keyval; never keyed by handle
//      value, which MPI reuses after MPI_Comm_free, differently on each rank). MPI_Comm_dup copies
//      it, so a ProcessGrid built on MPI_COMM_WORLD, or on any communicator that has one, inherits it;
//   2. otherwise a collective measurement over the communicator, then cached on it.
// hpf::Environment gives MPI_COMM_WORLD its model once per process: it loads the JSON file named by
// the environment variable HPF_MACHINE_MODEL when set (every rank reads the same file), or measures.
// Every rank of a communicator takes the same branch: the attribute is set on all of its ranks by
// the same collective calls, and copied by MPI_Comm_dup on all of them.
#pragma once

#include <hpf/core/mpi.hpp>
#include <hpf/exec/plogp.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace hpf {

/// The cache sizes of a model that gives none (a machine whose operating system does not say).
inline constexpr std::size_t default_cache_bytes = std::size_t{1} << 20U;
inline constexpr std::size_t default_shared_cache_bytes = std::size_t{32} << 20U;

/// The costs of the machine that plans choose by, the same on every rank of a communicator (see the
/// header comment).
struct MachineModel {
  double alpha = 0; ///< seconds per message (start-up): half the round trip of an empty message
  double beta = 0;  ///< seconds per byte: from the half round trip of a 1 MiB message
  /// pLogP parameters, for the broadcast models (zero by default).
  PLogP plogp = PLogP(0, {PLogPSample{}});
  /// Bytes of the cache private to one core (L2): a block that fits moves message by message as fast
  /// as in one pass (RedistOptions::cache_bytes).
  std::size_t cache_bytes = default_cache_bytes;
  /// Bytes of the last-level cache shared by the cores: writes into a target block of more than half
  /// of it go by non-temporal stores (detail::stream_store_min_bytes).
  std::size_t shared_cache_bytes = default_shared_cache_bytes;

  /// A fixed model (alpha 2 us, beta 0.1 ns/B, i.e. 10 GB/s), the same on every rank: what a plan
  /// uses when neither its options nor the caller give one.
  static MachineModel fallback();
  /// Member-wise equality.
  friend bool operator==(const MachineModel&, const MachineModel&) = default;
};

/// JSON: {"alpha": s, "beta": s/B, "plogp": {"L": s, "samples": [{"m":, "g":, "os":, "or":}, ...]},
/// "cache_bytes": B, "shared_cache_bytes": B} (the two cache sizes may be left out: defaults).
[[nodiscard]] std::string to_json(const MachineModel& m);
/// Inverse of to_json. Throws hpf::Error naming the field for malformed input or values that are
/// negative or not finite.
[[nodiscard]] MachineModel machine_model_from_json(std::string_view text);
/// Writes / reads to_json to a file. Throws hpf::Error naming the path on I/O failure.
void save_machine_model(const MachineModel& m, const std::string& path);
[[nodiscard]] MachineModel load_machine_model(const std::string& path);

/// The one ping-pong kernel: timings between ranks `a` and `b` of `comm` for messages of `bytes`.
struct PingPongOptions {
  int repeats = 11; ///< samples per quantity (medians are reported); one untimed warm-up first
  int stream = 0;   ///< > 0: also time a stream of this many back-to-back sends (gap g, overhead os)
  bool recv_overhead = false; ///< also time the receive of an already-arrived message (or)
};
/// What ping_pong() measured, in seconds (meaningful on rank `a`).
struct PingPongResult {
  double rtt = 0; ///< median round trip
  double g = 0;   ///< median gap per message of the stream (0 without a stream)
  double os = 0;  ///< median duration of one MPI_Send of the stream
  double orr = 0; ///< median receive overhead (measured on b, sent to a)
};
/// Point-to-point between a and b only (other ranks return at once); meaningful on rank `a`. a == b
/// or a one-rank communicator gives zeros. Throws hpf::Error for ranks outside comm or bytes above
/// one MPI message.
PingPongResult ping_pong(const Comm& comm, int a, int b, std::size_t bytes, const PingPongOptions& opt = {});

/// Collective over `comm`: measures a model between ranks 0 and 1 (pLogP at 0, 1 KiB, 32 KiB and
/// 1 MiB; alpha and beta from the same round trips) and broadcasts it, so every rank returns the same
/// model. The cache sizes are the operating system's (sysconf), the smallest over the ranks. A one-rank
/// communicator times a local memcpy for beta, with alpha = L = 0.
[[nodiscard]] MachineModel measure_machine_model(const Comm& comm);

/// Collective over `comm` on its first call for that communicator (see the header comment); later
/// calls, and calls on duplicates, return the cached model without communicating.
[[nodiscard]] MachineModel machine_model(const Comm& comm);
/// Caches `m` on `comm` (and so on its later duplicates). Every rank of comm must call it with the
/// same model, as the next machine_model(comm) must take the same branch everywhere.
void set_machine_model(const Comm& comm, const MachineModel& m);
/// The same on a raw communicator handle (MPI_COMM_WORLD from hpf::Environment).
void set_machine_model(MPI_Comm comm, const MachineModel& m);
/// True when a model is cached on comm (the same answer on every rank of it).
[[nodiscard]] bool has_machine_model(MPI_Comm comm);

namespace detail {
/// machine_model(comm)'s alpha and beta, without copying its pLogP table (every REDISTRIBUTE asks).
/// Collective like machine_model the first time.
[[nodiscard]] std::pair<double, double> machine_alpha_beta(const Comm& comm);
/// machine_model(comm)'s cache_bytes. Collective like machine_model the first time.
[[nodiscard]] std::size_t machine_cache_bytes(const Comm& comm);
/// Whether every rank of `comm` runs on one node (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED gives
/// them all one communicator). Collective over comm the first time, then cached on it as an attribute
/// (copied by MPI_Comm_dup), like the model: the same answer on every rank. Always false under
/// SimGrid SMPI, whose simulated ranks share one process whatever the platform, and when the
/// environment variable HPF_ONE_NODE is 0 (the path of a job spread over nodes, for tests).
[[nodiscard]] bool shares_one_node(const Comm& comm);
} // namespace detail

} // namespace hpf
