#include <hpf/redist/plan_cache.hpp>

#include <vector>

namespace hpf {

namespace {

struct CacheRegistry {
  PlanCacheStats counters;
  struct Clearer {
    void (*clear)();
    std::size_t (*size)();
  };
  std::vector<Clearer> caches; // one per N that was used
};

CacheRegistry& registry() {
  static CacheRegistry r;
  return r;
}

} // namespace

namespace detail {

void count_plan_lookup(bool hit) {
  if (hit) {
    ++registry().counters.hits;
  } else {
    ++registry().counters.misses;
  }
}

void register_plan_cache_clearer(void (*clear)(), std::size_t (*size)()) {
  registry().caches.push_back({clear, size});
}

} // namespace detail

PlanCacheStats plan_cache_stats() {
  PlanCacheStats s = registry().counters;
  s.size = 0;
  for (const auto& c : registry().caches) s.size += c.size();
  return s;
}

void clear_plan_cache() {
  for (const auto& c : registry().caches) c.clear();
  registry().counters = {};
}

} // namespace hpf
