// All-to-many personalised communication: decompose a communication matrix COM into partial
// permutations (Wang and Ranka, "Scheduling of unstructured communication on the iPSC/860").
//
// Pure, no MPI and no I/O: every rank that holds the same CommMatrix and passes the same seed gets
// the same Schedule, so a schedule never needs a broadcast (DESIGN.md, "Plan, then execute").
// Randomness comes from a SplitMix64 stream with our own bounded draws and Fisher-Yates shuffles,
// so the result does not depend on the standard library's distributions either.
//
//   | algo    | paper         | phases                          | what it avoids                         |
//   |---------|---------------|---------------------------------|----------------------------------------|
//   | ac      | §3, Figure 1  | see below (no phases at run time)| nothing: everything posted at once     |
//   | lp      | §4.1, Figure 2| one per distinct partner offset | node and link contention (hypercube)   |
//   | rs_n    | §4.2, Figure 3| <= d + log d on average (random)| node contention                        |
//   | rs_nl   | §5, Figure 4  | >= rs_n                         | node and link contention, prefers      |
//   |         |               |                                 | pairwise exchanges                     |
//   | optimal | König         | exactly max in/out degree       | node contention, minimum phase count   |
//
// AC is asynchronous: its executor (S2, ExecMode::AllAtOnce) posts every receive, then every send,
// then waits — it has no phases. To run on the one Schedule type (whose steps are partial
// permutations) AC is represented as the greedy grouping of each sender's send list, in the
// sender's natural (ascending destination) order: message t of sender i goes to the first step
// after its message t-1 whose receiver is still free. Under S2 the grouping only fixes the order in
// which each rank posts its sends (its send-list order, as in Figure 1); its step count is reported
// but does not describe synchronised phases.
//
// LP: for n a power of two, phase k (1 <= k < n) pairs i with i XOR k — every phase is a set of
// pairwise exchanges and, under e-cube routing, link-contention-free (Wang and Ranka §4.1). For other n
// the generalisation used here is the shift: in phase k, i sends to (i + k) mod n and receives from
// (i - k) mod n; node-contention-free, but no longer pairwise. Phase 0 carries messages to oneself.
// Phases that carry no message are dropped (they would cost nothing under S1).
//
// Costs use Schedule::cost(alpha, beta) = alpha * phases + beta * sum over phases of the longest
// message (assumption 1 of Wang and Ranka §2.1).
#pragma once

#include <hpf/schedule/routing.hpp>
#include <hpf/schedule/schedule.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hpf {

/// CCOM of Wang and Ranka §4.2: the n x d compressed form of COM. Row i lists the destinations of
/// sender i in its first row_degree(i) columns (randomly permuted, as the paper requires to avoid
/// node contention among small ids in the first phases), -1 after; `prt[i]` is the column of the
/// last active entry (-1 for an empty row). d is the largest row degree.
struct CompressedCom {
  int num_senders = 0;      ///< n, rows of COM
  int num_receivers = 0;    ///< columns of COM
  int d = 0;                ///< the largest row degree: columns of the compressed form
  std::vector<int> dst;     ///< num_senders x d, row-major, -1 = no message
  std::vector<index_t> len; ///< message lengths, same shape (0 where dst is -1)
  std::vector<int> prt;     ///< per row: last active column, -1 when empty

  /// Destination in row i, column j (-1: none).
  [[nodiscard]] int dst_at(int i, int j) const { return dst[idx(i, j)]; }
  /// Length in row i, column j.
  [[nodiscard]] index_t len_at(int i, int j) const { return len[idx(i, j)]; }
  /// Index of (i, j) in dst and len.
  [[nodiscard]] std::size_t idx(int i, int j) const {
    return static_cast<std::size_t>(i) * static_cast<std::size_t>(d) + static_cast<std::size_t>(j);
  }
};

/// Compresses COM into CCOM, shuffling each row with a stream derived from `seed`. O(n d + E).
[[nodiscard]] CompressedCom compress_com(const CommMatrix& com, std::uint64_t seed);

enum class AllToManyAlgo { AC, LP, RS_N, RS_NL, Optimal };

/// "ac", "lp", "rs-n", "rs-nl", "optimal".
[[nodiscard]] std::string to_string(AllToManyAlgo a);
/// Inverse of to_string (also accepts the old spellings "rs_n", "rs_nl"); throws hpf::Error naming
/// `what` and the value for an unknown name.
[[nodiscard]] AllToManyAlgo parse_all_to_many_algo(std::string_view name, std::string_view what = "algo");
/// Every algorithm, in the order above.
[[nodiscard]] std::vector<AllToManyAlgo> all_to_many_algos();

/// §3, Figure 1: the AC grouping described in the header comment. Any CommMatrix.
[[nodiscard]] Schedule schedule_ac(const CommMatrix& com);

/// §4.1, Figure 2: XOR phases for n a power of two, shift phases otherwise. Needs a square matrix.
[[nodiscard]] Schedule schedule_lp(const CommMatrix& com);

/// §4.2, Figure 3: randomised node-contention-free partial permutations built on CCOM. Each phase
/// starts at a random row x and scans the rows cyclically; row x takes its first destination whose
/// receiver is still free in this phase. Any CommMatrix.
[[nodiscard]] Schedule schedule_rs_n(const CommMatrix& com, std::uint64_t seed);

/// §5, Figure 4: RS_N that also refuses a message whose path (under `routing`) shares a directed
/// link with a path already claimed in the phase (Check_Path / Mark_Path). Row x first looks for a
/// destination y whose reverse message y -> x is pending and can go in the same phase — a pairwise
/// exchange, which the iPSC/860 runs concurrently (§5, "priority is given to entries that can
/// result in pairwise exchange") — and otherwise takes its first admissible destination.
/// Needs a square matrix with routing.num_nodes() == n.
[[nodiscard]] Schedule schedule_rs_nl(const CommMatrix& com, const Routing& routing, std::uint64_t seed);

/// Minimum number of phases: a proper edge colouring of the bipartite sender/receiver graph with
/// max_degree() colours (König's theorem; Theorem 1 of Desprez et al.): the matching engine's
/// bipartite_edge_colouring (matching.hpp) with unweighted edges: each phase saturates every
/// maximum-degree node. Message lengths do not steer it; koenig_stepwise_schedule (strategy.hpp)
/// also maximises each phase's volume, for a lower total cost at 40-70x the planning time. Any
/// CommMatrix.
[[nodiscard]] Schedule schedule_optimal(const CommMatrix& com);

/// Which scheduler and its parameters.
struct AllToManyOptions {
  AllToManyAlgo algo = AllToManyAlgo::RS_N; ///< the scheduler
  RoutingKind routing = RoutingKind::Full;  ///< RS_NL only (mesh2d: near-square factorisation of n)
  std::uint64_t seed = 1;                   ///< RS_N, RS_NL (and CCOM's shuffle)
};

/// Dispatches to the scheduler named by `opt.algo`.
[[nodiscard]] Schedule schedule_all_to_many(const CommMatrix& com, const AllToManyOptions& opt);

/// "" when no two messages of a phase share a directed link of `routing`; otherwise the first
/// conflict ("step 3: 5->9 and 1->13 both use link 21 (5->7)").
[[nodiscard]] std::string check_link_contention(const Schedule& s, const Routing& routing);

/// A random d-regular pattern on n nodes (the workload of Wang and Ranka §6): every node sends d messages
/// of `len` units to d distinct other nodes and receives d. Built as a randomly relabelled
/// circulant graph mixed by 10 n d random degree-preserving edge switches. Needs 0 <= d < n.
[[nodiscard]] CommMatrix random_regular_com(int n, int d, index_t len, std::uint64_t seed);

namespace detail {

/// SplitMix64: a small, fully specified generator, identical on every platform.
class SplitMix64 {
public:
  explicit SplitMix64(std::uint64_t seed) noexcept : m_state(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound) for bound >= 1 (rejection sampling, no modulo bias).
  std::uint64_t below(std::uint64_t bound) noexcept {
    const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % bound);
    std::uint64_t v = next();
    while (v >= limit) v = next();
    return v % bound;
  }

private:
  std::uint64_t m_state;
};

} // namespace detail
} // namespace hpf
