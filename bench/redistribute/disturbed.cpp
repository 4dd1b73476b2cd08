// bench_redistribute_disturbed: why the sweep's times of 10^7 elements scatter (issue 10). One cell,
// the kept executor with and without shared-memory segments beside a memcpy between the two arrays
// and MPI_Alltoallw, each timed in two conditions, in round-robin repeats:
//   - quiet:     right after an untimed call of the same method;
//   - disturbed: before each timed call (untimed), every rank writes and frees a buffer of --disturb
//                MiB of 4 KiB pages (madvise MADV_NOHUGEPAGE), as the sweep's other methods do with
//                their own buffers.
// (In the sweep every method follows the others; "quiet" here is the best case, a method repeated.)
// On a VM with shadow page tables the disturbance displaces the hypervisor's copies of other 4 KiB
// mappings, and the next pass over those pays a fault per page that the guest does not count. The
// arrays are transparent huge pages; shared-memory segments cannot be (/dev/shm), so the
// segments' path is expected to suffer where the memcpy does not. Each time is the largest over ranks
// after a barrier; medians of --repeats. The CSV row of every method and condition carries its ratio
// to the same method quiet and to the memcpy in the same condition, and the page faults the guest
// counted per call on rank 0.
//
//   mpirun -n 2 bench_redistribute_disturbed [--M 1e7] [--r 0] [--s 1] [--disturb 200] [--repeats 15]
//          [--csv out.csv]
#include "peers.hpp"

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <sys/resource.h>

namespace {

using hpf::index_t;
namespace rb = hpf::bench::redist;

struct Args {
  index_t M = 10000000;
  index_t r = 0; // 0 = BLOCK
  index_t s = 1;
  std::size_t disturb_mib = 200;
  int repeats = 15;
  std::string csv;
};

Args parse(int argc, char** argv) {
  using hpf::bench::parse_number;
  Args a;
  hpf::bench::for_each_option(argc, argv,
                              "[--M n] [--r b] [--s b] [--disturb MiB] [--repeats R] [--csv file]",
                              [&](std::string_view k, std::string_view v) {
                                if (k == "--M")
                                  a.M = static_cast<index_t>(parse_number<double>(v, "--M"));
                                else if (k == "--r")
                                  a.r = parse_number<index_t>(v, "--r");
                                else if (k == "--s")
                                  a.s = parse_number<index_t>(v, "--s");
                                else if (k == "--disturb")
                                  a.disturb_mib = parse_number<std::size_t>(v, "--disturb");
                                else if (k == "--repeats")
                                  a.repeats = parse_number<int>(v, "--repeats");
                                else if (k == "--csv")
                                  a.csv = v;
                                else
                                  return false;
                                return true;
                              });
  hpf::detail::require(a.M >= 1 && a.M <= 1000000000, "--M: must be in [1, 1e9], got ", a.M);
  hpf::detail::require(a.r >= 0 && a.s >= 0, "--r, --s: block sizes must be >= 0 (0 = BLOCK), got ", a.r,
                       ", ", a.s);
  hpf::detail::require(a.disturb_mib >= 1 && a.disturb_mib <= 16384,
                       "--disturb: must be in [1, 16384] MiB, got ", a.disturb_mib);
  hpf::detail::require(a.repeats >= 1, "--repeats: must be >= 1, got ", a.repeats);
  return a;
}

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

/// Writes and frees `bytes` of fresh 4 KiB pages.
void disturb(std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  hpf::detail::require(p != MAP_FAILED, "bench_redistribute_disturbed: mmap of ", bytes, " bytes failed");
  ::madvise(p, bytes, MADV_NOHUGEPAGE);
  std::memset(p, 1, bytes);
  ::munmap(p, bytes);
}

struct Method {
  std::string name;
  std::function<void()> run;
  std::vector<double> t[2];      // [quiet, disturbed]
  std::vector<double> faults[2]; // rank 0's minor faults per call
};

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const Args args = parse(argc, argv);
    int P = 0;
    int me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const auto line = hpf::ProcessGrid::world({P});
    const hpf::Layout<1> a({args.M}, {rb::dist_of(args.r)}, line);
    const hpf::Layout<1> b({args.M}, {rb::dist_of(args.s)}, line);
    const std::vector<long long> ids_a = rb::global_ids(a);
    const std::vector<long long> ids_b = rb::global_ids(b);
    hpf::DistArray<double, 1> X("X", a);
    hpf::DistArray<double, 1> Y("Y", b);
    for (std::size_t l = 0; l < ids_a.size(); ++l) X.local_data()[l] = static_cast<double>(ids_a[l]);

    const hpf::RedistOptions shm = hpf::detail::with_model(a, {}, sizeof(double));
    hpf::RedistOptions no_shm = shm;
    no_shm.shared_memory_min_bytes = SIZE_MAX;
    const hpf::RedistributionPlan<1> plan_shm(a, b, shm);
    const hpf::RedistributionPlan<1> plan_mpi(a, b, no_shm);
    hpf::RedistributionExecutor<1> ex_shm(plan_shm);
    hpf::RedistributionExecutor<1> ex_mpi(plan_mpi);
    rb::Alltoallw a2aw(a, b, P, me);
    const std::size_t copy_bytes = std::min(ids_a.size(), ids_b.size()) * sizeof(double);

    std::vector<Method> methods;
    methods.push_back({"executor-shared-memory", [&] { ex_shm.execute(X, Y); }, {}, {}});
    methods.push_back({"executor-mpi", [&] { ex_mpi.execute(X, Y); }, {}, {}});
    methods.push_back({"alltoallw", [&] { a2aw.run(X.local_data(), Y.local_data()); }, {}, {}});
    methods.push_back({"memcpy", [&] { std::memcpy(Y.local_data(), X.local_data(), copy_bytes); }, {}, {}});

    bool ok = true;
    for (Method& m : methods) { // checked once (also the warm-up)
      Y.fill(0);
      m.run();
      const bool good = m.name == "memcpy" || rb::holds(Y.local_data(), ids_b);
      if (!good && me == 0)
        std::fprintf(stderr, "bench_redistribute_disturbed: %s: WRONG DATA\n", m.name.c_str());
      ok = ok && good;
    }
    const std::size_t disturb_bytes = args.disturb_mib << 20U;
    for (int k = 0; k < args.repeats; ++k)
      for (int c = 0; c < 2; ++c)
        for (Method& m : methods) {
          if (c == 0)
            m.run(); // untimed: its pages are the last ones touched
          else
            disturb(disturb_bytes);
          const long f0 = minor_faults();
          m.t[c].push_back(rb::time_once(m.run));
          m.faults[c].push_back(static_cast<double>(minor_faults() - f0));
        }

    if (me == 0) {
      hpf::bench::CsvWriter csv;
      if (!args.csv.empty())
        csv = hpf::bench::CsvWriter(args.csv, "ranks,M,r,s,disturb_mib,condition,method,median_s,min_s,"
                                              "over_quiet,over_memcpy,faults_per_call,ok");
      const char* cond[2] = {"quiet", "disturbed"};
      for (int c = 0; c < 2; ++c)
        for (const Method& m : methods) {
          const double t = hpf::median(m.t[c]);
          const double quiet = hpf::median(m.t[0]);
          const double copy = hpf::median(methods.back().t[c]);
          std::printf("%-9s %-22s %9.3f ms  /quiet %5.2f  /memcpy %5.2f  faults %.0f\n", cond[c],
                      m.name.c_str(), t * 1e3, t / quiet, t / copy, hpf::median(m.faults[c]));
          csv.row("%d,%lld,%lld,%lld,%zu,%s,%s,%.9g,%.9g,%.6g,%.6g,%.0f,%d\n", P,
                  static_cast<long long>(args.M), static_cast<long long>(args.r),
                  static_cast<long long>(args.s), args.disturb_mib, cond[c], m.name.c_str(), t,
                  hpf::bench::min_of(m.t[c]), t / quiet, t / copy, hpf::median(m.faults[c]), ok ? 1 : 0);
        }
    }
    return ok ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "bench_redistribute_disturbed: %s\n", e.what());
    return 2;
  }
}
