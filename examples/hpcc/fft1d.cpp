// HPC Challenge FFT (MPIFFT) on hpfrt: a 1-D complex DFT of N = 2^m points distributed in blocks,
// by the six-step algorithm (D. H. Bailey, "FFTs in external or hierarchical memory", J.
// Supercomputing 4(1), 1990): with N = a b, local FFTs of lengths b and a (FFTW) between three
// transposes, which are two REDISTRIBUTEs and one permuted assignment (docs/redistribute.md,
// docs/sections.md). Prints HPCC's metric, 5 N log2(N) / time in GFLOP/s (median time of the
// repeats), and HPCC's check: the backward transform gives the input back within 16 eps ln(N).
//   mpirun -n 2 ./hpcc_fft1d [m, default 20] [repeats, default 5]
#include "fft_along.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <vector>

using hpf::Collapsed, hpf::Block, hpf::DistArray, hpf::Index, hpf::Layout, hpf::index_t;

/// The DFT of x(0 : a b - 1), held as X(i, j) = x(i + a j) of extents (a, b) laid out (*, BLOCK),
/// into Out(k1, k2) = DFT(x)(k1 + b k2) of extents (b, a), laid out (*, BLOCK) too. Plans are made
/// once, on arrays that stay in place.
class Fft1d {
public:
  Fft1d(const hpf::ProcessGrid& grid, index_t a, index_t b, int sign, unsigned flags)
      : m_y("Y", Layout<2>({a, b}, {Block(), Collapsed()}, grid)),
        m_z("Z", Layout<2>({a, b}, {Collapsed(), Block()}, grid)), m_w("W", m_y.layout()),
        m_fft_y(m_y, {1}, sign, flags), m_fft_z(m_z, {0}, sign, flags) {
    const index_t n = a * b;
    hpf::forall(m_w, [=](const Index<2>& g, cplx& w) {
      w = std::polar(1.0, sign * 2 * std::numbers::pi * static_cast<double>(g[0] * g[1] % n) / n);
    });
  }
  void operator()(const DistArray<cplx, 2>& x, DistArray<cplx, 2>& out) {
    DistArray<cplx, 2>::redistribute_into(x, m_y); // every j on one rank: Y(i, :) is local
    m_fft_y();                                     // Y(i, k1) = sum_j X(i, j) w_b^(j k1)
    hpf::forall(m_y, m_w, [](const Index<2>&, cplx& y, const cplx& w) { y *= w; }); // times w_N^(i k1)
    DistArray<cplx, 2>::redistribute_into(m_y, m_z);                                // every i on one rank
    m_fft_z(); // Z(k2, k1) = DFT(x)(k1 + b k2)
    hpf::assign(out, hpf::whole_section<2>(out.layout().extents()), m_z,
                hpf::whole_section<2>(m_z.layout().extents()), {1, 0});
  }

private:
  DistArray<cplx, 2> m_y, m_z, m_w;
  FftAlong<2> m_fft_y, m_fft_z;
};

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const int m = argc > 1 ? std::atoi(argv[1]) : 20;
    if (m < 1 || m > 40) { // every rank reads the same arguments, so every rank stops here
      if (env.rank() == 0) std::fprintf(stderr, "hpcc_fft1d: m must be in [1, 40], got %d\n", m);
      return 1;
    }
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
    const index_t b = index_t{1} << (m / 2), a = (index_t{1} << m) / b, n = a * b;
    const auto grid = hpf::ProcessGrid::world({env.size()});
    DistArray<cplx, 2> x("x", Layout<2>({a, b}, {Collapsed(), Block()}, grid));
    DistArray<cplx, 2> X("X", Layout<2>({b, a}, {Collapsed(), Block()}, grid));
    Fft1d forward(grid, a, b, FFTW_FORWARD, FFTW_MEASURE), backward(grid, b, a, FFTW_BACKWARD, FFTW_MEASURE);
    const auto input = [=](const Index<2>& g) {
      const auto k = 2 * static_cast<unsigned long long>(g[0] + a * g[1]);
      return cplx(random_at(k), random_at(k + 1));
    };
    hpf::forall(x, [=](const Index<2>& g, cplx& v) { v = input(g); });

    std::vector<double> time;
    for (int r = 0; r < repeats; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t = -MPI_Wtime();
      forward(x, X);
      t += MPI_Wtime();
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      time.push_back(t);
    }
    std::nth_element(time.begin(), time.begin() + repeats / 2, time.end());
    const double gflops = 5.0 * n * m / time[static_cast<std::size_t>(repeats / 2)] / 1e9;

    // HPCC's check (verification): max |x - IDFT(DFT(x))| / (eps ln N) < 16; and two coefficients
    // against their sums, DFT(x)(k) = sum_j x(j) exp(-2 pi i j k / N), which a wrong transform whose
    // inverse undoes it would fail.
    bool direct_ok = true;
    for (const index_t k : {index_t{1}, n / 3}) {
      DistArray<cplx, 2> t("t", x.layout());
      hpf::forall(x, t, [=](const Index<2>& g, const cplx& v, cplx& u) {
        u = v * std::polar(1.0, -2 * std::numbers::pi * static_cast<double>((g[0] + a * g[1]) * k % n) / n);
      });
      cplx got = X.owns({k % b, k / b}) ? X[{k % b, k / b}] : cplx{};
      MPI_Allreduce(MPI_IN_PLACE, &got, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
      direct_ok = direct_ok && std::abs(got - hpf::sum(t)) < 1e-9 * static_cast<double>(n);
    }
    backward(X, x);
    hpf::forall(x, [=](const Index<2>& g, cplx& v) { v = v / static_cast<double>(n) - input(g); });
    const double err =
        std::abs(hpf::reduce(x, cplx{}, [](cplx u, cplx v) { return std::abs(v) > std::abs(u) ? v : u; }));
    const bool ok = direct_ok && err / std::log(static_cast<double>(n)) / 0x1.0p-53 < 16.0;
    if (env.rank() == 0)
      std::printf("hpcc fft1d: N 2^%d, processes %d, GFLOP/s %.3f, max|x-x0| %.3e, check %s\n", m, env.size(),
                  gflops, err, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
  } catch (const hpf::Error& e) { // a bad size names itself: extent, block size, grid
    std::fprintf(stderr, "hpcc_fft1d: %s\n", e.what());
    return 1;
  }
}
