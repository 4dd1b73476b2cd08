// The linear assignment problem, solved exactly: which row takes each column of an n x n matrix of
// non-negative integer weights so that the sum of the chosen entries is the largest possible. Process
// relabeling (redist/relabel.hpp) asks it which rank should take each position of a target grid.
//
// Solved as a minimum-cost flow by LEMON's network simplex (liblemon-dev, lemon::NetworkSimplex), an
// exact integer method: a source gives every row one unit, row i passes its unit to column j at cost
// -w(i, j) along an arc that exists only where w(i, j) > 0, every column passes one unit on to the sink,
// and an arc from the source straight to the sink, at cost 0, carries the units of the rows that stay
// unmatched. Integral capacities give an integral optimal flow: its row-to-column arcs are a matching of
// the positive entries of largest weight. The rows and columns it leaves free are then paired in
// increasing order at weight 0, which keeps the sum (weights are >= 0) and makes a permutation. Only
// positive entries become arcs: the communication matrices of block-cyclic patterns are sparse.
//
// Pure (no MPI) and deterministic: the same matrix gives the same assignment on every rank.
#pragma once

#include <hpf/core/math.hpp>

#include <span>
#include <vector>

namespace hpf {

/// An assignment of rows to the columns of an n x n matrix (max_weight_assignment).
struct Assignment {
  /// Per column j, the row that takes it: a permutation of 0..n-1.
  std::vector<int> row_of;
  /// Sum over the columns j of w(row_of[j], j).
  index_t weight = 0;
};

/// The largest sum of weights a row-to-column assignment can keep, as an absolute bound: the sum of all
/// weights must not exceed it, so that the network simplex's 64-bit node potentials (at most 2^62
/// from its artificial arcs, plus path sums of weights) cannot overflow.
inline constexpr index_t max_assignment_total = index_t{1} << 60U;

/// A permutation row_of that maximises sum_j weights[row_of[j] * n + j] over all permutations of
/// 0..n-1 (`weights` row-major, n * n entries). Exact (see the header comment). Throws hpf::Error for
/// n < 0, a matrix of another size, a negative weight, or weights summing past max_assignment_total.
[[nodiscard]] Assignment max_weight_assignment(int n, std::span<const index_t> weights);

} // namespace hpf
