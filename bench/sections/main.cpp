// bench_sections: the transpose of an n x n matrix of doubles, (*, BLOCK) -> (*, BLOCK) on P ranks,
// by hpf::SectionPlan (a reused plan; step-synchronous König steps and all-at-once) against a
// hand-written MPI_Alltoall transpose (pack, one MPI_Alltoall, local transpose) and against one memcpy
// of the same local bytes, all measured in the same job. Each repeat is timed between barriers as the
// slowest rank's time; the CSV gets the median of --repeats repeats. The row hpf-section-planning is
// the time to build the plan (paid once: assign caches it).
// Second case, "strided": B(0:(n+1)/2-1, :) = A(n-1:0:-2, :) from (CYCLIC(3), *) to (BLOCK, *), against
// the naive peer of issue 13: an MPI_Alltoallv whose sender and receiver find every element's owner
// one element at a time (Layout::owner per element of the section, on both sides).
//
//   mpirun -n 4 bench_sections --n 1024,2048 --repeats 15 --csv docs/results/sections.csv
#include <hpf/hpf.hpp>

#include "../common/bench_common.hpp"

#include <cstring>
#include <vector>

namespace {

using hpf::index_t;

double now() { return MPI_Wtime(); }

/// The slowest rank's time of f(), started together.
template <class F> double timed(F&& f) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = now();
  f();
  double t = now() - t0;
  double slowest = 0;
  MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

/// Hand-written transpose of the local column block a (n x nb, column-major) into c (same shape):
/// pack the P row blocks, one MPI_Alltoall, transpose each received nb x nb block into place.
struct AlltoallTranspose {
  index_t n;
  index_t nb;
  int P;
  std::vector<double> send;
  std::vector<double> recv;
  AlltoallTranspose(index_t n_, int P_)
      : n(n_), nb(n_ / P_), P(P_), send(static_cast<std::size_t>(n_ * (n_ / P_))),
        recv(static_cast<std::size_t>(n_ * (n_ / P_))) {}
  void run(const double* a, double* c) {
    const index_t blk = nb * nb;
    for (int q = 0; q < P; ++q) // block q: rows q nb .. q nb + nb - 1 of my columns
      for (index_t jl = 0; jl < nb; ++jl)
        std::memcpy(&send[static_cast<std::size_t>(q * blk + jl * nb)], a + q * nb + jl * n,
                    static_cast<std::size_t>(nb) * sizeof(double));
    MPI_Alltoall(send.data(), static_cast<int>(blk), MPI_DOUBLE, recv.data(), static_cast<int>(blk),
                 MPI_DOUBLE, MPI_COMM_WORLD);
    // From p: X(rl, jl) = A(q nb + rl, p nb + jl) -> C(p nb + jl, rl) (my column rl).
    for (int p = 0; p < P; ++p) {
      const double* x = &recv[static_cast<std::size_t>(p * blk)];
      for (index_t rl = 0; rl < nb; ++rl)
        for (index_t jl = 0; jl < nb; ++jl) c[p * nb + jl + n * rl] = x[rl + nb * jl];
    }
  }
};

/// The naive section assignment B(0:m-1, :) = A(n-1:0:-2, :): both sides enumerate every element of
/// the section, compute its owners (Layout::owner) and pack or unpack their own, then one
/// MPI_Alltoallv.
struct NaiveAlltoallv {
  const hpf::Layout<2>& la;
  const hpf::Layout<2>& lb;
  index_t n;
  index_t m;
  int me;
  std::vector<int> sc, sd, rc, rd;
  std::vector<double> send, recv;
  NaiveAlltoallv(const hpf::Layout<2>& a, const hpf::Layout<2>& b, index_t n_, int me_, int P)
      : la(a), lb(b), n(n_), m((n_ + 1) / 2), me(me_), sc(static_cast<std::size_t>(P)), sd(sc.size()),
        rc(sc.size()), rd(sc.size()) {}
  template <class Fn> void for_each_element(Fn&& fn) const {
    for (index_t c = 0; c < n; ++c)
      for (index_t j = 0; j < m; ++j) fn(hpf::Index<2>{n - 1 - 2 * j, c}, hpf::Index<2>{j, c});
  }
  index_t ea0 = la.my_local_extents()[0]; // local leading dimensions
  index_t eb0 = lb.my_local_extents()[0];
  static index_t offset(const hpf::Layout<2>& L, index_t e0, const hpf::Index<2>& g) {
    const hpf::Index<2> l = L.local_index(g);
    return l[0] + e0 * l[1];
  }
  void run(const double* a, double* b) {
    std::fill(sc.begin(), sc.end(), 0);
    std::fill(rc.begin(), rc.end(), 0);
    for_each_element([&](const hpf::Index<2>& ga, const hpf::Index<2>& gb) {
      if (la.owner(ga) == me) ++sc[static_cast<std::size_t>(lb.owner(gb))];
      if (lb.owner(gb) == me) ++rc[static_cast<std::size_t>(la.owner(ga))];
    });
    int ts = 0, tr = 0;
    for (std::size_t p = 0; p < sc.size(); ++p) {
      sd[p] = ts;
      rd[p] = tr;
      ts += sc[p];
      tr += rc[p];
    }
    send.resize(static_cast<std::size_t>(ts));
    recv.resize(static_cast<std::size_t>(tr));
    std::vector<int> pos = sd;
    for_each_element([&](const hpf::Index<2>& ga, const hpf::Index<2>& gb) {
      if (la.owner(ga) == me)
        send[static_cast<std::size_t>(pos[static_cast<std::size_t>(lb.owner(gb))]++)] =
            a[offset(la, ea0, ga)];
    });
    MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_DOUBLE, recv.data(), rc.data(), rd.data(),
                  MPI_DOUBLE, MPI_COMM_WORLD);
    pos = rd;
    for_each_element([&](const hpf::Index<2>& ga, const hpf::Index<2>& gb) {
      if (lb.owner(gb) == me)
        b[offset(lb, eb0, gb)] =
            recv[static_cast<std::size_t>(pos[static_cast<std::size_t>(la.owner(ga))]++)];
    });
  }
};

struct Row {
  const char* name;
  double t;
};

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    std::vector<index_t> sizes{1024, 2048};
    int repeats = 15;
    std::string csv;
    hpf::bench::for_each_option(argc, argv, "[--n n1,n2,...] [--repeats R] [--csv file]",
                                [&](std::string_view k, std::string_view v) {
                                  if (k == "--n")
                                    sizes = hpf::bench::parse_list<index_t>(v, "--n");
                                  else if (k == "--repeats")
                                    repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                  else if (k == "--csv")
                                    csv = v;
                                  else
                                    return false;
                                  return true;
                                });
    hpf::detail::require(repeats >= 9, "--repeats: medians need >= 9 repeats, got ", repeats);
    int P = 0;
    int me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    hpf::bench::CsvWriter out;
    if (me == 0 && !csv.empty())
      out = hpf::bench::CsvWriter(csv, "ranks,n,case,method,median_s,vs_peer,vs_memcpy");
    auto report = [&](index_t n, const char* what, const std::vector<Row>& rows, double peer, double copy) {
      if (me != 0) return;
      for (const Row& row : rows) {
        std::printf("P=%d n=%lld %-9s %-22s %10.6f s  %6.2fx peer  %8.2fx memcpy\n", P,
                    static_cast<long long>(n), what, row.name, row.t, row.t / peer, row.t / copy);
        out.row("%d,%lld,%s,%s,%.9g,%.4f,%.4f\n", P, static_cast<long long>(n), what, row.name, row.t,
                row.t / peer, row.t / copy);
      }
    };
    for (const index_t n : sizes) {
      hpf::detail::require(n % P == 0, "--n: ", n, " must be a multiple of the number of ranks ", P,
                           " (the hand-written MPI_Alltoall transpose needs equal blocks)");
      const auto grid = hpf::ProcessGrid::world({P});
      const hpf::Layout<2> L({n, n}, {hpf::Collapsed(), hpf::Block()}, grid);
      hpf::DistArray<double, 2> A("A", L);
      hpf::DistArray<double, 2> C("C", L);
      hpf::forall(A, [n](const hpf::Index<2>& g, double& x) { x = static_cast<double>(g[0] + n * g[1]); });
      const auto all = hpf::whole_section<2>(L.extents());
      hpf::SectionOptions step_opt;
      hpf::SectionOptions flow_opt;
      flow_opt.mode = hpf::ExecMode::AllAtOnce;
      const hpf::SectionPlan<double, 2> step_plan(L, all, L, all, {1, 0}, step_opt);
      const hpf::SectionPlan<double, 2> flow_plan(L, all, L, all, {1, 0}, flow_opt);
      AlltoallTranspose hand(n, P);
      std::vector<double> c2(static_cast<std::size_t>(A.local_size()));
      std::vector<double> copy(static_cast<std::size_t>(A.local_size()));

      // Every method must produce the transpose (checked once, outside the timings).
      long long bad = 0;
      step_plan.execute(C, A);
      hpf::forall(
          C, [&](const hpf::Index<2>& g, double& x) { bad += x != static_cast<double>(g[1] + n * g[0]); });
      C.fill(0);
      flow_plan.execute(C, A);
      hpf::forall(
          C, [&](const hpf::Index<2>& g, double& x) { bad += x != static_cast<double>(g[1] + n * g[0]); });
      hand.run(A.local_data(), c2.data());
      bad += std::memcmp(c2.data(), C.local_data(), c2.size() * sizeof(double)) != 0 ? 1 : 0;
      long long all_bad = 0;
      MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      hpf::detail::require(all_bad == 0, "bench_sections: a transpose is wrong (", all_bad, " mismatches)");

      std::vector<double> t_plan, t_step, t_flow, t_hand, t_copy;
      for (int r = 0; r < repeats; ++r) {
        t_plan.push_back(timed([&] { (void)hpf::SectionPlan<double, 2>(L, all, L, all, {1, 0}, step_opt); }));
        t_step.push_back(timed([&] { step_plan.execute(C, A); }));
        t_flow.push_back(timed([&] { flow_plan.execute(C, A); }));
        t_hand.push_back(timed([&] { hand.run(A.local_data(), c2.data()); }));
        t_copy.push_back(
            timed([&] { std::memcpy(copy.data(), A.local_data(), copy.size() * sizeof(double)); }));
      }
      const double ms = hpf::bench::median(t_step);
      const double mf = hpf::bench::median(t_flow);
      const double mh = hpf::bench::median(t_hand);
      const double mc = hpf::bench::median(t_copy);
      const double mp = hpf::bench::median(t_plan);
      report(n, "transpose",
             {{"hpf-section-step", ms},
              {"hpf-section-allatonce", mf},
              {"mpi-alltoall", mh},
              {"memcpy", mc},
              {"hpf-section-planning", mp}},
             mh, mc);

      // ---- strided: B(0:(n+1)/2-1, :) = A(n-1:0:-2, :), (CYCLIC(3), *) -> (BLOCK, *) ----------------
      const hpf::Layout<2> lsa({n, n}, {hpf::Cyclic(3), hpf::Collapsed()}, grid);
      const hpf::Layout<2> lsb({n, n}, {hpf::Block(), hpf::Collapsed()}, grid);
      hpf::DistArray<double, 2> SA("SA", lsa);
      hpf::DistArray<double, 2> SB("SB", lsb);
      hpf::DistArray<double, 2> SB2("SB2", lsb);
      hpf::forall(SA, [n](const hpf::Index<2>& g, double& x) { x = static_cast<double>(g[0] + n * g[1]); });
      const hpf::Section<2> sb{{{0, (n + 1) / 2 - 1, 1}, {0, n - 1, 1}}};
      const hpf::Section<2> sa{{{n - 1, 0, -2}, {0, n - 1, 1}}};
      const hpf::SectionPlan<double, 2> sstep(lsb, sb, lsa, sa, step_opt);
      const hpf::SectionPlan<double, 2> sflow(lsb, sb, lsa, sa, flow_opt);
      NaiveAlltoallv naive(lsa, lsb, n, me, P);
      std::vector<double> scopy(static_cast<std::size_t>(SA.local_size()));
      sstep.execute(SB, SA);
      naive.run(SA.local_data(), SB2.local_data());
      bad = std::memcmp(SB.local_data(), SB2.local_data(),
                        static_cast<std::size_t>(SB.local_size()) * sizeof(double)) != 0;
      MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      hpf::detail::require(all_bad == 0, "bench_sections: the strided section differs from the naive peer's");
      std::vector<double> u_plan, u_step, u_flow, u_naive, u_copy;
      for (int r = 0; r < repeats; ++r) {
        u_plan.push_back(timed([&] { (void)hpf::SectionPlan<double, 2>(lsb, sb, lsa, sa, step_opt); }));
        u_step.push_back(timed([&] { sstep.execute(SB, SA); }));
        u_flow.push_back(timed([&] { sflow.execute(SB, SA); }));
        u_naive.push_back(timed([&] { naive.run(SA.local_data(), SB2.local_data()); }));
        u_copy.push_back(
            timed([&] { std::memcpy(scopy.data(), SA.local_data(), scopy.size() * sizeof(double)); }));
      }
      const double un = hpf::bench::median(u_naive);
      const double uc = hpf::bench::median(u_copy);
      report(n, "strided",
             {{"hpf-section-step", hpf::bench::median(u_step)},
              {"hpf-section-allatonce", hpf::bench::median(u_flow)},
              {"naive-alltoallv", un},
              {"memcpy", uc},
              {"hpf-section-planning", hpf::bench::median(u_plan)}},
             un, uc);
    }
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
