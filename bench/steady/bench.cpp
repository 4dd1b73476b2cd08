// bench_steady: series of K scatters, gossips (personalized all-to-alls) or reductions (seed 000)
// executed on the steady-state periodic schedule (hpf::steady::run_pipeline) against the naive
// alternatives of issue 6: each scatter or gossip message sent directly from its source to its target
// (the platform routes it along the shortest path), each
// reduction an MPI_Reduce with the operator declared non-commutative (binomial tree under SMPI:
// smpi/reduce:binomial). Rank v plays platform node v, so run it on exactly node_count ranks.
//
// Meant for SimGrid SMPI on the platform's own XML (smpi_run.sh): built with -DHPF_SMPI, a
// combination on node P_i injects task-work flops (smpi_execute_flops) into the simulated clock,
// and the host speed in the XML is speed(P_i) x flops-per-task, so a task costs w(P_i) = 1 / speed(P_i)
// simulated seconds; with --bytes equal to the export's bytes-per-unit a unit-size message over edge
// (i, j) takes c(i, j) seconds. The time unit of the seed is then one simulated second and TP is in
// operations per second. Built natively (the CMake build) the same program runs on real MPI with free
// combinations, which only checks that it works.
//
//   smpirun -np N -platform p.xml -hostfile h ... bench_steady --platform p.json --op scatter
//     --source Ps --targets P0,P1 --ops 10,100 [--bytes 100000] [--period-max 0] [--name fig2] [--csv f]
//   ... --op gossip --sources Ps,Pb --targets P0,P1
//   ... --op reduce --target P0 [--participants P0,P1,P2] [--tree 1]   (--tree: also seed 002's tree
//   repeated, hpf::TreeReducer, variant tree-seed002)
// Prints (and appends to --csv) one row per (variant, K):
//   platform,op,variant,K,seconds,rate,TP,model_rate,periods
// model_rate is K / makespan of the schedule's time model (steady only).
#include <hpf/core/error.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/reduce/tree_reducer.hpp>
#include <hpf/steady/executor.hpp>
#include <hpf/steady/pipeline.hpp>

#include "../common/bench_common.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace hpf::steady;

struct Args {
  std::string platform, op, source, target, name = "platform", csv;
  std::vector<std::string> sources, targets, participants;
  std::vector<long long> ops{10, 100};
  std::size_t bytes = 100000;
  long long period_max = 0;
  double flops_per_task = 1e9;
  bool tree = false; ///< reduce: also seed 002's tree repeated (--tree 1)
};

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t comma = s.find(',', at);
    const std::size_t end = comma == std::string_view::npos ? s.size() : comma;
    if (end > at) out.emplace_back(s.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

Args parse(int argc, char** argv) {
  using hpf::bench::parse_number;
  Args a;
  hpf::bench::for_each_option(argc, argv, "see the header of bench/steady/bench.cpp",
                              [&](std::string_view key, std::string_view v) {
                                if (key == "--platform")
                                  a.platform = v;
                                else if (key == "--op")
                                  a.op = v;
                                else if (key == "--source")
                                  a.source = v;
                                else if (key == "--target")
                                  a.target = v;
                                else if (key == "--targets")
                                  a.targets = split(v);
                                else if (key == "--sources")
                                  a.sources = split(v);
                                else if (key == "--participants")
                                  a.participants = split(v);
                                else if (key == "--name")
                                  a.name = v;
                                else if (key == "--csv")
                                  a.csv = v;
                                else if (key == "--bytes")
                                  a.bytes = parse_number<std::size_t>(v, "--bytes");
                                else if (key == "--period-max")
                                  a.period_max = parse_number<long long>(v, "--period-max");
                                else if (key == "--flops-per-task")
                                  a.flops_per_task = parse_number<double>(v, "--flops-per-task");
                                else if (key == "--ops")
                                  a.ops = hpf::bench::parse_list<long long>(v, "--ops");
                                else if (key == "--tree")
                                  a.tree = parse_number<int>(v, "--tree") != 0;
                                else
                                  return false;
                                return true;
                              });
  hpf::detail::require(!a.platform.empty() && !a.op.empty(),
                       "bench_steady: --platform and --op scatter|gossip|reduce are required");
  (void)parse_steady_op(a.op, "--op"); // the one name table: scatter | gossip | reduce
  hpf::detail::require(a.bytes >= 8, "bench_steady: --bytes must be >= 8, got ", a.bytes);
  return a;
}

/// Charges one task of unit work to the calling rank's host (SMPI); free natively.
void task_cost(double flops) {
#ifdef HPF_SMPI
  smpi_execute_flops(flops);
#else
  (void)flops;
#endif
}

double g_flops_per_task = 1e9;
std::size_t g_reduce_count = 1;

/// MPI_Reduce's operator on uint64 elements: inout = in (+) inout, element-wise 2x2-matrix-like
/// non-commutative mix on the first element; the task cost is charged pro rata of the elements.
void reduce_op(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  auto* a = static_cast<std::uint64_t*>(in);
  auto* b = static_cast<std::uint64_t*>(inout);
  if (*len > 0) b[0] = a[0] * 31 + b[0];
  task_cost(g_flops_per_task * static_cast<double>(*len) / static_cast<double>(g_reduce_count));
}

struct Row {
  std::string variant;
  long long K = 0;
  double seconds = 0, model_rate = 0;
  long long periods = 0;
};

double max_over_ranks(double x, MPI_Comm comm) {
  double all = 0;
  HPF_MPI_CHECK(MPI_Allreduce(&x, &all, 1, MPI_DOUBLE, MPI_MAX, comm));
  return all;
}

Row run_steady(const Platform& g, const SteadyProblem& pb, const Args& a, long long K) {
  const PipelinePlan plan = plan_pipeline(g, pb, K, a.period_max);
  PipelineCallbacks cb;
  cb.make = [](int source, std::int64_t stamp, std::byte* out) {
    const std::int64_t v = stamp * 1000 + source;
    std::memcpy(out, &v, sizeof v);
  };
  cb.combine = [](const std::byte* l, const std::byte* r, std::byte* out) {
    std::int64_t x = 0, y = 0;
    std::memcpy(&x, l, sizeof x);
    std::memcpy(&y, r, sizeof y);
    const std::int64_t z = x * 31 + y;
    std::memcpy(out, &z, sizeof z);
    task_cost(g_flops_per_task);
  };
  std::int64_t delivered = 0;
  cb.deliver = [&](int, std::int64_t, const std::byte*) { ++delivered; };
  const PipelineStats st = run_pipeline(plan, MPI_COMM_WORLD, a.bytes, cb);
  std::int64_t all = 0;
  HPF_MPI_CHECK(MPI_Allreduce(&delivered, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
  hpf::detail::require(all == K * plan.groups, "bench_steady: delivered ", all, " values, expected ",
                       K * plan.groups);
  Row r{"steady", K, st.seconds, 0, plan.periods};
  r.model_rate = to_double(Rational(K) / Rational(plan.makespan()));
  return r;
}

/// Scatter and gossip without a schedule: every source sends each target its message directly (the
/// platform's shortest-path routes), all messages of an operation posted at once.
Row run_naive_direct(const SteadyProblem& pb, const Args& a, long long K) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<std::byte> sbuf(a.bytes);
  std::vector<std::vector<std::byte>> rbuf(pb.sources.size(), std::vector<std::byte>(a.bytes));
  HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  const double t0 = MPI_Wtime();
  const int n = static_cast<int>(a.bytes);
  for (long long k = 0; k < K; ++k) {
    std::vector<MPI_Request> reqs;
    for (std::size_t i = 0; i < pb.sources.size(); ++i) {
      const int src = pb.sources[i];
      for (int t : pb.targets) {
        if (t == src) continue; // a node's message to itself moves nothing
        if (rank == src) {
          reqs.emplace_back();
          HPF_MPI_CHECK(MPI_Isend(sbuf.data(), n, MPI_BYTE, t, 7, MPI_COMM_WORLD, &reqs.back()));
        }
        if (rank == t) {
          reqs.emplace_back();
          HPF_MPI_CHECK(MPI_Irecv(rbuf[i].data(), n, MPI_BYTE, src, 7, MPI_COMM_WORLD, &reqs.back()));
        }
      }
    }
    HPF_MPI_CHECK(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE));
  }
  return Row{"naive-direct", K, max_over_ranks(MPI_Wtime() - t0, MPI_COMM_WORLD), 0, 0};
}

/// The participants' communicator, in operand order (MPI_COMM_NULL on the other ranks), and the
/// target's rank in it.
MPI_Comm participants_comm(const SteadyProblem& pb, int& root) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int pos = -1;
  root = -1;
  for (std::size_t i = 0; i < pb.participants.size(); ++i) {
    if (pb.participants[i] == rank) pos = static_cast<int>(i);
    if (pb.participants[i] == pb.targets[0]) root = static_cast<int>(i);
  }
  hpf::detail::require(root >= 0,
                       "bench_steady: MPI_Reduce and the tree need the target among the participants");
  MPI_Comm sub = MPI_COMM_NULL;
  HPF_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, pos >= 0 ? 0 : MPI_UNDEFINED, pos, &sub));
  return sub;
}

Row run_naive_reduce(const SteadyProblem& pb, const Args& a, long long K) {
  int root = -1;
  MPI_Comm sub = participants_comm(pb, root);
  MPI_Op op = MPI_OP_NULL;
  HPF_MPI_CHECK(MPI_Op_create(&reduce_op, 0, &op));
  g_reduce_count = a.bytes / 8;
  const int count = static_cast<int>(g_reduce_count);
  std::vector<std::uint64_t> in(g_reduce_count, 1), out(g_reduce_count);
  HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  const double t0 = MPI_Wtime();
  if (sub != MPI_COMM_NULL)
    for (long long k = 0; k < K; ++k)
      HPF_MPI_CHECK(MPI_Reduce(in.data(), out.data(), count, MPI_UINT64_T, op, root, sub));
  const double t = max_over_ranks(MPI_Wtime() - t0, MPI_COMM_WORLD);
  HPF_MPI_CHECK(MPI_Op_free(&op));
  if (sub != MPI_COMM_NULL) HPF_MPI_CHECK(MPI_Comm_free(&sub));
  return Row{"naive-MPI_Reduce", K, t, 0, 0};
}

/// Seed 002's optimal (greedy) tree, repeated once per reduction (hpf::TreeReducer, rank order, result
/// on the target), with the model's costs taken from the platform: d = the slowest edge (time of a
/// unit message), c = the slowest participant's task time, both in simulated seconds.
Row run_tree_reduce(const Platform& g, const SteadyProblem& pb, const Args& a, long long K) {
  double d = 0, c = 0;
  for (const auto& e : g.edges()) d = std::max(d, to_double(e.cost));
  for (int p : pb.participants) c = std::max(c, 1.0 / to_double(g.node(p).speed));
  int root = -1;
  MPI_Comm sub = participants_comm(pb, root);
  const std::size_t count = a.bytes / 8;
  std::vector<std::uint64_t> in(count, 1), out(count);
  // The tree combines element by element in chunks; one simulated charge per chunk of calls keeps
  // SMPI's event count low (the total charged per combination is one task).
  const std::size_t chunk = std::min<std::size_t>(count, 2048);
  const double per_chunk = g_flops_per_task * static_cast<double>(chunk) / static_cast<double>(count);
  std::size_t calls = 0;
  HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  const double t0 = MPI_Wtime();
  if (sub != MPI_COMM_NULL) {
    hpf::TreeOptions opts;
    opts.root = root;
    const hpf::TreeReducer tree(sub, hpf::ReduceCosts{d, c}, opts);
    for (long long k = 0; k < K; ++k)
      tree.reduce(std::span<const std::uint64_t>(in), std::span<std::uint64_t>(out),
                  [&calls, chunk, per_chunk](std::uint64_t x, std::uint64_t y) {
                    if (++calls == chunk) {
                      task_cost(per_chunk);
                      calls = 0;
                    }
                    return x * 31 + y;
                  });
  }
  const double t = max_over_ranks(MPI_Wtime() - t0, MPI_COMM_WORLD);
  if (sub != MPI_COMM_NULL) HPF_MPI_CHECK(MPI_Comm_free(&sub));
  return Row{"tree-seed002", K, t, 0, 0};
}

int bench(int argc, char** argv) {
  const Args a = parse(argc, argv);
  g_flops_per_task = a.flops_per_task;
  const Platform g = load_platform(a.platform);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hpf::detail::require(size == g.node_count(), "bench_steady: run on one rank per platform node (",
                       g.node_count(), "), got ", size, " ranks");
  SteadyProblem pb;
  if (a.op == "scatter") {
    std::vector<int> t;
    for (const auto& n : a.targets) t.push_back(g.index_of(n, "--targets"));
    pb = SteadyProblem::scatter(g.index_of(a.source, "--source"), t);
  } else if (a.op == "gossip") {
    std::vector<int> src, t;
    for (const auto& n : a.sources) src.push_back(g.index_of(n, "--sources"));
    for (const auto& n : a.targets) t.push_back(g.index_of(n, "--targets"));
    pb = SteadyProblem::gossip(src, t);
  } else {
    std::vector<int> p;
    for (const auto& n : a.participants) p.push_back(g.index_of(n, "--participants"));
    if (p.empty())
      for (int v = 0; v < g.node_count(); ++v)
        if (g.node(v).speed > 0) p.push_back(v);
    pb = SteadyProblem::reduce(p, g.index_of(a.target, "--target"));
  }
  const double tp = to_double(solve(g, pb).throughput);
  hpf::bench::CsvWriter csv;
  if (rank == 0 && !a.csv.empty())
    csv = hpf::bench::CsvWriter(a.csv, "platform,op,variant,K,seconds,rate,TP,model_rate,periods");
  for (long long K : a.ops) {
    std::vector<Row> rows{run_steady(g, pb, a, K),
                          a.op == "reduce" ? run_naive_reduce(pb, a, K) : run_naive_direct(pb, a, K)};
    if (a.op == "reduce" && a.tree) rows.push_back(run_tree_reduce(g, pb, a, K));
    for (const Row& r : rows) {
      if (rank != 0) continue;
      char line[512];
      std::snprintf(line, sizeof line, "%s,%s,%s,%lld,%.6f,%.6f,%.6f,%.6f,%lld\n", a.name.c_str(),
                    a.op.c_str(), r.variant.c_str(), r.K, r.seconds, static_cast<double>(r.K) / r.seconds, tp,
                    r.model_rate, r.periods);
      std::fputs(line, stdout);
      csv.row("%s", line);
    }
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  try {
    rc = bench(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_steady: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return rc;
}
