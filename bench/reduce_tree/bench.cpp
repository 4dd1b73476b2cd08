// bench_reduce_tree: hpf::TreeReducer (the trees of Canon and Antoniu) against MPI_Reduce, both with the same
// non-commutative user operator -- the element-wise product of 2x2 matrices modulo 2^64 followed by a
// calibrated busy loop, so that one combination of two buffers costs c -- on every rank of
// MPI_COMM_WORLD. d is measured (ping-pong of the message), c is set to c-over-d * d by the busy loop
// and then measured. Variants: the executor on the greedy, Fibonacci and binomial trees; the greedy
// tree without prefetching (receive, then combine); MPI_Reduce with the operator declared
// non-commutative. Repetitions are interleaved across variants, and each sample is the slowest rank's
// time. Prints one CSV row per variant with the model's prediction (the tree's schedule length for the
// measured d and c; none for MPI_Reduce, whose algorithm Open MPI chooses) next to the measured
// median and minimum.
//
//
// Built with -DHPF_SMPI by smpi_build.sh for SimGrid SMPI: then the operator does not spin, it injects
// its cost into the simulated clock (smpi_execute), run with smpi/simulate-computation:no so that the
// simulation is deterministic, and c is exactly c-over-d * d. Only MPI and the Kokkos-free core/,
// schedule/, exec/ and reduce/ sources are used, so the same file builds both ways.
//
//   mpiexec -n 8 bench_reduce_tree [--bytes 2048] [--c-over-d 1] [--repeats 201] [--csv out.csv]
#include <hpf/core/mpi.hpp>
#include <hpf/reduce/tree.hpp>
#include <hpf/reduce/tree_reducer.hpp>

#include "../common/bench_common.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

/// Trivially default-constructible, so that the executor's buffers are not zero-filled.
struct Mat {
  std::array<std::uint64_t, 4> a;
};

/// Busy-loop iterations per element combination; set by calibration, the same on every rank.
long g_spin_per_element = 0;
#ifdef HPF_SMPI
/// Simulated seconds per element combination (SMPI); 0 while computing the reference result.
double g_smpi_cost_per_element = 0;
/// Elements combined since the cost was last injected: injecting per element would cost one simcall
/// each, so the cost goes in by slices of this many elements (the buffer sizes used are multiples).
constexpr long smpi_slice = 256;
long g_smpi_pending = 0;
#endif

inline void spin(long iters) {
#ifdef HPF_SMPI
  (void)iters;
  if (g_smpi_cost_per_element > 0 && ++g_smpi_pending == smpi_slice) {
    smpi_execute(g_smpi_cost_per_element * smpi_slice);
    g_smpi_pending = 0;
  }
#else
  volatile std::uint64_t x = 1;
  for (long i = 0; i < iters; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
#endif
}

inline Mat combine(const Mat& x, const Mat& y) {
  spin(g_spin_per_element);
  return Mat{{x.a[0] * y.a[0] + x.a[1] * y.a[2], x.a[0] * y.a[1] + x.a[1] * y.a[3],
              x.a[2] * y.a[0] + x.a[3] * y.a[2], x.a[2] * y.a[1] + x.a[3] * y.a[3]}};
}

/// MPI user function: inoutvec = invec (lower ranks) * inoutvec, as MPI defines it for
/// non-commutative operators.
void mpi_combine(void* invec, void* inoutvec, int* len, MPI_Datatype*) {
  const auto* in = static_cast<const Mat*>(invec);
  auto* io = static_cast<Mat*>(inoutvec);
  for (int i = 0; i < *len; ++i) io[i] = combine(in[i], io[i]);
}

Mat element(int rank, std::size_t i) {
  std::uint64_t s =
      (static_cast<std::uint64_t>(rank) + 1) * 0x9E3779B97F4A7C15ULL + i * 0xBF58476D1CE4E5B9ULL;
  Mat m;
  for (auto& v : m.a) v = (s = s * 6364136223846793005ULL + 1442695040888963407ULL) >> 7;
  return m;
}

/// MPI_Wtime: the simulated clock under SMPI.
double now() { return MPI_Wtime(); }

/// MPI_Init / MPI_Finalize (the benchmark needs MPI only, no Kokkos).
struct MpiSession {
  MpiSession(int* argc, char*** argv) { HPF_MPI_CHECK(MPI_Init(argc, argv)); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  ~MpiSession() { MPI_Finalize(); }
};

int run(int argc, char** argv);

} // namespace

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_reduce_tree: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return 2;
}

namespace {

int run(int argc, char** argv) {
  std::size_t bytes = 2048;
  double c_over_d = 1.0;
  int repeats = 201;
  std::string csv = "-";
  using hpf::bench::parse_number;
  hpf::bench::for_each_option(argc, argv, "[--bytes B] [--c-over-d X] [--repeats R] [--csv file]",
                              [&](std::string_view k, std::string_view v) {
                                if (k == "--bytes")
                                  bytes = parse_number<std::size_t>(v, "--bytes");
                                else if (k == "--c-over-d")
                                  c_over_d = parse_number<double>(v, "--c-over-d");
                                else if (k == "--repeats")
                                  repeats = parse_number<int>(v, "--repeats");
                                else if (k == "--csv")
                                  csv = v;
                                else
                                  return false;
                                return true;
                              });
  if (bytes < sizeof(Mat) || c_over_d < 0 || repeats < 1) {
    std::fprintf(stderr, "bench_reduce_tree: need --bytes >= %zu, --c-over-d >= 0, --repeats >= 1\n",
                 sizeof(Mat));
    return 2;
  }
  const int rank = hpf::comm_rank(MPI_COMM_WORLD);
  const int n = hpf::comm_size(MPI_COMM_WORLD);
  const std::size_t count = bytes / sizeof(Mat);
  bytes = count * sizeof(Mat);

  // d: half a ping-pong round trip of the message (ranks 0 and 1; 0 on one rank).
  const double d = hpf::measure_transfer_cost(MPI_COMM_WORLD, bytes, 101);
  const double d_ref = n > 1 ? d : hpf::measure_transfer_cost(MPI_COMM_SELF, bytes, 1) + 1e-6;
#ifdef HPF_SMPI
  if (count % smpi_slice != 0) {
    if (rank == 0)
      std::fprintf(stderr, "bench_reduce_tree (SMPI): --bytes must be a multiple of %zu, got %zu\n",
                   smpi_slice * sizeof(Mat), bytes);
    return 2;
  }
  g_smpi_cost_per_element = c_over_d * d_ref / static_cast<double>(count);
#else
  // Calibrate the busy loop on rank 0 alone (the others wait), so c is a one-core cost.
  double iters_per_sec = 0;
  if (rank == 0) {
    const long probe = 2'000'000;
    std::vector<double> t;
    for (int r = 0; r < 7; ++r) {
      const double t0 = now();
      spin(probe);
      t.push_back(now() - t0);
    }
    std::sort(t.begin(), t.end());
    iters_per_sec = static_cast<double>(probe) / t[t.size() / 2];
  }
  MPI_Bcast(&iters_per_sec, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  g_spin_per_element = static_cast<long>(c_over_d * d_ref * iters_per_sec / static_cast<double>(count));
#endif
  // c as measured: one whole-buffer combination, each rank in turn (so that oversubscribed ranks do
  // not share a core while measuring), the largest over ranks.
  std::vector<Mat> x(count);
  std::vector<Mat> y(count);
  for (std::size_t i = 0; i < count; ++i) x[i] = y[i] = element(rank, i);
  double c_mine = 0;
  for (int r = 0; r < n; ++r) {
    if (r == rank) {
      std::vector<double> t;
      for (int k = 0; k < 21; ++k) {
        const double t0 = now();
        for (std::size_t i = 0; i < count; ++i) y[i] = combine(x[i], y[i]);
        t.push_back(now() - t0);
      }
      c_mine = hpf::median(t);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double c = 0;
  MPI_Allreduce(&c_mine, &c, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const hpf::ReduceCosts costs{d, c};

  // The expected result on the root: the left-to-right product.
  std::vector<Mat> mine(count);
  for (std::size_t i = 0; i < count; ++i) mine[i] = element(rank, i);
  std::vector<Mat> want(count);
  if (rank == 0) {
    g_spin_per_element = -g_spin_per_element; // no busy loop for the reference
#ifdef HPF_SMPI
    const double cost = g_smpi_cost_per_element;
    g_smpi_cost_per_element = 0;
#endif
    for (std::size_t i = 0; i < count; ++i) {
      Mat acc = element(0, i);
      for (int r = 1; r < n; ++r) acc = combine(acc, element(r, i));
      want[i] = acc;
    }
    g_spin_per_element = -g_spin_per_element;
#ifdef HPF_SMPI
    g_smpi_cost_per_element = cost;
#endif
  }
  MPI_Bcast(&g_spin_per_element, 1, MPI_LONG, 0, MPI_COMM_WORLD);

  std::vector<Mat> out(count);
  auto check = [&] {
    int ok = 1;
    if (rank == 0)
      for (std::size_t i = 0; i < count; ++i) ok &= static_cast<int>(out[i].a == want[i].a);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok != 0;
  };
  struct Variant {
    std::string name;
    double model; ///< schedule length predicted by the model; < 0: no prediction
    std::function<void()> run;
    bool ok = false;
    std::vector<double> samples;
  };
  std::vector<Variant> variants;
  const auto add = [&variants](std::string name, double model, std::function<void()> run) {
    variants.push_back(Variant{std::move(name), model, std::move(run), false, {}});
  };

  // A lambda (not the function's address) so that the executor's loop inlines the operator, as the
  // hand-written loops below do.
  const auto op = [](const Mat& a, const Mat& b) { return combine(a, b); };
  const std::array<hpf::ReduceStrategy, 3> strategies{
      hpf::ReduceStrategy::greedy, hpf::ReduceStrategy::fibonacci, hpf::ReduceStrategy::binomial};
  std::vector<hpf::TreeReducer> reducers; // plan once, run many times
  for (hpf::ReduceStrategy s : strategies)
    reducers.emplace_back(MPI_COMM_WORLD, costs, hpf::TreeOptions{s, 0, 0});
  for (std::size_t k = 0; k < strategies.size(); ++k) {
    const hpf::TreeReducer& R = reducers[k];
    add("tree-" + to_string(strategies[k]), R.tree().length,
        [&R, &mine, &out, op] { R.reduce(std::span<const Mat>(mine), std::span<Mat>(out), op); });
  }

  // The greedy tree again, but each input is received only after the previous one is combined: the
  // same tree without the overlap of Section 3.1, to isolate what prefetching buys here.
  const hpf::ReductionTree& t = reducers[0].tree();
  MPI_Comm comm = reducers[0].comm().get();
  std::vector<Mat> acc(count);
  std::vector<Mat> buf(count);
  const int nbytes = static_cast<int>(bytes);
  // Model without overlap: each input costs d + c after the previous combination.
  std::vector<double> ready(static_cast<std::size_t>(n), 0.0);
  std::vector<int> order{t.sink()};
  for (std::size_t k = 0; k < order.size(); ++k)
    for (int u : t.inputs[static_cast<std::size_t>(order[k])]) order.push_back(u);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    double f = 0;
    for (int u : t.inputs[static_cast<std::size_t>(*it)])
      f = std::max(f, ready[static_cast<std::size_t>(u)]) + d + c;
    ready[static_cast<std::size_t>(*it)] = f;
  }
  add("tree-greedy-no-prefetch", ready[static_cast<std::size_t>(t.sink())], [&] {
    std::copy(mine.begin(), mine.end(), acc.begin());
    for (int u : t.inputs[static_cast<std::size_t>(rank)]) {
      MPI_Recv(buf.data(), nbytes, MPI_BYTE, u, 7, comm, MPI_STATUS_IGNORE);
      for (std::size_t i = 0; i < count; ++i)
        acc[i] = u < rank ? combine(buf[i], acc[i]) : combine(acc[i], buf[i]);
    }
    if (t.parent[static_cast<std::size_t>(rank)] >= 0)
      MPI_Send(acc.data(), nbytes, MPI_BYTE, t.parent[static_cast<std::size_t>(rank)], 7, comm);
    else
      std::copy(acc.begin(), acc.end(), out.begin());
  });

  MPI_Datatype mat_type = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(4, MPI_UINT64_T, &mat_type);
  MPI_Type_commit(&mat_type);
  MPI_Op mpi_op = MPI_OP_NULL;
  MPI_Op_create(&mpi_combine, /*commute=*/0, &mpi_op);
  // No prediction: Open MPI chooses its own algorithm for a non-commutative operator.
  add("MPI_Reduce", -1.0, [&] {
    MPI_Reduce(mine.data(), out.data(), static_cast<int>(count), mat_type, mpi_op, 0, MPI_COMM_WORLD);
  });

  for (Variant& v : variants) {
    std::fill(out.begin(), out.end(), Mat{{0, 0, 0, 0}});
    v.run();
    v.ok = check();
  }
  // Interleaved repetitions, so that a change of load on the machine affects every variant alike.
  for (int r = -5; r < repeats; ++r)
    for (Variant& v : variants) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = now();
      v.run();
      const double local = now() - t0;
      double slowest = 0;
      MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (r >= 0) v.samples.push_back(slowest);
    }
  MPI_Op_free(&mpi_op);
  MPI_Type_free(&mat_type);

  if (rank == 0) {
    hpf::bench::CsvWriter f(csv, "n,bytes,d_us,c_us,variant,model_us,median_us,min_us,correct");
    for (const Variant& v : variants) {
      char model[32] = "";
      if (v.model >= 0) std::snprintf(model, sizeof model, "%.2f", v.model * 1e6);
      f.row("%d,%zu,%.2f,%.2f,%s,%s,%.2f,%.2f,%s\n", n, bytes, d * 1e6, c * 1e6, v.name.c_str(), model,
            hpf::median(v.samples) * 1e6, hpf::bench::min_of(v.samples) * 1e6, v.ok ? "yes" : "NO");
    }
  }
  int all_ok = 1;
  for (const Variant& v : variants) all_ok &= static_cast<int>(v.ok);
  return all_ok ? 0 : 1;
}
} // namespace
