// DistArray on 1..7 ranks: fill, forall, gather, scatter, reductions, ownership and errors, on grids
// over all ranks and over subsets (ranks outside the grid still join the collectives).
#include "hpf_test.hpp"

#include <numeric>
#include <random>

namespace {

using hpf::DistArray;
using hpf::Index;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::test::world_rank;
using hpf::test::world_size;

/// Value of element g in the reference arrays: unique per element.
template <int N> double value_of(const Index<N>& g) {
  double v = 0;
  for (int d = N; d-- > 0;) v = v * 1000.0 + static_cast<double>(g[static_cast<std::size_t>(d)]);
  return v + 0.5;
}

template <int N> Index<N> unflatten(index_t off, const Index<N>& ext) {
  Index<N> g{};
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
    g[d] = off % ext[d];
    off /= ext[d];
  }
  return g;
}

/// forall writes value_of(g); gather must give the reference on root; scatter of a reference must
/// reproduce it locally; reductions must match the serial ones.
template <int N> void round_trip(const Layout<N>& L, int root) {
  DistArray<double, N> A("A", L);
  hpf::forall(A, [](const Index<N>& g, double& x) { x = value_of<N>(g); });
  const std::vector<double> all = A.gather(root);
  const auto n = static_cast<std::size_t>(L.global_size());
  std::vector<double> ref(n);
  for (std::size_t i = 0; i < n; ++i)
    ref[i] = value_of<N>(unflatten<N>(static_cast<index_t>(i), L.extents()));
  if (world_rank() == root) {
    EXPECT_EQ(all, ref) << "layout " << L.describe_dists() << " extents "
                        << Layout<N>::to_string(L.extents());
  } else {
    EXPECT_TRUE(all.empty());
  }
  const double s = hpf::sum(A);
  EXPECT_DOUBLE_EQ(s, std::accumulate(ref.begin(), ref.end(), 0.0));
  if (n > 0) {
    EXPECT_EQ(hpf::min(A), *std::min_element(ref.begin(), ref.end()));
    EXPECT_EQ(hpf::max(A), *std::max_element(ref.begin(), ref.end()));
  }

  DistArray<double, N> B("B", L);
  B.fill(-1.0);
  std::vector<double> input = world_rank() == root ? ref : std::vector<double>{};
  B.scatter(root, input);
  index_t owned = 0;
  hpf::forall(B, [](const Index<N>& g, double& x) {
    if (x != value_of<N>(g)) x = -2.0; // marks a wrong element
  });
  const auto& v = B.local_view();
  for (std::size_t i = 0; i < v.size(); ++i, ++owned) EXPECT_NE(v.data()[i], -2.0);
  EXPECT_EQ(owned, B.local_size());
  // Ownership queries agree with the layout, and indexed access works for owned elements.
  for (std::size_t i = 0; i < n; i += 1 + n / 50) {
    const Index<N> g = unflatten<N>(static_cast<index_t>(i), L.extents());
    const bool mine = L.grid().contains_me() && L.owner(g) == L.grid().my_position();
    EXPECT_EQ(B.owns(g), mine);
    if (mine) {
      EXPECT_EQ(B[g], ref[i]);
    }
  }
}

TEST(DistArray, OneDimensionalOnWorld) {
  const auto g = ProcessGrid::world({world_size()});
  std::mt19937 rng(1);
  for (index_t n : {0, 1, 5, 17, 100, 1001}) {
    round_trip(Layout<1>({n}, {hpf::Block()}, g), 0);
    round_trip(Layout<1>({n}, {hpf::Cyclic(1 + static_cast<index_t>(rng() % 7))}, g), world_size() - 1);
    round_trip(Layout<1>({n}, {hpf::Collapsed()}, ProcessGrid(MPI_COMM_WORLD, {world_size() - 1}, {1})), 0);
  }
}

TEST(DistArray, TwoAndThreeDimensional) {
  const int n = world_size();
  std::mt19937 rng(2);
  for (int a = 1; a <= n; ++a) {
    if (n % a) continue;
    const ProcessGrid g(MPI_COMM_WORLD, {a, n / a});
    round_trip(Layout<2>({13, 9}, {hpf::Cyclic(2), hpf::Block()}, g), 0);
    round_trip(Layout<2>({1, 20}, {hpf::Cyclic(3), hpf::Cyclic(1)}, g), n / 2);
    round_trip(Layout<3>({7, 3, 10}, {hpf::Cyclic(2), hpf::Collapsed(), hpf::Cyclic(3)}, g), 0);
    round_trip(Layout<3>({0, 3, 10}, {hpf::Cyclic(2), hpf::Collapsed(), hpf::Cyclic(3)}, g), 0);
    round_trip(Layout<4>({3, 4, 5, 2}, {hpf::Collapsed(), hpf::Cyclic(1), hpf::Collapsed(), hpf::Block()}, g),
               0);
  }
  const auto line = ProcessGrid::world({n});
  round_trip(Layout<3>({5, 6, 7}, {hpf::Collapsed(), hpf::Cyclic(2), hpf::Collapsed()}, line), 0);
  (void)rng;
}

TEST(DistArray, GridOnASubsetOfRanks) {
  const int n = world_size();
  // The odd ranks in reverse order; on one rank the grid is rank 0 alone.
  std::vector<int> ranks;
  for (int r = n - 1; r >= 0; --r)
    if (r % 2 == 1 || n == 1) ranks.push_back(r);
  const ProcessGrid g(MPI_COMM_WORLD, ranks, {static_cast<int>(ranks.size())});
  round_trip(Layout<1>({37}, {hpf::Cyclic(3)}, g), 0); // root outside the grid when n > 1
  round_trip(Layout<2>({6, 11}, {hpf::Collapsed(), hpf::Cyclic(2)}, g), n - 1);
  DistArray<int, 1> A("outside", Layout<1>({10}, {hpf::Block()}, g));
  if (!g.contains_me()) {
    EXPECT_EQ(A.local_size(), 0);
  }
  A.fill(3);
  EXPECT_EQ(hpf::sum(A), 30); // ranks outside the grid take part and get the result
}

TEST(DistArray, IndexedAccessAndErrors) {
  const int n = world_size();
  const auto g = ProcessGrid::world({n});
  DistArray<double, 1> A("A", Layout<1>({10}, {hpf::Cyclic(2)}, g));
  for (index_t i = 0; i < 10; ++i) {
    if (A.owns({i})) {
      A.set({i}, double(i));
      EXPECT_EQ(A.get({i}), double(i));
    } else {
      HPF_EXPECT_ERROR((void)A.get({i}), "DistArray 'A'", "element (" + std::to_string(i) + ")",
                       "is owned by grid position", "not by this rank",
                       "(rank " + std::to_string(world_rank()) + ")");
    }
  }
  HPF_EXPECT_ERROR((void)A.get({10}), "global index (10) is outside the extents (10)");
  HPF_EXPECT_ERROR((void)A.gather(n), "gather: root must be a rank of the parent communicator in [0, " +
                                          std::to_string(n) + "), got " + std::to_string(n));
  HPF_EXPECT_ERROR((void)A.gather(-1), "got -1");
  std::vector<double> wrong(world_rank() == 0 ? 7 : 0);
  HPF_EXPECT_ERROR(A.scatter(0, wrong), "data on root 0 holds 7 elements; expected the global size 10");
  HPF_EXPECT_ERROR(A.scatter(n + 2, wrong), "scatter: root must be");
  DistArray<double, 1> E("E", Layout<1>({0}, {hpf::Block()}, g));
  HPF_EXPECT_ERROR((void)hpf::min(E), "hpf::min", "the array is empty");
  HPF_EXPECT_ERROR((void)hpf::max(E), "hpf::max", "the array is empty");
  EXPECT_EQ(hpf::sum(E), 0.0);
}

TEST(DistArray, Issue10MetadataDoesNotGrowWithTheExtent) {
  // No per-element metadata. A 1-D array of 10 and one of 10^6 elements (and a 3-D one)
  // keep the same number of bytes besides their elements, and forall still sees the global indices.
  const auto g = ProcessGrid::world({world_size()});
  DistArray<char, 1> small("m", Layout<1>({10}, {hpf::Cyclic(3)}, g));
  DistArray<char, 1> big("m", Layout<1>({1000000}, {hpf::Cyclic(3)}, g));
  EXPECT_EQ(small.metadata_bytes(), big.metadata_bytes());
  DistArray<char, 3> s3("m", Layout<3>({2, 3, 4}, {hpf::Collapsed(), hpf::Collapsed(), hpf::Block()}, g));
  DistArray<char, 3> b3("m",
                        Layout<3>({200, 300, 40}, {hpf::Collapsed(), hpf::Collapsed(), hpf::Block()}, g));
  EXPECT_EQ(s3.metadata_bytes(), b3.metadata_bytes());
  EXPECT_LT(big.metadata_bytes(), std::size_t(1024));
  DistArray<index_t, 1> G("G", Layout<1>({1000003}, {hpf::Cyclic(5)}, g));
  hpf::forall(G, [](const Index<1>& i, index_t& x) { x = i[0]; });
  const auto v = G.local_view();
  for (std::size_t l = 0; l < v.extent(0); l += 997) {
    EXPECT_EQ(v(l), G.global_index(0, static_cast<index_t>(l)));
    EXPECT_EQ(v(l), G.layout().map(0).global(G.my_dim_coords()[0], static_cast<index_t>(l)));
  }
  EXPECT_EQ(hpf::sum(G), index_t(1000003) * 1000002 / 2);
}

TEST(Environment, NestedEnvironmentLeavesRunningMpiAndKokkosAlone) {
  // The test main already holds an Environment: a second one (a library initialising "just in
  // case") must neither re-initialise nor finalise MPI or Kokkos.
  {
    hpf::Environment inner;
    EXPECT_FALSE(inner.initialized_mpi());
    EXPECT_FALSE(inner.initialized_kokkos());
  }
  int initialized = 0;
  int finalized = 1;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  EXPECT_EQ(initialized, 1);
  EXPECT_EQ(finalized, 0);
  EXPECT_TRUE(Kokkos::is_initialized());
  const auto g = ProcessGrid::world({world_size()});
  DistArray<double, 1> A("after", Layout<1>({17}, {hpf::Cyclic(2)}, g));
  A.fill(1.0);
  EXPECT_DOUBLE_EQ(hpf::sum(A), 17.0);
}

TEST(Environment, MpiErrorsBecomeExceptions) {
  // A runtime communicator returns errors instead of aborting; HPF_MPI_CHECK turns them into hpf::Error.
  const auto g = ProcessGrid::world({world_size()});
  int x = 0;
  HPF_EXPECT_ERROR(HPF_MPI_CHECK(MPI_Send(&x, 1, MPI_INT, world_size() + 5, 0, g.comm().get())),
                   "MPI call failed", "MPI_Send");
}

} // namespace
