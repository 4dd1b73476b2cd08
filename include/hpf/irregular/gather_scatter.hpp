// Inspector/executor plans for index-array gathers and scatters (PARTI style, seed 001 §1):
//
//   hpf::GatherPlan<T, N>   y(i) = x(idx(i))                   duplicates and any order allowed
//   hpf::ScatterPlan<T, N>  x(idx(i)) = op(x(idx(i)), y(i))    op associative (default +)
//
// x is a DistArray<T, N>; idx and y are per-rank: each rank of the grid's parent communicator
// passes its own list of global indices (possibly empty, ranks outside the grid included) and gets
// (or gives) one value per index. The inspector (the constructor) runs once:
//   1. every index is checked (an out-of-range index throws hpf::Error on every rank, naming the
//      first bad index, its position and the rank that holds it);
//   2. indices are grouped by owner and deduplicated: each distinct element crosses the network
//      once per requesting rank, however often it is requested;
//   3. COM is assembled with one collective (assemble_com, irregular/com.hpp): every rank learns
//      who will ask it for how much without a second user call;
//   4. the lists of requested local offsets go to their owners (one exchange, S2);
//   5. every rank computes the same all-to-many schedule (schedule/all_to_many.hpp) locally.
// The executor (execute) then only packs, runs the shared exec/ executor (S1 = Handshake or
// S2 = AllAtOnce, or MPI_Alltoallv) and unpacks, as often as needed. Plans are immutable and cheap
// to copy (the inspected pattern is shared).
//
// Scatter order: for a non-commutative op the result is x combined with the contributions in
// ascending (rank, position) order; contributions of one rank to one element are pre-combined
// before sending (associativity makes that equal). The order does not depend on the schedule, so
// floating-point results are reproducible across algorithms and executors.
#pragma once

#include <hpf/array/dist_array.hpp>
#include <hpf/irregular/com.hpp>

#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace hpf {

/// How an irregular plan schedules and runs its exchange.
struct IrregularOptions {
  AllToManyOptions schedule{};  ///< algorithm (default RS_N), routing model for RS_NL, seed
  std::optional<ExecMode> mode; ///< executor; default paper_exec_mode(schedule.algo)
  int tag = 2101;               ///< message tag (Handshake also uses tag + 1)
};

namespace detail {

/// The inspected pattern, independent of the element type. Vectors indexed by a rank hold one
/// entry per rank of the parent communicator.
struct IrregularPattern {
  Comm comm;
  int rank = 0;
  int size = 0;
  std::size_t num_positions = 0;
  /// [owner] distinct local offsets (in the owner's local block) this rank needs, ascending.
  std::vector<std::vector<index_t>> requested;
  /// [owner] (position in idx, slot in requested[owner]), by ascending position.
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> fill;
  /// [requester] local offsets of this rank's block that the requester needs, in its slot order.
  std::vector<std::vector<index_t>> served;
  CommMatrix com;    ///< requester -> owner, number of distinct elements (no diagonal)
  Schedule schedule; ///< on com (scatter) or its transpose (gather)
  ExecMode mode = ExecMode::AllAtOnce;
  int tag = 2101;
};

enum class IrregularDirection { Gather, Scatter };

/// Collective over `comm`: steps 3-5 of the header comment. owner_rank[i] / offset[i] locate the
/// element of position i (already checked).
std::shared_ptr<const IrregularPattern> build_irregular_pattern(const Comm& comm,
                                                                const std::vector<int>& owner_rank,
                                                                const std::vector<index_t>& offset,
                                                                const IrregularOptions& opt,
                                                                IrregularDirection dir);

/// Steps 1-2 for a DistArray layout: owner ranks and local offsets of `indices`, or an error on
/// every rank.
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

template <class T, int N>
void check_same_layout(const Layout<N>& planned, const DistArray<T, N>& x, const char* who) {
  require(x.layout() == planned, who, ": DistArray '", x.label(), "' has layout ",
          x.layout().describe_dists(), " extents ", Layout<N>::to_string(x.layout().extents()),
          " on another grid or distribution than the plan was built for (", planned.describe_dists(),
          " extents ", Layout<N>::to_string(planned.extents()), ")");
}

} // namespace detail

/// y(i) = x(idx(i)) for a per-rank list of global indices: an inspector/executor plan.
template <class T, int N> class GatherPlan {
  static_assert(std::is_trivially_copyable_v<T>, "hpf::GatherPlan<T, N>: T must be trivially copyable");

public:
  /// Collective over x's grid's parent communicator (the inspector; see the header comment).
  /// Only x's layout is used: the plan serves any array of that layout.
  GatherPlan(const DistArray<T, N>& x, std::span<const Index<N>> indices, const IrregularOptions& opt = {})
      : m_layout(x.layout()) {
    std::vector<int> owner;
    std::vector<index_t> offset;
    detail::locate_indices<N>(m_layout, indices, "GatherPlan", owner, offset);
    m_pattern = detail::build_irregular_pattern(m_layout.grid().comm(), owner, offset, opt,
                                                detail::IrregularDirection::Gather);
    m_xplan = all_to_many_exchange_plan(m_pattern->schedule, m_pattern->rank, sizeof(T));
  }
  /// 1-D arrays: plain global indices.
  GatherPlan(const DistArray<T, N>& x, std::span<const index_t> indices,
             const IrregularOptions& opt = {}) requires(N == 1)
      : GatherPlan(x, std::span<const Index<1>>(detail::as_indices<1>(indices)), opt) {}
  /// HPF form: the calling rank's part of a distributed index array.
  GatherPlan(const DistArray<T, N>& x, const DistArray<index_t, 1>& idx,
             const IrregularOptions& opt = {}) requires(N == 1)
      : GatherPlan(x, std::span<const index_t>(idx.local_data(), static_cast<std::size_t>(idx.local_size())),
                   opt) {}

  /// Collective over x's grid's parent communicator: y[i] = x(idx[i]) for this rank's indices.
  /// Throws hpf::Error (on the calling rank) if x's layout differs from the plan's or y.size() differs.
  void execute(const DistArray<T, N>& x, std::span<T> y) const {
    detail::check_same_layout(m_layout, x, "GatherPlan::execute");
    const detail::IrregularPattern& P = *m_pattern;
    detail::require(y.size() == P.num_positions, "GatherPlan::execute: y holds ", y.size(),
                    " elements; expected one per index, ", P.num_positions);
    const T* xl = x.local_data();
    const auto me = static_cast<std::size_t>(P.rank);
    for (const auto& [pos, slot] : P.fill[me]) y[pos] = xl[P.requested[me][slot]];
    Exchange ex(P.comm, m_xplan, P.mode, P.tag);
    ex.execute(
        [&](std::size_t i, std::byte* buf) {
          const auto& offs = P.served[static_cast<std::size_t>(m_xplan.sends[i].peer)];
          for (std::size_t j = 0; j < offs.size(); ++j)
            std::memcpy(buf + j * sizeof(T), xl + offs[j], sizeof(T));
        },
        [&](std::size_t i, const std::byte* buf) {
          for (const auto& [pos, slot] : P.fill[static_cast<std::size_t>(m_xplan.recvs[i].peer)])
            std::memcpy(&y[pos], buf + slot * sizeof(T), sizeof(T));
        });
  }
  /// Same, returning y.
  [[nodiscard]] std::vector<T> execute(const DistArray<T, N>& x) const {
    std::vector<T> y(m_pattern->num_positions);
    execute(x, std::span<T>(y));
    return y;
  }
  /// Same, into the calling rank's part of a distributed y (HPF form).
  void execute(const DistArray<T, N>& x, DistArray<T, 1>& y) const requires(N == 1) {
    execute(x, std::span<T>(y.local_data(), static_cast<std::size_t>(y.local_size())));
  }

  /// Number of indices of the calling rank.
  [[nodiscard]] std::size_t size() const noexcept { return m_pattern->num_positions; }
  /// Element counts requester -> owner (the same on every rank).
  [[nodiscard]] const CommMatrix& com() const noexcept { return m_pattern->com; }
  /// The data schedule: owner -> requester (the transpose of com()).
  [[nodiscard]] const Schedule& schedule() const noexcept { return m_pattern->schedule; }
  [[nodiscard]] ExecMode mode() const noexcept { return m_pattern->mode; }

private:
  Layout<N> m_layout;
  std::shared_ptr<const detail::IrregularPattern> m_pattern;
  ExchangePlan m_xplan;
};

/// x(idx(i)) = op(x(idx(i)), y(i)) for a per-rank list of global indices and an associative op.
template <class T, int N> class ScatterPlan {
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "hpf::ScatterPlan<T, N>: T must be trivially copyable and default constructible");

public:
  /// Collective over x's grid's parent communicator (the inspector; see the header comment).
  ScatterPlan(const DistArray<T, N>& x, std::span<const Index<N>> indices, const IrregularOptions& opt = {})
      : m_layout(x.layout()) {
    std::vector<int> owner;
    std::vector<index_t> offset;
    detail::locate_indices<N>(m_layout, indices, "ScatterPlan", owner, offset);
    m_pattern = detail::build_irregular_pattern(m_layout.grid().comm(), owner, offset, opt,
                                                detail::IrregularDirection::Scatter);
    m_xplan = all_to_many_exchange_plan(m_pattern->schedule, m_pattern->rank, sizeof(T));
  }
  ScatterPlan(const DistArray<T, N>& x, std::span<const index_t> indices,
              const IrregularOptions& opt = {}) requires(N == 1)
      : ScatterPlan(x, std::span<const Index<1>>(detail::as_indices<1>(indices)), opt) {}
  ScatterPlan(const DistArray<T, N>& x, const DistArray<index_t, 1>& idx,
              const IrregularOptions& opt = {}) requires(N == 1)
      : ScatterPlan(x, std::span<const index_t>(idx.local_data(), static_cast<std::size_t>(idx.local_size())),
                    opt) {}

  /// Collective over x's grid's parent communicator: x(idx[i]) = op(x(idx[i]), y[i]) for the indices
  /// of every rank, combined in ascending (rank, position) order.
  template <class Op = std::plus<>> void execute(DistArray<T, N>& x, std::span<const T> y, Op op = {}) const {
    detail::check_same_layout(m_layout, x, "ScatterPlan::execute");
    const detail::IrregularPattern& P = *m_pattern;
    detail::require(y.size() == P.num_positions, "ScatterPlan::execute: y holds ", y.size(),
                    " elements; expected one per index, ", P.num_positions);
    // Contributions of this rank to one element, pre-combined in position order.
    auto combine = [&](std::size_t owner, std::vector<T>& out) {
      out.resize(P.requested[owner].size());
      std::vector<char> seen(out.size(), 0);
      for (const auto& [pos, slot] : P.fill[owner]) {
        out[slot] = seen[slot] ? T(op(out[slot], y[pos])) : y[pos];
        seen[slot] = 1;
      }
    };
    std::vector<std::vector<T>> incoming(static_cast<std::size_t>(P.size));
    std::vector<T> tmp;
    Exchange ex(P.comm, m_xplan, P.mode, P.tag);
    ex.execute(
        [&](std::size_t i, std::byte* buf) {
          combine(static_cast<std::size_t>(m_xplan.sends[i].peer), tmp);
          if (!tmp.empty()) std::memcpy(buf, tmp.data(), tmp.size() * sizeof(T));
        },
        [&](std::size_t i, const std::byte* buf) {
          const auto r = static_cast<std::size_t>(m_xplan.recvs[i].peer);
          incoming[r].resize(P.served[r].size());
          if (!incoming[r].empty()) std::memcpy(incoming[r].data(), buf, incoming[r].size() * sizeof(T));
        });
    T* xl = x.local_data();
    const auto me = static_cast<std::size_t>(P.rank);
    combine(me, incoming[me]);
    // Ascending rank order, as documented: for a non-commutative op the last contributor wins.
    for (std::size_t r = 0; r < incoming.size(); ++r) {
      const std::vector<index_t>& offs = r == me ? P.requested[me] : P.served[r];
      for (std::size_t j = 0; j < incoming[r].size(); ++j) xl[offs[j]] = op(xl[offs[j]], incoming[r][j]);
    }
  }

  [[nodiscard]] std::size_t size() const noexcept { return m_pattern->num_positions; }
  [[nodiscard]] const CommMatrix& com() const noexcept { return m_pattern->com; }
  /// The data schedule: requester -> owner (on com()).
  [[nodiscard]] const Schedule& schedule() const noexcept { return m_pattern->schedule; }
  [[nodiscard]] ExecMode mode() const noexcept { return m_pattern->mode; }

private:
  Layout<N> m_layout;
  std::shared_ptr<const detail::IrregularPattern> m_pattern;
  ExchangePlan m_xplan;
};

} // namespace hpf
