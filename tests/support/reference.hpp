// Serial references for MPI array tests: a unique value per global index, the whole array in
// Fortran order, and grids over consecutive ranks. Shared by the tests that check distributed arrays
// element by element against a serial computation.
#pragma once

#include "hpf_test.hpp"

#include <vector>

namespace hpf::test {

/// A value per global index, unique and exact in a double (indices below 1024 per dimension).
template <int N> double value_at(const Index<N>& g, double salt) {
  double v = salt;
  double scale = 1;
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
    v += static_cast<double>(g[d]) * scale;
    scale *= 1024;
  }
  return v;
}

/// The global index of Fortran-order offset `linear` in an array of extents `ext`.
template <int N> Index<N> index_of(index_t linear, const Index<N>& ext) {
  Index<N> g{};
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
    g[d] = linear % ext[d];
    linear /= ext[d];
  }
  return g;
}

/// The serial reference: value_at of every element of the array, in Fortran order.
template <int N> std::vector<double> reference(const Index<N>& ext, double salt) {
  index_t total = 1;
  for (index_t e : ext) total *= e;
  std::vector<double> out(static_cast<std::size_t>(total));
  for (index_t k = 0; k < total; ++k)
    out[static_cast<std::size_t>(k)] = value_at<N>(index_of<N>(k, ext), salt);
  return out;
}

/// Sets every element of A to value_at of its global index. Not collective.
template <int N> void fill_reference(DistArray<double, N>& A, double salt) {
  forall(A, [salt](const Index<N>& g, double& x) { x = value_at<N>(g, salt); });
}

/// Collective over MPI_COMM_WORLD: true on every rank when A, gathered on rank 0, is the global
/// array of value_at.
template <int N> bool holds_reference(const DistArray<double, N>& A, double salt) {
  const std::vector<double> all = A.gather(0);
  int bad = 0;
  if (world_rank() == 0) bad = all == reference<N>(A.layout().extents(), salt) ? 0 : 1;
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return bad == 0;
}

/// A grid of `shape` over consecutive ranks of MPI_COMM_WORLD from `first` (wrapping). Collective.
inline ProcessGrid grid_over(int first, std::vector<int> shape) {
  int count = 1;
  for (int s : shape) count *= s;
  std::vector<int> ranks;
  for (int k = 0; k < count; ++k) ranks.push_back((first + k) % world_size());
  return ProcessGrid(MPI_COMM_WORLD, ranks, std::move(shape));
}

} // namespace hpf::test
