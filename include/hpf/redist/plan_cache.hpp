// The runtime's plan cache: repeated REDISTRIBUTE between the same layouts does not re-plan
// (STYLE.md: reuse, never rebuild per call). Keyed by (source layout, target layout, options); a
// small least-recently-used list, since programs alternate between few layouts.
#pragma once

#include <hpf/redist/plan.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace hpf {

struct PlanCacheStats {
  std::size_t hits = 0;
  std::size_t misses = 0;
  std::size_t size = 0;
};

/// Counters of all plan caches (all N) since the start or the last clear_plan_cache().
PlanCacheStats plan_cache_stats();
/// Drops every cached plan (e.g. before freeing the communicators they use).
void clear_plan_cache();

namespace detail {
inline constexpr std::size_t plan_cache_capacity = 32;
void count_plan_lookup(bool hit);
void register_plan_cache_clearer(void (*clear)(), std::size_t (*size)());

template <int N> struct PlanCache {
  struct Entry {
    Layout<N> src;
    Layout<N> dst;
    RedistOptions opt;
    std::shared_ptr<const RedistributionPlan<N>> plan;
  };
  static std::vector<Entry>& entries() {
    static std::vector<Entry> e;
    static const bool registered = [] {
      register_plan_cache_clearer([] { entries().clear(); }, [] { return entries().size(); });
      return true;
    }();
    (void)registered;
    return e;
  }
};
} // namespace detail

namespace detail {
/// `opt` for elements of `elem_bytes` bytes, with the cost model of Strategy::Auto filled in from
/// machine_model() of the source grid's communicator where the caller gave none. Collective over that
/// communicator the first time it has no model (exec/model.hpp); every rank takes the same branch.
template <int N> RedistOptions with_model(const Layout<N>& src, RedistOptions opt, std::size_t elem_bytes) {
  opt.element_bytes = elem_bytes;
  if (opt.strategy == Strategy::Auto && !(opt.alpha && opt.beta)) {
    const MachineModel m = machine_model(src.grid().comm());
    if (!opt.alpha) opt.alpha = m.alpha;
    if (!opt.beta) opt.beta = m.beta;
  }
  return opt;
}
} // namespace detail

/// The plan from `src` to `dst` with `opt`, built on first use and then reused. Local: planning never
/// communicates.
template <int N> std::shared_ptr<const RedistributionPlan<N>>
cached_plan(const Layout<N>& src, const Layout<N>& dst, const RedistOptions& opt = {}) {
  auto& cache = detail::PlanCache<N>::entries();
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (it->opt == opt && it->src == src && it->dst == dst) {
      detail::count_plan_lookup(true);
      auto plan = it->plan;
      std::rotate(cache.begin(), it, it + 1); // most recently used first
      return plan;
    }
  }
  detail::count_plan_lookup(false);
  auto plan = std::make_shared<const RedistributionPlan<N>>(src, dst, opt);
  cache.insert(cache.begin(), {src, dst, opt, plan});
  if (cache.size() > detail::plan_cache_capacity) cache.pop_back();
  return plan;
}

} // namespace hpf
