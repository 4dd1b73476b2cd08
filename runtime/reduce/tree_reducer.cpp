// TreeReducer construction and the cost measurements of seed 002's model (d: a ping, c: a timed call).
#include <hpf/reduce/tree_reducer.hpp>

#include <algorithm>
#include <utility>
#include <vector>

namespace hpf {

namespace detail {

double allreduce_max(MPI_Comm comm, double value) {
  double out = value;
  HPF_MPI_CHECK(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, comm));
  return out;
}

double median(std::vector<double>& samples) {
  require(!samples.empty(), "median: no samples");
  const auto mid = samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2);
  std::nth_element(samples.begin(), mid, samples.end());
  return *mid;
}

} // namespace detail

double measure_transfer_cost(MPI_Comm comm, std::size_t bytes, int repeats) {
  detail::require(repeats >= 1, "measure_transfer_cost: repeats must be >= 1, got ", repeats);
  detail::require(bytes <= max_message_bytes, "measure_transfer_cost: bytes must be <= ", max_message_bytes,
                  " (one MPI message), got ", bytes);
  // A private duplicate, so that the pings never match a message of the caller.
  const Comm own = Comm::duplicate(comm);
  comm = own.get();
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  double d = 0.0;
  if (size >= 2 && rank <= 1) {
    std::vector<char> buf(std::max<std::size_t>(bytes, 1));
    const int peer = 1 - rank;
    const int n = static_cast<int>(std::min(bytes, max_message_bytes));
    std::vector<double> t;
    // One untimed round trip first: it sets up the connection between the two ranks.
    for (int r = -1; r < repeats; ++r) {
      const double t0 = MPI_Wtime(); // the simulated clock under SimGrid SMPI
      if (rank == 0) {
        HPF_MPI_CHECK(MPI_Send(buf.data(), n, MPI_BYTE, peer, detail::tag_tree_reduce, comm));
        HPF_MPI_CHECK(
            MPI_Recv(buf.data(), n, MPI_BYTE, peer, detail::tag_tree_reduce, comm, MPI_STATUS_IGNORE));
      } else {
        HPF_MPI_CHECK(
            MPI_Recv(buf.data(), n, MPI_BYTE, peer, detail::tag_tree_reduce, comm, MPI_STATUS_IGNORE));
        HPF_MPI_CHECK(MPI_Send(buf.data(), n, MPI_BYTE, peer, detail::tag_tree_reduce, comm));
      }
      if (r >= 0) t.push_back(MPI_Wtime() - t0);
    }
    d = detail::median(t) / 2;
  }
  // Every rank must plan with the same d: take rank 0's.
  HPF_MPI_CHECK(MPI_Bcast(&d, 1, MPI_DOUBLE, 0, comm));
  return d;
}

TreeReducer::TreeReducer(MPI_Comm comm, ReduceCosts costs, const TreeOptions& opts) {
  const int size = comm_size(comm);
  detail::require(opts.root >= 0 && opts.root < size,
                  "TreeReducer: root must be a rank of the communicator in [0, ", size, "), got ", opts.root);
  // Pure and identical on every rank, so a bad argument throws everywhere before any communication.
  m_tree = plan_reduction_tree(size, costs, opts);
  m_comm = Comm::duplicate(comm);
  m_rank = m_comm.rank();
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
  return r;
}

} // namespace hpf
