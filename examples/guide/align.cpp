// Guide example for docs/align.md: GEN_BLOCK and INDIRECT distributions, ALIGN with a base array,
// and REALIGN (a REDISTRIBUTE of the base that carries an aligned array).  mpirun -n 3 ./guide_align
#include <hpf/hpf.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const int size = hpf::comm_size(MPI_COMM_WORLD);
    const int me = hpf::comm_rank(MPI_COMM_WORLD);
    const auto grid = hpf::ProcessGrid::world({size});
    const hpf::index_t n = 10;

    // GEN_BLOCK: the last process gets half of the array, the others share the rest.
    std::vector<hpf::index_t> sizes(static_cast<std::size_t>(size), 0);
    sizes.back() = n / 2;
    for (hpf::index_t i = 0; i < n - n / 2; ++i) sizes[static_cast<std::size_t>(i % size)] += 1;
    const hpf::Layout<1> gen({n}, {hpf::GenBlock(sizes)}, grid);

    // INDIRECT: element i belongs to grid coordinate (i * i) mod size (the table is the same everywhere).
    std::vector<int> owners(static_cast<std::size_t>(n));
    for (hpf::index_t i = 0; i < n; ++i) owners[static_cast<std::size_t>(i)] = int(i * i % size);
    const hpf::Layout<1> ind({n}, {hpf::Indirect(owners)}, grid);

    hpf::DistArray<double, 1> A("A", gen);
    hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
    A.redistribute(ind); // REDISTRIBUTE works between any two distributions
    bool ok = A.owns({3}) == (me == int(9 % size)) && hpf::sum(A) == 45;

    // ALIGN X(i) WITH A(2*i + 1): X has 4 elements, each on the owner of A(2i + 1).
    hpf::Alignment<1, 1> al;
    al.dims[0] = {0, 2, 1}; // base dimension 0, stride 2, offset 1
    hpf::DistArray<double, 1> X("X", hpf::Layout<1>::aligned(A.layout(), al, {4}));
    hpf::forall(X, [](const hpf::Index<1>& g, double& x) { x = double(2 * g[0] + 1); });
    for (hpf::index_t i = 0; i < 4; ++i) ok = ok && A.owns({2 * i + 1}) == X.owns({i});

    // REALIGN: the base goes to CYCLIC(2) and X follows it, keeping its values.
    hpf::realign(A, hpf::Layout<1>({n}, {hpf::Cyclic(2)}, grid), hpf::aligned_with(X, al));
    for (hpf::index_t i = 0; i < 4; ++i) ok = ok && A.owns({2 * i + 1}) == X.owns({i});
    ok = ok && hpf::sum(X) == 1 + 3 + 5 + 7;

    int all_ok = ok ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (me == 0)
      std::printf("guide align: %s and %s: %s\n", gen.dist(0).to_string().c_str(),
                  X.layout().dist(0).to_string().c_str(), all_ok ? "OK" : "WRONG");
    return all_ok ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "guide_align: %s\n", e.what());
    return 1;
  }
}
