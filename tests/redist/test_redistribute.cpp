// REDISTRIBUTE on real data: every element carries a value computed from its global index, is moved
// by RedistributionPlan / DistArray::redistribute / hpf::redistribute, and is checked on its new
// owner. Covers 1-D to 4-D, P != Q, identical / overlapping / disjoint grids and ranks in neither,
// extents that are multiples of nothing, M = 0, every strategy, plan reuse and the plan cache,
// split phase, and the errors (which must leave the data untouched).
#include "hpf_test.hpp"

#include <hpf/hpf.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using hpf::Cyclic;
using hpf::DistArray;
using hpf::Index;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::RedistOptions;
using hpf::Strategy;
using hpf::test::world_rank;
using hpf::test::world_size;

const std::vector<Strategy>& all_strategies() { return hpf::all_strategies(); }

/// RedistOptions::in_place_min_piece_bytes for the options of opts(): the default, or set by the
/// in-place tests (every message in place, or a different choice on even and odd ranks).
std::size_t g_in_place_min = RedistOptions{}.in_place_min_piece_bytes;

/// Fixed cost model, so that tests do not measure the network for every new grid.
RedistOptions opts(Strategy s) {
  RedistOptions o;
  o.strategy = s;
  o.alpha = 1e-6;
  o.beta = 1e-9;
  o.in_place_min_piece_bytes = g_in_place_min;
  return o;
}

/// The value every test stores at global index g (unique per element, exact in a double).
template <int N> double value_at(const Index<N>& g, double salt) {
  double v = salt;
  double scale = 1;
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
    v += static_cast<double>(g[d]) * scale;
    scale *= 4096;
  }
  return v;
}

template <int N> void fill(DistArray<double, N>& A, double salt) {
  hpf::forall(A, [salt](const Index<N>& g, double& x) { x = value_at<N>(g, salt); });
}

/// Number of local elements of A whose value is not value_at(g, salt).
template <int N> index_t wrong(DistArray<double, N>& A, double salt) {
  index_t bad = 0;
  std::vector<index_t> flags(static_cast<std::size_t>(A.local_size()), 0);
  hpf::forall(A, [&](const Index<N>& g, double& x) {
    if (x != value_at<N>(g, salt)) {
      const auto off = static_cast<std::size_t>(&x - A.local_data());
      flags[off] = 1;
    }
  });
  for (index_t f : flags) bad += f;
  return bad;
}

/// Runs `ex` from A into B `times` times, each with new values in A, and checks B after each (a
/// repeated execution reuses its buffers and persistent requests).
void expect_repeated_executions(hpf::RedistributionExecutor<1>& ex, DistArray<double, 1>& A,
                                DistArray<double, 1>& B, int times, double step) {
  for (int k = 0; k < times; ++k) {
    const double salt = step * (k + 1);
    fill(A, salt);
    ex.execute(A, B);
    ASSERT_EQ(wrong(B, salt), 0) << "execution " << k;
  }
}

/// An executor of `plan` between arrays of its source and target layouts, executed `times` times.
void expect_plan_moves_values(const hpf::RedistributionPlan<1>& plan, int times, double step) {
  hpf::RedistributionExecutor<1> ex(plan);
  DistArray<double, 1> A("A", plan.source());
  DistArray<double, 1> B("B", plan.target());
  expect_repeated_executions(ex, A, B, times, step);
}

/// A 1-D grid over `count` consecutive ranks of MPI_COMM_WORLD starting at `first` (wrapping).
ProcessGrid line(int first, int count) {
  const int n = world_size();
  std::vector<int> ranks;
  for (int k = 0; k < count; ++k) ranks.push_back((first + k) % n);
  return ProcessGrid(MPI_COMM_WORLD, ranks, {count});
}

struct Case1D {
  int src_first, src_count;
  hpf::Distribution src_dist;
  int dst_first, dst_count;
  hpf::Distribution dst_dist;
  index_t M;
};

std::string describe(const Case1D& c) {
  return "src ranks [" + std::to_string(c.src_first) + "+" + std::to_string(c.src_count) + ") " +
         c.src_dist.to_string() + " -> dst ranks [" + std::to_string(c.dst_first) + "+" +
         std::to_string(c.dst_count) + ") " + c.dst_dist.to_string() + ", M=" + std::to_string(c.M);
}

/// The 1-D cases for the current world size: P = Q, P != Q, identical, overlapping, disjoint grids
/// (with ranks in neither when the world is large enough), extents that are multiples of nothing.
std::vector<Case1D> cases_1d() {
  const int n = world_size();
  const int half = std::max(1, n / 2);
  const int rest = std::max(1, n - half);
  std::vector<Case1D> c = {
      {0, n, Cyclic(3), 0, n, Cyclic(5), 1009},             // CYCLIC(3) -> CYCLIC(5) of Desprez et al.
      {0, n, Cyclic(7), 0, n, Cyclic(11), 997},             // Ex. 2's block sizes
      {0, n, Cyclic(4), 0, n, Cyclic(4), 101},              // nothing moves between ranks
      {0, n, hpf::Block(), 0, n, Cyclic(1), 1000},          // BLOCK -> CYCLIC
      {0, n, Cyclic(2), 0, n, Cyclic(3), 5},                // M < P r: some ranks own nothing
      {0, n, Cyclic(3), 0, n, Cyclic(5), 0},                // M = 0
      {0, half, Cyclic(3), 0, n, Cyclic(5), 1013},          // P != Q, overlapping
      {0, n, Cyclic(4), n - rest, rest, Cyclic(3), 611},    // P != Q, overlapping the other way
      {0, half, Cyclic(2), half % n, rest, Cyclic(3), 523}, // disjoint when n >= 2
      {n - 1, 1, Cyclic(5), 0, 1, hpf::Block(), 77},        // one rank to another, others in neither
      {1 % n, std::max(1, n - 2), Cyclic(6), 0, half, Cyclic(4), 389}, // ranks in neither when n >= 3
  };
  return c;
}

void run_1d(const Case1D& c, const RedistOptions& o) {
  SCOPED_TRACE(describe(c) + ", strategy " + hpf::to_string(o.strategy));
  const Layout<1> src({c.M}, {c.src_dist}, line(c.src_first, c.src_count));
  const Layout<1> dst({c.M}, {c.dst_dist}, line(c.dst_first, c.dst_count));
  if (o.strategy == Strategy::Class) {
    // Prop. 3 (Desprez et al.) needs gcd(r', Q) = gcd(s', P) = 1; otherwise the plan refuses, naming why.
    const auto sm = src.map(0);
    const auto dm = dst.map(0);
    if (!hpf::class_schedule_applies({sm.P, sm.r, dm.P, dm.r, c.M})) {
      HPF_EXPECT_ERROR(hpf::RedistributionPlan<1>(src, dst, o), "gcd");
      return;
    }
  }
  const hpf::RedistributionPlan<1> plan(src, dst, o);
  DistArray<double, 1> A("A", src);
  DistArray<double, 1> B("B", dst);
  index_t moved = 0;
  for (double salt : {0.25, 0.75}) { // executed twice: the plan and its executor are reusable
    fill(A, salt);
    plan.execute(A, B);
    EXPECT_EQ(wrong(B, salt), 0);
    EXPECT_EQ(wrong(A, salt), 0) << "the source must not change";
    moved += B.local_size();
  }
  // Every element arrives exactly once: local sizes add up to M on the target grid.
  index_t total = 0;
  const index_t mine = B.local_size();
  HPF_MPI_CHECK(MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
  EXPECT_EQ(total, c.M);
  EXPECT_EQ(plan.send_elements() + plan.local_copy_elements(), A.local_size());
  EXPECT_EQ(plan.recv_elements() + plan.local_copy_elements(), B.local_size());
  (void)moved;
}

TEST(Redistribute, OneDimensionalEveryStrategyEveryGridRelation) {
  for (const Case1D& c : cases_1d())
    for (Strategy s : all_strategies()) run_1d(c, opts(s));
}

// The per-dimension and product schedules realise the communication grids (validated) and the
// product schedule's messages are exactly what the ranks exchange (element-by-element count).
TEST(Redistribute, ProductScheduleRealisesTheTwoDimensionalPattern) {
  const int n = world_size();
  const ProcessGrid g1 = ProcessGrid(MPI_COMM_WORLD, {n, 1});
  const ProcessGrid g2 = ProcessGrid(MPI_COMM_WORLD, {1, n});
  const Layout<2> src({23, 17}, {Cyclic(3), Cyclic(2)}, g1);
  const Layout<2> dst({23, 17}, {Cyclic(5), Cyclic(4)}, g2);
  for (Strategy s : {Strategy::Caterpillar, Strategy::KoenigStepwise, Strategy::KoenigGreedy}) {
    const hpf::RedistributionPlan<2> plan(src, dst, opts(s));
    hpf::CommMatrix want(g1.size(), g2.size());
    for (index_t j = 0; j < 17; ++j)
      for (index_t i = 0; i < 23; ++i) want.add(src.owner({i, j}), dst.owner({i, j}), 1);
    EXPECT_EQ(hpf::check_schedule(plan.schedule(), want), "") << hpf::to_string(s);
    for (int d = 0; d < 2; ++d) EXPECT_EQ(hpf::check_schedule(plan.dim_schedule(d), plan.dim_grid(d)), "");
    // NS multiplies (DESIGN.md): the product has the product of the per-dimension step counts.
    EXPECT_EQ(plan.schedule().num_steps(),
              plan.dim_schedule(0).num_steps() * plan.dim_schedule(1).num_steps());
  }
}

template <int N> void run_nd(const Layout<N>& src, const Layout<N>& dst, Strategy s) {
  SCOPED_TRACE(src.describe_dists() + " -> " + dst.describe_dists() + " " + hpf::to_string(s));
  if (s == Strategy::Class) {
    bool applies = true;
    for (int d = 0; d < N; ++d) {
      const auto sm = src.map(d);
      const auto dm = dst.map(d);
      applies = applies && hpf::class_schedule_applies({sm.P, sm.r, dm.P, dm.r, sm.n});
    }
    if (!applies) {
      HPF_EXPECT_ERROR(hpf::RedistributionPlan<N>(src, dst, opts(s)), "gcd");
      return;
    }
  }
  DistArray<double, N> A("A", src);
  fill(A, 0.5);
  const hpf::RedistributionPlan<N> plan(src, dst, opts(s));
  DistArray<double, N> B("B", dst);
  plan.execute(A, B);
  EXPECT_EQ(wrong(B, 0.5), 0);
  fill(A, 0.125);
  plan.execute(A, B);
  EXPECT_EQ(wrong(B, 0.125), 0);
}

/// Factors n into a near-square a x b (a >= b).
std::pair<int, int> near_square(int n) {
  int b = 1;
  for (int k = 1; k * k <= n; ++k)
    if (n % k == 0) b = k;
  return {n / b, b};
}

void two_dimensional() {
  const int n = world_size();
  const auto [a, b] = near_square(n);
  const ProcessGrid sq(MPI_COMM_WORLD, {a, b});
  const ProcessGrid tall(MPI_COMM_WORLD, {b, a});
  const ProcessGrid row(MPI_COMM_WORLD, {n});
  const ProcessGrid sub = line(n - 1, std::max(1, n - 1)); // P != Q, and a rank in neither when n > 2
  for (Strategy s : all_strategies()) {
    run_nd<2>(Layout<2>({37, 29}, {Cyclic(3), Cyclic(2)}, sq),
              Layout<2>({37, 29}, {Cyclic(5), Cyclic(3)}, tall), s);
    // Row-distributed to column-distributed on a 1-D grid: a transpose of the distribution.
    run_nd<2>(Layout<2>({31, 19}, {Cyclic(2), hpf::Collapsed()}, row),
              Layout<2>({31, 19}, {hpf::Collapsed(), hpf::Block()}, sub), s);
    // Dimension 0 unchanged: pieces of whole columns are merged.
    run_nd<2>(Layout<2>({16, 41}, {hpf::Collapsed(), Cyclic(3)}, row),
              Layout<2>({16, 41}, {hpf::Collapsed(), Cyclic(4)}, row), s);
  }
  run_nd<2>(Layout<2>({0, 13}, {Cyclic(3), Cyclic(2)}, sq), Layout<2>({0, 13}, {Cyclic(5), Cyclic(3)}, tall),
            Strategy::KoenigStepwise);
}

TEST(Redistribute, TwoDimensional) { two_dimensional(); }

void three_and_four_dimensional() {
  const int n = world_size();
  const auto [a, b] = near_square(n);
  const ProcessGrid g3(MPI_COMM_WORLD, {b, 1, a});
  const ProcessGrid g3t(MPI_COMM_WORLD, {a, b, 1});
  const ProcessGrid g1(MPI_COMM_WORLD, {n});
  for (Strategy s :
       {Strategy::Caterpillar, Strategy::KoenigGreedy, Strategy::AllAtOnce, Strategy::Alltoallv}) {
    run_nd<3>(Layout<3>({11, 7, 13}, {Cyclic(2), hpf::Block(), Cyclic(3)}, g3),
              Layout<3>({11, 7, 13}, {Cyclic(3), Cyclic(1), hpf::Block()}, g3t), s);
    run_nd<4>(Layout<4>({5, 4, 3, 9}, {hpf::Collapsed(), hpf::Collapsed(), hpf::Collapsed(), Cyclic(2)}, g1),
              Layout<4>({5, 4, 3, 9}, {Cyclic(2), hpf::Collapsed(), hpf::Collapsed(), hpf::Collapsed()}, g1),
              s);
  }
}

TEST(Redistribute, ThreeAndFourDimensional) { three_and_four_dimensional(); }

// Messages moved in place by MPI datatypes (no pack, no unpack): every message on every rank, and
// then only on even ranks, so that an in-place sender meets a packing receiver and the other way
// round (each end decides for itself). Every strategy, grid relation and rank count of the suites above.
TEST(Redistribute, InPlaceMessagesEveryStrategyAndMixedEnds) {
  const std::size_t saved = g_in_place_min;
  for (const bool mixed : {false, true}) {
    SCOPED_TRACE(mixed ? "in place on even ranks only" : "every message in place");
    g_in_place_min = mixed && world_rank() % 2 == 1 ? SIZE_MAX : 0;
    for (const Case1D& c : cases_1d())
      for (Strategy s : all_strategies()) run_1d(c, opts(s));
    two_dimensional();
    three_and_four_dimensional();
  }
  g_in_place_min = saved;
  // The executor reports what it moves in place: with threshold 0 every message, with SIZE_MAX none.
  const int n = world_size();
  const Layout<1> a({1009}, {Cyclic(3)}, line(0, n));
  const Layout<1> b({1009}, {Cyclic(5)}, line(0, n));
  for (const std::size_t min : {std::size_t{0}, SIZE_MAX}) {
    RedistOptions o = opts(Strategy::KoenigStepwise);
    o.in_place_min_piece_bytes = min;
    const hpf::RedistributionPlan<1> plan(a, b, o);
    DistArray<double, 1> A("A", a);
    DistArray<double, 1> B("B", b);
    fill(A, 0.5);
    hpf::RedistributionExecutor<1> ex(plan);
    ex.execute(A, B);
    EXPECT_EQ(wrong(B, 0.5), 0);
    EXPECT_EQ(ex.in_place_sends(), min == 0 ? plan.num_sends() : 0U);
    EXPECT_EQ(ex.in_place_recvs(), min == 0 ? plan.num_recvs() : 0U);
  }
}

// Writes into a large target block go by non-temporal stores (detail::stream_store_min_bytes): with
// the threshold at 0 every long piece of every unpack and local copy does, and every case and strategy
// still moves every value, repeatedly (the stores are fenced before the target is handed back).
TEST(Redistribute, NonTemporalStoresMoveEveryValue) {
  std::atomic<std::size_t>& min = hpf::detail::stream_store_min_bytes();
  const hpf::test::OnExit restore([&min, before = min.load()] { min = before; });
  min = 0;
  for (const Case1D& c : cases_1d()) {
    for (Strategy s : {Strategy::Auto, Strategy::AllAtOnce, Strategy::KoenigStepwise}) {
      SCOPED_TRACE(describe(c) + ", strategy " + hpf::to_string(s));
      const Layout<1> src({c.M}, {c.src_dist}, line(c.src_first, c.src_count));
      const Layout<1> dst({c.M}, {c.dst_dist}, line(c.dst_first, c.dst_count));
      const hpf::RedistributionPlan<1> plan(src, dst, opts(s));
      expect_plan_moves_values(plan, 3, 0.375);
      if (HasFatalFailure()) return;
    }
  }
}

// One executor per case and strategy runs six times with a different salt each time, so a message left
// from an earlier execution would show. Mixed: even ranks ask for every message in place, odd ranks
// for none (each end of a message decides for itself).
TEST(Redistribute, EveryStrategyRepeatedly) {
  for (const bool mixed : {false, true}) {
    SCOPED_TRACE(mixed ? "in place on even ranks" : "every message packed");
    for (const Case1D& c : cases_1d()) {
      for (Strategy s : all_strategies()) {
        SCOPED_TRACE(describe(c) + ", strategy " + hpf::to_string(s));
        const Layout<1> src({c.M}, {c.src_dist}, line(c.src_first, c.src_count));
        const Layout<1> dst({c.M}, {c.dst_dist}, line(c.dst_first, c.dst_count));
        RedistOptions o = opts(s);
        o.in_place_min_piece_bytes = mixed && world_rank() % 2 == 0 ? 0 : SIZE_MAX;
        if (s == Strategy::Class &&
            !hpf::class_schedule_applies({src.map(0).P, src.map(0).r, dst.map(0).P, dst.map(0).r, c.M}))
          continue;
        const hpf::RedistributionPlan<1> plan(src, dst, o);
        hpf::RedistributionExecutor<1> ex(plan);
        DistArray<double, 1> A("A", src);
        DistArray<double, 1> B("B", dst);
        expect_repeated_executions(ex, A, B, 6, 0.125);
        if (HasFatalFailure()) return;
        const bool in_place = mixed && world_rank() % 2 == 0 && plan.exec_mode() != hpf::ExecMode::Alltoallv;
        EXPECT_EQ(ex.in_place_sends(), in_place ? plan.num_sends() : 0U);
        EXPECT_EQ(ex.in_place_recvs(), in_place ? plan.num_recvs() : 0U);
      }
    }
  }
}

// All at once, a 1-D plan whose pattern repeats with a short period packs every message (and the
// kept part) in one pass over the source block and unpacks in one pass over the target
// (RedistributionPlan::fuses_sends / fuses_recvs, Exchange::set_batch): the values are right through
// MPI buffers and in-place messages mixed, over repeated executions; plans
// with long slices or one message, and 2-D plans, go message by message.
TEST(Redistribute, AllAtOnceMovesShortPeriodsInOnePass) {
  const int n = world_size();
  const index_t M = 64 * 4 * 7 * 11; // 19712: many slices of CYCLIC(1) -> CYCLIC(64) at every rank count
  const Layout<1> a({M}, {Cyclic(1)}, line(0, n));
  const Layout<1> b({M}, {Cyclic(64)}, line(0, n));
  {
    for (const std::size_t in_place : {SIZE_MAX, std::size_t{0}}) {
      SCOPED_TRACE("in place " + std::to_string(in_place));
      RedistOptions o = opts(Strategy::AllAtOnce);
      o.in_place_min_piece_bytes = world_rank() % 2 == 0 ? in_place : SIZE_MAX; // mixed ends
      for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
        const hpf::RedistributionPlan<1> plan(from, to, o);
        EXPECT_EQ(plan.fuses_sends(), n >= 2);
        EXPECT_EQ(plan.fuses_recvs(), n >= 3);
        expect_plan_moves_values(plan, 4, 0.25);
        if (HasFatalFailure()) return;
      }
    }
  }
  // One slice (BLOCK -> CYCLIC(64)) or slices longer than detail::one_pass_max_slice_bytes(): not slice by
  // slice (by offsets instead where the pieces are short and the block large: the next test).
  const RedistOptions o = opts(Strategy::AllAtOnce);
  EXPECT_FALSE((hpf::RedistributionPlan<1>(Layout<1>({M}, {hpf::Block()}, line(0, n)), b, o).fuses_sends()));
  const auto big = static_cast<index_t>(hpf::detail::one_pass_max_slice_bytes().load()); // elements: 8x
  const Layout<1> c({3 * n * big}, {Cyclic(big)}, line(0, n));
  const Layout<1> d({3 * n * big}, {Cyclic(64)}, line(0, n));
  EXPECT_FALSE((hpf::RedistributionPlan<1>(c, d, o).fuses_sends())); // pieces of 512 bytes
  const ProcessGrid g2 = ProcessGrid::world({n, 1});
  const hpf::RedistributionPlan<2> two(Layout<2>({M, 3}, {Cyclic(1), hpf::Block()}, g2),
                                       Layout<2>({M, 3}, {Cyclic(64), hpf::Block()}, g2), o);
  EXPECT_FALSE(two.fuses_sends());
  // Turned off (for comparison): message by message.
  hpf::detail::one_pass_max_slice_bytes() = 0;
  EXPECT_FALSE((hpf::RedistributionPlan<1>(a, b, o).fuses_sends()));
  hpf::detail::one_pass_max_slice_bytes() = std::size_t{1} << 17U;
}

// Where slices are long or one slice is the whole extent (a BLOCK side), a side whose large block holds
// short pieces of several messages moves them a chunk of block offsets at a time (fuses_sends /
// fuses_recvs by offsets): CYCLIC(7) <-> BLOCK, and CYCLIC(3) -> CYCLIC(40000) whose slice repeats
// twice and a half, and GEN_BLOCK -> CYCLIC(5), each side's block past fuse_min_block_bytes. Values right
// through MPI buffers and in-place messages mixed, over repeated executions, on a grid of every
// rank and on one that leaves rank 0 out of the target; pieces of 512 bytes (BLOCK -> CYCLIC(64)) and small
// blocks go message by message.
TEST(Redistribute, AllAtOnceMovesShortPiecesOfLargeBlocksInOnePass) {
  const int n = world_size();
  const auto min_elems =
      static_cast<index_t>(hpf::RedistributionPlan<1>::fuse_min_block_bytes / sizeof(double));
  const index_t big = n * (min_elems + 12345); // every rank's block past the minimum, not a multiple of 7
  const index_t L = 120000 * n;                // CYCLIC(3) -> CYCLIC(40000)'s slice on n -> n ranks
  struct Case {
    hpf::Distribution from, to;
    index_t M;
    int dst_first, dst_count;
    bool sends, recvs; // expected on every rank that has messages on that side
  };
  // GEN_BLOCK blocks of different sizes, each past the minimum (the last one larger).
  std::vector<index_t> sizes(static_cast<std::size_t>(n), min_elems + 12345);
  sizes.back() += 54321;
  const index_t gen_total = std::accumulate(sizes.begin(), sizes.end(), index_t{0});
  const std::vector<Case> cases = {
      // On 2 ranks the receives fuse with the kept part (one message and the kept part).
      {Cyclic(7), hpf::Block(), big, 0, n, false, n >= 2},
      {hpf::Block(), Cyclic(7), big, 0, n, n >= 2, false},
      {Cyclic(3), Cyclic(40000), L * 5 / 2 + 11, 0, n, false, n >= 2}, // sent in long contiguous runs
      {Cyclic(7), hpf::Block(), big, 1 % n, std::max(1, n - 1), n >= 2, n >= 2},
      {hpf::GenBlock(sizes), Cyclic(5), gen_total, 0, n, n >= 2, false}};
  for (const auto& c : cases) {
    const Layout<1> from({c.M}, {c.from}, line(0, n));
    const Layout<1> to({c.M}, {c.to}, line(c.dst_first, c.dst_count));
    for (const std::size_t in_place : {std::size_t{0}, SIZE_MAX}) {
      RedistOptions o = opts(Strategy::AllAtOnce);
      o.in_place_min_piece_bytes = world_rank() % 2 == 0 ? in_place : SIZE_MAX; // mixed ends
      SCOPED_TRACE(c.from.to_string() + " -> " + c.to.to_string() + " on " + std::to_string(c.dst_count) +
                   " from rank " + std::to_string(c.dst_first) + ", M " + std::to_string(c.M) +
                   ", in place " + std::to_string(in_place));
      const hpf::RedistributionPlan<1> plan(from, to, o);
      if (c.dst_count == n) {
        EXPECT_EQ(plan.fuses_sends(), c.sends);
        EXPECT_EQ(plan.fuses_recvs(), c.recvs);
      } else if (world_rank() != 0) { // rank 0 has no target block: it only sends
        EXPECT_EQ(plan.fuses_recvs(), c.recvs);
      }
      expect_plan_moves_values(plan, 3, 0.5);
      if (HasFatalFailure()) return;
    }
  }
  const RedistOptions o = opts(Strategy::AllAtOnce);
  const Layout<1> block({big}, {hpf::Block()}, line(0, n));
  EXPECT_FALSE(
      (hpf::RedistributionPlan<1>(block, Layout<1>({big}, {Cyclic(64)}, line(0, n)), o).fuses_sends()));
  const index_t small = 1000 * n;
  EXPECT_FALSE((hpf::RedistributionPlan<1>(Layout<1>({small}, {hpf::Block()}, line(0, n)),
                                           Layout<1>({small}, {Cyclic(7)}, line(0, n)), o)
                    .fuses_sends()));
  // Turned off (for comparison): message by message.
  hpf::detail::one_pass_max_piece_bytes() = 0;
  EXPECT_FALSE(
      (hpf::RedistributionPlan<1>(block, Layout<1>({big}, {Cyclic(7)}, line(0, n)), o).fuses_sends()));
  hpf::detail::one_pass_max_piece_bytes() = 256;
}

// CYCLIC(3) and CYCLIC(5) over every rank, with every message between two ranks of at least 8 KiB.
std::pair<Layout<1>, Layout<1>> large_message_layouts() {
  const int n = world_size();
  const index_t M = 2048 * n * n + 5;
  return {Layout<1>({M}, {Cyclic(3)}, line(0, n)), Layout<1>({M}, {Cyclic(5)}, line(0, n))};
}

// Moving an executor: refused while a post() is pending (its exchange holds MPI's addresses, and its
// one-pass callbacks point at the executor that posted), on every rank alike; an idle executor moves
// with its exchange, and the one moved from stays a working executor of the same plan. Both
// message sizes: large messages and small messages that pack in one pass.
TEST(Redistribute, ExecutorMovesOnlyWhenIdle) {
  const int n = world_size();
  const auto [large_a, large_b] = large_message_layouts();
  const index_t small = 1000 * n + 3;
  const std::vector<std::pair<Layout<1>, Layout<1>>> cases = {
      {large_a, large_b},
      {Layout<1>({small}, {Cyclic(3)}, line(0, n)), Layout<1>({small}, {Cyclic(1)}, line(0, n))}};
  for (const auto& [a, b] : cases) {
    const hpf::RedistributionPlan<1> plan(a, b, opts(Strategy::AllAtOnce));
    DistArray<double, 1> A("A", a);
    DistArray<double, 1> B("B", b);
    hpf::RedistributionExecutor<1> ex(plan);
    double salt = 0.25;
    const auto run = [&](hpf::RedistributionExecutor<1>& e) {
      salt += 1;
      fill(A, salt);
      e.execute(A, B);
      EXPECT_EQ(wrong(B, salt), 0);
    };
    run(ex);
    fill(A, 0.5);
    ex.post(A, B);
    HPF_EXPECT_ERROR(hpf::RedistributionExecutor<1>(std::move(ex)),
                     "the executor moved from has a post() pending", "expected wait()");
    hpf::RedistributionExecutor<1> other(plan);
    HPF_EXPECT_ERROR(ex = std::move(other), "the executor moved to has a post() pending");
    EXPECT_TRUE(ex.pending());
    ex.wait();
    EXPECT_EQ(wrong(B, 0.5), 0);
    for (int k = 0; k < 3; ++k) run(ex);
    hpf::RedistributionExecutor<1> moved(std::move(ex));
    for (int k = 0; k < 3; ++k) run(moved);
    run(ex); // the one moved from builds its exchange again
    other = std::move(moved);
    run(other);
    run(moved);
  }
}

// The standard's long loop: 300 redistributions between few layouts (so cached plans and their pooled
// executors come back) on three grids over random subsets of the ranks, one of them replaced now and
// then. Every random choice is drawn from one stream with the same seed on every rank. Each step
// refills the array with a new salt, so data left from an earlier execution would show. One step in
// three runs with the argument check off (hpf::set_argument_checks, the same on every rank).
TEST(Redistribute, LongLoopOverRandomSubsets) {
  std::mt19937 rng(2026);
  auto pick = [&](int lo, int hi) {
    return lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1));
  };
  auto random_grid = [&] { return hpf::test::random_world_grid(rng); };
  std::vector<ProcessGrid> grids = {random_grid(), random_grid(), random_grid()};
  const std::vector<hpf::Distribution> dists = {Cyclic(1), Cyclic(3), hpf::Block(), Cyclic(7)};
  const std::vector<index_t> extents = {0, 37, 4001};
  for (int step = 0; step < 300; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    hpf::set_argument_checks(pick(0, 2) != 0);
    if (pick(0, 9) == 0) grids[static_cast<std::size_t>(pick(0, 2))] = random_grid();
    const index_t M = extents[static_cast<std::size_t>(pick(0, 2))];
    const Layout<1> from({M}, {dists[static_cast<std::size_t>(pick(0, 3))]},
                         grids[static_cast<std::size_t>(pick(0, 2))]);
    const Layout<1> to({M}, {dists[static_cast<std::size_t>(pick(0, 3))]},
                       grids[static_cast<std::size_t>(pick(0, 2))]);
    const RedistOptions o = opts(pick(0, 1) == 0 ? Strategy::AllAtOnce : Strategy::KoenigStepwise);
    DistArray<double, 1> A("A", from);
    const double salt = 0.5 * step;
    fill(A, salt);
    A.redistribute(to, o);
    ASSERT_EQ(wrong(A, salt), 0);
    A.redistribute(from, o);
    ASSERT_EQ(wrong(A, salt), 0);
  }
  hpf::set_argument_checks(true);
}

TEST(Redistribute, InPlaceThroughThePlanCache) {
  const int n = world_size();
  hpf::clear_plan_cache();
  const Layout<1> c3({1000}, {Cyclic(3)}, ProcessGrid(MPI_COMM_WORLD, {n}));
  const Layout<1> c5({1000}, {Cyclic(5)}, line(n / 2, std::max(1, n - 1)));
  DistArray<double, 1> A("A", c3);
  fill(A, 0.5);
  const RedistOptions o = opts(Strategy::KoenigStepwise);
  A.redistribute(c5, o);
  EXPECT_TRUE(A.layout() == c5);
  EXPECT_EQ(A.label(), "A");
  EXPECT_EQ(wrong(A, 0.5), 0);
  A.redistribute(c3, o);
  EXPECT_EQ(wrong(A, 0.5), 0);
  A.redistribute(c5, o); // planned already: a cache hit
  EXPECT_EQ(wrong(A, 0.5), 0);
  A.redistribute(c5, o); // the same layout: nothing to do, no lookup
  hpf::PlanCacheStats st = hpf::plan_cache_stats();
  EXPECT_EQ(st.misses, 2u);
  EXPECT_EQ(st.hits, 1u);
  EXPECT_EQ(st.size, 2u);
  // Other options are another plan.
  A.redistribute(c3, opts(Strategy::AllAtOnce));
  EXPECT_EQ(wrong(A, 0.5), 0);
  st = hpf::plan_cache_stats();
  EXPECT_EQ(st.misses, 3u);
  EXPECT_EQ(st.size, 3u);
  hpf::clear_plan_cache();
  EXPECT_EQ(hpf::plan_cache_stats().size, 0u);
}

TEST(Redistribute, CopyLeavesTheSourceAlone) {
  const int n = world_size();
  const Layout<2> src({9, 14}, {hpf::Collapsed(), Cyclic(3)}, ProcessGrid(MPI_COMM_WORLD, {n}));
  const Layout<2> dst({9, 14}, {Cyclic(2), hpf::Collapsed()}, line(0, std::max(1, n - 1)));
  DistArray<double, 2> A("A", src);
  fill(A, 0.5);
  DistArray<double, 2> B = hpf::redistribute(A, dst, opts(Strategy::Auto));
  EXPECT_TRUE(B.layout() == dst);
  EXPECT_EQ(wrong(B, 0.5), 0);
  EXPECT_TRUE(A.layout() == src);
  EXPECT_EQ(wrong(A, 0.5), 0);
  // A whole-array check on rank 0, through gather.
  const std::vector<double> all = B.gather(0);
  if (world_rank() == 0) {
    ASSERT_EQ(all.size(), 9u * 14u);
    for (index_t j = 0; j < 14; ++j)
      for (index_t i = 0; i < 9; ++i)
        EXPECT_EQ(all[static_cast<std::size_t>(i + 9 * j)], value_at<2>({i, j}, 0.5));
  }
}

// Auto with no cost model measures alpha and beta once (collectively) and still moves the data.
TEST(Redistribute, AutoMeasuresTheNetwork) {
  const int n = world_size();
  const Layout<1> src({4321}, {Cyclic(3)}, ProcessGrid(MPI_COMM_WORLD, {n}));
  const Layout<1> dst({4321}, {Cyclic(5)}, ProcessGrid(MPI_COMM_WORLD, {n}));
  DistArray<double, 1> A("A", src);
  fill(A, 0.5);
  DistArray<double, 1> B = hpf::redistribute(A, dst);
  EXPECT_EQ(wrong(B, 0.5), 0);
}

// Auto runs its schedule step by step when transfers dominate the cost model and all at once when
// start-ups do; the explicit strategies keep their executor.
TEST(Redistribute, AutoChoosesTheExecutorFromTheCostModel) {
  const int n = world_size();
  const Layout<1> src({100000}, {Cyclic(3)}, ProcessGrid(MPI_COMM_WORLD, {n}));
  const Layout<1> dst({100000}, {Cyclic(5)}, ProcessGrid(MPI_COMM_WORLD, {n}));
  RedistOptions o = opts(Strategy::Auto);
  o.alpha = 1.0; // start-ups dominate
  const hpf::RedistributionPlan<1> startup(src, dst, o);
  EXPECT_EQ(startup.exec_mode(), hpf::ExecMode::AllAtOnce);
  o.alpha = 0.0; // transfers dominate
  const hpf::RedistributionPlan<1> transfer(src, dst, o);
  EXPECT_EQ(transfer.exec_mode(), hpf::ExecMode::StepSynchronous);
  EXPECT_NE(transfer.dim_strategy(0), Strategy::Auto);
  // On one node a pattern that repeats in short slices runs all at once (one pass for all messages),
  // whatever alpha and beta say; a BLOCK side (one slice) still goes step by step.
  o.one_node = true;
  EXPECT_TRUE(hpf::RedistributionPlan<1>::one_pass_pattern(src, dst, o.element_bytes));
  EXPECT_EQ(hpf::RedistributionPlan<1>(src, dst, o).exec_mode(), hpf::ExecMode::AllAtOnce);
  const Layout<1> block({100000}, {hpf::Block()}, ProcessGrid(MPI_COMM_WORLD, {n}));
  EXPECT_FALSE(hpf::RedistributionPlan<1>::one_pass_pattern(block, dst, o.element_bytes));
  if (n > 1) {
    EXPECT_EQ(hpf::RedistributionPlan<1>(block, dst, o).exec_mode(), hpf::ExecMode::StepSynchronous);
  }
  o.one_node = false;
  EXPECT_EQ(hpf::RedistributionPlan<1>(src, dst, o).exec_mode(), hpf::ExecMode::StepSynchronous);
  // DistArray::redistribute fills it in from where the ranks run (the same on every rank).
  EXPECT_EQ(hpf::detail::with_model(src, {}, sizeof(double)).one_node,
            hpf::detail::shares_one_node(src.grid().comm()));
  EXPECT_EQ(hpf::RedistributionPlan<1>(src, dst, opts(Strategy::Caterpillar)).exec_mode(),
            hpf::ExecMode::StepSynchronous);
  EXPECT_EQ(hpf::RedistributionPlan<1>(src, dst, opts(Strategy::Alltoallv)).exec_mode(),
            hpf::ExecMode::Alltoallv);
  for (const hpf::RedistributionPlan<1>* p : {&startup, &transfer}) {
    DistArray<double, 1> A("A", src);
    DistArray<double, 1> B("B", dst);
    fill(A, 0.5);
    p->execute(A, B);
    EXPECT_EQ(wrong(B, 0.5), 0);
  }
}

TEST(Redistribute, SplitPhaseOverlapsLocalWork) {
  const int n = world_size();
  const Layout<1> src({5003}, {Cyclic(3)}, ProcessGrid(MPI_COMM_WORLD, {n}));
  const Layout<1> dst({5003}, {Cyclic(5)}, line(n - 1, n));
  for (Strategy s : all_strategies()) {
    if (s == Strategy::Class && !hpf::class_schedule_applies({n, 3, n, 5, 5003})) continue; // Prop. 3
    const hpf::RedistributionPlan<1> plan(src, dst, opts(s));
    DistArray<double, 1> A("A", src);
    DistArray<double, 1> B("B", dst);
    DistArray<double, 1> C("C", src);
    fill(A, 0.5);
    hpf::RedistributionExecutor<1> ex(plan);
    ex.post(A, B);
    HPF_EXPECT_ERROR(ex.post(A, B), "previous post()");
    fill(C, 0.25); // independent work while the messages are in flight
    ex.wait();
    EXPECT_EQ(wrong(B, 0.5), 0) << hpf::to_string(s);
    EXPECT_EQ(wrong(C, 0.25), 0);
    HPF_EXPECT_ERROR(ex.wait(), "nothing was posted");
  }
}

// Executing a plan for DistArray<double> into a DistArray<float> does not compile.
template <class Plan, class A, class B>
concept Executable = requires(const Plan& p, const A& a, B& b) {
  p.execute(a, b);
};
static_assert(Executable<hpf::RedistributionPlan<1>, DistArray<double, 1>, DistArray<double, 1>>);
static_assert(!Executable<hpf::RedistributionPlan<1>, DistArray<double, 1>, DistArray<float, 1>>);
static_assert(!Executable<hpf::RedistributionPlan<1>, DistArray<float, 1>, DistArray<double, 1>>);

TEST(Redistribute, ErrorsNameTheProblemAndMoveNothing) {
  const int n = world_size();
  const ProcessGrid g(MPI_COMM_WORLD, {n});
  const Layout<1> a({100}, {Cyclic(3)}, g);
  const Layout<1> b({101}, {Cyclic(5)}, g);
  HPF_EXPECT_ERROR(hpf::RedistributionPlan<1>(a, b, opts(Strategy::Caterpillar)), "source extents (100)",
                   "target extents (101)");
  DistArray<double, 1> A("A", a);
  fill(A, 0.5);
  HPF_EXPECT_ERROR(A.redistribute(b), "extents");
  EXPECT_TRUE(A.layout() == a);
  EXPECT_EQ(wrong(A, 0.5), 0);

  // Executing with arrays whose layouts are not the plan's: nothing moves.
  const Layout<1> c5({100}, {Cyclic(5)}, g);
  const Layout<1> c7({100}, {Cyclic(7)}, g);
  const hpf::RedistributionPlan<1> plan(a, c5, opts(Strategy::AllAtOnce));
  DistArray<double, 1> B("B", c7);
  B.fill(-1);
  HPF_EXPECT_ERROR(plan.execute(A, B), "target array's layout (CYCLIC(7))", "(CYCLIC(5))");
  EXPECT_TRUE(std::all_of(B.local_data(), B.local_data() + B.local_size(), [](double x) { return x == -1; }));
  HPF_EXPECT_ERROR(plan.execute(B, B), "source array's layout (CYCLIC(7))");

  RedistOptions bad = opts(Strategy::Caterpillar);
  bad.tag = -4;
  HPF_EXPECT_ERROR(hpf::RedistributionPlan<1>(a, c5, bad), "tag", "-4");

  // Grids on different parent communicators (the reversed world is similar, not congruent).
  if (n >= 2) {
    MPI_Comm rev = MPI_COMM_NULL;
    HPF_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, n - world_rank(), &rev));
    {
      const ProcessGrid other(rev, {n});
      const Layout<1> o({100}, {Cyclic(5)}, other);
      // Planning is pure (no MPI), so the parents are compared when the plan is executed.
      const hpf::RedistributionPlan<1> p(a, o, opts(Strategy::Caterpillar));
      HPF_EXPECT_ERROR(hpf::RedistributionExecutor<1>{p}, "parent communicator");
      HPF_EXPECT_ERROR(A.redistribute(o), "parent communicator");
      EXPECT_EQ(wrong(A, 0.5), 0);
    }
    HPF_MPI_CHECK(MPI_Comm_free(&rev));
  }
}

} // namespace
