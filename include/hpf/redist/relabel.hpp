// Process relabeling for REDISTRIBUTE: which parent rank should take each position of the target grid
// so that the most data stays where it is. COSTA's ranks reordering answers the same question by
// pairwise swaps; here it is solved exactly, as a linear assignment problem.
//
// The weights: V[i][j] is the number of elements that source grid position i holds (its primary copy,
// the one a plan sends from) and that target grid position j holds (every copy: each one receives).
// Along array dimension d, the elements that two positions share are entry (coordinate of i along d,
// coordinate of j along d) of the dimension's 1-D communication grid (dim_pattern: the closed forms
// of Desprez et al. for CYCLIC maps), and the elements of an N-d block are the product over its
// dimensions, so V costs O(N n^2) on top of the 1-D grids, whatever the number of elements. If the
// rank at source position i takes target position j, V[i][j] elements stay in place and the rest of
// what j holds arrives in messages: the arrangement that keeps the most is a maximum-weight
// assignment of target positions to source positions (schedule/assignment.hpp: exact, LEMON's network
// simplex), and the bytes moved are the bytes j holds minus the bytes kept, summed over j.
//
// Both grids must hold the same set of ranks of one parent communicator (any shapes, any orders; a
// subset of the parent is fine when it is the same subset): the arrangement is then a permutation of
// the target grid's ranks, and every rank that holds data in the source takes a target position.
//
// The query (best_relabeling) is pure and local: every rank computes the same arrangement from the
// same two layouts. Building the arranged grid is collective (a ProcessGrid duplicates its parent).
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/layout/agree.hpp>
#include <hpf/layout/cyclic_map.hpp>
#include <hpf/layout/distribution.hpp>
#include <hpf/layout/layout.hpp>
#include <hpf/layout/process_grid.hpp>
#include <hpf/redist/plan.hpp>

#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace hpf {

namespace detail {
/// Throws hpf::Error from `what` unless `ranks` (named `name`) holds the same parent ranks as
/// `expected`, in any order.
void require_same_rank_set(const std::vector<int>& expected, const std::vector<int>& ranks,
                           std::string_view what, std::string_view name);

} // namespace detail

/// One side of a redistribution as relabeling weighs it: pure data, made from a Layout by source_of /
/// target_of, or by hand (tests and planning tools that have no communicator).
struct RelabelSide {
  /// Per array dimension: its 1-D map (P = 1 for a collapsed dimension).
  std::vector<CyclicMap> maps;
  /// Per grid position, its coordinate along each array dimension's map (maps.size() entries per
  /// position, position-major; 0 along a collapsed dimension).
  std::vector<int> coords;
  /// Per grid position: 1 when its elements count (a source position that holds the primary copy, a
  /// target position that holds a copy), 0 otherwise.
  std::vector<unsigned char> counts;
  /// Per grid position, the rank of the parent communicator there.
  std::vector<int> ranks;
  /// Size of the parent communicator.
  int parent_size = 0;

  /// Number of grid positions.
  [[nodiscard]] int size() const noexcept { return static_cast<int>(ranks.size()); }
  /// Coordinate of grid position `pos` along array dimension d.
  [[nodiscard]] int coord(int pos, int d) const {
    return coords[static_cast<std::size_t>(pos) * maps.size() + static_cast<std::size_t>(d)];
  }

  /// The side that a plain Layout(extents, dists, grid) would give, for a grid of `shape` over parent
  /// ranks `ranks` (grid-position order) of a parent of `parent_size` ranks, made without a
  /// communicator (planning tools and tests): the distributed dimensions run along the grid dimensions
  /// in order, and every position counts. Throws hpf::Error, naming the argument, for lists of
  /// different lengths, a shape whose product is not ranks.size(), or a number of distributed
  /// dimensions other than the shape's. Not collective.
  [[nodiscard]] static RelabelSide plain(const std::vector<index_t>& extents,
                                         const std::vector<Distribution>& dists,
                                         const std::vector<int>& shape, const std::vector<int>& ranks,
                                         int parent_size);

  /// The source side of a redistribution from `L`: only the primary copy of a replicated layout
  /// counts, since a plan sends from it alone. Not collective.
  template <int N> [[nodiscard]] static RelabelSide source_of(const Layout<N>& L) { return of(L, true); }
  /// The target side of a redistribution to `L`: every copy counts (each receives). Not collective.
  template <int N> [[nodiscard]] static RelabelSide target_of(const Layout<N>& L) { return of(L, false); }

private:
  template <int N> static RelabelSide of(const Layout<N>& L, bool source) {
    RelabelSide s;
    const ProcessGrid& g = L.grid();
    for (int d = 0; d < N; ++d) s.maps.push_back(L.map(d));
    s.ranks = g.ranks();
    s.parent_size = g.parent_size();
    s.coords.reserve(static_cast<std::size_t>(g.size()) * static_cast<std::size_t>(N));
    for (int pos = 0; pos < g.size(); ++pos) {
      const std::vector<int> c = g.coords_of(pos);
      for (int d = 0; d < N; ++d) s.coords.push_back(L.coord(c, d));
      s.counts.push_back(source ? (L.is_primary(pos) ? 1 : 0) : (L.holds(pos) ? 1 : 0));
    }
    return s;
  }
};

/// The weights of relabeling: V(i, j), the elements that source grid position i holds and target grid
/// position j holds (see the header comment), as a dense row-major matrix.
struct RelabelVolumes {
  int rows = 0;           ///< source grid positions
  int cols = 0;           ///< target grid positions
  std::vector<index_t> v; ///< rows * cols entries, row-major
  index_t total = 0;      ///< sum of every entry: the elements the target holds (every copy)
  /// Entry (i, j).
  [[nodiscard]] index_t at(int i, int j) const {
    return v[static_cast<std::size_t>(i) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(j)];
  }
};

/// V of moving from `source` to `target` (same number of dimensions and extents), from the 1-D
/// communication grids of each dimension (dim_pattern), never element by element. Pure. Throws
/// hpf::Error, naming the field, for sides of different dimensions or extents, or a side whose fields
/// disagree in length or hold a coordinate outside its map.
[[nodiscard]] RelabelVolumes relabel_volumes(const RelabelSide& source, const RelabelSide& target);

/// The answer of best_relabeling.
struct Relabeling {
  /// Per target grid position j, the parent rank that should take it: a permutation of the target
  /// grid's ranks. Equal to them when their arrangement already keeps the most.
  std::vector<int> ranks;
  /// Bytes that leave their rank when moving to the target grid as given.
  index_t bytes_moved_given = 0;
  /// Bytes that leave their rank when moving to the target on the grid arranged by `ranks`: the least
  /// any arrangement moves.
  index_t bytes_moved = 0;
};

/// The arrangement of the target grid's ranks that keeps the most bytes in place (exact; see the
/// header comment), and the bytes moved with and without it, for elements of `element_bytes` bytes.
/// Pure and local: every rank computes the same result from the same sides. Throws hpf::Error, naming
/// the argument, for element_bytes = 0, parents of different sizes, grids over different sets of
/// ranks, sides of different extents (relabel_volumes), or more than max_assignment_total elements.
[[nodiscard]] Relabeling best_relabeling(const RelabelSide& source, const RelabelSide& target,
                                         std::size_t element_bytes = 8);

/// best_relabeling of a move from layout `source` to layout `target`: the same extents, grids over the
/// same set of ranks of parents of one size (any shapes and orders). Not collective: every rank
/// computes the same result from the same layouts, without communication.
template <int N> [[nodiscard]] Relabeling best_relabeling(const Layout<N>& source, const Layout<N>& target,
                                                          std::size_t element_bytes = 8) {
  return best_relabeling(RelabelSide::source_of(source), RelabelSide::target_of(target), element_bytes);
}

/// Collective over the parent communicator of target's grid (every rank of it calls, with the same
/// arguments): `target` (same extents, distributions, placement and shadow) on a new grid of the same
/// shape whose position j holds parent rank ranks[j] (ProcessGrid(parent, ranks, shape)), e.g.
/// best_relabeling(source, target).ranks. Always builds the grid. Throws hpf::Error on every rank when
/// `ranks` is not a permutation of the target grid's ranks.
template <int N>
[[nodiscard]] Layout<N> relabeled_layout(const Layout<N>& target, const std::vector<int>& ranks) {
  detail::require_same_rank_set(target.grid().ranks(), ranks, "relabeled_layout", "ranks");
  return target.with_grid(ProcessGrid(target.grid().comm().get(), ranks, target.grid().shape()));
}

namespace detail {

/// Collective over the parent communicator of both grids: the layout that REDISTRIBUTE with
/// options.relabel moves to, `target` on the grid best_relabeling(source, target) arranges (or `target`
/// itself when its arrangement already keeps the most). First one allreduce checks that every rank
/// passed the same layouts and options and that none failed to arrange them (grids over different
/// rank sets or parents: then every rank throws the same hpf::Error, `what` naming the call), so that
/// every rank then takes the same path to the same grid.
template <int N> Layout<N> relabeled_target(const Layout<N>& source, const Layout<N>& target,
                                            const RedistOptions& options, std::string_view what) {
  const auto words = agreement_words(options);
  std::string problem;
  std::vector<int> ranks;
  try {
    int cmp = MPI_UNEQUAL; // local: the grid to build goes on the target's parent, the source's too
    HPF_MPI_CHECK(MPI_Comm_compare(source.grid().comm().get(), target.grid().comm().get(), &cmp));
    require(cmp == MPI_IDENT || cmp == MPI_CONGRUENT, "the source grid (", source.grid().size(),
            " ranks) and the target grid (", target.grid().size(),
            " ranks) are built on different parent communicators; expected one parent");
    ranks = best_relabeling(source, target, options.element_bytes).ranks;
  } catch (const std::exception& e) {
    problem = std::string(what) + ": options.relabel: " + e.what();
  }
  check_same_redistribution(source, target, words, what, problem);
  if (ranks == target.grid().ranks()) return target; // already the best arrangement: no new grid
  return relabeled_layout(target, ranks);
}

} // namespace detail

} // namespace hpf
