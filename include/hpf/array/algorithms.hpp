// Data-parallel operations on DistArray: forall kernels over one or several arrays, and collective
// reductions (sum, product, min, max, and hpf::reduce with an operator of the caller's).
#pragma once

#include <hpf/array/dist_array.hpp>

#include <array>
#include <complex>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace hpf {

namespace detail {

template <class X> struct DistArrayTraits : std::false_type {};
template <class T, int N> struct DistArrayTraits<DistArray<T, N>> : std::true_type {
  using value_type = T;
  static constexpr int rank = N;
};
/// True for a DistArray<T, N> of any T and N, whatever its cv-qualification and reference.
template <class X> inline constexpr bool is_dist_array_v = DistArrayTraits<std::remove_cvref_t<X>>::value;
template <class X>
concept DistArrayArg = is_dist_array_v<X>;
/// Rank N of the DistArray type X (X may be cv-qualified or a reference).
template <class X> inline constexpr int dist_rank_v = DistArrayTraits<std::remove_cvref_t<X>>::rank;
/// The element type that forall hands out for an argument of type X: T, or const T for a const array.
template <class X> using zip_element_t = std::conditional_t<std::is_const_v<std::remove_reference_t<X>>,
                                                            const typename std::remove_cvref_t<X>::value_type,
                                                            typename std::remove_cvref_t<X>::value_type>;

/// One array of a forall: its storage, its shadow widths and the extents of its storage. The arrays
/// of one forall share their index maps; only these differ between them.
template <class E, int N> struct ZipArg {
  E* data;
  Index<N> w;
  Index<N> vext;
};

template <class X> auto zip_arg(X& a) {
  constexpr int N = dist_rank_v<X>;
  ZipArg<zip_element_t<X>, N> z{a.local_data(), {}, {}};
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
    z.w[d] = a.layout().shadow(static_cast<int>(d));
    z.vext[d] = static_cast<index_t>(a.local_view().extent(d));
  }
  return z;
}

/// Why the owned elements of layout b do not coincide with a's (empty when they do): same extents,
/// the same index map in every dimension, on the same grid with the same placement; shadow widths
/// may differ. Depends on the layouts only, so every rank reaches the same verdict. Local.
template <int N> std::string owned_mismatch(const Layout<N>& a, const Layout<N>& b) {
  if (a == b) return {};
  if (a.extents() != b.extents())
    return concat("its extents ", Layout<N>::to_string(b.extents()), " differ from ",
                  Layout<N>::to_string(a.extents()));
  for (int d = 0; d < N; ++d) {
    if (!(a.map(d) == b.map(d)) || a.grid_dim(d) != b.grid_dim(d))
      return concat("dimension ", d, " is distributed ", b.dist(d).to_string(), " (block ", b.map(d).r,
                    " over ", b.map(d).P, " processes, grid dimension ", b.grid_dim(d),
                    ") where the first is ", a.dist(d).to_string(), " (block ", a.map(d).r, " over ",
                    a.map(d).P, " processes, grid dimension ", a.grid_dim(d), ")");
  }
  if (!(a.grid() == b.grid())) return "its process grid differs from the first array's";
  if (a.placement().unused != b.placement().unused)
    return "its replicated or fixed grid dimensions differ from the first array's";
  return {};
}

/// Each array's run of local block l0 (of dimension 0's map m0) in the column that starts at cols.
template <class Cols, class Args, std::size_t... K> auto
zip_runs(const Cols& cols, const Args& args, const CyclicMap& m0, index_t l0, std::index_sequence<K...>) {
  return std::make_tuple((std::get<K>(cols) + halo_slot(m0, std::get<K>(args).w[0], l0))...);
}

/// Each array's run of the next local block: r + 2w slots further (r elements and two shadows).
template <class Runs, class Args, std::size_t... K>
auto zip_advance(const Runs& runs, const Args& args, index_t r, std::index_sequence<K...>) {
  return std::make_tuple((std::get<K>(runs) + (r + 2 * std::get<K>(args).w[0]))...);
}

/// The innermost loop of forall: len elements of one run in every array, g[0] from g0 up.
template <int N, class F, class Runs, std::size_t... K>
void zip_block(F& f, Index<N>& g, index_t g0, index_t len, const Runs& runs, std::index_sequence<K...>) {
  for (index_t i = 0; i < len; ++i) {
    g[0] = g0 + i;
    f(static_cast<const Index<N>&>(g), std::get<K>(runs)[i]...);
  }
}

/// The engine of forall: one work item per owned column (all dimensions but the fastest) of the
/// shared index map; the fastest dimension runs as the inner loop, block by block of its CyclicMap,
/// over every array's storage at once (a zip), so global indices come from the map once per block
/// (g[0] grows by one per element) and no element goes through a global-to-local computation.
/// Storage slots skip each array's own shadow (halo_slot), which is never visited.
template <class F, class A0, class... As> void forall_zip(F& f, A0& a0, As&... as) {
  constexpr int N = dist_rank_v<A0>;
  static_assert(((dist_rank_v<As> == N) && ...),
                "hpf::forall: every array must have the same number of dimensions N");
  static_assert(std::is_invocable_v<F&, const Index<N>&, zip_element_t<A0>&, zip_element_t<As>&...>,
                "hpf::forall: the kernel must be callable as f(const hpf::Index<N>& g, T0& a0, T1& a1, ...) "
                "with one element reference per array, in the order of the arrays (const T& for a const "
                "array)");
  if constexpr (sizeof...(As) > 0) {
    int k = 1;
    const auto check = [&](const auto& a) {
      ++k;
      const std::string why = owned_mismatch(a0.layout(), a.layout());
      if (!why.empty())
        fail("hpf::forall: argument ", k, " (DistArray '", a.label(), "', ", a.layout().describe_dists(),
             " of extents ", Layout<N>::to_string(a.layout().extents()),
             ") does not own the same elements as argument 1 (DistArray '", a0.label(), "', ",
             a0.layout().describe_dists(), " of extents ", Layout<N>::to_string(a0.layout().extents()),
             "): ", why,
             "; expected the same layout, or an aligned one with the same extents and index map "
             "in every dimension on the same grid (shadow widths may differ)");
    };
    (check(as), ...);
  }
  if (a0.local_size() == 0) return;
  std::array<CyclicMap, N> maps{};
  for (int d = 0; d < N; ++d) maps[static_cast<std::size_t>(d)] = a0.layout().map(d);
  const Index<N> own = a0.owned_extents();
  const std::array<int, N> c = a0.my_dim_coords();
  const auto args = std::make_tuple(zip_arg(a0), zip_arg(as)...);
  index_t columns = 1;
  for (int d = 1; d < N; ++d) columns *= own[static_cast<std::size_t>(d)];
  using Policy = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<index_t>>;
  Kokkos::parallel_for("hpf::forall(" + a0.label() + ")", Policy(0, columns), [=](index_t col) {
    Index<N> g{};
    Index<N> l{};
    index_t rest = col;
    for (std::size_t d = 1; d < static_cast<std::size_t>(N); ++d) {
      l[d] = rest % own[d];
      rest /= own[d];
      g[d] = maps[d].global(c[d], l[d]);
    }
    // The start of this column in each array's storage.
    const auto column = [&](const auto& z) {
      index_t off = 0;
      index_t stride = z.vext[0];
      for (std::size_t d = 1; d < static_cast<std::size_t>(N); ++d) {
        off += halo_slot(maps[d], z.w[d], l[d]) * stride;
        stride *= z.vext[d];
      }
      return z.data + off;
    };
    const auto columns_of = std::apply([&](const auto&... z) { return std::make_tuple(column(z)...); }, args);
    // Block by block along dimension 0, without a division: block b of an array of shadow width w
    // starts at slot b (r + 2w) + w (halo_slot), and on a CYCLIC(r) map its global index grows by P r.
    const CyclicMap& m0 = maps[0];
    const index_t e0 = own[0];
    constexpr auto K = std::index_sequence_for<A0, As...>{};
    auto runs = zip_runs(columns_of, args, m0, 0, K);
    index_t g0 = m0.global(c[0], 0);
    for (index_t l0 = 0; l0 < e0; l0 += m0.r) {
      const index_t len = e0 - l0 < m0.r ? e0 - l0 : m0.r;
      zip_block<N>(f, g, g0, len, runs, K);
      if (len < m0.r || l0 + m0.r >= e0) break;
      runs = zip_advance(runs, args, m0.r, K);
      g0 = m0.regular() ? g0 + static_cast<index_t>(m0.P) * m0.r : m0.global(c[0], l0 + m0.r);
    }
  });
}

/// forall's arguments as a tuple of references: the arrays (I...), then the kernel.
template <class Refs, std::size_t... I> void forall_split(Refs refs, std::index_sequence<I...>) {
  static_assert((is_dist_array_v<std::tuple_element_t<I, Refs>> && ...),
                "hpf::forall(A, B, ..., f): every argument but the last (the kernel) must be a DistArray");
  forall_zip(std::get<sizeof...(I)>(refs), std::get<I>(refs)...);
}

} // namespace detail

/// Runs f(Index<N> global_index, T& element) over every locally owned element, through Kokkos
/// (DefaultHostExecutionSpace). Not collective: each rank runs its own part; ranks outside the grid
/// run nothing. On a replicated layout every copy runs f on its elements (f must give every copy the
/// same value: a function of the global index and of replicated data). The iteration order is unspecified; f
/// must not depend on it.
template <class T, int N, class F> void forall(DistArray<T, N>& A, F f) { detail::forall_zip(f, A); }
/// forall over a const array: f(Index<N> global_index, const T& element), to read.
template <class T, int N, class F> void forall(const DistArray<T, N>& A, F f) { detail::forall_zip(f, A); }

/// forall over several arrays at once: f(const Index<N>& g, T0& a0, T1& a1, ...) runs for every
/// locally owned global index g with a reference to g's element in each array, in argument order
/// (the kernel comes last; element types may differ; a const array hands out const T&). E.g.
///
///   hpf::forall(A, B, C, [=](const hpf::Index<1>&, double& a, double& b, double& c) { a = b + s * c; });
///
/// The arrays must own the same elements: the same layout, or layouts with the same extents and the
/// same index map in every dimension on the same grid (an identity ALIGN, BLOCK and CYCLIC(ceil(n/P))
/// alike); their shadow widths may differ, and only owned elements are visited. The local blocks are
/// walked side by side, run by run, with g computed incrementally: a kernel that ignores g runs as a
/// plain loop over the local storage. Not collective: throws hpf::Error (on every rank alike, as it
/// depends on the layouts only) naming the first argument whose owned elements differ from the first
/// array's, and how. Iteration order as in forall over one array.
template <detail::DistArrayArg A0, detail::DistArrayArg A1, class... Rest>
void forall(A0&& a0, A1&& a1, Rest&&... rest) {
  static_assert(sizeof...(Rest) >= 1, "hpf::forall(A, B, ..., f): the kernel f comes last");
  detail::forall_split(std::forward_as_tuple(a0, a1, rest...),
                       std::make_index_sequence<sizeof...(Rest) + 1>{});
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

/// Elements every rank can compare: what min and max need.
template <class T>
concept Ordered = requires(const T& a, const T& b) {
  { a < b } -> std::convertible_to<bool>;
};

/// The datatype of a reduction by a predefined MPI_Op: std::complex as the C complex types (the same
/// layout), on which every MPI library defines MPI_SUM and MPI_PROD.
template <class T> MPI_Datatype reduction_mpi_type() {
  if constexpr (std::is_same_v<T, std::complex<float>>)
    return MPI_C_FLOAT_COMPLEX;
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    return MPI_C_DOUBLE_COMPLEX;
  else
    return mpi_type<T>();
}

/// Calls fn(const T* first, index_t len) for the runs of owned elements this rank contributes to a
/// reduction: those of the primary copy only (Layout::is_primary), so that each element counts once
/// on a replicated layout; the whole block at once without a shadow. Local.
template <class T, int N, class Fn> void for_each_reduced_run(const DistArray<T, N>& A, Fn&& fn) {
  if (!A.primary_copy() || A.local_size() == 0) return;
  if (!A.has_shadow()) {
    fn(static_cast<const T*>(A.local_data()), A.local_size());
  } else {
    A.for_each_owned_run([&](const T* p, index_t n) { fn(p, n); });
  }
}

/// The reductions by a predefined MPI_Op: agreement first (so that the empty-array check below, and
/// the allreduce, are reached by every rank alike), then the local fold in storage order and one
/// MPI_Allreduce.
template <class T, int N, class Op> T reduce_mpi(const DistArray<T, N>& A, const char* what,
                                                 bool need_elements, T identity, Op op, MPI_Op mpi_op) {
  static_assert(has_mpi_type_v<T>,
                "hpf reductions by an MPI_Op need an arithmetic or std::complex element type");
  check_same_array(A, what);
  if (need_elements) require_nonempty(A, what);
  T local = identity;
  for_each_reduced_run(A, [&](const T* p, index_t n) {
    T acc = local;
    for (index_t i = 0; i < n; ++i) acc = op(acc, p[i]);
    local = acc;
  });
  T global = identity;
  HPF_MPI_CHECK(
      MPI_Allreduce(&local, &global, 1, reduction_mpi_type<T>(), mpi_op, A.layout().grid().comm().get()));
  return global;
}

/// A reduction by any op: the fold of this rank's elements in storage order (std::nullopt when it
/// contributes none), then every rank's fold gathered (one MPI_Allgather of sizeof(T) + 1 bytes a
/// rank) and folded in rank order of the parent communicator, so that every rank computes the same
/// bits. The result is op(...op(op(init, x_0), x_1)..., x_k) over the contributions x in that order;
/// without `init`, the fold of the contributions alone (std::nullopt for an empty array). With
/// `need_elements`, an empty array throws hpf::Error on every rank.
template <class T, int N, class Op> std::optional<T>
reduce_any(const DistArray<T, N>& A, const char* what, bool need_elements, std::optional<T> init, Op& op) {
  static_assert(std::is_invocable_v<Op&, const T&, const T&> &&
                    std::is_convertible_v<std::invoke_result_t<Op&, const T&, const T&>, T>,
                "hpf::reduce(A, init, op): op must be callable as op(const T&, const T&) and return a T");
  check_same_array(A, what);
  if (need_elements) require_nonempty(A, what);
  std::optional<T> mine;
  for_each_reduced_run(A, [&](const T* p, index_t n) {
    index_t i = 0;
    T acc = mine ? *mine : p[i++];
    for (; i < n; ++i) acc = static_cast<T>(op(acc, p[i]));
    mine = acc;
  });
  const Comm& comm = A.layout().grid().comm();
  constexpr std::size_t part = sizeof(T) + 1;
  std::array<std::byte, part> out{};
  if (mine) {
    std::memcpy(out.data(), &*mine, sizeof(T));
    out[sizeof(T)] = std::byte{1};
  }
  const int P = comm.size();
  std::vector<std::byte> all(static_cast<std::size_t>(P) * part);
  HPF_MPI_CHECK(MPI_Allgather(out.data(), static_cast<int>(part), MPI_BYTE, all.data(),
                              static_cast<int>(part), MPI_BYTE, comm.get()));
  std::optional<T> acc = init;
  for (int r = 0; r < P; ++r) {
    const std::byte* p = all.data() + static_cast<std::size_t>(r) * part;
    if (p[sizeof(T)] == std::byte{0}) continue;
    T x;
    std::memcpy(&x, p, sizeof(T));
    acc = acc ? static_cast<T>(op(*acc, x)) : x;
  }
  return acc;
}

} // namespace detail

/// Collective over the grid's parent communicator: op folded over `init` and every element, on every
/// rank; `init` for an empty array. T is any trivially copyable type (a struct, std::complex...), op
/// any callable op(const T&, const T&) -> T that is associative. It need not be commutative for a 1-D
/// BLOCK (or GEN_BLOCK) array on a grid of the whole communicator in rank order, where the result is
/// op(...op(op(init, a_0), a_1)..., a_{n-1}) in global order; elsewhere the elements are combined in
/// an order that depends on the layout (each rank's block in storage order, then the ranks in
/// order), so op must be commutative too. The order is the same on every rank, so every rank gets
/// the same bits. Each element counts once on a replicated layout. Throws hpf::Error on every rank
/// unless every rank passed an array of the same layout. E.g. the largest magnitude of a complex array:
///
///   using C = std::complex<double>;
///   C z = hpf::reduce(Z, C{}, [](C a, C b) { return std::abs(b) > std::abs(a) ? b : a; });
template <class T, int N, class Op> T reduce(const DistArray<T, N>& A, std::type_identity_t<T> init, Op op) {
  return *detail::reduce_any<T, N>(A, "hpf::reduce", false, std::optional<T>(init), op);
}

/// Collective over the grid's parent communicator: the sum of all elements, on every rank (T(0) for an
/// empty array); std::complex included. Arithmetic and std::complex elements take one MPI_Allreduce,
/// other types (with T + T and T(0)) go through hpf::reduce. Throws hpf::Error on every rank unless
/// every rank passed an array of the same layout.
template <class T, int N> T sum(const DistArray<T, N>& A) {
  const auto plus = [](const T& a, const T& b) -> T { return a + b; };
  if constexpr (has_mpi_type_v<T>)
    return detail::reduce_mpi<T, N>(A, "hpf::sum", false, T(0), plus, MPI_SUM);
  else
    return reduce(A, T(0), plus);
}

/// Collective over the grid's parent communicator: the product of all elements, on every rank (T(1)
/// for an empty array); std::complex included. As hpf::sum otherwise.
template <class T, int N> T product(const DistArray<T, N>& A) {
  const auto times = [](const T& a, const T& b) -> T { return a * b; };
  if constexpr (has_mpi_type_v<T>)
    return detail::reduce_mpi<T, N>(A, "hpf::product", false, T(1), times, MPI_PROD);
  else
    return reduce(A, T(1), times);
}

namespace detail {

/// The identity of min (`lowest` false: the largest value) or max (the lowest), for arithmetic T.
template <class T> T extreme(bool lowest) {
  if constexpr (std::is_arithmetic_v<T>)
    return lowest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  else
    return T{};
}

/// min and max: an MPI_Allreduce for arithmetic elements, hpf::reduce's path for other ordered ones.
template <class T, int N, class Pick>
T extremum(const DistArray<T, N>& A, const char* what, Pick pick, T identity, MPI_Op mpi_op) {
  if constexpr (std::is_arithmetic_v<T> && has_mpi_type_v<T>)
    return reduce_mpi<T, N>(A, what, true, identity, pick, mpi_op);
  else
    return *reduce_any<T, N>(A, what, true, std::nullopt, pick);
}

} // namespace detail

/// Collective over the grid's parent communicator: the smallest element, on every rank. T must be
/// ordered (T < T): std::complex is not, and is refused at compile time. Throws hpf::Error on every
/// rank for an empty array, or unless every rank passed the same layout.
template <class T, int N> T min(const DistArray<T, N>& A) {
  static_assert(detail::Ordered<T>,
                "hpf::min needs an ordered element type (a < b); std::complex and other unordered types "
                "have none: use hpf::reduce(A, init, op) with an order of your own (e.g. by std::abs)");
  if constexpr (detail::Ordered<T>) {
    const auto smaller = [](const T& a, const T& b) -> T { return b < a ? b : a; };
    return detail::extremum<T, N>(A, "hpf::min", smaller, detail::extreme<T>(false), MPI_MIN);
  } else {
    return T{};
  }
}

/// Collective over the grid's parent communicator: the largest element, on every rank. As hpf::min.
template <class T, int N> T max(const DistArray<T, N>& A) {
  static_assert(detail::Ordered<T>,
                "hpf::max needs an ordered element type (a < b); std::complex and other unordered types "
                "have none: use hpf::reduce(A, init, op) with an order of your own (e.g. by std::abs)");
  if constexpr (detail::Ordered<T>) {
    const auto larger = [](const T& a, const T& b) -> T { return a < b ? b : a; };
    return detail::extremum<T, N>(A, "hpf::max", larger, detail::extreme<T>(true), MPI_MAX);
  } else {
    return T{};
  }
}

} // namespace hpf
