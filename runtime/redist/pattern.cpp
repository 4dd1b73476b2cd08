// Closed forms of the block-cyclic communication pattern (Desprez et al., sections 4.1-4.2); see pattern.hpp.
#include <hpf/core/error.hpp>
#include <hpf/redist/pattern.hpp>

#include <algorithm>
#include <bit>
#include <limits>

namespace hpf {

namespace {

using i128 = detail::int128;

index_t gcd_index(index_t a, index_t b) { return std::gcd(a, b); }

/// Length of [a0, a1) ∩ [b0, b1).
index_t overlap(index_t a0, index_t a1, index_t b0, index_t b1) {
  return std::max<index_t>(0, std::min(a1, b1) - std::max(a0, b0));
}

/// Elements a pair with (p r - q s) mod g = c exchanges per slice: the number of (x, y) in
/// [0, r) x [0, s) with y - x = c (mod g). Each solution is one element i = (l P + p) r + x =
/// (m Q + q) s + y of the slice, since the offsets l P r - m Q s cover every multiple of g exactly
/// once per slice (proof of Proposition 1, Desprez et al.). Summing vol(k) over k = c (mod g) is the same
/// count, grouped by k = y - x. O(1): per x, the y in [0, s) of one residue number s / g or s / g + 1.
/// In 128 bits: with block sizes near 2^40 the slice (and r s / g) exceeds 64 bits.
i128 slice_volume(index_t r, index_t s, index_t g, index_t c) {
  const index_t s1 = s % g;
  const index_t r1 = r % g;
  // x in [0, r): full periods of g values of x each hit s1 residues below s1; the last r1 values of
  // x cover the circular arc [c, c + r1) of residues, split at g.
  const i128 extra =
      static_cast<i128>(r / g) * s1 + overlap(c, c + r1, 0, s1) + overlap(c, c + r1, g, g + s1);
  return static_cast<i128>(r) * (s / g) + extra;
}

} // namespace

namespace detail {

i128 floor_sum(index_t n, index_t m, index_t a, i128 b) {
  require(n >= 0 && m >= 1 && a >= 0 && b >= 0, "floor_sum: needs n >= 0, m >= 1, a >= 0, b >= 0, got n ", n,
          ", m ", m, ", a ", a, ", b ", static_cast<long double>(b));
  // The Euclid-like reduction of AtCoder Library's floor_sum, in 128-bit so that a n + b never wraps.
  i128 ans = 0;
  i128 N = n;
  i128 Mm = m;
  i128 A = a;
  i128 B = b;
  while (true) {
    if (A >= Mm) {
      ans += N * (N - 1) / 2 * (A / Mm);
      A %= Mm;
    }
    if (B >= Mm) {
      ans += N * (B / Mm);
      B %= Mm;
    }
    const i128 y = A * N + B;
    if (y < Mm) break;
    N = y / Mm;
    B = y % Mm;
    std::swap(Mm, A);
  }
  return ans;
}

} // namespace detail

BlockCyclicGeometry block_cyclic_geometry(int P, index_t r, int Q, index_t s) {
  detail::require(P >= 1, "block-cyclic pattern: P (source processes) must be >= 1, got ", P);
  detail::require(Q >= 1, "block-cyclic pattern: Q (target processes) must be >= 1, got ", Q);
  detail::require(r >= 1, "block-cyclic pattern: r (source block size) must be >= 1, got ", r);
  detail::require(s >= 1, "block-cyclic pattern: s (target block size) must be >= 1, got ", s);
  index_t Pr = 0;
  index_t Qs = 0;
  detail::require(!__builtin_mul_overflow(static_cast<index_t>(P), r, &Pr),
                  "block-cyclic pattern: P r must fit in 64 bits, got P ", P, ", r ", r);
  detail::require(!__builtin_mul_overflow(static_cast<index_t>(Q), s, &Qs),
                  "block-cyclic pattern: Q s must fit in 64 bits, got Q ", Q, ", s ", s);
  BlockCyclicGeometry geo;
  geo.P = P;
  geo.r = r;
  geo.Q = Q;
  geo.s = s;
  geo.D = gcd_index(r, s);
  geo.g = gcd_index(Pr, Qs);
  index_t L = 0;
  if (!__builtin_mul_overflow(Pr / geo.g, Qs, &L)) geo.L = L;
  geo.r_red = r / geo.D;
  geo.s_red = s / geo.D;
  geo.g_red = geo.g / geo.D; // D divides both P r and Q s, hence g
  // Lemma 2 (Desprez et al.), on the reduced problem of Lemma 1: the r' + s' - 1 offsets k in
  // [1 - r', s' - 1] reach every class mod g' iff there are at least g' of them.
  geo.all_to_all = geo.g_red <= geo.r_red + geo.s_red - 1;
  return geo;
}

index_t slice_length(int P, index_t r, int Q, index_t s) {
  const BlockCyclicGeometry geo = block_cyclic_geometry(P, r, Q, s);
  detail::require(geo.L.has_value(), "block-cyclic pattern: the slice length lcm(P r, Q s) = lcm(",
                  static_cast<index_t>(P) * r, ", ", static_cast<index_t>(Q) * s, ") exceeds 64 bits");
  return *geo.L;
}

bool is_all_to_all(int P, index_t r, int Q, index_t s) {
  return block_cyclic_geometry(P, r, Q, s).all_to_all;
}

index_t block_overlap(index_t r, index_t s, index_t k) {
  detail::require(r >= 1 && s >= 1, "block_overlap: r and s must be >= 1, got r ", r, ", s ", s);
  if (k <= -r || k >= s) return 0;
  return std::min({r, s, r + k, s - k});
}

index_t pair_class(const BlockCyclicGeometry& geo, int p, int q) {
  detail::require(p >= 0 && p < geo.P, "pair_class: p must be in [0, ", geo.P, "), got ", p);
  detail::require(q >= 0 && q < geo.Q, "pair_class: q must be in [0, ", geo.Q, "), got ", q);
  // p r' and q s' are below P r and Q s, which fit in index_t.
  return detail::pos_mod(static_cast<index_t>(p) * geo.r_red - static_cast<index_t>(q) * geo.s_red,
                         geo.g_red);
}

std::vector<index_t> class_offsets(const BlockCyclicGeometry& geo, index_t c) {
  detail::require(c >= 0 && c < geo.g_red, "class_offsets: class c must be in [0, g' = ", geo.g_red,
                  "), got ", c);
  const index_t lo = 1 - geo.r_red;
  const index_t first = lo + detail::pos_mod(c - lo, geo.g_red);
  const index_t count = first <= geo.s_red - 1 ? (geo.s_red - 1 - first) / geo.g_red + 1 : 0;
  // A listing, not a computation (class_slice_volume is O(1)): refuse absurd sizes rather than
  // exhaust memory when r' + s' is huge and g' small (a collapsed dimension).
  detail::require(count <= (index_t{1} << 24), "class_offsets: class ", c, " has ", count,
                  " offsets k (r' + s' - 1 = ", geo.r_red + geo.s_red - 1, ", g' = ", geo.g_red,
                  "), more than the 2^24 this listing allows");
  std::vector<index_t> ks;
  ks.reserve(static_cast<std::size_t>(count));
  for (index_t k = first; k <= geo.s_red - 1; k += geo.g_red) ks.push_back(k);
  return ks;
}

index_t class_slice_volume(const BlockCyclicGeometry& geo, index_t c) {
  detail::require(c >= 0 && c < geo.g_red, "class_slice_volume: class c must be in [0, g' = ", geo.g_red,
                  "), got ", c);
  // Lemma 1: scale the reduced problem's volume by D. slice_volume(r', s', g', c) counts the same
  // solutions as summing vol'(k) over class_offsets(c), in O(1).
  const i128 v = geo.D * slice_volume(geo.r_red, geo.s_red, geo.g_red, c);
  detail::require(v <= std::numeric_limits<index_t>::max(), "class_slice_volume: the volume of class ", c,
                  " per slice exceeds 64 bits (the slice length lcm(P r, Q s) does not fit)");
  return static_cast<index_t>(v);
}

std::vector<std::pair<int, int>> class_members(const BlockCyclicGeometry& geo, index_t c) {
  detail::require(c >= 0 && c < geo.g_red, "class_members: class c must be in [0, g' = ", geo.g_red,
                  "), got ", c);
  std::vector<std::pair<int, int>> out;
  for (int p = 0; p < geo.P; ++p)
    for (int q = 0; q < geo.Q; ++q)
      if (pair_class(geo, p, q) == c) out.emplace_back(p, q);
  return out;
}

CommMatrix block_cyclic_slice_pattern(int P, index_t r, int Q, index_t s) {
  return block_cyclic_pattern(P, r, Q, s, slice_length(P, r, Q, s));
}

CommMatrix block_cyclic_pattern(int P, index_t r, int Q, index_t s, index_t M) {
  return detail::block_cyclic_pattern(P, r, Q, s, M, detail::PartialSliceMethod::Auto);
}

namespace detail {

namespace {

/// Elements of [0, R) that p sends to q, by floor sums: the source blocks of p are at
/// (l P + p) r, so with x the offset in the block, element i = l P r + p r + x goes to q iff
/// (i - q s) mod Q s < s. For each x that is a sum over l of [(l d + B) mod N < s] with d = P r,
/// N = Q s, and [z mod N < s] = floor(z / N) - floor((z - s) / N): two floor sums. The roles of
/// source and target are symmetric, so we iterate over the smaller block.
index_t prefix_pair_count(index_t R, int P, index_t r, int Q, index_t s, int p, int q) {
  const bool by_source = r <= s;
  const index_t blk = by_source ? r : s;            // block size we iterate over
  const index_t period = by_source ? P * r : Q * s; // distance between blocks of the same process
  const index_t first = by_source ? p * r : q * s;  // first block of that process
  const index_t other_blk = by_source ? s : r;
  const index_t other_period = by_source ? Q * s : P * r;
  const index_t other_first = by_source ? q * s : p * r;
  i128 count = 0;
  for (index_t x = 0; x < blk; ++x) {
    const index_t start = first + x;
    if (start >= R) break;
    const index_t n = ceil_div(R - start, period);
    const i128 B = pos_mod(start - other_first, other_period);
    count += floor_sum(n, other_period, period, B + other_period) -
             floor_sum(n, other_period, period, B + other_period - other_blk);
  }
  return static_cast<index_t>(count);
}

} // namespace

CommMatrix block_cyclic_pattern(int P, index_t r, int Q, index_t s, index_t M, PartialSliceMethod method) {
  const BlockCyclicGeometry geo = block_cyclic_geometry(P, r, Q, s);
  require(M >= 0, "block-cyclic pattern: M (array length) must be >= 0, got ", M);
  CommMatrix grid(P, Q);
  if (M == 0) return grid;
  // M = full L + R: `full` whole slices (same grid each, section 4.1 of Desprez et al.) and a prefix [0, R).
  const index_t full = geo.L ? M / *geo.L : 0;
  const index_t R = geo.L ? M % *geo.L : M;
  const index_t Pr = P * r;
  const index_t Qs = Q * s;

  // Per-slice volume of each pair; a table by residue when g is not much larger than the grid.
  const auto PQ = static_cast<index_t>(P) * Q;
  std::vector<i128> table;
  if (geo.g <= std::max<index_t>(PQ, 1024) * 4) {
    table.resize(static_cast<std::size_t>(geo.g));
    for (index_t c = 0; c < geo.g; ++c) table[static_cast<std::size_t>(c)] = slice_volume(r, s, geo.g, c);
  }
  auto volume = [&](int p, int q) {
    const index_t c = pos_mod(static_cast<index_t>(p) * r - static_cast<index_t>(q) * s, geo.g);
    return table.empty() ? slice_volume(r, s, geo.g, c) : table[static_cast<std::size_t>(c)];
  };

  // Pairs that talk at all in a slice: only they can talk in the prefix, a subset of a slice. With
  // whole slices (full > 0) L fits in 64 bits and so does every per-slice volume (<= L / P); without,
  // only positivity matters and len is 1.
  std::vector<Message> talking;
  for (int p = 0; p < P; ++p)
    for (int q = 0; q < Q; ++q)
      if (const i128 v = volume(p, q); v > 0)
        talking.push_back({p, q, full > 0 ? static_cast<index_t>(v) : 1});

  // The prefix [0, R) when swept: runs (p, q, len), sorted by (p, q) with equal pairs merged.
  std::vector<Message> swept;
  bool sweep = false;
  if (R > 0) {
    // Sweep: one step per maximal run of [0, R) with a fixed (source block, target block), against
    // min(r, s) pairs of floor sums per talking pair; take the cheaper.
    const index_t sweep_cost = R / r + R / s + 1;
    const auto log_cost =
        static_cast<index_t>(std::bit_width(static_cast<std::uint64_t>(Pr) + static_cast<std::uint64_t>(Qs)));
    const i128 floor_cost = static_cast<i128>(talking.size()) * std::min(r, s) * 4 * log_cost;
    sweep = method == PartialSliceMethod::Sweep ||
            (method == PartialSliceMethod::Auto && static_cast<i128>(sweep_cost) <= floor_cost);
  }
  auto compact = [](std::vector<Message>& v) {
    std::sort(v.begin(), v.end(), [](const Message& x, const Message& y) {
      return x.src != y.src ? x.src < y.src : x.dst < y.dst;
    });
    std::size_t w = 0;
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (w > 0 && v[w - 1].src == v[k].src && v[w - 1].dst == v[k].dst)
        v[w - 1].len += v[k].len;
      else
        v[w++] = v[k];
    }
    v.resize(w);
  };
  if (sweep) {
    // Memory stays O(talking pairs + 2^20): runs are merged whenever the buffer fills.
    const std::size_t limit = std::max<std::size_t>(2 * talking.size(), std::size_t{1} << 20);
    index_t i = 0;
    while (i < R) {
      const index_t bi = i / r;
      const index_t bj = i / s;
      // Ends of the current source and target blocks, clipped to R without forming (b + 1) r.
      const index_t end = std::min(bi * r + std::min(r, R - bi * r), bj * s + std::min(s, R - bj * s));
      swept.push_back({static_cast<int>(bi % P), static_cast<int>(bj % Q), end - i});
      if (swept.size() >= limit) compact(swept);
      i = end;
    }
    compact(swept);
  }

  std::size_t k = 0; // walks `swept` alongside `talking`, both sorted by (p, q)
  for (const Message& m : talking) {
    index_t len = full * m.len; // at most M: the pair's share of the whole slices
    if (R > 0 && !sweep) len += prefix_pair_count(R, P, r, Q, s, m.src, m.dst);
    if (sweep) {
      while (k < swept.size() && (swept[k].src < m.src || (swept[k].src == m.src && swept[k].dst < m.dst)))
        ++k;
      if (k < swept.size() && swept[k].src == m.src && swept[k].dst == m.dst) len += swept[k].len;
    }
    grid.add(m.src, m.dst, len);
  }
  return grid;
}

} // namespace detail

} // namespace hpf
