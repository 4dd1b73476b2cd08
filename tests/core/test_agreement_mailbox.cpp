// The agreement's mailbox (core/pairwise_agreement.hpp, issue 10): headers and the small messages that
// carry them between the ranks of one node go through shared-memory slots instead of MPI. Checked
// with the mailbox on and off, over grids of random subsets of the ranks made and dropped in long
// loops, with rounds that agree, differ and refuse, and REDISTRIBUTEs whose every message is carried.
#include "hpf_test.hpp"

#include <hpf/core/pairwise_agreement.hpp>
#include <hpf/hpf.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <sched.h>

namespace {

using hpf::Cyclic;
using hpf::DistArray;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::detail::AgreementMailbox;
using hpf::detail::PairwiseAgreement;
using hpf::test::world_rank;
using hpf::test::world_size;

/// Restores the mailbox setting when a test ends, however it ends.
struct MailboxGuard {
  AgreementMailbox::Use saved = AgreementMailbox::use();
  MailboxGuard() = default;
  MailboxGuard(const MailboxGuard&) = delete;
  MailboxGuard& operator=(const MailboxGuard&) = delete;
  ~MailboxGuard() { AgreementMailbox::set_use(saved); }
};

/// A communicator of a random subset of the world (the same on every rank: one seed); null outside it.
hpf::Comm random_comm(std::mt19937& rng) {
  const unsigned mask = static_cast<unsigned>(rng());
  const int me = world_rank();
  const bool in = world_size() == 1 || ((mask >> static_cast<unsigned>(me % 31)) & 1U) != 0;
  MPI_Comm c = MPI_COMM_NULL;
  HPF_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, in ? 1 : MPI_UNDEFINED, me, &c));
  return hpf::Comm::adopt(c);
}

TEST(AgreementMailbox, BoxesEveryPairOfOneNodeUnlessTurnedOff) {
  using Use = AgreementMailbox::Use;
  const MailboxGuard guard;
  const int n = world_size();
  const int me = world_rank();
  for (const Use use : {Use::Always, Use::Off, Use::Auto}) {
    AgreementMailbox::set_use(use);
    const auto grid = ProcessGrid::world({n});
    const PairwiseAgreement round(grid.comm(), 42);
    const AgreementMailbox* box = AgreementMailbox::of(round.comm());
    // Auto boxes every pair of this one node, as Always does.
    int boxed = box != nullptr ? 1 : 0, all = boxed;
    HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    EXPECT_EQ(all, boxed);
    if (use == Use::Off || n == 1) { // one rank has no peer
      EXPECT_EQ(box, nullptr);
      continue;
    }
    ASSERT_NE(box, nullptr); // every test rank runs on this one node
    for (int q = 0; q < n; ++q) EXPECT_EQ(box->boxed(q), q != me) << "peer " << q;
    EXPECT_FALSE(box->boxed(-1));
    EXPECT_FALSE(box->boxed(n));
    // More ranks than cores (the tests run unbound, each rank on every core it may use): the waits
    // give the core away from their first turn.
    cpu_set_t cores;
    CPU_ZERO(&cores);
    ASSERT_EQ(::sched_getaffinity(0, sizeof cores, &cores), 0);
    EXPECT_EQ(box->crowded(), n > CPU_COUNT(&cores));
  }
}

// Registered twice more with HPF_TEST_EXPECT_REFUSAL=1 (tests/core/CMakeLists.txt): with
// HPF_AGREEMENT_MAILBOX=bogus on every rank, and on rank 0 alone. Every rank of the communicator gets
// the same hpf::Error naming the variable, the value and the rank that has it, none waits in a
// collective, and set_use then overrides the environment.
TEST(AgreementMailbox, RefusesAnUnknownSettingOnEveryRank) {
  if (std::getenv("HPF_TEST_EXPECT_REFUSAL") == nullptr) GTEST_SKIP() << "run by its own registrations";
  const MailboxGuard guard;
  const int n = world_size();
  const auto grid = ProcessGrid::world({n});
  HPF_EXPECT_ERROR(PairwiseAgreement(grid.comm(), 42), "HPF_AGREEMENT_MAILBOX: expected 0, auto or always",
                   "got \"bogus\" on communicator rank 0");
  // No rank is left in a collective: the world still works, and set_use overrides the environment.
  AgreementMailbox::set_use(AgreementMailbox::Use::Always);
  DistArray<double, 1> a("a", Layout<1>({101}, {Cyclic(3)}, grid));
  hpf::forall(a, [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
  a.redistribute(Layout<1>({101}, {Cyclic(5)}, grid));
  int bad = 0;
  hpf::forall(a, [&](const hpf::Index<1>& g, double& x) { bad += x != double(g[0]) ? 1 : 0; });
  EXPECT_EQ(bad, 0);
  if (n > 1) {
    EXPECT_NE(AgreementMailbox::of(PairwiseAgreement(grid.comm(), 43).comm()), nullptr);
  }
}

// Hundreds of header rounds (PairwiseAgreement::post_headers / refuse) on grids over random subsets,
// each grid made with the mailbox on or off, made and dropped as the loop goes: rounds that agree,
// rounds where one rank passes another hash, and rounds one rank refuses. Every rank of a grid sees the
// same answer, the one expected, and a differing round retires the grid's private communicator (and
// its mailbox) for a new one.
TEST(AgreementMailbox, HeadersAgreeDifferAndRefuseInLongLoops) {
  const MailboxGuard guard;
  std::mt19937 rng(1207);
  std::vector<hpf::Comm> comms;
  for (int g = 0; g < 3; ++g) {
    AgreementMailbox::set_use(g != 1 ? AgreementMailbox::Use::Always : AgreementMailbox::Use::Off);
    comms.push_back(random_comm(rng));
  }
  int boxed_rounds = 0;
  for (int step = 0; step < 400; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    if (rng() % 10 == 0) { // a communicator made and one dropped, with the mailbox on or off
      AgreementMailbox::set_use(rng() % 2 == 0 ? AgreementMailbox::Use::Always : AgreementMailbox::Use::Off);
      comms[rng() % comms.size()] = random_comm(rng);
    }
    const hpf::Comm& comm = comms[rng() % comms.size()];
    const unsigned kind = rng() % 4; // 0, 1: all agree; 2: one rank differs; 3: one rank refuses
    const unsigned pick = static_cast<unsigned>(rng());
    if (comm.is_null()) continue;
    const int me = comm.rank();
    const int size = comm.size();
    const int odd = static_cast<int>(pick % static_cast<unsigned>(size));
    const std::uint64_t hash = 1000 + static_cast<std::uint64_t>(step) + (kind == 2 && me == odd ? 1 : 0);
    PairwiseAgreement round(comm, hash);
    const AgreementMailbox* box = AgreementMailbox::of(round.comm());
    const std::uint64_t before = box != nullptr ? box->round() : 0;
    if (kind == 3 && me == odd)
      round.refuse();
    else
      round.post_headers();
    const bool agreed = round.agreed();
    const bool expected = kind < 2 || (kind == 2 && size == 1); // a refusal differs even alone
    EXPECT_EQ(agreed, expected) << "kind " << kind << " on " << size << " ranks";
    if (box != nullptr) {
      EXPECT_EQ(box->round(), before + 1);
      ++boxed_rounds;
    }
    int all = agreed ? 1 : 0, any = all;
    HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm.get()));
    HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, comm.get()));
    EXPECT_EQ(all, any) << "the ranks of one communicator saw different answers";
    if (!agreed) round.discard();
  }
  int total = boxed_rounds;
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (world_size() > 1) {
    EXPECT_GT(total, 0);
  }
}

// REDISTRIBUTEs of small arrays, whose every message carries the header (one message of at most
// agreement_carry_max_bytes to each peer): through the mailbox's slots or through MPI, on grids over
// random subsets. The data is checked after every call; now and then one rank passes another layout,
// every rank throws, the array is unchanged, and the next call works.
TEST(AgreementMailbox, SmallRedistributionsMoveTheirDataThroughTheSlots) {
  const MailboxGuard guard;
  std::mt19937 rng(2412);
  const std::vector<index_t> extents = {0, 1, 37, 1000};
  const std::vector<index_t> blocks = {1, 3, 5, 64};
  for (int step = 0; step < 120; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    AgreementMailbox::set_use(step % 3 != 2 ? AgreementMailbox::Use::Always : AgreementMailbox::Use::Off);
    const ProcessGrid grid = hpf::test::random_world_grid(rng);
    const index_t M = extents[rng() % extents.size()];
    const index_t r = blocks[rng() % blocks.size()];
    const index_t s = blocks[rng() % blocks.size()];
    const unsigned odd_step = rng() % 8;
    const int odd = static_cast<int>(rng() % static_cast<unsigned>(world_size()));
    hpf::RedistOptions opt;
    opt.strategy = hpf::Strategy::AllAtOnce;
    DistArray<double, 1> A("A", Layout<1>({M}, {Cyclic(r)}, grid));
    const double salt = 0.25 * step;
    hpf::forall(A, [&](const hpf::Index<1>& g, double& x) { x = salt + double(g[0]); });
    const auto intact = [&] {
      int bad = 0;
      hpf::forall(A, [&](const hpf::Index<1>& g, double& x) { bad += x != salt + double(g[0]) ? 1 : 0; });
      return bad;
    };
    for (int k = 0; k < 8; ++k) {
      const index_t to = k % 2 == 0 ? s : r;
      if (k == static_cast<int>(odd_step) && world_size() > 1 && r != s) {
        const int me = world_rank();
        const Layout<1> layout({M}, {Cyclic(me == odd ? to + 1 : to)}, grid);
        int threw = 0;
        try {
          A.redistribute(layout, opt);
        } catch (const hpf::Error& e) {
          threw = std::string(e.what()).find("different arguments") != std::string::npos ? 1 : 0;
        }
        HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &threw, 1, MPI_INT, MPI_MIN, grid.comm().get()));
        EXPECT_EQ(threw, 1) << "M " << M << " r " << r << " s " << s;
        ASSERT_EQ(intact(), 0);
      }
      A.redistribute(Layout<1>({M}, {Cyclic(to)}, grid), opt);
      ASSERT_EQ(A.layout().dist(0).block(), to);
      ASSERT_EQ(intact(), 0) << "M " << M << " r " << r << " s " << s << " call " << k;
    }
  }
}

} // namespace
