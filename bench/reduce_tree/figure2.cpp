// Figure 2 of seed 002 (Canon & Antoniu): for 2 <= n <= N, the ratio of the binomial strategy's
// schedule length to the optimum (Algorithm 1) when d = c, and of the Fibonacci strategy's when
// min(d, c) = 0 (both d = 0 and c = 0 are computed; Section 7.3 conjectures these are the worst
// cases). Pure planning, no MPI: prints CSV on stdout.
//   bench_reduce_figure2 [--max-n 10000]
#include "../common/bench_common.hpp"

#include <hpf/reduce/tree.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  int max_n = 10000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--max-n") == 0 && i + 1 < argc) {
      try {
        max_n = hpf::bench::parse_number<int>(argv[++i], "--max-n");
      } catch (const hpf::Error& e) {
        std::fprintf(stderr, "bench_reduce_figure2: %s\n", e.what());
        return 2;
      }
    } else {
      std::fprintf(stderr, "usage: %s [--max-n N]   (N >= 2)\n", argv[0]);
      return 2;
    }
  }
  if (max_n < 2) {
    std::fprintf(stderr, "bench_reduce_figure2: --max-n must be >= 2, got %d\n", max_n);
    return 2;
  }
  const hpf::ReduceCosts equal{1.0, 1.0};
  const hpf::ReduceCosts no_compute{1.0, 0.0};
  const hpf::ReduceCosts no_transfer{0.0, 1.0};
  double worst_bin = 0, worst_fib = 0;
  int worst_bin_n = 0, worst_fib_n = 0;
  std::printf("n,binomial_over_opt_d_eq_c,fibonacci_over_opt_c0,fibonacci_over_opt_d0\n");
  for (int n = 2; n <= max_n; ++n) {
    const double bin = hpf::binomial_strategy_tree(n, equal).length / hpf::greedy_length(n, equal);
    const double fib_c0 =
        hpf::fibonacci_strategy_tree(n, no_compute).length / hpf::greedy_length(n, no_compute);
    const double fib_d0 =
        hpf::fibonacci_strategy_tree(n, no_transfer).length / hpf::greedy_length(n, no_transfer);
    std::printf("%d,%.6f,%.6f,%.6f\n", n, bin, fib_c0, fib_d0);
    if (bin > worst_bin) worst_bin = bin, worst_bin_n = n;
    const double fib = std::max(fib_c0, fib_d0);
    if (fib > worst_fib) worst_fib = fib, worst_fib_n = n;
  }
  std::fprintf(stderr,
               "largest ratios: binomial %.4f at n = %d (Theorem 18 bound 2), Fibonacci %.4f at n = %d "
               "(Theorem 19 bound 2)\n",
               worst_bin, worst_bin_n, worst_fib, worst_fib_n);
  return 0;
}
