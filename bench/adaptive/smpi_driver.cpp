// bench_adaptive_smpi: the adaptive broadcast of Steffenel at scale, built with
// smpicxx by smpi_run.sh and run under SimGrid SMPI on the two-level platform of bench/platforms/
// (make_platforms.py twolevel: the six Grid'5000 clusters of Table 4 of Steffenel, scaled to N ranks,
// numbered cluster by cluster). Only the Kokkos-free layers are used (core/, schedule/, exec/,
// adaptive/). The same file builds natively (bench_adaptive_smpi of the CMake build) so that it keeps
// compiling warning-free.
//
// The cluster map: under SMPI it is read from the simulated platform, not measured: the pLogP of
// cluster c is PLogP::linear(L, o, 1/bw) of the route between its first two hosts (L the route's
// latency, bw its slowest link, o = --overhead, the per-message cost smpi_run.sh gives SMPI with
// smpi/os and smpi/or), that of clusters i, j the same for their first hosts. Natively it is
// discover_clusters(comm) (measured). --sizes gives the cluster sizes (consecutive ranks).
//
// Methods (--methods):
//   adaptive       AdaptiveBroadcast::plan(comm, m, model of cluster 0): the one-level (grid-unaware)
//                  choice of Table 1 over all ranks
//   hier-<h>       a two-level plan with inter-cluster heuristic h (flat, fef, ecef, ecef-la,
//                  ecef-lat, ecef-lat-max, bottom-up; Section 5 of Steffenel)
//   hier-auto      the two-level plan with the smallest predicted makespan over every heuristic
//   mpi            MPI_Bcast (SMPI's algorithm from --cfg=smpi/bcast:X; --label names the row)
// Per (bytes, method): the first execution's buffer is checked on every rank (it must hold the
// root's bytes; a wrong byte stops the run with exit 1 before its time is printed), and --repeats
// executions are timed from a common start (synchronized_start below) to the latest rank's finish.
// With smpi/simulate-computation:no, MPI_Wtime is the simulated clock.
//
// Output (rank 0, stdout): one line per (bytes, method)
//   RESULT,<label>,<bytes>,<simulated seconds (median)>,<predicted seconds or empty>,<what ran>
// and first, per pair of clusters (i, j; i = j: inside cluster i), the map's L and g(1 MiB):
//   MAP,<i>,<j>,<L seconds>,<g(1 MiB) seconds>
//
//   smpirun ... bench_adaptive_smpi --sizes 22,21,4,1,1,15 [--bytes 1024,65536] [--methods a,b]
//                                   [--repeats 1] [--label name]
#include <hpf/adaptive/broadcast.hpp>
#include <hpf/adaptive/hierarchical.hpp>
#include <hpf/core/error.hpp>
#include <hpf/core/mpi.hpp>

#include "../common/bench_common.hpp"

#include <mpi.h>
#ifdef HPF_SMPI
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#endif

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace {

struct Args {
  std::vector<int> sizes;
  std::vector<long> bytes{1024, 65536, 1048576};
  std::vector<std::string> methods{"adaptive", "hier-auto"};
  int repeats = 1;
  std::string label;
  double overhead = 1e-6;
};

Args parse(int argc, char** argv, int P) {
  using hpf::bench::parse_list;
  using hpf::bench::parse_number;
  Args a;
  hpf::bench::for_each_option(
      argc, argv,
      "--sizes s0,s1,... [--bytes b,...] [--methods m,...] [--repeats R] [--label name] [--overhead s]",
      [&](std::string_view k, std::string_view v) {
        if (k == "--sizes")
          a.sizes = parse_list<int>(v, "--sizes");
        else if (k == "--bytes")
          a.bytes = parse_list<long>(v, "--bytes");
        else if (k == "--methods")
          a.methods = hpf::bench::split_list(v);
        else if (k == "--repeats")
          a.repeats = parse_number<int>(v, "--repeats");
        else if (k == "--label")
          a.label = v;
        else if (k == "--overhead")
          a.overhead = parse_number<double>(v, "--overhead");
        else
          return false;
        return true;
      });
  long total = 0;
  for (int s : a.sizes) {
    hpf::detail::require(s >= 1, "--sizes: expected cluster sizes >= 1, got ", s);
    total += s;
  }
  hpf::detail::require(total == P, "--sizes: the cluster sizes must add up to the ", P, " ranks, got ",
                       total);
  for (long b : a.bytes)
    hpf::detail::require(b >= 1 && b <= (1L << 28), "--bytes: expected [1, 2^28], got ", b);
  hpf::detail::require(a.repeats >= 1, "--repeats: expected >= 1, got ", a.repeats);
  hpf::detail::require(a.overhead >= 0 && a.overhead < 1, "--overhead: expected seconds in [0, 1), got ",
                       a.overhead);
  hpf::detail::require(a.label.empty() || a.methods.size() == 1,
                       "--label: names one method's row, but --methods lists ", a.methods.size());
  return a;
}

#ifdef HPF_SMPI
/// PLogP::linear(route latency, overhead, 1 / slowest link) of the simulated route between hosts a and b.
hpf::PLogP route_model(int a, int b, double overhead) {
  const simgrid::s4u::Host* src = simgrid::s4u::Host::by_name("node-" + std::to_string(a));
  const simgrid::s4u::Host* dst = simgrid::s4u::Host::by_name("node-" + std::to_string(b));
  std::vector<simgrid::s4u::Link*> links;
  double latency = 0;
  src->route_to(dst, links, &latency);
  double bw = std::numeric_limits<double>::infinity();
  for (const simgrid::s4u::Link* l : links) bw = std::min(bw, l->get_bandwidth());
  hpf::detail::require(!links.empty(), "bench_adaptive_smpi: no route from node-", a, " to node-", b);
  return hpf::PLogP::linear(latency, overhead, 1 / bw);
}
#endif

/// The cluster map of the platform (see the header).
hpf::ClusterMap cluster_map([[maybe_unused]] const hpf::Comm& comm, const std::vector<int>& sizes,
                            [[maybe_unused]] double overhead) {
#ifdef HPF_SMPI
  hpf::ClusterMap map;
  std::vector<int> first;
  int next = 0;
  for (int s : sizes) {
    hpf::ClusterSpec c{std::vector<int>(static_cast<std::size_t>(s)), hpf::PLogP::linear(0, 0, 0)};
    std::iota(c.ranks.begin(), c.ranks.end(), next);
    if (s >= 2) c.intra = route_model(next, next + 1, overhead);
    first.push_back(next);
    next += s;
    map.clusters.push_back(std::move(c));
  }
  for (int i : first)
    for (int j : first)
      map.inter.push_back(i == j ? hpf::PLogP::linear(0, 0, 0) : route_model(i, j, overhead));
  hpf::detail::require(map.validate() > 0, "bench_adaptive_smpi: empty cluster map");
  return map;
#else
  (void)sizes;
  return hpf::discover_clusters(comm);
#endif
}

/// The common start of a timed broadcast. Ranks leave a barrier at different times (up to a
/// 12 ms latency apart on this platform), so "the slowest rank's time since it left the barrier"
/// would start the clock late on the far clusters and undercount a broadcast. Under SMPI, MPI_Wtime
/// is one global simulated clock: every rank sleeps (simulated) until 1 s after the latest rank left
/// the barrier, far more than the allreduce that agrees on it takes, and the broadcast's time is the
/// latest rank's finish minus that start. Natively (no global clock) the start is the barrier's exit.
double synchronized_start() {
  HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  double t = MPI_Wtime();
#ifdef HPF_SMPI
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  t += 1.0;
  simgrid::s4u::this_actor::sleep_until(t);
#endif
  return t;
}

std::byte pattern(std::size_t i) { return static_cast<std::byte>((i * 131 + 7) & 0xff); }

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  try {
    const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
    const int P = comm.size();
    const int me = comm.rank();
    const Args a = parse(argc, argv, P);
    const hpf::ClusterMap map = cluster_map(comm, a.sizes, a.overhead);
    if (me == 0) {
      const std::size_t C = map.clusters.size();
      for (std::size_t i = 0; i < C; ++i)
        for (std::size_t j = 0; j < C; ++j) {
          const hpf::PLogP& p = i == j ? map.clusters[i].intra : map.inter[i * C + j];
          std::printf("MAP,%zu,%zu,%.9g,%.9g\n", i, j, p.L(), p.g(1 << 20));
        }
    }
    for (long bytes : a.bytes) {
      const std::size_t m = static_cast<std::size_t>(bytes);
      std::vector<std::byte> buf(m);
      for (const std::string& method : a.methods) {
        std::optional<hpf::AdaptiveBroadcast> bc;
        double predicted = -1;
        std::string what = "MPI_Bcast";
        if (method == "adaptive") {
          bc.emplace(hpf::AdaptiveBroadcast::plan(comm, m, map.clusters.at(0).intra));
          const hpf::BcastChoice choice = hpf::choose_bcast(P, m, map.clusters.at(0).intra);
          predicted = choice.predictions.at(choice.best).time;
          what = hpf::to_string(bc->algorithm()) + " segment " + std::to_string(bc->segment());
        } else if (method.rfind("hier-", 0) == 0) {
          std::vector<hpf::InterHeuristic> hs;
          if (method != "hier-auto") hs.push_back(hpf::parse_inter_heuristic(method.substr(5), "--methods"));
          hpf::HierarchicalPlan plan = hpf::plan_hierarchical(map, 0, m, hs);
          predicted = plan.predicted();
          what = hpf::to_string(plan.inter().heuristic);
          bc.emplace(comm, std::move(plan));
        } else {
          hpf::detail::require(method == "mpi", "--methods: unknown method '", method,
                               "'; expected adaptive, hier-auto, hier-<heuristic> or mpi");
        }
        auto run = [&] {
          if (bc) {
            bc->execute(std::span<std::byte>(buf), 0);
          } else {
            HPF_MPI_CHECK(MPI_Bcast(buf.data(), static_cast<int>(m), MPI_BYTE, 0, MPI_COMM_WORLD));
          }
        };
        std::vector<double> times;
        for (int k = 0; k < a.repeats; ++k) {
          for (std::size_t i = 0; i < m; ++i) buf[i] = me == 0 ? pattern(i) : std::byte{0};
          const double t0 = synchronized_start();
          run();
          double t = MPI_Wtime() - t0;
          HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
          times.push_back(t);
          int bad = 0;
          for (std::size_t i = 0; i < m && bad == 0; ++i) bad = buf[i] != pattern(i) ? 1 : 0;
          HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
          hpf::detail::require(bad == 0, "bench_adaptive_smpi: ", method, " left a rank without the root's ",
                               bytes, " bytes");
        }
        if (me == 0) {
          const std::string label = a.label.empty() ? method : a.label;
          const std::string pred = predicted >= 0 ? std::to_string(predicted) : std::string();
          std::printf("RESULT,%s,%ld,%.9g,%s,%s\n", label.c_str(), bytes, hpf::median(times), pred.c_str(),
                      what.c_str());
        }
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_adaptive_smpi: %s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
