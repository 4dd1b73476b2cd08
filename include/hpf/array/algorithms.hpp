// Data-parallel operations on DistArray: forall kernels and collective reductions.
#pragma once

#include <hpf/array/dist_array.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace hpf {

/// Runs f(Index<N> global_index, T& element) over every locally owned element, through Kokkos
/// (DefaultHostExecutionSpace). Not collective: each rank runs its own part; ranks outside the grid
/// run nothing. On a replicated layout every copy runs f on its elements (f must give every copy the
/// same value: a function of the global index and of replicated data). The iteration order is unspecified; f
/// must not depend on it.
template <class T, int N, class F> void forall(DistArray<T, N>& A, F f) {
  if (A.local_size() == 0) return;
  const auto& view = A.local_view();
  T* const data = view.data();
  std::array<CyclicMap, N> maps{};
  Index<N> own = A.owned_extents();
  Index<N> w{};
  Index<N> vext{};
  for (int d = 0; d < N; ++d) {
    const auto du = static_cast<std::size_t>(d);
    maps[du] = A.layout().map(d);
    w[du] = A.layout().shadow(d);
    vext[du] = static_cast<index_t>(view.extent(du));
  }
  const std::array<int, N> c = A.my_dim_coords();
  index_t columns = 1;
  for (int d = 1; d < N; ++d) columns *= own[static_cast<std::size_t>(d)];
  using Policy = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<index_t>>;
  // One work item per owned column (all dimensions but the fastest); the fastest runs as the inner
  // loop, block by block of the CyclicMap, so global indices come from the map (no per-element
  // table). Storage slots skip the shadow (halo_slot), which is never visited.
  Kokkos::parallel_for("hpf::forall(" + A.label() + ")", Policy(0, columns), [=](index_t col) {
    Index<N> g{};
    index_t rest = col;
    index_t off = 0;
    index_t stride = vext[0];
    for (std::size_t d = 1; d < static_cast<std::size_t>(N); ++d) {
      const index_t l = rest % own[d];
      rest /= own[d];
      g[d] = maps[d].global(c[d], l);
      off += halo_slot(maps[d], w[d], l) * stride;
      stride *= vext[d];
    }
    T* const column = data + off;
    const CyclicMap m0 = maps[0];
    const index_t e0 = own[0];
    for (index_t l0 = 0; l0 < e0; l0 += m0.r) {
      const index_t g0 = m0.global(c[0], l0);
      const index_t len = e0 - l0 < m0.r ? e0 - l0 : m0.r;
      T* const run = column + halo_slot(m0, w[0], l0);
      for (index_t i = 0; i < len; ++i) {
        g[0] = g0 + i;
        f(static_cast<const Index<N>&>(g), run[i]);
      }
    }
  });
}

namespace detail {

/// Collective over A's grid's parent communicator: throws the same hpf::Error on every rank unless
/// every rank passed an array of the same layout (extents, distributions, grid, shadow) and element
/// size: ranks whose extents differ would otherwise reduce different arrays into a wrong result with
/// no error. One small allreduce.
template <class T, int N> void check_same_array(const DistArray<T, N>& A, const char* what) {
  AgreementWords w;
  w.add(static_cast<std::int64_t>(sizeof(T)), [] { return std::string("sizeof(T)"); });
  add_layout_words(w, A.layout(), "layout.");
  w.check(A.layout().grid().comm().get(), what);
}

template <class T, int N> void require_nonempty(const DistArray<T, N>& A, const char* what) {
  if (A.layout().global_size() == 0) // not require(): its text would be built on every reduction
    fail(what, "(DistArray '", A.label(), "'): the array is empty (extents ",
         Layout<N>::to_string(A.layout().extents()), "); expected at least one element");
}

/// The reductions' common part: agreement first (so that the empty-array check below, and the
/// allreduce, are reached by every rank alike), then the local fold and one MPI_Allreduce.
template <class T, int N, class Reducer, class Op>
T reduce(const DistArray<T, N>& A, const char* what, bool need_elements, T identity, Op op, MPI_Op mpi_op) {
  static_assert(has_mpi_type_v<T>, "hpf reductions need an arithmetic element type");
  check_same_array(A, what);
  if (need_elements) require_nonempty(A, what);
  const auto& view = A.local_view();
  const T* const data = view.data();
  T local = identity;
  // Each element counts once: only the primary copy of a replicated array contributes (Layout::is_primary).
  if (!A.primary_copy()) {
    // a copy, or no block: contributes the identity
  } else if (A.has_shadow()) {
    A.for_each_owned_run([&](const T* p, index_t n) {
      for (index_t i = 0; i < n; ++i) local = op(local, p[i]);
    });
  } else if (view.size() > 0) {
    using Policy = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<index_t>>;
    Kokkos::parallel_reduce(
        "hpf::reduce(" + A.label() + ")", Policy(0, static_cast<index_t>(view.size())),
        [=](index_t i, T& acc) { acc = op(acc, data[i]); }, Reducer(local));
  }
  T global = identity;
  HPF_MPI_CHECK(MPI_Allreduce(&local, &global, 1, mpi_type<T>(), mpi_op, A.layout().grid().comm().get()));
  return global;
}

} // namespace detail

/// Collective over the grid's parent communicator: the sum of all elements, on every rank. Throws
/// hpf::Error on every rank unless every rank passed an array of the same layout.
template <class T, int N> T sum(const DistArray<T, N>& A) {
  return detail::reduce<T, N, Kokkos::Sum<T>>(
      A, "hpf::sum", false, T(0), [](T a, T b) { return a + b; }, MPI_SUM);
}

/// Collective over the grid's parent communicator: the smallest element, on every rank.
/// Throws hpf::Error on every rank for an empty array, or unless every rank passed the same layout.
template <class T, int N> T min(const DistArray<T, N>& A) {
  return detail::reduce<T, N, Kokkos::Min<T>>(
      A, "hpf::min", true, std::numeric_limits<T>::max(), [](T a, T b) { return b < a ? b : a; }, MPI_MIN);
}

/// Collective over the grid's parent communicator: the largest element, on every rank.
/// Throws hpf::Error on every rank for an empty array, or unless every rank passed the same layout.
template <class T, int N> T max(const DistArray<T, N>& A) {
  return detail::reduce<T, N, Kokkos::Max<T>>(
      A, "hpf::max", true, std::numeric_limits<T>::lowest(), [](T a, T b) { return a < b ? b : a; }, MPI_MAX);
}

} // namespace hpf
