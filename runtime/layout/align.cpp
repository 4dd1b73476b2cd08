#include <hpf/core/error.hpp>
#include <hpf/layout/align.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

namespace hpf::detail {

namespace {
__extension__ typedef __int128 wide; // a*(n - 1) + b may overflow 64 bits
} // namespace

void check_alignment_range(index_t base_n, index_t n, index_t a, index_t b, const std::string& what) {
  require(a != 0, what, ": stride must be != 0, got 0");
  if (n == 0) return;
  // The map is linear: its image lies between the images of the two ends (in 128 bits: a*(n-1)
  // may overflow 64).
  const wide first = b;
  const wide last = static_cast<wide>(a) * (n - 1) + b;
  const auto lo = std::min(first, last);
  const auto hi = std::max(first, last);
  require(lo >= 0 && hi<base_n, what, ": stride ", a, " and offset ", b, " map indices [0, ", n,
                        ") onto base indices ", static_cast<long long>(first), " .. ", last>
                          INT64_MAX ||
                  last < INT64_MIN
              ? std::string("(overflow)")
              : std::to_string(static_cast<long long>(last)),
          ", outside the base extent; expected every a*i + b in [0, ", base_n, ")");
}

Distribution aligned_distribution(const Distribution& base_dist, const CyclicMap& base, index_t n, index_t a,
                                  index_t b, const std::string& what) {
  check_alignment_range(base.n, n, a, b, what);
  if (a == 1 && b == 0 && n == base.n) return base_dist; // the identity keeps the base's map
  const int P = base.P;
  if (P == 1 || n == 0) return Block(); // one process owns everything (or there is nothing)
  const std::optional<index_t> cycle = base.regular() ? base.cycle() : std::nullopt;
  // CYCLIC(r) shifted by whole cycles: the same closed form. (Without a representable cycle every base
  // index is in the first one, so only b = 0 qualifies.)
  if (base.regular() && a == 1 && (cycle ? b % *cycle == 0 : b == 0)) return Cyclic(base.r);
  // Non-decreasing owners: a GEN_BLOCK whose sizes count the aligned indices in each base block.
  const bool monotone_base = base.is_gen_block() || (base.regular() && (!cycle || *cycle >= base.n));
  if (monotone_base && a > 0) {
    auto start = [&](int p) -> index_t { // first base index of process p's block (n_base past the end)
      if (p >= P) return base.n;
      if (base.is_gen_block()) return base.irregular->offset[static_cast<std::size_t>(p)];
      const auto s = mul_nonneg(p, base.r);
      return s ? std::min(*s, base.n) : base.n;
    };
    // First aligned index i with a*i + b >= s: ceil((s - b) / a), clamped to [0, n].
    auto first_at = [&](index_t s) { return clamp_index(-floor_div(-(s - b), a), 0, n); };
    std::vector<index_t> sizes(static_cast<std::size_t>(P));
    for (int p = 0; p < P; ++p)
      sizes[static_cast<std::size_t>(p)] = first_at(start(p + 1)) - first_at(start(p));
    return GenBlock(std::move(sizes));
  }
  // INDIRECT: the owner table. On a CYCLIC(r) base the owner of a*i + b depends on (a*i + b) mod P r
  // only, whose sequence repeats every P r / gcd(|a|, P r) indices (DESIGN.md's section formulas):
  // one period is computed, the rest copied.
  std::vector<int> owners(static_cast<std::size_t>(n));
  index_t period = n;
  if (cycle) period = std::min(n, *cycle / std::gcd(a < 0 ? -a : a, *cycle));
  for (index_t i = 0; i < period; ++i) owners[static_cast<std::size_t>(i)] = base.owner(a * i + b);
  for (index_t i = period; i < n; ++i)
    owners[static_cast<std::size_t>(i)] = owners[static_cast<std::size_t>(i - period)];
  return Indirect(std::move(owners));
}

} // namespace hpf::detail
