// 2-D Jacobi heat equation on a BLOCK x BLOCK grid, with SHADOW regions (HPF 2.0).
//
//   mpirun -np P stencil_heat [n m steps]
//
// u is n x m, held on a near-square process grid (P = a x b, a >= b). Each step replaces every inner
// point by a 9-point average of itself and its 8 neighbours (diagonals included, so the shadow's
// corners matter); the boundary stays fixed (Dirichlet). Width-1 shadows are updated by
// update_shadow() once per step, and the kernel reads neighbours straight from the Kokkos view: with
// shadow width w, owned local index (i, j) sits at view(i + w, j + w) on BLOCK dimensions, so
// view(i + w - 1, j + w) is the west neighbour even when it belongs to another rank.
// After `steps` steps, rank 0 compares the gathered result with the same loop run serially, and the
// program exits non-zero unless they agree exactly.
#include <hpf/hpf.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace {

double initial(hpf::index_t i, hpf::index_t j) {
  return std::sin(0.3 * static_cast<double>(i)) + 0.01 * static_cast<double>(j * j % 17);
}

/// new(i, j) from the 3 x 3 neighbourhood of an inner point: the same arithmetic, in the same order,
/// serially and distributed, so the results must agree bit for bit.
template <class At> double relax(At at) {
  const double edges = at(-1, 0) + at(1, 0) + at(0, -1) + at(0, 1);
  const double corners = at(-1, -1) + at(1, -1) + at(-1, 1) + at(1, 1);
  return (4.0 * at(0, 0) + 2.0 * edges + corners) / 16.0;
}

std::vector<double> serial(hpf::index_t n, hpf::index_t m, int steps) {
  std::vector<double> u(static_cast<std::size_t>(n * m)), v;
  for (hpf::index_t j = 0; j < m; ++j)
    for (hpf::index_t i = 0; i < n; ++i) u[static_cast<std::size_t>(i + n * j)] = initial(i, j);
  v = u;
  for (int s = 0; s < steps; ++s) {
    for (hpf::index_t j = 1; j + 1 < m; ++j)
      for (hpf::index_t i = 1; i + 1 < n; ++i)
        v[static_cast<std::size_t>(i + n * j)] =
            relax([&](int di, int dj) { return u[static_cast<std::size_t>((i + di) + n * (j + dj))]; });
    std::swap(u, v);
  }
  return u;
}

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  const hpf::index_t n = argc > 1 ? std::atol(argv[1]) : 53;
  const hpf::index_t m = argc > 2 ? std::atol(argv[2]) : 38;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 25;
  int P = 1;
  int rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int b = 1;
  for (int f = 1; f * f <= P; ++f)
    if (P % f == 0) b = f;
  const auto grid = hpf::ProcessGrid::world({P / b, b});

  const hpf::Layout<2> L = hpf::Layout<2>({n, m}, {hpf::Block(), hpf::Block()}, grid).with_shadow({1, 1});
  hpf::DistArray<double, 2> U("U", L), V("V", L);
  hpf::forall(U, [](const hpf::Index<2>& g, double& x) { x = initial(g[0], g[1]); });
  hpf::forall(V, [](const hpf::Index<2>& g, double& x) { x = initial(g[0], g[1]); });

  for (int s = 0; s < steps; ++s) {
    U.update_shadow(); // collective: the neighbours' edges and corners into U's shadow
    // The kernel: owned local (i, j) is view (i + 1, j + 1); global indices from the layout's map.
    const auto u = U.local_view();
    const auto v = V.local_view();
    const hpf::Index<2> own = U.owned_extents();
    std::vector<hpf::index_t> gi(static_cast<std::size_t>(own[0])), gj(static_cast<std::size_t>(own[1]));
    for (hpf::index_t i = 0; i < own[0]; ++i) gi[static_cast<std::size_t>(i)] = U.global_index(0, i);
    for (hpf::index_t j = 0; j < own[1]; ++j) gj[static_cast<std::size_t>(j)] = U.global_index(1, j);
    for (hpf::index_t j = 0; j < own[1]; ++j) {
      const hpf::index_t J = gj[static_cast<std::size_t>(j)];
      if (J == 0 || J == m - 1) continue; // fixed boundary
      for (hpf::index_t i = 0; i < own[0]; ++i) {
        const hpf::index_t I = gi[static_cast<std::size_t>(i)];
        if (I == 0 || I == n - 1) continue;
        v(i + 1, j + 1) = relax([&](int di, int dj) { return u(i + 1 + di, j + 1 + dj); });
      }
    }
    std::swap(U, V); // the arrays trade storage (and cached exchanges): no copy
  }

  const std::vector<double> all = U.gather(0);
  int ok = 1;
  if (rank == 0) {
    const std::vector<double> ref = serial(n, m, steps);
    double worst = 0;
    for (std::size_t k = 0; k < ref.size(); ++k) worst = std::max(worst, std::abs(all[k] - ref[k]));
    ok = all == ref ? 1 : 0;
    std::printf(
        "stencil_heat: %lld x %lld, %d steps on %d ranks (%d x %d grid): max |distributed - serial| = %g "
        "(%s)\n",
        static_cast<long long>(n), static_cast<long long>(m), steps, P, P / b, b, worst,
        ok ? "identical" : "MISMATCH");
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok ? 0 : 1;
}
