// Executors on random schedules between overlapping sender and receiver rank sets: every mode
// delivers every byte to the right place, repeatedly (plans are reusable), with split phase.
#include "hpf_test.hpp"

#include <hpf/core/memory.hpp>
#include <hpf/exec/exchange.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace {

using hpf::CommMatrix;
using hpf::ExecMode;
using hpf::Schedule;
using hpf::test::world_rank;
using hpf::test::world_size;

/// First-fit colouring: a valid (not optimal) schedule for any matrix.
Schedule first_fit(const CommMatrix& m) {
  std::vector<hpf::Step> steps;
  std::vector<std::vector<char>> sbusy, rbusy;
  for (const hpf::Message& msg : m.entries()) {
    std::size_t k = 0;
    for (; k < steps.size(); ++k)
      if (!sbusy[k][static_cast<std::size_t>(msg.src)] && !rbusy[k][static_cast<std::size_t>(msg.dst)]) break;
    if (k == steps.size()) {
      steps.emplace_back();
      sbusy.emplace_back(static_cast<std::size_t>(m.num_senders()), 0);
      rbusy.emplace_back(static_cast<std::size_t>(m.num_receivers()), 0);
    }
    steps[k].messages.push_back(msg);
    sbusy[k][static_cast<std::size_t>(msg.src)] = 1;
    rbusy[k][static_cast<std::size_t>(msg.dst)] = 1;
  }
  return Schedule(m.num_senders(), m.num_receivers(), std::move(steps));
}

std::byte byte_of(int src, int dst, std::size_t i, int round) {
  return static_cast<std::byte>((src * 31 + dst * 17 + static_cast<int>(i) * 7 + round) & 0xff);
}

/// A random exchange between random (overlapping) sender and receiver rank sets: message lengths
/// below `max_len` units, about two pairs in three, scheduled first fit. The same on every rank for
/// the same generator state.
struct RandomExchange {
  std::vector<int> senders;
  std::vector<int> receivers;
  CommMatrix matrix;
  Schedule schedule;
  int my_sender = -1;   // the calling rank's index among the senders, or -1
  int my_receiver = -1; // among the receivers
};

RandomExchange random_exchange(std::mt19937& rng, unsigned max_len) {
  const int n = world_size();
  RandomExchange x;
  std::vector<int> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  std::shuffle(all.begin(), all.end(), rng);
  const int P = 1 + static_cast<int>(rng() % static_cast<unsigned>(n));
  x.senders.assign(all.begin(), all.begin() + P);
  std::shuffle(all.begin(), all.end(), rng);
  const int Q = 1 + static_cast<int>(rng() % static_cast<unsigned>(n));
  x.receivers.assign(all.begin(), all.begin() + Q);
  x.matrix = CommMatrix(P, Q);
  for (int s = 0; s < P; ++s)
    for (int r = 0; r < Q; ++r)
      if (rng() % 3 != 0) x.matrix.add(s, r, static_cast<hpf::index_t>(rng() % max_len));
  x.schedule = first_fit(x.matrix);
  const auto pos = [](const std::vector<int>& v, int r) {
    auto it = std::find(v.begin(), v.end(), r);
    return it == v.end() ? -1 : static_cast<int>(it - v.begin());
  };
  x.my_sender = pos(x.senders, world_rank());
  x.my_receiver = pos(x.receivers, world_rank());
  return x;
}

TEST(Exchange, EveryModeDeliversRandomSchedules) {
  std::mt19937 rng(123); // same seed on every rank: same plans everywhere
  for (int trial = 0; trial < 30; ++trial) {
    const RandomExchange x = random_exchange(rng, 50);
    const CommMatrix& m = x.matrix;
    hpf::validate(x.schedule, m);
    const int me = world_rank();
    const int P = m.num_senders();
    const int my_r = x.my_receiver;
    const std::size_t unit = 1 + trial % 3;
    const auto plan = hpf::exchange_plan(x.schedule, x.my_sender, my_r, x.senders, x.receivers, unit);
    const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
    for (ExecMode mode : {ExecMode::StepSynchronous, ExecMode::AllAtOnce, ExecMode::Handshake,
                          ExecMode::Alltoallv, ExecMode::Pipelined}) {
      hpf::Exchange ex(comm, plan, mode);
      if (mode == ExecMode::Pipelined) ex.set_receive_window(1 + static_cast<std::size_t>(trial % 3));
      for (int round = 0; round < 2; ++round) {
        std::size_t received = 0;
        ex.post(
            [&](std::size_t i, std::byte* buf) {
              const auto& t = plan.sends[i];
              for (std::size_t b = 0; b < t.bytes; ++b) buf[b] = byte_of(me, t.peer, b, round);
            },
            [&](std::size_t i, const std::byte* buf) {
              const auto& t = plan.recvs[i];
              for (std::size_t b = 0; b < t.bytes; ++b)
                ASSERT_EQ(buf[b], byte_of(t.peer, me, b, round)) << to_string(mode) << " trial " << trial;
              received += t.bytes;
            });
        if (round == 1) { // progress by test(), as a kernel overlapping the transfers would
          while (!ex.test()) {
          }
        } else {
          ex.wait();
        }
        EXPECT_EQ(received, plan.recv_bytes()) << to_string(mode);
      }
    }
    // The plan moves exactly the receiver's column of the matrix.
    if (my_r >= 0) {
      hpf::index_t want = 0;
      for (int s = 0; s < P; ++s) want += m.at(s, my_r);
      EXPECT_EQ(plan.recv_bytes(), static_cast<std::size_t>(want) * unit);
    }
  }
}

// Several messages with one peer on one tag are matched in plan order on the settled path too: its
// requests then start one by one (MPI_Startall may start them in any order). A ring of three messages
// of different lengths each way, five executions, message by message and batched.
TEST(Exchange, PersistentPostsKeepTheOrderOfMessagesToOnePeer) {
  const int n = world_size();
  const int me = world_rank();
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  hpf::ExchangePlan plan;
  const std::array<std::size_t, 3> lengths{40, 7, 300};
  for (int k = 0; k < 3; ++k) {
    plan.sends.push_back({(me + 1) % n, lengths[static_cast<std::size_t>(k)], k});
    plan.recvs.push_back({(me + n - 1) % n, lengths[static_cast<std::size_t>(k)], k});
  }
  for (const bool batch : {false, true}) {
    hpf::Exchange ex(comm, plan, ExecMode::AllAtOnce);
    for (int round = 0; round < 5; ++round) {
      const auto pack = [&](std::size_t i, std::byte* buf) {
        for (std::size_t b = 0; b < plan.sends[i].bytes; ++b)
          buf[b] = byte_of(me, static_cast<int>(i), b, round);
      };
      std::size_t checked = 0;
      const auto unpack = [&](std::size_t i, const std::byte* buf) {
        for (std::size_t b = 0; b < plan.recvs[i].bytes; ++b)
          ASSERT_EQ(buf[b], byte_of(plan.recvs[i].peer, static_cast<int>(i), b, round))
              << "batch " << batch << " round " << round << " receive " << i;
        ++checked;
      };
      if (batch)
        ex.set_batch(
            [&](std::span<const std::size_t> sends, std::span<std::byte* const> bufs) {
              for (std::size_t j = 0; j < sends.size(); ++j) pack(sends[j], bufs[j]);
            },
            [&](std::span<const std::size_t> recvs, std::span<const std::byte* const> bufs) {
              for (std::size_t j = 0; j < recvs.size(); ++j) unpack(recvs[j], bufs[j]);
            });
      ex.execute(pack, unpack);
      EXPECT_EQ(ex.requests_made(), 6U) << "made by the first post(), started by the later ones";
      EXPECT_EQ(checked, 3U);
    }
  }
}

// All at once on persistent requests: random schedules, message by message and batched (set_batch),
// some messages in place with bases that move between three buffers (the requests are made again
// only when a base differs from the last post()'s), progress by wait() and by test(); the bytes
// checked after every execution, and the requests made counted against that rule.
TEST(Exchange, PostsRunOnPersistentRequests) {
  const int me = world_rank();
  std::mt19937 rng(4242); // same seed on every rank: same plans everywhere
  for (int trial = 0; trial < 16; ++trial) {
    const RandomExchange x = random_exchange(rng, 3000);
    const auto plan = hpf::exchange_plan(x.schedule, x.my_sender, x.my_receiver, x.senders, x.receivers, 1);
    const bool batch = trial % 2 == 1;
    const bool in_place = trial % 3 == 0;
    const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
    hpf::Exchange ex(comm, plan, ExecMode::AllAtOnce);
    // Each message at its own offset of a send area and a receive area; two of each, used in turn.
    const auto offsets = [](const std::vector<hpf::Transfer>& list, std::size_t& area) {
      std::vector<std::size_t> out;
      for (const auto& t : list) {
        out.push_back(area);
        area += t.bytes;
      }
      return out;
    };
    std::size_t send_area = 1;
    std::size_t recv_area = 1;
    const std::vector<std::size_t> soff = offsets(plan.sends, send_area);
    const std::vector<std::size_t> roff = offsets(plan.recvs, recv_area);
    std::vector<hpf::Datatype> types;
    const auto placed = [&](const std::vector<hpf::Transfer>& list, const std::vector<std::size_t>& off) {
      std::vector<MPI_Datatype> raw;
      for (std::size_t i = 0; i < list.size(); ++i) {
        MPI_Datatype d = MPI_DATATYPE_NULL;
        const auto disp = static_cast<MPI_Aint>(off[i]);
        const int len = static_cast<int>(list[i].bytes);
        HPF_MPI_CHECK(MPI_Type_create_hindexed(1, &len, &disp, MPI_BYTE, &d));
        HPF_MPI_CHECK(MPI_Type_commit(&d));
        types.emplace_back(d);
        raw.push_back(d);
      }
      return raw;
    };
    if (in_place) ex.set_in_place(placed(plan.sends, soff), placed(plan.recvs, roff));
    // The buffer pair of each round: two in turn, a third now and then.
    constexpr std::array<std::size_t, 12> buffer_of{0, 1, 0, 1, 2, 1, 1, 2, 0, 1, 0, 0};
    std::array<std::vector<std::byte>, 3> source;
    std::array<std::vector<std::byte>, 3> target;
    for (auto& b : source) b.resize(send_area);
    for (auto& b : target) b.resize(recv_area);
    const auto pack = [&](int round, std::size_t i, std::byte* buf) {
      std::memcpy(buf, source[buffer_of[static_cast<std::size_t>(round)]].data() + soff[i],
                  plan.sends[i].bytes);
    };
    std::vector<char> unpacked(plan.recvs.size());
    const auto unpack = [&](int round, std::size_t i, const std::byte* buf) {
      std::memcpy(target[buffer_of[static_cast<std::size_t>(round)]].data() + roff[i], buf,
                  plan.recvs[i].bytes);
      unpacked[i] = 1;
    };
    // The rule, as a model: the first post() makes one request per message; a later one makes them
    // all again only when some message is in place and the buffers differ from the last post()'s.
    const bool bound = in_place && (!plan.sends.empty() || !plan.recvs.empty());
    const std::size_t per_set = plan.sends.size() + plan.recvs.size();
    std::size_t made = 0;
    int last = -1;
    for (int round = 0; round < static_cast<int>(buffer_of.size()); ++round) {
      const std::size_t which = buffer_of[static_cast<std::size_t>(round)];
      std::vector<std::byte>& src = source[which];
      std::vector<std::byte>& dst = target[which];
      for (std::size_t i = 0; i < plan.sends.size(); ++i)
        for (std::size_t b = 0; b < plan.sends[i].bytes; ++b)
          src[soff[i] + b] = byte_of(me, plan.sends[i].peer, b, round);
      std::fill(dst.begin(), dst.end(), std::byte{0});
      std::fill(unpacked.begin(), unpacked.end(), 0);
      if (batch)
        ex.set_batch(
            [&](std::span<const std::size_t> sends, std::span<std::byte* const> bufs) {
              for (std::size_t j = 0; j < sends.size(); ++j) pack(round, sends[j], bufs[j]);
            },
            [&](std::span<const std::size_t> recvs, std::span<const std::byte* const> bufs) {
              for (std::size_t j = 0; j < recvs.size(); ++j) unpack(round, recvs[j], bufs[j]);
            });
      const auto pack_one = [&](std::size_t i, std::byte* buf) { pack(round, i, buf); };
      const auto unpack_one = [&](std::size_t i, const std::byte* buf) { unpack(round, i, buf); };
      ex.post(pack_one, unpack_one, src.data(), dst.data());
      if (last < 0 || (bound && last != static_cast<int>(which))) made += per_set;
      last = static_cast<int>(which);
      EXPECT_EQ(ex.requests_made(), made) << "trial " << trial << " round " << round;
      if (round % 2 == 1) {
        while (!ex.test()) {
        }
      } else {
        ex.wait();
      }
      for (std::size_t i = 0; i < plan.recvs.size(); ++i) {
        const auto& t = plan.recvs[i];
        for (std::size_t b = 0; b < t.bytes; ++b)
          ASSERT_EQ(dst[roff[i] + b], byte_of(t.peer, me, b, round))
              << "trial " << trial << " round " << round << " receive " << i << " byte " << b
              << (unpacked[i] != 0 ? " (unpacked)" : " (in place)");
      }
    }
  }
}

// Requests::received_bytes: a
// ring where each rank sends its right neighbour a message of its own length into a larger buffer,
// completed once by wait_all() and once by test().
TEST(Requests, ReceivedBytesAfterWaitAndTest) {
  const int n = world_size();
  const int me = world_rank();
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const int left = (me + n - 1) % n;
  for (const bool by_test : {false, true}) {
    std::vector<char> out(static_cast<std::size_t>(3 * me + (by_test ? 1 : 0)), 'x');
    std::vector<char> in(1000);
    hpf::Requests reqs;
    HPF_MPI_CHECK(MPI_Irecv(in.data(), 1000, MPI_BYTE, left, 5, comm.get(), reqs.add()));
    HPF_MPI_CHECK(MPI_Isend(out.data(), static_cast<int>(out.size()), MPI_BYTE, (me + 1) % n, 5, comm.get(),
                            reqs.add()));
    HPF_EXPECT_ERROR((void)reqs.received_bytes(0), "Requests::received_bytes: request 0");
    if (by_test) {
      while (!reqs.test()) {
      }
    } else {
      reqs.wait_all();
    }
    EXPECT_EQ(reqs.received_bytes(0), static_cast<std::size_t>(3 * left + (by_test ? 1 : 0)));
    HPF_EXPECT_ERROR((void)reqs.received_bytes(2), "request 2 is not among the 2 completed");
  }
}

// Pipelined: combine on receive and forward. A chain 0 -> 1 -> ... -> n-1 (step k: k -> k+1) where
// every rank appends its rank to what it received (a non-commutative "operator") and forwards it.
TEST(Exchange, PipelinedCombinesAndForwardsAlongAChain) {
  const int n = world_size();
  const int me = world_rank();
  std::vector<hpf::Step> steps(static_cast<std::size_t>(std::max(n - 1, 0)));
  for (int k = 0; k + 1 < n; ++k) steps[static_cast<std::size_t>(k)].messages.push_back({k, k + 1, k + 1});
  const Schedule chain(n, n, std::move(steps));
  std::vector<int> ranks(static_cast<std::size_t>(n));
  std::iota(ranks.begin(), ranks.end(), 0);
  // Units of one int: the message of step k carries the k + 1 ranks 0..k.
  const auto plan = hpf::exchange_plan(chain, me, me, ranks, ranks, sizeof(int));
  hpf::Exchange ex(hpf::Comm::duplicate(MPI_COMM_WORLD), plan, ExecMode::Pipelined);
  for (int round = 0; round < 3; ++round) {
    std::vector<int> acc; // what this rank holds: the ranks before it, then itself
    if (me == 0) acc.push_back(0);
    ex.post([&](std::size_t, std::byte* buf) { std::memcpy(buf, acc.data(), acc.size() * sizeof(int)); },
            [&](std::size_t i, const std::byte* buf) {
              acc.resize(plan.recvs[i].bytes / sizeof(int));
              std::memcpy(acc.data(), buf, plan.recvs[i].bytes);
              acc.push_back(me); // combine: the received prefix on the left
            });
    ex.wait();
    std::vector<int> want(static_cast<std::size_t>(me + 1));
    std::iota(want.begin(), want.end(), 0);
    EXPECT_EQ(acc, want) << "round " << round;
  }
}

TEST(Exchange, Errors) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  hpf::ExchangePlan bad;
  bad.sends.push_back({world_size(), 4, 0});
  HPF_EXPECT_ERROR(hpf::Exchange(comm, bad, ExecMode::AllAtOnce), "peer " + std::to_string(world_size()),
                   "outside the communicator");
  hpf::ExchangePlan two;
  two.sends = {{0, 1, 0}, {0, 1, 0}};
  HPF_EXPECT_ERROR(hpf::Exchange(comm, two, ExecMode::StepSynchronous), "two sends in step 0");
  hpf::Exchange ok(comm, hpf::ExchangePlan{}, ExecMode::AllAtOnce);
  HPF_EXPECT_ERROR(ok.wait(), "nothing was posted");
  HPF_EXPECT_ERROR(ok.test(), "nothing was posted");
  ok.post([](std::size_t, std::byte*) {}, [](std::size_t, const std::byte*) {});
  HPF_EXPECT_ERROR(ok.post([](std::size_t, std::byte*) {}, [](std::size_t, const std::byte*) {}),
                   "the previous post() has not been completed by wait()");
  EXPECT_TRUE(ok.test());
}

// set_after_sends: the callback runs once per post(), once the sends that post() starts first have
// started (all of them all at once, the first step's in StepSynchronous, the first step begun in
// Handshake) and before the exchange completes. An all-to-all in n - 1 steps
// (step k: to rank me + k + 1) of 8 KiB messages, each carrying its sender and execution.
TEST(Exchange, AfterSendsRunsOnceTheFirstSendsStarted) {
  const int n = world_size();
  const int me = world_rank();
  const std::size_t words = 1024;
  hpf::ExchangePlan plan;
  for (int k = 1; k < n; ++k) {
    plan.sends.push_back({(me + k) % n, words * sizeof(int), k - 1});
    plan.recvs.push_back({(me + n - k) % n, words * sizeof(int), k - 1});
  }
  for (const ExecMode mode : {ExecMode::AllAtOnce, ExecMode::StepSynchronous, ExecMode::Handshake}) {
    {
      SCOPED_TRACE(hpf::to_string(mode));
      hpf::Exchange ex(hpf::Comm::duplicate(MPI_COMM_WORLD), plan, mode);
      std::size_t packs = 0;
      std::size_t calls = 0;
      std::size_t packs_then = SIZE_MAX;
      std::size_t unpacks = 0;
      std::size_t unpacks_then = SIZE_MAX;
      bool done_then = true;
      std::size_t wrong = 0;
      int exec = 0;
      ex.set_after_sends([&] {
        ++calls;
        packs_then = packs;
        unpacks_then = unpacks;
        done_then = !ex.posted();
      });
      const auto pack = [&](std::size_t i, std::byte* buf) {
        ++packs;
        std::vector<int> v(words, me * 1000 + exec);
        v[0] = static_cast<int>(i);
        std::memcpy(buf, v.data(), words * sizeof(int));
      };
      const auto unpack = [&](std::size_t i, const std::byte* buf) {
        ++unpacks;
        std::vector<int> v(words);
        std::memcpy(v.data(), buf, words * sizeof(int));
        const int from = plan.recvs[i].peer;
        wrong += static_cast<std::size_t>(v[0] != static_cast<int>(i)) +
                 static_cast<std::size_t>(std::count(v.begin() + 1, v.end(), from * 1000 + exec) !=
                                          static_cast<std::ptrdiff_t>(words - 1));
      };
      for (exec = 0; exec < 4; ++exec) {
        packs = 0;
        unpacks = 0;
        packs_then = SIZE_MAX;
        ex.post(pack, unpack);
        ex.wait();
        EXPECT_EQ(calls, static_cast<std::size_t>(exec + 1));
        EXPECT_FALSE(done_then) << "called after the exchange completed";
        if (mode == ExecMode::AllAtOnce) {
          EXPECT_EQ(packs_then, plan.sends.size()) << "execution " << exec;
        } else if (mode == ExecMode::StepSynchronous) {
          EXPECT_EQ(packs_then, std::min<std::size_t>(1, plan.sends.size())) << "execution " << exec;
          EXPECT_EQ(unpacks_then, 0U) << "execution " << exec << ": after the first step's wait";
        } else {
          EXPECT_LE(packs_then, std::min<std::size_t>(1, plan.sends.size())) << "execution " << exec;
        }
      }
      EXPECT_EQ(wrong, 0U);
    }
  }
}

// Moving an exchange: refused, with every member left where it was, while a post() is pending; an idle
// exchange moves and runs on as before. A ring: every rank sends its rank to the next.
TEST(Exchange, MovesOnlyWhenIdle) {
  const int n = world_size();
  const int me = world_rank();
  hpf::ExchangePlan ring;
  if (n > 1) {
    ring.sends.push_back({(me + 1) % n, sizeof(int), 0});
    ring.recvs.push_back({(me + n - 1) % n, sizeof(int), 0});
  }
  hpf::Exchange ex(hpf::Comm::duplicate(MPI_COMM_WORLD), ring, ExecMode::AllAtOnce);
  int got = -1;
  const auto pack = [me](std::size_t, std::byte* buf) { std::memcpy(buf, &me, sizeof me); };
  const auto unpack = [&got](std::size_t, const std::byte* buf) { std::memcpy(&got, buf, sizeof got); };
  const int want = n > 1 ? (me + n - 1) % n : -1;
  ex.post(pack, unpack);
  HPF_EXPECT_ERROR(hpf::Exchange(std::move(ex)), "the exchange moved from has a post() pending",
                   "expected wait()");
  hpf::Exchange idle(hpf::Comm::duplicate(MPI_COMM_WORLD), ring, ExecMode::AllAtOnce);
  HPF_EXPECT_ERROR(ex = std::move(idle), "the exchange moved to has a post() pending");
  HPF_EXPECT_ERROR(idle = std::move(ex), "the exchange moved from has a post() pending");
  EXPECT_TRUE(ex.posted());
  ex.wait();
  EXPECT_EQ(got, want);
  hpf::Exchange moved(std::move(ex));
  got = -1;
  moved.execute(pack, unpack);
  EXPECT_EQ(got, want);
  idle = std::move(moved);
  got = -1;
  idle.execute(pack, unpack);
  EXPECT_EQ(got, want);
}

// In place (set_in_place): a send read through a strided datatype and a receive written through one
// deliver the same bytes as packing, on a ring (every rank sends to the next), in every mode; a packed
// end matches an in-place one. Bad datatypes and a missing base are errors naming what was expected.
TEST(Exchange, InPlaceMatchesPackingAndRefusesBadDatatypes) {
  const int n = world_size();
  const int me = world_rank();
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  constexpr int count = 5; // every third int of 15: one message of 20 bytes each way
  hpf::ExchangePlan plan;
  plan.sends.push_back({(me + 1) % n, count * sizeof(int), 0});
  plan.recvs.push_back({(me + n - 1) % n, count * sizeof(int), 0});
  MPI_Datatype raw = MPI_DATATYPE_NULL;
  HPF_MPI_CHECK(MPI_Type_vector(count, 1, 3, MPI_INT, &raw));
  HPF_MPI_CHECK(MPI_Type_commit(&raw));
  const hpf::Datatype every_third(raw);
  for (ExecMode mode :
       {ExecMode::StepSynchronous, ExecMode::AllAtOnce, ExecMode::Handshake, ExecMode::Pipelined})
    for (int ends = 0; ends < 4; ++ends) { // bit 0: send in place, bit 1: receive in place
      // Mixed ends: ranks differ (odd ranks send in place only when bit 0 is set), as RedistOptions'
      // per-rank threshold may make them.
      const bool send_in_place = (ends & 1) != 0 && (me % 2 == 0 || ends == 3);
      const bool recv_in_place = (ends & 2) != 0;
      hpf::Exchange ex(comm, plan, mode);
      ex.set_in_place(
          send_in_place ? std::vector<MPI_Datatype>{every_third.get()} : std::vector<MPI_Datatype>{},
          recv_in_place ? std::vector<MPI_Datatype>{every_third.get()} : std::vector<MPI_Datatype>{});
      std::vector<int> src(3 * count), dst(3 * count, -1);
      std::iota(src.begin(), src.end(), 100 * me);
      ex.post(
          [&](std::size_t, std::byte* buf) {
            for (int k = 0; k < count; ++k) std::memcpy(buf + k * sizeof(int), &src[3 * k], sizeof(int));
          },
          [&](std::size_t, const std::byte* buf) {
            for (int k = 0; k < count; ++k) std::memcpy(&dst[3 * k], buf + k * sizeof(int), sizeof(int));
          },
          src.data(), dst.data());
      ex.wait();
      const int from = (me + n - 1) % n;
      for (int k = 0; k < 3 * count; ++k)
        EXPECT_EQ(dst[static_cast<std::size_t>(k)], k % 3 == 0 ? 100 * from + k : -1)
            << to_string(mode) << " ends " << ends << " element " << k;
    }

  hpf::Exchange ex(comm, plan, ExecMode::AllAtOnce);
  HPF_EXPECT_ERROR(ex.set_in_place({every_third.get(), every_third.get()}, {}), "send has 2 datatypes",
                   "expected 0 or one per send (1)");
  MPI_Datatype four_ints = MPI_DATATYPE_NULL;
  HPF_MPI_CHECK(MPI_Type_contiguous(4, MPI_INT, &four_ints));
  HPF_MPI_CHECK(MPI_Type_commit(&four_ints));
  const hpf::Datatype wrong(four_ints);
  HPF_EXPECT_ERROR(ex.set_in_place({}, {wrong.get()}), "the datatype of receive 0 holds 16 bytes",
                   "expected the transfer's 20 bytes");
  ex.set_in_place({every_third.get()}, {});
  HPF_EXPECT_ERROR(ex.post([](std::size_t, std::byte*) {}, [](std::size_t, const std::byte*) {}),
                   "sends are in place (set_in_place) but send_base is null");
}

// A message's bytes are a size_t product; one that would wrap is an error on every rank (it
// used to wrap to a small count), and a count past INT_MAX is planned as it is (exec/ splits it).
TEST(Exchange, PlanRefusesMessageBytesThatWrap) {
  std::vector<hpf::Step> steps(1);
  steps[0].messages.push_back({0, 0, hpf::index_t{1} << 62});
  const Schedule huge(1, 1, std::move(steps));
  const std::vector<int> ranks{0};
  HPF_EXPECT_ERROR((void)hpf::exchange_plan(huge, 0, 0, ranks, ranks, 8), "exchange_plan: message of step 0",
                   "expected a positive length whose bytes fit in 64 bits");
  const auto plan = hpf::exchange_plan(huge, 0, 0, ranks, ranks, 2);
  ASSERT_EQ(plan.sends.size(), 1u);
  EXPECT_EQ(plan.sends[0].bytes, std::size_t{1} << 63);
}

} // namespace
