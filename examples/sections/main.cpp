// sections: HPF array-section assignment and TRANSPOSE with hpfrt (docs/sections.md).
//
//   mpirun -n 4 ./sections_example        (any number of ranks works)
//
//  1. B(0:n-1:2, 1) = A(3, 0:m-1): a strided column of B (CYCLIC(2) rows) takes a row of A
//     (BLOCK x CYCLIC(3) on a 1 x P grid); the scalar subscripts pair up as in Fortran.
//  2. The same assignment again through an explicit, reusable SectionPlan, reversed: B(n-1:0:-2, 1).
//  3. C = TRANSPOSE(A) onto (CYCLIC(1), *) over the ranks in reverse order.
// Every result is gathered on rank 0 and compared with the serial program's; the last line says
// "ok" only if all three agree.
#include <hpf/hpf.hpp>

#include <cstdio>
#include <numeric>
#include <vector>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    int size = 0;
    int me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const bool root = me == 0;
    const hpf::index_t n = 21;          // rows of B
    const hpf::index_t m = (n + 1) / 2; // columns of A = elements of B(0:n-1:2, 1)
    const hpf::index_t rows = 5;        // rows of A

    const hpf::Layout<2> la({rows, m}, {hpf::Block(), hpf::Cyclic(3)},
                            hpf::ProcessGrid(MPI_COMM_WORLD, {1, size}));
    const hpf::Layout<2> lb({n, 3}, {hpf::Cyclic(2), hpf::Collapsed()}, hpf::ProcessGrid::world({size}));
    hpf::DistArray<double, 2> A("A", la);
    hpf::DistArray<double, 2> B("B", lb);
    // A(i, j) = 100 i + j; B = -1.
    hpf::forall(A, [](const hpf::Index<2>& g, double& x) {
      x = 100.0 * static_cast<double>(g[0]) + static_cast<double>(g[1]);
    });
    B.fill(-1.0);
    std::vector<double> serial_a(static_cast<std::size_t>(rows * m));
    for (hpf::index_t j = 0; j < m; ++j)
      for (hpf::index_t i = 0; i < rows; ++i)
        serial_a[static_cast<std::size_t>(i + rows * j)] =
            100.0 * static_cast<double>(i) + static_cast<double>(j);
    std::vector<double> serial_b(static_cast<std::size_t>(n * 3), -1.0);
    bool ok = true;

    // ---- 1. B(0:n-1:2, 1) = A(3, 0:m-1) ------------------------------------------------------
    hpf::assign(B, hpf::Section<2>{{{0, n - 1, 2}, {1, 1, 1}}}, A,
                hpf::Section<2>{{{3, 3, 1}, {0, m - 1, 1}}});
    for (hpf::index_t j = 0; j < m; ++j)
      serial_b[static_cast<std::size_t>(2 * j + n)] = serial_a[static_cast<std::size_t>(3 + rows * j)];
    std::vector<double> got = B.gather(0);
    if (root) {
      const bool same = got == serial_b;
      ok = ok && same;
      std::printf("1. B(0:%lld:2, 1) = A(3, 0:%lld) on %d ranks: column 1 of B =",
                  static_cast<long long>(n - 1), static_cast<long long>(m - 1), size);
      for (hpf::index_t i = 0; i < n; ++i) std::printf(" %g", got[static_cast<std::size_t>(i + n)]);
      std::printf("  [%s]\n", same ? "matches the serial program" : "DIFFERS from the serial program");
    }

    // ---- 2. an explicit plan, reversed stride, executed twice ------------------------------------
    const hpf::Section<2> sb{{{n - 1, 0, -2}, {1, 1, 1}}};
    const hpf::Section<2> sa{{{3, 3, 1}, {0, m - 1, 1}}};
    hpf::SectionPlan<double, 2> plan(B.layout(), sb, A.layout(), sa);
    for (int rep = 0; rep < 2; ++rep) plan.execute(B, A);
    for (hpf::index_t j = 0; j < m; ++j)
      serial_b[static_cast<std::size_t>((n - 1 - 2 * j) + n)] =
          serial_a[static_cast<std::size_t>(3 + rows * j)];
    got = B.gather(0);
    if (root) {
      const bool same = got == serial_b;
      ok = ok && same;
      std::printf("2. B(%lld:0:-2, 1) = A(3, 0:%lld), a reusable plan (%d + %d steps per dimension): [%s]\n",
                  static_cast<long long>(n - 1), static_cast<long long>(m - 1),
                  plan.dim_schedule(0).num_steps(), plan.dim_schedule(1).num_steps(),
                  same ? "matches" : "DIFFERS");
    }

    // ---- 3. C = TRANSPOSE(A) on the ranks in reverse order ---------------------------------------
    std::vector<int> reversed(static_cast<std::size_t>(size));
    std::iota(reversed.rbegin(), reversed.rend(), 0);
    const hpf::Layout<2> lc({m, rows}, {hpf::Cyclic(1), hpf::Collapsed()},
                            hpf::ProcessGrid(MPI_COMM_WORLD, reversed, {size}));
    const hpf::DistArray<double, 2> C = hpf::transpose(A, lc);
    got = C.gather(0);
    if (root) {
      std::vector<double> want(serial_a.size());
      for (hpf::index_t i = 0; i < rows; ++i)
        for (hpf::index_t j = 0; j < m; ++j)
          want[static_cast<std::size_t>(j + m * i)] = serial_a[static_cast<std::size_t>(i + rows * j)];
      const bool same = got == want;
      ok = ok && same;
      std::printf("3. C = TRANSPOSE(A), %lld x %lld -> %lld x %lld (CYCLIC(1), *): [%s]\n",
                  static_cast<long long>(rows), static_cast<long long>(m), static_cast<long long>(m),
                  static_cast<long long>(rows), same ? "matches" : "DIFFERS");
      std::printf("%s\n", ok ? "ok: all sections match the serial program" : "FAILED");
    }
    int all_ok = ok ? 1 : 0;
    MPI_Bcast(&all_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return all_ok ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
