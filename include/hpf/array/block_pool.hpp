// Local blocks that REDISTRIBUTE released, kept for the next target of the same shape.
//
// `A.redistribute(b)` allocates the target's local block and releases the source's. A program that
// moves an array back and forth between phases (HPF's DYNAMIC arrays) would otherwise hand every
// target fresh pages, which the kernel faults in and zeroes on first touch, a cost of the order of
// the copy itself for large blocks. The pool keeps the
// released block (a Kokkos view nobody else holds) and gives it to the next uninitialised allocation
// of the same element type, label and extents. It is bounded like the message-buffer pool
// (core/memory.hpp): at most max_pooled_blocks blocks and buffer_pool_limit() bytes
// (HPF_POOL_BYTES, one bound for both pools; 0 disables them), oldest dropped first. It empties itself when
// Kokkos finalises, and on release_block_pool().
#pragma once

#include <array>
#include <cstddef>
#include <new>
#include <string>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>

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

/// A released view held without its type and without an allocation of its own (a REDISTRIBUTE of a
/// small array gives one to the pool and takes one every call: std::any allocated for each, and the
/// round trip cost as much as a fresh 4 KiB Kokkos allocation). The view object lives in the
/// storage, with the two functions that move and destroy it; only the pool's key says its type.
class PooledView {
public:
  static constexpr std::size_t storage_bytes = 128;

  PooledView() noexcept = default;
  template <class View> static PooledView hold(View&& v) noexcept {
    using V = std::remove_cvref_t<View>;
    static_assert(sizeof(V) <= storage_bytes && alignof(V) <= alignof(std::max_align_t),
                  "PooledView: the view does not fit its storage");
    static_assert(std::is_nothrow_move_constructible_v<V>, "PooledView: the view must move without throwing");
    PooledView p;
    ::new (static_cast<void*>(p.m_storage.data())) V(std::forward<View>(v));
    p.m_ops = &ops_for<V>;
    return p;
  }
  PooledView(PooledView&& o) noexcept { take_from(o); }
  PooledView& operator=(PooledView&& o) noexcept {
    if (this != &o) {
      reset();
      take_from(o);
    }
    return *this;
  }
  PooledView(const PooledView&) = delete;
  PooledView& operator=(const PooledView&) = delete;
  ~PooledView() { reset(); }

  [[nodiscard]] bool has_value() const noexcept { return m_ops != nullptr; }
  /// The held view, moved out; this one is empty afterwards. View must be the type it was held as
  /// (the pool's key says so).
  template <class View> [[nodiscard]] View release() noexcept {
    View* v = std::launder(reinterpret_cast<View*>(m_storage.data()));
    View out(std::move(*v));
    reset();
    return out;
  }
  /// Destroys the held view, if any.
  void reset() noexcept {
    if (m_ops != nullptr) m_ops->destroy(m_storage.data());
    m_ops = nullptr;
  }

private:
  struct Ops {
    void (*move)(std::byte* to, std::byte* from) noexcept; // constructs at `to`, destroys at `from`
    void (*destroy)(std::byte* at) noexcept;
  };
  template <class V> static void move_view(std::byte* to, std::byte* from) noexcept {
    V* src = std::launder(reinterpret_cast<V*>(from));
    ::new (static_cast<void*>(to)) V(std::move(*src));
    src->~V();
  }
  template <class V> static void destroy_view(std::byte* at) noexcept {
    std::launder(reinterpret_cast<V*>(at))->~V();
  }
  template <class V> static constexpr Ops ops_for{&move_view<V>, &destroy_view<V>};

  void take_from(PooledView& o) noexcept {
    if (o.m_ops == nullptr) return;
    o.m_ops->move(m_storage.data(), o.m_storage.data());
    m_ops = o.m_ops;
    o.m_ops = nullptr;
  }

  // Not initialised: only m_ops says whether it holds a view (pooled slots and dropped lists are arrays
  // of these, made on every give).
  alignas(std::max_align_t) std::array<std::byte, storage_bytes> m_storage;
  const Ops* m_ops = nullptr;
};

/// Keeps `block` (`bytes` of memory, under `key`) for a later block_pool_take, dropping the oldest
/// blocks beyond the bounds (or this one, when it alone exceeds them). Thread-safe; allocates nothing.
void block_pool_give(BlockKey key, std::size_t bytes, PooledView block);
/// The oldest block kept under `key`, taken out of the pool; an empty PooledView when there is none.
[[nodiscard]] PooledView block_pool_take(const BlockKey& key);
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
    block_pool_give(std::move(key), bytes, PooledView::hold(std::move(v)));
  }
  v = View();
}

/// A pooled view under `key` (its type must be View), or an empty view (no data) when there is none.
/// Not an optional: each move of a Kokkos view copies its reference count.
template <class View> View reuse_view(const BlockKey& key) {
  PooledView got = block_pool_take(key);
  if (!got.has_value()) return View();
  return got.release<View>();
}

} // namespace hpf::detail
