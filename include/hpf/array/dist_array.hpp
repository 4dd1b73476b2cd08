// hpf::DistArray<T, N>: an N-dimensional array distributed by a Layout<N>, with local data in a
// Kokkos::View in Fortran order (LayoutLeft, host space).
//
// SHADOW (HPF 2.0): when the layout has shadow widths (Layout::with_shadow), the local view is the
// whole local storage, shadows included: owned local index l sits at slot halo_slot(map, w, l) along
// each dimension (l + w on BLOCK dimensions), and a kernel reads a neighbour's element straight from
// the view after update_shadow(). Without shadows the view is exactly the owned block.
//
// Collective operations (say so in their first comment line) are called by every rank of the grid's
// parent communicator, in or out of the grid; ranks outside the grid hold an empty local view.
//
// Reusable targets: redistribute() and hpf::redistribute() may give the array a new local block. To move
// the elements into an existing array whose storage must stay put (local_data() unchanged, e.g. for
// a plan of a local FFT library made on it), use DistArray::redistribute_into(src, dst) or
// RedistributionPlan::execute(src, dst) (redist/plan.hpp); hpf::assign with a Permutation
// (array/section.hpp) does the same for a transpose.
//
// Replicated and fixed layouts (ALIGN, docs/align.md): every copy holds its block (a process off a
// fixed coordinate holds an empty one); forall runs on every copy, so it writes every copy; gather
// reads the primary copy and scatter writes every copy; REDISTRIBUTE sends from the primary copy to
// every copy; shadow updates and shifts run within each copy. Reductions (algorithms.hpp) count the
// primary copy only.
#pragma once

#include <hpf/array/block_pool.hpp>
#include <hpf/core/error.hpp>
#include <hpf/core/memory.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/core/tags.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/layout/agree.hpp>
#include <hpf/layout/halo.hpp>
#include <hpf/layout/layout.hpp>
#include <hpf/layout/runs.hpp>
#include <hpf/redist/plan_cache.hpp>
#include <hpf/redist/relabel.hpp>
#include <hpf/schedule/strategy.hpp>
#include <hpf/section/ceiling.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace hpf {

/// Boundary of a shadow update: Plain leaves the slots outside the array alone; Periodic fills them
/// by wrapping around (slot -1 holds element n - 1, slot n holds element 0).
enum class Boundary { Plain, Periodic };

namespace detail {
template <class T, int N> struct ViewData;
template <class T> struct ViewData<T, 1> { using type = T*; };
template <class T> struct ViewData<T, 2> { using type = T**; };
template <class T> struct ViewData<T, 3> { using type = T***; };
template <class T> struct ViewData<T, 4> { using type = T****; };
/// Tag of DistArray's constructor that leaves the local block uninitialised.
struct Uninitialized {};
} // namespace detail

/// An N-dimensional array of T distributed by a Layout<N> (see the header comment).
template <class T, int N> class DistArray {
  static_assert(std::is_trivially_copyable_v<T>, "hpf::DistArray<T, N>: T must be trivially copyable");

public:
  /// The element type.
  using value_type = T;
  /// The local storage: a Kokkos::View in Fortran order (LayoutLeft) in host memory.
  using view_type =
      Kokkos::View<typename detail::ViewData<T, N>::type, Kokkos::LayoutLeft, Kokkos::HostSpace>;

  /// Allocates the local block of `layout` (zero-initialised, as Kokkos does). Not collective.
  DistArray(std::string label, Layout<N> layout) : m_label(std::move(label)), m_layout(std::move(layout)) {
    allocate();
  }

  /// Allocates the local block without initialising it: for a target every element of which is written
  /// next (REDISTRIBUTE). A layout with a shadow is still zero-filled (see shadow()). Not collective.
  DistArray(std::string label, Layout<N> layout, detail::Uninitialized)
      : m_label(std::move(label)), m_layout(std::move(layout)) {
    allocate(false);
  }

  /// The name given to the constructor (in error messages and as the Kokkos label).
  [[nodiscard]] const std::string& label() const noexcept { return m_label; }
  /// The layout the array is distributed by.
  [[nodiscard]] const Layout<N>& layout() const noexcept { return m_layout; }
  /// The local storage: the owned block, plus its shadow when the layout has one.
  [[nodiscard]] const view_type& local_view() const noexcept { return m_view; }
  /// Number of locally owned elements (shadow slots not counted).
  [[nodiscard]] index_t local_size() const noexcept {
    index_t n = 1;
    for (index_t e : m_owned) n *= e;
    return n;
  }
  /// Extents of the owned block (the view's extents when there is no shadow).
  [[nodiscard]] const Index<N>& owned_extents() const noexcept { return m_owned; }
  /// Start of the local storage. Without a shadow, the owned block in Fortran order.
  [[nodiscard]] T* local_data() const noexcept { return m_view.data(); }
  /// True when the layout has a shadow (the storage is larger than the owned block).
  [[nodiscard]] bool has_shadow() const noexcept { return m_layout.has_shadow(); }
  /// Slot in the local view, along dimension d, of local index l (l itself without a shadow).
  [[nodiscard]] index_t slot(int d, index_t l) const {
    return halo_slot(m_layout.map(d), m_layout.shadow(d), l);
  }

  /// True when the calling rank owns global index g, as any copy (false for indices out of bounds).
  [[nodiscard]] bool owns(const Index<N>& g) const {
    return m_layout.in_bounds(g) && m_layout.grid().contains_me() &&
           m_layout.owns(m_layout.grid().my_position(), g);
  }
  /// True when the calling rank holds the primary copy of its block (Layout::is_primary): always, on a
  /// layout without replication, for a rank of the grid that holds elements.
  [[nodiscard]] bool primary_copy() const {
    return m_layout.grid().contains_me() && m_layout.is_primary(m_layout.grid().my_position());
  }

  /// The owned element at global index g. Throws hpf::Error if g is out of bounds or not owned here.
  [[nodiscard]] T& operator[](const Index<N>& g) { return m_view.data()[checked_offset(g)]; }
  /// Reads global index g from the local storage: an owned element, or (after update_shadow) any
  /// index within the shadow of an owned block. After update_shadow(Boundary::Periodic), g[d] may lie
  /// up to the width outside the array and wraps (g[d] = -1 reads n - 1, g[d] = n reads 0). Throws
  /// hpf::Error for an index that is neither owned nor in the shadow, and for a shadow read before
  /// the first update (or after redistribute(), which leaves the shadow stale).
  [[nodiscard]] T shadow(const Index<N>& g) const { return m_view.data()[shadow_offset(g)]; }
  /// The owned element at global index g, read-only. Throws as the non-const operator[].
  [[nodiscard]] const T& operator[](const Index<N>& g) const { return m_view.data()[checked_offset(g)]; }
  /// A copy of the owned element at global index g. Throws as operator[].
  [[nodiscard]] T get(const Index<N>& g) const { return (*this)[g]; }
  /// Writes `value` to the owned element at global index g. Throws as operator[].
  void set(const Index<N>& g, const T& value) { (*this)[g] = value; }

  /// Sets every local element (and shadow slot) to `value`. Not collective.
  void fill(const T& value) { Kokkos::deep_copy(m_view, value); }

  /// Collective over the grid's parent communicator: fills the shadow from the owners (HPF's shadow
  /// update; corners included). With Boundary::Plain the slots outside the array keep their values.
  /// Planned once per layout and boundary (cached with the layout), run by an hpf::Exchange.
  void update_shadow(Boundary boundary = Boundary::Plain) {
    post_shadow(boundary);
    wait_shadow();
  }

  /// Split phase of update_shadow (collective like it): starts the exchange; the owned elements may
  /// be read (not written) before wait_shadow(), e.g. to compute the interior. One shadow update of
  /// an array at a time; updates of several arrays in flight are waited in the same order on every rank.
  void post_shadow(Boundary boundary = Boundary::Plain) {
    // This rank's plan, executor and message buffers first: a failure there (out of memory) rides in
    // the agreement below, so every rank throws it instead of waiting for this rank's messages.
    const bool periodic = boundary == Boundary::Periodic;
    auto& run = m_halo[periodic ? 1 : 0]; // one executor per boundary: alternating reuses both
    std::string problem;
    if (!m_halo_posted) {
      try {
        const auto plan = m_layout.template cached<HaloPlan<N>>(
            periodic ? "shadow:periodic" : "shadow:plain", [&] { return shadow_plan(m_layout, periodic); });
        if (!run || run->plan_ptr() != plan)
          run = std::make_shared<HaloRun>(m_layout, plan, tags::shadow.base);
        run->reserve();
      } catch (const std::exception& e) {
        problem = e.what();
      }
    }
    // Every rank must pass the same layout and boundary. "Already in flight" is agreed too: all ranks
    // posted together, so the check below throws on every rank or on none.
    AgreementWords agree;
    agree.add(static_cast<std::int64_t>(sizeof(T)), [] { return std::string("sizeof(T)"); });
    agree.add(static_cast<std::int64_t>(boundary), [] { return std::string("boundary"); });
    agree.add(m_halo_posted ? 1 : 0, [] { return std::string("an update in flight"); });
    add_layout_words(agree, m_layout, "layout.");
    agree.check(m_layout.grid().comm().get(), "DistArray::update_shadow", problem);
    detail::require(!m_halo_posted, "DistArray '", m_label,
                    "'::post_shadow: an update is already in flight; expected wait_shadow() first");
    run->post(m_view, m_view);
    m_halo_posted = true;
    m_halo_state = periodic ? 2 : 1;
  }

  /// Completes post_shadow(). Collective like update_shadow.
  void wait_shadow() {
    detail::require(m_halo_posted, "DistArray '", m_label,
                    "'::wait_shadow: no update in flight; expected post_shadow() first");
    m_halo[m_halo_state == 2 ? 1 : 0]->wait();
    m_halo_posted = false;
    m_halo_valid = m_halo_state;
  }

  /// Collective over the grid's parent communicator: this array shifted along dimension `dim` by `s`
  /// into `target` (same layout, another array): target(g) = this(g + s e_dim), wrapped modulo the
  /// extent when `circular` (CSHIFT), and left as it was where g + s e_dim is outside the array
  /// otherwise (EOSHIFT's boundary, written by the caller). The plan (runs cut from the block-cyclic
  /// maps, layout/halo.hpp) is cached with the layout; target's shadow is stale afterwards.
  /// When `boundary` is given, every element of target is set to it first (EOSHIFT's boundary), after
  /// the checks. Throws hpf::Error on every rank unless every rank passed the same layouts, dim and
  /// shift.
  void shift_into(DistArray& target, int dim, index_t s, bool circular, const T* boundary = nullptr) const {
    const char* what = circular ? "cshift" : "eoshift";
    {
      AgreementWords agree;
      agree.add(static_cast<std::int64_t>(sizeof(T)), [] { return std::string("sizeof(T)"); });
      agree.add(circular ? 1 : 0, [] { return std::string("circular"); });
      agree.add(dim, [] { return std::string("dim"); });
      agree.add(s, [] { return std::string("shift"); });
      agree.add(same_storage(target) ? 1 : 0, [] { return std::string("target is the source"); });
      add_layout_words(agree, m_layout, "source.");
      add_layout_words(agree, target.m_layout, "target.");
      agree.check(m_layout.grid().comm().get(), circular ? "hpf::cshift" : "hpf::eoshift");
    }
    detail::require(dim >= 0 && dim < N, what, "(DistArray '", m_label, "'): dim must be in [0, ", N,
                    "), got ", dim);
    detail::require(!same_storage(target), what, "(DistArray '", m_label,
                    "'): the target must be another array than the source");
    if (!(target.m_layout == m_layout))
      detail::fail(what, "(DistArray '", m_label, "'): the target '", target.m_label, "' has layout ",
                   target.m_layout.describe_dists(), " of extents ",
                   Layout<N>::to_string(target.m_layout.extents()), "; expected the source's layout ",
                   m_layout.describe_dists(), " of extents ", Layout<N>::to_string(m_layout.extents()),
                   " (same grid and shadow)");
    if (boundary != nullptr) target.fill(*boundary);
    const index_t n = m_layout.extent(dim);
    if (n == 0) return;
    // Fortran: CSHIFT shifts modulo n; an EOSHIFT by |s| >= n moves nothing.
    s = circular ? detail::floor_mod(s, n) : std::clamp(s, -n, n);
    const std::string key = std::string(what) + ":" + std::to_string(dim) + ":" + std::to_string(s);
    const auto plan =
        m_layout.template cached<HaloPlan<N>>(key, [&] { return shift_plan(m_layout, dim, s, circular); });
    if (!target.m_shift || target.m_shift->plan_ptr() != plan)
      target.m_shift = std::make_shared<HaloRun>(m_layout, plan, tags::shift.base);
    target.m_shift->post(m_view, target.m_view);
    target.m_shift->wait();
    target.m_halo_valid = 0;
  }

  /// Collective over the grid's parent communicator: the whole array on `root` (a rank of the parent
  /// communicator) in global Fortran order; an empty vector elsewhere.
  [[nodiscard]] std::vector<T> gather(int root) const {
    check_same_layout_and_root(m_layout, root, "DistArray::gather"); // same on every rank
    check_root(root, "gather");
    const ProcessGrid& grid = m_layout.grid();
    const bool is_root = grid.parent_rank() == root;
    std::vector<T> out;
    if (is_root) out.resize(static_cast<std::size_t>(m_layout.global_size()));
    // One message per non-empty block that is not the root's own, all posted at once (exec/).
    std::vector<int> from; // grid position of each receive
    Exchange ex(grid.comm(), root_plan(root, true, from), ExecMode::AllAtOnce, tags::gather_scatter.base);
    auto pack_mine = [&](std::size_t, std::byte* buf) { copy_owned(reinterpret_cast<T*>(buf), true); };
    ex.execute(pack_mine,
               [&](std::size_t i, const std::byte* buf) { unpack_block(from[i], buf, out.data()); });
    if (is_root && primary_copy()) {
      const std::vector<T> mine = owned_copy();
      unpack_block(grid.my_position(), reinterpret_cast<const std::byte*>(mine.data()), out.data());
    }
    return out;
  }

  /// Collective over the grid's parent communicator: distributes `data` (the whole array in global
  /// Fortran order, significant on `root` only) into the local blocks. Throws hpf::Error on every rank
  /// if the root's data does not hold exactly global_size() elements.
  void scatter(int root, const std::vector<T>& data) {
    check_same_layout_and_root(m_layout, root, "DistArray::scatter"); // same on every rank
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
      copy_owned(const_cast<T*>(reinterpret_cast<const T*>(buf)), false);
    };
    ex.execute([&](std::size_t i, std::byte* buf) { pack_block(to[i], data.data(), buf); }, unpack_mine);
    if (is_root && grid.contains_me()) {
      std::vector<T> mine(static_cast<std::size_t>(local_size()));
      pack_block(grid.my_position(), data.data(), reinterpret_cast<std::byte*>(mine.data()));
      copy_owned(mine.data(), false);
    }
    m_halo_valid = 0;
  }

  /// Collective over the parent communicator of both grids (every rank of it calls, in or out of
  /// either grid): HPF REDISTRIBUTE. The array keeps its label and its values and takes `layout`
  /// (same extents; another block size, grid or number of processes). The plan comes from the plan
  /// cache, so alternating between layouts plans each move once. Throws hpf::Error on every rank,
  /// with the array unchanged, for other extents, a grid on another parent communicator, or layouts
  /// or options (agreement_words: all but in_place_min_piece_bytes) that differ between ranks.
  /// With options.relabel, the array takes `layout` on the grid best_relabeling arranges
  /// (redist/relabel.hpp), its layout().grid() telling which; every rank takes the same path, as the
  /// arrangement is computed from the two layouts after they are checked to agree; grids over
  /// different sets of ranks throw hpf::Error on every rank.
  void redistribute(const Layout<N>& layout, RedistOptions options = {}) {
    if (options.relabel) {
      const Layout<N> arranged =
          detail::relabeled_target(m_layout, layout, options, "DistArray::redistribute");
      options.relabel = false;
      redistribute(arranged, options);
      return;
    }
    const auto words = agreement_words(options);
    // The ceiling is not the plan's (the cached plan is the same with or without one).
    const std::optional<std::size_t> ceiling = std::exchange(options.memory_ceiling_bytes, std::nullopt);
    // The cost model first, on every rank whatever its arguments: its measurement is collective the
    // first time on a communicator that has none (detail::with_model), and a rank that then returned
    // early or failed would leave the others in it.
    options = detail::with_model(m_layout, options, sizeof(T));
    // This rank's part before any message (the plan, its executor, the target block) may fail where
    // the others' does not: its failure rides in the agreement's one allreduce, and every rank throws
    // it with the array unchanged (check_same_on_all_ranks; docs/redistribute.md, "Errors").
    std::string problem;
    std::optional<decltype(executor_between(m_layout, layout, options))> ex;
    std::optional<DistArray> next;
    const bool same = layout == m_layout;
    bool relabel_only = false;
    if (!same) {
      try {
        ex.emplace(executor_between(m_layout, layout, options));
        relabel_only = !has_shadow() && !layout.has_shadow() && ex->plan().storage_identical();
        if (!relabel_only && ceiling) check_ceiling(*this, layout, "DistArray::redistribute");
        if (!relabel_only && !ceiling) (*ex)->template prepare<T>(); // message buffers
        // The target: a block of the new layout, not initialised (every owned element is written),
        // maybe one that an earlier REDISTRIBUTE released (array/block_pool.hpp).
        if (!relabel_only) next.emplace(DistArray(m_label, layout, detail::Uninitialized{}));
      } catch (const std::exception& e) {
        problem = e.what();
      }
    }
    check_same_redistribution(m_layout, layout, words, "DistArray::redistribute", problem);
    if (same) return; // HPF REDISTRIBUTE to the same layout moves nothing
    if (relabel_only) {
      relabel(layout); // every rank keeps its block as it is: only the layout changes
      return;
    }
    if (ceiling)
      move_under_ceiling(**ex, *this, *next, *ceiling, "DistArray::redistribute");
    else
      run_into(**ex, *this, *next); // on failure *this is untouched
    adopt(layout, {next->m_coords, next->m_owned, {}}, std::move(next->m_view));
  }
  /// Collective like redistribute(): HPF REDISTRIBUTE in the array's own storage, for a target layout
  /// under which every rank's local block holds as many elements as it holds now (BLOCK to CYCLIC(r)
  /// of a 1-D array whose blocks keep their sizes, (BLOCK, *) to (*, BLOCK) of an n x n array with P
  /// dividing n, the same grid's ranks in another order, ...). No second block: this rank's sends are
  /// packed first, the elements it keeps move within the block, and the receives land in it through
  /// MPI datatypes (InPlaceRedistribution); the extra memory is the bytes it sends. Where the block's
  /// extents change, the same allocation is viewed with the new extents (local_data() is unchanged).
  /// With options.memory_ceiling_bytes below the largest rank's, every rank throws hpf::Error naming
  /// that smallest workable ceiling. Throws hpf::Error on every rank, the array unchanged, for a rank
  /// whose local element count would change, a SHADOW, options.relabel, or what redistribute()
  /// refuses (docs/redistribute.md, "In place").
  void redistribute_in_place(const Layout<N>& layout, RedistOptions options = {}) {
    const char* what = "DistArray::redistribute_in_place";
    const auto words = agreement_words(options);
    const std::optional<std::size_t> ceiling = std::exchange(options.memory_ceiling_bytes, std::nullopt);
    options = detail::with_model(m_layout, options, sizeof(T));
    std::string problem;
    std::optional<decltype(executor_between(m_layout, layout, options))> ex;
    std::optional<InPlaceRedistribution<N>> move;
    std::size_t need = 0; // the bytes the move allocates on this rank
    const bool same = layout == m_layout;
    if (!same) {
      try {
        detail::require(!options.relabel, what,
                        ": options.relabel = true; expected false (the array keeps its storage, "
                        "so its target layout is fixed)");
        detail::require(
            !has_shadow() && !layout.has_shadow(), what,
            ": an array or target layout with a SHADOW; expected none (the storage keeps its shape)");
        const Index<N> then = local_shape(layout).owned;
        detail::require(elements_of(then) == elements_of(m_owned), what, ": rank ",
                        m_layout.grid().parent_rank(), " holds a block of extents ",
                        Layout<N>::to_string(m_owned), " now and would hold ", Layout<N>::to_string(then),
                        " under the target layout; expected as many elements on every rank");
        ex.emplace(executor_between(m_layout, layout, options));
        need = detail::allocation_bytes(static_cast<std::size_t>((*ex)->plan().send_elements()) * sizeof(T));
        if (!ceiling && !(*ex)->plan().storage_identical())
          move.emplace((*ex)->plan(), m_layout.grid().comm(), sizeof(T));
      } catch (const std::exception& e) {
        problem = e.what();
      }
    }
    check_same_redistribution(m_layout, layout, words, what, problem);
    if (same) return;
    if (!(*ex)->plan().storage_identical()) { // the same on every rank: from the layouts
      if (ceiling) {
        auto most = static_cast<unsigned long long>(need);
        HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX,
                                    m_layout.grid().comm().get()));
        if (most > *ceiling)
          detail::fail(what, ": options.memory_ceiling_bytes = ", *ceiling,
                       " is below the smallest workable ceiling of ", most,
                       " bytes (the bytes a rank sends, packed before its block is overwritten); expected at "
                       "least that, or redistribute() under the ceiling");
        try {
          move.emplace((*ex)->plan(), m_layout.grid().comm(), sizeof(T));
        } catch (const std::exception& e) {
          problem = e.what();
        }
        detail::agree_on_error(m_layout.grid().comm(), problem);
      }
      move->execute(local_data());
    }
    adopt(layout, local_shape(layout), reshaped(local_shape(layout).storage)); // the same storage
  }

  /// Collective like redistribute(): moves the owned elements of `src` into `dst` (another layout of
  /// the same extents), through the plan cache. Shadows on either side are skipped (the owned
  /// elements go through a contiguous copy); dst's shadow is stale afterwards. Every rank must pass
  /// the same layouts and options (checked in one allreduce, with this rank's plan's failure, if any,
  /// folded in: every rank throws it). options.relabel is refused (hpf::Error on every rank): dst's
  /// grid is fixed; arrange dst's layout with best_relabeling and relabeled_layout before making dst.
  static void redistribute_into(const DistArray& src, DistArray& dst, RedistOptions options = {}) {
    const auto words = agreement_words(options);
    const std::optional<std::size_t> ceiling = std::exchange(options.memory_ceiling_bytes, std::nullopt);
    options = detail::with_model(src.m_layout, options, sizeof(T));
    std::string problem;
    std::optional<decltype(executor_between(src.m_layout, dst.m_layout, options))> ex;
    if (options.relabel) {
      problem = "DistArray::redistribute_into: options.relabel = true; expected false (the target array's "
                "grid is fixed: use A.redistribute(layout, options) or hpf::redistribute, or arrange the "
                "target layout with best_relabeling and relabeled_layout before making the target array)";
    } else {
      try {
        ex.emplace(executor_between(src.m_layout, dst.m_layout, options));
        if (ceiling)
          check_ceiling(src, dst.m_layout, "hpf::redistribute", &dst);
        else
          (*ex)->template prepare<T>(); // message buffers: a failure here is every rank's error
      } catch (const std::exception& e) {
        problem = e.what();
      }
    }
    check_same_redistribution(src.m_layout, dst.m_layout, words, "hpf::redistribute", problem);
    if (ceiling)
      move_under_ceiling(**ex, src, dst, *ceiling, "hpf::redistribute");
    else
      run_into(**ex, src, dst);
  }

  /// The owned elements in Fortran order of the owned block (a copy). Not collective.
  [[nodiscard]] std::vector<T> owned_copy() const {
    std::vector<T> out(static_cast<std::size_t>(local_size()));
    copy_owned(out.data(), true);
    return out;
  }

  /// Calls fn(T* first, index_t len) for every run of owned elements contiguous in the local view
  /// (a block of dimension 0 within one column), in Fortran order of the owned block. Not collective.
  template <class Fn> void for_each_owned_run(Fn&& fn) const {
    if (local_size() == 0) return;
    const CyclicMap m0 = m_layout.map(0);
    Index<N> l{}; // odometer over the owned dimensions 1..N-1
    while (true) {
      std::size_t base = 0;
      for (int d = N; d-- > 1;)
        base = (base + static_cast<std::size_t>(slot(d, l[static_cast<std::size_t>(d)]))) *
               m_view.extent(static_cast<std::size_t>(d - 1));
      for (index_t l0 = 0; l0 < m_owned[0]; l0 += m0.r)
        fn(m_view.data() + base + static_cast<std::size_t>(slot(0, l0)), std::min(m0.r, m_owned[0] - l0));
      int d = 1;
      for (; d < N; ++d) {
        const auto du = static_cast<std::size_t>(d);
        if (++l[du] < m_owned[du]) break;
        l[du] = 0;
      }
      if (d >= N) return;
    }
  }

  /// Copies the owned elements to (`out`) or from (!`out`) `buf`, in Fortran order of the owned block.
  void copy_owned(T* buf, bool out) const {
    for_each_owned_run([&](T* p, index_t len) {
      if (out)
        std::memcpy(buf, p, static_cast<std::size_t>(len) * sizeof(T));
      else
        std::memcpy(p, buf, static_cast<std::size_t>(len) * sizeof(T));
      buf += len;
    });
  }

  /// Runs halo plans (shadow updates, shifts) between arrays of this type: an hpf::Exchange of the
  /// plan's messages (one per pair of grid positions, all posted at once: a halo is a sparse
  /// neighbour exchange), with pack/unpack callbacks that walk the boxes. Built once per plan.
  class HaloRun {
  public:
    /// Builds the exchange of `plan` among the ranks of `layout`'s grid, with message tag `tag`. Local.
    HaloRun(const Layout<N>& layout, std::shared_ptr<const HaloPlan<N>> plan, int tag)
        : m_plan(std::move(plan)), m_ex(make_exchange(layout, *m_plan, tag)) {
      const ProcessGrid& grid = layout.grid();
      for (const Transfer& t : m_ex.plan().sends)
        m_send_boxes.push_back(&find(m_plan->sends, grid.position_of_rank(t.peer)));
      for (const Transfer& t : m_ex.plan().recvs)
        m_recv_boxes.push_back(&find(m_plan->recvs, grid.position_of_rank(t.peer)));
    }
    /// The halo plan this run executes.
    [[nodiscard]] const HaloPlan<N>& plan() const noexcept { return *m_plan; }
    /// The same plan, shared (tells whether this run is the one for a given cached plan).
    [[nodiscard]] const std::shared_ptr<const HaloPlan<N>>& plan_ptr() const noexcept { return m_plan; }
    /// Starts moving the boxes from `from`'s storage to `to`'s (the local boxes are copied here).
    void post(const view_type& from, const view_type& to) {
      const auto* sends = &m_send_boxes;
      const auto* recvs = &m_recv_boxes;
      m_ex.post(
          [from, sends](std::size_t i, std::byte* buf) {
            T* out = reinterpret_cast<T*>(buf);
            for (const HaloBox<N>& b : *(*sends)[i])
              walk_box(from, b.src, b.len, [&](T* p, index_t n) {
                copy_run(out, p, n);
                out += n;
              });
          },
          [to, recvs](std::size_t i, const std::byte* buf) {
            const T* in = reinterpret_cast<const T*>(buf);
            for (const HaloBox<N>& b : *(*recvs)[i])
              walk_box(to, b.dst, b.len, [&](T* p, index_t n) {
                copy_run(p, in, n);
                in += n;
              });
          });
      // Local boxes straight from storage to storage: they never overlap (a shadow box reads owned
      // slots and writes shadow slots; a shift reads one array and writes another).
      for (const HaloBox<N>& b : m_plan->local)
        for_each_column(b.len, [&](const Index<N>& k) {
          copy_run(to.data() + column_offset(to, b.dst, k), from.data() + column_offset(from, b.src, k),
                   b.len[0]);
        });
    }
    /// Completes the exchange started by post().
    void wait() { m_ex.wait(); }
    /// Allocates the message buffers now (Exchange::reserve).
    void reserve() { m_ex.reserve(); }

  private:
    static Exchange make_exchange(const Layout<N>& layout, const HaloPlan<N>& plan, int tag) {
      const ProcessGrid& grid = layout.grid();
      CommMatrix m(grid.size(), grid.size());
      for (const auto& e : plan.matrix) m.add(static_cast<int>(e[0]), static_cast<int>(e[1]), e[2]);
      const int me = grid.contains_me() ? grid.my_position() : -1;
      return Exchange(grid.comm(),
                      exchange_plan(all_at_once_schedule(m), me, me, grid.ranks(), grid.ranks(), sizeof(T)),
                      ExecMode::AllAtOnce, tag);
    }
    static const std::vector<HaloBox<N>>& find(const std::vector<std::pair<int, std::vector<HaloBox<N>>>>& v,
                                               int pos) {
      for (const auto& [q, boxes] : v)
        if (q == pos) return boxes;
      detail::fail("DistArray halo: no boxes for grid position ", pos, " (internal error)");
    }

    std::shared_ptr<const HaloPlan<N>> m_plan;
    Exchange m_ex;
    std::vector<const std::vector<HaloBox<N>>*> m_send_boxes;
    std::vector<const std::vector<HaloBox<N>>*> m_recv_boxes;
  };

  /// Copies a run of n elements: short runs (a width-1 shadow across columns) element by element,
  /// which the compiler inlines, long ones by memcpy.
  static void copy_run(T* to, const T* from, index_t n) {
    if (n <= 8) {
      for (index_t i = 0; i < n; ++i) to[i] = from[i];
    } else {
      std::memcpy(to, from, static_cast<std::size_t>(n) * sizeof(T));
    }
  }

  /// Calls fn(T* first, index_t len) for each column of the box [start, start + len) of view v: runs
  /// contiguous along dimension 0, in Fortran order.
  template <class Fn>
  static void walk_box(const view_type& v, const Index<N>& start, const Index<N>& len, Fn&& fn) {
    for_each_column(len, [&](const Index<N>& k) { fn(v.data() + column_offset(v, start, k), len[0]); });
  }

  /// Calls fn(k) for every column k of a box of extents len (k[0] = 0; dimensions 1..N-1 vary).
  template <class Fn> static void for_each_column(const Index<N>& len, Fn&& fn) {
    for (index_t x : len)
      if (x == 0) return;
    Index<N> k{};
    while (true) {
      fn(static_cast<const Index<N>&>(k));
      int d = 1;
      for (; d < N; ++d) {
        const auto du = static_cast<std::size_t>(d);
        if (++k[du] < len[du]) break;
        k[du] = 0;
      }
      if (d >= N) return;
    }
  }

  /// Offset in view v of the first element of column k of the box that starts at `start`.
  static std::size_t column_offset(const view_type& v, const Index<N>& start, const Index<N>& k) {
    std::size_t off = 0;
    for (int d = N; d-- > 1;)
      off = (off +
             static_cast<std::size_t>(start[static_cast<std::size_t>(d)] + k[static_cast<std::size_t>(d)])) *
            v.extent(static_cast<std::size_t>(d - 1));
    return off + static_cast<std::size_t>(start[0]);
  }

  /// Replaces the layout and reallocates: the data is NOT preserved (redistribute() preserves it).
  void reset_layout(Layout<N> layout) {
    m_layout = std::move(layout);
    allocate();
    m_halo = {};
    m_shift.reset();
    m_halo_valid = 0;
  }

  /// Global index along dimension d of local index l of the calling rank (closed form from the
  /// CyclicMap: no per-element table is kept).
  [[nodiscard]] index_t global_index(int d, index_t l) const {
    return m_layout.map(d).global(m_coords[static_cast<std::size_t>(d)], l);
  }

  /// Grid coordinate of the calling rank along each array dimension (0 when collapsed or outside).
  [[nodiscard]] const std::array<int, N>& my_dim_coords() const noexcept { return m_coords; }

  /// Bytes of metadata this array keeps besides its elements: independent of the extents (no
  /// per-element tables; global indices come from the layout's CyclicMap). Cached halo plans and
  /// their buffers belong to the layout and the exchange, not counted here.
  [[nodiscard]] std::size_t metadata_bytes() const noexcept { return sizeof(*this) + m_label.capacity(); }

private:
  /// Whether `other` is this array or shares its storage. Two arrays that both store nothing on this
  /// rank (it owns no element; their data pointers may both be null) are not the same.
  [[nodiscard]] bool same_storage(const DistArray& other) const noexcept {
    return &other == this || (m_view.data() != nullptr && other.m_view.data() == m_view.data());
  }

  /// The messages of a gather (`to_root`) or scatter between `root` and the other blocks: on the root
  /// one per non-empty block that is not its own (their grid positions in `positions`), elsewhere
  /// this rank's block. The root's own block is copied, never sent. A gather reads the primary copy
  /// of a replicated block, a scatter writes every copy.
  [[nodiscard]] ExchangePlan root_plan(int root, bool to_root, std::vector<int>& positions) const {
    const ProcessGrid& grid = m_layout.grid();
    ExchangePlan plan;
    auto& at_root = to_root ? plan.recvs : plan.sends;
    auto& elsewhere = to_root ? plan.sends : plan.recvs;
    if (grid.parent_rank() == root) {
      for (int pos = 0; pos < grid.size(); ++pos)
        if (pos != grid.my_position() && local_count(pos) > 0 && (!to_root || m_layout.is_primary(pos))) {
          at_root.push_back({grid.rank_at(pos), block_bytes(pos), 0});
          positions.push_back(pos);
        }
    } else if (grid.contains_me() && local_size() > 0 && (!to_root || primary_copy())) {
      elsewhere.push_back({root, block_bytes(grid.my_position()), 0});
    }
    return plan;
  }

  /// This rank's part of a layout: its coordinates, the extents of its owned block, and those of its
  /// storage (the owned block and its shadow); all 0 where it holds nothing. Local.
  struct LocalShape {
    std::array<int, N> coords{};
    Index<N> owned{};
    Index<N> storage{};
  };
  static LocalShape local_shape(const Layout<N>& layout) {
    // A rank off a fixed grid coordinate holds nothing, like a rank outside the grid.
    const ProcessGrid& grid = layout.grid();
    static const std::vector<int> nowhere;
    const std::vector<int>& c =
        grid.contains_me() && layout.holds(grid.my_position()) ? grid.my_coords() : nowhere;
    LocalShape shape;
    bool empty = c.empty();
    for (int d = 0; d < N && !c.empty(); ++d) {
      const auto du = static_cast<std::size_t>(d);
      shape.coords[du] = layout.coord(c, d);
      shape.owned[du] = layout.map(d).local_extent(shape.coords[du]);
      shape.storage[du] = halo_extent(layout.map(d), layout.shadow(d), shape.coords[du]);
      empty = empty || shape.owned[du] == 0;
    }
    if (empty) shape.storage = Index<N>{}; // an array that owns nothing stores nothing, shadow included
    return shape;
  }

  /// Sets m_coords and m_owned from the layout; returns the extents of the local storage.
  Index<N> place() {
    const LocalShape shape = local_shape(m_layout);
    m_coords = shape.coords;
    m_owned = shape.owned;
    return shape.storage;
  }

  /// Takes `layout` with `block` as its storage (REDISTRIBUTE's target, every owned element of which
  /// was written, or the block it has when the storage stays as it is): no shadow update is valid or in
  /// flight, and the block it had goes to the pool of released blocks (array/block_pool.hpp) unless a
  /// copy of the array still shares it.
  void adopt(const Layout<N>& layout, const LocalShape& shape, view_type&& block) {
    m_layout = layout;
    m_coords = shape.coords;
    m_owned = shape.owned;
    m_halo = {};
    m_shift.reset();
    m_halo_posted = false;
    m_halo_state = 0;
    m_halo_valid = 0;
    // Two moves, not std::swap's three: a Kokkos view moves by copying its reference count (two
    // atomic operations each).
    view_type old = std::move(m_view);
    m_view = std::move(block);
    detail::recycle_view(old, m_label);
  }

  static index_t elements_of(const Index<N>& e) {
    return std::accumulate(e.begin(), e.end(), index_t{1}, std::multiplies<>());
  }

  /// The local block viewed with extents `e` of as many elements (an in-place REDISTRIBUTE whose
  /// blocks change shape): a view that shares the block's allocation and reference count, so that the
  /// block lives as long as either view and goes to the pool of released blocks under its new shape.
  view_type reshaped(const Index<N>& e) const {
    Kokkos::LayoutLeft shape;
    bool same = true;
    for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
      shape.dimension[d] = static_cast<std::size_t>(e[d]);
      same = same && shape.dimension[d] == m_view.extent(d);
    }
    if (same) return m_view;
    if (elements_of(e) == 0) return view_type(m_label, shape);
    using unmanaged = Kokkos::View<typename view_type::data_type, Kokkos::LayoutLeft, Kokkos::HostSpace,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const unmanaged over(m_view.data(), shape);
    // Kokkos' constructor from an allocation tracker and a mapping (the new extents over the same
    // pointer): Kokkos has no public reshape of a managed view.
    return view_type(m_view.impl_track(), over.impl_map());
  }

  /// Takes `layout`, under which every rank stores the same elements in the same places (a plan's
  /// storage_identical(), neither side with a shadow): the storage is kept as it is.
  void relabel(const Layout<N>& layout) {
    view_type same = m_view; // shared with the array: recycle_view leaves it alone
    adopt(layout, local_shape(layout), std::move(same));
  }

  /// An executor of the cached plan between the two layouts without their shadow widths (only owned
  /// elements move), from the plan's pool, for `options` as detail::with_model filled them. Local.
  static auto executor_between(const Layout<N>& from, const Layout<N>& to, const RedistOptions& options) {
    auto ex = !from.has_shadow() && !to.has_shadow() // the common case: no layout copies per call
                  ? cached_executor(from, to, options)
                  : cached_executor(from.with_shadow(Index<N>{}), to.with_shadow(Index<N>{}), options);
    // The cached plan may come from equal layouts on another grid object over the same ranks (another
    // communicator), and which entry a rank's cache holds may differ between ranks: the messages go on
    // the caller's communicator, which every rank passes the same.
    ex->bind(from.grid().comm());
    return ex;
  }

  /// Throws hpf::Error (local: the caller folds it into its agreement) when a move under a memory
  /// ceiling cannot run: a shadow on either side (owned elements then move through compact copies of
  /// whole blocks) or, for redistribute_into, source and target sharing storage.
  static void check_ceiling(const DistArray& src, const Layout<N>& to, const char* what,
                            const DistArray* dst = nullptr) {
    detail::require(!src.has_shadow() && !to.has_shadow(), what,
                    ": options.memory_ceiling_bytes with an array that has a SHADOW; expected arrays "
                    "without shadow (their owned elements would move through copies of the whole blocks)");
    detail::require(dst == nullptr || src.m_view.data() == nullptr || src.m_view.data() != dst->m_view.data(),
                    what,
                    ": options.memory_ceiling_bytes with the source and target sharing storage; expected "
                    "two arrays");
  }

  /// Collective: moves src's elements into dst's under a memory ceiling (RedistOptions::
  /// memory_ceiling_bytes; docs/redistribute.md, "A memory ceiling"). When the plan's message buffers
  /// fit on every rank (one allreduce of their size), `ex` runs as it is; otherwise its messages run
  /// in chunks cut along their outermost dimension (ChunkedRedistribution), or, where one index of
  /// that dimension is too large for the ceiling, the move runs as section moves of slabs that fit
  /// (section/ceiling.hpp). A ceiling below the smallest piece throws hpf::Error on every rank (the
  /// split is computed from the layouts alone) before any message, and a failed allocation is every
  /// rank's error: src is unchanged.
  template <class Executor> static void move_under_ceiling(Executor& ex, const DistArray& src, DistArray& dst,
                                                           std::size_t ceiling, const char* what) {
    const Comm& comm = src.m_layout.grid().comm();
    // What every rank needs to know: the largest buffers of the plan as it is, and whether some
    // rank has a message that chunks cannot cut small enough.
    std::array<unsigned long long, 2> need{
        ex.template buffer_bytes<T>(),
        ChunkedRedistribution<N>::fits(ex.plan(), sizeof(T), ceiling) ? 0ULL : 1ULL};
    HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, need.data(), 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm.get()));
    std::string problem;
    if (need[0] <= ceiling) { // the plan as it is fits
      try {
        ex.template prepare<T>();
      } catch (const std::exception& e) {
        problem = e.what();
      }
      detail::agree_on_error(comm, problem);
      run_into(ex, src, dst);
      return;
    }
    if (need[1] == 0) { // its messages in chunks
      std::optional<ChunkedRedistribution<N>> chunked;
      try {
        chunked.emplace(ex.plan(), comm, sizeof(T), ceiling);
      } catch (const std::exception& e) {
        problem = e.what();
      }
      detail::agree_on_error(comm, problem);
      chunked->execute(static_cast<const T*>(src.local_data()), dst.local_data());
      dst.m_halo_valid = 0;
      return;
    }
    // Section moves of slabs small enough (section/ceiling.hpp).
    const Section<N> whole = whole_section<N>(src.m_layout.extents());
    Permutation<N> identity{};
    for (int d = 0; d < N; ++d) identity[static_cast<std::size_t>(d)] = d;
    const detail::CeilingSplit<N> split = detail::ceiling_split<N>(dst.m_layout, whole, src.m_layout, whole,
                                                                   identity, sizeof(T), ceiling, what);
    detail::assign_in_pieces<T, N>(dst, whole, src, whole, identity, split,
                                   detail::array_section_options(comm), detail::Assign{});
    dst.m_halo_valid = 0;
  }

  /// Collective: runs `ex` from src's owned elements into dst's; with a shadow on either side they go
  /// through compact copies. dst's shadow is stale afterwards.
  template <class Executor> static void run_into(Executor& ex, const DistArray& src, DistArray& dst) {
    if (!src.has_shadow() && !dst.has_shadow()) {
      ex.execute(static_cast<const T*>(src.local_data()), dst.local_data());
    } else {
      const std::vector<T> in = src.owned_copy();
      std::vector<T> out(static_cast<std::size_t>(dst.local_size()));
      ex.execute(in.data(), out.data());
      dst.copy_owned(out.data(), false);
    }
    dst.m_halo_valid = 0;
  }

  void allocate(bool init = true) { m_view = make_block(m_label, m_layout.has_shadow(), place(), init); }

  /// A local block of `e` extents for the array `label`: zero-filled when `init` or `shadow`, else
  /// uninitialised (a target every element of which is written next), and then a block of this shape
  /// that an earlier REDISTRIBUTE released when the pool has one.
  static view_type make_block(const std::string& label, bool shadow, const Index<N>& e, bool init) {
    // The local storage's size is checked, and a failed allocation is an hpf::Error naming the array,
    // not Kokkos' std::runtime_error.
    index_t bytes = static_cast<index_t>(sizeof(T));
    for (int d = 0; d < N; ++d)
      bytes = detail::checked_mul(bytes, e[static_cast<std::size_t>(d)], "DistArray '", label,
                                  "': bytes of the local block");
    // A block of this shape that REDISTRIBUTE released, for an uninitialised block (made in place: a
    // Kokkos view moves by copying its reference count).
    view_type v = init || shadow ? view_type() : [&] {
      detail::BlockKey key{typeid(view_type), label, {}};
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
        key.extents[d] = static_cast<std::size_t>(e[d]);
      return detail::reuse_view<view_type>(key);
    }();
    if (v.data() != nullptr) return v;
    try {
      // Allocated untouched and advised as huge pages (core/memory.hpp), then filled when asked: the
      // first touch of a large block faults once per 2 MiB, not once per 4 KiB.
      const auto how = Kokkos::view_alloc(label, Kokkos::WithoutInitializing);
      if constexpr (N == 1) v = view_type(how, e[0]);
      if constexpr (N == 2) v = view_type(how, e[0], e[1]);
      if constexpr (N == 3) v = view_type(how, e[0], e[1], e[2]);
      if constexpr (N == 4) v = view_type(how, e[0], e[1], e[2], e[3]);
      detail::advise_huge_pages(v.data(), static_cast<std::size_t>(bytes));
      // Shadow slots outside the array read 0 until a periodic update: they are always initialised.
      if (init || shadow) Kokkos::deep_copy(v, T{});
    } catch (const std::exception& ex) {
      detail::fail("DistArray '", label, "': cannot allocate the local block of ", bytes, " bytes (",
                   ex.what(), ")");
    }
    return v;
  }

  [[nodiscard]] std::size_t view_offset(const Index<N>& slots) const {
    std::size_t off = 0;
    for (int d = N; d-- > 0;)
      off = off * m_view.extent(static_cast<std::size_t>(d)) +
            static_cast<std::size_t>(slots[static_cast<std::size_t>(d)]);
    return off;
  }

  /// Offset in the view of global index g read through the shadow (see shadow()).
  [[nodiscard]] std::size_t shadow_offset(const Index<N>& g) const {
    const ProcessGrid& grid = m_layout.grid();
    if (m_layout.in_bounds(g) && grid.contains_me() && m_layout.owns(grid.my_position(), g))
      return checked_offset(g);
    const char* state = m_halo_valid == 0   ? "never updated"
                        : m_halo_valid == 1 ? "updated (Plain)"
                                            : "updated (Periodic)";
    if (m_halo_valid == 0)
      detail::fail("DistArray '", m_label, "'::shadow: global index ", Layout<N>::to_string(g),
                   " is not owned here and the shadow was never updated (or is stale after "
                   "redistribute/scatter); expected update_shadow() before reading the shadow");
    Index<N> slots{};
    for (int d = 0; d < N; ++d) {
      const auto du = static_cast<std::size_t>(d);
      const CyclicMap m = m_layout.map(d);
      const index_t w = m_layout.shadow(d);
      index_t found = -1;
      // Candidate unwrapped positions: g itself, and with Periodic its images one period away.
      for (index_t shift : {index_t(0), m.n, -m.n}) {
        if (shift != 0 && m_halo_valid != 2) continue;
        const index_t x = g[du] + shift;
        if (shift != 0 && (x < -w || x >= m.n + w)) continue;
        found = slot_of(m, w, m_coords[du], x, m_halo_valid == 2);
        if (found >= 0) break;
      }
      if (found < 0)
        detail::fail("DistArray '", m_label, "'::shadow: global index ", Layout<N>::to_string(g),
                     " (dimension ", d, ", index ", g[du],
                     ") is neither owned here nor within the shadow of width ", w,
                     " of an owned block (shadow ", state, "); expected an owned index or one at most ", w,
                     " away from an owned block", m_halo_valid == 2 ? "" : " and inside the extents");
      slots[du] = found;
    }
    return view_offset(slots);
  }

  /// Slot of unwrapped global index x along a dimension (map m, width w, coordinate p): a position in
  /// the padded range [G - w, G + len + w) of one of p's blocks, or -1. Indices outside [0, n) count
  /// only with `periodic`.
  [[nodiscard]] static index_t slot_of(const CyclicMap& m, index_t w, int p, index_t x, bool periodic) {
    if (!periodic && (x < 0 || x >= m.n)) return -1;
    const index_t e = m.local_extent(p);
    const index_t cycle = static_cast<index_t>(m.P) * m.r;
    const index_t base = x - static_cast<index_t>(p) * m.r;
    const index_t b0 = base >= 0 ? base / cycle : -((-base + cycle - 1) / cycle);
    for (index_t b : {b0, b0 + 1, index_t(0)}) { // block 0: the one block of BLOCK and `*`
      if (b < 0 || b * m.r >= e) continue;
      const index_t G = m.global(p, b * m.r);
      const index_t len = std::min(m.r, e - b * m.r);
      if (x >= G - w && x < G + len + w) return b * (m.r + 2 * w) + w + (x - G);
    }
    return -1;
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

  // Element access (operator[], shadow()) runs per element in user loops: every check below builds
  // its text only when it fails.
  [[nodiscard]] std::size_t checked_offset(const Index<N>& g) const {
    if (!m_layout.in_bounds(g))
      detail::fail("DistArray '", m_label, "': global index ", Layout<N>::to_string(g),
                   " is outside the extents ", Layout<N>::to_string(m_layout.extents()));
    const ProcessGrid& grid = m_layout.grid();
    if (!grid.contains_me() || !m_layout.owns(grid.my_position(), g)) {
      const int owner = m_layout.owner(g);
      detail::fail("DistArray '", m_label, "': element ", Layout<N>::to_string(g),
                   " is owned by grid position ", owner, " (parent rank ", grid.rank_at(owner),
                   "), not by this rank");
    }
    const Index<N> l = m_layout.local_index(g);
    Index<N> slots{};
    for (int d = 0; d < N; ++d) slots[static_cast<std::size_t>(d)] = slot(d, l[static_cast<std::size_t>(d)]);
    return view_offset(slots);
  }

  std::string m_label;
  Layout<N> m_layout;
  view_type m_view;
  std::array<int, N> m_coords{};
  Index<N> m_owned{};
  std::array<std::shared_ptr<HaloRun>, 2> m_halo; // Plain, Periodic; shared by shallow copies, as the view is
  std::shared_ptr<HaloRun> m_shift;               // the last shift into this array
  bool m_halo_posted = false;
  int m_halo_state = 0; ///< boundary of the update in flight: 1 Plain, 2 Periodic
  int m_halo_valid = 0; ///< boundary of the last completed update (0: none since allocation)
};

/// Collective over the parent communicator of both grids: a copy of `A` laid out by `layout` (same
/// label, same values); `A` is unchanged. Plans through the plan cache. Throws hpf::Error on every
/// rank for other extents or a grid on another parent communicator. With options.relabel, the copy is
/// laid out by `layout` on the grid best_relabeling arranges (as DistArray::redistribute).
template <class T, int N> [[nodiscard]] DistArray<T, N>
redistribute(const DistArray<T, N>& A, const Layout<N>& layout, RedistOptions options = {}) {
  if (options.relabel) {
    const Layout<N> arranged = detail::relabeled_target(A.layout(), layout, options, "hpf::redistribute");
    options.relabel = false;
    return redistribute(A, arranged, options);
  }
  // The copy's block may fail to allocate on some ranks only: every rank throws it then.
  std::optional<DistArray<T, N>> out;
  std::string problem;
  try {
    out.emplace(A.label(), layout, detail::Uninitialized{});
  } catch (const std::exception& e) {
    problem = e.what();
  }
  detail::agree_on_error(A.layout().grid().comm(), problem);
  DistArray<T, N>::redistribute_into(A, *out, options);
  return std::move(*out);
}

} // namespace hpf
