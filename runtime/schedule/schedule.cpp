#include <hpf/core/error.hpp>
#include <hpf/schedule/schedule.hpp>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace hpf {

// ---------------------------------------------------------------------------------------------
// CommMatrix

CommMatrix::CommMatrix(int num_senders, int num_receivers)
    : m_senders(num_senders), m_receivers(num_receivers) {
  detail::require(num_senders >= 0, "CommMatrix: num_senders must be >= 0, got ", num_senders);
  detail::require(num_receivers >= 0, "CommMatrix: num_receivers must be >= 0, got ", num_receivers);
}

void CommMatrix::add(int src, int dst, index_t len) {
  detail::require(src >= 0 && src < m_senders, "CommMatrix::add: src must be in [0, ", m_senders, "), got ",
                  src);
  detail::require(dst >= 0 && dst < m_receivers, "CommMatrix::add: dst must be in [0, ", m_receivers,
                  "), got ", dst);
  detail::require(len >= 0, "CommMatrix::add: len must be >= 0, got ", len);
  if (len == 0) return;
  m_entries.push_back({src, dst, len});
  m_sorted = false;
}

void CommMatrix::normalize() const {
  if (m_sorted) return;
  std::sort(m_entries.begin(), m_entries.end(), [](const Message& a, const Message& b) {
    return std::tie(a.src, a.dst) < std::tie(b.src, b.dst);
  });
  std::vector<Message> merged;
  merged.reserve(m_entries.size());
  for (const Message& e : m_entries) {
    if (!merged.empty() && merged.back().src == e.src && merged.back().dst == e.dst)
      merged.back().len =
          detail::checked_add(merged.back().len, e.len, "CommMatrix: the volume from ", e.src, " to ", e.dst);
    else
      merged.push_back(e);
  }
  m_entries.swap(merged);
  m_sorted = true;
}

const std::vector<Message>& CommMatrix::entries() const {
  normalize();
  return m_entries;
}

index_t CommMatrix::at(int src, int dst) const {
  const auto& e = entries();
  auto it =
      std::lower_bound(e.begin(), e.end(), Message{src, dst, 0}, [](const Message& a, const Message& b) {
        return std::tie(a.src, a.dst) < std::tie(b.src, b.dst);
      });
  return (it != e.end() && it->src == src && it->dst == dst) ? it->len : 0;
}

index_t CommMatrix::total_volume() const {
  index_t v = 0;
  for (const Message& e : entries()) v = detail::checked_add(v, e.len, "CommMatrix::total_volume");
  return v;
}

std::vector<int> CommMatrix::row_degrees() const {
  std::vector<int> d(static_cast<std::size_t>(m_senders), 0);
  for (const Message& e : entries()) ++d[static_cast<std::size_t>(e.src)];
  return d;
}

std::vector<int> CommMatrix::col_degrees() const {
  std::vector<int> d(static_cast<std::size_t>(m_receivers), 0);
  for (const Message& e : entries()) ++d[static_cast<std::size_t>(e.dst)];
  return d;
}

int CommMatrix::max_degree() const {
  int m = 0;
  for (int d : row_degrees()) m = std::max(m, d);
  for (int d : col_degrees()) m = std::max(m, d);
  return m;
}

index_t CommMatrix::max_volume() const {
  std::vector<index_t> row(static_cast<std::size_t>(m_senders), 0);
  std::vector<index_t> col(static_cast<std::size_t>(m_receivers), 0);
  for (const Message& e : entries()) {
    index_t& r = row[static_cast<std::size_t>(e.src)];
    index_t& c = col[static_cast<std::size_t>(e.dst)];
    r = detail::checked_add(r, e.len, "CommMatrix::max_volume: the volume sent by ", e.src);
    c = detail::checked_add(c, e.len, "CommMatrix::max_volume: the volume received by ", e.dst);
  }
  index_t m = 0;
  for (index_t v : row) m = std::max(m, v);
  for (index_t v : col) m = std::max(m, v);
  return m;
}

bool operator==(const CommMatrix& a, const CommMatrix& b) {
  return a.m_senders == b.m_senders && a.m_receivers == b.m_receivers && a.entries() == b.entries();
}

// ---------------------------------------------------------------------------------------------
// Step and Schedule

index_t Step::max_len() const noexcept {
  index_t m = 0;
  for (const Message& msg : messages) m = std::max(m, msg.len);
  return m;
}

bool Step::is_empty() const noexcept { return max_len() == 0; }

Schedule::Schedule(int num_senders, int num_receivers, std::vector<Step> steps)
    : m_senders(num_senders), m_receivers(num_receivers), m_steps(std::move(steps)) {
  detail::require(num_senders >= 0, "Schedule: num_senders must be >= 0, got ", num_senders);
  detail::require(num_receivers >= 0, "Schedule: num_receivers must be >= 0, got ", num_receivers);
}

int Schedule::num_nonempty_steps() const noexcept {
  return static_cast<int>(
      std::count_if(m_steps.begin(), m_steps.end(), [](const Step& s) { return !s.is_empty(); }));
}

index_t Schedule::total_cost() const {
  index_t tc = 0;
  for (const Step& s : m_steps)
    tc = detail::checked_add(tc, s.max_len(),
                             "Schedule::total_cost (the sum of the longest message of each step)");
  return tc;
}

double Schedule::cost(double alpha, double beta) const {
  return alpha * static_cast<double>(num_steps()) + beta * static_cast<double>(total_cost());
}

void Schedule::set_period(double period) {
  detail::require(std::isfinite(period) && period >= 0.0,
                  "Schedule::set_period: period must be finite and >= 0 (0 = not periodic), got ", period);
  m_period = period;
}

double Schedule::total_duration() const noexcept {
  double d = 0.0;
  for (const Step& s : m_steps) d += s.duration;
  return d;
}

double Schedule::timed_cost(double alpha, double beta) const noexcept {
  double c = alpha * static_cast<double>(num_steps());
  for (const Step& s : m_steps) c += s.duration > 0.0 ? s.duration : beta * static_cast<double>(s.max_len());
  return c;
}

std::vector<std::pair<int, Message>> Schedule::sends_of(int src) const {
  std::vector<std::pair<int, Message>> out;
  for (std::size_t k = 0; k < m_steps.size(); ++k)
    for (const Message& m : m_steps[k].messages)
      if (m.src == src) out.emplace_back(static_cast<int>(k), m);
  return out;
}

std::vector<std::pair<int, Message>> Schedule::receives_of(int dst) const {
  std::vector<std::pair<int, Message>> out;
  for (std::size_t k = 0; k < m_steps.size(); ++k)
    for (const Message& m : m_steps[k].messages)
      if (m.dst == dst) out.emplace_back(static_cast<int>(k), m);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Validation

std::string check_schedule(const Schedule& s, const CommMatrix& m) {
  using detail::concat;
  if (s.num_senders() != m.num_senders() || s.num_receivers() != m.num_receivers())
    return concat("schedule is ", s.num_senders(), "x", s.num_receivers(), " but the matrix is ",
                  m.num_senders(), "x", m.num_receivers());
  std::vector<Message> sent;
  std::vector<int> send_step(static_cast<std::size_t>(s.num_senders()), -1);
  std::vector<int> recv_step(static_cast<std::size_t>(s.num_receivers()), -1);
  for (std::size_t k = 0; k < s.steps().size(); ++k) {
    const int step = static_cast<int>(k);
    const double d = s.steps()[k].duration;
    if (!std::isfinite(d) || d < 0.0)
      return concat("step ", step, ": duration ", d, " is not finite and >= 0");
    for (const Message& msg : s.steps()[k].messages) {
      if (msg.src < 0 || msg.src >= s.num_senders() || msg.dst < 0 || msg.dst >= s.num_receivers())
        return concat("step ", step, ": message ", msg.src, "->", msg.dst, " is out of range");
      if (msg.len < 0)
        return concat("step ", step, ": message ", msg.src, "->", msg.dst, " has length ", msg.len);
      if (send_step[static_cast<std::size_t>(msg.src)] == step)
        return concat("step ", step, ": sender ", msg.src, " sends more than one message");
      if (recv_step[static_cast<std::size_t>(msg.dst)] == step)
        return concat("step ", step, ": receiver ", msg.dst, " receives more than one message");
      send_step[static_cast<std::size_t>(msg.src)] = step;
      recv_step[static_cast<std::size_t>(msg.dst)] = step;
      if (msg.len > 0)
        sent.push_back(msg);
      else if (m.at(msg.src, msg.dst) != 0)
        return concat("step ", step, ": empty message ", msg.src, "->", msg.dst, " for a pair that has data");
    }
  }
  // Durations converted from exact fractions may exceed the period by rounding only.
  if (s.period() > 0.0 && s.total_duration() > s.period() * (1.0 + 1e-9))
    return concat("the steps take ", s.total_duration(), " time units, more than the period ", s.period());
  std::sort(sent.begin(), sent.end(), [](const Message& a, const Message& b) {
    return std::tie(a.src, a.dst) < std::tie(b.src, b.dst);
  });
  if (s.period() > 0.0) {
    // A periodic schedule may split a pair over several steps (a weighted edge colouring splits an
    // edge over matchings, Section 3.3 of Legrand, Marchal and Robert): its lengths add up to the entry.
    std::vector<Message> merged;
    for (const Message& msg : sent) {
      if (!merged.empty() && merged.back().src == msg.src && merged.back().dst == msg.dst)
        merged.back().len = detail::checked_add(merged.back().len, msg.len, "a periodic schedule's volume");
      else
        merged.push_back(msg);
    }
    sent.swap(merged);
  }
  for (std::size_t i = 1; i < sent.size(); ++i)
    if (sent[i].src == sent[i - 1].src && sent[i].dst == sent[i - 1].dst)
      return concat("pair ", sent[i].src, "->", sent[i].dst, " is sent more than once");
  const auto& want = m.entries();
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < want.size() || j < sent.size()) {
    if (j == sent.size() ||
        (i < want.size() && std::tie(want[i].src, want[i].dst) < std::tie(sent[j].src, sent[j].dst)))
      return concat("pair ", want[i].src, "->", want[i].dst, " (", want[i].len, ") is never sent");
    if (i == want.size() || std::tie(sent[j].src, sent[j].dst) < std::tie(want[i].src, want[i].dst))
      return concat("pair ", sent[j].src, "->", sent[j].dst, " is sent but has no data");
    if (want[i].len != sent[j].len)
      return concat("pair ", want[i].src, "->", want[i].dst, " sends ", sent[j].len, " but the matrix holds ",
                    want[i].len);
    ++i;
    ++j;
  }
  return {};
}

void validate(const Schedule& s, const CommMatrix& m) {
  const std::string problem = check_schedule(s, m);
  detail::require(problem.empty(), "invalid schedule: ", problem);
}

} // namespace hpf
