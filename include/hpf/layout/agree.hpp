// Agreement on layouts: the arguments of collectives that take a Layout, flattened to the words that
// check_same_on_all_ranks (core/mpi.hpp) compares across the ranks.
#pragma once

#include <hpf/core/mpi.hpp>
#include <hpf/layout/layout.hpp>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hpf {

/// A collective's arguments as integers, each with a name for messages. Names are built only when
/// `named` is set (debug builds, or the error path's rebuild: check()): `name` is a callable
/// returning it, so that a check that passes builds no string.
struct AgreementWords {
  /// The arguments, flattened to integers.
  std::vector<std::int64_t> words;
  /// One name per word when `named`, else none.
  std::vector<std::string> names;
#ifndef NDEBUG
  /// Whether add() builds names (debug builds, and the error path's rebuild).
  bool named = true;
#else
  /// Whether add() builds names (debug builds, and the error path's rebuild).
  bool named = false;
#endif

  /// Appends word `w`; `name()` gives its name, called only when `named`.
  template <class Name> void add(std::int64_t w, Name&& name) {
    words.push_back(w);
    if (named) names.push_back(std::string(name()));
  }
  /// Collective over `comm`: throws the same hpf::Error on every rank unless all passed the same words
  /// and none has a `local_problem` of its own (check_same_on_all_ranks). `rebuild` makes the same
  /// words with their names (named set): called on the error path only, to name the word that differs.
  void check(MPI_Comm comm, std::string_view what, std::string_view local_problem = {},
             const std::function<AgreementWords()>& rebuild = {}) const {
    const std::vector<std::string_view> views(names.begin(), names.end());
    std::function<NamedWords()> full;
    if (rebuild)
      full = [&rebuild] {
        AgreementWords w = rebuild();
        return NamedWords{std::move(w.words), std::move(w.names)};
      };
    check_same_on_all_ranks(comm, what, words, views, local_problem, full);
  }
};

/// Appends the grid: its shape and its ranks (of the parent communicator), in grid-position order.
inline void add_grid_words(AgreementWords& out, const ProcessGrid& g, const std::string& prefix) {
  out.add(g.ndims(), [&] { return prefix + "grid.ndims"; });
  for (int d = 0; d < g.ndims(); ++d)
    out.add(g.extent(d), [&] { return prefix + "grid.shape[" + std::to_string(d) + "]"; });
  out.add(g.size(), [&] { return prefix + "grid.size"; });
  for (std::size_t p = 0; p < g.ranks().size(); ++p)
    out.add(g.ranks()[p], [&] { return prefix + "grid.ranks[" + std::to_string(p) + "]"; });
}

/// Appends a layout: extents, per dimension the distribution's kind, block size, table hash (GEN_BLOCK,
/// INDIRECT), SHADOW width and grid dimension, what every unused grid dimension does (replicated or
/// the fixed coordinate), and the grid.
template <int N> void add_layout_words(AgreementWords& out, const Layout<N>& L, const std::string& prefix) {
  out.add(N, [&] { return prefix + "rank"; });
  for (int d = 0; d < N; ++d) {
    auto dim = [&] { return "[" + std::to_string(d) + "]"; };
    out.add(L.extent(d), [&] { return prefix + "extents" + dim(); });
    out.add(static_cast<std::int64_t>(L.dist(d).kind()), [&] { return prefix + "dists" + dim() + ".kind"; });
    out.add(L.dist(d).block(), [&] { return prefix + "dists" + dim() + ".block"; });
    // GEN_BLOCK sizes / INDIRECT owners: a hash of the table (the same table gives the same word).
    out.add(static_cast<std::int64_t>(L.dist(d).table_hash()),
            [&] { return prefix + "dists" + dim() + ".table_hash"; });
    out.add(L.shadow(d), [&] { return prefix + "shadow" + dim(); });
    out.add(L.grid_dim(d), [&] { return prefix + "grid_dim" + dim(); });
  }
  // Replicated (-1) or fixed (coordinate) grid dimensions; the used ones are named by grid_dim above.
  const Placement<N> pl = L.placement();
  for (std::size_t k = 0; k < pl.unused.size(); ++k)
    out.add(pl.unused[k], [&] { return prefix + "placement.unused[" + std::to_string(k) + "]"; });
  add_grid_words(out, L.grid(), prefix);
}

/// Collective over the layout's communicator: throws the same hpf::Error on every rank unless every
/// rank passed the same layout (extents, distributions, grid). One small allreduce in release builds.
template <int N> void check_same_layout(const Layout<N>& L, std::string_view what) {
  const auto build = [&](bool named) {
    AgreementWords w;
    w.named = w.named || named;
    add_layout_words(w, L, "layout.");
    return w;
  };
  build(false).check(L.grid().comm().get(), what, {}, [&] { return build(true); });
}

/// As check_same_layout, with a root rank too (gather, scatter).
template <int N> void check_same_layout_and_root(const Layout<N>& L, int root, std::string_view what) {
  const auto build = [&](bool named) {
    AgreementWords w;
    w.named = w.named || named;
    w.add(root, [] { return std::string("root"); });
    add_layout_words(w, L, "layout.");
    return w;
  };
  build(false).check(L.grid().comm().get(), what, {}, [&] { return build(true); });
}

/// An option of a collective that every rank must pass the same: its name and its value as a word.
struct OptionWord {
  const char* name;   ///< as in error messages: "options.strategy"
  std::int64_t value; ///< the option's value as a word
};

/// The words of a REDISTRIBUTE's arguments: its options, then the source and target layouts.
template <int N> AgreementWords redistribution_words(const Layout<N>& from, const Layout<N>& to,
                                                     std::span<const OptionWord> options,
                                                     bool named = false) {
  AgreementWords w;
  w.named = w.named || named;
  w.words.reserve(64); // a call's words in one allocation (REDISTRIBUTE of small arrays is latency-bound)
  for (const OptionWord& o : options) w.add(o.value, [&] { return std::string(o.name); });
  add_layout_words(w, from, "source.");
  add_layout_words(w, to, "target.");
  return w;
}

/// The hash of a layout's words (add_layout_words), computed once per layout and kept with it
/// (Layout::words_hash). Equal layouts have equal hashes on every rank. Local.
template <int N> std::uint64_t layout_hash(const Layout<N>& L) {
  return L.words_hash([&] {
    AgreementWords w;
    add_layout_words(w, L, "");
    return detail::hash_words(w.words);
  });
}

/// A hash of the same arguments as redistribution_words (what check_same_redistribution compares):
/// the options' words, then the hash of each layout. Local; after the first call with
/// these layouts a handful of multiplications (REDISTRIBUTE of a small array is latency-bound).
template <int N> std::uint64_t redistribution_hash(const Layout<N>& from, const Layout<N>& to,
                                                   std::span<const OptionWord> options) {
  detail::WordHash h;
  for (const OptionWord& o : options) h.add(o.value);
  h.add(static_cast<std::int64_t>(layout_hash(from)));
  h.add(static_cast<std::int64_t>(layout_hash(to)));
  return h.value();
}

/// Collective over the source grid's communicator: throws the same hpf::Error on every rank unless
/// every rank passed the same layouts and options and none has a `local_problem` of its own (then every
/// rank throws it). One word travels: the hash of the options and of both layouts, whose own hashes
/// each layout computes once (layout_hash), so that a repeated call builds no words; they are built,
/// with their names, only when the ranks differ.
template <int N> void check_same_redistribution(const Layout<N>& from, const Layout<N>& to,
                                                std::span<const OptionWord> options, std::string_view what,
                                                std::string_view local_problem = {}) {
  const auto digest = static_cast<std::int64_t>(redistribution_hash(from, to, options));
  check_same_on_all_ranks(from.grid().comm().get(), what, std::span<const std::int64_t>(&digest, 1), {},
                          local_problem, [&] {
                            AgreementWords w = redistribution_words(from, to, options, true);
                            return NamedWords{std::move(w.words), std::move(w.names)};
                          });
}

} // namespace hpf
