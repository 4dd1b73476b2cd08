// steady_stream: a stream of K data-parallel phases, each producing a distributed array whose
// contributions are reduced to rank 0 with a non-commutative operator by hpf::ReductionSeries: the
// steady-state reducer of Legrand, Marchal and Robert on a platform hpfrt measures itself,
// or one tree per phase (Canon and Antoniu) when the series is too short to pay back the linear program.
//
//   mpirun -n 3 ./steady_stream [K] [platform.json]    (any number of ranks; K = 200 by default)
//
// No platform is written by hand: the series measures one (one node per rank, link costs from
// ping-pongs of the value size, node speeds from timing the operator) and, given a path, saves it as
// JSON. Phase t fills A_t(g) = (7 g + 13 t) mod 101 over `block` elements per rank, CYCLIC(block),
// so that rank r's contribution is the fold of the r-th block. The operator maps each element to
// the affine map x -> a x + b (b = the element, a = 1 + 2 (b mod 5)) and composes them left to right,
// (f o g), in 64-bit modular arithmetic. Rank 0 checks every result against the sequential fold
// computed directly from the formula and prints a summary; exit code 1 on any mismatch.
#include <hpf/hpf.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr hpf::index_t block = 16; // elements per rank

using Affine = std::array<std::uint64_t, 2>; // x -> [0] x + [1]

/// (f o g)(x) = f(g(x)): non-commutative, associative.
Affine compose(const Affine& f, const Affine& g) { return Affine{f[0] * g[0], f[0] * g[1] + f[1]}; }

Affine element(hpf::index_t g, std::int64_t t) {
  const auto b = static_cast<std::uint64_t>((7 * g + 13 * t) % 101);
  return Affine{1 + 2 * (b % 5), b};
}

int run(std::int64_t K, const std::string& save) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto grid = hpf::ProcessGrid::world({size});
  const hpf::Layout<1> layout({size * block}, {hpf::Cyclic(block)}, grid);
  hpf::DistArray<Affine, 1> A("A", layout);

  hpf::SeriesOptions opts; // root 0, strategy Auto
  opts.expected = K;
  hpf::ReductionSeries<Affine> red(layout, compose, opts); // collective: measures, solves, chooses
  if (rank == 0 && !save.empty()) red.platform().save(save);

  for (std::int64_t t = 0; t < K; ++t) {
    hpf::forall(A, [t](const hpf::Index<1>& g, Affine& x) { x = element(g[0], t); });
    red.submit(A); // returns at once; phases run in batches
  }
  const double t0 = MPI_Wtime();
  red.wait_all();
  const double seconds = MPI_Wtime() - t0;

  std::int64_t delivered = 0, wrong = 0;
  for (std::int64_t t = 0; t < K; ++t) {
    const std::optional<Affine> have = red.result(t);
    if (rank != 0) continue;
    Affine want = element(0, t);
    for (hpf::index_t g = 1; g < size * block; ++g) want = compose(want, element(g, t)); // left to right
    ++delivered;
    if (!have || *have != want) {
      ++wrong;
      std::fprintf(stderr, "steady_stream: phase %lld differs from the sequential fold\n",
                   static_cast<long long>(t));
    }
  }
  if (rank == 0) {
    const hpf::SeriesChoice& c = red.choice();
    std::printf("steady_stream: %lld phases reduced on %d rank(s), measured platform of %d nodes (time unit "
                "%.3g s)\n",
                static_cast<long long>(K), size, red.platform().platform.node_count(),
                red.platform().time_unit);
    std::printf("strategy: %s (%s)\n", hpf::to_string(c.chosen).c_str(), c.reason.c_str());
    if (size > 1) std::printf("LP: TP = %s operations per time unit\n", c.throughput.c_str());
    std::printf("results: %lld delivered, %lld differ from the sequential left-to-right fold (%.3f s)\n",
                static_cast<long long>(delivered), static_cast<long long>(wrong), seconds);
  }
  return rank != 0 || (delivered == K && wrong == 0) ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const std::int64_t K = argc > 1 ? std::atoll(argv[1]) : 200;
    if (K < 1) {
      std::cerr << "steady_stream: K must be >= 1, got '" << argv[1] << "'\n";
      return 2;
    }
    int status = run(K, argc > 2 ? argv[2] : "");
    MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return status;
  } catch (const hpf::Error& e) {
    std::cerr << "steady_stream: " << e.what() << "\n";
    return 1;
  }
}
