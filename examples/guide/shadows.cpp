// Guide example for docs/shadows.md: SHADOW widths, shadow updates (plain, periodic, split phase),
// CSHIFT and EOSHIFT.  mpirun -n 3 ./guide_shadows
#include <hpf/hpf.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const int size = hpf::comm_size(MPI_COMM_WORLD);
    const int me = hpf::comm_rank(MPI_COMM_WORLD);
    const hpf::index_t n = 12;
    const hpf::Layout<1> L({n}, {hpf::Block()}, hpf::ProcessGrid::world({size}));

    // !HPF$ SHADOW u(1): one slot on each side of every local block.
    hpf::DistArray<double, 1> u("u", L.with_shadow({1}));
    hpf::forall(u, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });

    // Periodic update: every neighbour slot is filled, wrapping around the ends of the array.
    u.update_shadow(hpf::Boundary::Periodic);
    hpf::DistArray<double, 1> next("next", L);
    hpf::forall(next, [&](const hpf::Index<1>& g, double& x) {
      x = u.shadow({g[0] - 1}) + u.shadow({g[0] + 1}); // neighbours, owned or in the shadow
    });
    // sum of (g - 1 + g + 1) mod n = 2 * sum(g)
    bool ok = hpf::sum(next) == 2.0 * double(n * (n - 1) / 2);

    // Split phase: start the exchange, work on owned data, then wait.
    u.post_shadow(); // Boundary::Plain: slots outside the array keep their values
    const double owned_total = hpf::sum(u); // reads owned elements only
    u.wait_shadow();
    ok = ok && owned_total == double(n * (n - 1) / 2);

    // CSHIFT and EOSHIFT along dimension 0, into new arrays of u's layout.
    const auto c = hpf::cshift(u, 1, 0);        // c(i) = u((i + 1) mod n)
    const auto e = hpf::eoshift(u, 1, 0, -1.0); // e(i) = u(i + 1), and -1 past the end
    const std::vector<double> cg = c.gather(0);
    const std::vector<double> eg = e.gather(0);
    if (me == 0) {
      ok = ok && cg[0] == 1 && cg[static_cast<std::size_t>(n - 1)] == 0;
      ok = ok && eg[0] == 1 && eg[static_cast<std::size_t>(n - 1)] == -1;
    }
    int all_ok = ok ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (me == 0) std::printf("guide shadows: %s\n", all_ok ? "OK" : "WRONG");
    return all_ok ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "guide_shadows: %s\n", e.what());
    return 1;
  }
}
