// bench_stencil: DistArray::update_shadow against the halo exchanges users would otherwise write or
// call, on the same 2-D BLOCK x BLOCK decomposition, in one job.
//
//   mpirun -np P bench_stencil [--n 4096] [--widths 1,2] [--repeats 11] [--csv docs/results/stencil.csv]
//
// An n x n array of doubles on a near-square grid (2 ranks: 2 x 1, 4 ranks: 2 x 2), non-periodic
// shadows of width w on both dimensions, corners included. Methods, each timed as the slowest rank
// of one exchange (barrier before), median over --repeats:
//   hpfrt           A.update_shadow() (the cached plan, one hpf::Exchange of boxes, all at once)
//   hpfrt-split     A.post_shadow(); A.wait_shadow()
//   hand-mpi        what an MPI programmer writes: dimension by dimension (x, then y over the padded
//                   width, so corners ride along), MPI_Sendrecv with derived datatypes (no packing)
//   petsc-dmda      PETSc DMDA (DMDA_STENCIL_BOX, stencil width w) DMGlobalToLocalBegin/End, as in
//                   PETSc's own examples (when built with PETSc)
//   hpfrt-periodic  A.update_shadow(hpf::Boundary::Periodic): the same work as Global Arrays' update
//   ga-ghosts       Global Arrays GA_Update_ghosts on NGA_Create_ghosts_irreg with the same blocks
//                   (GA's ghost update is periodic; compare it with hpfrt-periodic)
//   memcpy          one memcpy of the bytes this rank receives (the most any rank receives), every
//                   rank at once: the floor of any exchange on this machine
// Each row: method, ranks, grid, n, w, median seconds, ratio to hand-mpi, ratio to memcpy.
#include <hpf/hpf.hpp>

#include "../common/bench_common.hpp"

#ifdef HPF_BENCH_PETSC
#include <petscdmda.h>
#endif
#ifdef HPF_BENCH_GA
#include <ga.h>
#include <macdecls.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using hpf::index_t;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Median over `repeats` of the slowest rank's time of one call of f.
double median_seconds(int repeats, const std::function<void()>& f) {
  f(); // warm-up: plans, buffers, first-touch
  std::vector<double> t;
  for (int k = 0; k < repeats; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now();
    f();
    double dt = now() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t.push_back(dt);
  }
  return hpf::bench::median(t);
}

/// The hand-written exchange on a padded (e0 + 2w) x (e1 + 2w) Fortran-order block: x first (owned
/// columns), then y over the whole padded width, with MPI_PROC_NULL at the array's edges.
class HandHalo {
public:
  HandHalo(double* data, index_t e0, index_t e1, int w, int c0, int c1, int p0, int p1) : m_data(data) {
    const index_t ld = e0 + 2 * w;
    m_ld = ld;
    m_e0 = e0;
    m_e1 = e1;
    m_w = w;
    auto rank_of = [&](int a, int b) {
      return (a < 0 || a >= p0 || b < 0 || b >= p1) ? MPI_PROC_NULL : a + p0 * b;
    };
    m_west = rank_of(c0 - 1, c1);
    m_east = rank_of(c0 + 1, c1);
    m_south = rank_of(c0, c1 - 1);
    m_north = rank_of(c0, c1 + 1);
    MPI_Type_vector(static_cast<int>(e1), w, static_cast<int>(ld), MPI_DOUBLE,
                    &m_xtype); // w columns, owned rows
    MPI_Type_commit(&m_xtype);
    MPI_Type_contiguous(static_cast<int>(ld * w), MPI_DOUBLE, &m_ytype); // w padded rows
    MPI_Type_commit(&m_ytype);
  }
  HandHalo(const HandHalo&) = delete;
  HandHalo& operator=(const HandHalo&) = delete;
  ~HandHalo() {
    MPI_Type_free(&m_xtype);
    MPI_Type_free(&m_ytype);
  }
  void exchange() {
    double* a = m_data;
    const index_t row = m_ld;
    const index_t w = m_w;
    // x: send my first w owned columns west, receive the east neighbour's into my right shadow; and back.
    MPI_Sendrecv(a + w + w * row, 1, m_xtype, m_west, 10, a + w + m_e0 + w * row, 1, m_xtype, m_east, 10,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(a + m_e0 + w * row, 1, m_xtype, m_east, 11, a + w * row, 1, m_xtype, m_west, 11,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    // y: whole padded rows (the x shadows ride along: corners).
    MPI_Sendrecv(a + w * row, 1, m_ytype, m_south, 12, a + (w + m_e1) * row, 1, m_ytype, m_north, 12,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(a + m_e1 * row, 1, m_ytype, m_north, 13, a, 1, m_ytype, m_south, 13, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  }

private:
  double* m_data;
  index_t m_ld = 0, m_e0 = 0, m_e1 = 0, m_w = 0;
  int m_west = MPI_PROC_NULL, m_east = MPI_PROC_NULL, m_south = MPI_PROC_NULL, m_north = MPI_PROC_NULL;
  MPI_Datatype m_xtype = MPI_DATATYPE_NULL, m_ytype = MPI_DATATYPE_NULL;
};

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  index_t n = 4096;
  std::vector<int> widths{1, 2};
  int repeats = 11;
  std::string csv = "docs/results/stencil.csv";
  hpf::bench::for_each_option(argc, argv, "[--n N] [--widths 1,2] [--repeats R] [--csv file]",
                              [&](std::string_view k, std::string_view v) {
                                if (k == "--n")
                                  n = hpf::bench::parse_number<index_t>(v, "--n");
                                else if (k == "--widths")
                                  widths = hpf::bench::parse_list<int>(v, "--widths");
                                else if (k == "--repeats")
                                  repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                else if (k == "--csv")
                                  csv = v;
                                else
                                  return false;
                                return true;
                              });
#ifdef HPF_BENCH_PETSC
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
#endif
#ifdef HPF_BENCH_GA
  GA_Initialize();
  MA_init(C_DBL, 1 << 23, 1 << 23); // GA's packing buffers
#endif
  int P = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int p1 = 1;
  for (int f = 1; f * f <= P; ++f)
    if (P % f == 0) p1 = f;
  const int p0 = P / p1;
  const auto grid = hpf::ProcessGrid::world({p0, p1});
  [[maybe_unused]] double one = 1.0;
  hpf::bench::CsvWriter out; // rank 0 writes (appends: one job per rank count)
  if (rank == 0) out = hpf::bench::CsvWriter(csv, "method,ranks,grid,n,width,seconds,vs_hand_mpi,vs_memcpy");
  if (rank == 0)
    std::printf("%-15s %5s %6s %6s %3s %12s %8s %8s\n", "method", "ranks", "grid", "n", "w", "median_s",
                "vs_hand", "vs_memcpy");

  for (int w : widths) {
    const hpf::Layout<2> L = hpf::Layout<2>({n, n}, {hpf::Block(), hpf::Block()}, grid).with_shadow({w, w});
    hpf::DistArray<double, 2> A("A", L);
    hpf::forall(A, [](const hpf::Index<2>& g, double& x) { x = double(g[0] + g[1]); });
    const hpf::Index<2> own = A.owned_extents();
    const auto c = A.my_dim_coords();

    // Elements this rank receives (shadow slots inside the array), and the most any rank receives.
    index_t inside = 1;
    for (int d = 0; d < 2; ++d) {
      const index_t G = A.global_index(d, 0);
      const index_t len = own[static_cast<std::size_t>(d)];
      inside *= std::min(G + len + w, n) - std::max<index_t>(G - w, 0);
    }
    long long recv = static_cast<long long>(inside - own[0] * own[1]);
    MPI_Allreduce(MPI_IN_PLACE, &recv, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    const std::size_t bytes = static_cast<std::size_t>(recv) * sizeof(double);

    std::vector<std::pair<std::string, double>> rows;
    rows.emplace_back("hpfrt", median_seconds(repeats, [&] { A.update_shadow(); }));
    rows.emplace_back("hpfrt-split", median_seconds(repeats, [&] {
                        A.post_shadow();
                        A.wait_shadow();
                      }));
    // The hand-written exchange on a padded block of its own (same shape as A's storage).
    std::vector<double> hand(static_cast<std::size_t>((own[0] + 2 * w) * (own[1] + 2 * w)), 1.0);
    HandHalo h(hand.data(), own[0], own[1], w, c[0], c[1], p0, p1);
    rows.emplace_back("hand-mpi", median_seconds(repeats, [&] { h.exchange(); }));
#ifdef HPF_BENCH_PETSC
    {
      DM da;
      Vec g, l;
      PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX,
                             static_cast<PetscInt>(n), static_cast<PetscInt>(n), p0, p1, 1, w, nullptr,
                             nullptr, &da));
      PetscCall(DMSetUp(da));
      PetscCall(DMCreateGlobalVector(da, &g));
      PetscCall(DMCreateLocalVector(da, &l));
      PetscCall(VecSet(g, 1.0));
      rows.emplace_back("petsc-dmda", median_seconds(repeats, [&] {
                          PetscCallAbort(PETSC_COMM_WORLD, DMGlobalToLocalBegin(da, g, INSERT_VALUES, l));
                          PetscCallAbort(PETSC_COMM_WORLD, DMGlobalToLocalEnd(da, g, INSERT_VALUES, l));
                        }));
      PetscCall(VecDestroy(&l));
      PetscCall(VecDestroy(&g));
      PetscCall(DMDestroy(&da));
    }
#endif
    rows.emplace_back("hpfrt-periodic",
                      median_seconds(repeats, [&] { A.update_shadow(hpf::Boundary::Periodic); }));
#ifdef HPF_BENCH_GA
    {
      // GA is C-ordered: our dimension 1 (slowest) is its dimension 0. Same blocks as the BLOCK layout.
      int dims[2] = {static_cast<int>(n), static_cast<int>(n)};
      int width[2] = {w, w};
      int block[2] = {p1, p0};
      std::vector<int> map;
      for (int k = 0; k < p1; ++k) map.push_back(static_cast<int>(k * ((n + p1 - 1) / p1)));
      for (int k = 0; k < p0; ++k) map.push_back(static_cast<int>(k * ((n + p0 - 1) / p0)));
      char name[] = "ga";
      const int g = NGA_Create_ghosts_irreg(C_DBL, 2, dims, width, name, block, map.data());
      GA_Fill(g, &one);
      rows.emplace_back("ga-ghosts", median_seconds(repeats, [&] { GA_Update_ghosts(g); }));
      GA_Destroy(g);
    }
#endif
    std::vector<char> src(bytes + 1, 1), dst(bytes + 1, 0);
    const double mc = median_seconds(repeats, [&] { std::memcpy(dst.data(), src.data(), bytes); });
    rows.emplace_back("memcpy", mc);
    double hand_s = 0;
    for (const auto& [name, s] : rows)
      if (name == "hand-mpi") hand_s = s;
    const std::string gname = std::to_string(p0) + "x" + std::to_string(p1);
    for (const auto& [name, s] : rows) {
      if (rank == 0)
        std::printf("%-15s %5d %6s %6lld %3d %12.3e %8.2f %8.2f\n", name.c_str(), P, gname.c_str(),
                    static_cast<long long>(n), w, s, s / hand_s, s / mc);
      out.row("%s,%d,%s,%lld,%d,%.6e,%.4f,%.4f\n", name.c_str(), P, gname.c_str(), static_cast<long long>(n),
              w, s, s / hand_s, s / mc);
    }
  }
#ifdef HPF_BENCH_GA
  GA_Terminate();
#endif
#ifdef HPF_BENCH_PETSC
  PetscCall(PetscFinalize());
#endif
  return 0;
}
