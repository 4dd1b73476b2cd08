// The runtime's plan cache: repeated REDISTRIBUTE between the same layouts does not re-plan
// (STYLE.md: reuse, never rebuild per call). Keyed by (source layout, target layout, options); a
// small least-recently-used list, since programs alternate between few layouts.
//
// The cache's list has no lock: plan and redistribute from one thread at a time. hpf::Environment
// asks for MPI_THREAD_FUNNELED, under which only the main thread makes MPI calls, and every
// REDISTRIBUTE does; the executor pools (below) and the block pool (array/block_pool.hpp) are locked,
// since a lease or an array may be released from another thread.
#pragma once

#include <hpf/redist/plan.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace hpf {

/// Counters of the REDISTRIBUTE plan cache.
struct PlanCacheStats {
  std::size_t hits = 0;   ///< lookups that found a plan
  std::size_t misses = 0; ///< lookups that built one
  std::size_t size = 0;   ///< plans held now
};

/// Counters of all plan caches (all N) since the start or the last clear_plan_cache().
PlanCacheStats plan_cache_stats();
/// Drops every cached plan (e.g. before freeing the communicators they use).
void clear_plan_cache();

/// Idle executors of one plan, kept with the cached plan so that a repeated REDISTRIBUTE reuses their
/// message buffers instead of allocating (and page-faulting) them per call. acquire() hands out an
/// executor nobody else holds: two arrays redistributing through one plan at the same time get two
/// executors (executor state is never shared). Local; the mutex makes acquire/release safe
/// from several threads.
template <int N> class ExecutorPool : public std::enable_shared_from_this<ExecutorPool<N>> {
public:
  /// Idle executors kept at most (each holds up to one message's worth of buffers per peer).
  static constexpr std::size_t max_idle = 2;

  /// A pool of executors of `plan`, empty at first.
  explicit ExecutorPool(std::shared_ptr<const RedistributionPlan<N>> plan) : m_plan(std::move(plan)) {}

  /// An executor of the pool's plan, returned to the pool when the lease dies (unless an execution is
  /// still pending on it, e.g. after an exception: then it is dropped).
  class Lease {
  public:
    /// Holds `ex` until the lease dies, then returns it to `pool`.
    Lease(std::shared_ptr<ExecutorPool> pool, std::unique_ptr<RedistributionExecutor<N>> ex)
        : m_pool(std::move(pool)), m_ex(std::move(ex)) {}
    /// Leases move; they do not copy.
    Lease(Lease&&) noexcept = default;
    /// Move assignment.
    Lease& operator=(Lease&&) noexcept = default;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() {
      if (m_pool && m_ex) m_pool->release(std::move(m_ex));
    }
    /// The leased executor.
    [[nodiscard]] RedistributionExecutor<N>& operator*() const noexcept { return *m_ex; }
    /// The leased executor.
    [[nodiscard]] RedistributionExecutor<N>* operator->() const noexcept { return m_ex.get(); }
    /// The plan it runs.
    [[nodiscard]] const RedistributionPlan<N>& plan() const noexcept { return m_pool->plan(); }

  private:
    std::shared_ptr<ExecutorPool> m_pool;
    std::unique_ptr<RedistributionExecutor<N>> m_ex;
  };

  /// An idle executor of the pool's plan, or a new one when none is idle.
  [[nodiscard]] Lease acquire() {
    std::unique_ptr<RedistributionExecutor<N>> ex;
    {
      const std::lock_guard<std::mutex> lock(m_mutex);
      if (!m_idle.empty()) {
        ex = std::move(m_idle.back());
        m_idle.pop_back();
      }
    }
    if (!ex) ex = std::make_unique<RedistributionExecutor<N>>(*m_plan);
    return Lease(this->shared_from_this(), std::move(ex));
  }

  /// The plan its executors run.
  [[nodiscard]] const RedistributionPlan<N>& plan() const noexcept { return *m_plan; }
  /// Executors waiting in the pool.
  [[nodiscard]] std::size_t idle() const {
    const std::lock_guard<std::mutex> lock(m_mutex);
    return m_idle.size();
  }

private:
  void release(std::unique_ptr<RedistributionExecutor<N>> ex) {
    if (ex->pending()) return;
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (m_idle.size() < max_idle) m_idle.push_back(std::move(ex));
  }

  std::shared_ptr<const RedistributionPlan<N>> m_plan; // executors point into it
  mutable std::mutex m_mutex;
  std::vector<std::unique_ptr<RedistributionExecutor<N>>> m_idle;
};

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
    std::shared_ptr<ExecutorPool<N>> pool;
  };
  // Entries by pointer: moving one to the front moves pointers, not layouts.
  static std::vector<std::unique_ptr<Entry>>& entries() {
    static std::vector<std::unique_ptr<Entry>> e;
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
/// `opt` for elements of `elem_bytes` bytes, with the cost model of Strategy::Auto (alpha, beta and
/// one_node) filled in from machine_model() and shares_one_node() of the source grid's communicator
/// where the caller gave none. Collective over that communicator the first time it has no model or
/// placement (exec/model.hpp), whatever `opt` asks: ranks whose options differ (which the caller's
/// check may find only after this) all take the same branch.
template <int N> RedistOptions with_model(const Layout<N>& src, RedistOptions opt, std::size_t elem_bytes) {
  opt.element_bytes = elem_bytes;
  // Both are collective the first time on a communicator: asked on every rank, whatever its options.
  const auto [alpha, beta] = machine_alpha_beta(src.grid().comm());
  const bool one_node = shares_one_node(src.grid().comm());
  if (opt.strategy == Strategy::Auto) {
    if (!opt.alpha) opt.alpha = alpha;
    if (!opt.beta) opt.beta = beta;
    if (!opt.one_node) opt.one_node = one_node;
    if (!opt.cache_bytes) opt.cache_bytes = machine_cache_bytes(src.grid().comm());
  }
  return opt;
}
} // namespace detail

namespace detail {
/// The cache entry of (src, dst, opt), built on first use, moved to the front.
template <int N> typename PlanCache<N>::Entry& cache_entry(const Layout<N>& src, const Layout<N>& dst,
                                                           const RedistOptions& opt) {
  auto& cache = PlanCache<N>::entries();
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    const auto& e = **it;
    if (e.opt == opt && e.src == src && e.dst == dst) {
      count_plan_lookup(true);
      std::rotate(cache.begin(), it, it + 1); // most recently used first
      return *cache.front();
    }
  }
  count_plan_lookup(false);
  auto plan = std::make_shared<const RedistributionPlan<N>>(src, dst, opt);
  auto pool = std::make_shared<ExecutorPool<N>>(plan);
  cache.insert(cache.begin(), std::make_unique<typename PlanCache<N>::Entry>(typename PlanCache<N>::Entry{
                                  src, dst, opt, std::move(plan), std::move(pool)}));
  if (cache.size() > plan_cache_capacity) cache.pop_back();
  return *cache.front();
}
} // namespace detail

/// The plan from `src` to `dst` with `opt`, built on first use and then reused. Local: planning never
/// communicates.
template <int N> std::shared_ptr<const RedistributionPlan<N>>
cached_plan(const Layout<N>& src, const Layout<N>& dst, const RedistOptions& opt = {}) {
  return detail::cache_entry(src, dst, opt).plan;
}

/// An executor of the cached plan from `src` to `dst` (see cached_plan), taken from the plan's pool:
/// its buffers survive from one REDISTRIBUTE to the next. The lease keeps the plan alive. Local.
template <int N> typename ExecutorPool<N>::Lease cached_executor(const Layout<N>& src, const Layout<N>& dst,
                                                                 const RedistOptions& opt = {}) {
  return detail::cache_entry(src, dst, opt).pool->acquire();
}

} // namespace hpf
