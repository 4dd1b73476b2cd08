// SHADOW regions and CSHIFT / EOSHIFT on 1..7 ranks: random layouts (BLOCK, CYCLIC(r), collapsed, any
// grid that factors the ranks, extents not multiples of anything, zero extents), random widths
// (BLOCK widths past a neighbour's block included), both boundaries; every slot of the local view is
// compared with the element it must hold. Shifts are compared with a serial CSHIFT / EOSHIFT of the
// gathered array.
#include "hpf_test.hpp"

#include <numeric>
#include <random>

namespace {

using hpf::Boundary;
using hpf::DistArray;
using hpf::Index;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::test::world_rank;
using hpf::test::world_size;

template <int N> double value_of(const Index<N>& g) {
  double v = 0;
  for (int d = N; d-- > 0;) v = v * 100.0 + static_cast<double>(g[static_cast<std::size_t>(d)]);
  return v + 0.5;
}

constexpr double untouched = -7.0;

/// Every slot of A's view within the padded range of an owned block: the element it must hold after
/// an update with `periodic`, or `untouched` outside the array without it; also read through shadow().
template <int N> void check_shadow(const DistArray<double, N>& A, bool periodic, double outside = untouched) {
  const Layout<N>& L = A.layout();
  if (A.local_size() == 0) return;
  std::array<std::vector<std::pair<index_t, index_t>>, N> pos; // per dim: (unwrapped x, slot)
  for (int d = 0; d < N; ++d) {
    const hpf::CyclicMap m = L.map(d);
    const index_t w = L.shadow(d);
    const int p = A.my_dim_coords()[static_cast<std::size_t>(d)];
    const index_t e = m.local_extent(p);
    for (index_t l0 = 0, b = 0; l0 < e; l0 += m.r, ++b) {
      const index_t G = m.global(p, l0);
      const index_t len = std::min(m.r, e - l0);
      for (index_t x = G - w; x < G + len + w; ++x)
        pos[static_cast<std::size_t>(d)].push_back({x, b * (m.r + 2 * w) + w + (x - G)});
    }
  }
  const auto& v = A.local_view();
  std::array<std::size_t, N> k{};
  int bad = 0;
  while (true) {
    Index<N> x{}, g{};
    std::size_t off = 0;
    bool inside = true;
    for (int d = N; d-- > 0;) {
      const auto du = static_cast<std::size_t>(d);
      x[du] = pos[du][k[du]].first;
      const index_t n = L.extent(d);
      g[du] = ((x[du] % n) + n) % n;
      inside = inside && x[du] >= 0 && x[du] < n;
      off = off * v.extent(du) + static_cast<std::size_t>(pos[du][k[du]].second);
    }
    const double want = inside || periodic ? value_of<N>(g) : outside;
    const double got = v.data()[off];
    if (got != want && bad++ < 5)
      ADD_FAILURE() << "slot of " << Layout<N>::to_string(x) << " holds " << got << ", expected " << want
                    << " (layout " << L.describe_dists() << " extents " << Layout<N>::to_string(L.extents())
                    << " shadow " << Layout<N>::to_string(L.shadow()) << " periodic " << periodic << ", rank "
                    << world_rank() << ")";
    if (inside || periodic) {
      EXPECT_EQ(A.shadow(x), want);
    }
    int d = 0;
    for (; d < N; ++d) {
      const auto du = static_cast<std::size_t>(d);
      if (++k[du] < pos[du].size()) break;
      k[du] = 0;
    }
    if (d == N) break;
  }
}

/// A random layout of rank N over all ranks: distributed dimensions get a factorisation of the size.
template <int N> Layout<N> random_layout(std::mt19937& rng, bool with_shadow) {
  const int P = world_size();
  std::array<hpf::Distribution, N> dists{};
  Index<N> ext{}, w{};
  std::vector<int> dist_dims;
  for (int d = 0; d < N; ++d) {
    const auto du = static_cast<std::size_t>(d);
    ext[du] = static_cast<index_t>(rng() % 14);
    const int kind = static_cast<int>(rng() % 3);
    const index_t r = 1 + static_cast<index_t>(rng() % 4);
    if (kind == 0 || (d == 0 && P > 1 && N == 1)) {
      dists[du] = kind == 0 ? hpf::Block() : hpf::Cyclic(r);
      w[du] = static_cast<index_t>(rng() % 5);
      if (kind != 0) w[du] = std::min(w[du], r);
      dist_dims.push_back(d);
    } else if (kind == 1) {
      dists[du] = hpf::Cyclic(r);
      w[du] = static_cast<index_t>(rng() % (r + 1));
      dist_dims.push_back(d);
    } else {
      dists[du] = hpf::Collapsed();
      w[du] = static_cast<index_t>(rng() % 3);
    }
  }
  if (dist_dims.empty()) { // at least one distributed dimension
    dists[0] = hpf::Block();
    dist_dims.push_back(0);
  }
  // Deal the prime factors of P to the distributed dimensions at random.
  std::vector<int> shape(dist_dims.size(), 1);
  int rest = P;
  for (int f = 2; rest > 1; ++f)
    while (rest % f == 0) {
      shape[rng() % shape.size()] *= f;
      rest /= f;
    }
  const Layout<N> L(ext, dists, ProcessGrid(MPI_COMM_WORLD, shape));
  return with_shadow ? L.with_shadow(w) : L;
}

template <int N> void random_shadow_cases(unsigned seed, int cases) {
  std::mt19937 rng(seed);
  for (int t = 0; t < cases; ++t) {
    const Layout<N> L = random_layout<N>(rng, true);
    DistArray<double, N> A("A", L);
    A.fill(untouched);
    hpf::forall(A, [](const Index<N>& g, double& x) { x = value_of<N>(g); });
    A.update_shadow();
    check_shadow(A, false);
    A.update_shadow(Boundary::Periodic);
    check_shadow(A, true);
    // The owned elements are what every other operation sees.
    const auto all = A.gather(0);
    if (world_rank() == 0) { // EXPECT, not ASSERT: returning early on one rank would hang the others
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < all.size(); ++i) {
        Index<N> g{};
        index_t off = static_cast<index_t>(i);
        for (int d = 0; d < N; ++d) {
          g[static_cast<std::size_t>(d)] = off % L.extent(d);
          off /= L.extent(d);
        }
        wrong += all[i] != value_of<N>(g) ? 1 : 0;
      }
      EXPECT_EQ(wrong, 0u) << "gathered elements differ from the owned values";
    }
    double ref = 0;
    for (double x : all) ref += x;
    MPI_Bcast(&ref, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    EXPECT_DOUBLE_EQ(hpf::sum(A), ref);
  }
}

TEST(Shadow, RandomLayouts1D) { random_shadow_cases<1>(1, 60); }
TEST(Shadow, RandomLayouts2D) { random_shadow_cases<2>(2, 40); }
TEST(Shadow, RandomLayouts3D) { random_shadow_cases<3>(3, 15); }

TEST(Shadow, SplitPhaseSwapAndWidthZero) {
  const ProcessGrid g = ProcessGrid::world({world_size()});
  const Layout<2> L = Layout<2>({11, 6}, {hpf::Block(), hpf::Collapsed()}, g).with_shadow({2, 1});
  DistArray<double, 2> U("U", L), V("V", L);
  U.fill(untouched);
  V.fill(untouched);
  hpf::forall(U, [](const Index<2>& i, double& x) { x = value_of<2>(i); });
  hpf::forall(V, [](const Index<2>& i, double& x) { x = -value_of<2>(i); });
  U.post_shadow(Boundary::Periodic);
  V.post_shadow(Boundary::Periodic);
  const double interior = hpf::sum(U); // collective work between post and wait
  U.wait_shadow();
  V.wait_shadow();
  check_shadow(U, true);
  std::swap(U, V);
  EXPECT_EQ(U.label(), "V");
  U.fill(untouched); // V's periodic update filled the slots outside the array; Plain leaves them
  hpf::forall(U, [](const Index<2>& i, double& x) { x = value_of<2>(i); });
  U.update_shadow();
  check_shadow(U, false);
  EXPECT_DOUBLE_EQ(interior, hpf::sum(U));
  // Width 0: the layout equals the one without shadow; updates move nothing and are legal.
  const Layout<2> L0 = Layout<2>({11, 6}, {hpf::Block(), hpf::Collapsed()}, g).with_shadow({0, 0});
  EXPECT_TRUE(L0 == Layout<2>({11, 6}, {hpf::Block(), hpf::Collapsed()}, g));
  DistArray<double, 2> Z("Z", L0);
  hpf::forall(Z, [](const Index<2>& i, double& x) { x = value_of<2>(i); });
  Z.update_shadow(Boundary::Periodic);
  check_shadow(Z, true);
  // redistribute and the free redistribute keep working and leave the shadow stale.
  DistArray<double, 2> R = hpf::redistribute(U, Layout<2>({11, 6}, {hpf::Cyclic(2), hpf::Collapsed()}, g));
  U.redistribute(Layout<2>({11, 6}, {hpf::Cyclic(3), hpf::Collapsed()}, g).with_shadow({1, 0}));
  EXPECT_DOUBLE_EQ(hpf::sum(R), hpf::sum(U));
  U.update_shadow();
  check_shadow(U, false, 0.0); // the new storage starts at zero; Plain leaves the outside alone
}

TEST(Shadow, BadInput) {
  const int P = world_size();
  const ProcessGrid g = ProcessGrid::world({P});
  const Layout<1> L({10}, {hpf::Cyclic(2)}, g);
  HPF_EXPECT_ERROR((void)L.with_shadow({-1}), "with_shadow: width[0] must be >= 0, got -1", "(rank");
  HPF_EXPECT_ERROR((void)L.with_shadow({3}), "width[0] = 3 is larger than the block size of CYCLIC(2)",
                   "(rank");
  DistArray<double, 1> A("A", L.with_shadow({1}));
  const index_t mine = A.local_size() > 0 ? A.global_index(0, 0) : -1;
  if (mine >= 0 && P > 1) {
    HPF_EXPECT_ERROR((void)A.shadow({mine == 0 ? 2 : mine - 1}), "DistArray 'A'::shadow", "never updated",
                     "expected update_shadow()", "(rank " + std::to_string(world_rank()) + ")");
  }
  A.update_shadow();
  if (mine >= 0 && P > 2) { // an element two blocks away is outside a width-1 shadow
    const index_t far = (mine + 2 * 2 + 2) % 10;
    if (!A.owns({far}))
      HPF_EXPECT_ERROR((void)A.shadow({far}), "is neither owned here nor within the shadow of width 1",
                       "(rank " + std::to_string(world_rank()) + ")");
  }
  if (mine == 0) {
    HPF_EXPECT_ERROR((void)A.shadow({-1}), "inside the extents"); // Plain: no wrap
  }
  HPF_EXPECT_ERROR((void)hpf::cshift(A, 1, 1), "cshift(DistArray 'A'): dim must be in [0, 1), got 1",
                   "(rank");
  HPF_EXPECT_ERROR((void)hpf::eoshift(A, 1, -1), "dim must be in [0, 1), got -1");
  DistArray<double, 1> B("B", L);
  HPF_EXPECT_ERROR(hpf::cshift(A, 1, 0, B), "the target 'B' has layout", "expected the source's layout");
  HPF_EXPECT_ERROR(hpf::cshift(A, 1, 0, A), "the target must be another array");
  // A refused EOSHIFT writes nothing: neither a target of another layout nor the source itself.
  B.fill(7.0);
  A.fill(3.0);
  HPF_EXPECT_ERROR(hpf::eoshift(A, 1, 0, -1.0, B), "the target 'B' has layout");
  HPF_EXPECT_ERROR(hpf::eoshift(A, 1, 0, -1.0, A), "the target must be another array");
  for (index_t l = 0; l < B.local_size(); ++l) EXPECT_EQ(B.local_data()[l], 7.0);
  for (index_t l = 0; l < L.extent(0); ++l) {
    if (A.owns({l})) {
      EXPECT_EQ(A[{l}], 3.0);
    }
  }
  HPF_EXPECT_ERROR(A.wait_shadow(), "no update in flight");
  // Irregular gathers address the owned block contiguously: arrays with shadows are refused.
  const std::vector<index_t> idx{0, 9};
  const hpf::GatherPlan<double, 1> gp(A, idx);
  HPF_EXPECT_ERROR((void)gp.execute(A), "GatherPlan::execute: DistArray 'A' has SHADOW widths (1)",
                   "expected an array without shadow");
}

/// Serial CSHIFT / EOSHIFT of a whole array in Fortran order.
template <int N> std::vector<double> serial_shift(const std::vector<double>& a, const Index<N>& ext, int dim,
                                                  index_t s, bool circular, double boundary) {
  std::vector<double> r(a.size());
  Index<N> stride{};
  index_t acc = 1;
  for (int d = 0; d < N; ++d) {
    stride[static_cast<std::size_t>(d)] = acc;
    acc *= ext[static_cast<std::size_t>(d)];
  }
  const auto dd = static_cast<std::size_t>(dim);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const index_t gi = (static_cast<index_t>(i) / stride[dd]) % ext[dd];
    index_t src = gi + s;
    if (circular) {
      src = ((src % ext[dd]) + ext[dd]) % ext[dd];
    } else if (src < 0 || src >= ext[dd]) {
      r[i] = boundary;
      continue;
    }
    r[i] = a[static_cast<std::size_t>(static_cast<index_t>(i) + (src - gi) * stride[dd])];
  }
  return r;
}

template <int N> void random_shift_cases(unsigned seed, int cases) {
  std::mt19937 rng(seed);
  for (int t = 0; t < cases; ++t) {
    const Layout<N> L = random_layout<N>(rng, rng() % 2);
    const int dim = static_cast<int>(rng() % N);
    const index_t n = L.extent(dim);
    const index_t s = static_cast<index_t>(rng() % 31) - 15 + (rng() % 4 == 0 ? 3 * n : 0);
    DistArray<double, N> A("A", L);
    hpf::forall(A, [](const Index<N>& g, double& x) { x = value_of<N>(g); });
    const auto a = A.gather(0);
    const auto rc = hpf::cshift(A, s, dim).gather(0);
    const auto re = hpf::eoshift(A, s, dim, -1.5).gather(0);
    DistArray<double, N> T("T", L);
    hpf::eoshift(A, s, dim, 2.5, T); // in place into a reused target
    hpf::cshift(A, s, dim, T);
    const auto rt = T.gather(0);
    if (world_rank() == 0) {
      const std::string what = "layout " + L.describe_dists() + " extents " +
                               Layout<N>::to_string(L.extents()) + " dim " + std::to_string(dim) + " shift " +
                               std::to_string(s);
      EXPECT_EQ(rc, serial_shift<N>(a, L.extents(), dim, s, true, 0)) << "cshift " << what;
      EXPECT_EQ(re, serial_shift<N>(a, L.extents(), dim, s, false, -1.5)) << "eoshift " << what;
      EXPECT_EQ(rt, rc) << "cshift into a target " << what;
    }
  }
}

TEST(Shadow, GridOnASubsetOfRanks) {
  // The odd ranks in reverse order (rank 0 alone on one rank): ranks outside the grid join the
  // collective update and the shifts, and hold nothing.
  const int n = world_size();
  std::vector<int> ranks;
  for (int r = n - 1; r >= 0; --r)
    if (r % 2 == 1 || n == 1) ranks.push_back(r);
  const ProcessGrid g(MPI_COMM_WORLD, ranks, {static_cast<int>(ranks.size())});
  const Layout<2> L = Layout<2>({5, 9}, {hpf::Collapsed(), hpf::Block()}, g).with_shadow({1, 3});
  DistArray<double, 2> A("A", L);
  A.fill(untouched);
  hpf::forall(A, [](const Index<2>& i, double& x) { x = value_of<2>(i); });
  A.update_shadow(Boundary::Periodic);
  check_shadow(A, true);
  if (!g.contains_me()) {
    EXPECT_EQ(A.local_view().size(), 0u);
  }
  const auto R = hpf::cshift(A, 4, 1).gather(0);
  const auto a = A.gather(0);
  if (world_rank() == 0) {
    EXPECT_EQ(R, serial_shift<2>(a, L.extents(), 1, 4, true, 0));
  }
}

TEST(Shift, RandomLayoutsAndShifts1D) { random_shift_cases<1>(21, 60); }
TEST(Shift, RandomLayoutsAndShifts2D) { random_shift_cases<2>(22, 40); }
TEST(Shift, RandomLayoutsAndShifts3D) { random_shift_cases<3>(23, 20); }

} // namespace
