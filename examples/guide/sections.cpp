// Guide example for docs/sections.md: array-section assignment between different layouts and a
// transpose.  mpirun -n 3 ./guide_sections
#include <hpf/hpf.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const int size = hpf::comm_size(MPI_COMM_WORLD);
    const int me = hpf::comm_rank(MPI_COMM_WORLD);
    const auto line = hpf::ProcessGrid::world({size});

    // A is 6 x 8, (*, CYCLIC(2)); B is 8 x 6, (BLOCK, *).
    hpf::DistArray<double, 2> A("A", hpf::Layout<2>({6, 8}, {hpf::Collapsed(), hpf::Cyclic(2)}, line));
    hpf::DistArray<double, 2> B("B", hpf::Layout<2>({8, 6}, {hpf::Block(), hpf::Collapsed()}, line));
    hpf::forall(A, [](const hpf::Index<2>& g, double& x) { x = double(g[0] + 10 * g[1]); });

    // B(0:7:1, 2) = A(4, 7:0:-1)   (0-based triplets lo:hi:stride; a scalar subscript is k:k:1)
    const hpf::Section<2> sb{{{0, 7, 1}, {2, 2, 1}}};
    const hpf::Section<2> sa{{{4, 4, 1}, {7, 0, -1}}};
    hpf::assign(B, sb, A, sa); // collective; the plan is cached for the next identical call

    // C = TRANSPOSE(A), laid out (CYCLIC(1), *).
    const hpf::Layout<2> lc({8, 6}, {hpf::Cyclic(1), hpf::Collapsed()}, line);
    const hpf::DistArray<double, 2> C = hpf::transpose(A, lc);

    const std::vector<double> b = B.gather(0);
    const std::vector<double> c = C.gather(0);
    bool ok = true;
    if (me == 0)
      for (hpf::index_t i = 0; i < 8; ++i) {
        ok = ok && b[static_cast<std::size_t>(i + 8 * 2)] == double(4 + 10 * (7 - i)); // B(i, 2)
        for (hpf::index_t j = 0; j < 6; ++j)
          ok = ok && c[static_cast<std::size_t>(i + 8 * j)] == double(j + 10 * i); // C(i, j) = A(j, i)
      }
    if (me == 0) std::printf("guide sections: %s\n", ok ? "OK" : "WRONG");
    return ok ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "guide_sections: %s\n", e.what());
    return 1;
  }
}
