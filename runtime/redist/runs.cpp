#include <hpf/core/error.hpp>
#include <hpf/redist/runs.hpp>

#include <algorithm>
#include <numeric>

namespace hpf {

namespace {

/// Cuts the blocks of process `me` in map `mine` at the block boundaries of map `other`; calls
/// emit(other_owner, global_start, len) per piece in increasing global order.
template <class Emit> void cut_blocks(const CyclicMap& mine, const CyclicMap& other, int me, Emit&& emit) {
  const index_t cycle = static_cast<index_t>(mine.P) * mine.r;
  for (index_t start = static_cast<index_t>(me) * mine.r; start < mine.n; start += cycle) {
    const index_t end = std::min(start + mine.r, mine.n);
    for (index_t a = start; a < end;) {
      const index_t b = std::min(end, (a / other.r + 1) * other.r); // next boundary of `other`
      emit(other.owner(a), a, b - a);
      a = b;
    }
  }
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
  const index_t a = static_cast<index_t>(src.P) * src.r;
  const index_t b = static_cast<index_t>(dst.P) * dst.r;
  const index_t g = std::gcd(a, b);
  if (a / g > src.n / b) return -1; // L = (a / g) * b > n
  const index_t L = (a / g) * b;
  return L >= src.n ? -1 : L;
}

/// Builds the periodic runs of process `me` from `runs(map_src, map_dst, me)` over one slice and over
/// the last partial slice; `peers` is the number of processes on the other side.
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
    std::vector<std::vector<Run>> tail(out.size());
    if (rest > 0) tail = runs_of(CyclicMap{rest, src.P, src.r}, CyclicMap{rest, dst.P, dst.r}, me);
    for (std::size_t k = 0; k < out.size(); ++k) {
      out[k].period = std::move(one[k]);
      out[k].reps = reps;
      out[k].src_shift = src_shift;
      out[k].dst_shift = dst_shift;
      out[k].tail = std::move(tail[k]);
      for (Run& r : out[k].tail) {
        r.src_local += reps * src_shift;
        r.dst_local += reps * dst_shift;
      }
    }
  }
  for (PeriodicRuns& pr : out) {
    index_t per = 0;
    for (const Run& r : pr.period) per += r.len;
    pr.elements = per * pr.reps;
    for (const Run& r : pr.tail) pr.elements += r.len;
  }
  return out;
}

} // namespace

std::vector<PeriodicRuns> periodic_runs_from(const CyclicMap& src, const CyclicMap& dst, int p) {
  return periodic(src, dst, p, dst.P,
                  [](const CyclicMap& a, const CyclicMap& b, int me) { return runs_from(a, b, me); });
}

std::vector<PeriodicRuns> periodic_runs_to(const CyclicMap& src, const CyclicMap& dst, int q) {
  return periodic(src, dst, q, src.P,
                  [](const CyclicMap& a, const CyclicMap& b, int me) { return runs_to(a, b, me); });
}

} // namespace hpf
