// Steady-state throughput of series of scatters, personalized all-to-alls (gossips) and reductions
// on a heterogeneous platform: Legrand, Marchal and Robert, Sections 3 and 4.
//
// Pure planning, no MPI and no I/O:
//   1. build_lp():       the linear programs SSSP(G) (Section 3.1), SSPA2A(G) (Section 3.5) and SSR(G)
//                        (Section 4.2) over the one-port model of Section 2 (equations (1)-(3));
//   2. solve():          solve them exactly (QSopt_ex), giving the throughput TP as a fraction, the
//                        per-edge message rates send(Pi -> Pj, type), the tasks cons(Pi, T_{k,l,m}),
//                        and the period T = lcm of the denominators of the rates and port loads
//                        (every count and every communication time of one period is an integer);
//   3. extract_trees():  the solution as weighted reduction trees (Figure 8, EXTRACT_TREES; Lemma 2);
//                        for scatters and gossips the "trees" are the routes (paths) of each message
//                        type, found by the same procedure;
//   4. decompose_matchings(): the bipartite send/receive graph of one period split into weighted
//                        matchings (Section 3.3), so that no node sends or receives two messages at once;
//   5. fixed_period():   the approximation of Section 4.6 for a chosen period T_fixed, with its loss
//                        bound card(Trees) / T_fixed (Proposition 4).
#pragma once

#include <hpf/steady/lp.hpp>
#include <hpf/steady/platform.hpp>

#include <string>
#include <vector>

namespace hpf::steady {

/// The collective a series repeats: a scatter from one source, a personalised all-to-all, a reduction.
enum class SteadyOp { Scatter, Gossip, Reduce };
/// "scatter", "gossip" or "reduce".
[[nodiscard]] std::string to_string(SteadyOp op);
/// "scatter" | "gossip" | "reduce"; throws hpf::Error naming the argument `what` and the value otherwise.
[[nodiscard]] SteadyOp parse_steady_op(std::string_view text, std::string_view what = "op");

/// What to pipeline. Build with the factories; node indices are Platform indices.
struct SteadyProblem {
  SteadyOp op = SteadyOp::Scatter; ///< the collective
  std::vector<int> sources;        ///< scatter: {source}; gossip: the senders; reduce: unused
  std::vector<int> targets;        ///< scatter/gossip: receivers; reduce: {target}
  std::vector<int> participants;   ///< reduce: P_{r_0}..P_{r_N}, in operand order (non-commutative)
  Rational message_size = 1;       ///< size(v) of every message (Section 4.2), in platform units
  Rational task_work = 1;          ///< w(P_i, T) = task_work / speed(P_i) (Section 4.7 uses size 10)

  /// A series of scatters from `source` to `targets` (distinct nodes, the source not among them).
  [[nodiscard]] static SteadyProblem scatter(int source, std::vector<int> targets);
  /// A series of personalised all-to-alls: every source sends its own message to every target.
  [[nodiscard]] static SteadyProblem gossip(std::vector<int> sources, std::vector<int> targets);
  /// A series of reductions of one value per participant, in operand order, delivered to `target`.
  [[nodiscard]] static SteadyProblem reduce(std::vector<int> participants, int target);
};

/// A message type. Scatter: m_k (src = source, dst = P_k). Gossip: m_{k,l} (src = P_k, dst = P_l).
/// Reduce: v[first, last], the partial reduction of participants first..last (src = dst = -1).
struct MessageType {
  int src = -1;   ///< scatter and gossip: the node that sends the message first
  int dst = -1;   ///< scatter and gossip: the node it is for
  int first = -1; ///< reduce: the first participant of the partial result
  int last = -1;  ///< reduce: the last participant of the partial result
  /// Types compare equal field by field.
  friend bool operator==(const MessageType&, const MessageType&) = default;
};

/// send(P_from -> P_to, type): messages per time unit over platform edge `edge`.
struct EdgeFlow {
  int edge = 0;  ///< the platform edge
  int type = 0;  ///< the message type (index into SteadySolution::types)
  Rational rate; ///< messages per time unit
};

/// cons(P_node, T_{k,l,m}): tasks v[k,m] = v[k,l] (+) v[l+1,m] per time unit on `node`.
struct TaskRate {
  int node = 0;  ///< the node that combines
  int k = 0;     ///< first participant of the left operand v[k,l]
  int l = 0;     ///< last participant of the left operand; the right one is v[l+1,m]
  int m = 0;     ///< last participant of the right operand
  Rational rate; ///< tasks per time unit
};

/// An optimal solution of the steady-state LP: the rates of every message type on every edge (and of
/// every task, for reductions), the throughput and the period that makes every count an integer.
struct SteadySolution {
  SteadyProblem problem;              ///< the problem solved
  std::vector<MessageType> types;     ///< the message types, in the LP's order
  std::vector<EdgeFlow> sends;        ///< non-zero rates only, sorted by (edge, type)
  std::vector<TaskRate> tasks;        ///< reduce only; non-zero rates, sorted by (node, k, l, m)
  Rational throughput;                ///< TP: operations completed per time unit
  BigInt period = 1;                  ///< T: lcm of the denominators of every rate, port load and TP
  std::vector<Rational> edge_load;    ///< s(P_i -> P_j) per platform edge (equation (4) / (8))
  std::vector<Rational> node_send;    ///< outgoing port occupation per node (equation (2))
  std::vector<Rational> node_recv;    ///< incoming port occupation per node (equation (3))
  std::vector<Rational> node_compute; ///< alpha(P_i) per node (equation (9))
  Rational cancelled_circulation;     ///< total rate of the flow cycles removed (see solve())
  std::string note;                   ///< why TP is 0, when it is ("" otherwise)

  /// Index of `t` in types, or -1.
  [[nodiscard]] int type_index(const MessageType& t) const;
};

/// Throws hpf::Error unless the problem is well formed on the platform (indices in range, distinct
/// nodes, scatter source not a target, reduce with at least one operand and a meaningful target...).
void validate_problem(const Platform& platform, const SteadyProblem& problem);

/// The message types of the problem, in the order the LP and the solution use.
[[nodiscard]] std::vector<MessageType> message_types(const Platform& platform, const SteadyProblem& problem);

/// The LP of the paper with its column meaning: column j is either a send(edge, type), a
/// cons(node, k, l, m), or TP (the last column). Exposed for the floating cross-check.
struct SteadyLp {
  LinearProgram lp;               ///< the program (the objective maximises TP)
  std::vector<MessageType> types; ///< the message types, in column order
  /// What one LP column stands for.
  struct Column {
    /// A send rate, a task rate, or the throughput TP.
    enum Kind { Send, Task, Throughput };
    Kind kind = Send; ///< what the column stands for
    int edge = -1;    ///< Send: the platform edge
    int type = -1;    ///< Send: the message type
    int node = -1;    ///< Task: the node that combines
    int k = -1;       ///< Task: as TaskRate::k
    int l = -1;       ///< Task: as TaskRate::l
    int m = -1;       ///< Task: as TaskRate::m
  };
  std::vector<Column> columns; ///< one per LP column
};
[[nodiscard]] SteadyLp build_lp(const Platform& platform, const SteadyProblem& problem);

/// Which optimal solution solve() returns. The paper's LP is often degenerate: on a platform where
/// communication is the bottleneck, many mixes of trees reach TP (on two nodes, "P1 sends its value
/// to the target, which combines" and "the target sends its value to P1, which combines and sends the
/// result back" both do). `Any` keeps the simplex's vertex; `LeastTraffic` solves a second LP with TP
/// fixed at its optimum that minimises the total transfer time sum(rate x message size x edge cost):
/// the same throughput with the fewest transfers (fewer messages per operation, shorter pipelines).
enum class SolveGoal { Any, LeastTraffic };

/// Solves the problem's LP exactly. A target (or, for reduce, the target seen from a participant)
/// that cannot be reached gives TP = 0 with `note` saying which one; flow circulations that an
/// optimal vertex may carry on unsaturated links are cancelled (they move nothing).
[[nodiscard]] SteadySolution solve(const Platform& platform, const SteadyProblem& problem,
                                   SolveGoal goal = SolveGoal::Any);

/// Completes a solution from given rates (e.g. the paper's published solutions): removes zero rates,
/// sorts, computes TP, the loads and the period. Does not check feasibility (see check_solution).
[[nodiscard]] SteadySolution make_solution(const Platform& platform, const SteadyProblem& problem,
                                           std::vector<EdgeFlow> sends, std::vector<TaskRate> tasks);

/// "" when the solution satisfies every constraint of the paper's LP exactly, else the first violation.
[[nodiscard]] std::string check_solution(const Platform& platform, const SteadySolution& solution);

// --- weighted trees (Section 4.3-4.4, Figure 8) -------------------------------------------------------

/// A task of a reduction tree: a computation cons(T_{k,l,m}, P_node) or a transfer
/// send(P_node -> P_peer, type) over platform edge `edge`.
struct TreeTask {
  /// A combination on `node`, or a transfer from `node` to `peer`.
  enum Kind { Compute, Send };
  Kind kind = Send; ///< a combination or a transfer
  int node = -1;    ///< where the task runs (the sender of a transfer)
  int peer = -1;    ///< Send: the receiver
  int edge = -1;    ///< Send: the platform edge used
  int type = -1;    ///< the message moved (Send) or produced (Compute)
  int k = -1;       ///< Compute: as TaskRate::k
  int l = -1;       ///< Compute: as TaskRate::l
  int m = -1;       ///< Compute: as TaskRate::m
  /// Indices (in the tree's task list) of the tasks producing this task's inputs; -1 = a leaf
  /// (v[i,i] on P_{r_i} for reduce, the source's own message for scatter/gossip).
  int input_a = -1;
  int input_b = -1; ///< the producer of the second input (Compute only), or -1
};

/// A reduction tree (Definition 1) or a route, with the throughput w(T) it carries per time unit.
/// tasks[0] produces the delivered value; inputs always come later in the list.
struct WeightedTree {
  Rational weight;             ///< w(T): operations per time unit this tree carries
  int group = 0;               ///< delivered type: reduce 0; scatter/gossip the index of the route's type
  std::vector<TreeTask> tasks; ///< the tree's tasks, the delivering one first
};

/// EXTRACT_TREES of Figure 8: decomposes the solution into weighted trees whose incidence vectors
/// sum to the solution (Theorem 1). Throws hpf::Error if FIND_TREE gets stuck (invalid solution).
[[nodiscard]] std::vector<WeightedTree> extract_trees(const Platform& platform,
                                                      const SteadySolution& solution);

/// Section 4.6: r(T) = floor(w(T) * T_fixed) messages/trees per period T_fixed. For scatters and
/// gossips every type keeps the same count (the smallest), so each target still gets TP_fixed.
struct FixedPeriod {
  BigInt period;                   ///< T_fixed
  std::vector<WeightedTree> trees; ///< weights are r(T) / T_fixed (zero-weight trees dropped)
  Rational throughput;             ///< sum of r(T) / T_fixed (per delivered type)
  Rational loss_bound;             ///< card(Trees) / T_fixed >= TP - throughput
};
[[nodiscard]] FixedPeriod fixed_period(const SteadySolution& solution, const std::vector<WeightedTree>& trees,
                                       const BigInt& period);

/// "m[P0]" (scatter), "m[Pa,Pb]" (gossip), "v[1,2]" (reduce).
[[nodiscard]] std::string type_name(const Platform& platform, const SteadySolution& solution, int type);
/// "send Ps->Pa m[P0]" or "cons P1 T(1,1,2)".
[[nodiscard]] std::string task_name(const Platform& platform, const SteadySolution& solution,
                                    const TreeTask& task);

// --- matchings (Section 3.3) --------------------------------------------------------------------------

/// One transfer of a matching: `count` messages (possibly fractional: a message may be split over
/// matchings, as in Figure 3) of tree `tree`'s task `task` over `edge`, taking `time` time units.
struct MatchedTransfer {
  int tree = -1;  ///< index of the tree in PeriodicSchedule::trees
  int task = -1;  ///< index of the Send task in that tree
  int edge = -1;  ///< platform edge
  int type = -1;  ///< message type
  Rational count; ///< messages moved in this matching
  Rational time;  ///< time units they take
};

/// A matching of the bipartite graph G_B: during `duration` time units every node sends to at most
/// one neighbour and receives from at most one.
struct Matching {
  Rational duration;                      ///< time units the matching lasts
  std::vector<MatchedTransfer> transfers; ///< the transfers that run together
};

/// One period of a steady-state schedule: the trees with their per-period counts, and the matchings
/// that run their transfers without two sends or two receives at a node at once (Section 3.3).
struct PeriodicSchedule {
  BigInt period;                   ///< time units per period
  std::vector<WeightedTree> trees; ///< the trees (or routes) the period runs
  std::vector<BigInt> tree_count;  ///< w(T) * period: operations per period carried by each tree
  std::vector<Matching> matchings; ///< the communication phases of one period, in order
  Rational busy;                   ///< sum of the matchings' durations (<= period)
};

/// Builds G_B from the trees (each Send task of tree T weighted w(T) * size * c(e) * period) and
/// decomposes it into weighted matchings (weighted edge colouring, Section 3.3 after [23, ch. 20]).
/// Throws hpf::Error if some port is busier than one period (the trees do not fit the period).
[[nodiscard]] PeriodicSchedule periodic_schedule(const Platform& platform, const SteadySolution& solution,
                                                 std::vector<WeightedTree> trees, const BigInt& period);

/// The plain weighted edge colouring: a square matrix of non-negative times whose row and column
/// sums are at most `bound`, split into (duration, permutation-part) pairs: perm[i] = j or -1.
struct MatrixMatching {
  Rational duration;     ///< how long this part lasts
  std::vector<int> perm; ///< perm[i]: the column row i is matched with, or -1
};
[[nodiscard]] std::vector<MatrixMatching>
decompose_weighted_bipartite(const std::vector<std::vector<Rational>>& w);

} // namespace hpf::steady
