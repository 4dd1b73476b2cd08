// A 2-D or 3-D complex FFT on hpfrt, the way FFT libraries decompose it: local FFTs (FFTW) along
// the dimensions a rank holds whole, and a REDISTRIBUTE to the next layout between them
// (docs/redistribute.md). Slabs: a 1-D process grid, the last dimension distributed; the move between
// the two stages is a transposing assignment (hpf::assign with a permutation), so that the dimension
// transformed next is the contiguous one of the local block, as FFTW-MPI's transposed output does.
// Pencils (3-D only): a 2-D grid, two dimensions distributed; each REDISTRIBUTE then moves data only
// within a row or a column of the grid. The result is left in the last stage's array (transposed
// output, for slabs with its dimensions permuted). Prints GFLOP/s as HPCC counts them (5 N log2(N) / median time) and checks that the
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
#include <numeric>
#include <numbers>
#include <vector>

using hpf::Collapsed, hpf::Block, hpf::DistArray, hpf::Index, hpf::Layout, hpf::index_t;

/// The stages of an N-D FFT: stage k's array holds the dimensions it transforms whole, and its own
/// dimension d is the transform's dimension perm(k)[d]. Slabs: stage 0 transforms the leading N - 1
/// dimensions, stage 1 the last, moved to the front (contiguous). Pencils: stage k transforms
/// dimension k, every other one distributed.
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
      hpf::Permutation<N> perm;
      std::iota(perm.begin(), perm.end(), 0);
      if (pencil) { // every dimension but k distributed
        for (int e = 0; e < N; ++e)
          if (e != k) dists[static_cast<std::size_t>(e)] = Block();
      } else { // slabs: the last dimension distributed; stage 1 has the transform's last one first
        dists[N - 1] = Block();
        if (k == 1) std::rotate(perm.begin(), perm.end() - 1, perm.end());
      }
      m_perm.push_back(perm);
      m_a.push_back(
          std::make_unique<DistArray<cplx, N>>("A" + std::to_string(k), Layout<N>(ext, dists, grid)));
      std::vector<int> along{pencil ? k : 0};
      if (!pencil && k == 0)
        for (int e = 1; e < N - 1; ++e) along.push_back(e);
      m_fft.push_back(std::make_unique<FftAlong<N>>(*m_a.back(), along, sign, flags));
    }
  }
  DistArray<cplx, N>& first() { return *m_a.front(); }
  DistArray<cplx, N>& last() { return *m_a.back(); }
  [[nodiscard]] std::size_t stages() const { return m_a.size(); }
  /// Stage k's dimension d is the transform's dimension perm(k)[d].
  const hpf::Permutation<N>& perm(std::size_t k) const { return m_perm[k]; }
  /// Forward: first() to last(). Backward (reverse): last() to first().
  void operator()(bool reverse = false) {
    const auto n = m_a.size();
    for (std::size_t s = 0; s < n; ++s) {
      const std::size_t k = reverse ? n - 1 - s : s;
      (*m_fft[k])();
      if (s + 1 < n) move(k, reverse ? k - 1 : k + 1);
    }
  }

private:
  /// Stage `to`'s array from stage `from`'s: a REDISTRIBUTE, or a transposing assignment where their
  /// dimensions are in another order (both keep local_data(), on which the FFTW plans were made).
  void move(std::size_t from, std::size_t to) {
    if (m_perm[from] == m_perm[to]) {
      DistArray<cplx, N>::redistribute_into(*m_a[from], *m_a[to]);
      return;
    }
    hpf::Permutation<N> p; // stage to's dimension d is stage from's dimension p[d]
    for (int d = 0; d < N; ++d)
      p[d] = static_cast<int>(std::find(m_perm[from].begin(), m_perm[from].end(), m_perm[to][d]) -
                              m_perm[from].begin());
    const auto all = hpf::whole_section<N>(m_a[to]->layout().extents());
    hpf::assign(*m_a[to], all, *m_a[from], all, p);
  }

  std::vector<std::unique_ptr<DistArray<cplx, N>>> m_a;
  std::vector<hpf::Permutation<N>> m_perm;
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
  Index<N> k_last; // the coefficient's index in the last stage's array
  for (int e = 0; e < N; ++e) k[e] = (e + 1) % n;
  for (int e = 0; e < N; ++e) k_last[e] = k[forward.perm(forward.stages() - 1)[e]];
  DistArray<cplx, N> t("t", forward.first().layout());
  hpf::forall(t, [=](const Index<N>& g, cplx& u) {
    double phase = 0;
    for (int e = 0; e < N; ++e) phase += static_cast<double>(g[e] * k[e] % n) / n;
    u = input(g) * std::polar(1.0, -2 * std::numbers::pi * phase);
  });
  cplx got = forward.last().owns(k_last) ? forward.last()[k_last] : cplx{};
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
