// Per-array-dimension process coordinates of a grid position, and back: the coordinate of the
// process along each dimension of a Layout (0 for a collapsed dimension), in the array's dimension
// order rather than the grid's. Planners that treat each array dimension as a 1-D problem (sections,
// transposes) number processes this way.
#pragma once

#include <hpf/layout/layout.hpp>

#include <array>
#include <vector>

namespace hpf {

/// Coordinate along each array dimension of the process at grid `position` of L's grid.
template <int N> [[nodiscard]] std::array<int, N> array_coords(const Layout<N>& L, int position) {
  const std::vector<int> c = L.grid().coords_of(position);
  std::array<int, N> out{};
  for (int d = 0; d < N; ++d) out[static_cast<std::size_t>(d)] = L.coord(c, d);
  return out;
}

/// Grid position of the process with coordinate dc[d] along each array dimension d (collapsed
/// dimensions' entries are ignored; the primary copy of a replicated layout).
template <int N> [[nodiscard]] int
position_of_array_coords(const Layout<N>& L, const std::array<int, static_cast<std::size_t>(N)>& dc) {
  return L.position_of_dim_coords(dc); // the primary copy of a replicated layout
}

} // namespace hpf
