// Nothing hangs when one rank fails: a rank whose message buffer cannot be allocated
// (RedistributionExecutor::prepare, before any message goes out) makes every rank throw its error through
// REDISTRIBUTE's agreement. In a process of its own: the failure is made with an address-space limit
// (RLIMIT_AS), which heap that earlier tests left free (or an earlier failed allocation) would let the buffer
// slip under.
#include "hpf_test.hpp"
#include "test_scale.hpp"

#include <hpf/hpf.hpp>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

namespace {

using hpf::DistArray;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::test::world_rank;
using hpf::test::world_size;

// A rank whose message buffer cannot be allocated before any message goes out (here the only rank of
// the target's grid, under an address-space limit set just above what it maps) reports it in the
// agreement's allreduce: every rank throws its error instead of waiting for its messages,
// the array is unchanged, and the same call works once the limit is lifted. The target block comes
// from the block pool (array/block_pool.hpp) and the message is packed (not in place), so the buffer
// is the first thing that fails.
#ifndef HPF_TEST_ASAN // ASan reserves terabytes of address space up front
TEST(Issue15, RedistributeRefusesWhenOneRanksMessageBufferCannotBeAllocated) {
  const int n = world_size();
  const int me = world_rank();
  if (n < 2) GTEST_SKIP() << "needs two ranks";
  const auto grid = ProcessGrid::world({n});
  // Large blocks are mapped afresh, not carved from heap that earlier tests freed (glibc raises its
  // mmap threshold as big blocks are freed; reused heap would not grow the address space).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  const index_t per = index_t{1} << 21; // 16 MiB of doubles from each rank
  const index_t M = per * n;
  const Layout<1> spread({M}, {hpf::Block()}, grid);
  for (int f = 0; f < n; f += n - 1) {
    const ProcessGrid only_f(MPI_COMM_WORLD, std::vector<int>{f}, {1});
    const Layout<1> on_f({M}, {hpf::Block()}, only_f);
    hpf::RedistOptions warm;
    warm.strategy = hpf::Strategy::AllAtOnce;
    warm.in_place_min_piece_bytes = SIZE_MAX;
    hpf::RedistOptions fresh = warm; // another plan: an executor whose buffers are not made yet
    fresh.tag = hpf::tags::redist.base + 100 + f;
    DistArray<double, 1> A("A", spread);
    hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
    A.redistribute(on_f, warm); // leaves a block of on_f's shape in the block pool
    A.redistribute(spread, warm);
    std::string error;
    {
      rlimit old{};
      ASSERT_EQ(getrlimit(RLIMIT_AS, &old), 0);
      if (me == f) {
        hpf::detail::release_buffer_pool(); // no message buffer is left to reuse
        long pages = 0;
        std::ifstream("/proc/self/statm") >> pages;
        rlimit tight = old;
        tight.rlim_cur =
            static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (8U << 20U);
        ASSERT_EQ(setrlimit(RLIMIT_AS, &tight), 0);
      }
      try {
        A.redistribute(on_f, fresh);
      } catch (const hpf::Error& e) {
        error = e.what();
      }
      if (me == f) setrlimit(RLIMIT_AS, &old);
    }
    EXPECT_NE(error.find("cannot allocate message buffers"), std::string::npos)
        << "rank " << f << ": " << error;
    EXPECT_EQ(A.layout(), spread);
    A.redistribute(on_f, fresh);
    if (me == f) {
      const auto all = A.owned_copy();
      ASSERT_EQ(all.size(), static_cast<std::size_t>(M));
      for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], double(i)) << "rank " << f;
    }
  }
}
#endif

} // namespace
