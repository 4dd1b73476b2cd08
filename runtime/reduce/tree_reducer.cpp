// TreeReducer construction and the cost measurements of Canon and Antoniu's model (d: a ping, c: a
// timed call).
#include <hpf/reduce/tree_reducer.hpp>

#include <hpf/exec/model.hpp>

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

namespace hpf {

namespace detail {

double allreduce_max(MPI_Comm comm, double value) {
  double out = value;
  HPF_MPI_CHECK(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, comm));
  return out;
}

} // namespace detail

double measure_transfer_cost(MPI_Comm comm, std::size_t bytes, int repeats) {
  detail::require(repeats >= 1, "measure_transfer_cost: repeats must be >= 1, got ", repeats);
  detail::require(bytes <= max_message_bytes, "measure_transfer_cost: bytes must be <= ", max_message_bytes,
                  " (one MPI message), got ", bytes);
  // A private duplicate, so that the pings never match a message of the caller.
  const Comm own = Comm::duplicate(comm);
  double d = 0.0;
  if (own.size() >= 2) {
    // The one ping-pong kernel of exec/model (an untimed warm-up, then the median round trip).
    const PingPongResult r = ping_pong(own, 0, 1, bytes, PingPongOptions{repeats, 0, false});
    d = r.rtt / 2; // meaningful on rank 0 only
  }
  // Every rank must plan with the same d: take rank 0's.
  HPF_MPI_CHECK(MPI_Bcast(&d, 1, MPI_DOUBLE, 0, own.get()));
  return d;
}

void TreeReducer::make_plan() {
  const Schedule schedule = tree_schedule(m_tree);
  std::vector<int> ranks(static_cast<std::size_t>(m_tree.size()));
  std::iota(ranks.begin(), ranks.end(), 0);
  m_plan = exchange_plan(schedule, m_rank, m_rank, ranks, ranks, 1);
  // A receive at a root that is not the sink, from the sink, is the forwarded result (in_rank_order);
  // every other receive is an input to combine.
  const int sink = m_tree.sink();
  m_recv_forward.clear();
  for (const Transfer& t : m_plan.recvs)
    m_recv_forward.push_back(m_rank == m_tree.root && m_rank != sink && t.peer == sink ? 1 : 0);
}

TreeReducer::TreeReducer(MPI_Comm comm, ReduceCosts costs, const TreeOptions& opts) {
  const int size = comm_size(comm);
  detail::require(opts.root >= 0 && opts.root < size,
                  "TreeReducer: root must be a rank of the communicator in [0, ", size, "), got ", opts.root);
  // Pure and identical on every rank, so a bad argument throws everywhere before any communication.
  m_tree = plan_reduction_tree(size, costs, opts);
  m_comm = Comm::duplicate(comm);
  m_rank = m_comm.rank();
  make_plan();
}

TreeReducer TreeReducer::from_tree(MPI_Comm comm, ReductionTree tree) {
  const int size = comm_size(comm);
  detail::require(tree.size() == size, "TreeReducer: the tree has ", tree.size(),
                  " machines but the communicator has ", size, " ranks");
  detail::require(tree.root >= 0 && tree.root < size,
                  "TreeReducer: root must be a rank of the communicator in [0, ", size, "), got ", tree.root);
  check_rank_order(tree); // the executor combines lower-ranked inputs on the left
  TreeReducer r;
  r.m_tree = std::move(tree);
  r.m_comm = Comm::duplicate(comm);
  r.m_rank = r.m_comm.rank();
  r.make_plan();
  return r;
}

} // namespace hpf
