// Inspector/executor plans for index-array gathers and scatters (PARTI style; Wang and Ranka, Sec. 1),
// the layout-free half. The DistArray faces hpf::GatherPlan<T, N> / hpf::ScatterPlan<T, N> are in
// array/irregular.hpp; they locate each global index (owner rank, local offset) and hand it here:
//
//   hpf::IrregularPlan<T, Gather>   y(i) = local_of(owner(i))[offset(i)]   duplicates, any order
//   hpf::IrregularPlan<T, Scatter>  local_of(owner(i))[offset(i)] = op(..., y(i))   op associative
//
// Each rank of a communicator passes its own list of (owner rank, local offset) pairs (possibly
// empty) and gets (or gives) one value per pair. The inspector (the constructor) runs once:
//   1. (the caller) every index is located and checked; an out-of-range index throws hpf::Error on
//      every rank (detail::agree_on_error), naming the first bad index, its position and its rank;
//   2. pairs are grouped by owner and deduplicated: each distinct element crosses the network
//      once per requesting rank, however often it is requested;
//   3. COM is assembled with one collective (assemble_com, irregular/com.hpp): every rank learns
//      who will ask it for how much without a second user call;
//   4. the lists of requested local offsets go to their owners (one exchange, S2);
//   5. every rank computes the same all-to-many schedule (schedule/all_to_many.hpp) locally.
// The executor then only packs, runs the shared exec/ executor (S1 = Handshake or S2 = AllAtOnce, or
// MPI_Alltoallv) and unpacks, as often as needed. Plans are immutable and cheap to copy (the
// inspected pattern is shared).
//
// Scatter order: for a non-commutative op the result is x combined with the contributions in
// ascending (rank, position) order; contributions of one rank to one element are pre-combined
// before sending (associativity makes that equal). The order does not depend on the schedule, so
// floating-point results are reproducible across algorithms and executors.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/core/tags.hpp>
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
  AllToManyOptions schedule{};        ///< algorithm (default RS_N), routing model for RS_NL, seed
  std::optional<ExecMode> mode;       ///< executor; default paper_exec_mode(schedule.algo)
  int tag = tags::irregular.base + 1; ///< message tag (Handshake also uses tag + 1, the inspector tag + 2)
};

/// Which way data moves: Gather brings requested elements to the requester, Scatter takes
/// contributions to the owners.
enum class IrregularDirection { Gather, Scatter };

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
  int tag = tags::irregular.base + 1;
};

/// Collective over `comm`: steps 3-5 of the header comment. owner_rank[i] / offset[i] locate the
/// element of position i (already checked).
std::shared_ptr<const IrregularPattern> build_irregular_pattern(const Comm& comm,
                                                                const std::vector<int>& owner_rank,
                                                                const std::vector<index_t>& offset,
                                                                const IrregularOptions& opt,
                                                                IrregularDirection dir);

} // namespace detail

/// The layout-free irregular plan on elements of T (see the header comment): the inspected pattern
/// and the calling rank's part of the exchange. Local blocks are given as pointers, in the storage
/// order that the offsets index.
template <class T, IrregularDirection Dir> class IrregularPlan {
  static_assert(std::is_trivially_copyable_v<T>, "hpf::IrregularPlan<T, Dir>: T must be trivially copyable");

public:
  /// Collective over `comm` (the inspector, steps 2-5): owner_rank[i] / offset[i] locate the element
  /// of position i in the local block of rank owner_rank[i] (already checked, step 1).
  IrregularPlan(const Comm& comm, const std::vector<int>& owner_rank, const std::vector<index_t>& offset,
                const IrregularOptions& opt)
      : m_pattern(detail::build_irregular_pattern(comm, owner_rank, offset, opt, Dir)),
        m_xplan(all_to_many_exchange_plan(m_pattern->schedule, m_pattern->rank, sizeof(T))) {}

  /// Collective over the plan's communicator: y[i] = element i of the calling rank's list, read from
  /// the owners' local blocks (`local` is the calling rank's block).
  void gather(const T* local, std::span<T> y) const requires(Dir == IrregularDirection::Gather) {
    const detail::IrregularPattern& P = *m_pattern;
    detail::require(y.size() == P.num_positions, "GatherPlan::execute: y holds ", y.size(),
                    " elements; expected one per index, ", P.num_positions);
    const auto me = static_cast<std::size_t>(P.rank);
    for (const auto& [pos, slot] : P.fill[me]) y[pos] = local[P.requested[me][slot]];
    exchange().execute(
        [&](std::size_t i, std::byte* buf) {
          const auto& offs = P.served[static_cast<std::size_t>(m_xplan.sends[i].peer)];
          for (std::size_t j = 0; j < offs.size(); ++j)
            std::memcpy(buf + j * sizeof(T), local + offs[j], sizeof(T));
        },
        [&](std::size_t i, const std::byte* buf) {
          for (const auto& [pos, slot] : P.fill[static_cast<std::size_t>(m_xplan.recvs[i].peer)])
            std::memcpy(&y[pos], buf + slot * sizeof(T), sizeof(T));
        });
  }

  /// Collective over the plan's communicator: element i of every rank's list = op(element, y[i]) in
  /// the owners' local blocks (`local` is the calling rank's block), in ascending (rank, position)
  /// order.
  template <class Op> void scatter(T* local, std::span<const T> y, Op op) const
      requires(Dir == IrregularDirection::Scatter) {
    static_assert(std::is_default_constructible_v<T>,
                  "hpf::IrregularPlan::scatter: T must be default constructible");
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
    exchange().execute(
        [&](std::size_t i, std::byte* buf) {
          combine(static_cast<std::size_t>(m_xplan.sends[i].peer), tmp);
          if (!tmp.empty()) std::memcpy(buf, tmp.data(), tmp.size() * sizeof(T));
        },
        [&](std::size_t i, const std::byte* buf) {
          const auto r = static_cast<std::size_t>(m_xplan.recvs[i].peer);
          incoming[r].resize(P.served[r].size());
          if (!incoming[r].empty()) std::memcpy(incoming[r].data(), buf, incoming[r].size() * sizeof(T));
        });
    const auto me = static_cast<std::size_t>(P.rank);
    combine(me, incoming[me]);
    // Ascending rank order, as documented: for a non-commutative op the last contributor wins.
    for (std::size_t r = 0; r < incoming.size(); ++r) {
      const std::vector<index_t>& offs = r == me ? P.requested[me] : P.served[r];
      for (std::size_t j = 0; j < incoming[r].size(); ++j)
        local[offs[j]] = op(local[offs[j]], incoming[r][j]);
    }
  }

  /// Number of positions of the calling rank.
  [[nodiscard]] std::size_t size() const noexcept { return m_pattern->num_positions; }
  /// Element counts requester -> owner (the same on every rank).
  [[nodiscard]] const CommMatrix& com() const noexcept { return m_pattern->com; }
  /// The data schedule: owner -> requester for a gather (the transpose of com()), requester -> owner
  /// for a scatter (on com()).
  [[nodiscard]] const Schedule& schedule() const noexcept { return m_pattern->schedule; }
  /// The executor mode: IrregularOptions::mode, or the default of its schedule algorithm.
  [[nodiscard]] ExecMode mode() const noexcept { return m_pattern->mode; }

private:
  // The plan's executor, built on first use and reused by every execution (its buffers and persistent
  // requests with it), as every other engine keeps its own; shared by copies of the plan, which run
  // one at a time like the plan itself.
  Exchange& exchange() const {
    if (!m_exchange) {
      const detail::IrregularPattern& P = *m_pattern;
      m_exchange = std::make_shared<Exchange>(P.comm, m_xplan, P.mode, P.tag);
    }
    return *m_exchange;
  }

  std::shared_ptr<const detail::IrregularPattern> m_pattern;
  ExchangePlan m_xplan;
  mutable std::shared_ptr<Exchange> m_exchange;
};

} // namespace hpf
