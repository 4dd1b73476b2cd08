// hpf::RedistributionPlan<N>: HPF REDISTRIBUTE of an N-d array from one Layout to another, planned
// once and executed many times.
//
// Each dimension is an independent 1-D problem CYCLIC(r) on P -> CYCLIC(s) on Q (a collapsed dimension
// is CYCLIC(n) on one process): its communication grid comes from the closed forms of seed 004 and its
// schedule from the chosen Strategy. A message of the N-d problem is the tuple of one message per
// dimension, and the product of the 1-D schedules is a schedule of the N-d problem (DESIGN.md): the
// N-d step (k_0, ..., k_{N-1}) holds the products of the messages of steps k_d, and every grid position
// still sends and receives at most once per step. Data moves by runs of the fastest dimension.
//
// Plans are computed locally on every rank from the two layouts (no handshake, STYLE.md). Source and
// target grids may be identical, overlap or be disjoint, with P != Q; they must share a parent
// communicator. Ranks in neither grid take part in execute() but move nothing.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/exec/network_model.hpp>
#include <hpf/layout/layout.hpp>
#include <hpf/redist/pattern.hpp>
#include <hpf/redist/runs.hpp>
#include <hpf/schedule/strategy.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

namespace hpf {

struct RedistOptions {
  /// How messages are ordered and run. Auto picks the schedule of least alpha*steps + beta*TC.
  Strategy strategy = Strategy::Auto;
  /// Cost model for Auto (seconds per step, seconds per byte); measured once per communicator
  /// (collectively) when not given.
  std::optional<double> alpha;
  std::optional<double> beta;
  /// Bytes per element, for the cost model (DistArray sets it to sizeof(T)).
  std::size_t element_bytes = 8;
  /// Message tag; plans in flight at the same time on one grid need distinct tags.
  int tag = 3001;

  friend bool operator==(const RedistOptions&, const RedistOptions&) = default;
};

namespace detail {

/// Per-dimension plan: the 1-D maps, communication grid and schedule.
struct DimPlan {
  CyclicMap src;
  CyclicMap dst;
  CommMatrix grid;
  Schedule schedule;
};

/// Calls fn(src_offset, dst_offset, len) for every run of the N-d message whose per-dimension runs are
/// `runs`, in the message's buffer order (dimension 0 fastest). Offsets are into the local blocks with
/// Fortran strides `ss` (source) and `ds` (target).
template <int N, class Fn> void for_each_piece(const std::array<const std::vector<Run>*, N>& runs,
                                               const Index<N>& ss, const Index<N>& ds, Fn&& fn) {
  std::array<std::vector<std::pair<index_t, index_t>>, N> el; // dims >= 1, element by element
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
    if (runs[d]->empty()) return;
    if (d == 0) continue;
    for (const Run& r : *runs[d])
      for (index_t t = 0; t < r.len; ++t) el[d].emplace_back(r.src_local + t, r.dst_local + t);
  }
  std::array<std::size_t, N> idx{};
  while (true) {
    index_t so = 0;
    index_t dof = 0;
    for (std::size_t d = 1; d < static_cast<std::size_t>(N); ++d) {
      so += el[d][idx[d]].first * ss[d];
      dof += el[d][idx[d]].second * ds[d];
    }
    for (const Run& r : *runs[0]) fn(so + r.src_local, dof + r.dst_local, r.len);
    std::size_t d = 1;
    for (; d < static_cast<std::size_t>(N); ++d) {
      if (++idx[d] < el[d].size()) break;
      idx[d] = 0;
    }
    if (d >= static_cast<std::size_t>(N)) return;
  }
}

ExecMode exec_mode_of(Strategy s);

} // namespace detail

template <int N> class RedistributionPlan {
public:
  /// Plans the move of an array from `src` to `dst` (same extents). Not collective, except when
  /// Strategy::Auto has no alpha/beta: then the first plan on a communicator measures them
  /// collectively over the parent communicator. Throws hpf::Error (on every rank) for different
  /// extents, grids on different parent communicators, or a strategy that does not apply.
  RedistributionPlan(const Layout<N>& src, const Layout<N>& dst, RedistOptions opt = {})
      : m_src(src), m_dst(dst), m_opt(opt) {
    detail::require(src.extents() == dst.extents(), "RedistributionPlan: source extents ",
                    Layout<N>::to_string(src.extents()), " differ from target extents ",
                    Layout<N>::to_string(dst.extents()));
    int cmp = MPI_UNEQUAL;
    HPF_MPI_CHECK(MPI_Comm_compare(src.grid().comm().get(), dst.grid().comm().get(), &cmp));
    detail::require(cmp == MPI_IDENT || cmp == MPI_CONGRUENT,
                    "RedistributionPlan: the source and target grids must share a parent communicator");
    ScheduleOptions so;
    if (opt.strategy == Strategy::Auto && !(opt.alpha && opt.beta)) {
      const NetworkModel net = measure_network(src.grid().comm());
      so.alpha = opt.alpha.value_or(net.alpha);
      so.beta = opt.beta.value_or(net.beta) * static_cast<double>(opt.element_bytes);
    } else {
      so.alpha = opt.alpha.value_or(so.alpha);
      so.beta = opt.beta.value_or(so.beta / 8.0) * static_cast<double>(opt.element_bytes);
    }
    for (int d = 0; d < N; ++d) {
      auto& dp = m_dims[static_cast<std::size_t>(d)];
      dp.src = src.map(d);
      dp.dst = dst.map(d);
      dp.grid = block_cyclic_pattern(dp.src.P, dp.src.r, dp.dst.P, dp.dst.r, dp.src.n);
      ScheduleOptions sod = so;
      sod.params = BlockCyclicParams{dp.src.P, dp.src.r, dp.dst.P, dp.dst.r, dp.src.n};
      dp.schedule = make_schedule(dp.grid, opt.strategy, sod);
    }
    plan_my_part();
  }

  [[nodiscard]] const Layout<N>& source() const noexcept { return m_src; }
  [[nodiscard]] const Layout<N>& target() const noexcept { return m_dst; }
  [[nodiscard]] const RedistOptions& options() const noexcept { return m_opt; }
  /// The 1-D communication grid and schedule of dimension d (lengths in elements).
  [[nodiscard]] const CommMatrix& dim_grid(int d) const {
    return m_dims.at(static_cast<std::size_t>(d)).grid;
  }
  [[nodiscard]] const Schedule& dim_schedule(int d) const {
    return m_dims.at(static_cast<std::size_t>(d)).schedule;
  }

  /// The N-d schedule over (source grid position, target grid position), lengths in elements: the
  /// product of the per-dimension schedules. Built on first use.
  [[nodiscard]] const Schedule& schedule() const {
    if (!m_product) m_product = std::make_shared<const Schedule>(build_product());
    return *m_product;
  }

  /// Elements this rank sends to / receives from other ranks, and copies locally.
  [[nodiscard]] index_t send_elements() const noexcept { return m_send_elems; }
  [[nodiscard]] index_t recv_elements() const noexcept { return m_recv_elems; }
  [[nodiscard]] index_t local_copy_elements() const noexcept { return m_self_elems; }

  /// Collective over the parent communicator (every rank calls it; ranks in neither grid move
  /// nothing): moves the local block `src` (laid out by source()) into `dst` (laid out by target()).
  /// `src` and `dst` must not overlap.
  template <class T> void execute(const T* src, T* dst) const {
    post(src, dst);
    wait();
  }

  /// Collective over the parent communicator: moves array `src` (laid out by source()) into array
  /// `dst` (laid out by target()), e.g. two hpf::DistArray. Throws hpf::Error on a layout mismatch.
  template <class SrcArray, class DstArray>
  requires requires(const SrcArray& a, DstArray& b) {
    a.local_data();
    b.local_data();
    a.layout();
    b.layout();
  }
  void execute(const SrcArray& src, DstArray& dst) const {
    detail::require(src.layout() == m_src, "RedistributionPlan::execute: the source array's layout ",
                    src.layout().describe_dists(), " is not the plan's source layout ",
                    m_src.describe_dists());
    detail::require(dst.layout() == m_dst, "RedistributionPlan::execute: the target array's layout ",
                    dst.layout().describe_dists(), " is not the plan's target layout ",
                    m_dst.describe_dists());
    execute(static_cast<const typename SrcArray::value_type*>(src.local_data()), dst.local_data());
  }

  /// Split phase: starts the exchange (sends for all-at-once modes; the first step otherwise) and
  /// copies the locally kept part. wait() completes it.
  template <class T> void post(const T* src, T* dst) const {
    static_assert(std::is_trivially_copyable_v<T>);
    Exchange& ex = exchange_for(sizeof(T));
    copy_local(src, dst);
    ex.post(
        [this, src](std::size_t i, std::byte* buf) {
          T* out = reinterpret_cast<T*>(buf);
          for_message(m_sends[i], true, [&](index_t so, index_t, index_t len) {
            std::memcpy(out, src + so, static_cast<std::size_t>(len) * sizeof(T));
            out += len;
          });
        },
        [this, dst](std::size_t i, const std::byte* buf) {
          const T* in = reinterpret_cast<const T*>(buf);
          for_message(m_recvs[i], false, [&](index_t, index_t dof, index_t len) {
            std::memcpy(dst + dof, in, static_cast<std::size_t>(len) * sizeof(T));
            in += len;
          });
        });
    m_in_flight = &ex;
  }

  void wait() const {
    detail::require(m_in_flight != nullptr, "RedistributionPlan::wait: nothing was posted");
    Exchange* ex = m_in_flight;
    m_in_flight = nullptr;
    ex->wait();
  }

private:
  /// One message of this rank: the peer's grid position and per-dimension coordinates.
  struct Msg {
    int peer_pos = 0;
    std::array<int, N> coords{}; // the peer's per-dimension process coordinate
    int step = 0;
    index_t len = 0;
  };

  // Per-dimension process coordinate of a grid position (0 for a collapsed dimension).
  static std::array<int, N> dim_coords(const Layout<N>& L, int pos) {
    const std::vector<int> c = L.grid().coords_of(pos);
    std::array<int, N> out{};
    for (int d = 0; d < N; ++d) out[static_cast<std::size_t>(d)] = L.coord(c, d);
    return out;
  }

  static int position_of(const Layout<N>& L, const std::array<int, N>& dc) {
    std::vector<int> c(static_cast<std::size_t>(L.grid().ndims()), 0);
    for (int d = 0; d < N; ++d)
      if (L.grid_dim(d) >= 0) c[static_cast<std::size_t>(L.grid_dim(d))] = dc[static_cast<std::size_t>(d)];
    return L.grid().position_of(c);
  }

  /// Mixed-radix N-d step index of per-dimension steps.
  [[nodiscard]] int product_step(const std::array<int, N>& k) const {
    int step = 0;
    for (int d = N; d-- > 0;)
      step = step * m_dims[static_cast<std::size_t>(d)].schedule.num_steps() + k[static_cast<std::size_t>(d)];
    return step;
  }

  /// Enumerates the products of per-dimension (step, partner, len) lists.
  template <class Fn>
  static void for_each_product(const std::array<std::vector<std::pair<int, Message>>, N>& lists, Fn&& fn) {
    for (const auto& l : lists)
      if (l.empty()) return;
    std::array<std::size_t, N> idx{};
    while (true) {
      fn(idx);
      std::size_t d = 0;
      for (; d < static_cast<std::size_t>(N); ++d) {
        if (++idx[d] < lists[d].size()) break;
        idx[d] = 0;
      }
      if (d == static_cast<std::size_t>(N)) return;
    }
  }

  void plan_my_part() {
    const ProcessGrid& sg = m_src.grid();
    const ProcessGrid& tg = m_dst.grid();
    const int me = sg.parent_rank();
    const int sp = sg.position_of_rank(me);
    const int tp = tg.position_of_rank(me);
    if (sp >= 0) {
      m_my_src = dim_coords(m_src, sp);
      m_src_strides = fortran_strides<N>(m_src.local_extents(sp));
      for (int d = 0; d < N; ++d) {
        const auto& dp = m_dims[static_cast<std::size_t>(d)];
        m_runs_from[static_cast<std::size_t>(d)] =
            runs_from(dp.src, dp.dst, m_my_src[static_cast<std::size_t>(d)]);
      }
    }
    if (tp >= 0) {
      m_my_dst = dim_coords(m_dst, tp);
      m_dst_strides = fortran_strides<N>(m_dst.local_extents(tp));
      for (int d = 0; d < N; ++d) {
        const auto& dp = m_dims[static_cast<std::size_t>(d)];
        m_runs_to[static_cast<std::size_t>(d)] =
            runs_to(dp.src, dp.dst, m_my_dst[static_cast<std::size_t>(d)]);
      }
    }
    auto collect = [&](bool sending) {
      std::array<std::vector<std::pair<int, Message>>, N> lists;
      for (int d = 0; d < N; ++d) {
        const auto du = static_cast<std::size_t>(d);
        auto all = sending ? m_dims[du].schedule.sends_of(m_my_src[du])
                           : m_dims[du].schedule.receives_of(m_my_dst[du]);
        for (const auto& e : all)
          if (e.second.len > 0) lists[du].push_back(e);
      }
      std::vector<Msg> out;
      for_each_product(lists, [&](const std::array<std::size_t, N>& idx) {
        Msg m;
        std::array<int, N> k{};
        m.len = 1;
        for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
          const auto& [step, msg] = lists[d][idx[d]];
          k[d] = step;
          m.coords[d] = sending ? msg.dst : msg.src;
          m.len *= msg.len;
        }
        m.step = product_step(k);
        m.peer_pos = position_of(sending ? m_dst : m_src, m.coords);
        out.push_back(m);
      });
      std::sort(out.begin(), out.end(), [](const Msg& a, const Msg& b) { return a.step < b.step; });
      return out;
    };
    if (sp >= 0) {
      for (const Msg& m : collect(true)) {
        if (tg.rank_at(m.peer_pos) == me) {
          m_self = m;
          m_self_elems = m.len;
          continue;
        }
        m_sends.push_back(m);
        m_send_elems += m.len;
      }
    }
    if (tp >= 0) {
      for (const Msg& m : collect(false)) {
        if (sg.rank_at(m.peer_pos) == me) continue; // the local copy, found on the sending side
        m_recvs.push_back(m);
        m_recv_elems += m.len;
      }
    }
  }

  /// Runs of a message this rank sends (sending) or receives, in buffer order.
  template <class Fn> void for_message(const Msg& m, bool sending, Fn&& fn) const {
    std::array<const std::vector<Run>*, N> runs{};
    for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
      runs[d] = sending ? &m_runs_from[d][static_cast<std::size_t>(m.coords[d])]
                        : &m_runs_to[d][static_cast<std::size_t>(m.coords[d])];
    detail::for_each_piece<N>(runs, m_src_strides, m_dst_strides, fn);
  }

  template <class T> void copy_local(const T* src, T* dst) const {
    if (!m_self) return;
    std::array<const std::vector<Run>*, N> runs{};
    for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
      runs[d] = &m_runs_from[d][static_cast<std::size_t>(m_my_dst[d])];
    detail::for_each_piece<N>(runs, m_src_strides, m_dst_strides, [&](index_t so, index_t dof, index_t len) {
      std::memcpy(dst + dof, src + so, static_cast<std::size_t>(len) * sizeof(T));
    });
  }

  Exchange& exchange_for(std::size_t elem_bytes) const {
    auto it = m_exchanges.find(elem_bytes);
    if (it != m_exchanges.end()) return *it->second;
    ExchangePlan xp;
    for (const Msg& m : m_sends)
      xp.sends.push_back(
          {m_dst.grid().rank_at(m.peer_pos), static_cast<std::size_t>(m.len) * elem_bytes, m.step});
    for (const Msg& m : m_recvs)
      xp.recvs.push_back(
          {m_src.grid().rank_at(m.peer_pos), static_cast<std::size_t>(m.len) * elem_bytes, m.step});
    auto ex = std::make_unique<Exchange>(m_src.grid().comm(), std::move(xp),
                                         detail::exec_mode_of(m_opt.strategy), m_opt.tag);
    return *m_exchanges.emplace(elem_bytes, std::move(ex)).first->second;
  }

  [[nodiscard]] Schedule build_product() const {
    int steps = 1;
    for (const auto& dp : m_dims) steps *= dp.schedule.num_steps();
    std::vector<Step> out(static_cast<std::size_t>(steps));
    std::array<int, N> k{};
    for (int s = 0; s < static_cast<int>(out.size()); ++s) {
      int rest = s;
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
        k[d] = rest % m_dims[d].schedule.num_steps();
        rest /= m_dims[d].schedule.num_steps();
      }
      std::array<std::vector<std::pair<int, Message>>, N> lists;
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
        for (const Message& m : m_dims[d].schedule.steps()[static_cast<std::size_t>(k[d])].messages)
          lists[d].emplace_back(k[d], m);
      for_each_product(lists, [&](const std::array<std::size_t, N>& idx) {
        std::array<int, N> sc{};
        std::array<int, N> tc{};
        index_t len = 1;
        for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
          const Message& m = lists[d][idx[d]].second;
          sc[d] = m.src;
          tc[d] = m.dst;
          len *= m.len;
        }
        out[static_cast<std::size_t>(s)].messages.push_back(
            {position_of(m_src, sc), position_of(m_dst, tc), len});
      });
    }
    return Schedule(m_src.grid().size(), m_dst.grid().size(), std::move(out));
  }

  Layout<N> m_src;
  Layout<N> m_dst;
  RedistOptions m_opt;
  std::array<detail::DimPlan, N> m_dims;
  std::array<int, N> m_my_src{};
  std::array<int, N> m_my_dst{};
  Index<N> m_src_strides{};
  Index<N> m_dst_strides{};
  std::array<std::vector<std::vector<Run>>, N> m_runs_from;
  std::array<std::vector<std::vector<Run>>, N> m_runs_to;
  std::vector<Msg> m_sends;
  std::vector<Msg> m_recvs;
  std::optional<Msg> m_self;
  index_t m_send_elems = 0;
  index_t m_recv_elems = 0;
  index_t m_self_elems = 0;
  mutable std::map<std::size_t, std::unique_ptr<Exchange>> m_exchanges;
  mutable Exchange* m_in_flight = nullptr;
  mutable std::shared_ptr<const Schedule> m_product;
};

} // namespace hpf
