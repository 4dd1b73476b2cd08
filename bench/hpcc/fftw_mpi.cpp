// bench_hpcc_fftw_mpi: 2-D and 3-D complex FFTs with FFTW-MPI, the peer of examples/hpcc/fftnd.cpp.
// FFTW-MPI distributes the first dimension in slabs (row-major); fftw_mpi_plan_dft_2d / _3d, in
// place, FFTW_MEASURE. Modes:
//   transposed  FFTW_MPI_TRANSPOSED_OUT: the output stays distributed along the second dimension,
//               with the first two dimensions swapped, as hpcc_fftnd leaves its result in the layout
//               of its last stage: one global transpose per transform;
//   natural     the output in the input's distribution: a second transpose back;
//   transpose   the global transpose step alone (fftw_mpi_plan_many_transpose of the n x n matrix
//               of the first two dimensions, each element the n2 complex values of the last).
// Prints the median time of the forward transform (or the transpose) over the repeats and, for the
// transforms, GFLOP/s as HPCC counts them, 5 N log2(N) / time. Checks as hpcc_fftnd does: the
// backward transform gives the input back within 16 eps ln(N), and the coefficient (1, 2[, 3])
// equals its direct sum; the transpose is checked element by element.
//   mpirun -n 4 ./bench_hpcc_fftw_mpi [dims 2|3, default 3] [n per dimension, default 128]
//                                     [transposed|natural|transpose, default transposed]
//                                     [repeats, default 5]
#include "../../examples/hpcc/common.hpp" // random_at: inputs regenerated from the global index
#include "../common/bench_common.hpp"     // slowest_time, median

#include <fftw3-mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

namespace {

using cplx = std::complex<double>;

/// One input element, from its row-major global index.
cplx input(long long linear) {
  const auto k = static_cast<unsigned long long>(linear);
  return {random_at(2 * k), random_at(2 * k + 1)};
}

enum class Mode { Transposed, Natural, Transpose };

struct Result {
  double seconds = 0;
  double err = 0; // the roundtrip's max |x - x0| (0 for the transpose)
  bool ok = false;
};

/// The median over `repeats` of the slowest rank's time of `plan`, each run on data fill() has just
/// written (the transforms are in place). Collective.
template <class Fill> double median_time(int repeats, const Fill& fill, fftw_plan plan) {
  std::vector<double> time;
  for (int r = 0; r < repeats; ++r) {
    fill();
    time.push_back(hpf::bench::slowest_time([&] { fftw_execute(plan); }));
  }
  return hpf::median(time);
}

/// The FFTs: n^dims points, forward then (for the check) backward. Collective.
Result transform(int dims, ptrdiff_t n, Mode mode, int repeats) {
  const ptrdiff_t n2 = dims == 3 ? n : 1; // the last dimension, 1 in 2-D
  ptrdiff_t local_n0 = 0, start0 = 0, local_n1 = 0, start1 = 0;
  const ptrdiff_t ext[3] = {n, n, n};
  const ptrdiff_t alloc =
      fftw_mpi_local_size_transposed(dims, ext, MPI_COMM_WORLD, &local_n0, &start0, &local_n1, &start1);
  const bool transposed = mode == Mode::Transposed;
  const unsigned out_flag = transposed ? FFTW_MPI_TRANSPOSED_OUT : 0;
  const unsigned in_flag = transposed ? FFTW_MPI_TRANSPOSED_IN : 0;
  fftw_complex* data = fftw_alloc_complex(static_cast<std::size_t>(std::max<ptrdiff_t>(alloc, 1)));
  const auto plan = [&](int sign, unsigned flags) {
    return dims == 2 ? fftw_mpi_plan_dft_2d(n, n, data, data, MPI_COMM_WORLD, sign, flags)
                     : fftw_mpi_plan_dft_3d(n, n, n, data, data, MPI_COMM_WORLD, sign, flags);
  };
  fftw_plan forward = plan(FFTW_FORWARD, FFTW_MEASURE | out_flag);
  fftw_plan backward = plan(FFTW_BACKWARD, FFTW_ESTIMATE | in_flag);
  auto* x = reinterpret_cast<cplx*>(data); // std::complex has FFTW's layout
  const ptrdiff_t slab = n * n2;           // elements per index of the distributed dimension
  const auto fill = [&] {
    for (ptrdiff_t i = 0; i < local_n0 * slab; ++i) x[i] = input(start0 * slab + i);
  };
  Result res;
  res.seconds = median_time(repeats, fill, forward);

  // The check: coefficient k = (1, 2[, 3]) against its direct sum over the input, then the roundtrip.
  const ptrdiff_t k[3] = {1 % n, 2 % n, 3 % n};
  cplx direct = 0;
  for (ptrdiff_t i = 0; i < local_n0 * slab; ++i) {
    const ptrdiff_t g = start0 * slab + i, g0 = g / slab, g1 = g / n2 % n, g2 = g % n2;
    const double phase =
        static_cast<double>((g0 * k[0] + g1 * k[1]) % n + (dims == 3 ? g2 * k[2] % n : 0)) / n;
    direct += input(g) * std::polar(1.0, -2 * std::numbers::pi * phase);
  }
  // Where coefficient k lies: row k1 of the transposed output (k1, k0, k2), else row k0.
  const ptrdiff_t row = transposed ? k[1] - start1 : k[0] - start0;
  const ptrdiff_t rows = transposed ? local_n1 : local_n0;
  const ptrdiff_t col = transposed ? k[0] : k[1];
  cplx got = row >= 0 && row < rows ? x[(row * n + col) * n2 + (dims == 3 ? k[2] : 0)] : cplx{};
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &direct, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &got, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
  const double total = static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n2);
  const bool direct_ok = std::abs(got - direct) < 1e-9 * total;
  fftw_execute(backward);
  for (ptrdiff_t i = 0; i < local_n0 * slab; ++i)
    res.err = std::max(res.err, std::abs(x[i] / total - input(start0 * slab + i)));
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &res.err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  res.ok = direct_ok && res.err / std::log(total) / 0x1.0p-53 < 16.0;
  fftw_destroy_plan(forward);
  fftw_destroy_plan(backward);
  fftw_free(data);
  return res;
}

/// The transpose step alone: the n x n matrix of the first two dimensions, whose elements are the
/// 2 n2 doubles of the last, from slabs of rows to slabs of columns, in place. Collective.
Result transpose(int dims, ptrdiff_t n, int repeats) {
  const ptrdiff_t n2 = dims == 3 ? n : 1, howmany = 2 * n2;
  ptrdiff_t local_n0 = 0, start0 = 0, local_n1 = 0, start1 = 0;
  const ptrdiff_t ext[2] = {n, n};
  const ptrdiff_t alloc =
      fftw_mpi_local_size_many_transposed(2, ext, howmany, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK,
                                          MPI_COMM_WORLD, &local_n0, &start0, &local_n1, &start1);
  double* data = fftw_alloc_real(static_cast<std::size_t>(std::max<ptrdiff_t>(alloc, 1)));
  fftw_plan plan = fftw_mpi_plan_many_transpose(n, n, howmany, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK,
                                                data, data, MPI_COMM_WORLD, FFTW_MEASURE);
  const auto value = [&](ptrdiff_t i, ptrdiff_t j, ptrdiff_t e) { // element e of (i, j)
    return static_cast<double>((i * n + j) * howmany + e);
  };
  const auto fill = [&] {
    for (ptrdiff_t i = 0; i < local_n0; ++i)
      for (ptrdiff_t j = 0; j < n; ++j)
        for (ptrdiff_t e = 0; e < howmany; ++e) data[(i * n + j) * howmany + e] = value(start0 + i, j, e);
  };
  Result res;
  res.seconds = median_time(repeats, fill, plan);
  int ok = 1; // row j of the output holds column j of the input
  for (ptrdiff_t j = 0; j < local_n1; ++j)
    for (ptrdiff_t i = 0; i < n; ++i)
      for (ptrdiff_t e = 0; e < howmany; ++e)
        ok = ok && data[(j * n + i) * howmany + e] == value(i, start1 + j, e);
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  res.ok = ok == 1;
  fftw_destroy_plan(plan);
  fftw_free(data);
  return res;
}

} // namespace

int main(int argc, char** argv) {
  HPF_MPI_CHECK(MPI_Init(&argc, &argv));
  fftw_mpi_init();
  int size = 0, rank = 0;
  HPF_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  HPF_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  const int dims = argc > 1 ? std::atoi(argv[1]) : 3;
  const ptrdiff_t n = argc > 2 ? std::atoll(argv[2]) : 128;
  const std::string name = argc > 3 ? argv[3] : "transposed";
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 5;
  const Mode mode = name == "natural"     ? Mode::Natural
                    : name == "transpose" ? Mode::Transpose
                                          : Mode::Transposed;
  const bool args_ok = (dims == 2 || dims == 3) && n >= 1 && repeats >= 1 &&
                       (name == "transposed" || name == "natural" || name == "transpose");
  if (!args_ok && rank == 0)
    std::fprintf(stderr, "bench_hpcc_fftw_mpi: expected dims 2|3, n >= 1, transposed|natural|transpose, "
                         "repeats >= 1\n");
  Result res;
  if (args_ok)
    res = mode == Mode::Transpose ? transpose(dims, n, repeats) : transform(dims, n, mode, repeats);
  const double total = std::pow(static_cast<double>(n), dims);
  if (rank == 0 && args_ok && mode == Mode::Transpose)
    std::printf("fftw-mpi transpose: %dD %lld^%d, processes %d, seconds %.6f, check %s\n", dims,
                static_cast<long long>(n), dims, size, res.seconds, res.ok ? "OK" : "FAILED");
  else if (rank == 0 && args_ok)
    std::printf("fftw-mpi fftnd: %dD %lld^%d, %s out, processes %d, seconds %.6f, GFLOP/s %.3f, max|x-x0| "
                "%.3e, check %s\n",
                dims, static_cast<long long>(n), dims, name.c_str(), size, res.seconds,
                5.0 * total * std::log2(total) / res.seconds / 1e9, res.err, res.ok ? "OK" : "FAILED");
  fftw_mpi_cleanup();
  HPF_MPI_CHECK(MPI_Finalize());
  return res.ok ? 0 : 1;
}
