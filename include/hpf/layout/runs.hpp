// Contiguous runs of a local block: the unit of packing for gather, scatter and redistribution.
//
// Along dimension 0 (fastest in memory, locally and globally) a CYCLIC(r) block of r elements is
// contiguous both in local memory and in the global array, so the local block of a process is a
// sequence of runs  (local offset, global offset, length)  with length <= r. Moving data run by run
// never needs an owner computation per element.
#pragma once

#include <hpf/layout/layout.hpp>

#include <algorithm>

namespace hpf {

/// Fortran-order strides of an extents vector.
template <int N> Index<N> fortran_strides(const Index<N>& extents) noexcept {
  Index<N> s{};
  index_t acc = 1;
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
    s[d] = acc;
    acc *= extents[d];
  }
  return s;
}

/// Calls fn(local_offset, global_offset, length) for every run of the local block of the process at
/// grid `position`, in local memory order. Offsets are Fortran-order linear offsets into the local
/// block and into the global array.
template <int N, class Fn> void for_each_run(const Layout<N>& layout, int position, Fn&& fn) {
  const Index<N> ext = layout.local_extents(position);
  for (index_t e : ext)
    if (e == 0) return;
  const std::vector<int> c = layout.grid().coords_of(position);
  const Index<N> gstride = fortran_strides<N>(layout.extents());
  const Index<N> lstride = fortran_strides<N>(ext);
  const CyclicMap& m0 = layout.map(0);
  const int c0 = layout.coord(c, 0);

  Index<N> l{}; // odometer over dimensions 1..N-1
  while (true) {
    index_t gbase = 0;
    index_t lbase = 0;
    for (int d = 1; d < N; ++d) {
      const auto du = static_cast<std::size_t>(d);
      gbase += layout.map(d).global(layout.coord(c, d), l[du]) * gstride[du];
      lbase += l[du] * lstride[du];
    }
    for (index_t l0 = 0; l0 < ext[0]; l0 += m0.r) {
      const index_t len = std::min(m0.r, ext[0] - l0);
      fn(lbase + l0, gbase + m0.global(c0, l0), len);
    }
    int d = 1;
    for (; d < N; ++d) {
      const auto du = static_cast<std::size_t>(d);
      if (++l[du] < ext[du]) break;
      l[du] = 0;
    }
    if (d >= N) return;
  }
}

} // namespace hpf
