// Several arrays in one exchange (RedistributionBatch, hpf::redistribute_many): random batches of 0 to 5
// arrays of char, int, double and std::complex<double>, ranks 1 to 3, block-cyclic and GEN_BLOCK
// layouts on grids over random subsets of the ranks (source and target grids drawn apart: disjoint,
// overlapping, P != Q), checked element by element against the global index; one message per peer;
// a plan reused many times; and the errors, thrown on every rank before anything moves.
#include "hpf_test.hpp"
#include "random_dist.hpp"
#include "test_scale.hpp"

#include <hpf/hpf.hpp>

#include <complex>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {

using hpf::DistArray;
using hpf::Distribution;
using hpf::Index;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::RedistOptions;
using hpf::test::world_rank;
using hpf::test::world_size;

using hpf::test::pick;

/// The value of global Fortran-order offset `lin` in round `t`: distinct for neighbouring offsets in
/// every type (char wraps, deterministically).
template <class T> T value_of(index_t lin, int t) {
  if constexpr (std::is_same_v<T, std::complex<double>>) {
    return {static_cast<double>(lin) + 0.25, -static_cast<double>(lin) - t};
  } else if constexpr (std::is_same_v<T, char>) {
    return static_cast<char>((lin * 7 + t) % 127);
  } else {
    return static_cast<T>(lin * 3 + t);
  }
}

template <int N> index_t linear(const Index<N>& g, const Index<N>& ext) {
  index_t lin = 0;
  for (int d = N; d-- > 0;) lin = lin * ext[static_cast<std::size_t>(d)] + g[static_cast<std::size_t>(d)];
  return lin;
}

template <class T, int N> void fill(DistArray<T, N>& A, int t) {
  const Index<N> ext = A.layout().extents();
  hpf::forall(A, [&](const Index<N>& g, T& x) { x = value_of<T>(linear<N>(g, ext), t); });
}

/// Elements of A (on this rank) that do not hold value_of(their index, t).
template <class T, int N> int wrong(DistArray<T, N>& A, int t) {
  const Index<N> ext = A.layout().extents();
  int bad = 0;
  hpf::forall(A, [&](const Index<N>& g, T& x) { bad += x == value_of<T>(linear<N>(g, ext), t) ? 0 : 1; });
  return bad;
}

int sum_over_ranks(int mine) {
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/// Collective (a ProcessGrid on the world): a random layout of `extents` over a random subset of the
/// ranks, a 1-D grid with one distributed dimension or, for N >= 2, a 2-D grid with two.
template <int N, class Rng> Layout<N> random_layout(const Index<N>& extents, Rng& rng) {
  std::vector<int> ranks(static_cast<std::size_t>(world_size()));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::shuffle(ranks.begin(), ranks.end(), rng);
  ranks.resize(static_cast<std::size_t>(pick(rng, 1, world_size())));
  const int n = static_cast<int>(ranks.size());
  std::array<Distribution, N> dists{};
  for (auto& d : dists) d = hpf::Collapsed();
  std::vector<int> shape;
  if (N == 1 || pick(rng, 0, 1) == 0) {
    shape = {n};
    const auto keep = static_cast<std::size_t>(pick(rng, 0, N - 1));
    dists[keep] = hpf::test::random_regular_dist(extents[keep], n, rng);
  } else {
    std::vector<int> divisors;
    for (int a = 1; a <= n; ++a)
      if (n % a == 0) divisors.push_back(a);
    const int a = divisors[static_cast<std::size_t>(pick(rng, 0, static_cast<int>(divisors.size()) - 1))];
    shape = {a, n / a};
    const auto skip = static_cast<std::size_t>(N == 2 ? N : pick(rng, 0, N - 1)); // N = 3: one collapsed
    std::size_t axis = 0;
    for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
      if (d != skip) dists[d] = hpf::test::random_regular_dist(extents[d], shape[axis++], rng);
  }
  return Layout<N>(extents, dists, ProcessGrid(MPI_COMM_WORLD, ranks, shape));
}

/// One array of a random batch, its type and rank erased: its plan goes into the batch, its blocks
/// into execute(), and it counts its wrong elements afterwards.
struct Member {
  std::function<void(hpf::RedistributionBatch&)> add;
  std::function<hpf::BatchBlocks()> blocks;
  std::function<void(int)> refill;
  std::function<int(int)> wrong;
};

template <class T, int N, class Rng> Member make_member(Rng& rng, const RedistOptions& opt) {
  Index<N> ext{};
  for (auto& e : ext) e = pick(rng, N == 1 ? 0 : 1, N == 1 ? 60 : 9);
  if (pick(rng, 0, 9) == 0) ext[static_cast<std::size_t>(pick(rng, 0, N - 1))] = 0; // zero extents
  const Layout<N> from = random_layout<N>(ext, rng);
  const Layout<N> to = random_layout<N>(ext, rng);
  auto src = std::make_shared<DistArray<T, N>>("src", from);
  auto dst = std::make_shared<DistArray<T, N>>("dst", to);
  auto plan = std::make_shared<const hpf::RedistributionPlan<N>>(from, to, opt);
  Member m;
  m.add = [plan](hpf::RedistributionBatch& b) { b.add<T>(plan); };
  m.blocks = [src, dst] {
    return hpf::BatchBlocks(static_cast<const T*>(src->local_data()), dst->local_data());
  };
  m.refill = [src, dst](int t) {
    fill(*src, t);
    dst->fill(T{}); // stale values must not pass for moved ones
  };
  m.wrong = [dst](int t) { return ::wrong(*dst, t); };
  return m;
}

template <class Rng> Member random_member(Rng& rng, const RedistOptions& opt) {
  const int rank = pick(rng, 1, 3);
  switch (pick(rng, 0, 3) * 3 + rank - 1) {
  case 0:
    return make_member<char, 1>(rng, opt);
  case 1:
    return make_member<char, 2>(rng, opt);
  case 2:
    return make_member<char, 3>(rng, opt);
  case 3:
    return make_member<int, 1>(rng, opt);
  case 4:
    return make_member<int, 2>(rng, opt);
  case 5:
    return make_member<int, 3>(rng, opt);
  case 6:
    return make_member<double, 1>(rng, opt);
  case 7:
    return make_member<double, 2>(rng, opt);
  case 8:
    return make_member<double, 3>(rng, opt);
  case 9:
    return make_member<std::complex<double>, 1>(rng, opt);
  case 10:
    return make_member<std::complex<double>, 2>(rng, opt);
  default:
    return make_member<std::complex<double>, 3>(rng, opt);
  }
}

/// Options that make the plans and the batch take every path: Auto (all at once for small arrays),
/// a step schedule, all at once, Alltoallv, and alpha = 0 (the batch then runs its merged schedule
/// step by step).
template <class Rng> RedistOptions random_options(Rng& rng) {
  RedistOptions o;
  switch (pick(rng, 0, 4)) {
  case 0:
    o.strategy = hpf::Strategy::KoenigStepwise;
    break;
  case 1:
    o.strategy = hpf::Strategy::AllAtOnce;
    break;
  case 2:
    o.alpha = 0.0;
    break;
  default:
    break;
  }
  return o;
}

/// Every merged message goes to another peer: one message per pair of ranks and direction.
void expect_one_message_per_peer(const hpf::ExchangePlan& xp) {
  std::set<int> to;
  std::set<int> from;
  for (const hpf::Transfer& t : xp.sends) EXPECT_TRUE(to.insert(t.peer).second) << "two sends to " << t.peer;
  for (const hpf::Transfer& t : xp.recvs)
    EXPECT_TRUE(from.insert(t.peer).second) << "two receives from " << t.peer;
  EXPECT_EQ(to.count(world_rank()), 0U);
  EXPECT_EQ(from.count(world_rank()), 0U);
}

TEST(RedistributionBatch, RandomBatchesHoldEveryElement) {
  std::mt19937 rng(20240611U); // the same on every rank: every rank builds the same grids and plans
  std::set<hpf::ExecMode> modes;
  for (int c = 0; c < hpf::test::cases(150); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    const int k = pick(rng, 0, 5);
    const bool alltoallv = pick(rng, 0, 9) == 0;
    std::vector<Member> members;
    for (int i = 0; i < k; ++i) {
      RedistOptions o = random_options(rng);
      if (alltoallv) o.strategy = hpf::Strategy::Alltoallv; // every plan: the batch runs one MPI_Alltoallv
      members.push_back(random_member(rng, o));
    }
    hpf::RedistributionBatch batch;
    for (Member& m : members) m.add(batch);
    EXPECT_EQ(batch.size(), static_cast<std::size_t>(k));
    for (int t = 0; t < 2; ++t) { // twice: the second run reuses the exchange
      std::vector<hpf::BatchBlocks> blocks;
      for (Member& m : members) {
        m.refill(t);
        blocks.push_back(m.blocks());
      }
      batch.execute(blocks);
      for (std::size_t i = 0; i < members.size(); ++i)
        EXPECT_EQ(sum_over_ranks(members[i].wrong(t)), 0) << "arrays[" << i << "], round " << t;
    }
    if (k > 0) {
      expect_one_message_per_peer(batch.exchange_plan());
      modes.insert(batch.exec_mode());
    }
  }
  // Every way of running the merged messages was taken (the draws are the same at every rank count).
  if (hpf::test::case_divisor == 1) {
    EXPECT_EQ(modes.count(hpf::ExecMode::AllAtOnce), 1U);
    EXPECT_EQ(modes.count(hpf::ExecMode::StepSynchronous), 1U);
    EXPECT_EQ(modes.count(hpf::ExecMode::Alltoallv), 1U);
  }
}

TEST(RedistributionBatch, ReusedPlanSplitPhaseAndArrayPairs) {
  const auto world = ProcessGrid::world({world_size()});
  std::vector<int> first_half;
  for (int r = 0; r < (world_size() + 1) / 2; ++r) first_half.push_back(r);
  const ProcessGrid half(MPI_COMM_WORLD, first_half, {static_cast<int>(first_half.size())});
  const Layout<1> a1({1000}, {hpf::Block()}, world);
  const Layout<1> a2({1000}, {hpf::Cyclic(3)}, half);
  const Layout<2> b1({30, 17}, {hpf::Cyclic(2), hpf::Collapsed()}, world);
  const Layout<2> b2({30, 17}, {hpf::Collapsed(), hpf::Block()}, world);
  const Layout<1> c1({77}, {hpf::Cyclic(1)}, half);
  const Layout<1> c2({77}, {hpf::Block()}, world);
  DistArray<double, 1> A("A", a1), A2("A2", a2);
  DistArray<int, 2> B("B", b1), B2("B2", b2);
  DistArray<std::complex<double>, 1> C("C", c1), C2("C2", c2);
  hpf::RedistributionBatch batch;
  batch.add<double>(hpf::RedistributionPlan<1>(a1, a2))
      .add<int>(hpf::RedistributionPlan<2>(b1, b2))
      .add<std::complex<double>>(hpf::RedistributionPlan<1>(c1, c2));
  for (int t = 0; t < 20; ++t) {
    fill(A, t);
    fill(B, t);
    fill(C, t);
    if (t % 2 == 0) {
      batch.execute(A, A2, B, B2, C, C2);
    } else { // split phase, raw blocks
      batch.post({{static_cast<const double*>(A.local_data()), A2.local_data()},
                  {static_cast<const int*>(B.local_data()), B2.local_data()},
                  {static_cast<const std::complex<double>*>(C.local_data()), C2.local_data()}});
      EXPECT_TRUE(batch.pending());
      batch.wait();
    }
    EXPECT_EQ(sum_over_ranks(wrong(A2, t) + wrong(B2, t) + wrong(C2, t)), 0) << "round " << t;
  }
  expect_one_message_per_peer(batch.exchange_plan());
  // The merged messages carry every array's bytes: the three plans' sends, aligned per part.
  std::size_t sum = 0;
  for (const hpf::Transfer& x : batch.exchange_plan().sends) sum += x.bytes;
  const std::size_t plain = hpf::RedistributionPlan<1>(a1, a2).exchange_plan(8).send_bytes() +
                            hpf::RedistributionPlan<2>(b1, b2).exchange_plan(4).send_bytes() +
                            hpf::RedistributionPlan<1>(c1, c2).exchange_plan(16).send_bytes();
  EXPECT_GE(sum, plain);
  EXPECT_LE(sum, plain + 16 * 3 * batch.exchange_plan().sends.size());
}

TEST(RedistributionBatch, EmptyAndSingleBatches) {
  hpf::RedistributionBatch none;
  none.execute({}); // k = 0: nothing moves, nothing to agree on
  HPF_EXPECT_ERROR(
      none.execute({hpf::BatchBlocks(static_cast<const int*>(nullptr), static_cast<int*>(nullptr))}),
      "1 arrays given", "expected none");
  hpf::redistribute_many(std::tie(), {});

  const auto world = ProcessGrid::world({world_size()});
  const Layout<1> from({50}, {hpf::Cyclic(2)}, world);
  const Layout<1> to({50}, {hpf::Cyclic(5)}, world);
  DistArray<double, 1> A("A", from), A2("A2", to);
  fill(A, 3);
  hpf::RedistributionBatch one;
  one.add<double>(hpf::RedistributionPlan<1>(from, to)).execute(A, A2);
  EXPECT_EQ(sum_over_ranks(wrong(A2, 3)), 0);
}

TEST(RedistributeMany, ArraysTakeTheirLayoutsBackAndForth) {
  const auto world = ProcessGrid::world({world_size()});
  std::vector<int> reversed(static_cast<std::size_t>(world_size()));
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  const ProcessGrid back(MPI_COMM_WORLD, reversed, {world_size()});
  const Layout<1> x1({123}, {hpf::Cyclic(4)}, world);
  const Layout<1> x2({123}, {hpf::Block()}, back);
  const Layout<2> y1({9, 11}, {hpf::Block(), hpf::Collapsed()}, world);
  const Layout<2> y2({9, 11}, {hpf::Collapsed(), hpf::Cyclic(2)}, back);
  const Layout<3> z1({4, 5, 6}, {hpf::Collapsed(), hpf::Collapsed(), hpf::Block()}, world);
  const Layout<3> z2({4, 5, 6}, {hpf::Cyclic(1), hpf::Collapsed(), hpf::Collapsed()}, world);
  DistArray<double, 1> X("X", x1);
  DistArray<char, 2> Y("Y", y1.with_shadow({1, 0})); // only owned elements move
  DistArray<std::complex<double>, 3> Z("Z", z1);
  fill(X, 1);
  fill(Y, 1);
  fill(Z, 1);
  for (int t = 0; t < 4; ++t) {
    const bool out = t % 2 == 0;
    hpf::redistribute_many(std::tie(X, Y, Z), {out ? x2 : x1, out ? y2 : y1, out ? z2 : z1});
    EXPECT_TRUE(X.layout() == (out ? x2 : x1));
    EXPECT_TRUE(Z.layout() == (out ? z2 : z1));
    EXPECT_EQ(X.label(), "X");
    EXPECT_EQ(sum_over_ranks(wrong(X, 1) + wrong(Y, 1) + wrong(Z, 1)), 0) << "round " << t;
  }
}

TEST(RedistributionBatch, ErrorsOnEveryRankBeforeAnythingMoves) {
  const auto world = ProcessGrid::world({world_size()});
  const Layout<1> from({40}, {hpf::Block()}, world);
  const Layout<1> to({40}, {hpf::Cyclic(3)}, world);
  const Layout<1> other({40}, {hpf::Cyclic(2)}, world);
  DistArray<double, 1> A("A", from), A2("A2", to), Wrong("W", other);
  DistArray<int, 1> I("I", from), I2("I2", to), WrongI("WI", other);
  fill(A, 1); // no element 0: a target that is still zero holds nothing moved
  hpf::RedistributionBatch batch;
  batch.add<double>(hpf::RedistributionPlan<1>(from, to)).add<int>(hpf::RedistributionPlan<1>(from, to));
  // Element size: arrays[1]'s plan moves int, the blocks hold double.
  HPF_EXPECT_ERROR(batch.execute({{static_cast<const double*>(A.local_data()), A2.local_data()},
                                  {static_cast<const double*>(A.local_data()), A2.local_data()}}),
                   "arrays[1]", "8 bytes", "4 bytes");
  HPF_EXPECT_ERROR(batch.execute({{static_cast<const double*>(A.local_data()), A2.local_data()}}),
                   "1 arrays given", "expected the batch's 2");
  // A target that is not the plan's.
  HPF_EXPECT_ERROR(batch.execute(A, A2, I, WrongI), "arrays[1]", "target array's layout", "CYCLIC(2)");
  HPF_EXPECT_ERROR(batch.execute(A, Wrong, I, I2), "arrays[0]", "CYCLIC(3)");
  // Nothing moved, and the batch still works.
  EXPECT_EQ(sum_over_ranks(wrong(A2, 1)), sum_over_ranks(static_cast<int>(A2.local_size())));
  fill(I, 1);
  batch.execute(A, A2, I, I2);
  EXPECT_EQ(sum_over_ranks(wrong(A2, 1) + wrong(I2, 1)), 0);

  // redistribute_many: other extents, relabel, and arguments that differ between ranks.
  const Layout<1> longer({41}, {hpf::Block()}, world);
  HPF_EXPECT_ERROR(hpf::redistribute_many(std::tie(A, I), {to, longer}), "arrays[1]", "extents");
  RedistOptions relabel;
  relabel.relabel = true;
  HPF_EXPECT_ERROR(hpf::redistribute_many(std::tie(A), {to}, relabel), "relabel");
  EXPECT_TRUE(A.layout() == from);
  if (world_size() > 1) {
    const Layout<1> mine({40}, {hpf::Cyclic(world_rank() == 0 ? 2 : 3)}, world);
    HPF_EXPECT_ERROR(hpf::redistribute_many(std::tie(A, I), {to, mine}), "arrays[1].target.dists[0].block");
    EXPECT_TRUE(I.layout() == from);
    // Grids on another parent communicator (the world's ranks in reverse order).
    MPI_Comm rev = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, 0, world_size() - world_rank(), &rev);
    {
      const ProcessGrid g(rev, {world_size()});
      const Layout<1> f2({40}, {hpf::Block()}, g);
      const Layout<1> t2({40}, {hpf::Cyclic(3)}, g);
      hpf::RedistributionBatch mixed;
      mixed.add<double>(hpf::RedistributionPlan<1>(from, to));
      HPF_EXPECT_ERROR(mixed.add<double>(hpf::RedistributionPlan<1>(f2, t2)), "arrays[1]",
                       "parent communicator");
      EXPECT_EQ(mixed.size(), 1U);
      HPF_EXPECT_ERROR(hpf::RedistributionBatch().add<double>(hpf::RedistributionPlan<1>(from, t2)),
                       "arrays[0]", "different parent communicators");
    }
    MPI_Comm_free(&rev);
  }
}

} // namespace
