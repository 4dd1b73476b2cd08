// Lowering of HPF directives to hpfrt calls (see hpf_lower.hpp for the accepted subset).
//
// Two passes over logical lines (continuations joined): the first collects PROCESSORS, DISTRIBUTE, SHADOW,
// DYNAMIC and the declarations of distributed arrays; the second copies the program, rewriting the
// declarations, inserting the set-up where the specification part ends, rewriting the statements
// that touch distributed arrays, and the clean-up before END PROGRAM. Generated names carry a double
// underscore (a__h, hpf__v), which HPF programs do not use.
//
// The execution part is read as a tree of constructs (DO, IF, SELECT CASE, WHERE, FORALL). A
// statement or DO nest an owner-computes lowering takes (FORALL, elementwise and masked array
// assignments, DO nests equivalent to FORALLs, sections, shifts, whole-array reductions) is
// lowered so; anything else runs on every rank over replicated copies of the distributed arrays it
// references (a__r: gathered before, written back after), the largest construct free of
// owner-computes statements as a whole. READ runs on rank 0 and broadcasts what it read; PRINT and
// WRITE run on rank 0.
//
// Scanning is linear and iterative: no std::regex, whose backtracking recursion
// overflowed the stack on long names, deep parentheses and 60 KB lines. Names longer than Fortran's
// 63 characters and statements longer than max_statement are rejected with the file and line.
#include "hpf_lower.hpp"

#include <hpf/core/error.hpp>
#include <hpf/core/text.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

namespace hpf {

namespace {

std::string lower_case(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_letter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/// Longest name Fortran allows (F2008 and later: 63 characters).
constexpr std::size_t max_name = 63;
/// Longest logical line (continuations joined) accepted: F2023 allows a million characters.
constexpr std::size_t max_statement = std::size_t{1} << 20;

/// `s` for an error message: non-printable bytes as \xNN, cut after 200 bytes.
std::string shown(const std::string& s) { return detail::printable(s, 200); }

/// A left-to-right reader over one statement: every method moves forward only, so every scan is
/// linear in the length of the statement. Keywords compare case-insensitively.
class Scanner {
public:
  explicit Scanner(std::string_view s, std::size_t pos = 0) : m_s(s), m_pos(pos) {}

  [[nodiscard]] std::size_t pos() const { return m_pos; }
  [[nodiscard]] bool done() const { return m_pos >= m_s.size(); }
  [[nodiscard]] char peek() const { return done() ? '\0' : m_s[m_pos]; }
  [[nodiscard]] std::string_view rest() const { return m_s.substr(std::min(m_pos, m_s.size())); }

  /// Skips blanks; returns how many.
  std::size_t skip_space() {
    const std::size_t start = m_pos;
    while (!done() && is_space(m_s[m_pos])) ++m_pos;
    return m_pos - start;
  }
  /// Consumes `c` if it is next.
  bool eat(char c) {
    if (peek() != c) return false;
    ++m_pos;
    return true;
  }
  /// Consumes `word` (lower case) if the input continues with it, in any case.
  bool keyword(std::string_view word) {
    if (m_s.size() - std::min(m_pos, m_s.size()) < word.size()) return false;
    for (std::size_t i = 0; i < word.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(m_s[m_pos + i])) != word[i]) return false;
    m_pos += word.size();
    return true;
  }
  /// As keyword(), but only when no name character follows (a whole word).
  bool word(std::string_view w) {
    const std::size_t start = m_pos;
    if (keyword(w) && !is_name_char(peek())) return true;
    m_pos = start;
    return false;
  }
  /// Consumes a Fortran name [A-Za-z][A-Za-z0-9_]* and returns it ("" when none starts here).
  std::string_view name() {
    if (!is_letter(peek())) return {};
    const std::size_t start = m_pos;
    while (!done() && is_name_char(m_s[m_pos])) ++m_pos;
    return m_s.substr(start, m_pos - start);
  }

private:
  std::string_view m_s;
  std::size_t m_pos;
};

/// The value of an optionally signed integer literal that is all of `s` (blanks around allowed), or
/// nullopt for anything else (an expression, a named constant, a literal too large for 64 bits).
std::optional<long long> integer_literal(std::string_view s) {
  Scanner sc(s);
  sc.skip_space();
  const bool negative = sc.eat('-');
  if (!negative) sc.eat('+');
  sc.skip_space();
  if (!std::isdigit(static_cast<unsigned char>(sc.peek()))) return std::nullopt;
  unsigned long long v = 0;
  while (std::isdigit(static_cast<unsigned char>(sc.peek()))) {
    const auto digit = static_cast<unsigned long long>(sc.peek() - '0');
    if (v > (9223372036854775807ULL - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
    sc.eat(sc.peek());
  }
  sc.skip_space();
  if (!sc.done()) return std::nullopt;
  return negative ? -static_cast<long long>(v) : static_cast<long long>(v);
}

/// Scans a type spec at `sc` (blanks before it skipped): DOUBLE PRECISION, REAL*4/8, INTEGER*4/8,
/// REAL[(...)], INTEGER[(...)]; returns false (and leaves `sc` anywhere) for other statements.
bool type_spec(Scanner& sc) {
  if (sc.keyword("double")) {
    return sc.skip_space() > 0 && (sc.keyword("precision") || sc.keyword("complex"));
  }
  if (!sc.keyword("real") && !sc.keyword("integer") && !sc.keyword("logical") && !sc.keyword("complex") &&
      !sc.keyword("character"))
    return false;
  Scanner star = sc;
  star.skip_space();
  if (star.eat('*')) {
    star.skip_space();
    if (std::isdigit(static_cast<unsigned char>(star.peek())) != 0) {
      while (std::isdigit(static_cast<unsigned char>(star.peek())) != 0) star.eat(star.peek());
      sc = star;
      return true;
    }
  }
  Scanner kind = sc;
  kind.skip_space();
  if (kind.eat('(')) {
    while (!kind.done() && kind.peek() != ')') kind.eat(kind.peek());
    if (kind.eat(')')) sc = kind;
  }
  return true;
}

/// A type declaration split into its parts: `type` the type spec as written, `attrs` the
/// attributes (",..." before "::", or ""), `colons` whether "::" is present, `entities` the rest.
struct Declaration {
  std::string type;
  std::string attrs;
  bool colons = false;
  std::string entities;
};

std::optional<Declaration> scan_declaration(const std::string& t) {
  Scanner sc(t);
  sc.skip_space();
  const std::size_t begin = sc.pos();
  if (!type_spec(sc)) return std::nullopt;
  Declaration d;
  d.type = t.substr(begin, sc.pos() - begin);
  Scanner sep = sc;
  sep.skip_space();
  const std::size_t attrs_begin = sep.pos();
  // The attributes end at "::" outside parentheses (DIMENSION(0:n, 0:n) holds single colons).
  if (sep.peek() == ',') {
    int depth = 0;
    while (!sep.done() && (depth > 0 || sep.rest().substr(0, 2) != "::")) {
      depth += sep.peek() == '(' ? 1 : sep.peek() == ')' ? -1 : 0;
      sep.eat(sep.peek());
    }
  }
  const std::size_t attrs_end = sep.pos();
  if (sep.keyword("::")) {
    d.attrs = t.substr(attrs_begin, attrs_end - attrs_begin);
    d.colons = true;
  } else if (sc.skip_space() > 0) {
    sep = sc;
  } else {
    return std::nullopt;
  }
  sep.skip_space();
  d.entities = std::string(sep.rest());
  return d;
}

/// `s` with every NUMBER_OF_PROCESSORS() (any case, blanks inside the parentheses) replaced by
/// hpf__size, outside string literals.
std::string replace_number_of_processors(const std::string& s);

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

/// `s` with the contents of string literals replaced by spaces (same length), so that searches
/// for names, commas and comment marks ignore them.
std::string mask_strings(const std::string& s) {
  std::string out = s;
  char quote = 0;
  for (char& c : out) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        c = ' ';
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    }
  }
  return out;
}

std::string replace_number_of_processors(const std::string& s) {
  static constexpr std::string_view nop = "number_of_processors";
  const std::string m = mask_strings(s);
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    Scanner sc(m, i);
    if ((i == 0 || !is_name_char(m[i - 1])) && sc.keyword(nop)) {
      sc.skip_space();
      if (sc.eat('(')) {
        sc.skip_space();
        if (sc.eat(')')) {
          out += "hpf__size";
          i = sc.pos();
          continue;
        }
      }
    }
    out += s[i++];
  }
  return out;
}

/// Splits at `sep` outside parentheses, brackets and strings.
std::vector<std::string> split_at(const std::string& s, char sep) {
  const std::string m = mask_strings(s);
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m[i] == '(' || m[i] == '[') ++depth;
    if (m[i] == ')' || m[i] == ']') --depth;
    if (m[i] == sep && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(trim(s.substr(start)));
  return out;
}

/// Splits at commas outside parentheses and strings.
std::vector<std::string> split_top(const std::string& s) { return split_at(s, ','); }
/// Splits a subscript at its colons: "1:n:2" -> {"1", "n", "2"}.
std::vector<std::string> split_colons(const std::string& s) { return split_at(s, ':'); }

/// Positions where `name` (lower case) occurs as a whole word in `s` outside strings.
std::vector<std::size_t> find_word(const std::string& s, const std::string& name) {
  const std::string m = lower_case(mask_strings(s));
  std::vector<std::size_t> at;
  for (std::size_t p = m.find(name); p != std::string::npos; p = m.find(name, p + 1)) {
    const bool left = p == 0 || !is_name_char(m[p - 1]);
    const bool right = p + name.size() >= m.size() || !is_name_char(m[p + name.size()]);
    if (left && right) at.push_back(p);
  }
  return at;
}

/// `s` with every whole-word `name` replaced by `by`: built left to right, linear in the length of `s`
/// (replacing in place from the back moved the tail once per occurrence: quadratic on long lines).
std::string replace_word(const std::string& s, const std::string& name, const std::string& by) {
  std::string out;
  std::size_t done = 0;
  for (const std::size_t at : find_word(s, name)) {
    out.append(s, done, at - done);
    out += by;
    done = at + name.size();
  }
  out.append(s, done, std::string::npos);
  return out;
}

/// The text inside the parentheses that open at s[open]; `end` receives the index after ')'.
std::string paren_group(const std::string& s, std::size_t open, std::size_t& end, const std::string& where) {
  const std::string m = mask_strings(s);
  int depth = 0;
  for (std::size_t i = open; i < m.size(); ++i) {
    if (m[i] == '(') ++depth;
    if (m[i] == ')' && --depth == 0) {
      end = i + 1;
      return s.substr(open + 1, i - open - 1);
    }
  }
  detail::fail(where, "unbalanced parentheses in '", shown(trim(s)), "'");
}

/// Breaks a generated statement into continuation lines of at most ~100 characters, at commas
/// outside string literals (free-form Fortran allows 132); with `at_blanks`, at blanks outside string
/// literals too (a blank separates tokens in free form, so a line may break there).
std::string wrap(const std::string& indent, const std::string& stmt, bool at_blanks = false) {
  const std::string m = mask_strings(stmt);
  std::string out;
  std::string cur = indent;
  std::size_t last = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m[i] != ',' && !(at_blanks && m[i] == ' ') && i + 1 != m.size()) continue;
    std::string piece = stmt.substr(last, i + 1 - last);
    last = i + 1;
    if (cur.size() + piece.size() > 100 && cur.size() > indent.size() + 4) {
      out += cur.substr(0, cur.find_last_not_of(' ') + 1) + " &\n";
      cur = indent + "    ";
      piece = piece.substr(std::min(piece.find_first_not_of(' '), piece.size()));
    }
    cur += piece;
  }
  return out + cur + "\n";
}

/// Element types of distributed arrays. LOGICAL (default kind, 4 bytes with gfortran and every
/// compiler whose default INTEGER is 4 bytes: F2018 19.5.3.2 gives both one numeric storage unit) is
/// carried as a 4-byte element (HPF_INT32): fills, copies, shifts and sections move its bytes.
enum class Elem { R8, R4, I4, I8, L4, C8, C4 };
constexpr Elem all_elems[] = {Elem::R8, Elem::R4, Elem::I4, Elem::I8, Elem::L4, Elem::C8, Elem::C4};

struct ElemInfo {
  const char* hpf_type;
  const char* ftype;
  const char* tmp;
};

ElemInfo info(Elem e) {
  switch (e) {
  case Elem::R8:
    return {"HPF_FLOAT64", "real(c_double)", "hpf__t_r8"};
  case Elem::R4:
    return {"HPF_FLOAT32", "real(c_float)", "hpf__t_r4"};
  case Elem::I4:
    return {"HPF_INT32", "integer(c_int32_t)", "hpf__t_i4"};
  case Elem::I8:
    return {"HPF_INT64", "integer(c_int64_t)", "hpf__t_i8"};
  case Elem::L4:
    return {"HPF_INT32", "logical", "hpf__t_l4"};
  case Elem::C8:
    return {"HPF_COMPLEX128", "complex(c_double_complex)", "hpf__t_c8"};
  case Elem::C4:
    return {"HPF_COMPLEX64", "complex(c_float_complex)", "hpf__t_c4"};
  }
  return {"", "", ""};
}

/// `s` in lower case without blanks.
std::string squeezed(const std::string& s) {
  std::string t;
  for (char c : lower_case(s))
    if (c != ' ' && c != '\t') t += c;
  return t;
}

/// A kind value as elem_of knows it: the literal kinds 4 and 8 and the ISO_C_BINDING names as they
/// are, KIND(<real literal>) as 8 with a D exponent and 4 without. `value` is squeezed.
std::string known_kind(const std::string& value) {
  if (value.size() > 6 && value.rfind("kind(", 0) == 0 && value.back() == ')') {
    const std::string arg = value.substr(5, value.size() - 6);
    const bool real_literal = !arg.empty() &&
                              arg.find_first_not_of("0123456789.edq+-_") == std::string::npos &&
                              std::isdigit(static_cast<unsigned char>(arg.front())) != 0;
    if (real_literal) return arg.find('d') != std::string::npos ? "8" : "4";
  }
  return value;
}

/// Element type of a declaration's type spec, or nullopt for types the runtime does not hold.
/// `kinds` maps the program's named INTEGER constants to their values (squeezed), so that
/// COMPLEX(KIND=dp) with dp = KIND(1.0D0) is COMPLEX(8).
std::optional<Elem> elem_of(const std::string& type_spec,
                            const std::map<std::string, std::string>& kinds = {}) {
  std::string t = squeezed(type_spec);
  // type(name) or type(kind=name) with a named constant: its value in its place.
  if (const auto open = t.find('('); open != std::string::npos && t.back() == ')') {
    std::string arg = t.substr(open + 1, t.size() - open - 2);
    const std::string prefix = arg.rfind("kind=", 0) == 0 ? "kind=" : "";
    arg = arg.substr(prefix.size());
    if (const auto it = kinds.find(arg); it != kinds.end()) arg = it->second;
    t = t.substr(0, open + 1) + prefix + known_kind(arg) + ")";
  }
  if (t == "real(8)" || t == "real(kind=8)" || t == "real*8" || t == "doubleprecision" ||
      t == "real(c_double)" || t == "real(kind=c_double)")
    return Elem::R8;
  if (t == "real" || t == "real(4)" || t == "real(kind=4)" || t == "real*4" || t == "real(c_float)")
    return Elem::R4;
  if (t == "integer" || t == "integer(4)" || t == "integer(kind=4)" || t == "integer*4" ||
      t == "integer(c_int32_t)")
    return Elem::I4;
  if (t == "integer(8)" || t == "integer(kind=8)" || t == "integer*8" || t == "integer(c_int64_t)")
    return Elem::I8;
  if (t == "logical" || t == "logical(4)" || t == "logical(kind=4)" || t == "logical*4") return Elem::L4;
  if (t == "complex(8)" || t == "complex(kind=8)" || t == "complex*16" || t == "doublecomplex" ||
      t == "complex(c_double_complex)" || t == "complex(kind=c_double_complex)")
    return Elem::C8;
  if (t == "complex" || t == "complex(4)" || t == "complex(kind=4)" || t == "complex*8" ||
      t == "complex(c_float_complex)" || t == "complex(kind=c_float_complex)")
    return Elem::C4;
  return std::nullopt;
}

/// A statement that is wrong whatever runs it (CSHIFT without its SHIFT, a DIM out of range): it is
/// reported, never run on replicated copies instead (where the Fortran compiler would reject it).
class InvalidStatement : public Error {
public:
  using Error::Error;
};

struct Processors {
  std::string name;
  std::vector<std::string> shape; // Fortran expressions
  int line = 0;
};

/// The table of a GEN_BLOCK(sizes) or INDIRECT(map) distribution: the lowered program copies the
/// program's array `expr` into `name` (int64 block sizes, or int32 0-based owners) just before the
/// call that takes it, because hpf_gen_block / hpf_indirect reference the table and need its C kind.
struct DistTable {
  std::string name; // hpf__gb<line>_<dim> or hpf__ix<line>_<dim>
  std::string expr; // as written in the directive
  bool indirect = false;

  [[nodiscard]] std::string assignment() const {
    return indirect ? name + " = int((" + expr + ") - 1, c_int32_t)"
                    : name + " = int(" + expr + ", c_int64_t)";
  }
};

/// An ALIGN or REALIGN: `a(dummies) WITH base(subscripts)`.
struct AlignSpec {
  bool source_omitted = false;         // "ALIGN a WITH ...", "ALIGN WITH ... :: a": ':' in every dimension
  bool target_omitted = false;         // "... WITH t": ':' in every dimension of t
  std::vector<std::string> dummies;    // per aligned dimension: a name (lower case), or "*"
  std::string base;                    // a TEMPLATE or a distributed array
  std::vector<std::string> subscripts; // per base dimension: "*", or an expression (lower case)
  int line = 0;

  /// The base dimension whose subscript uses dummy j (-1: none, the dimension is held whole).
  [[nodiscard]] int base_dim_of(std::size_t j) const {
    if (dummies[j] == "*") return -1;
    for (std::size_t k = 0; k < subscripts.size(); ++k)
      if (!find_word(subscripts[k], dummies[j]).empty()) return static_cast<int>(k);
    return -1;
  }
  /// The dummy subscript k uses ("" for a constant or "*").
  [[nodiscard]] std::string dummy_of(std::size_t k) const {
    for (const auto& d : dummies)
      if (d != "*" && !find_word(subscripts[k], d).empty()) return d;
    return "";
  }
};

/// A !HPF$ TEMPLATE: an index space with a DISTRIBUTE and no storage (t__t, an hpf_template).
struct Template {
  std::string name;
  std::vector<std::pair<std::string, std::string>> bounds;
  std::vector<std::string> dists;
  std::vector<DistTable> tables;
  std::string onto;
  bool dynamic = false;
  int line = 0;
  int dist_line = 0;
};

struct DistArray {
  std::string name;
  std::string spelled; // as written in the declaration
  Elem elem = Elem::R8;
  std::vector<std::pair<std::string, std::string>> bounds; // (lower, upper) expressions
  std::vector<std::string> dists; // hpf_block() / hpf_cyclic(r) / hpf_collapsed() / hpf_gen_block(t) / ...
  std::vector<DistTable> tables;  // GEN_BLOCK and INDIRECT tables of the DISTRIBUTE
  std::string onto;               // processors name ("" = the default grid)
  bool dynamic = false;
  int dist_line = 0;
  int decl_line = 0;             // where its bounds are declared
  int type_line = 0;             // where its type is declared (0: implicitly typed)
  std::vector<long long> shadow; // !HPF$ SHADOW widths per dimension (empty: no SHADOW)
  int shadow_line = 0;
  AlignSpec align;      // its ALIGN, when align.line != 0 (then it has no DISTRIBUTE)
  bool is_base = false; // an ALIGN or REALIGN names it as the base (it keeps a__t, its layout)
  bool realigned = false;
  bool dummy = false; // a dummy argument of the lowered procedure
  std::string common; // the COMMON block it is in ("" for none; "hpf__blank" for blank COMMON)
  std::string module; // the MODULE that holds it, seen by USE ("" for the lowered unit's own)
  std::string intent; // its INTENT: "in", "out", "inout" or "" (none)

  [[nodiscard]] bool aligned() const { return align.line != 0; }
  [[nodiscard]] std::size_t rank() const { return aligned() ? align.dummies.size() : dists.size(); }

  [[nodiscard]] long long width(std::size_t d) const { return shadow.empty() ? 0 : shadow[d]; }
  [[nodiscard]] bool has_shadow() const {
    return std::any_of(shadow.begin(), shadow.end(), [](long long w) { return w > 0; });
  }
};

/// A pending !HPF$ SHADOW a(w1, ...): checked against the array once every directive is read.
struct ShadowSpec {
  std::string name;
  std::vector<long long> widths;
  int line = 0;
};

/// A logical line as the lowering reads it (fortran_source.hpp): `line` identifies its origin (a
/// file and a line, see Lowerer::loc) and is never 0.
struct LogicalLine {
  std::string text; // continuations joined, free form, without label and trailing comment
  int line = 0;     // origin id: 1 + index into the origins of the source read
  std::vector<std::string> physical;
  std::string label;
};

class Lowerer {
public:
  Lowerer(const std::string& source, std::string file, const LowerOptions& options)
      : m_file(std::move(file)) {
    ReadSource read =
        read_fortran_source(source, m_file, options.form.value_or(source_form_of(m_file)), options.include);
    m_origins = std::move(read.origins);
    for (auto& l : read.lines)
      finish_line(LogicalLine{std::move(l.text), l.origin, std::move(l.physical), std::move(l.label)});
  }

  std::string run() {
    if (m_focus == std::string::npos) lower_modules();
    collect();
    // Each external procedure that may communicate is lowered by a Lowerer of its own (its
    // directives, its arrays, its implicit typing), whose text takes the procedure's place. The
    // functions that communicate (they map data or READ) are known to every unit before it is
    // emitted: one called where not every rank runs the call would wait for ever.
    std::vector<std::unique_ptr<Lowerer>> procedures;
    for (const std::size_t p : m_procedures) {
      procedures.emplace_back(new Lowerer(*this, p));
      procedures.back()->collect();
      if (unit_header(m_lines[p].text) == "FUNCTION" && procedures.back()->communicates())
        m_collective.insert(unit_name(m_lines[p].text));
    }
    for (auto& l : procedures)
      if (unit_header(m_lines[l->m_focus].text) == "SUBROUTINE" &&
          std::any_of(l->m_arrays.begin(), l->m_arrays.end(), [](const auto& e) { return e.second.dummy; })) {
        std::vector<bool> takes;
        for (const auto& d : l->m_dummies) takes.push_back(l->m_arrays.count(d) != 0);
        m_handle_dummies[unit_name(m_lines[l->m_focus].text)] = takes;
      }
    for (auto& l : procedures) {
      l->m_collective = m_collective;
      l->m_handle_dummies = m_handle_dummies;
      m_procedure_text[l->m_focus] = l->emit();
    }
    return emit();
  }

private:
  /// The Lowerer of the external procedure whose SUBROUTINE or FUNCTION statement is line `focus`.
  Lowerer(const Lowerer& file, std::size_t focus)
      : m_file(file.m_file), m_focus(focus), m_origins(file.m_origins), m_lines(file.m_lines) {
    for (const auto& [n, a] : file.m_arrays)
      if (!a.common.empty()) m_main_common.emplace(n, a);
    m_module = unit_header(m_lines[focus].text) == "MODULE";
    m_module_arrays = file.m_module_arrays;
  }

  /// Lowers the modules that map data (directives in their specification part), before any unit that
  /// uses them: each holds its arrays' handles, local blocks and replicated copies as public module
  /// variables, created by hpf__init_<module> and released by hpf__free_<module>, which the main
  /// program calls after hpf_init and before hpf_finalize.
  void lower_modules() {
    scan_units();
    for (const auto& [first, end] : m_unit_ends) {
      if (unit_header(m_lines[first].text) != "MODULE") continue;
      bool maps = false;
      for (std::size_t j = first + 1; j < end; ++j)
        maps = maps || (is_directive(m_lines[j]) && m_scope[j] == m_scope[first] &&
                        directive_keyword(m_lines[j]) != "independent");
      if (!maps) continue;
      Lowerer ml(*this, first);
      m_procedure_text[first] = ml.run();
      const std::string name = unit_name(m_lines[first].text);
      for (const auto& n : ml.m_array_order) {
        DistArray a = ml.m_arrays.at(n);
        if (a.aligned() || a.dynamic || a.is_base || !ml.m_template_order.empty())
          fail_at(
              a.aligned() ? a.align.line : a.dist_line,
              "'" + n + "' of MODULE " + name +
                  " is aligned, DYNAMIC or an alignment base: a distributed module array is lowered with a "
                  "DISTRIBUTE only");
        a.module = name;
        m_module_arrays[name].push_back(a);
      }
      m_lowered_modules.push_back(name);
    }
  }

  /// The module through which a CALL passes the handles (and extents) of whole distributed actuals
  /// to the distributed dummies of a lowered subroutine; the callee takes them on entry.
  std::string calls_module() const {
    if (m_handle_dummies.empty()) return "";
    std::size_t most = 0;
    for (const auto& [n, takes] : m_handle_dummies) most = std::max(most, takes.size());
    const std::string k = std::to_string(most);
    return "module hpf__calls\n  use, intrinsic :: iso_c_binding\n  implicit none\n  type(c_ptr) :: "
           "hpf__arg(" +
           k + ") = c_null_ptr\n  integer(c_int64_t) :: hpf__arg_ext(4, " + k + ")\nend module hpf__calls\n";
  }

  /// `CALL s(a, ...)` of a lowered subroutine whose distributed actuals are all whole arrays at its
  /// distributed dummies: each actual's handle and extents go through hpf__calls, so that the callee
  /// moves the data from layout to layout (hpf_array_assign_section) instead of the caller gathering
  /// it; the replicated copy a__r is allocated (not filled) for the dummy to be associated with.
  /// nullopt when the call does not qualify (it then runs on replicated copies).
  std::optional<std::string> lower_call(const LogicalLine& l, const std::string& t) const {
    const std::string lt = lower_case(t); // the Scanner views it
    Scanner sc(lt);
    if (!sc.word("call") || !l.label.empty()) return std::nullopt;
    sc.skip_space();
    const std::string name(sc.name());
    const auto it = m_handle_dummies.find(name);
    sc.skip_space();
    if (it == m_handle_dummies.end() || sc.peek() != '(') return std::nullopt;
    std::size_t end = 0;
    const auto args = split_top(paren_group(t, sc.pos(), end, where(l.line)));
    if (!trim(t.substr(end)).empty() || args.size() != it->second.size()) return std::nullopt;
    std::string s =
        "  ! " + trim(t) + "   (line " + loc(l.line) + ": distributed actuals passed by handle)\n";
    for (std::size_t k = 0; k < args.size(); ++k) {
      const auto refs = references(args[k]);
      if (refs.empty()) continue;
      const std::string a = lower_case(trim(args[k]));
      if (!it->second[k] || refs.size() != 1 || a != refs[0]) return std::nullopt;
      const DistArray& arr = m_arrays.at(a);
      const std::string pos = std::to_string(k + 1);
      std::string ext = extents_of(arr.bounds);
      for (std::size_t d = arr.bounds.size(); d < 4; ++d) ext += ", 1_c_int64_t";
      s += "  hpf__arg(" + pos + ") = " + a + "__h\n" +
           wrap("  ", "hpf__arg_ext(:, " + pos + ") = [" + ext + "]") + allocate_copy(arr, "  ");
    }
    std::string call = "call " + trim(t.substr(t.find_first_not_of(" \t") + 4));
    for (const auto& a : references(t)) call = replace_word(call, a, a + "__r");
    return s + wrap("  ", call);
  }

  /// Whether the lowered procedure communicates: it maps data (creates arrays or grids, gathers,
  /// stores) or READs (a broadcast).
  [[nodiscard]] bool communicates() const {
    if (!m_array_order.empty() || m_default_grid || !m_proc_order.empty()) return true;
    for (std::size_t i = m_program_line; i <= m_end_line; ++i)
      if (const std::string t = trim(m_lines[i].text);
          !is_directive(m_lines[i]) && !t.empty() && t.front() != '!') {
        const auto g = after_group(t, "if", m_lines[i].line);
        if (is_input(t) || (g && is_input(g->first))) return true;
      }
    return false;
  }

  /// The first function of m_collective that `text` references ("" when none).
  [[nodiscard]] std::string collective_call(const std::string& text) const {
    for (const auto& f : m_collective)
      if (!find_word(text, f).empty()) return f;
    return "";
  }

  /// Stops when an output statement, which runs on rank 0 only, calls a function that communicates.
  void check_rank0_call(const LogicalLine& l, const std::string& t) const {
    if (const std::string f = collective_call(t); !f.empty())
      fail_at(l.line,
              "'" + shown(trim(l.text)) + "' runs on rank 0 only (it prints) and calls FUNCTION " + f +
                  ", which communicates (it maps data or reads) and must run on every rank: assign its "
                  "value to a variable first");
  }

  /// USE m [, ONLY: ...] of a lowered module m: its distributed arrays (those the ONLY list names)
  /// are distributed arrays of this unit too, with the module's mapping.
  void parse_use(std::size_t i) {
    const LogicalLine& l = m_lines[i];
    if (is_directive(l)) return;
    const std::string lt = lower_case(trim(l.text));
    Scanner sc(lt);
    if (!sc.word("use")) return;
    sc.skip_space();
    if (sc.eat(':')) {
      sc.eat(':');
      sc.skip_space();
    }
    const std::string name(sc.name());
    const auto it = m_module_arrays.find(name);
    if (it == m_module_arrays.end()) return;
    sc.skip_space();
    std::optional<std::set<std::string>> only;
    if (sc.eat(',')) {
      sc.skip_space();
      std::string list(sc.rest());
      if (Scanner on(list); on.word("only") && (on.skip_space(), on.eat(':'))) {
        only.emplace();
        list = std::string(on.rest());
        m_use_rewrites.insert(i);
      }
      for (const auto& item : split_top(list)) {
        const auto arrow = item.find("=>");
        const std::string used = trim(arrow == std::string::npos ? item : item.substr(arrow + 2));
        const bool mapped = std::any_of(it->second.begin(), it->second.end(),
                                        [&](const DistArray& a) { return a.name == used; });
        if (arrow != std::string::npos && mapped)
          fail_at(l.line, "USE " + name + ": '" + shown(trim(item)) + "' renames the distributed array '" +
                              used + "', which is not lowered (use it by its name)");
        if (only) only->insert(used);
      }
    }
    for (const DistArray& a : it->second) {
      if ((only && only->count(a.name) == 0) || m_arrays.count(a.name) != 0) continue;
      m_arrays.emplace(a.name, a);
      m_array_order.push_back(a.name);
    }
  }

  /// A USE ..., ONLY: list of a lowered module with each distributed array in the list replaced by
  /// the module variables that stand for it.
  std::string use_only_rewritten(const LogicalLine& l) const {
    const std::string t = trim(l.text);
    const auto colon = mask_strings(t).find(':', lower_case(t).find("only"));
    std::string list;
    for (const auto& item : split_top(t.substr(colon + 1))) {
      const std::string n = lower_case(trim(item));
      const auto it = m_arrays.find(n);
      list += std::string(list.empty() ? " " : ", ") +
              (it != m_arrays.end() && !it->second.module.empty()
                   ? n + "__h, " + n + "__l, " + n + "__n, " + n + "__e, " + n + "__r, " + n + "__p, " + n +
                         "__q, " + n + "__u"
                   : trim(item));
    }
    return wrap("  ", t.substr(0, colon + 1) + list);
  }

  /// The end of a lowered module's specification part: the module variables of its arrays (public)
  /// and of the lowering (private), then CONTAINS with hpf__init_<m> and hpf__free_<m>.
  std::string module_tail(const std::string& ind) const {
    const std::string name = unit_name(m_lines[m_focus].text);
    const std::string decls = declarations(ind);
    std::vector<std::string> shown_names;
    std::vector<std::string> hidden;
    std::istringstream lines(decls);
    for (std::string line; std::getline(lines, line);) {
      const auto colons = line.find("::");
      if (colons == std::string::npos) continue;
      for (const auto& e : split_top(line.substr(colons + 2))) {
        Scanner es(e);
        const std::string v(es.name());
        const bool array_var =
            std::any_of(m_array_order.begin(), m_array_order.end(), [&](const std::string& n) {
              return v.size() == n.size() + 3 && v.compare(0, n.size() + 2, n + "__") == 0 &&
                     std::string("hlnerpqu").find(v.back()) != std::string::npos;
            });
        (array_var ? shown_names : hidden).push_back(v);
      }
    }
    shown_names.push_back("hpf__init_" + name);
    shown_names.push_back("hpf__free_" + name);
    std::string s =
        decls + wrap(ind, "private :: " + joined(hidden)) + wrap(ind, "public :: " + joined(shown_names));
    s += "contains\n";
    s += ind + "subroutine hpf__init_" + name + "()\n" + setup(ind + "  ") + ind +
         "end subroutine hpf__init_" + name + "\n";
    s += ind + "subroutine hpf__free_" + name + "()\n" + cleanup(ind + "  ") + ind +
         "end subroutine hpf__free_" + name + "\n";
    return s;
  }

  /// "file:line: " of an origin id.
  [[nodiscard]] std::string where(int id) const {
    const SourceOrigin& o = m_origins.at(static_cast<std::size_t>(id - 1));
    return o.file + ":" + std::to_string(o.line) + ": ";
  }
  /// The line of an origin id as messages and the lowered program's own messages name it: "12", or
  /// "3 of defs.inc" for a line of an INCLUDE file (quotes dropped: it goes into Fortran strings).
  [[nodiscard]] std::string loc(int id) const {
    const SourceOrigin& o = m_origins.at(static_cast<std::size_t>(id - 1));
    if (!o.included) return std::to_string(o.line);
    std::string f =
        o.file.substr(o.file.find_last_of('/') == std::string::npos ? 0 : o.file.find_last_of('/') + 1);
    f.erase(std::remove_if(f.begin(), f.end(), [](char c) { return c == '\'' || c == '"'; }), f.end());
    return std::to_string(o.line) + " of " + f;
  }

  [[noreturn]] void fail_at(int line, const std::string& what) const {
    if (line <= 0) detail::fail(m_file, ": ", what);
    detail::fail(where(line), what);
  }

  /// Checks the length of every name in the statement (outside strings), then keeps it.
  void finish_line(const LogicalLine& l) {
    const std::string m = mask_strings(l.text);
    std::size_t run = 0;
    for (std::size_t i = 0; i <= m.size(); ++i) {
      if (i < m.size() && is_name_char(m[i]) && (run > 0 || is_letter(m[i]))) {
        ++run;
        continue;
      }
      if (run > max_name)
        fail_at(l.line, "a name of " + std::to_string(run) + " characters ('" + shown(m.substr(i - run, 20)) +
                            "...'); Fortran names have at most " + std::to_string(max_name));
      run = 0;
    }
    m_lines.push_back(l);
  }

  static bool is_directive(const LogicalLine& l) { return lower_case(l.text).rfind("!hpf$", 0) == 0; }
  static std::string directive_body(const LogicalLine& l) { return trim(l.text.substr(5)); }

  /// Parses "a(dist, ...) [ONTO p]" or "(dist, ...) [ONTO p] :: a, b" into (names, dists, onto), and
  /// the tables of its GEN_BLOCK and INDIRECT distributions into `tables`.
  void parse_dist_spec(const std::string& body, int line, std::vector<std::string>& names,
                       std::vector<std::string>& dists, std::string& onto,
                       std::vector<DistTable>& tables) const {
    std::string spec = body;
    const auto colons = spec.find("::");
    std::string list;
    if (colons != std::string::npos) {
      for (const auto& n : split_top(spec.substr(colons + 2))) names.push_back(lower_case(n));
      spec = trim(spec.substr(0, colons));
    }
    // HPF 2.0 H305: the attribute form may give ONTO alone ("DISTRIBUTE ONTO p :: a"); the
    // distributions are then chosen once the rank of a is known (collect, lower_redistribute).
    const std::string lspec = lower_case(spec); // the Scanner views it: it must outlive the scan
    if (Scanner oo(lspec); colons != std::string::npos && oo.word("onto")) {
      oo.skip_space();
      onto = std::string(oo.name());
      if (onto.empty() || !oo.done())
        fail_at(line, "expected 'ONTO processors :: a, ...', got '" + shown(body) + "'");
      return;
    }
    const auto open = spec.find('(');
    if (open == std::string::npos)
      fail_at(line, "expected a distribution list '(BLOCK, CYCLIC(r), *)' in '" + body + "'");
    if (trim(spec.substr(0, open)).find('*') != std::string::npos)
      fail_at(line, "'" + shown(body) +
                        "': a descriptive or transcriptive distribution ('*' before the format) is for dummy "
                        "arguments, which are not lowered yet");
    if (colons == std::string::npos) {
      const std::string n = lower_case(trim(spec.substr(0, open)));
      if (n.empty()) fail_at(line, "no array named in '" + body + "'");
      names.push_back(n);
    } else if (!trim(spec.substr(0, open)).empty()) {
      fail_at(line, "write either 'a(dists)' or '(dists) :: a, b', not both, in '" + body + "'");
    }
    std::size_t end = 0;
    const std::string group = paren_group(spec, open, end, where(line));
    for (const auto& d : split_top(group)) {
      const std::string ld = lower_case(d);
      Scanner sc(ld);
      if (ld == "block") {
        dists.emplace_back("hpf_block()");
      } else if (ld == "*") {
        dists.emplace_back("hpf_collapsed()");
      } else if (ld == "cyclic") {
        dists.emplace_back("hpf_cyclic(1)");
      } else if (Scanner bk(ld); bk.keyword("block") && (bk.skip_space(), bk.eat('(')) && ld.back() == ')') {
        // HPF 2.0 section 3.3: BLOCK(m) is blocks of m, at most one per processor (m * P must cover the
        // extent), which is CYCLIC(m); on fewer ranks than the program's literal PROCESSORS shape it
        // wraps around as CYCLIC(m) does, a valid layout either way.
        const std::string m = d.substr(bk.pos(), d.size() - 1 - bk.pos());
        if (const auto v = integer_literal(m); v && (*v < 1 || *v > 2147483647))
          fail_at(line, "BLOCK(" + trim(m) + "): the block size must be in [1, 2147483647], got " +
                            std::to_string(*v));
        dists.push_back("hpf_cyclic(int(" + m + "))");
      } else if (sc.keyword("cyclic") && (sc.skip_space(), sc.eat('(')) && ld.size() > sc.pos() + 1 &&
                 ld.back() == ')') {
        const std::string r = d.substr(sc.pos(), d.size() - 1 - sc.pos());
        // A literal block size is checked now, with the line; an expression at run time.
        if (const auto v = integer_literal(r); v && (*v < 1 || *v > 2147483647))
          fail_at(line, "CYCLIC(" + trim(r) + "): the block size must be in [1, 2147483647], got " +
                            std::to_string(*v));
        dists.push_back("hpf_cyclic(int(" + r + "))");
      } else if (const std::size_t from = table_open(ld); from != 0) {
        const bool indirect = ld.front() == 'i';
        const std::string expr = trim(d.substr(from, d.size() - 1 - from));
        const char* kind = indirect ? "INDIRECT" : "GEN_BLOCK";
        if (expr.empty() || integer_literal(expr))
          fail_at(line, std::string(kind) + "(" + shown(expr) + "): expected an integer array (" +
                            (indirect ? "the processor index, from 1, of every index of the dimension"
                                      : "one block size per processor of the dimension") +
                            ")");
        DistTable t{std::string(indirect ? "hpf__ix" : "hpf__gb") + std::to_string(line) + "_" +
                        std::to_string(dists.size() + 1),
                    expr, indirect};
        dists.push_back(std::string(indirect ? "hpf_indirect(" : "hpf_gen_block(") + t.name + ")");
        tables.push_back(std::move(t));
      } else {
        fail_at(line, "distribution '" + shown(d) +
                          "' is not BLOCK, CYCLIC, CYCLIC(r), GEN_BLOCK(sizes), INDIRECT(map) or *");
      }
    }
    if (dists.size() > 4)
      fail_at(line, std::to_string(dists.size()) +
                        " distributions: hpfrt arrays have 1 to 4 dimensions (rank 1 to 4)");
    const std::string rest = lower_case(trim(spec.substr(end)));
    if (!rest.empty()) {
      Scanner sc(rest);
      std::string_view p;
      if (!sc.keyword("onto") || sc.skip_space() == 0 || (p = sc.name()).empty() || !sc.done())
        fail_at(line, "expected 'ONTO processors' after the distribution list, got '" + shown(rest) + "'");
      onto = std::string(p);
    }
  }

  /// The position after "GEN_BLOCK(" or "INDIRECT(" when the lower-cased distribution `ld` is one
  /// of them and ends with ')', else 0.
  static std::size_t table_open(const std::string& ld) {
    for (const std::string_view kw : {std::string_view("gen_block"), std::string_view("indirect")}) {
      Scanner sc(ld);
      if (sc.keyword(kw) && (sc.skip_space(), sc.eat('(')) && ld.back() == ')') return sc.pos();
    }
    return 0;
  }

  DistArray& array_named(const std::string& n, int line, const char* what) {
    auto it = m_arrays.find(n);
    if (it == m_arrays.end()) fail_at(line, std::string(what) + ": '" + n + "' is not a distributed array");
    return it->second;
  }

  void collect() {
    scan_units();
    if (m_focus != std::string::npos) m_dummies = dummy_arguments(m_lines[m_focus]);
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
      const LogicalLine& l = m_lines[i];
      if (!is_directive(l)) continue;
      // Another Lowerer takes the directives of the external procedures, and of the main program
      // when this one lowers a procedure.
      if (m_focus != std::string::npos && (i < m_program_line || i > m_end_line)) continue;
      if (m_focus == std::string::npos &&
          m_procedure_text.count(unit_of(i)) + m_procedures.count(unit_of(i)) != 0)
        continue;
      const std::string keyword = directive_keyword(l);
      if (!is_hpf_keyword(keyword))
        fail_at(l.line, "unknown HPF directive '" +
                            shown(keyword.empty() ? directive_body(l)
                                                  : std::string(Scanner(directive_body(l)).name())) +
                            "' (HPF 2.0 directives: PROCESSORS, TEMPLATE, DISTRIBUTE, ALIGN, DYNAMIC, "
                            "REDISTRIBUTE, REALIGN, INHERIT, INDEPENDENT, SEQUENCE, NO SEQUENCE, SHADOW, ON, "
                            "RESIDENT, TASK_REGION, RANGE)");
      if (!m_scope[i].empty()) {
        // HPF 2.0 section 4.4: INDEPENDENT asserts, it maps nothing, so it stays a comment anywhere.
        if (keyword == "independent") continue;
        fail_at(l.line, "distributed data in " + m_scope[i] + " is not lowered ('!HPF$ " +
                            shown(directive_body(l)) +
                            "'): hpfrt lower maps data of the main program and of external SUBROUTINEs and "
                            "FUNCTIONs that are not PURE or ELEMENTAL");
      }
      if (i < m_program_line)
        fail_at(l.line,
                "an HPF directive before the main program ('!HPF$ " + shown(directive_body(l)) + "')");
      for (const auto& body : expand_combined(directive_body(l), l.line)) collect_directive(body, l.line);
    }
    take_templates();
    add_aligned_arrays();
    for (auto& [n, a] : m_arrays) {
      a.dummy = std::find(m_dummies.begin(), m_dummies.end(), n) != m_dummies.end();
      if (m_transcriptive.count(n) != 0)
        fail_at(a.aligned() ? a.align.line : a.dist_line,
                "'" + n + "' is transcriptive (DISTRIBUTE " + n + " * or INHERIT) and mapped as well");
    }
    if (m_focus != std::string::npos && unit_header(m_lines[m_focus].text) == "FUNCTION") {
      // The result goes back by value, whole, to an expression of the caller: it is not mapped.
      const LogicalLine& h = m_lines[m_focus];
      std::string result = unit_name(h.text);
      if (const auto r = find_word(h.text, "result"); !r.empty()) {
        std::size_t end = 0;
        const auto open = h.text.find('(', r.back());
        if (open != std::string::npos)
          result = lower_case(trim(paren_group(h.text, open, end, where(h.line))));
      }
      if (const auto it = m_arrays.find(result); it != m_arrays.end())
        fail_at(it->second.aligned() ? it->second.align.line : it->second.dist_line,
                "the result '" + result + "' of FUNCTION " + unit_name(h.text) +
                    " is mapped: a function result is not lowered as a distributed array (make it a "
                    "dummy argument of a SUBROUTINE)");
    }
    for (const auto& n : m_dynamic) {
      if (auto t = m_templates.find(n); t != m_templates.end()) {
        t->second.dynamic = true;
      } else {
        array_named(n, 0, "DYNAMIC").dynamic = true;
      }
    }
    for (const auto& sh : m_shadows) apply_shadow(sh);
    for (auto& [n, a] : m_arrays) {
      if (a.aligned()) continue;
      if (!a.onto.empty() && m_procs.count(a.onto) == 0)
        fail_at(a.dist_line, "DISTRIBUTE " + n + " ONTO " + a.onto + ": no PROCESSORS " + a.onto);
      if (!a.dists.empty()) check_grid_rank(a, a.onto, a.dists, a.dist_line);
    }
    // Declarations of the distributed arrays: find, check, and remember the line to rewrite.
    // The component declarations of a derived-type definition (F2018 7.5.2) declare no variables.
    bool in_type = false;
    for (std::size_t i = m_implicit_program ? m_program_line : m_program_line + 1;
         i < std::min(m_contains_line, m_end_line); ++i) {
      const std::string lt = lower_case(trim(m_lines[i].text));
      Scanner ty(lt);
      if (ty.word("type") && (ty.skip_space(), ty.peek() != '(') && !ty.done() && !is_assignment_like(lt)) {
        in_type = true;
        m_type_lines.insert(i);
        continue;
      }
      if (Scanner et(lt); et.word("endtype") || (et.word("end") && (et.skip_space(), et.word("type")))) {
        in_type = false;
        m_type_lines.insert(i);
        continue;
      }
      if (in_type) m_type_lines.insert(i);
      if (!in_type && m_scope[i].empty()) {
        parse_declaration(i);
        parse_common(i);
        parse_use(i);
      }
    }
    for (const auto& n : m_array_order) {
      DistArray& a = m_arrays[n];
      const int at = a.aligned() ? a.align.line : a.dist_line;
      if (a.decl_line == 0)
        fail_at(at, "distributed array '" + n + "' has no declaration with bounds ('type :: " + n +
                        "(bounds)' or 'DIMENSION " + n + "(bounds)')");
      if (a.type_line == 0) {
        const std::string& type = m_implicit[static_cast<std::size_t>(n.front() - 'a')];
        if (type.empty()) fail_at(a.decl_line, "distributed array '" + n + "' has no type (IMPLICIT NONE)");
        const auto elem = elem_of(type, m_kind_params);
        if (!elem)
          fail_at(a.decl_line,
                  "distributed array '" + n + "' has the implicit type '" + shown(type) +
                      "', which is not lowered (give it REAL, DOUBLE PRECISION, INTEGER, LOGICAL or "
                      "COMPLEX)");
        a.elem = *elem;
      }
      // HPF 2.0 section 3.3: DISTRIBUTE ONTO p :: a without a format. hpfrt's choice: BLOCK along the
      // first dimensions, as many as p has, and * along the others.
      if (!a.aligned() && a.dists.empty()) {
        const std::size_t grid_rank = m_procs.count(a.onto) != 0 ? m_procs.at(a.onto).shape.size() : 1;
        if (grid_rank > a.bounds.size())
          fail_at(a.dist_line, "DISTRIBUTE ONTO " + a.onto + " :: " + n + ": '" + n +
                                   "' has fewer dimensions (" + std::to_string(a.bounds.size()) + ") than " +
                                   a.onto);
        for (std::size_t d = 0; d < a.bounds.size(); ++d)
          a.dists.emplace_back(d < grid_rank ? "hpf_block()" : "hpf_collapsed()");
        check_grid_rank(a, a.onto, a.dists, a.dist_line);
      }
      if (a.aligned() && a.align.source_omitted) a.align.dummies.assign(a.bounds.size(), ":");
      if (a.bounds.size() != a.rank())
        fail_at(a.decl_line, "'" + n + "' has " + std::to_string(a.bounds.size()) + " dimension(s) but its " +
                                 (a.aligned() ? "ALIGN" : "DISTRIBUTE") + " (line " + loc(at) + ") gives " +
                                 std::to_string(a.rank()));
      if (a.bounds.size() > 4)
        fail_at(a.decl_line, "distributed array '" + n + "' has rank " + std::to_string(a.bounds.size()) +
                                 ": hpfrt arrays have 1 to 4 dimensions");
    }
    for (const auto& n : m_array_order)
      if (m_arrays[n].aligned()) resolve_colons(m_arrays[n].align, m_arrays[n], "ALIGN");
    for (const auto& n : m_array_order)
      if (m_arrays[n].aligned()) check_align(n, m_arrays[n].align, "ALIGN");
    for (auto& [n, spec] : m_realigns) {
      DistArray& a = array_named(n, spec.line, "REALIGN");
      resolve_colons(spec, a, "REALIGN");
      check_align(n, spec, "REALIGN");
      if (!a.dynamic) fail_at(spec.line, "REALIGN " + n + ": the array is not declared !HPF$ DYNAMIC");
      a.realigned = true;
    }
    for (const auto& n : m_array_order) {
      const DistArray& a = m_arrays[n];
      if (a.is_base && a.realigned)
        fail_at(a.decl_line,
                "REALIGN " + n + ": '" + n +
                    "' is the base of an alignment; HPF realigns only arrays nothing is aligned with");
    }
    m_creation_order = creation_order();
    for (const auto& n : m_array_order)
      if (!m_arrays.at(n).common.empty()) check_common(m_arrays.at(n));
    // A procedure whose only DISTRIBUTEs without ONTO map COMMON members (created by the main
    // program) needs no default grid of its own.
    if (m_focus != std::string::npos)
      m_default_grid =
          std::any_of(m_arrays.begin(), m_arrays.end(),
                      [](const auto& e) {
                        return e.second.common.empty() && !e.second.aligned() && e.second.onto.empty();
                      }) ||
          std::any_of(m_templates.begin(), m_templates.end(),
                      [](const auto& e) { return e.second.onto.empty(); });
  }

  /// The first word of a directive, lower case ("" when it does not start with a letter).
  static std::string directive_keyword(const LogicalLine& l) {
    const std::string lb = lower_case(directive_body(l));
    Scanner sc(lb);
    return std::string(sc.name());
  }

  /// The directive keywords of HPF 2.0 and its approved extensions (sections 3, 4, 5 and 8), and the
  /// attributes a combined directive starts with (section 3.2: DIMENSION too).
  static bool is_hpf_keyword(const std::string& k) {
    static const std::set<std::string> known = {
        "processors", "template",    "distribute", "align", "dynamic",         "redistribute", "realign",
        "inherit",    "independent", "sequence",   "no",    "nosequence",      "shadow",       "on",
        "resident",   "task_region", "end",        "endon", "end_task_region", "range",        "dimension"};
    return known.count(k) != 0;
  }

  /// HPF 2.0 section 3.2 (H301-H303): a combined directive `attr, attr, ... :: entities` split into
  /// the simple directives it stands for: `TEMPLATE, DISTRIBUTE(BLOCK) :: t(100)` is
  /// `TEMPLATE t(100)` and `DISTRIBUTE (BLOCK) :: t`; `PROCESSORS, DIMENSION(4) :: p` is
  /// `PROCESSORS p(4)`; `DISTRIBUTE(BLOCK), DYNAMIC :: a` adds `DYNAMIC a`. Any other directive is
  /// returned as it is.
  std::vector<std::string> expand_combined(const std::string& body, int line) const {
    const std::string m = mask_strings(body);
    const auto colons = m.find("::");
    if (colons == std::string::npos) return {body};
    const auto attrs = split_top(body.substr(0, colons));
    if (attrs.size() < 2) {
      // `DIMENSION(4), ...` needs a second attribute; one attribute is the simple form's :: list.
      if (const std::string a0 = lower_case(trim(attrs[0])); Scanner(a0).word("dimension"))
        fail_at(line, "'!HPF$ " + shown(body) + "': DIMENSION needs PROCESSORS or TEMPLATE beside it");
      return {body};
    }
    const std::string list = trim(body.substr(colons + 2));
    std::string dimension; // "(...)" of a DIMENSION attribute
    std::vector<std::string> out;
    std::vector<std::string> names; // the entity names without their shapes
    for (const auto& e : split_top(list)) {
      Scanner es(e);
      names.emplace_back(es.name());
    }
    std::string joined_names;
    for (const auto& n : names) joined_names += (joined_names.empty() ? "" : ", ") + n;
    std::string shaped; // PROCESSORS or TEMPLATE: the entities with their shapes
    for (const auto& a : attrs) {
      const std::string la = lower_case(a);
      Scanner sc(la);
      if (sc.word("dimension")) {
        sc.skip_space();
        dimension = trim(a.substr(sc.pos()));
      } else if (sc.word("processors") || sc.word("template")) {
        shaped = trim(a);
      } else if (sc.word("distribute") || sc.word("align") || sc.word("shadow") || sc.word("inherit") ||
                 sc.word("sequence")) {
        out.push_back(trim(a) + " :: " + joined_names);
      } else if (sc.word("dynamic")) {
        out.push_back("DYNAMIC " + joined_names);
      } else {
        fail_at(line, "'" + shown(trim(a)) + "' in the combined directive '!HPF$ " + shown(body) +
                          "' is not an HPF attribute (DISTRIBUTE, ALIGN, DYNAMIC, TEMPLATE, PROCESSORS, "
                          "DIMENSION, SHADOW, INHERIT, SEQUENCE)");
      }
    }
    if (!dimension.empty() && shaped.empty())
      fail_at(line, "'!HPF$ " + shown(body) + "': DIMENSION needs PROCESSORS or TEMPLATE beside it");
    if (!shaped.empty()) {
      std::string entities;
      for (const auto& e : split_top(list)) {
        Scanner es(e);
        es.name();
        es.skip_space();
        entities += std::string(entities.empty() ? "" : ", ") + trim(e) + (es.done() ? dimension : "");
      }
      out.insert(out.begin(), shaped + " " + entities);
    }
    return out;
  }

  /// "p(e1, ...) [, q(...)]" or ":: p(...), ..." after PROCESSORS (HPF 2.0 section 3.6).
  void parse_processors(std::string list, int line) {
    if (list.rfind("::", 0) == 0) list = trim(list.substr(2));
    for (const auto& entry : split_top(list)) {
      const std::string le = lower_case(entry);
      Scanner ps(le);
      const std::string pname(ps.name());
      ps.skip_space();
      if (pname.empty() || ps.peek() != '(' || entry.back() != ')')
        fail_at(line, "expected 'PROCESSORS p(e1, ...)', got '" + shown(entry) +
                          "' (a scalar arrangement is not lowered: give it a shape, p(1))");
      Processors p{pname, {}, line};
      std::size_t end = 0;
      for (const auto& e : split_top(paren_group(entry, ps.pos(), end, where(line))))
        p.shape.push_back(replace_number_of_processors(e));
      if (p.shape.empty() || p.shape.size() > 4)
        fail_at(line, "PROCESSORS " + p.name + ": 1 to 4 dimensions expected");
      for (std::size_t d = 0; d < p.shape.size(); ++d)
        if (const auto v = integer_literal(p.shape[d]); v && (*v < 1 || *v > 2147483647))
          fail_at(line, "PROCESSORS " + p.name + ": extent " + std::to_string(d + 1) +
                            " must be in [1, 2147483647], got " + std::to_string(*v));
      if (m_procs.count(p.name) != 0) fail_at(line, "PROCESSORS " + p.name + " declared twice");
      m_procs.emplace(p.name, p);
      m_proc_order.push_back(p.name);
    }
  }

  /// `PROGRAM p`, `[prefix] SUBROUTINE s`, `[prefix] [type] FUNCTION f`, `MODULE m`, `SUBMODULE`,
  /// `BLOCK DATA`: the kind of program unit (or subprogram) a statement opens, "" for others.
  static std::string unit_header(const std::string& text) {
    const std::string t = lower_case(text);
    Scanner sc(t);
    for (int words = 0; words < 8; ++words) {
      sc.skip_space();
      if (sc.word("program")) return sc.skip_space() > 0 && !sc.name().empty() ? "PROGRAM" : "";
      if (sc.word("subroutine")) return sc.skip_space() > 0 && !sc.name().empty() ? "SUBROUTINE" : "";
      if (sc.word("function")) return sc.skip_space() > 0 && !sc.name().empty() ? "FUNCTION" : "";
      if (sc.word("submodule")) return "SUBMODULE";
      if (sc.word("blockdata")) return "BLOCK DATA";
      if (sc.word("block")) return sc.skip_space() > 0 && sc.word("data") ? "BLOCK DATA" : "";
      if (sc.word("module")) {
        Scanner next = sc;
        next.skip_space();
        if (next.word("procedure")) return "";
        if (next.word("subroutine") || next.word("function")) continue;
        return sc.skip_space() > 0 && !sc.name().empty() ? "MODULE" : "";
      }
      if (sc.word("recursive") || sc.word("pure") || sc.word("elemental") || sc.word("impure") ||
          sc.word("non_recursive"))
        continue;
      // A type spec before FUNCTION: REAL, REAL*8, DOUBLE PRECISION, LOGICAL(4), TYPE(t), ...
      const std::size_t before = sc.pos();
      if (type_spec(sc)) continue;
      sc = Scanner(t, before);
      if (sc.word("logical") || sc.word("complex") || sc.word("character") || sc.word("type") ||
          sc.word("class")) {
        sc.skip_space();
        if (sc.eat('*')) {
          sc.skip_space();
          while (std::isdigit(static_cast<unsigned char>(sc.peek()))) sc.eat(sc.peek());
        } else if (sc.peek() == '(') {
          std::size_t end = 0;
          int depth = 0;
          for (std::size_t i = sc.pos(); i < t.size() && end == 0; ++i) {
            depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
            if (depth == 0) end = i + 1;
          }
          if (end == 0) return "";
          sc = Scanner(t, end);
        }
        continue;
      }
      return "";
    }
    return "";
  }

  /// END, or END PROGRAM / SUBROUTINE / FUNCTION / MODULE / SUBMODULE / BLOCK DATA [name]: the end of
  /// a program unit or subprogram (END DO, END IF, END INTERFACE, ... are not).
  static bool is_unit_end(const std::string& text) {
    const std::string t = lower_case(text);
    Scanner sc(t);
    if (!sc.keyword("end")) return false;
    sc.skip_space();
    if (sc.done()) return true;
    for (const std::string_view k : {"program", "subroutine", "function", "module", "submodule", "blockdata"})
      if (Scanner k_sc = sc; k_sc.word(k)) return true;
    if (Scanner b = sc; b.word("block")) return b.skip_space() > 0 && b.word("data");
    return false;
  }

  /// Finds the program units (Fortran 2018 section 14): m_program_line (the main program's first
  /// line), m_contains_line and m_end_line of the main program, and for every line the scope it is
  /// in: "" for the main program's own statements, else "SUBROUTINE", "FUNCTION", "MODULE", ... (its
  /// internal and module subprograms, and interface bodies, are scopes of their own).
  void scan_units() {
    m_scope.assign(m_lines.size(), "");
    std::vector<std::string> stack; // open units and subprograms, outermost first; "main" for the main
    bool seen_main = false;
    std::size_t top_header = 0; // the header of the outermost open unit
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
      const LogicalLine& l = m_lines[i];
      const std::string t = trim(l.text);
      const bool statement = !t.empty() && t.front() != '!';
      if (statement && !stack.empty() && stack[0] != "main" && (is_output(t) || is_output_if(t, l.line)))
        m_io_units.insert(top_header);
      if (!statement) {
        // Comments and directives belong to the scope they stand in (before any unit: the next one).
        m_scope[i] = stack.empty() ? "" : (stack.size() == 1 && stack[0] == "main" ? "" : stack.back());
        continue;
      }
      const std::string header = unit_header(t);
      if (stack.empty()) {
        if (m_focus == std::string::npos ? header.empty() || header == "PROGRAM" : i == m_focus) {
          if (seen_main)
            fail_at(l.line, header.empty()
                                ? "expected a program unit (SUBROUTINE, FUNCTION, MODULE, ...), got '" +
                                      shown(t) + "'"
                                : "a second main program");
          // F2018 R1401: the PROGRAM statement is optional. A statement must start with a letter.
          if (header.empty() && !is_letter(t.front()))
            fail_at(l.line, "expected 'PROGRAM name' or a Fortran statement, got '" + shown(l.text) + "'");
          seen_main = true;
          m_program_line = i;
          m_implicit_program = header.empty();
          stack.emplace_back("main");
          if (!header.empty()) continue;
          if (is_unit_end(t)) {
            m_end_line = i;
            stack.pop_back();
          }
          continue;
        }
        // (Lowering a procedure, the main program is one of the other units, with or without its
        // PROGRAM statement.)
        stack.push_back(header.empty() ? "PROGRAM" : header + " " + unit_name(t));
        m_scope[i] = stack.back();
        top_header = i;
        if (m_focus == std::string::npos && (header == "SUBROUTINE" || header == "FUNCTION") &&
            !is_pure_header(t))
          m_procedures.insert(i);
        continue;
      }
      if (is_unit_end(t)) {
        if (stack.size() == 1 && stack[0] != "main") m_unit_ends[top_header] = i;
        m_scope[i] = stack.size() == 1 && stack[0] == "main" ? "" : stack.back();
        if (stack.size() == 1 && stack[0] == "main") m_end_line = i;
        stack.pop_back();
        continue;
      }
      if (!header.empty()) {
        stack.push_back((stack.size() == 1 && stack[0] == "main" ? "internal " : "") + header + " " +
                        unit_name(t));
        m_scope[i] = stack.back();
        continue;
      }
      if (stack.size() == 1 && stack[0] == "main") {
        const std::string lt = lower_case(t);
        if (Scanner c(lt); c.word("contains") && c.done()) m_contains_line = i;
        continue;
      }
      m_scope[i] = stack.back();
    }
    if (!seen_main)
      fail_at(m_lines.empty() ? 0 : m_lines.front().line,
              "no main program in the file: only a main program can be lowered (with the program units "
              "that follow it or precede it in the same file)");
    if (m_end_line == 0) detail::fail(m_file, ": the main program has no END statement");
  }

  /// The first line of the top-level unit other than the lowered one that holds line i (npos: none).
  [[nodiscard]] std::size_t unit_of(std::size_t i) const {
    auto it = m_unit_ends.upper_bound(i);
    if (it == m_unit_ends.begin()) return std::string::npos;
    --it;
    return i <= it->second ? it->first : std::string::npos;
  }

  /// The dummy arguments of a SUBROUTINE or FUNCTION statement, lower case, in order. The
  /// parenthesised list is the first after the SUBROUTINE or FUNCTION keyword and the name.
  std::vector<std::string> dummy_arguments(const LogicalLine& l) const {
    const std::string t = lower_case(mask_strings(trim(l.text)));
    std::size_t keyword = std::string::npos;
    for (const char* k : {"subroutine", "function"})
      if (const auto at = find_word(t, k); !at.empty()) keyword = std::min(keyword, at.front());
    if (keyword == std::string::npos) return {};
    Scanner sc(t, keyword);
    sc.name();
    sc.skip_space();
    sc.name();
    sc.skip_space();
    if (sc.peek() != '(') return {};
    std::size_t end = 0;
    std::vector<std::string> out;
    for (const auto& d : split_top(paren_group(t, sc.pos(), end, where(l.line))))
      if (!trim(d).empty()) out.push_back(trim(d));
    return out;
  }

  /// A PURE or ELEMENTAL procedure's header: such a procedure may not communicate (F2018 15.7), so it
  /// is copied as it is, and it may not map its data.
  static bool is_pure_header(const std::string& text) {
    const std::string t = lower_case(text);
    std::size_t keyword = t.size();
    for (const char* k : {"subroutine", "function"})
      if (const auto at = find_word(t, k); !at.empty()) keyword = std::min(keyword, at.front());
    const std::string prefix = t.substr(0, keyword);
    return !find_word(prefix, "pure").empty() || !find_word(prefix, "elemental").empty();
  }

  /// The name after SUBROUTINE / FUNCTION / MODULE / PROGRAM in a header ("" when none).
  static std::string unit_name(const std::string& text) {
    const std::string t = lower_case(text);
    for (const std::string_view k : {"subroutine", "function", "module", "program", "data"}) {
      for (const std::size_t at : find_word(t, std::string(k))) {
        Scanner sc(t, at + k.size());
        sc.skip_space();
        const std::string n(sc.name());
        if (!n.empty() && n != "procedure" && n != "subroutine" && n != "function") return n;
      }
    }
    return "";
  }

  /// One simple directive of the main program's specification part (a combined directive was split
  /// by expand_combined): recorded for the set-up.
  void collect_directive(const std::string& body, int line) {
    const std::string lb = lower_case(body);
    if (Scanner pk(lb); pk.word("processors")) {
      parse_processors(trim(body.substr(10)), line);
    } else if (lb.rfind("distribute", 0) == 0) {
      std::vector<std::string> names;
      std::vector<std::string> dists;
      std::string onto;
      std::vector<DistTable> tables;
      const auto spec = dummy_distribution(trim(body.substr(10)), line);
      if (!spec) return; // transcriptive
      parse_dist_spec(*spec, line, names, dists, onto, tables);
      m_tables.insert(m_tables.end(), tables.begin(), tables.end());
      for (const auto& n : names) {
        if (m_arrays.count(n) != 0) fail_at(line, "DISTRIBUTE " + n + ": distributed twice");
        DistArray a;
        a.name = n;
        a.dists = dists;
        a.tables = tables;
        m_arrays_of_line.emplace(line, n);
        a.onto = onto;
        a.dist_line = line;
        m_default_grid = m_default_grid || onto.empty();
        m_arrays.emplace(n, a);
        m_array_order.push_back(n);
      }
    } else if (Scanner tk(lb); tk.word("template")) {
      parse_templates(trim(body.substr(8)), line);
    } else if (Scanner ih(lb); ih.word("inherit") && m_focus != std::string::npos) {
      std::string list = trim(body.substr(7));
      if (list.rfind("::", 0) == 0) list = trim(list.substr(2));
      for (const auto& n : split_top(list)) {
        require_dummy(lower_case(n), "INHERIT", line);
        m_transcriptive.insert(lower_case(n));
      }
    } else if (Scanner al(lb); al.word("align")) {
      std::vector<std::string> names;
      std::string text = trim(body.substr(5));
      // HPF 2.0 section 4.5: ALIGN x WITH *t describes the actual's alignment; the dummy is given it.
      if (const auto with = find_word(lower_case(mask_strings(text)), "with");
          m_focus != std::string::npos && !with.empty()) {
        const std::size_t star = text.find_first_not_of(" \t", with.front() + 4);
        if (star != std::string::npos && text[star] == '*') text.erase(star, 1);
      }
      const AlignSpec spec = parse_align(text, line, names);
      for (const auto& n : names) m_aligns.emplace_back(n, spec);
    } else if (Scanner ra(lb); ra.word("realign")) {
      std::vector<std::string> names;
      const AlignSpec spec = parse_align(trim(body.substr(7)), line, names);
      for (const auto& n : names) m_realigns.emplace_back(n, spec);
    } else if (lb.rfind("shadow", 0) == 0) {
      m_shadows.push_back(parse_shadow(trim(body.substr(6)), line));
    } else if (lb.rfind("dynamic", 0) == 0) {
      std::string list = trim(body.substr(7));
      if (list.rfind("::", 0) == 0) list = trim(list.substr(2));
      for (const auto& n : split_top(list)) m_dynamic.insert(lower_case(n));
    } else if (lb.rfind("redistribute", 0) == 0) {
      // lowered in place by emit(); its GEN_BLOCK and INDIRECT tables are declared at the set-up
      std::vector<std::string> names;
      std::vector<std::string> dists;
      std::string onto;
      parse_dist_spec(trim(body.substr(12)), line, names, dists, onto, m_tables);
    } else if (lb.rfind("independent", 0) == 0) {
      // kept as a comment by emit()
    } else {
      fail_at(line, "unsupported directive '!HPF$ " + shown(body) +
                        "': it is not lowered yet (lowered: PROCESSORS, TEMPLATE, DISTRIBUTE, ALIGN, "
                        "SHADOW, DYNAMIC, REDISTRIBUTE, REALIGN, INDEPENDENT)");
    }
  }

  /// A DISTRIBUTE of the lowered procedure (HPF 2.0 section 4.4): `x *(BLOCK)` or `*(BLOCK) :: x`
  /// (descriptive: the actual is said to be so mapped) returns the prescriptive spec without the `*`,
  /// which gives the dummy that mapping either way; `x *` or `* :: x` (transcriptive) records the
  /// dummies in m_transcriptive and returns nullopt. Any other spec is returned as it is.
  std::optional<std::string> dummy_distribution(const std::string& spec, int line) {
    if (m_focus == std::string::npos) return spec;
    const std::size_t colons = mask_strings(spec).find("::");
    const std::string head = trim(spec.substr(0, colons));
    const std::string lhead = lower_case(head);
    Scanner sc(lhead);
    std::vector<std::string> names;
    if (const std::string n(sc.name()); !n.empty()) names.push_back(n);
    sc.skip_space();
    if (!sc.eat('*')) return spec;
    if (colons != std::string::npos)
      for (const auto& n : split_top(spec.substr(colons + 2))) names.push_back(lower_case(n));
    for (const auto& n : names) require_dummy(n, "DISTRIBUTE " + n + " *", line);
    sc.skip_space();
    std::string rest = head.substr(sc.pos());
    if (rest.empty() || Scanner(lower_case(rest)).word("onto")) {
      for (const auto& n : names) m_transcriptive.insert(n);
      return std::nullopt;
    }
    for (const auto& n : names) m_descriptive.insert(n);
    // ONTO *p describes the actual's processors the same way.
    if (const auto onto = find_word(lower_case(rest), "onto"); !onto.empty()) {
      const std::size_t star = rest.find_first_not_of(" \t", onto.front() + 4);
      if (star != std::string::npos && rest[star] == '*') rest.erase(star, 1);
    }
    return (colons == std::string::npos ? names.front() : "") + rest +
           (colons == std::string::npos ? "" : " " + spec.substr(colons));
  }

  /// Stops unless `n` is a dummy argument of the lowered procedure: a `*` mapping is for dummies.
  void require_dummy(const std::string& n, const std::string& what, int line) const {
    if (std::find(m_dummies.begin(), m_dummies.end(), n) == m_dummies.end())
      fail_at(line,
              what + ": '" + n + "' is not a dummy argument of " + unit_header(m_lines[m_focus].text) + " " +
                  unit_name(m_lines[m_focus].text) +
                  " (descriptive and transcriptive mappings, '*' and INHERIT, are for dummy arguments)");
  }

  /// "t(bounds) [, u(bounds)]" or ":: t(bounds), ..." after TEMPLATE.
  void parse_templates(std::string list, int line) {
    if (list.rfind("::", 0) == 0) list = trim(list.substr(2));
    for (const auto& entry : split_top(list)) {
      const std::string e = lower_case(trim(entry));
      Scanner sc(e);
      Template t;
      t.name = std::string(sc.name());
      t.line = line;
      sc.skip_space();
      if (t.name.empty() || sc.peek() != '(' || trim(e).back() != ')')
        fail_at(line, "expected 'TEMPLATE t(bounds), ...', got '" + shown(e) + "'");
      std::size_t end = 0;
      for (const auto& b : split_top(paren_group(e, sc.pos(), end, where(line))))
        t.bounds.push_back(bound_pair(b, line, "TEMPLATE " + t.name));
      if (t.bounds.size() > 4) fail_at(line, "TEMPLATE " + t.name + ": 1 to 4 dimensions expected");
      if (m_templates.count(t.name) != 0) fail_at(line, "TEMPLATE " + t.name + " declared twice");
      m_template_order.push_back(t.name);
      m_templates.emplace(t.name, std::move(t));
    }
  }

  /// (lower, upper) of one declared bound "u" or "l:u".
  std::pair<std::string, std::string> bound_pair(const std::string& b, int line,
                                                 const std::string& what) const {
    const auto colon = mask_strings(b).find(':');
    std::pair<std::string, std::string> out =
        colon == std::string::npos
            ? std::pair<std::string, std::string>("1", trim(b))
            : std::pair<std::string, std::string>(trim(b.substr(0, colon)), trim(b.substr(colon + 1)));
    if (out.first.empty() || out.second.empty() || out.second == "*")
      fail_at(line, what + " needs explicit bounds, got '" + shown(b) + "'");
    return out;
  }

  /// Parses an ALIGN or REALIGN (HPF 2.0 section 3.4, H313-H321) in any of its spellings:
  /// "a(i, j) WITH base(s1, ...)", "(i, j) WITH base(...) :: a, b", "a WITH base", "WITH base :: a, b",
  /// "a(:, *) WITH base(:, 2:n+1)". An align source is an align dummy, '*' or ':'; an omitted source
  /// list is ':' in every dimension of the alignee, an omitted subscript list ':' in every dimension of
  /// the base (resolve_colons gives the ':' their dummies once the bounds are known).
  AlignSpec parse_align(const std::string& body, int line, std::vector<std::string>& names) const {
    const std::string at_line = where(line);
    std::string spec = body;
    const auto colons = mask_strings(spec).find("::");
    if (colons != std::string::npos) {
      for (const auto& n : split_top(spec.substr(colons + 2))) names.push_back(lower_case(trim(n)));
      spec = trim(spec.substr(0, colons));
    }
    const std::string ls = lower_case(spec);
    std::size_t with = std::string::npos;
    for (const std::size_t at : find_word(ls, "with")) {
      int depth = 0;
      for (std::size_t i = 0; i < at; ++i) depth += ls[i] == '(' ? 1 : ls[i] == ')' ? -1 : 0;
      if (depth == 0) {
        with = at;
        break;
      }
    }
    if (with == std::string::npos)
      fail_at(line, "expected 'ALIGN a(i, ...) WITH base(..., i, ...)', got '" + shown(body) + "'");
    const std::string left = trim(ls.substr(0, with));
    std::string right = trim(ls.substr(with + 4));
    AlignSpec a;
    a.line = line;
    const auto open = left.find('(');
    const std::string alignee = trim(left.substr(0, open == std::string::npos ? left.size() : open));
    if (open != std::string::npos && left.back() != ')')
      fail_at(line, "ALIGN: expected the align sources in parentheses, got '" + shown(left) + "'");
    if (colons == std::string::npos) {
      if (alignee.empty()) fail_at(line, "ALIGN: no array named in '" + shown(body) + "'");
      names.push_back(alignee);
    } else if (!alignee.empty()) {
      fail_at(line, "write either 'a(dummies) WITH ...' or '(dummies) WITH ... :: a, b', not both");
    }
    std::size_t end = 0;
    a.source_omitted = open == std::string::npos;
    if (!a.source_omitted)
      for (const auto& d : split_top(paren_group(left, open, end, at_line))) {
        const std::string t = trim(d);
        Scanner sc(t);
        if (t != "*" && t != ":" && (sc.name().empty() || !sc.done()))
          fail_at(line, "ALIGN: align source '" + shown(t) + "' is not an align dummy, '*' or ':'");
        if (t != "*" && t != ":" && std::count(a.dummies.begin(), a.dummies.end(), t) != 0)
          fail_at(line, "ALIGN: align dummy '" + t + "' appears twice");
        a.dummies.push_back(t);
      }
    if (!right.empty() && right.front() == '*')
      fail_at(line, "ALIGN ... WITH *" + shown(right.substr(1)) +
                        ": a descriptive alignment (of a dummy argument) is not lowered yet");
    Scanner bs(right);
    a.base = std::string(bs.name());
    bs.skip_space();
    if (a.base.empty() || (!bs.done() && (bs.peek() != '(' || right.back() != ')')))
      fail_at(line,
              "ALIGN: expected 'WITH base(subscripts)' or 'WITH base', got 'WITH " + shown(right) + "'");
    a.target_omitted = bs.done();
    const bool colon_source = a.source_omitted || std::count(a.dummies.begin(), a.dummies.end(), ":") != 0;
    if (!a.target_omitted)
      for (const auto& e : split_top(paren_group(right, bs.pos(), end, at_line))) {
        a.subscripts.push_back(trim(e));
        const std::string& sub = a.subscripts.back();
        const bool triplet = mask_strings(sub).find(':') != std::string::npos;
        if (sub.empty() || (triplet && !colon_source))
          fail_at(line,
                  "ALIGN: base subscript '" + shown(sub) +
                      "' is not '*' or an expression in one align dummy (a triplet needs a ':' source)");
        int uses = 0;
        for (const auto& d : a.dummies) uses += d != "*" && d != ":" && !find_word(sub, d).empty() ? 1 : 0;
        if (uses > 1 || (triplet && uses > 0))
          fail_at(line, "ALIGN: base subscript '" + shown(sub) + "' uses more than one align dummy");
      }
    if (a.subscripts.size() > 4 || a.dummies.size() > 4) fail_at(line, "ALIGN: 1 to 4 dimensions expected");
    for (const auto& d : a.dummies) {
      int used = 0;
      for (const auto& sub : a.subscripts) used += d != "*" && d != ":" && !find_word(sub, d).empty() ? 1 : 0;
      if (used > 1) fail_at(line, "ALIGN: align dummy '" + d + "' appears in more than one base subscript");
    }
    return a;
  }

  /// The rank and the lower bound of dimension k of a base (a TEMPLATE or a distributed array).
  [[nodiscard]] std::size_t base_rank(const std::string& base, int line) const {
    if (auto t = m_templates.find(base); t != m_templates.end()) return t->second.bounds.size();
    if (auto b = m_arrays.find(base); b != m_arrays.end()) return b->second.bounds.size();
    fail_at(line,
            "ALIGN ... WITH " + base + ": '" + base + "' is neither a TEMPLATE nor a distributed array");
  }

  /// HPF 2.0 section 3.4: the i-th ':' source of `a` goes with the i-th triplet l:u:s of the base (an
  /// omitted l is the base's lower bound, an omitted s is 1): element lb + k of that dimension of `a`
  /// is aligned with l + k*s. Each ':' becomes a dummy hpf__a<j>, and its triplet l + s*(hpf__a<j> - lb).
  void resolve_colons(AlignSpec& spec, const DistArray& a, const char* what) const {
    if (spec.source_omitted) spec.dummies.assign(a.bounds.size(), ":");
    if (spec.target_omitted) spec.subscripts.assign(base_rank(spec.base, spec.line), ":");
    spec.source_omitted = spec.target_omitted = false;
    std::vector<std::size_t> sources;
    std::vector<std::size_t> triplets;
    for (std::size_t j = 0; j < spec.dummies.size(); ++j)
      if (spec.dummies[j] == ":") sources.push_back(j);
    for (std::size_t k = 0; k < spec.subscripts.size(); ++k)
      if (mask_strings(spec.subscripts[k]).find(':') != std::string::npos) triplets.push_back(k);
    if (sources.size() != triplets.size())
      fail_at(spec.line, std::string(what) + " " + a.name + ": " + std::to_string(sources.size()) +
                             " ':' align source(s) for " + std::to_string(triplets.size()) +
                             " triplet(s) of '" + spec.base + "' (they pair in order)");
    if (sources.size() > a.bounds.size()) return; // check_align names the rank mismatch
    for (std::size_t c = 0; c < sources.size(); ++c) {
      const std::size_t j = sources[c];
      const std::size_t k = triplets[c];
      const std::string dummy = "hpf__a" + std::to_string(j + 1);
      const auto parts = split_colons(spec.subscripts[k]);
      if (parts.size() > 3) fail_at(spec.line, "ALIGN: '" + shown(spec.subscripts[k]) + "' is not a triplet");
      const std::string first = parts[0].empty() ? base_lower(spec.base, k, spec.line) : parts[0];
      const std::string stride = parts.size() == 3 && !parts[2].empty() ? parts[2] : "1";
      spec.dummies[j] = dummy;
      spec.subscripts[k] =
          "(" + first + ") + (" + stride + ") * (" + dummy + " - (" + a.bounds[j].first + "))";
    }
  }

  /// Moves the DISTRIBUTE of each TEMPLATE from the arrays to the template.
  void take_templates() {
    for (auto& [n, t] : m_templates) {
      auto it = m_arrays.find(n);
      if (it == m_arrays.end()) fail_at(t.line, "TEMPLATE " + n + " has no DISTRIBUTE");
      t.dists = it->second.dists;
      t.tables = it->second.tables;
      t.onto = it->second.onto;
      t.dist_line = it->second.dist_line;
      if (t.dists.empty()) // DISTRIBUTE ONTO p :: t: BLOCK along as many dimensions as p has
        for (std::size_t d = 0; d < t.bounds.size(); ++d)
          t.dists.emplace_back(d < (m_procs.count(t.onto) != 0 ? m_procs.at(t.onto).shape.size() : 1)
                                   ? "hpf_block()"
                                   : "hpf_collapsed()");
      if (t.dists.size() != t.bounds.size())
        fail_at(t.dist_line, "DISTRIBUTE " + n + ": " + std::to_string(t.dists.size()) +
                                 " distributions for the " + std::to_string(t.bounds.size()) +
                                 " dimension(s) of TEMPLATE " + n + " (line " + loc(t.line) + ")");
      if (!t.onto.empty() && m_procs.count(t.onto) == 0)
        fail_at(t.dist_line, "DISTRIBUTE " + n + " ONTO " + t.onto + ": no PROCESSORS " + t.onto);
      DistArray probe;
      probe.name = n;
      check_grid_rank(probe, t.onto, t.dists, t.dist_line);
      m_arrays.erase(it);
      m_array_order.erase(std::find(m_array_order.begin(), m_array_order.end(), n));
    }
  }

  /// The arrays of the ALIGN directives join the distributed arrays.
  void add_aligned_arrays() {
    for (const auto& [n, spec] : m_aligns) {
      if (m_templates.count(n) != 0) fail_at(spec.line, "ALIGN " + n + ": '" + n + "' is a TEMPLATE");
      if (auto it = m_arrays.find(n); it != m_arrays.end())
        fail_at(spec.line, "ALIGN " + n + ": '" + n + "' is " +
                               (it->second.aligned() ? "aligned twice"
                                                     : "also DISTRIBUTEd (line " + loc(it->second.dist_line) +
                                                           "); an array has one or the other"));
      DistArray a;
      a.name = n;
      a.align = spec;
      m_arrays.emplace(n, a);
      m_array_order.push_back(n);
    }
  }

  /// Checks an ALIGN or REALIGN of array n against its base, and marks the base.
  void check_align(const std::string& n, const AlignSpec& spec, const char* what) {
    const DistArray& a = m_arrays.at(n);
    if (spec.dummies.size() != a.bounds.size())
      fail_at(spec.line, std::string(what) + " " + n + ": " + std::to_string(spec.dummies.size()) +
                             " align dummies for " + std::to_string(a.bounds.size()) + " dimension(s)");
    if (spec.base == n)
      fail_at(spec.line, std::string(what) + " " + n + ": an array cannot be aligned with itself");
    std::size_t base_rank = 0;
    if (auto t = m_templates.find(spec.base); t != m_templates.end()) {
      base_rank = t->second.bounds.size();
    } else if (auto b = m_arrays.find(spec.base); b != m_arrays.end()) {
      base_rank = b->second.bounds.size();
      b->second.is_base = true;
      // No cycle: following the bases from n never comes back to n.
      std::string at = spec.base;
      for (std::size_t hops = 0; m_arrays.at(at).aligned(); ++hops) {
        at = m_arrays.at(at).align.base;
        if (at == n || hops > m_arrays.size())
          fail_at(spec.line, std::string(what) + " " + n + ": the alignments of '" + n + "' form a cycle");
        if (m_arrays.count(at) == 0) break;
      }
    } else {
      fail_at(spec.line, std::string(what) + " " + n + " WITH " + spec.base + ": '" + spec.base +
                             "' is neither a TEMPLATE nor a distributed array");
    }
    if (spec.subscripts.size() != base_rank)
      fail_at(spec.line, std::string(what) + " " + n + ": " + std::to_string(spec.subscripts.size()) +
                             " subscripts for the " + std::to_string(base_rank) + " dimension(s) of '" +
                             spec.base + "'");
    if (!a.shadow.empty())
      fail_at(spec.line, std::string(what) + " " + n +
                             ": an aligned array has no SHADOW in hpfrt (SHADOW at line " +
                             loc(a.shadow_line) + ")");
  }

  /// The distributed arrays in an order where every base comes before the arrays aligned with it.
  [[nodiscard]] std::vector<std::string> creation_order() const {
    std::vector<std::string> order;
    std::set<std::string> made;
    while (order.size() < m_array_order.size()) {
      for (const auto& n : m_array_order) {
        const DistArray& a = m_arrays.at(n);
        if (made.count(n) != 0) continue;
        if (a.aligned() && m_arrays.count(a.align.base) != 0 && made.count(a.align.base) == 0) continue;
        order.push_back(n);
        made.insert(n);
      }
    }
    return order;
  }

  /// Parses the body of "!HPF$ SHADOW a(w1, ...)": each width a non-negative integer literal.
  ShadowSpec parse_shadow(const std::string& body, int line) const {
    Scanner sc(body);
    ShadowSpec sh;
    sh.line = line;
    sh.name = lower_case(std::string(sc.name()));
    sc.skip_space();
    if (sh.name.empty() || sc.peek() != '(' || body.back() != ')')
      fail_at(line, "expected 'SHADOW a(w1, ...)' (a distributed array and one width per dimension), got "
                    "'!HPF$ SHADOW " +
                        shown(body) + "'");
    std::size_t end = 0;
    const std::string group = paren_group(body, sc.pos(), end, where(line));
    if (end != body.size())
      fail_at(line, "SHADOW " + sh.name + ": unexpected '" + shown(body.substr(end)) + "' after the widths");
    for (const auto& w : split_top(group)) {
      const auto v = integer_literal(w);
      if (mask_strings(w).find(':') != std::string::npos)
        fail_at(line, "SHADOW " + sh.name + ": width '" + shown(w) +
                          "' has different low and high widths; hpfrt lower takes one width per dimension "
                          "(the same on both sides)");
      if (!v)
        fail_at(line, "SHADOW " + sh.name + ": width " + std::to_string(sh.widths.size() + 1) + " is '" +
                          shown(w) + "'; expected a non-negative integer literal");
      if (*v < 0 || *v > 2147483647)
        fail_at(line, "SHADOW " + sh.name + ": width " + std::to_string(sh.widths.size() + 1) +
                          " must be in [0, 2147483647], got " + std::to_string(*v));
      sh.widths.push_back(*v);
    }
    return sh;
  }

  /// Attaches a SHADOW to its distributed array after checking it against the DISTRIBUTE.
  void apply_shadow(const ShadowSpec& sh) {
    auto it = m_arrays.find(sh.name);
    if (it == m_arrays.end())
      fail_at(sh.line, "SHADOW " + sh.name + ": '" + sh.name +
                           "' is not a distributed array (SHADOW needs a DISTRIBUTE of the same array)");
    DistArray& a = it->second;
    if (a.aligned())
      fail_at(sh.line, "SHADOW " + sh.name + ": an aligned array has no SHADOW in hpfrt (ALIGN at line " +
                           loc(a.align.line) + ")");
    if (a.shadow_line != 0)
      fail_at(sh.line,
              "SHADOW " + sh.name + ": a second SHADOW (the first is at line " + loc(a.shadow_line) + ")");
    if (sh.widths.size() != a.dists.size())
      fail_at(sh.line, "SHADOW " + sh.name + ": " + std::to_string(sh.widths.size()) + " width(s) for " +
                           std::to_string(a.dists.size()) + " dimension(s) (DISTRIBUTE at line " +
                           loc(a.dist_line) + ")");
    check_shadow_dists(a.name, sh.widths, a.dists, sh.line);
    a.shadow = sh.widths;
    a.shadow_line = sh.line;
  }

  /// A SHADOW width on a CYCLIC(r) dimension pads each block of r: the runtime needs r >= the width.
  /// Checked here when r is a literal (otherwise hpf_array_create_shadow refuses it at run time).
  void check_shadow_dists(const std::string& n, const std::vector<long long>& widths,
                          const std::vector<std::string>& dists, int line) const {
    for (std::size_t d = 0; d < widths.size(); ++d) {
      if (widths[d] == 0 || dists[d].rfind("hpf_cyclic(", 0) != 0) continue;
      std::string r = trim(dists[d].substr(11, dists[d].size() - 12)); // hpf_cyclic(int(r)) or (1)
      if (r.rfind("int(", 0) == 0 && r.back() == ')') r = trim(r.substr(4, r.size() - 5));
      if (r.empty() || r.size() > 18 ||
          !std::all_of(r.begin(), r.end(), [](char c) { return c >= '0' && c <= '9'; }))
        continue;
      if (std::stoll(r) < widths[d])
        fail_at(line, n + ": SHADOW width " + std::to_string(widths[d]) + " on dimension " +
                          std::to_string(d + 1) + ", which is CYCLIC(" + r +
                          "); expected a width of at most the block size " + r);
    }
  }

  void check_grid_rank(const DistArray& a, const std::string& onto, const std::vector<std::string>& dists,
                       int line) {
    const auto distributed = static_cast<std::size_t>(std::count_if(
        dists.begin(), dists.end(), [](const std::string& d) { return d != "hpf_collapsed()"; }));
    const std::size_t grid_rank = onto.empty() ? 1 : m_procs.at(onto).shape.size();
    if (distributed != grid_rank)
      fail_at(line, a.name + ": " + std::to_string(distributed) +
                        " distributed dimension(s) but the processors " +
                        (onto.empty() ? std::string("(default, 1-D)") : onto) + " have " +
                        std::to_string(grid_rank) + (onto.empty() ? "; add ONTO" : ""));
  }

  /// Recognises a type declaration, a DIMENSION statement or an IMPLICIT statement of the main program;
  /// records the type and bounds of the distributed arrays named in it. A distributed array gets its
  /// type from a type declaration (`REAL*8 A(N)`, `real, dimension(n) :: a`, `LOGICAL A`) or from the
  /// implicit typing rules (F2018 section 8.7), and its bounds from its entity, a DIMENSION attribute
  /// or a DIMENSION statement (`DIMENSION A(100)`).
  void parse_declaration(std::size_t i) {
    const LogicalLine& l = m_lines[i];
    if (is_directive(l)) return;
    const std::string lt = lower_case(trim(l.text));
    if (Scanner im(lt); im.word("implicit")) {
      parse_implicit(lt, l.line);
      return;
    }
    std::optional<Declaration> decl;
    if (m_focus != std::string::npos && dummy_intent_statement(i)) return;
    if (Scanner dm(lt); dm.word("dimension") && !is_assignment_like(lt)) {
      // DIMENSION [::] a(bounds), ...: bounds only, the type comes from elsewhere.
      Declaration d;
      d.type = "";
      dm.skip_space();
      d.colons = dm.keyword("::");
      dm.skip_space();
      d.entities = trim(l.text).substr(dm.pos());
      decl = d;
    } else {
      decl = scan_declaration(l.text);
    }
    if (!decl) return;
    const std::string& entities = decl->entities;
    // Without "::" the entities must start with a name: "real x", not an assignment "real (x) = 1".
    if (!decl->colons && (entities.empty() || !is_letter(entities.front()))) return;
    // The attributes: DIMENSION(...) gives the bounds of entities without their own.
    std::optional<std::string> dimension;
    std::string intent; // a dummy argument's INTENT
    std::string other_attr;
    const std::string attrs = trim(decl->attrs);
    if (!attrs.empty())
      for (const auto& a : split_top(attrs.substr(1))) {
        const std::string la = lower_case(a);
        Scanner sc(la);
        if (sc.word("dimension") && (sc.skip_space(), sc.peek() == '(')) {
          std::size_t end = 0;
          dimension = paren_group(a, sc.pos(), end, where(l.line));
        } else if (Scanner in(la); in.word("intent") && (in.skip_space(), in.peek() == '(')) {
          std::size_t end = 0;
          intent = lower_case(trim(paren_group(la, in.pos(), end, where(l.line))));
        } else if (other_attr.empty()) {
          other_attr = trim(a);
        }
      }
    for (const auto& e : split_top(entities)) {
      // name [ (bounds) ] [ = initialiser ]
      Scanner es(e);
      const std::string n = lower_case(std::string(es.name()));
      if (const std::string type = lower_case(decl->type); Scanner(type).keyword("character"))
        m_char_vars.insert(n);
      // INTEGER, PARAMETER :: name = value: a kind a later type spec may name.
      if (Scanner(lower_case(decl->type)).keyword("integer") &&
          !find_word(lower_case(attrs), "parameter").empty())
        if (const auto eq = mask_strings(e).find('='); eq != std::string::npos)
          m_kind_params[n] = known_kind(squeezed(e.substr(eq + 1)));
      auto it = m_arrays.find(n);
      if (it == m_arrays.end()) {
        es.skip_space();
        if (es.peek() == '(' || dimension) m_local_arrays.insert(n);
        continue;
      }
      es.skip_space();
      std::optional<std::string> bounds;
      if (es.peek() == '(') {
        std::size_t after = 0;
        bounds = paren_group(e, es.pos(), after, where(l.line));
        es = Scanner(e, after);
        es.skip_space();
      }
      const bool initialised = es.peek() == '=';
      if (!initialised && !es.done()) continue;
      DistArray& a = it->second;
      if (!other_attr.empty())
        fail_at(l.line, "distributed array '" + n + "' is declared with the attribute '" + shown(other_attr) +
                            "': declare it as 'type :: " + n +
                            "(bounds)' without attributes (DIMENSION aside), " + "got '" + shown(l.text) +
                            "'");
      if (initialised) fail_at(l.line, "distributed array '" + n + "' cannot have an initialiser");
      if (!intent.empty()) set_intent(a, intent, l.line);
      if (!decl->type.empty()) {
        if (a.type_line != 0) fail_at(l.line, "'" + n + "' declared twice");
        const auto elem = elem_of(decl->type, m_kind_params);
        if (!elem)
          fail_at(l.line, "distributed array '" + n + "' has type '" + shown(decl->type) +
                              "'; expected REAL(8), DOUBLE PRECISION, REAL*8, REAL(4), REAL, INTEGER(4), "
                              "INTEGER, INTEGER(8), LOGICAL, COMPLEX(8), DOUBLE COMPLEX, COMPLEX*16, "
                              "COMPLEX(4), COMPLEX or COMPLEX*8 (CHARACTER distributed arrays are not "
                              "lowered yet)");
        a.elem = *elem;
        a.type_line = l.line;
        a.spelled = e.substr(0, n.size());
      }
      if (!bounds) bounds = dimension;
      if (bounds) {
        if (a.dummy) {
          if (!a.bounds.empty()) fail_at(l.line, "'" + n + "': its bounds are declared twice");
          a.decl_line = l.line;
          dummy_bounds(a, *bounds, l.line);
          continue;
        }
        set_bounds(a, *bounds, l.line);
      }
      if (!a.dummy) m_decl_rewrites[i].push_back(n);
    }
  }

  /// The bounds of a distributed array from its explicit-shape array spec (`n, 0:m`), declared at
  /// `line` (a type declaration, DIMENSION or COMMON statement).
  void set_bounds(DistArray& a, const std::string& spec, int line) const {
    if (!a.bounds.empty()) fail_at(line, "'" + a.name + "': its bounds are declared twice");
    a.decl_line = line;
    for (const auto& b : split_top(spec)) {
      const auto colon = mask_strings(b).find(':');
      if (colon == std::string::npos) {
        a.bounds.emplace_back("1", trim(b));
      } else {
        a.bounds.emplace_back(trim(b.substr(0, colon)), trim(b.substr(colon + 1)));
      }
      if (a.bounds.back().first.empty() || a.bounds.back().second.empty() || a.bounds.back().second == "*")
        fail_at(line, "distributed array '" + a.name + "' needs explicit bounds, got '" + shown(b) + "'");
    }
  }

  /// The blocks of a COMMON statement's text after the keyword: `/b/ x, y(n) [,] /c/ z`, `x, y`
  /// (blank COMMON, "hpf__blank"), `// x`, each with its entities.
  std::vector<std::pair<std::string, std::vector<std::string>>> common_groups(const std::string& text,
                                                                              int line) const {
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    const std::string m = mask_strings(text);
    std::string block = "hpf__blank";
    std::size_t start = 0;
    int depth = 0;
    auto flush = [&](std::size_t end) {
      std::vector<std::string> entities;
      for (const auto& e : split_top(text.substr(start, end - start)))
        if (!e.empty()) entities.push_back(e);
      if (!entities.empty()) out.emplace_back(block, entities);
    };
    for (std::size_t p = 0; p < m.size(); ++p) {
      depth += m[p] == '(' ? 1 : m[p] == ')' ? -1 : 0;
      if (m[p] != '/' || depth != 0) continue;
      flush(p);
      const std::size_t close = m.find('/', p + 1);
      if (close == std::string::npos)
        fail_at(line, "COMMON: no '/' closes the block name in '" + shown(text) + "'");
      block = lower_case(trim(text.substr(p + 1, close - p - 1)));
      if (block.empty()) block = "hpf__blank";
      p = close;
      start = close + 1;
    }
    flush(m.size());
    return out;
  }

  /// COMMON statements of the lowered unit: a distributed member is held by the module
  /// hpf__common_<block> (handle and local block), which every unit declaring the block uses; the
  /// main program creates it, and a procedure's COMMON must map it as the main program does.
  void parse_common(std::size_t i) {
    const LogicalLine& l = m_lines[i];
    if (is_directive(l)) return;
    const std::string t = trim(l.text);
    const std::string lt = lower_case(t);
    Scanner sc(lt);
    if (!sc.word("common") || is_assignment_like(lt)) return;
    for (const auto& [block, entities] : common_groups(t.substr(sc.pos()), l.line))
      for (const auto& e : entities) {
        Scanner es(e);
        const std::string n = lower_case(std::string(es.name()));
        es.skip_space();
        auto it = m_arrays.find(n);
        if (it == m_arrays.end()) {
          if (const auto mc = m_main_common.find(n); mc != m_main_common.end() && mc->second.common == block)
            fail_at(l.line, "COMMON /" + block + "/ " + n + ": '" + n +
                                "' is distributed in the main program's COMMON (line " +
                                loc(mc->second.dist_line) + "); give it the same mapping here");
          continue;
        }
        DistArray& a = it->second;
        if (a.dummy) fail_at(l.line, "dummy argument '" + n + "' in COMMON /" + block + "/");
        a.common = block;
        m_common_rewrites[i].push_back(n);
        if (es.peek() == '(') {
          std::size_t end = 0;
          set_bounds(a, paren_group(e, es.pos(), end, where(l.line)), l.line);
        }
      }
  }

  /// A COMMON statement without its distributed members ("" when none remains).
  std::string common_without(const LogicalLine& l, const std::vector<std::string>& drop) const {
    const std::string t = trim(l.text);
    Scanner sc(t);
    sc.skip_space();
    sc.name();
    std::string kept;
    for (const auto& [block, entities] : common_groups(t.substr(sc.pos()), l.line)) {
      std::string list;
      for (const auto& e : entities) {
        Scanner es(e);
        if (std::find(drop.begin(), drop.end(), lower_case(std::string(es.name()))) == drop.end())
          list += (list.empty() ? "" : ", ") + e;
      }
      if (!list.empty()) kept += (block == "hpf__blank" ? " // " : " /" + block + "/ ") + list;
    }
    return kept.empty() ? "" : wrap("  ", "common" + kept);
  }

  /// The COMMON blocks with distributed members in the lowered unit.
  std::set<std::string> common_blocks() const {
    std::set<std::string> out;
    for (const auto& [n, a] : m_arrays)
      if (!a.common.empty()) out.insert(a.common);
    return out;
  }

  /// The modules that hold the distributed COMMON members (module hpf__common_<block>: handles and
  /// local blocks), ahead of every unit that uses them.
  std::string common_modules() const {
    std::string s;
    for (const auto& b : common_blocks()) {
      s += "module hpf__common_" + b + "\n  use, intrinsic :: iso_c_binding\n  use hpfrt, only: hpf_runs\n" +
           "  implicit none\n";
      for (const auto& n : m_array_order)
        if (m_arrays.at(n).common == b)
          s += handle_declarations(m_arrays.at(n), "  ") + "  integer(c_int64_t) :: " + n + "__lo(4), " + n +
               "__x(4)\n";
      s += "end module hpf__common_" + b + "\n";
    }
    return s;
  }

  /// A distributed COMMON member: mapped by DISTRIBUTE (no ALIGN, DYNAMIC, TEMPLATE base), and in a
  /// procedure as the main program maps it (the main program creates it).
  void check_common(const DistArray& a) const {
    const int line = a.aligned() ? a.align.line : a.dist_line;
    if (a.aligned() || a.dynamic || a.is_base)
      fail_at(line, "'" + a.name + "' in COMMON /" + a.common +
                        "/ is aligned, DYNAMIC or an alignment base: a distributed COMMON member is lowered "
                        "with a DISTRIBUTE only");
    if (m_focus == std::string::npos) return;
    const auto mc = m_main_common.find(a.name);
    if (mc == m_main_common.end() || mc->second.common != a.common)
      fail_at(line, "'" + a.name + "' in COMMON /" + a.common +
                        "/ is distributed here but not in the main program's COMMON /" + a.common +
                        "/: the main program creates the distributed COMMON members, so it must declare the "
                        "block with the same mapping");
    const DistArray& m = mc->second;
    if (m.dists != a.dists || m.onto != a.onto || m.elem != a.elem || m.bounds.size() != a.bounds.size() ||
        m.shadow != a.shadow)
      fail_at(line,
              "'" + a.name + "' in COMMON /" + a.common +
                  "/ has another type, rank, DISTRIBUTE, ONTO or SHADOW than in the main program (line " +
                  loc(m.dist_line) + "): HPF asks every declaration of a COMMON block to map it alike");
  }

  /// The bounds of the distributed COMMON members: the main program records them where it creates
  /// the arrays (a__lo, a__x in hpf__common_<block>), a procedure checks its own against them at
  /// entry (they may be written differently: N in one unit, 20 in another).
  std::string common_bounds(const std::string& ind) const {
    std::string s;
    for (const auto& n : m_array_order) {
      const DistArray& a = m_arrays.at(n);
      if (a.common.empty()) continue;
      const std::string r = "(1:" + std::to_string(a.bounds.size()) + ")";
      std::string lo;
      for (const auto& b : a.bounds)
        lo += std::string(lo.empty() ? "" : ", ") + "int(" + b.first + ", c_int64_t)";
      if (m_focus == std::string::npos) {
        s += wrap(ind, n + "__lo" + r + " = [" + lo + "]") +
             wrap(ind, n + "__x" + r + " = [" + extents_of(a.bounds) + "]");
        continue;
      }
      s += wrap(ind, "if (any(" + n + "__lo" + r + " /= [" + lo + "]) .or. any(" + n + "__x" + r + " /= [" +
                         extents_of(a.bounds) + "])) then");
      s += ind + "  error stop '" + unit_name(m_lines[m_focus].text) + ": " + n + " in COMMON /" + a.common +
           "/ (line " + loc(a.decl_line) + ") has other bounds than in the main program'\n" + ind +
           "end if\n";
    }
    return s;
  }

  /// The bounds of a distributed dummy argument from its array spec: explicit shape (`x(n, 0:m)`) or
  /// assumed shape (`x(:, 0:)`, the extents of the actual). Assumed size (`x(n, *)`) is refused:
  /// the callee does not know the extent to distribute.
  void dummy_bounds(DistArray& a, const std::string& spec, int line) const {
    const auto dims = split_top(spec);
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const std::string& b = dims[d];
      const auto colon = mask_strings(b).find(':');
      std::string lo = colon == std::string::npos ? "1" : trim(b.substr(0, colon));
      std::string hi = colon == std::string::npos ? trim(b) : trim(b.substr(colon + 1));
      if (hi == "*")
        fail_at(line, "distributed dummy argument '" + a.name + "(" + shown(spec) +
                          ")' is assumed-size: the procedure does not know its extent to distribute it; "
                          "declare it explicit-shape ('" +
                          a.name + "(n)') or assumed-shape ('" + a.name + "(:)')");
      if (lo.empty()) lo = "1";
      if (hi.empty()) hi = "(" + lo + ") + size(" + a.name + ", " + std::to_string(d + 1) + ") - 1";
      a.bounds.emplace_back(lo, hi);
    }
  }

  void set_intent(DistArray& a, const std::string& intent, int line) const {
    if (!a.dummy) fail_at(line, "INTENT(" + intent + ") of '" + a.name + "', which is not a dummy argument");
    std::string compact;
    for (char c : intent)
      if (!is_space(c)) compact += c;
    a.intent = compact;
  }

  /// `INTENT(spec) [::] x, y`: records the INTENT of the distributed dummies it names (the statement
  /// stays as it is). False for other lines.
  bool dummy_intent_statement(std::size_t i) {
    const std::string lt = lower_case(trim(m_lines[i].text));
    Scanner sc(lt);
    if (!sc.word("intent") || (sc.skip_space(), sc.peek() != '(')) return false;
    std::size_t end = 0;
    const std::string intent = trim(paren_group(lt, sc.pos(), end, where(m_lines[i].line)));
    std::string list = trim(lt.substr(end));
    if (list.rfind("::", 0) == 0) list = trim(list.substr(2));
    for (const auto& n : split_top(list))
      if (auto it = m_arrays.find(n); it != m_arrays.end()) set_intent(it->second, intent, m_lines[i].line);
    return true;
  }

  /// IMPLICIT NONE, or IMPLICIT type (a-h, o-z), ...: the implicit type of each initial letter.
  void parse_implicit(const std::string& lt, int line) {
    Scanner sc(lt);
    sc.word("implicit");
    sc.skip_space();
    if (sc.word("none")) {
      for (auto& t : m_implicit) t.clear();
      return;
    }
    // type-spec (letter-spec-list), ...: the type spec ends at the '(' whose group holds letters only.
    const std::string rest(sc.rest());
    std::size_t at = 0;
    while (at < rest.size()) {
      std::size_t open = rest.find('(', at);
      std::size_t end = 0;
      std::string group;
      while (open != std::string::npos) {
        group = paren_group(rest, open, end, where(line));
        const bool letters = std::all_of(group.begin(), group.end(), [](char c) {
          return is_letter(c) || c == '-' || c == ',' || is_space(c);
        });
        if (letters) break;
        open = rest.find('(', end);
      }
      if (open == std::string::npos) return; // not understood: arrays typed this way need a declaration
      const std::string type = trim(rest.substr(at, open - at));
      for (const auto& range : split_top(group)) {
        const std::string r = trim(range);
        if (r.empty() || !is_letter(r.front())) continue;
        const char last = r.size() >= 3 && r.find('-') != std::string::npos
                              ? trim(r.substr(r.find('-') + 1)).back()
                              : r.front();
        for (char c = r.front(); c <= last && is_letter(c); ++c)
          m_implicit[static_cast<std::size_t>(c - 'a')] = type;
      }
      at = end;
      while (at < rest.size() && (rest[at] == ',' || is_space(rest[at]))) ++at;
    }
  }

  /// True when the logical line belongs to the specification part.
  static bool is_specification(const LogicalLine& l) {
    const std::string t = trim(l.text);
    if (t.empty() || t.front() == '!') return true;
    // F2018 R504 specification-part: USE, IMPORT, IMPLICIT, declarations and attribute statements,
    // INTERFACE blocks (their bodies are scopes of their own, see scan_units), derived-type
    // definitions, FORMAT and DATA; INCLUDE lines are already replaced by what they include.
    static constexpr std::string_view keywords[] = {
        "use",       "implicit",     "integer",    "real",     "logical",      "character", "complex",
        "parameter", "dimension",    "data",       "save",     "external",     "intrinsic", "interface",
        "abstract",  "endinterface", "procedure",  "common",   "equivalence",  "namelist",  "pointer",
        "target",    "allocatable",  "optional",   "intent",   "public",       "private",   "import",
        "format",    "byte",         "sequence",   "volatile", "asynchronous", "protected", "value",
        "bind",      "enum",         "enumerator", "endenum",  "endtype",      "generic",   "module"};
    bool spec = false;
    for (const std::string_view k : keywords) {
      Scanner sc(t);
      if (sc.word(k)) spec = true;
    }
    Scanner dp(t);
    if (dp.keyword("double") && dp.skip_space() > 0 && dp.word("precision")) spec = true;
    Scanner ty(t);
    if (ty.word("type") &&
        (ty.skip_space(), ty.peek() == '(' || ty.peek() == ':' || ty.peek() == ',' || is_letter(ty.peek())))
      spec = true; // TYPE(t) :: x, and a derived-type definition TYPE [, attrs] [::] name
    Scanner en(t);
    if (en.word("end") && (en.skip_space(), en.word("interface") || en.word("type") || en.word("enum")))
      spec = true;
    Scanner dc(t);
    if (dc.keyword("double") && dc.skip_space() > 0 && dc.word("complex")) spec = true;
    return spec && !is_assignment_like(t);
  }

  /// `name = ...` or `name (...) = ...` (any ')' of the line may close the parentheses): an
  /// assignment to a variable that happens to be called like a keyword ("real = 1").
  static bool is_assignment_like(const std::string& t) {
    Scanner sc(t);
    const std::size_t start = sc.pos();
    while (!sc.done() && (is_name_char(sc.peek()))) sc.eat(sc.peek());
    if (sc.pos() == start) return false;
    sc.skip_space();
    if (sc.eat('=')) return true;
    if (!sc.eat('(')) return false;
    for (std::size_t i = sc.pos(); i < t.size(); ++i) {
      if (t[i] != ')') continue;
      Scanner after(t, i + 1);
      after.skip_space();
      if (after.peek() == '=') return true;
    }
    return false;
  }

  std::string grid_var(const std::string& onto) const { return onto.empty() ? "hpf__world_g" : onto + "__g"; }

  /// `1:a__e(1), 1:a__e(2), ...`: the bounds of a's storage seen as a rank-N array.
  static std::string storage_bounds(const DistArray& a) {
    std::string b;
    for (std::size_t d = 0; d < a.bounds.size(); ++d)
      b += std::string(d == 0 ? "" : ", ") + "1:" + a.name + "__e(" + std::to_string(d + 1) + ")";
    return b;
  }

  std::string bind_local(const DistArray& a, const std::string& ind) const {
    std::string s;
    s += ind + "call hpf_check(hpf_array_local(" + a.name + "__h, hpf__p, hpf__ext), '" + a.name +
         ": local block')\n";
    s += ind + a.name + "__n = product(hpf__ext(1:" + std::to_string(a.bounds.size()) + "))\n";
    s += ind + a.name + "__e = hpf__ext\n";
    s += ind + "if (" + a.name + "__n > 0) then\n";
    s += ind + "  call c_f_pointer(hpf__p, " + a.name + "__l, [" + a.name + "__n])\n";
    s += wrap(ind + "  ", a.name + "__p(" + storage_bounds(a) + ") => " + a.name + "__l");
    s += ind + "else\n" + ind + "  nullify (" + a.name + "__l, " + a.name + "__p)\n" + ind + "end if\n";
    return s;
  }

  std::string declarations(const std::string& ind) const {
    std::string s = ind + "! --- hpfrt: handles and local blocks of the distributed arrays (lowered) ---\n";
    for (const auto& p : m_proc_order) s += ind + "type(c_ptr) :: " + p + "__g\n";
    if (m_default_grid) s += ind + "type(c_ptr) :: hpf__world_g\n";
    for (const auto& t : m_template_order) s += ind + "type(c_ptr) :: " + t + "__t\n";
    for (const auto& n : m_array_order) {
      const DistArray& a = m_arrays.at(n);
      if (a.is_base) s += ind + "type(c_ptr) :: " + n + "__t\n";
      if (a.aligned() || a.realigned) {
        // The current alignment: dims, base indices, and the base (an index into hpf__bases).
        s += ind + "type(hpf_align_dim) :: " + n + "__ad(" + std::to_string(a.bounds.size()) + ")\n";
        s += ind + "integer(c_int64_t) :: " + n + "__ai(4)\n";
        s += ind + "integer :: " + n + "__b\n";
      }
      if (!a.module.empty()) continue; // the module's variables
      if (a.dummy && !handle_position(n).empty()) s += ind + "type(c_ptr) :: " + n + "__in\n";
      if (aliases(a))
        s += ind + "logical :: " + n + "__alias\n" + ind + "integer(c_int) :: " + n + "__o\n" + ind +
             "integer(c_int64_t) :: " + n + "__g(4)\n";
      if (a.common.empty()) s += handle_declarations(a, ind);
      std::string shape = ":";
      for (std::size_t d = 1; d < a.bounds.size(); ++d) shape += ", :";
      s += ind + info(a.elem).ftype + ", allocatable, target :: " + n + "__r(" + shape + ")\n";
    }
    s += ind + "integer(c_int) :: hpf__rank, hpf__size, hpf__own\n";
    s += ind + "integer :: hpf__ios\n";
    s += ind + "integer(c_int64_t) :: hpf__k, hpf__g(4), hpf__ext(4)\n";
    s += ind + "integer :: hpf__i1, hpf__i2, hpf__i3, hpf__i4\n";
    s += ind + "integer(c_int64_t) :: hpf__v(3, 4)\n";
    s += ind + "integer :: hpf__b1, hpf__b2, hpf__b3, hpf__b4, hpf__o1, hpf__o2, hpf__o3, hpf__o4\n";
    s += ind + "type(c_ptr) :: hpf__p\n";
    s += ind + "integer(c_int8_t), allocatable :: hpf__b(:)\n";
    for (const auto& t : m_tables)
      s += ind + (t.indirect ? "integer(c_int32_t)" : "integer(c_int64_t)") +
           ", allocatable, target :: " + t.name + "(:)\n";
    for (Elem e : all_elems) s += ind + info(e).ftype + ", target :: " + info(e).tmp + "\n";
    for (Elem e : all_elems)
      s += ind + info(e).ftype +
           ", allocatable, target :: " + std::string(info(e).tmp).replace(0, 7, "hpf__c_") + "(:)\n";
    for (Elem e : all_elems)
      s += ind + "integer(c_int64_t) :: " + std::string(info(e).tmp).replace(0, 7, "hpf__cn_") + " = -1\n";
    return s;
  }

  /// The handle, local block and its extents of a distributed array.
  /// The handle, the local storage (flat, and as a rank-N array with the copy an in-place FORALL
  /// reads), its extents and the owner-computes runs of one distributed array.
  static std::string handle_declarations(const DistArray& a, const std::string& ind) {
    const std::string& n = a.name;
    std::string shape = ":";
    for (std::size_t d = 1; d < a.bounds.size(); ++d) shape += ", :";
    return ind + "type(c_ptr) :: " + n + "__h\n" + ind + info(a.elem).ftype + ", pointer :: " + n +
           "__l(:)\n" + ind + info(a.elem).ftype + ", pointer, contiguous :: " + n + "__p(" + shape +
           ") => null(), " + n + "__q(" + shape + ") => null()\n" + ind + "integer(c_int64_t) :: " + n +
           "__n, " + n + "__e(4)\n" + ind + "type(hpf_runs) :: " + n + "__u(" +
           std::to_string(a.bounds.size()) + ")\n";
  }

  static std::string extents_of(const std::vector<std::pair<std::string, std::string>>& bounds) {
    std::string ext;
    for (const auto& [lo, hi] : bounds)
      ext += std::string(ext.empty() ? "" : ", ") + "int((" + hi + ") - (" + lo + ") + 1, c_int64_t)";
    return ext;
  }

  static std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += std::string(out.empty() ? "" : ", ") + x;
    return out;
  }

  /// The handle of a base: t__t for a template, a__t (its current layout) for an array.
  static std::string base_var(const std::string& base) { return base + "__t"; }

  /// The number that stands for `base` in a__b (1 + its position among templates and arrays).
  [[nodiscard]] int base_id(const std::string& base) const {
    const auto t = std::find(m_template_order.begin(), m_template_order.end(), base);
    if (t != m_template_order.end()) return 1 + static_cast<int>(t - m_template_order.begin());
    const auto a = std::find(m_array_order.begin(), m_array_order.end(), base);
    return 1 + static_cast<int>(m_template_order.size()) + static_cast<int>(a - m_array_order.begin());
  }

  /// Lower bound of dimension k of a base.
  [[nodiscard]] std::string base_lower(const std::string& base, std::size_t k, int line) const {
    const std::vector<std::pair<std::string, std::string>>* bounds = nullptr;
    if (auto t = m_templates.find(base); t != m_templates.end()) bounds = &t->second.bounds;
    if (auto a = m_arrays.find(base); bounds == nullptr && a != m_arrays.end()) bounds = &a->second.bounds;
    if (bounds == nullptr)
      fail_at(line,
              "ALIGN ... WITH " + base + ": '" + base + "' is neither a TEMPLATE nor a distributed array");
    if (k >= bounds->size())
      fail_at(line, "ALIGN ... WITH " + base + ": '" + base + "' has " + std::to_string(bounds->size()) +
                        " dimension(s), the ALIGN names dimension " + std::to_string(k + 1));
    return (*bounds)[k].first;
  }

  /// Statements that set a__ad, a__ai and a__b from an ALIGN or REALIGN of `a`. A base subscript
  /// E(i) must be s*i + o: s = E(1) - E(0) and o = E(0) are evaluated where the directive stands,
  /// and E(2) - 2 E(1) + E(0) /= 0 stops the program with the line. The 0-based alignment of
  /// dimension j (lower bound lj) with base dimension k (lower bound lk) is then stride s and
  /// offset s*lj + o - lk.
  std::string align_code(const DistArray& a, const AlignSpec& spec, const std::string& ind,
                         const char* directive = "ALIGN") const {
    std::string s;
    const std::string what = std::string(directive) + " " + a.name + " (line " + loc(spec.line) + ")";
    for (std::size_t j = 0; j < spec.dummies.size(); ++j) {
      const int k = spec.base_dim_of(j);
      const std::string lhs = a.name + "__ad(" + std::to_string(j + 1) + ") = ";
      if (k < 0) {
        s += ind + lhs + "hpf_align_dim(HPF_ALIGN_COLLAPSED, 1_c_int64_t, 0_c_int64_t)\n";
        continue;
      }
      const std::string& e = spec.subscripts[static_cast<std::size_t>(k)];
      const std::string& d = spec.dummies[j];
      auto at = [&](const char* v) { return "(" + replace_word(e, d, std::string("(") + v + ")") + ")"; };
      s += wrap(ind, "if (" + at("2") + " - 2 * " + at("1") + " + " + at("0") + " /= 0) then");
      s += ind + "  error stop '" + what + ": subscript " + std::to_string(k + 1) + " is not s*" + d +
           " + o'\n";
      s += ind + "end if\n";
      const std::string stride = "(" + at("1") + " - " + at("0") + ")";
      s += wrap(ind, lhs + "hpf_align_dim(" + std::to_string(k) + "_c_int32_t, int(" + stride +
                         ", c_int64_t), int(" + stride + " * (" + a.bounds[j].first + ") + " + at("0") +
                         " - (" + base_lower(spec.base, static_cast<std::size_t>(k), spec.line) +
                         "), c_int64_t))");
    }
    for (std::size_t k = 0; k < spec.subscripts.size(); ++k) {
      const std::string lhs = a.name + "__ai(" + std::to_string(k + 1) + ") = ";
      const std::string& e = spec.subscripts[k];
      if (e == "*") {
        s += ind + lhs + "HPF_ALIGN_REPLICATED\n";
      } else if (!spec.dummy_of(k).empty()) {
        s += ind + lhs + "0_c_int64_t\n";
      } else {
        s += wrap(ind, lhs + "int((" + e + ") - (" + base_lower(spec.base, k, spec.line) + "), c_int64_t)");
      }
    }
    s += ind + a.name + "__b = " + std::to_string(base_id(spec.base)) + "\n";
    return s;
  }

  std::string create_aligned(const DistArray& a, const std::string& ind) const {
    return align_code(a, a.align, ind) +
           wrap(ind, "call hpf_check(hpf_array_create_aligned('" + a.name + "', " + info(a.elem).hpf_type +
                         ", " + std::to_string(a.bounds.size()) + ", [" + extents_of(a.bounds) + "], " +
                         base_var(a.align.base) + ", " + a.name + "__ad, " + a.name + "__ai, " + a.name +
                         "__h), 'ALIGN " + a.name + " (line " + loc(a.align.line) + ")')") +
           bind_local(a, ind);
  }

  /// After the base `base` moved: every array whose current base it is takes its alignment again
  /// (HPF: REDISTRIBUTE of an align target carries the arrays aligned with it), and so on down.
  std::string carry(const std::string& base, const std::string& ind, int line) const {
    std::string s;
    for (const auto& n : m_array_order) {
      const DistArray& a = m_arrays.at(n);
      bool maybe = a.aligned() && a.align.base == base;
      for (const auto& [rn, spec] : m_realigns) maybe = maybe || (rn == n && spec.base == base);
      if (!maybe) continue;
      s += ind + "if (" + n + "__b == " + std::to_string(base_id(base)) + ") then\n";
      s += wrap(ind + "  ", "call hpf_check(hpf_array_realign(" + n + "__h, " + base_var(base) + ", " + n +
                                "__ad, " + n + "__ai, HPF_STRATEGY_AUTO), 'carried along with " + base +
                                " (line " + loc(line) + ")')");
      s += bind_local(a, ind + "  ");
      if (a.is_base) s += refresh_template(n, ind + "  ") + carry(n, ind + "  ", line);
      s += ind + "end if\n";
    }
    return s;
  }

  static std::string refresh_template(const std::string& n, const std::string& ind) {
    return ind + "call hpf_check(hpf_template_free(" + n + "__t), '" + n + "')\n" + ind +
           "call hpf_check(hpf_template_of_array(" + n + "__h, " + n + "__t), '" + n + "')\n";
  }

  std::string lower_realign(const LogicalLine& l, const std::string& ind) const {
    std::vector<std::string> names;
    const AlignSpec parsed = parse_align(trim(directive_body(l).substr(7)), l.line, names);
    std::string s;
    for (const auto& n : names) {
      const DistArray& a = m_arrays.at(n); // checked by collect()
      AlignSpec spec = parsed;
      resolve_colons(spec, a, "REALIGN");
      s += align_code(a, spec, ind, "REALIGN");
      s += wrap(ind, "call hpf_check(hpf_array_realign(" + n + "__h, " + base_var(spec.base) + ", " + n +
                         "__ad, " + n + "__ai, HPF_STRATEGY_AUTO), 'REALIGN " + n + " (line " + loc(l.line) +
                         ")')");
      s += bind_local(a, ind);
    }
    return s;
  }

  std::string create_array(const DistArray& a, const std::string& ind) const {
    std::string ext;
    for (const auto& [lo, hi] : a.bounds)
      ext += std::string(ext.empty() ? "" : ", ") + "int((" + hi + ") - (" + lo + ") + 1, c_int64_t)";
    std::string dists;
    for (const auto& d : a.dists) dists += std::string(dists.empty() ? "" : ", ") + d;
    std::string widths;
    for (const long long w : a.shadow)
      widths += std::string(widths.empty() ? "" : ", ") + std::to_string(w) + "_c_int64_t";
    const std::string where = "'DISTRIBUTE " + a.name + " (line " + loc(a.dist_line) + ")" +
                              (a.shadow.empty() ? "" : ", SHADOW (line " + loc(a.shadow_line) + ")") + "'";
    std::string s;
    for (const auto& t : a.tables)
      if (a.name == m_arrays_of_line.at(a.dist_line)) s += wrap(ind, t.assignment());
    s += wrap(ind, "call hpf_check(hpf_array_create" + std::string(a.shadow.empty() ? "" : "_shadow") + "('" +
                       a.name + "', " + info(a.elem).hpf_type + ", " + std::to_string(a.bounds.size()) +
                       ", [" + ext + "], [" + dists + "], " + (a.shadow.empty() ? "" : "[" + widths + "], ") +
                       grid_var(a.onto) + ", " + a.name + "__h), " + where + ")");
    return s + bind_local(a, ind);
  }

  std::string setup(const std::string& ind) const {
    std::string s = ind + "! --- hpfrt: runtime, processors and distributed arrays (lowered) ---\n";
    if (m_focus == std::string::npos)
      s += ind + "call hpf_check(hpf_init(c_null_ptr, c_null_ptr), 'hpf_init')\n";
    s += ind + "call hpf_check(hpf_world(hpf__rank, hpf__size), 'hpf_world')\n";
    if (m_focus == std::string::npos)
      for (const auto& m : m_lowered_modules) s += ind + "call hpf__init_" + m + "()\n";
    for (const auto& pn : m_proc_order) {
      const Processors& p = m_procs.at(pn);
      std::string shape;
      for (const auto& e : p.shape) shape += std::string(shape.empty() ? "" : ", ") + "int(" + e + ", c_int)";
      s += wrap(ind, "call hpf_check(hpf_grid_create_fitted(" + std::to_string(p.shape.size()) + ", [" +
                         shape + "], " + pn + "__g), 'PROCESSORS " + pn + " (line " + loc(p.line) + ")')");
    }
    if (m_default_grid)
      s += ind + "call hpf_check(hpf_grid_create_world(1, [hpf__size], hpf__world_g), 'default grid')\n";
    for (const auto& tn : m_template_order) {
      const Template& t = m_templates.at(tn);
      for (const auto& tb : t.tables) s += wrap(ind, tb.assignment());
      s += wrap(ind, "call hpf_check(hpf_template_create(" + std::to_string(t.bounds.size()) + ", [" +
                         extents_of(t.bounds) + "], [" + joined(t.dists) + "], " + grid_var(t.onto) + ", " +
                         tn + "__t), 'TEMPLATE " + tn + " (line " + loc(t.line) + "), DISTRIBUTE (line " +
                         loc(t.dist_line) + ")')");
    }
    s += dummy_handles_in(ind);
    for (const auto& n : m_creation_order) {
      const DistArray& a = m_arrays.at(n);
      if ((!a.common.empty() && m_focus != std::string::npos) || !a.module.empty())
        continue; // created elsewhere
      s += a.aligned() ? create_aligned(a, ind) : create_array(a, ind);
      if (a.is_base)
        s += ind + "call hpf_check(hpf_template_of_array(" + n + "__h, " + n + "__t), '" + n + "')\n";
    }
    return s + common_bounds(ind) + descriptive_in(ind) + dummies_in(ind);
  }

  /// HPF 2.0 section 4.4, a prescriptive (or descriptive) dummy mapping: on entry the dummy x as the
  /// caller passed it, whole on every rank, goes into x's own mapping through the replicated copy
  /// x__r; each rank keeps what it owns (no communication). INTENT(OUT) skips it. The dummy keeps its
  /// name and declaration (keyword arguments and interfaces stay valid); the lowered statements use
  /// x__h, x__l and x__r, never x.
  std::string dummies_in(const std::string& ind) const {
    std::string s;
    for (const auto& n : m_array_order)
      if (const DistArray& a = m_arrays.at(n); a.dummy && a.intent != "out")
        s += by_handle(a, ind, true) + allocate_copy(a, ind + "  ") + ind + "  " + n + "__r = " + n + "\n" +
             wrap(ind + "  ", "call hpf_check(hpf_array_store_owned(" + n + "__h, c_loc(" + n +
                                  "__r)), 'dummy " + n + " on entry to " + unit_name(m_lines[m_focus].text) +
                                  "')") +
             ind + "end if\n";
    return s;
  }

  /// The position (from 1) of dummy `n` among the lowered subroutine's dummies, "" when the caller
  /// cannot pass it a handle (a FUNCTION's dummies, or no hpf__calls in the file).
  std::string handle_position(const std::string& n) const {
    const std::string name = unit_name(m_lines[m_focus].text);
    if (m_handle_dummies.count(name) == 0) return "";
    const auto at = std::find(m_dummies.begin(), m_dummies.end(), n);
    return std::to_string(at - m_dummies.begin() + 1);
  }

  /// At the top of the execution part: the handles the caller passed for the distributed dummies
  /// (x__in, null when the actual is not a whole distributed array), taken before any other call
  /// can pass its own; a passed actual of another shape stops the program (HPF 2.0 section 4.9: no
  /// sequence association with a mapped dummy).
  std::string dummy_handles_in(const std::string& ind) const {
    std::string s;
    for (const auto& n : m_array_order) {
      const DistArray& a = m_arrays.at(n);
      const std::string pos = a.dummy ? handle_position(n) : "";
      if (pos.empty()) continue;
      const std::string r = std::to_string(a.bounds.size());
      s += ind + n + "__in = hpf__arg(" + pos + ")\n" + ind + "hpf__arg(" + pos + ") = c_null_ptr\n";
      s += wrap(ind, "if (c_associated(" + n + "__in) .and. any(hpf__arg_ext(1:" + r + ", " + pos + ") /= [" +
                         extents_of(a.bounds) + "])) then");
      s += ind + "  error stop '" + unit_name(m_lines[m_focus].text) + ": the actual argument of dummy " + n +
           " (line " + loc(a.decl_line) + ") has another shape'\n" + ind + "end if\n";
    }
    return s;
  }

  /// `if (passed) then <move between x__in and x__h> else`: the dummy's values come from (`in`) or go
  /// back to the caller's distributed actual by hpf_array_assign_section; the caller's block
  /// follows, and the caller closes the IF.
  std::string by_handle(const DistArray& a, const std::string& ind, bool in) const {
    const std::string& n = a.name;
    if (handle_position(n).empty()) return ind + "if (.true.) then\n";
    const std::string aliased = aliases(a) ? ind + "if (" + n + "__alias) then\n" + ind + "else " : ind;
    const std::string all = triplets(m_lines[m_focus], a, {});
    const std::string what =
        "'dummy " + n + (in ? " on entry to " : " on exit from ") + unit_name(m_lines[m_focus].text) + "'";
    return aliased + "if (c_associated(" + n + "__in)) then\n" +
           wrap(ind + "  ",
                "call hpf_check(hpf_array_assign_section(" +
                    (in ? n + "__h, " + all + ", " + n + "__in, " : n + "__in, " + all + ", " + n + "__h, ") +
                    all + ", c_null_ptr), " + what + ")") +
           ind + "else\n";
  }

  /// A descriptive DISTRIBUTE of a dummy a CALL may pass a handle for: the actual is checked to be
  /// mapped as described and is then the dummy itself (no copy).
  [[nodiscard]] bool aliases(const DistArray& a) const {
    return a.dummy && m_descriptive.count(a.name) != 0 && !a.aligned() && !handle_position(a.name).empty();
  }

  /// HPF 2.0 section 4.4, a descriptive mapping: the passed actual must be mapped as described. Each
  /// rank compares its local storage of the actual with that of the described layout (extents, then
  /// the global index of every slot), a local check with no communication; a difference stops the
  /// program with the line. The dummy's own array is then released and the actual's handle taken.
  std::string descriptive_in(const std::string& ind) const {
    std::string s;
    for (const auto& n : m_array_order) {
      const DistArray& a = m_arrays.at(n);
      if (!aliases(a)) continue;
      const std::string what = "'dummy " + n + " on entry to " + unit_name(m_lines[m_focus].text) + "'";
      s += ind + n + "__alias = .false.\n" + ind + "if (c_associated(" + n + "__in)) then\n";
      s += ind + "  call hpf_check(hpf_array_local(" + n + "__in, hpf__p, hpf__ext), " + what + ")\n";
      const std::string r = "(1:" + std::to_string(a.bounds.size()) + ")";
      s += ind + "  " + n + "__alias = all(hpf__ext" + r + " == " + n + "__e" + r + ")\n";
      s += ind + "  do hpf__k = 0_c_int64_t, " + n + "__n - 1\n" + ind + "    if (.not. " + n +
           "__alias) exit\n";
      s +=
          ind + "    call hpf_check(hpf_array_slot(" + n + "__in, hpf__k, hpf__own, hpf__g), " + what + ")\n";
      s += ind + "    call hpf_check(hpf_array_slot(" + n + "__h, hpf__k, " + n + "__o, " + n + "__g), " +
           what + ")\n";
      s += ind + "    " + n + "__alias = hpf__own == " + n + "__o .and. all(hpf__g" + r + " == " + n + "__g" +
           r + ")\n" + ind + "  end do\n";
      s += ind + "  if (.not. " + n + "__alias) then\n" + ind + "    error stop '" +
           unit_name(m_lines[m_focus].text) + ": the actual argument of dummy " + n +
           " is not mapped as its descriptive DISTRIBUTE (line " + loc(a.dist_line) + ") says'\n" + ind +
           "  end if\n";
      s += ind + "  call hpf_check(hpf_array_free(" + n + "__h), " + what + ")\n" + ind + "  " + n +
           "__h = " + n + "__in\n" + bind_local(a, ind + "  ") + ind + "end if\n";
    }
    return s;
  }

  /// On every exit the dummy's values go back to the actual on every rank (hpf_array_allgather), as
  /// the caller expects them. INTENT(IN) skips it.
  std::string dummies_out(const std::string& ind) const {
    std::string s;
    for (const auto& n : m_array_order)
      if (const DistArray& a = m_arrays.at(n); a.dummy && a.intent != "in")
        s += by_handle(a, ind, false) + allocate_copy(a, ind + "  ") +
             wrap(ind + "  ", "call hpf_check(hpf_array_allgather(" + n + "__h, c_loc(" + n +
                                  "__r)), 'dummy " + n + " on exit from " + unit_name(m_lines[m_focus].text) +
                                  "')") +
             ind + "  " + n + " = " + n + "__r\n" + ind + "end if\n";
    return s;
  }

  /// Allocates a__r, the replicated copy of `a`, with a's bounds unless it is allocated.
  static std::string allocate_copy(const DistArray& a, const std::string& ind) {
    std::string shape;
    for (const auto& [lo, hi] : a.bounds) shape += std::string(shape.empty() ? "" : ", ") + lo + ":" + hi;
    return wrap(ind, "if (.not. allocated(" + a.name + "__r)) allocate (" + a.name + "__r(" + shape + "))");
  }

  /// The release; in a procedure (`stop`: false) the dummies go back to their actuals first, and the
  /// runtime stays.
  std::string cleanup(const std::string& ind, bool stop = false) const {
    std::string s = ind + "! --- hpfrt: release (lowered) ---\n";
    if (m_focus != std::string::npos) s += dummies_out(ind);
    for (const auto& n : m_array_order) {
      if ((!m_arrays.at(n).common.empty() && m_focus != std::string::npos) || !m_arrays.at(n).module.empty())
        continue;
      s += ind + (aliases(m_arrays.at(n)) ? "if (.not. " + n + "__alias) " : "") +
           "call hpf_check(hpf_array_free(" + n + "__h), 'free " + n + "')\n";
      if (m_arrays.at(n).is_base)
        s += ind + "call hpf_check(hpf_template_free(" + n + "__t), 'free " + n + "')\n";
    }
    for (const auto& t : m_template_order)
      s += ind + "call hpf_check(hpf_template_free(" + t + "__t), 'free " + t + "')\n";
    for (const auto& p : m_proc_order)
      s += ind + "call hpf_check(hpf_grid_free(" + p + "__g), 'free " + p + "')\n";
    if (m_default_grid) s += ind + "call hpf_check(hpf_grid_free(hpf__world_g), 'free default grid')\n";
    if (m_focus == std::string::npos)
      for (const auto& m : m_lowered_modules) s += ind + "call hpf__free_" + m + "()\n";
    if (m_focus == std::string::npos || stop) s += ind + "call hpf_check(hpf_finalize(), 'hpf_finalize')\n";
    return s;
  }

  /// `arrays` without the distributed dummies of the lowered procedure, whose declarations stay, and
  /// the arrays of lowered modules (which a USE statement names).
  std::vector<std::string> non_dummies(std::vector<std::string> arrays) const {
    arrays.erase(
        std::remove_if(arrays.begin(), arrays.end(),
                       [&](const auto& n) { return m_arrays.at(n).dummy || !m_arrays.at(n).module.empty(); }),
        arrays.end());
    return arrays;
  }

  /// Distributed arrays referenced by a statement.
  std::vector<std::string> references(const std::string& stmt) const {
    std::vector<std::string> out;
    for (const auto& n : m_array_order)
      if (!find_word(stmt, n).empty()) out.push_back(n);
    return out;
  }

  /// Why an owner-computes or collective lowering does not take the statement: the statement then
  /// runs on replicated copies (emit_replicated), with this reason in a comment of the lowered program.
  [[noreturn]] void unsupported(const LogicalLine& l, const std::string& why) const {
    fail_at(l.line, why + " in '" + shown(trim(l.text)) + "'");
  }
  [[noreturn]] void invalid(const LogicalLine& l, const std::string& why) const {
    throw InvalidStatement(where(l.line) + why + " in '" + shown(trim(l.text)) + "'");
  }

  /// The range `lo:hi:stride` of a FORALL index or DO variable, as written (stride "1" when omitted).
  struct Triplet {
    std::string lo;
    std::string hi;
    std::string stride;
  };

  std::string lower_forall(const LogicalLine& l, const std::string& ind) const {
    const std::string& t = l.text;
    const auto open = t.find('(');
    std::size_t end = 0;
    const std::string header = paren_group(t, open, end, where(l.line));
    const std::string assign = trim(t.substr(end));
    const auto eq = mask_strings(assign).find('=');
    if (assign.empty() || eq == std::string::npos)
      unsupported(l, "only the single-statement FORALL is supported");
    const std::string lhs = trim(assign.substr(0, eq));
    const std::string rhs = trim(assign.substr(eq + 1));
    std::vector<std::string> idx;
    std::vector<Triplet> range;
    for (const auto& trip : split_top(header)) {
      // i = l:u or i = l:u:s with every part non-empty
      Scanner sc(trip);
      sc.skip_space();
      const std::string_view index = sc.name();
      sc.skip_space();
      const auto parts = sc.eat('=') ? split_colons(std::string(sc.rest())) : std::vector<std::string>();
      if (index.empty() || parts.size() < 2 || parts.size() > 3 ||
          std::any_of(parts.begin(), parts.end(), [](const std::string& x) { return trim(x).empty(); }))
        unsupported(l, "FORALL header item '" + shown(trip) + "' is not 'i = l:u' or 'i = l:u:s' (no mask)");
      if (parts.size() == 3 && integer_literal(trim(parts[2])) == 0)
        invalid(l, "FORALL header item '" + shown(trip) + "' has stride 0");
      idx.push_back(lower_case(std::string(index)));
      range.push_back({trim(parts[0]), trim(parts[1]), parts.size() == 3 ? trim(parts[2]) : "1"});
    }
    Scanner ls(lhs);
    const std::string name = lower_case(std::string(ls.name()));
    ls.skip_space();
    if (name.empty() || !ls.eat('(') || lhs.back() != ')')
      unsupported(l, "the FORALL must assign an element of a distributed array");
    const std::string subscripts = lhs.substr(ls.pos(), lhs.size() - 1 - ls.pos());
    if (m_arrays.count(name) == 0) unsupported(l, "the FORALL must assign an element of a distributed array");
    const DistArray& a = m_arrays.at(name);
    const auto subs = split_top(subscripts);
    if (subs.size() != a.bounds.size())
      unsupported(l, "'" + name + "' takes " + std::to_string(a.bounds.size()) + " subscripts");
    // Each subscript is a distinct FORALL index: the loop visits the local block (owner computes).
    std::set<std::string> used;
    std::vector<Triplet> dim_range; // the FORALL range of each dimension
    for (std::size_t d = 0; d < subs.size(); ++d) {
      const std::string s = lower_case(subs[d]);
      const auto k = std::find(idx.begin(), idx.end(), s);
      if (k == idx.end() || !used.insert(s).second)
        unsupported(l, "subscript '" + subs[d] + "' of '" + name + "' is not a distinct FORALL index");
      dim_range.push_back(range[static_cast<std::size_t>(k - idx.begin())]);
    }
    if (used.size() != idx.size()) unsupported(l, "every FORALL index must subscript '" + name + "'");
    return owner_loop(l, ind, a, subs, dim_range, rhs);
  }

  /// A reference on a FORALL's right-hand side to a distributed array at constant offsets from the
  /// FORALL indices that subscript the assigned array: `u(i - 1, j)` at [begin, end) of the text.
  struct NeighbourRead {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::string array;
    std::vector<long long> offset;
  };

  /// The distributed-array references of `rhs`, each checked to read at constant offsets along the
  /// assigned array's subscripts `subs` (the FORALL indices, in the order of its dimensions).
  std::vector<NeighbourRead> neighbour_reads(const LogicalLine& l, const std::string& rhs,
                                             const std::vector<std::string>& subs) const {
    std::vector<NeighbourRead> reads;
    const std::string masked = mask_strings(rhs);
    for (const auto& n : m_array_order) {
      for (const std::size_t at : find_word(rhs, n)) {
        Scanner sc(rhs, at + n.size());
        sc.skip_space();
        if (sc.peek() != '(')
          unsupported(l, "distributed array '" + n +
                             "' on the right-hand side of a FORALL must be subscripted " +
                             "by the FORALL indices plus or minus constants, like '" + n + "(i - 1)'");
        NeighbourRead r;
        r.begin = at;
        r.array = n;
        // The closing parenthesis, found on the masked text computed once (linear in the statement).
        int depth = 0;
        for (std::size_t i = sc.pos(); i < masked.size() && r.end == 0; ++i) {
          if (masked[i] == '(') ++depth;
          if (masked[i] == ')' && --depth == 0) r.end = i + 1;
        }
        if (r.end == 0) fail_at(l.line, "unbalanced parentheses in '" + shown(trim(rhs)) + "'");
        const auto args = split_top(rhs.substr(sc.pos() + 1, r.end - sc.pos() - 2));
        const std::string ref = shown(rhs.substr(at, r.end - at));
        if (args.size() != subs.size())
          unsupported(l, "'" + ref + "' has " + std::to_string(args.size()) +
                             " subscript(s); the assigned array has " + std::to_string(subs.size()));
        for (std::size_t d = 0; d < args.size(); ++d) {
          Scanner as(args[d]);
          as.skip_space();
          const std::string index = lower_case(std::string(as.name()));
          as.skip_space();
          const std::string rest(as.rest());
          std::optional<long long> off = 0;
          if (!rest.empty())
            off = rest.front() == '+' || rest.front() == '-' ? integer_literal(rest) : std::nullopt;
          if (index != lower_case(subs[d]) || !off.has_value())
            unsupported(l, "subscript " + std::to_string(d + 1) + " of '" + ref + "' is not '" + subs[d] +
                               "', '" + subs[d] + " + c' or '" + subs[d] +
                               " - c' (the FORALL index of the same dimension of the assigned array, c an "
                               "integer literal)");
          r.offset.push_back(off.value_or(0));
        }
        reads.push_back(r);
      }
    }
    std::sort(reads.begin(), reads.end(),
              [](const NeighbourRead& x, const NeighbourRead& y) { return x.begin < y.begin; });
    return reads;
  }

  /// Whether `x` lies element for element where `y` does (their bounds agree, misaligned checks): `x` is
  /// `y` itself, or aligned with `y` (or with `y`'s base, as `y` is) by the identity, `x(i, j) WITH
  /// base(i, j)`, and neither is REALIGNed (HPF 2.0 section 3.4).
  static bool identity(const AlignSpec& s) {
    if (s.dummies.size() != s.subscripts.size()) return false;
    for (std::size_t k = 0; k < s.dummies.size(); ++k)
      if (s.dummies[k] == "*" || lower_case(trim(s.subscripts[k])) != s.dummies[k]) return false;
    return true;
  }

  /// The distribution of dimension d of `b` (through identity alignments), "" when not known here.
  [[nodiscard]] std::string dist_of(const DistArray& b, std::size_t d) const {
    if (!b.aligned()) return d < b.dists.size() ? b.dists[d] : "";
    if (!identity(b.align) || b.realigned) return "";
    if (const auto a = m_arrays.find(b.align.base); a != m_arrays.end())
      return a->second.dynamic ? "" : dist_of(a->second, d);
    if (const auto t = m_templates.find(b.align.base); t != m_templates.end() && !t->second.dynamic)
      return d < t->second.dists.size() ? t->second.dists[d] : "";
    return "";
  }

  [[nodiscard]] bool same_place(const DistArray& x, const DistArray& y) const {
    if (x.realigned || y.realigned) return false;
    if (x.name == y.name) return true;
    if (!x.aligned()) return y.aligned() && identity(y.align) && y.align.base == x.name;
    if (!identity(x.align)) return false;
    if (x.align.base == y.name) return !y.aligned() || same_place(y, y);
    return y.aligned() && identity(y.align) && y.align.base == x.align.base;
  }

  /// Why `b` cannot be read element by element alongside `a` in an owner-computes loop over `a`
  /// ("" when it can: the same bounds, distributions and processors, and no REDISTRIBUTE).
  std::string misaligned(const DistArray& a, const DistArray& b) const {
    if (a.name == b.name) return "";
    auto spaceless = [](const std::string& e) {
      std::string out;
      for (const char c : lower_case(e))
        if (!is_space(c)) out += c;
      return out;
    };
    for (std::size_t d = 0; d < a.bounds.size(); ++d)
      if (spaceless(a.bounds[d].first) != spaceless(b.bounds[d].first) ||
          spaceless(a.bounds[d].second) != spaceless(b.bounds[d].second))
        return "its bounds differ from those of '" + a.name + "' in dimension " + std::to_string(d + 1);
    if (a.aligned() || b.aligned()) {
      if (a.align.line != b.align.line && !(same_place(a, b) && same_place(b, a)))
        return "it is not aligned like '" + a.name + "' (one ALIGN directive for both makes them aligned)";
    } else if (a.dists != b.dists || a.onto != b.onto)
      return "it is not distributed like '" + a.name + "' (DISTRIBUTE lines " + loc(a.dist_line) + " and " +
             loc(b.dist_line) + ")";
    if (a.dynamic || b.dynamic) return "'" + (a.dynamic ? a.name : b.name) + "' is DYNAMIC";
    return "";
  }

  /// An owner-computed FORALL `a(i, j) = rhs`: the shadows of the arrays read at offsets are updated,
  /// then a nest of DO loops, one pair per dimension (the runs of owned indices that hpf_owner_runs
  /// computes in closed form from the block-cyclic map and the range, then the indices of a run), visits
  /// the owned elements only; the storage is a rank-N array (a__p), so `b(i + 1, j)` reads the slot next
  /// to the one assigned, owned or in the shadow. When `a` itself is read at an offset, its storage is
  /// first copied (a__q): a FORALL evaluates every right-hand side before it assigns.
  std::string owner_loop(const LogicalLine& l, const std::string& ind, const DistArray& a,
                         const std::vector<std::string>& subs, const std::vector<Triplet>& dim_range,
                         const std::string& rhs) const {
    const std::string line = loc(l.line);
    const auto reads = neighbour_reads(l, rhs, subs);
    const std::size_t rank = a.bounds.size();
    std::vector<std::string> updates;
    std::set<std::pair<std::string, std::size_t>> own_runs; // (array, dimension) read through its own runs
    bool copy = false;
    for (const auto& r : reads) {
      const DistArray& b = m_arrays.at(r.array);
      const std::string ref = shown(rhs.substr(r.begin, r.end - r.begin));
      if (const std::string why = misaligned(a, b); !why.empty())
        unsupported(
            l, "the FORALL assigns '" + a.name + "' and reads '" + ref +
                   "', but an owner-computes loop reads only arrays aligned with the one it assigns: " + why);
      bool moves = false;
      std::vector<long long> need(rank, 0);
      for (std::size_t d = 0; d < rank; ++d) {
        const std::string dist = dist_of(b, d);
        // A dimension of several local blocks (CYCLIC, INDIRECT) pads each block with its shadow, so
        // an element of b sits at the slot of the same element of a only when both pad alike; else b
        // takes its own runs there (they match a's one to one: hpf_array_dim_runs).
        const bool one_block =
            dist == "hpf_block()" || dist == "hpf_collapsed()" || dist.rfind("hpf_gen_block(", 0) == 0;
        if (b.width(d) != a.width(d) && !one_block) own_runs.insert({b.name, d});
        if (r.offset[d] == 0) continue;
        copy = copy || b.name == a.name;
        if (dist.empty())
          unsupported(l, "'" + ref + "' reads a neighbour along dimension " + std::to_string(d + 1) +
                             " of an array whose distribution there comes from an ALIGN");
        if (dist == "hpf_collapsed()") continue; // a * dimension is local: no shadow needed
        need[d] = r.offset[d] < 0 ? -r.offset[d] : r.offset[d];
        moves = true;
      }
      bool enough = true;
      std::string widths;
      for (std::size_t d = 0; d < rank; ++d) {
        enough = enough && need[d] <= b.width(d);
        widths += std::string(d == 0 ? "" : ", ") + std::to_string(std::max(need[d], b.width(d)));
      }
      if (!enough) {
        std::string declared = "no SHADOW";
        if (!b.shadow.empty()) {
          declared = "SHADOW " + b.name + "(";
          for (std::size_t d = 0; d < rank; ++d)
            declared += (d == 0 ? "" : ", ") + std::to_string(b.width(d));
          declared += ") at line " + loc(b.shadow_line);
        }
        unsupported(l, "'" + ref + "' reads past the shadow of '" + b.name + "': it needs !HPF$ SHADOW " +
                           b.name + "(" + widths + ") (declared: " + declared + ")");
      }
      if (moves && std::find(updates.begin(), updates.end(), b.name) == updates.end())
        updates.push_back(b.name);
    }
    // Subscript d of the element the loop visits in array x: its index plus the run's offset into the
    // storage (x's own, or the assigned array's and the difference of the widths), plus c.
    auto at = [&](const DistArray& x, std::size_t d, long long c) {
      const std::string k = std::to_string(d + 1);
      const bool own = own_runs.count({x.name, d}) != 0;
      if (!own) c += x.width(d) - a.width(d);
      return "hpf__i" + k + " + " + (own ? x.name + "__u(" + k + ")%offset(hpf__b" + k + ")" : "hpf__o" + k) +
             (c == 0 ? "" : (c < 0 ? " - " : " + ") + std::to_string(c < 0 ? -c : c));
    };
    // The right-hand side with each read replaced by the storage slot it reads.
    std::string expr;
    std::size_t done = 0;
    for (const auto& r : reads) {
      const DistArray& b = m_arrays.at(r.array);
      std::string sub;
      for (std::size_t d = 0; d < rank; ++d) sub += std::string(d == 0 ? "" : ", ") + at(b, d, r.offset[d]);
      const bool from_copy = copy && b.name == a.name;
      expr +=
          rhs.substr(done, r.begin - done) + (from_copy ? a.name + "__q" : b.name + "__p") + "(" + sub + ")";
      done = r.end;
    }
    expr += rhs.substr(done);
    for (std::size_t d = 0; d < rank; ++d)
      expr = replace_word(expr, lower_case(subs[d]), "hpf__i" + std::to_string(d + 1));

    std::string s = ind + "! " + trim(l.text) + "   (line " + line + ", owner computes" +
                    (updates.empty() ? "" : ", neighbours from the shadow") + ")\n";
    // hpf__v(1:2, d): the first and last index the range visits inside the bounds; hpf__v(3, d): its
    // stride, each expression evaluated once, before anything is assigned.
    std::string nonempty;
    for (std::size_t d = 0; d < rank; ++d) {
      const std::string k = std::to_string(d + 1);
      const Triplet& t = dim_range[d];
      s += wrap(ind, "hpf__v(3, " + k + ") = int(" + t.stride + ", c_int64_t)");
      s += wrap(ind, "call hpf_visited(int(" + t.lo + ", c_int64_t), int(" + t.hi +
                         ", c_int64_t), hpf__v(3, " + k + "), int(" + a.bounds[d].first +
                         ", c_int64_t), int(" + a.bounds[d].second + ", c_int64_t), hpf__v(1, " + k +
                         "), hpf__v(2, " + k + "))");
      nonempty += std::string(d == 0 ? "" : " .and. ") + "hpf__v(1, " + k + ") <= hpf__v(2, " + k + ")";
    }
    // A read outside the array is an error of the program (the serial one reads out of bounds too).
    // The indices read come from the FORALL range and the bounds, which every rank has: every rank
    // finds the error before any collective and stops (no rank is left waiting in one).
    std::set<std::pair<std::size_t, long long>> checked;
    for (const auto& r : reads)
      for (std::size_t d = 0; d < rank; ++d) {
        const long long o = r.offset[d];
        if (o == 0 || !checked.insert({d, o}).second) continue;
        const std::string k = std::to_string(d + 1);
        const std::string edge =
            "hpf__v(" + std::string(o < 0 ? "1" : "2") + ", " + k + ") + (" + std::to_string(o) + ")";
        s += wrap(ind,
                  "if (" + nonempty + " .and. " + edge +
                      (o < 0 ? " < (" + a.bounds[d].first : " > (" + a.bounds[d].second) + ")) then",
                  true);
        s += wrap(ind + "  ", "if (hpf__rank == 0) write (*, '(a, i0)') 'FORALL (line " + line +
                                  ") reads outside the array in dimension " + k + " at index ', " + edge);
        s += ind + "  error stop 1\n" + ind + "end if\n";
      }
    for (const auto& n : updates)
      s += ind + "call hpf_check(hpf_array_update_shadow(" + n + "__h, HPF_BOUNDARY_PLAIN), 'FORALL (line " +
           line + "): SHADOW of " + n + "')\n";
    if (copy) {
      const std::string copy_name = std::string(info(a.elem).tmp).replace(0, 7, "hpf__c_");
      s += ind + "if (" + a.name + "__n > 0) then\n";
      // The copy's size is tracked in hpf__cn_*: it is reallocated only when it changes.
      const std::string size_name = std::string(copy_name).replace(0, 7, "hpf__cn_");
      s += ind + "  if (" + size_name + " /= " + a.name + "__n) then\n";
      s += ind + "    if (allocated(" + copy_name + ")) deallocate (" + copy_name + ")\n";
      s += ind + "    allocate (" + copy_name + "(" + a.name + "__n))\n";
      s += ind + "    " + size_name + " = " + a.name + "__n\n";
      s += ind + "  end if\n";
      s += ind + "  " + copy_name + "(:) = " + a.name + "__l(1:" + a.name + "__n)\n";
      s += wrap(ind + "  ", a.name + "__q(" + storage_bounds(a) + ") => " + copy_name);
      s += ind + "end if\n";
    }
    auto runs = [&](const std::string& x, std::size_t d) {
      const std::string k = std::to_string(d + 1);
      return wrap(ind, "call hpf_owner_runs(" + x + "__h, " + k + ", hpf__v(1, " + k + "), hpf__v(2, " + k +
                           "), abs(hpf__v(3, " + k + ")), int(" + a.bounds[d].first + ", c_int64_t), " + x +
                           "__u(" + k + "), 'FORALL (line " + line + ")')");
    };
    for (std::size_t d = 0; d < rank; ++d) s += runs(a.name, d);
    for (const auto& [x, d] : own_runs) s += runs(x, d);
    // The nest: dimension 1 innermost (it is contiguous in the storage). The innermost loop has a
    // unit-stride form the compiler vectorises, taken whenever the range's stride is 1.
    std::string in = ind;
    for (std::size_t d = rank; d-- > 0;) {
      const std::string k = std::to_string(d + 1);
      const std::string u = a.name + "__u(" + k + ")";
      s += in + "do hpf__b" + k + " = 1, " + u + "%n\n";
      s += in + "  hpf__o" + k + " = " + u + "%offset(hpf__b" + k + ")\n";
      const std::string head =
          in + "  do hpf__i" + k + " = " + u + "%first(hpf__b" + k + "), " + u + "%last(hpf__b" + k + ")";
      if (d > 0) {
        s += head + ", " + u + "%stride\n";
        in += "    ";
        continue;
      }
      std::string sub;
      for (std::size_t e = 0; e < rank; ++e) sub += std::string(e == 0 ? "" : ", ") + at(a, e, 0);
      const std::string assign = a.name + "__p(" + sub + ") = " + expr;
      const auto stride = integer_literal(dim_range[0].stride);
      if (stride && (*stride == 1 || *stride == -1)) {
        s += head + "\n" + wrap(in + "    ", assign, true) + in + "  end do\n";
      } else if (stride) {
        s += head + ", " + u + "%stride\n" + wrap(in + "    ", assign, true) + in + "  end do\n";
      } else {
        s += in + "  if (" + u + "%stride == 1) then\n";
        s += "  " + head + "\n" + wrap(in + "      ", assign, true) + in + "    end do\n";
        s += in + "  else\n";
        s += "  " + head + ", " + u + "%stride\n" + wrap(in + "      ", assign, true) + in + "    end do\n";
        s += in + "  end if\n";
      }
      s += in + "end do\n";
    }
    for (std::size_t d = 1; d < rank; ++d) {
      in.resize(in.size() - 4);
      s += in + "  end do\n" + in + "end do\n";
    }
    return s;
  }

  /// `b = CSHIFT(a, shift [, dim])` or `b = EOSHIFT(a, shift [, boundary] [, dim])` (arguments by
  /// position or keyword): hpf_cshift / hpf_eoshift into b. Returns "" when `rhs` calls neither.
  std::string lower_shift(const LogicalLine& l, const std::string& ind, const DistArray& b,
                          const std::string& rhs) const {
    Scanner sc(rhs);
    const bool cshift = sc.word("cshift");
    if (!cshift && !sc.word("eoshift")) return "";
    const std::string fn = cshift ? "CSHIFT" : "EOSHIFT";
    sc.skip_space();
    if (sc.peek() != '(') return "";
    std::size_t end = 0;
    const std::string group = paren_group(rhs, sc.pos(), end, where(l.line));
    if (!trim(rhs.substr(end)).empty())
      unsupported(l, fn + " must be the whole right-hand side ('" + b.name + " = " + fn + "(...)')");
    const std::vector<std::string> names =
        cshift ? std::vector<std::string>{"array", "shift", "dim"}
               : std::vector<std::string>{"array", "shift", "boundary", "dim"};
    std::map<std::string, std::string> args;
    bool keywords = false;
    const auto list = split_top(group);
    for (std::size_t k = 0; k < list.size(); ++k) {
      Scanner as(list[k]);
      const std::string key = lower_case(std::string(as.name()));
      as.skip_space();
      std::string name;
      std::string value = list[k];
      if (!key.empty() && as.peek() == '=' && as.rest().substr(0, 2) != "==") {
        as.eat('=');
        name = key;
        value = trim(std::string(as.rest()));
        keywords = true;
        if (std::find(names.begin(), names.end(), name) == names.end())
          invalid(l, fn + " has no argument '" + name + "'");
      } else {
        if (keywords) invalid(l, fn + ": a positional argument after a keyword argument");
        if (k >= names.size())
          invalid(l, fn + " takes at most " + std::to_string(names.size()) + " arguments");
        name = names[k];
      }
      if (value.empty() || !args.emplace(name, value).second)
        invalid(l, fn + ": argument '" + name + "' given twice or empty");
    }
    if (args.count("array") == 0 || args.count("shift") == 0)
      invalid(l, fn + " needs its ARRAY and SHIFT arguments");
    const std::string src = lower_case(args["array"]);
    if (m_arrays.count(src) == 0)
      unsupported(l, fn + "'s ARRAY '" + shown(args["array"]) + "' is not a distributed array");
    const DistArray& a = m_arrays.at(src);
    if (a.name == b.name)
      unsupported(l, fn + " of '" + a.name + "' into '" + a.name +
                         "' itself: assign it to another array of the same layout, then copy");
    for (const auto& key : {"shift", "dim", "boundary"})
      if (args.count(key) != 0 && !references(args[key]).empty())
        unsupported(l, fn + "'s " + lower_case(key) + " argument references distributed array '" +
                           references(args[key])[0] + "'");
    // Target and source: the same type, bounds, distributions, processors and SHADOW widths.
    std::string why = misaligned(b, a);
    // DYNAMIC arrays may be shifted: the runtime compares their layouts when it shifts.
    if (why.find("is DYNAMIC") != std::string::npos) why.clear();
    if (why.empty() && a.elem != b.elem) why = "its element type differs from that of '" + b.name + "'";
    if (why.empty() && a.shadow != b.shadow && (a.has_shadow() || b.has_shadow()))
      why = "its SHADOW widths differ from those of '" + b.name + "'";
    if (!why.empty())
      unsupported(l,
                  fn + " of '" + a.name + "' into '" + b.name + "' needs arrays of the same layout: " + why);
    const std::string rank = std::to_string(a.bounds.size());
    std::string dim = "1";
    if (args.count("dim") != 0) {
      dim = args["dim"];
      if (const auto v = integer_literal(dim); v && (*v < 1 || *v > static_cast<long long>(a.bounds.size())))
        invalid(l, fn + ": DIM must be in [1, " + rank + "] for the rank-" + rank + " '" + a.name +
                       "', got " + std::to_string(*v));
    }
    const std::string line = loc(l.line);
    const std::string call_args =
        a.name + "__h, int(" + args["shift"] + ", c_int64_t), int(" + dim + ", c_int) - 1";
    if (cshift)
      return wrap(ind, "call hpf_check(hpf_cshift(" + call_args + ", " + b.name + "__h), 'CSHIFT (line " +
                           line + ")')");
    std::string s;
    std::string boundary = "c_null_ptr"; // EOSHIFT's default boundary: zero
    if (args.count("boundary") != 0) {
      s += ind + info(a.elem).tmp + " = " + args["boundary"] + "\n";
      boundary = std::string("c_loc(") + info(a.elem).tmp + ")";
    }
    return s + wrap(ind, "call hpf_check(hpf_eoshift(" + call_args + ", " + boundary + ", " + b.name +
                             "__h), 'EOSHIFT (line " + line + ")')");
  }

  /// A reference `name` or `name(subscripts)` that is all of `text`, to a distributed array: the
  /// array and its subscripts (empty: the whole array). nullopt when `text` is something else.
  std::optional<std::pair<const DistArray*, std::vector<std::string>>>
  array_reference(const LogicalLine& l, const std::string& text) const {
    Scanner sc(text);
    sc.skip_space();
    const std::string n = lower_case(std::string(sc.name()));
    if (n.empty() || m_arrays.count(n) == 0) return std::nullopt;
    sc.skip_space();
    std::vector<std::string> subs;
    if (sc.peek() == '(') {
      std::size_t end = 0;
      const std::string group = paren_group(text, sc.pos(), end, where(l.line));
      if (!trim(text.substr(end)).empty()) return std::nullopt;
      subs = split_top(group);
    } else if (!sc.done()) {
      return std::nullopt;
    }
    return std::make_pair(&m_arrays.at(n), subs);
  }

  /// The hpf_triplet constructors of a section of `a` (0-based: the declared lower bounds are
  /// subtracted). Subscripts: e (one element), l:h[:s] with l, h or both omitted, or ':'.
  std::string triplets(const LogicalLine& l, const DistArray& a, const std::vector<std::string>& subs) const {
    const std::size_t rank = a.bounds.size();
    if (!subs.empty() && subs.size() != rank)
      unsupported(l, "'" + a.name + "' has rank " + std::to_string(rank) + " but " +
                         std::to_string(subs.size()) + " subscripts");
    auto i64 = [](const std::string& e) { return "int(" + e + ", c_int64_t)"; };
    std::string out;
    for (std::size_t d = 0; d < rank; ++d) {
      const auto& [lb, ub] = a.bounds[d];
      const std::string sub = subs.empty() ? ":" : subs[d];
      if (sub.empty()) unsupported(l, "an empty subscript of '" + a.name + "'");
      if (!references(sub).empty())
        unsupported(l, "a subscript of '" + a.name + "' references distributed array '" + references(sub)[0] +
                           "'");
      const auto parts = split_colons(sub);
      std::string lo, hi, stride = "1";
      if (parts.size() == 1) {
        lo = hi = "(" + parts[0] + ") - (" + lb + ")";
      } else if (parts.size() <= 3) {
        if (parts.size() == 3 && !parts[2].empty()) stride = parts[2];
        if (const auto v = integer_literal(stride); v && *v == 0)
          unsupported(l, "a section of '" + a.name + "' with stride 0");
        // Fortran's defaults, whatever the stride's sign: the declared lower and upper bounds (so
        // a(::-1) is empty, as in the serial program).
        const std::string first = parts[0].empty() ? lb : parts[0];
        const std::string last = parts[1].empty() ? ub : parts[1];
        lo = "(" + first + ") - (" + lb + ")";
        hi = "(" + last + ") - (" + lb + ")";
      } else {
        unsupported(l, "subscript '" + shown(sub) + "' of '" + a.name + "' is not a triplet l:h:s");
      }
      out += std::string(out.empty() ? "" : ", ") + "hpf_triplet(" + i64(lo) + ", " + i64(hi) + ", " +
             i64(stride) + ")";
    }
    return "[" + out + "]";
  }

  /// `b(sb) = a(sa)` and `b = a` between distributed arrays (any distributions: hpf_array_assign_section),
  /// and `b = TRANSPOSE(a)` (hpf_array_transpose). Returns "" when the statement is neither.
  std::string lower_section_assign(const LogicalLine& l, const std::string& ind, const std::string& lhs,
                                   const std::string& rhs) const {
    const auto dst = array_reference(l, lhs);
    if (!dst) return "";
    const DistArray& b = *dst->first;
    const std::string line = loc(l.line);
    Scanner tr(rhs);
    if (tr.word("transpose") && (tr.skip_space(), tr.peek() == '(')) {
      std::size_t end = 0;
      const std::string group = paren_group(rhs, tr.pos(), end, m_file + ":" + line + ": ");
      const auto src = array_reference(l, group);
      if (!trim(rhs.substr(end)).empty() || !src || !src->second.empty())
        unsupported(l, "TRANSPOSE takes a whole distributed array and must be the whole right-hand side");
      const DistArray& a = *src->first;
      if (!dst->second.empty()) unsupported(l, "TRANSPOSE into a section of '" + b.name + "'");
      if (a.bounds.size() != 2 || b.bounds.size() != 2 || a.elem != b.elem)
        unsupported(l, "TRANSPOSE needs two rank-2 arrays of the same type ('" + a.name + "', '" + b.name +
                           "')");
      if (a.name == b.name) unsupported(l, "TRANSPOSE of '" + a.name + "' into itself");
      return wrap(ind, "call hpf_check(hpf_array_transpose(" + a.name + "__h, c_null_ptr, " + b.name +
                           "__h), 'TRANSPOSE (line " + line + ")')");
    }
    const auto src = array_reference(l, rhs);
    if (!src) return "";
    const DistArray& a = *src->first;
    // One element on the right and more on the left is a broadcast of a scalar, not a section.
    auto scalar = [](const std::vector<std::string>& subs) {
      return !subs.empty() && std::none_of(subs.begin(), subs.end(),
                                           [](const std::string& x) { return split_colons(x).size() > 1; });
    };
    if (scalar(src->second) && !scalar(dst->second)) return "";
    if (dst->second.empty() && src->second.empty() && a.name == b.name)
      return ind + "! " + trim(l.text) + "\n";
    if (a.elem != b.elem || a.bounds.size() != b.bounds.size())
      unsupported(l, "a section assignment needs arrays of the same type and rank ('" + b.name + "', '" +
                         a.name + "')");
    return wrap(ind, "call hpf_check(hpf_array_assign_section(" + b.name + "__h, " +
                         triplets(l, b, dst->second) + ", " + a.name + "__h, " + triplets(l, a, src->second) +
                         ", c_null_ptr), 'section assignment (line " + line + ")')");
  }

  std::string lower_redistribute(const LogicalLine& l, const std::string& ind) {
    std::vector<std::string> names;
    std::vector<std::string> dists;
    std::string onto;
    std::vector<DistTable> tables;
    parse_dist_spec(trim(directive_body(l).substr(12)), l.line, names, dists, onto, tables);
    if (!onto.empty() && m_procs.count(onto) == 0)
      fail_at(l.line, "REDISTRIBUTE ONTO " + onto + ": no PROCESSORS " + onto);
    std::string s;
    for (const auto& t : tables) s += wrap(ind, t.assignment());
    for (const auto& n : names) {
      if (auto t = m_templates.find(n); t != m_templates.end()) {
        s += redistribute_template(t->second, dists, onto, ind, l.line);
        continue;
      }
      DistArray& a = array_named(n, l.line, "REDISTRIBUTE");
      if (!a.dynamic) fail_at(l.line, "REDISTRIBUTE " + n + ": the array is not declared !HPF$ DYNAMIC");
      if (a.aligned())
        fail_at(l.line, "REDISTRIBUTE " + n + ": '" + n + "' is aligned (ALIGN at line " + loc(a.align.line) +
                            "); redistribute its base, or REALIGN it");
      const std::string grid = onto.empty() ? a.onto : onto;
      if (dists.empty())
        for (std::size_t d = 0; d < a.bounds.size(); ++d)
          dists.emplace_back(d < (grid.empty() ? 1 : m_procs.at(grid).shape.size()) ? "hpf_block()"
                                                                                    : "hpf_collapsed()");
      if (dists.size() != a.bounds.size())
        fail_at(l.line, "REDISTRIBUTE " + n + ": " + std::to_string(dists.size()) + " distributions for " +
                            std::to_string(a.bounds.size()) + " dimension(s)");
      const std::string target = onto.empty() ? a.onto : onto;
      check_grid_rank(a, target, dists, l.line);
      if (!a.shadow.empty()) check_shadow_dists("REDISTRIBUTE " + n, a.shadow, dists, l.line);
      std::string dl;
      for (const auto& d : dists) dl += std::string(dl.empty() ? "" : ", ") + d;
      s += wrap(ind, "call hpf_check(hpf_array_redistribute(" + n + "__h, [" + dl + "], " + grid_var(target) +
                         ", HPF_STRATEGY_AUTO), 'REDISTRIBUTE " + n + " (line " + loc(l.line) + ")')");
      s += bind_local(a, ind);
      if (a.realigned) s += ind + n + "__b = 0\n"; // distributed now, aligned with nothing
      if (a.is_base) s += refresh_template(n, ind) + carry(n, ind, l.line);
    }
    return s;
  }

  std::string redistribute_template(const Template& t, const std::vector<std::string>& dists,
                                    const std::string& onto, const std::string& ind, int line) {
    if (!t.dynamic) fail_at(line, "REDISTRIBUTE " + t.name + ": the template is not declared !HPF$ DYNAMIC");
    if (dists.size() != t.bounds.size())
      fail_at(line, "REDISTRIBUTE " + t.name + ": " + std::to_string(dists.size()) + " distributions for " +
                        std::to_string(t.bounds.size()) + " dimension(s)");
    const std::string target = onto.empty() ? t.onto : onto;
    DistArray probe;
    probe.name = t.name;
    check_grid_rank(probe, target, dists, line);
    return wrap(ind, "call hpf_check(hpf_template_redistribute(" + t.name + "__t, [" + joined(dists) + "], " +
                         grid_var(target) + "), 'REDISTRIBUTE " + t.name + " (line " + loc(line) + ")')") +
           carry(t.name, ind, line);
  }

  /// `a = expr` where `expr` combines whole distributed arrays aligned with `a` (same bounds and
  /// mapping), scalars, elements of other arrays and elemental intrinsics (F2018 16.9) is the FORALL
  /// `forall (hpf__j1 = l1:u1, ...) a(hpf__j1, ...) = expr(hpf__j1, ...)`, which is owner-computed.
  /// nullopt for any other `expr`.
  std::optional<std::string> elementwise(const DistArray& a, const std::string& rhs) const {
    static const std::set<std::string> elemental = {
        "abs",    "sqrt",   "exp",   "log",     "log10",  "sin",     "cos",   "tan",   "asin",
        "acos",   "atan",   "atan2", "sinh",    "cosh",   "tanh",    "dble",  "real",  "int",
        "nint",   "float",  "sngl",  "mod",     "modulo", "max",     "min",   "sign",  "dim",
        "aint",   "anint",  "floor", "ceiling", "merge",  "dprod",   "iand",  "ior",   "ieor",
        "not",    "dabs",   "dsqrt", "dexp",    "dlog",   "dsin",    "dcos",  "amax1", "amin1",
        "max0",   "min0",   "dmax1", "dmin1",   "iabs",   "logical", "cmplx", "conjg", "aimag",
        "dcmplx", "dconjg", "dimag", "cabs",    "csqrt",  "cexp",    "clog",  "csin",  "ccos"};
    if (references(rhs).empty()) return std::nullopt;
    const std::string m = lower_case(mask_strings(rhs));
    std::string subs;
    for (std::size_t d = 0; d < a.bounds.size(); ++d)
      subs += (d == 0 ? "" : ", ") + std::string("hpf__j") + std::to_string(d + 1);
    std::string out;
    std::size_t done = 0;
    for (std::size_t i = 0; i < m.size(); ++i) {
      if (!is_letter(m[i]) || (i > 0 && (is_name_char(m[i - 1]) || m[i - 1] == '.' || m[i - 1] == '%')))
        continue;
      std::size_t e = i;
      while (e < m.size() && is_name_char(m[e])) ++e;
      const std::string n = m.substr(i, e - i);
      Scanner after(m, e);
      after.skip_space();
      const bool call = after.peek() == '(';
      if (m_arrays.count(n) != 0) {
        if (call || !misaligned(a, m_arrays.at(n)).empty()) return std::nullopt;
        out += rhs.substr(done, e - done) + "(" + subs + ")";
        done = e;
      } else if (m_local_arrays.count(n) != 0) {
        if (!call) return std::nullopt; // a whole array of the program: not elementwise here
        std::size_t end = 0;
        for (const auto& sub : split_top(paren_group(m, after.pos(), end, "")))
          if (split_colons(sub).size() > 1) return std::nullopt;
      } else if (call && elemental.count(n) == 0) {
        return std::nullopt; // a function that may return an array, or a keyword argument list
      }
      i = e - 1;
    }
    out += rhs.substr(done);
    std::string header;
    for (std::size_t d = 0; d < a.bounds.size(); ++d)
      header += std::string(d == 0 ? "" : ", ") + "hpf__j" + std::to_string(d + 1) + " = " +
                a.bounds[d].first + ":" + a.bounds[d].second;
    return "forall (" + header + ") " + a.name + "(" + subs + ") = " + out;
  }

  /// Whether `e` is surely a scalar: no array constructor, no array-valued intrinsic, and the main
  /// program's arrays only as elements (every subscript without ':'). A fill takes a scalar only.
  bool scalar_expression(const std::string& e) const {
    const std::string m = mask_strings(e);
    if (m.find("(/") != std::string::npos || m.find('[') != std::string::npos) return false;
    for (const char* f : {"reshape", "spread", "pack", "unpack", "matmul", "transpose", "cshift", "eoshift"})
      if (!find_word(e, f).empty()) return false;
    for (const auto& n : m_local_arrays)
      for (const std::size_t at : find_word(e, n)) {
        Scanner sc(e, at + n.size());
        sc.skip_space();
        if (sc.peek() != '(') return false;
        std::size_t end = 0;
        for (const auto& sub : split_top(paren_group(e, sc.pos(), end, "")))
          if (split_colons(sub).size() > 1) return false;
      }
    return true;
  }

  std::string lower_statement(const LogicalLine& l, const std::string& ind) {
    const std::string t = trim(l.text);
    const std::string lt = lower_case(t);
    const auto refs = references(t);
    if (is_output(t) || is_output_if(t, l.line)) check_rank0_call(l, t);
    if (!refs.empty())
      if (const auto call = lower_call(l, t)) return *call;
    if (const std::string f = collective_call(t); !f.empty() && !refs.empty())
      unsupported(l, "it calls FUNCTION " + f +
                         ", which communicates: an owner-computes loop would call it on "
                         "some ranks only");
    if (refs.empty()) {
      std::string out;
      for (const auto& p : l.physical) out += replace_number_of_processors(p) + "\n";
      Scanner io(t);
      const bool print = io.word("print");
      Scanner wr(t);
      const bool write =
          wr.keyword("write") && (wr.skip_space(), wr.peek() == '(') && !internal_write(t, l.line);
      if (is_input(t)) return lower_read(l, replace_number_of_processors(t), l.label);
      if (std::string stop = lower_stop(l, replace_number_of_processors(t), l.label); !stop.empty())
        return stop;
      if (const auto g = after_group(t, "if", l.line); g && is_input(g->first))
        return lower_read_if(l, replace_number_of_processors(g->second), g->first, l.label);
      // A logical IF whose action prints: on rank 0 too.
      if (const auto g = after_group(t, "if", l.line);
          g && is_output(g->first) && !internal_write(g->first, l.line))
        return wrap("  ",
                    (l.label.empty() ? "" : l.label + " ") + "if (hpf__rank == 0 .and. (" +
                        replace_number_of_processors(g->second) + ")) " +
                        replace_number_of_processors(g->first),
                    true);
      if ((print || write) && !l.label.empty()) return print_on_root(l, "hpf__rank == 0");
      if (print || write) return ind + "if (hpf__rank == 0) then\n" + out + ind + "end if\n";
      return out;
    }
    Scanner fa(lt);
    if (fa.keyword("forall") && (fa.skip_space(), fa.peek() == '(')) return lower_forall(l, ind);
    if (const auto w = after_group(t, "where", l.line); w && !w->first.empty()) {
      const auto assigned = written_by(w->first, l.line);
      if (const auto s =
              masked_assignment(l, w->first, "(" + w->second + ")", {assigned.begin(), assigned.end()}))
        return ind + "! " + t + "   (line " + loc(l.line) + ": as a = MERGE(expr, a, mask))\n" + *s;
      unsupported(l, "a WHERE statement is owner-computed only for a whole array of the layout of those its "
                     "mask and expression read, with elemental intrinsics, and a mask that does not read it");
    }
    const auto eq = mask_strings(t).find('=');
    if (eq != std::string::npos && eq + 1 < t.size() && t[eq + 1] != '=' &&
        (eq == 0 || std::string("<>/=").find(t[eq - 1]) == std::string::npos)) {
      const std::string lhs = lower_case(trim(t.substr(0, eq)));
      const std::string rhs = trim(t.substr(eq + 1));
      if (std::string sec = lower_section_assign(l, ind, trim(t.substr(0, eq)), rhs); !sec.empty())
        return sec;
      if (m_arrays.count(lhs) != 0) {
        if (std::string shift = lower_shift(l, ind, m_arrays.at(lhs), rhs); !shift.empty()) return shift;
        if (const auto forall = elementwise(m_arrays.at(lhs), rhs))
          return lower_forall(LogicalLine{*forall, l.line, {}, ""}, ind);
        if (!references(rhs).empty())
          unsupported(l, "the right-hand side of a whole-array assignment references a distributed array "
                         "other than as a whole array aligned with '" +
                             lhs + "', or calls a function that is not an elemental intrinsic");
        if (!scalar_expression(rhs))
          unsupported(l, "the right-hand side of a whole-array assignment may be an array");
        const char* tmp = info(m_arrays.at(lhs).elem).tmp;
        return ind + std::string(tmp) + " = " + rhs + "\n" + ind + "call hpf_check(hpf_array_fill(" + lhs +
               "__h, c_loc(" + tmp + ")), 'line " + loc(l.line) + "')\n";
      }
      const std::string lrhs = lower_case(rhs);
      // x = SUM(a) / MINVAL(a) / MAXVAL(a)
      Scanner rs(lrhs);
      const std::string fn = rs.keyword("sum")      ? "sum"
                             : rs.keyword("minval") ? "min"
                             : rs.keyword("maxval") ? "max"
                                                    : "";
      std::string arg;
      if (!fn.empty() && (rs.skip_space(), rs.eat('('))) {
        rs.skip_space();
        arg = std::string(rs.name());
        rs.skip_space();
        if (!rs.eat(')') || !rs.done()) arg.clear();
      }
      if (references(lhs).empty() && !arg.empty() && m_arrays.count(arg) != 0) {
        const char* tmp = info(m_arrays.at(arg).elem).tmp;
        return ind + "call hpf_check(hpf_array_" + fn + "(" + arg + "__h, c_loc(" + tmp + ")), 'line " +
               loc(l.line) + "')\n" + ind + trim(t.substr(0, eq)) + " = " + tmp + "\n";
      }
    }
    unsupported(l, "unsupported use of distributed array '" + refs[0] + "'");
  }

  // ---- The execution part as a tree of constructs (F2018 chapter 11). A statement that no
  // owner-computes lowering takes runs on every rank over replicated copies of the distributed
  // arrays it references (gathered before it, written back after it): HPF 2.0 section 3.1 lets a
  // mapping change where data lives, never what the program computes, so any execution that gives
  // the serial results is correct. The largest enclosing construct that holds no owner-computes
  // statement runs that way as a whole, so that a loop over elements gathers once, not per element.

  /// What a line of the execution part opens, continues or closes.
  enum class Kind { Statement, Do, DoWhile, If, Select, Where, Forall, Middle, End };

  struct LineKind {
    Kind kind = Kind::Statement;
    std::string label; // the terminal label of a labelled DO ("" for a block construct)
  };

  /// A statement, or a construct with the lines [begin, end] and its inner statements and constructs.
  struct Node {
    std::size_t begin = 0;
    std::size_t end = 0;
    Kind kind = Kind::Statement;
    std::string label;
    std::vector<Node> kids;
  };

  /// The statement without its construct name ("outer: do i = 1, n" -> "do i = 1, n").
  static std::string without_construct_name(const std::string& t) {
    Scanner sc(t);
    sc.skip_space();
    if (sc.name().empty()) return t;
    sc.skip_space();
    if (sc.peek() != ':' || sc.rest().substr(0, 2) == "::") return t;
    sc.eat(':');
    return trim(std::string(sc.rest()));
  }

  /// The text after the parenthesised group that follows `keyword` at the start of `t` ("if (c) x = 1"
  /// -> "x = 1"), and the group itself; nullopt when `t` does not start so.
  std::optional<std::pair<std::string, std::string>> after_group(const std::string& t,
                                                                 std::string_view keyword, int line) const {
    Scanner sc(t);
    sc.skip_space();
    if (!sc.word(keyword)) return std::nullopt;
    sc.skip_space();
    if (sc.peek() != '(') return std::nullopt;
    std::size_t end = 0;
    std::string group = paren_group(t, sc.pos(), end, where(line));
    return std::make_pair(trim(t.substr(end)), std::move(group));
  }

  LineKind line_kind(const LogicalLine& l) const {
    if (is_directive(l)) return {};
    const std::string t = lower_case(without_construct_name(trim(l.text)));
    if (t.empty() || t.front() == '!') return {};
    Scanner sc(t);
    if (sc.word("do")) {
      sc.skip_space();
      std::string label;
      while (std::isdigit(static_cast<unsigned char>(sc.peek())) != 0) {
        label += sc.peek();
        sc.eat(sc.peek());
      }
      sc.skip_space();
      sc.eat(',');
      sc.skip_space();
      if (sc.word("while")) return {Kind::DoWhile, label};
      if (!sc.done() && sc.name().empty()) return {}; // "do = ...": a variable called do
      return {Kind::Do, label};
    }
    if (const auto g = after_group(t, "if", l.line))
      return g->first == "then" ? LineKind{Kind::If, ""} : LineKind{};
    if (const auto g = after_group(t, "where", l.line))
      return g->first.empty() ? LineKind{Kind::Where, ""} : LineKind{};
    if (const auto g = after_group(t, "forall", l.line))
      return g->first.empty() ? LineKind{Kind::Forall, ""} : LineKind{};
    if (Scanner s(t); s.word("select") || s.word("selectcase")) return {Kind::Select, ""};
    for (const std::string_view w : {"else", "elseif", "elsewhere", "case"})
      if (Scanner s(t); s.word(w)) return {Kind::Middle, ""};
    for (const std::string_view w : {"enddo", "endif", "endselect", "endwhere", "endforall"})
      if (Scanner s(t); s.word(w)) return {Kind::End, ""};
    if (Scanner s(t); s.word("end") && (s.skip_space(), s.word("do") || s.word("if") || s.word("select") ||
                                                            s.word("where") || s.word("forall")))
      return {Kind::End, ""};
    return {};
  }

  static bool opens(Kind k) { return k != Kind::Statement && k != Kind::Middle && k != Kind::End; }
  static bool is_do(Kind k) { return k == Kind::Do || k == Kind::DoWhile; }

  /// The construct that opens at line i; on return i is its last line (a labelled DO ends at the
  /// statement with its label, which DO loops sharing the label end at too).
  Node parse_construct(std::size_t& i, std::size_t stop) const {
    const LineKind k = line_kind(m_lines[i]);
    Node n{i, i, k.kind, k.label, {}};
    for (++i; i < stop; ++i) {
      const LogicalLine& l = m_lines[i];
      const LineKind c = line_kind(l);
      if (opens(c.kind)) {
        n.kids.push_back(parse_construct(i, stop));
        if (!n.label.empty() && m_lines[i].label == n.label) {
          n.end = i;
          return n;
        }
        continue;
      }
      if (!n.label.empty() && l.label == n.label) {
        n.kids.push_back(Node{i, i, c.kind, "", {}});
        n.end = i;
        return n;
      }
      if (c.kind == Kind::End && n.label.empty()) {
        n.end = i;
        return n;
      }
      n.kids.push_back(Node{i, i, c.kind, "", {}});
    }
    fail_at(m_lines[n.begin].line, "'" + shown(trim(m_lines[n.begin].text)) +
                                       "' has no end before the end of the main program's execution part");
  }

  std::vector<Node> parse_body(std::size_t begin, std::size_t stop) const {
    std::vector<Node> out;
    for (std::size_t i = begin; i < stop; ++i) {
      const LineKind c = line_kind(m_lines[i]);
      out.push_back(opens(c.kind) ? parse_construct(i, stop) : Node{i, i, c.kind, "", {}});
    }
    return out;
  }

  /// How a line is lowered: Plain (no distributed array), Parallel (an owner-computes or collective
  /// lowering: FORALL, whole-array and section assignments, shifts, reductions of whole arrays,
  /// REDISTRIBUTE, REALIGN), or Replicated.
  enum class Use { Plain, Parallel, Replicated };

  Use line_use(const LogicalLine& l) {
    if (is_directive(l)) return is_executable_directive(l) ? Use::Parallel : Use::Plain;
    const std::string t = trim(l.text);
    if (t.empty() || t.front() == '!' || references(t).empty()) return Use::Plain;
    if (line_kind(l).kind != Kind::Statement) return Use::Replicated; // a construct's header or ELSE IF
    try {
      (void)lower_statement(l, "  ");
      return Use::Parallel;
    } catch (const InvalidStatement&) {
      throw;
    } catch (const Error& e) {
      const std::string what = e.what();
      const std::string prefix = where(l.line);
      m_not_owner_computed[l.line] = what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
      return Use::Replicated;
    }
  }

  /// Whether the node holds a Parallel line (or an owner-computed DO nest) and a Replicated one.
  void classify(const Node& n, bool& parallel, bool& replicated) {
    auto add = [&](Use u) {
      parallel = parallel || u == Use::Parallel;
      replicated = replicated || u == Use::Replicated;
    };
    // A CALL by handle (lower_call) splits no construct: among replicated statements it runs with
    // them over the copies, as before handles were passed; alone, or beside owner-computed
    // statements, it passes the handles.
    auto add_line = [&](const LogicalLine& l) {
      if (is_directive(l) || !lower_call(l, trim(l.text))) add(line_use(l));
    };
    if (!opens(n.kind)) {
      add_line(m_lines[n.begin]);
      return;
    }
    if (n.kind == Kind::Do && owner_computed_nest(n)) {
      parallel = true;
      return;
    }
    if (n.kind == Kind::Where && owner_computed_where(n)) {
      parallel = true;
      return;
    }
    if (n.kind == Kind::Where || n.kind == Kind::Forall) {
      // Its assignments are masked or indexed by the construct: they run with it, never alone.
      for (std::size_t i = n.begin; i <= n.end; ++i)
        replicated = replicated || (!is_directive(m_lines[i]) && !references(m_lines[i].text).empty());
      return;
    }
    add_line(m_lines[n.begin]);
    for (const Node& k : n.kids) classify(k, parallel, replicated);
    if (n.kids.empty() || n.kids.back().end != n.end) add_line(m_lines[n.end]);
  }

  std::string emit_node(const Node& n) {
    if (!opens(n.kind)) return emit_leaf(n);
    if (n.kind == Kind::Do)
      if (auto s = owner_computed_nest(n)) return *s;
    if (n.kind == Kind::Where)
      if (auto s = owner_computed_where(n)) return *s;
    bool parallel = false;
    bool replicated = false;
    classify(n, parallel, replicated);
    if (replicated && !parallel) return emit_replicated(n);
    if (is_do(n.kind) && !n.label.empty()) {
      // A labelled DO becomes a block DO: its terminal statement gets a CONTINUE with the label in
      // front (a branch to the label still runs it) and END DO after, so the terminal may be lowered
      // to several statements, and loops sharing it (deleted in F2018) each get their END DO.
      std::string s = emit_header(unlabelled_do(m_lines[n.begin]));
      for (const Node& k : n.kids) s += k.begin == n.end && !opens(k.kind) ? emit_terminal(k) : emit_node(k);
      return s + "  end do\n";
    }
    std::string s = emit_header(m_lines[n.begin]);
    for (const Node& k : n.kids) s += emit_node(k);
    if (n.kids.empty() || n.kids.back().end != n.end) s += emit_leaf(Node{n.end, n.end, Kind::End, "", {}});
    return s;
  }

  /// `DO 10 [,] I = ...` as `DO I = ...` (the statement's own label, if any, kept).
  static LogicalLine unlabelled_do(const LogicalLine& l) {
    const std::string t = trim(l.text);
    Scanner sc(t);
    sc.skip_space();
    sc.word("do");
    sc.skip_space();
    while (std::isdigit(static_cast<unsigned char>(sc.peek())) != 0) sc.eat(sc.peek());
    sc.skip_space();
    sc.eat(',');
    const std::string text = "do " + trim(std::string(sc.rest()));
    return LogicalLine{text, l.line, {"  " + (l.label.empty() ? "" : l.label + " ") + text}, l.label};
  }

  /// The terminal statement of a labelled DO that is lowered statement by statement: `label
  /// CONTINUE`, then the statement without its label.
  std::string emit_terminal(const Node& k) {
    const LogicalLine& l = m_lines[k.begin];
    const std::string t = trim(l.text);
    std::string s = "  " + l.label + " continue\n";
    if (lower_case(t) == "continue" || k.kind == Kind::End) return s;
    const LogicalLine copy{l.text, l.line, {"  " + t}, ""};
    if (references(t).empty() || line_use(copy) == Use::Parallel) return s + lower_statement(copy, "  ");
    return s + emit_replicated(k, false);
  }

  /// A construct's first line in a construct that is not replicated as a whole: copied, or, when it
  /// reads distributed arrays (IF (...) THEN, DO, SELECT CASE: evaluated once where they stand), those
  /// are gathered first.
  std::string emit_header(const LogicalLine& l) {
    if (references(l.text).empty()) return lower_statement(l, "  ");
    const LineKind lk = line_kind(l);
    const Kind k = lk.kind;
    // DO WHILE (c): DO, then the gathers and IF (.NOT. (c)) EXIT at the top of every iteration
    // (F2018 11.1.7.4.3: the condition is evaluated before each iteration).
    if (k == Kind::DoWhile && l.label.empty() && lk.label.empty()) {
      const std::string all = trim(l.text);
      const std::string t = without_construct_name(all);
      Scanner sc(t);
      sc.skip_space();
      sc.word("do");
      sc.skip_space();
      sc.word("while");
      sc.skip_space();
      std::size_t end = 0;
      const std::string cond = sc.peek() == '(' ? paren_group(t, sc.pos(), end, where(l.line)) : "";
      if (!cond.empty() && trim(t.substr(end)).empty())
        return "  " + all.substr(0, all.size() - t.size()) + "do\n" +
               gather_copies(l, references(l.text), {}) +
               wrap("  ", "if (.not. (" + replicated_text(cond) + ")) exit", true);
    }
    if (!l.label.empty() || (k != Kind::If && k != Kind::Do && k != Kind::Select))
      fail_at(l.line, "'" + shown(trim(l.text)) +
                          "' reads a distributed array in the header of a construct that also holds "
                          "owner-computed statements (FORALL, array assignments, REDISTRIBUTE): this is "
                          "lowered for IF (...) THEN, DO, DO WHILE and SELECT CASE headers without a label "
                          "only");
    return gather_copies(l, references(l.text), {}) + replicated_statement(l, true, "");
  }

  std::string emit_leaf(const Node& n) {
    const LogicalLine& l = m_lines[n.begin];
    std::string out;
    for (const auto& p : l.physical) out += p + "\n";
    if (is_directive(l)) {
      const std::string lb = lower_case(directive_body(l));
      if (lb.rfind("redistribute", 0) == 0) {
        out += lower_redistribute(l, "  ");
      } else if (Scanner ra(lb); ra.word("realign")) {
        out += lower_realign(l, "  ");
      } else if (lb.rfind("independent", 0) != 0) {
        fail_at(l.line, "directive '!HPF$ " + directive_body(l) + "' must be in the specification part");
      }
      return out;
    }
    const std::string t = trim(l.text);
    if (t.empty() || t.front() == '!') return out;
    if (references(t).empty()) return lower_statement(l, "  ");
    if (n.kind != Kind::Statement)
      fail_at(l.line,
              "'" + shown(t) +
                  "' reads a distributed array in an ELSE IF, CASE or ELSEWHERE of a construct that also "
                  "holds owner-computed statements: not lowered yet");
    // A branch target: the label goes to a CONTINUE before the lowered statement, so that a branch
    // runs the gathers too (the end of a labelled DO is emit_terminal's).
    std::string target;
    if (!l.label.empty()) target = l.label + " continue\n";
    if (line_use(l) == Use::Parallel) return target + lower_statement(l, "  ");
    return target + emit_replicated(n, target.empty());
  }

  /// The distributed arrays that `text` (a statement) may assign: the variable of an assignment (also
  /// as the action of a logical IF, a WHERE or a FORALL statement), every distributed array a CALL
  /// passes.
  std::vector<std::string> written_by(const std::string& text, int line) const {
    const std::string t = without_construct_name(trim(text));
    for (const std::string_view k : {"if", "where", "forall"})
      if (const auto g = after_group(t, k, line)) {
        if (g->first.empty() || lower_case(g->first) == "then") return {};
        if (std::isdigit(static_cast<unsigned char>(g->first.front())) != 0) return {}; // arithmetic IF
        return written_by(g->first, line);
      }
    if (Scanner c(t); c.word("call") || is_input(t)) return references(t);
    const std::string m = mask_strings(t);
    int depth = 0;
    for (std::size_t i = 0; i < m.size(); ++i) {
      depth += m[i] == '(' ? 1 : m[i] == ')' ? -1 : 0;
      if (m[i] != '=' || depth != 0) continue;
      const bool op = (i + 1 < m.size() && (m[i + 1] == '=' || m[i + 1] == '>')) ||
                      (i > 0 && std::string("=<>/").find(m[i - 1]) != std::string::npos);
      if (op) continue;
      Scanner sc(t);
      sc.skip_space();
      const std::string n = lower_case(std::string(sc.name()));
      if (m_arrays.count(n) != 0) return {n};
      return {};
    }
    return {};
  }

  /// A comment ("  ! text") broken at blanks into lines of about 100 characters.
  static std::string comment_lines(const std::string& text) {
    std::string out;
    std::string cur;
    std::istringstream words(text);
    for (std::string w; words >> w;) {
      if (!cur.empty() && cur.size() + w.size() > 100) {
        out += cur + "\n";
        cur = "  !  ";
      }
      cur += (cur.empty() ? "  " : cur.back() == ' ' ? "" : " ") + w;
    }
    return out + cur + "\n";
  }

  /// The variables an input list (or its implied-DO lists) names: the leading name of each item, and
  /// each implied-DO variable.
  static void input_variables(const std::string& list, std::vector<std::string>& out) {
    auto add = [&](const std::string& n) {
      if (!n.empty() && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    };
    for (const auto& item : split_top(list)) {
      if (item.empty()) continue;
      if (item.front() == '(' && item.back() == ')') {
        // (items, v = e1, e2 [, e3]): the items are those before the element holding '='.
        const auto parts = split_top(item.substr(1, item.size() - 2));
        std::string items;
        for (const auto& p : parts) {
          const std::string m = mask_strings(p);
          if (m.find('=') != std::string::npos && m.find("==") == std::string::npos) {
            Scanner v(p);
            v.skip_space();
            add(lower_case(std::string(v.name())));
            break;
          }
          items += (items.empty() ? "" : ", ") + p;
        }
        input_variables(items, out);
        continue;
      }
      Scanner sc(item);
      sc.skip_space();
      add(lower_case(std::string(sc.name())));
    }
  }

  /// The END=, ERR= and EOR= specifiers of a READ's control list (key and label, in order), and the
  /// control list without them.
  struct ReadBranches {
    std::vector<std::pair<std::string, std::string>> branches;
    std::string control;
  };

  /// A READ statement's branch specifiers (see ReadBranches); no branches for a READ without a
  /// control list.
  ReadBranches read_branches(const std::string& t, int line) const {
    ReadBranches r;
    Scanner sc(t);
    sc.skip_space();
    sc.keyword("read");
    sc.skip_space();
    if (sc.peek() != '(') return r;
    std::size_t end = 0;
    for (const auto& c : split_top(paren_group(t, sc.pos(), end, where(line)))) {
      const std::string lc = lower_case(c); // the Scanner views it
      Scanner k(lc);
      k.skip_space();
      const std::string key(k.name());
      k.skip_space();
      if ((key == "end" || key == "err" || key == "eor") && k.eat('=')) {
        r.branches.emplace_back(key, trim(std::string(k.rest())));
        continue;
      }
      r.control += (r.control.empty() ? "" : ", ") + c;
    }
    return r;
  }

  /// A READ statement `t` (its distributed arrays already replaced by their copies): rank 0 reads, then
  /// every variable it read (and an IOSTAT=, IOMSG= or SIZE= variable) goes to the other ranks as the
  /// bytes TRANSFER gives, so that every rank goes on with what the serial program read. An END=,
  /// ERR= or EOR= branch becomes an IOSTAT= (the program's, or hpf__ios) that goes to every rank too,
  /// then the branch on every rank, after `stores` (the write-back of the replicated copies, when the
  /// READ is in a replicated run); an error or end of file the serial program would stop on stops it.
  /// `label`: the statement's label ("" when none).
  std::string lower_read(const LogicalLine& l, const std::string& t, const std::string& label,
                         const std::string& stores = "") const {
    Scanner sc(t);
    sc.skip_space();
    sc.keyword("read");
    sc.skip_space();
    std::string list;
    std::vector<std::string> vars;
    std::string run = t;
    const ReadBranches rb = read_branches(t, l.line);
    std::string iostat;
    if (sc.peek() == '(') {
      std::size_t end = 0;
      const std::string control = paren_group(t, sc.pos(), end, where(l.line));
      list = t.substr(end);
      for (const auto& c : split_top(control)) {
        const std::string lc = lower_case(c); // the Scanner views it
        Scanner k(lc);
        k.skip_space();
        const std::string key(k.name());
        k.skip_space();
        if (!k.eat('=')) continue;
        k.skip_space();
        if (key == "iostat" || key == "iomsg" || key == "size") vars.emplace_back(k.name());
        if (key == "iostat") iostat = vars.back();
      }
      if (!rb.branches.empty())
        run = "read (" + rb.control + (iostat.empty() ? ", iostat=hpf__ios" : "") + ")" + list;
    } else {
      const auto parts = split_top(std::string(sc.rest()));
      for (std::size_t k = 1; k < parts.size(); ++k) list += (list.empty() ? "" : ", ") + parts[k];
    }
    const bool own_iostat = !iostat.empty();
    if (!rb.branches.empty() && !own_iostat) {
      iostat = "hpf__ios";
      vars.push_back(iostat);
    }
    input_variables(list, vars);
    const bool terminal = !label.empty() && m_do_labels.count(label) != 0;
    std::string s = label.empty() || terminal ? "" : label + " continue\n";
    s += wrap("  ", "if (hpf__rank == 0) " + run, true);
    for (const auto& v : vars) {
      if (v.empty()) continue;
      const bool array =
          m_local_arrays.count(v) != 0 || (v.size() > 3 && v.compare(v.size() - 3, 3, "__r") == 0);
      s += "  hpf__b = transfer(" + v + ", [0_c_int8_t])\n  call hpf_broadcast_bytes(hpf__b)\n";
      s += array ? "  " + v + " = reshape(transfer(hpf__b, " + v + "), shape(" + v + "))\n"
                 : "  " + v + " = transfer(hpf__b, " + v + ")\n";
    }
    for (const auto& [key, target] : rb.branches) {
      const std::string cond = key == "end"   ? "is_iostat_end(" + iostat + ")"
                               : key == "eor" ? "is_iostat_eor(" + iostat + ")"
                                              : iostat + " > 0";
      s += "  if (" + cond + ") then\n" + stores + "    go to " + target + "\n  end if\n";
    }
    if (!rb.branches.empty() && !own_iostat)
      s += wrap("  ", "if (hpf__ios /= 0) error stop 'READ (line " + loc(l.line) +
                          "): an end of file or an error that no END=, ERR= or EOR= takes'");
    return s + (terminal ? label + " continue\n" : "");
  }

  /// STOP (or a logical IF whose action is STOP) in the main program: the release (arrays, grids,
  /// hpf_finalize) runs first, so that every rank ends as an MPI program must. "" for other statements.
  std::string lower_stop(const LogicalLine& l, const std::string& t, const std::string& label) const {
    std::string cond;
    std::string stop = t;
    if (const auto g = after_group(t, "if", l.line); g && !g->first.empty()) {
      cond = g->second;
      stop = g->first;
    }
    const bool is_stop = Scanner(stop).word("stop");
    // RETURN leaves a lowered procedure: its dummies go back and its arrays are released.
    if (!is_stop && (m_focus == std::string::npos || !Scanner(stop).word("return"))) return "";
    std::string s = label.empty() ? "" : label + " continue\n";
    if (!cond.empty()) s += wrap("  ", "if (" + cond + ") then", true);
    s += cleanup("  ", is_stop) + "  " + stop + "\n";
    return s + (cond.empty() ? "" : "  end if\n");
  }

  /// `IF (cond) READ ...`: the READ and its broadcasts in an IF block.
  std::string lower_read_if(const LogicalLine& l, const std::string& cond, const std::string& read,
                            const std::string& label, const std::string& stores = "") const {
    const bool terminal = !label.empty() && m_do_labels.count(label) != 0;
    std::string s = label.empty() || terminal ? "" : label + " continue\n";
    s += wrap("  ", "if (" + cond + ") then", true) + lower_read(l, read, "", stores) + "  end if\n";
    return s + (terminal ? label + " continue\n" : "");
  }

  /// READ (any form).
  static bool is_input(const std::string& t) {
    Scanner rd(t);
    if (!rd.keyword("read")) return false;
    rd.skip_space();
    return rd.peek() == '(' || rd.peek() == '*' || rd.peek() == '\'' || rd.peek() == '"' ||
           std::isdigit(static_cast<unsigned char>(rd.peek())) != 0;
  }

  /// The statement with every distributed array `a` replaced by its replicated copy `a__r`.
  /// A keyword argument `name = ...` inside parentheses (MAXVAL(k, mask = k > 0)) and a component
  /// `x%name` keep their names.
  std::string replicated_text(const std::string& text) const {
    const std::string t = replace_number_of_processors(text);
    const std::string m = mask_strings(t);
    std::vector<int> depth(m.size() + 1, 0);
    for (std::size_t i = 0; i < m.size(); ++i)
      depth[i + 1] = depth[i] + (m[i] == '(' ? 1 : m[i] == ')' ? -1 : 0);
    std::vector<std::pair<std::size_t, std::string>> at; // (position, name) of every reference
    for (const auto& n : references(t))
      for (const std::size_t p : find_word(t, n)) {
        Scanner sc(m, p + n.size());
        sc.skip_space();
        const bool keyword = depth[p] > 0 && sc.eat('=') && sc.peek() != '=';
        // A component (x%a) of a derived-type variable is not the array.
        std::size_t before = p;
        while (before > 0 && is_space(m[before - 1])) --before;
        const bool component = before > 0 && m[before - 1] == '%';
        if (!keyword && !component) at.emplace_back(p, n);
      }
    std::sort(at.begin(), at.end());
    std::string out;
    std::size_t done = 0;
    for (const auto& [p, n] : at) {
      out.append(t, done, p - done);
      out += n + "__r";
      done = p + n.size();
    }
    return out.append(t, done, std::string::npos);
  }

  /// A line of a replicated statement or construct: the statement over the copies; PRINT and WRITE on
  /// rank 0 only (also as the action of a logical IF).
  /// `stores`: the write-back of the run's copies, for a branch the line takes (a READ's END=).
  std::string replicated_line(const LogicalLine& l, bool keep_label = true,
                              const std::string& stores = "") const {
    // A labelled DO becomes a block DO whose END DO follows its terminal statement: F2018 deleted
    // the shared DO termination of F77 (B.2), which a nest like DO 10 J / DO 10 I has.
    const LineKind k = line_kind(l);
    std::string body =
        replicated_statement(is_do(k.kind) && !k.label.empty() ? unlabelled_do(l) : l, keep_label, stores);
    return body + (keep_label ? end_dos(l.label) : "");
  }

  /// An END DO for every DO loop of the main program that `label` ends ("" for other labels).
  std::string end_dos(const std::string& label) const {
    std::string s;
    if (!label.empty() && m_do_labels.count(label) != 0)
      for (std::size_t i = m_program_line; i < m_end_line; ++i)
        if (const LineKind k = line_kind(m_lines[i]); is_do(k.kind) && k.label == label) s += "  end do\n";
    return s;
  }

  std::string replicated_statement(const LogicalLine& l, bool keep_label, const std::string& stores) const {
    std::string out;
    if (is_directive(l)) {
      for (const auto& p : l.physical) out += p + "\n";
      if (directive_keyword(l) != "independent")
        fail_at(l.line,
                "directive '!HPF$ " + shown(directive_body(l)) + "' inside a loop that runs replicated");
      return out;
    }
    if (trim(l.text).empty() || trim(l.text).front() == '!') {
      for (const auto& p : l.physical) out += p + "\n";
      return out;
    }
    const std::string t = replicated_text(trim(l.text));
    const std::string label = l.label.empty() || !keep_label ? "" : l.label + " ";
    if (is_input(t)) return lower_read(l, t, trim(label), stores);
    if (std::string stop = lower_stop(l, t, trim(label)); !stop.empty()) return stop;
    if (const auto g = after_group(t, "if", l.line); g && is_input(g->first))
      return lower_read_if(l, g->second, g->first, trim(label), stores);
    if (is_output(t) || is_output_if(t, l.line)) check_rank0_call(l, t);
    if (is_output(t) && !internal_write(t, l.line))
      return wrap("  ", label + "if (hpf__rank == 0) " + t, true);
    if (const auto g = after_group(t, "if", l.line);
        g && is_output(g->first) && !internal_write(g->first, l.line))
      return wrap("  ", label + "if (hpf__rank == 0 .and. (" + g->second + ")) " + g->first, true);
    return wrap("  ", label + t, true);
  }

  /// Allocates the replicated copies of `arrays` and gathers them, except those in `fresh` (assigned
  /// as a whole before they are read).
  std::string gather_copies(const LogicalLine& l, const std::vector<std::string>& arrays,
                            const std::set<std::string>& fresh) const {
    std::string s;
    for (const auto& n : arrays) {
      s += allocate_copy(m_arrays.at(n), "  ");
      if (fresh.count(n) == 0)
        s += wrap("  ", "call hpf_check(hpf_array_allgather(" + n + "__h, c_loc(" + n + "__r)), 'line " +
                            loc(l.line) + ": replicated copy of " + n + "')");
    }
    return s;
  }

  /// The labels a statement may branch to (GO TO, computed GO TO, arithmetic IF, a READ's END=,
  /// ERR= and EOR=).
  std::vector<std::string> branch_targets(const std::string& text, int line) const {
    std::string t = lower_case(without_construct_name(trim(text)));
    if (const auto g = after_group(t, "if", line); g && !g->first.empty() && g->first != "then") {
      if (std::isdigit(static_cast<unsigned char>(g->first.front())) != 0) return split_top(g->first);
      t = g->first;
    }
    if (is_input(t)) {
      std::vector<std::string> labels;
      for (const auto& b : read_branches(t, line).branches) labels.push_back(b.second);
      return labels;
    }
    Scanner sc(t);
    if (!(sc.word("goto") || (sc.word("go") && (sc.skip_space(), sc.word("to"))))) return {};
    sc.skip_space();
    std::string rest(sc.rest());
    if (!rest.empty() && rest.front() == '(') {
      std::size_t end = 0;
      return split_top(paren_group(rest, 0, end, where(line)));
    }
    return {trim(rest)};
  }

  /// Lines [n.begin, n.end] on every rank over replicated copies: gather what they reference, run
  /// them, write the copies back. A branch out of them (GO TO a label outside, RETURN, or EXIT / CYCLE
  /// out of a construct that is not a loop) writes the copies back first.
  std::string emit_replicated(const Node& n, bool keep_label = true) {
    std::vector<std::string> read;
    std::set<std::string> written;
    std::set<std::string> labels;
    for (std::size_t i = n.begin; i <= n.end; ++i) {
      const LogicalLine& l = m_lines[i];
      if (is_directive(l) || trim(l.text).empty()) continue;
      for (const auto& a : references(l.text))
        if (std::find(read.begin(), read.end(), a) == read.end()) read.push_back(a);
      for (const auto& a : written_by(l.text, l.line)) written.insert(a);
      if (!l.label.empty()) labels.insert(l.label);
    }
    // The lines that may branch out (GO TO a label outside, RETURN, or EXIT / CYCLE out of a
    // construct that is not a loop): the copies are written back before them (writing back twice is
    // harmless), so the statements the branch goes to see what was assigned.
    std::set<std::size_t> exits;
    for (std::size_t i = n.begin; i <= n.end; ++i) {
      const LogicalLine& l = m_lines[i];
      if (is_directive(l) || trim(l.text).empty() || trim(l.text).front() == '!') continue;
      const std::string lt = lower_case(trim(l.text));
      bool out = false;
      for (const auto& target : branch_targets(l.text, l.line)) out = out || labels.count(target) == 0;
      std::string action = lt;
      if (const auto g = after_group(lt, "if", l.line); g && !g->first.empty()) action = g->first;
      out = out || Scanner(action).word("return") ||
            (!is_do(n.kind) && (Scanner(action).word("exit") || Scanner(action).word("cycle")));
      if (!out) continue;
      exits.insert(i);
    }
    // A whole-array assignment `a = expr` that does not read `a` need not gather it.
    std::set<std::string> fresh;
    if (n.begin == n.end) {
      const std::string t = trim(m_lines[n.begin].text);
      Scanner sc(t);
      const std::string name = lower_case(std::string(sc.name()));
      sc.skip_space();
      if (written.count(name) != 0 && sc.eat('=') && sc.peek() != '=' && find_word(t, name).size() == 1)
        fresh.insert(name);
    }
    const LogicalLine& first = m_lines[n.begin];
    std::string what;
    for (const auto& a : read) what += std::string(what.empty() ? "" : ", ") + a;
    std::string s = "  ! line" +
                    (n.begin == n.end ? " " + loc(first.line)
                                      : "s " + loc(first.line) + " to " + loc(m_lines[n.end].line)) +
                    ": on every rank over replicated copies of " + what + "\n";
    if (const auto why = m_not_owner_computed.find(first.line);
        n.begin == n.end && why != m_not_owner_computed.end() && !is_output(trim(first.text)))
      s += comment_lines("! (not owner-computed: " + why->second + ")");
    s += gather_copies(first, read, fresh);
    // Every copy is written back, not only those `written` names: a function may assign its
    // argument, and writing back an unchanged copy costs a local copy, no communication.
    std::string stores;
    for (const auto& a : read)
      stores += wrap("  ", "call hpf_check(hpf_array_store_owned(" + a + "__h, c_loc(" + a + "__r)), 'line " +
                               loc(first.line) + ": " + a + "')");
    for (std::size_t i = n.begin; i <= n.end; ++i)
      if (exits.count(i) == 0) {
        s += replicated_line(m_lines[i], keep_label);
      } else if (m_lines[i].label.empty() || !keep_label) {
        s += stores + replicated_line(m_lines[i], keep_label, stores);
      } else {
        // A labelled one (a branch target, or the end of a DO loop): its label goes to a CONTINUE in
        // front of the write-back, so that a branch to it writes back too.
        s += "  " + m_lines[i].label + " continue\n" + stores + replicated_line(m_lines[i], false, stores) +
             end_dos(m_lines[i].label);
      }
    return s + stores;
  }

  /// Whether a line of the node calls a function that communicates: an owner-computes loop would call
  /// it on some ranks only, a replicated run calls it on every rank.
  bool calls_collective(const Node& n) const {
    for (std::size_t i = n.begin; i <= n.end; ++i)
      if (!is_directive(m_lines[i]) && !collective_call(m_lines[i].text).empty()) return true;
    return false;
  }

  /// A masked whole-array assignment `a = e` under the mask `m` (`WHERE (m) a = e`, or in a WHERE
  /// construct) as the elementwise `a = MERGE(e, a, m)` (F2018 10.2.3: the mask is evaluated once,
  /// before any assignment, so `m` may not read what the construct assigns), owner-computed when
  /// elementwise() takes it. `e` is evaluated at the masked-out elements too and then dropped, as
  /// MERGE does. nullopt otherwise.
  std::optional<std::string> masked_assignment(const LogicalLine& l, const std::string& assign,
                                               const std::string& mask,
                                               const std::set<std::string>& assigned) const {
    const std::string m = mask_strings(assign);
    const auto eq = m.find('=');
    if (eq == std::string::npos || m.compare(eq, 2, "==") == 0) return std::nullopt;
    const std::string lhs = lower_case(trim(assign.substr(0, eq)));
    if (m_arrays.count(lhs) == 0) return std::nullopt;
    for (const auto& x : assigned)
      if (!find_word(mask, x).empty()) return std::nullopt;
    // MERGE takes operands of one type and kind: the expression converted as the assignment would.
    const DistArray& a = m_arrays.at(lhs);
    const std::string e = trim(assign.substr(eq + 1));
    // MERGE evaluates `e` where the mask is false too: an integer division or MOD there could trap
    // (WHERE (k /= 0) m = n / k). With a division or MOD, `e` may only read REAL and COMPLEX
    // distributed arrays and literals.
    const std::string me = lower_case(mask_strings(e));
    bool divides = !find_word(me, "mod").empty() || !find_word(me, "modulo").empty();
    for (std::size_t i = 0; i < me.size(); ++i)
      divides =
          divides || (me[i] == '/' &&
                      (i + 1 >= me.size() || (me[i + 1] != '/' && me[i + 1] != ')' && me[i + 1] != '=')) &&
                      (i == 0 || (me[i - 1] != '/' && me[i - 1] != '(')));
    if (divides)
      for (std::size_t i = 0; i < me.size(); ++i) {
        if (!is_letter(me[i]) || (i > 0 && (is_name_char(me[i - 1]) || me[i - 1] == '.'))) continue;
        std::size_t end = i;
        while (end < me.size() && is_name_char(me[end])) ++end;
        const std::string n = me.substr(i, end - i);
        const auto it = m_arrays.find(n);
        if (it == m_arrays.end() || (it->second.elem != Elem::R8 && it->second.elem != Elem::R4 &&
                                     it->second.elem != Elem::C8 && it->second.elem != Elem::C4))
          return std::nullopt;
        i = end - 1;
      }
    const std::string converted = a.elem == Elem::R8   ? "real(" + e + ", c_double)"
                                  : a.elem == Elem::R4 ? "real(" + e + ", c_float)"
                                  : a.elem == Elem::I4 ? "int(" + e + ", c_int32_t)"
                                  : a.elem == Elem::I8 ? "int(" + e + ", c_int64_t)"
                                  : a.elem == Elem::C8 ? "cmplx(" + e + ", kind=c_double_complex)"
                                  : a.elem == Elem::C4 ? "cmplx(" + e + ", kind=c_float_complex)"
                                                       : "logical(" + e + ")";
    const auto forall = elementwise(a, "merge(" + converted + ", " + lhs + ", " + mask + ")");
    if (!forall) return std::nullopt;
    try {
      return lower_forall(LogicalLine{*forall, l.line, {}, ""}, "  ");
    } catch (const Error&) {
      return std::nullopt;
    }
  }

  /// A WHERE construct of whole-array assignments (with an ELSEWHERE without mask) whose mask reads
  /// nothing it assigns: each assignment owner-computed as masked_assignment gives it.
  std::optional<std::string> owner_computed_where(const Node& n) const {
    if (calls_collective(n)) return std::nullopt;
    const auto head = after_group(trim(m_lines[n.begin].text), "where", m_lines[n.begin].line);
    if (!head) return std::nullopt;
    std::set<std::string> assigned;
    for (const Node& k : n.kids)
      for (const auto& a : written_by(m_lines[k.begin].text, m_lines[k.begin].line)) assigned.insert(a);
    std::string mask = "(" + head->second + ")";
    std::string out = "  ! WHERE construct, lines " + loc(m_lines[n.begin].line) + " to " +
                      loc(m_lines[n.end].line) + ": each assignment as a = MERGE(expr, a, mask)\n";
    for (const Node& k : n.kids) {
      const LogicalLine& kl = m_lines[k.begin];
      const std::string kt = trim(kl.text);
      if (is_directive(kl) || kt.empty() || kt.front() == '!') continue;
      if (k.kind == Kind::Middle) {
        const std::string lk = lower_case(kt);
        if (lk != "elsewhere" && lk != "else where") return std::nullopt;
        mask = "(.not. " + mask + ")";
        continue;
      }
      if (k.kind != Kind::Statement || !kl.label.empty()) return std::nullopt;
      const auto s = masked_assignment(kl, kt, mask, assigned);
      if (!s) return std::nullopt;
      out += *s;
    }
    return out;
  }

  /// `DO [label] [,] v = lo, hi [, step]`: the variable, the bounds and the step ("1" when omitted;
  /// nullopt for other DO statements).
  struct DoHeader {
    std::string var;
    std::string lo;
    std::string hi;
    std::string step;
  };
  static std::optional<DoHeader> do_header(const LogicalLine& l) {
    const std::string t = without_construct_name(trim(l.text));
    Scanner sc(t);
    if (!sc.word("do")) return std::nullopt;
    sc.skip_space();
    while (std::isdigit(static_cast<unsigned char>(sc.peek())) != 0) sc.eat(sc.peek());
    sc.skip_space();
    sc.eat(',');
    sc.skip_space();
    const std::string var = lower_case(std::string(sc.name()));
    sc.skip_space();
    if (var.empty() || var == "while" || !sc.eat('=')) return std::nullopt;
    const auto parts = split_top(std::string(sc.rest()));
    if (parts.size() < 2 || parts.size() > 3 || parts[0].empty() || parts[1].empty()) return std::nullopt;
    if (parts.size() == 3 && (parts[2].empty() || integer_literal(parts[2]) == 0)) return std::nullopt;
    return DoHeader{var, parts[0], parts[1], parts.size() == 3 ? parts[2] : "1"};
  }

  /// A DO nest (HPF 2.0 section 5.1 INDEPENDENT, or an ordinary one) whose body is assignments
  /// `a(v1, v2, ...) = expr` to distributed arrays at the loop variables, with unit steps and bounds
  /// that do not use the nest's variables, becomes the FORALLs it is equivalent to, owner-computed.
  /// That holds only when no iteration reads what another writes: the arrays assigned are read only
  /// at the element being assigned (other arrays are not written, so any offset is fine). After it,
  /// the loop variables get the values the DO loops leave. nullopt when the nest is not of this form.
  std::optional<std::string> owner_computed_nest(const Node& n) const {
    if (calls_collective(n)) return std::nullopt;
    std::vector<DoHeader> heads;
    const Node* cur = &n;
    std::vector<const Node*> body;
    while (body.empty()) {
      const auto h = do_header(m_lines[cur->begin]);
      if (!h || !m_lines[cur->begin].label.empty()) return std::nullopt;
      heads.push_back(*h);
      std::vector<const Node*> inner;
      for (const Node& k : cur->kids) {
        const LogicalLine& kl = m_lines[k.begin];
        if (is_directive(kl)) {
          if (directive_keyword(kl) != "independent") return std::nullopt;
          continue;
        }
        const std::string kt = lower_case(trim(kl.text));
        if (kt.empty() || kt.front() == '!') continue;
        if (!kl.label.empty() && kl.label == cur->label && kt == "continue") continue;
        if (!kl.label.empty() && kl.label == cur->label && k.kind == Kind::End) continue;
        inner.push_back(&k);
      }
      if (inner.size() == 1 && inner[0]->kind == Kind::Do) {
        cur = inner[0];
        continue;
      }
      if (inner.empty()) return std::nullopt;
      for (const Node* k : inner)
        if (k->kind != Kind::Statement) return std::nullopt;
      body = inner;
    }
    auto spaceless = [](const std::string& e) {
      std::string out;
      for (const char c : lower_case(e))
        if (!is_space(c)) out += c;
      return out;
    };
    std::string header;
    for (const auto& h : heads) {
      for (const auto& o : heads)
        if (!find_word(h.lo, o.var).empty() || !find_word(h.hi, o.var).empty() ||
            !find_word(h.step, o.var).empty())
          return std::nullopt;
      header += (header.empty() ? "" : ", ") + h.var + " = " + h.lo + ":" + h.hi +
                (h.step == "1" ? "" : ":" + h.step);
    }
    // Every statement assigns a distributed array at the same subscripts (the loop variables, as
    // lower_forall checks); the arrays assigned are read only there, so the statements run one after
    // the other as FORALLs, each over every iteration, as they would iteration by iteration.
    std::vector<std::pair<std::string, std::string>> assigns; // (lhs, rhs)
    std::set<std::string> written;
    std::string subs;
    for (const Node* k : body) {
      const LogicalLine& sl = m_lines[k->begin];
      const std::string t = trim(sl.text);
      const auto w = written_by(t, sl.line);
      if (w.size() != 1 || lower_case(t).rfind(w[0], 0) != 0) return std::nullopt;
      const std::string m = mask_strings(t);
      std::size_t eq = std::string::npos;
      for (std::size_t i = 0, depth = 0; i < m.size() && eq == std::string::npos; ++i) {
        if (m[i] == '(') ++depth;
        if (m[i] == ')') --depth;
        if (m[i] == '=' && depth == 0) eq = i;
      }
      const std::string lhs = trim(t.substr(0, eq));
      const auto target = array_reference(sl, lhs);
      if (!target || target->second.empty()) return std::nullopt;
      std::string these;
      for (const auto& x : target->second) these += (these.empty() ? "" : ",") + spaceless(x);
      if (!subs.empty() && these != subs) return std::nullopt;
      subs = these;
      written.insert(target->first->name);
      assigns.emplace_back(lhs, trim(t.substr(eq + 1)));
    }
    for (std::size_t k = 0; k < assigns.size(); ++k)
      for (const auto& x : written)
        for (const std::size_t at : find_word(assigns[k].second, x)) {
          const std::string& rhs = assigns[k].second;
          Scanner sc(rhs, at + x.size());
          sc.skip_space();
          if (sc.peek() != '(') return std::nullopt;
          std::size_t end = 0;
          if (spaceless(paren_group(rhs, sc.pos(), end, where(m_lines[body[k]->begin].line))) != subs)
            return std::nullopt;
        }
    std::string s;
    try {
      for (std::size_t k = 0; k < assigns.size(); ++k)
        s += lower_forall(
            LogicalLine{"forall (" + header + ") " + assigns[k].first + " = " + assigns[k].second,
                        m_lines[body[k]->begin].line,
                        {},
                        ""},
            "  ");
    } catch (const Error&) {
      return std::nullopt;
    }
    std::string out = "  ! DO nest, lines " + loc(m_lines[n.begin].line) + " to " + loc(m_lines[n.end].line) +
                      ": no iteration reads what another writes, so it is the FORALL(s) below\n";
    for (std::size_t i = n.begin; i <= n.end; ++i)
      if (is_directive(m_lines[i]))
        for (const auto& p : m_lines[i].physical) out += p + "\n";
    out += s;
    // The values the DO loops leave in their variables (F2018 11.1.7.4.1): lo + step x the trip count
    // (hpf_do_trips), each set when the loops around it run.
    std::string outer;
    for (const auto& h : heads) {
      const std::string trips = "hpf_do_trips(int(" + h.lo + ", c_int64_t), int(" + h.hi +
                                ", c_int64_t), int(" + h.step + ", c_int64_t))";
      std::string set = h.var + " = " + h.lo + "\n";
      set +=
          h.step == "1"
              ? wrap("  ", "if ((" + h.hi + ") >= (" + h.lo + ")) " + h.var + " = (" + h.hi + ") + 1", true)
              : wrap("  ",
                     "if (" + trips + " > 0) " + h.var + " = int((" + h.lo + ") + " + trips + " * (" +
                         h.step + "), kind(" + h.var + "))",
                     true);
      out += outer.empty() ? "  " + set
                           : wrap("  ", "if (" + outer + ") then", true) + "  " + set + "  end if\n";
      outer += (outer.empty() ? "" : " .and. ") +
               (h.step == "1" ? "(" + h.lo + ") <= (" + h.hi + ")" : trips + " > 0");
    }
    return out;
  }

  std::string emit() {
    const bool procedure = m_focus != std::string::npos;
    std::string out = procedure ? ""
                                : "! Lowered by `hpfrt lower` from " + m_file +
                                      ": compile with the hpfrt Fortran module.\n";
    bool in_spec = true;
    bool released = false;
    const std::string ind = "  ";
    std::string uses = ind + "use, intrinsic :: iso_c_binding\n" + ind + "use hpfrt\n";
    for (const auto& b : common_blocks()) uses += ind + "use hpf__common_" + b + "\n";
    if (!procedure)
      for (const auto& m : m_lowered_modules)
        uses += ind + "use " + m + ", only: hpf__init_" + m + ", hpf__free_" + m + "\n";
    if (!procedure) out += common_modules() + calls_module();
    if (!m_handle_dummies.empty() && !m_module) uses += ind + "use hpf__calls\n";
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
      const LogicalLine& l = m_lines[i];
      auto copy = [&] {
        for (const auto& p : l.physical) out += p + "\n";
      };
      if (procedure && (i < m_program_line || i > m_end_line)) continue;
      if (const std::size_t u = unit_of(i); !procedure && m_procedure_text.count(u) != 0) {
        if (i == u) out += m_procedure_text.at(u);
        continue;
      }
      if (i < m_program_line || i > m_end_line || !m_scope[i].empty() ||
          (m_contains_line != std::string::npos && i > m_contains_line && i < m_end_line)) {
        out += emit_other(i);
        continue;
      }
      if (i == m_program_line) {
        if (m_implicit_program) {
          out += uses;
        } else {
          copy();
          out += uses;
          continue;
        }
      }
      if (i == m_contains_line || i == m_end_line) {
        // The set-up after the specification part, the release before CONTAINS or END (F2018 R1401:
        // internal subprograms follow the execution part).
        if (m_module) {
          if (in_spec) out += module_tail(ind);
          in_spec = false;
          if (i == m_end_line) copy();
          continue;
        }
        if (in_spec) out += declarations(ind) + setup(ind);
        in_spec = false;
        if (!released) out += cleanup(ind);
        released = true;
        copy();
        continue;
      }
      if (in_spec && is_directive(l) && !is_executable_directive(l)) {
        copy(); // PROCESSORS, DISTRIBUTE, DYNAMIC: kept as comments, acted on at the set-up
        continue;
      }
      if (in_spec && is_serial_stand_in(l)) {
        out += "! " + trim(l.text) + "   (the serial stand-in: NUMBER_OF_PROCESSORS() is lowered)\n";
        continue;
      }
      if (in_spec && !is_directive(l) && is_specification(l)) {
        if (m_use_rewrites.count(i) != 0) {
          out += use_only_rewritten(l);
          continue;
        }
        if (const auto c = m_common_rewrites.find(i); c != m_common_rewrites.end()) {
          out += "! " + trim(l.text) + "   (distributed members: in module hpf__common_<block>)\n";
          out += common_without(l, c->second);
          continue;
        }
        auto it = m_decl_rewrites.find(i);
        if (it == m_decl_rewrites.end()) {
          if (const auto refs = non_dummies(references(l.text));
              !refs.empty() && !is_implicit_statement(l) && m_type_lines.count(i) == 0)
            fail_at(l.line, "distributed array '" + refs[0] + "' in '" + shown(trim(l.text)) +
                                "': only its type declaration and DIMENSION statement are lowered (COMMON, "
                                "EQUIVALENCE, DATA, POINTER, TARGET, ... of distributed data are not)");
          copy();
        } else {
          out += "! " + trim(l.text) + "   (distributed: declared by hpfrt below)\n";
          out += keep_undistributed(l, it->second);
        }
        continue;
      }
      if (in_spec) {
        in_spec = false;
        out += declarations(ind) + setup(ind);
        // The execution part, construct by construct, up to CONTAINS or END.
        const std::size_t stop = std::min(m_contains_line, m_end_line);
        for (std::size_t j = i; j < stop; ++j)
          if (const LineKind k = line_kind(m_lines[j]); is_do(k.kind) && !k.label.empty())
            m_do_labels.insert(k.label);
        for (const Node& n : parse_body(i, stop)) out += emit_node(n);
        i = stop - 1;
        continue;
      }
      if (is_directive(l)) {
        const std::string lb = lower_case(directive_body(l));
        copy();
        if (lb.rfind("redistribute", 0) == 0) {
          out += lower_redistribute(l, ind);
        } else if (Scanner ra(lb); ra.word("realign")) {
          out += lower_realign(l, ind);
        } else if (lb.rfind("independent", 0) != 0) {
          fail_at(l.line, "directive '!HPF$ " + directive_body(l) + "' must be in the specification part");
        }
        continue;
      }
      if (trim(l.text).empty() || trim(l.text).front() == '!') {
        copy();
        continue;
      }
      if (!l.label.empty() && !references(l.text).empty())
        fail_at(l.line, "statement label " + l.label + " on '" + shown(trim(l.text)) +
                            "': a labelled statement that uses distributed arrays is not lowered yet");
      out += lower_statement(l, ind);
    }
    return out;
  }

  /// A line outside the main program's own statements: another program unit, or an internal
  /// subprogram of the main program. Copied, except that PRINT and WRITE run on one rank (the serial
  /// program prints once), and an internal subprogram may not touch the distributed arrays it would
  /// see by host association.
  std::string emit_other(std::size_t i) const {
    const LogicalLine& l = m_lines[i];
    std::string out;
    for (const auto& p : l.physical) out += p + "\n";
    const std::string t = trim(l.text);
    if (t.empty() || t.front() == '!') return out;
    const bool internal = m_scope[i].rfind("internal ", 0) == 0;
    if (internal && !references(t).empty())
      fail_at(l.line, "distributed array '" + references(t)[0] + "' in " +
                          (m_module ? "the module procedure " + m_scope[i].substr(9) : m_scope[i]) +
                          " is not lowered (distributed arrays are lowered in the main program and external "
                          "procedures)");
    if (m_io_units.count(i) != 0) out += "  use hpfrt, only: hpf_io_root\n";
    if (is_output(t) || is_output_if(t, l.line)) check_rank0_call(l, t);
    const std::string root = internal ? "hpf__rank == 0" : "hpf_io_root()";
    if (const auto g = after_group(t, "if", l.line); g && is_output(g->first))
      return wrap("  ",
                  (l.label.empty() ? "" : l.label + " ") + "if (" + root + " .and. (" + g->second + ")) " +
                      g->first,
                  true);
    if (!is_output(t)) return out;
    return print_on_root(l, root);
  }

  /// WRITE to an internal file (F2018 12.4): its unit is a CHARACTER variable of the main program.
  /// It runs on every rank, which all need the text.
  bool internal_write(const std::string& t, int line) const {
    const auto g = after_group(t, "write", line);
    if (!g) return false;
    std::string unit = lower_case(trim(split_top(g->second).front()));
    if (Scanner u(unit); u.word("unit") && (u.skip_space(), u.eat('='))) unit = trim(std::string(u.rest()));
    Scanner n(unit);
    return m_char_vars.count(std::string(n.name())) != 0;
  }

  /// A logical IF whose action is PRINT or WRITE.
  bool is_output_if(const std::string& t, int line) const {
    const auto g = after_group(t, "if", line);
    return g && is_output(g->first);
  }

  /// PRINT, or WRITE with a control list.
  static bool is_output(const std::string& t) {
    Scanner io(t);
    if (io.word("print")) return true;
    Scanner wr(t);
    return wr.keyword("write") && (wr.skip_space(), wr.peek() == '(');
  }

  /// The statement, run where `condition` holds: an IF block, or for a labelled statement (a branch
  /// target, or the end of a DO loop) a logical IF statement that keeps the label.
  static std::string print_on_root(const LogicalLine& l, const std::string& condition) {
    if (!l.label.empty()) return wrap("", l.label + " if (" + condition + ") " + trim(l.text), true);
    std::string out = "  if (" + condition + ") then\n";
    for (const auto& p : l.physical) out += replace_number_of_processors(p) + "\n";
    return out + "  end if\n";
  }

  /// IMPLICIT statements name letters, not arrays.
  static bool is_implicit_statement(const LogicalLine& l) {
    const std::string t = lower_case(trim(l.text));
    return Scanner(t).word("implicit");
  }

  /// "USE hpf_serial": the module that gives a serial compile of the program NUMBER_OF_PROCESSORS()
  /// (compiler-support/fortran/hpf_serial.f90). The lowered program has the real one.
  static bool is_serial_stand_in(const LogicalLine& l) {
    const std::string t = lower_case(trim(l.text));
    Scanner sc(t);
    return sc.keyword("use") && sc.skip_space() > 0 && sc.name() == "hpf_serial" && sc.done();
  }

  /// REDISTRIBUTE and REALIGN: directives that act where they stand.
  static bool is_executable_directive(const LogicalLine& l) {
    const std::string lb = lower_case(directive_body(l));
    Scanner ra(lb);
    return lb.rfind("redistribute", 0) == 0 || ra.word("realign");
  }

  /// The declaration without its distributed entities ("" when none remain).
  std::string keep_undistributed(const LogicalLine& l, const std::vector<std::string>& drop) const {
    const std::string t = trim(l.text);
    const std::string m = mask_strings(t);
    auto colons = m.find("::");
    std::string head;
    std::string list;
    if (colons != std::string::npos) {
      head = t.substr(0, colons + 2);
      list = t.substr(colons + 2);
    } else if (const std::string lt = lower_case(t); Scanner(lt).word("dimension")) {
      head = t.substr(0, 9) + " ::";
      list = t.substr(9);
    } else {
      Scanner sc(t);
      sc.skip_space();
      type_spec(sc); // parse_declaration recognised this line as a declaration
      sc.skip_space();
      head = t.substr(0, sc.pos()) + " ::";
      list = t.substr(sc.pos());
    }
    std::string kept;
    for (const auto& e : split_top(list)) {
      Scanner es(e);
      if (std::find(drop.begin(), drop.end(), lower_case(std::string(es.name()))) != drop.end()) continue;
      kept += std::string(kept.empty() ? " " : ", ") + e;
    }
    return kept.empty() ? "" : "  " + head + kept + "\n";
  }

  std::string m_file;
  /// The external procedure this Lowerer lowers (the index of its SUBROUTINE or FUNCTION statement),
  /// npos for the main program. A procedure is lowered as the main program is, except for what
  /// happens at its entry, its exits and its distributed dummy arguments (lower_procedure).
  std::size_t m_focus = std::string::npos;
  std::map<std::size_t, std::size_t> m_unit_ends; // top-level units other than the lowered one: first -> END
  std::set<std::size_t> m_procedures;             // the external procedures lowered with their own Lowerer
  std::map<std::size_t, std::string> m_procedure_text; // their lowered text, per first line
  std::vector<std::string> m_dummies;                  // the lowered procedure's dummy arguments
  std::set<std::string> m_descriptive;                 // its dummies with DISTRIBUTE x *(...)
  std::set<std::string> m_transcriptive;               // its dummies with DISTRIBUTE x * or INHERIT
  std::map<std::size_t, std::vector<std::string>> m_common_rewrites; // COMMON lines: distributed members
  bool m_module = false;              // the lowered unit is a MODULE (its arrays are module variables)
  std::set<std::string> m_collective; // the file's lowered FUNCTIONs that communicate
  /// The file's lowered SUBROUTINEs with distributed dummies: per dummy, whether it is distributed
  /// (a CALL passes the handle of a whole distributed actual there, through hpf__calls).
  std::map<std::string, std::vector<bool>> m_handle_dummies;
  std::set<std::size_t> m_use_rewrites;                          // USE ..., ONLY: lines of lowered modules
  std::map<std::string, std::vector<DistArray>> m_module_arrays; // per lowered module, its arrays
  std::vector<std::string> m_lowered_modules;                    // in file order
  /// The main program's distributed COMMON members (a procedure's must have the same mapping).
  std::map<std::string, DistArray> m_main_common;
  std::vector<SourceOrigin> m_origins;
  std::vector<LogicalLine> m_lines;
  std::size_t m_program_line = 0;
  bool m_implicit_program = false;                 // the main program has no PROGRAM statement
  std::size_t m_contains_line = std::string::npos; // the main program's CONTAINS
  std::size_t m_end_line = 0;                      // the main program's END
  std::vector<std::string> m_scope;                // per line: "" in the main program, else its unit
  std::set<std::size_t> m_io_units;
  /// The implicit type of names starting with a, b, ... ("": none, IMPLICIT NONE). F2018 8.7: REAL,
  /// but INTEGER for i to n.
  std::array<std::string, 26> m_implicit = {"real",    "real",    "real",    "real",    "real",    "real",
                                            "real",    "real",    "integer", "integer", "integer", "integer",
                                            "integer", "integer", "real",    "real",    "real",    "real",
                                            "real",    "real",    "real",    "real",    "real",    "real",
                                            "real",    "real"}; // headers of units (not the main) that PRINT
                                                                // or WRITE
  std::map<std::string, Processors> m_procs;
  std::vector<std::string> m_proc_order;
  std::map<std::string, DistArray> m_arrays;
  std::vector<std::string> m_array_order;
  std::set<std::string> m_dynamic;
  std::vector<ShadowSpec> m_shadows;
  std::map<std::size_t, std::vector<std::string>> m_decl_rewrites;
  std::set<std::string> m_local_arrays; // the main program's arrays that are not distributed
  std::set<std::size_t> m_type_lines;   // the lines of derived-type definitions in the main program
  std::set<std::string> m_char_vars;    // the main program's CHARACTER variables (internal files)
  std::map<std::string, std::string> m_kind_params; // its INTEGER named constants (kinds), squeezed
  std::map<int, std::string> m_not_owner_computed;  // per line: why it runs on replicated copies
  std::set<std::string> m_do_labels;                // the labels that end DO loops of the main program
  std::map<std::string, Template> m_templates;
  std::vector<std::string> m_template_order;
  std::vector<std::pair<std::string, AlignSpec>> m_aligns;   // ALIGN directives, per array
  std::vector<std::pair<std::string, AlignSpec>> m_realigns; // REALIGN directives, per array
  std::vector<std::string> m_creation_order;                 // bases before the arrays aligned with them
  std::vector<DistTable> m_tables;             // every GEN_BLOCK and INDIRECT table, declared at the set-up
  std::map<int, std::string> m_arrays_of_line; // the first array of each DISTRIBUTE line
  bool m_default_grid = false;
};

} // namespace

std::string lower_hpf(const std::string& source, const std::string& file, const LowerOptions& options) {
  Lowerer l(source, file, options);
  return l.run();
}

} // namespace hpf
