// bench_steady: series of K scatters, gossips (personalized all-to-alls) or reductions (Legrand,
// Marchal and Robert) executed on the steady-state periodic schedule (hpf::steady::run_pipeline)
// against the naive alternatives: each scatter or gossip message sent directly from its source to its
// target (the platform routes it along the shortest path), each reduction an MPI_Reduce with the operator
// declared non-commutative (binomial tree under SMPI: smpi/reduce:binomial). Rank v plays platform node v, so
// run it on exactly node_count ranks.
//
// Meant for SimGrid SMPI on the platform's own XML (smpi_run.sh): built with -DHPF_SMPI, a
// combination on node P_i injects task-work flops (smpi_execute_flops) into the simulated clock,
// and the host speed in the XML is speed(P_i) x flops-per-task, so a task costs w(P_i) = 1 / speed(P_i)
// simulated seconds; with --bytes equal to the export's bytes-per-unit a unit-size message over edge
// (i, j) takes c(i, j) seconds. The time unit of Legrand, Marchal and Robert is then one simulated second and
// TP is in operations per second. Built natively (the CMake build) the same program runs on real MPI with
// free combinations, which only checks that it works.
//
//   smpirun -np N -platform p.xml -hostfile h ... bench_steady --platform p.json --op scatter
//     --source Ps --targets P0,P1 --ops 10,100 [--bytes 100000] [--period-max 0] [--name fig2] [--csv f]
//   ... --op gossip --sources Ps,Pb --targets P0,P1
//   ... --op reduce --target P0 [--participants P0,P1,P2] [--tree 1]   (--tree: also Canon and Antoniu's tree
//   repeated, hpf::TreeReducer, variant tree-greedy)
//   ... --clusters m.json --platform level2.json [--chunk 10] [--tree 1]
//   [--least-traffic 1]   (the two-level cluster mode of cluster_platform.py, see run_two_level;
//   --chunk is both the reductions per intra-cluster MPI_Ireduce and the least reductions per
//   period; every K also runs level 2 alone, without the intra-cluster reductions, as variant
//   series-level2-only)
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
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

using hpf::bench::max_over_ranks;

using namespace hpf::steady;

struct Args {
  std::string platform, op, source, target, name = "platform", csv;
  std::vector<std::string> sources, targets, participants;
  std::vector<long long> ops{10, 100};
  std::size_t bytes = 100000;
  long long period_max = 0;
  double flops_per_task = 1e9;
  bool tree = false;    ///< reduce: also Canon and Antoniu's tree repeated (--tree 1)
  std::string clusters; ///< --clusters model.json: the two-level cluster mode (cluster_platform.py)
  long long chunk = 10; ///< --chunk: reductions per intra-cluster MPI_Ireduce (cluster mode)
  SolveGoal goal = SolveGoal::Any; ///< --least-traffic 1: SolveGoal::LeastTraffic (cluster mode)
  bool level2_only = false;        ///< cluster mode: level 2 alone, without the intra-cluster reductions
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
  hpf::bench::for_each_option(
      argc, argv, "see the header of bench/steady/bench.cpp", [&](std::string_view key, std::string_view v) {
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
        else if (key == "--clusters")
          a.clusters = v;
        else if (key == "--least-traffic")
          a.goal = parse_number<int>(v, "--least-traffic") != 0 ? SolveGoal::LeastTraffic : SolveGoal::Any;
        else if (key == "--chunk")
          a.chunk = parse_number<long long>(v, "--chunk");
        else if (key == "--tree")
          a.tree = parse_number<int>(v, "--tree") != 0;
        else
          return false;
        return true;
      });
  if (!a.clusters.empty()) a.op = "reduce";
  hpf::detail::require(a.chunk >= 1, "bench_steady: --chunk must be >= 1, got ", a.chunk);
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

/// Canon and Antoniu's optimal (greedy) tree, repeated once per reduction (hpf::TreeReducer, rank order,
/// result on the target), with the model's costs taken from the platform: d = the slowest edge (time of a
/// unit message), c = the slowest participant's task time, both in simulated seconds.
Row run_tree_reduce(double d, double c, const SteadyProblem& pb, const Args& a, long long K) {
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
  return Row{"tree-greedy", K, t, 0, 0};
}

/// One line per row on stdout and in the CSV: platform,op,variant,K,seconds,rate,TP,model_rate,periods.
void print_rows(const std::vector<Row>& rows, const Args& a, double tp, hpf::bench::CsvWriter& csv) {
  for (const Row& r : rows) {
    char line[512];
    std::snprintf(line, sizeof line, "%s,%s,%s,%lld,%.6f,%.6f,%.6f,%.6f,%lld\n", a.name.c_str(), a.op.c_str(),
                  r.variant.c_str(), r.K, r.seconds, static_cast<double>(r.K) / r.seconds, tp, r.model_rate,
                  r.periods);
    std::fputs(line, stdout);
    csv.row("%s", line);
  }
}

// --- the two-level cluster mode (--clusters model.json --platform level2.json) ----------------------
//
// The platform is cluster_platform.py's 64 hosts in clusters of contiguous ranks; --platform is the
// cluster-level platform (one node per cluster). The series runs in two levels, pipelined:
//   1. inside each cluster, chunks of --chunk reductions at a time: one MPI_Ireduce (binomial, the
//      operator declared non-commutative) of chunk values per host to the cluster's first rank, its
//      leader; the next two chunks are always posted, so these reductions overlap level 2;
//   2. between the leaders, the steady-state pipeline of Legrand, Marchal and Robert on the
//      cluster-level platform
//      (run_pipeline on the leaders' communicator), whose operand i of reduction t is cluster i's
//      level-1 result (the leader waits for its chunk when the pipeline first asks for it).
// Rank order is cluster order, so the result is the rank-order fold. TP is the cluster-level LP's.

struct ClusterRanks {
  std::vector<int> first, size; ///< per cluster: first rank, number of ranks
  double time_unit = 1;         ///< seconds per time unit of the cluster-level platform
};

ClusterRanks load_clusters(const std::string& path, Args& a) {
  std::ifstream in(path);
  hpf::detail::require(in.good(), "bench_steady: cannot read --clusters file '", path, "'");
  const nlohmann::json j = nlohmann::json::parse(in);
  ClusterRanks cr;
  for (const auto& c : j.at("clusters")) {
    cr.first.push_back(c.at("first").get<int>());
    cr.size.push_back(c.at("size").get<int>());
  }
  a.bytes = j.at("bytes").get<std::size_t>();
  a.flops_per_task = j.at("flops_per_task").get<double>();
  cr.time_unit = j.at("time_unit").get<double>();
  return cr;
}

Row run_two_level(const Platform& g2, const ClusterRanks& cr, const Args& a, long long K) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int nc = static_cast<int>(cr.first.size());
  int me = 0;
  while (me + 1 < nc && rank >= cr.first[static_cast<std::size_t>(me) + 1]) ++me;
  const bool leader = rank == cr.first[static_cast<std::size_t>(me)];
  MPI_Comm ccomm = MPI_COMM_NULL, lcomm = MPI_COMM_NULL;
  HPF_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, me, rank, &ccomm));
  HPF_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, leader ? 0 : MPI_UNDEFINED, me, &lcomm));
  std::vector<int> all(static_cast<std::size_t>(nc));
  for (int c = 0; c < nc; ++c) all[static_cast<std::size_t>(c)] = c;
  // The exact period T repeated m times (still exact), m the smallest with at least --chunk
  // reductions per period, as ReductionSeries does with ops_per_period.
  const SteadySolution sol = solve(g2, SteadyProblem::reduce(all, 0), a.goal);
  const Rational per_period = sol.throughput * Rational(sol.period);
  const Rational m = Rational(a.chunk) / per_period;
  const BigInt reps = std::max<BigInt>(1, (numerator(m) + denominator(m) - 1) / denominator(m));
  const PipelinePlan plan =
      plan_pipeline(g2, sol, periodic_schedule(g2, sol, extract_trees(g2, sol), sol.period * reps), K);
  MPI_Op op = MPI_OP_NULL;
  HPF_MPI_CHECK(MPI_Op_create(&reduce_op, 0, &op));
  g_reduce_count = a.bytes / 8;
  const std::size_t count = g_reduce_count;
  const long long chunks = (K + a.chunk - 1) / a.chunk;
  // The cluster's reduction goes to its second rank, the deputy, which forwards each chunk's result
  // to the leader: the leader's operand is in the reduction (rank order), but none of its
  // combinations, so its CPU is left to the level-2 pipeline (with the leader as root, level-1
  // combinations ran inside the pipeline's make() and stretched its periods).
  int crank = 0, csize = 1;
  MPI_Comm_rank(ccomm, &crank);
  MPI_Comm_size(ccomm, &csize);
  const int deputy = csize > 1 ? 1 : 0;
  struct Chunk {
    std::vector<std::uint64_t> in, red, out; // this rank's operands; the deputy's result; the leader's copy
    MPI_Request req = MPI_REQUEST_NULL, fwd = MPI_REQUEST_NULL;
    long long made = 0; // leader: operands handed to the pipeline (freed when all are)
  };
  std::vector<Chunk> ch(static_cast<std::size_t>(chunks));
  long long posted = 0, done = 0;
  auto len_of = [&](long long j) { return std::min<long long>(a.chunk, K - j * a.chunk); };
  auto post = [&] {
    Chunk& c = ch[static_cast<std::size_t>(posted)];
    const auto n = static_cast<std::size_t>(len_of(posted)) * count;
    c.in.assign(n, static_cast<std::uint64_t>(rank + 1));
    c.red.assign(crank == deputy ? n : 0, 0);
    HPF_MPI_CHECK(
        MPI_Ireduce(c.in.data(), c.red.data(), static_cast<int>(n), MPI_UINT64_T, op, deputy, ccomm, &c.req));
    if (leader && deputy != 0) {
      c.out.assign(n, 0);
      HPF_MPI_CHECK(MPI_Irecv(c.out.data(), static_cast<int>(n), MPI_UINT64_T, deputy, 11, ccomm, &c.fwd));
    }
    ++posted;
  };
  auto finish_next = [&] { // completes the oldest posted chunk, keeps two more posted
    Chunk& c = ch[static_cast<std::size_t>(done)];
    HPF_MPI_CHECK(MPI_Wait(&c.req, MPI_STATUS_IGNORE));
    std::vector<std::uint64_t>().swap(c.in);
    if (crank == deputy && deputy != 0) {
      HPF_MPI_CHECK(MPI_Send(c.red.data(), static_cast<int>(c.red.size()), MPI_UINT64_T, 0, 11, ccomm));
      std::vector<std::uint64_t>().swap(c.red);
    }
    if (leader && deputy == 0) c.out.swap(c.red);
    if (leader && deputy != 0) HPF_MPI_CHECK(MPI_Wait(&c.fwd, MPI_STATUS_IGNORE));
    ++done;
    while (posted < chunks && posted < done + 2) post();
  };
  PipelineCallbacks cb;
  cb.make = [&](int, std::int64_t stamp, std::byte* out) {
    if (a.level2_only) {
      std::memset(out, 0, a.bytes);
      return;
    }
    const long long j = stamp / a.chunk;
    while (done <= j) finish_next();
    Chunk& c = ch[static_cast<std::size_t>(j)];
    std::memcpy(out, c.out.data() + static_cast<std::size_t>(stamp % a.chunk) * count, a.bytes);
    if (++c.made == len_of(j)) std::vector<std::uint64_t>().swap(c.out);
  };
  cb.combine = [&](const std::byte* l, const std::byte* r, std::byte* out) {
    std::uint64_t x = 0, y = 0;
    std::memcpy(&x, l, sizeof x);
    std::memcpy(&y, r, sizeof y);
    const std::uint64_t z = x * 31 + y;
    std::memcpy(out, r, a.bytes);
    std::memcpy(out, &z, sizeof z);
    task_cost(g_flops_per_task);
  };
  std::int64_t delivered = 0;
  cb.deliver = [&](int, std::int64_t, const std::byte*) { ++delivered; };
  HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  const double t0 = MPI_Wtime();
  if (!a.level2_only)
    while (posted < std::min<long long>(chunks, 2)) post();
  if (leader) (void)run_pipeline(plan, lcomm, a.bytes, cb);
  if (!a.level2_only)
    while (done < chunks) finish_next();
  const double t = max_over_ranks(MPI_Wtime() - t0, MPI_COMM_WORLD);
  std::int64_t all_delivered = 0;
  HPF_MPI_CHECK(MPI_Allreduce(&delivered, &all_delivered, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
  hpf::detail::require(all_delivered == K, "bench_steady: the two-level series delivered ", all_delivered,
                       " results, expected ", K);
  HPF_MPI_CHECK(MPI_Op_free(&op));
  HPF_MPI_CHECK(MPI_Comm_free(&ccomm));
  if (lcomm != MPI_COMM_NULL) HPF_MPI_CHECK(MPI_Comm_free(&lcomm));
  Row r{a.level2_only ? "series-level2-only" : "series-2level", K, t, 0, plan.periods};
  r.model_rate = to_double(Rational(K) / Rational(plan.makespan())) / cr.time_unit;
  return r;
}

int bench_clusters(Args a) {
  const ClusterRanks cr = load_clusters(a.clusters, a);
  g_flops_per_task = a.flops_per_task;
  const Platform g2 = load_platform(a.platform);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hpf::detail::require(g2.node_count() == static_cast<int>(cr.first.size()), "bench_steady: --platform has ",
                       g2.node_count(), " nodes; expected one per cluster (", cr.first.size(), ")");
  hpf::detail::require(cr.first.back() + cr.size.back() == size, "bench_steady: run on ",
                       cr.first.back() + cr.size.back(), " ranks (one per host), got ", size);
  std::vector<int> all(static_cast<std::size_t>(size)), leaders;
  for (int r = 0; r < size; ++r) all[static_cast<std::size_t>(r)] = r;
  for (int c = 0; c < g2.node_count(); ++c) leaders.push_back(c);
  const SteadyProblem pb = SteadyProblem::reduce(all, 0);
  const double tp = to_double(solve(g2, SteadyProblem::reduce(leaders, 0)).throughput) / cr.time_unit;
  // Canon and Antoniu's model for the whole platform: d = the slowest link's time for one value, c = the
  // slowest host's combination (seconds).
  double d = 0, c = 0;
  for (const auto& e : g2.edges()) d = std::max(d, to_double(e.cost) * cr.time_unit);
  for (int v = 0; v < g2.node_count(); ++v) c = std::max(c, cr.time_unit / to_double(g2.node(v).speed));
  hpf::bench::CsvWriter csv;
  if (rank == 0 && !a.csv.empty())
    csv = hpf::bench::CsvWriter(a.csv, "platform,op,variant,K,seconds,rate,TP,model_rate,periods");
  for (long long K : a.ops) {
    Args alone = a; // level 2 without the intra-cluster reductions: what level 1 costs the series
    alone.level2_only = true;
    std::vector<Row> rows{run_two_level(g2, cr, a, K), run_two_level(g2, cr, alone, K),
                          run_naive_reduce(pb, a, K)};
    if (a.tree) rows.push_back(run_tree_reduce(d, c, pb, a, K));
    if (rank == 0) print_rows(rows, a, tp, csv);
  }
  return 0;
}

int bench(int argc, char** argv) {
  Args a = parse(argc, argv);
  g_flops_per_task = a.flops_per_task;
  if (!a.clusters.empty()) return bench_clusters(a);
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
    if (a.op == "reduce" && a.tree) {
      double d = 0, c = 0;
      for (const auto& e : g.edges()) d = std::max(d, to_double(e.cost));
      for (int p : pb.participants) c = std::max(c, 1.0 / to_double(g.node(p).speed));
      rows.push_back(run_tree_reduce(d, c, pb, a, K));
    }
    if (rank == 0) print_rows(rows, a, tp, csv);
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
