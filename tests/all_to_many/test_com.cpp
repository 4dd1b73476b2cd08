// COM assembly at run time (one collective) and every all-to-many schedule run by the shared exec/
// executors — S1 (Handshake), S2 (AllAtOnce), step-synchronous and MPI_Alltoallv — on 1..8 ranks:
// every byte arrives, in the right message, repeatedly.
#include <hpf/irregular/com.hpp>

#include "hpf_test.hpp"

#include <cstring>

namespace {

using hpf::CommMatrix;
using hpf::SendEntry;
using hpf::test::world_rank;
using hpf::test::world_size;

/// Rank r's send list in trial t: derived from (t, r) alone, so every rank can rebuild all lists.
std::vector<SendEntry> send_list_of(int r, int n, int t) {
  hpf::detail::SplitMix64 rng(static_cast<std::uint64_t>(t * 1000 + r));
  std::vector<SendEntry> out;
  const auto k = static_cast<int>(rng.below(static_cast<std::uint64_t>(n) + 2));
  for (int i = 0; i < k; ++i)
    out.push_back({static_cast<int>(rng.below(static_cast<std::uint64_t>(n))),
                   static_cast<hpf::index_t>(rng.below(50))}); // repeats and zero lengths included
  return out;
}

TEST(AllToManyCom, AssembleMatchesEveryRanksList) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const int n = world_size();
  for (int t = 0; t < 20; ++t) {
    const CommMatrix com = hpf::assemble_com(comm, send_list_of(world_rank(), n, t));
    CommMatrix want(n, n);
    for (int r = 0; r < n; ++r)
      for (const SendEntry& e : send_list_of(r, n, t)) want.add(r, e.dst, e.len);
    ASSERT_EQ(com, want) << "trial " << t;
    // The receive list is column `rank`, without a second user call.
    std::vector<hpf::Message> col;
    for (const hpf::Message& m : want.entries())
      if (m.dst == world_rank()) col.push_back(m);
    EXPECT_EQ(hpf::receive_list(com, world_rank()), col);
  }
}

TEST(AllToManyCom, BadEntryThrowsOnEveryRank) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const int n = world_size();
  std::vector<SendEntry> mine{{0, 1}};
  if (world_rank() == n - 1) mine.push_back({n, 3});
  HPF_EXPECT_ERROR((void)hpf::assemble_com(comm, mine), "send list of rank " + std::to_string(n - 1),
                   "entry 1", "dst must be a rank in [0, " + std::to_string(n) + ")",
                   "got " + std::to_string(n));
  std::vector<SendEntry> neg{{0, world_rank() == 0 ? -2 : 1}};
  HPF_EXPECT_ERROR((void)hpf::assemble_com(comm, neg), "rank 0", "len must be >= 0", "-2");
}

std::byte payload(int src, int dst, std::size_t i, int round) {
  return static_cast<std::byte>((src * 13 + dst * 7 + static_cast<int>(i) * 3 + round * 5) & 0xff);
}

TEST(AllToManyCom, EverySchedulerUnderEveryExecutor) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const int n = world_size();
  const int me = world_rank();
  for (int t = 0; t < 4; ++t) {
    const CommMatrix com = hpf::assemble_com(comm, send_list_of(me, n, 100 + t));
    for (hpf::AllToManyAlgo algo : hpf::all_to_many_algos()) {
      const bool pow2 = (n & (n - 1)) == 0;
      const hpf::AllToManyOptions opt{algo, pow2 ? hpf::RoutingKind::Hypercube : hpf::RoutingKind::Mesh2D,
                                      static_cast<std::uint64_t>(t)};
      const hpf::Schedule s = hpf::schedule_all_to_many(com, opt);
      ASSERT_EQ(hpf::check_schedule(s, com), "");
      const hpf::ExchangePlan plan = hpf::all_to_many_exchange_plan(s, me, 8);
      for (hpf::ExecMode mode : {hpf::ExecMode::Handshake, hpf::ExecMode::AllAtOnce,
                                 hpf::ExecMode::StepSynchronous, hpf::ExecMode::Alltoallv}) {
        hpf::Exchange ex(comm, plan, mode);
        for (int round = 0; round < 2; ++round) {
          std::size_t received = 0;
          ex.execute(
              [&](std::size_t i, std::byte* buf) {
                for (std::size_t b = 0; b < plan.sends[i].bytes; ++b)
                  buf[b] = payload(me, plan.sends[i].peer, b, round);
              },
              [&](std::size_t i, const std::byte* buf) {
                const hpf::Transfer& tr = plan.recvs[i];
                ASSERT_EQ(tr.bytes, static_cast<std::size_t>(com.at(tr.peer, me)) * 8);
                for (std::size_t b = 0; b < tr.bytes; ++b)
                  ASSERT_EQ(buf[b], payload(tr.peer, me, b, round))
                      << hpf::to_string(algo) << " under " << hpf::to_string(mode) << " from " << tr.peer;
                received += tr.bytes;
              });
          hpf::index_t want = 0;
          for (const hpf::Message& m : hpf::receive_list(com, me)) want += m.len * 8;
          EXPECT_EQ(received, static_cast<std::size_t>(want))
              << hpf::to_string(algo) << " " << hpf::to_string(mode);
        }
      }
    }
  }
}

} // namespace
