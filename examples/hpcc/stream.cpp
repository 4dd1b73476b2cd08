// HPC Challenge STREAM on hpfrt: copy, scale, add and triad over three BLOCK-distributed vectors,
// each a multi-array forall (docs/arrays.md). Prints HPCC's metric, GB/s per process (the rate of
// the best of NTIMES repetitions, the first left out), and STREAM's own check of the final values.
//   mpirun -n 2 ./hpcc_stream [elements per process, default 2^21]
#include <hpf/hpf.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const hpf::index_t n = (argc > 1 ? std::atoll(argv[1]) : 1 << 21) * env.size();
    const hpf::Layout<1> layout({n}, {hpf::Block()}, hpf::ProcessGrid::world({env.size()}));
    hpf::DistArray<double, 1> a("a", layout), b("b", layout), c("c", layout);
    const double q = 3.0;
    using I = hpf::Index<1>;
    hpf::forall(a, b, c, [](const I&, double& x, double& y, double& z) { x = 2.0, y = 2.0, z = 0.0; });

    constexpr int ntimes = 10;
    double best[4] = {1e30, 1e30, 1e30, 1e30};
    for (int k = 0; k < ntimes; ++k) {
      double t[4];
      MPI_Barrier(MPI_COMM_WORLD);
      t[0] = -MPI_Wtime();
      hpf::forall(c, a, [](const I&, double& z, double& x) { z = x; });
      t[0] += MPI_Wtime(), t[1] = -MPI_Wtime();
      hpf::forall(b, c, [=](const I&, double& y, double& z) { y = q * z; });
      t[1] += MPI_Wtime(), t[2] = -MPI_Wtime();
      hpf::forall(c, a, b, [](const I&, double& z, double& x, double& y) { z = x + y; });
      t[2] += MPI_Wtime(), t[3] = -MPI_Wtime();
      hpf::forall(a, b, c, [=](const I&, double& x, double& y, double& z) { x = y + q * z; });
      t[3] += MPI_Wtime();
      for (int i = 0; i < 4 && k > 0; ++i) best[i] = std::min(best[i], t[i]);
    }

    // STREAM's check (verification): every element equals the scalar the same steps give, within a
    // relative 1e-13 (STREAM bounds the mean error; min and max bound every element).
    double x = 2.0, y = 2.0, z = 0.0;
    for (int k = 0; k < ntimes; ++k) z = x, y = q * z, z = x + y, x = y + q * z;
    const auto near = [](double lo, double hi, double v) {
      return std::abs(lo - v) <= 1e-13 * v && std::abs(hi - v) <= 1e-13 * v;
    };
    const bool ok = near(hpf::min(a), hpf::max(a), x) && near(hpf::min(b), hpf::max(b), y) &&
                    near(hpf::min(c), hpf::max(c), z);

    // GB/s per process; HPCC reports the mean over processes (StarSTREAM).
    const double words = static_cast<double>(a.local_size());
    double rate[4];
    for (int i = 0; i < 4; ++i) rate[i] = (i < 2 ? 16 : 24) * words / best[i] / 1e9;
    MPI_Allreduce(MPI_IN_PLACE, rate, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (env.rank() == 0)
      std::printf("hpcc stream: n %lld, processes %d, GB/s per process: Copy %.3f Scale %.3f Add %.3f "
                  "Triad %.3f, check %s\n",
                  static_cast<long long>(n), env.size(), rate[0] / env.size(), rate[1] / env.size(),
                  rate[2] / env.size(), rate[3] / env.size(), ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
  } catch (const hpf::Error& e) { // a bad size names itself: extent, block size, grid
    std::fprintf(stderr, "hpcc_stream: %s\n", e.what());
    return 1;
  }
}
