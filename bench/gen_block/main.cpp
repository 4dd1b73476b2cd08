// bench_gen_block: REDISTRIBUTE of a 1-D array of n doubles to and from GEN_BLOCK on P ranks, with a
// reused RedistributionPlan (executor), against a hand-written MPI_Alltoallv of the same intervals
// (GEN_BLOCK blocks are contiguous, so the peer needs no packing: counts and displacements only) and
// against one memcpy of the same local bytes, all measured in the same job. Each repeat is timed
// between barriers as the slowest rank's time; the CSV gets the median of --repeats repeats.
// Cases: GEN_BLOCK -> GEN_BLOCK (Auto: the interval schedule of schedule/gen_block.hpp; and forced
// koenig-stepwise and all-at-once), BLOCK -> GEN_BLOCK, CYCLIC(1) -> GEN_BLOCK (strided runs).
// Rows "plan-interval" / "plan-koenig" (rank 0, no MPI): the time to schedule a GEN_BLOCK -> GEN_BLOCK
// grid of --plan-P processes per side by gen_block_schedule and by koenig_stepwise_schedule (only
// with --plan-P > 0).
//
//   mpirun -n 4 bench_gen_block --n 8e6 --repeats 9 --csv docs/results/gen_block.csv
#include <hpf/hpf.hpp>

#include "../common/bench_common.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

using hpf::index_t;

template <class F> double median_of(int repeats, F&& f) {
  std::vector<double> t;
  for (int k = 0; k < repeats; ++k) t.push_back(hpf::bench::slowest_time(f));
  return hpf::median(t);
}

/// Skewed block sizes summing to n: process p gets a share proportional to (p + 1) (or to P - p).
std::vector<index_t> skewed(index_t n, int P, bool rising) {
  std::vector<index_t> s(static_cast<std::size_t>(P));
  const index_t w = static_cast<index_t>(P) * (P + 1) / 2;
  index_t given = 0;
  for (int p = 0; p < P; ++p) {
    const index_t k = rising ? p + 1 : P - p;
    s[static_cast<std::size_t>(p)] = n * k / w;
    given += s[static_cast<std::size_t>(p)];
  }
  s.back() += n - given;
  return s;
}

std::vector<index_t> offsets(const std::vector<index_t>& s) {
  std::vector<index_t> o{0};
  for (index_t x : s) o.push_back(o.back() + x);
  return o;
}

struct Row {
  std::string kase;
  std::string method;
  double median = 0;
};

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  index_t n = 8'000'000;
  int repeats = 9;
  int plan_P = 0; // 0: no planning rows
  std::string csv = "docs/results/gen_block.csv";
  hpf::bench::for_each_option(argc, argv, "bench_gen_block [--n N] [--repeats R] [--plan-P P] [--csv FILE]",
                              [&](std::string_view k, std::string_view v) {
                                if (k == "--n")
                                  n = static_cast<index_t>(hpf::bench::parse_number<double>(v, "--n"));
                                else if (k == "--repeats")
                                  repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                else if (k == "--plan-P")
                                  plan_P = hpf::bench::parse_number<int>(v, "--plan-P");
                                else if (k == "--csv")
                                  csv = std::string(v);
                                else
                                  return false;
                                return true;
                              });
  const int P = hpf::comm_size(MPI_COMM_WORLD);
  const int me = hpf::comm_rank(MPI_COMM_WORLD);
  const auto grid = hpf::ProcessGrid::world({P});
  const std::vector<index_t> rise = skewed(n, P, true);
  const std::vector<index_t> fall = skewed(n, P, false);
  const hpf::Layout<1> gb_rise({n}, {hpf::GenBlock(rise)}, grid);
  const hpf::Layout<1> gb_fall({n}, {hpf::GenBlock(fall)}, grid);
  const hpf::Layout<1> block({n}, {hpf::Block()}, grid);
  const hpf::Layout<1> cyc1({n}, {hpf::Cyclic(1)}, grid);
  std::vector<Row> rows;

  hpf::RedistOptions base;
  base.alpha = 1e-5; // a fixed model: the bench measures execution, not the ping-pong
  base.beta = 1e-9;
  auto run_plan = [&](const std::string& kase, const std::string& method, const hpf::Layout<1>& from,
                      const hpf::Layout<1>& to, hpf::Strategy s) {
    hpf::RedistOptions o = base;
    o.strategy = s;
    hpf::DistArray<double, 1> A("A", from);
    hpf::DistArray<double, 1> B("B", to);
    hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = static_cast<double>(g[0]); });
    const hpf::RedistributionPlan<1> plan(from, to, o);
    hpf::RedistributionExecutor<1> ex(plan);
    ex.execute(A, B); // warm-up: buffers and pages
    rows.push_back({kase, method, median_of(repeats, [&] { ex.execute(A, B); })});
  };

  // The peer: one MPI_Alltoallv of the intervals (GEN_BLOCK -> GEN_BLOCK, contiguous on both sides).
  auto run_alltoallv = [&](const std::string& kase, const std::vector<index_t>& a,
                           const std::vector<index_t>& b) {
    const auto oa = offsets(a);
    const auto ob = offsets(b);
    const auto up = static_cast<std::size_t>(me);
    std::vector<int> sc(static_cast<std::size_t>(P)), sd(sc.size()), rc(sc.size()), rd(sc.size());
    for (int q = 0; q < P; ++q) {
      const auto uq = static_cast<std::size_t>(q);
      const index_t slo = std::max(oa[up], ob[uq]);
      const index_t shi = std::min(oa[up + 1], ob[uq + 1]);
      sc[uq] = static_cast<int>(std::max<index_t>(0, shi - slo));
      sd[uq] = static_cast<int>(std::max<index_t>(0, slo - oa[up]));
      const index_t rlo = std::max(oa[uq], ob[up]);
      const index_t rhi = std::min(oa[uq + 1], ob[up + 1]);
      rc[uq] = static_cast<int>(std::max<index_t>(0, rhi - rlo));
      rd[uq] = static_cast<int>(std::max<index_t>(0, rlo - ob[up]));
    }
    std::vector<double> src(static_cast<std::size_t>(a[up]), 1.0);
    std::vector<double> dst(static_cast<std::size_t>(b[up]), 0.0);
    auto go = [&] {
      MPI_Alltoallv(src.data(), sc.data(), sd.data(), MPI_DOUBLE, dst.data(), rc.data(), rd.data(),
                    MPI_DOUBLE, MPI_COMM_WORLD);
    };
    go();
    rows.push_back({kase, "mpi-alltoallv", median_of(repeats, go)});
  };

  // One memcpy of the largest local block of the case.
  auto run_memcpy = [&](const std::string& kase, index_t local) {
    std::vector<double> a(static_cast<std::size_t>(local), 1.0);
    std::vector<double> b(a.size(), 0.0);
    std::memcpy(b.data(), a.data(), a.size() * sizeof(double));
    rows.push_back({kase, "memcpy",
                    median_of(repeats, [&] { std::memcpy(b.data(), a.data(), a.size() * sizeof(double)); })});
  };
  const index_t biggest = *std::max_element(rise.begin(), rise.end());

  const std::string gg = "genblock-to-genblock";
  run_plan(gg, "hpf-auto-interval", gb_rise, gb_fall, hpf::Strategy::Auto);
  run_plan(gg, "hpf-koenig-stepwise", gb_rise, gb_fall, hpf::Strategy::KoenigStepwise);
  run_plan(gg, "hpf-all-at-once", gb_rise, gb_fall, hpf::Strategy::AllAtOnce);
  run_alltoallv(gg, rise, fall);
  run_memcpy(gg, biggest);
  const std::string bg = "block-to-genblock";
  run_plan(bg, "hpf-auto", block, gb_rise, hpf::Strategy::Auto);
  std::vector<index_t> even(static_cast<std::size_t>(P));
  for (int p = 0; p < P; ++p) even[static_cast<std::size_t>(p)] = block.map(0).local_extent(p);
  run_alltoallv(bg, even, rise);
  run_memcpy(bg, biggest);
  const std::string cg = "cyclic1-to-genblock";
  run_plan(cg, "hpf-auto", cyc1, gb_rise, hpf::Strategy::Auto);
  run_memcpy(cg, biggest);

  // Planning only (rank 0): GEN_BLOCK -> GEN_BLOCK over plan_P processes per side.
  double t_interval = 0;
  double t_koenig = 0;
  int steps_interval = 0;
  int steps_koenig = 0;
  index_t tc_interval = 0;
  index_t tc_koenig = 0;
  if (me == 0 && plan_P > 0) {
    const auto oa = offsets(skewed(index_t{1} << 30, plan_P, true));
    const auto ob = offsets(skewed(index_t{1} << 30, plan_P, false));
    std::vector<double> ti;
    std::vector<double> tk;
    for (int k = 0; k < std::max(3, repeats / 3); ++k) {
      double t0 = MPI_Wtime();
      const hpf::Schedule a = hpf::gen_block_schedule(oa, ob);
      ti.push_back(MPI_Wtime() - t0);
      const hpf::CommMatrix g = hpf::gen_block_pattern(oa, ob);
      t0 = MPI_Wtime();
      const hpf::Schedule b = hpf::koenig_stepwise_schedule(g);
      tk.push_back(MPI_Wtime() - t0);
      steps_interval = a.num_steps();
      steps_koenig = b.num_steps();
      tc_interval = a.total_cost();
      tc_koenig = b.total_cost();
    }
    t_interval = hpf::median(ti);
    t_koenig = hpf::median(tk);
  }

  if (me == 0) {
    std::ifstream probe(csv);
    const bool header = !probe.good() || probe.peek() == std::ifstream::traits_type::eof();
    probe.close();
    std::ofstream out(csv, std::ios::app);
    if (header) out << "case,ranks,n,method,median_s,over_memcpy,over_alltoallv,steps,total_cost\n";
    auto ref = [&](const std::string& kase, const std::string& method) {
      for (const Row& r : rows)
        if (r.kase == kase && r.method == method) return r.median;
      return 0.0;
    };
    for (const Row& r : rows) {
      const double mc = ref(r.kase, "memcpy");
      const double av = ref(r.kase, "mpi-alltoallv");
      out << r.kase << ',' << P << ',' << n << ',' << r.method << ',' << r.median << ','
          << (mc > 0 ? r.median / mc : 0) << ',' << (av > 0 ? r.median / av : 0) << ",,\n";
      std::printf("%-22s P=%d %-20s %10.6f s  %7.2fx memcpy  %s\n", r.kase.c_str(), P, r.method.c_str(),
                  r.median, mc > 0 ? r.median / mc : 0,
                  av > 0 ? (std::to_string(r.median / av) + "x alltoallv").c_str() : "");
    }
    if (plan_P > 0) { // planning rows (they do not depend on the job's ranks)
      out << "planning," << plan_P << ",0,plan-interval," << t_interval << ",0,0," << steps_interval << ','
          << tc_interval << '\n';
      out << "planning," << plan_P << ",0,plan-koenig," << t_koenig << ",0,0," << steps_koenig << ','
          << tc_koenig << '\n';
      std::printf("planning P=Q=%d: interval %.6f s (%d steps, TC %lld), koenig-stepwise %.6f s (%d steps, "
                  "TC %lld)\n",
                  plan_P, t_interval, steps_interval, static_cast<long long>(tc_interval), t_koenig,
                  steps_koenig, static_cast<long long>(tc_koenig));
    }
  }
  return 0;
}
