#include <hpf/core/error.hpp>

#include <mpi.h>

namespace hpf::detail {

int world_rank() noexcept {
  int initialized = 0;
  int finalized = 0;
  if (MPI_Initialized(&initialized) != MPI_SUCCESS || !initialized) return -1;
  if (MPI_Finalized(&finalized) != MPI_SUCCESS || finalized) return -1;
  int rank = -1;
  if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS) return -1;
  return rank;
}

std::string rank_suffix() {
  const int rank = world_rank();
  return rank < 0 ? std::string() : concat(" (rank ", rank, ")");
}

} // namespace hpf::detail
