// bench_all_to_many: the experiment of §6 of Wang and Ranka on MPI_COMM_WORLD. For random
// d-regular patterns (every rank sends d messages of M bytes and receives d, the paper's workload),
// each all-to-many scheduler runs under the executors S1 (ExecMode::Handshake) and S2
// (ExecMode::AllAtOnce), next to the two MPI collectives that do the same exchange:
// MPI_Alltoallv (counts 0 for non-partners) and MPI_Neighbor_alltoallv on a distributed graph
// communicator built from the pattern. As in the paper, "in each run we take the maximum time spent
// by any processor as the cost of this test run": every sample is the slowest rank's time, runs of
// all variants are interleaved, and we report the median (and minimum) over the repeats and over
// the patterns. Every variant's received data are checked once per pattern.
//
// Scheduling time (Figures 10 and 11): the time to compute the schedule from COM (the slowest
// rank, median of repeats; every rank computes it, DESIGN.md "Plans are pure"), and separately the
// time of the one collective that assembles COM (assemble_com). sched_fraction = schedule time /
// communication time, i.e. the overhead when a schedule is used once.
//
//   mpiexec -n 8 bench_all_to_many [--d 1,2,4,7] [--bytes 16,128,1024,8192,65536,131072]
//                                  [--patterns 2] [--repeats 11] [--seed 1] [--csv out.csv]
#include <hpf/hpf.hpp>
#include <hpf/irregular/com.hpp>
#include <hpf/schedule/all_to_many.hpp>

#include "../common/bench_common.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

using hpf::bench::max_over_ranks;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Payload byte b of the message src -> dst: lets every receiver check what it got.
std::byte payload(int src, int dst, std::size_t b) {
  return static_cast<std::byte>((src * 29 + dst * 13 + static_cast<int>(b % 251)) & 0xff);
}

struct Variant {
  std::string algo; ///< scheduler name, or "alltoallv" / "neighbor_alltoallv"
  std::string exec; ///< "S1", "S2" or "mpi"
  int phases = 0;
  double sched_s = 0; ///< time to compute the schedule (slowest rank, median)
  std::function<void()> run;
  std::function<bool()> check;
  std::vector<double> samples;
};

struct Row {
  std::vector<double> samples; // over patterns and repeats
  std::vector<double> sched;
  std::vector<double> phases;
};

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  std::vector<long> ds{1, 2, 4, 7};
  std::vector<long> sizes{16, 128, 1024, 8192, 65536, 131072};
  int patterns = 2;
  int repeats = 11;
  unsigned long long seed = 1;
  std::string csv;
  bool ok_args = true;
  try {
    using hpf::bench::parse_list;
    using hpf::bench::parse_number;
    hpf::bench::for_each_option(argc, argv, "see --help", [&](std::string_view k, std::string_view v) {
      if (k == "--d")
        ds = parse_list<long>(v, "--d");
      else if (k == "--bytes")
        sizes = parse_list<long>(v, "--bytes");
      else if (k == "--patterns")
        patterns = parse_number<int>(v, "--patterns");
      else if (k == "--repeats")
        repeats = parse_number<int>(v, "--repeats");
      else if (k == "--seed")
        seed = parse_number<unsigned long long>(v, "--seed");
      else if (k == "--csv")
        csv = v;
      else
        return false;
      return true;
    });
  } catch (const hpf::Error& e) {
    if (hpf::comm_rank(MPI_COMM_WORLD) == 0) std::fprintf(stderr, "bench_all_to_many: %s\n", e.what());
    ok_args = false;
  }
  const int rank = hpf::comm_rank(MPI_COMM_WORLD);
  const int n = hpf::comm_size(MPI_COMM_WORLD);
  for (long d : ds) ok_args = ok_args && d >= 1 && d < n;
  for (long s : sizes) ok_args = ok_args && s >= 1 && s <= (1L << 24);
  if (!ok_args || ds.empty() || sizes.empty() || patterns < 1 || repeats < 1) {
    if (rank == 0)
      std::fprintf(stderr,
                   "usage: %s [--d d1,d2,... each in [1, n-1] = [1, %d]] [--bytes M1,M2,... in [1, 2^24]] "
                   "[--patterns P >= 1] [--repeats R >= 1] [--seed S] [--csv file]\n",
                   argv[0], n - 1);
    return 2;
  }
  const hpf::Comm world = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const bool pow2 = (n & (n - 1)) == 0;
  // The iPSC/860's e-cube routing when n is a power of two (Wang and Ranka §2.2); a mesh otherwise.
  const hpf::RoutingKind routing = pow2 ? hpf::RoutingKind::Hypercube : hpf::RoutingKind::Mesh2D;

  hpf::bench::CsvWriter out;
  if (rank == 0 && !csv.empty())
    out = hpf::bench::CsvWriter(csv, "n,d,bytes,algo,exec,phases,sched_us,com_us,comm_median_us,comm_min_us,"
                                     "ratio_to_alltoallv,sched_fraction");
  if (rank == 0)
    std::printf("%-3s %-3s %-7s %-19s %-4s %6s %10s %12s %10s %9s\n", "n", "d", "bytes", "algo", "exec",
                "phases", "sched_us", "median_us", "/alltoallv", "sched/comm");

  bool all_ok = true;
  for (long d : ds) {
    for (long bytes : sizes) {
      std::map<std::string, Row> rows; // key "algo/exec"
      std::vector<std::string> order;
      double com_s = 0;
      for (int p = 0; p < patterns; ++p) {
        // The pattern is pure data: every rank builds the same one, then each rank's send list goes
        // through assemble_com, as an application's inspector would do it at run time (Wang and Ranka §4).
        const hpf::CommMatrix pattern = hpf::random_regular_com(n, static_cast<int>(d), bytes,
                                                                seed * 1000003ULL + static_cast<unsigned>(p));
        std::vector<hpf::SendEntry> mine;
        for (const hpf::Message& m : hpf::send_list(pattern, rank)) mine.push_back({m.dst, m.len});
        HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        const double tc = now();
        const hpf::CommMatrix com = hpf::assemble_com(world, mine);
        com_s += max_over_ranks(now() - tc) / patterns;

        // Source data: one contiguous block per destination (the application's send buffer), and
        // the receive buffer the executors unpack into.
        const std::vector<hpf::Message> sends = hpf::send_list(com, rank);
        const std::vector<hpf::Message> recvs = hpf::receive_list(com, rank);
        std::vector<std::byte> src(sends.size() * static_cast<std::size_t>(bytes));
        std::vector<std::size_t> src_off(static_cast<std::size_t>(n), 0);
        for (std::size_t i = 0; i < sends.size(); ++i) {
          src_off[static_cast<std::size_t>(sends[i].dst)] = i * static_cast<std::size_t>(bytes);
          for (std::size_t b = 0; b < static_cast<std::size_t>(bytes); ++b)
            src[i * static_cast<std::size_t>(bytes) + b] = payload(rank, sends[i].dst, b);
        }
        std::vector<std::byte> dst(recvs.size() * static_cast<std::size_t>(bytes));
        std::vector<std::size_t> dst_off(static_cast<std::size_t>(n), 0);
        for (std::size_t i = 0; i < recvs.size(); ++i)
          dst_off[static_cast<std::size_t>(recvs[i].src)] = i * static_cast<std::size_t>(bytes);
        auto check_dst = [&] {
          bool ok = true;
          for (const hpf::Message& m : recvs)
            for (std::size_t b = 0; b < static_cast<std::size_t>(bytes) && ok; ++b)
              ok = dst[dst_off[static_cast<std::size_t>(m.src)] + b] == payload(m.src, rank, b);
          std::fill(dst.begin(), dst.end(), std::byte{0});
          return ok;
        };

        std::vector<Variant> variants;
        std::vector<hpf::Exchange> exchanges;
        exchanges.reserve(2 * hpf::all_to_many_algos().size()); // stable addresses for the lambdas
        for (hpf::AllToManyAlgo algo : hpf::all_to_many_algos()) {
          const hpf::AllToManyOptions opt{algo, routing, seed + static_cast<unsigned>(p)};
          std::vector<double> t;
          hpf::Schedule s;
          for (int r = 0; r < 5; ++r) {
            const double t0 = now();
            s = hpf::schedule_all_to_many(com, opt);
            t.push_back(now() - t0);
          }
          const double sched = max_over_ranks(hpf::median(t));
          for (hpf::ExecMode mode : {hpf::ExecMode::Handshake, hpf::ExecMode::AllAtOnce}) {
            // AC is S2 by definition (Figure 1: post everything, no phases); its grouping into steps
            // only orders each rank's sends, so running it under S1 would be another algorithm.
            if (algo == hpf::AllToManyAlgo::AC && mode == hpf::ExecMode::Handshake) continue;
            exchanges.emplace_back(world, hpf::all_to_many_exchange_plan(s, rank, 1), mode, 3001);
            hpf::Exchange* ex = &exchanges.back();
            Variant v;
            v.algo = hpf::to_string(algo);
            v.exec = mode == hpf::ExecMode::Handshake ? "S1" : "S2";
            v.phases = s.num_steps();
            v.sched_s = sched;
            v.run = [ex, &src, &src_off, &dst, &dst_off] {
              const hpf::ExchangePlan& pl = ex->plan();
              ex->execute(
                  [&](std::size_t i, std::byte* buf) {
                    std::memcpy(buf, src.data() + src_off[static_cast<std::size_t>(pl.sends[i].peer)],
                                pl.sends[i].bytes);
                  },
                  [&](std::size_t i, const std::byte* buf) {
                    std::memcpy(dst.data() + dst_off[static_cast<std::size_t>(pl.recvs[i].peer)], buf,
                                pl.recvs[i].bytes);
                  });
            };
            v.check = check_dst;
            variants.push_back(std::move(v));
          }
        }

        // MPI_Alltoallv: counts over all n ranks, zero for non-partners. The send buffer is packed
        // each run, as the executors pack theirs.
        std::vector<int> sc(static_cast<std::size_t>(n), 0), sd(static_cast<std::size_t>(n), 0);
        std::vector<int> rc(static_cast<std::size_t>(n), 0), rd(static_cast<std::size_t>(n), 0);
        for (std::size_t i = 0; i < sends.size(); ++i) {
          sc[static_cast<std::size_t>(sends[i].dst)] = static_cast<int>(bytes);
          sd[static_cast<std::size_t>(sends[i].dst)] =
              static_cast<int>(src_off[static_cast<std::size_t>(sends[i].dst)]);
        }
        for (std::size_t i = 0; i < recvs.size(); ++i) {
          rc[static_cast<std::size_t>(recvs[i].src)] = static_cast<int>(bytes);
          rd[static_cast<std::size_t>(recvs[i].src)] =
              static_cast<int>(dst_off[static_cast<std::size_t>(recvs[i].src)]);
        }
        std::vector<std::byte> sbuf(src.size());
        std::vector<std::byte> rbuf(dst.size());
        {
          Variant v;
          v.algo = "alltoallv";
          v.exec = "mpi";
          v.run = [&] {
            std::memcpy(sbuf.data(), src.data(), src.size());
            HPF_MPI_CHECK(MPI_Alltoallv(sbuf.data(), sc.data(), sd.data(), MPI_BYTE, rbuf.data(), rc.data(),
                                        rd.data(), MPI_BYTE, MPI_COMM_WORLD));
            std::memcpy(dst.data(), rbuf.data(), dst.size());
          };
          v.check = check_dst;
          variants.push_back(std::move(v));
        }
        // MPI_Neighbor_alltoallv on a graph communicator of the pattern (built once, like a plan;
        // its construction time is reported as this variant's scheduling time).
        std::vector<int> srcs, dsts, nsc, nsd, nrc, nrd;
        for (const hpf::Message& m : recvs) {
          srcs.push_back(m.src);
          nrc.push_back(static_cast<int>(bytes));
          nrd.push_back(static_cast<int>(dst_off[static_cast<std::size_t>(m.src)]));
        }
        for (const hpf::Message& m : sends) {
          dsts.push_back(m.dst);
          nsc.push_back(static_cast<int>(bytes));
          nsd.push_back(static_cast<int>(src_off[static_cast<std::size_t>(m.dst)]));
        }
        MPI_Comm graph = MPI_COMM_NULL;
        const double tg = now();
        HPF_MPI_CHECK(MPI_Dist_graph_create_adjacent(
            MPI_COMM_WORLD, static_cast<int>(srcs.size()), srcs.empty() ? MPI_WEIGHTS_EMPTY : srcs.data(),
            MPI_UNWEIGHTED, static_cast<int>(dsts.size()), dsts.empty() ? MPI_WEIGHTS_EMPTY : dsts.data(),
            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph));
        const double graph_s = max_over_ranks(now() - tg);
        {
          Variant v;
          v.algo = "neighbor_alltoallv";
          v.exec = "mpi";
          v.sched_s = graph_s;
          v.run = [&] {
            std::memcpy(sbuf.data(), src.data(), src.size());
            HPF_MPI_CHECK(MPI_Neighbor_alltoallv(sbuf.data(), nsc.data(), nsd.data(), MPI_BYTE, rbuf.data(),
                                                 nrc.data(), nrd.data(), MPI_BYTE, graph));
            std::memcpy(dst.data(), rbuf.data(), dst.size());
          };
          v.check = check_dst;
          variants.push_back(std::move(v));
        }

        // Warm-up and check, then interleaved timed repeats.
        for (Variant& v : variants) {
          std::fill(dst.begin(), dst.end(), std::byte{0});
          v.run();
          int ok = v.check() ? 1 : 0;
          int all = 0;
          HPF_MPI_CHECK(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
          if (!all) {
            all_ok = false;
            if (rank == 0)
              std::fprintf(stderr, "bench_all_to_many: WRONG DATA for %s/%s, d %ld, %ld bytes\n",
                           v.algo.c_str(), v.exec.c_str(), d, bytes);
          }
        }
        for (int r = 0; r < repeats; ++r)
          for (Variant& v : variants) {
            HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
            const double t0 = now();
            v.run();
            v.samples.push_back(max_over_ranks(now() - t0));
          }
        for (Variant& v : variants) {
          const std::string key = v.algo + "/" + v.exec;
          if (!rows.count(key)) order.push_back(key);
          Row& row = rows[key];
          row.samples.insert(row.samples.end(), v.samples.begin(), v.samples.end());
          row.sched.push_back(v.sched_s);
          row.phases.push_back(v.phases);
        }
        HPF_MPI_CHECK(MPI_Comm_free(&graph));
      }
      if (rank != 0) continue;
      const double ref = hpf::median(rows["alltoallv/mpi"].samples);
      for (const std::string& key : order) {
        const Row& row = rows[key];
        const std::string algo = key.substr(0, key.find('/'));
        const std::string exec = key.substr(key.find('/') + 1);
        const double med = hpf::median(row.samples);
        const double mn = hpf::bench::min_of(row.samples);
        const double sched = hpf::median(row.sched);
        const double phases = hpf::median(row.phases);
        std::printf("%-3d %-3ld %-7ld %-19s %-4s %6.1f %10.1f %12.1f %10.2f %9.3f\n", n, d, bytes,
                    algo.c_str(), exec.c_str(), phases, sched * 1e6, med * 1e6, med / ref, sched / med);
        out.row("%d,%ld,%ld,%s,%s,%.1f,%.2f,%.2f,%.2f,%.2f,%.4g,%.4g\n", n, d, bytes, algo.c_str(),
                exec.c_str(), phases, sched * 1e6, com_s * 1e6, med * 1e6, mn * 1e6, med / ref, sched / med);
      }
      std::fflush(stdout);
    }
  }
  return all_ok ? 0 : 1;
}
