// bench_redistribute: REDISTRIBUTE CYCLIC(r) -> CYCLIC(s) on the same ranks, the same data moved by
//
//   - hpf::RedistributionPlan with every strategy (plan built once, executed repeatedly; the plan
//     build time is reported apart),
//   - naive-alltoallv: what most codes do — for every element, compute its global index and owner,
//     count, pack, MPI_Alltoall the counts, MPI_Alltoallv, unpack by another owner computation per
//     element (buffers kept between calls, so that only the method is compared),
//   - pdgemr2d: ScaLAPACK's general redistribution (the caterpillar of seed 004, section 3.2), on the
//     same local arrays: a vector of M elements is an M x 1 matrix with MB = r (then s), NB = 1 on a
//     P x 1 BLACS grid; a 2-D array is an N x N matrix with MB = NB = r (then s).
//
// Every run is checked (every element holds f(global index) on its new owner). Times are the maximum
// over ranks of one call, after a barrier; the figure is the median of --repeats calls.
//
//   mpirun -n 4 bench_redistribute [--repeats 7] [--r 3] [--s 5] [--sizes 1000,10000,...]
//                                   [--sizes2d 100,1000] [--csv out.csv]
#include "peers.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace {

using hpf::CyclicMap;
using hpf::index_t;
using hpf::bench::redist::BlacsGrid;
using hpf::bench::redist::descriptor;
using hpf::bench::redist::NaiveAlltoallv;
using hpf::bench::redist::parse_sizes;
using hpf::bench::redist::time_once;

struct Args {
  std::vector<index_t> sizes{1000, 10000, 100000, 1000000, 8000000, 10000000};
  std::vector<index_t> sizes2d{100, 1000, 2828};
  int repeats = 7;
  index_t r = 3;
  index_t s = 5;
  std::string csv;
};

Args parse(int argc, char** argv) {
  using hpf::bench::parse_number;
  Args a;
  hpf::bench::for_each_option(argc, argv,
                              "[--repeats R] [--r r] [--s s] [--sizes M,...] [--sizes2d n,...] [--csv file]",
                              [&](std::string_view k, std::string_view v) {
                                if (k == "--repeats")
                                  a.repeats = parse_number<int>(v, "--repeats");
                                else if (k == "--r")
                                  a.r = parse_number<index_t>(v, "--r");
                                else if (k == "--s")
                                  a.s = parse_number<index_t>(v, "--s");
                                else if (k == "--sizes")
                                  a.sizes = parse_sizes(v, "--sizes");
                                else if (k == "--sizes2d")
                                  a.sizes2d = parse_sizes(v, "--sizes2d");
                                else if (k == "--csv")
                                  a.csv = v;
                                else
                                  return false;
                                return true;
                              });
  hpf::detail::require(a.repeats >= 1, "bench_redistribute: --repeats must be >= 1, got ", a.repeats);
  hpf::detail::require(a.r >= 1 && a.s >= 1, "bench_redistribute: --r and --s must be >= 1, got ", a.r,
                       " and ", a.s);
  return a;
}

template <int N> double value_at(const hpf::Index<N>& g) {
  double v = 0.5;
  double scale = 1;
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
    v += static_cast<double>(g[d]) * scale;
    scale *= 1 << 24;
  }
  return v;
}

/// Collective: true when every element of B holds value_at(its global index).
template <int N> bool correct(hpf::DistArray<double, N>& B) {
  long long bad = 0;
  hpf::forall(B, [&](const hpf::Index<N>& g, double& x) { bad += x != value_at<N>(g) ? 1 : 0; });
  long long all = 0;
  HPF_MPI_CHECK(MPI_Allreduce(&bad, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  return all == 0;
}

struct Row {
  std::string case_name;
  index_t M;
  std::string method;
  double median_s;
  double min_s;
  double plan_s;
  bool ok;
};

/// One size of one case: every method on the same A (filled once) into B (cleared before each).
template <int N> void run_case(const std::string& case_name, const hpf::Layout<N>& src,
                               const hpf::Layout<N>& dst, const std::array<int, 2>& blacs_shape,
                               const Args& args, std::vector<Row>& rows) {
  const index_t M = src.global_size();
  hpf::DistArray<double, N> A("A", src);
  hpf::DistArray<double, N> B("B", dst);
  hpf::forall(A, [](const hpf::Index<N>& g, double& x) { x = value_at<N>(g); });
  struct Method {
    std::string name;
    double plan_s;
    std::function<void()> run;
  };
  std::vector<Method> methods;
  std::vector<std::unique_ptr<hpf::RedistributionPlan<N>>> plans;

  // hpfrt: every strategy, plan built once (timed apart) and reused.
  for (hpf::Strategy st : hpf::all_strategies()) {
    hpf::RedistOptions opt;
    opt.strategy = st;
    if (st == hpf::Strategy::Class) {
      bool applies = true;
      for (int d = 0; d < N; ++d) {
        const CyclicMap a = src.map(d);
        const CyclicMap b = dst.map(d);
        applies = applies && hpf::class_schedule_applies({a.P, a.r, b.P, b.r, a.n});
      }
      if (!applies) continue; // Prop. 3's condition fails: no class schedule
    }
    HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    const double p0 = MPI_Wtime();
    plans.push_back(std::make_unique<hpf::RedistributionPlan<N>>(src, dst, opt));
    const hpf::RedistributionPlan<N>& plan = *plans.back();
    double plan_s = MPI_Wtime() - p0;
    HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &plan_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    std::string name = hpf::to_string(st);
    if (st == hpf::Strategy::Auto)
      name += "(" + hpf::to_string(plan.dim_strategy(0)) + " " + hpf::to_string(plan.exec_mode()) + ")";
    methods.push_back({name, plan_s, [&plan, &A, &B] { plan.execute(A, B); }});
  }

  // The naive MPI_Alltoallv.
  NaiveAlltoallv<N> naive(src, dst);
  methods.push_back({"naive-alltoallv", 0, [&] { naive.run(A.local_data(), B.local_data()); }});

  // ScaLAPACK pdgemr2d on the same local arrays.
  const int nprow = blacs_shape[0];
  const int npcol = blacs_shape[1];
  const BlacsGrid ga(nprow, npcol);
  const BlacsGrid gb(nprow, npcol);
  const BlacsGrid all(1, src.grid().size());
  const std::vector<int> me = src.grid().my_coords();
  hpf::detail::require(ga.myrow == me[0] && ga.mycol == (me.size() > 1 ? me[1] : 0),
                       "BLACS grid order differs from hpf::ProcessGrid's");
  const int m = static_cast<int>(src.extent(0));
  const int n = N == 1 ? 1 : static_cast<int>(src.extent(N - 1));
  const int r = static_cast<int>(src.map(0).r);
  const int s = static_cast<int>(dst.map(0).r);
  const auto da = descriptor(ga, m, n, r, N == 1 ? 1 : r);
  const auto db = descriptor(gb, m, n, s, N == 1 ? 1 : s);
  const int one = 1;
  methods.push_back({"pdgemr2d", 0, [&] {
                       pdgemr2d_(&m, &n, A.local_data(), &one, &one, da.data(), B.local_data(), &one, &one,
                                 db.data(), &all.ctxt);
                     }});

  // Round-robin over the methods in every repeat, so that the load of a shared machine spreads over
  // all of them alike; one untimed warm-up call each. Then each is checked on a cleared target.
  std::vector<std::vector<double>> t(methods.size());
  for (const Method& meth : methods) meth.run();
  for (int k = 0; k < args.repeats; ++k)
    for (std::size_t i = 0; i < methods.size(); ++i) t[i].push_back(time_once(methods[i].run));
  for (std::size_t i = 0; i < methods.size(); ++i) {
    B.fill(0);
    methods[i].run();
    const bool ok = correct(B);
    rows.push_back(
        {case_name, M, methods[i].name, hpf::median(t[i]), hpf::bench::min_of(t[i]), methods[i].plan_s, ok});
  }
}

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const Args args = parse(argc, argv);
    int size = 0;
    int rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::vector<Row> rows;
    const auto line = hpf::ProcessGrid::world({size});
    const std::string c1 =
        "1d-cyclic(" + std::to_string(args.r) + ")-to-cyclic(" + std::to_string(args.s) + ")";
    for (index_t M : args.sizes) {
      const hpf::Layout<1> src({M}, {hpf::Cyclic(args.r)}, line);
      const hpf::Layout<1> dst({M}, {hpf::Cyclic(args.s)}, line);
      run_case<1>(c1, src, dst, {size, 1}, args, rows);
    }
    int a = 1;
    for (int k = 1; k * k <= size; ++k)
      if (size % k == 0) a = k;
    const auto grid2 = hpf::ProcessGrid::world({size / a, a});
    const std::string c2 = "2d-cyclic(" + std::to_string(args.r) + ")^2-to-cyclic(" + std::to_string(args.s) +
                           ")^2-grid" + std::to_string(size / a) + "x" + std::to_string(a);
    for (index_t n : args.sizes2d) {
      const hpf::Layout<2> src({n, n}, {hpf::Cyclic(args.r), hpf::Cyclic(args.r)}, grid2);
      const hpf::Layout<2> dst({n, n}, {hpf::Cyclic(args.s), hpf::Cyclic(args.s)}, grid2);
      run_case<2>(c2, src, dst, {size / a, a}, args, rows);
    }
    Cblacs_exit(1); // keep MPI running: hpf::Environment finalises it

    if (rank == 0) {
      hpf::bench::CsvWriter out;
      if (!args.csv.empty())
        out = hpf::bench::CsvWriter(
            args.csv,
            "case,ranks,M,method,median_s,min_s,plan_s,ratio_to_pdgemr2d,ratio_to_naive_alltoallv,ok",
            hpf::bench::CsvWriter::Mode::Truncate);
      std::printf(
          "| case | ranks | M | method | median (ms) | / pdgemr2d | / naive alltoallv | plan (ms) |\n");
      std::printf("|---|---|---|---|---|---|---|---|\n");
      for (const Row& row : rows) {
        double ref_pd = 0;
        double ref_na = 0;
        for (const Row& o : rows)
          if (o.case_name == row.case_name && o.M == row.M) {
            if (o.method == "pdgemr2d") ref_pd = o.median_s;
            if (o.method == "naive-alltoallv") ref_na = o.median_s;
          }
        const double rp = row.median_s / ref_pd;
        const double rn = row.median_s / ref_na;
        std::printf("| %s | %d | %lld | %s%s | %.3f | %.2f | %.2f | %.2f |\n", row.case_name.c_str(), size,
                    static_cast<long long>(row.M), row.method.c_str(), row.ok ? "" : " (WRONG DATA)",
                    row.median_s * 1e3, rp, rn, row.plan_s * 1e3);
        out.row("%s,%d,%lld,%s,%.9g,%.9g,%.9g,%.6g,%.6g,%d\n", row.case_name.c_str(), size,
                static_cast<long long>(row.M), row.method.c_str(), row.median_s, row.min_s, row.plan_s, rp,
                rn, row.ok ? 1 : 0);
      }
    }
    bool all_ok = true;
    for (const Row& row : rows) all_ok = all_ok && row.ok;
    return all_ok ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::cerr << "bench_redistribute: " << e.what() << "\n";
    return 1;
  }
}
