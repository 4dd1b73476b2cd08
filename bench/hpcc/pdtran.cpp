// bench_hpcc_pdtran: HPC Challenge PTRANS with ScaLAPACK, the peer of examples/hpcc/ptrans.cpp. C := A^T + C
// by pdtran_ (alpha = 1, beta = 1, as ScaLAPACK documents it) on n x n matrices CYCLIC(nb) x
// CYCLIC(nb) on the same near-square P x Q BLACS grid as hpcc_ptrans, filled with the same values.
// Prints 8 n^2 bytes / median time in GB/s and the same check as hpcc_ptrans: max |C - (C0 + repeats
// A^T)| / (eps n) at most 16.
//   mpirun -n 4 ./bench_hpcc_pdtran [n, default 2000] [nb, default 64] [repeats, default 5]
#include "../../examples/hpcc/common.hpp" // random_at, near_square: hpcc_ptrans's inputs and grid
#include "../redistribute/peers.hpp"      // BlacsGrid, descriptor, scalapack_local_size, pdtran_

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  HPF_MPI_CHECK(MPI_Init(&argc, &argv));
  int size = 0, rank = 0;
  HPF_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  HPF_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int nb = argc > 2 ? std::atoi(argv[2]) : 64;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
  bool ok = n > 0 && nb > 0 && repeats > 0;
  if (!ok && rank == 0) std::fprintf(stderr, "bench_hpcc_pdtran: n, nb and repeats must be >= 1\n");
  double gbs = 0, resid = 0;
  const auto pq = near_square(size);
  if (ok) {
    const hpf::bench::redist::BlacsGrid g(pq[0], pq[1]);
    const auto desc = hpf::bench::redist::descriptor(g, n, n, nb, nb);
    const int lld = desc[8], zero = 0;
    const int rows = numroc_(&n, &nb, &g.myrow, &zero, &g.nprow);
    const int cols = numroc_(&n, &nb, &g.mycol, &zero, &g.npcol);
    std::vector<double> a(hpf::bench::redist::scalapack_local_size(g, n, n, nb, nb)), c(a.size());
    // Global row (column) of local row (column) l: ScaLAPACK's block-cyclic map.
    const auto global = [nb](int l, int me, int procs) { return (l / nb * procs + me) * nb + l % nb; };
    const auto each = [&](auto&& f) { // f(global i, global j, local offset)
      for (int lj = 0; lj < cols; ++lj)
        for (int li = 0; li < rows; ++li)
          f(global(li, g.myrow, g.nprow), global(lj, g.mycol, g.npcol),
            static_cast<std::size_t>(li) + static_cast<std::size_t>(lj) * static_cast<std::size_t>(lld));
    };
    const auto nn = static_cast<unsigned long long>(n);
    const auto a_at = [nn](long long i, long long j) {
      return random_at(static_cast<unsigned long long>(i) + nn * static_cast<unsigned long long>(j));
    };
    const auto c_at = [nn](long long i, long long j) {
      return random_at(nn * nn + static_cast<unsigned long long>(i) +
                       nn * static_cast<unsigned long long>(j));
    };
    each([&](int i, int j, std::size_t k) { a[k] = a_at(i, j), c[k] = c_at(i, j); });

    const int one = 1;
    const double alpha = 1.0, beta = 1.0;
    std::vector<double> time;
    for (int r = 0; r < repeats; ++r)
      time.push_back(hpf::bench::slowest_time([&] {
        pdtran_(&n, &n, &alpha, a.data(), &one, &one, desc.data(), &beta, c.data(), &one, &one, desc.data());
      }));
    gbs = 8.0 * n * static_cast<double>(n) / hpf::median(time) / 1e9;

    // The check of hpcc_ptrans: C against its seeds after `repeats` additions of A^T.
    double worst = 0;
    each([&](int i, int j, std::size_t k) {
      worst = std::max(worst, std::abs(c[k] - c_at(i, j) - repeats * a_at(j, i)));
    });
    HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    resid = worst / (0x1.0p-53 * n);
    ok = resid <= 16.0;
  }
  if (rank == 0)
    std::printf("pdtran ptrans: n %d, nb %d, grid %d x %d, GB/s %.3f, resid %.3f, check %s\n", n, nb, pq[0],
                pq[1], gbs, resid, ok ? "OK" : "FAILED");
  Cblacs_exit(1); // leave MPI running for MPI_Finalize
  HPF_MPI_CHECK(MPI_Finalize());
  return ok ? 0 : 1;
}
