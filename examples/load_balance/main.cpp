// Load balancing with HPF 2.0's GEN_BLOCK.
//
// A 1-D array of work items whose cost is very uneven (a narrow peak of expensive items) starts BLOCK
// distributed. Each rank times its items in chunks (thread CPU time, so that oversubscribed runs still
// measure the work); the chunk costs are all-gathered, so every rank
// holds the same cost profile and computes the same balancing GEN_BLOCK from its prefix sums (a
// decision that leads into a collective comes from data all ranks have). The array is REDISTRIBUTEd to
// it and the work is timed again; the per-rank times before and after are printed.
//
//   mpirun -n 4 ./load_balance [items]
#include <hpf/hpf.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <numeric>
#include <string>
#include <vector>

namespace {

/// Work of item i: 1 unit, and up to 400 more in a narrow peak at 15% of the array.
int units(hpf::index_t i, hpf::index_t n) {
  const double x = (static_cast<double>(i) - 0.15 * static_cast<double>(n)) / (0.04 * static_cast<double>(n));
  return 1 + static_cast<int>(400.0 * std::exp(-x * x));
}

/// The work itself: a deterministic function of i that costs about `units` times 200 flops.
double work(hpf::index_t i, hpf::index_t n) {
  double v = static_cast<double>(i % 97) * 1e-3;
  const int u = units(i, n) * 50;
  for (int k = 0; k < u; ++k) v = v * 0.999 + std::sqrt(v + 1.0) * 1e-3;
  return v;
}

/// CPU time of the calling thread, in seconds: unlike wall time it does not count the time an
/// oversubscribed rank waits for a core (or the busy polling of ranks that already finished).
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Timing {
  double seconds = 0;                     ///< this rank's total
  std::vector<hpf::index_t> chunk_starts; ///< global index of each chunk's first item
  std::vector<double> chunk_seconds;
};

/// Runs the work on every local item of the 1-D array A (its values become the results), timing chunks
/// of `chunk` consecutive local items (contiguous globally: BLOCK and GEN_BLOCK have one block).
Timing run(hpf::DistArray<double, 1>& A, hpf::index_t n, hpf::index_t chunk) {
  Timing t;
  double* x = A.local_data();
  const hpf::index_t local = A.local_size();
  for (hpf::index_t l0 = 0; l0 < local; l0 += chunk) {
    const double t0 = cpu_seconds();
    const hpf::index_t l1 = std::min(local, l0 + chunk);
    for (hpf::index_t l = l0; l < l1; ++l) x[l] = work(A.global_index(0, l), n);
    const double dt = cpu_seconds() - t0;
    t.chunk_starts.push_back(A.global_index(0, l0));
    t.chunk_seconds.push_back(dt);
    t.seconds += dt;
  }
  return t;
}

/// Collective over MPI_COMM_WORLD: every rank's chunk costs, on every rank, as a cost per item
/// (items of a chunk share its time equally), in global order.
std::vector<double> cost_per_item(const Timing& t, hpf::index_t n, hpf::index_t chunk) {
  const int size = hpf::comm_size(MPI_COMM_WORLD);
  const int mine = static_cast<int>(t.chunk_starts.size());
  std::vector<int> counts(static_cast<std::size_t>(size));
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> displs(static_cast<std::size_t>(size), 0);
  for (std::size_t r = 1; r < displs.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  const int total = displs.back() + counts.back();
  std::vector<double> secs(static_cast<std::size_t>(total));
  std::vector<hpf::index_t> starts(static_cast<std::size_t>(total));
  MPI_Allgatherv(t.chunk_seconds.data(), mine, MPI_DOUBLE, secs.data(), counts.data(), displs.data(),
                 MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Allgatherv(t.chunk_starts.data(), mine, MPI_INT64_T, starts.data(), counts.data(), displs.data(),
                 MPI_INT64_T, MPI_COMM_WORLD);
  std::vector<double> cost(static_cast<std::size_t>(n), 0.0);
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const hpf::index_t b = starts[k];
    const hpf::index_t e = std::min(n, b + chunk);
    for (hpf::index_t i = b; i < e; ++i) {
      // Chunks end at block ends too: a chunk is at most `chunk` items of one rank's block.
      cost[static_cast<std::size_t>(i)] = secs[k] / static_cast<double>(e - b);
    }
  }
  return cost;
}

/// Block sizes for P processes that split the prefix sums of `cost` into P nearly equal parts.
std::vector<hpf::index_t> balance(const std::vector<double>& cost, int P) {
  const double total = std::accumulate(cost.begin(), cost.end(), 0.0);
  std::vector<hpf::index_t> sizes(static_cast<std::size_t>(P), 0);
  double acc = 0;
  int p = 0;
  for (std::size_t i = 0; i < cost.size(); ++i) {
    // Item i goes to the process whose share [p total / P, (p + 1) total / P) holds its midpoint.
    const double mid = acc + cost[i] / 2;
    while (p < P - 1 && mid >= total * (p + 1) / P) ++p;
    ++sizes[static_cast<std::size_t>(p)];
    acc += cost[i];
  }
  return sizes;
}

void report(const char* phase, const Timing& t, const hpf::DistArray<double, 1>& A) {
  const int size = hpf::comm_size(MPI_COMM_WORLD);
  const int rank = hpf::comm_rank(MPI_COMM_WORLD);
  std::vector<double> secs(static_cast<std::size_t>(size));
  std::vector<hpf::index_t> items(static_cast<std::size_t>(size));
  const hpf::index_t mine = A.local_size();
  MPI_Gather(&t.seconds, 1, MPI_DOUBLE, secs.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather(&mine, 1, MPI_INT64_T, items.data(), 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  std::printf("%s (%s):\n", phase, A.layout().describe_dists().c_str());
  for (int r = 0; r < size; ++r)
    std::printf("  rank %d: %8.2f ms (CPU) for %6lld items\n", r, 1e3 * secs[static_cast<std::size_t>(r)],
                static_cast<long long>(items[static_cast<std::size_t>(r)]));
  const double mean = std::accumulate(secs.begin(), secs.end(), 0.0) / size;
  const double worst = *std::max_element(secs.begin(), secs.end());
  std::printf("  slowest rank / mean = %.2f\n", mean > 0 ? worst / mean : 1.0);
}

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  const hpf::index_t n = argc > 1 ? std::atoll(argv[1]) : 20000;
  const hpf::index_t chunk = 64;
  const int P = hpf::comm_size(MPI_COMM_WORLD);
  const auto grid = hpf::ProcessGrid::world({P});
  int status = 0;
  try {
    hpf::DistArray<double, 1> A("work", hpf::Layout<1>({n}, {hpf::Block()}, grid));
    const Timing before = run(A, n, chunk);
    report("before: BLOCK", before, A);
    const std::vector<double> reference = A.gather(0);

    // Every rank computes the same GEN_BLOCK from the same all-gathered costs.
    const std::vector<hpf::index_t> sizes = balance(cost_per_item(before, n, chunk), P);
    A.redistribute(hpf::Layout<1>({n}, {hpf::GenBlock(sizes)}, grid)); // HPF REDISTRIBUTE
    // The redistributed results are still the BLOCK phase's; check them, then redo the work.
    const std::vector<double> moved = A.gather(0);
    const Timing after = run(A, n, chunk);
    report("after: balanced GEN_BLOCK", after, A);
    const std::vector<double> again = A.gather(0);
    if (hpf::comm_rank(MPI_COMM_WORLD) == 0) {
      const bool ok = moved == reference && again == reference;
      std::printf(ok ? "ok: load_balance results match after REDISTRIBUTE to GEN_BLOCK\n"
                     : "FAILED: results differ after REDISTRIBUTE\n");
      status = ok ? 0 : 1;
    }
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "load_balance: %s\n", e.what());
    status = 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return status;
}
