// The DistArray faces of the irregular plans (irregular/gather_scatter.hpp, Wang and Ranka §1):
//
//   hpf::GatherPlan<T, N>   y(i) = x(idx(i))                   duplicates and any order allowed
//   hpf::ScatterPlan<T, N>  x(idx(i)) = op(x(idx(i)), y(i))    op associative (default +)
//
// x is a DistArray<T, N>; idx and y are per-rank: each rank of the grid's parent communicator
// passes its own list of global indices (possibly empty, ranks outside the grid included) and gets
// (or gives) one value per index. The constructor is the inspector: it locates every index in x's
// layout (owner rank, offset in the owner's local block; an out-of-range index throws hpf::Error on
// every rank, naming the first bad index, its position and the rank that holds it) and builds the
// layout-free hpf::IrregularPlan, whose header describes the remaining steps and the scatter order.
// Only x's layout is used: a plan serves any array of that layout.
#pragma once

#include <hpf/array/dist_array.hpp>
#include <hpf/irregular/gather_scatter.hpp>

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace hpf {
namespace detail {

/// Step 1 for a DistArray layout: owner ranks and local offsets of `indices`, or an error on every
/// rank.
template <int N> void locate_indices(const Layout<N>& L, std::span<const Index<N>> indices, const char* who,
                                     std::vector<int>& owner_rank, std::vector<index_t>& offset) {
  const ProcessGrid& G = L.grid();
  std::vector<Index<N>> ext(static_cast<std::size_t>(G.size()));
  for (int p = 0; p < G.size(); ++p) ext[static_cast<std::size_t>(p)] = L.local_extents(p);
  owner_rank.resize(indices.size());
  offset.resize(indices.size());
  std::string problem;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const Index<N>& g = indices[i];
    if (!L.in_bounds(g)) {
      problem = concat(who, ": index ", Layout<N>::to_string(g), " at position ", i, " of rank ",
                       G.parent_rank(), " is outside the extents ", Layout<N>::to_string(L.extents()),
                       "; expected 0 <= index < extent in every dimension");
      break;
    }
    const int pos = L.owner(g);
    const Index<N> l = L.local_index(g);
    const Index<N>& e = ext[static_cast<std::size_t>(pos)];
    index_t off = 0;
    for (int d = N; d-- > 0;) off = off * e[static_cast<std::size_t>(d)] + l[static_cast<std::size_t>(d)];
    owner_rank[i] = G.rank_at(pos);
    offset[i] = off;
  }
  agree_on_error(G.comm(), problem);
}

template <int N> std::vector<Index<N>> as_indices(std::span<const index_t> idx) {
  std::vector<Index<N>> out(idx.size());
  for (std::size_t i = 0; i < idx.size(); ++i) out[i][0] = idx[i];
  return out;
}

/// What GatherPlan and ScatterPlan share: the three forms of the inspector, the planned layout, the
/// layout-free plan and the queries.
template <class T, int N, IrregularDirection Dir> class IrregularArrayPlan {
public:
  static constexpr const char* name = Dir == IrregularDirection::Gather ? "GatherPlan" : "ScatterPlan";

  /// Collective over x's grid's parent communicator (the inspector; see the header comment).
  IrregularArrayPlan(const DistArray<T, N>& x, std::span<const Index<N>> indices,
                     const IrregularOptions& opt = {})
      : m_layout(x.layout()), m_plan(inspect(m_layout, indices, opt)) {}
  /// 1-D arrays: plain global indices.
  IrregularArrayPlan(const DistArray<T, N>& x, std::span<const index_t> indices,
                     const IrregularOptions& opt = {}) requires(N == 1)
      : IrregularArrayPlan(x, std::span<const Index<1>>(as_indices<1>(indices)), opt) {}
  /// HPF form: the calling rank's part of a distributed index array.
  IrregularArrayPlan(const DistArray<T, N>& x, const DistArray<index_t, 1>& idx,
                     const IrregularOptions& opt = {}) requires(N == 1)
      : IrregularArrayPlan(x,
                           std::span<const index_t>(owned_data(idx, "index array"),
                                                    static_cast<std::size_t>(idx.local_size())),
                           opt) {}

  /// Number of indices of the calling rank.
  [[nodiscard]] std::size_t size() const noexcept { return m_plan.size(); }
  /// Element counts requester -> owner (the same on every rank).
  [[nodiscard]] const CommMatrix& com() const noexcept { return m_plan.com(); }
  /// The data schedule: owner -> requester for a gather (the transpose of com()), requester -> owner
  /// for a scatter (on com()).
  [[nodiscard]] const Schedule& schedule() const noexcept { return m_plan.schedule(); }
  [[nodiscard]] ExecMode mode() const noexcept { return m_plan.mode(); }

protected:
  [[nodiscard]] const IrregularPlan<T, Dir>& plan() const noexcept { return m_plan; }

  /// Throws hpf::Error (on the calling rank) if x's layout differs from the plan's.
  void check_same_layout(const DistArray<T, N>& x, const char* who) const {
    if (!(x.layout() == m_layout))
      fail(who, ": DistArray '", x.label(), "' has layout ", x.layout().describe_dists(), " extents ",
           Layout<N>::to_string(x.layout().extents()),
           " on another grid or distribution than the plan was built for (", m_layout.describe_dists(),
           " extents ", Layout<N>::to_string(m_layout.extents()), ")");
    owned_data(x, who);
  }

  /// A's local data, which must be its owned block: plans address it contiguously, and the storage
  /// of an array with SHADOW widths is padded (docs/shadows.md). Throws hpf::Error otherwise.
  template <class U, int M> static U* owned_data(const DistArray<U, M>& A, const char* who) {
    if (A.has_shadow())
      fail(who, ": DistArray '", A.label(), "' has SHADOW widths ", Layout<M>::to_string(A.layout().shadow()),
           "; expected an array without shadow");
    return A.local_data();
  }

private:
  static IrregularPlan<T, Dir> inspect(const Layout<N>& L, std::span<const Index<N>> indices,
                                       const IrregularOptions& opt) {
    // A gather reads the primary copy of a replicated x; a scatter would update that copy only
    // (docs/align.md): refused, on every rank alike (the layout is the same everywhere).
    if (Dir == IrregularDirection::Scatter && L.copies() != 1) // the text only on failure
      fail(name, ": x's layout ", L.describe_dists(),
           " replicates its elements; expected a layout without replicated grid dimensions (docs/align.md)");
    std::vector<int> owner;
    std::vector<index_t> offset;
    locate_indices<N>(L, indices, name, owner, offset);
    return IrregularPlan<T, Dir>(L.grid().comm(), owner, offset, opt);
  }

  Layout<N> m_layout;
  IrregularPlan<T, Dir> m_plan;
};

} // namespace detail

/// y(i) = x(idx(i)) for a per-rank list of global indices: an inspector/executor plan.
/// Constructors (collective over x's grid's parent communicator): (x, span<const Index<N>>, opt),
/// and for N == 1 (x, span<const index_t>, opt) and (x, DistArray<index_t, 1> idx, opt).
template <class T, int N> class GatherPlan
    : public detail::IrregularArrayPlan<T, N, IrregularDirection::Gather> {
  using Base = detail::IrregularArrayPlan<T, N, IrregularDirection::Gather>;

public:
  using Base::Base;

  /// Collective over x's grid's parent communicator: y[i] = x(idx[i]) for this rank's indices.
  /// Throws hpf::Error (on the calling rank) if x's layout differs from the plan's or y.size() differs.
  void execute(const DistArray<T, N>& x, std::span<T> y) const {
    this->check_same_layout(x, "GatherPlan::execute");
    this->plan().gather(x.local_data(), y);
  }
  /// Same, returning y.
  [[nodiscard]] std::vector<T> execute(const DistArray<T, N>& x) const {
    std::vector<T> y(this->size());
    execute(x, std::span<T>(y));
    return y;
  }
  /// Same, into the calling rank's part of a distributed y (HPF form).
  void execute(const DistArray<T, N>& x, DistArray<T, 1>& y) const requires(N == 1) {
    execute(x, std::span<T>(Base::owned_data(y, "GatherPlan::execute (target)"),
                            static_cast<std::size_t>(y.local_size())));
  }
};

/// x(idx(i)) = op(x(idx(i)), y(i)) for a per-rank list of global indices and an associative op.
/// Constructors: as GatherPlan's.
template <class T, int N> class ScatterPlan
    : public detail::IrregularArrayPlan<T, N, IrregularDirection::Scatter> {
  static_assert(std::is_default_constructible_v<T>,
                "hpf::ScatterPlan<T, N>: T must be default constructible");
  using Base = detail::IrregularArrayPlan<T, N, IrregularDirection::Scatter>;

public:
  using Base::Base;

  /// Collective over x's grid's parent communicator: x(idx[i]) = op(x(idx[i]), y[i]) for the indices
  /// of every rank, combined in ascending (rank, position) order.
  template <class Op = std::plus<>> void execute(DistArray<T, N>& x, std::span<const T> y, Op op = {}) const {
    this->check_same_layout(x, "ScatterPlan::execute");
    this->plan().scatter(x.local_data(), y, op);
  }
};

} // namespace hpf
