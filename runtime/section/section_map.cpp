#include <hpf/core/error.hpp>
#include <hpf/section/section_map.hpp>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <utility>

namespace hpf {

namespace {

__extension__ typedef __int128 wide; // products of two index_t (periods, strides)

/// x^-1 mod m for gcd(x, m) = 1, m >= 1 (extended Euclid).
index_t mod_inverse(index_t x, index_t m) {
  if (m == 1) return 0;
  index_t old_r = x % m;
  index_t r = m;
  index_t old_s = 1;
  index_t s = 0;
  while (r != 0) {
    const index_t q = old_r / r;
    old_r = std::exchange(r, old_r - q * r);
    old_s = std::exchange(s, old_s - q * s);
  }
  return detail::pos_mod(old_s, m);
}

/// The period T = P k / gcd(|s|, P k) of a triplet's owner pattern on a map, and the local index
/// change over one period, (s / g) k.
struct OwnerPeriod {
  index_t T = 1;
  index_t g = 1;
  index_t local_step = 0;
};

OwnerPeriod owner_period(const CyclicMap& m, const Triplet& t) {
  const index_t cyc = static_cast<index_t>(m.P) * m.r;
  OwnerPeriod o;
  o.g = std::gcd(std::abs(t.stride), cyc);
  o.T = cyc / o.g;
  o.local_step = (t.stride / o.g) * m.r;
  return o;
}

/// Local index of global index i (any sign, extrapolated linearly) on its owner p = owner(i).
index_t local_of(const CyclicMap& m, wide i, int p) {
  const wide cyc = static_cast<wide>(m.P) * m.r;
  wide q = i / cyc;
  wide x = i % cyc;
  if (x < 0) {
    x += cyc;
    q -= 1;
  }
  return static_cast<index_t>(q * m.r + x - static_cast<wide>(p) * m.r);
}

/// How the section elements [0, n) split into `reps` copies of the pair period L, then a tail
/// [tail_begin, n). When L >= n (or overflows) there are no copies: the whole section is the tail.
struct PairSplit {
  index_t L = 0;
  index_t reps = 0;
  index_t tail_begin = 0;
  OwnerPeriod src;
  OwnerPeriod dst;
};

PairSplit pair_split(const SectionDim& dim) {
  PairSplit s;
  const index_t n = dim.count();
  if (!dim.src.regular() || !dim.dst.regular()) { // GEN_BLOCK, INDIRECT: no period, all tail
    s.L = n;
    return s;
  }
  s.src = owner_period(dim.src, dim.ts);
  s.dst = owner_period(dim.dst, dim.td);
  const wide L = static_cast<wide>(s.src.T / std::gcd(s.src.T, s.dst.T)) * s.dst.T;
  if (L <= n && n > 0) {
    s.L = static_cast<index_t>(L);
    s.reps = n / s.L;
    s.tail_begin = s.reps * s.L;
  } else {
    s.L = n;
  }
  return s;
}

/// Appends a run, extending the last one when the new run continues it at the same steps (a run of
/// one element takes the steps that reach the next).
void append(std::vector<SectionRun>& runs, const SectionRun& x) {
  if (!runs.empty()) {
    SectionRun& r = runs.back();
    if (r.len == 1 && x.len == 1) {
      r.src_step = x.src_local - r.src_local;
      r.dst_step = x.dst_local - r.dst_local;
      r.len = 2;
      return;
    }
    const index_t ss = r.len == 1 ? x.src_step : r.src_step;
    const index_t ds = r.len == 1 ? x.dst_step : r.dst_step;
    if ((x.len == 1 || (x.src_step == ss && x.dst_step == ds)) && r.src_local + r.len * ss == x.src_local &&
        r.dst_local + r.len * ds == x.dst_local) {
      r.src_step = ss;
      r.dst_step = ds;
      r.len += x.len;
      return;
    }
  }
  runs.push_back(x);
}

/// ceil(a / b) for b > 0 and any sign of a.
index_t ceil_div_signed(index_t a, index_t b) { return -detail::floor_div(-a, b); }

/// Calls fn(j_first, count, local_first) for every visit of section t to one block of process p of map
/// m, over the section elements j in [j0, j1), in increasing j. Within a visit j advances by 1 and the
/// local index by t.stride (one block is contiguous locally). A visit per block, not per element: on a
/// BLOCK or collapsed map a unit-stride section is one visit. Cost O(min(cycles spanned, j1 - j0)).
template <class Fn>
void for_each_block_visit(const CyclicMap& m, const Triplet& t, int p, index_t j0, index_t j1, Fn&& fn) {
  if (j0 >= j1) return;
  const index_t s = t.stride;
  const index_t k = m.r;
  const index_t cyc = static_cast<index_t>(m.P) * k;
  const index_t imin = std::min(t.at(j0), t.at(j1 - 1));
  const index_t imax = std::max(t.at(j0), t.at(j1 - 1));
  const index_t c_lo = detail::floor_div(imin, cyc);
  const index_t c_hi = detail::floor_div(imax, cyc);
  if (c_hi - c_lo >= j1 - j0) {
    // A section sparser than the cycles (|s| >= P k): a visit holds at most about one element, so
    // walking the elements is cheaper than walking the (mostly empty) cycles.
    for (index_t j = j0; j < j1; ++j) {
      const index_t i = t.at(j);
      if (m.owner(i) == p) fn(j, 1, m.local(i));
    }
    return;
  }
  for (index_t step = 0; step <= c_hi - c_lo; ++step) {
    const index_t c = s > 0 ? c_lo + step : c_hi - step; // increasing j
    const index_t b = c * cyc + static_cast<index_t>(p) * k;
    index_t ja = 0;
    index_t jb = 0;
    if (s > 0) {
      ja = ceil_div_signed(b - t.lo, s);
      jb = detail::floor_div(b + k - 1 - t.lo, s);
    } else {
      ja = ceil_div_signed(t.lo - (b + k - 1), -s);
      jb = detail::floor_div(t.lo - b, -s);
    }
    ja = std::max(ja, j0);
    jb = std::min(jb, j1 - 1);
    if (ja <= jb) fn(ja, jb - ja + 1, c * k + (t.at(ja) - b));
  }
}

/// Cuts the visits of process `me` of map `mine` (section `tm`) over [j0, j1) at the block boundaries
/// of map `other` (section `to`): calls fn(q, my_local, other_local, len, my_step, other_step) per piece,
/// in increasing j; q is the other side's owner of the piece.
template <class Fn> void for_each_piece(const CyclicMap& mine, const Triplet& tm, const CyclicMap& other,
                                        const Triplet& to, int me, index_t j0, index_t j1, Fn&& fn) {
  if (!mine.regular() || !other.regular()) {
    // GEN_BLOCK or INDIRECT: the generic enumeration, one owner lookup per element (append() merges
    // the pieces that continue each other into runs).
    for (index_t j = j0; j < j1; ++j) {
      const index_t i1 = tm.at(j);
      if (mine.owner(i1) != me) continue;
      const index_t i2 = to.at(j);
      fn(other.owner(i2), mine.local(i1), other.local(i2), index_t{1}, tm.stride, to.stride);
    }
    return;
  }
  const index_t s2 = to.stride;
  const index_t k2 = other.r;
  for_each_block_visit(mine, tm, me, j0, j1, [&](index_t ja, index_t cnt, index_t local0) {
    for (index_t j = ja; j < ja + cnt;) {
      const index_t i2 = to.at(j);
      const index_t blk = detail::floor_div(i2, k2);
      const index_t room = s2 > 0 ? detail::floor_div((blk + 1) * k2 - 1 - i2, s2) + 1
                                  : detail::floor_div(i2 - blk * k2, -s2) + 1; // elements left in the block
      const index_t len = std::min(room, ja + cnt - j);
      fn(static_cast<int>(detail::pos_mod(blk, other.P)), local0 + (j - ja) * tm.stride, other.local(i2), len,
         tm.stride, s2);
      j += len;
    }
  });
}

/// The runs of process `me` of map `mine` (section `tm`) with every process of map `other` (section
/// `to`), listed by the walk over me's own block visits. `mine_is_src` says which side of a run
/// (src_local / dst_local) is me's.
std::vector<SectionRuns> runs_of(const CyclicMap& mine, const Triplet& tm, const CyclicMap& other,
                                 const Triplet& to, int me, bool mine_is_src, const PairSplit& split) {
  detail::require(me >= 0 && me < mine.P, "section runs: process must be in [0, ", mine.P, "), got ", me);
  std::vector<SectionRuns> out(static_cast<std::size_t>(other.P));
  auto add = [&](bool in_period) {
    return [&, in_period](int q, index_t my_local, index_t other_local, index_t len, index_t my_step,
                          index_t other_step) {
      auto& r = out[static_cast<std::size_t>(q)];
      auto& list = in_period ? r.period : r.tail;
      if (mine_is_src) {
        append(list, {my_local, other_local, len, my_step, other_step});
      } else {
        append(list, {other_local, my_local, len, other_step, my_step});
      }
    };
  };
  const index_t n = tm.extent();
  if (split.reps > 0) for_each_piece(mine, tm, other, to, me, 0, split.L, add(true));
  for_each_piece(mine, tm, other, to, me, split.tail_begin, n, add(false));
  const index_t src_shift = split.reps > 0 ? (split.L / split.src.T) * split.src.local_step : 0;
  const index_t dst_shift = split.reps > 0 ? (split.L / split.dst.T) * split.dst.local_step : 0;
  for (SectionRuns& r : out) {
    r.reps = r.period.empty() ? 0 : split.reps;
    r.src_shift = src_shift;
    r.dst_shift = dst_shift;
    index_t per = 0;
    for (const SectionRun& x : r.period) per += x.len;
    index_t tail = 0;
    for (const SectionRun& x : r.tail) tail += x.len;
    r.elements = per * r.reps + tail;
  }
  return out;
}

} // namespace

LocalSequence local_sequence(const CyclicMap& m, const Triplet& t, int p) {
  if (t.stride == 0) detail::fail("local_sequence: triplet ", t.to_string(), ": stride must be != 0, got 0");
  detail::require(p >= 0 && p < m.P, "local_sequence: process must be in [0, ", m.P, "), got ", p);
  detail::require(m.regular(), "local_sequence: the map must be CYCLIC, BLOCK or `*` (closed form); got a ",
                  m.is_gen_block() ? "GEN_BLOCK" : "INDIRECT", " map");
  LocalSequence seq;
  seq.count = t.extent();
  const OwnerPeriod op = owner_period(m, t);
  seq.period = op.T;
  seq.local_step = op.local_step;
  const index_t inv = mod_inverse(detail::pos_mod(t.stride / op.g, op.T), op.T);
  // The residues x of p's block (p k <= x < p k + k) with x = l (mod g): one solution j0 each.
  const index_t first = static_cast<index_t>(p) * m.r;
  const index_t x0 = first + detail::pos_mod(t.lo - first, op.g);
  std::vector<std::pair<index_t, index_t>> hits; // (j0, local index)
  for (index_t x = x0; x < first + m.r; x += op.g) {
    const index_t a = detail::pos_mod(detail::floor_div(x - t.lo, op.g), op.T);
    const auto j0 = static_cast<index_t>(static_cast<wide>(a) * inv % op.T);
    const wide i = static_cast<wide>(t.lo) + static_cast<wide>(j0) * t.stride;
    hits.emplace_back(j0, local_of(m, i, p));
  }
  std::sort(hits.begin(), hits.end());
  seq.j.reserve(hits.size());
  seq.loc.reserve(hits.size());
  for (const auto& [j0, l] : hits) {
    seq.j.push_back(j0);
    seq.loc.push_back(l);
  }
  const index_t full = seq.count / op.T;
  const index_t rem = seq.count % op.T;
  seq.owned = full * static_cast<index_t>(seq.j.size()) +
              static_cast<index_t>(std::lower_bound(seq.j.begin(), seq.j.end(), rem) - seq.j.begin());
  return seq;
}

index_t SectionDim::pair_period() const { return pair_split(*this).L; }

void check_section_dim(const SectionDim& dim) {
  detail::check_triplet(dim.ts, dim.src.n, "section source triplet");
  detail::check_triplet(dim.td, dim.dst.n, "section target triplet");
  if (dim.ts.extent() != dim.td.extent())
    detail::fail("section: source triplet ", dim.ts.to_string(), " selects ", dim.ts.extent(),
                 " elements but target triplet ", dim.td.to_string(), " selects ", dim.td.extent(),
                 " elements; expected equal extents");
}

CommMatrix section_grid(const SectionDim& dim) {
  check_section_dim(dim);
  const PairSplit split = pair_split(dim);
  CommMatrix grid(dim.src.P, dim.dst.P);
  if (!dim.src.regular() || !dim.dst.regular()) { // one pass over the elements (no closed form)
    int lp = -1;
    int lq = -1;
    index_t run = 0; // consecutive elements of one pair, added at once
    for (index_t j = 0; j < dim.count(); ++j) {
      const int p = dim.src.owner(dim.ts.at(j));
      const int q = dim.dst.owner(dim.td.at(j));
      if (p != lp || q != lq) {
        if (run > 0) grid.add(lp, lq, run);
        lp = p;
        lq = q;
        run = 0;
      }
      ++run;
    }
    if (run > 0) grid.add(lp, lq, run);
    return grid;
  }
  std::vector<index_t> per(static_cast<std::size_t>(dim.dst.P));
  for (int p = 0; p < dim.src.P; ++p) {
    std::fill(per.begin(), per.end(), 0);
    if (split.reps > 0)
      for_each_piece(dim.src, dim.ts, dim.dst, dim.td, p, 0, split.L,
                     [&](int q, index_t, index_t, index_t len, index_t, index_t) {
                       per[static_cast<std::size_t>(q)] += len * split.reps;
                     });
    for_each_piece(dim.src, dim.ts, dim.dst, dim.td, p, split.tail_begin, dim.count(),
                   [&](int q, index_t, index_t, index_t len, index_t, index_t) {
                     per[static_cast<std::size_t>(q)] += len;
                   });
    for (int q = 0; q < dim.dst.P; ++q)
      if (per[static_cast<std::size_t>(q)] > 0) grid.add(p, q, per[static_cast<std::size_t>(q)]);
  }
  return grid;
}

std::vector<SectionRuns> section_runs_from(const SectionDim& dim, int p) {
  check_section_dim(dim);
  return runs_of(dim.src, dim.ts, dim.dst, dim.td, p, true, pair_split(dim));
}

std::vector<SectionRuns> section_runs_to(const SectionDim& dim, int q) {
  check_section_dim(dim);
  return runs_of(dim.dst, dim.td, dim.src, dim.ts, q, false, pair_split(dim));
}

} // namespace hpf
