// A small linear-program container and two solvers: exact rational (QSopt_ex, libqsopt-ex-dev) and
// floating point (GLPK, libglpk-dev, used only as an independent cross-check).
//
// Legrand et al. (Section 2) solves its steady-state programs "in rational numbers": the throughput is a
// fraction and the period is the lcm of the denominators, so the exact solver is the one the
// planner uses. QSopt_ex returns GMP rationals; the wrapper converts them to Rational and re-checks
// every row exactly (LinearProgram::violation) before returning.
#pragma once

#include <hpf/steady/platform.hpp>

#include <string>
#include <utility>
#include <vector>

namespace hpf::steady {

/// Relation of a row to its right-hand side.
enum class RowSense { LessEqual, Equal, GreaterEqual };

/// maximize sum obj[j] x[j]  s.t.  rows,  0 <= x[j] (<= upper[j] when has_upper[j]).
class LinearProgram {
public:
  /// A constraint: sum of coefficient * x[column] (sense) rhs.
  struct Row {
    std::vector<std::pair<int, Rational>> terms; ///< (column, coefficient), columns distinct
    RowSense sense = RowSense::LessEqual;        ///< <=, = or >=
    Rational rhs;                                ///< right-hand side
    std::string name;                            ///< for messages about a violated row
  };

  /// Adds a column x >= 0 with objective coefficient `obj`; returns its index.
  int add_column(std::string name, const Rational& obj = Rational(0));
  /// Replaces column j's objective coefficient (a second, lexicographic stage of a solve).
  void set_objective(int column, const Rational& obj);
  /// Adds a row; coefficients of the same column are summed, zero terms dropped.
  void add_row(const std::vector<std::pair<int, Rational>>& terms, RowSense sense, const Rational& rhs,
               std::string name);

  /// Number of columns (variables).
  [[nodiscard]] int column_count() const noexcept { return static_cast<int>(m_names.size()); }
  /// Number of rows (constraints).
  [[nodiscard]] int row_count() const noexcept { return static_cast<int>(m_rows.size()); }
  /// The constraints, in the order they were added.
  [[nodiscard]] const std::vector<Row>& rows() const noexcept { return m_rows; }
  /// Objective coefficient of every column.
  [[nodiscard]] const std::vector<Rational>& objective() const noexcept { return m_obj; }
  /// Name of column j; throws hpf::Error for j out of range.
  [[nodiscard]] const std::string& column_name(int j) const;

  /// Exact objective value of x.
  [[nodiscard]] Rational value(const std::vector<Rational>& x) const;
  /// "" when x satisfies every bound and row exactly, else a description of the first violation.
  [[nodiscard]] std::string violation(const std::vector<Rational>& x) const;

private:
  std::vector<std::string> m_names;
  std::vector<Rational> m_obj;
  std::vector<Row> m_rows;
};

/// Outcome of a solve.
enum class LpStatus { Optimal, Infeasible, Unbounded };

/// The exact solution of a LinearProgram.
struct ExactLpResult {
  LpStatus status = LpStatus::Infeasible; ///< whether x is an optimum
  Rational objective;                     ///< the optimal objective value
  std::vector<Rational> x;                ///< one value per column
};

/// A floating-point solution (the independent cross-check).
struct FloatLpResult {
  LpStatus status = LpStatus::Infeasible; ///< whether x is an optimum
  double objective = 0.0;                 ///< the optimal objective value
  std::vector<double> x;                  ///< one value per column
};

/// Solves exactly with QSopt_ex (dual simplex, exact rational verification of the final basis).
/// Throws hpf::Error if the solver fails or if the returned point violates a row exactly.
[[nodiscard]] ExactLpResult solve_exact(const LinearProgram& lp);
/// Solves in double precision with GLPK's simplex (for cross-checks; never used to build schedules).
[[nodiscard]] FloatLpResult solve_float(const LinearProgram& lp);

} // namespace hpf::steady
