// Pure tests of the pLogP model and the broadcast models of Table 1 of Steffenel.
#include <hpf/adaptive/broadcast_model.hpp>
#include <hpf/adaptive/plogp.hpp>

#include "hpf_test.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace {

using hpf::BcastAlgorithm;
using hpf::PLogP;
using hpf::PLogPSample;

TEST(PLogP, InterpolatesLinearlyBetweenSamplesAndExtrapolates) {
  const PLogP p(5.0, {{0, 1.0, 0.5, 0.25}, {1000, 11.0, 1.5, 2.25}, {3000, 15.0, 1.5, 2.25}});
  EXPECT_DOUBLE_EQ(p.L(), 5.0);
  EXPECT_DOUBLE_EQ(p.g(0), 1.0);
  EXPECT_DOUBLE_EQ(p.g(500), 6.0);
  EXPECT_DOUBLE_EQ(p.g(1000), 11.0);
  EXPECT_DOUBLE_EQ(p.g(2000), 13.0);
  EXPECT_DOUBLE_EQ(p.g(5000), 19.0); // beyond the last sample: slope of the last segment
  EXPECT_DOUBLE_EQ(p.os(500), 1.0);
  EXPECT_DOUBLE_EQ(p.orr(250), 0.75);
  const PLogP one(1.0, {{64, 3.0, 0, 0}});
  EXPECT_DOUBLE_EQ(one.g(0), 3.0);
  EXPECT_DOUBLE_EQ(one.g(1 << 20), 3.0);
  const PLogP lin = PLogP::linear(2.0, 1.0, 0.5);
  EXPECT_DOUBLE_EQ(lin.g(10), 6.0);
  // Decreasing extrapolation is clamped at 0.
  const PLogP down(0.0, {{10, 5.0, 0, 0}, {20, 10.0, 0, 0}});
  EXPECT_DOUBLE_EQ(down.g(0), 0.0);
}

TEST(PLogP, RejectsBadParameters) {
  HPF_EXPECT_ERROR(PLogP(-1.0, {{0, 1, 0, 0}}), "latency L", "-1");
  HPF_EXPECT_ERROR(PLogP(1.0, {}), "samples");
  HPF_EXPECT_ERROR(PLogP(1.0, {{10, 1, 0, 0}, {10, 2, 0, 0}}), "increase strictly", "10");
  HPF_EXPECT_ERROR(PLogP(1.0, {{0, -2, 0, 0}}), "g(0)", "-2");
  HPF_EXPECT_ERROR(PLogP(1.0, {{0, 1, 0, NAN}}), "or(0)");
}

// Table 1 of Steffenel, evaluated by hand for L = 10, g(m) = 2 + m, P = 8, m = 64, s = 16 (k = 4).
TEST(BcastModel, Table1FormulasByHand) {
  const PLogP p = PLogP::linear(10.0, 2.0, 1.0);
  auto t = [&](BcastAlgorithm a) { return hpf::predict_bcast(a, 8, 64, 16, p); };
  EXPECT_DOUBLE_EQ(t(BcastAlgorithm::flat), 10 + 7 * 66);
  EXPECT_DOUBLE_EQ(t(BcastAlgorithm::flat_rendezvous), 3 * 10 + 7 * 66 + 2 * 3);
  EXPECT_DOUBLE_EQ(t(BcastAlgorithm::segmented_flat), 10 + 7 * (18 * 4));
  EXPECT_DOUBLE_EQ(t(BcastAlgorithm::chain), 7 * (66 + 10));
  EXPECT_DOUBLE_EQ(t(BcastAlgorithm::chain_rendezvous), 7 * (66 + 2 * 3 + 3 * 10));
  EXPECT_DOUBLE_EQ(t(BcastAlgorithm::segmented_chain), 7 * (18 + 10) + 18 * 3);
  EXPECT_DOUBLE_EQ(t(BcastAlgorithm::binary), 3 * (2 * 66 + 10));
  EXPECT_DOUBLE_EQ(t(BcastAlgorithm::binomial), 3 * 10 + 3 * 66);
  EXPECT_DOUBLE_EQ(t(BcastAlgorithm::binomial_rendezvous), 3 * (2 * 3 + 3 * 10) + 3 * 66);
  EXPECT_DOUBLE_EQ(t(BcastAlgorithm::segmented_binomial), 3 * 10 + 3 * 18 * 4);
  EXPECT_DOUBLE_EQ(t(BcastAlgorithm::scatter_collect), (3 + 7) * 10 + 2 * (7.0 / 8.0) * 66);
  // P = 6: ceil(log2 6) = 3 rounds of latency, floor(log2 6) = 2 gaps.
  EXPECT_DOUBLE_EQ(hpf::predict_bcast(BcastAlgorithm::binomial, 6, 64, 64, p), 3 * 10 + 2 * 66);
  // A segment that does not divide m: k = ceil(64 / 24) = 3 segments of g(24).
  EXPECT_DOUBLE_EQ(hpf::predict_bcast(BcastAlgorithm::segmented_chain, 8, 64, 24, p), 7 * (26 + 10) + 26 * 2);
}

TEST(BcastModel, OneProcessCostsNothingAndBadInputThrows) {
  const PLogP p = PLogP::linear(10.0, 2.0, 1.0);
  for (BcastAlgorithm a : hpf::all_bcast_algorithms()) EXPECT_EQ(hpf::predict_bcast(a, 1, 1000, 10, p), 0.0);
  HPF_EXPECT_ERROR(hpf::predict_bcast(BcastAlgorithm::flat, 0, 10, 10, p), "P", "got 0");
  HPF_EXPECT_ERROR(hpf::predict_bcast(BcastAlgorithm::segmented_chain, 4, 10, 0, p), "segment", ">= 1",
                   "got 0");
  HPF_EXPECT_ERROR(hpf::parse_bcast_algorithm("pipeline"), "algorithm", "'pipeline'", "segmented-chain");
  HPF_EXPECT_ERROR(hpf::choose_bcast(-3, 10, p), "P", "-3");
  for (BcastAlgorithm a : hpf::all_bcast_algorithms())
    EXPECT_EQ(hpf::parse_bcast_algorithm(hpf::to_string(a)), a);
}

// With no message (g = 0) a binomial broadcast is ceil(log2 P) rounds of L.
TEST(BcastModel, BinomialIsCeilLog2PRoundsAtZeroGap) {
  const PLogP p = PLogP::linear(7.0, 0.0, 1.0);
  for (int P = 1; P <= 70; ++P) {
    const double rounds = std::ceil(std::log2(static_cast<double>(P)));
    EXPECT_DOUBLE_EQ(hpf::predict_bcast(BcastAlgorithm::binomial, P, 0, 1, p), 7.0 * rounds) << "P " << P;
    // The executed tree takes as many one-port rounds: a rank sends to its children one per round,
    // starting the round after it received.
    const auto tree = hpf::bcast_tree(BcastAlgorithm::binomial, P);
    std::vector<int> got(static_cast<std::size_t>(P), 0);
    int maxd = 0;
    for (int r = 0; r < P; ++r) {
      int round = got[static_cast<std::size_t>(r)];
      for (int c : tree[static_cast<std::size_t>(r)]) {
        got[static_cast<std::size_t>(c)] = ++round;
        maxd = std::max(maxd, round);
      }
    }
    EXPECT_EQ(maxd, static_cast<int>(rounds)) << "P " << P;
  }
}

TEST(BcastModel, TreesSpanEveryRankOnce) {
  for (BcastAlgorithm a : hpf::all_bcast_algorithms()) {
    if (a == BcastAlgorithm::scatter_collect) {
      HPF_EXPECT_ERROR(hpf::bcast_tree(a, 4), "scatter-collect");
      continue;
    }
    for (int P = 1; P <= 33; ++P) {
      const auto tree = hpf::bcast_tree(a, P);
      std::vector<int> parents(static_cast<std::size_t>(P), 0);
      for (int r = 0; r < P; ++r)
        for (int c : tree[static_cast<std::size_t>(r)]) {
          ASSERT_GT(c, r) << hpf::to_string(a) << " P " << P; // children after parents: acyclic
          ++parents[static_cast<std::size_t>(c)];
        }
      EXPECT_EQ(parents[0], 0);
      for (int r = 1; r < P; ++r) EXPECT_EQ(parents[static_cast<std::size_t>(r)], 1) << hpf::to_string(a);
    }
  }
}

TEST(BcastModel, CandidateSegmentsAreMOverPowersOfTwo) {
  EXPECT_EQ(hpf::candidate_segments(0), std::vector<std::size_t>{1});
  EXPECT_EQ(hpf::candidate_segments(1), std::vector<std::size_t>{1});
  EXPECT_EQ(hpf::candidate_segments(10), (std::vector<std::size_t>{10, 5, 3, 2}));
  EXPECT_EQ(hpf::candidate_segments(16), (std::vector<std::size_t>{16, 8, 4, 2, 1}));
  EXPECT_EQ(hpf::candidate_segments(std::size_t(1) << 20).size(), 21U);
}

// Predictions never decrease with m (fixed segment, and with the searched segment) nor with P.
TEST(BcastModel, MonotoneInMessageSizeAndProcesses) {
  const PLogP p(50e-6, {{0, 20e-6, 5e-6, 5e-6},
                        {1024, 30e-6, 6e-6, 6e-6},
                        {65536, 700e-6, 9e-6, 9e-6},
                        {1 << 20, 10.5e-3, 20e-6, 20e-6}});
  for (BcastAlgorithm a : hpf::all_bcast_algorithms()) {
    for (int P : {2, 3, 7, 16, 33}) {
      double prev = -1, prev_best = -1;
      for (std::size_t m = 0; m <= (std::size_t(1) << 21); m = m == 0 ? 1 : m * 3) {
        const double t = hpf::predict_bcast(a, P, m, 4096, p);
        EXPECT_GE(t, prev) << hpf::to_string(a) << " P " << P << " m " << m;
        prev = t;
        const std::array<BcastAlgorithm, 1> only{a};
        const double best = hpf::choose_bcast(P, m, p, only).chosen().time;
        EXPECT_GE(best + 1e-15, prev_best) << hpf::to_string(a) << " P " << P << " m " << m;
        prev_best = best;
      }
    }
    double prev = -1;
    for (int P = 1; P <= 40; ++P) {
      const double t = hpf::predict_bcast(a, P, 65536, 4096, p);
      EXPECT_GE(t, prev) << hpf::to_string(a) << " P " << P;
      prev = t;
    }
  }
}

// The choice is the argmin of the models, and each segmented algorithm's segment is the argmin over
// the candidate sizes.
TEST(BcastModel, ChoiceIsTheArgminOfTheModels) {
  const PLogP p = PLogP::linear(50e-6, 20e-6, 1e-8);
  for (int P : {2, 5, 16, 64})
    for (std::size_t m :
         {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(65536), std::size_t(1) << 22}) {
      const hpf::BcastChoice c = hpf::choose_bcast(P, m, p);
      ASSERT_EQ(c.predictions.size(), hpf::all_bcast_algorithms().size());
      for (const auto& pr : c.predictions) {
        EXPECT_LE(c.chosen().time, pr.time);
        double best = hpf::predict_bcast(pr.algorithm, P, m, std::max<std::size_t>(m, 1), p);
        if (hpf::is_segmented(pr.algorithm))
          for (std::size_t s : hpf::candidate_segments(m))
            best = std::min(best, hpf::predict_bcast(pr.algorithm, P, m, s, p));
        EXPECT_DOUBLE_EQ(pr.time, best) << hpf::to_string(pr.algorithm);
        EXPECT_DOUBLE_EQ(pr.time, hpf::predict_bcast(pr.algorithm, P, m, pr.segment, p));
      }
    }
}

// Section 4.3 / Figure 6 of Steffenel: on a 16-machine Fast-Ethernet-like cluster the segmented chain is
// the best strategy for large messages; for tiny messages the logarithmic binomial tree wins. (The
// paper's measured parameters are not in the text; these are typical 100 Mbit/s values.)
TEST(BcastModel, SegmentedChainWinsForLargeMessagesOn16Machines) {
  const PLogP fast_ethernet = PLogP::linear(50e-6, 20e-6, 1e-8);
  const hpf::BcastChoice big = hpf::choose_bcast(16, std::size_t(1) << 20, fast_ethernet);
  EXPECT_EQ(big.chosen().algorithm, BcastAlgorithm::segmented_chain);
  EXPECT_LT(big.chosen().segment, std::size_t(1) << 20);
  const hpf::BcastChoice tiny = hpf::choose_bcast(16, 1, fast_ethernet);
  EXPECT_EQ(tiny.chosen().algorithm, BcastAlgorithm::binomial);
}

} // namespace

namespace {

// Replays a broadcast schedule: each step is a partial permutation (checked by hpf::validate on the
// step alone, since a segmented schedule sends to the same child once per segment), a rank sends only
// blocks it held before the step, and at the end every rank holds every byte of the message.
void expect_delivers(const hpf::BcastSchedule& b, int P, std::size_t m) {
  ASSERT_EQ(b.schedule.num_senders(), P);
  ASSERT_EQ(b.schedule.num_receivers(), P);
  ASSERT_EQ(b.pieces.size(), b.schedule.steps().size());
  const std::size_t n = static_cast<std::size_t>(P);
  std::vector<std::vector<char>> has(n, std::vector<char>(b.blocks, 0));
  std::fill(has[0].begin(), has[0].end(), 1);
  for (std::size_t k = 0; k < b.schedule.steps().size(); ++k) {
    const hpf::Step& step = b.schedule.steps()[k];
    ASSERT_EQ(b.pieces[k].size(), step.messages.size()) << "step " << k;
    hpf::CommMatrix cm(P, P);
    for (const hpf::Message& msg : step.messages) cm.add(msg.src, msg.dst, msg.len);
    EXPECT_NO_THROW(hpf::validate(hpf::Schedule(P, P, {step}), cm)) << "step " << k;
    std::vector<std::pair<int, hpf::BcastPiece>> arrivals;
    for (std::size_t i = 0; i < step.messages.size(); ++i) {
      const hpf::Message& msg = step.messages[i];
      const hpf::BcastPiece& pc = b.pieces[k][i];
      EXPECT_GT(msg.len, 0) << "step " << k;
      EXPECT_EQ(static_cast<std::size_t>(msg.len), pc.bytes) << "step " << k;
      EXPECT_LE(pc.offset + pc.bytes, m);
      ASSERT_LE(pc.first + pc.count, b.blocks);
      for (std::size_t x = pc.first; x < pc.first + pc.count; ++x)
        EXPECT_TRUE(has[static_cast<std::size_t>(msg.src)][x])
            << "step " << k << ": rank " << msg.src << " sends block " << x << " it does not hold";
      arrivals.emplace_back(msg.dst, pc);
    }
    // Received blocks count only from the next step on.
    for (const auto& [dst, pc] : arrivals)
      for (std::size_t x = pc.first; x < pc.first + pc.count; ++x) has[static_cast<std::size_t>(dst)][x] = 1;
  }
  // Every rank ends up holding every byte of the message (byte by byte: a block may be empty).
  for (std::size_t r = 0; r < n; ++r) {
    std::vector<char> got(m, r == 0 ? 1 : 0);
    for (std::size_t k = 0; k < b.pieces.size(); ++k)
      for (std::size_t i = 0; i < b.pieces[k].size(); ++i)
        if (static_cast<std::size_t>(b.schedule.steps()[k].messages[i].dst) == r)
          std::fill_n(got.begin() + static_cast<std::ptrdiff_t>(b.pieces[k][i].offset), b.pieces[k][i].bytes,
                      1);
    EXPECT_EQ(std::count(got.begin(), got.end(), 0), 0) << "rank " << r << " misses bytes";
  }
}

} // namespace

TEST(BcastSchedule, EveryAlgorithmValidatesAndDeliversEverySegment) {
  for (BcastAlgorithm a : hpf::all_bcast_algorithms())
    for (int P : {1, 2, 3, 4, 5, 7, 8, 13, 16})
      for (std::size_t m :
           {std::size_t(0), std::size_t(1), std::size_t(5), std::size_t(1000), std::size_t(4099)})
        for (std::size_t seg : {std::size_t(1), std::size_t(7), std::size_t(512), std::size_t(1) << 20}) {
          if (m > 1000 && seg == 1) continue; // keep it quick: thousands of one-byte segments
          SCOPED_TRACE(hpf::to_string(a) + " P=" + std::to_string(P) + " m=" + std::to_string(m) +
                       " segment=" + std::to_string(seg));
          const hpf::BcastSchedule b = hpf::bcast_schedule(a, P, m, seg);
          expect_delivers(b, P, m);
          if (P == 1 || m == 0) {
            EXPECT_EQ(b.schedule.num_steps(), 0);
          }
          EXPECT_EQ(b.rendezvous, a == BcastAlgorithm::flat_rendezvous ||
                                      a == BcastAlgorithm::chain_rendezvous ||
                                      a == BcastAlgorithm::binomial_rendezvous);
        }
}

TEST(BcastSchedule, StepCountsOfTheClassicShapes) {
  // Chain of P with k segments: the pipeline takes k + P - 2 steps; flat: (P-1) k one-port steps;
  // binomial: ceil(log2 P) steps for one segment.
  EXPECT_EQ(hpf::bcast_schedule(BcastAlgorithm::segmented_chain, 6, 100, 10).schedule.num_steps(),
            10 + 6 - 2);
  EXPECT_EQ(hpf::bcast_schedule(BcastAlgorithm::segmented_flat, 5, 100, 25).schedule.num_steps(), 4 * 4);
  EXPECT_EQ(hpf::bcast_schedule(BcastAlgorithm::binomial, 13, 100, 1).schedule.num_steps(), 4);
  EXPECT_EQ(hpf::bcast_schedule(BcastAlgorithm::binomial, 16, 100, 1).schedule.num_steps(), 4);
  // Scatter/collect of 8: 3 scatter steps, then a ring of 7.
  EXPECT_EQ(hpf::bcast_schedule(BcastAlgorithm::scatter_collect, 8, 800, 1).schedule.num_steps(), 3 + 7);
  HPF_EXPECT_ERROR(hpf::bcast_schedule(BcastAlgorithm::chain, 0, 10, 1), "P", "got 0");
  HPF_EXPECT_ERROR(hpf::bcast_schedule(BcastAlgorithm::chain, 4, 10, 0), "segment", "got 0");
}
