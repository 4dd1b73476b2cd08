// CommMatrix and Schedule: the one description of "who sends how much to whom, in which step".
//
// Pure data, no MPI. Everything that sends messages in steps (caterpillar, class-based, König,
// Wang–Ranka, periodic steady-state) produces an hpf::Schedule, checked by one validator and
// costed by one function:  cost = alpha * steps + beta * sum over steps of the longest message.
//
// Timed and periodic schedules (steady-state pipelines, Legrand et al. Section 3.3): a step may carry its
// duration (`Step::duration`, in the producer's time units; 0 = unspecified, the default), and a
// schedule may repeat with a period (`Schedule::period()`, 0 = not periodic, the default). A periodic
// steady-state schedule is one period: one step per weighted matching, the step's duration that of
// the matching; a pair may then recur in several steps (the validator adds its lengths). Producers
// that set neither (redistribution, all-to-many) are unaffected;
// timed_cost() uses a step's duration where it is given and beta * its longest message otherwise.
//
// Senders are numbered 0..num_senders-1 and receivers 0..num_receivers-1 (for a redistribution
// from P to Q ranks these are grid positions, not MPI ranks; the executor maps them).
#pragma once

#include <hpf/core/math.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace hpf {

/// One message: `len` units (elements or bytes, as the producer documents) from src to dst.
struct Message {
  int src = 0;     ///< sender (a rank or grid position, as the producer documents)
  int dst = 0;     ///< receiver
  index_t len = 0; ///< length; 0 for an empty message that still takes its step
  /// Messages compare equal field by field.
  friend bool operator==(const Message&, const Message&) = default;
};

/// A sparse num_senders x num_receivers matrix of message lengths (zero entries not stored).
/// Entries are kept sorted by (src, dst); adding to an existing entry accumulates.
class CommMatrix {
public:
  CommMatrix() = default;
  /// An empty matrix of that shape. Throws hpf::Error for a negative dimension.
  CommMatrix(int num_senders, int num_receivers);

  /// Adds `len` (>= 0) to entry (src, dst). Throws hpf::Error on an index out of range.
  void add(int src, int dst, index_t len);

  /// Number of rows.
  [[nodiscard]] int num_senders() const noexcept { return m_senders; }
  /// Number of columns.
  [[nodiscard]] int num_receivers() const noexcept { return m_receivers; }
  /// Non-zero entries sorted by (src, dst).
  [[nodiscard]] const std::vector<Message>& entries() const;
  /// Length of entry (src, dst), 0 when absent.
  [[nodiscard]] index_t at(int src, int dst) const;
  /// Sum of every entry.
  [[nodiscard]] index_t total_volume() const;

  /// Number of non-zero entries in each row (sender).
  [[nodiscard]] std::vector<int> row_degrees() const;
  /// Number of non-zero entries in each column (receiver).
  [[nodiscard]] std::vector<int> col_degrees() const;
  /// Max over rows and columns of the number of non-zero entries: the minimum number of steps of
  /// any schedule (König's edge-colouring theorem; Theorem 1 of Desprez et al.).
  [[nodiscard]] int max_degree() const;
  /// Max over rows and columns of the summed lengths: a lower bound on the total cost TC / beta
  /// of any one-port schedule.
  [[nodiscard]] index_t max_volume() const;

  /// Same shape and the same non-zero entries.
  friend bool operator==(const CommMatrix& a, const CommMatrix& b);

private:
  void normalize() const;

  int m_senders = 0;
  int m_receivers = 0;
  mutable std::vector<Message> m_entries;
  mutable bool m_sorted = true;
};

/// One step: a partial permutation (each sender at most one message, each receiver at most one).
struct Step {
  std::vector<Message> messages; ///< at most one per sender and one per receiver
  /// Time the step takes, in the producer's units (a matching's duration); 0 = unspecified.
  double duration = 0.0;
  /// Longest message of the step (0 for an empty step).
  [[nodiscard]] index_t max_len() const noexcept;
  /// True when no message of the step carries data.
  [[nodiscard]] bool is_empty() const noexcept;
};

/// A communication schedule: steps run one after another, messages within a step concurrently.
class Schedule {
public:
  Schedule() = default;
  /// A schedule of `steps` between num_senders senders and num_receivers receivers.
  Schedule(int num_senders, int num_receivers, std::vector<Step> steps = {});

  /// Number of senders.
  [[nodiscard]] int num_senders() const noexcept { return m_senders; }
  /// Number of receivers.
  [[nodiscard]] int num_receivers() const noexcept { return m_receivers; }
  /// The steps, in the order they run.
  [[nodiscard]] const std::vector<Step>& steps() const noexcept { return m_steps; }
  /// Appends a step (not validated: see validate()).
  void add_step(Step step) { m_steps.push_back(std::move(step)); }

  /// Time units per period of a periodic schedule; 0 = not periodic (the default).
  [[nodiscard]] double period() const noexcept { return m_period; }
  /// Throws hpf::Error unless `period` is finite and >= 0.
  void set_period(double period);

  /// All steps taken, including steps whose messages are all empty (caterpillar takes those).
  [[nodiscard]] int num_steps() const noexcept { return static_cast<int>(m_steps.size()); }
  /// NS of Desprez et al.: the number of steps that move data.
  [[nodiscard]] int num_nonempty_steps() const noexcept;
  /// TC of Desprez et al.: sum over steps of the longest message (in the producer's units).
  [[nodiscard]] index_t total_cost() const;
  /// alpha * num_steps() + beta * total_cost(): alpha is the start-up per step, beta the time per unit.
  [[nodiscard]] double cost(double alpha, double beta) const;
  /// Sum of the steps' durations (the busy time of one period of a periodic schedule).
  [[nodiscard]] double total_duration() const noexcept;
  /// alpha * num_steps() + sum over steps of its duration, or beta * its longest message when the
  /// duration is unspecified (0). Equals cost(alpha, beta) when no step has a duration.
  [[nodiscard]] double timed_cost(double alpha, double beta) const noexcept;

  /// The messages that sender `src` sends, in step order (step index, message).
  [[nodiscard]] std::vector<std::pair<int, Message>> sends_of(int src) const;
  /// The messages that receiver `dst` receives, in step order.
  [[nodiscard]] std::vector<std::pair<int, Message>> receives_of(int dst) const;

private:
  int m_senders = 0;
  int m_receivers = 0;
  std::vector<Step> m_steps;
  double m_period = 0.0;
};

/// Checks that `s` realises `m`: same dimensions, every non-zero entry of `m` sent exactly once with
/// its full length (zero-length messages are allowed only for pairs whose entry is zero), and in each
/// step every sender sends at most once and every receiver receives at most once. Step durations
/// must be finite and >= 0. A periodic schedule (period() > 0) may send a pair in several steps (the
/// lengths add up to the entry) and its durations sum to at most the period (up to rounding).
/// Throws hpf::Error describing the first violation.
void validate(const Schedule& s, const CommMatrix& m);

/// Same check, returning the problem as text ("" when valid) instead of throwing.
[[nodiscard]] std::string check_schedule(const Schedule& s, const CommMatrix& m);

} // namespace hpf
