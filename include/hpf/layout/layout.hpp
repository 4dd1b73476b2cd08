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
//
// Dimensions are in Fortran order: index 0 varies fastest in memory, locally and globally.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/layout/distribution.hpp>
#include <hpf/layout/process_grid.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace hpf {

template <int N> using Index = std::array<index_t, static_cast<std::size_t>(N)>;

template <int N> class Layout {
  static_assert(N >= 1 && N <= max_rank, "hpf::Layout<N>: N must be in 1..4");

public:
  /// Throws hpf::Error (on every rank, as the arguments are the same everywhere) for a negative extent
  /// or when the number of distributed dimensions differs from grid.ndims().
  Layout(Index<N> extents, std::array<Distribution, N> dists, ProcessGrid grid)
      : m_extents(extents), m_dists(dists), m_grid(std::move(grid)) {
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
    for (int d = 0; d < N; ++d) {
      const int P = m_grid_dim[u(d)] < 0 ? 1 : m_grid.extent(m_grid_dim[u(d)]);
      m_maps[u(d)] = m_dists[u(d)].map(m_extents[u(d)], P);
    }
    // global_size() must not wrap (issue 15, finding 5); an empty array has size 0 whatever the rest.
    if (std::find(m_extents.begin(), m_extents.end(), index_t{0}) == m_extents.end()) {
      index_t size = 1;
      for (int d = 0; d < N; ++d)
        size = detail::checked_mul(size, m_extents[u(d)], "Layout: the number of elements (extents ",
                                   describe_extents(), ")");
    }
  }

  /// HPF 2.0 SHADOW: the same layout with `widths[d]` extra slots on both sides of each local block
  /// along dimension d (see layout/halo.hpp for the storage). Throws hpf::Error for a width < 0, or a
  /// width larger than r on a CYCLIC(r) dimension (its blocks' shadows would reach past the next
  /// block of the same process), or a width > 0 on an INDIRECT dimension. On BLOCK, GEN_BLOCK and `*`
  /// dimensions any width is allowed: a shadow wider than a neighbour's block (or a zero-size
  /// GEN_BLOCK block) reaches past it to the next owner. Not collective.
  [[nodiscard]] Layout with_shadow(const Index<N>& widths) const {
    Layout out = *this;
    for (int d = 0; d < N; ++d) {
      const index_t w = widths[u(d)];
      detail::require(w >= 0, "Layout::with_shadow: width[", d, "] must be >= 0, got ", w);
      detail::require(m_dists[u(d)].kind() != Distribution::Kind::Cyclic || w <= m_dists[u(d)].block(),
                      "Layout::with_shadow: width[", d, "] = ", w, " is larger than the block size of ",
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
  /// Shadow width of dimension d (0 unless set by with_shadow).
  [[nodiscard]] index_t shadow(int d) const { return m_shadow.at(u(d)); }
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

  [[nodiscard]] static constexpr int rank() noexcept { return N; }
  [[nodiscard]] const Index<N>& extents() const noexcept { return m_extents; }
  [[nodiscard]] index_t extent(int d) const { return m_extents.at(u(d)); }
  [[nodiscard]] const Distribution& dist(int d) const { return m_dists.at(u(d)); }
  [[nodiscard]] const std::array<Distribution, N>& dists() const noexcept { return m_dists; }
  [[nodiscard]] const CyclicMap& map(int d) const { return m_maps.at(u(d)); }
  /// Grid dimension that array dimension d runs along, or -1 when d is collapsed.
  [[nodiscard]] int grid_dim(int d) const { return m_grid_dim.at(u(d)); }
  [[nodiscard]] const ProcessGrid& grid() const noexcept { return m_grid; }

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
    detail::require(in_bounds(g), what, ": global index ", to_string(g), " is outside the extents ",
                    to_string(m_extents));
  }

  [[nodiscard]] std::vector<int> owner_coords(const Index<N>& g) const {
    std::vector<int> c(static_cast<std::size_t>(m_grid.ndims()), 0);
    for (int d = 0; d < N; ++d)
      if (m_grid_dim[u(d)] >= 0) c[static_cast<std::size_t>(m_grid_dim[u(d)])] = m_maps[u(d)].owner(g[u(d)]);
    return c;
  }

  /// Grid position of the owner of g.
  [[nodiscard]] int owner(const Index<N>& g) const {
    int pos = 0;
    for (int d = N; d-- > 0;) {
      const int gd = m_grid_dim[u(d)];
      if (gd >= 0) pos += m_maps[u(d)].owner(g[u(d)]) * stride(gd);
    }
    return pos;
  }

  [[nodiscard]] Index<N> local_index(const Index<N>& g) const noexcept {
    Index<N> l{};
    for (int d = 0; d < N; ++d) l[u(d)] = m_maps[u(d)].local(g[u(d)]);
    return l;
  }

  [[nodiscard]] Index<N> global_index(int position, const Index<N>& l) const {
    const std::vector<int> c = m_grid.coords_of(position);
    Index<N> g{};
    for (int d = 0; d < N; ++d) g[u(d)] = m_maps[u(d)].global(coord(c, d), l[u(d)]);
    return g;
  }

  [[nodiscard]] Index<N> local_extents(int position) const {
    const std::vector<int> c = m_grid.coords_of(position);
    Index<N> e{};
    for (int d = 0; d < N; ++d) e[u(d)] = m_maps[u(d)].local_extent(coord(c, d));
    return e;
  }

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

  [[nodiscard]] std::string describe_dists() const {
    std::string s = "(";
    for (int d = 0; d < N; ++d) s += (d ? ", " : "") + m_dists[u(d)].to_string();
    return s + ")";
  }

  static std::string to_string(const Index<N>& g) {
    std::string s = "(";
    for (int d = 0; d < N; ++d) s += (d ? ", " : "") + std::to_string(g[u(d)]);
    return s + ")";
  }

  /// Same extents, same resolved maps, the same grid and the same shadow widths.
  friend bool operator==(const Layout& a, const Layout& b) {
    return a.m_extents == b.m_extents && a.m_maps == b.m_maps && a.m_grid_dim == b.m_grid_dim &&
           a.m_grid == b.m_grid && a.m_shadow == b.m_shadow;
  }

private:
  static constexpr std::size_t u(int d) noexcept { return static_cast<std::size_t>(d); }
  [[nodiscard]] int stride(int gd) const {
    int s = 1;
    for (int k = 0; k < gd; ++k) s *= m_grid.extent(k);
    return s;
  }

  struct Cache {
    std::mutex mutex;
    std::vector<std::pair<std::string, std::shared_ptr<const void>>> plans;
  };

  Index<N> m_extents;
  Index<N> m_shadow{};
  std::shared_ptr<Cache> m_cache = std::make_shared<Cache>();
  std::array<Distribution, N> m_dists;
  ProcessGrid m_grid;
  std::array<CyclicMap, N> m_maps{};
  std::array<int, N> m_grid_dim{};
};

} // namespace hpf
