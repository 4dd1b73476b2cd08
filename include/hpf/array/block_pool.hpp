// Local blocks that REDISTRIBUTE released, kept for the next target of the same shape.
//
// `A.redistribute(b)` allocates the target's local block and releases the source's. A program that
// moves an array back and forth between phases (HPF's DYNAMIC arrays) would otherwise hand every
// target fresh pages, which the kernel faults in and zeroes on first touch: at 8*10^6 doubles on 2
// ranks that was about a tenth of a repeated REDISTRIBUTE (docs/redistribute.md). The pool keeps the
// released block (a Kokkos view nobody else holds) and gives it to the next uninitialised allocation
// of the same element type, label and extents. It is bounded like the message-buffer pool
// (core/memory.hpp): at most max_pooled_blocks blocks and buffer_pool_limit() bytes
// (HPF_BUFFER_POOL_MIB; 0 disables both pools), oldest dropped first. It empties itself when Kokkos
// finalises, and on release_block_pool().
#pragma once

#include <any>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <typeindex>
#include <typeinfo>

namespace hpf::detail {

/// What a pooled block fits: the view's type, its Kokkos label and its extents.
struct BlockKey {
  std::type_index type = typeid(void);
  std::string label;
  std::array<std::size_t, 8> extents{};
  friend bool operator==(const BlockKey&, const BlockKey&) = default;
};

/// Most blocks the pool keeps.
inline constexpr std::size_t max_pooled_blocks = 8;

/// Keeps `block` (`bytes` of memory, under `key`) for a later block_pool_take, dropping the oldest
/// blocks beyond the bounds (or this one, when it alone exceeds them). Thread-safe.
void block_pool_give(BlockKey key, std::size_t bytes, std::any block);
/// The oldest block kept under `key`, taken out of the pool; an empty std::any when there is none.
[[nodiscard]] std::any block_pool_take(const BlockKey& key);
/// Drops every pooled block.
void release_block_pool() noexcept;

struct BlockPoolStats {
  std::size_t blocks = 0;
  std::size_t bytes = 0;
  std::size_t reuses = 0; ///< blocks handed out again since the process started
};
[[nodiscard]] BlockPoolStats block_pool_stats() noexcept;

template <class View> BlockKey block_key(const std::string& label, const View& v) {
  BlockKey k{typeid(View), label, {}};
  for (std::size_t d = 0; d < View::rank; ++d) k.extents[d] = v.extent(d);
  return k;
}

/// Gives a released view to the pool when nothing else shares it (a view copied out of the array,
/// e.g. through local_view(), keeps its block to itself). `v` is empty afterwards either way.
template <class View> void recycle_view(View& v, const std::string& label) {
  if (v.data() != nullptr && v.use_count() == 1) {
    const std::size_t bytes = v.span() * sizeof(typename View::value_type);
    BlockKey key = block_key(label, v);
    std::any block(v); // a second reference, until v lets go below
    v = View();
    block_pool_give(std::move(key), bytes, std::move(block));
  }
  v = View();
}

/// A pooled view under `key` (its type must be View), or nullopt.
template <class View> std::optional<View> reuse_view(const BlockKey& key) {
  std::any got = block_pool_take(key);
  if (!got.has_value()) return std::nullopt;
  return std::any_cast<View>(std::move(got));
}

} // namespace hpf::detail
