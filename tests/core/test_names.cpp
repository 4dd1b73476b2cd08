// One name table per enum (include/hpf/core/names.hpp): every enum with names round-trips through
// to_string and its parse, every name is lower-case with hyphens, an unknown value is an hpf::Error
// that names the argument and the value, and old spellings kept as aliases parse but never print.
#include <hpf/adaptive/broadcast_model.hpp>
#include <hpf/adaptive/hierarchical.hpp>
#include <hpf/core/names.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/reduce/tree.hpp>
#include <hpf/schedule/all_to_many.hpp>
#include <hpf/schedule/routing.hpp>
#include <hpf/schedule/strategy.hpp>
#include <hpf/steady/steady.hpp>

#include "hpf_test.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

bool one_casing(const std::string& s) {
  if (s.empty() || s.front() == '-' || s.back() == '-') return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

/// Round trip and casing of every value in `all`; `parse(bad, what)` must throw naming both.
template <class Range, class Parse> void check_enum(const Range& all, Parse parse) {
  for (auto v : all) {
    using hpf::to_string; // and ADL for hpf::steady
    const std::string n = to_string(v);
    EXPECT_TRUE(one_casing(n)) << "'" << n << "' is not lower-case with hyphens";
    EXPECT_EQ(parse(n, "--x"), v) << n;
  }
  HPF_EXPECT_ERROR(parse("No Such", "--my-arg"), "--my-arg", "'No Such'", "expected one of");
}

enum class Colour { Red, Green };
constexpr hpf::NameTable<Colour, 3> colours{
    {{{Colour::Red, "red"}, {Colour::Green, "green"}, {Colour::Red, "rouge"}}}};

TEST(Names, TableWithAlias) {
  EXPECT_EQ(colours.name(Colour::Red), "red");
  EXPECT_EQ(colours.parse("rouge", "colour"), Colour::Red);
  EXPECT_EQ(colours.list(), "red, green");
  HPF_EXPECT_ERROR(colours.parse("blue\x01", "--colour"), "--colour: unknown value 'blue?'", "red, green");
  HPF_EXPECT_ERROR(colours.name(static_cast<Colour>(7)), "7");
}

TEST(Names, EveryEnum) {
  check_enum(hpf::all_strategies(), [](auto t, auto w) { return hpf::parse_strategy(t, w); });
  check_enum(hpf::all_to_many_algos(), [](auto t, auto w) { return hpf::parse_all_to_many_algo(t, w); });
  check_enum(std::initializer_list<hpf::RoutingKind>{hpf::RoutingKind::Hypercube, hpf::RoutingKind::Mesh2D,
                                                     hpf::RoutingKind::Full},
             [](auto t, auto w) { return hpf::parse_routing_kind(t, w); });
  check_enum(std::initializer_list<hpf::ExecMode>{hpf::ExecMode::StepSynchronous, hpf::ExecMode::AllAtOnce,
                                                  hpf::ExecMode::Handshake, hpf::ExecMode::Alltoallv,
                                                  hpf::ExecMode::Pipelined},
             [](auto t, auto w) { return hpf::parse_exec_mode(t, w); });
  check_enum(hpf::all_bcast_algorithms(), [](auto t, auto w) { return hpf::parse_bcast_algorithm(t, w); });
  check_enum(hpf::all_inter_heuristics(), [](auto t, auto w) { return hpf::parse_inter_heuristic(t, w); });
  check_enum(std::initializer_list<hpf::steady::SteadyOp>{hpf::steady::SteadyOp::Scatter,
                                                          hpf::steady::SteadyOp::Gossip,
                                                          hpf::steady::SteadyOp::Reduce},
             [](auto t, auto w) { return hpf::steady::parse_steady_op(t, w); });
  check_enum(
      std::initializer_list<hpf::ReduceStrategy>{
          hpf::ReduceStrategy::greedy, hpf::ReduceStrategy::binomial, hpf::ReduceStrategy::fibonacci,
          hpf::ReduceStrategy::limited_transfers, hpf::ReduceStrategy::limited_reducers},
      [](auto t, auto w) { return hpf::parse_reduce_strategy(t, w); });
}

// The old underscore spellings stay accepted where tests, the README and bench/all_to_many use them.
TEST(Names, Aliases) {
  EXPECT_EQ(hpf::parse_all_to_many_algo("rs_n"), hpf::AllToManyAlgo::RS_N);
  EXPECT_EQ(hpf::parse_all_to_many_algo("rs_nl"), hpf::AllToManyAlgo::RS_NL);
  EXPECT_EQ(hpf::to_string(hpf::AllToManyAlgo::RS_NL), "rs-nl");
  HPF_EXPECT_ERROR(hpf::parse_all_to_many_algo("best"), "algo: unknown value 'best'",
                   "expected one of ac, lp, rs-n, rs-nl, optimal");
  EXPECT_EQ(hpf::to_string(hpf::InterHeuristic::ecef_laT), "ecef-lat-max");
}

} // namespace
