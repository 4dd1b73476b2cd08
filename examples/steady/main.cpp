// steady_stream: a stream of K data-parallel phases, each producing a distributed array whose
// per-node contributions are reduced, with a non-commutative operator, through the steady-state
// reducer of seed 000 (Legrand, Marchal, Robert) instead of K independent reductions.
//
//   mpirun -n 3 ./steady_stream [K]        (any number of ranks; K = 200 by default)
//
// The platform is Figure 6 of the seed: P0 (speed 2), P1 and P2 (speed 1), links of cost 1 out of
// P1 and P2; TP = 1 reduction per time unit. Rank r plays node v when v mod size = r (the executor's
// default mapping). Phase t fills A_t(g) = (7 g + 13 t) mod 101 over 3 m elements distributed
// CYCLIC(m), so that the i-th block of m elements -- node P_i's contribution -- lives on the rank
// playing P_i whatever the number of ranks. P_i's operand of phase t is the affine map
// x -> a x + b with b = sum of its block and a = 1 + 2 (b mod 5); operands compose left to right,
// (f0 o f1 o f2), in 64-bit modular arithmetic. The rank playing P0 checks every result against
// the sequential fold computed directly from the formula and prints a summary; exit code 1 on any
// mismatch.
#include <hpf/hpf.hpp>
#include <hpf/steady/executor.hpp>
#include <hpf/steady/pipeline.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr char figure6[] = R"({"nodes": [{"name": "P0", "speed": 2}, {"name": "P1", "speed": 1},
  {"name": "P2", "speed": 1}], "edges": [{"from": "P1", "to": "P0", "cost": 1},
  {"from": "P1", "to": "P2", "cost": 1}, {"from": "P2", "to": "P0", "cost": 1},
  {"from": "P2", "to": "P1", "cost": 1}]})";

constexpr hpf::index_t block = 16; // m: elements per node
constexpr int nodes = 3;

using Affine = std::array<std::uint64_t, 2>; // x -> [0] x + [1]

/// (f o g)(x) = f(g(x)): non-commutative, associative.
Affine compose(const Affine& f, const Affine& g) { return Affine{f[0] * g[0], f[0] * g[1] + f[1]}; }

double element(hpf::index_t g, std::int64_t t) { return static_cast<double>((7 * g + 13 * t) % 101); }

Affine operand_of_sum(std::uint64_t b) { return Affine{1 + 2 * (b % 5), b}; }

/// The reference: node i's operand of phase t computed sequentially from the formula.
Affine reference_operand(int i, std::int64_t t) {
  std::uint64_t b = 0;
  for (hpf::index_t g = i * block; g < (i + 1) * block; ++g) b += static_cast<std::uint64_t>(element(g, t));
  return operand_of_sum(b);
}

int run(std::int64_t K) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  using namespace hpf::steady;
  const Platform g = Platform::from_json(figure6);
  const SteadyProblem problem = SteadyProblem::reduce({0, 1, 2}, 0);
  const PipelinePlan plan = plan_pipeline(g, problem, K); // pure: every rank computes the same plan

  // The stream of phases: each is a data-parallel forall over A, then every rank keeps the operands
  // of the nodes it plays (the reducer asks for them by time-stamp, in tree order, not phase order).
  const auto grid = hpf::ProcessGrid::world({size});
  const hpf::Layout<1> layout({nodes * block}, {hpf::Cyclic(block)}, grid);
  hpf::DistArray<double, 1> A("A", layout);
  std::vector<std::vector<Affine>> operands(nodes);
  for (std::int64_t t = 0; t < K; ++t) {
    hpf::forall(A, [t](const hpf::Index<1>& gi, double& x) { x = element(gi[0], t); });
    for (int i = 0; i < nodes; ++i) {
      if (i % size != rank) continue;
      std::uint64_t b = 0;
      for (hpf::index_t e = i * block; e < (i + 1) * block; ++e) {
        hpf::detail::require(A.owns({e}), "steady_stream: element ", e, " of node ", i, " is not on rank ",
                             rank);
        b += static_cast<std::uint64_t>(A.get({e}));
      }
      operands[static_cast<std::size_t>(i)].push_back(operand_of_sum(b));
    }
  }

  std::int64_t checked = 0, wrong = 0;
  PipelineCallbacks cb;
  cb.make = [&](int i, std::int64_t t, std::byte* out) {
    std::memcpy(out, operands[static_cast<std::size_t>(i)][static_cast<std::size_t>(t)].data(),
                sizeof(Affine));
  };
  cb.combine = [](const std::byte* l, const std::byte* r, std::byte* out) {
    Affine f{}, h{};
    std::memcpy(f.data(), l, sizeof f);
    std::memcpy(h.data(), r, sizeof h);
    const Affine c = compose(f, h);
    std::memcpy(out, c.data(), sizeof c);
  };
  cb.deliver = [&](int, std::int64_t t, const std::byte* in) {
    Affine have{};
    std::memcpy(have.data(), in, sizeof have);
    Affine want = reference_operand(0, t);
    for (int i = 1; i < nodes; ++i) want = compose(want, reference_operand(i, t)); // left to right
    ++checked;
    if (have != want) {
      ++wrong;
      std::fprintf(stderr, "steady_stream: phase %lld: got (%llu, %llu), sequential fold (%llu, %llu)\n",
                   static_cast<long long>(t), static_cast<unsigned long long>(have[0]),
                   static_cast<unsigned long long>(have[1]), static_cast<unsigned long long>(want[0]),
                   static_cast<unsigned long long>(want[1]));
    }
  };
  const PipelineStats st = run_pipeline(plan, MPI_COMM_WORLD, sizeof(Affine), cb);

  std::array<std::int64_t, 2> mine{checked, wrong}, all{};
  HPF_MPI_CHECK(MPI_Allreduce(mine.data(), all.data(), 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
  if (rank == 0) {
    std::printf(
        "steady_stream: %lld phases reduced on %d rank(s); TP = %s per time unit, period %s, %zu trees\n",
        static_cast<long long>(K), size, to_string(plan.throughput).c_str(), plan.period.str().c_str(),
        plan.trees.size());
    std::printf(
        "schedule: %lld periods (%lld initialisation, %lld steady, %lld clean-up), K / makespan = %.4f TP\n",
        static_cast<long long>(plan.periods), static_cast<long long>(plan.init_periods),
        static_cast<long long>(plan.steady_periods), static_cast<long long>(plan.cleanup_periods),
        to_double(Rational(K) / Rational(plan.makespan()) / plan.throughput));
    std::printf("results: %lld delivered, %lld differ from the sequential left-to-right fold (%.3f s)\n",
                static_cast<long long>(all[0]), static_cast<long long>(all[1]), st.seconds);
  }
  return all[0] == K && all[1] == 0 ? 0 : 1;
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
    return run(K);
  } catch (const hpf::Error& e) {
    std::cerr << "steady_stream: " << e.what() << "\n";
    return 1;
  }
}
