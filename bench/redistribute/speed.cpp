// bench_redistribute_speed: a repeated REDISTRIBUTE through the public API against the memory-bandwidth
// limit and against ScaLAPACK's pdgemr2d called the way its documentation calls it.
//
// One 1-D case per run: M doubles, CYCLIC(r) -> CYCLIC(s) on every rank of MPI_COMM_WORLD (r or s = 0
// means BLOCK). Methods, in round-robin repeats, each timed call right after an untimed call of the same
// method (as bench_redistribute_sweep's default order: each call finds its own data as a program that
// repeats it does, as the standalone calls are timed), each the largest over ranks of one call after a
// barrier, medians of --repeats. Every method runs on a source and a target of its own:
//   - redistribute:   A.redistribute(b), and redistribute-back A.redistribute(a) (A is moved to the
//                     call's source untimed first; the plan is cached after the warm-up, the target
//                     array is allocated by each call, as in HPF);
//   - executor:       one RedistributionExecutor, kept, into a preallocated target (no allocation);
//   - executor-packed: the same with every message packed (no MPI datatypes; see RedistOptions::
//                     in_place_min_piece_bytes);
//   - redistribute-first: A.redistribute(b) as the first call of a program: the plan cache, the pooled
//                     blocks and buffers are emptied (untimed) before each call;
//   - memcpy:         one memcpy of each rank's local block, every rank copying at once (the limit);
//   - alltoallw:      MPI_Alltoallw with one MPI_Type_indexed per pair over the runs (MPI packs);
//   - pdgemr2d:       ScaLAPACK: an M x 1 matrix, MB = r then s, NB = 1, one P x 1 BLACS context for
//                     both descriptors and as ictxt; only the call is timed;
//   - pdgemr2d-alone: the same call on plain std::vector buffers owned by this driver and nothing else
//                     (the minimal standalone cross-check; it must agree with pdgemr2d);
//   - tpetra:         Tpetra::Import between Maps listing the block-cyclic ownership, doImport with
//                     INSERT timed alone (when built with HPF_BENCH_TPETRA; speed.sh cross-checks it
//                     against bench_redistribute_tpetra_alone).
// Every method's result is checked element by element once.
//
//   mpirun -n 2 bench_redistribute_speed [--M 8e6] [--r 3] [--s 5] [--repeats 9] [--csv out.csv]
#include "peers.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using hpf::index_t;
namespace rb = hpf::bench::redist;

/// True when every local element of `x` (laid out by `layout`) holds its global index.
bool holds_global_index(const double* x, const hpf::Layout<1>& layout) {
  return rb::holds(x, rb::global_ids(layout));
}

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
#ifdef HPF_BENCH_TPETRA
  Tpetra::ScopeGuard tpetra_scope(&argc, &argv); // MPI and Kokkos are up: Tpetra leaves them to env
#endif
  try {
    int repeats = 9;
    index_t M = 8000000;
    index_t r = 3;
    index_t s = 5;
    std::string csv_path;
    hpf::bench::for_each_option(argc, argv,
                                "[--M n] [--r b] [--s b] [--repeats R] [--csv file] (b = 0: BLOCK)",
                                [&](std::string_view k, std::string_view v) {
                                  if (k == "--repeats")
                                    repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                  else if (k == "--M")
                                    M = static_cast<index_t>(hpf::bench::parse_number<double>(v, "--M"));
                                  else if (k == "--r")
                                    r = hpf::bench::parse_number<index_t>(v, "--r");
                                  else if (k == "--s")
                                    s = hpf::bench::parse_number<index_t>(v, "--s");
                                  else if (k == "--csv")
                                    csv_path = v;
                                  else
                                    return false;
                                  return true;
                                });
    hpf::detail::require(repeats >= 1, "--repeats: must be >= 1, got ", repeats);
    hpf::detail::require(M >= 1 && M <= 2000000000, "--M: must be in [1, 2e9], got ", M);
    hpf::detail::require(r >= 0 && s >= 0, "--r, --s: block sizes must be >= 0 (0 = BLOCK), got ", r, ", ",
                         s);
    int P = 0;
    int me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const auto line = hpf::ProcessGrid::world({P});
    const hpf::Layout<1> a({M}, {rb::dist_of(r)}, line);
    const hpf::Layout<1> b({M}, {rb::dist_of(s)}, line);
    const std::string case_name = "1d-" + rb::name_of(r) + "-to-" + rb::name_of(s);

    hpf::DistArray<double, 1> A("A", a);
    hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = static_cast<double>(g[0]); });
    rb::OwnArrays<1> pairs(a, b); // per method, a source and a preallocated target of its own
    hpf::RedistOptions opt = hpf::detail::with_model(a, {}, sizeof(double));
    const auto plan = hpf::cached_plan(a, b, opt);

    // memcpy of this rank's larger local block, every rank at once.
    const auto bytes =
        static_cast<std::size_t>(std::max(a.my_local_extents()[0], b.my_local_extents()[0])) * sizeof(double);
    const hpf::bench::LargeBuffer mx(bytes, 1); // allocated as the arrays are
    const hpf::bench::LargeBuffer my(bytes, 2);

    // ScaLAPACK as documented: one P x 1 context, M x 1 matrices with MB = r (then s), NB = 1.
    int ctxt = -1;
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "C", P, 1);
    const int m = static_cast<int>(M);
    const int n = 1;
    const int one = 1;
    const int zero = 0;
    const int mba = rb::scalapack_block(a, 0);
    const int mbb = rb::scalapack_block(b, 0);
    auto desc = [&](int mb) {
      std::array<int, 9> d{};
      const int lld = std::max(1, numroc_(&m, &mb, &me, &zero, &P));
      int info = 0;
      descinit_(d.data(), &m, &n, &mb, &one, &zero, &zero, &ctxt, &lld, &info);
      hpf::detail::require(info == 0, "descinit_ failed with info ", info);
      return d;
    };
    const auto da = desc(mba);
    const auto db = desc(mbb);
    // The standalone cross-check's own buffers: as a ScaLAPACK user allocates them (numroc_).
    std::vector<double> sa(static_cast<std::size_t>(std::max(1, numroc_(&m, &mba, &me, &zero, &P))));
    std::vector<double> sb(static_cast<std::size_t>(std::max(1, numroc_(&m, &mbb, &me, &zero, &P))));
    std::memcpy(sa.data(), A.local_data(), static_cast<std::size_t>(A.local_size()) * sizeof(double));

    struct Method {
      std::string name;
      std::function<void()> run;
      std::function<bool()> check;   // the result, read once after the untimed first call
      std::function<void()> prepare; // untimed, before each call: A where `run` starts
      std::vector<double> t;
    };
    const auto target_ok = [&](const std::string& name) {
      return [&, name] { return holds_global_index(pairs.find(name)->Y.local_data(), b); };
    };
    std::vector<Method> methods;
    methods.push_back({"redistribute",
                       [&] { A.redistribute(b); },
                       [&] { return holds_global_index(A.local_data(), b); },
                       [&] { A.redistribute(a); },
                       {}});
    methods.push_back({"redistribute-back",
                       [&] { A.redistribute(a); },
                       [&] { return holds_global_index(A.local_data(), a); },
                       [&] { A.redistribute(b); },
                       {}});
    hpf::RedistributionExecutor<1> ex(*plan); // kept: its buffers are reused, as the plan cache's pool does
    auto& pe = pairs.own("executor");
    methods.push_back({"executor", [&] { ex.execute(pe.X, pe.Y); }, target_ok("executor"), {}, {}});
    methods.push_back(
        {"memcpy", [&] { std::memcpy(my.data(), mx.data(), bytes); }, [] { return true; }, {}, {}});
    rb::Alltoallw a2aw(a, b, P, me);
    auto& pw = pairs.own("alltoallw");
    methods.push_back({"alltoallw",
                       [&] { a2aw.run(pw.X.local_data(), pw.Y.local_data()); },
                       target_ok("alltoallw"),
                       {},
                       {}});
    auto& pd = pairs.own("pdgemr2d");
    methods.push_back({"pdgemr2d",
                       [&] {
                         pdgemr2d_(&m, &n, pd.X.local_data(), &one, &one, da.data(), pd.Y.local_data(), &one,
                                   &one, db.data(), &ctxt);
                       },
                       target_ok("pdgemr2d"),
                       {},
                       {}});
    methods.push_back({"pdgemr2d-alone",
                       [&] {
                         pdgemr2d_(&m, &n, sa.data(), &one, &one, da.data(), sb.data(), &one, &one, db.data(),
                                   &ctxt);
                       },
                       [&] { return holds_global_index(sb.data(), b); },
                       {},
                       {}});

#ifdef HPF_BENCH_TPETRA
    // Tpetra::Import between Maps listing the block-cyclic ownership; only doImport is timed.
    rb::TpetraImport tp(a, b);
    tp.load(A.local_data());
    methods.push_back(
        {"tpetra", [&] { tp.run(); }, [&] { return holds_global_index(tp.result().get(), b); }, {}, {}});
#endif

    // The same executor with every message packed (no MPI datatypes, RedistOptions::
    // in_place_min_piece_bytes = SIZE_MAX): what moving long pieces in place gains or loses here.
    hpf::RedistOptions packed_opt = opt;
    packed_opt.in_place_min_piece_bytes = SIZE_MAX;
    const hpf::RedistributionPlan<1> packed_plan(a, b, packed_opt);
    hpf::RedistributionExecutor<1> ex_packed(packed_plan);
    auto& pp = pairs.own("executor-packed");
    methods.push_back(
        {"executor-packed", [&] { ex_packed.execute(pp.X, pp.Y); }, target_ok("executor-packed"), {}, {}});

    // The first REDISTRIBUTE of a program: no plan cached, no executor, no pooled block or buffer (each
    // released before the timed call), so the call plans, builds its executor and faults in a fresh target.
    hpf::DistArray<double, 1> A1("A1", a);
    hpf::forall(A1, [](const hpf::Index<1>& g, double& x) { x = static_cast<double>(g[0]); });
    methods.push_back({"redistribute-first",
                       [&] { A1.redistribute(b); },
                       [&] { return holds_global_index(A1.local_data(), b); },
                       [&] {
                         if (!(A1.layout() == a)) A1.redistribute(a);
                         hpf::clear_plan_cache();
                         hpf::detail::release_block_pool();
                         hpf::detail::release_buffer_pool();
                       },
                       {}});

    // Checks (one call each, untimed; this is also the warm-up).
    bool ok = true;
    for (Method& meth : methods) {
      if (meth.prepare) meth.prepare();
      meth.run();
      const bool good = meth.check();
      if (!good && me == 0)
        std::fprintf(stderr, "bench_redistribute_speed: %s: WRONG DATA\n", meth.name.c_str());
      ok = ok && good;
    }

    for (int k = 0; k < repeats; ++k)
      for (Method& meth : methods) meth.t.push_back(rb::time_warm(meth.run, meth.prepare));
    Cblacs_gridexit(ctxt);
    Cblacs_exit(1); // keep MPI running: hpf::Environment finalises it

    if (me == 0) {
      const double t_copy = hpf::median(methods[3].t);
      const double t_pd = hpf::median(methods[5].t);
      hpf::bench::CsvWriter csv;
      if (!csv_path.empty())
        csv = hpf::bench::CsvWriter(csv_path, "case,ranks,M,method,median_s,min_s,over_memcpy,over_pdgemr2d");
      for (const Method& meth : methods) {
        const double t = hpf::median(meth.t);
        std::printf("%-28s ranks %d  M %-10lld %-18s %9.3f ms  /memcpy %6.2f  /pdgemr2d %6.2f\n",
                    case_name.c_str(), P, static_cast<long long>(M), meth.name.c_str(), t * 1e3, t / t_copy,
                    t / t_pd);
        csv.row("%s,%d,%lld,%s,%.9g,%.9g,%.4f,%.4f\n", case_name.c_str(), P, static_cast<long long>(M),
                meth.name.c_str(), t, hpf::bench::min_of(meth.t), t / t_copy, t / t_pd);
      }
    }
    return ok ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "bench_redistribute_speed: %s\n", e.what());
    return 2;
  }
}
