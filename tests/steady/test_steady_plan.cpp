// Planning half of steady/ (Legrand, Marchal and Robert): platform model, exact LPs, trees, matchings,
// fixed period.
#include <hpf/core/error.hpp>
#include <hpf/steady/steady.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "hpf_test.hpp"

using namespace hpf::steady;

namespace {

Rational q(const char* s) { return parse_rational(s, "test"); }

// Figure 2(a) of Legrand, Marchal and Robert.
Platform figure2() {
  Platform p;
  for (const char* n : {"Ps", "Pa", "Pb", "P0", "P1"}) p.add_node(n, Rational(1));
  p.add_edge("Ps", "Pa", q("1"));
  p.add_edge("Ps", "Pb", q("1"));
  p.add_edge("Pa", "P0", q("2/3"));
  p.add_edge("Pb", "P0", q("4/3"));
  p.add_edge("Pb", "P1", q("4/3"));
  return p;
}

// Figure 6(a): P0 computes two tasks per time unit, P1 and P2 one; links of cost 1 out of P1, P2.
Platform figure6() {
  Platform p;
  p.add_node("P0", Rational(2));
  p.add_node("P1", Rational(1));
  p.add_node("P2", Rational(1));
  p.add_edge("P1", "P0", q("1"));
  p.add_edge("P1", "P2", q("1"));
  p.add_edge("P2", "P0", q("1"));
  p.add_edge("P2", "P1", q("1"));
  return p;
}

// Checks a PeriodicSchedule: one-port in every matching, every tree task's messages all sent.
void expect_valid_schedule(const Platform& g, const PeriodicSchedule& ps) {
  EXPECT_LE(ps.busy, Rational(ps.period));
  std::map<std::pair<int, int>, Rational> sent;
  Rational total = 0;
  for (const auto& m : ps.matchings) {
    EXPECT_GT(m.duration, 0);
    total += m.duration;
    std::map<int, int> sender_edge, receiver_edge;
    for (const auto& t : m.transfers) {
      const auto& e = g.edge(t.edge);
      auto [it1, new1] = sender_edge.emplace(e.from, t.edge);
      EXPECT_TRUE(new1 || it1->second == t.edge) << "node " << e.from << " sends on two links at once";
      auto [it2, new2] = receiver_edge.emplace(e.to, t.edge);
      EXPECT_TRUE(new2 || it2->second == t.edge) << "node " << e.to << " receives on two links at once";
      sent[{t.tree, t.task}] += t.count;
    }
    std::map<int, Rational> edge_time;
    for (const auto& t : m.transfers) edge_time[t.edge] += t.time;
    for (const auto& [e, time] : edge_time) EXPECT_LE(time, m.duration);
  }
  EXPECT_EQ(total, ps.busy);
  for (std::size_t ti = 0; ti < ps.trees.size(); ++ti) {
    for (std::size_t k = 0; k < ps.trees[ti].tasks.size(); ++k) {
      if (ps.trees[ti].tasks[k].kind == TreeTask::Send) {
        EXPECT_EQ(sent[std::make_pair(static_cast<int>(ti), static_cast<int>(k))],
                  Rational(ps.tree_count[ti]))
            << "tree " << ti << " task " << k;
      }
    }
  }
}

// Theorem 1: the trees' incidence vectors weighted by w(T) sum to the solution A, and each tree is
// a valid reduction tree / route (inputs produced inside the tree or leaves).
void expect_trees_sum_to_solution(const Platform& g, const SteadySolution& s,
                                  const std::vector<WeightedTree>& trees) {
  std::map<std::pair<int, int>, Rational> send;
  std::map<std::tuple<int, int, int, int>, Rational> cons;
  std::map<int, Rational> per_group;
  for (const auto& t : trees) {
    EXPECT_GT(t.weight, 0);
    per_group[t.group] += t.weight;
    std::set<std::pair<int, int>> seen;
    for (std::size_t k = 0; k < t.tasks.size(); ++k) {
      const auto& task = t.tasks[k];
      if (task.kind == TreeTask::Send) {
        send[{task.edge, task.type}] += t.weight;
        EXPECT_TRUE(seen.insert({task.edge, task.type}).second) << "task used twice in one tree";
      } else {
        cons[{task.node, task.k, task.l, task.m}] += t.weight;
      }
      for (int in : {task.input_a, task.input_b})
        if (in >= 0) {
          EXPECT_GT(in, static_cast<int>(k));
          const auto& src = t.tasks[static_cast<std::size_t>(in)];
          const int where = src.kind == TreeTask::Send ? src.peer : src.node;
          const int here = task.node; // a send's input lives on its sender, a computation's on its node
          EXPECT_EQ(where, here);
        }
    }
  }
  std::map<std::pair<int, int>, Rational> want_send;
  for (const auto& f : s.sends) want_send[{f.edge, f.type}] = f.rate;
  std::map<std::tuple<int, int, int, int>, Rational> want_cons;
  for (const auto& t : s.tasks) want_cons[{t.node, t.k, t.l, t.m}] = t.rate;
  EXPECT_EQ(send, want_send);
  EXPECT_EQ(cons, want_cons);
  for (const auto& [grp, w] : per_group) EXPECT_EQ(w, s.throughput) << "group " << grp;
  (void)g;
}

} // namespace

TEST(SteadyPlatform, ParsesRationalsAndJson) {
  EXPECT_EQ(q("2/3"), Rational(2) / 3);
  EXPECT_EQ(q("0.25"), Rational(1) / 4);
  EXPECT_EQ(q(" -3 "), Rational(-3));
  EXPECT_EQ(to_string(q("6/4")), "3/2");
  HPF_EXPECT_ERROR((void)parse_rational("2/0", "cost"), "cost", "denominator");
  HPF_EXPECT_ERROR((void)parse_rational("abc", "cost"), "cost", "'abc'");
  const Platform p = Platform::from_json(
      R"({"nodes":[{"name":"A","speed":"1/2"},{"name":"B"}],"edges":[{"from":"A","to":"B","cost":"2/3"},{"from":"B","to":"A","cost":0.5}]})");
  EXPECT_EQ(p.node_count(), 2);
  EXPECT_EQ(p.node(0).speed, q("1/2"));
  EXPECT_EQ(p.edge(0).cost, q("2/3"));
  EXPECT_EQ(p.edge(1).cost, q("1/2"));
  const Platform back = Platform::from_json(p.to_json());
  EXPECT_EQ(back.edge(0).cost, q("2/3"));
}

TEST(SteadyPlatform, RejectsBadPlatforms) {
  HPF_EXPECT_ERROR(
      (void)Platform::from_json(R"({"nodes":[{"name":"A"}],"edges":[{"from":"A","to":"Z","cost":1}]})"),
      "unknown node 'Z'");
  HPF_EXPECT_ERROR((void)Platform::from_json(
                       R"({"nodes":[{"name":"A"},{"name":"B"}],"edges":[{"from":"A","to":"B","cost":0}]})"),
                   "cost must be > 0", "A -> B");
  HPF_EXPECT_ERROR(
      (void)Platform::from_json(
          R"({"nodes":[{"name":"A"},{"name":"B"}],"edges":[{"from":"A","to":"B","cost":"-1/2"}]})"),
      "cost must be > 0", "-1/2");
  HPF_EXPECT_ERROR(
      (void)Platform::from_json(
          R"({"nodes":[{"name":"A"},{"name":"B"}],"edges":[{"from":"A","to":"B","cost":1},{"from":"A","to":"B","cost":2}]})"),
      "duplicate edge");
  HPF_EXPECT_ERROR((void)Platform::from_json(R"({"nodes":[{"name":"A"},{"name":"A"}]})"),
                   "duplicate node name");
  HPF_EXPECT_ERROR((void)Platform::from_json(R"({"nodes":[{"name":"A","speed":-1}]})"), "speed must be >= 0");
  HPF_EXPECT_ERROR((void)Platform::from_json("{nodes"), "not valid JSON at byte");
  HPF_EXPECT_ERROR((void)load_platform("/nonexistent/p.json"), "cannot open", "/nonexistent/p.json");
}

TEST(SteadyPlatform, SimGridXmlHasHostsLinksAndRoutes) {
  const std::string xml = figure2().to_simgrid_xml();
  EXPECT_NE(xml.find("<host id=\"Ps\""), std::string::npos);
  EXPECT_NE(xml.find("<link id=\"e2\" bandwidth=\"1500000Bps\""), std::string::npos) << xml; // 1e6 / (2/3)
  EXPECT_NE(xml.find("<route src=\"Ps\" dst=\"P1\" symmetrical=\"NO\"><link_ctn id=\"e1\"/><link_ctn "
                     "id=\"e4\"/></route>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<route src=\"P0\" dst=\"Ps\" symmetrical=\"NO\"><link_ctn id=\"ctl\"/></route>"),
            std::string::npos);
}

TEST(SteadyPlatform, SimGridXmlPortLinks) {
  hpf::steady::SimGridExport opts;
  opts.port_links = true;
  const std::string xml = figure2().to_simgrid_xml(opts);
  // Ps's fastest out-edge costs 1, P0's fastest in-edge 2/3: the port links carry those bandwidths.
  EXPECT_NE(xml.find("<link id=\"out-Ps\" bandwidth=\"1000000Bps\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<link id=\"in-P0\" bandwidth=\"1500000Bps\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<link id=\"in-Ps\""), std::string::npos) << xml; // no incoming edge
  // A two-hop route passes Pb's in- and out-port too (forwarded traffic shares them).
  EXPECT_NE(xml.find("<route src=\"Ps\" dst=\"P1\" symmetrical=\"NO\"><link_ctn id=\"out-Ps\"/><link_ctn "
                     "id=\"e1\"/><link_ctn id=\"in-Pb\"/><link_ctn id=\"out-Pb\"/><link_ctn id=\"e4\"/>"
                     "<link_ctn id=\"in-P1\"/></route>"),
            std::string::npos)
      << xml;
}

TEST(SteadyScatter, Figure2ThroughputIsOneHalf) {
  const Platform g = figure2();
  const SteadyProblem pb = SteadyProblem::scatter(g.index_of("Ps"), {g.index_of("P0"), g.index_of("P1")});
  const SteadySolution s = solve(g, pb);
  EXPECT_EQ(s.throughput, q("1/2"));
  EXPECT_EQ(check_solution(g, s), "");
  EXPECT_TRUE(s.note.empty());
  // The source's out-port is the bottleneck: it is saturated.
  EXPECT_EQ(s.node_send[static_cast<std::size_t>(g.index_of("Ps"))], Rational(1));
  const auto trees = extract_trees(g, s);
  expect_trees_sum_to_solution(g, s, trees);
  expect_valid_schedule(g, periodic_schedule(g, s, trees, s.period));
}

TEST(SteadyScatter, Figure2SeedSolutionPeriod12AndMatchings) {
  // Figure 2(b): per period 12, 3 m0 through Pa, 3 m0 and 6 m1 through Pb.
  const Platform g = figure2();
  const SteadyProblem pb = SteadyProblem::scatter(0, {3, 4});
  const Rational r4 = q("1/4"), r2 = q("1/2");
  const SteadySolution s =
      make_solution(g, pb, {{0, 0, r4}, {1, 0, r4}, {1, 1, r2}, {2, 0, r4}, {3, 0, r4}, {4, 1, r2}}, {});
  EXPECT_EQ(check_solution(g, s), "");
  EXPECT_EQ(s.throughput, q("1/2"));
  EXPECT_EQ(s.period, 12);
  // Figure 2(c): occupation of each edge over one period of 12.
  const std::vector<int> want{3, 9, 2, 4, 8};
  for (int e = 0; e < 5; ++e)
    EXPECT_EQ(s.edge_load[static_cast<std::size_t>(e)] * 12, Rational(want[static_cast<std::size_t>(e)]));
  const auto trees = extract_trees(g, s);
  expect_trees_sum_to_solution(g, s, trees);
  const PeriodicSchedule ps = periodic_schedule(g, s, trees, s.period);
  expect_valid_schedule(g, ps);
  // Figure 3: the bipartite graph's maximum weighted degree is 12 (Ps and Pb send for the whole
  // period), so the matchings fill exactly one period.
  EXPECT_EQ(ps.busy, Rational(12));
  // Figure 3(b)-(e): four matchings of durations 6, 3, 2 and 1 (ours come in another order).
  std::multiset<Rational> durations;
  for (const auto& m : ps.matchings) durations.insert(m.duration);
  EXPECT_EQ(durations, (std::multiset<Rational>{Rational(1), Rational(2), Rational(3), Rational(6)}));
}

TEST(SteadyScatter, UnreachableTargetGivesZeroWithReason) {
  Platform g = figure2();
  g.add_node("Px", Rational(1));
  const SteadySolution s = solve(g, SteadyProblem::scatter(0, {3, 5}));
  EXPECT_EQ(s.throughput, 0);
  EXPECT_NE(s.note.find("'Px' is unreachable from source 'Ps'"), std::string::npos) << s.note;
  HPF_EXPECT_ERROR((void)solve(g, SteadyProblem::scatter(0, {0, 3})), "cannot also be a target");
  HPF_EXPECT_ERROR((void)solve(g, SteadyProblem::scatter(0, {3, 3})), "listed twice");
  HPF_EXPECT_ERROR((void)solve(g, SteadyProblem::scatter(0, {9})), "node index must be in [0, 6), got 9");
}

TEST(SteadyGossip, Figure2AllToAll) {
  // Sources Ps and Pb, targets P0 and P1: Pb's own messages compete with the forwarded ones.
  const Platform g = figure2();
  const SteadySolution s = solve(g, SteadyProblem::gossip({0, 2}, {3, 4}));
  EXPECT_EQ(check_solution(g, s), "");
  // Pb's out-port carries m[Ps,P1], m[Pb,P0] and m[Pb,P1] (all via Pb->P0 / Pb->P1, cost 4/3), and
  // m[Ps,P0] goes through Pa: 3 * 4/3 * TP <= 1, so TP = 1/4.
  EXPECT_EQ(s.throughput, q("1/4"));
  const auto trees = extract_trees(g, s);
  expect_trees_sum_to_solution(g, s, trees);
  expect_valid_schedule(g, periodic_schedule(g, s, trees, s.period));
}

TEST(SteadyReduce, Figure6ThroughputIsOne) {
  const Platform g = figure6();
  const SteadySolution s = solve(g, SteadyProblem::reduce({0, 1, 2}, 0));
  EXPECT_EQ(s.throughput, Rational(1));
  EXPECT_EQ(check_solution(g, s), "");
  const auto trees = extract_trees(g, s);
  expect_trees_sum_to_solution(g, s, trees);
  expect_valid_schedule(g, periodic_schedule(g, s, trees, s.period));
  // Fully connecting the platform does not help: P0's in-port bounds TP by 1.
  Platform full = figure6();
  full.add_edge("P0", "P1", q("1"));
  full.add_edge("P0", "P2", q("1"));
  EXPECT_EQ(solve(full, SteadyProblem::reduce({0, 1, 2}, 0)).throughput, Rational(1));
}

TEST(SteadyReduce, Figure6SeedSolutionGivesFigure7Trees) {
  // Figure 6(b), per period T = 3.
  const Platform g = figure6();
  const SteadyProblem pb = SteadyProblem::reduce({0, 1, 2}, 0);
  const auto types = message_types(g, pb); // v[0,0] v[0,1] v[0,2] v[1,1] v[1,2] v[2,2]
  ASSERT_EQ(types.size(), 6u);
  const Rational third = q("1/3"), two = q("2/3");
  // edges: 0 P1->P0, 1 P1->P2, 2 P2->P0, 3 P2->P1
  const SteadySolution s = make_solution(g, pb, {{1, 3, two}, {3, 5, third}, {0, 4, third}, {2, 4, two}},
                                         {{1, 1, 1, 2, third}, {2, 1, 1, 2, two}, {0, 0, 0, 2, Rational(1)}});
  EXPECT_EQ(check_solution(g, s), "");
  EXPECT_EQ(s.throughput, Rational(1));
  EXPECT_EQ(s.period, 3);
  const auto trees = extract_trees(g, s);
  expect_trees_sum_to_solution(g, s, trees);
  ASSERT_EQ(trees.size(), 2u);
  // Figure 7(a): T0, throughput 1/3: P2 sends v2 to P1, P1 computes T(1,1,2) and sends v[1,2] to P0.
  EXPECT_EQ(trees[0].weight, third);
  std::vector<std::string> t0, t1;
  for (const auto& t : trees[0].tasks) t0.push_back(task_name(g, s, t));
  for (const auto& t : trees[1].tasks) t1.push_back(task_name(g, s, t));
  EXPECT_EQ(t0, (std::vector<std::string>{"cons P0 T(0,0,2)", "send P1->P0 v[1,2]", "cons P1 T(1,1,2)",
                                          "send P2->P1 v[2,2]"}));
  // Figure 7(b): T1, throughput 2/3: P1 sends v1 to P2, P2 computes T(1,1,2) and sends v[1,2] to P0.
  EXPECT_EQ(trees[1].weight, two);
  EXPECT_EQ(t1, (std::vector<std::string>{"cons P0 T(0,0,2)", "send P2->P0 v[1,2]", "cons P2 T(1,1,2)",
                                          "send P1->P2 v[1,1]"}));
  // Section 4.3: with these two trees the period-3 graph is covered by matchings of total length 3.
  const PeriodicSchedule ps = periodic_schedule(g, s, trees, s.period);
  expect_valid_schedule(g, ps);
  EXPECT_EQ(ps.busy, Rational(3));
  EXPECT_EQ(ps.tree_count, (std::vector<BigInt>{1, 2}));
}

TEST(SteadyReduce, RejectsBadProblems) {
  const Platform g = figure6();
  HPF_EXPECT_ERROR((void)solve(g, SteadyProblem::reduce({0}, 0)), "only participant is the target");
  HPF_EXPECT_ERROR((void)solve(g, SteadyProblem::reduce({}, 0)), "at least one participant");
  HPF_EXPECT_ERROR((void)solve(g, SteadyProblem::reduce({1, 1}, 0)), "listed twice");
  // P0 has no out-edge here: it cannot take part when the target is P1.
  const SteadySolution s = solve(g, SteadyProblem::reduce({0, 1, 2}, 1));
  EXPECT_EQ(s.throughput, 0);
  EXPECT_NE(s.note.find("unreachable from participant 'P0'"), std::string::npos) << s.note;
}

TEST(SteadyMatching, DecomposesAnyBoundedMatrix) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t n = 2 + static_cast<std::size_t>(trial % 5);
    std::vector<std::vector<Rational>> w(n, std::vector<Rational>(n, Rational(0)));
    for (auto& row : w)
      for (auto& x : row)
        if (rng() % 2) x = Rational(static_cast<long>(rng() % 7), static_cast<long>(1 + rng() % 3));
    Rational delta = 0;
    for (std::size_t i = 0; i < n; ++i) {
      Rational r = 0, c = 0;
      for (std::size_t j = 0; j < n; ++j) {
        r += w[i][j];
        c += w[j][i];
      }
      delta = std::max({delta, r, c});
    }
    const auto mm = decompose_weighted_bipartite(w);
    std::vector<std::vector<Rational>> got(n, std::vector<Rational>(n, Rational(0)));
    Rational total = 0;
    for (const auto& m : mm) {
      total += m.duration;
      std::set<int> cols;
      for (std::size_t i = 0; i < n; ++i)
        if (m.perm[i] >= 0) {
          EXPECT_TRUE(cols.insert(m.perm[i]).second);
          got[i][static_cast<std::size_t>(m.perm[i])] += m.duration;
        }
    }
    EXPECT_EQ(got, w);
    EXPECT_LE(total, delta); // no longer than the busiest port: the one-port lower bound
  }
}

namespace {

// A random strongly connected platform: a ring plus random chords, costs in {1/2, 1, 3/2, 2, 3}.
Platform random_platform(std::mt19937& rng, int n, bool routers) {
  Platform p;
  for (int i = 0; i < n; ++i)
    p.add_node("N" + std::to_string(i),
               routers && i % 3 == 2 ? Rational(0) : Rational(1 + static_cast<long>(rng() % 3)));
  const std::vector<Rational> costs{q("1/2"), q("1"), q("3/2"), q("2"), q("3")};
  auto name = [](int i) { return "N" + std::to_string(i); };
  for (int i = 0; i < n; ++i) p.add_edge(name(i), name((i + 1) % n), costs[rng() % costs.size()]);
  for (int k = 0; k < n; ++k) {
    const int a = static_cast<int>(rng() % static_cast<unsigned>(n)),
              b = static_cast<int>(rng() % static_cast<unsigned>(n));
    if (a != b && !p.find_edge(a, b)) p.add_edge(name(a), name(b), costs[rng() % costs.size()]);
  }
  return p;
}

Rational min_cost(const Platform& g, const std::vector<int>& edges) {
  Rational m = g.edge(edges.front()).cost;
  for (int e : edges) m = std::min(m, g.edge(e).cost);
  return m;
}

void cross_check(const Platform& g, const SteadyProblem& pb) {
  const SteadySolution s = solve(g, pb);
  ASSERT_EQ(check_solution(g, s), "");
  // Floating LP (GLPK) on the same model: same optimum up to rounding.
  const FloatLpResult f = solve_float(build_lp(g, pb).lp);
  ASSERT_EQ(f.status, LpStatus::Optimal);
  EXPECT_NEAR(f.objective, to_double(s.throughput), 1e-7);
  // Port bounds: the source emits |targets| messages per scatter; a target receives one per op.
  if (pb.op == SteadyOp::Scatter) {
    const int src = pb.sources[0];
    EXPECT_LE(s.throughput * static_cast<long>(pb.targets.size()) * min_cost(g, g.out_edges(src)),
              Rational(1));
  }
  if (pb.op != SteadyOp::Reduce) {
    for (int t : pb.targets) {
      EXPECT_LE(s.throughput * min_cost(g, g.in_edges(t)), Rational(1));
    }
  }
  if (pb.op == SteadyOp::Reduce &&
      std::find(pb.participants.begin(), pb.participants.end(), pb.targets[0]) == pb.participants.end()) {
    EXPECT_LE(s.throughput * min_cost(g, g.in_edges(pb.targets[0])), Rational(1));
  }
  EXPECT_GT(s.throughput, 0);
  const auto trees = extract_trees(g, s);
  expect_trees_sum_to_solution(g, s, trees);
  expect_valid_schedule(g, periodic_schedule(g, s, trees, s.period));
  // Section 4.6 / Proposition 4: a fixed period loses at most card(Trees) / T_fixed.
  for (long tf : {1L, 3L, 10L, 100L}) {
    const FixedPeriod fp = fixed_period(s, trees, BigInt(tf));
    EXPECT_LE(fp.throughput, s.throughput);
    EXPECT_LE(s.throughput - fp.throughput, fp.loss_bound);
    if (!fp.trees.empty()) expect_valid_schedule(g, periodic_schedule(g, s, fp.trees, fp.period));
  }
}

} // namespace

TEST(SteadyRandom, ScatterGossipReduceCrossChecked) {
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 12; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int n = 4 + trial % 4;
    const Platform g = random_platform(rng, n, trial % 2 == 1);
    cross_check(g, SteadyProblem::scatter(0, {1, n - 1, n / 2}));
    cross_check(g, SteadyProblem::gossip({0, 1}, {n - 1, n - 2}));
    std::vector<int> parts;
    for (int i = 0; i < n; ++i)
      if (g.node(i).speed > 0 && static_cast<int>(parts.size()) < 4) parts.push_back(i);
    std::shuffle(parts.begin(), parts.end(), rng);
    cross_check(g, SteadyProblem::reduce(parts, n - 1));
  }
}
