// Guide example for docs/series.md: a series of reductions and a series of scatters that repeat
// over the phases of a program, on a steady-state schedule.  mpirun -n 3 ./guide_series
#include <hpf/hpf.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const int size = hpf::comm_size(MPI_COMM_WORLD);
    const int me = hpf::comm_rank(MPI_COMM_WORLD);
    const hpf::index_t n = 8 * size;
    const hpf::Layout<1> layout({n}, {hpf::Block()}, hpf::ProcessGrid::world({size}));
    hpf::DistArray<double, 1> A("A", layout);
    const int phases = 20;

    // Collective, once: measure the platform, solve the steady-state LP, choose how to run.
    hpf::SeriesOptions opts; // root 0, SeriesStrategy::Auto
    opts.expected = phases;
    hpf::ReductionSeries<double> red(layout, [](double x, double y) { return x + y; }, opts);
    hpf::ScatterSeries<double> scat(layout, opts);

    std::vector<double> whole(static_cast<std::size_t>(n));
    for (int t = 0; t < phases; ++t) {
      hpf::forall(A, [t](const hpf::Index<1>& g, double& x) { x = double(g[0] + t); });
      red.submit(A); // folds this rank's elements; communicates only when a batch is full
      for (hpf::index_t i = 0; i < n; ++i) whole[static_cast<std::size_t>(i)] = double(t * i);
      scat.submit(whole); // significant on the root only
    }
    red.wait_all();
    scat.wait_all();

    bool ok = true;
    for (int t = 0; t < phases; ++t) {
      const std::optional<double> r = red.result(t); // on the root; std::nullopt elsewhere
      ok = ok && (me != 0 || *r == double(n * (n - 1) / 2 + n * t));
    }
    scat.result(phases - 1, A); // the last phase's blocks into A
    ok = ok && hpf::sum(A) == double((phases - 1) * n * (n - 1) / 2);

    if (me == 0)
      std::printf("guide series: reductions ran as %s, scatters as %s: %s\n",
                  hpf::to_string(red.choice().chosen).c_str(), hpf::to_string(scat.choice().chosen).c_str(),
                  ok ? "OK" : "WRONG");
    return ok ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "guide_series: %s\n", e.what());
    return 1;
  }
}
