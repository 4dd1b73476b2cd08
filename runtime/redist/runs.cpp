#include <hpf/core/error.hpp>
#include <hpf/redist/pattern.hpp>
#include <hpf/redist/runs.hpp>
#include <hpf/schedule/gen_block.hpp>

#include <algorithm>
#include <numeric>

namespace hpf {

namespace {

/// Cuts the blocks of process `me` in map `mine` at the block boundaries of map `other`; calls
/// emit(other_owner, global_start, len) per piece in increasing global order.
template <class Emit> void cut_blocks(const CyclicMap& mine, const CyclicMap& other, int me, Emit&& emit) {
  mine.for_each_block(me, [&](index_t start, index_t end, index_t) {
    for (index_t a = start; a < end;) {
      const index_t b = std::min(end, other.block_end(a)); // next boundary of `other`
      emit(other.owner(a), a, b - a);
      a = b;
    }
  });
}

void check_same_extent(const CyclicMap& src, const CyclicMap& dst) {
  detail::require(src.n == dst.n, "redistribution runs: source extent ", src.n,
                  " differs from target extent ", dst.n);
}

} // namespace

std::vector<std::vector<Run>> runs_from(const CyclicMap& src, const CyclicMap& dst, int p) {
  check_same_extent(src, dst);
  std::vector<std::vector<Run>> out(static_cast<std::size_t>(dst.P));
  cut_blocks(src, dst, p, [&](int q, index_t g, index_t len) {
    out[static_cast<std::size_t>(q)].push_back({src.local(g), dst.local(g), len});
  });
  return out;
}

std::vector<std::vector<Run>> runs_to(const CyclicMap& src, const CyclicMap& dst, int q) {
  check_same_extent(src, dst);
  std::vector<std::vector<Run>> out(static_cast<std::size_t>(src.P));
  cut_blocks(dst, src, q, [&](int p, index_t g, index_t len) {
    out[static_cast<std::size_t>(p)].push_back({src.local(g), dst.local(g), len});
  });
  // Blocks of q visit sources in global order per source already (global order is increasing).
  return out;
}

namespace {

/// Length of one slice L = lcm(P r, Q s), or -1 when L >= n (or would overflow): then the whole
/// extent is one slice.
index_t slice_length(const CyclicMap& src, const CyclicMap& dst) {
  if (!src.regular() || !dst.regular()) return -1; // GEN_BLOCK, INDIRECT: no period
  const index_t a = static_cast<index_t>(src.P) * src.r;
  const index_t b = static_cast<index_t>(dst.P) * dst.r;
  const index_t g = std::gcd(a, b);
  if (a / g > src.n / b) return -1; // L = (a / g) * b > n
  const index_t L = (a / g) * b;
  return L >= src.n ? -1 : L;
}

/// Strided pieces of the CYCLIC blocks of process `me` in `mine` inside the interval [c, cend) that
/// process p of the other map owns contiguously: my blocks follow each other every P r there (mine
/// local step r, other local step P r). emit as in cut_strided.
template <class Emit>
void strided_inside(const CyclicMap& mine, int me, index_t c, index_t cend, int p, Emit&& emit) {
  const index_t mr = mine.r;
  const index_t cyc_m = static_cast<index_t>(mine.P) * mr;
  const index_t off = static_cast<index_t>(me) * mr;
  // First block k of mine that ends after c: off + k cyc_m + mr > c.
  const index_t k0 = c - off - mr < 0 ? 0 : (c - off - mr) / cyc_m + 1;
  index_t bs = off + k0 * cyc_m;
  if (bs < c) { // a block of mine that started before c
    const index_t e = std::min(bs + mr, cend);
    emit(p, c, e - c, index_t{1}, index_t{0}, index_t{0});
    bs += cyc_m;
  }
  if (bs < cend && cend - bs >= mr) {
    const index_t cnt = (cend - mr - bs) / cyc_m + 1;
    emit(p, bs, mr, cnt, mr, cyc_m);
    bs += cnt * cyc_m;
  }
  if (bs < cend) emit(p, bs, cend - bs, index_t{1}, index_t{0}, index_t{0});
}

/// Strided pieces of my contiguous block [start, end) cut at the blocks of the CYCLIC map `other`:
/// inside it, the whole blocks of other owner j follow each other every Q s (mine local step Q s,
/// other local step s). emit as in cut_strided.
template <class Emit> void strided_across(const CyclicMap& other, index_t start, index_t end, Emit&& emit) {
  const index_t orr = other.r;
  const index_t cyc_o = static_cast<index_t>(other.P) * orr;
  index_t a = start;
  if (a % orr != 0) {
    const index_t b = std::min(end, (a / orr + 1) * orr);
    emit(other.owner(a), a, b - a, index_t{1}, index_t{0}, index_t{0});
    a = b;
  }
  const index_t m = (end - a) / orr; // whole blocks of other inside
  const index_t groups = std::min<index_t>(m, other.P);
  for (index_t j = 0; j < groups; ++j) {
    const index_t g0 = a + j * orr;
    emit(other.owner(g0), g0, orr, (m - j + other.P - 1) / other.P, cyc_o, orr);
  }
  a += m * orr;
  if (a < end) emit(other.owner(a), a, end - a, index_t{1}, index_t{0}, index_t{0});
}

/// Cuts the blocks of process `me` in map `mine` at the block boundaries of map `other`, as strided
/// runs: emit(other_owner, global_start, len, count, mine_step, other_step) for pieces
/// global_start + t * (global step), t < count, each of len elements; mine_step / other_step are the
/// local steps between successive pieces. Per other owner, pieces come in increasing global order.
/// Cost O(number of emitted runs): it walks the blocks of the side that has fewer of them. With a
/// GEN_BLOCK or INDIRECT side there is no period: GEN_BLOCK blocks hold CYCLIC blocks as strided runs
/// (no per-element work), INDIRECT is cut run by run of equal owners (its table is per element).
template <class Emit> void cut_strided(const CyclicMap& mine, const CyclicMap& other, int me, Emit&& emit) {
  const index_t n = mine.n;
  if (mine.regular() && other.is_gen_block()) {
    const auto& off = other.irregular->offset;
    for (int q = 0; q < other.P; ++q) {
      const auto uq = static_cast<std::size_t>(q);
      if (off[uq] < off[uq + 1]) strided_inside(mine, me, off[uq], off[uq + 1], q, emit);
    }
    return;
  }
  if (!mine.regular()) {
    mine.for_each_block(me, [&](index_t start, index_t end, index_t) {
      if (other.regular()) {
        strided_across(other, start, end, emit);
        return;
      }
      for (index_t a = start; a < end;) {
        const index_t b = std::min(end, other.block_end(a));
        emit(other.owner(a), a, b - a, index_t{1}, index_t{0}, index_t{0});
        a = b;
      }
    });
    return;
  }
  if (!other.regular()) { // mine CYCLIC, other INDIRECT
    cut_blocks(mine, other, me,
               [&](int q, index_t g, index_t len) { emit(q, g, len, index_t{1}, index_t{0}, index_t{0}); });
    return;
  }
  const index_t mr = mine.r;
  const index_t orr = other.r;
  const index_t cyc_m = static_cast<index_t>(mine.P) * mr;
  if (orr > cyc_m) {
    // Other's blocks are longer than a whole cycle of mine: inside each, my blocks follow each other
    // every cyc_m. Walk other's blocks.
    for (index_t c = 0; c < n; c += orr)
      strided_inside(mine, me, c, std::min(c + orr, n), other.owner(c), emit);
    return;
  }
  // Walk my blocks; inside one, the full blocks of other owner j follow each other every cyc_o.
  for (index_t start = static_cast<index_t>(me) * mr; start < n; start += cyc_m)
    strided_across(other, start, std::min(start + mr, n), emit);
}

/// Strided runs sent by p (per target process) or received by q (per source process).
std::vector<std::vector<StridedRun>> strided_from(const CyclicMap& src, const CyclicMap& dst, int p) {
  std::vector<std::vector<StridedRun>> out(static_cast<std::size_t>(dst.P));
  cut_strided(src, dst, p, [&](int q, index_t g, index_t len, index_t cnt, index_t ms, index_t os) {
    out[static_cast<std::size_t>(q)].push_back({src.local(g), dst.local(g), len, cnt, ms, os});
  });
  return out;
}
std::vector<std::vector<StridedRun>> strided_to(const CyclicMap& src, const CyclicMap& dst, int q) {
  std::vector<std::vector<StridedRun>> out(static_cast<std::size_t>(src.P));
  cut_strided(dst, src, q, [&](int p, index_t g, index_t len, index_t cnt, index_t ms, index_t os) {
    out[static_cast<std::size_t>(p)].push_back({src.local(g), dst.local(g), len, cnt, os, ms});
  });
  return out;
}

/// Builds the periodic runs of process `me` from `runs_of(map_src, map_dst, me)` over one slice and
/// over the last partial slice; `peers` is the number of processes on the other side.
template <class RunsOf> std::vector<PeriodicRuns> periodic(const CyclicMap& src, const CyclicMap& dst, int me,
                                                           int peers, RunsOf&& runs_of) {
  check_same_extent(src, dst);
  std::vector<PeriodicRuns> out(static_cast<std::size_t>(peers));
  const index_t L = slice_length(src, dst);
  if (L < 0) {
    auto all = runs_of(src, dst, me);
    for (std::size_t k = 0; k < out.size(); ++k) {
      out[k].period = std::move(all[k]);
      out[k].reps = 1;
    }
  } else {
    const index_t reps = src.n / L;
    const index_t src_shift = L / src.P;
    const index_t dst_shift = L / dst.P;
    auto one = runs_of(CyclicMap{L, src.P, src.r}, CyclicMap{L, dst.P, dst.r}, me);
    const index_t rest = src.n - reps * L;
    std::vector<std::vector<StridedRun>> tail(out.size());
    if (rest > 0) tail = runs_of(CyclicMap{rest, src.P, src.r}, CyclicMap{rest, dst.P, dst.r}, me);
    for (std::size_t k = 0; k < out.size(); ++k) {
      out[k].period = std::move(one[k]);
      out[k].reps = reps;
      out[k].src_shift = src_shift;
      out[k].dst_shift = dst_shift;
      out[k].tail = std::move(tail[k]);
      for (StridedRun& r : out[k].tail) {
        r.src_local += reps * src_shift;
        r.dst_local += reps * dst_shift;
      }
    }
  }
  for (PeriodicRuns& pr : out) {
    for (const StridedRun& r : pr.period) pr.period_elements += r.len * r.count;
    pr.elements = pr.period_elements * pr.reps;
    for (const StridedRun& r : pr.tail) pr.elements += r.len * r.count;
    pr.tabulate();
  }
  return out;
}

} // namespace

std::vector<PeriodicRuns> periodic_runs_from(const CyclicMap& src, const CyclicMap& dst, int p) {
  return periodic(src, dst, p, dst.P,
                  [](const CyclicMap& a, const CyclicMap& b, int me) { return strided_from(a, b, me); });
}

std::vector<PeriodicRuns> periodic_runs_to(const CyclicMap& src, const CyclicMap& dst, int q) {
  return periodic(src, dst, q, src.P,
                  [](const CyclicMap& a, const CyclicMap& b, int me) { return strided_to(a, b, me); });
}

CommMatrix runs_pattern(const CyclicMap& src, const CyclicMap& dst) {
  check_same_extent(src, dst);
  CommMatrix grid(src.P, dst.P);
  for (int p = 0; p < src.P; ++p)
    cut_strided(src, dst, p, [&](int q, index_t, index_t len, index_t cnt, index_t, index_t) {
      grid.add(p, q, len * cnt);
    });
  return grid;
}

CommMatrix dim_pattern(const CyclicMap& src, const CyclicMap& dst) {
  if (src.regular() && dst.regular()) return block_cyclic_pattern(src.P, src.r, dst.P, dst.r, src.n);
  if (src.is_gen_block() && dst.is_gen_block()) // O(P + Q) intervals
    return gen_block_pattern(src.irregular->offset, dst.irregular->offset);
  return runs_pattern(src, dst); // GEN_BLOCK or INDIRECT against anything
}

void PeriodicRuns::tabulate() {
  // A table pays when a slice is small (it stays in L1 while it is reused reps times) and its runs
  // carry few elements each: then the loop over the strided runs costs more per element than the
  // table's one indexed load and store. Long pieces go by memcpy, and a run of many pieces of one
  // length (CYCLIC(7) -> BLOCK: 36 pieces of 7) by detail::copy_pieces. Measured on the messages of
  // the sweep's cells at 10^3 and 10^5 elements on 2 and 4 processes
  // (bench/redistribute/copy_loops.sh, docs/results/redistribute_copy_loops.csv): the strided loops
  // took 1.9-4.7x the table's time where a run carries at most 3.5 elements, and 0.28-0.90x where it
  // carries 11 or more, except for runs of single elements (a CYCLIC(1) side): 0.98-1.16x at 16 and
  // 32 elements a run, which keep the table, and 0.63-0.81x from 62.5 on.
  constexpr index_t max_table = 4096;
  constexpr index_t short_piece = 8;
  constexpr index_t short_run = 8;         // elements a run of pieces must carry to go without a table
  constexpr index_t short_single_run = 48; // the same for runs of single elements
  src_index.clear();
  dst_index.clear();
  if (period_elements == 0 || period_elements > max_table) return;
  index_t pieces = 0;
  for (const StridedRun& r : period) pieces += r.count;
  if (pieces * short_piece < period_elements) return; // average piece longer than short_piece
  const index_t run = pieces == period_elements ? short_single_run : short_run;
  if (period_elements >= run * static_cast<index_t>(period.size())) return; // runs of many elements
  build_tables();
}

void PeriodicRuns::build_tables() {
  src_index.clear();
  dst_index.clear();
  src_index.reserve(static_cast<std::size_t>(period_elements));
  dst_index.reserve(static_cast<std::size_t>(period_elements));
  for (const StridedRun& r : period)
    for (index_t t = 0; t < r.count; ++t)
      for (index_t i = 0; i < r.len; ++i) {
        src_index.push_back(r.src_local + t * r.src_step + i);
        dst_index.push_back(r.dst_local + t * r.dst_step + i);
      }
}

} // namespace hpf
