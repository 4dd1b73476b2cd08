// quickstart: the program of the README. A distributed array is filled, redistributed and summed.
//
//   mpirun -n 4 ./quickstart
#include <hpf/hpf.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv); // starts MPI and Kokkos; stops what it started at exit
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const auto grid = hpf::ProcessGrid::world({ranks}); // every rank, in a line
  const hpf::index_t n = 1000;

  hpf::DistArray<double, 1> A("A", hpf::Layout<1>({n}, {hpf::Cyclic(3)}, grid)); // CYCLIC(3)
  hpf::forall(A, [](const hpf::Index<1>& i, double& x) { x = double(i[0]); });   // A(i) = i
  A.redistribute(hpf::Layout<1>({n}, {hpf::Block()}, grid));                     // now BLOCK
  const double total = hpf::sum(A); // collective: every rank gets the sum

  const double expected = double(n * (n - 1) / 2);
  if (grid.parent_rank() == 0) std::printf("sum = %.0f (expected %.0f)\n", total, expected);
  return total == expected ? 0 : 1;
}
