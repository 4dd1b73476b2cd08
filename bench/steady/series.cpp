// bench_series: K reductions of a DistArray's phases with hpf::ReductionSeries against
// back-to-back MPI_Reduce of the same contributions (a user operator declared non-commutative), and
// one memcpy of the same bytes (K values) in the same job. A second reference, mpi-reduce-batch, keeps
// the K contributions and reduces them with one MPI_Reduce of count K (same datatype and operator):
// what SeriesStrategy::Collective does inside, written by hand.
//
//   mpirun -n P bench_series [--ops 100,1000] [--repeats 9] [--elements 4] [--csv file]
//
// Every variant runs the same phase loop: fill the DistArray (forall), then either submit it to the
// series or fold the local elements and call MPI_Reduce; the timed region is the loop plus the
// series' wait_all (construction excluded: the platform is measured once per run; the LP is solved
// once per process -- series on one platform share it -- and each new K replays its plan; lp_us is
// the largest LP + planning time a construction of that variant took). Each sample is the slowest rank's
// time; variants are interleaved, `repeats` times; medians reported. Results are checked against
// MPI_Reduce's. CSV: ranks,K,variant,chosen,median_us,per_op_us,vs_mpi_reduce,vs_memcpy,lp_us,correct,
// steady_correction (median over repeats of SeriesChoice::steady_correction: measured / modelled
// steady-state time of Auto's calibration batch; 1 for forced strategies), auto_collective (repeats
// whose construction chose the vendor reduction; `chosen` is the last repeat's choice).
// HPF_BENCH_REASON=1 prints Auto's reason (first repeat) on stderr.
#include <hpf/hpf.hpp>

#include "../common/bench_common.hpp"
#include "series_mat.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using hpf::bench::max_over_ranks;
using hpf::bench::series::element;
using hpf::bench::series::Mat;
using hpf::bench::series::mpi_mul;
using hpf::bench::series::mul;

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  std::vector<long long> ops{100, 1000};
  int repeats = 9;
  hpf::index_t elements = 4;
  std::string csv;
  long long period_ops = 256;
  hpf::bench::for_each_option(argc, argv,
                              "[--ops K,...] [--repeats R] [--elements E] [--period-ops n] [--csv file]",
                              [&](std::string_view k, std::string_view v) {
                                if (k == "--ops")
                                  ops = hpf::bench::parse_list<long long>(v, "--ops");
                                else if (k == "--repeats")
                                  repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                else if (k == "--elements")
                                  elements = hpf::bench::parse_number<hpf::index_t>(v, "--elements");
                                else if (k == "--period-ops")
                                  period_ops = hpf::bench::parse_number<long long>(v, "--period-ops");
                                else if (k == "--csv")
                                  csv = v;
                                else
                                  return false;
                                return true;
                              });
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto grid = hpf::ProcessGrid::world({size});
  const hpf::Layout<1> layout({size * elements}, {hpf::Block()}, grid);
  hpf::DistArray<Mat, 1> A("A", layout);

  hpf::steady::MeasureOptions mo;
  mo.unit_bytes = sizeof(Mat) + 8;
  mo.compute = [] {
    volatile std::uint64_t sink = mul(element(1, 2), element(3, 4))[0];
    (void)sink;
  };
  const auto platform = hpf::steady::measure_platform(hpf::Comm::duplicate(MPI_COMM_WORLD), mo);

  MPI_Datatype mat_type = MPI_DATATYPE_NULL;
  HPF_MPI_CHECK(MPI_Type_contiguous(4, MPI_UINT64_T, &mat_type));
  HPF_MPI_CHECK(MPI_Type_commit(&mat_type));
  MPI_Op op = MPI_OP_NULL;
  HPF_MPI_CHECK(MPI_Op_create(&mpi_mul, 0, &op)); // 0: not commutative

  hpf::bench::CsvWriter out;
  if (rank == 0 && !csv.empty())
    out = hpf::bench::CsvWriter(
        csv,
        "ranks,K,variant,chosen,median_us,per_op_us,vs_mpi_reduce,vs_memcpy,lp_us,correct,steady_correction,"
        "auto_collective");
  const std::vector<std::pair<std::string, hpf::SeriesStrategy>> variants{
      {"series-steady", hpf::SeriesStrategy::SteadyState},
      {"series-tree", hpf::SeriesStrategy::TreePerOperation},
      {"series-collective", hpf::SeriesStrategy::Collective},
      {"series-auto", hpf::SeriesStrategy::Auto}};

  for (long long K : ops) {
    std::map<std::string, std::vector<double>> t;
    std::map<std::string, std::string> chosen;
    std::map<std::string, double> lp;
    std::map<std::string, bool> correct;
    std::map<std::string, std::vector<double>> correction; // SeriesChoice::steady_correction per repeat
    std::map<std::string, int> collective_picks;           // repeats whose construction chose Collective
    std::vector<Mat> reference(static_cast<std::size_t>(K));
    bool batch_ok = true; // mpi-reduce-batch equal to back-to-back MPI_Reduce (on rank 0)
    for (int rep = 0; rep < repeats; ++rep) {
      { // back-to-back MPI_Reduce
        HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        const double t0 = MPI_Wtime();
        for (long long k = 0; k < K; ++k) {
          hpf::forall(A, [k](const hpf::Index<1>& g, Mat& x) { x = element(g[0], k); });
          Mat part = A.local_data()[0];
          for (hpf::index_t i = 1; i < A.local_size(); ++i) part = mul(part, A.local_data()[i]);
          HPF_MPI_CHECK(
              MPI_Reduce(&part, &reference[static_cast<std::size_t>(k)], 1, mat_type, op, 0, MPI_COMM_WORLD));
        }
        t["mpi-reduce"].push_back(max_over_ranks(MPI_Wtime() - t0));
      }
      { // the same contributions kept, then one MPI_Reduce of count K
        std::vector<Mat> parts(static_cast<std::size_t>(K)), got(static_cast<std::size_t>(K));
        HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        const double t0 = MPI_Wtime();
        for (long long k = 0; k < K; ++k) {
          hpf::forall(A, [k](const hpf::Index<1>& g, Mat& x) { x = element(g[0], k); });
          Mat part = A.local_data()[0];
          for (hpf::index_t i = 1; i < A.local_size(); ++i) part = mul(part, A.local_data()[i]);
          parts[static_cast<std::size_t>(k)] = part;
        }
        HPF_MPI_CHECK(
            MPI_Reduce(parts.data(), got.data(), static_cast<int>(K), mat_type, op, 0, MPI_COMM_WORLD));
        t["mpi-reduce-batch"].push_back(max_over_ranks(MPI_Wtime() - t0));
        if (rank == 0) batch_ok = batch_ok && got == reference;
      }
      for (const auto& [name, strategy] : variants) {
        hpf::SeriesOptions so;
        so.platform = platform;
        so.strategy = strategy;
        so.expected = K;
        so.batch = K;
        so.ops_per_period = period_ops;
        hpf::ReductionSeries<Mat> red(layout, mul, so);
        HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        const double t0 = MPI_Wtime();
        for (long long k = 0; k < K; ++k) {
          hpf::forall(A, [k](const hpf::Index<1>& g, Mat& x) { x = element(g[0], k); });
          red.submit(A);
        }
        red.wait_all();
        t[name].push_back(max_over_ranks(MPI_Wtime() - t0));
        chosen[name] = hpf::to_string(red.choice().chosen);
        correction[name].push_back(red.choice().steady_correction);
        if (red.choice().chosen == hpf::SeriesStrategy::Collective) ++collective_picks[name];
        if (rank == 0 && rep == 0 && strategy == hpf::SeriesStrategy::Auto && std::getenv("HPF_BENCH_REASON"))
          std::fprintf(stderr, "P=%d K=%lld auto: %s\n", size, K, red.choice().reason.c_str());
        lp[name] = std::max(lp[name], red.choice().lp_seconds); // the solve itself is cached after the first
        bool ok = true;
        for (long long k = 0; k < K; ++k) {
          const auto r = red.result(k);
          if (rank == 0) ok = ok && r && *r == reference[static_cast<std::size_t>(k)];
        }
        correct[name] = ok;
      }
      { // one memcpy of the same bytes
        std::vector<Mat> from(static_cast<std::size_t>(K), element(1, 1)), to(static_cast<std::size_t>(K));
        const double t0 = MPI_Wtime();
        std::memcpy(to.data(), from.data(), from.size() * sizeof(Mat));
        const double dt = MPI_Wtime() - t0;
        volatile std::uint64_t sink = to.back()[0];
        (void)sink;
        t["memcpy"].push_back(max_over_ranks(dt));
      }
    }
    const double mpi = hpf::bench::median(t["mpi-reduce"]), mem = hpf::bench::median(t["memcpy"]);
    for (auto& [name, samples] : t) {
      const double m = hpf::bench::median(samples);
      const std::string ch = chosen.count(name) ? chosen[name] : "-";
      const double lp_us = lp.count(name) ? lp[name] * 1e6 : 0.0;
      const char* ok = correct.count(name)          ? (correct[name] ? "yes" : "NO")
                       : name == "mpi-reduce-batch" ? (batch_ok ? "yes" : "NO")
                                                    : "-";
      if (rank == 0) {
        std::printf("P=%d K=%lld %-14s %-18s median %10.1f us  %7.3f us/op  x%.3f MPI_Reduce  x%.0f memcpy  "
                    "LP %.0f us  %s\n",
                    size, K, name.c_str(), ch.c_str(), m * 1e6, m * 1e6 / static_cast<double>(K), m / mpi,
                    m / mem, lp_us, ok);
        const double corr = correction.count(name) ? hpf::bench::median(correction[name]) : 1.0;
        out.row("%d,%lld,%s,%s,%.2f,%.4f,%.4f,%.1f,%.1f,%s,%.3f,%d\n", size, K, name.c_str(), ch.c_str(),
                m * 1e6, m * 1e6 / static_cast<double>(K), m / mpi, m / mem, lp_us, ok, corr,
                collective_picks.count(name) ? collective_picks[name] : 0);
      }
    }
  }
  HPF_MPI_CHECK(MPI_Op_free(&op));
  HPF_MPI_CHECK(MPI_Type_free(&mat_type));
  return 0;
}
