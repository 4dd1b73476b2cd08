// Array-section assignment and transposes of hpf::DistArray: hpf::assign(B, sb, A, sa[, perm]) and
// hpf::transpose(A, layout[, perm]), on SectionPlans (section/plan.hpp) built once and cached.
//
// The cache is keyed by what every rank has and compares alike: the two layouts (grids compared by
// their ranks, shape and MPI_Comm_compare, never by handle value), the two sections, the pairing and
// the options, so every rank finds or builds the same plan. It is a small least-recently-used list,
// like the REDISTRIBUTE plan cache, cleared by clear_section_plan_cache().
#pragma once

#include <hpf/array/dist_array.hpp>
#include <hpf/exec/model.hpp>
#include <hpf/section/ceiling.hpp>
#include <hpf/section/plan.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hpf {

namespace detail {

inline constexpr std::size_t section_cache_capacity = 32;

template <class T, int N> struct SectionPlanCache {
  struct Entry {
    Layout<N> dst;
    Section<N> sb;
    Layout<N> src;
    Section<N> sa;
    std::optional<Permutation<N>> perm;
    SectionOptions opt;
    std::shared_ptr<const SectionPlan<T, N>> plan;
  };
  static std::vector<Entry>& entries() {
    static std::vector<Entry> e;
    return e;
  }
};

/// Every clear function of the section caches that were used (one per T and N).
inline std::vector<void (*)()>& section_cache_clearers() {
  static std::vector<void (*)()> c;
  return c;
}

} // namespace detail

/// The plan of B(sb) = A(sa) (with `perm` when given), built on first use and then reused. Local:
/// planning never communicates. Throws what the SectionPlan constructor throws.
template <class T, int N> std::shared_ptr<const SectionPlan<T, N>>
cached_section_plan(const Layout<N>& dst, const Section<N>& sb, const Layout<N>& src, const Section<N>& sa,
                    const std::optional<Permutation<N>>& perm = std::nullopt,
                    const SectionOptions& opt = {}) {
  using Cache = detail::SectionPlanCache<T, N>;
  auto& cache = Cache::entries();
  static const bool registered = [] {
    detail::section_cache_clearers().push_back([] { Cache::entries().clear(); });
    return true;
  }();
  (void)registered;
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (it->sb == sb && it->sa == sa && it->perm == perm && it->opt == opt && it->dst == dst &&
        it->src == src) {
      auto plan = it->plan;
      std::rotate(cache.begin(), it, it + 1); // most recently used first
      return plan;
    }
  }
  auto plan = perm ? std::make_shared<const SectionPlan<T, N>>(dst, sb, src, sa, *perm, opt)
                   : std::make_shared<const SectionPlan<T, N>>(dst, sb, src, sa, opt);
  cache.insert(cache.begin(), {dst, sb, src, sa, perm, opt, plan});
  if (cache.size() > detail::section_cache_capacity) cache.pop_back();
  return plan;
}

namespace detail {

/// Appends a section: per dimension its triplet's lo, hi and stride.
template <int N> void add_section_words(AgreementWords& out, const Section<N>& s, const char* prefix) {
  for (int d = 0; d < N; ++d) {
    const Triplet& t = s[static_cast<std::size_t>(d)];
    auto dim = [&] { return std::string(prefix) + "[" + std::to_string(d) + "]"; };
    out.add(t.lo, [&] { return dim() + ".lo"; });
    out.add(t.hi, [&] { return dim() + ".hi"; });
    out.add(t.stride, [&] { return dim() + ".stride"; });
  }
}

/// The cached plan of B(sb) = A(sa) with its executor's message buffers allocated, or null with this
/// rank's failure in `problem` (an invalid argument, or memory): the caller's agreement then makes it
/// every rank's error before any message. Local.
template <class T, int N> std::shared_ptr<const SectionPlan<T, N>>
prepared_section_plan(const Layout<N>& dst, const Section<N>& sb, const Layout<N>& src, const Section<N>& sa,
                      const std::optional<Permutation<N>>& perm, const SectionOptions& opt,
                      std::string& problem, bool combining = false) {
  try {
    auto plan = cached_section_plan<T, N>(dst, sb, src, sa, perm, opt);
    plan->prepare(combining);
    return plan;
  } catch (const std::exception& e) {
    problem = e.what();
    return nullptr;
  }
}

/// Collective over the parent communicator of dst's grid: throws the same hpf::Error on every rank
/// unless every rank passed the same layouts, sections, permutation and options to assign/transpose
/// A `local_problem` (this rank\'s planning or allocation failure) is thrown on every rank. `extra`
/// appends the words of further arguments (hpf::transform's scalars).
template <class T, int N>
void check_same_assignment(const Layout<N>& dst, const Section<N>& sb, const Layout<N>& src,
                           const Section<N>& sa, const std::optional<Permutation<N>>& perm,
                           const SectionOptions& opt, const char* what, std::string_view local_problem = {},
                           const std::function<void(AgreementWords&)>& extra = {}) {
  const auto build = [&](bool named) {
    AgreementWords w;
    w.named = w.named || named;
    w.add(static_cast<std::int64_t>(sizeof(T)), [] { return std::string("sizeof(T)"); });
    add_layout_words(w, dst, "target.");
    add_section_words<N>(w, sb, "target section");
    add_layout_words(w, src, "source.");
    add_section_words<N>(w, sa, "source section");
    w.add(perm ? 1 : 0, [] { return std::string("has a permutation"); });
    if (perm) {
      for (int d = 0; d < N; ++d)
        w.add((*perm)[static_cast<std::size_t>(d)], [&] { return "perm[" + std::to_string(d) + "]"; });
    }
    w.add(static_cast<std::int64_t>(opt.strategy), [] { return std::string("options.strategy"); });
    w.add(static_cast<std::int64_t>(opt.mode), [] { return std::string("options.mode"); });
    w.add(opt.tag, [] { return std::string("options.tag"); });
    if (extra) extra(w);
    return w;
  };
  build(false).check(dst.grid().comm().get(), what, local_problem, [&] { return build(true); });
}

} // namespace detail

/// Drops every cached section plan (e.g. before freeing the communicators their grids use).
inline void clear_section_plan_cache() {
  for (auto clear : detail::section_cache_clearers()) clear();
}

/// A bound on the bytes per rank that hpf::assign and hpf::transpose may allocate beyond the blocks of
/// their arrays (message buffers): a move whose buffers would exceed it on some rank runs as a
/// sequence of smaller section moves that each fit (docs/sections.md, "Under a memory ceiling"), as
/// RedistOptions::memory_ceiling_bytes does for REDISTRIBUTE.
struct MemoryCeiling {
  std::size_t bytes = 0; ///< the most bytes of buffers per rank
};

namespace detail {

/// Collective: B(sb) = A(sa) (with `perm` when given), whole or, with a ceiling, under it.
template <class T, int N> void assign_with(DistArray<T, N>& B, const Section<N>& sb, const DistArray<T, N>& A,
                                           const Section<N>& sa, const std::optional<Permutation<N>>& perm,
                                           std::optional<std::size_t> ceiling, const char* what) {
  const SectionOptions opt = array_section_options(B.layout().grid().comm());
  std::string problem;
  std::shared_ptr<const SectionPlan<T, N>> plan;
  if (!ceiling) {
    plan = prepared_section_plan<T, N>(B.layout(), sb, A.layout(), sa, perm, opt, problem);
  } else {
    try { // the buffers: allocated, or not, once the ranks know whether the whole move fits
      plan = cached_section_plan<T, N>(B.layout(), sb, A.layout(), sa, perm, opt);
      require(
          !A.has_shadow() && !B.has_shadow(), what,
          ": a memory ceiling with an array that has a SHADOW; expected arrays without shadow (their owned "
          "elements would move through copies of the whole blocks)");
      require(A.local_data() == nullptr || static_cast<const void*>(A.local_data()) != B.local_data(), what,
              ": a memory ceiling with the source and target sharing storage; expected two arrays (the "
              "right-hand side would be copied whole first)");
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  check_same_assignment<T, N>(B.layout(), sb, A.layout(), sa, perm, opt, what, problem,
                              [&](AgreementWords& w) {
                                w.add(ceiling ? 1 : 0, [] { return std::string("memory ceiling given"); });
                                w.add(std::bit_cast<std::int64_t>(ceiling.value_or(0)),
                                      [] { return std::string("memory ceiling bytes"); });
                              });
  if (ceiling)
    execute_under_ceiling(*plan, B, A, *ceiling, Assign{}, what);
  else
    plan->execute(B, A);
}

} // namespace detail

/// Collective over the parent communicator of both grids (every rank of it calls, in or out of either
/// grid): B(sb) = A(sa), HPF array-section assignment. Dimensions of extent 1 may be dropped on either
/// side (Fortran's rank reduction). A and B may be the same array, with overlapping sections: the
/// result is as if A(sa) were read completely first. Throws hpf::Error on every rank, with B
/// unchanged, for a stride of 0, a triplet outside its extent, section extents that disagree, or
/// arguments that differ between ranks.
template <class T, int N>
void assign(DistArray<T, N>& B, const Section<N>& sb, const DistArray<T, N>& A, const Section<N>& sa) {
  detail::assign_with<T, N>(B, sb, A, sa, std::nullopt, std::nullopt, "hpf::assign");
}

/// Collective, as above, with a dimension permutation: B's dimension d takes A's dimension perm[d]
/// (extents must agree dimension by dimension). Throws hpf::Error on every rank for a perm that is not
/// a permutation of 0..N-1.
template <class T, int N> void assign(DistArray<T, N>& B, const Section<N>& sb, const DistArray<T, N>& A,
                                      const Section<N>& sa, const Permutation<N>& perm) {
  detail::assign_with<T, N>(B, sb, A, sa, perm, std::nullopt, "hpf::assign");
}

/// Collective, as above, allocating at most `ceiling.bytes` of message buffers per rank (MemoryCeiling).
/// Throws hpf::Error on every rank, with B unchanged, for a ceiling below the smallest piece (the
/// message names the smallest workable ceiling), arrays with a SHADOW, or A and B sharing storage.
template <class T, int N> void assign(DistArray<T, N>& B, const Section<N>& sb, const DistArray<T, N>& A,
                                      const Section<N>& sa, MemoryCeiling ceiling) {
  detail::assign_with<T, N>(B, sb, A, sa, std::nullopt, ceiling.bytes, "hpf::assign");
}

/// Collective, as above, with a dimension permutation and a memory ceiling.
template <class T, int N> void assign(DistArray<T, N>& B, const Section<N>& sb, const DistArray<T, N>& A,
                                      const Section<N>& sa, const Permutation<N>& perm,
                                      MemoryCeiling ceiling) {
  detail::assign_with<T, N>(B, sb, A, sa, perm, ceiling.bytes, "hpf::assign");
}

/// Collective: transpose(A, layout, perm) below, allocating at most `ceiling.bytes` of message buffers
/// per rank beyond the new array's block (MemoryCeiling); throws hpf::Error on every rank as the
/// assign with a ceiling does.
template <class T, int N>
[[nodiscard]] DistArray<T, N> transpose(const DistArray<T, N>& A, const Layout<N>& layout,
                                        const Permutation<N>& perm, MemoryCeiling ceiling) {
  std::string problem;
  std::optional<DistArray<T, N>> C; // allocated before the agreement: a failure is every rank's error
  try {
    C.emplace(A.label() + "^T", layout);
  } catch (const std::exception& e) {
    problem = e.what();
  }
  detail::agree_on_error(layout.grid().comm(), problem);
  detail::assign_with<T, N>(*C, whole_section<N>(layout.extents()), A, whole_section<N>(A.layout().extents()),
                            perm, ceiling.bytes, "hpf::transpose");
  return std::move(*C);
}

/// Collective over the parent communicator of both grids: a new array laid out by `layout` with
/// C(i_0, ..., i_{N-1}) = A(j) where j[perm[d]] = i_d, i.e. C's dimension d is A's dimension perm[d].
/// Throws hpf::Error on every rank when layout's extent d differs from A's extent perm[d].
/// It allocates C at every call: to transpose into an existing array, keeping its storage (its
/// local_data(), e.g. for a plan of a local FFT library made on it), use
/// assign(C, whole_section<N>(C.layout().extents()), A, whole_section<N>(A.layout().extents()), perm).
template <class T, int N> [[nodiscard]] DistArray<T, N>
transpose(const DistArray<T, N>& A, const Layout<N>& layout, const Permutation<N>& perm) {
  const Section<N> sc = whole_section<N>(layout.extents());
  const Section<N> sa = whole_section<N>(A.layout().extents());
  const SectionOptions opt = detail::array_section_options(layout.grid().comm());
  std::string problem;
  std::optional<DistArray<T, N>> C; // allocated before the agreement: a failure is every rank's error
  try {
    C.emplace(A.label() + "^T", layout);
  } catch (const std::exception& e) {
    problem = e.what();
  }
  detail::check_same_assignment<T, N>(layout, sc, A.layout(), sa, perm, opt, "hpf::transpose", problem);
  detail::check_permutation<N>(perm, "transpose");
  for (int d = 0; d < N; ++d)
    if (layout.extent(d) != A.layout().extent(perm[static_cast<std::size_t>(d)])) // text only on failure
      detail::fail("transpose: target layout extent[", d, "] = ", layout.extent(d), " must equal A's extent[",
                   perm[static_cast<std::size_t>(d)],
                   "] = ", A.layout().extent(perm[static_cast<std::size_t>(d)]), " (target extents ",
                   Layout<N>::to_string(layout.extents()), ", A's ",
                   Layout<N>::to_string(A.layout().extents()), ")");
  // The plan and its buffers: the arguments were agreed above, so a failure here is an allocation;
  // agree_on_error makes it every rank's error before any message.
  std::shared_ptr<const SectionPlan<T, N>> plan;
  try {
    plan = cached_section_plan<T, N>(layout, sc, A.layout(), sa, perm, opt);
    plan->prepare();
  } catch (const std::exception& e) {
    problem = e.what();
  }
  detail::agree_on_error(layout.grid().comm(), problem);
  plan->execute(*C, A);
  return std::move(*C);
}

/// Collective: B = TRANSPOSE(A) of a 2-D array, laid out by `layout` (extents (n1, n0) for A's (n0, n1)).
template <class T>
[[nodiscard]] DistArray<T, 2> transpose(const DistArray<T, 2>& A, const Layout<2>& layout) {
  return transpose(A, layout, Permutation<2>{1, 0});
}

} // namespace hpf
