#include <hpf/core/error.hpp>
#include <hpf/schedule/schedule.hpp>

#include <gtest/gtest.h>

namespace {

using hpf::CommMatrix;
using hpf::Message;
using hpf::Schedule;
using hpf::Step;

CommMatrix example() {
  CommMatrix m(3, 2);
  m.add(0, 0, 5);
  m.add(0, 1, 2);
  m.add(1, 1, 4);
  m.add(2, 0, 1);
  m.add(2, 0, 2); // accumulates to 3
  return m;
}

TEST(CommMatrix, DegreesAndVolumes) {
  const CommMatrix m = example();
  EXPECT_EQ(m.at(2, 0), 3);
  EXPECT_EQ(m.at(1, 0), 0);
  EXPECT_EQ(m.entries().size(), 4U);
  EXPECT_EQ(m.row_degrees(), (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(m.col_degrees(), (std::vector<int>{2, 2}));
  EXPECT_EQ(m.max_degree(), 2);
  EXPECT_EQ(m.max_volume(), 8); // column 0: 5 + 3
  EXPECT_EQ(m.total_volume(), 14);
}

TEST(CommMatrix, RejectsBadEntries) {
  CommMatrix m(2, 2);
  EXPECT_THROW(m.add(2, 0, 1), hpf::Error);
  EXPECT_THROW(m.add(0, -1, 1), hpf::Error);
  EXPECT_THROW(m.add(0, 0, -1), hpf::Error);
  EXPECT_THROW(CommMatrix(-1, 2), hpf::Error);
}

TEST(Schedule, CostsAndValidation) {
  const CommMatrix m = example();
  Schedule s(3, 2);
  s.add_step(Step{{Message{0, 0, 5}, Message{1, 1, 4}}});
  s.add_step(Step{{Message{2, 0, 3}, Message{0, 1, 2}}});
  s.add_step(Step{{Message{1, 0, 0}}}); // an empty step, as caterpillar takes
  EXPECT_EQ(hpf::check_schedule(s, m), "");
  EXPECT_NO_THROW(hpf::validate(s, m));
  EXPECT_EQ(s.num_steps(), 3);
  EXPECT_EQ(s.num_nonempty_steps(), 2);
  EXPECT_EQ(s.total_cost(), 8);
  EXPECT_DOUBLE_EQ(s.cost(10.0, 0.5), 34.0);
  EXPECT_EQ(s.sends_of(0).size(), 2U);
  EXPECT_EQ(s.receives_of(0).size(), 3U);
}

TEST(Schedule, ValidatorCatchesEveryKindOfViolation) {
  const CommMatrix m = example();
  auto expect_problem = [&](const Schedule& s, const std::string& needle) {
    const std::string p = hpf::check_schedule(s, m);
    EXPECT_NE(p.find(needle), std::string::npos) << "problem was: '" << p << "', expected '" << needle << "'";
    EXPECT_THROW(hpf::validate(s, m), hpf::Error);
  };
  // Two sends by one sender in a step.
  expect_problem(Schedule(3, 2, {Step{{{0, 0, 5}, {0, 1, 2}}}, Step{{{1, 1, 4}, {2, 0, 3}}}}),
                 "sends more than one");
  // Two receives by one receiver.
  expect_problem(Schedule(3, 2, {Step{{{0, 0, 5}, {2, 0, 3}}}, Step{{{1, 1, 4}}}, Step{{{0, 1, 2}}}}),
                 "receives more than one");
  // A missing pair.
  expect_problem(Schedule(3, 2, {Step{{{0, 0, 5}, {1, 1, 4}}}, Step{{{2, 0, 3}}}}), "never sent");
  // A pair sent twice.
  expect_problem(
      Schedule(3, 2, {Step{{{0, 0, 5}, {1, 1, 4}}}, Step{{{2, 0, 3}, {0, 1, 2}}}, Step{{{0, 0, 5}}}}),
      "more than once");
  // A wrong length.
  expect_problem(Schedule(3, 2, {Step{{{0, 0, 4}, {1, 1, 4}}}, Step{{{2, 0, 3}, {0, 1, 2}}}}), "sends 4");
  // Data for a pair that has none.
  expect_problem(
      Schedule(3, 2, {Step{{{0, 0, 5}, {1, 1, 4}}}, Step{{{2, 0, 3}, {0, 1, 2}}}, Step{{{1, 0, 1}}}}),
      "has no data");
  // An empty message where data is due.
  expect_problem(Schedule(3, 2, {Step{{{0, 0, 0}}}}), "empty message");
  // Out of range and mismatched dimensions.
  expect_problem(Schedule(3, 2, {Step{{{5, 0, 1}}}}), "out of range");
  expect_problem(Schedule(2, 2), "schedule is 2x2");
}

} // namespace

namespace {

// Timed, periodic schedules (steady-state matchings, Section 3.3 of Legrand, Marchal and Robert):
// durations and a period.
TEST(Schedule, DurationsAndPeriod) {
  const CommMatrix m = example();
  Schedule s(3, 2);
  EXPECT_EQ(s.period(), 0.0); // not periodic by default
  s.add_step(Step{{Message{0, 0, 5}, Message{1, 1, 4}}, 2.5});
  s.add_step(Step{{Message{2, 0, 3}, Message{0, 1, 2}}}); // duration unspecified
  EXPECT_EQ(s.steps()[1].duration, 0.0);
  EXPECT_DOUBLE_EQ(s.total_duration(), 2.5);
  // Duration where given, beta * longest message otherwise; plain cost() ignores durations.
  EXPECT_DOUBLE_EQ(s.timed_cost(1.0, 0.5), 2.0 + 2.5 + 0.5 * 3);
  EXPECT_DOUBLE_EQ(s.cost(1.0, 0.5), 2.0 + 0.5 * 8);
  s.set_period(4.0);
  EXPECT_EQ(s.period(), 4.0);
  EXPECT_EQ(hpf::check_schedule(s, m), "");
  s.set_period(2.0); // shorter than the steps' durations
  EXPECT_NE(hpf::check_schedule(s, m).find("more than the period"), std::string::npos);
  s.set_period(0.0);
  EXPECT_EQ(hpf::check_schedule(s, m), "");
  EXPECT_THROW(s.set_period(-1.0), hpf::Error);
  // A periodic schedule may split a pair over steps (matchings); the parts add up to the entry.
  Schedule split(3, 2,
                 {Step{{Message{0, 0, 2}, Message{1, 1, 4}}, 1.0},
                  Step{{Message{2, 0, 3}, Message{0, 1, 2}}, 1.0}, Step{{Message{0, 0, 3}}, 1.0}});
  EXPECT_NE(hpf::check_schedule(split, m).find("sent more than once"), std::string::npos);
  split.set_period(3.0);
  EXPECT_EQ(hpf::check_schedule(split, m), "");
  Schedule bad(
      3, 2, {Step{{Message{0, 0, 5}, Message{1, 1, 4}}, -1.0}, Step{{Message{2, 0, 3}, Message{0, 1, 2}}}});
  EXPECT_NE(hpf::check_schedule(bad, m).find("duration"), std::string::npos);
}

} // namespace
