// hpf::Layout<N>: extents + a distribution per dimension + a process grid.
//
// The distributed (non-collapsed) dimensions of the array are mapped, in order, onto the dimensions
// of the grid: the k-th distributed array dimension runs along grid dimension k, so the number of
// distributed dimensions must equal grid.ndims(). Collapsed (`*`) dimensions are held whole; an
// array whose dimensions are all collapsed lives on a one-process grid.
//
// Index queries (g = global index, l = local index, c = grid coordinates, pos = grid position):
//
//   | query                         | meaning                                                       |
//   |-------------------------------|---------------------------------------------------------------|
//   | map(d)                        | CyclicMap {n, P, r, tables} of dimension d (P = 1 if collapsed)|
//   | owner_coords(g)               | grid coordinates of the owner of g                            |
//   | owner(g)                      | grid position of the owner of g                               |
//   | local_index(g)                | l on the owner: l[d] = map(d).local(g[d])                     |
//   | global_index(pos, l)          | g of local index l on the process at pos                      |
//   | local_extents(pos)            | extents of the local block of the process at pos              |
//   | my_local_extents()            | same for the calling rank; zeros outside the grid             |
//   | shadow(d)                     | SHADOW width of dimension d on both sides (with_shadow)       |
//   | holds(pos)                    | the process at pos stores elements (false off a fixed coord.) |
//   | is_primary(pos)               | holds(pos) and coordinate 0 along every replicated grid dim   |
//   | owns(pos, g)                  | the process at pos stores g (every copy of g does)            |
//
// Replication and ALIGN (docs/align.md): a Layout built with a Placement may run its distributed
// dimensions along any grid dimensions (in any order) and leave grid dimensions unused. An unused grid
// dimension is either replicated (every coordinate along it holds a copy of the same elements) or
// fixed at one coordinate (only the processes at that coordinate hold elements; the others hold an
// empty local block). owner(g) and owner_coords(g) name the primary copy: coordinate 0 along
// replicated dimensions, the fixed coordinate along fixed ones. Layout::aligned(base, alignment)
// builds such a layout from an HPF ALIGN (layout/align.hpp).
//
// Dimensions are in Fortran order: index 0 varies fastest in memory, locally and globally.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/layout/align.hpp>
#include <hpf/layout/distribution.hpp>
#include <hpf/layout/process_grid.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace hpf {

template <int N> using Index = std::array<index_t, static_cast<std::size_t>(N)>;

/// Where the dimensions of a Layout run on its grid (the general form; the plain constructor runs the
/// distributed dimensions in order along grid dimensions 0, 1, ...).
template <int N> struct Placement {
  /// The value of `unused[k]` for a replicated grid dimension k.
  static constexpr int replicated = -1;
  /// Per array dimension: the grid dimension it runs along, or -1 for a collapsed (`*`) dimension.
  std::array<int, static_cast<std::size_t>(N)> grid_dim{};
  /// Per grid dimension: for one that no array dimension runs along, Placement::replicated or the
  /// one coordinate along it that holds the elements; ignored for the grid dimensions in use.
  std::vector<int> unused;
  /// Placements compare equal field by field.
  friend bool operator==(const Placement&, const Placement&) = default;
};

/// The mapping of an N-d array onto a process grid: extents, one Distribution per dimension, the grid,
/// and optionally SHADOW widths and a placement (replication, ALIGN). Immutable and cheap to copy; the
/// header comment of this file lists its index queries. See docs/arrays.md.
template <int N> class Layout {
  static_assert(N >= 1 && N <= max_rank, "hpf::Layout<N>: N must be in 1..4");
  template <int> friend class Layout;

public:
  /// Throws hpf::Error (on every rank, as the arguments are the same everywhere) for a negative extent
  /// or when the number of distributed dimensions differs from grid.ndims().
  Layout(Index<N> extents, std::array<Distribution, N> dists, ProcessGrid grid)
      : m_extents(extents), m_dists(dists), m_grid(std::move(grid)) {
    m_unused.assign(static_cast<std::size_t>(m_grid.ndims()), used); // before describe_dists() below
    int gd = 0;
    for (int d = 0; d < N; ++d) {
      detail::require(m_extents[u(d)] >= 0, "Layout: extent[", d, "] must be >= 0, got ", m_extents[u(d)]);
      if (m_dists[u(d)].is_collapsed()) {
        m_grid_dim[u(d)] = -1;
      } else {
        m_grid_dim[u(d)] = gd++;
      }
    }
    // An array with no distributed dimension lives whole on a one-process grid.
    const bool whole_on_one = gd == 0 && m_grid.size() == 1;
    detail::require(gd == m_grid.ndims() || whole_on_one, "Layout: the array has ", gd,
                    " distributed dimension(s) (", describe_dists(), ") but the process grid has ",
                    m_grid.ndims(),
                    "; expected one grid dimension per distributed array dimension (or a"
                    " one-process grid when no dimension is distributed)");
    if (gd == 0) m_unused.assign(m_unused.size(), Placement<N>::replicated); // one process: one "copy"
    finish();
  }

  /// The general form (ALIGN, replication): array dimension d runs along grid dimension
  /// placement.grid_dim[d] (-1 exactly for the collapsed dimensions; no grid dimension twice), and each
  /// grid dimension no array dimension uses is replicated or fixed at a coordinate
  /// (placement.unused, one entry per grid dimension). Throws hpf::Error, naming the entry, for a
  /// grid dimension out of range or used twice, a distributed dimension without one (or a collapsed
  /// dimension with one), or a fixed coordinate outside the grid. Not collective.
  Layout(Index<N> extents, std::array<Distribution, N> dists, ProcessGrid grid, const Placement<N>& placement)
      : m_extents(extents), m_dists(dists), m_grid(std::move(grid)) {
    const int nd = m_grid.ndims();
    detail::require(placement.unused.size() == static_cast<std::size_t>(nd), "Layout: placement.unused has ",
                    placement.unused.size(), " entries; expected one per grid dimension (", nd, ")");
    m_unused.assign(static_cast<std::size_t>(nd), used);
    for (int d = 0; d < N; ++d) {
      detail::require(m_extents[u(d)] >= 0, "Layout: extent[", d, "] must be >= 0, got ", m_extents[u(d)]);
      const int k = placement.grid_dim[u(d)];
      if (m_dists[u(d)].is_collapsed()) {
        detail::require(k == -1, "Layout: placement.grid_dim[", d, "] = ", k,
                        " for a collapsed (`*`) dimension; expected -1");
      } else {
        detail::require(k >= 0 && k < nd, "Layout: placement.grid_dim[", d, "] = ", k, " for the ",
                        m_dists[u(d)].to_string(), " dimension ", d, "; expected a grid dimension in [0, ",
                        nd, ")");
        for (int e = 0; e < d; ++e)
          detail::require(placement.grid_dim[u(e)] != k, "Layout: placement.grid_dim[", d, "] = ", k,
                          " is also placement.grid_dim[", e, "]; expected each grid dimension at most once");
      }
      m_grid_dim[u(d)] = k;
    }
    for (int k = 0; k < nd; ++k) {
      bool in_use = false;
      for (int d = 0; d < N; ++d) in_use = in_use || m_grid_dim[u(d)] == k;
      if (in_use) continue;
      const int c = placement.unused[static_cast<std::size_t>(k)];
      detail::require(c == Placement<N>::replicated || (c >= 0 && c < m_grid.extent(k)),
                      "Layout: placement.unused[", k, "] = ", c, "; expected Placement::replicated (",
                      Placement<N>::replicated, ") or a coordinate in [0, ", m_grid.extent(k),
                      ") of that grid dimension");
      // Along a grid dimension of extent 1 fixing and replicating are the same: stored one way, so
      // that equal layouts compare equal.
      m_unused[static_cast<std::size_t>(k)] = m_grid.extent(k) == 1 ? Placement<N>::replicated : c;
    }
    finish();
  }

  /// HPF ALIGN: the layout of an array aligned with an array (or template) laid out by `base`, on
  /// base's grid: element g sits where base element (alignment.dims[j].stride * g[j] +
  /// alignment.dims[j].offset along base dimension alignment.dims[j].base_dim) sits, so its owners
  /// are exactly the base's. Base dimensions no aligned dimension names are replicated over or fixed
  /// at alignment.base_index (layout/align.hpp). Each aligned dimension gets the cheapest exact map
  /// (detail::aligned_distribution: the base's map, CYCLIC, GEN_BLOCK or INDIRECT). No shadow. Not
  /// collective; throws hpf::Error, naming the entry, for a base dimension out of range or named
  /// twice, a stride of 0, an alignment that maps outside the base extent, or a base index outside it.
  template <int M> [[nodiscard]] static Layout aligned(const Layout<M>& base,
                                                       const Alignment<N, M>& alignment, Index<N> extents) {
    std::array<Distribution, N> dists{};
    Placement<N> pl;
    pl.unused = base.m_unused; // grid dimensions the base leaves unused stay as they are
    std::array<bool, static_cast<std::size_t>(M)> named{};
    for (int j = 0; j < N; ++j) {
      const AlignDim& ad = alignment.dims[u(j)];
      const std::string what = "Layout::aligned: alignment.dims[" + std::to_string(j) + "]";
      detail::require(extents[u(j)] >= 0, "Layout::aligned: extent[", j, "] must be >= 0, got ",
                      extents[u(j)]);
      if (ad.base_dim == AlignDim::collapsed) {
        dists[u(j)] = Collapsed();
        pl.grid_dim[u(j)] = -1;
        continue;
      }
      detail::require(ad.base_dim >= 0 && ad.base_dim < M, what, ".base_dim = ", ad.base_dim,
                      "; expected a base dimension in [0, ", M, ") or AlignDim::collapsed (-1)");
      const auto k = static_cast<std::size_t>(ad.base_dim);
      detail::require(!named[k], what, ".base_dim = ", ad.base_dim,
                      " is named by an earlier dimension too; expected each base dimension at most once");
      named[k] = true;
      const int gk = base.grid_dim(ad.base_dim);
      if (gk < 0) { // the base holds that dimension whole: so does the aligned array
        detail::check_alignment_range(base.extent(ad.base_dim), extents[u(j)], ad.stride, ad.offset, what);
        dists[u(j)] = Collapsed();
        pl.grid_dim[u(j)] = -1;
        continue;
      }
      dists[u(j)] = detail::aligned_distribution(base.dist(ad.base_dim), base.map(ad.base_dim), extents[u(j)],
                                                 ad.stride, ad.offset, what);
      pl.grid_dim[u(j)] = gk;
    }
    for (int k = 0; k < M; ++k) {
      if (named[static_cast<std::size_t>(k)]) continue;
      const index_t x = alignment.base_index[static_cast<std::size_t>(k)];
      detail::require(x == Alignment<N, M>::replicated || (x >= 0 && x < base.extent(k)),
                      "Layout::aligned: alignment.base_index[", k, "] = ", x,
                      "; expected Alignment::replicated (-1) or a base index in [0, ", base.extent(k), ")");
      const int gk = base.grid_dim(k);
      if (gk < 0) continue; // a collapsed base dimension: nothing to replicate or fix
      pl.unused[static_cast<std::size_t>(gk)] =
          x == Alignment<N, M>::replicated ? Placement<N>::replicated : base.map(k).owner(x);
    }
    return Layout(extents, dists, base.grid(), pl);
  }
  /// As above with the base's extents along the named base dimensions (and the extent of a dimension
  /// aligned with base_dim = AlignDim::collapsed taken as 1).
  template <int M>
  [[nodiscard]] static Layout aligned(const Layout<M>& base, const Alignment<N, M>& alignment) {
    Index<N> e{};
    for (int j = 0; j < N; ++j) {
      const int k = alignment.dims[u(j)].base_dim;
      detail::require(k == AlignDim::collapsed || (k >= 0 && k < M), "Layout::aligned: alignment.dims[", j,
                      "].base_dim = ", k, "; expected a base dimension in [0, ", M,
                      ") or AlignDim::collapsed (-1)");
      e[u(j)] = k < 0 ? 1 : base.extent(k);
    }
    return aligned(base, alignment, e);
  }

  /// HPF 2.0 SHADOW: the same layout with `widths[d]` extra slots on both sides of each local block
  /// along dimension d (see layout/halo.hpp for the storage). Throws hpf::Error for a width < 0, or a
  /// width larger than r on a CYCLIC(r) dimension (its blocks' shadows would reach past the next
  /// block of the same process), or a width > 0 on an INDIRECT dimension. On BLOCK, GEN_BLOCK and `*`
  /// dimensions any width is allowed: a shadow wider than a neighbour's block (or a zero-size
  /// GEN_BLOCK block) reaches past it to the next owner. Not collective.
  [[nodiscard]] Layout with_shadow(const Index<N>& widths) const {
    if (widths == m_shadow) return *this; // shares the cache of what is derived from the layout
    Layout out = *this;
    for (int d = 0; d < N; ++d) {
      const index_t w = widths[u(d)];
      detail::require(w >= 0, "Layout::with_shadow: width[", d, "] must be >= 0, got ", w);
      if (m_dists[u(d)].kind() == Distribution::Kind::Cyclic && w > m_dists[u(d)].block()) // named lazily
        detail::fail("Layout::with_shadow: width[", d, "] = ", w, " is larger than the block size of ",
                     m_dists[u(d)].to_string(), "; expected a width <= ", m_dists[u(d)].block(),
                     " on a CYCLIC dimension (use BLOCK for wider shadows)");
      // An INDIRECT dimension has no blocks to pad: each element would need its own shadow.
      detail::require(m_dists[u(d)].kind() != Distribution::Kind::Indirect || w == 0,
                      "Layout::with_shadow: width[", d, "] = ", w,
                      " on an INDIRECT dimension; expected 0"
                      " (INDIRECT dimensions have no shadow; GEN_BLOCK, BLOCK and `*` take any width)");
    }
    out.m_shadow = widths;
    out.m_cache = std::make_shared<Cache>();
    return out;
  }
  /// The same layout (extents, distributions, placement, shadow widths) on `grid`, a grid of the same
  /// shape: another arrangement of ranks (process relabeling, redist/relabel.hpp). The index maps
  /// depend on the shape only, so every grid position holds the same elements as before. Throws
  /// hpf::Error for a grid of another shape. Not collective.
  [[nodiscard]] Layout with_grid(ProcessGrid grid) const {
    if (grid.shape() != m_grid.shape()) {
      const auto text = [](const std::vector<int>& shape) {
        std::string t;
        for (std::size_t k = 0; k < shape.size(); ++k) t += (k ? " x " : "") + std::to_string(shape[k]);
        return t;
      };
      detail::fail("Layout::with_grid: grid of shape ", text(grid.shape()), "; expected the shape of the ",
                   "layout's grid, ", text(m_grid.shape()));
    }
    Layout out = *this;
    out.m_grid = std::move(grid);
    out.m_cache = std::make_shared<Cache>();
    return out;
  }
  /// Shadow width of dimension d (0 unless set by with_shadow).
  [[nodiscard]] index_t shadow(int d) const { return m_shadow.at(u(d)); }
  /// Shadow widths of every dimension.
  [[nodiscard]] const Index<N>& shadow() const noexcept { return m_shadow; }
  /// True when some dimension has a shadow.
  [[nodiscard]] bool has_shadow() const noexcept {
    for (index_t w : m_shadow)
      if (w > 0) return true;
    return false;
  }

  /// Plans cached with the layout (shared by its copies): the object stored under `key`, made by
  /// `make()` the first time. Used by shadow updates and shifts, whose plans depend only on the
  /// layout (and the key), so every rank caches the same plans in the same order.
  template <class Plan, class Make>
  std::shared_ptr<const Plan> cached(const std::string& key, Make&& make) const {
    const std::lock_guard<std::mutex> lock(m_cache->mutex);
    for (const auto& [k, v] : m_cache->plans)
      if (k == key) return std::static_pointer_cast<const Plan>(v);
    auto plan = std::make_shared<const Plan>(make());
    m_cache->plans.emplace_back(key, plan);
    return plan;
  }

  /// The hash of the layout's agreement words, made by `make()` the first time and kept with the
  /// layout (shared by its copies, which are the same layout): layout/agree.hpp's layout_hash, so
  /// that a repeated REDISTRIBUTE does not hash its layouts again. Thread-safe (a race computes the
  /// same value twice). Local.
  template <class Make> [[nodiscard]] std::uint64_t words_hash(Make&& make) const {
    if (m_cache->hashed.load(std::memory_order_acquire)) return m_cache->hash;
    const std::uint64_t h = make();
    const std::lock_guard<std::mutex> lock(m_cache->mutex);
    if (!m_cache->hashed.load(std::memory_order_relaxed)) {
      m_cache->hash = h;
      m_cache->hashed.store(true, std::memory_order_release);
    }
    return m_cache->hash;
  }

  /// Number of dimensions, N.
  [[nodiscard]] static constexpr int rank() noexcept { return N; }
  /// Global extents.
  [[nodiscard]] const Index<N>& extents() const noexcept { return m_extents; }
  /// Global extent of dimension d.
  [[nodiscard]] index_t extent(int d) const { return m_extents.at(u(d)); }
  /// Distribution of dimension d.
  [[nodiscard]] const Distribution& dist(int d) const { return m_dists.at(u(d)); }
  /// Distribution of every dimension.
  [[nodiscard]] const std::array<Distribution, N>& dists() const noexcept { return m_dists; }
  /// The 1-D map of dimension d (P = 1 for a collapsed dimension).
  [[nodiscard]] const CyclicMap& map(int d) const { return m_maps.at(u(d)); }
  /// Grid dimension that array dimension d runs along, or -1 when d is collapsed.
  [[nodiscard]] int grid_dim(int d) const { return m_grid_dim.at(u(d)); }
  /// The process grid.
  [[nodiscard]] const ProcessGrid& grid() const noexcept { return m_grid; }
  /// The placement: grid dimension of every array dimension, and what every unused grid dimension does.
  [[nodiscard]] Placement<N> placement() const {
    Placement<N> p;
    p.grid_dim = m_grid_dim;
    p.unused = m_unused;
    for (int& c : p.unused)
      if (c == used) c = Placement<N>::replicated;
    return p;
  }
  /// True when grid dimension k is not used by any array dimension and every coordinate along it
  /// holds a copy.
  [[nodiscard]] bool replicated_dim(int k) const {
    return m_unused.at(static_cast<std::size_t>(k)) == Placement<N>::replicated;
  }
  /// The coordinate holding the elements along grid dimension k when it is fixed, else -1.
  [[nodiscard]] int fixed_coord(int k) const {
    const int c = m_unused.at(static_cast<std::size_t>(k));
    return c >= 0 ? c : -1;
  }
  /// Number of copies of every element: the product of the replicated grid dimensions' extents.
  [[nodiscard]] int copies() const {
    int n = 1;
    for (int k = 0; k < m_grid.ndims(); ++k)
      if (replicated_dim(k)) n *= m_grid.extent(k);
    return n;
  }
  /// True when the layout replicates (copies() > 1) or fixes a grid dimension: what a plain Layout
  /// (the first constructor with a grid of more than one process) never does.
  [[nodiscard]] bool replicates_or_fixes() const noexcept { return m_special; }
  /// True when the process at grid position pos stores elements: it sits at the fixed coordinate
  /// along every fixed grid dimension.
  [[nodiscard]] bool holds(int pos) const {
    if (!m_special) return true;
    const std::vector<int> c = m_grid.coords_of(pos);
    for (int k = 0; k < m_grid.ndims(); ++k)
      if (fixed_coord(k) >= 0 && c[static_cast<std::size_t>(k)] != fixed_coord(k)) return false;
    return true;
  }
  /// True when pos holds the primary copy of its elements (the one reductions and gathers read):
  /// holds(pos) and coordinate 0 along every replicated grid dimension.
  [[nodiscard]] bool is_primary(int pos) const {
    if (!m_special) return true;
    const std::vector<int> c = m_grid.coords_of(pos);
    for (int k = 0; k < m_grid.ndims(); ++k) {
      const int want = replicated_dim(k) ? 0 : fixed_coord(k);
      if (want >= 0 && c[static_cast<std::size_t>(k)] != want) return false;
    }
    return true;
  }
  /// Index of the copy held at pos among copies(): its coordinates along the replicated grid
  /// dimensions in mixed radix (the lowest dimension fastest); 0 for the primary copy.
  [[nodiscard]] int copy_index(int pos) const {
    const std::vector<int> c = m_grid.coords_of(pos);
    int k = 0;
    for (int g = m_grid.ndims(); g-- > 0;)
      if (replicated_dim(g)) k = k * m_grid.extent(g) + c[static_cast<std::size_t>(g)];
    return k;
  }
  /// The grid positions holding the same elements as pos (pos included), by copy_index.
  [[nodiscard]] std::vector<int> copies_of(int pos) const {
    std::vector<int> c = m_grid.coords_of(pos);
    std::vector<int> out;
    out.reserve(static_cast<std::size_t>(copies()));
    for (int k = 0; k < copies(); ++k) {
      int rest = k;
      for (int g = 0; g < m_grid.ndims(); ++g)
        if (replicated_dim(g)) {
          c[static_cast<std::size_t>(g)] = rest % m_grid.extent(g);
          rest /= m_grid.extent(g);
        }
      out.push_back(m_grid.position_of(c));
    }
    return out;
  }
  /// True when the process at pos stores global index g (any copy).
  [[nodiscard]] bool owns(int pos, const Index<N>& g) const {
    if (!m_special) return owner(g) == pos; // one copy: the owner (the common, cheap case)
    if (!holds(pos)) return false;
    const std::vector<int> c = m_grid.coords_of(pos);
    for (int d = 0; d < N; ++d)
      if (m_grid_dim[u(d)] >= 0 &&
          m_maps[u(d)].owner(g[u(d)]) != c[static_cast<std::size_t>(m_grid_dim[u(d)])])
        return false;
    return true;
  }
  /// Grid position of the process with coordinate dc[d] along each array dimension d (collapsed
  /// entries ignored), the fixed coordinate along fixed grid dimensions and, along replicated ones,
  /// the coordinate of grid position `like` (0 when like < 0: the primary copy).
  [[nodiscard]] int position_of_dim_coords(const std::array<int, static_cast<std::size_t>(N)>& dc,
                                           int like = -1) const {
    std::vector<int> c =
        like >= 0 ? m_grid.coords_of(like) : std::vector<int>(static_cast<std::size_t>(m_grid.ndims()), 0);
    for (int k = 0; k < m_grid.ndims(); ++k) {
      const int f = fixed_coord(k);
      if (f >= 0)
        c[static_cast<std::size_t>(k)] = f;
      else if (like < 0 || m_unused[static_cast<std::size_t>(k)] == used)
        c[static_cast<std::size_t>(k)] = 0;
    }
    for (int d = 0; d < N; ++d)
      if (m_grid_dim[u(d)] >= 0) c[static_cast<std::size_t>(m_grid_dim[u(d)])] = dc[u(d)];
    return m_grid.position_of(c);
  }

  /// Product of the extents.
  [[nodiscard]] index_t global_size() const noexcept {
    index_t s = 1;
    for (index_t e : m_extents) s *= e;
    return s;
  }

  /// True when g is inside the extents.
  [[nodiscard]] bool in_bounds(const Index<N>& g) const noexcept {
    for (int d = 0; d < N; ++d)
      if (g[u(d)] < 0 || g[u(d)] >= m_extents[u(d)]) return false;
    return true;
  }

  /// Throws hpf::Error naming `what` unless g is inside the extents.
  void check_bounds(const Index<N>& g, const char* what) const {
    if (!in_bounds(g)) // not require(): its text would be built on every call (element access)
      detail::fail(what, ": global index ", to_string(g), " is outside the extents ", to_string(m_extents));
  }

  /// Grid coordinates of the primary copy of g (see the header comment).
  [[nodiscard]] std::vector<int> owner_coords(const Index<N>& g) const {
    std::vector<int> c(static_cast<std::size_t>(m_grid.ndims()), 0);
    for (int k = 0; k < m_grid.ndims(); ++k) c[static_cast<std::size_t>(k)] = std::max(fixed_coord(k), 0);
    for (int d = 0; d < N; ++d)
      if (m_grid_dim[u(d)] >= 0) c[static_cast<std::size_t>(m_grid_dim[u(d)])] = m_maps[u(d)].owner(g[u(d)]);
    return c;
  }

  /// Grid position of the owner of g (its primary copy).
  [[nodiscard]] int owner(const Index<N>& g) const {
    int pos = m_fixed_offset;
    for (int d = N; d-- > 0;) {
      const int gd = m_grid_dim[u(d)];
      if (gd >= 0) pos += m_maps[u(d)].owner(g[u(d)]) * stride(gd);
    }
    return pos;
  }

  /// Local index of global index g on its owner (on every copy).
  [[nodiscard]] Index<N> local_index(const Index<N>& g) const noexcept {
    Index<N> l{};
    for (int d = 0; d < N; ++d) l[u(d)] = m_maps[u(d)].local(g[u(d)]);
    return l;
  }

  /// Global index of local index l on the process at grid position `position`.
  [[nodiscard]] Index<N> global_index(int position, const Index<N>& l) const {
    const std::vector<int> c = m_grid.coords_of(position);
    Index<N> g{};
    for (int d = 0; d < N; ++d) g[u(d)] = m_maps[u(d)].global(coord(c, d), l[u(d)]);
    return g;
  }

  /// Extents of the local block of the process at grid position `position` (zeros when it holds none).
  [[nodiscard]] Index<N> local_extents(int position) const {
    if (!holds(position)) return Index<N>{}; // off the fixed coordinate: an empty block
    const std::vector<int> c = m_grid.coords_of(position);
    Index<N> e{};
    for (int d = 0; d < N; ++d) e[u(d)] = m_maps[u(d)].local_extent(coord(c, d));
    return e;
  }

  /// Extents of the calling rank's local block (zeros outside the grid).
  [[nodiscard]] Index<N> my_local_extents() const {
    return m_grid.contains_me() ? local_extents(m_grid.my_position()) : Index<N>{};
  }

  /// Coordinate along array dimension d of the process with grid coordinates c (0 if collapsed).
  [[nodiscard]] int coord(const std::vector<int>& c, int d) const {
    const int gd = m_grid_dim[u(d)];
    return gd < 0 ? 0 : c[static_cast<std::size_t>(gd)];
  }

  /// "(BLOCK, CYCLIC(2))".
  [[nodiscard]] std::string describe_extents() const {
    std::string out;
    for (int d = 0; d < N; ++d) out += (d == 0 ? "" : " x ") + std::to_string(m_extents[u(d)]);
    return out;
  }

  /// "(BLOCK, CYCLIC(2))"; with a placement other than the plain one, the grid dimension of each
  /// dimension and what the unused ones do: "(BLOCK@1, CYCLIC(2)@0; grid dim 2 replicated)".
  [[nodiscard]] std::string describe_dists() const {
    bool plain = true;
    int next = 0;
    for (int d = 0; d < N; ++d)
      if (m_grid_dim[u(d)] >= 0) plain = plain && m_grid_dim[u(d)] == next++;
    plain = plain && !replicates_or_fixes();
    std::string s = "(";
    for (int d = 0; d < N; ++d) {
      if (d > 0) s += ", ";
      s += m_dists[u(d)].to_string();
      if (!plain && m_grid_dim[u(d)] >= 0) {
        s += '@';
        s += std::to_string(m_grid_dim[u(d)]);
      }
    }
    if (!plain)
      for (int k = 0; k < m_grid.ndims(); ++k) {
        const int c = m_unused[static_cast<std::size_t>(k)];
        if (c == used) continue;
        s += "; grid dim " + std::to_string(k) +
             (c < 0 ? std::string(" replicated") : " fixed at " + std::to_string(c));
      }
    return s + ")";
  }

  /// "(i, j, ...)", for messages.
  static std::string to_string(const Index<N>& g) {
    std::string s = "(";
    for (int d = 0; d < N; ++d) s += (d ? ", " : "") + std::to_string(g[u(d)]);
    return s + ")";
  }

  /// Same extents, same resolved maps, the same grid and the same shadow widths.
  friend bool operator==(const Layout& a, const Layout& b) {
    // Copies share their cache, and a layout never changes once made (with_shadow makes a new one
    // with a cache of its own): the same cache is the same layout, without comparing the fields (a
    // repeated REDISTRIBUTE compares its layouts several times a call).
    if (a.m_cache == b.m_cache) return true;
    return a.m_extents == b.m_extents && a.m_maps == b.m_maps && a.m_grid_dim == b.m_grid_dim &&
           a.m_unused == b.m_unused && a.m_grid == b.m_grid && a.m_shadow == b.m_shadow;
  }

private:
  static constexpr std::size_t u(int d) noexcept { return static_cast<std::size_t>(d); }
  /// m_unused entry of a grid dimension some array dimension runs along.
  static constexpr int used = -2;

  /// The maps, and the size check, once extents, distributions and placement are set.
  void finish() {
    m_special = false;
    m_fixed_offset = 0;
    for (int k = 0; k < m_grid.ndims(); ++k) {
      const int c = m_unused[static_cast<std::size_t>(k)];
      m_special = m_special || (c != used && m_grid.extent(k) > 1);
      if (c > 0) m_fixed_offset += c * stride(k);
    }
    for (int d = 0; d < N; ++d) {
      const int P = m_grid_dim[u(d)] < 0 ? 1 : m_grid.extent(m_grid_dim[u(d)]);
      m_maps[u(d)] = m_dists[u(d)].map(m_extents[u(d)], P);
    }
    // global_size() must not wrap; an empty array has size 0 whatever the rest.
    if (std::find(m_extents.begin(), m_extents.end(), index_t{0}) == m_extents.end()) {
      index_t size = 1;
      for (int d = 0; d < N; ++d)
        size = detail::checked_mul(size, m_extents[u(d)], "Layout: the number of elements (extents ",
                                   describe_extents(), ")");
    }
  }
  [[nodiscard]] int stride(int gd) const {
    int s = 1;
    for (int k = 0; k < gd; ++k) s *= m_grid.extent(k);
    return s;
  }

  struct Cache {
    std::mutex mutex;
    std::vector<std::pair<std::string, std::shared_ptr<const void>>> plans;
    std::atomic<bool> hashed{false}; // words_hash: `hash` is set (written once, under the mutex)
    std::uint64_t hash = 0;
  };

  Index<N> m_extents;
  Index<N> m_shadow{};
  std::shared_ptr<Cache> m_cache = std::make_shared<Cache>();
  std::array<Distribution, N> m_dists;
  ProcessGrid m_grid;
  std::array<CyclicMap, N> m_maps{};
  std::array<int, N> m_grid_dim{};
  /// Per grid dimension: `used`, Placement::replicated, or the fixed coordinate.
  std::vector<int> m_unused;
  bool m_special = false; ///< some grid dimension of extent > 1 is replicated or fixed
  int m_fixed_offset = 0; ///< sum of the fixed coordinates times their grid strides (owner())
};

} // namespace hpf
