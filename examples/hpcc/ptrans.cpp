// HPC Challenge PTRANS on hpfrt: C = A^T + C for n x n matrices distributed CYCLIC(nb) x CYCLIC(nb)
// on HPCC's near-square P x Q grid, written the natural way: a transposing assignment into an array
// kept for the purpose (docs/sections.md), then a forall over C and A^T (docs/arrays.md). Prints
// HPCC's metric, 8 n^2 bytes / time in GB/s (median time of the repeats), and HPCC's check: the
// residual max |C - (C0 + repeats A^T)| / (eps n) at most 16.
//   mpirun -n 4 ./hpcc_ptrans [n, default 2000] [nb, default 64] [repeats, default 5]
#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

using hpf::Cyclic, hpf::DistArray, hpf::Index, hpf::index_t;

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const index_t n = argc > 1 ? std::atoll(argv[1]) : 2000;
    const index_t nb = argc > 2 ? std::atoll(argv[2]) : 64;
    const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
    const auto pq = near_square(env.size());
    const hpf::Layout<2> layout({n, n}, {Cyclic(nb), Cyclic(nb)}, hpf::ProcessGrid::world({pq[0], pq[1]}));
    DistArray<double, 2> A("A", layout), C("C", layout), At("At", layout);
    const auto a = [=](const Index<2>& g) {
      return random_at(static_cast<unsigned long long>(g[0] + n * g[1]));
    };
    const auto c = [=](const Index<2>& g) {
      return random_at(static_cast<unsigned long long>(n * n + g[0] + n * g[1]));
    };
    hpf::forall(A, C, [=](const Index<2>& g, double& x, double& y) { x = a(g), y = c(g); });

    const hpf::Section<2> all = hpf::whole_section<2>({n, n});
    std::vector<double> time;
    for (int r = 0; r < repeats; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t = -MPI_Wtime();
      hpf::assign(At, all, A, all, {1, 0}); // At = TRANSPOSE(A)
      hpf::forall(C, At, [](const Index<2>&, double& x, const double& y) { x += y; });
      t += MPI_Wtime();
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      time.push_back(t);
    }
    std::nth_element(time.begin(), time.begin() + repeats / 2, time.end());
    const double gbs = 8.0 * static_cast<double>(n) * n / time[static_cast<std::size_t>(repeats / 2)] / 1e9;

    // HPCC's check (verification): C regenerated from the seeds, compared elementwise.
    hpf::forall(C, [=](const Index<2>& g, double& x) { x = std::abs(x - c(g) - repeats * a({g[1], g[0]})); });
    const double resid = n > 0 ? hpf::max(C) / (0x1.0p-53 * static_cast<double>(n)) : 0.0;
    const bool ok = resid <= 16.0;
    if (env.rank() == 0)
      std::printf("hpcc ptrans: n %lld, nb %lld, grid %d x %d, GB/s %.3f, resid %.3f, check %s\n",
                  static_cast<long long>(n), static_cast<long long>(nb), pq[0], pq[1], gbs, resid,
                  ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
  } catch (const hpf::Error& e) { // a bad size names itself: extent, block size, grid
    std::fprintf(stderr, "hpcc_ptrans: %s\n", e.what());
    return 1;
  }
}
