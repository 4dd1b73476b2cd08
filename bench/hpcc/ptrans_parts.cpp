// bench_hpcc_ptrans_parts: where PTRANS's time goes (examples/hpcc/ptrans.cpp, docs/hpcc.md). For n x n
// doubles CYCLIC(nb) x CYCLIC(nb) on a P x Q grid, times (median of the repeats, slowest rank):
//   transpose   hpf::assign(At, all, A, all, {1, 0}), the kernel's transposing move
//   copy        hpf::assign(B, all, A, all), the same layouts without the permutation (local only)
//   memcpy      one memcpy of the local block
//   local-T     a plain tiled transpose of the local block into another local block of the same size (a
//               C loop to hold the plan's local copy against)
//   redist      REDISTRIBUTE of A to CYCLIC(nb) x CYCLIC(nb) on the Q x P grid (about the bytes the
//               transpose moves between ranks, as P x Q != Q x P)
//   forall      C += At, the kernel's local update
//   mpirun -n 2 ./bench_hpcc_ptrans_parts [n 4096] [nb 64] [repeats 5] [P] [Q]   (default HPCC's grid)
// With HPF_PTRANS_ONLY_TRANSPOSE=b set, only the transpose runs (for a profiler), then again through
// an explicit SectionPlan whose messages move in place from pieces of b bytes on.
#include "../../examples/hpcc/common.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using hpf::Cyclic, hpf::DistArray, hpf::Index, hpf::index_t;

namespace {
/// The median over `repeats` runs of f, each the slowest rank's time; `best` gets the fastest run.
template <class F> double timed(int repeats, F&& f, double* best = nullptr) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    double s = -MPI_Wtime();
    f();
    s += MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t.push_back(s);
  }
  std::nth_element(t.begin(), t.begin() + repeats / 2, t.end());
  if (best != nullptr) *best = *std::min_element(t.begin(), t.end());
  return t[static_cast<std::size_t>(repeats / 2)];
}
} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const index_t n = argc > 1 ? std::atoll(argv[1]) : 4096;
    const index_t nb = argc > 2 ? std::atoll(argv[2]) : 64;
    const int repeats = std::max(1, argc > 3 ? std::atoi(argv[3]) : 5);
    auto pq = near_square(env.size());
    if (argc > 5) pq = {std::atoi(argv[4]), std::atoi(argv[5])};
    const auto grid = hpf::ProcessGrid::world({pq[0], pq[1]});
    const hpf::Layout<2> layout({n, n}, {Cyclic(nb), Cyclic(nb)}, grid);
    const hpf::Layout<2> flipped({n, n}, {Cyclic(nb), Cyclic(nb)}, hpf::ProcessGrid::world({pq[1], pq[0]}));
    DistArray<double, 2> A("A", layout), At("At", layout), B("B", layout), C("C", layout), R("R", flipped);
    hpf::forall(A, C, [=](const Index<2>& g, double& x, double& y) {
      x = random_at(static_cast<unsigned long long>(g[0] + n * g[1]));
      y = 0.0;
    });
    const hpf::Section<2> all = hpf::whole_section<2>({n, n});
    const auto local = static_cast<std::size_t>(A.local_size());
    const auto ext = A.layout().my_local_extents();
    std::vector<double> buf(local), tbuf(local);

    double tbest = 0;
    const double transpose = timed(
        repeats,
        [&] {
          hpf::assign(At, all, A, all, {1, 0});
        },
        &tbest);
    if (const char* e = std::getenv("HPF_PTRANS_ONLY_TRANSPOSE")) {
      hpf::SectionOptions opt;
      opt.mode = hpf::ExecMode::AllAtOnce;
      opt.in_place_min_piece_bytes = static_cast<std::size_t>(std::atoll(e));
      const hpf::SectionPlan<double, 2> plan(At.layout(), all, A.layout(), all, {1, 0}, opt);
      double pbest = 0;
      const double explicit_plan = timed(
          repeats, [&] { plan.execute(At, A); }, &pbest);
      if (env.rank() == 0)
        std::printf(
            "ptrans parts: transpose %.4f (best %.4f), plan (in place from %s bytes) %.4f (best %.4f)\n",
            transpose, tbest, e, explicit_plan, pbest);
      return 0;
    }
    const double copy = timed(repeats, [&] { hpf::assign(B, all, A, all); });
    const double mem =
        timed(repeats, [&] { std::memcpy(buf.data(), A.local_data(), local * sizeof(double)); });
    // The local block copied transposed (rows x cols -> cols x rows) in 32 x 32 tiles, stores
    // innermost along the target's contiguous dimension.
    const index_t rows = ext[0], cols = ext[1];
    const double localt = timed(repeats, [&] {
      const double* a = A.local_data();
      constexpr index_t t = 32;
      for (index_t i0 = 0; i0 < rows; i0 += t)
        for (index_t j0 = 0; j0 < cols; j0 += t)
          for (index_t i = i0; i < std::min(rows, i0 + t); ++i)
            for (index_t j = j0; j < std::min(cols, j0 + t); ++j)
              tbuf[static_cast<std::size_t>(j + cols * i)] = a[i + rows * j];
    });
    const double redist = timed(repeats, [&] { DistArray<double, 2>::redistribute_into(A, R); });
    const double upd = timed(
        repeats, [&] { hpf::forall(C, At, [](const Index<2>&, double& x, const double& y) { x += y; }); });

    // At must be A's transpose.
    double bad = 0;
    hpf::forall(At, [&](const Index<2>& g, double& x) {
      if (x != random_at(static_cast<unsigned long long>(g[1] + n * g[0]))) bad += 1;
    });
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (env.rank() == 0)
      std::printf(
          "ptrans parts: n %lld, nb %lld, grid %d x %d, seconds: transpose %.4f copy %.4f memcpy %.4f "
          "local-T %.4f redist %.4f forall %.4f, check %s\n",
          static_cast<long long>(n), static_cast<long long>(nb), pq[0], pq[1], transpose, copy, mem, localt,
          redist, upd, bad == 0 ? "OK" : "FAILED");
    return bad == 0 ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "bench_hpcc_ptrans_parts: %s\n", e.what());
    return 1;
  }
}
