// A 2-D or 3-D complex FFT on hpfrt, the way FFT libraries decompose it: local FFTs (FFTW) along
// the dimensions a rank holds whole, and a REDISTRIBUTE to the next layout between them
// (docs/redistribute.md). Slabs: a 1-D process grid, one dimension distributed at a time. Pencils
// (3-D only): a 2-D grid, two dimensions distributed; each REDISTRIBUTE then moves data only within a row
// or a column of the grid. The result is left in the last layout (what FFTW-MPI calls transposed
// output). Prints GFLOP/s as HPCC counts them (5 N log2(N) / median time) and checks that the
// backward transform gives the input back within 16 eps ln(N), HPCC's rule.
//   mpirun -n 4 ./hpcc_fftnd [dims 2|3, default 3] [n per dimension, default 128] [slab|pencil]
//                            [repeats, default 5]
#include "fft_along.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numbers>
#include <vector>

using hpf::Collapsed, hpf::Block, hpf::DistArray, hpf::Index, hpf::Layout, hpf::index_t;

/// The stages of an N-D FFT: at stage k the array is laid out with dimension k held whole (slabs:
/// for N = 3, stage 0 holds dimensions 0 and 1 whole), and the local FFT runs along it.
template <int N> class FftNd {
public:
  FftNd(index_t n, bool pencil, int sign, unsigned flags) {
    const int size = hpf::comm_size(MPI_COMM_WORLD);
    const auto pq = near_square(size);
    const auto grid = pencil ? hpf::ProcessGrid::world({pq[0], pq[1]}) : hpf::ProcessGrid::world({size});
    Index<N> ext;
    ext.fill(n);
    const int stages = pencil ? N : 2;
    for (int k = 0; k < stages; ++k) {
      std::array<hpf::Distribution, N> dists;
      dists.fill(Collapsed());
      if (pencil) { // every dimension but k distributed
        for (int e = 0; e < N; ++e)
          if (e != k) dists[static_cast<std::size_t>(e)] = Block();
      } else { // slabs: the last dimension, then the first
        dists[k == 0 ? N - 1 : 0] = Block();
      }
      m_a.push_back(
          std::make_unique<DistArray<cplx, N>>("A" + std::to_string(k), Layout<N>(ext, dists, grid)));
      std::vector<int> along{k};
      if (!pencil)
        along = k == 1 ? std::vector<int>{N - 1} : N == 3 ? std::vector<int>{0, 1} : std::vector<int>{0};
      m_fft.push_back(std::make_unique<FftAlong<N>>(*m_a.back(), along, sign, flags));
    }
  }
  DistArray<cplx, N>& first() { return *m_a.front(); }
  DistArray<cplx, N>& last() { return *m_a.back(); }
  /// Forward: first() to last(). Backward (reverse): last() to first().
  void operator()(bool reverse = false) {
    const auto n = m_a.size();
    for (std::size_t s = 0; s < n; ++s) {
      const std::size_t k = reverse ? n - 1 - s : s;
      (*m_fft[k])();
      if (s + 1 < n) DistArray<cplx, N>::redistribute_into(*m_a[k], *m_a[reverse ? k - 1 : k + 1]);
    }
  }

private:
  std::vector<std::unique_ptr<DistArray<cplx, N>>> m_a;
  std::vector<std::unique_ptr<FftAlong<N>>> m_fft;
};

template <int N> bool run(const hpf::Environment& env, index_t n, bool pencil, int repeats) {
  FftNd<N> forward(n, pencil, FFTW_FORWARD, FFTW_MEASURE);
  const auto input = [=](const Index<N>& g) {
    unsigned long long k = 0;
    for (int e = N; e-- > 0;)
      k = k * static_cast<unsigned long long>(n) + static_cast<unsigned long long>(g[e]);
    return cplx(random_at(2 * k), random_at(2 * k + 1));
  };
  std::vector<double> time;
  for (int r = 0; r < repeats; ++r) {
    hpf::forall(forward.first(), [=](const Index<N>& g, cplx& v) { v = input(g); });
    MPI_Barrier(MPI_COMM_WORLD);
    double t = -MPI_Wtime();
    forward();
    t += MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    time.push_back(t);
  }
  std::nth_element(time.begin(), time.begin() + repeats / 2, time.end());
  const double total = std::pow(static_cast<double>(n), N);
  const double gflops = 5.0 * total * std::log2(total) / time[static_cast<std::size_t>(repeats / 2)] / 1e9;

  // HPCC's check (verification): max |x - IDFT(DFT(x))| / (eps ln N) < 16, the backward transform
  // through the same stages in reverse, on arrays that share forward's layouts; and coefficient
  // (1, 2, ...) against its sum, which a wrong transform whose inverse undoes it would fail.
  Index<N> k;
  for (int e = 0; e < N; ++e) k[e] = (e + 1) % n;
  DistArray<cplx, N> t("t", forward.first().layout());
  hpf::forall(t, [=](const Index<N>& g, cplx& u) {
    double phase = 0;
    for (int e = 0; e < N; ++e) phase += static_cast<double>(g[e] * k[e] % n) / n;
    u = input(g) * std::polar(1.0, -2 * std::numbers::pi * phase);
  });
  cplx got = forward.last().owns(k) ? forward.last()[k] : cplx{};
  MPI_Allreduce(MPI_IN_PLACE, &got, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
  const bool direct_ok = std::abs(got - hpf::sum(t)) < 1e-9 * total;
  FftNd<N> backward(n, pencil, FFTW_BACKWARD, FFTW_ESTIMATE);
  DistArray<cplx, N>::redistribute_into(forward.last(), backward.last());
  backward(true);
  hpf::forall(backward.first(), [=](const Index<N>& g, cplx& v) { v = v / total - input(g); });
  const double err = std::abs(hpf::reduce(backward.first(), cplx{},
                                          [](cplx u, cplx v) { return std::abs(v) > std::abs(u) ? v : u; }));
  const bool ok = direct_ok && err / std::log(total) / 0x1.0p-53 < 16.0;
  if (env.rank() == 0)
    std::printf("hpcc fftnd: %dD %lld^%d, %s, processes %d, GFLOP/s %.3f, max|x-x0| %.3e, check %s\n", N,
                static_cast<long long>(n), N, pencil ? "pencils" : "slabs", env.size(), gflops, err,
                ok ? "OK" : "FAILED");
  return ok;
}

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const int dims = argc > 1 ? std::atoi(argv[1]) : 3;
    const index_t n = argc > 2 ? std::atoll(argv[2]) : 128;
    const bool pencil = argc > 3 && std::strcmp(argv[3], "pencil") == 0;
    const int repeats = argc > 4 ? std::atoi(argv[4]) : 5;
    const bool ok = dims == 2 ? run<2>(env, n, false, repeats) : run<3>(env, n, pencil, repeats);
    return ok ? 0 : 1;
  } catch (const hpf::Error& e) { // a bad size names itself: extent, block size, grid
    std::fprintf(stderr, "hpcc_fftnd: %s\n", e.what());
    return 1;
  }
}
