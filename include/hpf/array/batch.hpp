// hpf::redistribute_many: HPF REDISTRIBUTE of several DistArrays in one exchange (one message per
// pair of ranks and step), the DistArray face of RedistributionBatch (redist/batch.hpp).
//
// The arrays may differ in element type, rank and layouts; every array's grids must be built on one
// parent communicator. Each array keeps its label and values and takes its target layout, as
// DistArray::redistribute does. The plans come from the plan cache, and the batch of them from a
// small cache of batches keyed by those plans, so a program that moves the same arrays between the
// same layouts repeatedly plans and allocates once (or holds a RedistributionBatch itself).
#pragma once

#include <hpf/array/dist_array.hpp>
#include <hpf/core/error.hpp>
#include <hpf/layout/agree.hpp>
#include <hpf/redist/batch.hpp>
#include <hpf/redist/plan_cache.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace hpf {

namespace detail {

/// The local blocks one array of redistribute_many moves between: its own storage, or compact
/// copies of its owned elements when either layout has a shadow (only owned elements move).
template <class T, int N> struct BatchStage {
  std::vector<T> in;
  std::vector<T> out;
  BatchBlocks blocks(const DistArray<T, N>& from, DistArray<T, N>& to) {
    const T* src = from.local_data();
    T* dst = to.local_data();
    if (from.has_shadow()) {
      in = from.owned_copy();
      src = in.data();
    }
    if (to.has_shadow()) {
      out.resize(static_cast<std::size_t>(to.local_size()));
      dst = out.data();
    }
    return {src, dst};
  }
  void finish(DistArray<T, N>& to) {
    if (to.has_shadow()) to.copy_owned(out.data(), false);
  }
};

template <class... T, int... N, std::size_t... I>
void redistribute_many(std::tuple<DistArray<T, N>&...> arrays, const std::tuple<Layout<N>...>& layouts,
                       const RedistOptions& options, std::index_sequence<I...> /*unused*/) {
  constexpr std::size_t k = sizeof...(T);
  const char* what = "hpf::redistribute_many";
  const Comm& comm = std::get<0>(arrays).layout().grid().comm();
  const auto words = agreement_words(options);
  // The cost model first, on every rank for every array whatever its arguments (DistArray::redistribute
  // says why: its measurement is collective the first time on a communicator).
  const std::array<RedistOptions, k> opts{with_model(std::get<I>(arrays).layout(), options, sizeof(T))...};
  // This rank's part before any message (plans, batch, buffers, target blocks) may fail where the
  // others' does not: the failure rides in the agreement, and every rank throws it with every array
  // unchanged.
  std::string problem;
  std::tuple<std::shared_ptr<const RedistributionPlan<N>>...> plans;
  std::tuple<std::optional<DistArray<T, N>>...> next;
  RedistributionBatch* batch = nullptr;
  const auto plan_one = [&](auto index, auto& A, const auto& layout, auto& plan) {
    if (!problem.empty()) return;
    constexpr std::size_t i = decltype(index)::value;
    try {
      using Z = std::remove_cvref_t<decltype(A.layout().extents())>;
      plan = A.layout().has_shadow() || layout.has_shadow()
                 ? cached_plan(A.layout().with_shadow(Z{}), layout.with_shadow(Z{}), opts[i])
                 : cached_plan(A.layout(), layout, opts[i]);
    } catch (const std::exception& e) {
      problem = concat(what, ": arrays[", i, "] ('", A.label(), "'): ", e.what());
    }
  };
  if (options.relabel) {
    problem = concat(what, ": options.relabel = true; expected false (arrange each target layout with "
                           "best_relabeling and relabeled_layout first)");
  } else {
    (plan_one(std::integral_constant<std::size_t, I>{}, std::get<I>(arrays), std::get<I>(layouts),
              std::get<I>(plans)),
     ...);
  }
  if (problem.empty()) {
    try {
      const std::array<BatchKey, k> key{BatchKey{std::get<I>(plans).get(), sizeof(T)}...};
      batch =
          &cached_batch(key, [&](RedistributionBatch& b) { (b.template add<T>(std::get<I>(plans)), ...); });
      batch->bind(comm); // the cached plans may hold an equal grid's communicator
      batch->prepare();
      (std::get<I>(next).emplace(std::get<I>(arrays).label(), std::get<I>(layouts), Uninitialized{}), ...);
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  // Every rank must pass the same layouts, element types and options.
  const auto named = [&] {
    AgreementWords w;
    w.named = true;
    w.add(static_cast<std::int64_t>(k), [] { return std::string("k"); });
    (w.add(static_cast<std::int64_t>(sizeof(T)),
           [] { return "arrays[" + std::to_string(I) + "].element bytes"; }),
     ...);
    for (const OptionWord& o : words) w.add(o.value, [&] { return std::string(o.name); });
    (add_layout_words(w, std::get<I>(arrays).layout(), "arrays[" + std::to_string(I) + "].source."), ...);
    (add_layout_words(w, std::get<I>(layouts), "arrays[" + std::to_string(I) + "].target."), ...);
    return NamedWords{std::move(w.words), std::move(w.names)};
  };
  WordHash h;
  h.add(static_cast<std::int64_t>(k));
  (h.add(static_cast<std::int64_t>(sizeof(T))), ...);
  (h.add(static_cast<std::int64_t>(
       redistribution_hash(std::get<I>(arrays).layout(), std::get<I>(layouts), words))),
   ...);
  const auto digest = static_cast<std::int64_t>(h.value());
  check_same_on_all_ranks(comm.get(), what, std::span<const std::int64_t>(&digest, 1), {}, problem, named);

  std::tuple<BatchStage<T, N>...> stages;
  const std::array<BatchBlocks, k> blocks{
      std::get<I>(stages).blocks(std::get<I>(arrays), *std::get<I>(next))...};
  batch->execute(blocks);
  (std::get<I>(stages).finish(*std::get<I>(next)), ...);
  ((std::get<I>(arrays) = std::move(*std::get<I>(next))), ...);
}

} // namespace detail

/// Collective over the parent communicator of every array's grids (every rank of it calls, in or out
/// of the grids): HPF REDISTRIBUTE of k arrays in one exchange. `arrays` is std::tie(A, B, ...), any
/// element types and ranks; `layouts` gives each its target layout (same extents), in that order:
/// `hpf::redistribute_many(std::tie(A, B), {layoutA2, layoutB2})`. Each array keeps its label and
/// values. Throws hpf::Error on every rank, with every array unchanged, for other extents, grids on
/// another parent communicator, options.relabel, or arguments that differ between ranks; the
/// message names the array (arrays[i]). Shadows: only owned elements move; they are stale afterwards.
template <class... T, int... N> void redistribute_many(std::tuple<DistArray<T, N>&...> arrays,
                                                       const std::tuple<Layout<N>...>& layouts,
                                                       const RedistOptions& options = {}) {
  if constexpr (sizeof...(T) > 0)
    detail::redistribute_many(arrays, layouts, options, std::index_sequence_for<T...>{});
}

} // namespace hpf
