// GEN_BLOCK and INDIRECT distributions on real data, against a serial reference:
// random 1-D and 2-D layouts mixing CYCLIC, BLOCK, GEN_BLOCK (zero-size blocks likely), INDIRECT and
// `*`, on grids over subsets of the ranks, through forall, sum / min / max, gather, scatter,
// REDISTRIBUTE to and from every kind, section assignment, and GEN_BLOCK shadows. Every rank draws the
// same cases (one seed), so collectives line up.
#include "random_dist.hpp"
#include "reference.hpp"

#include <hpf/hpf.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using hpf::DistArray;
using hpf::Distribution;
using hpf::Index;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::test::grid_over;
using hpf::test::reference;
using hpf::test::value_at;
using hpf::test::world_rank;
using hpf::test::world_size;

struct Gen {
  std::mt19937_64 rng{2026112513};
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

  Distribution dist(index_t n, int P, bool allow_collapsed) {
    return hpf::test::random_distribution(n, P, rng, allow_collapsed);
  }

  /// A random layout of extents `ext` on a random grid over a subset of the ranks.
  template <int N> Layout<N> layout(const Index<N>& ext) {
    std::array<Distribution, N> dists;
    std::vector<int> shape;
    const int first = uniform(0, world_size() - 1);
    int budget = uniform(1, world_size());
    for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
      // The last dimension may be collapsed; a 1-D array always has a distributed dimension.
      const bool may_collapse = N > 1 && d == static_cast<std::size_t>(N) - 1;
      const int P = d == 0 ? budget : uniform(1, std::max(1, world_size() / std::max(1, shape[0])));
      dists[d] = dist(ext[d], P, may_collapse);
      if (dists[d].is_collapsed()) continue;
      shape.push_back(P);
      budget = 1;
    }
    return Layout<N>(ext, dists, grid_over(first, shape));
  }
};

/// Elements of A (on every rank, reduced) whose value differs from value_at(g, salt).
template <int N> index_t wrong(DistArray<double, N>& A, double salt) {
  index_t bad = 0;
  hpf::forall(A, [&](const Index<N>& g, double& x) { bad += x != value_at<N>(g, salt) ? 1 : 0; });
  index_t total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

template <int N> void check_case(Gen& gen, const Index<N>& ext, int t) {
  const Layout<N> src = gen.template layout<N>(ext);
  const Layout<N> dst = gen.template layout<N>(ext);
  const std::string what = "case " + std::to_string(t) + ": " + src.describe_dists() + " -> " +
                           dst.describe_dists() + " extents " + Layout<N>::to_string(ext);
  const double salt = 0.5 + t;
  const std::vector<double> ref = reference<N>(ext, salt);

  DistArray<double, N> A("A", src);
  hpf::forall(A, [salt](const Index<N>& g, double& x) { x = value_at<N>(g, salt); });
  // Every element has exactly one owner: the local sizes add up to the global size.
  index_t mine = src.grid().contains_me() ? A.local_size() : 0;
  index_t all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  ASSERT_EQ(all, static_cast<index_t>(ref.size())) << what;

  if (!ref.empty()) { // reductions (sum of exact integers + salt: exact in a double)
    const double want = std::accumulate(ref.begin(), ref.end(), 0.0);
    EXPECT_EQ(hpf::sum(A), want) << what;
    EXPECT_EQ(hpf::max(A), *std::max_element(ref.begin(), ref.end())) << what;
    EXPECT_EQ(hpf::min(A), *std::min_element(ref.begin(), ref.end())) << what;
  }
  const int root = t % world_size();
  const std::vector<double> got = A.gather(root);
  if (world_rank() == root) {
    EXPECT_EQ(got, ref) << what << " (gather)";
  }

  // REDISTRIBUTE, both as a new array and in place.
  DistArray<double, N> B("B", dst);
  DistArray<double, N>::redistribute_into(A, B);
  ASSERT_EQ(wrong(B, salt), 0) << what << " (redistribute_into)";
  A.redistribute(dst);
  ASSERT_EQ(wrong(A, salt), 0) << what << " (redistribute)";
  A.redistribute(src); // and back
  ASSERT_EQ(wrong(A, salt), 0) << what << " (redistribute back)";

  // CSHIFT / EOSHIFT along every dimension (halo pieces cut at block_end).
  if (!ref.empty()) {
    for (int dim = 0; dim < N; ++dim) {
      const index_t sh = (t % 5) - 2;
      const index_t nd = ext[static_cast<std::size_t>(dim)];
      DistArray<double, N> R = hpf::cshift(A, sh, dim);
      DistArray<double, N> E = hpf::eoshift(A, sh, dim, -1.0);
      index_t bad = 0;
      hpf::forall(R, [&](const Index<N>& g, double& x) {
        Index<N> h = g;
        h[static_cast<std::size_t>(dim)] = ((g[static_cast<std::size_t>(dim)] + sh) % nd + nd) % nd;
        bad += x != value_at<N>(h, salt) ? 1 : 0;
      });
      hpf::forall(E, [&](const Index<N>& g, double& x) {
        Index<N> h = g;
        h[static_cast<std::size_t>(dim)] = g[static_cast<std::size_t>(dim)] + sh;
        const index_t k = h[static_cast<std::size_t>(dim)];
        bad += x != (k >= 0 && k < nd ? value_at<N>(h, salt) : -1.0) ? 1 : 0;
      });
      index_t total = 0;
      MPI_Allreduce(&bad, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      ASSERT_EQ(total, 0) << what << " (cshift/eoshift by " << sh << " along " << dim << ")";
    }
  }
  if constexpr (N == 2) { // TRANSPOSE into a random layout of the transposed extents
    const Layout<2> lt = gen.template layout<2>(Index<2>{ext[1], ext[0]});
    DistArray<double, 2> T = hpf::transpose(A, lt);
    index_t bad = 0;
    hpf::forall(T, [&](const Index<2>& g, double& x) {
      bad += x != value_at<2>(Index<2>{g[1], g[0]}, salt) ? 1 : 0;
    });
    index_t total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    ASSERT_EQ(total, 0) << what << " (transpose into " << lt.describe_dists() << ")";
  }

  // Scatter of a different array from another root.
  const double salt2 = salt + 0.25;
  DistArray<double, N> C("C", dst);
  const int root2 = (t + 1) % world_size();
  C.scatter(root2, world_rank() == root2 ? reference<N>(ext, salt2) : std::vector<double>{});
  ASSERT_EQ(wrong(C, salt2), 0) << what << " (scatter)";
}

TEST(IrregularArray, OneDimensional) {
  Gen gen;
  for (int t = 0; t < 30; ++t) {
    const index_t n = gen.uniform(0, 3) == 0 ? gen.uniform(0, 3) : gen.uniform(4, 60);
    check_case<1>(gen, Index<1>{n}, t);
    if (HasFatalFailure()) return;
  }
}

TEST(IrregularArray, TwoDimensional) {
  Gen gen;
  gen.rng.seed(99);
  for (int t = 0; t < 20; ++t) {
    const Index<2> ext{gen.uniform(0, 13), gen.uniform(1, 9)};
    check_case<2>(gen, ext, t);
    if (HasFatalFailure()) return;
  }
}

TEST(IrregularArray, GenBlockToGenBlockUsesTheIntervalSchedule) {
  const int P = world_size();
  std::vector<index_t> a(static_cast<std::size_t>(P));
  std::vector<index_t> b(static_cast<std::size_t>(P));
  index_t n = 0;
  for (int p = 0; p < P; ++p) {
    a[static_cast<std::size_t>(p)] = 3 + 5 * p;
    n += a[static_cast<std::size_t>(p)];
  }
  for (int p = 0; p < P; ++p) b[static_cast<std::size_t>(P - 1 - p)] = a[static_cast<std::size_t>(p)];
  const auto grid = ProcessGrid::world({P});
  const Layout<1> la({n}, {hpf::GenBlock(a)}, grid);
  const Layout<1> lb({n}, {hpf::GenBlock(b)}, grid);
  hpf::RedistOptions o;
  o.alpha = 1e-6;
  o.beta = 1e-9;
  const hpf::RedistributionPlan<1> plan(la, lb, o);
  EXPECT_EQ(plan.dim_schedule(0).num_steps(), plan.dim_grid(0).max_degree());
  // The plan runs the interval-graph schedule of schedule/gen_block.hpp, or on a small grid König's
  // stepwise one when its TC is lower.
  std::vector<index_t> oa{0};
  std::vector<index_t> ob{0};
  for (int p = 0; p < P; ++p) {
    oa.push_back(oa.back() + a[static_cast<std::size_t>(p)]);
    ob.push_back(ob.back() + b[static_cast<std::size_t>(p)]);
  }
  const hpf::Schedule interval = hpf::gen_block_schedule(oa, ob);
  index_t want = interval.total_cost();
  if (hpf::gen_block_prefers_matchings(plan.dim_grid(0)))
    want = std::min(want, hpf::koenig_stepwise_schedule(plan.dim_grid(0)).total_cost());
  EXPECT_EQ(plan.dim_schedule(0).total_cost(), want);
  EXPECT_EQ(plan.dim_schedule(0).num_steps(), interval.num_steps());
  EXPECT_EQ(hpf::check_schedule(plan.dim_schedule(0), plan.dim_grid(0)), "");
  DistArray<double, 1> A("A", la);
  hpf::forall(A, [](const Index<1>& g, double& x) { x = value_at<1>(g, 7); });
  A.redistribute(lb, o);
  EXPECT_EQ(wrong(A, 7), 0);
}

TEST(IrregularArray, GenBlockShadows) {
  // GEN_BLOCK with zero-size blocks and shadows wider than a neighbour's block: each owned element's
  // shadow neighbours come from whoever owns them.
  const int P = world_size();
  std::vector<index_t> sizes(static_cast<std::size_t>(P));
  index_t n = 0;
  for (int p = 0; p < P; ++p) n += sizes[static_cast<std::size_t>(p)] = (p % 3 == 1) ? 0 : 1 + 2 * (p % 4);
  const Layout<1> L = Layout<1>({n}, {hpf::GenBlock(sizes)}, ProcessGrid::world({P})).with_shadow({2});
  DistArray<double, 1> A("A", L);
  hpf::forall(A, [](const Index<1>& g, double& x) { x = value_at<1>(g, 3); });
  A.update_shadow();
  index_t bad = 0;
  hpf::forall(A, [&](const Index<1>& g, double&) {
    for (index_t s = -2; s <= 2; ++s) {
      const index_t k = g[0] + s;
      if (k >= 0 && k < n && A.shadow({k}) != value_at<1>({k}, 3)) ++bad;
    }
  });
  EXPECT_EQ(bad, 0);
}

TEST(IrregularArray, SectionsWithIrregularDimensions) {
  Gen gen;
  gen.rng.seed(5);
  for (int t = 0; t < 20; ++t) {
    const Index<1> ext{static_cast<index_t>(gen.uniform(1, 40))};
    const Layout<1> la = gen.layout<1>(ext);
    const Layout<1> lb = gen.layout<1>(ext);
    const index_t n = ext[0];
    // Random triplets of equal extent, positive or negative strides.
    const index_t s1 = gen.uniform(1, 3) * (gen.uniform(0, 1) ? 1 : -1);
    const index_t s2 = gen.uniform(1, 3) * (gen.uniform(0, 1) ? 1 : -1);
    const index_t cnt = std::max<index_t>(
        1, std::min((n - 1) / std::abs(s1) + 1, (n - 1) / std::abs(s2) + 1) - gen.uniform(0, 1));
    const index_t lo1 = s1 > 0 ? 0 : n - 1;
    const index_t lo2 = s2 > 0 ? 0 : n - 1;
    const hpf::Section<1> sa{{hpf::Triplet{lo1, lo1 + (cnt - 1) * s1, s1}}};
    const hpf::Section<1> sb{{hpf::Triplet{lo2, lo2 + (cnt - 1) * s2, s2}}};
    DistArray<double, 1> A("A", la);
    DistArray<double, 1> B("B", lb);
    hpf::forall(A, [](const Index<1>& g, double& x) { x = value_at<1>(g, 1); });
    hpf::forall(B, [](const Index<1>& g, double& x) { x = -1 - static_cast<double>(g[0]); });
    hpf::assign(B, sb, A, sa);
    std::vector<double> want(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = -1 - static_cast<double>(i);
    for (index_t j = 0; j < cnt; ++j)
      want[static_cast<std::size_t>(lo2 + j * s2)] = value_at<1>({lo1 + j * s1}, 1);
    const std::vector<double> got = B.gather(0);
    if (world_rank() == 0) {
      ASSERT_EQ(got, want) << "case " << t << ": " << lb.describe_dists() << sb[0].to_string() << " = "
                           << la.describe_dists() << sa[0].to_string();
    }
  }
}

TEST(IrregularArray, BadLayoutsThrowOnEveryRank) {
  const int P = world_size();
  const auto grid = ProcessGrid::world({P});
  std::vector<index_t> sizes(static_cast<std::size_t>(P), 2);
  HPF_EXPECT_ERROR(Layout<1>({2 * P + 1}, {hpf::GenBlock(sizes)}, grid), "GenBlock(sizes)", "sum to",
                   std::to_string(2 * P + 1));
  std::vector<int> owners(5, 0);
  owners[3] = P;
  HPF_EXPECT_ERROR(Layout<1>({5}, {hpf::Indirect(owners)}, grid), "owners[3] = " + std::to_string(P),
                   "[0, " + std::to_string(P) + ")");
  HPF_EXPECT_ERROR(Layout<1>({5}, {hpf::Indirect(std::vector<int>(5, 0))}, grid).with_shadow({1}), "INDIRECT",
                   "width[0] = 1");
}

} // namespace
