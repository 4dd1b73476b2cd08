// hpf::TreeReducer on 1..7 ranks: non-commutative reductions (2x2 matrix products modulo 2^64) along
// every strategy's tree equal the left-to-right product, for values, buffers and DistArrays; plans are
// reused; costs are measured consistently; bad input throws on every rank.
#include "hpf_test.hpp"

#include <hpf/reduce/reduce.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace {

using hpf::ReduceCosts;
using hpf::ReduceStrategy;
using hpf::TreeOptions;
using hpf::TreeReducer;
using hpf::test::world_rank;
using hpf::test::world_size;

/// A 2x2 matrix over the integers modulo 2^64: its product is associative (exactly, with wrap-around)
/// and not commutative, so any out-of-order combination shows.
struct Mat {
  std::array<std::uint64_t, 4> a{1, 0, 0, 1};
  friend bool operator==(const Mat&, const Mat&) = default;
};

Mat mul(const Mat& x, const Mat& y) {
  return Mat{{x.a[0] * y.a[0] + x.a[1] * y.a[2], x.a[0] * y.a[1] + x.a[1] * y.a[3],
              x.a[2] * y.a[0] + x.a[3] * y.a[2], x.a[2] * y.a[1] + x.a[3] * y.a[3]}};
}

/// A decimal string as (value, 10^length): concatenation is associative and not commutative.
struct Digits {
  std::uint64_t v = 0;
  std::uint64_t p = 1;
};
Digits cat(const Digits& a, const Digits& b) { return Digits{a.v * b.p + b.v, a.p * b.p}; }

Mat element(std::uint64_t seed) {
  std::mt19937_64 g(seed * 7919 + 17);
  return Mat{{g(), g(), g(), g()}};
}

Mat fold(int n, std::uint64_t salt) {
  Mat acc;
  for (int r = 0; r < n; ++r) acc = mul(acc, element(static_cast<std::uint64_t>(r) + salt));
  return acc;
}

std::vector<TreeOptions> all_options(int n) {
  std::vector<TreeOptions> out;
  for (ReduceStrategy s : {ReduceStrategy::greedy, ReduceStrategy::binomial, ReduceStrategy::fibonacci,
                           ReduceStrategy::limited_transfers, ReduceStrategy::limited_reducers})
    for (int root : {0, n - 1, n / 2, (2 * n) / 3}) out.push_back({s, std::max(1, n / 2), root});
  return out;
}

TEST(TreeReducer, ValueReductionIsTheLeftToRightProduct) {
  const int n = world_size();
  for (const ReduceCosts k : {ReduceCosts{1, 1}, ReduceCosts{1, 0}, ReduceCosts{0.2, 3}})
    for (const TreeOptions& o : all_options(n)) {
      const TreeReducer R(MPI_COMM_WORLD, k, o);
      ASSERT_NO_THROW(hpf::check_rank_order(R.tree()));
      // Plan once, execute many times: the same reducer, different data.
      for (std::uint64_t salt : {0u, 100u, 200u}) {
        const std::optional<Mat> r = R.reduce(element(static_cast<std::uint64_t>(world_rank()) + salt), mul);
        if (world_rank() == o.root) {
          ASSERT_TRUE(r.has_value());
          EXPECT_EQ(*r, fold(n, salt)) << to_string(o.strategy) << " root " << o.root;
        } else {
          EXPECT_FALSE(r.has_value());
        }
      }
    }
}

TEST(TreeReducer, BufferReductionIsElementWise) {
  const int n = world_size();
  for (const TreeOptions& o : all_options(n)) {
    const TreeReducer R(MPI_COMM_WORLD, {1, 1}, o);
    const std::size_t count = 37;
    std::vector<Mat> in(count);
    for (std::size_t i = 0; i < count; ++i)
      in[i] = element(static_cast<std::uint64_t>(world_rank()) + 1000 * i);
    std::vector<Mat> out(world_rank() == o.root ? count : 0);
    R.reduce(std::span<const Mat>(in), std::span<Mat>(out), mul);
    if (world_rank() == o.root) {
      for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(out[i], fold(n, 1000 * i)) << "element " << i;
    }
  }
  // Decimal strings of rank ids, as a readable check that the fold is in rank order on the last root.
  const TreeReducer R(MPI_COMM_WORLD, {1, 1}, {ReduceStrategy::greedy, 0, n - 1});
  std::vector<Digits> mine{Digits{static_cast<std::uint64_t>(world_rank()), 10}};
  std::vector<Digits> out(1);
  R.reduce(std::span<const Digits>(mine), std::span<Digits>(out), cat);
  if (world_rank() == n - 1) {
    std::uint64_t want = 0;
    for (int r = 0; r < n; ++r) want = want * 10 + static_cast<std::uint64_t>(r);
    EXPECT_EQ(out[0].v, want);
  }
}

TEST(TreeReducer, EmptyBuffersInPlaceAndUntouchedOutputs) {
  const int n = world_size();
  for (const TreeOptions& o : all_options(n)) {
    const TreeReducer R(MPI_COMM_WORLD, {1, 1}, o);
    // Zero elements: every message is empty, the reduction still completes on every rank.
    std::vector<Mat> none;
    std::vector<Mat> out_none;
    R.reduce(std::span<const Mat>(none), std::span<Mat>(out_none), mul);
    // In place on the root; `out` on the other ranks is left as it was.
    const std::size_t count = 5;
    std::vector<Mat> buf(count);
    for (std::size_t i = 0; i < count; ++i)
      buf[i] = element(static_cast<std::uint64_t>(world_rank()) + 50 * i);
    const std::vector<Mat> mine = buf;
    const Mat marker{{7, 7, 7, 7}};
    std::vector<Mat> other(count, marker);
    if (world_rank() == o.root) {
      R.reduce(std::span<const Mat>(buf), std::span<Mat>(buf), mul);
      for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(buf[i], fold(n, 50 * i)) << "element " << i;
    } else {
      R.reduce(std::span<const Mat>(buf), std::span<Mat>(other), mul);
      EXPECT_EQ(buf, mine) << "the input of a non-root rank was modified";
      EXPECT_EQ(other, std::vector<Mat>(count, marker)) << "the output of a non-root rank was written";
    }
  }
}

TEST(TreeReducer, DistArrayContributionsInRankOrder) {
  const int n = world_size();
  const auto grid = hpf::ProcessGrid::world({n});
  const TreeReducer R(grid.comm().get(), {1, 1}, {ReduceStrategy::fibonacci, 0, n / 2});
  for (const hpf::Distribution& dist : {hpf::Block(), hpf::Cyclic(2)}) {
    const hpf::index_t extent = 3 * n + 2;
    hpf::Layout<1> L({extent}, {dist}, grid);
    hpf::DistArray<Mat, 1> A("A", L);
    hpf::forall(A, [](const hpf::Index<1>& g, Mat& x) { x = element(static_cast<std::uint64_t>(g[0])); });
    const std::optional<Mat> r = hpf::tree_reduce(R, A, mul);
    // Expected: ranks in order, each one's local elements in local order (global order for BLOCK).
    Mat want;
    const hpf::CyclicMap m = L.map(0);
    for (int p = 0; p < n; ++p)
      for (hpf::index_t l = 0; l < m.local_extent(p); ++l)
        want = mul(want, element(static_cast<std::uint64_t>(m.global(p, l))));
    if (world_rank() == n / 2) {
      ASSERT_TRUE(r.has_value());
      EXPECT_EQ(*r, want) << dist.to_string();
      if (dist.to_string() == hpf::Block().to_string()) {
        EXPECT_EQ(*r, fold(static_cast<int>(extent), 0));
      }
    } else {
      EXPECT_FALSE(r.has_value());
    }
  }
  // A grid over the even ranks only: the odd ranks hold nothing and still take part.
  std::vector<int> even;
  for (int r = 0; r < n; r += 2) even.push_back(r);
  const hpf::ProcessGrid half(MPI_COMM_WORLD, even, {static_cast<int>(even.size())});
  const TreeReducer Rw(MPI_COMM_WORLD, {1, 2}, {ReduceStrategy::greedy, 0, n - 1});
  hpf::DistArray<Mat, 1> H("H", hpf::Layout<1>({13}, {hpf::Block()}, half));
  hpf::forall(H, [](const hpf::Index<1>& g, Mat& x) { x = element(static_cast<std::uint64_t>(g[0])); });
  const std::optional<Mat> h = hpf::tree_reduce(Rw, H, mul);
  if (world_rank() == n - 1) {
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(*h, fold(13, 0));
  }
  // An empty array gives no result.
  hpf::DistArray<Mat, 1> E("E", hpf::Layout<1>({0}, {hpf::Block()}, grid));
  EXPECT_FALSE(hpf::tree_reduce(R, E, mul).has_value());
}

TEST(TreeReducer, ForwardsTheResultWhenTheSinkCannotBeTheRoot) {
  // A chain n-1 -> ... -> 1 -> 0 cannot put its sink's element in the middle of the rank order, so
  // in_rank_order keeps the sink at an end and forwards the result to the root (Canon and Antoniu, Lemma 1).
  const int n = world_size();
  hpf::ReductionTree chain;
  chain.costs = {1, 1};
  for (int i = 0; i < n; ++i) chain.parent.push_back(i - 1);
  const hpf::TreeSchedule s = hpf::evaluate_tree(chain.parent, chain.costs);
  chain.start = s.start;
  chain.inputs = s.inputs;
  chain.length = s.length;
  chain.root = 0;
  for (int root = 0; root < n; ++root) {
    const hpf::ReductionTree t = hpf::in_rank_order(chain, root);
    EXPECT_EQ(t.forward_start >= 0, root != 0 && root != n - 1) << "root " << root;
    const TreeReducer R = TreeReducer::from_tree(MPI_COMM_WORLD, t);
    const std::optional<Mat> r = R.reduce(element(static_cast<std::uint64_t>(world_rank()) + 7), mul);
    EXPECT_EQ(r.has_value(), world_rank() == root);
    if (r) {
      EXPECT_EQ(*r, fold(n, 7)) << "root " << root;
    }
  }
  // A tree for another number of ranks, or out of rank order, is refused.
  hpf::ReductionTree wrong = hpf::plan_reduction_tree(n + 1, {1, 1});
  HPF_EXPECT_ERROR(TreeReducer::from_tree(MPI_COMM_WORLD, wrong),
                   "the communicator has " + std::to_string(n) + " ranks");
  if (n >= 3) {
    hpf::ReductionTree star = hpf::plan_reduction_tree(n, {1, 1}, {ReduceStrategy::limited_reducers, 1, 0});
    std::reverse(star.inputs[0].begin(), star.inputs[0].end()); // 0 would combine n-1 before 1
    HPF_EXPECT_ERROR(TreeReducer::from_tree(MPI_COMM_WORLD, star), "not adjacent");
  }
}

TEST(TreeReducer, MeasuredCostsAgreeOnEveryRank) {
  volatile double sink = 0;
  const TreeReducer R = TreeReducer::measured(MPI_COMM_WORLD, 4096,
                                              [&] {
                                                for (int i = 0; i < 20000; ++i) sink = sink + 1e-9 * i;
                                              },
                                              {ReduceStrategy::greedy, 0, 0});
  const ReduceCosts k = R.tree().costs;
  EXPECT_GE(k.d, 0.0);
  EXPECT_GT(k.c, 0.0);
  if (world_size() == 1) {
    EXPECT_EQ(k.d, 0.0);
  } else {
    EXPECT_GT(k.d, 0.0);
  }
  // Every rank planned with the same costs, hence the same tree.
  std::array<double, 3> mine{k.d, k.c, R.tree().length};
  std::array<double, 3> lo{};
  std::array<double, 3> hi{};
  MPI_Allreduce(mine.data(), lo.data(), 3, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(mine.data(), hi.data(), 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi);
  const std::optional<Mat> r = R.reduce(element(static_cast<std::uint64_t>(world_rank())), mul);
  if (world_rank() == 0) {
    EXPECT_EQ(*r, fold(world_size(), 0));
  }
}

TEST(TreeReducer, BadInputThrowsOnEveryRank) {
  const int n = world_size();
  HPF_EXPECT_ERROR(TreeReducer(MPI_COMM_WORLD, {1, 1}, {ReduceStrategy::greedy, 0, n}), "root must be a rank",
                   "got " + std::to_string(n));
  HPF_EXPECT_ERROR(TreeReducer(MPI_COMM_WORLD, {1, 1}, {ReduceStrategy::greedy, 0, -1}), "got -1");
  HPF_EXPECT_ERROR(TreeReducer(MPI_COMM_WORLD, {-1, 1}), "transfer cost d");
  HPF_EXPECT_ERROR(TreeReducer(MPI_COMM_WORLD, {1, -1}), "computation cost c");
  HPF_EXPECT_ERROR(TreeReducer(MPI_COMM_WORLD, {1, 1}, {ReduceStrategy::limited_transfers, 0, 0}),
                   "K must be >= 1");
  HPF_EXPECT_ERROR(hpf::measure_transfer_cost(MPI_COMM_WORLD, 16, 0), "repeats must be >= 1, got 0");
  HPF_EXPECT_ERROR(hpf::measure_compute_cost(
                       MPI_COMM_WORLD, [] {}, -2),
                   "repeats must be >= 1, got -2");
  const TreeReducer R(MPI_COMM_WORLD, {1, 1}, {ReduceStrategy::greedy, 0, 0});
  std::vector<int> in(4, 1);
  std::vector<int> out(2);
  if (world_rank() == 0) {
    HPF_EXPECT_ERROR(R.reduce(std::span<const int>(in), std::span<int>(out), std::plus<>{}),
                     "output on root");
  }
  // A DistArray on a different communicator (here a grid over MPI_COMM_SELF) is refused.
  const hpf::ProcessGrid self(MPI_COMM_SELF, {1});
  hpf::DistArray<int, 1> A("A", hpf::Layout<1>({4}, {hpf::Block()}, self));
  if (n > 1) {
    HPF_EXPECT_ERROR(hpf::tree_reduce(R, A, std::plus<>{}), "not the grid's parent communicator");
  }
}

} // namespace
