// Exact (QSopt_ex) and floating (GLPK) solvers for LinearProgram; see include/hpf/steady/lp.hpp.
#include <hpf/core/error.hpp>
#include <hpf/steady/lp.hpp>

#include <gmp.h>
extern "C" {
#include <qsopt_ex/QSopt_ex.h>
}
#include <glpk.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

namespace hpf::steady {

int LinearProgram::add_column(std::string name, const Rational& obj) {
  m_names.push_back(std::move(name));
  m_obj.push_back(obj);
  return column_count() - 1;
}

void LinearProgram::set_objective(int column, const Rational& obj) {
  detail::require(column >= 0 && column < column_count(),
                  "LinearProgram::set_objective: column must be in [0, ", column_count(), "), got ", column);
  m_obj[static_cast<std::size_t>(column)] = obj;
}

void LinearProgram::add_row(const std::vector<std::pair<int, Rational>>& terms, RowSense sense,
                            const Rational& rhs, std::string name) {
  std::map<int, Rational> merged;
  for (const auto& [j, a] : terms) {
    detail::require(j >= 0 && j < column_count(), "LinearProgram::add_row(", name,
                    "): column must be in [0, ", column_count(), "), got ", j);
    merged[j] += a;
  }
  Row r;
  for (auto& [j, a] : merged)
    if (a != 0) r.terms.emplace_back(j, a);
  r.sense = sense;
  r.rhs = rhs;
  r.name = std::move(name);
  m_rows.push_back(std::move(r));
}

const std::string& LinearProgram::column_name(int j) const {
  detail::require(j >= 0 && j < column_count(), "LinearProgram::column_name: column must be in [0, ",
                  column_count(), "), got ", j);
  return m_names[static_cast<std::size_t>(j)];
}

Rational LinearProgram::value(const std::vector<Rational>& x) const {
  detail::require(static_cast<int>(x.size()) == column_count(), "LinearProgram::value: x has ", x.size(),
                  " entries, expected ", column_count());
  Rational v = 0;
  for (std::size_t j = 0; j < x.size(); ++j) v += m_obj[j] * x[j];
  return v;
}

std::string LinearProgram::violation(const std::vector<Rational>& x) const {
  if (static_cast<int>(x.size()) != column_count())
    return detail::concat("x has ", x.size(), " entries, expected ", column_count());
  for (std::size_t j = 0; j < x.size(); ++j)
    if (x[j] < 0) return detail::concat("column ", m_names[j], " = ", to_string(x[j]), " < 0");
  for (const auto& r : m_rows) {
    Rational a = 0;
    for (const auto& [j, c] : r.terms) a += c * x[static_cast<std::size_t>(j)];
    const bool ok = r.sense == RowSense::LessEqual ? a <= r.rhs
                    : r.sense == RowSense::Equal   ? a == r.rhs
                                                   : a >= r.rhs;
    if (!ok)
      return detail::concat("row ", r.name, ": activity ", to_string(a), " violates rhs ", to_string(r.rhs));
  }
  return "";
}

namespace {

// QSopt_ex keeps global state (QSexactStart installs GMP allocators and constants): start it once,
// never clear it (clearing frees memory GMP objects may still own), and serialise the solves.
std::mutex& qsopt_mutex() {
  static std::mutex m;
  return m;
}

void qsopt_start_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    QSexactStart();
    QSexact_set_precision(128);
  });
}

// mpq -> Rational through its decimal text (exact; the sizes here are small).
Rational from_mpq(const mpq_t q) {
  std::string s(mpz_sizeinbase(mpq_numref(q), 10) + mpz_sizeinbase(mpq_denref(q), 10) + 3, '\0');
  mpq_get_str(s.data(), 10, q);
  s.resize(std::char_traits<char>::length(s.c_str()));
  return parse_rational(s, "QSopt_ex result");
}

// RAII over an mpq_t.
struct Mpq {
  mpq_t v;
  Mpq() { mpq_init(v); }
  explicit Mpq(const Rational& q) {
    mpq_init(v);
    set(q);
  }
  ~Mpq() { mpq_clear(v); }
  Mpq(const Mpq&) = delete;
  Mpq& operator=(const Mpq&) = delete;
  void set(const Rational& q) {
    const std::string s = to_string(q);
    const int rc = mpq_set_str(v, s.c_str(), 10);
    detail::require(rc == 0, "solve_exact: cannot convert ", s, " to GMP");
    mpq_canonicalize(v);
  }
};

// A contiguous array of initialised mpq_t, as the QSopt_ex array arguments expect.
class MpqArray {
public:
  explicit MpqArray(std::size_t n) : m_n(n), m_v(std::make_unique<mpq_t[]>(n)) {
    for (std::size_t i = 0; i < n; ++i) mpq_init(m_v[i]);
  }
  ~MpqArray() {
    for (std::size_t i = 0; i < m_n; ++i) mpq_clear(m_v[i]);
  }
  MpqArray(const MpqArray&) = delete;
  MpqArray& operator=(const MpqArray&) = delete;
  mpq_t* data() { return m_n == 0 ? nullptr : m_v.get(); }
  void set(std::size_t i, const Rational& q) {
    const std::string s = to_string(q);
    detail::require(mpq_set_str(m_v[i], s.c_str(), 10) == 0, "solve_exact: cannot convert ", s, " to GMP");
    mpq_canonicalize(m_v[i]);
  }
  [[nodiscard]] Rational get(std::size_t i) const { return from_mpq(m_v[i]); }

private:
  std::size_t m_n;
  std::unique_ptr<mpq_t[]> m_v;
};

struct QsProb {
  mpq_QSprob p;
  QsProb() : p(mpq_QScreate_prob("steady", QS_MAX)) {
    detail::require(p != nullptr, "solve_exact: QSopt_ex could not create a problem");
  }
  ~QsProb() { mpq_QSfree_prob(p); }
  QsProb(const QsProb&) = delete;
  QsProb& operator=(const QsProb&) = delete;
};

char qs_sense(RowSense s) { return s == RowSense::LessEqual ? 'L' : s == RowSense::Equal ? 'E' : 'G'; }

} // namespace

ExactLpResult solve_exact(const LinearProgram& lp) {
  std::lock_guard<std::mutex> lock(qsopt_mutex());
  qsopt_start_once();
  ExactLpResult out;
  {
    QsProb prob;
    detail::require(mpq_QSset_param(prob.p, QS_PARAM_SIMPLEX_DISPLAY, 0) == 0,
                    "solve_exact: QSopt_ex rejected the display parameter");
    Mpq zero;
    for (int j = 0; j < lp.column_count(); ++j) {
      Mpq obj(lp.objective()[static_cast<std::size_t>(j)]);
      const int rc = mpq_QSnew_col(prob.p, obj.v, zero.v, mpq_ILL_MAXDOUBLE, nullptr);
      detail::require(rc == 0, "solve_exact: QSopt_ex mpq_QSnew_col failed with code ", rc);
    }
    for (const auto& r : lp.rows()) {
      std::vector<int> ind;
      MpqArray vals(r.terms.size());
      for (const auto& [j, a] : r.terms) {
        vals.set(ind.size(), a);
        ind.push_back(j);
      }
      Mpq rhs(r.rhs);
      const int rc = mpq_QSadd_row(prob.p, static_cast<int>(ind.size()), ind.empty() ? nullptr : ind.data(),
                                   vals.data(), &rhs.v, qs_sense(r.sense), nullptr);
      detail::require(rc == 0, "solve_exact: QSopt_ex mpq_QSadd_row(", r.name, ") failed with code ", rc);
    }
    int status = 0;
    const int rc = QSexact_solver(prob.p, nullptr, nullptr, nullptr, DUAL_SIMPLEX, &status);
    detail::require(rc == 0, "solve_exact: QSopt_ex QSexact_solver failed with code ", rc);
    if (status == QS_LP_INFEASIBLE) {
      out.status = LpStatus::Infeasible;
      return out;
    }
    if (status == QS_LP_UNBOUNDED) {
      out.status = LpStatus::Unbounded;
      return out;
    }
    detail::require(status == QS_LP_OPTIMAL, "solve_exact: QSopt_ex ended with status ", status,
                    " (expected optimal, infeasible or unbounded)");
    const auto n = static_cast<std::size_t>(lp.column_count());
    MpqArray x(n);
    if (n > 0) {
      const int g = mpq_QSget_x_array(prob.p, x.data());
      detail::require(g == 0, "solve_exact: QSopt_ex mpq_QSget_x_array failed with code ", g);
    }
    out.status = LpStatus::Optimal;
    out.x.reserve(n);
    for (std::size_t j = 0; j < n; ++j) out.x.push_back(x.get(j));
  }
  out.objective = lp.value(out.x);
  const std::string bad = lp.violation(out.x);
  detail::require(bad.empty(), "solve_exact: QSopt_ex returned an infeasible point: ", bad);
  return out;
}

FloatLpResult solve_float(const LinearProgram& lp) {
  std::unique_ptr<glp_prob, void (*)(glp_prob*)> p(glp_create_prob(), glp_delete_prob);
  glp_set_obj_dir(p.get(), GLP_MAX);
  const int n = lp.column_count();
  if (n > 0) glp_add_cols(p.get(), n);
  for (int j = 0; j < n; ++j) {
    glp_set_col_bnds(p.get(), j + 1, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(p.get(), j + 1, to_double(lp.objective()[static_cast<std::size_t>(j)]));
  }
  if (lp.row_count() > 0) glp_add_rows(p.get(), lp.row_count());
  for (int i = 0; i < lp.row_count(); ++i) {
    const auto& r = lp.rows()[static_cast<std::size_t>(i)];
    const double b = to_double(r.rhs);
    glp_set_row_bnds(p.get(), i + 1,
                     r.sense == RowSense::LessEqual ? GLP_UP
                     : r.sense == RowSense::Equal   ? GLP_FX
                                                    : GLP_LO,
                     b, b);
    std::vector<int> ind{0};
    std::vector<double> val{0.0};
    for (const auto& [j, a] : r.terms) {
      ind.push_back(j + 1);
      val.push_back(to_double(a));
    }
    glp_set_mat_row(p.get(), i + 1, static_cast<int>(ind.size()) - 1, ind.data(), val.data());
  }
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;
  const int rc = glp_simplex(p.get(), &parm);
  FloatLpResult out;
  if (rc == GLP_ENOPFS) return out; // presolver proved primal infeasibility
  if (rc == GLP_ENODFS) {
    out.status = LpStatus::Unbounded;
    return out;
  }
  detail::require(rc == 0, "solve_float: glp_simplex failed with code ", rc);
  const int st = glp_get_status(p.get());
  if (st == GLP_UNBND) {
    out.status = LpStatus::Unbounded;
    return out;
  }
  if (st != GLP_OPT) return out;
  out.status = LpStatus::Optimal;
  out.objective = glp_get_obj_val(p.get());
  for (int j = 0; j < n; ++j) out.x.push_back(glp_get_col_prim(p.get(), j + 1));
  return out;
}

} // namespace hpf::steady
