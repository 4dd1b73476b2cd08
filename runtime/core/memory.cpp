#include <hpf/core/memory.hpp>

#include <atomic>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

// AddressSanitizer: gcc defines __SANITIZE_ADDRESS__, clang answers __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define HPF_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HPF_ASAN 1
#endif
#endif

#if defined(HPF_ASAN)
#include <sanitizer/asan_interface.h>
#define HPF_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define HPF_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define HPF_POISON(p, n) ((void)(p), (void)(n))
#define HPF_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace hpf::detail {

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (begin + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
  const std::uintptr_t last = (begin + bytes) / huge_page_bytes * huge_page_bytes;
  if (p == nullptr || last <= first) return;
  // Advice only: a kernel without THP returns EINVAL and the pages stay small. The address is
  // rounded as an integer: there is no pointer to derive it from.
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

namespace {

constexpr std::size_t default_pool_bytes = std::size_t{64} << 20;

/// What the block pool (array/block_pool.cpp) holds: charged to the same bound.
std::atomic<std::size_t> g_block_pool_bytes{0};

/// Capacity of a pooled block: whole 64 KiB units below a huge page, whole huge pages from there on
/// (never overflows: bytes came from a live allocation or a request operator new would refuse).
std::size_t capacity_of(std::size_t bytes) noexcept {
  const std::size_t unit = bytes < huge_page_bytes ? pool_unit_bytes : huge_page_bytes;
  const std::size_t units = bytes / unit + (bytes % unit != 0 ? 1 : 0);
  return units > SIZE_MAX / unit ? bytes : units * unit;
}

void* new_block(std::size_t capacity) {
  if (capacity < huge_page_bytes) return ::operator new(capacity);
  void* p = ::operator new (capacity, std::align_val_t{huge_page_bytes});
  advise_huge_pages(p, capacity);
  return p;
}

void delete_block(void* p, std::size_t capacity) noexcept {
  if (capacity < huge_page_bytes) {
    ::operator delete(p);
  } else {
    ::operator delete (p, std::align_val_t{huge_page_bytes});
  }
}

std::size_t limit_from_environment() noexcept {
  const char* v = std::getenv("HPF_POOL_BYTES");
  if (v == nullptr || *v == '\0') return default_pool_bytes;
  char* end = nullptr;
  errno = 0;
  const unsigned long long bytes = std::strtoull(v, &end, 10);
  // An unreadable value keeps the default: a tuning knob must not stop a program.
  if (errno != 0 || end == v || *end != '\0' || bytes > SIZE_MAX) return default_pool_bytes;
  return static_cast<std::size_t>(bytes);
}

/// Released large blocks by capacity. Never destroyed: executors held by static caches may free
/// their buffers during static destruction, after a static pool would be gone.
class Pool {
public:
  void* take(std::size_t capacity) noexcept {
    const std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_blocks.find(capacity);
    if (it == m_blocks.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    m_bytes -= capacity;
    --m_count;
    ++m_reuses;
    HPF_UNPOISON(p, capacity);
    return p;
  }
  /// Keeps p when the bound allows; false when the caller must free it.
  bool give(void* p, std::size_t capacity) noexcept {
    const std::lock_guard<std::mutex> lock(m_mutex);
    const std::size_t limit = m_limit.load(std::memory_order_relaxed);
    const std::size_t held = m_bytes + g_block_pool_bytes.load(std::memory_order_relaxed);
    if (capacity > limit || held > limit - capacity) return false;
    try {
      m_blocks[capacity].push_back(p);
    } catch (...) { // no memory for the bookkeeping: free the block instead
      return false;
    }
    HPF_POISON(p, capacity);
    m_bytes += capacity;
    ++m_count;
    return true;
  }
  void set_limit(std::size_t bytes) noexcept {
    std::vector<std::pair<void*, std::size_t>> drop;
    {
      const std::lock_guard<std::mutex> lock(m_mutex);
      m_limit.store(bytes, std::memory_order_relaxed);
      for (auto& [capacity, blocks] : m_blocks)
        while (m_bytes > bytes && !blocks.empty()) {
          try {
            drop.emplace_back(blocks.back(), capacity);
          } catch (...) {
            return; // no memory to list the blocks: keep them; the next call frees them
          }
          blocks.pop_back();
          m_bytes -= capacity;
          --m_count;
        }
    }
    for (auto [p, capacity] : drop) {
      HPF_UNPOISON(p, capacity);
      delete_block(p, capacity);
    }
  }
  void release() noexcept {
    const std::size_t keep = limit();
    set_limit(0);
    set_limit(keep);
  }
  // Read without the lock: REDISTRIBUTE asks for it on every call (array/block_pool.cpp).
  std::size_t limit() const noexcept { return m_limit.load(std::memory_order_relaxed); }
  BufferPoolStats stats() noexcept {
    const std::lock_guard<std::mutex> lock(m_mutex);
    return {m_count, m_bytes, m_reuses};
  }

private:
  std::mutex m_mutex;
  std::unordered_map<std::size_t, std::vector<void*>> m_blocks;
  std::size_t m_bytes = 0;
  std::size_t m_count = 0;
  std::size_t m_reuses = 0;
  std::atomic<std::size_t> m_limit{limit_from_environment()}; // written under m_mutex
};

Pool& pool() noexcept {
  // Never freed (see Pool). The first call allocates a few dozen bytes: should even that fail, the
  // process ends here (noexcept), as it would at its next allocation.
  // NOLINTNEXTLINE(cppcoreguidelines-owning-memory,bugprone-unhandled-exception-at-new)
  static Pool* const instance = new Pool;
  return *instance;
}

} // namespace

std::size_t allocation_bytes(std::size_t bytes) noexcept {
  return bytes < pool_min_bytes ? bytes : capacity_of(bytes);
}

void* allocate_large(std::size_t bytes) {
  if (bytes < pool_min_bytes) return ::operator new(bytes);
  const std::size_t capacity = capacity_of(bytes);
  if (void* p = pool().take(capacity)) return p;
  try {
    return new_block(capacity);
  } catch (const std::bad_alloc&) {
    release_buffer_pool(); // what the pool holds may be what is missing
    return new_block(capacity);
  }
}

void free_large(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes < pool_min_bytes) {
    ::operator delete(p);
    return;
  }
  const std::size_t capacity = capacity_of(bytes);
  if (!pool().give(p, capacity)) delete_block(p, capacity);
}

BufferPoolStats buffer_pool_stats() noexcept { return pool().stats(); }
void note_block_pool_bytes(std::size_t bytes) noexcept {
  g_block_pool_bytes.store(bytes, std::memory_order_relaxed);
}
std::size_t buffer_pool_limit() noexcept { return pool().limit(); }
void set_buffer_pool_limit(std::size_t bytes) noexcept { pool().set_limit(bytes); }
void release_buffer_pool() noexcept { pool().release(); }

} // namespace hpf::detail
