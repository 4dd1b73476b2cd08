// REDISTRIBUTE with options.relabel on real data: the array ends up laid out by the target's
// distributions on the grid best_relabeling arranges, holds every value at its place (gathered and
// compared with the global array), and the plan of the move sends the bytes the query said; the
// target as given would have sent bytes_moved_given. Then a long loop over grids on random subsets of
// the ranks (every rank must take the same path: a hang fails the test by its timeout), with grids over
// different rank sets refused on every rank, and the copy and into-array forms.
#include "hpf_test.hpp"
#include "random_dist.hpp"
#include "reference.hpp"
#include "test_scale.hpp"

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
using hpf::RedistOptions;
using hpf::test::world_rank;
using hpf::test::world_size;

using hpf::test::pick;

constexpr double salt = 0.5;

template <int N> void fill(DistArray<double, N>& A) { hpf::test::fill_reference(A, salt); }

template <int N> bool holds_values(const DistArray<double, N>& A) {
  return hpf::test::holds_reference(A, salt);
}

/// Collective: the bytes of doubles that the plan from `from` to `to` sends between ranks.
template <int N> index_t plan_bytes(const Layout<N>& from, const Layout<N>& to) {
  const hpf::RedistributionPlan<N> plan(from, to);
  long long mine = plan.send_elements();
  long long all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return static_cast<index_t>(all) * static_cast<index_t>(sizeof(double));
}

/// Collective (a ProcessGrid): a random layout of `extents` over `ranks` (in that order), of a random
/// shape: 1-D for N = 1; for N = 2 a 1-D grid with one dimension collapsed, or any 2-D factorisation.
template <int N, class Rng>
Layout<N> random_layout(const Index<N>& extents, const std::vector<int>& ranks, Rng& rng) {
  const int n = static_cast<int>(ranks.size());
  std::array<Distribution, N> dists{};
  std::vector<int> shape;
  if (N == 1) {
    shape = {n};
    dists[0] = hpf::test::random_regular_dist(extents[0], n, rng);
  } else if (pick(rng, 0, 2) == 0) {
    shape = {n};
    const int keep = pick(rng, 0, N - 1);
    for (int d = 0; d < N; ++d)
      dists[static_cast<std::size_t>(d)] =
          d == keep ? hpf::test::random_regular_dist(extents[static_cast<std::size_t>(d)], n, rng)
                    : hpf::Collapsed();
  } else {
    std::vector<int> divisors;
    for (int a = 1; a <= n; ++a)
      if (n % a == 0) divisors.push_back(a);
    const int a = divisors[static_cast<std::size_t>(pick(rng, 0, static_cast<int>(divisors.size()) - 1))];
    shape = {a, n / a};
    for (int d = 0; d < N; ++d)
      dists[static_cast<std::size_t>(d)] = hpf::test::random_regular_dist(
          extents[static_cast<std::size_t>(d)], shape[static_cast<std::size_t>(d)], rng);
  }
  return Layout<N>(extents, dists, ProcessGrid(MPI_COMM_WORLD, ranks, shape));
}

template <class Rng> std::vector<int> shuffled(std::vector<int> v, Rng& rng) {
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

std::vector<int> world_ranks() {
  std::vector<int> all(static_cast<std::size_t>(world_size()));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

RedistOptions relabel_options() {
  RedistOptions o;
  o.relabel = true;
  return o;
}

/// One relabeled REDISTRIBUTE from `source` to `target`, checked: the grid is best_relabeling's
/// arrangement, the distributions are the target's, every value is in place, and the plan of the move
/// sends the bytes the query said.
/// Returns whether the arrangement differs from the target grid's.
template <int N> bool check_one(const Layout<N>& source, const Layout<N>& target, const std::string& trace) {
  SCOPED_TRACE(trace);
  DistArray<double, N> A("A", source);
  fill(A);
  const hpf::Relabeling expect = hpf::best_relabeling(source, target, sizeof(double));
  EXPECT_LE(expect.bytes_moved, expect.bytes_moved_given);
  EXPECT_EQ(plan_bytes(source, target), expect.bytes_moved_given);
  A.redistribute(target, relabel_options());
  const Layout<N>& now = A.layout();
  EXPECT_EQ(now.grid().ranks(), expect.ranks);
  EXPECT_EQ(now.grid().shape(), target.grid().shape());
  for (int d = 0; d < N; ++d)
    EXPECT_TRUE(now.map(d) == target.map(d)) << "dimension " << d; // the target's maps
  EXPECT_EQ(now.extents(), target.extents());
  EXPECT_TRUE(holds_values(A));
  EXPECT_EQ(plan_bytes(source, now), expect.bytes_moved);
  // The sides of plain layouts are the sides RelabelSide::plain makes without a communicator.
  const auto is_plain = [](const Layout<N>& L) { // the distributed dimensions along the grid's, in order
    int next = 0;
    for (int d = 0; d < N; ++d)
      if (L.grid_dim(d) >= 0 && L.grid_dim(d) != next++) return false;
    return next == L.grid().ndims() && !L.replicates_or_fixes();
  };
  if (is_plain(source) && is_plain(target)) {
    const auto plain = [](const Layout<N>& L) {
      return hpf::RelabelSide::plain(std::vector<index_t>(L.extents().begin(), L.extents().end()),
                                     std::vector<Distribution>(L.dists().begin(), L.dists().end()),
                                     L.grid().shape(), L.grid().ranks(), L.grid().parent_size());
    };
    EXPECT_EQ(hpf::RelabelSide::source_of(source).coords, plain(source).coords);
    EXPECT_EQ(hpf::RelabelSide::target_of(target).coords, plain(target).coords);
    EXPECT_EQ(
        hpf::relabel_volumes(hpf::RelabelSide::source_of(source), hpf::RelabelSide::target_of(target)).v,
        hpf::relabel_volumes(plain(source), plain(target)).v);
  }
  return expect.ranks != target.grid().ranks();
}

template <int N> void random_pairs_on_every_rank(int trials, unsigned seed) {
  std::mt19937 rng(seed); // the same draws on every rank
  int rearranged = 0;
  for (int t = 0; t < trials; ++t) {
    Index<N> extents{};
    for (auto& e : extents) e = pick(rng, 0, 12) == 0 ? 0 : pick(rng, 1, N == 1 ? 200 : 30);
    const Layout<N> source = random_layout<N>(extents, shuffled(world_ranks(), rng), rng);
    const Layout<N> target = random_layout<N>(extents, shuffled(world_ranks(), rng), rng);
    rearranged += check_one(source, target,
                            "trial " + std::to_string(t) + ": " + source.describe_dists() + " -> " +
                                target.describe_dists() + ", extents " + source.describe_extents())
                      ? 1
                      : 0;
  }
  if (world_size() >= 3) {
    EXPECT_GT(rearranged, trials / 4) << "the random pairs hardly ever gain from relabeling";
  }
}

TEST(RelabelRedistribute, OneDimensional) { random_pairs_on_every_rank<1>(hpf::test::cases(40), 11); }

TEST(RelabelRedistribute, TwoDimensional) { random_pairs_on_every_rank<2>(hpf::test::cases(40), 12); }

TEST(RelabelRedistribute, SameDistributionOnAReversedGridMovesNothing) {
  std::vector<int> fwd = world_ranks();
  std::vector<int> rev(fwd.rbegin(), fwd.rend());
  const Layout<2> source({64, 9}, {hpf::Block(), hpf::Collapsed()},
                         ProcessGrid(MPI_COMM_WORLD, fwd, {world_size()}));
  const Layout<2> target({64, 9}, {hpf::Block(), hpf::Collapsed()},
                         ProcessGrid(MPI_COMM_WORLD, rev, {world_size()}));
  const hpf::Relabeling r = hpf::best_relabeling(source, target, sizeof(double));
  EXPECT_EQ(r.ranks, fwd);
  EXPECT_EQ(r.bytes_moved, 0);
  DistArray<double, 2> A("A", source);
  fill(A);
  const double* before = A.local_data();
  A.redistribute(target, relabel_options());
  EXPECT_EQ(A.layout().grid().ranks(), fwd);
  EXPECT_EQ(A.local_data(), before) << "nothing moves: the block stays";
  EXPECT_TRUE(holds_values(A));
}

TEST(RelabelRedistribute, ReplicatedSourceSendsFromItsPrimaryCopy) {
  if (world_size() % 2 != 0) GTEST_SKIP() << "needs an even number of ranks";
  std::mt19937 rng(15);
  // A 1-D array along grid dimension 0 of a 2 x (size / 2) grid, replicated along dimension 1.
  const ProcessGrid grid(MPI_COMM_WORLD, shuffled(world_ranks(), rng), {2, world_size() / 2});
  const hpf::Placement<1> replicated{{0}, {hpf::Placement<1>::replicated, hpf::Placement<1>::replicated}};
  const Layout<1> copies({50}, {hpf::Block()}, grid, replicated);
  const Layout<1> plain({50}, {hpf::Cyclic(3)},
                        ProcessGrid(MPI_COMM_WORLD, shuffled(world_ranks(), rng), {world_size()}));
  check_one(copies, plain, "replicated -> plain");
  check_one(plain, copies, "plain -> replicated");
}

TEST(RelabelRedistribute, CopyIntoAndErrors) {
  std::mt19937 rng(13);
  const Layout<2> source = random_layout<2>({17, 11}, shuffled(world_ranks(), rng), rng);
  const Layout<2> target = random_layout<2>({17, 11}, shuffled(world_ranks(), rng), rng);
  DistArray<double, 2> A("A", source);
  fill(A);
  // The copy: laid out on the arranged grid, A unchanged.
  const DistArray<double, 2> B = hpf::redistribute(A, target, relabel_options());
  EXPECT_EQ(B.layout().grid().ranks(), hpf::best_relabeling(source, target).ranks);
  EXPECT_TRUE(holds_values(B));
  EXPECT_TRUE(A.layout() == source);
  // Into an existing array: its grid is fixed, relabel is refused on every rank.
  using Array2 = DistArray<double, 2>;
  Array2 C("C", target);
  HPF_EXPECT_ERROR(Array2::redistribute_into(A, C, relabel_options()), "redistribute_into",
                   "options.relabel = true", "expected false");
  // The plan's target is fixed too.
  HPF_EXPECT_ERROR(hpf::RedistributionPlan<2>(source, target, relabel_options()), "options.relabel = true");
  // A target grid over other ranks: refused on every rank, the array unchanged.
  if (world_size() >= 2) {
    std::vector<int> fewer = world_ranks();
    fewer.pop_back();
    const Layout<2> other({17, 11}, {hpf::Block(), hpf::Collapsed()},
                          ProcessGrid(MPI_COMM_WORLD, fewer, {static_cast<int>(fewer.size())}));
    HPF_EXPECT_ERROR(A.redistribute(other, relabel_options()), "DistArray::redistribute", "best_relabeling",
                     "same set of ranks");
    EXPECT_TRUE(A.layout() == source);
    EXPECT_TRUE(holds_values(A));
  }
  // relabeled_layout with ranks that are not the target's.
  std::vector<int> wrong = target.grid().ranks();
  wrong[0] = world_size();
  HPF_EXPECT_ERROR(hpf::relabeled_layout(target, wrong), "relabeled_layout", "not a rearrangement");
}

TEST(RelabelRedistribute, LongLoopOverRandomSubsets) {
  std::mt19937 rng(14); // the same draws on every rank: every rank takes the same path
  DistArray<double, 2> A("A", random_layout<2>({13, 7}, world_ranks(), rng));
  fill(A);
  int refused = 0;
  for (int t = 0; t < hpf::test::cases(300); ++t) {
    SCOPED_TRACE("iteration " + std::to_string(t));
    // A grid on a random subset, in a random order, of a random shape, for a random layout of A.
    std::vector<int> all = shuffled(world_ranks(), rng);
    // Iteration 1 always asks for a grid over another set of ranks (when there are two ranks or more),
    // so the refusal runs however few iterations a scaled-down build makes.
    const bool force_other = t == 1 && world_size() >= 2;
    const int count = pick(rng, 1, force_other ? world_size() - 1 : world_size());
    std::vector<int> subset(all.begin(), all.begin() + count);
    const bool other_set = count < world_size() && (force_other || pick(rng, 0, 9) == 0);
    std::vector<int> target_ranks = shuffled(subset, rng);
    if (other_set) target_ranks.back() = all[static_cast<std::size_t>(count)]; // one rank not in A's grid
    // Move A onto the subset first (plain), then relabel onto another grid over it.
    const Layout<2> here = random_layout<2>(A.layout().extents(), shuffled(subset, rng), rng);
    A.redistribute(here);
    const Layout<2> target = random_layout<2>(A.layout().extents(), target_ranks, rng);
    if (other_set) {
      HPF_EXPECT_ERROR(A.redistribute(target, relabel_options()), "same set of ranks");
      EXPECT_TRUE(A.layout() == here);
      ++refused;
    } else {
      const hpf::Relabeling r = hpf::best_relabeling(here, target, sizeof(double));
      A.redistribute(target, relabel_options());
      EXPECT_EQ(A.layout().grid().ranks(), r.ranks);
    }
    if (t % 10 == 0 || other_set) {
      ASSERT_TRUE(holds_values(A));
    }
  }
  EXPECT_TRUE(holds_values(A));
  if (world_size() >= 2) {
    EXPECT_GT(refused, 0);
  }
}

} // namespace
