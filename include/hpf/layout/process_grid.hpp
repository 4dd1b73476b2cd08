// hpf::ProcessGrid: a 1-D to 4-D Cartesian arrangement of ranks of a communicator.
//
// A grid lists the ranks it uses (any subset of the parent communicator, in any order) and its
// shape. Coordinates are in Fortran order: coordinate 0 varies fastest, so grid position
//   pos = c0 + s0 * (c1 + s1 * (c2 + ...))
// is the index into `ranks()`. Two grids over the same parent may be identical, overlap or be
// disjoint; ranks of the parent that are not in the grid are "outside" it: they hold no data but
// still take part in the collective operations of arrays on the grid.
#pragma once

#include <hpf/core/mpi.hpp>

#include <array>
#include <memory>
#include <optional>
#include <vector>

namespace hpf {

/// Largest number of grid dimensions (and of array dimensions).
inline constexpr int max_rank = 4;

/// A 1-D to 4-D Cartesian arrangement of ranks of a parent communicator (see the header comment and
/// docs/arrays.md). Cheap to copy: copies share one immutable state.
class ProcessGrid {
public:
  /// A grid over every rank of MPI_COMM_WORLD in rank order; `shape`'s product must equal the size.
  /// Collective over MPI_COMM_WORLD.
  static ProcessGrid world(std::vector<int> shape);

  /// A grid over the ranks `ranks` (ranks of `parent`, in grid-position order) with `shape`.
  /// Collective over `parent`; every rank must pass the same arguments. Throws hpf::Error on every
  /// rank for a shape whose product is not ranks.size(), a rank outside `parent`, duplicate ranks,
  /// or a shape of rank 0 or > 4.
  ProcessGrid(MPI_Comm parent, std::vector<int> ranks, std::vector<int> shape);

  /// All ranks of `parent` in rank order, with `shape` (product = size of parent). Collective.
  ProcessGrid(MPI_Comm parent, std::vector<int> shape);

  /// Number of grid dimensions.
  [[nodiscard]] int ndims() const noexcept { return static_cast<int>(m_impl->shape.size()); }
  /// Extent of every grid dimension.
  [[nodiscard]] const std::vector<int>& shape() const noexcept { return m_impl->shape; }
  /// Extent of grid dimension `dim`.
  [[nodiscard]] int extent(int dim) const { return m_impl->shape.at(static_cast<std::size_t>(dim)); }
  /// Number of ranks in the grid.
  [[nodiscard]] int size() const noexcept { return static_cast<int>(m_impl->ranks.size()); }
  /// Ranks of the parent communicator, indexed by grid position.
  [[nodiscard]] const std::vector<int>& ranks() const noexcept { return m_impl->ranks; }

  /// The parent communicator (a duplicate with MPI_ERRORS_RETURN): every rank of it, in or out of the
  /// grid, takes part in collectives of arrays on this grid.
  [[nodiscard]] const Comm& comm() const noexcept { return m_impl->parent; }
  /// The calling rank in the parent communicator.
  [[nodiscard]] int parent_rank() const noexcept { return m_impl->my_parent_rank; }
  /// Size of the parent communicator.
  [[nodiscard]] int parent_size() const noexcept { return m_impl->parent_size; }

  /// True when the calling rank is in the grid.
  [[nodiscard]] bool contains_me() const noexcept { return m_impl->my_position >= 0; }
  /// Grid position of the calling rank, or -1 outside the grid.
  [[nodiscard]] int my_position() const noexcept { return m_impl->my_position; }
  /// Coordinates of the calling rank (throws hpf::Error outside the grid); computed once, with the grid.
  [[nodiscard]] const std::vector<int>& my_coords() const;

  /// Grid position <-> coordinates (Fortran order).
  [[nodiscard]] std::vector<int> coords_of(int position) const;
  /// Grid position of coordinates `coords`.
  [[nodiscard]] int position_of(const std::vector<int>& coords) const;
  /// Parent rank at a grid position.
  [[nodiscard]] int rank_at(int position) const;
  /// Grid position of a parent rank, or -1 if the rank is not in the grid.
  [[nodiscard]] int position_of_rank(int parent_rank) const;

  /// Same parent communicator (congruent), same ranks in the same order and the same shape.
  friend bool operator==(const ProcessGrid& a, const ProcessGrid& b);

private:
  struct Impl {
    Comm parent;
    std::vector<int> ranks;
    std::vector<int> shape;
    std::vector<int> position_of_rank; // indexed by parent rank, -1 outside
    int my_parent_rank = -1;
    int parent_size = 0;
    int my_position = -1;
    std::vector<int> my_coords; // empty outside the grid
  };
  std::shared_ptr<const Impl> m_impl;
};

} // namespace hpf
