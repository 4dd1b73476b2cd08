// The first REDISTRIBUTE of a program against a repeated one (the target: the first call costs at
// most 1.2x a repeated one at >= 10^6 elements per rank).
//
// A "first" call finds an empty plan cache (clear_plan_cache() before it), so it plans; a "repeated"
// call finds its plan cached. Both allocate the target array and run an executor, as every
// A.redistribute() does. The machine model is not part of either: hpf::Environment gives
// MPI_COMM_WORLD its model once per process, at start-up; its one-time cost is reported separately
// (model_s: one measure_machine_model over MPI_COMM_WORLD in this job). Times are the largest over
// ranks of one call after a barrier; medians of --repeats calls; memcpy_s is one memcpy of a rank's
// local bytes (the physical limit of moving them), measured in the same job.
#include "../common/bench_common.hpp"

#include <hpf/hpf.hpp>

#include <cstring>
#include <string>
#include <vector>

namespace {

using hpf::bench::max_over_ranks;

template <int N, class F> double timed(F&& f) {
  HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  const double t0 = MPI_Wtime();
  f();
  return max_over_ranks(MPI_Wtime() - t0);
}

template <int N> void run_case(const char* name, const hpf::Layout<N>& a, const hpf::Layout<N>& b,
                               int repeats, hpf::bench::CsvWriter& csv, double model_s) {
  hpf::DistArray<double, N> A("A", a);
  hpf::forall(A, [](const hpf::Index<N>& g, double& x) { x = static_cast<double>(g[0]); });
  std::vector<double> first, repeated, copy;
  for (int r = 0; r < repeats; ++r) {
    hpf::clear_plan_cache();
    first.push_back(timed<N>([&] { A.redistribute(b); }));
    A.redistribute(a);
    repeated.push_back(timed<N>([&] { A.redistribute(b); }));
    A.redistribute(a);
  }
  const auto bytes = static_cast<std::size_t>(A.local_size()) * sizeof(double);
  std::vector<char> x(bytes, 1), y(bytes);
  for (int r = 0; r < repeats; ++r) copy.push_back(timed<N>([&] { std::memcpy(y.data(), x.data(), bytes); }));
  const double f = hpf::median(first), p = hpf::median(repeated), m = hpf::median(copy);
  hpf::index_t total = 1;
  for (auto e : a.extents()) total *= e;
  if (a.grid().parent_rank() == 0) {
    std::printf("%-24s ranks %d  M %lld  first %.2f ms  repeated %.2f ms  first/repeated %.3f  "
                "repeated/memcpy %.1f\n",
                name, a.grid().parent_size(), static_cast<long long>(total), f * 1e3, p * 1e3, f / p, p / m);
    csv.row("%s,%d,%lld,%.6g,%.6g,%.4f,%.6g,%.3f,%.6g\n", name, a.grid().parent_size(),
            static_cast<long long>(total), f, p, f / p, m, p / m, model_s);
  }
}

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    int repeats = 9;
    hpf::index_t per_rank = 1000000;
    std::string csv_path = "-";
    hpf::bench::for_each_option(argc, argv, "[--repeats R] [--per-rank n] [--csv file]",
                                [&](std::string_view k, std::string_view v) {
                                  if (k == "--repeats")
                                    repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                  else if (k == "--per-rank")
                                    per_rank = hpf::bench::parse_number<hpf::index_t>(v, "--per-rank");
                                  else if (k == "--csv")
                                    csv_path = v;
                                  else
                                    return false;
                                  return true;
                                });
    hpf::detail::require(repeats >= 1 && per_rank >= 1, "--repeats and --per-rank must be >= 1");
    const hpf::Comm world = hpf::Comm::duplicate(MPI_COMM_WORLD);
    const int P = world.size();
    const double model_s = timed<1>([&] { (void)hpf::measure_machine_model(world); });
    hpf::bench::CsvWriter csv;
    if (world.rank() == 0)
      csv = hpf::bench::CsvWriter(
          csv_path, "case,ranks,M,first_median_s,repeated_median_s,first_over_repeated,memcpy_s,"
                    "repeated_over_memcpy,model_s");
    const auto line = hpf::ProcessGrid::world({P});
    const hpf::index_t M = per_rank * P;
    run_case<1>("1d-cyclic3-to-cyclic5", hpf::Layout<1>({M}, {hpf::Cyclic(3)}, line),
                hpf::Layout<1>({M}, {hpf::Cyclic(5)}, line), repeats, csv, model_s);
    run_case<1>("1d-block-to-cyclic1", hpf::Layout<1>({M}, {hpf::Block()}, line),
                hpf::Layout<1>({M}, {hpf::Cyclic(1)}, line), repeats, csv, model_s);
    const hpf::index_t n = 1000;
    run_case<2>("2d-block-to-cyclic7",
                hpf::Layout<2>({n, per_rank * P / n}, {hpf::Block(), hpf::Collapsed()}, line),
                hpf::Layout<2>({n, per_rank * P / n}, {hpf::Collapsed(), hpf::Cyclic(7)}, line), repeats, csv,
                model_s);
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "bench_redistribute_first_call: %s\n", e.what());
    return 2;
  }
  return 0;
}
