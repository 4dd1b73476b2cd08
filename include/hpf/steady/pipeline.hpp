// A series of K operations (scatters, gossips or reductions) run on a periodic steady-state schedule
// (Legrand et al., Sections 3.4 and 4.3): initialisation, steady state and clean-up, in whole messages.
//
// Planning is pure: plan_pipeline() replays the periodic schedule on message *counts* only, so every
// rank knows beforehand how many messages each transfer carries in each period (no handshake, no
// termination protocol), and the plan reports the phases, the completion time and the buffer sizes.
//
// Execution model of one period (every rank follows it for the nodes it plays):
//   1. computations: each tree's T_{k,l,m} tasks, at most w(T) per period each, on inputs that were
//      available when the period began; their results become available at the end of the period, so
//      that the computations overlap the period's transfers (the paper's model: a node computes, sends
//      and receives at the same time);
//   2. the matchings in order; a transfer carries the messages waiting on its sender, at most its
//      share of the period. A message split over matchings in the paper (Figure 3) is sent whole in
//      the matching where its transfer ends, so per-period port totals are exactly the paper's.
// Values wait in FIFO buffers, one per (tree, task output); leaves (v[i,i] on P_{r_i}, or the
// source's messages) are produced on demand. A tree T carries time-stamps t in the order of the
// the paper's Section 4.3: within each period the first w(T_1) stamps go to T_1, the next w(T_2) to T_2...
// Because every task takes its inputs in FIFO order, both operands of a computation always carry
// the same time-stamp (the executor checks it).
#pragma once

#include <hpf/schedule/schedule.hpp>
#include <hpf/steady/steady.hpp>

#include <cstdint>
#include <vector>

namespace hpf::steady {

/// What run_pipeline executes: a periodic schedule in whole messages, with the initialisation and
/// clean-up periods of K operations (Legrand et al., Sections 3.4 and 4.3).
struct PipelinePlan {
  SteadyOp op = SteadyOp::Scatter;      ///< the collective
  int node_count = 0;                   ///< platform nodes (one MPI rank each)
  std::int64_t operations = 0;          ///< K
  BigInt period;                        ///< time units per period
  Rational throughput;                  ///< operations per time unit of the schedule (sum w(T) per group)
  std::vector<WeightedTree> trees;      ///< the trees (routes) of the period
  std::vector<std::int64_t> tree_count; ///< operations per period carried by each tree
  int groups = 1;                       ///< delivered types (reduce 1; scatter/gossip one per type)
  std::vector<int> group_node;          ///< where group g is delivered
  std::vector<int> leaf_participant;    ///< reduce: node -> participant index or -1

  /// A transfer of a matching in whole messages per period.
  struct Transfer {
    int tree = 0;                ///< index into PipelinePlan::trees
    int task = 0;                ///< the Send task of that tree
    int edge = 0;                ///< platform edge
    int from = 0;                ///< sending node
    int to = 0;                  ///< receiving node
    std::int64_t per_period = 0; ///< whole messages per period
  };
  std::vector<std::vector<Transfer>> steps; ///< one per matching, in period order
  std::vector<Rational> step_duration;      ///< time units of each step
  /// The period as the one hpf::Schedule (DESIGN.md): senders and receivers are platform nodes, one
  /// step per matching with one message per platform edge it uses (len = values of that edge in a
  /// full period, its transfers' per_period summed), the step's duration = the matching's, and
  /// period() = T. Steps keep their matching index even when no whole message ends in them.
  Schedule schedule;
  std::vector<std::pair<int, int>> computes; ///< (tree, task) of every computation, inputs first

  // --- the replay on counts -------------------------------------------------------------------------
  std::int64_t periods = 0;                        ///< periods until all K operations are delivered
  std::vector<std::vector<std::int64_t>> moved;    ///< [period][step][i]: messages of steps[step][i]
  std::vector<std::vector<std::int64_t>> computed; ///< [period][c]: computations of computes[c]
  std::vector<std::int64_t> delivered;             ///< operations complete (every group) after each period
  std::int64_t init_periods = 0;                   ///< periods before the first full (steady) period
  std::int64_t steady_periods = 0;                 ///< full periods
  std::int64_t cleanup_periods = 0;                ///< periods after the last full period
  /// Largest number of values ever waiting in one buffer divided by its per-period consumption:
  /// Section 3.4 bounds it by 2 (buffers hold at most 2 x buff-min-size).
  Rational max_buffer_ratio;
  std::int64_t max_buffer = 0; ///< largest number of values waiting in one buffer

  /// `schedule` with the lengths that period `p` actually moves (moved[p]; initialisation and clean-up
  /// periods move less than a full one). Messages of length 0 are kept; executors drop them.
  [[nodiscard]] Schedule period_schedule(std::int64_t p) const;
  /// Flat index of steps[step][i] in moved[period].
  [[nodiscard]] std::size_t flat(std::size_t step, std::size_t i) const;
  /// Completion time in time units: periods * period.
  [[nodiscard]] BigInt makespan() const { return BigInt(periods) * period; }
  /// Time-stamp of the n-th operation carried by tree t (Section 4.3 assignment, see above).
  [[nodiscard]] std::int64_t stamp(int tree, std::int64_t n) const;
  /// How many of the K operations tree t carries.
  [[nodiscard]] std::int64_t tree_total(int tree) const;
};

/// Replays `schedule` (whose trees come from `solution`) for K >= 1 operations. Throws hpf::Error on
/// K < 1, on an empty schedule (TP = 0) or on counts beyond 64 bits.
[[nodiscard]] PipelinePlan plan_pipeline(const Platform& platform, const SteadySolution& solution,
                                         const PeriodicSchedule& schedule, std::int64_t operations);

/// Convenience: solve (with `goal`), extract trees, schedule (fixed period if T > period_max > 0), replay.
[[nodiscard]] PipelinePlan plan_pipeline(const Platform& platform, const SteadyProblem& problem,
                                         std::int64_t operations, std::int64_t period_max = 0,
                                         SolveGoal goal = SolveGoal::Any);

} // namespace hpf::steady
