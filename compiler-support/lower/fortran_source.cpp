// Reading Fortran source for `hpfrt lower` (see fortran_source.hpp): fixed and free form, HPF directive
// lines, INCLUDE files. Linear in the input: every physical line is looked at once.
#include "fortran_source.hpp"

#include <hpf/core/error.hpp>
#include <hpf/core/text.hpp>

#include <algorithm>
#include <cctype>
#include <string_view>

namespace hpf {

namespace {

/// Longest logical line accepted (the lowering's limit, checked here while lines are joined).
constexpr std::size_t max_statement = std::size_t{1} << 20;
/// INCLUDE files nested deeper than this are taken for a file that includes itself.
constexpr int max_include_depth = 16;
/// Fixed form: the statement field is columns 7-72.
constexpr std::size_t fixed_text_columns = 66;

std::string lower_case(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string rtrim(const std::string& s) {
  std::size_t n = s.size();
  while (n > 0 && is_blank(s[n - 1])) --n;
  return s.substr(0, n);
}

std::string trim(const std::string& s) {
  std::size_t b = 0;
  while (b < s.size() && is_blank(s[b])) ++b;
  return rtrim(s.substr(b));
}

/// Where a `!` comment starts in `s` (npos: none), given the quote open at its start (0: none);
/// `quote` receives the quote still open where the code ends.
std::size_t comment_start(const std::string& s, char& quote) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote != 0) {
      if (c == quote) quote = 0; // a doubled quote closes and reopens: the same state after both
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '!') {
      return i;
    }
  }
  return std::string::npos;
}

/// "!HPF$" (any case) at `at`.
bool hpf_sentinel_at(const std::string& s, std::size_t at) {
  return s.size() >= at + 5 && lower_case(s.substr(at, 5)) == "!hpf$";
}

/// The file name of `INCLUDE 'name'` when the statement `t` is one, else nullopt.
std::optional<std::string> include_name(const std::string& t) {
  const std::string l = lower_case(t);
  if (l.rfind("include", 0) != 0) return std::nullopt;
  std::size_t i = 7;
  while (i < t.size() && is_blank(t[i])) ++i;
  if (i >= t.size() || (t[i] != '\'' && t[i] != '"')) return std::nullopt;
  const char q = t[i];
  const std::size_t close = t.find(q, i + 1);
  if (close == std::string::npos || !trim(t.substr(close + 1)).empty()) return std::nullopt;
  return t.substr(i + 1, close - i - 1);
}

/// A physical line of a fixed-form statement or directive, kept in parts until the statement is
/// complete (only then is it known whether a continuation follows).
struct FixedPart {
  std::string code;    // columns 7-72 without the trailing comment
  std::string comment; // "! ..." or ""
  bool is_comment_line = false;
};

class Reader {
public:
  explicit Reader(const IncludeReader& include) : m_include(include) {}

  void read(const std::string& source, const std::string& file, SourceForm form, bool included, int depth) {
    std::vector<std::string> raw;
    std::size_t start = 0;
    while (start < source.size()) {
      std::size_t end = source.find('\n', start);
      if (end == std::string::npos) end = source.size();
      std::string line = source.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      raw.push_back(std::move(line));
      start = end + 1;
    }
    if (form == SourceForm::Free) {
      free_form(raw, file, included, depth);
    } else {
      fixed_form(raw, file, included, depth);
    }
  }

  ReadSource out;

private:
  int origin(const std::string& file, int line, bool included) {
    out.origins.push_back(SourceOrigin{file, line, included});
    return static_cast<int>(out.origins.size());
  }

  [[noreturn]] static void fail_at(const std::string& file, int line, const std::string& what) {
    detail::fail(file, ":", line, ": ", what);
  }

  void check_length(const SourceLine& l) const {
    if (l.text.size() > max_statement) {
      const SourceOrigin& o = out.origins[static_cast<std::size_t>(l.origin - 1)];
      fail_at(o.file, o.line,
              "statement of " + std::to_string(l.text.size()) + " characters; at most " +
                  std::to_string(max_statement) + " are accepted");
    }
  }

  void comment_line(const std::string& physical, const std::string& file, int line, bool included) {
    SourceLine c;
    c.origin = origin(file, line, included);
    c.physical.push_back(physical);
    out.lines.push_back(std::move(c));
  }

  /// Keeps a complete logical line, or expands it when it is an INCLUDE line.
  void finish(SourceLine l, const std::string& file, SourceForm form, int depth) {
    check_length(l);
    if (!l.directive) {
      const auto name = include_name(l.text);
      if (name && l.label.empty()) {
        const SourceOrigin at = out.origins[static_cast<std::size_t>(l.origin - 1)];
        if (!m_include)
          fail_at(at.file, at.line, "INCLUDE '" + *name + "': this reader reads no INCLUDE files");
        if (depth >= max_include_depth)
          fail_at(at.file, at.line,
                  "INCLUDE '" + *name + "' nested " + std::to_string(depth + 1) +
                      " deep (does an INCLUDE file include itself?)");
        const auto slash = file.find_last_of('/');
        const std::string path = !name->empty() && name->front() == '/' ? *name
                                 : slash == std::string::npos           ? *name
                                                                        : file.substr(0, slash + 1) + *name;
        const auto text = m_include(path);
        if (!text) fail_at(at.file, at.line, "INCLUDE '" + *name + "': cannot read '" + path + "'");
        SourceLine mark;
        mark.origin = l.origin;
        mark.physical.push_back("! " + trim(l.text) + "   (its lines follow, inlined by hpfrt lower)");
        out.lines.push_back(std::move(mark));
        read(*text, path, form, true, depth + 1);
        return;
      }
    }
    out.lines.push_back(std::move(l));
  }

  /// Free form (Fortran 2018 section 6.3.2; HPF 2.0 section 1.6 for "!HPF$" lines).
  void free_form(const std::vector<std::string>& raw, const std::string& file, bool included, int depth) {
    SourceLine cur;
    bool open = false;
    char quote = 0;
    for (std::size_t k = 0; k < raw.size(); ++k) {
      const int no = static_cast<int>(k) + 1;
      const std::string t = trim(raw[k]);
      const bool directive = hpf_sentinel_at(t, 0);
      std::string body;
      if (!open) {
        if (t.empty() || (t.front() == '!' && !directive)) {
          comment_line(raw[k], file, no, included);
          continue;
        }
        cur = SourceLine{};
        cur.origin = origin(file, no, included);
        cur.directive = directive;
        cur.text = directive ? "!HPF$ " : "";
        body = directive ? trim(t.substr(5)) : t;
        quote = 0;
      } else {
        if (cur.directive) {
          if (!directive)
            fail_at(file, no,
                    "the !HPF$ directive continued on line " + std::to_string(no - 1) +
                        " continues on a line without !HPF$");
          body = trim(t.substr(5));
        } else {
          if (directive) fail_at(file, no, "an !HPF$ directive line inside a continued statement");
          if (t.empty() || t.front() == '!') { // a comment line between continuation lines
            cur.physical.push_back(raw[k]);
            continue;
          }
          body = t;
        }
        if (!body.empty() && body.front() == '&') {
          body = body.substr(1);
        } else if (quote == 0 && !cur.text.empty() && cur.text.back() != ' ') {
          cur.text += ' ';
        }
      }
      cur.physical.push_back(raw[k]);
      const std::size_t bang = comment_start(body, quote);
      std::string code = bang == std::string::npos ? body : body.substr(0, bang);
      if (quote == 0) code = rtrim(code);
      open = !code.empty() && code.back() == '&';
      if (open) code.pop_back();
      if (quote == 0) code = rtrim(code);
      cur.text += code;
      if (cur.text.size() > max_statement) check_length(cur);
      if (!open) {
        close_free(cur);
        finish(std::move(cur), file, SourceForm::Free, depth);
      }
    }
    if (open) {
      close_free(cur);
      finish(std::move(cur), file, SourceForm::Free, depth);
    }
  }

  /// A free-form statement's label is its first token when that is all digits.
  static void close_free(SourceLine& l) {
    l.text = trim(l.text);
    if (l.directive) return;
    std::size_t d = 0;
    while (d < l.text.size() && std::isdigit(static_cast<unsigned char>(l.text[d])) != 0) ++d;
    if (d > 0 && d <= 5 && d < l.text.size() && is_blank(l.text[d])) {
      l.label = l.text.substr(0, d);
      l.text = trim(l.text.substr(d));
    }
  }

  /// Fixed form (Fortran 2018 section 6.3.3; HPF 2.0 section 1.6: CHPF$, *HPF$ or !HPF$ in columns
  /// 1-5, column 6 non-blank and non-zero for a continuation of the directive).
  void fixed_form(const std::vector<std::string>& raw, const std::string& file, bool included, int depth) {
    SourceLine cur;
    std::vector<FixedPart> parts;
    std::vector<std::pair<std::string, int>> pending; // comment lines after the open statement
    bool open = false;
    char quote = 0;
    auto close = [&] {
      if (!open) return;
      open = false;
      // The statement is complete: its physical lines in free form. Every code line but the last
      // ends with '&'; a continuation line starts with '&', so a token or a character context goes on
      // exactly where the fixed-form text went on (columns 7-72 are concatenated).
      std::size_t last = 0;
      for (std::size_t i = 0; i < parts.size(); ++i)
        if (!parts[i].is_comment_line) last = i;
      bool first = true;
      for (std::size_t i = 0; i < parts.size(); ++i) {
        const FixedPart& p = parts[i];
        if (p.is_comment_line) {
          cur.physical.push_back(p.comment);
          continue;
        }
        std::string line;
        if (cur.directive) {
          line = "!HPF$ " + trim(p.code);
        } else if (first) {
          line = (cur.label.empty()
                      ? std::string(6, ' ')
                      : cur.label + std::string(cur.label.size() < 6 ? 6 - cur.label.size() : 1, ' ')) +
                 p.code;
        } else {
          line = "     &" + p.code;
        }
        first = false;
        if (i != last) line += cur.directive ? " &" : "&";
        if (!p.comment.empty()) line += " " + p.comment;
        cur.physical.push_back(rtrim(line));
      }
      cur.text = trim(cur.text);
      finish(std::move(cur), file, SourceForm::Fixed, depth);
      parts.clear();
      for (const auto& [c, no] : pending) comment_line(c, file, no, included);
      pending.clear();
    };
    for (std::size_t k = 0; k < raw.size(); ++k) {
      const int no = static_cast<int>(k) + 1;
      const std::string& r = raw[k];
      if (trim(r).empty()) {
        if (open) {
          pending.emplace_back("", no);
        } else {
          comment_line("", file, no, included);
        }
        continue;
      }
      const char c0 = r.front();
      const bool comment_mark = c0 == 'C' || c0 == 'c' || c0 == '*' || c0 == '!';
      const bool directive = comment_mark && r.size() >= 5 && lower_case(r.substr(1, 4)) == "hpf$";
      if (comment_mark && !directive) {
        const std::string text = "!" + rtrim(r.substr(1));
        if (open) {
          pending.emplace_back(text, no);
        } else {
          comment_line(text, file, no, included);
        }
        continue;
      }
      std::string label;
      bool continuation = false;
      std::string body;
      const std::size_t tab = r.find('\t');
      const std::size_t first = r.find_first_not_of(" \t");
      if (!directive && first != std::string::npos && r[first] == '!' && first != 5) {
        if (open) {
          pending.emplace_back(rtrim(r), no);
        } else {
          comment_line(rtrim(r), file, no, included);
        }
        continue;
      }
      if (directive) {
        const char col6 = r.size() > 5 ? r[5] : ' ';
        continuation = col6 != ' ' && col6 != '0';
        body = r.size() > 6 ? r.substr(6, fixed_text_columns) : "";
      } else if (tab != std::string::npos && tab < 6 &&
                 std::all_of(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(tab), [](char ch) {
                   return ch == ' ' || std::isdigit(static_cast<unsigned char>(ch));
                 })) {
        // Tab format (a common extension, gfortran's too): the tab stands for columns 1-6.
        label = trim(r.substr(0, tab));
        body = r.substr(tab + 1);
        if (!body.empty() && body.front() >= '1' && body.front() <= '9') {
          continuation = true;
          body = body.substr(1);
        }
        body = body.substr(0, fixed_text_columns);
      } else {
        label = trim(r.substr(0, std::min<std::size_t>(5, r.size())));
        const char col6 = r.size() > 5 ? r[5] : ' ';
        continuation = col6 != ' ' && col6 != '0';
        body = r.size() > 6 ? r.substr(6, fixed_text_columns) : "";
        if (!std::all_of(label.begin(), label.end(),
                         [](char ch) { return ch == ' ' || std::isdigit(static_cast<unsigned char>(ch)); }))
          fail_at(file, no,
                  "fixed form: columns 1-5 hold a statement label or blanks, got '" +
                      detail::printable(r.substr(0, 5), 20) +
                      "' (is the file free form? name it .f90 or pass --free)");
      }
      label.erase(std::remove(label.begin(), label.end(), ' '), label.end());
      if (continuation) {
        if (!open)
          fail_at(file, no, "fixed form: a continuation line (column 6) with no statement to continue");
        if (cur.directive != directive)
          fail_at(file, no,
                  directive ? "fixed form: an HPF directive line cannot continue a statement"
                            : "fixed form: a statement line cannot continue an HPF directive (its "
                              "continuation lines start with the sentinel too)");
        if (!label.empty()) fail_at(file, no, "fixed form: a continuation line has a label");
        for (const auto& [c, n] : pending) parts.push_back(FixedPart{"", c, true});
        pending.clear();
      } else {
        close();
        cur = SourceLine{};
        cur.origin = origin(file, no, included);
        cur.directive = directive;
        cur.label = label;
        cur.text = directive ? "!HPF$ " : "";
        quote = 0;
        open = true;
      }
      const char quote_before = quote;
      const std::size_t bang = comment_start(body, quote);
      FixedPart part;
      part.code = bang == std::string::npos ? body : body.substr(0, bang);
      part.comment = bang == std::string::npos ? "" : rtrim(body.substr(bang));
      // Inside a character context the line is padded to column 72: the blanks are characters.
      if (quote != 0 && bang == std::string::npos) part.code.resize(fixed_text_columns, ' ');
      if (quote == 0) part.code = rtrim(part.code);
      // Directive lines: blanks separate words, as in free form, so continuations join with a blank.
      if (directive && continuation && quote_before == 0) cur.text += ' ';
      cur.text += directive ? trim(part.code) : part.code;
      if (cur.text.size() > max_statement) check_length(cur);
      parts.push_back(std::move(part));
    }
    close();
    for (const auto& [c, no] : pending) comment_line(c, file, no, included);
  }

  const IncludeReader& m_include;
};

} // namespace

SourceForm source_form_of(const std::string& file) {
  const auto dot = file.find_last_of('.');
  const auto slash = file.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return SourceForm::Free;
  const std::string ext = lower_case(file.substr(dot + 1));
  return ext == "f" || ext == "for" || ext == "f77" || ext == "ftn" ? SourceForm::Fixed : SourceForm::Free;
}

ReadSource read_fortran_source(const std::string& source, const std::string& file, SourceForm form,
                               const IncludeReader& include) {
  Reader r(include);
  r.read(source, file, form, false, 0);
  return std::move(r.out);
}

} // namespace hpf
