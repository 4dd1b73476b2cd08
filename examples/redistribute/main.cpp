// redistribute: HPF REDISTRIBUTE with hpfrt, the example of Desprez et al., "Scheduling
// block-cyclic array redistribution".
//
//   mpirun -n 4 ./redistribute_example        (any number of ranks works; the output is for 4)
//
//  1. X(0:39) goes from CYCLIC(3) to CYCLIC(5) on the same 4 ranks, in place (A.redistribute), with
//     the communication grid and the contention-free schedule the runtime chose.
//  2. The same array moves to CYCLIC(2) on 3 of the ranks (P != Q; rank 0 then holds nothing).
//  3. A 12 x 8 matrix goes from CYCLIC(2) x CYCLIC(2) on a 2 x 2 grid to (BLOCK, *) on 4 ranks, through
//     an explicit RedistributionPlan executed twice.
// Every element holds a value computed from its global index, checked on its new owner.
#include <hpf/hpf.hpp>

#include <cstdio>
#include <iostream>
#include <string>

namespace {

/// One character per element: the grid position that owns it ('.' if none).
std::string ownership(const hpf::Layout<1>& L) {
  std::string s;
  for (hpf::index_t i = 0; i < L.extent(0); ++i) s += static_cast<char>('0' + L.owner({i}));
  return s;
}

/// Parent ranks of a grid, "0 1 2".
std::string ranks_of(const hpf::ProcessGrid& g) {
  std::string s;
  for (int r : g.ranks()) s += (s.empty() ? "" : " ") + std::to_string(r);
  return s;
}

/// Collective: number of elements (over all ranks) whose value is not f(global index).
template <int N, class F> long long count_wrong(hpf::DistArray<double, N>& A, F f) {
  long long bad = 0;
  hpf::forall(A, [&](const hpf::Index<N>& g, double& x) { bad += x != f(g) ? 1 : 0; });
  long long all = 0;
  HPF_MPI_CHECK(MPI_Allreduce(&bad, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  return all;
}

void print_schedule(const hpf::Schedule& s) {
  for (int k = 0; k < s.num_steps(); ++k) {
    std::printf("    step %d:", k);
    for (const hpf::Message& m : s.steps()[static_cast<std::size_t>(k)].messages)
      if (m.len > 0) std::printf("  %d->%d (%lld)", m.src, m.dst, static_cast<long long>(m.len));
    std::printf("\n");
  }
  std::printf("    %d steps, total cost TC = %lld elements (sum of the longest message per step)\n",
              s.num_steps(), static_cast<long long>(s.total_cost()));
}

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    int size = 0;
    int me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const bool root = me == 0;

    // ---- 1. CYCLIC(3) -> CYCLIC(5) on the same ranks ------------------------------------------
    const hpf::index_t M = 40;
    const auto all = hpf::ProcessGrid::world({size});
    const hpf::Layout<1> cyc3({M}, {hpf::Cyclic(3)}, all);
    const hpf::Layout<1> cyc5({M}, {hpf::Cyclic(5)}, all);
    hpf::DistArray<double, 1> X("X", cyc3);
    auto f1 = [](const hpf::Index<1>& g) { return 10.0 * static_cast<double>(g[0]); };
    hpf::forall(X, [&](const hpf::Index<1>& g, double& x) { x = f1(g); });

    // A fixed cost model (alpha = 10 us per step, beta = 1 ns per byte) keeps the output
    // reproducible; without it, Strategy::Auto measures the network once.
    hpf::RedistOptions opt;
    opt.alpha = 1e-5;
    opt.beta = 1e-9;
    if (root) {
      std::printf("1. X(0:%lld) CYCLIC(3) -> CYCLIC(5) on %d ranks (digit = owner of X(i))\n",
                  static_cast<long long>(M - 1), size);
      std::printf("   before  %s\n", ownership(cyc3).c_str());
    }
    X.redistribute(cyc5, opt); // HPF: !HPF$ REDISTRIBUTE X(CYCLIC(5))
    const long long bad1 = count_wrong(X, f1);
    // The plan X.redistribute used, looked up again (a cache hit) to print it.
    hpf::RedistOptions used = opt;
    used.element_bytes = sizeof(double);
    const auto plan1 = hpf::cached_plan(cyc3, cyc5, used);
    if (root) {
      std::printf("   after   %s\n", ownership(cyc5).c_str());
      std::printf("   communication grid (elements p -> q) and schedule (strategy %s, which chose %s):\n",
                  hpf::to_string(plan1->options().strategy).c_str(),
                  hpf::to_string(plan1->dim_strategy(0)).c_str());
      for (const hpf::Message& m : plan1->dim_grid(0).entries())
        std::printf("    %d->%d: %lld\n", m.src, m.dst, static_cast<long long>(m.len));
      print_schedule(plan1->dim_schedule(0));
      std::printf("   data check: %s (%lld wrong)\n", bad1 == 0 ? "OK" : "FAILED", bad1);
    }

    // ---- 2. To CYCLIC(2) on the last max(1, size - 1) ranks: P != Q ----------------------------
    std::vector<int> last;
    for (int r = size > 1 ? 1 : 0; r < size; ++r) last.push_back(r);
    const hpf::ProcessGrid some(MPI_COMM_WORLD, last, {static_cast<int>(last.size())});
    const hpf::Layout<1> cyc2({M}, {hpf::Cyclic(2)}, some);
    X.redistribute(cyc2, opt);
    const long long bad2 = count_wrong(X, f1);
    if (root) {
      std::printf("\n2. X CYCLIC(5) on %d ranks -> CYCLIC(2) on ranks {%s} (digit = grid position)\n", size,
                  ranks_of(some).c_str());
      std::printf("   after   %s\n", ownership(cyc2).c_str());
      std::printf("   rank 0 now holds %lld elements; data check: %s (%lld wrong)\n",
                  static_cast<long long>(X.local_size()), bad2 == 0 ? "OK" : "FAILED", bad2);
    }

    // ---- 3. A 2-D matrix: CYCLIC(2) x CYCLIC(2) on a grid -> (BLOCK, *) ------------------------
    int a = 1;
    for (int k = 1; k * k <= size; ++k)
      if (size % k == 0) a = k;
    const auto grid2 = hpf::ProcessGrid::world({size / a, a});
    const hpf::Layout<2> src({12, 8}, {hpf::Cyclic(2), hpf::Cyclic(2)}, grid2);
    const hpf::Layout<2> dst({12, 8}, {hpf::Block(), hpf::Collapsed()}, all);
    hpf::DistArray<double, 2> A("A", src);
    auto f2 = [](const hpf::Index<2>& g) { return static_cast<double>(g[0] + 100 * g[1]); };
    hpf::forall(A, [&](const hpf::Index<2>& g, double& x) { x = f2(g); });
    const hpf::RedistributionPlan<2> plan(src, dst, opt); // plan once ...
    hpf::DistArray<double, 2> B("B", dst);
    plan.execute(A, B); // ... execute many times
    plan.execute(A, B);
    const long long bad3 = count_wrong(B, f2);
    if (root) {
      std::printf("\n3. A(12, 8) (CYCLIC(2), CYCLIC(2)) on a %d x %d grid -> (BLOCK, *) on %d ranks\n",
                  size / a, a, size);
      std::printf("   owner of A(i, j), before | after:\n");
      for (hpf::index_t i = 0; i < 12; ++i) {
        std::printf("   i=%2lld ", static_cast<long long>(i));
        for (hpf::index_t j = 0; j < 8; ++j) std::printf("%d", src.owner({i, j}));
        std::printf(" | ");
        for (hpf::index_t j = 0; j < 8; ++j) std::printf("%d", dst.owner({i, j}));
        std::printf("\n");
      }
      std::printf("   per-dimension schedules: %d x %d steps = %d steps of the 2-D product schedule\n",
                  plan.dim_schedule(0).num_steps(), plan.dim_schedule(1).num_steps(),
                  plan.schedule().num_steps());
      const hpf::PlanCacheStats st = hpf::plan_cache_stats();
      std::printf("   data check: %s (%lld wrong); plan cache: %zu plans, %zu hits, %zu misses\n",
                  bad3 == 0 ? "OK" : "FAILED", bad3, st.size, st.hits, st.misses);
    }
    return bad1 + bad2 + bad3 == 0 ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::cerr << "redistribute_example: " << e.what() << "\n";
    return 1;
  }
}
