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
#include <span>
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

/// One array of redistribute_many with its element type and rank erased, so that a list made at run
/// time (the C ABI's hpf_array_redistribute_many) and a tuple of DistArrays take the same path.
class ManyPart {
public:
  ManyPart() = default;
  ManyPart(const ManyPart&) = delete;
  ManyPart& operator=(const ManyPart&) = delete;
  ManyPart(ManyPart&&) = delete;
  ManyPart& operator=(ManyPart&&) = delete;
  virtual ~ManyPart() = default;
  /// The parent communicator of the array's grid.
  [[nodiscard]] virtual const Comm& comm() const noexcept = 0;
  [[nodiscard]] virtual std::size_t elem_bytes() const noexcept = 0;
  [[nodiscard]] virtual std::string label() const = 0;
  /// Completes `options` with the array's cost model (collective the first time on a communicator).
  virtual void model(const RedistOptions& options) = 0;
  /// The cached plan of the move (throws what planning throws).
  virtual void plan() = 0;
  [[nodiscard]] virtual BatchKey key() const noexcept = 0;
  virtual void add_to(RedistributionBatch& batch) const = 0;
  /// Allocates the target block.
  virtual void make_target() = 0;
  [[nodiscard]] virtual std::uint64_t hash(std::span<const OptionWord> words) const = 0;
  virtual void add_words(AgreementWords& w, const std::string& prefix) const = 0;
  [[nodiscard]] virtual BatchBlocks blocks() = 0;
  /// The array takes its target block and layout.
  virtual void finish() = 0;
};

template <class T, int N> class ManyPartOf final : public ManyPart {
public:
  ManyPartOf(DistArray<T, N>& array, const Layout<N>& layout) : m_array(array), m_layout(layout) {}
  [[nodiscard]] const Comm& comm() const noexcept override { return m_array.layout().grid().comm(); }
  [[nodiscard]] std::size_t elem_bytes() const noexcept override { return sizeof(T); }
  [[nodiscard]] std::string label() const override { return m_array.label(); }
  void model(const RedistOptions& options) override {
    m_options = with_model(m_array.layout(), options, sizeof(T));
  }
  void plan() override {
    const Layout<N>& from = m_array.layout();
    m_plan = from.has_shadow() || m_layout.has_shadow()
                 ? cached_plan(from.with_shadow(Index<N>{}), m_layout.with_shadow(Index<N>{}), m_options)
                 : cached_plan(from, m_layout, m_options);
  }
  [[nodiscard]] BatchKey key() const noexcept override { return {m_plan.get(), sizeof(T)}; }
  void add_to(RedistributionBatch& batch) const override { batch.template add<T>(m_plan); }
  void make_target() override { m_next.emplace(m_array.label(), m_layout, Uninitialized{}); }
  [[nodiscard]] std::uint64_t hash(std::span<const OptionWord> words) const override {
    return redistribution_hash(m_array.layout(), m_layout, words);
  }
  void add_words(AgreementWords& w, const std::string& prefix) const override {
    w.add(static_cast<std::int64_t>(sizeof(T)), [&] { return prefix + "element bytes"; });
    add_layout_words(w, m_array.layout(), prefix + "source.");
    add_layout_words(w, m_layout, prefix + "target.");
  }
  [[nodiscard]] BatchBlocks blocks() override { return m_stage.blocks(m_array, *m_next); }
  void finish() override {
    m_stage.finish(*m_next);
    m_array = std::move(*m_next);
  }

private:
  DistArray<T, N>& m_array;
  const Layout<N>& m_layout;
  RedistOptions m_options;
  std::shared_ptr<const RedistributionPlan<N>> m_plan;
  std::optional<DistArray<T, N>> m_next;
  BatchStage<T, N> m_stage;
};

/// redistribute_many over `parts` (at least one), in their order; `what` names the caller in errors.
inline void redistribute_many(std::span<ManyPart* const> parts, const RedistOptions& options,
                              const char* what) {
  const std::size_t k = parts.size();
  const Comm& comm = parts[0]->comm();
  const auto words = agreement_words(options);
  // The cost model first, on every rank for every array whatever its arguments (DistArray::redistribute
  // says why: its measurement is collective the first time on a communicator).
  for (ManyPart* p : parts) p->model(options);
  // This rank's part before any message (plans, batch, buffers, target blocks) may fail where the
  // others' does not: the failure rides in the agreement, and every rank throws it with every array
  // unchanged.
  std::string problem;
  RedistributionBatch* batch = nullptr;
  if (options.relabel) {
    problem = concat(what, ": options.relabel = true; expected false (arrange each target layout with "
                           "best_relabeling and relabeled_layout first)");
  } else {
    for (std::size_t i = 0; i < k && problem.empty(); ++i) {
      try {
        parts[i]->plan();
      } catch (const std::exception& e) {
        problem = concat(what, ": arrays[", i, "] ('", parts[i]->label(), "'): ", e.what());
      }
    }
  }
  if (problem.empty()) {
    try {
      std::vector<BatchKey> key;
      for (const ManyPart* p : parts) key.push_back(p->key());
      batch = &cached_batch(key, [&](RedistributionBatch& b) {
        for (const ManyPart* p : parts) p->add_to(b);
      });
      batch->bind(comm); // the cached plans may hold an equal grid's communicator
      batch->prepare();
      for (ManyPart* p : parts) p->make_target();
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  // Every rank must pass the same layouts, element types and options.
  const auto named = [&] {
    AgreementWords w;
    w.named = true;
    w.add(static_cast<std::int64_t>(k), [] { return std::string("k"); });
    for (std::size_t i = 0; i < k; ++i) parts[i]->add_words(w, "arrays[" + std::to_string(i) + "].");
    for (const OptionWord& o : words) w.add(o.value, [&] { return std::string(o.name); });
    return NamedWords{std::move(w.words), std::move(w.names)};
  };
  WordHash h;
  h.add(static_cast<std::int64_t>(k));
  for (const ManyPart* p : parts) h.add(static_cast<std::int64_t>(p->elem_bytes()));
  for (const ManyPart* p : parts) h.add(static_cast<std::int64_t>(p->hash(words)));
  const auto digest = static_cast<std::int64_t>(h.value());
  check_same_on_all_ranks(comm.get(), what, std::span<const std::int64_t>(&digest, 1), {}, problem, named);

  std::vector<BatchBlocks> blocks;
  for (ManyPart* p : parts) blocks.push_back(p->blocks());
  batch->execute(blocks);
  for (ManyPart* p : parts) p->finish();
}

template <class... T, int... N, std::size_t... I>
void redistribute_many(std::tuple<DistArray<T, N>&...> arrays, const std::tuple<Layout<N>...>& layouts,
                       const RedistOptions& options, std::index_sequence<I...> /*unused*/) {
  const std::array<std::unique_ptr<ManyPart>, sizeof...(T)> parts{
      std::make_unique<ManyPartOf<T, N>>(std::get<I>(arrays), std::get<I>(layouts))...};
  const std::array<ManyPart*, sizeof...(T)> list{parts[I].get()...};
  redistribute_many(std::span<ManyPart* const>(list), options, "hpf::redistribute_many");
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
