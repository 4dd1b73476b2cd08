// The executors kept with a cached plan (plan_cache.hpp): a repeated REDISTRIBUTE reuses one (its
// buffers survive), two executions in flight at once through one plan get two executors, and an
// executor left with a pending execution is never handed out again. Layouts that give every rank the
// same local block move nothing.
#include "hpf_test.hpp"

#include <hpf/array/block_pool.hpp>
#include <hpf/hpf.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using hpf::DistArray;
using hpf::Index;
using hpf::index_t;
using hpf::Layout;
using hpf::RedistOptions;

RedistOptions opts(hpf::Strategy s) {
  RedistOptions o;
  o.strategy = s;
  o.alpha = 1e-6;
  o.beta = 1e-9;
  return o;
}

void fill(DistArray<double, 1>& A, double salt) {
  hpf::forall(A, [salt](const Index<1>& g, double& x) { x = salt + static_cast<double>(g[0]); });
}

/// Number of wrong elements, summed over ranks.
index_t wrong(const DistArray<double, 1>& A, double salt) {
  const hpf::CyclicMap m = A.layout().map(0);
  const int p = A.layout().grid().contains_me() ? A.layout().grid().my_position() : 0;
  index_t bad = 0;
  for (index_t l = 0; l < A.local_size(); ++l)
    bad += A.local_data()[l] != salt + static_cast<double>(m.global(p, l)) ? 1 : 0;
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  return bad;
}

TEST(ExecutorPool, RepeatedCallsReuseOneExecutor) {
  hpf::clear_plan_cache();
  const auto line = hpf::ProcessGrid::world({hpf::test::world_size()});
  const index_t M = 1237;
  const Layout<1> a({M}, {hpf::Cyclic(3)}, line);
  const Layout<1> b({M}, {hpf::Cyclic(5)}, line);
  const RedistOptions o = opts(hpf::Strategy::KoenigStepwise);
  const hpf::RedistributionExecutor<1>* first = nullptr;
  {
    auto lease = hpf::cached_executor(a, b, o);
    first = &*lease;
    EXPECT_EQ(&lease.plan(), hpf::cached_plan(a, b, o).get());
  }
  for (int k = 0; k < 3; ++k) {
    auto lease = hpf::cached_executor(a, b, o);
    EXPECT_EQ(&*lease, first); // the same executor, back from the pool
    DistArray<double, 1> A("A", a);
    DistArray<double, 1> B("B", b);
    fill(A, k);
    lease->execute(A, B);
    EXPECT_EQ(wrong(B, k), 0);
  }
  // In-place REDISTRIBUTE through the pool, back and forth.
  DistArray<double, 1> X("X", a);
  fill(X, 7);
  for (int k = 0; k < 4; ++k) {
    X.redistribute(k % 2 == 0 ? b : a, o);
    EXPECT_EQ(wrong(X, 7), 0);
  }
}

TEST(ExecutorPool, OverlappingExecutionsGetDistinctExecutors) {
  hpf::clear_plan_cache();
  const auto line = hpf::ProcessGrid::world({hpf::test::world_size()});
  const index_t M = 3001;
  const Layout<1> a({M}, {hpf::Block()}, line);
  const Layout<1> b({M}, {hpf::Cyclic(1)}, line);
  // All-at-once: both executions post everything in the same order on every rank, so one tag serves.
  const RedistOptions o = opts(hpf::Strategy::AllAtOnce);
  DistArray<double, 1> A1("A1", a);
  DistArray<double, 1> A2("A2", a);
  DistArray<double, 1> B1("B1", b);
  DistArray<double, 1> B2("B2", b);
  fill(A1, 1);
  fill(A2, 2);
  auto l1 = hpf::cached_executor(a, b, o);
  auto l2 = hpf::cached_executor(a, b, o);
  EXPECT_NE(&*l1, &*l2);
  EXPECT_EQ(&l1.plan(), &l2.plan());
  l1->post(A1, B1);
  l2->post(A2, B2);
  l1->wait();
  l2->wait();
  EXPECT_EQ(wrong(B1, 1), 0);
  EXPECT_EQ(wrong(B2, 2), 0);
}

TEST(ExecutorPool, PendingExecutorIsNotReturned) {
  hpf::clear_plan_cache();
  // A grid of one process (rank 0): nothing goes over the network, so an execution can be left
  // pending safely; rank 0 copies locally, the other ranks take part and move nothing.
  const hpf::ProcessGrid one(MPI_COMM_WORLD, {0}, {1});
  const Layout<1> a({100}, {hpf::Cyclic(2)}, one);
  const Layout<1> b({100}, {hpf::Cyclic(7)}, one);
  const RedistOptions o = opts(hpf::Strategy::AllAtOnce);
  DistArray<double, 1> A("A", a);
  DistArray<double, 1> B("B", b);
  fill(A, 3);
  {
    auto lease = hpf::cached_executor(a, b, o);
    lease->post(A, B); // never waited: the lease dies with it pending
    EXPECT_TRUE(lease->pending());
  }
  auto again = hpf::cached_executor(a, b, o);
  EXPECT_FALSE(again->pending()); // had the pool kept it, this one would still be pending
  again->execute(A, B);
  EXPECT_EQ(wrong(B, 3), 0);
}

// Layouts that give every rank the same local block: REDISTRIBUTE moves nothing and keeps the storage.
TEST(StorageIdentical, InPlaceRedistributeOnlyRelabels) {
  hpf::clear_plan_cache();
  const int P = hpf::test::world_size();
  const auto line = hpf::ProcessGrid::world({P});
  const index_t M = 1001;
  const index_t b = (M + P - 1) / P;
  const Layout<1> blk({M}, {hpf::Block()}, line);
  const Layout<1> cyc({M}, {hpf::Cyclic(b)}, line);
  const RedistOptions o = opts(hpf::Strategy::Auto);
  EXPECT_TRUE(hpf::cached_plan(blk, cyc, o)->storage_identical());
  DistArray<double, 1> A("A", blk);
  fill(A, 5);
  const double* before = A.local_data();
  A.redistribute(cyc, o);
  EXPECT_EQ(A.local_data(), before); // not copied
  EXPECT_TRUE(A.layout() == cyc);
  EXPECT_EQ(wrong(A, 5), 0);
  const auto B = hpf::redistribute(A, blk, o); // a copy still copies
  EXPECT_NE(B.local_data(), A.local_data());
  EXPECT_EQ(wrong(B, 5), 0);

  // Not identical: other block sizes (on more than one process), or the same maps on a grid whose
  // ranks come in another order.
  const Layout<1> c3({M}, {hpf::Cyclic(3)}, line);
  const Layout<1> c5({M}, {hpf::Cyclic(5)}, line);
  EXPECT_EQ(hpf::cached_plan(c3, c5, o)->storage_identical(), P == 1);
  std::vector<int> reversed(static_cast<std::size_t>(P));
  for (int k = 0; k < P; ++k) reversed[static_cast<std::size_t>(k)] = P - 1 - k;
  const hpf::ProcessGrid rev(MPI_COMM_WORLD, reversed, {P});
  const Layout<1> c3r({M}, {hpf::Cyclic(3)}, rev);
  EXPECT_EQ(hpf::cached_plan(c3, c3r, o)->storage_identical(), P == 1);
  DistArray<double, 1> C("C", c3);
  fill(C, 9);
  C.redistribute(c3r, o);
  EXPECT_EQ(wrong(C, 9), 0);
  C.redistribute(c5, o);
  EXPECT_EQ(wrong(C, 9), 0);
}

} // namespace

namespace {

// A REDISTRIBUTE back and forth reuses the block the previous one released (array/block_pool.hpp),
// never one a caller still holds, and not at all with the pool disabled.
TEST(BlockPool, RedistributeReusesTheReleasedBlockOnly) {
  const int n = hpf::test::world_size();
  const auto grid = hpf::ProcessGrid::world({n});
  const Layout<1> a({40000}, {hpf::Cyclic(3)}, grid);
  const Layout<1> b({40000}, {hpf::Cyclic(5)}, grid);
  hpf::detail::release_block_pool();
  DistArray<double, 1> A("pooled", a);
  fill(A, 0.5);
  const std::size_t reuses = hpf::detail::block_pool_stats().reuses;
  A.redistribute(b, opts(hpf::Strategy::KoenigStepwise)); // releases A's CYCLIC(3) block
  A.redistribute(a, opts(hpf::Strategy::KoenigStepwise)); // takes it, releases the CYCLIC(5) one
  A.redistribute(b, opts(hpf::Strategy::KoenigStepwise)); // takes that
  EXPECT_EQ(wrong(A, 0.5), 0);
  const bool moves = n > 1; // on one rank CYCLIC(3) and CYCLIC(5) keep the same block: relabelled
  EXPECT_EQ(hpf::detail::block_pool_stats().reuses - reuses, moves ? 2U : 0U);

  // A view copied out of the array keeps its block: it is neither pooled nor overwritten.
  const auto held = A.local_view();
  const std::vector<double> before(held.data(), held.data() + A.local_size());
  const std::size_t pooled = hpf::detail::block_pool_stats().blocks;
  A.redistribute(a, opts(hpf::Strategy::KoenigStepwise));
  EXPECT_EQ(hpf::detail::block_pool_stats().blocks, moves ? pooled - 1 : pooled); // took one, gave none
  A.redistribute(b, opts(hpf::Strategy::KoenigStepwise));
  EXPECT_EQ(std::vector<double>(held.data(), held.data() + before.size()), before);
  EXPECT_EQ(wrong(A, 0.5), 0);

  // Disabled: nothing is kept.
  const std::size_t limit = hpf::detail::buffer_pool_limit();
  hpf::detail::set_buffer_pool_limit(0);
  hpf::detail::release_block_pool();
  A.redistribute(a, opts(hpf::Strategy::KoenigStepwise));
  EXPECT_EQ(hpf::detail::block_pool_stats().blocks, 0U);
  EXPECT_EQ(wrong(A, 0.5), 0);
  hpf::detail::set_buffer_pool_limit(limit);
}

} // namespace

namespace {

using PoolView = Kokkos::View<double*, Kokkos::LayoutLeft, Kokkos::HostSpace>;

PoolView pool_view(const std::string& label, std::size_t n) {
  return PoolView(Kokkos::view_alloc(label, Kokkos::WithoutInitializing), n);
}

/// Gives a copy of `v` to the pool under its own key; the caller keeps `v` (use_count() tells
/// whether the pool still holds the block).
void give_copy(const std::string& label, const PoolView& v) {
  hpf::detail::block_pool_give(hpf::detail::block_key(label, v), v.span() * sizeof(double),
                               hpf::detail::PooledView::hold(PoolView(v)));
}

// The pool itself (array/block_pool.hpp): at most max_pooled_blocks blocks and buffer_pool_limit()
// bytes, the oldest dropped first and handed out first, only to the same type, label and extents;
// a dropped block is released; giving and taking from several threads at once keeps the bounds.
TEST(BlockPool, KeepsItsBoundsAndHandsOutTheOldestMatchFirst) {
  namespace d = hpf::detail;
  d::release_block_pool();
  const std::size_t limit = d::buffer_pool_limit();
  const std::size_t cap = d::max_pooled_blocks;
  std::vector<PoolView> given;
  for (std::size_t k = 0; k < cap + 2; ++k) {
    given.push_back(pool_view("p", 100));
    give_copy("p", given.back());
  }
  EXPECT_EQ(d::block_pool_stats().blocks, cap);
  EXPECT_EQ(d::block_pool_stats().bytes, cap * 100 * sizeof(double));
  EXPECT_EQ(given[0].use_count(), 1); // the two oldest were dropped and released
  EXPECT_EQ(given[1].use_count(), 1);
  EXPECT_EQ(given[2].use_count(), 2);

  // Another label, extent or type finds nothing.
  EXPECT_EQ(d::reuse_view<PoolView>(d::block_key("q", given[2])).data(), nullptr);
  EXPECT_EQ(d::reuse_view<PoolView>(d::block_key("p", pool_view("p", 99))).data(), nullptr);
  using FloatView = Kokkos::View<float*, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  d::BlockKey float_key{typeid(FloatView), "p", {}};
  float_key.extents[0] = 100;
  EXPECT_FALSE(d::block_pool_take(float_key).has_value());

  // The same key takes the oldest kept block first.
  const std::size_t reuses = d::block_pool_stats().reuses;
  for (std::size_t k = 2; k < 5; ++k) {
    const PoolView got = d::reuse_view<PoolView>(d::block_key("p", given[k]));
    EXPECT_EQ(got.data(), given[k].data());
  }
  EXPECT_EQ(d::block_pool_stats().reuses - reuses, 3U);
  EXPECT_EQ(d::block_pool_stats().blocks, cap - 3);

  // The byte bound: a block larger than the limit is not kept, and a new one drops the oldest.
  d::release_block_pool();
  EXPECT_EQ(given[7].use_count(), 1);
  d::set_buffer_pool_limit(250 * sizeof(double));
  give_copy("p", pool_view("p", 300)); // alone above the limit
  EXPECT_EQ(d::block_pool_stats().blocks, 0U);
  give_copy("p", given[0]);
  give_copy("p", given[1]);
  give_copy("p", given[2]); // 300 elements > 250: given[0] goes
  EXPECT_EQ(d::block_pool_stats().blocks, 2U);
  EXPECT_EQ(given[0].use_count(), 1);
  EXPECT_EQ(given[1].use_count(), 2);
  d::set_buffer_pool_limit(limit);

  // Several threads at once. The blocks are std::shared_ptr (atomic reference counts), not Kokkos
  // views: Debian's Kokkos is built for its Serial back end only, whose atomics are plain operations
  // (KOKKOS_ENABLE_SERIAL_ATOMICS), so views made and freed on several threads at once are outside
  // what it supports. What is tested is the pool's own locking.
  d::release_block_pool();
  using Shared = std::shared_ptr<std::vector<double>>;
  std::vector<std::thread> threads;
  std::atomic<int> taken{0};
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &taken, &wrong] {
      const std::string label = "thread" + std::to_string(t % 2);
      for (int k = 0; k < 500; ++k) {
        const std::size_t n = 16 + static_cast<std::size_t>(k % 3);
        d::BlockKey key{typeid(Shared), label, {}};
        key.extents[0] = n;
        d::block_pool_give(key, n * sizeof(double),
                           d::PooledView::hold(std::make_shared<std::vector<double>>(n)));
        d::PooledView got = d::block_pool_take(key);
        if (!got.has_value()) continue;
        ++taken;
        const Shared block = got.release<Shared>();
        if (block == nullptr || block->size() != n || block.use_count() != 1) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_LE(d::block_pool_stats().blocks, cap);
  EXPECT_GT(taken.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  d::release_block_pool();
  EXPECT_EQ(d::block_pool_stats().blocks, 0U);
  EXPECT_EQ(d::block_pool_stats().bytes, 0U);
}

} // namespace
