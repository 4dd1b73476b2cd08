// hello_distarray: a 40 x 6 array distributed CYCLIC(2) x BLOCK over a 2 x 2 process grid.
//
//   mpirun -n 4 ./hello_distarray
//
// Fills A(i, j) = i + 100 j with a forall kernel, sums it, gathers it on rank 0, and prints which
// grid position owns each element.
#include <hpf/hpf.hpp>

#include <cstdio>
#include <iostream>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
      std::fprintf(stderr, "hello_distarray needs 4 ranks (mpirun -n 4), got %d\n", size);
      return 2;
    }
    const auto grid = hpf::ProcessGrid::world({2, 2});
    const hpf::Layout<2> layout({40, 6}, {hpf::Cyclic(2), hpf::Block()}, grid);
    hpf::DistArray<double, 2> A("A", layout);

    hpf::forall(A, [](const hpf::Index<2>& g, double& x) { x = double(g[0] + 100 * g[1]); });
    const double total = hpf::sum(A);
    const double biggest = hpf::max(A);
    const std::vector<double> all = A.gather(0);

    const auto ext = A.layout().my_local_extents();
    for (int r = 0; r < size; ++r) {
      if (r == grid.parent_rank())
        std::printf("rank %d at grid (%d, %d) owns a %lld x %lld block\n", r, grid.my_coords()[0],
                    grid.my_coords()[1], static_cast<long long>(ext[0]), static_cast<long long>(ext[1]));
      std::fflush(stdout);
      MPI_Barrier(MPI_COMM_WORLD);
    }
    if (grid.parent_rank() == 0) {
      std::printf("sum = %.0f (expected %.0f), max = %.0f\n", total,
                  6.0 * (39.0 * 40.0 / 2.0) + 40.0 * 100.0 * 15.0, biggest);
      std::printf(
          "ownership map (grid position owning A(i, j); rows i = 0..39 shown in blocks, columns j):\n");
      for (hpf::index_t i = 0; i < 40; ++i) {
        std::printf("  i=%2lld ", static_cast<long long>(i));
        for (hpf::index_t j = 0; j < 6; ++j) std::printf(" %d", layout.owner({i, j}));
        std::printf("   A(i, :) =");
        for (hpf::index_t j = 0; j < 6; ++j) std::printf(" %5.0f", all[static_cast<std::size_t>(i + 40 * j)]);
        std::printf("\n");
      }
    }
  } catch (const hpf::Error& e) {
    std::cerr << "hello_distarray: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
