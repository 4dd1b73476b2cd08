// The communication pattern of a 1-D block-cyclic redistribution (Desprez et al., sections 2 and 4.1-4.2).
//
// X[0..M-1] moves from CYCLIC(r) on P processes to CYCLIC(s) on Q processes. Element i lives on
// source process p = floor(i / r) mod P and goes to target process q = floor(i / s) mod Q. The
// communication grid is the P x Q matrix whose entry (p, q) is the number of elements p sends to q.
//
// Closed forms (Desprez et al.; DESIGN.md restates them):
//  - g = gcd(P r, Q s) and the slice length L = lcm(P r, Q s): elements i and i + L have the same
//    source and target, so the grid of M = n L + R elements is n times the slice grid plus the grid
//    of the first R elements.
//  - Within a slice, source block (p, l) and target block (q, m) overlap iff the offset
//    (p r - q s) + (l P r - m Q s) lies in [1 - r, s - 1], and the offsets l P r - m Q s run over
//    every multiple of g exactly once per slice. Hence the slice length of (p, q) depends only on
//    c = (p r - q s) mod g: it is the sum of vol(k) = min(r, s, r + k, s - k) over the k in
//    [1 - r, s - 1] with k = c (mod g) (Proposition 2; classes whose k coincide mod g add up).
//  - Lemma 1: with D = gcd(r, s), the pattern is that of (r / D, s / D) with lengths times D, and
//    the classes class(k) = {(p, q) : p r' - q s' = k mod g'} use r' = r / D, s' = s / D,
//    g' = g / D.
//  - Lemma 2: the pattern is all-to-all iff g' <= r' + s' - 1.
//
// Everything here is pure (no MPI) and costs O(P Q) plus, for the partial last slice, the cheaper of
// a sweep over its min(M, L) / r + min(M, L) / s block boundaries and O(min(r, s) log(P Q r s)) per
// communicating pair (floor sums): never O(M).
#pragma once

#include <hpf/core/math.hpp>
#include <hpf/schedule/schedule.hpp>

#include <optional>
#include <utility>
#include <vector>

namespace hpf {

/// The derived quantities of a redistribution CYCLIC(r) on P -> CYCLIC(s) on Q.
struct BlockCyclicGeometry {
  int P = 1;                ///< source processes
  index_t r = 1;            ///< source block size
  int Q = 1;                ///< target processes
  index_t s = 1;            ///< target block size
  index_t D = 1;            ///< gcd(r, s) (Lemma 1)
  index_t g = 1;            ///< gcd(P r, Q s)
  std::optional<index_t> L; ///< lcm(P r, Q s), the slice length; empty if it exceeds index_t
  index_t r_red = 1;        ///< r / D
  index_t s_red = 1;        ///< s / D
  index_t g_red = 1;        ///< g / D = gcd(P r', Q s'): the number of classes mod g'
  bool all_to_all = false;  ///< Lemma 2: every source sends to every target (per slice)
};

/// Validates P, r, Q, s (all >= 1, P r and Q s representable) and computes the geometry.
/// Throws hpf::Error naming the bad argument.
[[nodiscard]] BlockCyclicGeometry block_cyclic_geometry(int P, index_t r, int Q, index_t s);

/// L = lcm(P r, Q s). Throws hpf::Error if it does not fit in index_t.
[[nodiscard]] index_t slice_length(int P, index_t r, int Q, index_t s);

/// Lemma 2 (Desprez et al.): the redistribution is all-to-all iff g' <= r' + s' - 1 (after Lemma 1).
[[nodiscard]] bool is_all_to_all(int P, index_t r, int Q, index_t s);

/// vol(k) of Proposition 2: the overlap of a source block and a target block whose starts differ by
/// k, i.e. min(r, s, r + k, s - k), and 0 outside [1 - r, s - 1]. Requires r, s >= 1.
[[nodiscard]] index_t block_overlap(index_t r, index_t s, index_t k);

/// The class of pair (p, q) in the reduced problem of Lemma 1: (p r' - q s') mod g', in [0, g').
[[nodiscard]] index_t pair_class(const BlockCyclicGeometry& geo, int p, int q);

/// The k in [1 - r', s' - 1] with k = c (mod g'): the classes class(k) of the paper that make up
/// residue c (more than one only when g' < r' + s' - 1). Empty when (p, q) of class c never talk.
[[nodiscard]] std::vector<index_t> class_offsets(const BlockCyclicGeometry& geo, index_t c);

/// Elements one pair of class residue c (mod g') exchanges per slice of L elements:
/// D * sum of vol'(k) over class_offsets(geo, c), vol' being vol for (r', s').
[[nodiscard]] index_t class_slice_volume(const BlockCyclicGeometry& geo, index_t c);

/// The pairs (p, q) of class residue c, sorted by (p, q): P Q / g' pairs (Proposition 1).
[[nodiscard]] std::vector<std::pair<int, int>> class_members(const BlockCyclicGeometry& geo, index_t c);

/// The P x Q grid of one slice of L elements (length(p, q) of Definition 3). Throws hpf::Error if L
/// does not fit in index_t.
[[nodiscard]] CommMatrix block_cyclic_slice_pattern(int P, index_t r, int Q, index_t s);

/// The P x Q grid of moving X[0..M-1] (element counts); M = 0 gives an empty grid. Throws
/// hpf::Error for P, Q, r, s < 1 or M < 0.
[[nodiscard]] CommMatrix block_cyclic_pattern(int P, index_t r, int Q, index_t s, index_t M);

namespace detail {
/// The two ways of computing the partial last slice, exposed so tests check both against brute
/// force: a sweep over the block boundaries of [0, R), and floor sums per communicating pair.
enum class PartialSliceMethod { Auto, Sweep, FloorSum };
[[nodiscard]] CommMatrix block_cyclic_pattern(int P, index_t r, int Q, index_t s, index_t M,
                                              PartialSliceMethod method);
/// 128-bit integer (a GCC/Clang extension): floor sums of 64-bit terms exceed 64 bits.
__extension__ typedef __int128 int128;
/// sum_{i = 0}^{n - 1} floor((a i + b) / m) for n >= 0, m >= 1, a, b >= 0 (Euclid-like, O(log)).
[[nodiscard]] int128 floor_sum(index_t n, index_t m, index_t a, int128 b);
} // namespace detail

} // namespace hpf
