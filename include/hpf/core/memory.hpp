// Large blocks whose first touch is cheap: message buffers and the local blocks of DistArrays.
//
// A block that is written before it is read (a REDISTRIBUTE target, a message buffer) still costs one
// page fault per 4 KiB page the first time it is touched, and in a container every fault is also
// charged to the memory cgroup, so a first touch costs several times a warm memset of the same bytes.
// Advised as transparent huge pages (Linux madvise(MADV_HUGEPAGE), honoured when
// /sys/kernel/mm/transparent_hugepage/enabled is "madvise" or "always"), the same block faults once
// per 2 MiB instead. Elsewhere the advice is a no-op.
//
// Message buffers are also recycled. free_large keeps a released block of 256 KiB or more in a
// process-wide pool, and allocate_large hands it out again for a request of the same rounded size
// (whole 64 KiB units below 2 MiB, whole huge pages above), so that an executor built for a new plan
// reuses pages an earlier one already faulted in. The blocks REDISTRIBUTE releases
// (array/block_pool.hpp) are charged to the same bound: together the two retain at most
// buffer_pool_limit() bytes per process (default 64 MiB; environment variable HPF_POOL_BYTES, 0
// disables both), and free whatever would exceed it; release_buffer_pool() empties the message
// pool. A failed allocation empties the pool and tries once more before it throws. Under
// AddressSanitizer the pooled blocks are poisoned, so a use after free still reports.
#pragma once

#include <cstddef>

namespace hpf::detail {

/// Blocks of at least this many bytes are advised as huge pages (one huge page).
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
/// Blocks of at least this many bytes are pooled when released (smaller ones go to operator delete).
inline constexpr std::size_t pool_min_bytes = std::size_t{256} << 10;
/// Pooled blocks below a huge page are rounded up to whole units of this size.
inline constexpr std::size_t pool_unit_bytes = std::size_t{64} << 10;

/// Advises the 2 MiB-aligned pages inside [p, p + bytes) as transparent huge pages. Only pages not
/// touched yet benefit. Never fails: without support it does nothing.
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

/// `bytes` of uninitialised memory, 2 MiB aligned and advised as huge pages when bytes >=
/// huge_page_bytes, from operator new otherwise (or from the pool when bytes >= pool_min_bytes).
/// Throws std::bad_alloc. Free with free_large(p, bytes).
[[nodiscard]] void* allocate_large(std::size_t bytes);
/// The bytes allocate_large(bytes) takes from the system: `bytes` below pool_min_bytes, else its
/// rounded capacity, every page of which a first touch of huge pages may make resident. What a
/// memory ceiling counts for a buffer (RedistOptions::memory_ceiling_bytes).
[[nodiscard]] std::size_t allocation_bytes(std::size_t bytes) noexcept;
/// Frees a block of allocate_large(bytes) (the same `bytes`): a block of at least pool_min_bytes goes
/// back to the pool while the pool holds less than buffer_pool_limit().
void free_large(void* p, std::size_t bytes) noexcept;

/// What the pool holds now: blocks and their bytes (rounded capacities).
struct BufferPoolStats {
  std::size_t blocks = 0;
  std::size_t bytes = 0;
  std::size_t reuses = 0; ///< allocations served from the pool since the process started
};
[[nodiscard]] BufferPoolStats buffer_pool_stats() noexcept;
/// The most bytes the pools retain together (HPF_POOL_BYTES, read once; default 64 MiB).
[[nodiscard]] std::size_t buffer_pool_limit() noexcept;
/// Sets the bound (0 disables pooling) and frees what the pool holds beyond it.
void set_buffer_pool_limit(std::size_t bytes) noexcept;
/// Tells the message pool how many bytes the block pool holds (array/block_pool.cpp), so that the two
/// share one bound.
void note_block_pool_bytes(std::size_t bytes) noexcept;
/// Frees every block the pool holds.
void release_buffer_pool() noexcept;

} // namespace hpf::detail
