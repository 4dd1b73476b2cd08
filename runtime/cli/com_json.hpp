// JSON input files of the CLI: the bounded parse every reader uses, and the --com file format of
// `hpfrt all-to-many` parsed from text (a fuzz target, tests/fuzz).
#pragma once

#include <hpf/schedule/schedule.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace hpf::cli {

/// Largest n accepted: the fully connected model keeps one flag per ordered pair (n^2 bytes), which
/// stays at 16 MB here; larger machines are for the library API, not for printing schedules.
inline constexpr int max_n = 1 << 12;

/// Parses the JSON input file `path` of option `what`: nesting bounded first, and every nlohmann error
/// (syntax, a number out of range) an hpf::Error naming the file and a byte offset, never the input.
nlohmann::json parse_input_json(const std::string& text, const std::string& what, const std::string& path);

/// `{"n":N,"messages":[[src,dst,len],...]}`. A pair (src, dst) may appear once, and src != dst: a file
/// that repeats a pair or sends to itself is refused (they used to be merged or
/// accepted silently; assemble_com, which sums, is for the library's own lists). `path` names the
/// input in messages. Throws hpf::Error on any malformed input.
CommMatrix com_from_json(const std::string& text, const std::string& path);

} // namespace hpf::cli
