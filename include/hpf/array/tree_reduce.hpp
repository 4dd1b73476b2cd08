// Tree reductions of a DistArray's local contributions (Canon and Antoniu executor on the array layer).
// It lives in array/, above reduce/: reduce/ knows ranks and bytes, not arrays.
#pragma once

#include <hpf/array/dist_array.hpp>
#include <hpf/reduce/tree_reducer.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hpf {

/// Collective over the grid's parent communicator, which must be the reducer's (same group, same
/// order): every rank folds its local elements in local storage order with op(left, right), then the
/// ranks' contributions are reduced along the reducer's tree in rank order (ranks that own nothing,
/// or are outside the grid, contribute nothing). The result is on reducer.root(); std::nullopt
/// elsewhere and for an empty array. Throws hpf::Error on every rank unless every rank passed the same
/// layout and reducer. For a BLOCK distribution on a 1-D grid over the whole
/// communicator this is the left-to-right fold of the array in global order, for any associative op.
template <class T, int N, class Op>
std::optional<T> tree_reduce(const TreeReducer& reducer, const DistArray<T, N>& A, Op op) {
  const Comm& comm = A.layout().grid().comm();
  int cmp = MPI_UNEQUAL;
  HPF_MPI_CHECK(MPI_Comm_compare(comm.get(), reducer.comm().get(), &cmp));
  // Every rank must pass the same layout and the same reducer (its tree and root). The
  // local comparison's result is agreed too, so that the check below throws on every rank or none.
  AgreementWords agree;
  agree.add(static_cast<std::int64_t>(sizeof(T)), [] { return std::string("sizeof(T)"); });
  agree.add(cmp, [] { return std::string("MPI_Comm_compare(grid, reducer)"); });
  agree.add(reducer.root(), [] { return std::string("reducer.root"); });
  agree.add(reducer.size(), [] { return std::string("reducer.size"); });
  const std::vector<int>& parent = reducer.tree().parent;
  for (std::size_t i = 0; i < parent.size(); ++i)
    agree.add(parent[i], [&] { return "reducer.parent[" + std::to_string(i) + "]"; });
  add_layout_words(agree, A.layout(), "layout.");
  agree.check(comm.get(), "hpf::tree_reduce");
  detail::require(
      cmp == MPI_IDENT || cmp == MPI_CONGRUENT, "tree_reduce(DistArray '", A.label(),
      "'): the reducer's communicator is not the grid's parent communicator (MPI_Comm_compare gave ", cmp,
      ")");
  struct Part {
    T value;
    bool has;
  };
  Part mine{T{}, false};
  // Owned elements only (no shadow slots), of the primary copy only: each element counts once on a
  // replicated layout (docs/align.md).
  if (A.primary_copy())
    A.for_each_owned_run([&](const T* data, index_t n) {
      for (index_t i = 0; i < n; ++i) {
        mine.value = mine.has ? static_cast<T>(op(mine.value, data[i])) : data[i];
        mine.has = true;
      }
    });
  // An absent contribution is a two-sided identity, so no identity element of op is needed.
  const std::optional<Part> r = reducer.reduce(mine, [&op](const Part& a, const Part& b) {
    if (!a.has) return b;
    if (!b.has) return a;
    return Part{static_cast<T>(op(a.value, b.value)), true};
  });
  if (!r || !r->has) return std::nullopt;
  return r->value;
}

} // namespace hpf
