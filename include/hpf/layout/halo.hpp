// Shadow storage and the communication sets of shadow updates and shifts, in closed form.
//
// Storage (HPF 2.0 SHADOW). A dimension of shadow width w keeps, for each local block of its
// CyclicMap (r elements, the last one possibly shorter), w slots before and w slots after the block:
//
//   slot(l) = floor(l / r) * (r + 2w) + w + l mod r          (local index l -> storage slot)
//   storage extent = (nb - 1)(r + 2w) + last + 2w             (nb blocks, the last of `last` elements)
//
// BLOCK and `*` dimensions hold one block, so their storage is [w shadow | block | w shadow]; a
// CYCLIC(r) dimension gives each of its blocks its own shadow. A process that owns nothing along a
// dimension stores nothing (extent 0).
//
// Communication sets. The receiver's storage along one dimension is cut into pieces
// {dst slot, src slot on the owner, length, owner coordinate}: walk the global range the storage stands
// for (the padded block [G - w, G + len + w) for a shadow, [G + s, G + len + s) for a shift by s) and
// cut it where the owner changes (a multiple of r) and where it wraps around the extent (a multiple
// of n; a non-periodic range drops what lies outside [0, n)). A box is one piece per dimension; its
// owner is the grid position of its pieces' owner coordinates. No per-element owner lookup: the cost
// is the number of pieces, O(blocks) per dimension.
//
// Everything here is pure (no MPI) and the same on every rank: each rank computes the boxes of every
// grid position, so that it knows what it sends, what it receives and the whole message matrix.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/layout/layout.hpp>

#include <algorithm>
#include <array>
#include <vector>

namespace hpf {

/// One contiguous piece of a dimension: `len` slots from slot `src` of the owner (coordinate `owner`
/// along the dimension) to slot `dst` of the receiver.
struct HaloPiece {
  index_t dst = 0;
  index_t src = 0;
  index_t len = 0;
  int owner = 0;
  friend bool operator==(const HaloPiece&, const HaloPiece&) = default;
};

/// Storage slot of local index l along a dimension of map m and shadow width w.
[[nodiscard]] constexpr index_t halo_slot(const CyclicMap& m, index_t w, index_t l) noexcept {
  return (l / m.r) * (m.r + 2 * w) + w + l % m.r;
}

/// Storage extent along a dimension of map m and shadow width w on the process at coordinate p.
[[nodiscard]] constexpr index_t halo_extent(const CyclicMap& m, index_t w, int p) noexcept {
  const index_t e = m.local_extent(p);
  if (e == 0) return 0;
  const index_t nb = (e + m.r - 1) / m.r;
  return (nb - 1) * (m.r + 2 * w) + (e - (nb - 1) * m.r) + 2 * w;
}

/// Inverse of halo_slot on the process at coordinate p: the local index stored at `slot`, or -1 when
/// the slot is a shadow slot (or past the storage).
[[nodiscard]] constexpr index_t halo_local(const CyclicMap& m, index_t w, int p, index_t slot) noexcept {
  const index_t b = slot / (m.r + 2 * w);
  const index_t x = slot % (m.r + 2 * w) - w;
  const index_t l = b * m.r + x;
  return slot >= 0 && x >= 0 && x < m.r && l < m.local_extent(p) ? l : -1;
}

namespace detail {
[[nodiscard]] constexpr index_t floor_mod(index_t a, index_t n) noexcept {
  const index_t m = a % n;
  return m < 0 ? m + n : m;
}
} // namespace detail

/// Appends the pieces of the unwrapped global range [lo, hi) of a dimension of map m, whose storage
/// on the owner has shadow width w_src, received at consecutive slots from `dst`. With `periodic`
/// the range wraps modulo n; without, what lies outside [0, n) is left out.
inline void halo_split(const CyclicMap& m, index_t w_src, index_t lo, index_t hi, index_t dst, bool periodic,
                       std::vector<HaloPiece>& out) {
  const index_t n = m.n;
  if (n == 0) return;
  index_t x = lo;
  while (x < hi) {
    if (!periodic && x < 0) {
      x = std::min<index_t>(0, hi);
      continue;
    }
    if (!periodic && x >= n) return;
    const index_t g = periodic ? detail::floor_mod(x, n) : x;
    // The segment ends at the end of g's block, at the end of the extent, or at hi.
    const index_t block_end = (g / m.r + 1) * m.r;
    const index_t len = std::min({hi - x, block_end - g, n - g});
    out.push_back({dst + (x - lo), halo_slot(m, w_src, m.local(g)), len, m.owner(g)});
    x += len;
  }
}

/// Pieces of the shadow storage of dimension map m (width w) on coordinate p: every slot of every
/// local block's padded range, owned ones included (a box of owned pieces only is the owned data).
inline std::vector<HaloPiece> shadow_pieces(const CyclicMap& m, index_t w, int p, bool periodic) {
  std::vector<HaloPiece> out;
  const index_t e = m.local_extent(p);
  for (index_t l = 0, b = 0; l < e; l += m.r, ++b) {
    const index_t len = std::min(m.r, e - l);
    const index_t G = m.global(p, l);
    halo_split(m, w, G - w, G + len + w, b * (m.r + 2 * w), periodic, out);
  }
  return out;
}

/// Pieces of a shift by s along dimension map m (width w, source and target in the same layout) on
/// coordinate p: target slot of local index l receives global index G + s (wrapped when circular,
/// left out when outside [0, n) otherwise). s = 0 gives the owned pieces themselves.
inline std::vector<HaloPiece> shift_pieces(const CyclicMap& m, index_t w, int p, index_t s, bool circular) {
  std::vector<HaloPiece> out;
  const index_t e = m.local_extent(p);
  for (index_t l = 0; l < e; l += m.r) {
    const index_t len = std::min(m.r, e - l);
    const index_t G = m.global(p, l);
    halo_split(m, w, G + s, G + len + s, halo_slot(m, w, l), circular, out);
  }
  return out;
}

/// A box: one piece per dimension (src and dst slots, lengths), moved from grid position `from` to
/// grid position `to`.
template <int N> struct HaloBox {
  Index<N> src{};
  Index<N> dst{};
  Index<N> len{};
  int from = 0;
  int to = 0;
  [[nodiscard]] index_t size() const noexcept {
    index_t s = 1;
    for (index_t x : len) s *= x;
    return s;
  }
};

/// The communication sets of one shadow update or shift, seen by the calling rank.
template <int N> struct HaloPlan {
  /// Per peer grid position (ascending), the boxes this rank receives / sends, in the receiver's
  /// enumeration order (both ends list a message's boxes in the same order).
  std::vector<std::pair<int, std::vector<HaloBox<N>>>> recvs;
  std::vector<std::pair<int, std::vector<HaloBox<N>>>> sends;
  /// Boxes this rank copies from its own storage to its own storage (it is its own neighbour).
  std::vector<HaloBox<N>> local;
  /// Every message between distinct grid positions: (from, to, elements), sorted by (from, to).
  std::vector<std::array<index_t, 3>> matrix;
};

/// Builds the plan of the calling rank from `pieces(d, p)`, the pieces of dimension d on the process
/// at coordinate p along d. With `skip_in_place`, boxes whose pieces are all owned by the receiver at
/// the same slots (owned data, in place: a shadow update) are left out; a shift copies them.
template <int N, class PiecesFn>
HaloPlan<N> halo_plan(const Layout<N>& L, bool skip_in_place, PiecesFn&& pieces) {
  HaloPlan<N> plan;
  const ProcessGrid& grid = L.grid();
  const int me = grid.contains_me() ? grid.my_position() : -1;
  std::vector<std::vector<HaloBox<N>>> to_me(static_cast<std::size_t>(grid.size()));
  std::vector<std::vector<HaloBox<N>>> from_me(static_cast<std::size_t>(grid.size()));
  std::vector<index_t> volume(static_cast<std::size_t>(grid.size()));
  for (int q = 0; q < grid.size(); ++q) {
    const std::vector<int> c = grid.coords_of(q);
    std::array<std::vector<HaloPiece>, N> ps;
    bool empty = false;
    for (int d = 0; d < N; ++d) {
      ps[static_cast<std::size_t>(d)] = pieces(d, L.coord(c, d));
      empty = empty || ps[static_cast<std::size_t>(d)].empty();
    }
    if (empty) continue;
    std::fill(volume.begin(), volume.end(), 0);
    std::array<std::size_t, N> k{};
    while (true) {
      HaloBox<N> box;
      std::vector<int> oc(static_cast<std::size_t>(std::max(grid.ndims(), 1)), 0);
      bool in_place = true;
      for (int d = 0; d < N; ++d) {
        const auto du = static_cast<std::size_t>(d);
        const HaloPiece& pc = ps[du][k[du]];
        box.src[du] = pc.src;
        box.dst[du] = pc.dst;
        box.len[du] = pc.len;
        if (L.grid_dim(d) >= 0) oc[static_cast<std::size_t>(L.grid_dim(d))] = pc.owner;
        in_place = in_place && pc.owner == L.coord(c, d) && pc.src == pc.dst;
      }
      box.from = grid.position_of(oc);
      box.to = q;
      if (!(in_place && skip_in_place)) {
        if (box.from == q) {
          if (q == me) plan.local.push_back(box);
        } else {
          volume[static_cast<std::size_t>(box.from)] += box.size();
          if (q == me) to_me[static_cast<std::size_t>(box.from)].push_back(box);
          if (box.from == me) from_me[static_cast<std::size_t>(q)].push_back(box);
        }
      }
      int d = 0;
      for (; d < N; ++d) {
        const auto du = static_cast<std::size_t>(d);
        if (++k[du] < ps[du].size()) break;
        k[du] = 0;
      }
      if (d == N) break;
    }
    for (int f = 0; f < grid.size(); ++f)
      if (volume[static_cast<std::size_t>(f)] > 0)
        plan.matrix.push_back({f, q, volume[static_cast<std::size_t>(f)]});
  }
  for (int q = 0; q < grid.size(); ++q) {
    if (!to_me[static_cast<std::size_t>(q)].empty())
      plan.recvs.emplace_back(q, std::move(to_me[static_cast<std::size_t>(q)]));
    if (!from_me[static_cast<std::size_t>(q)].empty())
      plan.sends.emplace_back(q, std::move(from_me[static_cast<std::size_t>(q)]));
  }
  std::sort(plan.matrix.begin(), plan.matrix.end());
  return plan;
}

/// The shadow update of layout L (widths L.shadow()), periodic or not.
template <int N> HaloPlan<N> shadow_plan(const Layout<N>& L, bool periodic) {
  return halo_plan(L, true, [&](int d, int p) { return shadow_pieces(L.map(d), L.shadow(d), p, periodic); });
}

/// A shift by s along dimension `dim` of layout L (circular: CSHIFT; otherwise EOSHIFT, whose
/// boundary slots are left to the caller).
template <int N> HaloPlan<N> shift_plan(const Layout<N>& L, int dim, index_t s, bool circular) {
  return halo_plan(L, false, [&](int d, int p) {
    return shift_pieces(L.map(d), L.shadow(d), p, d == dim ? s : 0, circular || d != dim);
  });
}

} // namespace hpf
