// The process-wide pool of shared-memory segments behind Exchange::set_shared_memory (exchange.hpp):
// what it has made, reused and holds, and the clean-up of segments that killed processes left behind.
//
// A receiver's segment is a POSIX shared-memory object named /hpfrt-<pid>-<number> (in /dev/shm on
// Linux); it keeps its name while it lives or is pooled, so that it can be offered again. A process
// that exits normally removes its names; one that is killed cannot. The first segment a process makes
// therefore removes the names of processes of this node that no longer exist
// (remove_stale_shared_memory); a name whose process still runs is never touched.
#pragma once

#include <cstddef>

namespace hpf {

/// Counters of this process's segment pool since it started (all local).
struct SharedMemoryStats {
  std::size_t segments_made = 0;       ///< receivers' segments created (shm_open, ftruncate, mmap)
  std::size_t segments_reused = 0;     ///< receivers' segments taken from the pool instead
  std::size_t mappings_made = 0;       ///< senders' new mappings of a receiver's segment
  std::size_t mappings_reused = 0;     ///< senders' mappings kept in the pool or shared with an exchange
  std::size_t mappings_dropped = 0;    ///< kept mappings freed because their segment's name was gone
  std::size_t segments_dropped = 0;    ///< receivers' segments freed, not pooled, because their name was gone
  std::size_t pooled_segments = 0;     ///< receivers' segments the pool holds now
  std::size_t pooled_mappings = 0;     ///< senders' mappings the pool holds now
  std::size_t pooled_bytes = 0;        ///< bytes of both (bounded by buffer_pool_limit())
  std::size_t stale_names_removed = 0; ///< names of ended processes removed (remove_stale_shared_memory)
  std::size_t segment_packs = 0;       ///< messages packed into a receiver's segment (not sent through MPI)
};

/// This process's counters. Local; thread-safe.
[[nodiscard]] SharedMemoryStats shared_memory_stats();

/// Removes the segment names (/hpfrt-<pid>-*) whose process no longer exists on this node, and
/// returns how many it removed. A name of a running process, or of another user's process, stays.
/// The first segment a process makes calls it once; calling it again is harmless. Local.
std::size_t remove_stale_shared_memory();

} // namespace hpf
