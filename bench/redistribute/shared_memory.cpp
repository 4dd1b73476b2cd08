// bench_redistribute_shared_memory: what moving packed messages through shared-memory segments gains
// (RedistOptions::shared_memory_min_bytes, Exchange::set_shared_memory), against the same executor with
// every message through MPI and against one memcpy of each rank's block, in a job that holds nothing
// else (issue 10). speed.sh's job, which also holds every peer, times the same executor 2-6x slower
// than this one (docs/redistribute.md); this job isolates the transport.
//
// Cases (--cases M:r:s,...; r or s = 0 means BLOCK), 1-D over every rank of MPI_COMM_WORLD. Methods, in
// rounds whose order rotates, each the largest over ranks of one call after a barrier, medians (and
// minima) of --repeats:
//   - redistribute / redistribute-back: A.redistribute(b) then A.redistribute(a) (cached plans, pooled
//     executors; the target allocated by each call as in HPF);
//   - executor:     one kept RedistributionExecutor into a preallocated target, default options
//                   (shared memory from its first execution on);
//   - executor-mpi: the same with RedistOptions::shared_memory_min_bytes = SIZE_MAX;
//   - memcpy:       one memcpy of each rank's larger local block, every rank at once, between blocks
//                   allocated as the arrays' are (the limit).
// Every method's result is checked once before the timed rounds.
//
//   mpirun -n 2 bench_redistribute_shared_memory [--cases 8e6:3:5,...] [--repeats 21] [--csv out.csv]
#include "peers.hpp"

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using hpf::index_t;
namespace rb = hpf::bench::redist;

struct Case {
  index_t M;
  index_t r;
  index_t s;
};

std::vector<Case> parse_cases(std::string_view text) {
  std::vector<Case> out;
  for (const std::string& item : hpf::bench::split_list(text)) {
    std::vector<double> v;
    std::size_t start = 0;
    while (true) {
      const std::size_t colon = item.find(':', start);
      v.push_back(hpf::bench::parse_number<double>(item.substr(start, colon - start), "--cases"));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    hpf::detail::require(v.size() == 3 && v[0] >= 0 && v[1] >= 0 && v[2] >= 0, "--cases: '", item,
                         "' is not M:r:s with M, r, s >= 0 (0 = BLOCK)");
    out.push_back({static_cast<index_t>(v[0]), static_cast<index_t>(v[1]), static_cast<index_t>(v[2])});
  }
  return out;
}

struct Method {
  std::string name;
  std::function<void()> run;
  std::vector<double> t;
};

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    int repeats = 21;
    std::string csv_path;
    std::vector<Case> cases = parse_cases("8e6:3:5,8e6:1:64,8e6:0:64,1e6:3:5,1e5:3:5,1e4:3:5");
    hpf::bench::for_each_option(argc, argv, "[--cases M:r:s,...] [--repeats R] [--csv file]",
                                [&](std::string_view k, std::string_view v) {
                                  if (k == "--repeats")
                                    repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                  else if (k == "--cases")
                                    cases = parse_cases(v);
                                  else if (k == "--csv")
                                    csv_path = v;
                                  else
                                    return false;
                                  return true;
                                });
    hpf::detail::require(repeats >= 1, "--repeats: must be >= 1, got ", repeats);
    int P = 0;
    int me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const auto line = hpf::ProcessGrid::world({P});
    hpf::bench::CsvWriter csv;
    if (!csv_path.empty() && me == 0)
      csv =
          hpf::bench::CsvWriter(csv_path, "case,ranks,M,method,median_s,min_s,over_memcpy,over_executor_mpi,"
                                          "shared_sends");
    bool ok = true;
    for (const Case& c : cases) {
      const hpf::Layout<1> a({c.M}, {rb::dist_of(c.r)}, line);
      const hpf::Layout<1> b({c.M}, {rb::dist_of(c.s)}, line);
      const std::string case_name = "1d-" + rb::name_of(c.r) + "-to-" + rb::name_of(c.s);
      hpf::DistArray<double, 1> A("A", a);
      hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = static_cast<double>(g[0]); });
      hpf::DistArray<double, 1> X("X", a);
      hpf::DistArray<double, 1> Y("Y", b);
      hpf::forall(X, [](const hpf::Index<1>& g, double& x) { x = static_cast<double>(g[0]); });
      const hpf::RedistOptions opt = hpf::detail::with_model(a, {}, sizeof(double));
      hpf::RedistOptions mpi_opt = opt;
      mpi_opt.shared_memory_min_bytes = SIZE_MAX;
      const hpf::RedistributionPlan<1> plan(a, b, opt);
      const hpf::RedistributionPlan<1> mpi_plan(a, b, mpi_opt);
      hpf::RedistributionExecutor<1> ex(plan);
      hpf::RedistributionExecutor<1> ex_mpi(mpi_plan);
      const auto bytes =
          static_cast<std::size_t>(std::max(a.my_local_extents()[0], b.my_local_extents()[0])) *
          sizeof(double);
      const hpf::bench::LargeBuffer mx(bytes, 1);
      const hpf::bench::LargeBuffer my(bytes, 2);
      std::vector<Method> methods;
      methods.push_back({"redistribute", [&] { A.redistribute(b); }, {}});
      methods.push_back({"redistribute-back", [&] { A.redistribute(a); }, {}});
      methods.push_back({"executor", [&] { ex.execute(X, Y); }, {}});
      methods.push_back({"executor-mpi", [&] { ex_mpi.execute(X, Y); }, {}});
      methods.push_back({"memcpy", [&] { std::memcpy(my.data(), mx.data(), bytes); }, {}});
      // Checks, untimed; also the first two executions of each executor (the shared-memory setup).
      auto check = [&](const char* what, bool good) {
        if (!good)
          std::fprintf(stderr, "bench_redistribute_shared_memory: %s: WRONG DATA (rank %d)\n", what, me);
        ok = ok && good;
      };
      for (int k = 0; k < 2; ++k) {
        methods[0].run();
        check("redistribute", rb::holds(A.local_data(), rb::global_ids(b)));
        methods[1].run();
        check("redistribute-back", rb::holds(A.local_data(), rb::global_ids(a)));
        Y.fill(0);
        methods[2].run();
        check("executor", rb::holds(Y.local_data(), rb::global_ids(b)));
        Y.fill(0);
        methods[3].run();
        check("executor-mpi", rb::holds(Y.local_data(), rb::global_ids(b)));
      }
      for (int k = 0; k < repeats; ++k) // the first method of a round rotates (no fixed neighbour)
        for (std::size_t j = 0; j < methods.size(); ++j) {
          // redistribute and redistribute-back stay a pair: A must end each round where it began.
          const std::size_t i = (j + 2 * static_cast<std::size_t>(k)) % methods.size();
          if (i == 1) continue;
          methods[i].t.push_back(rb::time_once(methods[i].run));
          if (i == 0) methods[1].t.push_back(rb::time_once(methods[1].run));
        }
      Y.fill(0);
      ex.execute(X, Y);
      check("executor, after the timed rounds", rb::holds(Y.local_data(), rb::global_ids(b)));
      unsigned long long shared = ex.shared_sends();
      HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &shared, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
      if (me == 0) {
        const double t_copy = hpf::median(methods[4].t);
        const double t_mpi = hpf::median(methods[3].t);
        for (const Method& m : methods) {
          const double t = hpf::median(m.t);
          std::printf(
              "%-28s ranks %d  M %-9lld %-18s %9.3f ms  /memcpy %6.2f  /executor-mpi %5.2f  shared %llu\n",
              case_name.c_str(), P, static_cast<long long>(c.M), m.name.c_str(), t * 1e3, t / t_copy,
              t / t_mpi, shared);
          csv.row("%s,%d,%lld,%s,%.9g,%.9g,%.4f,%.4f,%llu\n", case_name.c_str(), P,
                  static_cast<long long>(c.M), m.name.c_str(), t, hpf::bench::min_of(m.t), t / t_copy,
                  t / t_mpi, shared);
        }
      }
    }
    return ok ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "bench_redistribute_shared_memory: %s\n", e.what());
    return 2;
  }
}
