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
  index_t dst = 0; ///< first slot on the receiver
  index_t src = 0; ///< first slot on the owner
  index_t len = 0; ///< number of slots
  int owner = 0;   ///< the owner's coordinate along the dimension
  /// Pieces compare equal field by field.
  friend bool operator==(const HaloPiece&, const HaloPiece&) = default;
};

/// Storage slot of local index l along a dimension of map m and shadow width w.
[[nodiscard]] constexpr index_t halo_slot(const CyclicMap& m, index_t w, index_t l) noexcept {
  return (l / m.r) * (m.r + 2 * w) + w + l % m.r;
}

/// Storage extent along a dimension of map m and shadow width w on the process at coordinate p.
[[nodiscard]] inline index_t halo_extent(const CyclicMap& m, index_t w, int p) noexcept {
  const index_t e = m.local_extent(p);
  if (e == 0) return 0;
  const index_t nb = (e + m.r - 1) / m.r;
  return (nb - 1) * (m.r + 2 * w) + (e - (nb - 1) * m.r) + 2 * w;
}

/// Inverse of halo_slot on the process at coordinate p: the local index stored at `slot`, or -1 when
/// the slot is a shadow slot (or past the storage).
[[nodiscard]] inline index_t halo_local(const CyclicMap& m, index_t w, int p, index_t slot) noexcept {
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
    // The segment ends at the end of g's block (CYCLIC, GEN_BLOCK) or run of one owner (INDIRECT), at
    // the end of the extent, or at hi.
    const index_t len = std::min(hi - x, m.block_end(g) - g);
    out.push_back({dst + (x - lo), halo_slot(m, w_src, m.local(g)), len, m.owner(g)});
    x += len;
  }
}

/// Merges consecutive pieces that continue each other (same owner, contiguous at both ends): without
/// a shadow, a dimension's blocks are contiguous in storage, so e.g. a CYCLIC(1) dimension that is
/// not shifted is one piece, and a shift of it a few, instead of one per block.
inline void merge_pieces(std::vector<HaloPiece>& ps) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (k > 0 && ps[k - 1].owner == ps[i].owner && ps[k - 1].dst + ps[k - 1].len == ps[i].dst &&
        ps[k - 1].src + ps[k - 1].len == ps[i].src) {
      ps[k - 1].len += ps[i].len;
    } else {
      ps[k++] = ps[i];
    }
  }
  ps.resize(k);
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
  merge_pieces(out);
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
  merge_pieces(out);
  return out;
}

/// A box: one piece per dimension (src and dst slots, lengths), moved from grid position `from` to
/// grid position `to`.
template <int N> struct HaloBox {
  Index<N> src{}; ///< first slot on the sender, per dimension
  Index<N> dst{}; ///< first slot on the receiver, per dimension
  Index<N> len{}; ///< slots per dimension
  int from = 0;   ///< sending grid position
  int to = 0;     ///< receiving grid position
  /// Number of elements in the box.
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
  std::vector<std::pair<int, std::vector<HaloBox<N>>>> sends; ///< the same for what this rank sends
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
  const std::vector<int> my_c = me >= 0 ? grid.coords_of(me) : std::vector<int>();
  // Per dimension and coordinate: the pieces, and the volume each owner coordinate sends there.
  // A dimension is independent of the others, so the message matrix is a product of these
  // per-dimension volumes (O(sum of P_d x pieces) work, not O(P x boxes)).
  std::array<std::vector<std::vector<HaloPiece>>, N> ps;
  std::array<std::vector<std::vector<std::pair<int, index_t>>>, N> vol; // [d][c]: (owner, elements)
  for (int d = 0; d < N; ++d) {
    const auto du = static_cast<std::size_t>(d);
    const int P = L.map(d).P;
    ps[du].resize(static_cast<std::size_t>(P));
    vol[du].resize(static_cast<std::size_t>(P));
    for (int c = 0; c < P; ++c) {
      auto& pc = ps[du][static_cast<std::size_t>(c)];
      pc = pieces(d, c);
      std::vector<index_t> v(static_cast<std::size_t>(P), 0);
      for (const HaloPiece& x : pc) v[static_cast<std::size_t>(x.owner)] += x.len;
      for (int o = 0; o < P; ++o)
        if (v[static_cast<std::size_t>(o)] > 0)
          vol[du][static_cast<std::size_t>(c)].push_back({o, v[static_cast<std::size_t>(o)]});
    }
  }
  // The process with per-dimension coordinates dc in the same copy as grid position `like`: on a
  // replicated layout each copy updates its shadows from its own copy (no traffic across copies).
  auto position = [&](const std::array<int, N>& dc, int like) { return L.position_of_dim_coords(dc, like); };
  auto dim_coords = [&](int q) {
    const std::vector<int> c = grid.coords_of(q);
    std::array<int, N> dc{};
    for (int d = 0; d < N; ++d) dc[static_cast<std::size_t>(d)] = L.coord(c, d);
    return dc;
  };
  // Calls fn(index tuple) for every combination of indices below `sizes` (nothing if one is 0).
  auto product = [](const std::array<std::size_t, N>& sizes, auto&& fn) {
    for (std::size_t x : sizes)
      if (x == 0) return;
    std::array<std::size_t, N> k{};
    while (true) {
      fn(k);
      int d = 0;
      for (; d < N; ++d) {
        const auto du = static_cast<std::size_t>(d);
        if (++k[du] < sizes[du]) break;
        k[du] = 0;
      }
      if (d == N) return;
    }
  };
  // The matrix: for each receiver q, every owner combination with a non-zero volume in each dimension.
  for (int q = 0; q < grid.size(); ++q) {
    if (!L.holds(q)) continue; // off a fixed coordinate: no block, no shadow
    const std::array<int, N> qc = dim_coords(q);
    std::array<std::size_t, N> sizes{};
    for (int d = 0; d < N; ++d)
      sizes[static_cast<std::size_t>(d)] =
          vol[static_cast<std::size_t>(d)][static_cast<std::size_t>(qc[static_cast<std::size_t>(d)])].size();
    product(sizes, [&](const std::array<std::size_t, N>& k) {
      std::array<int, N> oc{};
      index_t v = 1;
      for (int d = 0; d < N; ++d) {
        const auto du = static_cast<std::size_t>(d);
        const auto& e = vol[du][static_cast<std::size_t>(qc[du])][k[du]];
        oc[du] = e.first;
        v *= e.second;
      }
      const int f = position(oc, q);
      if (f != q) plan.matrix.push_back({f, q, v});
    });
  }
  std::sort(plan.matrix.begin(), plan.matrix.end());
  if (me < 0 || !L.holds(me)) return plan;
  // The boxes of receiver q that this rank takes part in (as receiver, sender or both).
  auto boxes_of = [&](int q) {
    const std::array<int, N> qc = dim_coords(q);
    std::array<std::size_t, N> sizes{};
    for (int d = 0; d < N; ++d)
      sizes[static_cast<std::size_t>(d)] =
          ps[static_cast<std::size_t>(d)][static_cast<std::size_t>(qc[static_cast<std::size_t>(d)])].size();
    product(sizes, [&](const std::array<std::size_t, N>& k) {
      HaloBox<N> box;
      std::array<int, N> oc{};
      bool in_place = true;
      for (int d = 0; d < N; ++d) {
        const auto du = static_cast<std::size_t>(d);
        const HaloPiece& pc = ps[du][static_cast<std::size_t>(qc[du])][k[du]];
        box.src[du] = pc.src;
        box.dst[du] = pc.dst;
        box.len[du] = pc.len;
        oc[du] = pc.owner;
        in_place = in_place && pc.owner == qc[du] && pc.src == pc.dst;
      }
      if (in_place && skip_in_place) return;
      box.from = position(oc, q);
      box.to = q;
      if (box.from == q) {
        if (q == me) plan.local.push_back(box);
      } else if (q == me) {
        auto it = std::find_if(plan.recvs.begin(), plan.recvs.end(),
                               [&](const auto& e) { return e.first == box.from; });
        if (it == plan.recvs.end()) it = plan.recvs.insert(plan.recvs.end(), {box.from, {}});
        it->second.push_back(box);
      } else if (box.from == me) {
        if (plan.sends.empty() || plan.sends.back().first != q) plan.sends.push_back({q, {}});
        plan.sends.back().second.push_back(box);
      }
    });
  };
  // Receivers this rank sends to: in each dimension, a coordinate whose pieces come from mine.
  std::array<std::vector<int>, N> cand;
  std::array<std::size_t, N> csizes{};
  for (int d = 0; d < N; ++d) {
    const auto du = static_cast<std::size_t>(d);
    const int mine = L.coord(my_c, d);
    for (int c = 0; c < L.map(d).P; ++c)
      for (const auto& e : vol[du][static_cast<std::size_t>(c)])
        if (e.first == mine) cand[du].push_back(c);
    csizes[du] = cand[du].size();
  }
  std::vector<int> receivers;
  product(csizes, [&](const std::array<std::size_t, N>& k) {
    std::array<int, N> qc{};
    for (int d = 0; d < N; ++d)
      qc[static_cast<std::size_t>(d)] = cand[static_cast<std::size_t>(d)][k[static_cast<std::size_t>(d)]];
    receivers.push_back(position(qc, me));
  });
  receivers.push_back(me);
  std::sort(receivers.begin(), receivers.end());
  receivers.erase(std::unique(receivers.begin(), receivers.end()), receivers.end());
  for (int q : receivers) boxes_of(q);
  std::sort(plan.recvs.begin(), plan.recvs.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
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
