// Hostile input files: reading them whole with a size limit, a linear check of
// JSON nesting before any parser sees them, and showing their bytes in messages without echoing
// control characters or binary garbage back to the terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hpf::detail {

/// Deepest JSON nesting ([ and {) accepted in input files: every hpfrt format needs 4 at most.
inline constexpr int max_json_depth = 64;

/// Largest input file read (platforms, COM patterns, machine models, Fortran sources).
inline constexpr std::size_t max_input_bytes = std::size_t{64} << 20;

/// `s` for a message: printable ASCII as is, `\n`, `\t` and `\\` escaped, every other byte
/// as `\xNN`; longer than `max_bytes` input bytes is cut and ends in "...(N bytes)".
[[nodiscard]] std::string printable(std::string_view s, std::size_t max_bytes = 80);

/// Throws hpf::Error naming `what` when `text` nests arrays and objects deeper than `max_depth`
/// (brackets inside strings do not count). Linear, iterative: safe on any input.
void check_json_nesting(std::string_view text, std::string_view what, int max_depth = max_json_depth);

/// The whole content of the regular file `path`; throws hpf::Error naming `what` and the path when it
/// cannot be opened, is a directory or other non-regular file, or is larger than `max_bytes`.
[[nodiscard]] std::string read_input_file(const std::string& path, std::string_view what,
                                          std::size_t max_bytes = max_input_bytes);

} // namespace hpf::detail
