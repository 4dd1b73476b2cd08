// forall over several arrays: a zip over the local blocks against a serial reference, on
// BLOCK and CYCLIC(r), 1-D and 2-D, odd and zero extents, grids of every rank and of one rank, mixed
// element types, shadows, const arrays; and layouts that do not own the same elements, refused.
#include "hpf_test.hpp"
#include "reference.hpp"

#include <cstdint>
#include <utility>

namespace {

using hpf::Block;
using hpf::Cyclic;
using hpf::DistArray;
using hpf::Index;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::test::world_rank;
using hpf::test::world_size;

template <int N> index_t flat(const Index<N>& g, const Index<N>& ext) {
  index_t off = 0;
  for (int d = N; d-- > 0;) off = off * ext[static_cast<std::size_t>(d)] + g[static_cast<std::size_t>(d)];
  return off;
}

/// A triad over three arrays of three element types: a = b + s * c with b(g) = flat(g) and
/// c(g) = 2 flat(g) + 1, compared with the serial loop on rank 0; the kernel also checks that each
/// element it is handed is the one of index g.
template <int N> void triad(const Layout<N>& L, const Layout<N>& LB, const Layout<N>& LC) {
  const Index<N> ext = L.extents();
  DistArray<double, N> A("A", L);
  DistArray<std::int32_t, N> B("B", LB);
  DistArray<float, N> C("C", LC);
  A.fill(-7.0); // shadow slots keep it
  hpf::forall(B,
              [ext](const Index<N>& g, std::int32_t& b) { b = static_cast<std::int32_t>(flat<N>(g, ext)); });
  hpf::forall(C, [ext](const Index<N>& g, float& c) { c = static_cast<float>(2 * flat<N>(g, ext) + 1); });
  const double s = 0.5;
  index_t wrong = 0;
  hpf::forall(A, B, C, [&](const Index<N>& g, double& a, std::int32_t& b, float& c) {
    if (b != flat<N>(g, ext) || c != static_cast<float>(2 * flat<N>(g, ext) + 1)) ++wrong;
    a = b + s * c;
  });
  EXPECT_EQ(wrong, 0);
  // Shadow slots untouched: only owned elements are visited.
  index_t untouched = 0;
  for (std::size_t i = 0; i < A.local_view().size(); ++i) untouched += A.local_data()[i] == -7.0 ? 1 : 0;
  EXPECT_EQ(untouched, static_cast<index_t>(A.local_view().size()) - A.local_size());
  const std::vector<double> all = A.gather(0);
  if (world_rank() == 0) {
    ASSERT_EQ(all.size(), static_cast<std::size_t>(L.global_size()));
    for (std::size_t i = 0; i < all.size(); ++i) {
      const auto v = static_cast<index_t>(i);
      ASSERT_EQ(all[i], static_cast<double>(v) + s * static_cast<double>(static_cast<float>(2 * v + 1)))
          << "element " << Layout<N>::to_string(hpf::test::index_of<N>(v, ext)) << " of "
          << L.describe_dists();
    }
  }
  // A const array hands out const references.
  index_t seen = 0;
  hpf::forall(A, std::as_const(B), [&](const Index<N>&, double& a, const std::int32_t& b) {
    a = b;
    ++seen;
  });
  EXPECT_EQ(seen, A.local_size());
}

TEST(ForallMany, OneDimensional) {
  const auto grid = ProcessGrid::world({world_size()});
  for (index_t n : {index_t(0), index_t(1), index_t(13), index_t(101)})
    for (const hpf::Distribution& d : {Block(), Cyclic(1), Cyclic(3)}) {
      const Layout<1> L({n}, {d}, grid);
      triad<1>(L, L, L);
    }
}

TEST(ForallMany, OnOneRank) {
  const ProcessGrid one(MPI_COMM_WORLD, {0}, {1});
  for (index_t n : {index_t(0), index_t(17)}) {
    const Layout<1> L({n}, {Cyclic(4)}, one);
    triad<1>(L, L, L);
  }
}

TEST(ForallMany, TwoDimensional) {
  const int P = world_size();
  int p0 = 1;
  for (int k = 1; k * k <= P; ++k)
    if (P % k == 0) p0 = k;
  const auto grid = ProcessGrid::world({p0, P / p0});
  for (const Index<2>& ext : {Index<2>{9, 11}, Index<2>{0, 5}, Index<2>{7, 1}}) {
    const Layout<2> L(ext, {Cyclic(2), Block()}, grid);
    triad<2>(L, L, L);
    const Layout<2> M(ext, {Block(), Cyclic(3)}, grid);
    triad<2>(M, M, M);
  }
}

TEST(ForallMany, ShadowWidthsMayDiffer) {
  const auto grid = ProcessGrid::world({world_size()});
  const Layout<1> L({23}, {Block()}, grid);
  triad<1>(L.with_shadow({2}), L, L.with_shadow({1}));
  const Layout<1> K({23}, {Cyclic(3)}, grid);
  triad<1>(K, K.with_shadow({1}), K);
  int p0 = world_size() % 2 == 0 ? 2 : 1;
  const auto g2 = ProcessGrid::world({p0, world_size() / p0});
  const Layout<2> M({8, 9}, {Cyclic(2), Block()}, g2);
  triad<2>(M.with_shadow({1, 2}), M, M.with_shadow({0, 1}));
}

TEST(ForallMany, SameMapCountsAsSameLayout) {
  // BLOCK is CYCLIC(ceil(n / P)): the two own the same elements.
  const int P = world_size();
  const auto grid = ProcessGrid::world({P});
  const index_t n = 19;
  const Layout<1> L({n}, {Block()}, grid);
  const Layout<1> K({n}, {Cyclic((n + P - 1) / P)}, grid);
  triad<1>(L, K, L);
}

TEST(ForallMany, AlignedAndReplicatedLayouts) {
  const int P = world_size();
  const int p0 = P % 2 == 0 ? 2 : 1;
  const auto grid = ProcessGrid::world({p0, P / p0});
  const Layout<2> base({9, 8}, {Cyclic(2), Block()}, grid);
  // ALIGN B(i, j) WITH A(i, j): another Layout object with the same maps.
  const Layout<2> same = Layout<2>::aligned(base, hpf::Alignment<2, 2>::identity(), {9, 8});
  triad<2>(base, same, base.with_shadow({1, 1}));
  // A 1-D array aligned with the base's first dimension: replicated along grid dimension 1.
  hpf::Alignment<1, 2> row;
  row.dims[0] = {0, 1, 0};
  const Layout<1> R = Layout<1>::aligned(base, row, {9});
  triad<1>(R, R, Layout<1>::aligned(base, row, {9}));
}

TEST(ForallMany, MismatchedLayoutsThrowNamingTheArgument) {
  const int P = world_size();
  const auto grid = ProcessGrid::world({P});
  DistArray<double, 1> A("A", Layout<1>({12}, {Block()}, grid));
  DistArray<double, 1> B("B", Layout<1>({12}, {Block()}, grid));
  DistArray<double, 1> C("C", Layout<1>({13}, {Block()}, grid));
  DistArray<double, 1> D("D", Layout<1>({12}, {Cyclic(1)}, grid));
  const auto k3 = [](const Index<1>&, double&, double&, double&) {};
  HPF_EXPECT_ERROR(hpf::forall(A, B, C, k3), "hpf::forall: argument 3 (DistArray 'C'", "extents (13)",
                   "argument 1 (DistArray 'A'", "expected the same layout");
  HPF_EXPECT_ERROR(hpf::forall(A, D, B, k3), "argument 2 (DistArray 'D'", "dimension 0", "CYCLIC(1)");
  // On another grid (one rank only, where there are several).
  if (P > 1) {
    DistArray<double, 1> E("E", Layout<1>({12}, {Block()}, ProcessGrid(MPI_COMM_WORLD, {0}, {1})));
    HPF_EXPECT_ERROR(hpf::forall(A, E, [](const Index<1>&, double&, double&) {}),
                     "argument 2 (DistArray 'E'");
  }
}

} // namespace
