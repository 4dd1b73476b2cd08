// hpf::transform, B(sb) = alpha op(A(sa)) + beta B(sb), on 1-7 ranks against a serial reference: random
// sections and permutations between random layouts on random grids (as test_assign.cpp), for float,
// double, std::complex<float> and std::complex<double>, with random alpha, beta and conjugation. The
// values and scalars are small integers, exact in every element type, so results compare exactly.
// Also: beta = 0 does not read B; the ScaLAPACK-style whole-matrix forms; arguments that differ
// between ranks, and bad op, throw on every rank.
#include "hpf_test.hpp"
#include "section_layouts.hpp"
#include "section_random.hpp"

#include <complex>
#include <limits>
#include <numeric>
#include <vector>

namespace {

using hpf::DistArray;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::Section;
using hpf::test::linear;
using hpf::test::random_layout;
using hpf::test::random_triplet;
using hpf::test::Rng;

using hpf::detail::IsComplex;

/// A small-integer value of T (complex: two of them).
template <class T> T small(Rng& rng) {
  if constexpr (IsComplex<T>::value)
    return T(static_cast<typename T::value_type>(rng.between(-4, 4)),
             static_cast<typename T::value_type>(rng.between(-4, 4)));
  else
    return static_cast<T>(rng.between(-4, 4));
}

template <class T> T conj_if(const T& a, bool c) {
  if constexpr (IsComplex<T>::value)
    return c ? std::conj(a) : a;
  else
    return a;
}

/// The serial reference: b(sb) = alpha op(a(sa)) + beta b(sb) (beta == 0: b not read).
template <class T, int N> void reference(std::vector<T>& b, const hpf::Index<N>& be, const Section<N>& sb,
                                         const std::vector<T>& a, const hpf::Index<N>& ae,
                                         const Section<N>& sa, const std::array<int, N>& perm, T alpha,
                                         T beta, bool conj) {
  for (const hpf::Triplet& t : sb)
    if (t.extent() == 0) return;
  hpf::Index<N> j{};
  while (true) {
    hpf::Index<N> gb{};
    hpf::Index<N> ga{};
    for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
      gb[d] = sb[d].at(j[d]);
      const auto ad = static_cast<std::size_t>(perm[d]);
      ga[ad] = sa[ad].at(j[d]);
    }
    T& out = b[static_cast<std::size_t>(linear<N>(be, gb))];
    const T x = alpha * conj_if(a[static_cast<std::size_t>(linear<N>(ae, ga))], conj);
    out = beta == T(0) ? x : x + beta * out;
    std::size_t d = 0;
    for (; d < static_cast<std::size_t>(N); ++d) {
      if (++j[d] < sb[d].extent()) break;
      j[d] = 0;
    }
    if (d == static_cast<std::size_t>(N)) return;
  }
}

template <class T, int N> void random_case(Rng& rng, int c, index_t max_extent) {
  const auto [ae, be, perm, sa, sb] = hpf::test::random_sections<N>(rng, max_extent, true);
  const Layout<N> la = hpf::test::maybe_shadow<N>(rng, random_layout<N>(rng, ae));
  const Layout<N> lb = hpf::test::maybe_shadow<N>(rng, random_layout<N>(rng, be));
  // Scalars: the plain copy (1, 0) a fifth of the time, beta = 0 another fifth.
  const int kind = static_cast<int>(rng.between(0, 4));
  T alpha = kind == 0 ? T(1) : small<T>(rng);
  const T beta = kind <= 1 ? T(0) : small<T>(rng);
  const bool conj = kind != 0 && rng.between(0, 1) == 1;
  std::vector<T> va(static_cast<std::size_t>(la.global_size()));
  std::vector<T> vb(static_cast<std::size_t>(lb.global_size()));
  for (T& x : va) x = small<T>(rng);
  for (T& x : vb) x = small<T>(rng);
  DistArray<T, N> A("A", la);
  DistArray<T, N> B("B", lb);
  A.scatter(0, va);
  B.scatter(0, vb);
  hpf::transform(B, sb, A, sa, perm, alpha, beta, conj);
  const std::vector<T> got = B.gather(0);
  if (hpf::test::world_rank() == 0) {
    reference<T, N>(vb, be, sb, va, ae, sa, perm, alpha, beta, conj);
    EXPECT_TRUE(got == vb) << "case " << c << ": B" << hpf::detail::section_string<N>(sb) << " "
                           << lb.describe_dists() << " on " << lb.grid().size() << " ranks = alpha op(A"
                           << hpf::detail::section_string<N>(sa) << ") + beta B, A " << la.describe_dists()
                           << " on " << la.grid().size() << " ranks, conj " << conj;
  }
}

template <class T> void random_cases(unsigned seed) {
  Rng rng(seed);
  for (int c = 0; c < 60; ++c) random_case<T, 1>(rng, c, c < 40 ? 30 : 300);
  for (int c = 0; c < 60; ++c) random_case<T, 2>(rng, c, c < 50 ? 12 : 200);
  for (int c = 0; c < 20; ++c) random_case<T, 3>(rng, c, 6);
}

TEST(Transform, RandomFloat) { random_cases<float>(11); }
TEST(Transform, RandomDouble) { random_cases<double>(12); }
TEST(Transform, RandomComplexFloat) { random_cases<std::complex<float>>(13); }
TEST(Transform, RandomComplexDouble) { random_cases<std::complex<double>>(14); }

// The whole-matrix forms of ScaLAPACK's pdgeadd, pdtran and pztranc, between block-cyclic layouts on
// grids of other shapes, with a rectangular matrix.
TEST(Transform, WholeMatrices) {
  using C = std::complex<double>;
  const int P = hpf::test::world_size();
  const index_t m = 37;
  const index_t n = 23;
  const Layout<2> la({m, n}, {hpf::Cyclic(4), hpf::Cyclic(3)}, ProcessGrid(MPI_COMM_WORLD, {P, 1}));
  const Layout<2> lt({n, m}, {hpf::Cyclic(5), hpf::Cyclic(2)}, ProcessGrid(MPI_COMM_WORLD, {1, P}));
  const Layout<2> ls({m, n}, {hpf::Block(), hpf::Cyclic(1)}, ProcessGrid(MPI_COMM_WORLD, {1, P}));
  DistArray<C, 2> A("A", la);
  hpf::forall(A, [](const hpf::Index<2>& g, C& x) { x = C(double(g[0]), double(g[1] + 1)); });
  for (const hpf::MatrixOp op : {hpf::MatrixOp::Transpose, hpf::MatrixOp::ConjTranspose}) {
    DistArray<C, 2> T("T", lt);
    hpf::forall(T, [](const hpf::Index<2>&, C& x) { x = C(1, 1); });
    hpf::transform(T, A, op, C(2, 0), C(0, 1)); // T = 2 op(A) + i T
    bool ok = true;
    hpf::forall(T, [&](const hpf::Index<2>& g, C& x) {
      C a(double(g[1]), double(g[0] + 1));
      if (op == hpf::MatrixOp::ConjTranspose) a = std::conj(a);
      ok = ok && x == 2.0 * a + C(0, 1) * C(1, 1);
    });
    EXPECT_TRUE(ok) << "op " << static_cast<int>(op);
  }
  DistArray<C, 2> S("S", ls);
  hpf::forall(S, [](const hpf::Index<2>& g, C& x) { x = C(double(g[0] * g[1]), 0); });
  hpf::transform(S, A, hpf::MatrixOp::None, C(-1, 0), C(3, 0)); // S = -A + 3 S
  bool ok = true;
  hpf::forall(S, [&](const hpf::Index<2>& g, C& x) {
    ok = ok && x == -C(double(g[0]), double(g[1] + 1)) + 3.0 * C(double(g[0] * g[1]), 0);
  });
  EXPECT_TRUE(ok);
}

// Whole arrays of one layout: every element stays in place (one local loop), conjugation and an
// array that is both A and B included.
TEST(Transform, OneLayoutElementwise) {
  using C = std::complex<float>;
  const int P = hpf::test::world_size();
  const Layout<2> l({37, 23}, {hpf::Cyclic(4), hpf::Block()}, ProcessGrid(MPI_COMM_WORLD, {P, 1}));
  DistArray<C, 2> A("A", l);
  DistArray<C, 2> B("B", l);
  hpf::forall(A, [](const hpf::Index<2>& g, C& x) { x = C(float(g[0]), float(g[1] + 1)); });
  hpf::forall(B, [](const hpf::Index<2>& g, C& x) { x = C(float(g[0] + g[1]), 2); });
  const Section<2> all = hpf::whole_section<2>(l.extents());
  hpf::transform(B, all, A, all, C(2, 1), C(0.5F, 0), true);   // B = (2 + i) conj(A) + B / 2
  hpf::transform(B, B, hpf::MatrixOp::None, C(2, 0), C(1, 0)); // B = 3 B
  bool ok = true;
  hpf::forall(B, [&](const hpf::Index<2>& g, C& x) {
    const C a{static_cast<float>(g[0]), static_cast<float>(g[1] + 1)};
    const C b{static_cast<float>(g[0] + g[1]), 2};
    ok = ok && x == C(3, 0) * (C(2, 1) * std::conj(a) + C(0.5F, 0) * b);
  });
  EXPECT_TRUE(ok);
}

// With beta = 0, B's old values are not read: a NaN there does not spread.
TEST(Transform, BetaZeroDoesNotReadB) {
  const int P = hpf::test::world_size();
  const Layout<1> la({101}, {hpf::Cyclic(3)}, ProcessGrid(MPI_COMM_WORLD, {P}));
  const Layout<1> lb({101}, {hpf::Block()}, ProcessGrid(MPI_COMM_WORLD, {P}));
  DistArray<double, 1> A("A", la);
  DistArray<double, 1> B("B", lb);
  hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
  B.fill(std::numeric_limits<double>::quiet_NaN());
  hpf::transform(B, A, hpf::MatrixOp::None, 0.5, 0.0);
  EXPECT_EQ(hpf::sum(B), 0.5 * 100 * 101 / 2);
}

TEST(Transform, BadInputThrowsOnEveryRank) {
  const int P = hpf::test::world_size();
  const int me = hpf::test::world_rank();
  const Layout<3> l3({4, 4, 4}, {hpf::Block(), hpf::Collapsed(), hpf::Collapsed()},
                     ProcessGrid(MPI_COMM_WORLD, {P}));
  DistArray<double, 3> A3("A3", l3);
  DistArray<double, 3> B3("B3", l3);
  HPF_EXPECT_ERROR(hpf::transform(B3, A3, hpf::MatrixOp::Transpose, 1.0, 0.0), "op must be MatrixOp::None",
                   "3 dimensions");
  const Layout<2> l({6, 5}, {hpf::Block(), hpf::Cyclic(2)}, ProcessGrid(MPI_COMM_WORLD, {1, P}));
  DistArray<double, 2> A("A", l);
  DistArray<double, 2> B("B", l);
  const Section<2> all{{{0, 5, 1}, {0, 4, 1}}};
  HPF_EXPECT_ERROR(hpf::transform(B, all, A, Section<2>{{{0, 5, 0}, {0, 4, 1}}}, 2.0, 1.0),
                   "stride must be != 0");
  HPF_EXPECT_ERROR(hpf::transform(B, A, hpf::MatrixOp::Transpose, 1.0, 0.0), "extents disagree");
  if (P > 1) {
    // Ranks that pass different scalars all throw, naming the argument.
    HPF_EXPECT_ERROR(hpf::transform(B, A, hpf::MatrixOp::None, me == 1 ? 3.0 : 2.0, 1.0), "alpha");
    HPF_EXPECT_ERROR(hpf::transform(B, all, A, all, 2.0, 1.0, me == 1), "conjugate");
  }
  // Every rank is still in step: a valid transform works.
  hpf::forall(A, [](const hpf::Index<2>&, double& x) { x = 1; });
  hpf::transform(B, A, hpf::MatrixOp::None, 2.0, 0.0);
  EXPECT_EQ(hpf::sum(B), 60.0);
}

} // namespace
