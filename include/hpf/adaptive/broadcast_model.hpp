// Broadcast algorithms and their pLogP cost models: Table 1 of Steffenel (Section 4.2),
// and the choice of the best algorithm and segment size for (P, m) on one homogeneous cluster.
//
// Table 1 (P processes, message of m bytes cut into k segments of s bytes, k = ceil(m / s)):
//   flat                L + (P-1) g(m)
//   flat rendez-vous    3L + (P-1) g(m) + 2 g(1)
//   segmented flat      L + (P-1) (g(s) k)
//   chain               (P-1) (g(m) + L)
//   chain rendez-vous   (P-1) (g(m) + 2 g(1) + 3L)
//   segmented chain     (P-1) (g(s) + L) + g(s) (k-1)
//   binary tree         <= ceil(log2 P) (2 g(m) + L)          (the paper gives this upper bound)
//   binomial            ceil(log2 P) L + floor(log2 P) g(m)
//   binomial rendez-v.  ceil(log2 P) (2 g(1) + 3L) + floor(log2 P) g(m)
//   segmented binomial  ceil(log2 P) L + floor(log2 P) g(s) k
//   scatter/collection  (log2 P + P - 1) L + 2 ((P-1)/P) g(m)
// Reconstructions (the extracted text lost them or leaves them open):
//   - scatter/collection: the text writes "log2 P" without rounding; we take ceil(log2 P) (the number
//     of rounds of a binomial scatter), which is the same for powers of two;
//   - P = 1 costs 0 for every algorithm (nothing is sent);
//   - m = 0 is one segment (k = 1), and s is taken as min(s, m) so g(s) never exceeds g(m).
// Segment size (Section 4.2): s = ceil(m / 2^i) for i in [0, floor(log2 m)], the one with the lowest
// predicted time (ties to the larger s).
//
// Pure planning: no MPI, no I/O.
#pragma once

#include <hpf/adaptive/plogp.hpp>
#include <hpf/schedule/schedule.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hpf {

/// The broadcast strategies of Table 1 of Steffenel, in the table's order.
enum class BcastAlgorithm {
  flat,
  flat_rendezvous,
  segmented_flat,
  chain,
  chain_rendezvous,
  segmented_chain,
  binary,
  binomial,
  binomial_rendezvous,
  segmented_binomial,
  scatter_collect,
};

/// Every algorithm, in Table 1 order.
std::span<const BcastAlgorithm> all_bcast_algorithms();
/// "flat", "flat-rendezvous", "segmented-flat", "chain", "chain-rendezvous", "segmented-chain",
/// "binary", "binomial", "binomial-rendezvous", "segmented-binomial", "scatter-collect".
std::string to_string(BcastAlgorithm a);
/// Inverse of to_string; throws hpf::Error naming the argument, the value and the accepted names.
BcastAlgorithm parse_bcast_algorithm(std::string_view name, std::string_view what = "algorithm");
/// True for the three segmented variants (the only ones whose cost depends on s).
bool is_segmented(BcastAlgorithm a);

/// Table 1: predicted time of `a` broadcasting m bytes to P processes with segments of `segment`
/// bytes (ignored by the non-segmented algorithms). Throws hpf::Error unless P >= 1 and
/// segment >= 1.
double predict_bcast(BcastAlgorithm a, int P, std::size_t m, std::size_t segment, const PLogP& model);

/// The segment sizes searched for m bytes: ceil(m / 2^i), i = 0..floor(log2 m), decreasing ({1} for
/// m <= 1).
std::vector<std::size_t> candidate_segments(std::size_t m);

/// One algorithm with its best segment size and predicted time.
struct BcastPrediction {
  BcastAlgorithm algorithm = BcastAlgorithm::binomial; ///< the algorithm
  std::size_t segment = 0; ///< bytes per segment (m, or 1 when m = 0, for non-segmented algorithms)
  double time = 0;         ///< predicted time in seconds
};

/// The choice for (P, m): every algorithm's prediction and the index of the best one.
struct BcastChoice {
  int P = 1;                                ///< ranks
  std::size_t m = 0;                        ///< message bytes
  std::vector<BcastPrediction> predictions; ///< one per considered algorithm, in Table 1 order
  std::size_t best = 0;                     ///< index of the argmin (ties to the earlier entry)
  /// The best prediction, predictions[best].
  [[nodiscard]] const BcastPrediction& chosen() const { return predictions.at(best); }
};

/// Predicts every algorithm in `algorithms` (all of Table 1 when empty) for (P, m), searching the
/// segment size of the segmented ones, and picks the fastest. Throws hpf::Error unless P >= 1.
BcastChoice choose_bcast(int P, std::size_t m, const PLogP& model,
                         std::span<const BcastAlgorithm> algorithms = {});

/// The broadcast tree of the tree-shaped algorithms (flat, chain, binary, binomial and their
/// variants) over relative ranks 0..P-1 (0 is the root): children[r] in the order r sends to them.
/// Throws hpf::Error for scatter_collect (not a tree) or P < 1.
std::vector<std::vector<int>> bcast_tree(BcastAlgorithm a, int P);

/// The bytes one message of a broadcast schedule carries: blocks [first, first + count) of the
/// message, i.e. bytes [offset, offset + bytes).
struct BcastPiece {
  std::size_t first = 0;  ///< first block
  std::size_t count = 0;  ///< number of blocks
  std::size_t offset = 0; ///< first byte
  std::size_t bytes = 0;  ///< number of bytes
  /// Pieces compare equal field by field.
  friend bool operator==(const BcastPiece&, const BcastPiece&) = default;
};

/// A broadcast as hpf::Schedule steps over relative ranks 0..P-1 (0 is the root, which holds the
/// message before step 0); Message::len is in bytes and pieces[k][i] says which bytes message i of
/// step k carries. Every step is a partial permutation (one-port: a rank sends at most one and
/// receives at most one message per step), and a rank forwards a block only in a step after the one
/// in which it received it. A segment sent k times to the same child is k messages in k steps, so
/// hpf::validate (which wants each pair once) applies step by step, not to the whole schedule.
struct BcastSchedule {
  Schedule schedule;                           ///< the steps (lengths in bytes)
  std::vector<std::vector<BcastPiece>> pieces; ///< pieces[k][i]: the bytes message i of step k carries
  std::size_t blocks = 0; ///< segments (trees) or blocks (scatter-collect) the m bytes are cut into
  /// Rendez-vous variants: run with ExecMode::Handshake, where each receiver sends the zero-byte
  /// ready signal of the rendez-vous before its sender may send (the executor carries the handshake,
  /// so the schedule lists data messages only).
  bool rendezvous = false;
};

/// The schedule of algorithm `a` for m bytes over P ranks (segments of `segment` bytes for the
/// segmented variants). Trees: each rank sends, in segment-major order, segment i to each child in
/// tree order, at the first step after it holds segment i and after its previous send (list
/// scheduling of bcast_tree). Scatter-collect: binomial scatter of P blocks of ceil(m / P) bytes
/// (a child receives its whole subtree's blocks in one message), then a ring allgather of P-1 steps.
/// Messages that would carry 0 bytes are left out (P = 1 or m = 0 give no steps). Throws
/// hpf::Error unless P >= 1 and segment >= 1.
BcastSchedule bcast_schedule(BcastAlgorithm a, int P, std::size_t m, std::size_t segment);

} // namespace hpf
