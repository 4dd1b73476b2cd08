// One name table per enum: to_string and parse are generated from it, so the two never disagree and
// every unknown name fails the same way.
//
//   inline constexpr hpf::NameTable<Strategy, 3> strategy_names{{{
//       {Strategy::Auto, "auto"}, {Strategy::Class, "class"}, {Strategy::Caterpillar, "caterpillar"}}}};
//   std::string to_string(Strategy s) { return std::string(strategy_names.name(s)); }
//   Strategy parse_strategy(std::string_view v, std::string_view what) { return strategy_names.parse(v,
//   what); }
//
// Names are lower-case with hyphens ("koenig-stepwise"), the one casing of the CLI and of JSON.
// A value may appear more than once: its first entry is its name, later ones are aliases (an old
// spelling that parse still accepts; name() and list() never show them).
#pragma once

#include <hpf/core/error.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace hpf {

/// The K names of the values of enum E, from which to_string and parse are made (see the header comment).
template <class E, std::size_t K> struct NameTable {
  /// (value, name) pairs: a value's first entry is its name, later ones are aliases.
  std::array<std::pair<E, std::string_view>, K> entries;

  /// The name of `e`. Throws hpf::Error for a value outside the table (e.g. a cast integer).
  [[nodiscard]] constexpr std::string_view name(E e) const {
    for (const auto& [v, n] : entries)
      if (v == e) return n;
    detail::fail("name table: value ", static_cast<long long>(e), " has no name; expected one of ", list());
  }

  /// The value named `text`. Throws hpf::Error naming the argument `what`, the value and the accepted
  /// names, e.g. "strategy: unknown value 'fastest'; expected one of auto, class, ...".
  [[nodiscard]] E parse(std::string_view text, std::string_view what) const {
    for (const auto& [v, n] : entries)
      if (n == text) return v;
    detail::fail(what, ": unknown value '", printable(text), "'; expected one of ", list());
  }

  /// The names, in table order, without aliases.
  [[nodiscard]] std::string list() const {
    std::string s;
    for (std::size_t i = 0; i < K; ++i)
      if (name(entries[i].first) == entries[i].second)
        s += (s.empty() ? "" : ", ") + std::string(entries[i].second);
    return s;
  }

  /// `text` cut to 64 characters, with bytes outside printable ASCII shown as '?': a hostile value
  /// is never echoed back raw.
  static std::string printable(std::string_view text) {
    std::string s;
    for (char c : text.substr(0, 64)) s += (c >= 0x20 && c < 0x7f) ? c : '?';
    if (text.size() > 64) s += "...";
    return s;
  }
};

} // namespace hpf
