#include <hpf/array/block_pool.hpp>
#include <hpf/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <mutex>
#include <utility>

namespace hpf::detail {

namespace {

struct Entry {
  BlockKey key;
  std::size_t bytes = 0;
  std::uint64_t age = 0; // order of arrival: the smallest is the oldest
  PooledView block;      // empty: a free slot
};

/// A fixed set of slots (max_pooled_blocks): giving and taking allocate nothing.
struct Pool {
  std::mutex mutex;
  std::array<Entry, max_pooled_blocks> slots;
  std::size_t blocks = 0;
  std::size_t bytes = 0;
  std::size_t reuses = 0;
  std::uint64_t next_age = 0;

  /// The oldest occupied slot, or nullptr.
  Entry* oldest() noexcept {
    Entry* e = nullptr;
    for (Entry& s : slots)
      if (s.block.has_value() && (e == nullptr || s.age < e->age)) e = &s;
    return e;
  }
  /// Empties slot `e` and returns its block (destroyed by the caller, outside the lock).
  PooledView vacate(Entry& e) noexcept {
    bytes -= e.bytes;
    --blocks;
    e.bytes = 0;
    return std::move(e.block);
  }
};

Pool& pool() {
  static Pool p;
  return p;
}

/// Blocks dropped under the lock, freed once it is released (a Kokkos deallocation may be slow).
using Dropped = std::array<PooledView, max_pooled_blocks + 1>;

/// Drops the oldest blocks until the pool holds at most `max_blocks` blocks and `max_bytes` bytes.
void trim(Pool& p, std::size_t max_blocks, std::size_t max_bytes, Dropped& dropped) noexcept {
  std::size_t n = 0;
  while (p.blocks > max_blocks || p.bytes > max_bytes) {
    Entry* e = p.oldest();
    if (e == nullptr) break;
    dropped[n++] = p.vacate(*e);
  }
}

} // namespace

void block_pool_give(BlockKey key, std::size_t bytes, PooledView block) {
  // One bound for both pools (core/memory.hpp): what the message pool holds leaves less room here.
  const std::size_t total = buffer_pool_limit();
  const std::size_t messages = buffer_pool_stats().bytes;
  const std::size_t limit = messages < total ? total - messages : 0;
  if (bytes > limit || !Kokkos::is_initialized()) return; // `block` is freed on return
  // Pooled views must go before Kokkos does: empty the pool in Kokkos::finalize.
  static std::once_flag hook;
  std::call_once(hook, [] { Kokkos::push_finalize_hook([] { release_block_pool(); }); });
  Dropped dropped;
  Pool& p = pool();
  const std::lock_guard<std::mutex> lock(p.mutex);
  if (p.blocks == max_pooled_blocks) dropped[max_pooled_blocks] = p.vacate(*p.oldest()); // room for it
  for (Entry& e : p.slots) {
    if (e.block.has_value()) continue;
    e.key = std::move(key);
    e.bytes = bytes;
    e.age = p.next_age++;
    e.block = std::move(block);
    ++p.blocks;
    p.bytes += bytes;
    break;
  }
  trim(p, max_pooled_blocks, limit, dropped);
  note_block_pool_bytes(p.bytes);
} // the lock is released before `dropped` is destroyed (declared first)

PooledView block_pool_take(const BlockKey& key) {
  Pool& p = pool();
  const std::lock_guard<std::mutex> lock(p.mutex);
  Entry* found = nullptr;
  for (Entry& e : p.slots)
    if (e.block.has_value() && (found == nullptr || e.age < found->age) && e.key == key) found = &e;
  if (found == nullptr) return {};
  ++p.reuses;
  PooledView out = p.vacate(*found);
  note_block_pool_bytes(p.bytes);
  return out;
}

void release_block_pool() noexcept {
  Dropped dropped;
  Pool& p = pool();
  const std::lock_guard<std::mutex> lock(p.mutex);
  trim(p, 0, 0, dropped);
  note_block_pool_bytes(0);
}

BlockPoolStats block_pool_stats() noexcept {
  Pool& p = pool();
  const std::lock_guard<std::mutex> lock(p.mutex);
  return {p.blocks, p.bytes, p.reuses};
}

} // namespace hpf::detail
