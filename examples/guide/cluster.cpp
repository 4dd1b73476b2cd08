// Guide example for docs/cluster.md: the machine model every cost-based choice reads. Prints the
// model of MPI_COMM_WORLD and, given a path, saves it as JSON for HPF_MACHINE_MODEL.
//   mpirun -n 2 --map-by node ./guide_cluster model.json     (measures: HPF_MACHINE_MODEL unset)
//   export HPF_MACHINE_MODEL=$PWD/model.json                 (later runs load it, measuring nothing)
#include <hpf/hpf.hpp>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv); // loads HPF_MACHINE_MODEL, or measures between ranks 0 and 1
  try {
    const int me = hpf::comm_rank(MPI_COMM_WORLD);
    const hpf::Comm world = hpf::Comm::duplicate(MPI_COMM_WORLD); // duplicates inherit the model
    const hpf::MachineModel m = hpf::machine_model(world);
    if (me == 0) {
      const char* from = std::getenv("HPF_MACHINE_MODEL");
      std::printf("machine model (%s): alpha %.3g s per message, beta %.3g s per byte (%.3g GB/s)\n",
                  from != nullptr ? from : "measured", m.alpha, m.beta, m.beta > 0 ? 1e-9 / m.beta : 0.0);
      if (argc > 1) {
        hpf::save_machine_model(m, argv[1]);
        const bool same = hpf::load_machine_model(argv[1]) == m; // the JSON round-trips
        std::printf("guide cluster: saved %s: %s\n", argv[1], same ? "OK" : "WRONG");
        return same ? 0 : 1;
      }
      std::printf("guide cluster: OK\n");
    }
    return 0;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "guide_cluster: %s\n", e.what());
    return 1;
  }
}
