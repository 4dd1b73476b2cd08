// hpf::assign, hpf::SectionPlan and hpf::transpose on 1-7 ranks against a serial reference: random
// sections (positive and negative strides, extent-1 and empty dimensions) between random layouts
// (CYCLIC(r), BLOCK, collapsed) on random grids over subsets of the ranks (identical, overlapping or
// disjoint), with and without dimension permutations; rank-reducing sections; overlapping sections of
// one array; bad input thrown on every rank. Both arrays are gathered on rank 0 and compared there.
#include "hpf_test.hpp"
#include "section_layouts.hpp"
#include "section_random.hpp"

#include <hpf/exec/model.hpp>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

namespace {

using hpf::DistArray;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::Section;
using hpf::Triplet;
using hpf::test::linear;
using hpf::test::maybe_shadow;
using hpf::test::random_layout;
using hpf::test::random_triplet;
using hpf::test::Rng;

/// Values distinct per element and per array.
std::vector<double> values(index_t n, double base) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = base + static_cast<double>(i);
  return v;
}

/// The serial reference of B(sb) = A(sa) with B's dimension d taking A's dimension perm[d].
template <int N> void reference_assign(std::vector<double>& b, const hpf::Index<N>& be, const Section<N>& sb,
                                       const std::vector<double>& a, const hpf::Index<N>& ae,
                                       const Section<N>& sa, const std::array<int, N>& perm) {
  hpf::Index<N> j{};
  for (const Triplet& t : sb)
    if (t.extent() == 0) return;
  const std::vector<double> src = a; // read the whole right-hand side first
  while (true) {
    hpf::Index<N> gb{};
    hpf::Index<N> ga{};
    for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
      gb[d] = sb[d].at(j[d]);
      const auto ad = static_cast<std::size_t>(perm[d]);
      ga[ad] = sa[ad].at(j[d]);
    }
    b[static_cast<std::size_t>(linear<N>(be, gb))] = src[static_cast<std::size_t>(linear<N>(ae, ga))];
    std::size_t d = 0;
    for (; d < static_cast<std::size_t>(N); ++d) {
      if (++j[d] < sb[d].extent()) break;
      j[d] = 0;
    }
    if (d == static_cast<std::size_t>(N)) return;
  }
}

/// Messages of the explicit plans of the random cases, and those of them that moved in place.
struct InPlaceCount {
  std::size_t messages = 0;
  std::size_t in_place = 0;
};

/// One random case of dimension N: random extents, layouts, sections and (maybe) a permutation. With
/// `in_place_min`, an explicit plan with that SectionOptions::in_place_min_piece_bytes runs, in a random
/// mode, and its messages are counted in `count`.
template <int N> void random_case(Rng& rng, int c, index_t max_extent,
                                  std::optional<std::size_t> in_place_min = std::nullopt,
                                  InPlaceCount* count = nullptr, int shared_rounds = 0) {
  const auto [ae, be, perm, sa, sb] = hpf::test::random_sections<N>(rng, max_extent, true);
  const bool permuted = !std::is_sorted(perm.begin(), perm.end());
  const Layout<N> la = maybe_shadow<N>(rng, random_layout<N>(rng, ae));
  const Layout<N> lb = maybe_shadow<N>(rng, random_layout<N>(rng, be));
  DistArray<double, N> A("A", la);
  DistArray<double, N> B("B", lb);
  const std::vector<double> va = values(la.global_size(), 0.5);
  std::vector<double> vb = values(lb.global_size(), -1e6);
  A.scatter(0, va);
  B.scatter(0, vb);
  const int how = static_cast<int>(rng.between(0, 2));
  if (shared_rounds > 0) {
    // One plan executed several times, a different A each time (a stale buffer would show). Half of
    // the ends ask for every message in place (by case and rank), the others pack.
    hpf::SectionOptions opt;
    const bool in_place = (c + hpf::test::world_rank()) % 2 == 0;
    opt.in_place_min_piece_bytes = in_place ? 0 : SIZE_MAX;
    opt.mode = how == 0 ? hpf::ExecMode::AllAtOnce : hpf::ExecMode::StepSynchronous;
    const auto plan = hpf::cached_section_plan<double, N>(lb, sb, la, sa, perm, opt);
    for (int round = 0; round < shared_rounds; ++round) {
      const std::vector<double> vr = values(la.global_size(), 0.5 + round);
      std::vector<double> want = vb;
      A.scatter(0, vr);
      B.scatter(0, vb);
      plan->execute(B, A);
      const std::vector<double> got = B.gather(0);
      if (hpf::test::world_rank() == 0) {
        reference_assign<N>(want, be, sb, vr, ae, sa, perm);
        ASSERT_EQ(got, want) << "case " << c << " round " << round;
      }
    }
    if (count != nullptr) {
      count->messages += plan->num_sends() + plan->num_recvs();
      count->in_place += plan->in_place_sends() + plan->in_place_recvs();
    }
    if (!in_place) {
      EXPECT_EQ(plan->in_place_sends() + plan->in_place_recvs(), 0U) << "case " << c;
    }
    return;
  }
  if (in_place_min) {
    hpf::SectionOptions opt;
    opt.in_place_min_piece_bytes = *in_place_min;
    opt.mode = how == 0 ? hpf::ExecMode::AllAtOnce : hpf::ExecMode::StepSynchronous;
    const auto plan = hpf::cached_section_plan<double, N>(lb, sb, la, sa, perm, opt);
    plan->execute(B, A);
    if (count != nullptr) {
      count->messages += plan->num_sends() + plan->num_recvs();
      count->in_place += plan->in_place_sends() + plan->in_place_recvs();
    }
  } else if (how == 2) { // an explicit plan run all at once instead of in König steps
    hpf::SectionOptions opt;
    opt.mode = hpf::ExecMode::AllAtOnce;
    hpf::cached_section_plan<double, N>(lb, sb, la, sa, perm, opt)->execute(B, A);
  } else if (permuted) {
    hpf::assign(B, sb, A, sa, perm);
  } else {
    hpf::assign(B, sb, A, sa);
  }
  const std::vector<double> got = B.gather(0);
  if (hpf::test::world_rank() == 0) {
    reference_assign<N>(vb, be, sb, va, ae, sa, perm);
    EXPECT_EQ(got, vb) << "case " << c << ": B" << hpf::detail::section_string<N>(sb) << " "
                       << lb.describe_dists() << " on " << lb.grid().size() << " ranks = A"
                       << hpf::detail::section_string<N>(sa) << " " << la.describe_dists() << " on "
                       << la.grid().size() << " ranks" << (permuted ? " (permuted)" : "");
  }
}

TEST(SectionAssign, Random1D) {
  Rng rng(101);
  for (int c = 0; c < 150; ++c) random_case<1>(rng, c, c < 100 ? 40 : 400); // long ones repeat the pattern
}

TEST(SectionAssign, Random2D) {
  Rng rng(202);
  for (int c = 0; c < 150; ++c) random_case<2>(rng, c, 14);
}

// Extents up to 700: pieces longer than SectionPlan's copy tiles (256 doubles along B's dimension 1,
// and along dimension 0 for transposed pieces), so the tiled and banded copies and their edges run.
TEST(SectionAssign, Random2DLargerThanCopyTiles) {
  Rng rng(213);
  for (int c = 0; c < 16; ++c) random_case<2>(rng, c, 700);
}

// in_place_min_piece_bytes = 0: every message MPI can describe moves through its datatype, single
// elements, reversed, transposed and 3-D pieces included (a reversed period repeated more than once is
// packed: exec/datatype.hpp). Most messages must move in place, and the results must not change.
TEST(SectionAssign, MessagesInPlace) {
  Rng rng(404);
  InPlaceCount count;
  for (int c = 0; c < 80; ++c) random_case<1>(rng, c, c < 40 ? 40 : 400, 0, &count);
  for (int c = 0; c < 80; ++c) random_case<2>(rng, c, c < 60 ? 14 : 300, 0, &count);
  for (int c = 0; c < 40; ++c) random_case<3>(rng, c, 6, 0, &count);
  if (hpf::test::world_size() > 1) {
    EXPECT_GT(count.messages, 0U);
    EXPECT_GE(2 * count.in_place, count.messages) << count.in_place << " of " << count.messages;
  }
  // The default threshold keeps long contiguous pieces in place and packs single elements.
  for (int c = 0; c < 20; ++c) random_case<2>(rng, c, 300, hpf::SectionOptions{}.in_place_min_piece_bytes);
}

// A transpose's sends read one element per local column: they are packed by the plan's tiled loops
// (an MPI datatype of single elements is several times slower), while its receives, whole blocks of
// B's contiguous dimension, move in place. The result must not change either way.
TEST(SectionAssign, TransposedSendsArePacked) {
  const int P = hpf::test::world_size();
  const index_t n = 256;
  const Layout<2> layout({n, n}, {hpf::Cyclic(64), hpf::Cyclic(64)}, ProcessGrid(MPI_COMM_WORLD, {1, P}));
  DistArray<double, 2> A("A", layout);
  DistArray<double, 2> At("At", layout);
  const std::vector<double> va = values(layout.global_size(), 0.0);
  A.scatter(0, va);
  const Section<2> all = hpf::whole_section<2>({n, n});
  const hpf::SectionPlan<double, 2> plan(layout, all, layout, all, {1, 0});
  plan.execute(At, A);
  EXPECT_EQ(plan.in_place_sends(), 0U);
  EXPECT_EQ(plan.in_place_recvs(), plan.num_recvs());
  const std::vector<double> got = At.gather(0);
  if (hpf::test::world_rank() == 0) {
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) {
        ASSERT_EQ(got[static_cast<std::size_t>(i + n * j)], va[static_cast<std::size_t>(j + n * i)])
            << "At(" << i << ", " << j << ")";
      }
  }
}

// One plan executed five times, each of a different A, with in-place and packed ends mixed.
TEST(SectionAssign, RepeatedExecutions) {
  Rng rng(505);
  InPlaceCount count;
  for (int c = 0; c < 40; ++c) random_case<1>(rng, c, c < 20 ? 40 : 400, std::nullopt, &count, 5);
  for (int c = 0; c < 40; ++c) random_case<2>(rng, c, c < 30 ? 14 : 300, std::nullopt, &count, 5);
  for (int c = 0; c < 20; ++c) random_case<3>(rng, c, 6, std::nullopt, &count, 5);
  if (hpf::test::world_size() > 1) {
    EXPECT_GT(count.messages, 0U);
    EXPECT_GT(count.in_place, 0U);
    EXPECT_LT(count.in_place, count.messages);
  }
}

TEST(SectionAssign, Random3D) {
  Rng rng(303);
  for (int c = 0; c < 60; ++c) random_case<3>(rng, c, 6);
}

TEST(SectionAssign, RankReducingSection) {
  // B(0:n-1:2, c) = A(k, 0:m-1): B's dimension 0 takes A's dimension 1; the scalar subscripts pair up.
  const int P = hpf::test::world_size();
  const index_t n = 23;
  const index_t m = (n + 1) / 2;
  const Layout<2> lb({n, 3}, {hpf::Cyclic(2), hpf::Collapsed()}, ProcessGrid(MPI_COMM_WORLD, {P}));
  const Layout<2> la({5, m}, {hpf::Block(), hpf::Cyclic(3)}, ProcessGrid(MPI_COMM_WORLD, {1, P}));
  DistArray<double, 2> A("A", la);
  DistArray<double, 2> B("B", lb);
  const std::vector<double> va = values(la.global_size(), 0.0);
  std::vector<double> vb(static_cast<std::size_t>(lb.global_size()), -1.0);
  A.scatter(0, va);
  B.scatter(0, vb);
  const Section<2> sb{{{0, n - 1, 2}, {1, 1, 1}}};
  const Section<2> sa{{{3, 3, 1}, {0, m - 1, 1}}};
  hpf::assign(B, sb, A, sa);
  const std::vector<double> got = B.gather(0);
  if (hpf::test::world_rank() == 0) {
    for (index_t i = 0; i < m; ++i)
      vb[static_cast<std::size_t>(2 * i + n)] = va[static_cast<std::size_t>(3 + 5 * i)];
    EXPECT_EQ(got, vb);
  }
  // The plan is cached: the same assignment again finds it.
  const auto p1 = hpf::cached_section_plan<double, 2>(lb, sb, la, sa);
  const auto p2 = hpf::cached_section_plan<double, 2>(lb, sb, la, sa);
  EXPECT_EQ(p1.get(), p2.get());
  EXPECT_EQ(p1->permutation()[0], 1);
  EXPECT_EQ(p1->permutation()[1], 0);
}

TEST(SectionAssign, TransposeRandomLayouts) {
  Rng rng(404);
  for (int c = 0; c < 40; ++c) {
    const hpf::Index<2> ae{rng.between(0, 17), rng.between(0, 17)};
    const Layout<2> la = random_layout<2>(rng, ae);
    const Layout<2> lc = random_layout<2>(rng, {ae[1], ae[0]});
    DistArray<double, 2> A("A", la);
    const std::vector<double> va = values(la.global_size(), 1.0);
    A.scatter(0, va);
    const DistArray<double, 2> C = hpf::transpose(A, lc);
    EXPECT_TRUE(C.layout() == lc);
    const std::vector<double> got = C.gather(0);
    if (hpf::test::world_rank() == 0) {
      std::vector<double> want(va.size());
      for (index_t i = 0; i < ae[0]; ++i)
        for (index_t j = 0; j < ae[1]; ++j)
          want[static_cast<std::size_t>(j + ae[1] * i)] = va[static_cast<std::size_t>(i + ae[0] * j)];
      EXPECT_EQ(got, want) << "case " << c << ": " << la.describe_dists() << " -> " << lc.describe_dists();
    }
  }
}

TEST(SectionAssign, Permute3D) {
  const int P = hpf::test::world_size();
  const hpf::Index<3> ae{5, 7, 4};
  const Layout<3> la(ae, {hpf::Cyclic(2), hpf::Collapsed(), hpf::Block()},
                     ProcessGrid(MPI_COMM_WORLD, {1, P}));
  const Layout<3> lc({4, 5, 7}, {hpf::Block(), hpf::Cyclic(1), hpf::Collapsed()},
                     ProcessGrid(MPI_COMM_WORLD, {P, 1}));
  DistArray<double, 3> A("A", la);
  const std::vector<double> va = values(la.global_size(), 0.0);
  A.scatter(0, va);
  const auto C = hpf::transpose(A, lc, {2, 0, 1}); // C(k, i, j) = A(i, j, k)
  const std::vector<double> got = C.gather(0);
  if (hpf::test::world_rank() == 0) {
    std::vector<double> want(va.size());
    for (index_t i = 0; i < 5; ++i)
      for (index_t j = 0; j < 7; ++j)
        for (index_t k = 0; k < 4; ++k)
          want[static_cast<std::size_t>(k + 4 * (i + 5 * j))] =
              va[static_cast<std::size_t>(i + 5 * (j + 7 * k))];
    EXPECT_EQ(got, want);
  }
}

TEST(SectionAssign, OverlappingSectionsOfOneArray) {
  // A(1:n-1) = A(0:n-2) and A(n-1:0:-1) = A(0:n-1): as if the right side were read first.
  const int P = hpf::test::world_size();
  const index_t n = 37;
  const Layout<1> la({n}, {hpf::Cyclic(3)}, ProcessGrid(MPI_COMM_WORLD, {P}));
  DistArray<double, 1> A("A", la);
  std::vector<double> v = values(n, 0.0);
  A.scatter(0, v);
  hpf::assign(A, Section<1>{{{1, n - 1, 1}}}, A, Section<1>{{{0, n - 2, 1}}});
  hpf::assign(A, Section<1>{{{n - 1, 0, -1}}}, A, Section<1>{{{0, n - 1, 1}}});
  const std::vector<double> got = A.gather(0);
  if (hpf::test::world_rank() == 0) {
    reference_assign<1>(v, {n}, {{{1, n - 1, 1}}}, v, {n}, {{{0, n - 2, 1}}}, {0});
    reference_assign<1>(v, {n}, {{{n - 1, 0, -1}}}, v, {n}, {{{0, n - 1, 1}}}, {0});
    EXPECT_EQ(got, v);
  }
}

TEST(SectionAssign, ReusablePlan) {
  const int P = hpf::test::world_size();
  const Layout<2> la({9, 8}, {hpf::Block(), hpf::Cyclic(2)}, ProcessGrid(MPI_COMM_WORLD, {1, P}));
  const Layout<2> lb({8, 9}, {hpf::Cyclic(1), hpf::Collapsed()}, ProcessGrid(MPI_COMM_WORLD, {P}));
  const Section<2> sa{{{8, 2, -2}, {1, 7, 2}}};
  const Section<2> sb{{{0, 3, 1}, {2, 8, 2}}};
  hpf::SectionPlan<double, 2> plan(lb, sb, la, sa, {1, 0});
  DistArray<double, 2> A("A", la);
  DistArray<double, 2> B("B", lb);
  for (int rep = 0; rep < 3; ++rep) {
    const std::vector<double> va = values(la.global_size(), 100.0 * rep);
    std::vector<double> vb = values(lb.global_size(), -1000.0 * rep);
    A.scatter(0, va);
    B.scatter(0, vb);
    plan.execute(B, A);
    const std::vector<double> got = B.gather(0);
    if (hpf::test::world_rank() == 0) {
      reference_assign<2>(vb, {8, 9}, sb, va, {9, 8}, sa, {1, 0});
      EXPECT_EQ(got, vb) << "repetition " << rep;
    }
  }
  // The executed plan moved every element once: sends + local copies add up over the ranks.
  index_t mine = plan.send_elements() + plan.local_copy_elements();
  index_t total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, plan.elements());
  EXPECT_EQ(plan.elements(), 16);
  // Arrays in the other roles: refused on every rank, both layouts named, nothing written.
  B.fill(-7.0);
  HPF_EXPECT_ERROR(plan.execute(A, B), "SectionPlan::execute: the target (B) array's layout",
                   "of extents (9, 8)", "is not the plan's", "of extents (8, 9)");
  EXPECT_TRUE(
      std::all_of(B.local_data(), B.local_data() + B.local_size(), [](double x) { return x == -7.0; }));
}

// hpf::assign and hpf::transpose take no options: on one node (where CTest runs every rank) they run
// their plan all at once, between nodes step by step (detail::array_section_options).
TEST(SectionAssign, AssignAndTransposeRunAllAtOnceOnOneNode) {
  const int P = hpf::test::world_size();
  const Layout<2> la({9, 8}, {hpf::Block(), hpf::Cyclic(2)}, ProcessGrid(MPI_COMM_WORLD, {1, P}));
  const Layout<2> lb({8, 9}, {hpf::Cyclic(1), hpf::Collapsed()}, ProcessGrid(MPI_COMM_WORLD, {P}));
  const bool one_node = hpf::detail::shares_one_node(lb.grid().comm());
  const char* forced = std::getenv("HPF_ONE_NODE"); // the TCP pass takes the path between nodes
  EXPECT_EQ(one_node, forced == nullptr || std::string(forced) != "0")
      << "CTest starts every rank on this host";
  const hpf::ExecMode want = one_node ? hpf::ExecMode::AllAtOnce : hpf::ExecMode::StepSynchronous;
  using Cache = hpf::detail::SectionPlanCache<double, 2>;
  hpf::clear_section_plan_cache();
  DistArray<double, 2> A("A", la);
  DistArray<double, 2> B("B", lb);
  const std::vector<double> va = values(la.global_size(), 1.0);
  std::vector<double> vb = values(lb.global_size(), -50.0);
  A.scatter(0, va);
  B.scatter(0, vb);
  const Section<2> sa{{{8, 2, -2}, {1, 7, 2}}};
  const Section<2> sb{{{0, 3, 1}, {2, 8, 2}}};
  hpf::assign(B, sb, A, sa, {1, 0});
  const std::vector<double> got = B.gather(0);
  if (hpf::test::world_rank() == 0) {
    reference_assign<2>(vb, {8, 9}, sb, va, {9, 8}, sa, {1, 0});
    EXPECT_EQ(got, vb);
  }
  ASSERT_EQ(Cache::entries().size(), 1u);
  EXPECT_EQ(Cache::entries().front().plan->options().mode, want);
  const DistArray<double, 2> C = hpf::transpose(A, lb);
  const std::vector<double> gc = C.gather(0);
  if (hpf::test::world_rank() == 0) {
    for (index_t i = 0; i < 8; ++i)
      for (index_t j = 0; j < 9; ++j)
        EXPECT_EQ(gc[static_cast<std::size_t>(i + 8 * j)], va[static_cast<std::size_t>(j + 9 * i)]);
  }
  ASSERT_EQ(Cache::entries().size(), 2u);
  EXPECT_EQ(Cache::entries().front().plan->options().mode, want);
  hpf::clear_section_plan_cache();
}

TEST(SectionAssign, HugePlanNeedsNoPerElementWork) {
  // A plan between two 2^30 x 2^30 layouts (2^60 elements, never allocated) builds at once: the
  // communication sets come from one pair period per dimension, walked by block visits (a collapsed
  // dimension is one visit), never from the elements.
  const int P = hpf::test::world_size();
  const index_t n = index_t{1} << 30;
  const Layout<2> la({n, n}, {hpf::Cyclic(3), hpf::Collapsed()}, ProcessGrid(MPI_COMM_WORLD, {P}));
  const Layout<2> lb({n, n}, {hpf::Collapsed(), hpf::Cyclic(5)}, ProcessGrid(MPI_COMM_WORLD, {P}));
  const hpf::SectionPlan<double, 2> plan(lb, {{{n - 1, 0, -1}, {0, n - 1, 1}}}, la,
                                         {{{0, n - 1, 1}, {0, n - 1, 1}}}, {1, 0});
  EXPECT_EQ(plan.elements(), n * n);
  index_t mine = plan.send_elements() + plan.local_copy_elements();
  index_t total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, n * n);
}

TEST(SectionAssign, BadInputThrowsOnEveryRank) {
  const int P = hpf::test::world_size();
  const Layout<2> l({6, 5}, {hpf::Block(), hpf::Cyclic(2)}, ProcessGrid(MPI_COMM_WORLD, {1, P}));
  DistArray<double, 2> A("A", l);
  DistArray<double, 2> B("B", l);
  const Section<2> all{{{0, 5, 1}, {0, 4, 1}}};
  HPF_EXPECT_ERROR(hpf::assign(B, all, A, Section<2>{{{0, 5, 0}, {0, 4, 1}}}), "sa[0]",
                   "stride must be != 0");
  HPF_EXPECT_ERROR(hpf::assign(B, Section<2>{{{0, 5, 1}, {0, 5, 1}}}, A, all), "sb[1] = 0:5:1",
                   "last element 5", "[0, 5)");
  HPF_EXPECT_ERROR(hpf::assign(B, Section<2>{{{0, 5, 2}, {0, 4, 1}}}, A, all), "section extents disagree",
                   "(3, 5)", "(6, 5)");
  HPF_EXPECT_ERROR(hpf::assign(B, all, A, all, {0, 0}), "perm = {0, 0}", "names dimension 0 twice");
  HPF_EXPECT_ERROR(hpf::assign(B, all, A, all, {0, 2}), "perm[1] = 2");
  HPF_EXPECT_ERROR(hpf::assign(B, all, A, all, {1, 0}), "extents disagree under the permutation", "sb[0]");
  HPF_EXPECT_ERROR(hpf::transpose(A, l), "transpose: target layout extent[0] = 6", "A's extent[1] = 5");
  if (P > 1) { // a grid of another parent communicator (every rank's own MPI_COMM_SELF)
    const Layout<2> self({6, 5}, {hpf::Block(), hpf::Cyclic(2)}, ProcessGrid(MPI_COMM_SELF, {1, 1}));
    DistArray<double, 2> S("S", self);
    HPF_EXPECT_ERROR(hpf::assign(B, all, S, all), "parent communicator has 1 ranks", "expected one parent");
  }
  // After the errors every rank is still in step: a valid assignment works.
  hpf::assign(B, all, A, all);
}

} // namespace
