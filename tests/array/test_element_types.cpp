// Element types beyond the arithmetic ones: std::complex through forall, sum, product,
// redistribute, gather and scatter; hpf::reduce with operators of the caller's (a struct, an
// associative but not commutative product, the largest magnitude); Environment::rank/size; and the
// reusable targets (redistribute_into, RedistributionPlan::execute, assign with a permutation) keep
// the target's storage.
#include "hpf_test.hpp"

#include <cmath>
#include <complex>
#include <cstdint>

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

using Z = std::complex<double>;

Z z_of(index_t g) { return {static_cast<double>(g), -2.0 * static_cast<double>(g) + 1.0}; }

TEST(ElementTypes, EnvironmentRankAndSize) {
  const hpf::Environment env; // MPI and Kokkos are running: it initialises nothing
  EXPECT_FALSE(env.initialized_mpi());
  EXPECT_EQ(env.rank(), world_rank());
  EXPECT_EQ(env.size(), world_size());
}

TEST(ElementTypes, ComplexSumProductForallRedistribute) {
  const auto grid = ProcessGrid::world({world_size()});
  for (index_t n : {index_t(0), index_t(1), index_t(29)}) {
    const Layout<1> L({n}, {Cyclic(2)}, grid);
    DistArray<Z, 1> A("A", L);
    DistArray<double, 1> R("R", L);
    hpf::forall(R, [](const Index<1>& g, double& r) { r = static_cast<double>(g[0]); });
    hpf::forall(A, R, [](const Index<1>& g, Z& a, double& r) { a = z_of(g[0]) + r * 0.0; });
    Z sum{};
    double angle = 0;
    std::vector<Z> ref;
    for (index_t g = 0; g < n; ++g) {
      sum += z_of(g);
      angle += 0.1 * static_cast<double>(g);
      ref.push_back(z_of(g));
    }
    EXPECT_EQ(hpf::sum(A), sum);
    // Unit numbers: the product is exp(i sum of the angles).
    DistArray<Z, 1> U("U", L);
    hpf::forall(U, [](const Index<1>& g, Z& u) { u = std::polar(1.0, 0.1 * static_cast<double>(g[0])); });
    const Z p = hpf::product(U);
    EXPECT_NEAR(std::abs(p - std::polar(1.0, angle)), 0.0, 1e-9) << p;
    DistArray<std::complex<float>, 1> F("F", L);
    hpf::forall(F, [](const Index<1>& g, std::complex<float>& f) { f = {1.0F, static_cast<float>(g[0])}; });
    const std::complex<float> fs = hpf::sum(F);
    EXPECT_EQ(fs.real(), static_cast<float>(n));
    EXPECT_EQ(fs.imag(), static_cast<float>(n * (n - 1) / 2));

    // REDISTRIBUTE, gather and scatter move complex elements as they are.
    A.redistribute(Layout<1>({n}, {Cyclic(5)}, grid));
    std::vector<Z> all = A.gather(0);
    if (world_rank() == 0) {
      EXPECT_EQ(all, ref);
    }
    const DistArray<Z, 1> B = hpf::redistribute(A, Layout<1>({n}, {Block()}, grid));
    all = B.gather(world_size() - 1);
    if (world_rank() == world_size() - 1) {
      EXPECT_EQ(all, ref);
    }
    DistArray<Z, 1> C("C", L);
    C.scatter(0, world_rank() == 0 ? ref : std::vector<Z>{});
    index_t wrong = 0;
    hpf::forall(C, [&](const Index<1>& g, Z& c) { wrong += c == z_of(g[0]) ? 0 : 1; });
    EXPECT_EQ(wrong, 0);
  }
}

/// A 2x2 integer matrix mod a prime: multiplication is associative, not commutative.
struct Mat {
  std::int64_t a, b, c, d;
  friend bool operator==(const Mat&, const Mat&) = default;
};
constexpr std::int64_t prime = 1000003;
Mat mul(const Mat& x, const Mat& y) {
  return {(x.a * y.a + x.b * y.c) % prime, (x.a * y.b + x.b * y.d) % prime, (x.c * y.a + x.d * y.c) % prime,
          (x.c * y.b + x.d * y.d) % prime};
}
Mat mat_of(index_t g) { return {1, g % 7, (g * g) % 5, 2}; }

/// A struct of three statistics: combined by an associative and commutative operator.
struct Stats {
  double lo, hi;
  std::int64_t count;
};

TEST(ElementTypes, UserReductions) {
  const int P = world_size();
  const auto grid = ProcessGrid::world({P});
  for (index_t n : {index_t(0), index_t(1), index_t(37)}) {
    // Not commutative: on BLOCK the fold runs in global order.
    const Layout<1> L({n}, {Block()}, grid);
    DistArray<Mat, 1> M("M", L);
    hpf::forall(M, [](const Index<1>& g, Mat& m) { m = mat_of(g[0]); });
    Mat ref{1, 0, 0, 1};
    const Mat init{3, 1, 4, 1};
    Mat fold = init;
    for (index_t g = 0; g < n; ++g) fold = mul(fold, mat_of(g));
    EXPECT_EQ(hpf::reduce(M, init, mul), fold);
    EXPECT_EQ(hpf::reduce(M, ref, mul), hpf::reduce(M, ref, mul)); // the same bits every call

    // A struct of statistics, on CYCLIC(3).
    const Layout<1> K({n}, {Cyclic(3)}, grid);
    DistArray<Stats, 1> S("S", K);
    hpf::forall(S, [](const Index<1>& g, Stats& s) {
      const double v = std::sin(static_cast<double>(g[0]));
      s = {v, v, 1};
    });
    const Stats none{1e300, -1e300, 0};
    const Stats st = hpf::reduce(S, none, [](const Stats& x, const Stats& y) {
      return Stats{std::min(x.lo, y.lo), std::max(x.hi, y.hi), x.count + y.count};
    });
    double lo = 1e300;
    double hi = -1e300;
    for (index_t g = 0; g < n; ++g) {
      lo = std::min(lo, std::sin(static_cast<double>(g)));
      hi = std::max(hi, std::sin(static_cast<double>(g)));
    }
    EXPECT_EQ(st.lo, lo);
    EXPECT_EQ(st.hi, hi);
    EXPECT_EQ(st.count, n);

    // The largest magnitude of a complex array; the init alone for an empty one.
    DistArray<Z, 1> A("A", K);
    hpf::forall(A, [](const Index<1>& g, Z& a) { a = z_of(g[0]); });
    const double m = hpf::reduce(A, Z{}, [](Z x, Z y) { return std::abs(y) > std::abs(x) ? y : x; }).real();
    EXPECT_EQ(m, n == 0 ? 0.0 : z_of(n - 1).real());
    // A different init type converts (0 for double).
    DistArray<double, 1> D("D", K);
    hpf::forall(D, [](const Index<1>& g, double& x) { x = static_cast<double>(g[0] % 4); });
    const double dmax = hpf::reduce(D, -1, [](double x, double y) { return std::max(x, y); });
    EXPECT_EQ(dmax, n == 0 ? -1.0 : std::min<double>(3, static_cast<double>(n - 1)));
  }
}

TEST(ElementTypes, ReductionsCountEachElementOnceOnReplicatedLayouts) {
  const int P = world_size();
  const int p0 = P % 2 == 0 ? 2 : 1;
  const auto grid = ProcessGrid::world({p0, P / p0});
  const Layout<2> base({11, 6}, {Cyclic(2), Block()}, grid);
  hpf::Alignment<1, 2> row;
  row.dims[0] = {0, 1, 0};
  DistArray<Z, 1> A("A", Layout<1>::aligned(base, row, {11}));
  hpf::forall(A, [](const Index<1>& g, Z& a) { a = z_of(g[0]); });
  Z ref{};
  for (index_t g = 0; g < 11; ++g) ref += z_of(g);
  EXPECT_EQ(hpf::sum(A), ref);
  EXPECT_EQ(hpf::reduce(A, Z{}, [](Z x, Z y) { return x + y; }), ref);
}

TEST(ElementTypes, ReusableTargetsKeepTheirStorage) {
  const int P = world_size();
  const auto grid = ProcessGrid::world({P});
  const index_t n = 41;
  const Layout<1> L({n}, {Cyclic(2)}, grid);
  const Layout<1> K({n}, {Cyclic(5)}, grid);
  DistArray<Z, 1> A("A", L);
  hpf::forall(A, [](const Index<1>& g, Z& a) { a = z_of(g[0]); });
  std::vector<Z> ref;
  for (index_t g = 0; g < n; ++g) ref.push_back(z_of(g));
  const auto check = [&](const DistArray<Z, 1>& X) {
    index_t wrong = 0;
    hpf::forall(X, [&](const Index<1>& g, const Z& x) { wrong += x == z_of(g[0]) ? 0 : 1; });
    EXPECT_EQ(wrong, 0);
  };

  DistArray<Z, 1> B("B", K);
  const Z* const b = B.local_data();
  DistArray<Z, 1>::redistribute_into(A, B);
  EXPECT_EQ(B.local_data(), b);
  check(B);

  DistArray<Z, 1> C("C", K);
  const Z* const c = C.local_data();
  const hpf::RedistributionPlan<1> plan(L, K);
  plan.execute(A, C);
  plan.execute(A, C);
  EXPECT_EQ(C.local_data(), c);
  check(C);

  // A transpose into an existing array: assign with a permutation.
  int p0 = P % 2 == 0 ? 2 : 1;
  const auto g2 = ProcessGrid::world({p0, P / p0});
  const Layout<2> LA({7, 10}, {Cyclic(2), Block()}, g2);
  const Layout<2> LT({10, 7}, {Cyclic(3), Cyclic(2)}, g2);
  DistArray<double, 2> M("M", LA);
  hpf::forall(M, [](const Index<2>& g, double& x) { x = static_cast<double>(100 * g[0] + g[1]); });
  DistArray<double, 2> T("T", LT);
  const double* const t = T.local_data();
  const hpf::Permutation<2> swap{1, 0};
  for (int k = 0; k < 2; ++k)
    hpf::assign(T, hpf::whole_section<2>(LT.extents()), M, hpf::whole_section<2>(LA.extents()), swap);
  EXPECT_EQ(T.local_data(), t);
  index_t wrong = 0;
  hpf::forall(
      T, [&](const Index<2>& g, double& x) { wrong += x == static_cast<double>(100 * g[1] + g[0]) ? 0 : 1; });
  EXPECT_EQ(wrong, 0);
}

} // namespace
