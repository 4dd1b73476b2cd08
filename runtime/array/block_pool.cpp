#include <hpf/array/block_pool.hpp>
#include <hpf/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <deque>
#include <mutex>
#include <utility>
#include <vector>

namespace hpf::detail {

namespace {

struct Entry {
  BlockKey key;
  std::size_t bytes = 0;
  std::any block;
};

struct Pool {
  std::mutex mutex;
  std::deque<Entry> entries; // oldest first
  std::size_t bytes = 0;
  std::size_t reuses = 0;
};

Pool& pool() {
  static Pool p;
  return p;
}

/// Drops entries (oldest first) until the pool holds at most `blocks` blocks and `bytes` bytes. The
/// dropped blocks are returned, to be freed outside the lock (an empty vector allocates nothing: a
/// REDISTRIBUTE of a small array gives a block back every call).
std::vector<Entry> trim(Pool& p, std::size_t blocks, std::size_t bytes) {
  std::vector<Entry> dropped;
  while (!p.entries.empty() && (p.entries.size() > blocks || p.bytes > bytes)) {
    p.bytes -= p.entries.front().bytes;
    dropped.push_back(std::move(p.entries.front()));
    p.entries.pop_front();
  }
  return dropped;
}

} // namespace

void block_pool_give(BlockKey key, std::size_t bytes, std::any block) {
  const std::size_t limit = buffer_pool_limit();
  if (bytes > limit || !Kokkos::is_initialized()) return; // `block` is freed on return
  // Pooled views must go before Kokkos does: empty the pool in Kokkos::finalize.
  static std::once_flag hook;
  std::call_once(hook, [] { Kokkos::push_finalize_hook([] { release_block_pool(); }); });
  std::vector<Entry> dropped;
  Pool& p = pool();
  {
    const std::lock_guard<std::mutex> lock(p.mutex);
    p.entries.push_back({std::move(key), bytes, std::move(block)});
    p.bytes += bytes;
    dropped = trim(p, max_pooled_blocks, limit);
  }
}

std::any block_pool_take(const BlockKey& key) {
  Pool& p = pool();
  const std::lock_guard<std::mutex> lock(p.mutex);
  for (auto it = p.entries.begin(); it != p.entries.end(); ++it) {
    if (it->key == key) {
      std::any out = std::move(it->block);
      p.bytes -= it->bytes;
      p.entries.erase(it);
      ++p.reuses;
      return out;
    }
  }
  return {};
}

void release_block_pool() noexcept {
  std::vector<Entry> dropped;
  Pool& p = pool();
  const std::lock_guard<std::mutex> lock(p.mutex);
  dropped = trim(p, 0, 0);
}

BlockPoolStats block_pool_stats() noexcept {
  Pool& p = pool();
  const std::lock_guard<std::mutex> lock(p.mutex);
  return {p.entries.size(), p.bytes, p.reuses};
}

} // namespace hpf::detail
