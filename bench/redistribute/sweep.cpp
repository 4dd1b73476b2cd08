// bench_redistribute_sweep: a repeated A.redistribute(layout) through the public API against every
// peer, cell by cell:
//
//   - 1-D: every r, s of the lists x every M, CYCLIC(r) -> CYCLIC(s) on all ranks (0 = BLOCK);
//   - 2-D (--n2d n): COSTA's case, an n x n matrix of doubles, blocks r2d x r2d on a P x 1 grid ->
//     s2d x s2d on a 1 x P grid.
//
// Each method runs on arrays of its own (on this VM a pass over memory that another method has just
// touched is faster than one over memory left alone: shadow page tables, docs/redistribute.md). Each
// time is the largest over ranks of one call after a barrier; medians of --repeats; every result is
// checked once before timing, which is also the warm-up. The order (--order):
//   - warm (default): round-robin repeats, each in a new shuffled order, and every timed call right
//     after an untimed call of the same method. Each call finds its own data in the caches, as in a
//     program that repeats it and as the standalone programs (tpetra_alone.cpp, the pdgemr2d-alone
//     row) time their peer, and the methods' calls are spread alike over the cell's time (the
//     machine's load drifts);
//   - blocked: the methods in a shuffled order, each one's repeats back to back after one untimed
//     call: warm too, but a burst of load hits one method's calls only;
//   - interleaved: as warm without the untimed calls, so that every call follows other methods'
//     calls. Cells of 10^3-10^5 elements then run with caches that other methods filled, and a peer's
//     time no longer matches that of its standalone program.
// --stream-stores off turns off the non-temporal stores into large target blocks
// (detail::stream_store_min_bytes; bench/redistribute/stream_stores.sh compares the two).
//   - redistribute:   A.redistribute(b), the cached plan and its pooled executor, the target allocated
//                     by the call as in HPF (A is moved back to a untimed before each call);
//   - executor:       the cached plan's RedistributionExecutor, kept, into a preallocated target (not
//                     a peer: A.redistribute without the target's allocation);
//   - memcpy:         one memcpy of each rank's larger local block, every rank copying at once;
//   - alltoallv:      the naive MPI_Alltoallv (owner computed per element; peers.hpp; 1-D only);
//   - alltoallw:      MPI_Alltoallw with one MPI_Type_indexed per pair (1-D only);
//   - pdgemr2d:       ScaLAPACK as documented: 1-D an M x 1 matrix, MB = r then s, NB = 1, one P x 1
//                     BLACS context; 2-D MB = NB = r2d then s2d on P x 1 and 1 x P contexts, a 1 x P
//                     context as ictxt; only the call timed, on the hpfrt arrays' local blocks;
//   - pdgemr2d-alone: the same call on buffers this driver allocates as a ScaLAPACK user does (the
//                     standalone cross-check);
//   - tpetra:         Tpetra::Import between two Maps listing the block-cyclic ownership, doImport with
//                     INSERT timed alone (built with HPF_BENCH_TPETRA; in 2-D only with --tpetra2d 1).
// The CSV row of every method carries its ratio to memcpy and to the best peer of the cell (the
// fastest of pdgemr2d, tpetra, alltoallv, alltoallw) with a 95 % interval of that ratio
// (over_best_peer_lo, _hi: hpf::median_ratio_interval, the rounds of repeats resampled whole), and the
// 1-minute load average when the cell started (the machine is shared).
//
//   mpirun -n 2 bench_redistribute_sweep [--M 1e3,1e5,1e7] [--r 1,3,7,64,0] [--s 1,3,7,64,0]
//          [--n2d 8000 --r2d 36 --s2d 128 --tpetra2d 0|1] [--repeats 9] [--order warm|blocked|interleaved]
//          [--csv out.csv]
#include "peers.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using hpf::index_t;
namespace rb = hpf::bench::redist;
using rb::parse_sizes;

struct Args {
  std::vector<index_t> Ms{1000, 100000, 10000000};
  std::vector<index_t> rs{1, 3, 7, 64, 0};
  std::vector<index_t> ss{1, 3, 7, 64, 0};
  index_t n2d = 0;
  index_t r2d = 36;
  index_t s2d = 128;
  bool tpetra2d = false;
  int repeats = 9;
  std::string order = "warm"; // --order: warm, blocked or interleaved (see the header)
  std::string csv;
};

Args parse(int argc, char** argv) {
  using hpf::bench::parse_number;
  Args a;
  bool cells1d = true;
  hpf::bench::for_each_option(
      argc, argv,
      "[--M list] [--r list] [--s list] [--n2d n --r2d b --s2d b --tpetra2d 0|1] "
      "[--repeats R] [--order warm|blocked|interleaved] [--stream-stores on|off] [--csv file]",
      [&](std::string_view k, std::string_view v) {
        if (k == "--M") {
          a.Ms = parse_sizes(v, "--M");
          cells1d = !(a.Ms.size() == 1 && a.Ms[0] == 0);
        } else if (k == "--r")
          a.rs = parse_sizes(v, "--r");
        else if (k == "--s")
          a.ss = parse_sizes(v, "--s");
        else if (k == "--n2d")
          a.n2d = parse_number<index_t>(v, "--n2d");
        else if (k == "--r2d")
          a.r2d = parse_number<index_t>(v, "--r2d");
        else if (k == "--s2d")
          a.s2d = parse_number<index_t>(v, "--s2d");
        else if (k == "--tpetra2d")
          a.tpetra2d = parse_number<int>(v, "--tpetra2d") != 0;
        else if (k == "--repeats")
          a.repeats = parse_number<int>(v, "--repeats");
        else if (k == "--order") {
          hpf::detail::require(v == "warm" || v == "blocked" || v == "interleaved",
                               "--order: must be warm, blocked or interleaved, got '", v, "'");
          a.order = v;
        } else if (k == "--stream-stores") {
          hpf::detail::require(v == "on" || v == "off", "--stream-stores: must be on or off, got '", v, "'");
          // off: no non-temporal stores into large targets; on: detail::stream_store_min_bytes' default
          if (v == "off") hpf::detail::stream_store_min_bytes() = SIZE_MAX;
        } else if (k == "--csv")
          a.csv = v;
        else
          return false;
        return true;
      });
  if (!cells1d) a.Ms.clear(); // --M 0: the 2-D case alone
  hpf::detail::require(a.repeats >= 1, "--repeats: must be >= 1, got ", a.repeats);
  for (index_t M : a.Ms) hpf::detail::require(M >= 1 && M <= 1000000000, "--M: must be in [1, 1e9], got ", M);
  for (index_t b : a.rs) hpf::detail::require(b >= 0, "--r: block sizes must be >= 0 (0 = BLOCK), got ", b);
  for (index_t b : a.ss) hpf::detail::require(b >= 0, "--s: block sizes must be >= 0 (0 = BLOCK), got ", b);
  hpf::detail::require(a.n2d >= 0 && a.n2d <= 40000, "--n2d: must be in [0, 40000], got ", a.n2d);
  hpf::detail::require(a.r2d >= 1 && a.s2d >= 1, "--r2d, --s2d: must be >= 1, got ", a.r2d, ", ", a.s2d);
  return a;
}

struct Method {
  std::string name;
  std::function<void()> run;
  std::function<void()> prepare; // untimed, before each call: the state where `run` starts
  bool peer;
  std::vector<double> t;
};

/// One cell: every method between layouts a and b, then one CSV row per method.
template <int N> void run_cell(const std::string& case_name, index_t r, index_t s, const hpf::Layout<N>& a,
                               const hpf::Layout<N>& b, std::array<int, 2> shape_a,
                               std::array<int, 2> shape_b, bool with_tpetra, const Args& args,
                               hpf::bench::CsvWriter& csv, bool& all_ok) {
  int P = 0;
  int me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const double load = rb::load_average();
  const std::vector<long long> ids_a = rb::global_ids(a);
  const std::vector<long long> ids_b = rb::global_ids(b);
  auto fill_ids = [](hpf::DistArray<double, N>& x, const std::vector<long long>& ids) {
    double* p = x.local_data();
    for (std::size_t l = 0; l < ids.size(); ++l) p[l] = static_cast<double>(ids[l]);
  };
  hpf::DistArray<double, N> A("A", a);
  fill_ids(A, ids_a);
  rb::OwnArrays<N> arrays(a, b); // per method, a source and a target of its own
  const auto bytes = std::max<std::size_t>(1, std::max(ids_a.size(), ids_b.size()) * sizeof(double));
  const hpf::bench::LargeBuffer mx(bytes, 1); // allocated as the arrays are
  const hpf::bench::LargeBuffer my(bytes, 2);

  std::vector<Method> methods;
  methods.push_back({"redistribute", [&] { A.redistribute(b); }, [&] { A.redistribute(a); }, false, {}});
  // The same plan's executor kept, into the preallocated Y (no allocation): what A.redistribute
  // costs beyond the exchange itself (the target's allocation and first touch).
  const auto plan = hpf::cached_plan(a, b, hpf::detail::with_model(a, {}, sizeof(double)));
  hpf::RedistributionExecutor<N> ex(*plan);
  auto& e = arrays.own("executor");
  methods.push_back({"executor", [&] { ex.execute(e.X, e.Y); }, {}, false, {}});
  // The same executor with every message packed (no MPI datatypes): what moving the messages of long
  // pieces in place (RedistOptions::in_place_min_piece_bytes) gains or loses in this cell.
  hpf::RedistOptions packed_opt = hpf::detail::with_model(a, {}, sizeof(double));
  packed_opt.in_place_min_piece_bytes = SIZE_MAX;
  const hpf::RedistributionPlan<N> packed_plan(a, b, packed_opt);
  hpf::RedistributionExecutor<N> ex_packed(packed_plan);
  auto& ep = arrays.own("executor-packed");
  methods.push_back({"executor-packed", [&] { ex_packed.execute(ep.X, ep.Y); }, {}, false, {}});
  methods.push_back({"memcpy", [&] { std::memcpy(my.data(), mx.data(), bytes); }, {}, false, {}});
  // The MPI peers in 1-D only: COSTA's 2-D case is compared with pdgemr2d and Tpetra (the naive
  // MPI_Alltoallv is far slower than Tpetra there and would double the sweep's run time).
  std::unique_ptr<rb::NaiveAlltoallv<N>> naive;
  std::unique_ptr<rb::Alltoallw> a2aw;
  if constexpr (N == 1) {
    naive = std::make_unique<rb::NaiveAlltoallv<N>>(a, b);
    auto& v = arrays.own("alltoallv");
    methods.push_back({"alltoallv", [&] { naive->run(v.X.local_data(), v.Y.local_data()); }, {}, true, {}});
    a2aw = std::make_unique<rb::Alltoallw>(a, b, P, me);
    auto& w = arrays.own("alltoallw");
    methods.push_back({"alltoallw", [&] { a2aw->run(w.X.local_data(), w.Y.local_data()); }, {}, true, {}});
  }

  // ScaLAPACK: 1-D an M x 1 matrix with NB = 1; 2-D square blocks.
  const rb::BlacsGrid ga(shape_a[0], shape_a[1]);
  const rb::BlacsGrid gb(shape_b[0], shape_b[1]);
  const rb::BlacsGrid all(1, P);
  const int m = static_cast<int>(a.extent(0));
  const int n = N == 1 ? 1 : static_cast<int>(a.extent(N - 1));
  const int mba = rb::scalapack_block(a, 0);
  const int mbb = rb::scalapack_block(b, 0);
  const int nba = N == 1 ? 1 : rb::scalapack_block(a, N - 1);
  const int nbb = N == 1 ? 1 : rb::scalapack_block(b, N - 1);
  const auto da = rb::descriptor(ga, m, n, mba, nba);
  const auto db = rb::descriptor(gb, m, n, mbb, nbb);
  std::vector<double> sa(rb::scalapack_local_size(ga, m, n, mba, nba));
  std::vector<double> sb(rb::scalapack_local_size(gb, m, n, mbb, nbb));
  auto& pd = arrays.own("pdgemr2d");
  std::copy(pd.X.local_data(), pd.X.local_data() + ids_a.size(), sa.begin());
  const int one = 1;
  methods.push_back({"pdgemr2d",
                     [&] {
                       pdgemr2d_(&m, &n, pd.X.local_data(), &one, &one, da.data(), pd.Y.local_data(), &one,
                                 &one, db.data(), &all.ctxt);
                     },
                     {},
                     true,
                     {}});
  methods.push_back({"pdgemr2d-alone",
                     [&] {
                       pdgemr2d_(&m, &n, sa.data(), &one, &one, da.data(), sb.data(), &one, &one, db.data(),
                                 &all.ctxt);
                     },
                     {},
                     false,
                     {}});
#ifdef HPF_BENCH_TPETRA
  std::unique_ptr<rb::TpetraImport> tp;
  if (with_tpetra) {
    tp = std::make_unique<rb::TpetraImport>(a, b);
    tp->load(A.local_data()); // Tpetra copies it into its own vector
    methods.push_back({"tpetra", [&] { tp->run(); }, {}, true, {}});
  }
#else
  (void)with_tpetra;
#endif

  // Checks, one call each (also the warm-up).
  bool ok = true;
  for (Method& meth : methods) {
    if (meth.name == "memcpy") {
      meth.run();
      continue;
    }
    if (auto* mine = arrays.find(meth.name)) mine->Y.fill(0);
    if (meth.prepare) meth.prepare();
    meth.run();
    bool good = false;
    if (meth.name == "redistribute")
      good = rb::holds(A.local_data(), ids_b);
    else if (meth.name == "pdgemr2d-alone")
      good = rb::holds(sb.data(), ids_b);
#ifdef HPF_BENCH_TPETRA
    else if (meth.name == "tpetra")
      good = rb::holds(tp->result().get(), ids_b);
#endif
    else
      good = rb::holds(arrays.find(meth.name)->Y.local_data(), ids_b);
    if (meth.name == "redistribute") { // and back
      meth.prepare();
      good = good && rb::holds(A.local_data(), ids_a);
    }
    if (!good && me == 0)
      std::fprintf(stderr, "bench_redistribute_sweep: %s %s: WRONG DATA\n", case_name.c_str(),
                   meth.name.c_str());
    ok = ok && good;
  }
  all_ok = all_ok && ok;

  // The order of the methods is shuffled with one seed, the same on every rank (see the header).
  std::vector<std::size_t> order(methods.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937 gen(12345);
  const auto timed = [](Method& meth) {
    if (meth.prepare) meth.prepare();
    meth.t.push_back(rb::time_once(meth.run));
  };
  if (args.order == "blocked") {
    std::shuffle(order.begin(), order.end(), gen);
    for (const std::size_t i : order) {
      Method& meth = methods[i];
      if (meth.prepare) meth.prepare();
      meth.run(); // untimed, as the standalone programs' call 0
      for (int k = 0; k < args.repeats; ++k) timed(meth);
    }
  } else {
    for (int k = 0; k < args.repeats; ++k) {
      std::shuffle(order.begin(), order.end(), gen);
      for (const std::size_t i : order) {
        Method& meth = methods[i];
        if (args.order == "warm")
          meth.t.push_back(rb::time_warm(meth.run, meth.prepare));
        else
          timed(meth);
      }
    }
  }

  if (me != 0) return;
  double t_copy = 0;
  double best = 0;
  const Method* best_peer = nullptr;
  std::string best_name;
  for (const Method& meth : methods) {
    const double t = hpf::median(meth.t);
    if (meth.name == "memcpy") t_copy = t;
    if (meth.peer && (best_name.empty() || t < best)) {
      best = t;
      best_name = meth.name;
      best_peer = &meth;
    }
  }
  for (const Method& meth : methods) {
    const double t = hpf::median(meth.t);
    // The 95 % interval of t / best: rounds resampled whole (every method runs once per round).
    const auto [lo, hi] = hpf::median_ratio_interval(meth.t, best_peer->t);
    std::printf(
        "%-10s ranks %d  M %-10lld %-10s -> %-10s %-15s %10.3f ms  /memcpy %7.2f  /best peer (%s) %6.2f\n",
        case_name.c_str(), P, static_cast<long long>(a.global_size()), rb::name_of(r).c_str(),
        rb::name_of(s).c_str(), meth.name.c_str(), t * 1e3, t / t_copy, best_name.c_str(), t / best);
    csv.row("%s,%d,%lld,%lld,%lld,%s,%.9g,%.9g,%.6g,%.6g,%s,%.2f,%d,%.6g,%.6g\n", case_name.c_str(), P,
            static_cast<long long>(a.global_size()), static_cast<long long>(r), static_cast<long long>(s),
            meth.name.c_str(), t, hpf::bench::min_of(meth.t), t / t_copy, t / best, best_name.c_str(), load,
            ok ? 1 : 0, lo, hi);
  }
  std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
#ifdef HPF_BENCH_TPETRA
  // MPI and Kokkos are up already (hpf::Environment): Tpetra takes them as they are and leaves their
  // finalisation to hpf::Environment.
  Tpetra::ScopeGuard tpetra(&argc, &argv);
  const bool have_tpetra = true;
#else
  const bool have_tpetra = false;
#endif
  bool ok = true;
  try {
    const Args args = parse(argc, argv);
    int P = 0;
    int me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    hpf::bench::CsvWriter csv;
    if (me == 0 && !args.csv.empty())
      csv = hpf::bench::CsvWriter(
          args.csv, "case,ranks,M,r,s,method,median_s,min_s,over_memcpy,over_best_peer,best_peer,load1,ok,"
                    "over_best_peer_lo,over_best_peer_hi");
    const auto line = hpf::ProcessGrid::world({P});
    for (index_t M : args.Ms)
      for (index_t r : args.rs)
        for (index_t s : args.ss) {
          const hpf::Layout<1> a({M}, {rb::dist_of(r)}, line);
          const hpf::Layout<1> b({M}, {rb::dist_of(s)}, line);
          run_cell<1>("1d", r, s, a, b, {P, 1}, {P, 1}, have_tpetra, args, csv, ok);
          hpf::clear_plan_cache(); // the cached plans' pooled buffers would add up over the cells
        }
    if (args.n2d > 0) {
      const index_t n = args.n2d;
      const hpf::Layout<2> a({n, n}, {hpf::Cyclic(args.r2d), hpf::Cyclic(args.r2d)},
                             hpf::ProcessGrid::world({P, 1}));
      const hpf::Layout<2> b({n, n}, {hpf::Cyclic(args.s2d), hpf::Cyclic(args.s2d)},
                             hpf::ProcessGrid::world({1, P}));
      run_cell<2>("2d-costa", args.r2d, args.s2d, a, b, {P, 1}, {1, P}, have_tpetra && args.tpetra2d, args,
                  csv, ok);
    }
    Cblacs_exit(1); // keep MPI running: hpf::Environment finalises it
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "bench_redistribute_sweep: %s\n", e.what());
    return 2;
  }
  return ok ? 0 : 1;
}
