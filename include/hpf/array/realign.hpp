// HPF REALIGN semantics for DYNAMIC arrays: REDISTRIBUTE of a base array carries the arrays aligned
// with it (docs/align.md).
//
//   hpf::DistArray<double, 2> A("A", base);                                  // the base
//   hpf::Alignment<1, 2> al;  al.dims[0] = {1, 2, 1};  al.base_index[0] = 3; // X(i) WITH A(3, 2*i + 1)
//   hpf::DistArray<double, 1> X("X", hpf::Layout<1>::aligned(base, al, {n}));
//   hpf::realign(A, new_base, hpf::aligned_with(X, al));                     // A and X move, values kept
//
// Each aligned array B goes to Layout::aligned(new_base, its alignment, its extents) through the plan
// cache (one REDISTRIBUTE per array, the base's first). Everything is checked before anything moves.
#pragma once

#include <hpf/array/dist_array.hpp>
#include <hpf/layout/agree.hpp>

#include <string>

namespace hpf {

/// An array and its alignment with a base (the argument of realign).
template <class T, int N, int M> struct AlignedArray {
  DistArray<T, N>* array;    ///< the aligned array (not owned)
  Alignment<N, M> alignment; ///< its alignment with the base
};

/// The pair (B, alignment) for realign. Not collective.
template <class T, int N, int M>
[[nodiscard]] AlignedArray<T, N, M> aligned_with(DistArray<T, N>& B, const Alignment<N, M>& alignment) {
  return {&B, alignment};
}

/// Collective over the parent communicator of the grids involved: HPF REDISTRIBUTE of the base `A` to
/// `layout`, carrying the arrays aligned with it: every `aligned` B (from aligned_with) is
/// redistributed to Layout<N>::aligned(layout, alignment, B's extents) and keeps its values. Throws
/// hpf::Error on every rank, with every array unchanged, when a B's layout is not
/// Layout::aligned(A's layout, alignment, B's extents) (it is not aligned with A as stated), when the
/// alignment does not fit the new layout, or for anything A.redistribute(layout) refuses.
template <class T, int M, class... Aligned>
void realign(DistArray<T, M>& A, const Layout<M>& layout, const Aligned&... aligned) {
  // Every rank must pass the same target layout (the per-array checks below see only A's).
  check_same_redistribution(A.layout(), layout, {}, "hpf::realign");
  // The aligned array's layout under a base layout (its shadow widths kept), or hpf::Error.
  auto target_of = [](const auto& b, const auto& base) {
    using L = std::remove_cvref_t<decltype(b.array->layout())>;
    const L& cur = b.array->layout();
    const L next = L::aligned(base, b.alignment, cur.extents());
    return cur.has_shadow() ? next.with_shadow(cur.shadow()) : next;
  };
  std::size_t k = 0;
  auto check = [&](const auto& b) {
    const auto& B = *b.array;
    const auto now = target_of(b, A.layout());
    if (!(B.layout() == now)) // the text only on failure
      detail::fail("hpf::realign: aligned[", k, "] (DistArray '", B.label(), "') has layout ",
                   B.layout().describe_dists(), "; expected the layout of its alignment with the base '",
                   A.label(), "', ", now.describe_dists());
    (void)target_of(b, layout); // fits the new base, or throws
    ++k;
  };
  // The aligned arrays and alignments are not part of the agreement above: a problem seen on some
  // ranks only is raised on every rank, before anything moves.
  std::string problem;
  try {
    (check(aligned), ...);
  } catch (const Error& e) {
    problem = e.what();
  }
  detail::agree_on_error(A.layout().grid().comm(), problem);
  A.redistribute(layout);
  auto move = [&](const auto& b) { b.array->redistribute(target_of(b, layout)); };
  (move(aligned), ...);
}

} // namespace hpf
