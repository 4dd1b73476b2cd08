// CSHIFT and EOSHIFT (Fortran semantics) on distributed arrays of any layout: BLOCK, CYCLIC(r),
// collapsed dimensions, any grid, with or without shadows. 0-based dimensions:
//
//   cshift(A, s, dim)          R(g) = A(g with g[dim] = (g[dim] + s) mod n)
//   eoshift(A, s, dim, b)      R(g) = A(g + s e_dim) where that index is inside the array, b elsewhere
//
// The communication sets are runs cut from the block-cyclic maps (layout/halo.hpp: a piece per block
// and owner, no per-element owner lookup), planned once per (layout, dim, shift) and cached with the
// layout; messages go only along the grid dimension of `dim`, all posted at once through hpf::Exchange.
#pragma once

#include <hpf/array/dist_array.hpp>

namespace hpf {

/// Collective over the grid's parent communicator: CSHIFT of A by `shift` along `dim` into `R` (same
/// layout as A, another array). Throws hpf::Error on every rank for dim outside [0, N), another layout,
/// or arguments that differ between ranks.
template <class T, int N> void cshift(const DistArray<T, N>& A, index_t shift, int dim, DistArray<T, N>& R) {
  A.shift_into(R, dim, shift, true);
}

/// Collective over the grid's parent communicator: CSHIFT of A by `shift` along `dim`, a new array in
/// A's layout labelled "cshift(<A's label>)".
template <class T, int N>
[[nodiscard]] DistArray<T, N> cshift(const DistArray<T, N>& A, index_t shift, int dim) {
  DistArray<T, N> R("cshift(" + A.label() + ")", A.layout());
  cshift(A, shift, dim, R);
  return R;
}

/// Collective over the grid's parent communicator: EOSHIFT of A by `shift` along `dim` into `R` (same
/// layout, another array); the elements shifted in from outside the array are `boundary`. Throws
/// hpf::Error on every rank for dim outside [0, N), another layout, or arguments that differ between ranks.
template <class T, int N>
void eoshift(const DistArray<T, N>& A, index_t shift, int dim, const T& boundary, DistArray<T, N>& R) {
  A.shift_into(R, dim, shift, false, &boundary); // checks (on every rank alike), then fills R
}

/// Collective over the grid's parent communicator: EOSHIFT of A, a new array in A's layout labelled
/// "eoshift(<A's label>)".
template <class T, int N> [[nodiscard]] DistArray<T, N> eoshift(const DistArray<T, N>& A, index_t shift,
                                                                int dim, const T& boundary = T{}) {
  DistArray<T, N> R("eoshift(" + A.label() + ")", A.layout());
  eoshift(A, shift, dim, boundary, R);
  return R;
}

} // namespace hpf
