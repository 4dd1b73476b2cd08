// ALIGN and replication on real data, against a serial reference: arrays aligned
// with random 2-D bases (CYCLIC, BLOCK, GEN_BLOCK with zero-size blocks, INDIRECT, `*`; grids over subsets of
// the ranks) by random strides (negative too) and offsets, with the unused base dimension replicated
// or fixed. Owners equal the base's owners element by element and grid position by position;
// forall writes every copy, reductions count each element once, gather reads one copy and scatter
// writes all; REDISTRIBUTE to and from replicated and fixed layouts, REALIGN (hpf::realign), shadows
// and shifts within each copy; bad input throws on every rank. Every rank draws the same cases (one
// seed), so collectives line up.
#include "random_dist.hpp"
#include "reference.hpp"

#include <hpf/hpf.hpp>

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {

using hpf::AlignDim;
using hpf::Alignment;
using hpf::DistArray;
using hpf::Distribution;
using hpf::Index;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::test::grid_over;
using hpf::test::index_of;
using hpf::test::reference;
using hpf::test::value_at;
using hpf::test::world_rank;
using hpf::test::world_size;

template <int N> index_t size_of(const Index<N>& ext) {
  index_t n = 1;
  for (index_t e : ext) n *= e;
  return n;
}

index_t allsum(index_t x) {
  index_t total = 0;
  MPI_Allreduce(&x, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

/// Elements of A, on every copy, whose value differs from value_at(g, salt) (reduced over ranks).
template <int N> index_t wrong(DistArray<double, N>& A, double salt) {
  index_t bad = 0;
  hpf::forall(A, [&](const Index<N>& g, double& x) { bad += x != value_at<N>(g, salt) ? 1 : 0; });
  return allsum(bad);
}

/// Elements stored over all ranks (copies counted).
template <int N> index_t stored(const DistArray<double, N>& A) { return allsum(A.local_size()); }

struct Gen {
  std::mt19937_64 rng{2026112503};
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  index_t uniform_index(index_t lo, index_t hi) {
    return std::uniform_int_distribution<index_t>(lo, hi)(rng);
  }

  Distribution dist(index_t n, int P, bool allow_collapsed) {
    return hpf::test::random_distribution(n, P, rng, allow_collapsed);
  }

  /// A random 2-D base: dimension 1 may be collapsed; grids over a random subset of the ranks.
  Layout<2> base() {
    const Index<2> ext{uniform_index(0, 14), uniform_index(0, 9)};
    const int first = uniform(0, world_size() - 1);
    const int P0 = uniform(1, world_size());
    const int P1 = uniform(1, std::max(1, world_size() / P0));
    const Distribution d0 = dist(ext[0], P0, false);
    const Distribution d1 = dist(ext[1], P1, true);
    if (d1.is_collapsed()) return Layout<2>(ext, {d0, d1}, grid_over(first, {P0}));
    return Layout<2>(ext, {d0, d1}, grid_over(first, {P0, P1}));
  }

  /// A stride, an offset and an extent that keep a*i + b inside [0, nb).
  AlignDim dim(int k, index_t nb, index_t& n) {
    index_t a = uniform(-3, 3);
    if (a == 0 || uniform(0, 3) == 0) a = 1;
    if (nb == 0) {
      n = 0;
      return {k, a, 0};
    }
    const index_t absa = a < 0 ? -a : a;
    const index_t nmax = (nb - 1) / absa + 1;
    n = uniform(0, 4) == 0 ? nmax : uniform_index(0, nmax);
    const index_t span = n > 0 ? absa * (n - 1) : 0;
    const index_t shift = uniform_index(0, nb - 1 - std::min(span, nb - 1));
    return {k, a, a > 0 ? shift : span + shift};
  }

  /// The index the unused base dimension k is fixed at, or replicated.
  index_t unused(index_t nb) {
    return nb == 0 || uniform(0, 1) == 0 ? Alignment<1, 2>::replicated : uniform_index(0, nb - 1);
  }
};

/// Brute force: does the process at grid position pos hold element g of an array aligned by `al`
/// with `base`? For every distributed base dimension, the coordinate of pos along its grid dimension
/// must own the image of g (named dimensions), the fixed index (fixed ones) or anything (replicated);
/// along grid dimensions the base leaves unused, the base's own rule.
template <int N>
bool holds_brute(const Layout<2>& base, const Alignment<N, 2>& al, int pos, const Index<N>& g) {
  const std::vector<int> c = base.grid().coords_of(pos);
  if (!base.holds(pos)) return false;
  for (int k = 0; k < 2; ++k) {
    const int gk = base.grid_dim(k);
    if (gk < 0) continue;
    index_t x = al.base_index[static_cast<std::size_t>(k)];
    for (int j = 0; j < N; ++j)
      if (al.dims[static_cast<std::size_t>(j)].base_dim == k)
        x = al.dims[static_cast<std::size_t>(j)].stride * g[static_cast<std::size_t>(j)] +
            al.dims[static_cast<std::size_t>(j)].offset;
    if (x == Alignment<N, 2>::replicated) continue;
    if (base.map(k).owner(x) != c[static_cast<std::size_t>(gk)]) return false;
  }
  return true;
}

/// A random alignment of a 2-D array with `base` (a permutation of the base dimensions, or one of them
/// with the other aligned dimension collapsed and the other base dimension replicated or fixed).
Alignment<2, 2> random_alignment2(Gen& gen, const Layout<2>& base, Index<2>& ext) {
  Alignment<2, 2> al;
  const int mode = gen.uniform(0, 2);
  if (mode == 0) {
    const int k0 = gen.uniform(0, 1);
    al.dims[0] = gen.dim(k0, base.extent(k0), ext[0]);
    al.dims[1] = gen.dim(1 - k0, base.extent(1 - k0), ext[1]);
  } else {
    const int k = gen.uniform(0, 1);
    const int j = gen.uniform(0, 1);
    al.dims[static_cast<std::size_t>(j)] = gen.dim(k, base.extent(k), ext[static_cast<std::size_t>(j)]);
    al.dims[static_cast<std::size_t>(1 - j)] = {AlignDim::collapsed, 1, 0};
    ext[static_cast<std::size_t>(1 - j)] = gen.uniform_index(0, 5);
    al.base_index[static_cast<std::size_t>(1 - k)] = gen.unused(base.extent(1 - k));
  }
  return al;
}

Alignment<1, 2> random_alignment1(Gen& gen, const Layout<2>& base, Index<1>& ext) {
  Alignment<1, 2> al;
  const int k = gen.uniform(0, 1);
  al.dims[0] = gen.dim(k, base.extent(k), ext[0]);
  al.base_index[static_cast<std::size_t>(1 - k)] = gen.unused(base.extent(1 - k));
  return al;
}

/// One random case: a base, a 2-D and a 1-D array aligned with it.
struct Case {
  Layout<2> base;
  Index<2> e2{};
  Alignment<2, 2> al2;
  Index<1> e1{};
  Alignment<1, 2> al1;
  explicit Case(Gen& gen) : base(gen.base()) {
    al2 = random_alignment2(gen, base, e2);
    al1 = random_alignment1(gen, base, e1);
  }
  [[nodiscard]] Layout<2> layout2() const { return Layout<2>::aligned(base, al2, e2); }
  [[nodiscard]] Layout<1> layout1() const { return Layout<1>::aligned(base, al1, e1); }
};

template <int N> void expect_owners_match(const Layout<2>& base, const Alignment<N, 2>& al,
                                          const Layout<N>& L, const std::string& what) {
  ASSERT_EQ(L.grid(), base.grid()) << what;
  index_t stored_total = 0;
  for (int pos = 0; pos < L.grid().size(); ++pos) {
    index_t n = 1;
    for (index_t e : L.local_extents(pos)) n *= e;
    stored_total += n;
    index_t count = 0;
    for (index_t k = 0; k < L.global_size(); ++k) {
      const Index<N> g = index_of<N>(k, L.extents());
      const bool want = holds_brute<N>(base, al, pos, g);
      ASSERT_EQ(L.owns(pos, g), want) << what << " pos " << pos << " g " << Layout<N>::to_string(g);
      count += want ? 1 : 0;
      if (want) { // the local index of g at pos maps back to g
        ASSERT_EQ(L.global_index(pos, L.local_index(g)), g) << what;
      }
    }
    ASSERT_EQ(count, n) << what << " pos " << pos;
  }
  // Every element once per copy; the primary copy is one of the holders.
  EXPECT_EQ(stored_total, L.global_size() * L.copies()) << what;
  for (index_t k = 0; k < L.global_size(); ++k) {
    const Index<N> g = index_of<N>(k, L.extents());
    ASSERT_TRUE(L.owns(L.owner(g), g) && L.is_primary(L.owner(g))) << what;
  }
}

/// Counts of the cases a test met: replicated (copies > 1) and fixed non-empty layouts, negative strides.
struct Coverage {
  int replicated = 0;
  int fixed = 0;
  int negative = 0;
  template <int N> void add(const Layout<N>& L, const hpf::Alignment<N, 2>& al) {
    if (L.global_size() == 0) return;
    replicated += L.copies() > 1 ? 1 : 0;
    for (int k = 0; k < L.grid().ndims(); ++k)
      fixed += L.fixed_coord(k) >= 0 && L.grid().extent(k) > 1 ? 1 : 0;
    for (const auto& d : al.dims) negative += d.base_dim >= 0 && d.stride < 0 ? 1 : 0;
  }
  /// With more than one rank the random cases must have met every kind (else the test proves little).
  void expect_seen(int at_least) const {
    if (world_size() < 2) return;
    EXPECT_GE(replicated, at_least);
    EXPECT_GE(fixed, at_least);
    EXPECT_GE(negative, at_least);
  }
};

TEST(Align, OwnersMatchTheBaseElementByElement) {
  Gen gen;
  Coverage cov;
  for (int trial = 0; trial < 60; ++trial) {
    const Case c(gen);
    const Layout<2> L2 = c.layout2();
    expect_owners_match<2>(c.base, c.al2, L2,
                           "trial " + std::to_string(trial) + " 2-D " + L2.describe_dists());
    const Layout<1> L1 = c.layout1();
    expect_owners_match<1>(c.base, c.al1, L1,
                           "trial " + std::to_string(trial) + " 1-D " + L1.describe_dists());
    cov.add(L2, c.al2);
    cov.add(L1, c.al1);
    // The identity alignment gives the base's layout back.
    EXPECT_EQ(Layout<2>::aligned(c.base, Alignment<2, 2>::identity()), c.base) << "trial " << trial;
  }
  cov.expect_seen(5);
}

/// forall, sum / min / max, gather, scatter on an aligned array; every copy checked.
template <int N> void check_values(DistArray<double, N>& X, double salt, const std::string& what) {
  const Layout<N>& L = X.layout();
  hpf::forall(X, [=](const Index<N>& g, double& x) { x = value_at<N>(g, salt); });
  EXPECT_EQ(wrong(X, salt), 0) << what;
  EXPECT_EQ(stored(X), L.global_size() * L.copies()) << what;
  const std::vector<double> ref = reference<N>(L.extents(), salt);
  // Each element counted once, whatever the number of copies.
  EXPECT_EQ(hpf::sum(X), std::accumulate(ref.begin(), ref.end(), 0.0)) << what;
  if (!ref.empty()) {
    EXPECT_EQ(hpf::min(X), *std::min_element(ref.begin(), ref.end())) << what;
    EXPECT_EQ(hpf::max(X), *std::max_element(ref.begin(), ref.end())) << what;
  }
  const int root = world_size() - 1;
  // The tree reduction of the local contributions counts each element once too.
  const hpf::TreeReducer R(MPI_COMM_WORLD, {1, 1}, {hpf::ReduceStrategy::fibonacci, 0, root});
  const std::optional<double> t = hpf::tree_reduce(R, X, std::plus<>{});
  if (world_rank() == root) {
    EXPECT_EQ(t.value_or(0.0), std::accumulate(ref.begin(), ref.end(), 0.0)) << what;
  }
  const std::vector<double> all = X.gather(root);
  if (world_rank() == root) {
    EXPECT_EQ(all, ref) << what;
  }
  // Scatter writes every copy.
  X.fill(-1);
  X.scatter(0, world_rank() == 0 ? reference<N>(L.extents(), salt + 0.5) : std::vector<double>());
  EXPECT_EQ(wrong(X, salt + 0.5), 0) << what;
}

TEST(Align, ForallReductionsGatherScatterOnEveryCopy) {
  Gen gen;
  Coverage cov;
  for (int trial = 0; trial < 25; ++trial) {
    const Case c(gen);
    DistArray<double, 2> X("X", c.layout2());
    check_values<2>(X, trial, "trial " + std::to_string(trial) + " X " + X.layout().describe_dists());
    DistArray<double, 1> Y("Y", c.layout1());
    check_values<1>(Y, trial + 100, "trial " + std::to_string(trial) + " Y " + Y.layout().describe_dists());
    cov.add(X.layout(), c.al2);
    cov.add(Y.layout(), c.al1);
  }
  cov.expect_seen(1);
}

TEST(Align, RedistributeToAndFromReplicatedAndFixedLayouts) {
  Gen gen;
  for (int trial = 0; trial < 25; ++trial) {
    const Layout<2> base1 = gen.base();
    Index<1> e1{};
    const Alignment<1, 2> al = random_alignment1(gen, base1, e1);
    const Layout<1> from = Layout<1>::aligned(base1, al, e1);
    const std::string what = "trial " + std::to_string(trial) + " from " + from.describe_dists();
    DistArray<double, 1> X("X", from);
    hpf::forall(X, [=](const Index<1>& g, double& x) { x = value_at<1>(g, trial); });
    // To a plain layout (one copy sends), then to another aligned layout of another base (every copy
    // receives), and back.
    const int P = gen.uniform(1, world_size());
    const Layout<1> plain(e1, {gen.dist(e1[0], P, false)}, grid_over(gen.uniform(0, world_size() - 1), {P}));
    X.redistribute(plain);
    EXPECT_EQ(wrong(X, trial), 0) << what << " -> " << plain.describe_dists();
    // Another base whose dimension 0 (or 1) is long enough for X along the same base dimension.
    Layout<2> base2 = gen.base();
    for (int tries = 0; tries < 50 && (base2.extent(0) < e1[0] || base2.extent(1) < e1[0]); ++tries)
      base2 = gen.base();
    if (base2.extent(0) >= e1[0] && base2.extent(1) >= e1[0]) {
      Alignment<1, 2> al2;
      const int k = gen.uniform(0, 1);
      al2.dims[0] = {k, 1, gen.uniform_index(0, base2.extent(k) - e1[0])};
      al2.base_index[static_cast<std::size_t>(1 - k)] = gen.unused(base2.extent(1 - k));
      const Layout<1> to = Layout<1>::aligned(base2, al2, e1);
      // The plan's schedule: from the primary copy of every element to every copy, each step a partial
      // permutation (hpf::validate against the brute-force communication matrix).
      hpf::CommMatrix want(from.grid().size(), to.grid().size());
      for (index_t i = 0; i < e1[0]; ++i)
        for (int q = 0; q < to.grid().size(); ++q)
          if (to.owns(q, {i})) want.add(from.owner({i}), q, 1);
      const hpf::RedistributionPlan<1> plan(from, to);
      EXPECT_NO_THROW(hpf::validate(plan.schedule(), want)) << what << " -> " << to.describe_dists();
      X.redistribute(to);
      EXPECT_EQ(X.layout(), to);
      EXPECT_EQ(wrong(X, trial), 0) << what << " -> " << to.describe_dists();
      EXPECT_EQ(stored(X), to.global_size() * to.copies()) << what;
      const std::vector<double> all = X.gather(0);
      if (world_rank() == 0) {
        EXPECT_EQ(all, reference<1>(e1, trial)) << what;
      }
    }
    // Straight from replicated to replicated (a copy to every copy).
    X.redistribute(from);
    EXPECT_EQ(wrong(X, trial), 0) << what << " back";
    // The free function leaves the source as it was.
    DistArray<double, 1> Z = hpf::redistribute(X, plain);
    EXPECT_EQ(wrong(Z, trial), 0) << what;
    EXPECT_EQ(wrong(X, trial), 0) << what;
  }
}

TEST(Align, RealignCarriesTheAlignedArrays) {
  Gen gen;
  for (int trial = 0; trial < 20; ++trial) {
    const Case c(gen);
    const Layout<2>& base = c.base;
    const auto& [e2, al2, e1, al1] = std::tie(c.e2, c.al2, c.e1, c.al1);
    DistArray<double, 2> A("A", base);
    DistArray<double, 2> X("X", c.layout2());
    DistArray<double, 1> Y("Y", c.layout1());
    hpf::forall(A, [=](const Index<2>& g, double& x) { x = value_at<2>(g, trial); });
    hpf::forall(X, [=](const Index<2>& g, double& x) { x = value_at<2>(g, trial + 0.25); });
    hpf::forall(Y, [=](const Index<1>& g, double& x) { x = value_at<1>(g, trial + 0.5); });
    // A new base layout of the same extents (another distribution and grid).
    const int first = gen.uniform(0, world_size() - 1);
    const int P0 = gen.uniform(1, world_size());
    const int P1 = gen.uniform(1, std::max(1, world_size() / P0));
    const Layout<2> next(base.extents(),
                         {gen.dist(base.extent(0), P0, false), gen.dist(base.extent(1), P1, false)},
                         grid_over(first, {P0, P1}));
    const std::string what =
        "trial " + std::to_string(trial) + " " + base.describe_dists() + " -> " + next.describe_dists();
    hpf::realign(A, next, hpf::aligned_with(X, al2), hpf::aligned_with(Y, al1));
    EXPECT_EQ(A.layout(), next) << what;
    EXPECT_EQ(X.layout(), Layout<2>::aligned(next, al2, e2)) << what;
    EXPECT_EQ(Y.layout(), Layout<1>::aligned(next, al1, e1)) << what;
    EXPECT_EQ(wrong(A, trial), 0) << what;
    EXPECT_EQ(wrong(X, trial + 0.25), 0) << what;
    EXPECT_EQ(wrong(Y, trial + 0.5), 0) << what;
    // An array that is not aligned as stated: refused on every rank, nothing moves.
    if (size_of<1>(e1) > 0 && A.layout().grid().size() > 1) {
      const Alignment<1, 2>& other = al1;
      DistArray<double, 1> W("W", Layout<1>(e1, {hpf::Cyclic(1)}, grid_over(0, {world_size()})));
      if (W.layout() != Layout<1>::aligned(next, other, e1)) {
        HPF_EXPECT_ERROR(hpf::realign(A, base, hpf::aligned_with(W, other)), "hpf::realign", "aligned[0]",
                         "'W'", "expected the layout of its alignment");
        EXPECT_EQ(A.layout(), next);
      }
    }
  }
}

TEST(Align, SectionsOfPermutedAlignedArrays) {
  // B(i, j) WITH A(j, i) (and reversed strides): every grid dimension used, in another order than the
  // plain constructor's; hpf::assign reads and writes such arrays.
  Gen gen;
  for (int trial = 0; trial < 10; ++trial) {
    const int P0 = gen.uniform(1, world_size());
    const int P1 = gen.uniform(1, std::max(1, world_size() / P0));
    const Index<2> be{gen.uniform_index(1, 12), gen.uniform_index(1, 9)};
    const Layout<2> base(be, {gen.dist(be[0], P0, false), gen.dist(be[1], P1, false)},
                         grid_over(gen.uniform(0, world_size() - 1), {P0, P1}));
    Alignment<2, 2> al;
    const Index<2> e{be[1], be[0]};
    al.dims[0] = gen.uniform(0, 1) ? AlignDim{1, 1, 0} : AlignDim{1, -1, be[1] - 1};
    al.dims[1] = gen.uniform(0, 1) ? AlignDim{0, 1, 0} : AlignDim{0, -1, be[0] - 1};
    DistArray<double, 2> X("X", Layout<2>::aligned(base, al, e));
    hpf::forall(X, [=](const Index<2>& g, double& x) { x = value_at<2>(g, trial); });
    DistArray<double, 2> S("S",
                           Layout<2>(e, {hpf::Block(), hpf::Cyclic(2)}, grid_over(0, {world_size(), 1})));
    const hpf::Section<2> all{{{0, e[0] - 1, 1}, {0, e[1] - 1, 1}}};
    hpf::assign(S, all, X, all);
    EXPECT_EQ(wrong(S, trial), 0) << "trial " << trial << " " << X.layout().describe_dists();
    hpf::forall(S, [=](const Index<2>& g, double& x) { x = value_at<2>(g, trial + 0.5); });
    hpf::assign(X, all, S, all);
    EXPECT_EQ(wrong(X, trial + 0.5), 0) << "trial " << trial << " " << X.layout().describe_dists();
  }
}

TEST(Align, SectionsOfFixedAlignedArrays) {
  // X(i) WITH A(2*i + 1, k): only the process row that owns A(:, k) holds X; sections read and write it.
  Gen gen;
  int fixed_cases = 0;
  for (int trial = 0; trial < 10; ++trial) {
    // Trial 0 spreads A's second dimension over every rank, so that X sits on one process row of
    // several: the case counted below, whatever the random draws (their order below is fixed, the
    // same under every compiler).
    const int P0 = trial == 0 ? 1 : gen.uniform(1, world_size());
    const int P1 = trial == 0 ? world_size() : gen.uniform(1, std::max(1, world_size() / P0));
    const Index<2> be{gen.uniform_index(3, 20), gen.uniform_index(1, 9)};
    const hpf::Distribution d0 = gen.dist(be[0], P0, false);
    const hpf::Distribution d1 = gen.dist(be[1], P1, false);
    const int first = gen.uniform(0, world_size() - 1);
    const Layout<2> base(be, {d0, d1}, grid_over(first, {P0, P1}));
    Alignment<1, 2> al;
    const index_t n = (be[0] - 1) / 2;
    al.dims[0] = {0, 2, 1};
    al.base_index[1] = gen.uniform_index(0, be[1] - 1);
    DistArray<double, 1> X("X", Layout<1>::aligned(base, al, {n}));
    fixed_cases += X.layout().replicates_or_fixes() ? 1 : 0;
    DistArray<double, 1> S("S", Layout<1>({2 * n}, {hpf::Cyclic(2)}, grid_over(0, {world_size()})));
    hpf::forall(S, [=](const Index<1>& g, double& x) { x = value_at<1>(g, trial); });
    // X(0:n-1) = S(2n-1:1:-2), then S(0:n-1) = X(n-1:0:-1).
    hpf::assign(X, hpf::Section<1>{{{0, n - 1, 1}}}, S, hpf::Section<1>{{{2 * n - 1, 1, -2}}});
    index_t bad = 0;
    hpf::forall(
        X, [&](const Index<1>& g, double& x) { bad += x != value_at<1>({2 * n - 1 - 2 * g[0]}, trial); });
    EXPECT_EQ(allsum(bad), 0) << "trial " << trial << " " << X.layout().describe_dists();
    hpf::assign(S, hpf::Section<1>{{{0, n - 1, 1}}}, X, hpf::Section<1>{{{n - 1, 0, -1}}});
    bad = 0;
    hpf::forall(S, [&](const Index<1>& g, double& x) {
      const double want =
          g[0] < n ? value_at<1>({2 * n - 1 - 2 * (n - 1 - g[0])}, trial) : value_at<1>(g, trial);
      bad += x != want ? 1 : 0;
    });
    EXPECT_EQ(allsum(bad), 0) << "trial " << trial << " " << X.layout().describe_dists();
  }
  if (world_size() > 1) {
    EXPECT_GE(fixed_cases, 1);
  }
}

TEST(Align, ShadowsAndShiftsRunWithinEachCopy) {
  // X(i) WITH A(i + 1, *): BLOCK over the first grid dimension, replicated over the second.
  const int W = world_size();
  const int P0 = W >= 4 ? 2 : 1;
  const int P1 = W / P0;
  const Layout<2> base({23, 5}, {hpf::Block(), hpf::Cyclic(2)}, grid_over(0, {P0, P1}));
  Alignment<1, 2> al;
  al.dims[0] = {0, 1, 1};
  const Layout<1> L = Layout<1>::aligned(base, al, {21});
  EXPECT_EQ(L.copies(), P1);
  DistArray<double, 1> X("X", L.with_shadow({2}));
  hpf::forall(X, [](const Index<1>& g, double& x) { x = value_at<1>(g, 7); });
  X.update_shadow(hpf::Boundary::Periodic);
  index_t bad = 0;
  for (index_t i = 0; i < 21; ++i) {
    if (!X.owns({i})) continue;
    for (index_t s = -2; s <= 2; ++s) {
      const index_t j = i + s;
      const index_t wrapped = (j % 21 + 21) % 21;
      bad += X.shadow({j}) != value_at<1>({wrapped}, 7) ? 1 : 0;
    }
  }
  EXPECT_EQ(allsum(bad), 0);
  DistArray<double, 1> Y("Y", L.with_shadow({2}));
  hpf::cshift(X, 3, 0, Y);
  index_t wrong_shift = 0;
  hpf::forall(Y, [&](const Index<1>& g, double& y) {
    wrong_shift += y != value_at<1>({(g[0] + 3) % 21}, 7) ? 1 : 0;
  });
  EXPECT_EQ(allsum(wrong_shift), 0);
}

TEST(Align, BadInputThrowsOnEveryRank) {
  const Layout<2> base({10, 6}, {hpf::Block(), hpf::Cyclic(2)}, grid_over(0, {world_size(), 1}));
  Alignment<1, 2> al;
  al.dims[0] = {0, 2, 2}; // 2 * 4 + 2 = 10 is past the end
  HPF_EXPECT_ERROR(Layout<1>::aligned(base, al, {5}), "alignment.dims[0]", "stride 2 and offset 2",
                   "outside the base extent", "[0, 10)");
  al.dims[0] = {0, 0, 1};
  HPF_EXPECT_ERROR(Layout<1>::aligned(base, al, {5}), "alignment.dims[0]", "stride must be != 0");
  al.dims[0] = {2, 1, 0};
  HPF_EXPECT_ERROR(Layout<1>::aligned(base, al, {5}), "alignment.dims[0].base_dim = 2", "[0, 2)");
  al.dims[0] = {0, -1, 3};
  HPF_EXPECT_ERROR(Layout<1>::aligned(base, al, {5}), "stride -1 and offset 3", "base indices 3 .. -1");
  al.dims[0] = {0, 1, 0};
  al.base_index[1] = 6;
  HPF_EXPECT_ERROR(Layout<1>::aligned(base, al, {5}), "alignment.base_index[1] = 6", "[0, 6)");
  Alignment<2, 2> twice;
  twice.dims[0] = {0, 1, 0};
  twice.dims[1] = {0, 1, 0};
  HPF_EXPECT_ERROR(Layout<2>::aligned(base, twice, {3, 3}), "alignment.dims[1].base_dim = 0", "at most once");
  // A placement naming a grid dimension twice, or a fixed coordinate outside the grid.
  hpf::Placement<2> pl;
  pl.grid_dim = {0, 0};
  pl.unused = {-1, -1};
  HPF_EXPECT_ERROR(Layout<2>({4, 4}, {hpf::Block(), hpf::Block()}, base.grid(), pl),
                   "placement.grid_dim[1] = 0");
  pl.grid_dim = {0, -1};
  pl.unused = {-1, 5};
  HPF_EXPECT_ERROR(Layout<2>({4, 4}, {hpf::Block(), hpf::Collapsed()}, base.grid(), pl),
                   "placement.unused[1] = 5");
  // Sections of replicated arrays are out of scope: a clear error, on every rank.
  const Layout<1> rep = Layout<1>::aligned(
      Layout<2>({10, 6}, {hpf::Block(), hpf::Block()}, grid_over(0, {1, world_size()})), [] {
        Alignment<1, 2> a;
        a.dims[0] = {0, 1, 0};
        return a;
      }());
  if (rep.copies() > 1) {
    DistArray<double, 1> R("R", rep);
    DistArray<double, 1> S("S", Layout<1>({10}, {hpf::Block()}, grid_over(0, {world_size()})));
    HPF_EXPECT_ERROR(hpf::assign(S, hpf::Section<1>{{{0, 9, 1}}}, R, hpf::Section<1>{{{0, 9, 1}}}),
                     "replicates its elements", "docs/align.md");
  }
  // Layout agreement includes the replication attributes: a fixed coordinate on one rank only fails
  // on every rank.
  Alignment<1, 2> mine;
  mine.dims[0] = {0, 1, 0};
  mine.base_index[1] = world_rank() == 0 ? 0 : Alignment<1, 2>::replicated;
  const Layout<2> base2({10, 6}, {hpf::Block(), hpf::Block()}, grid_over(0, {1, world_size()}));
  if (world_size() > 1) {
    DistArray<double, 1> D("D", Layout<1>::aligned(base2, mine));
    HPF_EXPECT_ERROR(hpf::sum(D), "hpf::sum");
  }
}

} // namespace
