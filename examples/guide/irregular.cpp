// Guide example for docs/irregular.md: gathers and scatters through index lists (inspector /
// executor plans).  mpirun -n 3 ./guide_irregular
#include <hpf/hpf.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const int size = hpf::comm_size(MPI_COMM_WORLD);
    const int me = hpf::comm_rank(MPI_COMM_WORLD);
    const hpf::index_t n = 100;
    const hpf::Layout<1> L({n}, {hpf::Cyclic(4)}, hpf::ProcessGrid::world({size}));
    hpf::DistArray<double, 1> x("x", L);
    hpf::forall(x, [](const hpf::Index<1>& g, double& v) { v = double(g[0]); });

    // Each rank asks for its own list of global indices (any order, duplicates allowed).
    std::vector<hpf::index_t> idx;
    for (hpf::index_t k = 0; k < 20; ++k) idx.push_back((7 * k + 13 * me) % n);
    idx.push_back(idx.front()); // a duplicate

    // The inspector (collective, once): where every index lives and the communication schedule.
    const hpf::GatherPlan<double, 1> gather(x, idx);
    const hpf::ScatterPlan<double, 1> scatter(x, idx);

    // The executors (collective, as often as needed).
    const std::vector<double> y = gather.execute(x); // y[k] = x(idx[k])
    bool ok = y.size() == idx.size();
    for (std::size_t k = 0; k < idx.size() && ok; ++k) ok = y[k] == double(idx[k]);

    // x(idx[k]) += 1 for every k of every rank: duplicates add up.
    const std::vector<double> ones(idx.size(), 1.0);
    scatter.execute(x, ones); // default op: std::plus
    const double added = hpf::sum(x) - double(n * (n - 1) / 2);
    ok = ok && added == double(size) * double(idx.size());

    int all_ok = ok ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (me == 0)
      std::printf("guide irregular: %d steps (%s): %s\n", gather.schedule().num_steps(),
                  hpf::to_string(gather.mode()).c_str(), all_ok ? "OK" : "WRONG");
    return all_ok ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "guide_irregular: %s\n", e.what());
    return 1;
  }
}
