// MPI executor of the steady-state pipeline of Legrand, Marchal and Robert; see
// include/hpf/steady/executor.hpp.
#include <hpf/core/error.hpp>
#include <hpf/core/tags.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/steady/executor.hpp>

#include <cstring>
#include <deque>
#include <memory>
#include <tuple>

namespace hpf::steady {

int leaf_source(const PipelinePlan& plan, int tree, int task, int which) {
  const TreeTask& t = plan.trees.at(static_cast<std::size_t>(tree)).tasks.at(static_cast<std::size_t>(task));
  if (plan.op != SteadyOp::Reduce) return t.type;
  if (t.kind == TreeTask::Send) return t.k; // v[k,k] sent from P_{r_k}
  return which == 0 ? t.k : t.m;            // v[k,k] (k = l) or v[m,m] (l + 1 = m)
}

namespace {

struct Value {
  std::int64_t stamp = 0;
  std::vector<std::byte> data;
};

// One message of the period's exchange: the flat indices (into moved[p]) of the transfers it carries.
struct Wire {
  std::vector<std::size_t> transfers;
};
// Its implicit move moves an Exchange, which throws only while a post() is pending (never when a
// PeriodExchange moves).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct PeriodExchange {
  std::vector<std::int64_t> moved; // the counts it was built for
  Exchange ex;
  std::vector<Wire> sends, recvs; // per ExchangePlan send / receive
};

class Runner {
public:
  Runner(const PipelinePlan& plan, Comm comm, std::size_t bytes, const PipelineCallbacks& cb,
         std::vector<int> node_rank)
      : m_plan(plan), m_comm(std::move(comm)), m_bytes(bytes), m_cb(cb), m_node_rank(std::move(node_rank)) {
    m_rank = m_comm.rank();
    const int size = m_comm.size();
    if (m_node_rank.empty())
      for (int v = 0; v < plan.node_count; ++v) m_node_rank.push_back(v % size);
    detail::require(static_cast<int>(m_node_rank.size()) == plan.node_count, "run_pipeline: node_rank has ",
                    m_node_rank.size(), " entries, expected one per platform node (", plan.node_count, ")");
    for (int r : m_node_rank)
      detail::require(r >= 0 && r < size, "run_pipeline: node_rank entries must be ranks in [0, ", size,
                      "), got ", r);
    detail::require(static_cast<bool>(cb.make) && static_cast<bool>(cb.deliver),
                    "run_pipeline: callbacks.make and callbacks.deliver are required");
    detail::require(plan.op != SteadyOp::Reduce || static_cast<bool>(cb.combine),
                    "run_pipeline: callbacks.combine is required for reduce");
    m_slots.resize(plan.trees.size());
    m_leaf.resize(plan.trees.size());
    for (std::size_t t = 0; t < plan.trees.size(); ++t) {
      m_slots[t].resize(plan.trees[t].tasks.size());
      m_leaf[t].assign(2 * plan.trees[t].tasks.size(), 0);
    }
  }

  /// `timed`: a barrier first and the maximum time over ranks after (two collectives).
  PipelineStats run(bool timed) {
    if (timed) HPF_MPI_CHECK(MPI_Barrier(m_comm.get()));
    const double t0 = MPI_Wtime();
    for (std::int64_t p = 0; p < m_plan.periods; ++p) {
      // This period's computations run while its matchings' messages are in flight (one between two
      // tests of the period's exchange); their results wait in m_pending until the period ends.
      m_work.clear();
      for (std::size_t c = 0; c < m_plan.computes.size(); ++c) {
        const auto t = static_cast<std::size_t>(m_plan.computes[c].first);
        const auto k = static_cast<std::size_t>(m_plan.computes[c].second);
        if (mine(m_plan.trees[t].tasks[k].node))
          m_work.insert(m_work.end(),
                        static_cast<std::size_t>(m_plan.computed[static_cast<std::size_t>(p)][c]), c);
      }
      m_next_work = 0;
      // The period's messages run through the one executor (Pipelined: every receive posted now,
      // each matching's sends packed once the earlier matchings are done); the computations run
      // between tests, so they overlap the transfers.
      Exchange& ex = exchange_for(p);
      ex.post([this, p](std::size_t i, std::byte* buf) { pack(p, m_ex->sends[i], buf); },
              [this, p](std::size_t i, const std::byte* buf) { unpack(p, m_ex->recvs[i], buf); });
      while (!ex.test()) {
        if (m_next_work == m_work.size()) {
          ex.wait();
          break;
        }
        compute_one();
      }
      while (m_next_work < m_work.size()) compute_one();
      for (auto& [t, k, v] : m_pending) produce(t, k, std::move(v));
      m_pending.clear();
    }
    double mine = MPI_Wtime() - t0, all = mine;
    if (timed) HPF_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, m_comm.get()));
    m_stats.seconds = all;
    return m_stats;
  }

private:
  [[nodiscard]] bool mine(int node) const { return rank_of(node) == m_rank; }
  [[nodiscard]] int task_node(const TreeTask& t) const { return t.kind == TreeTask::Send ? t.peer : t.node; }

  // Takes the next value of input `which` of task (t, k): from the producing task's buffer, or a
  // freshly made leaf carrying the tree's next time-stamp.
  Value take(std::size_t t, std::size_t k, int which) {
    const TreeTask& task = m_plan.trees[t].tasks[k];
    const int in = which == 0 ? task.input_a : task.input_b;
    if (in >= 0) {
      auto& q = m_slots[t][static_cast<std::size_t>(in)];
      detail::require(!q.empty(), "run_pipeline: buffer of tree ", t, " task ", in,
                      " is empty; this is a bug");
      Value v = std::move(q.front());
      q.pop_front();
      return v;
    }
    Value v;
    v.stamp = m_plan.stamp(static_cast<int>(t), m_leaf[t][2 * k + static_cast<std::size_t>(which)]++);
    v.data = fresh();
    m_cb.make(leaf_source(m_plan, static_cast<int>(t), static_cast<int>(k), which), v.stamp, v.data.data());
    return v;
  }

  void produce(std::size_t t, std::size_t k, Value v) {
    if (k == 0) {
      m_cb.deliver(m_plan.trees[t].group, v.stamp, v.data.data());
      ++m_stats.delivered_here;
      recycle(std::move(v.data));
    } else {
      m_slots[t][k].push_back(std::move(v));
    }
  }

  // The next computation of this period's work list.
  void compute_one() {
    const std::size_t c = m_work[m_next_work++];
    const auto t = static_cast<std::size_t>(m_plan.computes[c].first);
    const auto k = static_cast<std::size_t>(m_plan.computes[c].second);
    Value a = take(t, k, 0);
    Value b = take(t, k, 1);
    detail::require(a.stamp == b.stamp, "run_pipeline: operands of T(", m_plan.trees[t].tasks[k].k, ",",
                    m_plan.trees[t].tasks[k].l, ",", m_plan.trees[t].tasks[k].m, ") carry time-stamps ",
                    a.stamp, " and ", b.stamp, "; this is a bug");
    Value out;
    out.stamp = a.stamp;
    out.data = fresh();
    m_cb.combine(a.data.data(), b.data.data(), out.data.data());
    recycle(std::move(a.data));
    recycle(std::move(b.data));
    m_pending.emplace_back(t, k, std::move(out));
  }

  // The exchange of period p: built from the period's hpf::Schedule (one step per matching, one
  // message per platform edge) and reused while periods move the same counts (the steady state).
  // Messages are listed in schedule order on both ends, so that messages between one pair of ranks
  // in one step (a rank playing several nodes) match in order; a node's messages to a node of the
  // same rank go through the exchange too.
  Exchange& exchange_for(std::int64_t p) {
    const auto& moved = m_plan.moved[static_cast<std::size_t>(p)];
    if (m_ex && m_ex->moved == moved) return m_ex->ex;
    const Schedule sched = m_plan.period_schedule(p);
    const std::size_t item = sizeof(std::int64_t) + m_bytes;
    ExchangePlan xp;
    std::vector<Wire> sends, recvs;
    std::size_t flat = 0;
    for (std::size_t s = 0; s < m_plan.steps.size(); ++s) {
      const auto& transfers = m_plan.steps[s];
      for (const Message& msg : sched.steps()[s].messages) {
        if (msg.len == 0 || (!mine(msg.src) && !mine(msg.dst))) continue;
        Wire w;
        for (std::size_t i = 0; i < transfers.size(); ++i)
          if (transfers[i].from == msg.src && transfers[i].to == msg.dst) w.transfers.push_back(flat + i);
        const std::size_t bytes = static_cast<std::size_t>(msg.len) * item;
        const int step = static_cast<int>(s);
        if (mine(msg.src)) {
          xp.sends.push_back({rank_of(msg.dst), bytes, step});
          sends.push_back(w);
        }
        if (mine(msg.dst)) {
          xp.recvs.push_back({rank_of(msg.src), bytes, step});
          recvs.push_back(std::move(w));
        }
      }
      flat += transfers.size();
    }
    m_ex.reset(); // complete; frees its buffers before the next one allocates
    m_ex = std::make_unique<PeriodExchange>(
        PeriodExchange{moved, Exchange(m_comm, std::move(xp), ExecMode::Pipelined, tags::steady.base),
                       std::move(sends), std::move(recvs)});
    return m_ex->ex;
  }

  // One message: the values of its transfers, in step order, each prefixed by its time-stamp.
  void pack(std::int64_t p, const Wire& w, std::byte* buf) {
    const auto& moved = m_plan.moved[static_cast<std::size_t>(p)];
    std::int64_t values = 0;
    int to = -1;
    for (std::size_t f : w.transfers) {
      const auto& tr = transfer(f);
      to = tr.to;
      for (std::int64_t j = 0; j < moved[f]; ++j) {
        Value v = take(static_cast<std::size_t>(tr.tree), static_cast<std::size_t>(tr.task), 0);
        std::memcpy(buf, &v.stamp, sizeof v.stamp);
        std::memcpy(buf + sizeof v.stamp, v.data.data(), m_bytes);
        recycle(std::move(v.data));
        buf += sizeof v.stamp + m_bytes;
        ++values;
      }
    }
    if (rank_of(to) != m_rank) {
      ++m_stats.messages_sent;
      m_stats.values_sent += values;
    }
  }

  void unpack(std::int64_t p, const Wire& w, const std::byte* buf) {
    const auto& moved = m_plan.moved[static_cast<std::size_t>(p)];
    for (std::size_t f : w.transfers) {
      const auto& tr = transfer(f);
      for (std::int64_t j = 0; j < moved[f]; ++j) {
        Value v;
        std::memcpy(&v.stamp, buf, sizeof v.stamp);
        v.data = fresh();
        std::memcpy(v.data.data(), buf + sizeof v.stamp, m_bytes);
        buf += sizeof v.stamp + m_bytes;
        produce(static_cast<std::size_t>(tr.tree), static_cast<std::size_t>(tr.task), std::move(v));
      }
    }
  }

  // Value storage is recycled: a value's bytes go back to m_pool once sent, combined or delivered,
  // so the steady state allocates nothing per value (at small sizes allocation was most of the
  // executor's per-value cost).
  std::vector<std::byte> fresh() {
    if (m_pool.empty()) return std::vector<std::byte>(m_bytes);
    std::vector<std::byte> d = std::move(m_pool.back());
    m_pool.pop_back();
    return d;
  }
  void recycle(std::vector<std::byte>&& d) { m_pool.push_back(std::move(d)); }

  [[nodiscard]] int rank_of(int node) const { return m_node_rank[static_cast<std::size_t>(node)]; }
  // The transfer at flat index f (PipelinePlan::flat order).
  [[nodiscard]] const PipelinePlan::Transfer& transfer(std::size_t f) const {
    std::size_t s = 0;
    while (f >= m_plan.steps[s].size()) f -= m_plan.steps[s++].size();
    return m_plan.steps[s][f];
  }

  const PipelinePlan& m_plan;
  Comm m_comm;
  std::size_t m_bytes;
  const PipelineCallbacks& m_cb;
  std::vector<int> m_node_rank;
  int m_rank = 0;
  std::vector<std::vector<std::deque<Value>>>
      m_slots;                                   // [tree][task]: values waiting on the task's output node
  std::vector<std::vector<std::int64_t>> m_leaf; // [tree][2 task + input]: leaves made so far
  std::vector<std::size_t> m_work;               // this period's computations (indices into computes)
  std::size_t m_next_work = 0;
  std::vector<std::tuple<std::size_t, std::size_t, Value>> m_pending; // results of this period
  std::unique_ptr<PeriodExchange> m_ex;
  std::vector<std::vector<std::byte>> m_pool; // spare value storage, m_bytes each
  PipelineStats m_stats;
};

} // namespace

PipelineStats run_pipeline(const PipelinePlan& plan, MPI_Comm comm, std::size_t value_bytes,
                           const PipelineCallbacks& callbacks, std::vector<int> node_rank) {
  detail::require(value_bytes >= 1, "run_pipeline: value_bytes must be >= 1, got ", value_bytes);
  Runner r(plan, Comm::duplicate(comm), value_bytes, callbacks, std::move(node_rank));
  return r.run(true);
}

PipelineStats run_pipeline_private(const PipelinePlan& plan, const Comm& comm, std::size_t value_bytes,
                                   const PipelineCallbacks& callbacks, std::vector<int> node_rank) {
  detail::require(value_bytes >= 1, "run_pipeline: value_bytes must be >= 1, got ", value_bytes);
  Runner r(plan, comm, value_bytes, callbacks, std::move(node_rank));
  return r.run(false);
}

} // namespace hpf::steady
