// bench_sections: hpf::SectionPlan (a reused plan; step-synchronous König steps and
// all at once) against the peers of each case, all in one job, each repeat timed between barriers as
// the slowest rank's time; the CSV gets the median of --repeats repeats, the ratio to the best peer of
// the case and to one memcpy of the same local bytes (every rank copying at once). The row
// hpf-section-planning is the time to build the plan (paid once: assign caches it).
//
// Cases, n x n doubles on P ranks:
//   transpose     B = TRANSPOSE(A), (*, BLOCK) -> (*, BLOCK). Peers:
//                   mpi-alltoall  hand-written: pack, one MPI_Alltoall, local transpose;
//                   ga-copy-patch Global Arrays NGA_Copy_patch('t') on two arrays created by
//                                 NGA_Create_irreg with the same column blocks, then GA_Sync;
//                   pdtran        ScaLAPACK pdtran_ (C := A^T) on a 1 x P BLACS grid, MB = n, NB = n/P
//                                 (the same local blocks), called on the DistArrays' local storage.
//   transpose-bc  B = TRANSPOSE(A), (CYCLIC(64), CYCLIC(64)) on a pr x pc grid (pr = the largest factor
//                 of P up to sqrt(P)) -> the same layout. Peers: pdtran and pdgeadd_('T') on the same
//                 block-cyclic matrix (the DistArrays' local storage is ScaLAPACK's).
//   patch         B(:, 0:n-h-1) = A(:, h:n-1), h = n/3 + 1, (*, BLOCK) -> (*, BLOCK): a blocked
//                 section copy that crosses block boundaries. Peers: ga-copy-patch (NGA_Copy_patch('n'))
//                 and the naive MPI_Alltoallv below. One more hpfrt row, hpf-section-packed: all at once
//                 with in_place_min_piece_bytes = SIZE_MAX, so that every message is packed instead of
//                 moving in place through an MPI datatype.
//   transform-n   B = 2 A + 0.5 B (hpf::transform, MatrixOp::None), (CYCLIC(64), CYCLIC(64)) on pr x pc.
//                 Peer: pdgeadd_('N').
//   transform-t   B = 2 A^T + 0.5 B (MatrixOp::Transpose), the same layout. Peers: pdtran_, pdgeadd_('T').
//   transform-c   B = 2 A^H + 0.5 B of complex doubles (MatrixOp::ConjTranspose), the same layout. Peer:
//                 pztranc_. The three are ScaLAPACK's own operations, called as it documents them on
//                 the DistArrays' local storage (the same block-cyclic blocks).
//   strided       B(0:(n+1)/2-1, :) = A(n-1:0:-2, :), (CYCLIC(3), *) -> (BLOCK, *). Peer: a naive
//                 MPI_Alltoallv whose sender and receiver find every element's owners one
//                 element at a time (Layout::owner on both sides). NGA_Copy_patch takes neither strides
//                 nor cyclic arrays.
// Cross-checks (not peers; rows *-alone): each library peer called again as a minimal standalone
// program calls it, on its own storage (GA: two arrays made by NGA_Create with GA's own blocks along
// dimension 0 and GA_Fill; ScaLAPACK: std::vector buffers sized by numroc_), timed the same way (the
// slowest rank between barriers, so that oversubscribed ranks compare alike). They must agree with the
// peer rows within ~10 %.
//
//   mpirun -n 4 bench_sections --n 4096 --repeats 11 --csv docs/results/sections.csv
#include <hpf/hpf.hpp>

#include "../common/bench_common.hpp"
#include "../redistribute/peers.hpp" // BlacsGrid, descriptor, scalapack_local_size, pdtran_, pztranc_

#ifdef HPF_BENCH_GA
#include <ga.h>
#include <macdecls.h>
#endif

#include <algorithm>
#include <array>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using hpf::index_t;
using hpf::bench::redist::BlacsGrid;
using hpf::bench::redist::descriptor;
using hpf::bench::redist::scalapack_local_size;

/// The slowest rank's time of f(), started together.
template <class F> double timed(F&& f) { return hpf::bench::slowest_time(std::forward<F>(f)); }

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

/// The naive section assignment B(sb) = A(sa) of two 2-D sections with positive or negative strides
/// and no permutation: both sides enumerate every element of the section, compute its owners
/// (Layout::owner) and pack or unpack their own, then one MPI_Alltoallv.
struct NaiveAlltoallv {
  const hpf::Layout<2>& la;
  const hpf::Layout<2>& lb;
  hpf::Section<2> sa;
  hpf::Section<2> sb;
  int me;
  std::vector<int> sc, sd, rc, rd;
  std::vector<double> send, recv;
  NaiveAlltoallv(const hpf::Layout<2>& a, const hpf::Section<2>& sa_, const hpf::Layout<2>& b,
                 const hpf::Section<2>& sb_, int me_, int P)
      : la(a), lb(b), sa(sa_), sb(sb_), me(me_), sc(static_cast<std::size_t>(P)), sd(sc.size()),
        rc(sc.size()), rd(sc.size()) {}
  template <class Fn> void for_each_element(Fn&& fn) const {
    for (index_t c = 0; c < sb[1].extent(); ++c)
      for (index_t j = 0; j < sb[0].extent(); ++j)
        fn(hpf::Index<2>{sa[0].lo + j * sa[0].stride, sa[1].lo + c * sa[1].stride},
           hpf::Index<2>{sb[0].lo + j * sb[0].stride, sb[1].lo + c * sb[1].stride});
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

/// C := A^T by pdtran_ (square n x n, descriptors d for both).
void pdtran(int n, const double* a, double* c, const std::array<int, 9>& d) {
  const int one = 1;
  const double alpha = 1.0;
  const double beta = 0.0;
  pdtran_(&n, &n, &alpha, a, &one, &one, d.data(), &beta, c, &one, &one, d.data());
}

/// One timed method of a case. kind: the library under test, a peer, or a standalone cross-check.
enum class Kind { Hpf, Peer, Alone };
struct Method {
  std::string name;
  Kind kind;
  std::function<double()> run; // returns the seconds of one call (the slowest rank's, or its own)
};

/// 0 when every local element of `got` equals `want` (same layout), else the number of mismatches
/// summed over the ranks.
long long mismatches(const double* got, const double* want, std::size_t count) {
  long long bad = 0;
  for (std::size_t i = 0; i < count; ++i) bad += got[i] != want[i];
  long long all = 0;
  MPI_Allreduce(&bad, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/// B = TRANSPOSE(A) on one layout L (n x n): A(i, j) = i + n j, and the two SectionPlans (König steps
/// and all at once) into C and D.
struct Transpose {
  hpf::DistArray<double, 2> A;
  hpf::DistArray<double, 2> C;
  hpf::DistArray<double, 2> D;
  hpf::Section<2> all;
  hpf::SectionPlan<double, 2> step_plan;
  hpf::SectionPlan<double, 2> flow_plan;
  std::size_t count;
  Transpose(const hpf::Layout<2>& L, const hpf::SectionOptions& step, const hpf::SectionOptions& flow)
      : A("A", L), C("C", L), D("D", L), all(hpf::whole_section<2>(L.extents())),
        step_plan(L, all, L, all, {1, 0}, step), flow_plan(L, all, L, all, {1, 0}, flow),
        count(static_cast<std::size_t>(A.local_size())) {
    const index_t n = L.extent(0);
    hpf::forall(A, [n](const hpf::Index<2>& g, double& x) { x = static_cast<double>(g[0] + n * g[1]); });
  }
  /// The rows every transpose case has: both plans into C, and the time to build the step plan.
  std::vector<Method> hpf_methods(const hpf::SectionOptions& step) {
    return {
        {"hpf-section-step", Kind::Hpf, [this] { return timed([this] { step_plan.execute(C, A); }); }},
        {"hpf-section-allatonce", Kind::Hpf, [this] { return timed([this] { flow_plan.execute(C, A); }); }},
        {"hpf-section-planning", Kind::Alone, [this, step] {
           return timed([&] {
             (void)hpf::SectionPlan<double, 2>(A.layout(), all, A.layout(), all, {1, 0}, step);
           });
         }}};
  }
  /// Collective: C = the transpose by step_plan, checked against the formula, and D by flow_plan
  /// against C (the reference every peer is compared with).
  void check(const char* what) {
    const index_t n = A.layout().extent(0);
    step_plan.execute(C, A);
    long long bad = 0;
    hpf::forall(C,
                [&](const hpf::Index<2>& g, double& x) { bad += x != static_cast<double>(g[1] + n * g[0]); });
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    hpf::detail::require(bad == 0, "bench_sections: hpf-section-step (", what, ") is wrong (", bad,
                         " mismatches)");
    D.fill(0);
    flow_plan.execute(D, A);
    bad = mismatches(D.local_data(), C.local_data(), count);
    hpf::detail::require(bad == 0, "bench_sections: hpf-section-allatonce (", what, ") is wrong (", bad,
                         " mismatches)");
  }
};

#ifdef HPF_BENCH_GA
/// The Global Arrays peer: C(cpatch) = A(apatch) by NGA_Copy_patch(trans) then GA_Sync, on two n x n
/// arrays over the column blocks of a (*, BLOCK) layout (NGA_Create_irreg; GA is C-ordered, so its
/// dimension 0 is our dimension 1, its patches are (column, row) and its local patch is our local block,
/// leading dimension n), loaded with our A; and its standalone cross-check on two arrays of GA's own
/// blocking along dimension 0 (NGA_Create with chunk {-1, n}, GA_Fill), timed as a GA program times it.
class GaCopy {
public:
  GaCopy(index_t n, int P, int me, char trans, const double* a, std::array<int, 4> apatch,
         std::array<int, 4> cpatch)
      : m_trans(trans), m_alo{apatch[0], apatch[1]}, m_ahi{apatch[2], apatch[3]}, m_clo{cpatch[0], cpatch[1]},
        m_chi{cpatch[2], cpatch[3]}, m_me(me) {
    const int ni = static_cast<int>(n);
    int dims[2] = {ni, ni};
    int block[2] = {P, 1};
    std::vector<int> map;
    for (int p = 0; p < P; ++p) map.push_back(static_cast<int>(p * (n / P)));
    map.push_back(0);
    char an[] = "ga_A", cn[] = "ga_C", an2[] = "ga_alone_A", cn2[] = "ga_alone_C";
    m_a = NGA_Create_irreg(C_DBL, 2, dims, an, block, map.data());
    m_c = NGA_Create_irreg(C_DBL, 2, dims, cn, block, map.data());
    int chunk[2] = {-1, ni};
    m_a2 = NGA_Create(C_DBL, 2, dims, an2, chunk);
    m_c2 = NGA_Create(C_DBL, 2, dims, cn2, chunk);
    hpf::detail::require(m_a != 0 && m_c != 0 && m_a2 != 0 && m_c2 != 0, "NGA_Create failed");
    double minus = -1.0;
    double one = 1.0;
    GA_Fill(m_c, &minus);
    GA_Fill(m_a2, &one);
    int lo[2], hi[2];
    if (double* p = local(m_a, lo, hi)) {
      hpf::detail::require(lo[0] == me * (ni / P) && hi[0] == lo[0] + ni / P - 1 && hi[1] == ni - 1,
                           "GA's patch of rank ", me, " is not its column block");
      std::memcpy(p, a, static_cast<std::size_t>(n * (n / P)) * sizeof(double));
      NGA_Release_update(m_a, lo, hi);
    }
    GA_Sync();
  }
  GaCopy(const GaCopy&) = delete;
  GaCopy& operator=(const GaCopy&) = delete;
  ~GaCopy() {
    GA_Destroy(m_c2);
    GA_Destroy(m_a2);
    GA_Destroy(m_c);
    GA_Destroy(m_a);
  }
  void run() {
    NGA_Copy_patch(m_trans, m_a, m_alo, m_ahi, m_c, m_clo, m_chi);
    GA_Sync();
  }
  /// Collective: the number of elements of GA's C that differ from `want` (our local block of C).
  long long mismatches_with(const double* want, std::size_t count) {
    int lo[2], hi[2];
    double* p = local(m_c, lo, hi);
    const long long bad = mismatches(p != nullptr ? p : want, want, p != nullptr ? count : 0);
    if (p != nullptr) NGA_Release(m_c, lo, hi);
    return bad;
  }
  void add_methods(std::vector<Method>& m) {
    m.push_back({"ga-copy-patch", Kind::Peer, [this] { return timed([this] { run(); }); }});
    m.push_back({"ga-copy-patch-alone", Kind::Alone, [this] {
                   return timed([this] {
                     NGA_Copy_patch(m_trans, m_a2, m_alo, m_ahi, m_c2, m_clo, m_chi);
                     GA_Sync();
                   });
                 }});
  }

private:
  double* local(int g, int lo[2], int hi[2]) const {
    NGA_Distribution(g, m_me, lo, hi);
    if (hi[0] < lo[0]) return nullptr;
    double* p = nullptr;
    int ld[1] = {0};
    NGA_Access(g, lo, hi, &p, ld);
    return p;
  }
  char m_trans;
  int m_alo[2], m_ahi[2], m_clo[2], m_chi[2];
  int m_me;
  int m_a = 0, m_c = 0, m_a2 = 0, m_c2 = 0;
};
#endif

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
#ifdef HPF_BENCH_GA
  GA_Initialize();
  MA_init(C_DBL, 1 << 20, 1 << 26); // GA's packing buffers (a transposed patch is copied through them)
#endif
  int status = 0;
  try {
    std::vector<index_t> sizes{1024, 2048, 4096};
    int repeats = 11;
    std::string csv;
    std::vector<std::string> only;
    hpf::bench::for_each_option(argc, argv, "[--n n1,n2,...] [--repeats R] [--csv file] [--cases c1,c2]",
                                [&](std::string_view k, std::string_view v) {
                                  if (k == "--n")
                                    sizes = hpf::bench::parse_list<index_t>(v, "--n");
                                  else if (k == "--repeats")
                                    repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                  else if (k == "--csv")
                                    csv = v;
                                  else if (k == "--cases")
                                    for (std::size_t a = 0; a <= v.size();) {
                                      const std::size_t b = std::min(v.find(',', a), v.size());
                                      only.emplace_back(v.substr(a, b - a));
                                      a = b + 1;
                                    }
                                  else
                                    return false;
                                  return true;
                                });
    hpf::detail::require(repeats >= 9, "--repeats: medians need >= 9 repeats, got ", repeats);
    int P = 0;
    int me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const auto wanted = [&](const char* c) {
      return only.empty() || std::find(only.begin(), only.end(), c) != only.end();
    };
    hpf::bench::CsvWriter out;
    if (me == 0 && !csv.empty())
      out = hpf::bench::CsvWriter(csv, "ranks,n,case,method,kind,median_s,vs_best_peer,vs_memcpy");

    // Runs every method `repeats` times interleaved, plus one memcpy of `bytes` local bytes, and
    // reports medians with the ratio to the best peer and to the memcpy.
    const auto bench_case = [&](index_t n, const char* what, std::vector<Method> methods, std::size_t bytes) {
      // Allocated as the arrays' blocks are (huge pages where the kernel grants them): a std::vector's
      // 4 KiB pages made this limit several times slower (docs/redistribute.md).
      const hpf::bench::LargeBuffer src(bytes, 1);
      const hpf::bench::LargeBuffer dst(bytes, 0);
      methods.push_back({"memcpy", Kind::Alone,
                         [&] { return timed([&] { std::memcpy(dst.data(), src.data(), bytes); }); }});
      std::vector<std::vector<double>> t(methods.size());
      for (int r = 0; r < repeats; ++r)
        for (std::size_t k = 0; k < methods.size(); ++k) t[k].push_back(methods[k].run());
      std::vector<double> med(methods.size());
      double best = 0;
      for (std::size_t k = 0; k < methods.size(); ++k) {
        med[k] = hpf::bench::median(t[k]);
        if (methods[k].kind == Kind::Peer && (best == 0 || med[k] < best)) best = med[k];
      }
      const double copy = med.back();
      if (me != 0) return;
      for (std::size_t k = 0; k < methods.size(); ++k) {
        const char* kind = methods[k].kind == Kind::Hpf    ? "hpf"
                           : methods[k].kind == Kind::Peer ? "peer"
                                                           : "check";
        if (methods[k].name == "memcpy") kind = "memcpy";
        if (methods[k].name == "hpf-section-planning") kind = "planning";
        std::printf("P=%d n=%lld %-12s %-22s %10.6f s  %6.2fx best peer  %7.2fx memcpy\n", P,
                    static_cast<long long>(n), what, methods[k].name.c_str(), med[k], med[k] / best,
                    med[k] / copy);
        out.row("%d,%lld,%s,%s,%s,%.9g,%.4f,%.4f\n", P, static_cast<long long>(n), what,
                methods[k].name.c_str(), kind, med[k], med[k] / best, med[k] / copy);
      }
      std::fflush(stdout);
    };
    const auto require_ok = [](long long bad, const char* what) {
      hpf::detail::require(bad == 0, "bench_sections: ", what, " is wrong (", bad, " mismatches)");
    };

    hpf::SectionOptions step_opt;
    hpf::SectionOptions flow_opt;
    flow_opt.mode = hpf::ExecMode::AllAtOnce;
    const auto grid = hpf::ProcessGrid::world({P});
    int pr = 1;
    for (int f = 1; f * f <= P; ++f)
      if (P % f == 0) pr = f;
    const int pc = P / pr;
    const BlacsGrid row_grid(1, P);
    const BlacsGrid bc_grid(pr, pc);

    for (const index_t n : sizes) {
      hpf::detail::require(n % P == 0, "--n: ", n, " must be a multiple of the number of ranks ", P,
                           " (the hand-written MPI_Alltoall transpose needs equal blocks)");
      const int ni = static_cast<int>(n);
      const int nbi = static_cast<int>(n / P);
      // ---- transpose: (*, BLOCK) -> (*, BLOCK) ----------------------------------------------------
      if (wanted("transpose")) {
        const hpf::Layout<2> L({n, n}, {hpf::Collapsed(), hpf::Block()}, grid);
        Transpose t(L, step_opt, flow_opt);
        t.check("transpose");
        AlltoallTranspose hand(n, P);
        std::vector<double> c2(t.count);
        hand.run(t.A.local_data(), c2.data());
        require_ok(mismatches(c2.data(), t.C.local_data(), t.count), "mpi-alltoall");
        const auto desc = descriptor(row_grid, ni, ni, ni, nbi);
        t.D.fill(0);
        pdtran(ni, t.A.local_data(), t.D.local_data(), desc);
        require_ok(mismatches(t.D.local_data(), t.C.local_data(), t.count), "pdtran");
        std::vector<double> sa(scalapack_local_size(row_grid, ni, ni, ni, nbi), 1.0), sc(sa.size());
        std::vector<Method> m = t.hpf_methods(step_opt);
        m.insert(m.end(),
                 {{"mpi-alltoall", Kind::Peer,
                   [&] { return timed([&] { hand.run(t.A.local_data(), c2.data()); }); }},
                  {"pdtran", Kind::Peer,
                   [&] { return timed([&] { pdtran(ni, t.A.local_data(), t.D.local_data(), desc); }); }},
                  {"pdtran-alone", Kind::Alone,
                   [&] { return timed([&] { pdtran(ni, sa.data(), sc.data(), desc); }); }}});
#ifdef HPF_BENCH_GA
        GaCopy ga(n, P, me, 't', t.A.local_data(), {0, 0, ni - 1, ni - 1}, {0, 0, ni - 1, ni - 1});
        ga.run();
        require_ok(ga.mismatches_with(t.C.local_data(), t.count), "ga-copy-patch (transpose)");
        ga.add_methods(m);
#endif
        bench_case(n, "transpose", std::move(m), t.count * sizeof(double));
      }

      // ---- transpose-bc: (CYCLIC(64), CYCLIC(64)) on pr x pc -> the same -----------------------------
      if (wanted("transpose-bc")) {
        const int b = 64;
        const auto grid2 = hpf::ProcessGrid::world({pr, pc});
        const hpf::Layout<2> L({n, n}, {hpf::Cyclic(b), hpf::Cyclic(b)}, grid2);
        Transpose t(L, step_opt, flow_opt);
        hpf::detail::require(t.count == scalapack_local_size(bc_grid, ni, ni, b, b) || t.count == 0,
                             "transpose-bc: hpfrt's local block (", t.count, ") is not ScaLAPACK's");
        t.check("transpose-bc");
        const auto desc = descriptor(bc_grid, ni, ni, b, b);
        t.D.fill(0);
        pdtran(ni, t.A.local_data(), t.D.local_data(), desc);
        require_ok(mismatches(t.D.local_data(), t.C.local_data(), t.count), "pdtran (transpose-bc)");
        const int one = 1;
        const double alpha = 1.0;
        const double beta = 0.0;
        const auto pdgeadd_t = [&](const double* a, double* c) {
          pdgeadd_("T", &ni, &ni, &alpha, a, &one, &one, desc.data(), &beta, c, &one, &one, desc.data());
        };
        t.D.fill(0);
        pdgeadd_t(t.A.local_data(), t.D.local_data());
        require_ok(mismatches(t.D.local_data(), t.C.local_data(), t.count), "pdgeadd (transpose-bc)");
        std::vector<double> sa(scalapack_local_size(bc_grid, ni, ni, b, b), 1.0), sc(sa.size());
        std::vector<Method> m = t.hpf_methods(step_opt);
        m.insert(m.end(),
                 {{"pdtran", Kind::Peer,
                   [&] { return timed([&] { pdtran(ni, t.A.local_data(), t.D.local_data(), desc); }); }},
                  {"pdgeadd", Kind::Peer,
                   [&] { return timed([&] { pdgeadd_t(t.A.local_data(), t.D.local_data()); }); }},
                  {"pdtran-alone", Kind::Alone,
                   [&] { return timed([&] { pdtran(ni, sa.data(), sc.data(), desc); }); }}});
        bench_case(n, "transpose-bc", std::move(m), t.count * sizeof(double));
      }

      // ---- transform-n/t/c: B = 2 op(A) + 0.5 B, (CYCLIC(64), CYCLIC(64)) on pr x pc --------------------
      for (const char* tc : {"transform-n", "transform-t", "transform-c"}) {
        if (!wanted(tc)) continue;
        const bool cplx = std::string(tc) == "transform-c";
        const bool trans = std::string(tc) != "transform-n";
        const int b = 64;
        const hpf::Layout<2> L({n, n}, {hpf::Cyclic(b), hpf::Cyclic(b)}, hpf::ProcessGrid::world({pr, pc}));
        const auto desc = descriptor(bc_grid, ni, ni, b, b);
        const int one = 1;
        const hpf::MatrixOp op = !trans ? hpf::MatrixOp::None
                                 : cplx ? hpf::MatrixOp::ConjTranspose
                                        : hpf::MatrixOp::Transpose;
        // Runs hpfrt and the peers of one element type; B starts at the same values for each before the
        // check, and the timed repeats keep accumulating into it (the same arithmetic per repeat).
        const auto run_case = [&](auto zero) {
          using T = decltype(zero);
          hpf::DistArray<T, 2> A("A", L);
          hpf::DistArray<T, 2> B("B", L);
          hpf::DistArray<T, 2> D("D", L);
          const auto init = [n](const hpf::Index<2>& g, T& x) {
            x = T(static_cast<double>(g[0] + n * g[1]));
          };
          const auto binit = [n](const hpf::Index<2>& g, T& x) {
            x = T(static_cast<double>(g[1] - n * g[0]));
          };
          hpf::forall(A, [&](const hpf::Index<2>& g, T& x) {
            init(g, x);
            if constexpr (!std::is_same_v<T, double>) x += T(0, static_cast<double>(g[0]));
          });
          const T alpha(2.0);
          const T beta(0.5);
          const auto count = static_cast<std::size_t>(A.local_size());
          const auto* a = reinterpret_cast<const double*>(A.local_data());
          const auto* al = reinterpret_cast<const double*>(&alpha);
          const auto* be = reinterpret_cast<const double*>(&beta);
          const auto peer = [&](const char* name, T* c) {
            auto* cd = reinterpret_cast<double*>(c);
            if (std::string(name) == "pztranc")
              pztranc_(&ni, &ni, al, a, &one, &one, desc.data(), be, cd, &one, &one, desc.data());
            else if (std::string(name) == "pdtran")
              pdtran_(&ni, &ni, al, a, &one, &one, desc.data(), be, cd, &one, &one, desc.data());
            else
              pdgeadd_(trans ? "T" : "N", &ni, &ni, al, a, &one, &one, desc.data(), be, cd, &one, &one,
                       desc.data());
          };
          std::vector<const char*> peers;
          if (cplx)
            peers = {"pztranc"};
          else if (trans)
            peers = {"pdtran", "pdgeadd"};
          else
            peers = {"pdgeadd"};
          hpf::forall(B, binit);
          hpf::transform(B, A, op, alpha, beta);
          for (const char* name : peers) {
            hpf::forall(D, binit);
            peer(name, D.local_data());
            long long bad = 0;
            for (std::size_t i = 0; i < count; ++i) bad += B.local_data()[i] != D.local_data()[i];
            MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
            require_ok(bad, name);
          }
          std::vector<Method> m{{"hpf-transform", Kind::Hpf,
                                 [&] { return timed([&] { hpf::transform(B, A, op, alpha, beta); }); }}};
          for (const char* name : peers)
            m.push_back({name, Kind::Peer, [&, name] { return timed([&] { peer(name, D.local_data()); }); }});
          bench_case(n, tc, std::move(m), count * sizeof(T));
        };
        if (cplx)
          run_case(std::complex<double>{});
        else
          run_case(0.0);
      }

      // ---- patch: B(:, 0:n-h-1) = A(:, h:n-1), (*, BLOCK) -> (*, BLOCK) --------------------------------
      if (wanted("patch")) {
        const index_t h = n / 3 + 1;
        const hpf::Layout<2> L({n, n}, {hpf::Collapsed(), hpf::Block()}, grid);
        hpf::DistArray<double, 2> A("A", L);
        hpf::DistArray<double, 2> C("C", L);
        hpf::DistArray<double, 2> D("D", L);
        hpf::forall(A, [n](const hpf::Index<2>& g, double& x) { x = static_cast<double>(g[0] + n * g[1]); });
        const hpf::Section<2> sb{{{0, n - 1, 1}, {0, n - h - 1, 1}}};
        const hpf::Section<2> sa{{{0, n - 1, 1}, {h, n - 1, 1}}};
        const hpf::SectionPlan<double, 2> step_plan(L, sb, L, sa, step_opt);
        const hpf::SectionPlan<double, 2> flow_plan(L, sb, L, sa, flow_opt);
        hpf::SectionOptions packed_opt = flow_opt; // packed, so through shared-memory segments
        packed_opt.in_place_min_piece_bytes = SIZE_MAX;
        const hpf::SectionPlan<double, 2> packed_plan(L, sb, L, sa, packed_opt);
        const auto count = static_cast<std::size_t>(A.local_size());
        C.fill(-1);
        step_plan.execute(C, A);
        long long bad = 0;
        hpf::forall(C, [&](const hpf::Index<2>& g, double& x) {
          bad += x != (g[1] < n - h ? static_cast<double>(g[0] + n * (g[1] + h)) : -1.0);
        });
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        require_ok(bad, "hpf-section-step (patch)");
        D.fill(-1);
        flow_plan.execute(D, A);
        require_ok(mismatches(D.local_data(), C.local_data(), count), "hpf-section-allatonce (patch)");
        D.fill(-1);
        packed_plan.execute(D, A);
        packed_plan.execute(D, A); // the second execution: every message's way is settled
        require_ok(mismatches(D.local_data(), C.local_data(), count), "hpf-section-packed (patch)");
        NaiveAlltoallv naive(L, sa, L, sb, me, P);
        D.fill(-1);
        naive.run(A.local_data(), D.local_data());
        require_ok(mismatches(D.local_data(), C.local_data(), count), "naive-alltoallv (patch)");
        std::vector<Method> m{
            {"hpf-section-step", Kind::Hpf, [&] { return timed([&] { step_plan.execute(C, A); }); }},
            {"hpf-section-allatonce", Kind::Hpf, [&] { return timed([&] { flow_plan.execute(C, A); }); }},
            {"hpf-section-packed", Kind::Hpf, [&] { return timed([&] { packed_plan.execute(C, A); }); }},
            {"naive-alltoallv", Kind::Peer,
             [&] { return timed([&] { naive.run(A.local_data(), D.local_data()); }); }},
            {"hpf-section-planning", Kind::Alone,
             [&] { return timed([&] { (void)hpf::SectionPlan<double, 2>(L, sb, L, sa, step_opt); }); }}};
#ifdef HPF_BENCH_GA
        // GA's indices are (column, row): A(:, h:n-1) is [h..n-1][0..n-1].
        GaCopy ga(n, P, me, 'n', A.local_data(), {static_cast<int>(h), 0, ni - 1, ni - 1},
                  {0, 0, static_cast<int>(n - h - 1), ni - 1});
        ga.run();
        require_ok(ga.mismatches_with(C.local_data(), count), "ga-copy-patch (patch)");
        ga.add_methods(m);
#endif
        bench_case(n, "patch", std::move(m), count * sizeof(double));
      }

      // ---- strided: B(0:(n+1)/2-1, :) = A(n-1:0:-2, :), (CYCLIC(3), *) -> (BLOCK, *) ----------------
      if (wanted("strided")) {
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
        NaiveAlltoallv naive(lsa, sa, lsb, sb, me, P);
        sstep.execute(SB, SA);
        long long bad = 0;
        hpf::forall(SB, [&](const hpf::Index<2>& g, double& x) {
          bad += g[0] < (n + 1) / 2 && x != static_cast<double>(n - 1 - 2 * g[0] + n * g[1]);
        });
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        require_ok(bad, "hpf-section-step (strided)");
        naive.run(SA.local_data(), SB2.local_data());
        require_ok(mismatches(SB2.local_data(), SB.local_data(), static_cast<std::size_t>(SB.local_size())),
                   "naive-alltoallv (strided)");
        std::vector<Method> m{
            {"hpf-section-step", Kind::Hpf, [&] { return timed([&] { sstep.execute(SB, SA); }); }},
            {"hpf-section-allatonce", Kind::Hpf, [&] { return timed([&] { sflow.execute(SB, SA); }); }},
            {"naive-alltoallv", Kind::Peer,
             [&] { return timed([&] { naive.run(SA.local_data(), SB2.local_data()); }); }},
            {"hpf-section-planning", Kind::Alone,
             [&] { return timed([&] { (void)hpf::SectionPlan<double, 2>(lsb, sb, lsa, sa, step_opt); }); }}};
        bench_case(n, "strided", std::move(m), static_cast<std::size_t>(SA.local_size()) * sizeof(double));
      }
    }
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    status = 2;
  }
#ifdef HPF_BENCH_GA
  GA_Terminate();
#endif
  Cblacs_exit(1); // keep MPI running: hpf::Environment finalises it
  return status;
}
