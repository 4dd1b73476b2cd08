// bench_adaptive_bcast: hpf::AdaptiveBroadcast against MPI_Bcast, in the same job, on MPI_COMM_WORLD.
//   adaptive  the algorithm of Table 1 of Steffenel that the measured pLogP model predicts fastest,
//             calibrated: its first call times it and MPI_Bcast (9 rounds each) and keeps
//             the plan only when it measures 5 % faster, agreed on every rank; that first call is in
//             the warm-up, not timed
//   model     the same plan uncalibrated (the model's choice alone)
// Also runs a few fixed algorithms (binomial, segmented chain, scatter/collection) for reference.
// Repetitions are interleaved across variants; each sample is the slowest rank's time after a barrier.
// Prints one CSV row per (size, variant): ranks, bytes, variant, algorithm, segment, predicted (s),
// median (s), min (s), median / MPI_Bcast median, and what the calibration ran (plan or mpi-bcast;
// "-" for uncalibrated variants).
//
//   mpiexec -n 4 bench_adaptive_bcast [--repeats 201] [--csv out.csv]
#include <hpf/adaptive/broadcast.hpp>
#include <hpf/core/mpi.hpp>

#include "../common/bench_common.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

struct MpiSession {
  MpiSession(int* argc, char*** argv) { HPF_MPI_CHECK(MPI_Init(argc, argv)); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  ~MpiSession() { MPI_Finalize(); }
};

struct Variant {
  std::string name;
  hpf::BcastAlgorithm algorithm = hpf::BcastAlgorithm::binomial;
  std::size_t segment = 0;
  double predicted = -1;
  std::function<void(std::vector<std::byte>&, int)> run;
  std::vector<double> samples;
};

int run(int argc, char** argv) {
  const auto [repeats, csv] = hpf::bench::parse_repeats_and_csv(argc, argv, {201, "-"});
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const int P = comm.size(), me = comm.rank();
  const hpf::PLogP model = hpf::measure_plogp(comm);
  hpf::bench::CsvWriter out;
  if (me == 0)
    out = hpf::bench::CsvWriter(
        csv,
        "ranks,bytes,variant,algorithm,segment,predicted_s,median_s,min_s,ratio_to_mpi,calibrated_choice");
  for (std::size_t bytes : {std::size_t(1) << 10, std::size_t(1) << 14, std::size_t(1) << 18,
                            std::size_t(1) << 20, std::size_t(1) << 22}) {
    std::vector<Variant> vs;
    const hpf::AdaptiveBroadcast adaptive =
        hpf::AdaptiveBroadcast::plan(comm, bytes, model, hpf::BcastCalibration{true});
    const hpf::AdaptiveBroadcast uncalibrated = hpf::AdaptiveBroadcast::plan(comm, bytes, model);
    const hpf::BcastChoice choice = hpf::choose_bcast(P, bytes, model);
    auto add = [&](std::string name, const hpf::AdaptiveBroadcast& b, double predicted) {
      vs.push_back(
          {std::move(name),
           b.algorithm(),
           b.segment(),
           predicted,
           [b](std::vector<std::byte>& buf, int root) { b.execute(std::span<std::byte>(buf), root); },
           {}});
    };
    add("adaptive", adaptive, choice.chosen().time);
    add("model", uncalibrated, choice.chosen().time);
    for (const auto& p : choice.predictions)
      if (p.algorithm == hpf::BcastAlgorithm::binomial ||
          p.algorithm == hpf::BcastAlgorithm::segmented_chain ||
          p.algorithm == hpf::BcastAlgorithm::scatter_collect)
        add(hpf::to_string(p.algorithm), hpf::AdaptiveBroadcast(comm, p.algorithm, p.segment), p.time);
    vs.push_back({"MPI_Bcast",
                  hpf::BcastAlgorithm::binomial,
                  0,
                  -1,
                  [&](std::vector<std::byte>& buf, int root) {
                    HPF_MPI_CHECK(
                        MPI_Bcast(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, root, comm.get()));
                  },
                  {}});
    std::vector<std::byte> buf(bytes, std::byte{1});
    // Every variant runs once per round; round r starts at variant r mod n, so that no variant always
    // follows the same one (the cache and the peers' progress after a variant differ between them).
    for (int r = -2; r < repeats; ++r) // two warm-up rounds
      for (std::size_t k = 0; k < vs.size(); ++k) {
        Variant& v = vs[(k + static_cast<std::size_t>(r + 2)) % vs.size()];
        HPF_MPI_CHECK(MPI_Barrier(comm.get()));
        const double t0 = MPI_Wtime();
        v.run(buf, 0);
        double t = MPI_Wtime() - t0;
        HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm.get()));
        if (r >= 0) v.samples.push_back(t);
      }
    if (me == 0) {
      const double mpi = hpf::median(vs.back().samples);
      for (const auto& v : vs) {
        const bool is_mpi = v.name == "MPI_Bcast";
        char predicted[32] = "";
        if (v.predicted >= 0) std::snprintf(predicted, sizeof predicted, "%.9g", v.predicted);
        std::string calibrated = "-";
        if (v.name == "adaptive") {
          const auto d = adaptive.decision(bytes, 0);
          calibrated = d && d->vendor ? "mpi-bcast" : "plan";
        }
        out.row("%d,%zu,%s,%s,%zu,%s,%.9g,%.9g,%.4f,%s\n", P, bytes, v.name.c_str(),
                is_mpi ? "open-mpi" : hpf::to_string(v.algorithm).c_str(), v.segment, predicted,
                hpf::median(v.samples), hpf::bench::min_of(v.samples), hpf::median(v.samples) / mpi,
                calibrated.c_str());
      }
    }
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_adaptive_bcast: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return 2;
}
