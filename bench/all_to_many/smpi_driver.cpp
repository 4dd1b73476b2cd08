// bench_all_to_many_smpi: Wang and Ranka, §6 and Figure 5, on every rank of MPI_COMM_WORLD,
// built with smpicxx by smpi_run.sh and run under SimGrid SMPI on a hypercube (e-cube routes) or a
// 2-D mesh (XY routes) of bench/platforms/. Only the Kokkos-free layers are used: schedule/ (the
// schedulers, Routing), irregular/com (the exchange plan of a schedule) and exec/ (Exchange). The same
// file builds natively (bench_all_to_many_smpi of the CMake build) so that it keeps compiling
// warning-free; natively --check-routes is refused (there are no simulated routes).
//
// Workload (that of Wang and Ranka): for each density d and message size, --patterns random d-regular
// patterns (random_regular_com: every rank sends d messages of `bytes` bytes to d distinct others and
// receives d). Every rank builds the same pattern from the same seed, so COM needs no exchange.
// Variants: each scheduler under the executor Wang and Ranka pair it with (S2 = ExecMode::AllAtOnce for
// AC and RS_N, S1 = ExecMode::Handshake for LP and RS_NL, Wang and Ranka §6), RS_N under S1 as well (the
// phased schedule without link-contention avoidance), and with --all-modes also LP and RS_NL under S2.
// RS_NL's routing model is --routing (hypercube: e-cube, mesh2d: XY on the near-square mesh), the platform's
// own routes.
//
// Per (d, bytes, pattern, variant): the schedule is built, then --repeats executions are timed:
// barrier, MPI_Wtime, execute, MPI_Wtime, the slowest rank's time (MPI_Allreduce MAX), as Wang and Ranka
// take "the maximum time spent by any processor". The first execution's data are checked byte by byte
// (every received message must hold its sender's payload; a wrong byte stops the run with exit 1
// before its time is printed). The simulation is deterministic (SMPI repeats agree), so the first
// execution counts too and --repeats 1 halves the simulation time. With
// smpi/simulate-computation:no, MPI_Wtime is the simulated clock and packing costs nothing.
//
// --check-routes (SMPI only): before anything is timed, rank 0 asks SimGrid for the route between
// every ordered pair of hosts and checks that its network links, hop by hop, are the path of
// hpf::Routing (the model RS_NL schedules with). Any difference stops the run (exit 1).
//
// Output (rank 0, stdout): one line per (d, bytes, pattern, variant)
//   RESULT,<d>,<bytes>,<pattern>,<algo>,<exec S1|S2>,<phases>,<simulated seconds (median of repeats)>
//   ROUTES,<pairs checked>          (with --check-routes)
//
//   smpirun ... bench_all_to_many_smpi --routing hypercube [--d 4,8] [--bytes 16,1024] [--patterns 2]
//                                      [--repeats 3] [--seed 1] [--all-modes 0|1] [--check-routes 0|1]
#include <hpf/core/error.hpp>
#include <hpf/core/math.hpp>
#include <hpf/core/tags.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/irregular/com.hpp>
#include <hpf/schedule/all_to_many.hpp>
#include <hpf/schedule/routing.hpp>

#include "../common/bench_common.hpp"

#include <mpi.h>
#ifdef HPF_SMPI
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#endif

#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

struct Args {
  std::vector<long> ds{4, 8, 16, 32, 48};
  std::vector<long> sizes{16, 128, 1024, 8192, 32768, 131072};
  int patterns = 2;
  int repeats = 3;
  unsigned long long seed = 1;
  hpf::RoutingKind routing = hpf::RoutingKind::Hypercube;
  bool all_modes = false;
  bool check_routes = false;
};

Args parse(int argc, char** argv, int n) {
  using hpf::bench::parse_list;
  using hpf::bench::parse_number;
  Args a;
  hpf::bench::for_each_option(
      argc, argv,
      "[--routing hypercube|mesh2d] [--d d,...] [--bytes b,...] [--patterns P] [--repeats R] [--seed S] "
      "[--all-modes 0|1] [--check-routes 0|1]",
      [&](std::string_view k, std::string_view v) {
        if (k == "--d")
          a.ds = parse_list<long>(v, "--d");
        else if (k == "--bytes")
          a.sizes = parse_list<long>(v, "--bytes");
        else if (k == "--patterns")
          a.patterns = parse_number<int>(v, "--patterns");
        else if (k == "--repeats")
          a.repeats = parse_number<int>(v, "--repeats");
        else if (k == "--seed")
          a.seed = parse_number<unsigned long long>(v, "--seed");
        else if (k == "--routing")
          a.routing = hpf::parse_routing_kind(v, "--routing");
        else if (k == "--all-modes")
          a.all_modes = parse_number<int>(v, "--all-modes") != 0;
        else if (k == "--check-routes")
          a.check_routes = parse_number<int>(v, "--check-routes") != 0;
        else
          return false;
        return true;
      });
  for (long d : a.ds)
    hpf::detail::require(d >= 1 && d < n, "--d: expected densities in [1, ", n - 1, "], got ", d);
  for (long b : a.sizes)
    hpf::detail::require(b >= 1 && b <= (1L << 24), "--bytes: expected sizes in [1, 2^24], got ", b);
  hpf::detail::require(!a.ds.empty() && !a.sizes.empty(), "--d / --bytes: expected at least one value each");
  hpf::detail::require(a.patterns >= 1, "--patterns: expected >= 1, got ", a.patterns);
  hpf::detail::require(a.repeats >= 1, "--repeats: expected >= 1, got ", a.repeats);
  return a;
}

/// Payload byte b of the message src -> dst: lets every receiver check what it got.
std::byte payload(int src, int dst, std::size_t b) {
  return static_cast<std::byte>((src * 29 + dst * 13 + static_cast<int>(b % 251)) & 0xff);
}

#ifdef HPF_SMPI
/// (from, to) hosts of a network link of bench/platforms/make_platforms.py, or (-1, -1) for a link
/// that is not one (the node interfaces inj-/ej- and the mesh's X -> Y turn links).
std::pair<int, int> hop_of(const std::string& name, int cols) {
  int i = 0;
  int b = 0;
  char dir = 0;
  if (std::sscanf(name.c_str(), "h-%d-%d", &i, &b) == 2) return {i, i ^ (1 << b)};
  if (std::sscanf(name.c_str(), "x-%d-%c", &i, &dir) == 2) return {i, dir == 'E' ? i + 1 : i - 1};
  if (std::sscanf(name.c_str(), "y-%d-%c", &i, &dir) == 2) return {i, dir == 'N' ? i + cols : i - cols};
  return {-1, -1};
}

/// Every ordered pair: SimGrid's route, hop by hop, against hpf::Routing's path. Rank 0 only.
long long check_routes(const hpf::Routing& routing) {
  const int n = routing.num_nodes();
  long long pairs = 0;
  for (int s = 0; s < n; ++s) {
    const simgrid::s4u::Host* src = simgrid::s4u::Host::by_name("node-" + std::to_string(s));
    for (int d = 0; d < n; ++d) {
      if (s == d) continue;
      const simgrid::s4u::Host* dst = simgrid::s4u::Host::by_name("node-" + std::to_string(d));
      std::vector<simgrid::s4u::Link*> links;
      double latency = 0;
      src->route_to(dst, links, &latency);
      std::vector<std::pair<int, int>> sim;
      for (const simgrid::s4u::Link* l : links) {
        const std::pair<int, int> h = hop_of(l->get_name(), routing.cols());
        if (h.first >= 0) sim.push_back(h);
      }
      std::vector<std::pair<int, int>> model;
      for (int link : routing.path(s, d)) model.push_back(routing.link_endpoints(link));
      if (sim != model) {
        std::string got;
        for (const auto& [f, t] : sim) got += hpf::detail::concat(" ", f, "->", t);
        std::string want;
        for (const auto& [f, t] : model) want += hpf::detail::concat(" ", f, "->", t);
        hpf::detail::fail("--check-routes: the platform routes ", s, " -> ", d, " along", got, ", but ",
                          routing.describe(), " along", want);
      }
      ++pairs;
    }
  }
  return pairs;
}
#endif

struct Variant {
  hpf::AllToManyAlgo algo;
  hpf::ExecMode mode;
};

/// The four pairings of Wang and Ranka, RS_N under S1 too (the phased baseline RS_NL improves on by avoiding
/// link contention), and with all_modes LP and RS_NL under S2 as well (AC is S2 by definition).
std::vector<Variant> variants(bool all_modes) {
  using A = hpf::AllToManyAlgo;
  using M = hpf::ExecMode;
  std::vector<Variant> out{{A::AC, M::AllAtOnce},
                           {A::LP, M::Handshake},
                           {A::RS_N, M::AllAtOnce},
                           {A::RS_N, M::Handshake},
                           {A::RS_NL, M::Handshake}};
  for (const Variant& v : out) // the paper's pairings are paper_exec_mode's
    if (v.algo != A::RS_N || v.mode != M::Handshake)
      hpf::detail::require(hpf::paper_exec_mode(v.algo) == v.mode,
                           "bench_all_to_many_smpi: the paper's executor of ", hpf::to_string(v.algo),
                           " is no longer paper_exec_mode's");
  if (all_modes) {
    out.push_back({A::LP, M::AllAtOnce});
    out.push_back({A::RS_NL, M::AllAtOnce});
  }
  return out;
}

/// One variant on one pattern: `repeats` timed executions, the first one's data checked byte by byte
/// (the simulation is deterministic, so the first execution is timed too). Returns the median.
double run_variant(const hpf::Comm& world, const hpf::Schedule& s, hpf::ExecMode mode, long bytes,
                   int repeats, int rank) {
  const std::size_t len = static_cast<std::size_t>(bytes);
  hpf::Exchange ex(world, hpf::all_to_many_exchange_plan(s, rank, len), mode, hpf::tags::exchange.base);
  const hpf::ExchangePlan& pl = ex.plan();
  std::vector<std::byte> src(pl.sends.size() * len);
  std::vector<std::byte> dst(pl.recvs.size() * len, std::byte{0});
  for (std::size_t i = 0; i < pl.sends.size(); ++i)
    for (std::size_t b = 0; b < len; ++b) src[i * len + b] = payload(rank, pl.sends[i].peer, b);
  auto run = [&] {
    ex.execute(
        [&](std::size_t i, std::byte* buf) { std::memcpy(buf, src.data() + i * len, pl.sends[i].bytes); },
        [&](std::size_t i, const std::byte* buf) {
          std::memcpy(dst.data() + i * len, buf, pl.recvs[i].bytes);
        });
  };
  std::vector<double> times;
  for (int k = 0; k < repeats; ++k) {
    HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    const double t0 = MPI_Wtime();
    run();
    double t = MPI_Wtime() - t0;
    HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    times.push_back(t);
    if (k > 0) continue;
    int bad = 0; // the first execution's data, before its time counts
    for (std::size_t i = 0; i < pl.recvs.size() && bad == 0; ++i) {
      bad = pl.recvs[i].bytes != len ? 1 : 0;
      for (std::size_t b = 0; b < len && bad == 0; ++b)
        bad = dst[i * len + b] != payload(pl.recvs[i].peer, rank, b) ? 1 : 0;
    }
    HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    hpf::detail::require(bad == 0, "bench_all_to_many_smpi: wrong data received (", bytes, "-byte messages)");
  }
  return hpf::median(times);
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  try {
    int rank = 0;
    int n = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const Args a = parse(argc, argv, n);
    [[maybe_unused]] const hpf::Routing routing = hpf::Routing::make(a.routing, n); // checks n too
    if (a.check_routes) {
#ifdef HPF_SMPI
      if (rank == 0) std::printf("ROUTES,%lld\n", check_routes(routing));
#else
      hpf::detail::fail("--check-routes: needs the SMPI build (there are no simulated routes natively)");
#endif
    }
    const hpf::Comm world = hpf::Comm::duplicate(MPI_COMM_WORLD);
    for (long d : a.ds)
      for (long bytes : a.sizes)
        for (int p = 0; p < a.patterns; ++p) {
          const std::uint64_t pseed = a.seed * 1000003ULL + static_cast<unsigned>(p);
          const hpf::CommMatrix com = hpf::random_regular_com(n, static_cast<int>(d), 1, pseed);
          for (const Variant& v : variants(a.all_modes)) {
            const hpf::Schedule s = hpf::schedule_all_to_many(com, {v.algo, a.routing, pseed});
            const double t = run_variant(world, s, v.mode, bytes, a.repeats, rank);
            if (rank == 0)
              std::printf("RESULT,%ld,%ld,%d,%s,%s,%d,%.9g\n", d, bytes, p, hpf::to_string(v.algo).c_str(),
                          v.mode == hpf::ExecMode::Handshake ? "S1" : "S2", s.num_steps(), t);
          }
          std::fflush(stdout);
        }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_all_to_many_smpi: %s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
