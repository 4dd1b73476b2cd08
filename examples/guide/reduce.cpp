// Guide example for docs/reduce.md: a reduction tree planned from a cost model and run over MPI,
// with a non-commutative operator.  mpirun -n 3 ./guide_reduce
#include <hpf/hpf.hpp>

#include <cstdio>
#include <vector>

namespace {
/// A 2x2 integer matrix: multiplication is associative but not commutative.
struct Mat {
  long long a, b, c, d;
};
Mat mul(const Mat& x, const Mat& y) {
  return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
}
} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const int size = hpf::comm_size(MPI_COMM_WORLD);
    const int me = hpf::comm_rank(MPI_COMM_WORLD);

    // Plan (collective: duplicates the communicator; the tree is the same on every rank). Costs:
    // d = time of one transfer, c = time of one combination, in any common unit.
    hpf::TreeOptions opts; // greedy (optimal) tree, result on rank 0
    const hpf::TreeReducer reducer(MPI_COMM_WORLD, hpf::ReduceCosts{2.0, 1.0}, opts);

    // 1. One value per rank, folded in rank order: M_0 * M_1 * ... * M_{size-1}.
    const Mat mine{1, me + 1LL, 0, 1};
    const std::optional<Mat> product = reducer.reduce(mine, mul);
    // The product of [[1, k], [0, 1]] is [[1, sum k], [0, 1]].
    bool ok = me != 0 || (product && product->b == (long long)size * (size + 1) / 2);

    // 2. Element-wise over buffers (as MPI_Reduce, but in rank order for any associative op).
    std::vector<std::size_t> in(4, static_cast<std::size_t>(me));
    std::vector<std::size_t> out(me == 0 ? 4 : 0);
    reducer.reduce(std::span<const std::size_t>(in), std::span<std::size_t>(out),
                   [](std::size_t x, std::size_t y) { return x + y; });
    ok = ok && (me != 0 || out[3] == static_cast<std::size_t>(size * (size - 1) / 2));

    // 3. The local elements of a DistArray, reduced along the same tree.
    hpf::DistArray<double, 1> A("A", hpf::Layout<1>({50}, {hpf::Block()}, hpf::ProcessGrid::world({size})));
    hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
    const std::optional<double> s = hpf::tree_reduce(reducer, A, [](double x, double y) { return x + y; });
    ok = ok && (me != 0 || (s && *s == 1225));

    if (me == 0)
      std::printf("guide reduce: tree of %d machines, length %g: %s\n", reducer.tree().size(),
                  reducer.tree().length, ok ? "OK" : "WRONG");
    return ok ? 0 : 1;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "guide_reduce: %s\n", e.what());
    return 1;
  }
}
