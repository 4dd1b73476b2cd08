// Where the time of a small REDISTRIBUTE goes (the cells of 10^3 elements are latency-bound). One job
// times, interleaved, every part of A.redistribute(b) on its own, beside the whole call and the peer:
//   - redistribute:  A.redistribute() as a user calls it, alternating between the two layouts;
//   - redistribute-unchecked: the same with the argument check off (hpf::set_argument_checks);
//   - executor:      the cached executor on preallocated arrays (the data movement alone);
//   - agreement-allreduce: check_same_redistribution, the collective check that every rank passed the
//                    same layouts (one MPI_Allreduce of a 16-byte hash);
//   - allreduce:     a bare MPI_Allreduce of 16 bytes (the floor of that check);
//   - plan_lookup:   the plan cache's lookup and executor lease;
//   - allocate:      the uninitialised target block (from the pool of released blocks);
//   - alltoallw:     MPI_Alltoallw over derived datatypes (peers.hpp), the sweep's best peer here;
//   - timer:         an empty call (the floor of the timing itself).
// Each is the largest over the ranks of one call after a barrier, right after an untimed call of the
// same part; medians of --repeats calls, round-robin over the parts (MPI_Alltoallw on a pair of its own).
//
//   mpirun -n 2 bench_redistribute_overhead [--M 1000] [--r 3] [--s 5] [--repeats 2001] [--csv out.csv]
#include "peers.hpp"

#include <hpf/hpf.hpp>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace rb = hpf::bench::redist;
using hpf::index_t;

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  index_t M = 1000;
  index_t r = 3;
  index_t s = 5;
  int repeats = 2001;
  std::string csv_path;
  hpf::bench::for_each_option(argc, argv, "[--M m] [--r r] [--s s] [--repeats R] [--csv file]",
                              [&](std::string_view k, std::string_view v) {
                                if (k == "--M")
                                  M = rb::parse_sizes(v, "--M").at(0);
                                else if (k == "--r")
                                  r = hpf::bench::parse_number<index_t>(v, "--r");
                                else if (k == "--s")
                                  s = hpf::bench::parse_number<index_t>(v, "--s");
                                else if (k == "--repeats")
                                  repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                else if (k == "--csv")
                                  csv_path = v;
                                else
                                  return false;
                                return true;
                              });
  hpf::detail::require(repeats >= 9, "--repeats: must be >= 9 (medians), got ", repeats);
  hpf::detail::require(M >= 1, "--M: must be >= 1, got ", M);
  hpf::detail::require(r >= 0 && s >= 0, "--r, --s: block sizes must be >= 0 (0 = BLOCK), got ", r, " and ",
                       s);

  int P = 0;
  int me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const hpf::ProcessGrid line = hpf::ProcessGrid::world({P});
  const hpf::Layout<1> a({M}, {rb::dist_of(r)}, line);
  const hpf::Layout<1> b({M}, {rb::dist_of(s)}, line);

  hpf::DistArray<double, 1> A("A", a);
  hpf::DistArray<double, 1> X("X", a);
  hpf::DistArray<double, 1> Y("Y", b);
  hpf::DistArray<double, 1> WX("WX", a); // MPI_Alltoallw's own pair
  hpf::DistArray<double, 1> WY("WY", b);
  hpf::forall(X, [](const hpf::Index<1>& g, double& x) { x = static_cast<double>(g[0]); });
  hpf::forall(WX, [](const hpf::Index<1>& g, double& x) { x = static_cast<double>(g[0]); });
  const hpf::RedistOptions opt = hpf::detail::with_model(a, {}, sizeof(double));
  auto lease = hpf::cached_executor(a, b, opt);
  rb::Alltoallw a2aw(a, b, P, me);
  const std::uint64_t words[2] = {1, 2};
  std::uint64_t reduced[2] = {0, 0};
  bool at_b = false;

  struct Part {
    const char* name;
    std::function<void()> run;
    std::vector<double> t;
  };
  std::vector<Part> parts;
  parts.push_back({"redistribute",
                   [&] {
                     A.redistribute(at_b ? a : b);
                     at_b = !at_b;
                   },
                   {}});
  parts.push_back({"redistribute-unchecked",
                   [&] {
                     hpf::set_argument_checks(false); // the same on every rank
                     A.redistribute(at_b ? a : b);
                     at_b = !at_b;
                     hpf::set_argument_checks(true);
                   },
                   {}});
  parts.push_back({"executor", [&] { lease->execute(X, Y); }, {}});
  const auto option_words = hpf::agreement_words(hpf::RedistOptions{});
  parts.push_back(
      {"agreement-allreduce", [&] { hpf::check_same_redistribution(a, b, option_words, "overhead"); }, {}});
  parts.push_back(
      {"allreduce",
       [&] { HPF_MPI_CHECK(MPI_Allreduce(words, reduced, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD)); },
       {}});
  parts.push_back({"plan_lookup", [&] { (void)hpf::cached_executor(a, b, opt); }, {}});
  parts.push_back(
      {"allocate", [&] { hpf::DistArray<double, 1> t("A", b, hpf::detail::Uninitialized{}); }, {}});
  parts.push_back({"alltoallw", [&] { a2aw.run(WX.local_data(), WY.local_data()); }, {}});
  parts.push_back({"timer", [] {}, {}});

  // Checks (untimed, also the warm-up): the executor and the peer deliver the target layout.
  bool ok = true;
  const auto want = rb::global_ids(b);
  lease->execute(X, Y);
  ok = ok && rb::holds(Y.local_data(), want);
  a2aw.run(WX.local_data(), WY.local_data());
  ok = ok && rb::holds(WY.local_data(), want);
  // Round-robin, every timed call right after an untimed call of the same part (as
  // bench_redistribute_sweep's default order): no part runs on caches another part filled, and the
  // parts' calls are spread alike over the job's time.
  for (int k = 0; k < repeats; ++k)
    for (Part& p : parts) p.t.push_back(rb::time_warm(p.run));
  int all_ok = ok ? 1 : 0;
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));

  if (me == 0) {
    const double t_ex = hpf::median(parts[2].t);
    hpf::bench::CsvWriter csv;
    if (!csv_path.empty())
      csv = hpf::bench::CsvWriter(csv_path, "ranks,M,r,s,part,median_s,over_executor,ok");
    for (const Part& p : parts) {
      const double t = hpf::median(p.t);
      std::printf("ranks %d  M %-8lld %-24s %8.2f us  /executor %5.2f\n", P, static_cast<long long>(M),
                  p.name, t * 1e6, t / t_ex);
      csv.row("%d,%lld,%lld,%lld,%s,%.9g,%.4f,%d\n", P, static_cast<long long>(M), static_cast<long long>(r),
              static_cast<long long>(s), p.name, t, t / t_ex, all_ok);
    }
  }
  return all_ok ? 0 : 1;
}
