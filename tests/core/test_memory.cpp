// core/memory.hpp: large blocks and the bounded pool that recycles them, so that first calls
// stay cheap.
#include <hpf/core/memory.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using hpf::detail::allocate_large;
using hpf::detail::buffer_pool_stats;
using hpf::detail::free_large;
using hpf::detail::huge_page_bytes;

class BufferPool : public ::testing::Test {
protected:
  void SetUp() override {
    m_limit = hpf::detail::buffer_pool_limit();
    hpf::detail::set_buffer_pool_limit(std::size_t{64} << 20);
    hpf::detail::release_buffer_pool();
  }
  void TearDown() override {
    hpf::detail::release_buffer_pool();
    hpf::detail::set_buffer_pool_limit(m_limit);
  }

private:
  std::size_t m_limit = 0;
};

TEST_F(BufferPool, ReleasedBlockIsReusedForTheSameRoundedSize) {
  const std::size_t bytes = 3 * huge_page_bytes + 17;
  void* a = allocate_large(bytes);
  std::memset(a, 1, bytes);
  const auto before = buffer_pool_stats();
  free_large(a, bytes);
  EXPECT_EQ(buffer_pool_stats().blocks, before.blocks + 1);
  EXPECT_EQ(buffer_pool_stats().bytes, before.bytes + 4 * huge_page_bytes);
  // Any size that rounds to the same number of huge pages takes the block back.
  void* b = allocate_large(4 * huge_page_bytes - 1);
  EXPECT_EQ(b, a);
  EXPECT_EQ(buffer_pool_stats().reuses, before.reuses + 1);
  EXPECT_EQ(buffer_pool_stats().blocks, before.blocks);
  std::memset(b, 2, 4 * huge_page_bytes - 1); // the whole request is usable
  free_large(b, 4 * huge_page_bytes - 1);
}

TEST_F(BufferPool, OtherSizesAndSmallBlocksAreNotPooled) {
  void* a = allocate_large(2 * huge_page_bytes);
  free_large(a, 2 * huge_page_bytes);
  const auto held = buffer_pool_stats();
  void* b = allocate_large(3 * huge_page_bytes); // a different capacity: a new block
  EXPECT_NE(b, a);
  EXPECT_EQ(buffer_pool_stats().blocks, held.blocks);
  free_large(b, 3 * huge_page_bytes);
  void* small = allocate_large(4096);
  free_large(small, 4096);
  EXPECT_EQ(buffer_pool_stats().blocks, held.blocks + 1); // only b joined
}

TEST_F(BufferPool, MidSizeBlocksArePooledInWholeUnits) {
  using hpf::detail::pool_min_bytes;
  using hpf::detail::pool_unit_bytes;
  // 2,000,000 bytes (a 4-rank BLOCK -> CYCLIC(1) message of 10^6 doubles per rank) rounds to 31 units.
  void* a = allocate_large(2000000);
  free_large(a, 2000000);
  EXPECT_EQ(buffer_pool_stats().bytes, 31 * pool_unit_bytes);
  void* b = allocate_large(31 * pool_unit_bytes - 5);
  EXPECT_EQ(b, a);
  free_large(b, 31 * pool_unit_bytes - 5);
  void* small = allocate_large(pool_min_bytes - 1); // below the pool: operator new and delete
  free_large(small, pool_min_bytes - 1);
  EXPECT_EQ(buffer_pool_stats().blocks, 1u);
}

TEST_F(BufferPool, TheBoundIsNeverExceeded) {
  hpf::detail::set_buffer_pool_limit(5 * huge_page_bytes);
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(allocate_large(2 * huge_page_bytes));
  for (void* p : blocks) free_large(p, 2 * huge_page_bytes);
  EXPECT_EQ(buffer_pool_stats().blocks, 2u); // 4 MiB each: two fit in 10 MiB, the others were freed
  EXPECT_LE(buffer_pool_stats().bytes, 5 * huge_page_bytes);
  hpf::detail::set_buffer_pool_limit(3 * huge_page_bytes); // lowering the bound frees the excess
  EXPECT_EQ(buffer_pool_stats().blocks, 1u);
  hpf::detail::set_buffer_pool_limit(0); // disabled: nothing is kept
  EXPECT_EQ(buffer_pool_stats().blocks, 0u);
  void* p = allocate_large(2 * huge_page_bytes);
  free_large(p, 2 * huge_page_bytes);
  EXPECT_EQ(buffer_pool_stats().bytes, 0u);
}

TEST_F(BufferPool, ReleaseEmptiesThePoolAndKeepsTheBound) {
  void* p = allocate_large(huge_page_bytes);
  free_large(p, huge_page_bytes);
  EXPECT_EQ(buffer_pool_stats().blocks, 1u);
  hpf::detail::release_buffer_pool();
  EXPECT_EQ(buffer_pool_stats().blocks, 0u);
  EXPECT_EQ(hpf::detail::buffer_pool_limit(), std::size_t{64} << 20);
}

TEST(LargeBlocks, AreHugePageAligned) {
  void* p = allocate_large(huge_page_bytes + 1);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % huge_page_bytes, 0u);
  free_large(p, huge_page_bytes + 1);
  free_large(nullptr, huge_page_bytes); // a no-op
}

} // namespace
