// The source-reading stage of `hpfrt lower`: Fortran source in fixed or free form, with its INCLUDE
// lines expanded, as logical lines (continuations joined) that remember the file and line they come
// from, and the free-form text that reproduces each of them in the lowered program.
//
// What it reads (Fortran 2018 section 6.3, HPF 2.0 section 1.6 for the directive lines):
//   - free form: `&` continuation (a leading `&` on the continued line joins without a blank), `!`
//     comments, labels as a statement's first token;
//   - fixed form: columns 1-72 (73 and beyond are ignored), `C`, `c`, `*` or `!` in column 1 and
//     blank lines are comments, a `!` elsewhere (not in column 6) starts a comment, a non-blank,
//     non-zero column 6 continues the previous statement, columns 1-5 hold the label, a tab in
//     columns 1-6 starts the statement (a digit 1-9 after it marks a continuation);
//   - HPF directive lines: `!HPF$` as the first non-blank of a free-form line; `!HPF$`, `CHPF$`,
//     `cHPF$` or `*HPF$` in columns 1-5 of a fixed-form line (column 6 non-blank and non-zero: a
//     continuation of the previous directive line); in free form a directive ending in `&` continues
//     on the next `!HPF$` line;
//   - INCLUDE 'file' (or "file"): the file is read relative to the including file's directory and its
//     lines take the place of the INCLUDE line, with their own file and line numbers.
//
// Fixed-form source is converted to free form: comments become `!` comments, continuations become
// `&`, labels stay in front of their statements. The lowered program is always free form.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hpf {

enum class SourceForm { Free, Fixed };

/// The form a file name implies: .f, .F, .for, .FOR, .f77, .F77, .ftn, .FTN are fixed form, anything
/// else (.f90, .F90, .f95, ...) free form.
SourceForm source_form_of(const std::string& file);

/// Reads the file at `path` (as the reader gives it: the including file's directory joined with the
/// INCLUDE name); nullopt when it cannot be read.
using IncludeReader = std::function<std::optional<std::string>(const std::string& path)>;

/// Where a logical line starts: its file (the input or an INCLUDE file) and line.
struct SourceOrigin {
  std::string file;
  int line = 0;
  bool included = false; // from an INCLUDE file, not the input itself
};

/// One logical line: a statement with its continuations, a directive, or a comment or blank line.
struct SourceLine {
  /// What the lowering reads: free form, continuations joined, trailing comment and label removed;
  /// a directive reads "!HPF$ " followed by its text; "" for comment and blank lines.
  std::string text;
  std::string label;                 // the statement label ("" when none)
  int origin = 0;                    // 1 + index into ReadSource::origins
  std::vector<std::string> physical; // free-form lines that reproduce it (comments included)
  bool directive = false;
};

struct ReadSource {
  std::vector<SourceLine> lines;
  std::vector<SourceOrigin> origins;
};

/// Reads `source` (the contents of `file`) in the form given. INCLUDE lines are expanded through
/// `include` (none: an INCLUDE line is an error). Throws hpf::Error "file:line: ..." on a malformed
/// line (a label in a continuation line, a continuation with nothing to continue, an INCLUDE file that
/// cannot be read or includes itself).
ReadSource read_fortran_source(const std::string& source, const std::string& file, SourceForm form,
                               const IncludeReader& include = {});

} // namespace hpf
