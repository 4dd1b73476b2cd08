// hpf::DistArray<T, N>: an N-dimensional array distributed by a Layout<N>, with local data in a
// Kokkos::View in Fortran order (LayoutLeft, host space).
//
// Collective operations (say so in their first comment line) are called by every rank of the grid's
// parent communicator, in or out of the grid; ranks outside the grid hold an empty local view.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/core/tags.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/layout/layout.hpp>
#include <hpf/layout/runs.hpp>
#include <hpf/redist/plan_cache.hpp>

#include <Kokkos_Core.hpp>

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace hpf {

namespace detail {
template <class T, int N> struct ViewData;
template <class T> struct ViewData<T, 1> { using type = T*; };
template <class T> struct ViewData<T, 2> { using type = T**; };
template <class T> struct ViewData<T, 3> { using type = T***; };
template <class T> struct ViewData<T, 4> { using type = T****; };
/// Tag of DistArray's constructor that leaves the local block uninitialised.
struct Uninitialized {};
} // namespace detail

template <class T, int N> class DistArray {
  static_assert(std::is_trivially_copyable_v<T>, "hpf::DistArray<T, N>: T must be trivially copyable");

public:
  using value_type = T;
  using view_type =
      Kokkos::View<typename detail::ViewData<T, N>::type, Kokkos::LayoutLeft, Kokkos::HostSpace>;

  /// Allocates the local block of `layout` (zero-initialised, as Kokkos does). Not collective.
  DistArray(std::string label, Layout<N> layout) : m_label(std::move(label)), m_layout(std::move(layout)) {
    allocate();
  }

  /// Allocates the local block without initialising it: for a target every element of which is written
  /// next (REDISTRIBUTE). Not collective.
  DistArray(std::string label, Layout<N> layout, detail::Uninitialized)
      : m_label(std::move(label)), m_layout(std::move(layout)) {
    allocate(false);
  }

  [[nodiscard]] const std::string& label() const noexcept { return m_label; }
  [[nodiscard]] const Layout<N>& layout() const noexcept { return m_layout; }
  [[nodiscard]] const view_type& local_view() const noexcept { return m_view; }
  /// Number of locally owned elements.
  [[nodiscard]] index_t local_size() const noexcept { return static_cast<index_t>(m_view.size()); }
  [[nodiscard]] T* local_data() const noexcept { return m_view.data(); }

  /// True when the calling rank owns global index g (false for indices out of bounds).
  [[nodiscard]] bool owns(const Index<N>& g) const {
    return m_layout.in_bounds(g) && m_layout.grid().contains_me() &&
           m_layout.owner(g) == m_layout.grid().my_position();
  }

  /// The owned element at global index g. Throws hpf::Error if g is out of bounds or not owned here.
  [[nodiscard]] T& operator[](const Index<N>& g) { return m_view.data()[checked_offset(g)]; }
  [[nodiscard]] const T& operator[](const Index<N>& g) const { return m_view.data()[checked_offset(g)]; }
  [[nodiscard]] T get(const Index<N>& g) const { return (*this)[g]; }
  void set(const Index<N>& g, const T& value) { (*this)[g] = value; }

  /// Sets every local element to `value`. Not collective.
  void fill(const T& value) { Kokkos::deep_copy(m_view, value); }

  /// Collective over the grid's parent communicator: the whole array on `root` (a rank of the parent
  /// communicator) in global Fortran order; an empty vector elsewhere.
  [[nodiscard]] std::vector<T> gather(int root) const {
    check_root(root, "gather");
    const ProcessGrid& grid = m_layout.grid();
    const bool is_root = grid.parent_rank() == root;
    std::vector<T> out;
    if (is_root) out.resize(static_cast<std::size_t>(m_layout.global_size()));
    // One message per non-empty block that is not the root's own, all posted at once (exec/).
    std::vector<int> from; // grid position of each receive
    Exchange ex(grid.comm(), root_plan(root, true, from), ExecMode::AllAtOnce, tags::gather_scatter.base);
    auto pack_mine = [&](std::size_t, std::byte* buf) {
      std::memcpy(buf, m_view.data(), block_bytes(grid.my_position()));
    };
    ex.execute(pack_mine,
               [&](std::size_t i, const std::byte* buf) { unpack_block(from[i], buf, out.data()); });
    if (is_root && grid.contains_me())
      unpack_block(grid.my_position(), reinterpret_cast<const std::byte*>(m_view.data()), out.data());
    return out;
  }

  /// Collective over the grid's parent communicator: distributes `data` (the whole array in global
  /// Fortran order, significant on `root` only) into the local blocks. Throws hpf::Error on every rank
  /// if the root's data does not hold exactly global_size() elements.
  void scatter(int root, const std::vector<T>& data) {
    check_root(root, "scatter");
    const ProcessGrid& grid = m_layout.grid();
    const bool is_root = grid.parent_rank() == root;
    unsigned long long root_size = is_root ? data.size() : 0;
    HPF_MPI_CHECK(MPI_Bcast(&root_size, 1, MPI_UNSIGNED_LONG_LONG, root, grid.comm().get()));
    detail::require(root_size == static_cast<unsigned long long>(m_layout.global_size()), "DistArray '",
                    m_label, "'::scatter: data on root ", root, " holds ", root_size,
                    " elements; expected the global size ", m_layout.global_size());
    std::vector<int> to; // grid position of each send
    Exchange ex(grid.comm(), root_plan(root, false, to), ExecMode::AllAtOnce, tags::gather_scatter.base + 1);
    auto unpack_mine = [&](std::size_t, const std::byte* buf) {
      std::memcpy(m_view.data(), buf, block_bytes(grid.my_position()));
    };
    ex.execute([&](std::size_t i, std::byte* buf) { pack_block(to[i], data.data(), buf); }, unpack_mine);
    if (is_root && grid.contains_me())
      pack_block(grid.my_position(), data.data(), reinterpret_cast<std::byte*>(m_view.data()));
  }

  /// Collective over the parent communicator of both grids (every rank of it calls, in or out of
  /// either grid): HPF REDISTRIBUTE. The array keeps its label and its values and takes `layout`
  /// (same extents; another block size, grid or number of processes). The plan comes from the plan
  /// cache, so alternating between layouts plans each move once. Throws hpf::Error on every rank,
  /// with the array unchanged, for other extents or a grid on another parent communicator.
  void redistribute(const Layout<N>& layout, RedistOptions options = {}) {
    if (layout == m_layout) return; // already there: HPF REDISTRIBUTE to the same layout moves nothing
    // The executor comes from the cached plan's pool (its buffers are reused); the target is not
    // initialised, as every element of it is written.
    auto ex = cached_executor(m_layout, layout, detail::with_model(m_layout, options, sizeof(T)));
    if (ex.plan().storage_identical()) { // every rank keeps its block as it is: only the layout changes
      m_layout = layout;
      return;
    }
    DistArray next(m_label, layout, detail::Uninitialized{});
    ex->execute(*this, next); // on failure *this is untouched
    *this = std::move(next);
  }

  /// Replaces the layout and reallocates: the data is NOT preserved (redistribute() preserves it).
  void reset_layout(Layout<N> layout) {
    m_layout = std::move(layout);
    allocate();
  }

  /// Global index of each local index along dimension d (the local -> global map, tabulated).
  [[nodiscard]] const std::vector<index_t>& global_indices(int d) const {
    return m_l2g.at(static_cast<std::size_t>(d));
  }

private:
  /// The messages of a gather (`to_root`) or scatter between `root` and the other blocks: on the root
  /// one per non-empty block that is not its own (their grid positions in `positions`), elsewhere
  /// this rank's block. The root's own block is copied, never sent.
  [[nodiscard]] ExchangePlan root_plan(int root, bool to_root, std::vector<int>& positions) const {
    const ProcessGrid& grid = m_layout.grid();
    ExchangePlan plan;
    auto& at_root = to_root ? plan.recvs : plan.sends;
    auto& elsewhere = to_root ? plan.sends : plan.recvs;
    if (grid.parent_rank() == root) {
      for (int pos = 0; pos < grid.size(); ++pos)
        if (pos != grid.my_position() && local_count(pos) > 0) {
          at_root.push_back({grid.rank_at(pos), block_bytes(pos), 0});
          positions.push_back(pos);
        }
    } else if (grid.contains_me() && local_size() > 0) {
      elsewhere.push_back({root, block_bytes(grid.my_position()), 0});
    }
    return plan;
  }

  void allocate(bool init = true) {
    const Index<N> e = m_layout.my_local_extents();
    auto make = [&](const auto& a) {
      if constexpr (N == 1) m_view = view_type(a, e[0]);
      if constexpr (N == 2) m_view = view_type(a, e[0], e[1]);
      if constexpr (N == 3) m_view = view_type(a, e[0], e[1], e[2]);
      if constexpr (N == 4) m_view = view_type(a, e[0], e[1], e[2], e[3]);
    };
    if (init) {
      make(Kokkos::view_alloc(m_label));
    } else {
      make(Kokkos::view_alloc(m_label, Kokkos::WithoutInitializing));
    }
    const std::vector<int> c =
        m_layout.grid().contains_me() ? m_layout.grid().my_coords() : std::vector<int>();
    for (int d = 0; d < N; ++d) {
      auto& tab = m_l2g[static_cast<std::size_t>(d)];
      tab.resize(static_cast<std::size_t>(e[static_cast<std::size_t>(d)]));
      const CyclicMap m = m_layout.map(d);
      const int p = c.empty() ? 0 : m_layout.coord(c, d);
      for (std::size_t l = 0; l < tab.size(); ++l) tab[l] = m.global(p, static_cast<index_t>(l));
    }
  }

  [[nodiscard]] index_t local_count(int pos) const {
    index_t n = 1;
    for (index_t e : m_layout.local_extents(pos)) n *= e;
    return n;
  }

  [[nodiscard]] std::size_t block_bytes(int pos) const {
    return static_cast<std::size_t>(local_count(pos)) * sizeof(T);
  }

  /// Block of grid position `pos` (local storage order, as bytes) -> its places in `global`.
  void unpack_block(int pos, const std::byte* block, T* global) const {
    for_each_run(m_layout, pos, [&](index_t lo, index_t go, index_t len) {
      std::memcpy(global + go, block + static_cast<std::size_t>(lo) * sizeof(T),
                  static_cast<std::size_t>(len) * sizeof(T));
    });
  }

  /// The elements of `global` that grid position `pos` owns -> its block (local storage order).
  void pack_block(int pos, const T* global, std::byte* block) const {
    for_each_run(m_layout, pos, [&](index_t lo, index_t go, index_t len) {
      std::memcpy(block + static_cast<std::size_t>(lo) * sizeof(T), global + go,
                  static_cast<std::size_t>(len) * sizeof(T));
    });
  }

  void check_root(int root, const char* op) const {
    detail::require(root >= 0 && root < m_layout.grid().parent_size(), "DistArray '", m_label, "'::", op,
                    ": root must be a rank of the parent communicator in [0, ", m_layout.grid().parent_size(),
                    "), got ", root);
  }

  [[nodiscard]] std::size_t checked_offset(const Index<N>& g) const {
    m_layout.check_bounds(g, ("DistArray '" + m_label + "'").c_str());
    const ProcessGrid& grid = m_layout.grid();
    const int owner = m_layout.owner(g);
    detail::require(grid.contains_me() && owner == grid.my_position(), "DistArray '", m_label, "': element ",
                    Layout<N>::to_string(g), " is owned by grid position ", owner, " (parent rank ",
                    grid.rank_at(owner), "), not by this rank");
    const Index<N> l = m_layout.local_index(g);
    std::size_t off = 0;
    for (int d = N; d-- > 0;)
      off = off * m_view.extent(static_cast<std::size_t>(d)) +
            static_cast<std::size_t>(l[static_cast<std::size_t>(d)]);
    return off;
  }

  std::string m_label;
  Layout<N> m_layout;
  view_type m_view;
  std::array<std::vector<index_t>, N> m_l2g;
};

/// Collective over the parent communicator of both grids: a copy of `A` laid out by `layout` (same
/// label, same values); `A` is unchanged. Plans through the plan cache. Throws hpf::Error on every
/// rank for other extents or a grid on another parent communicator.
template <class T, int N> [[nodiscard]] DistArray<T, N>
redistribute(const DistArray<T, N>& A, const Layout<N>& layout, RedistOptions options = {}) {
  auto ex = cached_executor(A.layout(), layout, detail::with_model(A.layout(), options, sizeof(T)));
  DistArray<T, N> out(A.label(), layout, detail::Uninitialized{});
  ex->execute(A, out);
  return out;
}

} // namespace hpf
