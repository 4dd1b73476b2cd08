// REDISTRIBUTE under a memory ceiling (RedistOptions::memory_ceiling_bytes): time and peak extra
// memory against the ceiling, as a fraction of a rank's local block.
//
// Each case moves an array of --per-rank doubles per rank from one layout into a second, existing
// array (hpf::redistribute into it: no allocation in the timed call) at ceilings of 1/d of the local
// block for d in --divs (0: no ceiling). Times are the largest over ranks of one call after a barrier,
// medians of --repeats calls; memcpy_s is one memcpy of a rank's local bytes in the same job. The peak
// extra memory is measured once per ceiling, outside the timed calls: VmHWM after the move less VmRSS
// before it (reset through /proc/self/clear_refs), less the target block, largest over ranks, with
// the plan cache emptied and pooling off so that no buffer of an earlier move is reused.
#include "../common/bench_common.hpp"

#include <hpf/hpf.hpp>

#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace {

using hpf::bench::max_over_ranks;
using hpf::bench::slowest_time;

/// A field of /proc/self/status in KiB (VmRSS, VmHWM), or -1.
long status_kib(const std::string& key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key + ":", 0) == 0) {
      std::istringstream in(line.substr(key.size() + 1));
      long v = -1;
      in >> v;
      return v;
    }
  return -1;
}

/// Collective: the most KiB any rank's resident memory peaked above its level before `move`; -1
/// where the peak cannot be reset.
template <class Move> long extra_peak_kib(Move&& move) {
  HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  const bool ok = clear.good();
  const long before = status_kib("VmRSS");
  move();
  long extra = ok ? status_kib("VmHWM") - before : -1;
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &extra, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
  return extra;
}

template <int N> void run_case(const char* name, const hpf::Layout<N>& a, const hpf::Layout<N>& b,
                               const std::vector<int>& divs, int repeats, int job,
                               hpf::bench::CsvWriter& csv) {
  hpf::DistArray<double, N> A("A", a);
  hpf::DistArray<double, N> B("B", b);
  hpf::forall(A, [](const hpf::Index<N>& g, double& x) { x = static_cast<double>(g[0]); });
  const auto bytes = static_cast<std::size_t>(A.local_size()) * sizeof(double);
  std::vector<double> copy;
  {
    hpf::bench::LargeBuffer x(bytes, 1), y(bytes, 0);
    for (int r = 0; r < repeats; ++r)
      copy.push_back(slowest_time([&] { std::memcpy(y.data(), x.data(), bytes); }));
  }
  const double m = hpf::median(copy);
  double unbounded = 0;
  for (const int d : divs) {
    hpf::RedistOptions o;
    if (d > 0) o.memory_ceiling_bytes = bytes / static_cast<std::size_t>(d);
    // The memory first, with nothing cached or pooled; then the times, as a program repeating it runs.
    const std::size_t pool = hpf::detail::buffer_pool_limit();
    hpf::detail::set_buffer_pool_limit(0);
    hpf::clear_plan_cache();
    // B exists before the call: its block is not part of the peak.
    const long extra = extra_peak_kib([&] { hpf::DistArray<double, N>::redistribute_into(A, B, o); });
    hpf::detail::set_buffer_pool_limit(pool);
    std::vector<double> t;
    hpf::DistArray<double, N>::redistribute_into(A, B, o); // warm-up
    for (int r = 0; r < repeats; ++r)
      t.push_back(slowest_time([&] { hpf::DistArray<double, N>::redistribute_into(A, B, o); }));
    const double s = hpf::median(t);
    if (d == 0) unbounded = s;
    if (a.grid().parent_rank() == 0) {
      std::printf("%-10s ranks %d  ceiling %s  %.2f ms  x%.2f unbounded  x%.1f memcpy  extra peak %ld KiB\n",
                  name, a.grid().parent_size(), d > 0 ? ("1/" + std::to_string(d)).c_str() : "none", s * 1e3,
                  unbounded > 0 ? s / unbounded : 0.0, s / m, extra);
      csv.row("%d,%s,%d,%d,%zu,%zu,%.6g,%.6g,%.4f,%.3f,%ld\n", job, name, a.grid().parent_size(), d,
              o.memory_ceiling_bytes.value_or(0), bytes, s, m, unbounded > 0 ? s / unbounded : 0.0, s / m,
              extra);
    }
  }
}

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  hpf::index_t per_rank = hpf::index_t{4} << 20;
  std::vector<int> divs{0, 4, 16, 64, 256};
  int repeats = 9;
  int job = 1;
  std::string csv_path = "docs/results/redistribute_ceiling.csv";
  hpf::bench::for_each_option(argc, argv,
                              "[--per-rank M] [--divs 0,4,16] [--repeats R] [--job J] [--csv file]",
                              [&](std::string_view k, std::string_view v) {
                                if (k == "--per-rank")
                                  per_rank = hpf::bench::parse_number<hpf::index_t>(v, "--per-rank");
                                else if (k == "--divs")
                                  divs = hpf::bench::parse_list<int>(v, "--divs");
                                else if (k == "--repeats")
                                  repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                else if (k == "--job")
                                  job = hpf::bench::parse_number<int>(v, "--job");
                                else if (k == "--csv")
                                  csv_path = v;
                                else
                                  return false;
                                return true;
                              });
  hpf::detail::require(repeats >= 1 && per_rank >= 1024, "--repeats must be >= 1 and --per-rank >= 1024");
  int p = 0;
  HPF_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &p));
  int me = 0;
  HPF_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
  hpf::bench::CsvWriter csv;
  if (me == 0)
    csv = hpf::bench::CsvWriter(csv_path,
                                "job,case,ranks,ceiling_div,ceiling_bytes,local_bytes,median_s,memcpy_s,"
                                "vs_unbounded,vs_memcpy,extra_peak_kib");
  std::vector<int> ranks(static_cast<std::size_t>(p));
  std::iota(ranks.begin(), ranks.end(), 0);
  const hpf::ProcessGrid line(MPI_COMM_WORLD, ranks, {p});
  const hpf::index_t n = per_rank * p;
  // Every message packed (pieces of one element), and a transposition of the distributed dimension.
  run_case<1>("1d-cyclic1", hpf::Layout<1>({n}, {hpf::Block()}, line),
              hpf::Layout<1>({n}, {hpf::Cyclic(1)}, line), divs, repeats, job, csv);
  const hpf::index_t cols = 1024 * static_cast<hpf::index_t>(p);
  const hpf::Index<2> ext{n / cols, cols};
  run_case<2>("2d-transpose", hpf::Layout<2>(ext, {hpf::Collapsed(), hpf::Block()}, line),
              hpf::Layout<2>(ext, {hpf::Cyclic(2), hpf::Collapsed()}, line), divs, repeats, job, csv);
  return 0;
}
