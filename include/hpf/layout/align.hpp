// HPF ALIGN: an array mapped through another array (or template), its base (docs/align.md).
//
// Per dimension j of the aligned array an AlignDim names a base dimension k, a stride a != 0 and an
// offset b: element i of dimension j sits where base element a*i + b of dimension k sits. A dimension
// aligned with base_dim = AlignDim::collapsed is held whole (HPF's `*` on the aligned side). Base
// dimensions that no aligned dimension names are either replicated over (HPF's `*` on the base side:
// every grid coordinate along the base's grid dimension holds a copy) or fixed at a constant base
// index (only the grid coordinate that owns that index holds elements).
//
//   HPF                                       hpfrt
//   ALIGN B(i, j) WITH A(j, 2*i - 1)          dims {{ {1, 2, 0}, {0, 1, 0} }}  (0-based: i - 1 -> 2(i - 1))
//   ALIGN X(i) WITH A(i, *)                   dims {{0, 1, 0}}, base_index {-, Alignment::replicated}
//   ALIGN X(i) WITH A(i, 5)                   dims {{0, 1, 0}}, base_index {-, 5}
//
// Layout<N>::aligned(base, alignment) (layout.hpp) turns this into an ordinary Layout<N> on the base's
// grid; aligned_distribution() below is its per-dimension part, pure and tested against brute force.
#pragma once

#include <hpf/core/math.hpp>
#include <hpf/layout/cyclic_map.hpp>
#include <hpf/layout/distribution.hpp>

#include <array>
#include <string>

namespace hpf {

/// One dimension of an alignment: element i sits where base element stride*i + offset of base
/// dimension base_dim sits; base_dim = AlignDim::collapsed holds the dimension whole.
struct AlignDim {
  static constexpr int collapsed = -1; ///< base_dim of a dimension held whole
  int base_dim = collapsed;            ///< the base dimension, or collapsed
  index_t stride = 1;                  ///< a != 0
  index_t offset = 0;                  ///< b: base index of element 0
  /// Alignments compare equal field by field.
  friend bool operator==(const AlignDim&, const AlignDim&) = default;
};

/// The alignment of an N-d array with an M-d base. `base_index[k]` says what a base dimension k that
/// no entry of `dims` names does: Alignment::replicated (the default: a copy on every grid coordinate
/// along it) or a base index in [0, extent) (only its owner holds elements). Entries of base
/// dimensions that some aligned dimension names are ignored.
template <int N, int M> struct Alignment {
  static constexpr index_t replicated = -1; ///< base_index of a base dimension replicated over
  std::array<AlignDim, static_cast<std::size_t>(N)> dims{}; ///< one per aligned dimension
  std::array<index_t, static_cast<std::size_t>(M)> base_index =
      filled(replicated); ///< one per base dimension (see above)

  /// The identity alignment of an N-d array with an N-d base (element g sits at base element g).
  static Alignment identity() {
    Alignment a;
    for (int d = 0; d < N; ++d) a.dims[static_cast<std::size_t>(d)] = {d, 1, 0};
    return a;
  }
  /// Alignments compare equal field by field.
  friend bool operator==(const Alignment&, const Alignment&) = default;

private:
  static constexpr std::array<index_t, static_cast<std::size_t>(M)> filled(index_t v) {
    std::array<index_t, static_cast<std::size_t>(M)> out{};
    for (auto& x : out) x = v;
    return out;
  }
};

namespace detail {

/// The distribution of an aligned dimension of extent n whose element i sits at base element a*i + b
/// of a base dimension distributed by `base_dist` (map `base`: extent, P, block, tables). Exact:
/// map(n, base.P).owner(i) == base.owner(a*i + b) for every i in [0, n). Chosen as the cheapest exact
/// map (docs/align.md):
///   - `base_dist` itself when a = 1, b = 0 and n = base.n;
///   - CYCLIC(r) when the base is CYCLIC(r) (or BLOCK: CYCLIC(ceil(n_base / P))), a = 1 and b a
///     multiple of P r (the same owners, every block starting on a block boundary);
///   - GEN_BLOCK when the owners are non-decreasing in i (a > 0 over a base whose owners are
///     non-decreasing: BLOCK, GEN_BLOCK, one process, one cycle), its sizes in O(P) by searching
///     the base's block starts;
///   - otherwise INDIRECT: the owner table, built from one period P r / gcd(|a|, P r) of the
///     owner sequence on a CYCLIC(r) base, element by element on GEN_BLOCK and INDIRECT bases.
/// Throws hpf::Error (naming `what`) when a*i + b leaves [0, base.n) for some i in [0, n), or a = 0.
Distribution aligned_distribution(const Distribution& base_dist, const CyclicMap& base, index_t n, index_t a,
                                  index_t b, const std::string& what);

/// Throws hpf::Error naming `what` unless a != 0 and a*i + b is in [0, base_n) for every i in [0, n).
void check_alignment_range(index_t base_n, index_t n, index_t a, index_t b, const std::string& what);

} // namespace detail
} // namespace hpf
