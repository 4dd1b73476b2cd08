// All-to-many schedulers of Wang and Ranka on thousands of random communication matrices: every schedule
// realises its COM with partial permutations; RS_NL phases are link-disjoint under each routing
// model; optimal uses exactly max-degree phases; RS_N stays within d + log d phases on average for
// random d-regular patterns (the bound of Wang and Ranka §4.2).
#include <hpf/schedule/all_to_many.hpp>

#include "hpf_test.hpp"
#include "test_scale.hpp"

#include <cmath>
#include <map>

namespace {

using hpf::AllToManyAlgo;
using hpf::CommMatrix;
using hpf::Routing;
using hpf::RoutingKind;
using hpf::Schedule;

/// n x n, every row sends to `density` distinct destinations (itself allowed), lengths 1..max_len.
CommMatrix random_com(int n, int density, hpf::index_t max_len, hpf::detail::SplitMix64& rng) {
  CommMatrix m(n, n);
  std::vector<int> perm(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) perm[static_cast<std::size_t>(j)] = j;
    for (int k = 0; k < density; ++k) {
      const auto w = k + static_cast<int>(rng.below(static_cast<std::uint64_t>(n - k)));
      std::swap(perm[static_cast<std::size_t>(k)], perm[static_cast<std::size_t>(w)]);
      m.add(i, perm[static_cast<std::size_t>(k)],
            1 + static_cast<hpf::index_t>(rng.below(static_cast<std::uint64_t>(max_len))));
    }
  }
  return m;
}

bool is_pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

TEST(AllToMany, EveryScheduleIsValidOnRandomMatrices) {
  hpf::detail::SplitMix64 rng(2024);
  std::map<std::string, int> checked;
  // 200 under sanitizers (test_scale.hpp): RS_NL on a 1 x n mesh (prime n) needs hundreds of
  // phases, each scanning every pending message's path, and ASan makes that ~25x slower.
  const int trials = hpf::test::cases(2000);
  for (int t = 0; t < trials; ++t) {
    // Sizes skewed towards small n keep the run short while still reaching n = 128 and d = n.
    const int n = t % 20 == 0 ? 65 + static_cast<int>(rng.below(64)) : 1 + static_cast<int>(rng.below(64));
    const int density = 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
    const CommMatrix com = random_com(n, density, 1000, rng);
    const std::uint64_t seed = rng.next();
    auto check = [&](const Schedule& s, const std::string& name) {
      const std::string problem = hpf::check_schedule(s, com);
      ASSERT_EQ(problem, "") << name << " on n=" << n << " density=" << density << " seed=" << seed;
      ++checked[name];
    };
    const Schedule ac = hpf::schedule_ac(com);
    check(ac, "ac");
    const Schedule lp = hpf::schedule_lp(com);
    check(lp, "lp");
    if (is_pow2(n)) {
      // Figure 2: every LP phase is one XOR offset, hence pairwise and e-cube link-disjoint.
      for (const hpf::Step& st : lp.steps()) {
        const int k = st.messages.front().src ^ st.messages.front().dst;
        for (const hpf::Message& m : st.messages) ASSERT_EQ(m.src ^ m.dst, k);
      }
      ASSERT_EQ(hpf::check_link_contention(lp, Routing::hypercube(n)), "");
    }
    const Schedule rsn = hpf::schedule_rs_n(com, seed);
    check(rsn, "rs_n");
    ASSERT_GE(rsn.num_steps(), com.max_degree());
    std::vector<Routing> models{Routing::full(n), Routing::mesh2d(n)};
    if (is_pow2(n)) models.push_back(Routing::hypercube(n));
    for (const Routing& r : models) {
      const Schedule s = hpf::schedule_rs_nl(com, r, seed);
      check(s, "rs_nl/" + hpf::to_string(r.kind()));
      ASSERT_EQ(hpf::check_link_contention(s, r), "") << r.describe() << " density=" << density;
    }
    const Schedule opt = hpf::schedule_optimal(com);
    check(opt, "optimal");
    ASSERT_EQ(opt.num_steps(), com.max_degree()) << "n=" << n << " density=" << density;
    for (const hpf::Step& st : opt.steps()) ASSERT_FALSE(st.messages.empty());
  }
  EXPECT_EQ(checked["ac"], trials);
  EXPECT_EQ(checked["optimal"], trials);
  EXPECT_GT(checked["rs_nl/hypercube"], trials / 20);
}

TEST(AllToMany, RectangularMatrices) {
  hpf::detail::SplitMix64 rng(7);
  for (int t = 0; t < 200; ++t) {
    const int ns = 1 + static_cast<int>(rng.below(40));
    const int nr = 1 + static_cast<int>(rng.below(40));
    CommMatrix com(ns, nr);
    const auto entries = static_cast<int>(rng.below(static_cast<std::uint64_t>(ns * nr)));
    for (int e = 0; e < entries; ++e)
      com.add(static_cast<int>(rng.below(static_cast<std::uint64_t>(ns))),
              static_cast<int>(rng.below(static_cast<std::uint64_t>(nr))),
              1 + static_cast<hpf::index_t>(rng.below(9)));
    ASSERT_EQ(hpf::check_schedule(hpf::schedule_ac(com), com), "");
    ASSERT_EQ(hpf::check_schedule(hpf::schedule_rs_n(com, static_cast<std::uint64_t>(t)), com), "");
    const Schedule opt = hpf::schedule_optimal(com);
    ASSERT_EQ(hpf::check_schedule(opt, com), "");
    ASSERT_EQ(opt.num_steps(), com.max_degree());
  }
}

TEST(AllToMany, EmptyMatrix) {
  const CommMatrix com(4, 4);
  for (AllToManyAlgo a : hpf::all_to_many_algos()) {
    const Schedule s = hpf::schedule_all_to_many(com, {a, RoutingKind::Hypercube, 3});
    EXPECT_EQ(s.num_steps(), 0) << hpf::to_string(a);
    EXPECT_EQ(hpf::check_schedule(s, com), "");
  }
}

TEST(AllToMany, RsNWithinPaperBoundOnRegularPatterns) {
  // §4.2: "The number of iterations needed ... is upper bounded by d + log d" for d messages to
  // random destinations; checked on the average over 20 random d-regular patterns of 64 nodes.
  const int n = 64;
  for (int d : {1, 2, 4, 8, 16, 32, 48, 63}) {
    double phases = 0;
    const int samples = 20;
    for (int s = 0; s < samples; ++s) {
      const CommMatrix com = hpf::random_regular_com(n, d, 100, static_cast<std::uint64_t>(1000 * d + s));
      const Schedule sch = hpf::schedule_rs_n(com, static_cast<std::uint64_t>(s));
      ASSERT_EQ(hpf::check_schedule(sch, com), "");
      phases += sch.num_steps();
    }
    phases /= samples;
    const double bound = d + std::log2(static_cast<double>(d));
    EXPECT_LE(phases, bound) << "d=" << d << ": RS_N averages " << phases << " phases; bound " << bound;
    EXPECT_GE(phases, d);
  }
}

TEST(AllToMany, RandomRegularPattern) {
  for (auto [n, d] : {std::pair{1, 0}, {2, 1}, {10, 3}, {64, 8}, {17, 16}}) {
    const CommMatrix com = hpf::random_regular_com(n, d, 5, 42);
    EXPECT_EQ(static_cast<int>(com.entries().size()), n * d);
    for (int v : com.row_degrees()) EXPECT_EQ(v, d);
    for (int v : com.col_degrees()) EXPECT_EQ(v, d);
    for (const hpf::Message& m : com.entries()) {
      EXPECT_NE(m.src, m.dst);
      EXPECT_EQ(m.len, 5);
    }
    EXPECT_EQ(com, hpf::random_regular_com(n, d, 5, 42));
  }
  // The switches break the circulant structure: LP (shift phases for n = 48) needs more than d.
  const CommMatrix com = hpf::random_regular_com(48, 4, 1, 3);
  EXPECT_GT(hpf::schedule_lp(com).num_steps(), 4);
  HPF_EXPECT_ERROR((void)hpf::random_regular_com(8, 8, 1, 1), "d must be in [0, n - 1]", "8");
  HPF_EXPECT_ERROR((void)hpf::random_regular_com(8, 2, 0, 1), "len", "0");
}

TEST(AllToMany, DeterministicGivenSeed) {
  const CommMatrix com = hpf::random_regular_com(32, 6, 10, 9);
  for (AllToManyAlgo a : hpf::all_to_many_algos()) {
    const hpf::AllToManyOptions opt{a, RoutingKind::Mesh2D, 77};
    const Schedule s1 = hpf::schedule_all_to_many(com, opt);
    const Schedule s2 = hpf::schedule_all_to_many(com, opt);
    ASSERT_EQ(s1.num_steps(), s2.num_steps());
    for (int k = 0; k < s1.num_steps(); ++k)
      EXPECT_EQ(s1.steps()[static_cast<std::size_t>(k)].messages,
                s2.steps()[static_cast<std::size_t>(k)].messages);
  }
  // Different seeds give different RS_N schedules (with overwhelming probability for this size).
  const Schedule a = hpf::schedule_rs_n(com, 1);
  const Schedule b = hpf::schedule_rs_n(com, 2);
  bool differ = a.num_steps() != b.num_steps();
  for (int k = 0; !differ && k < a.num_steps(); ++k)
    differ =
        a.steps()[static_cast<std::size_t>(k)].messages != b.steps()[static_cast<std::size_t>(k)].messages;
  EXPECT_TRUE(differ);
}

TEST(AllToMany, RsNlPrefersPairwiseExchanges) {
  // A symmetric pattern (x -> y iff y -> x) on the fully connected model: with priority to
  // pairwise exchanges almost every message travels together with its reverse.
  CommMatrix com(32, 32);
  const CommMatrix base = hpf::random_regular_com(32, 5, 1, 5);
  for (const hpf::Message& m : base.entries()) {
    com.add(m.src, m.dst, 1);
    com.add(m.dst, m.src, 1);
  }
  auto paired_fraction = [&](const Schedule& s) {
    std::size_t paired = 0;
    std::size_t total = 0;
    for (const hpf::Step& st : s.steps())
      for (const hpf::Message& m : st.messages) {
        ++total;
        for (const hpf::Message& o : st.messages)
          if (o.src == m.dst && o.dst == m.src) ++paired;
      }
    return static_cast<double>(paired) / static_cast<double>(total);
  };
  const double nl = paired_fraction(hpf::schedule_rs_nl(com, Routing::full(32), 4));
  const double n = paired_fraction(hpf::schedule_rs_n(com, 4));
  EXPECT_GT(nl, 0.9);
  EXPECT_GT(nl, n);
}

TEST(AllToMany, CompressedCom) {
  const CommMatrix com = hpf::random_regular_com(20, 7, 3, 11);
  const hpf::CompressedCom c = hpf::compress_com(com, 5);
  EXPECT_EQ(c.d, 7);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(c.prt[static_cast<std::size_t>(i)], 6);
    std::vector<int> row;
    for (int z = 0; z < c.d; ++z) {
      row.push_back(c.dst_at(i, z));
      EXPECT_EQ(c.len_at(i, z), com.at(i, c.dst_at(i, z)));
    }
    std::vector<int> want;
    for (const hpf::Message& m : com.entries())
      if (m.src == i) want.push_back(m.dst);
    std::vector<int> sorted = row;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, want);
  }
  // Rows are shuffled (§4.2): not every row stays in ascending order.
  bool shuffled = false;
  for (int i = 0; i < 20 && !shuffled; ++i)
    for (int z = 1; z < c.d; ++z) shuffled = shuffled || c.dst_at(i, z) < c.dst_at(i, z - 1);
  EXPECT_TRUE(shuffled);
  // Uneven rows: padding is -1 with length 0.
  CommMatrix uneven(3, 3);
  uneven.add(0, 1, 4);
  uneven.add(0, 2, 4);
  uneven.add(2, 2, 1);
  const hpf::CompressedCom u = hpf::compress_com(uneven, 1);
  EXPECT_EQ(u.d, 2);
  EXPECT_EQ(u.prt, (std::vector<int>{1, -1, 0}));
  EXPECT_EQ(u.dst_at(1, 0), -1);
  EXPECT_EQ(u.dst_at(2, 1), -1);
  EXPECT_EQ(u.len_at(2, 1), 0);
}

TEST(AllToMany, BadInputs) {
  const CommMatrix rect(3, 4);
  HPF_EXPECT_ERROR((void)hpf::schedule_lp(rect), "schedule_lp", "square", "3 x 4");
  HPF_EXPECT_ERROR((void)hpf::schedule_rs_nl(CommMatrix(8, 8), Routing::full(4), 1), "full(4)", "n = 8");
  HPF_EXPECT_ERROR(
      (void)hpf::schedule_all_to_many(CommMatrix(6, 6), {AllToManyAlgo::RS_NL, RoutingKind::Hypercube, 1}),
      "power of two", "6");
  HPF_EXPECT_ERROR((void)hpf::parse_all_to_many_algo("fastest", "--algo"), "--algo", "fastest", "rs-nl");
  EXPECT_EQ(hpf::parse_all_to_many_algo("rs_nl"), AllToManyAlgo::RS_NL);
}

TEST(AllToMany, CostModel) {
  // Cost = alpha * phases + beta * sum of the longest message per phase (Wang and Ranka §2.1).
  CommMatrix com(2, 2);
  com.add(0, 1, 10);
  com.add(1, 0, 30);
  com.add(0, 0, 5);
  const Schedule lp = hpf::schedule_lp(com); // phase 0: 0->0 (5); phase 1: 0<->1 (30)
  ASSERT_EQ(lp.num_steps(), 2);
  EXPECT_DOUBLE_EQ(lp.cost(2.0, 0.5), 2.0 * 2 + 0.5 * (5 + 30));
}

} // namespace
