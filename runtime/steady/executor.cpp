// MPI executor of the steady-state pipeline (seed 000); see include/hpf/steady/executor.hpp.
#include <hpf/core/error.hpp>
#include <hpf/steady/executor.hpp>

#include <cstring>
#include <deque>
#include <map>
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

/// The requests of one matching. Unlike hpf::Requests it can be tested, so that computations run
/// between tests; the destructor completes whatever is still pending (no buffer released early).
class StepRequests {
public:
  StepRequests() = default;
  StepRequests(const StepRequests&) = delete;
  StepRequests& operator=(const StepRequests&) = delete;
  StepRequests(StepRequests&&) noexcept = default;
  StepRequests& operator=(StepRequests&&) = delete;
  ~StepRequests() {
    if (!m_reqs.empty()) MPI_Waitall(static_cast<int>(m_reqs.size()), m_reqs.data(), MPI_STATUSES_IGNORE);
  }
  void isend(const Comm& comm, const std::byte* data, std::size_t n, int dest, int tag) {
    HPF_MPI_CHECK(MPI_Isend(data, count(n), MPI_BYTE, dest, tag, comm.get(), &m_reqs.emplace_back()));
  }
  void irecv(const Comm& comm, std::byte* data, std::size_t n, int source, int tag) {
    HPF_MPI_CHECK(MPI_Irecv(data, count(n), MPI_BYTE, source, tag, comm.get(), &m_reqs.emplace_back()));
  }
  /// True when every request has completed.
  bool test() {
    int done = 1;
    if (!m_reqs.empty())
      HPF_MPI_CHECK(MPI_Testall(static_cast<int>(m_reqs.size()), m_reqs.data(), &done, MPI_STATUSES_IGNORE));
    if (done != 0) m_reqs.clear();
    return done != 0;
  }
  void wait() {
    if (!m_reqs.empty())
      HPF_MPI_CHECK(MPI_Waitall(static_cast<int>(m_reqs.size()), m_reqs.data(), MPI_STATUSES_IGNORE));
    m_reqs.clear();
  }

private:
  static int count(std::size_t n) {
    detail::require(n <= max_message_bytes, "run_pipeline: one matching moves ", n,
                    " bytes over one edge, more than one MPI message carries (", max_message_bytes,
                    "); use smaller values or a shorter period (--period-max)");
    return static_cast<int>(n);
  }
  std::vector<MPI_Request> m_reqs;
};

class Runner {
public:
  Runner(const PipelinePlan& plan, MPI_Comm comm, std::size_t bytes, const PipelineCallbacks& cb,
         std::vector<int> node_rank)
      : m_plan(plan), m_comm(Comm::duplicate(comm)), m_bytes(bytes), m_cb(cb),
        m_node_rank(std::move(node_rank)) {
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

  PipelineStats run() {
    HPF_MPI_CHECK(MPI_Barrier(m_comm.get()));
    const double t0 = MPI_Wtime();
    for (std::int64_t p = 0; p < m_plan.periods; ++p) {
      // This period's computations run while its matchings' messages are in flight (one between two
      // tests of the current matching); their results wait in m_pending until the period ends.
      m_work.clear();
      for (std::size_t c = 0; c < m_plan.computes.size(); ++c) {
        const auto t = static_cast<std::size_t>(m_plan.computes[c].first);
        const auto k = static_cast<std::size_t>(m_plan.computes[c].second);
        if (mine(m_plan.trees[t].tasks[k].node))
          m_work.insert(m_work.end(),
                        static_cast<std::size_t>(m_plan.computed[static_cast<std::size_t>(p)][c]), c);
      }
      m_next_work = 0;
      post_receives(p);
      std::size_t flat = 0;
      for (std::size_t s = 0; s < m_plan.steps.size(); ++s) {
        step(p, s, flat);
        flat += m_plan.steps[s].size();
      }
      while (m_next_work < m_work.size()) compute_one();
      for (auto& [t, k, v] : m_pending) produce(t, k, std::move(v));
      m_pending.clear();
    }
    double mine = MPI_Wtime() - t0, all = 0.0;
    HPF_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, m_comm.get()));
    m_stats.seconds = all;
    return m_stats;
  }

private:
  [[nodiscard]] bool mine(int node) const { return m_node_rank[static_cast<std::size_t>(node)] == m_rank; }
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
    v.data.resize(m_bytes);
    m_cb.make(leaf_source(m_plan, static_cast<int>(t), static_cast<int>(k), which), v.stamp, v.data.data());
    return v;
  }

  void produce(std::size_t t, std::size_t k, Value v) {
    if (k == 0) {
      m_cb.deliver(m_plan.trees[t].group, v.stamp, v.data.data());
      ++m_stats.delivered_here;
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
    out.data.resize(m_bytes);
    m_cb.combine(a.data.data(), b.data.data(), out.data.data());
    m_pending.emplace_back(t, k, std::move(out));
  }

  // Every receive of period p is posted when the period starts, so that a sender never waits for a
  // receiver still busy with an earlier matching or a computation. Messages of one edge keep their
  // order (same source, destination and tag), so each matches its own matching's receive.
  void post_receives(std::int64_t p) {
    const auto& moved = m_plan.moved[static_cast<std::size_t>(p)];
    const std::size_t item = sizeof(std::int64_t) + m_bytes;
    m_in.clear();
    m_in.resize(m_plan.steps.size());
    std::size_t flat = 0;
    for (std::size_t s = 0; s < m_plan.steps.size(); ++s) {
      const auto& transfers = m_plan.steps[s];
      Incoming& in = m_in[s];
      for (std::size_t i = 0; i < transfers.size(); ++i) {
        const std::int64_t n = moved[flat + i];
        if (n == 0 || !mine(transfers[i].to)) continue;
        auto& buf = in.buffers[transfers[i].edge];
        buf.resize(buf.size() + static_cast<std::size_t>(n) * item);
        in.order[transfers[i].edge].push_back(i);
      }
      for (auto& [e, buf] : in.buffers) {
        const int from = transfers[in.order[e].front()].from;
        if (!mine(from))
          in.reqs.irecv(m_comm, buf.data(), buf.size(), m_node_rank[static_cast<std::size_t>(from)], e);
      }
      flat += transfers.size();
    }
  }

  // One matching: per platform edge, one message with the values of its transfers, in step order.
  void step(std::int64_t p, std::size_t s, std::size_t flat) {
    const auto& transfers = m_plan.steps[s];
    const auto& moved = m_plan.moved[static_cast<std::size_t>(p)];
    const std::size_t item = sizeof(std::int64_t) + m_bytes;
    Incoming& in = m_in[s];
    std::map<int, std::vector<std::byte>> out; // edge -> wire buffer
    for (std::size_t i = 0; i < transfers.size(); ++i) {
      const std::int64_t n = moved[flat + i];
      if (n == 0 || !mine(transfers[i].from)) continue;
      const auto& tr = transfers[i];
      const auto t = static_cast<std::size_t>(tr.tree), k = static_cast<std::size_t>(tr.task);
      auto& buf = out[tr.edge];
      for (std::int64_t j = 0; j < n; ++j) {
        Value v = take(t, k, 0);
        const std::size_t at = buf.size();
        buf.resize(at + item);
        std::memcpy(buf.data() + at, &v.stamp, sizeof v.stamp);
        std::memcpy(buf.data() + at + sizeof v.stamp, v.data.data(), m_bytes);
      }
    }
    StepRequests sends;
    for (auto& [e, buf] : out) {
      int dest = -1;
      for (const auto& tr : transfers)
        if (tr.edge == e) dest = tr.to;
      if (mine(dest)) {
        in.buffers.at(e) = buf; // both ends on this rank: no message
        continue;
      }
      sends.isend(m_comm, buf.data(), buf.size(), m_node_rank[static_cast<std::size_t>(dest)], e);
      ++m_stats.messages_sent;
      m_stats.values_sent += static_cast<std::int64_t>(buf.size() / item);
    }
    while (m_next_work < m_work.size()) {
      const bool sent = sends.test();
      if (in.reqs.test() && sent) break;
      compute_one();
    }
    sends.wait();
    in.reqs.wait();
    for (auto& [e, buf] : in.buffers) {
      std::size_t at = 0;
      for (std::size_t i : in.order[e]) {
        const auto& tr = transfers[i];
        for (std::int64_t j = 0; j < moved[flat + i]; ++j) {
          Value v;
          std::memcpy(&v.stamp, buf.data() + at, sizeof v.stamp);
          v.data.assign(buf.data() + at + sizeof v.stamp, buf.data() + at + item);
          at += item;
          produce(static_cast<std::size_t>(tr.tree), static_cast<std::size_t>(tr.task), std::move(v));
        }
      }
    }
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
  // Receives of one matching: per edge, the wire buffer and the transfers it carries, in step order.
  struct Incoming {
    std::map<int, std::vector<std::byte>> buffers;
    std::map<int, std::vector<std::size_t>> order;
    StepRequests reqs;
  };
  std::vector<Incoming> m_in; // this period's, one per matching; buffers never move once posted
  PipelineStats m_stats;
};

} // namespace

PipelineStats run_pipeline(const PipelinePlan& plan, MPI_Comm comm, std::size_t value_bytes,
                           const PipelineCallbacks& callbacks, std::vector<int> node_rank) {
  detail::require(value_bytes >= 1, "run_pipeline: value_bytes must be >= 1, got ", value_bytes);
  Runner r(plan, comm, value_bytes, callbacks, std::move(node_rank));
  return r.run();
}

} // namespace hpf::steady
