// The C ABI (hpfrt.h) over the C++ API: handles own C++ objects, every call catches and reports.
//
// An hpf_array holds one DistArray<T, N> among the 6 element types x 4 ranks of the ABI, in a
// std::variant; visit() dispatches a generic lambda to the held alternative, so each entry point is
// written once for all 24 instantiations.
//
// Handles are not pointers. An hpf_grid or hpf_array value is
//   magic (16 bits, one per handle type) | generation (24 bits) | slot (24 bits)
// into a table of live objects, and is never dereferenced: a made-up value fails the magic or the
// slot check, a freed one (use after free, double free) the generation check, and each returns
// HPF_ERR_ARG. A slot's generation grows at every free, so a stale handle stays invalid after its slot
// is reused, until the generation wraps (2^24 frees of the same slot).
//
// Collective calls fail on all ranks or on none: the local checks of every rank (NULL data on the
// root only, a bad strategy on one rank...) are agreed over the array's communicator
// (detail::agree_on_error) before any communication starts. A handle that is invalid on some ranks
// only cannot be agreed on (it names no communicator): those ranks return HPF_ERR_ARG at once.
#include <hpfrt.h>

#include <hpf/hpf.hpp>
#include <hpf/layout/agree.hpp>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

struct hpf_grid_s {
  hpf::ProcessGrid grid;
};

namespace {

/// The element types of the ABI, in hpf_type order (HPF_FLOAT64 = 0 ...).
template <class... T> struct TypeList {};
using Elements =
    TypeList<double, float, std::int32_t, std::int64_t, std::complex<float>, std::complex<double>>;

/// Every DistArray<T, N> of the ABI (T in the list, N = 1..4), as a std::tuple type.
template <class List> struct AllArrays;
template <class... T> struct AllArrays<TypeList<T...>> {
  using type =
      decltype(std::tuple_cat(std::declval<std::tuple<hpf::DistArray<T, 1>, hpf::DistArray<T, 2>,
                                                      hpf::DistArray<T, 3>, hpf::DistArray<T, 4>>>()...));
};
template <class Tuple> struct VariantOf;
template <class... A> struct VariantOf<std::tuple<A...>> { using type = std::variant<A...>; };
using AnyArray = VariantOf<AllArrays<Elements>::type>::type;

/// What the hpf_type values name, for messages.
constexpr const char* type_names[] = {"HPF_FLOAT64", "HPF_FLOAT32",   "HPF_INT32",
                                      "HPF_INT64",   "HPF_COMPLEX64", "HPF_COMPLEX128"};

/// The hpf_type name of element type T.
template <class T> const char* type_name() {
  if constexpr (std::is_same_v<T, double>)
    return type_names[HPF_FLOAT64];
  else if constexpr (std::is_same_v<T, float>)
    return type_names[HPF_FLOAT32];
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return type_names[HPF_INT32];
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return type_names[HPF_INT64];
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return type_names[HPF_COMPLEX64];
  else
    return type_names[HPF_COMPLEX128];
}

/// Calls f(T{}) for the element type T that `type` (an hpf_type) names; `what` names the call.
template <class F> void with_type(std::int32_t type, const char* what, F&& f) {
  switch (type) {
  case HPF_FLOAT64:
    return f(double{});
  case HPF_FLOAT32:
    return f(float{});
  case HPF_INT32:
    return f(std::int32_t{});
  case HPF_INT64:
    return f(std::int64_t{});
  case HPF_COMPLEX64:
    return f(std::complex<float>{});
  case HPF_COMPLEX128:
    return f(std::complex<double>{});
  default:
    hpf::detail::fail(what,
                      ": type must be HPF_FLOAT64, HPF_FLOAT32, HPF_INT32, HPF_INT64, HPF_COMPLEX64 or "
                      "HPF_COMPLEX128 (0..5), got ",
                      static_cast<int>(type));
  }
}

thread_local std::string g_last_error;
std::optional<hpf::Environment> g_env;

/// Runs `body`; turns every exception into a status and remembers its message.
template <class F> hpf_status guarded(F&& body) noexcept {
  try {
    body();
    return HPF_OK;
  } catch (const hpf::Error& e) {
    g_last_error = e.what();
    // MPI failures are hpf::Error too (HPF_MPI_CHECK); they say "MPI call failed".
    return std::string(e.what()).find("MPI call failed") != std::string::npos ? HPF_ERR_RUNTIME : HPF_ERR_ARG;
  } catch (const std::exception& e) {
    g_last_error = e.what();
    return HPF_ERR_RUNTIME;
  } catch (...) {
    g_last_error = "unknown exception";
    return HPF_ERR_RUNTIME;
  }
}

template <class P> P* require_handle(P* p, const char* what) {
  hpf::detail::require(p != nullptr, what,
                       ": the handle is NULL; expected one returned by the matching create call");
  return p;
}

/// The live objects behind the handles of one type (see the top of this file).
template <class Object> class HandleTable {
public:
  /// `magic` tells the handle types apart; `name` is the C type's name, for messages.
  HandleTable(std::uint16_t magic, const char* name) : m_magic(magic), m_name(name) {}

  /// Stores `object` and returns its handle value.
  std::uintptr_t add(std::unique_ptr<Object> object) {
    const std::lock_guard<std::mutex> lock(m_mutex);
    std::size_t slot = 0;
    if (!m_free.empty()) {
      slot = m_free.back();
      m_free.pop_back();
    } else {
      hpf::detail::require(m_slots.size() < slot_mask, m_name, ": more than ", slot_mask,
                           " live handles; free some first");
      slot = m_slots.size();
      m_slots.emplace_back();
    }
    m_slots[slot].object = std::move(object);
    return encode(slot, m_slots[slot].generation);
  }

  /// The object of a live handle; throws hpf::Error (HPF_ERR_ARG) for NULL, made-up and freed ones.
  Object& get(const void* handle, const char* what) {
    const std::lock_guard<std::mutex> lock(m_mutex);
    return *m_slots[find(handle, what)].object;
  }

  /// Takes the object of a live handle out of the table (the slot's generation moves on).
  std::unique_ptr<Object> remove(const void* handle, const char* what) {
    const std::lock_guard<std::mutex> lock(m_mutex);
    const std::size_t slot = find(handle, what);
    Slot& s = m_slots[slot];
    s.generation = (s.generation + 1) & generation_mask;
    if (s.generation == 0) s.generation = 1; // 0 is never a live generation
    m_free.push_back(slot);
    return std::move(s.object);
  }

private:
  static constexpr std::uint64_t slot_bits = 24;
  static constexpr std::uint64_t generation_bits = 24;
  static constexpr std::uint64_t slot_mask = (std::uint64_t{1} << slot_bits) - 1;
  static constexpr std::uint64_t generation_mask = (std::uint64_t{1} << generation_bits) - 1;
  static_assert(sizeof(std::uintptr_t) == 8, "handles pack magic, generation and slot into 64 bits");

  struct Slot {
    std::uint64_t generation = 1;
    std::unique_ptr<Object> object;
  };

  [[nodiscard]] std::uintptr_t encode(std::size_t slot, std::uint64_t generation) const {
    return static_cast<std::uintptr_t>((std::uint64_t{m_magic} << (slot_bits + generation_bits)) |
                                       (generation << slot_bits) | static_cast<std::uint64_t>(slot));
  }

  /// The slot of a live handle; never dereferences `handle`.
  std::size_t find(const void* handle, const char* what) const {
    hpf::detail::require(handle != nullptr, what, ": the ", m_name,
                         " handle is NULL; expected one returned by the matching create call");
    const auto v = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(handle));
    const auto magic = static_cast<std::uint16_t>(v >> (slot_bits + generation_bits));
    const std::uint64_t generation = (v >> slot_bits) & generation_mask;
    const std::uint64_t slot = v & slot_mask;
    hpf::detail::require(magic == m_magic, what, ": 0x", to_hex(v), " is not an ", m_name,
                         " handle (made up, corrupted, or a handle of another type)");
    hpf::detail::require(slot < m_slots.size() && m_slots[slot].object != nullptr &&
                             m_slots[slot].generation == generation,
                         what, ": the ", m_name, " handle 0x", to_hex(v),
                         " is not live (already freed, or never returned by a create call)");
    return static_cast<std::size_t>(slot);
  }

  static std::string to_hex(std::uint64_t v) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4) out[static_cast<std::size_t>(i)] = digits[v & 15];
    return out;
  }

  std::uint16_t m_magic;
  const char* m_name;
  std::mutex m_mutex;
  std::vector<Slot> m_slots;
  std::vector<std::size_t> m_free;
};

/// Dimension `dim`'s distribution. `axis_extent` is the number of processes along the grid axis the
/// dimension would run along (0 when the grid has no such axis), `extent` the dimension's extent.
hpf::Distribution to_dist(const hpf_dist& d, int dim, int axis_extent, int64_t extent) {
  switch (d.kind) {
  case HPF_DIST_BLOCK:
    return hpf::Block();
  case HPF_DIST_CYCLIC:
    return hpf::Cyclic(d.block);
  case HPF_DIST_COLLAPSED:
    return hpf::Collapsed();
  case HPF_DIST_GEN_BLOCK: {
    hpf::detail::require(d.map != nullptr, "dists[", dim, "].map: GEN_BLOCK needs its sizes, got NULL");
    hpf::detail::require(axis_extent > 0, "dists[", dim,
                         "]: GEN_BLOCK on a dimension with no grid axis left to run along; expected one grid "
                         "dimension per distributed array dimension");
    const auto* sizes = static_cast<const int64_t*>(d.map);
    return hpf::GenBlock(std::vector<hpf::index_t>(sizes, sizes + axis_extent));
  }
  case HPF_DIST_INDIRECT: {
    hpf::detail::require(extent >= 0, "extents[", dim, "] = ", extent, ": expected >= 0");
    hpf::detail::require(d.map != nullptr || extent == 0, "dists[", dim,
                         "].map: INDIRECT needs its owners (one per index), got NULL");
    if (extent == 0) return hpf::Indirect({});
    const auto* owners = static_cast<const int32_t*>(d.map);
    return hpf::Indirect(std::vector<int>(owners, owners + extent));
  }
  default:
    hpf::detail::fail("dists[", dim,
                      "].kind: expected HPF_DIST_BLOCK (0), HPF_DIST_CYCLIC (1), HPF_DIST_COLLAPSED (2), "
                      "HPF_DIST_GEN_BLOCK (3) or HPF_DIST_INDIRECT (4), got ",
                      d.kind);
  }
}

template <int N>
hpf::Layout<N> make_layout(const int64_t* extents, const hpf_dist* dists, const hpf::ProcessGrid& grid) {
  hpf::Index<N> ext{};
  std::array<hpf::Distribution, N> ds;
  int axis = 0; // the k-th distributed dimension runs along grid axis k
  for (int d = 0; d < N; ++d) {
    ext[static_cast<std::size_t>(d)] = extents[d];
    const int axis_extent = axis < grid.ndims() ? grid.extent(axis) : 0;
    ds[static_cast<std::size_t>(d)] = to_dist(dists[d], d, axis_extent, extents[d]);
    if (dists[d].kind != HPF_DIST_COLLAPSED) ++axis;
  }
  return hpf::Layout<N>(ext, ds, grid);
}

/// An hpf_strategy value as a Strategy; throws hpf::Error naming `what` for any other value.
hpf::Strategy to_strategy(std::int32_t strategy, const char* what) {
  switch (strategy) {
  case HPF_STRATEGY_AUTO:
    return hpf::Strategy::Auto;
  case HPF_STRATEGY_CATERPILLAR:
    return hpf::Strategy::Caterpillar;
  case HPF_STRATEGY_CLASS:
    return hpf::Strategy::Class;
  case HPF_STRATEGY_KOENIG_STEPWISE:
    return hpf::Strategy::KoenigStepwise;
  case HPF_STRATEGY_KOENIG_GREEDY:
    return hpf::Strategy::KoenigGreedy;
  case HPF_STRATEGY_ALL_AT_ONCE:
    return hpf::Strategy::AllAtOnce;
  case HPF_STRATEGY_ALLTOALLV:
    return hpf::Strategy::Alltoallv;
  default:
    hpf::detail::fail(what,
                      ": strategy must be one of HPF_STRATEGY_AUTO .. HPF_STRATEGY_ALLTOALLV (0..6), got ",
                      static_cast<int>(strategy));
  }
}

/// A layout of 1..4 dimensions: what an hpf_template holds.
using AnyLayout = std::variant<hpf::Layout<1>, hpf::Layout<2>, hpf::Layout<3>, hpf::Layout<4>>;

/// Calls make(std::integral_constant<int, N>{}) for N = rank (1..4); `what` names the call.
template <class F> decltype(auto) with_rank(int rank, const char* what, F&& make) {
  switch (rank) {
  case 1:
    return make(std::integral_constant<int, 1>{});
  case 2:
    return make(std::integral_constant<int, 2>{});
  case 3:
    return make(std::integral_constant<int, 3>{});
  case 4:
    return make(std::integral_constant<int, 4>{});
  default:
    hpf::detail::fail(what, ": rank must be 1 to 4, got ", rank);
  }
}

AnyLayout make_any_layout(int rank, const int64_t* extents, const hpf_dist* dists,
                          const hpf::ProcessGrid& grid, const char* what) {
  return with_rank(
      rank, what, [&](auto n) -> AnyLayout { return make_layout<decltype(n)::value>(extents, dists, grid); });
}

/// The layout of an N-d array of `extents` aligned with `base` by the C description.
template <int N> hpf::Layout<N> aligned_layout(const AnyLayout& base, const int64_t* extents,
                                               const hpf_align_dim* dims, const int64_t* base_index) {
  return std::visit(
      [&](const auto& B) {
        constexpr int M = std::decay_t<decltype(B)>::rank();
        hpf::Alignment<N, M> a;
        for (std::size_t j = 0; j < static_cast<std::size_t>(N); ++j)
          a.dims[j] = hpf::AlignDim{static_cast<int>(dims[j].base_dim), dims[j].stride, dims[j].offset};
        for (std::size_t k = 0; k < static_cast<std::size_t>(M); ++k)
          a.base_index[k] = base_index != nullptr ? base_index[k] : hpf::Alignment<N, M>::replicated;
        hpf::Index<N> ext{};
        for (std::size_t j = 0; j < static_cast<std::size_t>(N); ++j) ext[j] = extents[j];
        return hpf::Layout<N>::aligned(B, a, ext);
      },
      base);
}

template <class T> AnyArray make_array(const char* label, int rank, const int64_t* extents,
                                       const hpf_dist* dists, const hpf::ProcessGrid& grid) {
  return with_rank(rank, "hpf_array_create", [&](auto n) -> AnyArray {
    return hpf::DistArray<T, decltype(n)::value>(label,
                                                 make_layout<decltype(n)::value>(extents, dists, grid));
  });
}

template <class A> struct ArrayTraits;
template <class T, int N> struct ArrayTraits<hpf::DistArray<T, N>> {
  using value_type = T;
  static constexpr int rank = N;
};

} // namespace

struct hpf_array_s {
  AnyArray array;
};

struct hpf_template_s {
  AnyLayout layout;
};

namespace {

// Never destroyed: handles leaked by a program must not be torn down after MPI and Kokkos are gone.
HandleTable<hpf_grid_s>& grids() {
  static auto* table = new HandleTable<hpf_grid_s>(0x4847, "hpf_grid"); // 'HG'
  return *table;
}
HandleTable<hpf_array_s>& arrays() {
  static auto* table = new HandleTable<hpf_array_s>(0x4841, "hpf_array"); // 'HA'
  return *table;
}

HandleTable<hpf_template_s>& templates() {
  static auto* table = new HandleTable<hpf_template_s>(0x4854, "hpf_template"); // 'HT'
  return *table;
}

const hpf::ProcessGrid& grid_of(hpf_grid g, const char* what) { return grids().get(g, what).grid; }

template <class F> void visit(hpf_array a, const char* what, F&& f) {
  std::visit(std::forward<F>(f), arrays().get(a, what).array);
}

/// The communicator an array's collectives run over (every rank of its grid's parent).
MPI_Comm comm_of(hpf_array a, const char* what) {
  return std::visit([](const auto& A) { return A.layout().grid().comm().get(); },
                    arrays().get(a, what).array);
}

/// Collective over `comm`: runs the local `checks` of this rank and, when they throw on any rank,
/// throws on every rank (the message of the lowest failing rank), before any communication of the
/// call itself starts. A C ABI call thus fails on all ranks or on none.
template <class F> void agreed(MPI_Comm comm, F&& checks) {
  std::string problem;
  try {
    checks();
  } catch (const std::exception& e) {
    problem = e.what();
    if (problem.empty()) problem = "unknown error";
  }
  hpf::detail::agree_on_error(comm, problem);
}

/// Throws the error of a minimum or maximum asked of a complex array (complex numbers have no order).
template <class T> [[noreturn]] T refuse_unordered(const char* what) {
  hpf::detail::fail(what, ": the array's element type is ", type_name<T>(),
                    ", which has no order; expected HPF_FLOAT64, HPF_FLOAT32, HPF_INT32 or HPF_INT64");
}

template <class Reduce>
hpf_status reduce_to(hpf_array array, void* result, const char* what, Reduce&& reduce) {
  return guarded([&] {
    agreed(comm_of(array, what), [&] { require_handle(result, what); });
    visit(array, what, [&](auto& A) {
      const auto v = reduce(A);
      std::memcpy(result, &v, sizeof v);
    });
  });
}

/// hpf_array_min / hpf_array_max: `pick` (hpf::min or hpf::max) of an array of an ordered element
/// type; a complex array is refused (on every rank: the element type is the same everywhere).
template <class Pick> hpf_status extremum_to(hpf_array array, void* result, const char* what, Pick&& pick) {
  return reduce_to(array, result, what, [&](const auto& A) {
    using T = typename std::decay_t<decltype(A)>::value_type;
    if constexpr (hpf::detail::Ordered<T>) {
      return pick(A);
    } else {
      return refuse_unordered<T>(what);
    }
  });
}

} // namespace

namespace {
/// Runs f(A, B) on two arrays that must hold the same type and rank (`first` is the one whose
/// communicator the call is collective over). The handles, the kinds and the caller's own local
/// `checks` are agreed first, so a bad call fails on every rank before any communication.
template <class Checks, class F> void visit_same(hpf_array first, const char* first_name, hpf_array second,
                                                 const char* second_name, const char* what, Checks&& checks,
                                                 F&& f) {
  const std::string a_what = std::string(what) + ": " + first_name;
  const std::string b_what = std::string(what) + ": " + second_name;
  const MPI_Comm comm = comm_of(first, a_what.c_str());
  hpf_array_s* b = nullptr;
  agreed(comm, [&] {
    b = &arrays().get(second, b_what.c_str());
    hpf::detail::require(b->array.index() == arrays().get(first, a_what.c_str()).array.index(), what,
                         ": the ", second_name, "'s element type or rank differs from the ", first_name,
                         "'s; expected an array of the same type and rank");
    checks();
  });
  visit(first, a_what.c_str(), [&](auto& A) {
    using Array = std::decay_t<decltype(A)>;
    f(A, std::get<Array>(b->array)); // same alternative: checked above
  });
}

/// Runs shift(A, T) on the source and the target of a shift (same type and rank); the shift's
/// arguments are agreed too.
template <class F>
void visit_pair(hpf_array source, hpf_array target, const char* what, int64_t shift_by, int dim, F&& shift) {
  visit_same(
      source, "source", target, "target", what, [] {},
      [&](const auto& A, auto& T) {
        hpf::AgreementWords w;
        w.add(shift_by, [] { return std::string("shift"); });
        w.add(dim, [] { return std::string("dim"); });
        w.check(A.layout().grid().comm().get(), what);
        shift(A, T);
      });
}

template <int N> hpf::Section<N> to_section(const hpf_triplet* t) {
  hpf::Section<N> s{};
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
    s[d] = hpf::Triplet{t[d].lo, t[d].hi, t[d].stride};
  return s;
}

template <int N> hpf::Permutation<N> to_permutation(const int32_t* perm) {
  hpf::Permutation<N> p{};
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
    p[d] = perm != nullptr ? static_cast<int>(perm[d]) : N - 1 - static_cast<int>(d);
  return p;
}
} // namespace

extern "C" {

const char* hpf_last_error(void) { return g_last_error.c_str(); }

hpf_status hpf_init(int* argc, char*** argv) {
  return guarded([&] {
    hpf::detail::require(!g_env, "hpf_init: already called; call hpf_finalize first");
    if (argc != nullptr && argv != nullptr) {
      g_env.emplace(*argc, *argv);
    } else {
      g_env.emplace();
    }
  });
}

hpf_status hpf_finalize(void) {
  return guarded([&] {
    hpf::detail::require(g_env.has_value(), "hpf_finalize: hpf_init was not called");
    if (g_env->initialized_mpi()) hpf::clear_plan_cache(); // cached plans hold communicators
    g_env.reset();
  });
}

hpf_status hpf_world(int* rank, int* size) {
  return guarded([&] {
    if (rank != nullptr) *rank = hpf::comm_rank(MPI_COMM_WORLD);
    if (size != nullptr) *size = hpf::comm_size(MPI_COMM_WORLD);
  });
}

hpf_status hpf_broadcast(void* data, int64_t bytes, int root) {
  return guarded([&] {
    agreed(MPI_COMM_WORLD, [&] {
      const int size = hpf::comm_size(MPI_COMM_WORLD);
      hpf::detail::require(root >= 0 && root < size, "hpf_broadcast: root must be in [0, ", size, "), got ",
                           root);
      hpf::detail::require(bytes >= 0, "hpf_broadcast: bytes must be >= 0, got ", bytes);
      if (bytes > 0) require_handle(data, "hpf_broadcast: data");
    });
    // In pieces whose counts fit an int.
    auto* at = static_cast<char*>(data);
    constexpr int64_t piece = int64_t{1} << 30;
    for (int64_t done = 0; done < bytes; done += piece)
      HPF_MPI_CHECK(MPI_Bcast(at + done, static_cast<int>(std::min(piece, bytes - done)), MPI_BYTE, root,
                              MPI_COMM_WORLD));
  });
}

hpf_status hpf_grid_create(MPI_Comm comm, int nranks, const int* ranks, int ndims, const int* shape,
                           hpf_grid* grid) {
  return guarded([&] {
    hpf::detail::require(comm != MPI_COMM_NULL, "hpf_grid_create: comm is MPI_COMM_NULL");
    agreed(comm, [&] {
      require_handle(grid, "hpf_grid_create: grid");
      hpf::detail::require(ndims >= 1 && ndims <= 4, "hpf_grid_create: ndims must be 1 to 4, got ", ndims);
      hpf::detail::require(shape != nullptr, "hpf_grid_create: shape is NULL");
      if (ranks != nullptr)
        hpf::detail::require(nranks >= 0, "hpf_grid_create: nranks must be >= 0, got ", nranks);
    });
    std::vector<int> sh(shape, shape + ndims);
    std::optional<hpf::ProcessGrid> g;
    if (ranks == nullptr) {
      g.emplace(comm, std::move(sh));
    } else {
      g.emplace(comm, std::vector<int>(ranks, ranks + nranks), std::move(sh));
    }
    // A handle is a value, never dereferenced (see the top of this file).
    *grid = reinterpret_cast<hpf_grid>( // NOLINT(performance-no-int-to-ptr)
        grids().add(std::make_unique<hpf_grid_s>(hpf_grid_s{std::move(*g)})));
  });
}

hpf_status hpf_grid_create_f(MPI_Fint comm, int nranks, const int* ranks, int ndims, const int* shape,
                             hpf_grid* grid) {
  return hpf_grid_create(MPI_Comm_f2c(comm), nranks, ranks, ndims, shape, grid);
}

hpf_status hpf_grid_create_world(int ndims, const int* shape, hpf_grid* grid) {
  return hpf_grid_create(MPI_COMM_WORLD, 0, nullptr, ndims, shape, grid);
}

hpf_status hpf_grid_free(hpf_grid* grid) {
  return guarded([&] {
    require_handle(grid, "hpf_grid_free: grid");
    grids().remove(*grid, "hpf_grid_free: *grid");
    *grid = nullptr;
  });
}

hpf_status hpf_grid_my_position(hpf_grid grid, int* position) {
  return guarded([&] {
    require_handle(position, "hpf_grid_my_position: position");
    *position = grid_of(grid, "hpf_grid_my_position: grid").my_position();
  });
}

hpf_status hpf_array_create(const char* label, std::int32_t type, int rank, const int64_t* extents,
                            const hpf_dist* dists, hpf_grid grid, hpf_array* array) {
  return guarded([&] {
    const hpf::ProcessGrid& g = grid_of(grid, "hpf_array_create: grid");
    const char* name = label != nullptr ? label : "";
    // Building the array is local (layout checks and allocation); agreed before it is kept.
    std::optional<AnyArray> made;
    agreed(g.comm().get(), [&] {
      require_handle(array, "hpf_array_create: array");
      require_handle(extents, "hpf_array_create: extents");
      require_handle(dists, "hpf_array_create: dists");
      with_type(type, "hpf_array_create",
                [&](auto t) { made.emplace(make_array<decltype(t)>(name, rank, extents, dists, g)); });
    });
    hpf::AgreementWords w;
    w.add(type, [] { return std::string("type"); });
    std::visit([&](const auto& A) { hpf::add_layout_words(w, A.layout(), ""); }, *made);
    w.check(g.comm().get(), "hpf_array_create");
    *array = reinterpret_cast<hpf_array>( // NOLINT(performance-no-int-to-ptr): a value, never dereferenced
        arrays().add(std::make_unique<hpf_array_s>(hpf_array_s{std::move(*made)})));
  });
}

hpf_status hpf_array_free(hpf_array* array) {
  return guarded([&] {
    require_handle(array, "hpf_array_free: array");
    arrays().remove(*array, "hpf_array_free: *array");
    *array = nullptr;
  });
}

hpf_status hpf_array_local(hpf_array array, void** data, int64_t* local_extents) {
  return guarded([&] {
    visit(array, "hpf_array_local: array", [&](auto& A) {
      using Tr = ArrayTraits<std::decay_t<decltype(A)>>;
      if (data != nullptr) *data = A.local_size() > 0 ? static_cast<void*>(A.local_data()) : nullptr;
      // An array that owns nothing here stores nothing, shadow slots included (its view is all 0):
      // it reports what it owns, as the layout's local extents do (at least one of them is 0).
      if (local_extents != nullptr)
        for (int d = 0; d < Tr::rank; ++d) {
          const auto du = static_cast<std::size_t>(d);
          local_extents[d] =
              static_cast<int64_t>(A.local_size() > 0 ? A.local_view().extent(du) : A.owned_extents()[du]);
        }
    });
  });
}
hpf_status hpf_array_locate(hpf_array array, const int64_t* index, int* owned, int64_t* local_offset) {
  return guarded([&] {
    require_handle(index, "hpf_array_locate: index");
    visit(array, "hpf_array_locate: array", [&](auto& A) {
      using Tr = ArrayTraits<std::decay_t<decltype(A)>>;
      hpf::Index<Tr::rank> g{};
      for (int d = 0; d < Tr::rank; ++d) g[static_cast<std::size_t>(d)] = index[d];
      A.layout().check_bounds(g, "hpf_array_locate");
      const bool mine = A.owns(g);
      if (owned != nullptr) *owned = mine ? 1 : 0;
      if (local_offset != nullptr) *local_offset = mine ? static_cast<int64_t>(&A[g] - A.local_data()) : -1;
    });
  });
}

} // extern "C"

namespace {
/// The owned local index of storage slot `local_offset` of A, or nullopt for a shadow slot. Throws
/// hpf::Error (naming `what`) for an offset outside the storage.
template <class Array> std::optional<hpf::Index<ArrayTraits<Array>::rank>>
owned_local(const Array& A, int64_t local_offset, const char* what) {
  constexpr int N = ArrayTraits<Array>::rank;
  const auto size = static_cast<int64_t>(A.local_view().size());
  hpf::detail::require(local_offset >= 0 && local_offset < size, what, ": local_offset must be in [0, ", size,
                       "), got ", local_offset);
  hpf::Index<N> l{};
  int64_t rest = local_offset;
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
    const auto slot = static_cast<hpf::index_t>(rest % static_cast<int64_t>(A.local_view().extent(d)));
    rest /= static_cast<int64_t>(A.local_view().extent(d));
    const int dd = static_cast<int>(d);
    l[d] = hpf::halo_local(A.layout().map(dd), A.layout().shadow(dd), A.my_dim_coords()[d], slot);
    if (l[d] < 0) return std::nullopt;
  }
  return l;
}
} // namespace

extern "C" {

hpf_status hpf_array_global_index(hpf_array array, int64_t local_offset, int64_t* index) {
  return guarded([&] {
    require_handle(index, "hpf_array_global_index: index");
    visit(array, "hpf_array_global_index: array", [&](auto& A) {
      constexpr int N = ArrayTraits<std::decay_t<decltype(A)>>::rank;
      // Offsets are into the local storage (the owned block when there is no shadow).
      const auto l = owned_local(A, local_offset, "hpf_array_global_index");
      hpf::detail::require(l.has_value(), "hpf_array_global_index: local_offset ", local_offset,
                           " is a shadow slot; expected the offset of an owned element (see hpf_array_slot)");
      const auto g = A.layout().global_index(A.layout().grid().my_position(), *l);
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) index[d] = g[d];
    });
  });
}

hpf_status hpf_array_slot(hpf_array array, int64_t local_offset, int* owned, int64_t* index) {
  return guarded([&] {
    require_handle(owned, "hpf_array_slot: owned");
    visit(array, "hpf_array_slot: array", [&](auto& A) {
      constexpr int N = ArrayTraits<std::decay_t<decltype(A)>>::rank;
      const auto l = owned_local(A, local_offset, "hpf_array_slot");
      *owned = l.has_value() ? 1 : 0;
      if (!l || index == nullptr) return;
      const auto g = A.layout().global_index(A.layout().grid().my_position(), *l);
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) index[d] = g[d];
    });
  });
}

hpf_status hpf_array_dim_runs(hpf_array array, int dim, const hpf_triplet* range, int64_t capacity,
                              int64_t* count, int64_t* first, int64_t* last, int64_t* slot) {
  return guarded([&] {
    require_handle(range, "hpf_array_dim_runs: range");
    require_handle(count, "hpf_array_dim_runs: count");
    hpf::detail::require(capacity >= 0, "hpf_array_dim_runs: capacity must be >= 0, got ", capacity);
    if (capacity > 0) {
      require_handle(first, "hpf_array_dim_runs: first");
      require_handle(last, "hpf_array_dim_runs: last");
      require_handle(slot, "hpf_array_dim_runs: slot");
    }
    visit(array, "hpf_array_dim_runs: array", [&](auto& A) {
      constexpr int N = ArrayTraits<std::decay_t<decltype(A)>>::rank;
      hpf::detail::require(dim >= 0 && dim < N, "hpf_array_dim_runs: dim must be in [0, ", N, ") for a rank-",
                           N, " array, got ", dim);
      hpf::detail::require(range->stride != 0, "hpf_array_dim_runs: range stride must be non-zero, got 0");
      *count = 0;
      const auto du = static_cast<std::size_t>(dim);
      const hpf::CyclicMap& m = A.layout().map(dim);
      const hpf::index_t w = A.layout().shadow(dim);
      // The section as an ascending progression lo, lo + st, ..., hi inside [0, n) (a FORALL visits
      // its elements in any order), then cut by the local blocks: each block of r local elements is
      // contiguous both in global indices and in storage slots. One run per block met, never merged,
      // so that arrays of one map and different shadow widths get runs that match one to one.
      const hpf::index_t st = range->stride > 0 ? range->stride : -range->stride;
      hpf::index_t lo = range->lo;
      hpf::index_t hi = range->hi;
      if (range->stride < 0) {
        if (lo < hi) return;
        hi = range->lo;
        lo = range->lo - (range->lo - range->hi) / st * st;
      }
      if (lo > hi || A.local_size() == 0) return;
      if (lo < 0) lo += (-lo + st - 1) / st * st;
      hi = std::min(hi, m.n - 1);
      if (lo > hi) return;
      const hpf::index_t e = A.owned_extents()[du];
      const int p = A.my_dim_coords()[du];
      int64_t k = 0;
      for (hpf::index_t l = 0; l < e; l += m.r) {
        const hpf::index_t g = m.global(p, l);
        const hpf::index_t len = std::min(m.r, e - l);
        if (g + len - 1 < lo || g > hi) continue;
        const hpf::index_t f = g <= lo ? lo : lo + (g - lo + st - 1) / st * st;
        const hpf::index_t end = std::min(g + len - 1, hi);
        if (f > end) continue;
        const hpf::index_t t = f + (end - f) / st * st;
        if (k < capacity) {
          first[k] = f;
          last[k] = t;
          slot[k] = hpf::halo_slot(m, w, l + (f - g));
        }
        ++k;
      }
      *count = k;
    });
  });
}

hpf_status hpf_array_fill(hpf_array array, const void* value) {
  return guarded([&] {
    require_handle(value, "hpf_array_fill: value");
    visit(array, "hpf_array_fill: array", [&](auto& A) {
      typename ArrayTraits<std::decay_t<decltype(A)>>::value_type v;
      std::memcpy(&v, value, sizeof v);
      A.fill(v);
    });
  });
}

hpf_status hpf_array_sum(hpf_array array, void* result) {
  return reduce_to(array, result, "hpf_array_sum", [](const auto& A) { return hpf::sum(A); });
}
hpf_status hpf_array_min(hpf_array array, void* result) {
  return extremum_to(array, result, "hpf_array_min", [](const auto& A) { return hpf::min(A); });
}
hpf_status hpf_array_max(hpf_array array, void* result) {
  return extremum_to(array, result, "hpf_array_max", [](const auto& A) { return hpf::max(A); });
}

hpf_status hpf_array_gather(hpf_array array, int root, void* out) {
  return guarded([&] {
    const char* what = "hpf_array_gather: array";
    hpf::AgreementWords w;
    w.add(root, [] { return std::string("root"); });
    w.check(comm_of(array, what), "hpf_array_gather");
    visit(array, what, [&](auto& A) {
      const hpf::ProcessGrid& g = A.layout().grid();
      agreed(g.comm().get(), [&] {
        hpf::detail::require(root >= 0 && root < g.parent_size(), "hpf_array_gather: root must be in [0, ",
                             g.parent_size(), "), got ", root);
        if (g.parent_rank() == root && A.layout().global_size() > 0)
          require_handle(out, "hpf_array_gather: out (on the root)");
      });
      const auto all = A.gather(root);
      if (g.parent_rank() != root || all.empty()) return;
      std::memcpy(out, all.data(), all.size() * sizeof(all[0]));
    });
  });
}

hpf_status hpf_array_scatter(hpf_array array, int root, const void* data, int64_t count) {
  return guarded([&] {
    const char* what = "hpf_array_scatter: array";
    hpf::AgreementWords w;
    w.add(root, [] { return std::string("root"); });
    w.check(comm_of(array, what), "hpf_array_scatter");
    visit(array, what, [&](auto& A) {
      using T = typename ArrayTraits<std::decay_t<decltype(A)>>::value_type;
      const hpf::ProcessGrid& g = A.layout().grid();
      std::vector<T> all;
      // NULL data or a bad count on the root fails on every rank, before the scatter starts.
      agreed(g.comm().get(), [&] {
        hpf::detail::require(root >= 0 && root < g.parent_size(), "hpf_array_scatter: root must be in [0, ",
                             g.parent_size(), "), got ", root);
        if (g.parent_rank() != root) return;
        hpf::detail::require(count >= 0, "hpf_array_scatter: count must be >= 0, got ", count);
        if (count > 0) require_handle(data, "hpf_array_scatter: data (on the root)");
        all.resize(static_cast<std::size_t>(count));
        if (count > 0) std::memcpy(all.data(), data, all.size() * sizeof(T));
      });
      A.scatter(root, all); // checks the root's count against the global size on every rank
    });
  });
}

hpf_status hpf_array_allgather(hpf_array array, void* out) {
  return guarded([&] {
    const char* what = "hpf_array_allgather: array";
    const MPI_Comm comm = comm_of(array, what);
    visit(array, what, [&](auto& A) {
      using T = typename ArrayTraits<std::decay_t<decltype(A)>>::value_type;
      agreed(comm, [&] {
        if (A.layout().global_size() > 0) require_handle(out, "hpf_array_allgather: out");
      });
      // Gathered on rank 0 of the parent communicator, then broadcast from it in pieces whose
      // counts fit an int.
      auto all = A.gather(0);
      const auto size = static_cast<std::size_t>(A.layout().global_size());
      if (A.layout().grid().parent_rank() == 0 && size > 0) std::memcpy(out, all.data(), size * sizeof(T));
      auto* bytes = static_cast<char*>(out);
      constexpr std::size_t piece = std::size_t{1} << 30;
      for (std::size_t at = 0; at < size * sizeof(T); at += piece) {
        const std::size_t n = std::min(piece, size * sizeof(T) - at);
        HPF_MPI_CHECK(MPI_Bcast(bytes + at, static_cast<int>(n), MPI_BYTE, 0, comm));
      }
    });
  });
}

hpf_status hpf_array_store_owned(hpf_array array, const void* data) {
  return guarded([&] {
    visit(array, "hpf_array_store_owned: array", [&](auto& A) {
      using Tr = ArrayTraits<std::decay_t<decltype(A)>>;
      using T = typename Tr::value_type;
      if (A.layout().global_size() > 0) require_handle(data, "hpf_array_store_owned: data");
      const auto ext = A.layout().extents();
      const T* from = static_cast<const T*>(data);
      hpf::forall(A, [=](const hpf::Index<Tr::rank>& g, T& x) {
        std::size_t at = 0;
        std::size_t stride = 1;
        for (std::size_t d = 0; d < static_cast<std::size_t>(Tr::rank); ++d) {
          at += static_cast<std::size_t>(g[d]) * stride;
          stride *= static_cast<std::size_t>(ext[d]);
        }
        x = from[at];
      });
    });
  });
}

namespace {

/// HPF REDISTRIBUTE through the C ABI, with a memory ceiling when given (`what` names the entry point).
hpf_status redistribute_array(hpf_array array, const hpf_dist* dists, hpf_grid grid, std::int32_t strategy,
                              std::optional<std::uint64_t> ceiling, const char* what) {
  return guarded([&] {
    const std::string name(what);
    const MPI_Comm comm = comm_of(array, (name + ": array").c_str());
    const hpf::ProcessGrid& g = grid_of(grid, (name + ": grid").c_str());
    hpf::RedistOptions opt;
    if (ceiling) opt.memory_ceiling_bytes = static_cast<std::size_t>(*ceiling);
    agreed(comm, [&] {
      require_handle(dists, (name + ": dists").c_str());
      opt.strategy = to_strategy(strategy, what);
      // The target layout is built (and checked) locally first.
      visit(array, (name + ": array").c_str(), [&](auto& A) {
        using Tr = ArrayTraits<std::decay_t<decltype(A)>>;
        (void)make_layout<Tr::rank>(A.layout().extents().data(), dists, g);
      });
    });
    visit(array, (name + ": array").c_str(), [&](auto& A) {
      using Tr = ArrayTraits<std::decay_t<decltype(A)>>;
      // The array keeps its SHADOW widths across REDISTRIBUTE.
      auto target =
          make_layout<Tr::rank>(A.layout().extents().data(), dists, g).with_shadow(A.layout().shadow());
      hpf::AgreementWords w;
      w.add(strategy, [] { return std::string("strategy"); });
      hpf::add_layout_words(w, target, "target.");
      w.check(comm, what);
      A.redistribute(std::move(target), opt); // agrees on the ceiling with the layouts
    });
  });
}

} // namespace

hpf_status hpf_array_redistribute(hpf_array array, const hpf_dist* dists, hpf_grid grid,
                                  std::int32_t strategy) {
  return redistribute_array(array, dists, grid, strategy, std::nullopt, "hpf_array_redistribute");
}

hpf_status hpf_array_redistribute_ceiling(hpf_array array, const hpf_dist* dists, hpf_grid grid,
                                          std::int32_t strategy, std::uint64_t memory_ceiling_bytes) {
  return redistribute_array(array, dists, grid, strategy, memory_ceiling_bytes,
                            "hpf_array_redistribute_ceiling");
}

hpf_status hpf_array_redistribute_many(int count, const hpf_array* arrays, const hpf_dist* dists,
                                       const hpf_grid* grids, std::int32_t strategy) {
  const char* what = "hpf_array_redistribute_many";
  return guarded([&] {
    hpf::detail::require(count >= 0, what, ": count = ", count, "; expected 0 or more");
    if (count == 0) return;
    require_handle(arrays, "hpf_array_redistribute_many: arrays");
    const auto k = static_cast<std::size_t>(count);
    const MPI_Comm comm = comm_of(arrays[0], "hpf_array_redistribute_many: arrays[0]");
    hpf::RedistOptions opt;
    std::vector<AnyLayout> targets;
    // Every array's target layout is built (and checked) locally first, then the failure agreed.
    agreed(comm, [&] {
      require_handle(dists, "hpf_array_redistribute_many: dists");
      require_handle(grids, "hpf_array_redistribute_many: grids");
      opt.strategy = to_strategy(strategy, what);
      const hpf_dist* next = dists;
      for (std::size_t i = 0; i < k; ++i) {
        const std::string name = hpf::detail::concat(what, ": arrays[", i, "]");
        const hpf::ProcessGrid& g = grid_of(grids[i], (name + " grid").c_str());
        visit(arrays[i], name.c_str(), [&](auto& A) {
          using Tr = ArrayTraits<std::decay_t<decltype(A)>>;
          try {
            // The array keeps its SHADOW widths across REDISTRIBUTE.
            targets.emplace_back(
                make_layout<Tr::rank>(A.layout().extents().data(), next, g).with_shadow(A.layout().shadow()));
          } catch (const std::exception& e) {
            hpf::detail::fail(name, " ('", A.label(), "'): ", e.what());
          }
          next += Tr::rank;
        });
      }
    });
    std::vector<std::unique_ptr<hpf::detail::ManyPart>> parts;
    std::vector<hpf::detail::ManyPart*> list;
    for (std::size_t i = 0; i < k; ++i)
      visit(arrays[i], what, [&](auto& A) {
        using Tr = ArrayTraits<std::decay_t<decltype(A)>>;
        parts.push_back(std::make_unique<hpf::detail::ManyPartOf<typename Tr::value_type, Tr::rank>>(
            A, std::get<hpf::Layout<Tr::rank>>(targets[i])));
        list.push_back(parts.back().get());
      });
    // Agrees on the strategy with the layouts and element types (a grid on another parent
    // communicator is refused by the batch, on every rank).
    hpf::detail::redistribute_many(std::span<hpf::detail::ManyPart* const>(list), opt, what);
  });
}

hpf_status hpf_array_create_shadow(const char* label, std::int32_t type, int rank, const int64_t* extents,
                                   const hpf_dist* dists, const int64_t* shadow, hpf_grid grid,
                                   hpf_array* array) {
  hpf_array made = nullptr;
  const hpf_status st = hpf_array_create(label, type, rank, extents, dists, grid, &made);
  if (st != HPF_OK) return st;
  const hpf_status st2 = guarded([&] {
    const char* what = "hpf_array_create_shadow: array";
    // The widths are checked on every rank and agreed before any rank keeps the array.
    visit(made, what, [&](auto& A) {
      using Tr = ArrayTraits<std::decay_t<decltype(A)>>;
      std::optional<hpf::Layout<Tr::rank>> with;
      agreed(comm_of(made, what), [&] {
        require_handle(shadow, "hpf_array_create_shadow: shadow");
        hpf::Index<Tr::rank> w{};
        for (int d = 0; d < Tr::rank; ++d) w[static_cast<std::size_t>(d)] = shadow[d];
        with.emplace(A.layout().with_shadow(w));
      });
      hpf::check_same_layout(*with, "hpf_array_create_shadow");
      A.reset_layout(*with);
    });
    *array = made;
  });
  if (st2 != HPF_OK) (void)hpf_array_free(&made);
  return st2;
}

hpf_status hpf_array_shadow_widths(hpf_array array, int64_t* widths) {
  return guarded([&] {
    require_handle(widths, "hpf_array_shadow_widths: widths");
    visit(array, "hpf_array_shadow_widths: array", [&](auto& A) {
      using Tr = ArrayTraits<std::decay_t<decltype(A)>>;
      for (int d = 0; d < Tr::rank; ++d) widths[d] = A.layout().shadow(d);
    });
  });
}

hpf_status hpf_array_update_shadow(hpf_array array, std::int32_t boundary) {
  return guarded([&] {
    const char* what = "hpf_array_update_shadow: array";
    const MPI_Comm comm = comm_of(array, what);
    agreed(comm, [&] {
      hpf::detail::require(boundary == HPF_BOUNDARY_PLAIN || boundary == HPF_BOUNDARY_PERIODIC,
                           "hpf_array_update_shadow: boundary must be HPF_BOUNDARY_PLAIN (0) or "
                           "HPF_BOUNDARY_PERIODIC (1), got ",
                           static_cast<int>(boundary));
    });
    hpf::AgreementWords w;
    w.add(boundary, [] { return std::string("boundary"); });
    w.check(comm, "hpf_array_update_shadow");
    visit(array, what, [&](auto& A) {
      A.update_shadow(boundary == HPF_BOUNDARY_PERIODIC ? hpf::Boundary::Periodic : hpf::Boundary::Plain);
    });
  });
}

hpf_status hpf_cshift(hpf_array source, int64_t shift, int dim, hpf_array target) {
  return guarded([&] {
    visit_pair(source, target, "hpf_cshift", shift, dim,
               [&](const auto& A, auto& T) { hpf::cshift(A, shift, dim, T); });
  });
}

hpf_status hpf_eoshift(hpf_array source, int64_t shift, int dim, const void* boundary, hpf_array target) {
  return guarded([&] {
    visit_pair(source, target, "hpf_eoshift", shift, dim, [&](const auto& A, auto& T) {
      typename ArrayTraits<std::decay_t<decltype(A)>>::value_type b{};
      if (boundary != nullptr) std::memcpy(&b, boundary, sizeof b);
      hpf::eoshift(A, shift, dim, b, T);
    });
  });
}

hpf_status hpf_array_assign_section(hpf_array dst, const hpf_triplet* dst_section, hpf_array src,
                                    const hpf_triplet* src_section, const int32_t* perm) {
  return guarded([&] {
    const char* what = "hpf_array_assign_section";
    visit_same(
        dst, "dst", src, "src", what,
        [&] {
          require_handle(dst_section, "hpf_array_assign_section: dst_section");
          require_handle(src_section, "hpf_array_assign_section: src_section");
        },
        [&](auto& B, const auto& A) {
          constexpr int N = ArrayTraits<std::decay_t<decltype(B)>>::rank;
          // hpf::assign agrees on the sections and the permutation, then checks them on every rank.
          if (perm == nullptr) {
            hpf::assign(B, to_section<N>(dst_section), A, to_section<N>(src_section));
          } else {
            hpf::assign(B, to_section<N>(dst_section), A, to_section<N>(src_section),
                        to_permutation<N>(perm));
          }
        });
  });
}

hpf_status hpf_array_transform(hpf_array dst, const hpf_triplet* dst_section, hpf_array src,
                               const hpf_triplet* src_section, const int32_t* perm, const void* alpha,
                               const void* beta, int conjugate) {
  return guarded([&] {
    const char* what = "hpf_array_transform";
    visit_same(
        dst, "dst", src, "src", what,
        [&] {
          require_handle(dst_section, "hpf_array_transform: dst_section");
          require_handle(src_section, "hpf_array_transform: src_section");
          require_handle(alpha, "hpf_array_transform: alpha");
          require_handle(beta, "hpf_array_transform: beta");
        },
        [&](auto& B, const auto& A) {
          using T = typename std::decay_t<decltype(B)>::value_type;
          constexpr int N = ArrayTraits<std::decay_t<decltype(B)>>::rank;
          T a{};
          T b{};
          std::memcpy(&a, alpha, sizeof(T));
          std::memcpy(&b, beta, sizeof(T));
          // hpf::transform agrees on the sections, the permutation and the scalars.
          if (perm == nullptr) {
            hpf::transform(B, to_section<N>(dst_section), A, to_section<N>(src_section), a, b,
                           conjugate != 0);
          } else {
            hpf::transform(B, to_section<N>(dst_section), A, to_section<N>(src_section),
                           to_permutation<N>(perm), a, b, conjugate != 0);
          }
        });
  });
}

hpf_status hpf_array_transpose(hpf_array source, const int32_t* perm, hpf_array target) {
  return guarded([&] {
    visit_same(
        source, "source", target, "target", "hpf_array_transpose", [] {},
        [&](const auto& A, auto& T) {
          constexpr int N = ArrayTraits<std::decay_t<decltype(A)>>::rank;
          hpf::assign(T, hpf::whole_section<N>(T.layout().extents()), A,
                      hpf::whole_section<N>(A.layout().extents()), to_permutation<N>(perm));
        });
  });
}

hpf_status hpf_template_create(int rank, const int64_t* extents, const hpf_dist* dists, hpf_grid grid,
                               hpf_template* tmpl) {
  return guarded([&] {
    const hpf::ProcessGrid& g = grid_of(grid, "hpf_template_create: grid");
    std::optional<AnyLayout> made;
    agreed(g.comm().get(), [&] {
      require_handle(tmpl, "hpf_template_create: tmpl");
      require_handle(extents, "hpf_template_create: extents");
      require_handle(dists, "hpf_template_create: dists");
      made.emplace(make_any_layout(rank, extents, dists, g, "hpf_template_create"));
    });
    hpf::AgreementWords w;
    std::visit([&](const auto& L) { hpf::add_layout_words(w, L, ""); }, *made);
    w.check(g.comm().get(), "hpf_template_create");
    *tmpl = reinterpret_cast<hpf_template>( // NOLINT(performance-no-int-to-ptr): a value, never dereferenced
        templates().add(std::make_unique<hpf_template_s>(hpf_template_s{std::move(*made)})));
  });
}

hpf_status hpf_template_of_array(hpf_array array, hpf_template* tmpl) {
  return guarded([&] {
    require_handle(tmpl, "hpf_template_of_array: tmpl");
    std::optional<AnyLayout> layout;
    visit(array, "hpf_template_of_array: array", [&](const auto& A) { layout.emplace(A.layout()); });
    *tmpl = reinterpret_cast<hpf_template>( // NOLINT(performance-no-int-to-ptr): a value, never dereferenced
        templates().add(std::make_unique<hpf_template_s>(hpf_template_s{std::move(*layout)})));
  });
}

hpf_status hpf_template_redistribute(hpf_template tmpl, const hpf_dist* dists, hpf_grid grid) {
  return guarded([&] {
    hpf_template_s& t = templates().get(tmpl, "hpf_template_redistribute: tmpl");
    const hpf::ProcessGrid& g = grid_of(grid, "hpf_template_redistribute: grid");
    std::optional<AnyLayout> made;
    agreed(g.comm().get(), [&] {
      require_handle(dists, "hpf_template_redistribute: dists");
      std::visit(
          [&](const auto& L) {
            hpf::detail::require(L.grid().parent_size() == g.parent_size(),
                                 "hpf_template_redistribute: the grid's parent communicator has ",
                                 g.parent_size(), " ranks and the template's ", L.grid().parent_size(),
                                 "; expected one parent");
            made.emplace(
                make_any_layout(L.rank(), L.extents().data(), dists, g, "hpf_template_redistribute"));
          },
          t.layout);
    });
    hpf::AgreementWords w;
    std::visit([&](const auto& L) { hpf::add_layout_words(w, L, "target."); }, *made);
    w.check(g.comm().get(), "hpf_template_redistribute");
    t.layout = std::move(*made);
  });
}

hpf_status hpf_template_extents(hpf_template tmpl, int* rank, int64_t* extents) {
  return guarded([&] {
    std::visit(
        [&](const auto& L) {
          if (rank != nullptr) *rank = L.rank();
          if (extents != nullptr)
            for (int d = 0; d < L.rank(); ++d) extents[d] = L.extents()[static_cast<std::size_t>(d)];
        },
        templates().get(tmpl, "hpf_template_extents: tmpl").layout);
  });
}

hpf_status hpf_template_free(hpf_template* tmpl) {
  return guarded([&] {
    require_handle(tmpl, "hpf_template_free: tmpl");
    templates().remove(*tmpl, "hpf_template_free: *tmpl");
    *tmpl = nullptr;
  });
}

hpf_status hpf_array_create_aligned(const char* label, std::int32_t type, int rank, const int64_t* extents,
                                    hpf_template base, const hpf_align_dim* dims, const int64_t* base_index,
                                    hpf_array* array) {
  return guarded([&] {
    const AnyLayout& b = templates().get(base, "hpf_array_create_aligned: base").layout;
    const MPI_Comm comm = std::visit([](const auto& L) { return L.grid().comm().get(); }, b);
    const char* name = label != nullptr ? label : "";
    std::optional<AnyArray> made;
    agreed(comm, [&] {
      require_handle(array, "hpf_array_create_aligned: array");
      require_handle(extents, "hpf_array_create_aligned: extents");
      require_handle(dims, "hpf_array_create_aligned: dims");
      with_rank(rank, "hpf_array_create_aligned", [&](auto n) {
        auto layout = aligned_layout<decltype(n)::value>(b, extents, dims, base_index);
        with_type(type, "hpf_array_create_aligned", [&](auto t) {
          made.emplace(hpf::DistArray<decltype(t), decltype(n)::value>(name, std::move(layout)));
        });
      });
    });
    hpf::AgreementWords w;
    w.add(type, [] { return std::string("type"); });
    std::visit([&](const auto& A) { hpf::add_layout_words(w, A.layout(), ""); }, *made);
    w.check(comm, "hpf_array_create_aligned");
    *array = reinterpret_cast<hpf_array>( // NOLINT(performance-no-int-to-ptr): a value, never dereferenced
        arrays().add(std::make_unique<hpf_array_s>(hpf_array_s{std::move(*made)})));
  });
}

hpf_status hpf_array_realign(hpf_array array, hpf_template base, const hpf_align_dim* dims,
                             const int64_t* base_index, std::int32_t strategy) {
  return guarded([&] {
    const char* what = "hpf_array_realign: array";
    const MPI_Comm comm = comm_of(array, what);
    hpf::RedistOptions opt;
    visit(array, what, [&](auto& A) {
      using Tr = ArrayTraits<std::decay_t<decltype(A)>>;
      std::optional<hpf::Layout<Tr::rank>> target;
      agreed(comm, [&] {
        const AnyLayout& b = templates().get(base, "hpf_array_realign: base").layout;
        require_handle(dims, "hpf_array_realign: dims");
        opt.strategy = to_strategy(strategy, "hpf_array_realign");
        target.emplace(aligned_layout<Tr::rank>(b, A.layout().extents().data(), dims, base_index));
        hpf::detail::require(target->grid().parent_size() == A.layout().grid().parent_size(),
                             "hpf_array_realign: the base's grid has a parent of ",
                             target->grid().parent_size(), " ranks and the array's ",
                             A.layout().grid().parent_size(), "; expected one parent");
      });
      hpf::AgreementWords w;
      w.add(strategy, [] { return std::string("strategy"); });
      hpf::add_layout_words(w, *target, "target.");
      w.check(comm, "hpf_array_realign");
      A.redistribute(std::move(*target), opt);
    });
  });
}

} // extern "C"
