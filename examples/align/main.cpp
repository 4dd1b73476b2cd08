// align: HPF ALIGN, replication and REALIGN with hpfrt (docs/align.md).
//
//   mpirun -n 4 ./align_example        (any number of ranks works)
//
// The HPF program it follows (1-based there, 0-based here):
//   REAL A(M, N), X(M), Y(N)
//   !HPF$ DYNAMIC A
//   !HPF$ DISTRIBUTE A(BLOCK, CYCLIC(2)) ONTO P(P0, P1)
//   !HPF$ ALIGN X(I) WITH A(I, *)          ! a copy of X on every process column
//   !HPF$ ALIGN Y(J) WITH A(M, N + 1 - J)  ! reversed, on the process row that owns A(M, :)
//   FORALL (I = 1:M, J = 1:N) A(I, J) = A(I, J) + X(I) * Y(N + 1 - J)   ! Y(N + 1 - J) sits on column J
//   !HPF$ REDISTRIBUTE A(CYCLIC(3), BLOCK)  ! X and Y follow A
//   FORALL (...) A(I, J) = A(I, J) + X(I)  ! still local
// Y lives on one process row only, so it is first REDISTRIBUTEd to Yr, aligned the same way but
// replicated over the process rows. Every X(i) and Yr(N - 1 - j) that the kernels read is then local to
// the process that holds A(i, j) (checked: operator[] throws otherwise). The results are gathered on rank 0
// and compared with the serial program's; the last line says "ok" only if they agree.
#include <hpf/hpf.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    int size = 0;
    int me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int p0 = 1;
    for (int d = 1; d * d <= size; ++d)
      if (size % d == 0) p0 = d;
    const int p1 = size / p0;
    const hpf::index_t M = 11;
    const hpf::index_t N = 7;
    const hpf::ProcessGrid grid(MPI_COMM_WORLD, {p0, p1});
    const hpf::Layout<2> la({M, N}, {hpf::Block(), hpf::Cyclic(2)}, grid);

    hpf::Alignment<1, 2> ax; // X(i) WITH A(i, *)
    ax.dims[0] = {0, 1, 0};
    hpf::Alignment<1, 2> ay; // Y(j) WITH A(M - 1, N - 1 - j)
    ay.dims[0] = {1, -1, N - 1};
    ay.base_index[0] = M - 1;

    hpf::DistArray<double, 2> A("A", la);
    hpf::DistArray<double, 1> X("X", hpf::Layout<1>::aligned(la, ax));
    hpf::DistArray<double, 1> Y("Y", hpf::Layout<1>::aligned(la, ay));
    hpf::forall(A, [](const hpf::Index<2>& g, double& a) { a = static_cast<double>(g[0] + 100 * g[1]); });
    hpf::forall(X, [](const hpf::Index<1>& g, double& x) { x = 0.5 * static_cast<double>(g[0]); });
    hpf::forall(Y, [](const hpf::Index<1>& g, double& y) { y = static_cast<double>(g[0] * g[0]); });
    if (me == 0)
      std::printf("A %s, X %s (%d copies), Y %s\n", la.describe_dists().c_str(),
                  X.layout().describe_dists().c_str(), X.layout().copies(),
                  Y.layout().describe_dists().c_str());

    // Y lives on one process row only; X(i) is local wherever A(i, :) is. Y is needed on every row:
    // REDISTRIBUTE it to a copy aligned with the same columns, replicated over the rows.
    hpf::Alignment<1, 2> ayr; // Y(j) WITH A(*, N - 1 - j): the same columns, every process row
    ayr.dims[0] = {1, -1, N - 1};
    hpf::DistArray<double, 1> Yr("Yr", hpf::Layout<1>::aligned(la, ayr));
    hpf::DistArray<double, 1>::redistribute_into(Y, Yr);
    hpf::forall(A, [&](const hpf::Index<2>& g, double& a) { a += X[{g[0]}] * Yr[{N - 1 - g[1]}]; });

    // REDISTRIBUTE A; X, Y and Yr follow it.
    const hpf::Layout<2> lb({M, N}, {hpf::Cyclic(3), hpf::Block()}, grid);
    hpf::realign(A, lb, hpf::aligned_with(X, ax), hpf::aligned_with(Y, ay), hpf::aligned_with(Yr, ayr));
    hpf::forall(A, [&](const hpf::Index<2>& g, double& a) { a += X[{g[0]}]; });

    const double sx = hpf::sum(X); // each element once, whatever the copies
    const std::vector<double> all = A.gather(0);
    if (me == 0) {
      std::vector<double> ref(static_cast<std::size_t>(M * N));
      double rsx = 0;
      for (hpf::index_t i = 0; i < M; ++i) rsx += 0.5 * static_cast<double>(i);
      for (hpf::index_t j = 0; j < N; ++j)
        for (hpf::index_t i = 0; i < M; ++i) {
          const double x = 0.5 * static_cast<double>(i);
          const double y = static_cast<double>((N - 1 - j) * (N - 1 - j));
          ref[static_cast<std::size_t>(i + M * j)] = static_cast<double>(i + 100 * j) + x * y + x;
        }
      const bool ok = all == ref && sx == rsx;
      std::printf("after REALIGN: A %s, X %s, Y %s\n", A.layout().describe_dists().c_str(),
                  X.layout().describe_dists().c_str(), Y.layout().describe_dists().c_str());
      std::printf("sum(X) = %g (serial %g)\n", sx, rsx);
      std::printf(ok ? "ok: align results match the serial program\n" : "FAILED: align results differ\n");
      if (!ok) MPI_Abort(MPI_COMM_WORLD, 1);
    }
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return 0;
}
