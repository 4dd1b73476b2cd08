// Reduction trees for associative, possibly non-commutative reductions (Canon and Antoniu, Canon & Antoniu,
// "Scheduling associative reductions with homogeneous costs when overlapping communications and
// computations", INRIA RR-7898).
//
// The model (Section 3 of the paper): n machines hold one element each. Sending an element from one
// machine to another takes d; combining two elements takes c. A machine takes part in at most one
// transfer at a time (one-port), but it may receive its next input while it combines the current one
// (transfers overlap computations). Each machine combines its own element with every input it
// receives, then sends the partial result once, to its parent; the sink (the paper's "root machine")
// holds the result. A machine with k inputs that arrive back to back finishes in
// d + (k - 1) max(d, c) + c.
//
// Vocabulary: the paper reverses the tree and calls the receiver of machine i its "child" c_i; here it
// is parent[i], as in MPI (parent[sink] = -1). start[i] is when i's transfer to parent[i] begins.
//
// Everything in this header is pure planning: no MPI, no I/O. The same inputs give the same tree on
// every rank, so a plan never needs a broadcast (DESIGN.md).
#pragma once

#include <hpf/schedule/schedule.hpp>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hpf {

/// Homogeneous costs of the model: d per transfer, c per combination (any time unit, both >= 0).
struct ReduceCosts {
  double d = 1.0; ///< time of one transfer of a value
  double c = 1.0; ///< time of one combination of two values
};

/// How a reduction tree is built (Sections 5, 6 and 7.3 of Canon and Antoniu).
enum class ReduceStrategy {
  greedy,            ///< Algorithm 1: optimal, Theta(n log n).
  binomial,          ///< Algorithm 1 with min(d, c) set to 0: a binomial tree when n is a power of 2.
  fibonacci,         ///< Algorithm 1 with d = c: a Fibonacci tree when n is a Fibonacci number.
  limited_transfers, ///< Algorithm 2: at most K concurrent transfers (optimal under that limit).
  limited_reducers,  ///< Algorithm 3: at most K machines combine (optimal under that limit).
};

/// "greedy", "binomial", "fibonacci", "limited-transfers", "limited-reducers".
std::string to_string(ReduceStrategy s);
/// Inverse of to_string; throws hpf::Error naming the argument `what`, the value and the accepted names.
ReduceStrategy parse_reduce_strategy(std::string_view name, std::string_view what = "strategy");

/// A reduction tree over machines 0..n-1 and its schedule under the model.
struct ReductionTree {
  ReduceCosts costs; ///< the costs it was planned for
  /// parent[i]: the machine that receives i's partial result; -1 for the sink.
  std::vector<int> parent;
  /// start[i]: time at which i's transfer to parent[i] starts; -1 for the sink.
  std::vector<double> start;
  /// inputs[v]: the machines that send to v, in the order v receives (and combines) them.
  std::vector<std::vector<int>> inputs;
  /// The machine that must end with the result. Usually the sink; when a non-commutative order
  /// cannot put the sink's element at position `root` (see in_rank_order), the sink forwards the
  /// result to `root` at time forward_start, which costs one more transfer d.
  int root = 0;
  double forward_start = -1.0; ///< when the sink starts forwarding the result to `root` (-1: no forwarding)
  /// Schedule length: time at which `root` holds the result (0 for a single machine).
  double length = 0.0;

  /// Number of machines.
  [[nodiscard]] int size() const noexcept { return static_cast<int>(parent.size()); }
  /// The machine with parent -1.
  [[nodiscard]] int sink() const;
  /// Number of machines that combine (have at least one input).
  [[nodiscard]] int reducers() const;
  /// Largest number of transfers in progress at the same instant (forwarding included).
  [[nodiscard]] int max_concurrent_transfers() const;
};

/// The schedule of a given tree under the model.
struct TreeSchedule {
  std::vector<double> start;            ///< transfer start of each machine (-1 for the sink)
  std::vector<double> ready;            ///< time each machine's partial result is complete
  std::vector<std::vector<int>> inputs; ///< receive order at each machine
  double length = 0.0;                  ///< ready[sink]
};

/// Evaluator. Schedule of the tree `parent` (parent[sink] = -1) with every transfer at its earliest
/// time (Proposition 3 of Canon and Antoniu): a machine sends as soon as its last combination is done; a
/// machine that is already receiving queues the others in the order they are ready (ties by id).
/// Throws hpf::Error unless `parent` is a tree (one sink, every machine reaches it) and the costs
/// are finite and >= 0.
TreeSchedule evaluate_tree(std::span<const int> parent, ReduceCosts costs);
/// Same, but machine i's transfer may not start before release[i] (the transfer times that
/// Algorithm 2 chooses; Section 6.1 of Canon and Antoniu). release[sink] is ignored.
TreeSchedule evaluate_tree(std::span<const int> parent, ReduceCosts costs, std::span<const double> release);

/// Algorithm 1 of Canon and Antoniu (Theorem 4: optimal). Machine 0 is the sink. Theta(n log n).
ReductionTree greedy_tree(int n, ReduceCosts costs);
/// The length that Algorithm 1 reaches, from its own reversed-time bookkeeping (no tree is built).
double greedy_length(int n, ReduceCosts costs);
/// Algorithm 2 of Canon and Antoniu (Theorem 7): at most K transfers at any instant; transfers start at the
/// times the algorithm fixes, not at their earliest. Machine 0 is the sink.
ReductionTree limited_transfers_tree(int n, int K, ReduceCosts costs);
/// Algorithm 3 of Canon and Antoniu (Theorem 9): at most K machines combine. Machine 0 is the sink.
ReductionTree limited_reducers_tree(int n, int K, ReduceCosts costs);
/// Binomial strategy (Section 7.3): the structure of Algorithm 1 with costs (max(d,c), 0), scheduled
/// with the real costs. Theorem 18: a (1 + min(d,c)/max(d,c))-approximation.
ReductionTree binomial_strategy_tree(int n, ReduceCosts costs);
/// Fibonacci strategy (Section 7.3): the structure of Algorithm 1 with d = c, scheduled with the
/// real costs. Theorem 19: a 2-approximation.
ReductionTree fibonacci_strategy_tree(int n, ReduceCosts costs);

/// Lemma 1 of Canon and Antoniu: relabels the machines of `tree` so that a non-commutative operator gives the
/// left-to-right fold x_0 * x_1 * ... * x_{n-1} of the machines' elements. Afterwards every machine's
/// partial result is a contiguous range of ranks, and each input it receives is adjacent to it: an
/// input from a lower rank is combined as (input * acc), from a higher rank as (acc * input). The sink
/// is placed at rank `root` when a subset of its inputs' subtrees covers exactly `root` ranks; else
/// the sink is rank 0 and forwards the result to `root` (length + d). Schedule and length are kept.
ReductionTree in_rank_order(const ReductionTree& tree, int root);

/// Throws hpf::Error unless, combining inputs in tree.inputs order on the side given by their rank,
/// every combination joins adjacent contiguous ranges and `tree.root` ends with [0, n).
void check_rank_order(const ReductionTree& tree);

/// The transfers of `tree` as the one hpf::Schedule (DESIGN.md), run by exec/'s Pipelined executor.
/// Senders and receivers are the machines 0..n-1; every message has length 1 (one partial result;
/// the executor scales it to bytes). Each child -> parent edge is one message, plus sink -> root when
/// the sink forwards (in_rank_order). Steps are the greedy levels (as soon as possible) under two
/// orders: a machine's receives come in its planned input order (tree.inputs), each in a later step
/// than the previous one, and its send comes after its last receive. So every step is a partial
/// permutation (a machine sends once; its receives have distinct steps), and the number of steps is
/// the longest chain of these dependencies. Throws hpf::Error unless inputs and parent agree.
Schedule tree_schedule(const ReductionTree& tree);

/// What to build: the strategy, K for the limited strategies (>= 1), the rank that gets the result.
struct TreeOptions {
  ReduceStrategy strategy = ReduceStrategy::greedy; ///< which algorithm builds the tree
  int K = 0;                                        ///< limit of the two limited strategies (>= 1 for them)
  int root = 0;                                     ///< the machine that must end with the result
};

/// The tree of `opts.strategy` for n machines, in rank order (in_rank_order) with the result on
/// opts.root. Throws hpf::Error for n < 1, negative or non-finite costs, K < 1 with a limited
/// strategy, or a root outside [0, n).
ReductionTree plan_reduction_tree(int n, ReduceCosts costs, const TreeOptions& opts = {});

/// The tree as indented text, one machine per line, inputs in receive order (no I/O: the CLI prints it).
std::string format_tree(const ReductionTree& tree);

} // namespace hpf
