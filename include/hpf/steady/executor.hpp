// MPI executor of a PipelinePlan: runs K scatters, gossips or reductions of real data on the
// periodic steady-state schedule of Legrand et al.. Collective over `comm`: every rank calls it with the
// same plan; rank node_rank[v] plays platform node v (default: v mod size), so any number of ranks
// works, one rank possibly playing several nodes.
//
// Bytes, not types (DESIGN.md, exec/): a value is `value_bytes` bytes; the callbacks make, combine
// and receive them. One engine (STYLE.md): each period is the plan's hpf::Schedule (one step per
// matching, one message per platform edge carrying that edge's values, each prefixed by its 8-byte
// time-stamp, sizes known from the plan on both sides), run by hpf::Exchange in ExecMode::Pipelined
// with tags from hpf::tags::steady. Every receive of a period is posted when the period starts, so a
// sender never waits for a receiver that is still computing or busy with an earlier matching; a
// matching's sends start once the earlier matchings are done on this rank. The period's computations
// run between Exchange::test() calls, so computation overlaps communication as in the paper's model
// (their results are used from the next period on). The exchange is reused while periods move the
// same counts (the steady state) and rebuilt for initialisation and clean-up periods.
#pragma once

#include <hpf/core/mpi.hpp>
#include <hpf/steady/pipeline.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace hpf::steady {

/// How run_pipeline reaches the caller's data: it makes operands, combines them and delivers results.
struct PipelineCallbacks {
  /// Writes value_bytes bytes: reduce, operand v_i of operation `stamp` (i = participant index);
  /// scatter/gossip, the message of type `source` (index into SteadySolution::types) of operation `stamp`.
  std::function<void(int source, std::int64_t stamp, std::byte* out)> make;
  /// Reduce only: out = left (+) right, for the non-commutative operator (+); out may alias neither.
  std::function<void(const std::byte* left, const std::byte* right, std::byte* out)> combine;
  /// Called on the rank of the destination node: result of operation `stamp` (reduce, group 0) or
  /// the message of type `group` of operation `stamp` (scatter/gossip). Each exactly once.
  std::function<void(int group, std::int64_t stamp, const std::byte* value)> deliver;
};

/// What one run_pipeline did on this rank.
struct PipelineStats {
  double seconds = 0.0;            ///< wall (or simulated, under SMPI) time, max over ranks
  std::int64_t delivered_here = 0; ///< deliver() calls on this rank
  std::int64_t messages_sent = 0;  ///< messages this rank sent to other ranks
  std::int64_t values_sent = 0;    ///< values this rank sent to other ranks
};

/// Collective over comm. Throws hpf::Error on bad arguments or if two operands of a computation
/// carry different time-stamps (an internal error).
PipelineStats run_pipeline(const PipelinePlan& plan, MPI_Comm comm, std::size_t value_bytes,
                           const PipelineCallbacks& callbacks, std::vector<int> node_rank = {});

/// The same pipeline, for a caller that runs many short ones (hpf::ReductionSeries): `comm` is used
/// as it is (the caller keeps it private to itself: no MPI_Comm_dup per call), and there is no
/// barrier before and no agreement on the time after (stats.seconds is this rank's own time). At
/// small K these fixed costs would dominate a batch's time.
PipelineStats run_pipeline_private(const PipelinePlan& plan, const Comm& comm, std::size_t value_bytes,
                                   const PipelineCallbacks& callbacks, std::vector<int> node_rank);

/// Leaf source of tree task input (`which` 0 = input_a, 1 = input_b): the participant index for
/// reduce, the message type for scatter/gossip.
[[nodiscard]] int leaf_source(const PipelinePlan& plan, int tree, int task, int which);

} // namespace hpf::steady
