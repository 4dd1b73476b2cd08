// Guide example for docs/arrays.md: a 2-D array on a process grid, forall kernels over one and
// several arrays, reductions, gather and scatter, and local access. Runs on any number of ranks:  mpirun -n 3
// ./guide_arrays
#include <hpf/hpf.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv); // MPI and Kokkos for the program's lifetime
  try {
    const int size = env.size(); // of MPI_COMM_WORLD
    const int me = env.rank();

    // 1 x size grid: dimension 0 of the array is `*` (held whole), dimension 1 is CYCLIC(2).
    const auto grid = hpf::ProcessGrid::world({size});
    const hpf::Layout<2> layout({4, 10}, {hpf::Collapsed(), hpf::Cyclic(2)}, grid);
    hpf::DistArray<double, 2> A("A", layout); // zero-initialised local block

    // Each rank writes the elements it owns; g is the global index (0-based, Fortran order).
    hpf::forall(A, [](const hpf::Index<2>& g, double& x) { x = double(g[0] + 10 * g[1]); });

    // A kernel over several arrays of one layout: every array's element by reference, as fast as a
    // loop over the local blocks. Here B = 2 A + 1 and C = A + B.
    hpf::DistArray<double, 2> B("B", layout), C("C", layout);
    hpf::forall(A, B, C, [](const hpf::Index<2>&, const double& a, double& b, double& c) {
      b = 2 * a + 1;
      c = a + b;
    });

    // Collective reductions: the same value on every rank.
    const double total = hpf::sum(A);
    const double lo = hpf::min(A);
    const double hi = hpf::max(A);

    // Local access: owned elements by global index, or the raw local block.
    long long mine = 0;
    for (hpf::index_t j = 0; j < 10; ++j)
      if (A.owns({0, j})) mine += static_cast<long long>(A[{0, j}]);
    const hpf::Index<2> ext = A.owned_extents(); // 4 x (elements of dimension 1 owned here)

    // Gather the whole array on rank 0 (global Fortran order), change it, scatter it back.
    std::vector<double> all = A.gather(0);
    if (me == 0)
      for (double& x : all) x *= 2;
    A.scatter(0, all);
    const double doubled = hpf::sum(A);

    bool ok = total == 1860 && lo == 0 && hi == 93 && doubled == 2 * total && ext[0] == 4;
    ok = ok && hpf::sum(C) == 3 * total + 40 && hpf::max(B) == 187;
    ok = ok && A.local_size() == ext[0] * ext[1];
    std::printf("rank %d: owns %lld x %lld, row 0 of my columns sums to %lld\n", me,
                static_cast<long long>(ext[0]), static_cast<long long>(ext[1]), mine);
    if (me == 0)
      std::printf("guide arrays: sum %g, min %g, max %g: %s\n", total, lo, hi, ok ? "OK" : "WRONG");
    return ok ? 0 : 1;
  } catch (const hpf::Error& e) { // every bad input is an hpf::Error naming the argument and the rank
    std::fprintf(stderr, "guide_arrays: %s\n", e.what());
    return 1;
  }
}
