#include <hpf/core/error.hpp>
#include <hpf/redist/runs.hpp>

#include <algorithm>

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

} // namespace hpf
