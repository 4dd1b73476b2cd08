// Data-parallel operations on DistArray: forall kernels and collective reductions.
#pragma once

#include <hpf/array/dist_array.hpp>

#include <limits>

namespace hpf {

/// Runs f(Index<N> global_index, T& element) over every locally owned element, through Kokkos
/// (DefaultHostExecutionSpace). Not collective: each rank runs its own part; ranks outside the grid
/// run nothing. The iteration order is unspecified; f must not depend on it.
template <class T, int N, class F> void forall(DistArray<T, N>& A, F f) {
  const auto& view = A.local_view();
  if (view.size() == 0) return;
  T* const data = view.data();
  std::array<CyclicMap, N> maps{};
  Index<N> ext{};
  for (int d = 0; d < N; ++d) {
    maps[static_cast<std::size_t>(d)] = A.layout().map(d);
    ext[static_cast<std::size_t>(d)] = static_cast<index_t>(view.extent(static_cast<std::size_t>(d)));
  }
  const std::array<int, N> c = A.my_dim_coords();
  const index_t e0 = ext[0];
  const index_t columns = static_cast<index_t>(view.size()) / e0;
  using Policy = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<index_t>>;
  // One work item per column (all dimensions but the fastest); the fastest runs as the inner loop,
  // block by block of the CyclicMap, so global indices come from the map (no per-element table).
  Kokkos::parallel_for("hpf::forall(" + A.label() + ")", Policy(0, columns), [=](index_t col) {
    Index<N> g{};
    index_t rest = col;
    for (std::size_t d = 1; d < static_cast<std::size_t>(N); ++d) {
      g[d] = maps[d].global(c[d], rest % ext[d]);
      rest /= ext[d];
    }
    T* const column = data + col * e0;
    const CyclicMap m0 = maps[0];
    for (index_t l0 = 0; l0 < e0; l0 += m0.r) {
      const index_t g0 = m0.global(c[0], l0);
      const index_t len = e0 - l0 < m0.r ? e0 - l0 : m0.r;
      for (index_t i = 0; i < len; ++i) {
        g[0] = g0 + i;
        f(static_cast<const Index<N>&>(g), column[l0 + i]);
      }
    }
  });
}

namespace detail {

template <class T, int N, class Reducer, class Op>
T reduce(const DistArray<T, N>& A, T identity, Op op, MPI_Op mpi_op) {
  static_assert(has_mpi_type_v<T>, "hpf reductions need an arithmetic element type");
  const auto& view = A.local_view();
  const T* const data = view.data();
  T local = identity;
  if (view.size() > 0) {
    using Policy = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<index_t>>;
    Kokkos::parallel_reduce(
        "hpf::reduce(" + A.label() + ")", Policy(0, static_cast<index_t>(view.size())),
        [=](index_t i, T& acc) { acc = op(acc, data[i]); }, Reducer(local));
  }
  T global = identity;
  HPF_MPI_CHECK(MPI_Allreduce(&local, &global, 1, mpi_type<T>(), mpi_op, A.layout().grid().comm().get()));
  return global;
}

template <class T, int N> void require_nonempty(const DistArray<T, N>& A, const char* what) {
  require(A.layout().global_size() > 0, what, "(DistArray '", A.label(), "'): the array is empty (extents ",
          Layout<N>::to_string(A.layout().extents()), "); expected at least one element");
}

} // namespace detail

/// Collective over the grid's parent communicator: the sum of all elements, on every rank.
template <class T, int N> T sum(const DistArray<T, N>& A) {
  return detail::reduce<T, N, Kokkos::Sum<T>>(
      A, T(0), [](T a, T b) { return a + b; }, MPI_SUM);
}

/// Collective over the grid's parent communicator: the smallest element, on every rank.
/// Throws hpf::Error on every rank for an empty array.
template <class T, int N> T min(const DistArray<T, N>& A) {
  detail::require_nonempty(A, "hpf::min");
  return detail::reduce<T, N, Kokkos::Min<T>>(
      A, std::numeric_limits<T>::max(), [](T a, T b) { return b < a ? b : a; }, MPI_MIN);
}

/// Collective over the grid's parent communicator: the largest element, on every rank.
/// Throws hpf::Error on every rank for an empty array.
template <class T, int N> T max(const DistArray<T, N>& A) {
  detail::require_nonempty(A, "hpf::max");
  return detail::reduce<T, N, Kokkos::Max<T>>(
      A, std::numeric_limits<T>::lowest(), [](T a, T b) { return a < b ? b : a; }, MPI_MAX);
}

} // namespace hpf
