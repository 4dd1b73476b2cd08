// The pure half of measure_platform: which pairs are measured, how measurements become a
// platform (pairwise and Lowekamp's cluster model), its JSON. Against brute force on random cases.
#include "hpf_test.hpp"
#include "test_scale.hpp"

#include <hpf/steady/measure.hpp>
#include <hpf/steady/steady.hpp>

#include <cmath>
#include <random>
#include <set>
#include <vector>

namespace {

using namespace hpf::steady;

TEST(SteadyMeasure, PairsAreEveryPairUpToPairwiseMaxAndOPLogPAbove) {
  for (int P = 1; P <= 200; ++P)
    for (int pmax : {1, 2, 8, 64}) {
      const auto pairs = measurement_pairs(P, pmax);
      std::set<std::pair<int, int>> seen(pairs.begin(), pairs.end());
      ASSERT_EQ(seen.size(), pairs.size()) << "P " << P << ": a pair twice";
      for (const auto& [a, b] : pairs) ASSERT_TRUE(a >= 0 && a < b && b < P) << P << ": " << a << "," << b;
      if (P <= pmax) {
        EXPECT_EQ(pairs.size(), static_cast<std::size_t>(P * (P - 1) / 2)) << "P " << P;
        continue;
      }
      const int logp = static_cast<int>(std::ceil(std::log2(P)));
      EXPECT_LE(pairs.size(), static_cast<std::size_t>(P * logp)) << "P " << P;
      // Brute force: the measured pairs connect every rank (breadth-first search from rank 0).
      std::vector<std::vector<int>> neighbours(static_cast<std::size_t>(P));
      for (const auto& [a, b] : pairs) {
        neighbours[static_cast<std::size_t>(a)].push_back(b);
        neighbours[static_cast<std::size_t>(b)].push_back(a);
      }
      std::vector<bool> reached(static_cast<std::size_t>(P), false);
      std::vector<int> todo{0};
      reached[0] = true;
      while (!todo.empty()) {
        const int v = todo.back();
        todo.pop_back();
        for (const int y : neighbours[static_cast<std::size_t>(v)])
          if (!reached[static_cast<std::size_t>(y)]) {
            reached[static_cast<std::size_t>(y)] = true;
            todo.push_back(y);
          }
      }
      for (int v = 0; v < P; ++v)
        EXPECT_TRUE(reached[static_cast<std::size_t>(v)]) << "P " << P << " rank " << v;
    }
  HPF_EXPECT_ERROR(measurement_pairs(0, 8), "ranks", "got 0");
  HPF_EXPECT_ERROR(measurement_pairs(4, 0), "pairwise_max", "got 0");
}

TEST(SteadyMeasure, RoundSignificantAgainstPrintf) {
  std::mt19937_64 rng(14);
  std::uniform_real_distribution<double> ex(-9, 9), mant(1, 10);
  for (int i = 0; i < hpf::test::cases(5000); ++i) {
    const double x = mant(rng) * std::pow(10.0, std::floor(ex(rng)));
    for (int d = 1; d <= 4; ++d) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*e", d - 1, x);
      EXPECT_NEAR(round_significant(x, d), std::strtod(buf, nullptr), 1e-9 * x) << x << " digits " << d;
    }
  }
  HPF_EXPECT_ERROR(round_significant(0, 2), "x", "got 0");
  HPF_EXPECT_ERROR(round_significant(1, 0), "digits", "got 0");
}

// Random pairwise measurements: every edge cost is the measured time in units, rounded to `digits`.
TEST(SteadyMeasure, PairwisePlatformMatchesTheMeasurements) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> secs(1e-6, 1e-4), task(1e-9, 1e-6);
  MeasureOptions o;
  for (int i = 0; i < hpf::test::cases(300); ++i) {
    const int P = 1 + static_cast<int>(rng() % 7);
    MeasuredCosts c;
    c.ranks = P;
    c.pairs = measurement_pairs(P, o.pairwise_max);
    for (std::size_t k = 0; k < c.pairs.size(); ++k) c.seconds.push_back(secs(rng));
    const bool with_op = rng() % 2 == 0;
    for (int r = 0; r < P; ++r) c.task_seconds.push_back(with_op ? task(rng) : 0.0);
    const MeasuredPlatform m = platform_from_costs(c, o);
    ASSERT_EQ(m.platform.node_count(), P);
    ASSERT_EQ(m.platform.edge_count(), P * (P - 1));
    double smallest = 1e9;
    for (double s : c.seconds) smallest = std::min(smallest, s);
    for (double s : c.task_seconds)
      if (s > 0) smallest = std::min(smallest, s);
    if (P > 1 || with_op) {
      EXPECT_DOUBLE_EQ(m.time_unit, smallest / o.resolution);
    }
    for (std::size_t k = 0; k < c.pairs.size(); ++k) {
      const auto [a, b] = c.pairs[k];
      const double want = std::max(1.0, round_significant(c.seconds[k] / m.time_unit, o.digits));
      for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
        const auto e = m.platform.find_edge(x, y);
        ASSERT_TRUE(e.has_value());
        EXPECT_EQ(to_double(m.platform.edge(*e).cost), std::round(want)) << x << "->" << y;
      }
    }
    for (int r = 0; r < P; ++r) {
      const double t = c.task_seconds[static_cast<std::size_t>(r)];
      const double want =
          t > 0 ? 1.0 / std::round(std::max(1.0, round_significant(t / m.time_unit, o.digits))) : 1.0;
      EXPECT_DOUBLE_EQ(to_double(m.platform.node(r).speed), want) << "rank " << r;
    }
    // JSON round trip: the same platform, time unit and clusters.
    const MeasuredPlatform back = MeasuredPlatform::from_json(m.to_json());
    EXPECT_EQ(back.platform.to_json(), m.platform.to_json());
    EXPECT_EQ(back.time_unit, m.time_unit);
    EXPECT_EQ(back.clusters, m.clusters);
    EXPECT_EQ(back.value_seconds, m.value_seconds);
  }
}

// The marginal time of a value (value_seconds) passes from the costs to the platform and its JSON;
// a negative one is refused, and JSON without it (an older file) reads as 0 (not measured).
TEST(SteadyMeasure, ValueSecondsKeptAndChecked) {
  MeasuredCosts c;
  c.ranks = 2;
  c.pairs = {{0, 1}};
  c.seconds = {2e-6};
  c.task_seconds = {0, 0};
  c.value_seconds = 3e-8;
  const MeasuredPlatform m = platform_from_costs(c, MeasureOptions{});
  EXPECT_EQ(m.value_seconds, 3e-8);
  EXPECT_EQ(MeasuredPlatform::from_json(m.to_json()).value_seconds, 3e-8);
  c.value_seconds = -1;
  HPF_EXPECT_ERROR((void)platform_from_costs(c, MeasureOptions{}), "value_seconds must be >= 0, got -1");
  std::string old = m.to_json();
  const auto at = old.find("\"value_seconds\"");
  ASSERT_NE(at, std::string::npos);
  const auto comma = old.rfind(',', at); // drop ,"value_seconds":x wherever it sits
  old.erase(comma, old.find_first_of(",}", at) - comma);
  EXPECT_EQ(MeasuredPlatform::from_json(old).value_seconds, 0);
}

// Two clusters of ranks (fast inside, 50x slower between): Lowekamp finds them from the O(P log P)
// pairs, and every pair (measured or not) gets its clusters' median.
TEST(SteadyMeasure, ClusterModelFromSparsePairs) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < hpf::test::cases(100); ++i) {
    const int P = 9 + static_cast<int>(rng() % 56);
    const int split = 1 + static_cast<int>(rng() % static_cast<std::uint64_t>(P - 1));
    auto side = [&](int r) { return r < split ? 0 : 1; };
    MeasuredCosts c;
    c.ranks = P;
    MeasureOptions o;
    c.pairs = measurement_pairs(P, o.pairwise_max);
    std::uniform_real_distribution<double> jitter(1.0, 1.1);
    for (const auto& [a, b] : c.pairs) c.seconds.push_back((side(a) == side(b) ? 1e-6 : 5e-5) * jitter(rng));
    c.task_seconds.assign(static_cast<std::size_t>(P), 0.0);
    const MeasuredPlatform m = platform_from_costs(c, o);
    ASSERT_EQ(m.clusters.size(), static_cast<std::size_t>(P));
    for (int a = 0; a < P; ++a)
      for (int b = 0; b < P; ++b) {
        EXPECT_EQ(m.clusters[static_cast<std::size_t>(a)] == m.clusters[static_cast<std::size_t>(b)],
                  side(a) == side(b))
            << "P " << P << " split " << split << ": ranks " << a << ", " << b;
        if (a == b) continue;
        const double cost = to_double(m.platform.edge(*m.platform.find_edge(a, b)).cost) * m.time_unit;
        if (side(a) == side(b))
          EXPECT_LT(cost, 1.3e-6) << a << "->" << b;
        else
          EXPECT_GT(cost, 4e-5) << a << "->" << b;
      }
  }
}

TEST(SteadyMeasure, BadInputNamesTheArgument) {
  MeasuredCosts c;
  c.ranks = 2;
  c.pairs = {{0, 1}};
  c.seconds = {-1.0};
  c.task_seconds = {0, 0};
  HPF_EXPECT_ERROR(platform_from_costs(c, {}), "unit message time", "got -1");
  c.seconds = {1e-6};
  c.pairs = {{0, 2}};
  HPF_EXPECT_ERROR(platform_from_costs(c, {}), "pair (0, 2)");
  c.pairs = {{0, 1}};
  c.task_seconds = {0};
  HPF_EXPECT_ERROR(platform_from_costs(c, {}), "task_seconds", "expected one per rank (2)");
  c.task_seconds = {0, 0};
  MeasureOptions o;
  o.digits = 0;
  HPF_EXPECT_ERROR(platform_from_costs(c, o), "digits", "got 0");
  HPF_EXPECT_ERROR(MeasuredPlatform::from_json("{\"platform\": {}}"), "time_unit");
  HPF_EXPECT_ERROR(MeasuredPlatform::from_json("not json"), "not JSON");
}

} // namespace
