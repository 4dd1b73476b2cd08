// Guide example for docs/redistribute.md: HPF REDISTRIBUTE in place, into another array, and through
// an explicit RedistributionPlan that is executed many times.  mpirun -n 3 ./guide_redistribute
#include <hpf/hpf.hpp>

#include <cstdio>

namespace {
/// Collective: true on every rank when every element of X holds f(its global index).
bool holds_index(hpf::DistArray<double, 1>& X) {
  int bad = 0;
  hpf::forall(X, [&](const hpf::Index<1>& g, double& x) { bad += x != double(g[0]) ? 1 : 0; });
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return any == 0;
}
} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const int size = hpf::comm_size(MPI_COMM_WORLD);
    const int me = hpf::comm_rank(MPI_COMM_WORLD);
    const hpf::index_t n = 1000;
    const auto all = hpf::ProcessGrid::world({size});
    const hpf::Layout<1> cyc3({n}, {hpf::Cyclic(3)}, all);
    const hpf::Layout<1> cyc5({n}, {hpf::Cyclic(5)}, all);

    hpf::DistArray<double, 1> X("X", cyc3);
    hpf::forall(X, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });

    // 1. In place: !HPF$ REDISTRIBUTE X(CYCLIC(5)). The plan is cached: moving back and forth
    //    between the same two layouts plans each direction once.
    X.redistribute(cyc5);
    bool ok = holds_index(X);

    // 2. To fewer processes: a grid over the first ceil(size / 2) ranks, BLOCK. Ranks outside the
    //    grid still call (the call is collective over the grid's parent communicator).
    std::vector<int> half;
    for (int r = 0; r < (size + 1) / 2; ++r) half.push_back(r);
    const hpf::ProcessGrid some(MPI_COMM_WORLD, half, {static_cast<int>(half.size())});
    X.redistribute(hpf::Layout<1>({n}, {hpf::Block()}, some));
    ok = ok && holds_index(X);

    // 3. Into another array, with options: a named schedule instead of Strategy::Auto.
    hpf::RedistOptions opt;
    opt.strategy = hpf::Strategy::KoenigStepwise;
    const hpf::DistArray<double, 1> Y = hpf::redistribute(X, cyc3, opt); // X is unchanged

    // 4. An explicit plan, built once (local, no communication) and executed many times.
    const hpf::RedistributionPlan<1> plan(cyc3, cyc5);
    hpf::DistArray<double, 1> Z("Z", cyc5);
    for (int t = 0; t < 3; ++t) plan.execute(Y, Z); // collective over the parent communicator
    ok = ok && holds_index(Z);

    if (me == 0)
      std::printf("guide redistribute: CYCLIC(3) -> CYCLIC(5) in %d steps (%s): %s\n",
                  plan.dim_schedule(0).num_steps(), hpf::to_string(plan.dim_strategy(0)).c_str(),
                  ok ? "OK" : "WRONG");
    return ok ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "guide_redistribute: %s\n", e.what());
    return 1;
  }
}
