// hpf::scatter_combine: one-shot irregular updates against a serial reference, with XOR,
// +, min and a user operator (gcd), random indices with duplicates, empty lists on some ranks,
// BLOCK and CYCLIC(r), shadows, 2-D indices, the exchange split in rounds, and errors on every rank.
#include "hpf_test.hpp"

#include <cstdint>
#include <functional>
#include <numeric>
#include <random>

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
using U = std::uint64_t;

/// Rank r's updates of an array of n elements in trial `seed`: empty on rank 1, else up to 3n random
/// indices drawn from a few values (many duplicates) or from the whole range. The same on every rank.
void updates_of(int r, index_t n, unsigned seed, std::vector<index_t>& idx, std::vector<U>& val) {
  std::mt19937_64 rng(seed * 7919U + static_cast<unsigned>(r));
  idx.clear();
  val.clear();
  if (r == 1 || n == 0) return;
  const auto m = static_cast<std::size_t>(rng() % static_cast<U>(3 * n + 1));
  const bool few = rng() % 2 == 0;
  for (std::size_t i = 0; i < m; ++i) {
    idx.push_back(static_cast<index_t>(rng() % static_cast<U>(few ? std::min<index_t>(n, 3) : n)));
    val.push_back(rng() % 1000 + 1);
  }
}

U initial(index_t g) { return static_cast<U>(g) * 6 + 12; }

/// scatter_combine with `op` on `L` against the serial reference; with `limit`, the detail form whose
/// exchange runs in rounds of at most limit / P pairs per pair of ranks.
template <class Op> void check_op(const Layout<1>& L, Op op, unsigned seed, index_t limit = 0) {
  const index_t n = L.extent(0);
  DistArray<U, 1> T("T", L);
  hpf::forall(T, [](const Index<1>& g, U& t) { t = initial(g[0]); });
  std::vector<U> ref(static_cast<std::size_t>(n));
  for (index_t g = 0; g < n; ++g) ref[static_cast<std::size_t>(g)] = initial(g);
  std::vector<index_t> idx;
  std::vector<U> val;
  for (int r = 0; r < world_size(); ++r) {
    updates_of(r, n, seed, idx, val);
    for (std::size_t i = 0; i < idx.size(); ++i) {
      U& x = ref[static_cast<std::size_t>(idx[i])];
      x = op(x, val[i]);
    }
  }
  updates_of(world_rank(), n, seed, idx, val);
  if (limit == 0) {
    hpf::scatter_combine(T, std::span<const index_t>(idx), std::span<const U>(val), op);
  } else {
    hpf::detail::scatter_combine_impl<U, 1>(
        T, idx.size(), [&](std::size_t i) { return Index<1>{idx[i]}; }, std::span<const U>(val), op, limit);
  }
  index_t wrong = 0;
  hpf::forall(T, [&](const Index<1>& g, U& t) { wrong += t == ref[static_cast<std::size_t>(g[0])] ? 0 : 1; });
  EXPECT_EQ(wrong, 0) << L.describe_dists() << " extent " << n << " seed " << seed;
}

const auto umin = [](U a, U b) { return std::min(a, b); };
const auto ugcd = [](U a, U b) { return std::gcd(a, b); };

TEST(ScatterCombine, AgainstSerialReference) {
  const auto grid = ProcessGrid::world({world_size()});
  unsigned seed = 1;
  for (index_t n : {index_t(1), index_t(10), index_t(97)})
    for (const hpf::Distribution& d : {Block(), Cyclic(1), Cyclic(3)}) {
      const Layout<1> L({n}, {d}, grid);
      check_op(L, std::bit_xor<U>{}, seed++);
      check_op(L, std::plus<U>{}, seed++);
      check_op(L, umin, seed++);
      check_op(L, ugcd, seed++);
    }
}

TEST(ScatterCombine, SubgridShadowAndRounds) {
  const int P = world_size();
  // A grid of some ranks: the others still send their updates.
  const ProcessGrid part(MPI_COMM_WORLD, {P - 1}, {1});
  check_op(Layout<1>({33}, {Block()}, part), std::bit_xor<U>{}, 101);
  const auto grid = ProcessGrid::world({P});
  check_op(Layout<1>({45}, {Block()}, grid).with_shadow({2}), std::plus<U>{}, 102);
  check_op(Layout<1>({45}, {Cyclic(4)}, grid).with_shadow({1}), std::bit_xor<U>{}, 103);
  // Rounds of a few pairs each (the path of more than INT_MAX pairs).
  for (index_t limit : {index_t(1), index_t(5), index_t(64)})
    check_op(Layout<1>({31}, {Cyclic(2)}, grid), std::bit_xor<U>{}, 200 + static_cast<unsigned>(limit),
             limit);
}

TEST(ScatterCombine, ReplicatedArrayUpdatesEveryCopy) {
  const int P = world_size();
  const int p0 = P % 2 == 0 ? 2 : 1;
  const auto grid = ProcessGrid::world({p0, P / p0});
  const Layout<2> base({10, 6}, {Cyclic(3), Block()}, grid);
  hpf::Alignment<1, 2> row;
  row.dims[0] = {0, 1, 0};
  // check_op reads every copy (forall runs on each).
  check_op(Layout<1>::aligned(base, row, {10}), std::bit_xor<U>{}, 300);
  check_op(Layout<1>::aligned(base, row, {10}), std::plus<U>{}, 301);
}

TEST(ScatterCombine, TwoDimensionalWithShadow) {
  const int P = world_size();
  const int p0 = P % 2 == 0 ? 2 : 1;
  const auto grid = ProcessGrid::world({p0, P / p0});
  const Index<2> ext{7, 9};
  for (const Layout<2>& L : {Layout<2>(ext, {Cyclic(2), Block()}, grid),
                             Layout<2>(ext, {Block(), Cyclic(1)}, grid).with_shadow({1, 1})}) {
    DistArray<double, 2> T("T", L);
    std::vector<double> ref(63, 0.0);
    std::vector<Index<2>> idx;
    std::vector<double> val;
    for (int r = 0; r < P; ++r) {
      std::mt19937 rng(static_cast<unsigned>(r) + 5U);
      const int m = r == P - 1 && P > 1 ? 0 : 40;
      for (int i = 0; i < m; ++i) {
        const Index<2> g{static_cast<index_t>(rng() % 7), static_cast<index_t>(rng() % 9)};
        const double v = static_cast<double>(rng() % 100);
        ref[static_cast<std::size_t>(g[0] + 7 * g[1])] += v; // integers: exact in any order
        if (r == world_rank()) {
          idx.push_back(g);
          val.push_back(v);
        }
      }
    }
    hpf::scatter_combine(T, std::span<const Index<2>>(idx), std::span<const double>(val),
                         std::plus<double>{});
    index_t wrong = 0;
    hpf::forall(T, [&](const Index<2>& g, double& t) {
      wrong += t == ref[static_cast<std::size_t>(g[0] + 7 * g[1])] ? 0 : 1;
    });
    EXPECT_EQ(wrong, 0) << L.describe_dists();
  }
}

TEST(ScatterCombine, ErrorsOnEveryRankLeaveTheArrayUnchanged) {
  const int P = world_size();
  const auto grid = ProcessGrid::world({P});
  DistArray<U, 1> T("T", Layout<1>({10}, {Cyclic(3)}, grid));
  T.fill(5);
  const int bad = P - 1;
  std::vector<index_t> idx{1, 2, 3};
  std::vector<U> val{1, 1, 1};
  if (world_rank() == bad) idx[2] = 10;
  HPF_EXPECT_ERROR(
      hpf::scatter_combine(T, std::span<const index_t>(idx), std::span<const U>(val), std::bit_xor<U>{}),
      "hpf::scatter_combine(DistArray 'T'): index 10 at position 2 of rank " + std::to_string(bad),
      "outside the extent 10");
  if (world_rank() == bad) idx[2] = -1;
  HPF_EXPECT_ERROR(hpf::scatter_combine(T, idx, val, std::bit_xor<U>{}), "index -1 at position 2");
  idx[2] = 3;
  if (world_rank() == 0) val.pop_back();
  HPF_EXPECT_ERROR(hpf::scatter_combine(T, idx, val, std::bit_xor<U>{}),
                   "rank 0 passed 3 indices and 2 values");
  index_t changed = 0;
  hpf::forall(T, [&](const Index<1>&, U& t) { changed += t == 5 ? 0 : 1; });
  EXPECT_EQ(changed, 0);
  // Arrays that differ between ranks: the count exchange notices.
  if (P > 1) {
    DistArray<U, 1> V("V", Layout<1>({world_rank() == 0 ? index_t(11) : index_t(10)}, {Block()}, grid));
    HPF_EXPECT_ERROR(hpf::scatter_combine(V, std::vector<index_t>{}, std::vector<U>{}, std::bit_xor<U>{}),
                     "hpf::scatter_combine");
  }
}

} // namespace
