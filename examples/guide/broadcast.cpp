// Guide example for docs/broadcast.md: an adaptive broadcast chosen from the pLogP model of the
// machine, and one of a named algorithm.  mpirun -n 3 ./guide_broadcast
#include <hpf/hpf.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const int me = hpf::comm_rank(MPI_COMM_WORLD);
    const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
    const std::size_t count = 10000; // doubles
    std::vector<double> v(count, me == 0 ? 1.5 : 0.0);

    // Plan once: pLogP from the machine model (HPF_MACHINE_MODEL, or measured once per
    // communicator), the predicted best of the broadcast algorithms, checked against MPI_Bcast.
    const auto bcast = hpf::AdaptiveBroadcast::measured(comm, count * sizeof(double));
    for (int t = 0; t < 3; ++t) bcast.execute(v, 0); // collective, every rank the same size
    bool ok = v[count - 1] == 1.5;

    // A named algorithm of the model (here a binomial tree), without calibration.
    const hpf::AdaptiveBroadcast binomial(comm, hpf::BcastAlgorithm::binomial, 4096);
    std::vector<int> w(16, me == 1 % hpf::comm_size(MPI_COMM_WORLD) ? 7 : 0);
    binomial.execute(w, 1 % hpf::comm_size(MPI_COMM_WORLD)); // root: rank 1 (rank 0 alone)
    ok = ok && w[15] == 7;

    int all_ok = ok ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (me == 0)
      std::printf("guide broadcast: model chose %s: %s\n", hpf::to_string(bcast.algorithm()).c_str(),
                  all_ok ? "OK" : "WRONG");
    return all_ok ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "guide_broadcast: %s\n", e.what());
    return 1;
  }
}
