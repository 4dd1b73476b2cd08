// bench_redistribute_one_pass: a 1-D REDISTRIBUTE moved all at once with every message in one pass
// over each block (RedistributionPlan::fuses_sends, the default: slice by slice where the pattern
// repeats in short slices, by block offsets where a large block holds short pieces of several
// messages), all at once message by message (the one pass off: detail::one_pass_max_slice_bytes() and
// one_pass_max_piece_bytes() = 0 while that plan is made), and by what Strategy::Auto runs, against
// MPI_Alltoallw and one memcpy of the local block in the same job (issue 10; docs/redistribute.md,
// "One pass for all messages").
//
// Every method has arrays of its own and a kept executor into a preallocated target (the "executor"
// row of the sweep); each repeat runs the methods in a new shuffled order (the same on every rank),
// every timed call right after an untimed one of the same method (rb::time_warm). Medians of
// --repeats. Every result is checked once before timing.
//
//   mpirun -n 4 bench_redistribute_one_pass [--M 1e7] [--r 1,3,7,64,0] [--s 1,3,7,64,0] [--repeats 9]
//          [--max-piece-bytes B] [--csv out.csv]
#include "peers.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using hpf::index_t;
namespace rb = hpf::bench::redist;

struct Args {
  std::vector<index_t> Ms{10000000};
  std::vector<index_t> rs{1, 3, 7, 64, 0};
  std::vector<index_t> ss{1, 3, 7, 64, 0};
  int repeats = 9;
  std::size_t max_piece_bytes = hpf::detail::one_pass_max_piece_bytes().load();
  std::string csv;
};

Args parse(int argc, char** argv) {
  Args a;
  hpf::bench::for_each_option(
      argc, argv, "[--M list] [--r list] [--s list] [--repeats R] [--max-piece-bytes B] [--csv file]",
      [&](std::string_view k, std::string_view v) {
        if (k == "--M")
          a.Ms = rb::parse_sizes(v, "--M");
        else if (k == "--r")
          a.rs = rb::parse_sizes(v, "--r");
        else if (k == "--s")
          a.ss = rb::parse_sizes(v, "--s");
        else if (k == "--max-piece-bytes")
          a.max_piece_bytes = hpf::bench::parse_number<std::size_t>(v, "--max-piece-bytes");
        else if (k == "--repeats")
          a.repeats = hpf::bench::parse_number<int>(v, "--repeats");
        else if (k == "--csv")
          a.csv = v;
        else
          return false;
        return true;
      });
  hpf::detail::require(a.repeats >= 1, "--repeats: must be >= 1, got ", a.repeats);
  for (index_t M : a.Ms) hpf::detail::require(M >= 1, "--M: must be >= 1, got ", M);
  for (index_t b : a.rs) hpf::detail::require(b >= 0, "--r: block sizes must be >= 0 (0 = BLOCK), got ", b);
  for (index_t b : a.ss) hpf::detail::require(b >= 0, "--s: block sizes must be >= 0 (0 = BLOCK), got ", b);
  return a;
}

/// A kept executor of a plan of its own between arrays of its own.
struct Executor {
  std::unique_ptr<hpf::RedistributionPlan<1>> plan;
  std::unique_ptr<hpf::RedistributionExecutor<1>> ex;
  hpf::DistArray<double, 1> X;
  hpf::DistArray<double, 1> Y;
  Executor(const hpf::Layout<1>& a, const hpf::Layout<1>& b, const hpf::RedistOptions& o, bool one_pass)
      : X("X", a), Y("Y", b) {
    auto& slices = hpf::detail::one_pass_max_slice_bytes();
    auto& pieces = hpf::detail::one_pass_max_piece_bytes();
    const std::size_t saved_slices = slices.load();
    const std::size_t saved_pieces = pieces.load();
    if (!one_pass) slices = pieces = 0;
    plan = std::make_unique<hpf::RedistributionPlan<1>>(a, b, o);
    slices = saved_slices;
    pieces = saved_pieces;
    ex = std::make_unique<hpf::RedistributionExecutor<1>>(*plan);
    hpf::forall(X, [](const hpf::Index<1>& g, double& x) { x = static_cast<double>(g[0]); });
  }
  void run() { ex->execute(X, Y); }
  [[nodiscard]] bool right() {
    long bad = 0;
    hpf::forall(Y, [&](const hpf::Index<1>& g, double& y) { bad += y != static_cast<double>(g[0]) ? 1 : 0; });
    long all = 0;
    HPF_MPI_CHECK(MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    return all == 0;
  }
};

struct Method {
  std::string name;
  std::function<void()> run;
  std::string mode;
  int fuses = 0; // this rank's plan: 1 sends, 2 receives
  std::vector<double> t;
};

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  int P = 0;
  int me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const Args args = parse(argc, argv);
  hpf::detail::one_pass_max_piece_bytes() = args.max_piece_bytes; // the default unless measuring it
  const hpf::ProcessGrid line = hpf::ProcessGrid::world({P});
  FILE* out = nullptr;
  if (me == 0 && !args.csv.empty()) {
    const bool fresh = !std::ifstream(args.csv).good();
    out = std::fopen(args.csv.c_str(), "a");
    hpf::detail::require(out != nullptr, "--csv: cannot open '", args.csv, "'");
    if (fresh)
      std::fprintf(
          out, "ranks,M,r,s,method,mode,fuses_sends,fuses_recvs,median_s,over_memcpy,over_alltoallw,load1\n");
  }
  std::mt19937 rng(7); // the same order on every rank
  for (index_t M : args.Ms) {
    for (index_t r : args.rs) {
      for (index_t s : args.ss) {
        if (r == s) continue;
        const double load = rb::load_average();
        const hpf::Layout<1> a({M}, {rb::dist_of(r)}, line);
        const hpf::Layout<1> b({M}, {rb::dist_of(s)}, line);
        const hpf::RedistOptions model = hpf::detail::with_model(a, {}, sizeof(double));
        hpf::RedistOptions all = model;
        all.strategy = hpf::Strategy::AllAtOnce;
        Executor autoex(a, b, model, true);
        Executor one(a, b, all, true);
        Executor each(a, b, all, false);
        rb::Alltoallw a2aw(a, b, P, me);
        hpf::DistArray<double, 1> WX("WX", a);
        hpf::DistArray<double, 1> WY("WY", b);
        hpf::forall(WX, [](const hpf::Index<1>& g, double& x) { x = static_cast<double>(g[0]); });
        const std::size_t bytes =
            static_cast<std::size_t>(std::max(WX.local_size(), WY.local_size())) * sizeof(double);
        std::vector<char> mx(bytes, 1);
        std::vector<char> my(bytes, 0);
        const auto fuses = [](const Executor& e) {
          return (e.plan->fuses_sends() ? 1 : 0) + (e.plan->fuses_recvs() ? 2 : 0);
        };
        std::vector<Method> methods;
        methods.push_back(
            {"auto", [&] { autoex.run(); }, hpf::to_string(autoex.plan->exec_mode()), fuses(autoex), {}});
        methods.push_back({"all-at-once", [&] { one.run(); }, "all-at-once", fuses(one), {}});
        methods.push_back({"all-at-once-per-message", [&] { each.run(); }, "all-at-once", fuses(each), {}});
        methods.push_back({"alltoallw", [&] { a2aw.run(WX.local_data(), WY.local_data()); }, "", 0, {}});
        methods.push_back({"memcpy", [&] { std::memcpy(my.data(), mx.data(), bytes); }, "", 0, {}});
        // Checked once (also the warm-up).
        autoex.run();
        one.run();
        each.run();
        a2aw.run(WX.local_data(), WY.local_data());
        hpf::detail::require(autoex.right() && one.right() && each.right(),
                             "bench_redistribute_one_pass: ", rb::name_of(r), " -> ", rb::name_of(s),
                             ": wrong values");
        {
          long bad = 0;
          hpf::forall(
              WY, [&](const hpf::Index<1>& g, double& y) { bad += y != static_cast<double>(g[0]) ? 1 : 0; });
          long total = 0;
          HPF_MPI_CHECK(MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
          hpf::detail::require(total == 0, "bench_redistribute_one_pass: MPI_Alltoallw moved wrong values");
        }
        std::vector<std::size_t> order(methods.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        for (int k = 0; k < args.repeats; ++k) {
          std::shuffle(order.begin(), order.end(), rng);
          for (std::size_t i : order) methods[i].t.push_back(rb::time_warm(methods[i].run));
        }
        const auto median = [](std::vector<double> v) {
          std::sort(v.begin(), v.end());
          return v[v.size() / 2];
        };
        const double t_copy = median(methods[4].t);
        const double t_a2aw = median(methods[3].t);
        for (const Method& m : methods) {
          const double t = median(m.t);
          if (me == 0)
            std::printf(
                "ranks %d M %-9lld %-10s -> %-10s %-24s %-17s %8.3f ms  /memcpy %6.2f  /alltoallw %5.2f\n", P,
                static_cast<long long>(M), rb::name_of(r).c_str(), rb::name_of(s).c_str(), m.name.c_str(),
                m.mode.c_str(), t * 1e3, t / t_copy, t / t_a2aw);
          if (out != nullptr)
            std::fprintf(out, "%d,%lld,%lld,%lld,%s,%s,%d,%d,%.9g,%.6g,%.6g,%.2f\n", P,
                         static_cast<long long>(M), static_cast<long long>(r), static_cast<long long>(s),
                         m.name.c_str(), m.mode.c_str(), m.fuses & 1, (m.fuses & 2) != 0 ? 1 : 0, t,
                         t / t_copy, t / t_a2aw, load);
        }
      }
    }
  }
  if (out != nullptr) std::fclose(out);
  return 0;
}
