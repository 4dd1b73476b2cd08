// Executors on random schedules between overlapping sender and receiver rank sets: every mode
// delivers every byte to the right place, repeatedly (plans are reusable), with split phase.
#include "hpf_test.hpp"

#include <hpf/core/memory.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/exec/shared_memory.hpp>

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

// post_agreeing (core/pairwise_agreement.hpp): the hash rides in front of small messages and alone
// to every other peer. Ranks that pass the same hash get every byte (with the messages' datatypes set,
// so that a carried message is packed on both ends, and with or without shared memory beside it);
// one rank with another hash, or another hash and another plan (other message lengths, carried on one
// end and not on the other), makes headers_agreed() false on every rank before anything is unpacked,
// and a wait() after a difference throws on every rank. Each refused round retires its communicator.
TEST(Exchange, PostAgreeingCarriesTheHashAndRefusesDifferences) {
  const int n = world_size();
  const int me = world_rank();
  std::mt19937 rng(321);
  const hpf::Comm world = hpf::Comm::duplicate(MPI_COMM_WORLD);
  std::vector<hpf::Comm> retired; // never freed: an abandoned message may still arrive
  for (int trial = 0; trial < 24; ++trial) {
    // Up to about 1.5x the carried limit: some messages carry the header, some do not.
    const RandomExchange x =
        random_exchange(rng, 1 + static_cast<unsigned>(hpf::Exchange::carry_max_bytes) * 3 / 2);
    const std::size_t shm = trial % 3 == 0 ? std::size_t{1024} : SIZE_MAX;
    const auto plan_of = [&](std::size_t unit) {
      return hpf::exchange_plan(x.schedule, x.my_sender, x.my_receiver, x.senders, x.receivers, unit);
    };
    const auto plan = plan_of(1);
    hpf::Comm comm = hpf::Comm::duplicate(world.get());
    std::vector<hpf::Datatype> types; // contiguous: in place unless carried or shared
    const auto in_place = [&](const std::vector<hpf::Transfer>& list) {
      std::vector<MPI_Datatype> raw;
      for (const auto& t : list) {
        MPI_Datatype d = MPI_DATATYPE_NULL;
        MPI_Type_contiguous(static_cast<int>(t.bytes), MPI_BYTE, &d);
        MPI_Type_commit(&d);
        types.emplace_back(d);
        raw.push_back(d);
      }
      return raw;
    };
    // In place, every message's bytes lie at offset 0 of one buffer per direction (what a send reads
    // there is what pack writes; the in-place receives overwrite each other and are not checked).
    std::vector<std::byte> sbuf(2 * hpf::Exchange::carry_max_bytes * 3 + 8);
    std::vector<std::byte> rbuf(sbuf.size());
    for (int round = 0; round < 4; ++round) {
      // round 0, 1: the same hash; 2: another hash on one rank; 3: another hash and plan on one rank.
      const bool odd_rank = n >= 2 && me == trial % n && round >= 2;
      const auto my_plan = odd_rank && round == 3 ? plan_of(2) : plan;
      hpf::Exchange ex(comm, my_plan, ExecMode::AllAtOnce);
      ex.set_shared_memory(shm);
      if (trial % 2 == 1) {
        const auto st = in_place(my_plan.sends);
        const auto rt = in_place(my_plan.recvs);
        ex.set_in_place(st, rt);
      }
      std::size_t unpacked = 0;
      std::size_t received = 0;
      for (std::size_t b = 0; b < sbuf.size(); ++b) sbuf[b] = byte_of(me, 0, b, round);
      const std::uint64_t hash = 77 + (odd_rank ? 1 : 0);
      ex.post_agreeing(
          hash,
          [&](std::size_t i, std::byte* buf) {
            for (std::size_t b = 0; b < my_plan.sends[i].bytes; ++b) buf[b] = byte_of(me, 0, b, round);
          },
          [&](std::size_t i, const std::byte* buf) {
            const auto& t = my_plan.recvs[i];
            ++unpacked;
            for (std::size_t b = 0; b < t.bytes; ++b)
              ASSERT_EQ(buf[b], byte_of(t.peer, 0, b, round)) << "trial " << trial << " round " << round;
            received += t.bytes;
          },
          sbuf.data(), rbuf.data());
      if (round < 2 || n == 1) {
        ASSERT_TRUE(ex.headers_agreed()) << "trial " << trial << " round " << round;
        if (round == 1) {
          while (!ex.test()) {
          }
        } else {
          ex.wait();
        }
        if (trial % 2 == 0) {
          EXPECT_EQ(received, plan.recv_bytes()) << "trial " << trial;
        }
        continue;
      }
      if (round == 2) {
        EXPECT_FALSE(ex.headers_agreed()) << "trial " << trial;
        EXPECT_EQ(unpacked, 0U);
        ex.abandon();
      } else {
        EXPECT_THROW(ex.wait(), hpf::Error) << "trial " << trial; // abandons first
        EXPECT_EQ(unpacked, 0U);
      }
      retired.push_back(comm);
      comm = hpf::Comm::duplicate(world.get());
    }
  }
}

// Several messages with one peer on one tag are matched in plan order on the settled path too: its
// requests then start one by one (MPI_Startall may start them in any order). A ring of three messages
// of different lengths each way, five executions, message by message and batched.
TEST(Exchange, SettledPostsKeepTheOrderOfMessagesToOnePeer) {
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
      EXPECT_TRUE(ex.persistent());
      EXPECT_EQ(checked, 3U);
    }
  }
}

// Shared memory (Exchange::set_shared_memory): from the first execution on, packed messages of at
// least the threshold go through segments the receivers map. Every execution carries different bytes
// (a stale segment would show), some receivers are slow (the sender must wait for them before packing
// the next execution), and progress alternates between wait() and test(). The modes it does not apply
// to keep going through MPI. A send given a datatype (set_in_place) moves in place below the threshold
// and is packed and shared at or above it, like any other. The counts are checked after every execution.
TEST(Exchange, SharedMemoryDeliversRandomSchedulesRepeatedly) {
  const int n = world_size();
  const int me = world_rank();
  std::mt19937 rng(321); // same seed on every rank: same plans everywhere
  std::size_t shared_total = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const RandomExchange x = random_exchange(rng, 3000);
    const std::size_t unit = 1 + trial % 3;
    const auto plan =
        hpf::exchange_plan(x.schedule, x.my_sender, x.my_receiver, x.senders, x.receivers, unit);
    const std::size_t threshold = std::array<std::size_t, 3>{0, 1000, 4000}[trial % 3];
    const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
    // Trials 0 mod 4: the sends of even ranks are given datatypes (of MPI_BYTE): in place unless shared.
    const bool in_place = trial % 4 == 0 && me % 2 == 0;
    std::vector<hpf::Datatype> types;
    for (ExecMode mode : {ExecMode::StepSynchronous, ExecMode::AllAtOnce, ExecMode::Pipelined}) {
      hpf::Exchange ex(comm, plan, mode);
      // In place, each send's bytes sit at its own offset of one source area.
      std::vector<std::size_t> offset;
      std::size_t area = 0;
      for (const auto& t : plan.sends) {
        offset.push_back(area);
        area += t.bytes;
      }
      std::vector<std::byte> source(area + 1);
      if (in_place) {
        std::vector<MPI_Datatype> placed;
        for (std::size_t i = 0; i < plan.sends.size(); ++i) {
          MPI_Datatype d = MPI_DATATYPE_NULL;
          const MPI_Aint disp = static_cast<MPI_Aint>(offset[i]);
          const int len = static_cast<int>(plan.sends[i].bytes);
          HPF_MPI_CHECK(MPI_Type_create_hindexed(1, &len, &disp, MPI_BYTE, &d));
          HPF_MPI_CHECK(MPI_Type_commit(&d));
          types.emplace_back(d);
          placed.push_back(d);
        }
        ex.set_in_place(placed, {});
      }
      ex.set_shared_memory(threshold);
      for (int round = 0; round < 6; ++round) {
        for (std::size_t i = 0; i < plan.sends.size(); ++i)
          for (std::size_t b = 0; b < plan.sends[i].bytes; ++b)
            source[offset[i] + b] = byte_of(me, plan.sends[i].peer, b, round);
        std::size_t received = 0;
        ex.post([&](std::size_t i,
                    std::byte* buf) { std::memcpy(buf, source.data() + offset[i], plan.sends[i].bytes); },
                [&](std::size_t i, const std::byte* buf) {
                  const auto& t = plan.recvs[i];
                  if (me % 2 == 1 && round % 2 == 1) // a slow receiver
                    std::this_thread::sleep_for(std::chrono::microseconds(300));
                  for (std::size_t b = 0; b < t.bytes; ++b)
                    ASSERT_EQ(buf[b], byte_of(t.peer, me, b, round))
                        << to_string(mode) << " trial " << trial << " round " << round << " byte " << b;
                  received += t.bytes;
                },
                source.data(), nullptr);
        if (round % 2 == 1) {
          while (!ex.test()) {
          }
        } else {
          ex.wait();
        }
        EXPECT_EQ(received, plan.recv_bytes()) << to_string(mode) << " trial " << trial << " round " << round;
        // Shared from the first execution on: every send of at least the threshold; in place, the
        // sends given a datatype that are not.
        std::size_t want = 0;
        std::size_t want_in_place = 0;
        for (const auto& t : plan.sends) {
          const bool shared = t.bytes >= threshold && mode != ExecMode::Pipelined;
          want += shared ? 1 : 0;
          want_in_place += in_place && !shared ? 1 : 0;
        }
        EXPECT_EQ(ex.shared_sends(), want) << to_string(mode) << " trial " << trial << " round " << round;
        EXPECT_EQ(ex.in_place_sends(), want_in_place) << to_string(mode) << " trial " << trial;
        shared_total += ex.shared_sends();
        // A receive is shared once a notice came through its segment: in the step modes from the
        // first execution on (a send waits for its offer), all at once from the second at the latest.
        std::size_t want_recvs = 0;
        for (const auto& t : plan.recvs) want_recvs += t.bytes >= threshold ? 1 : 0;
        if (mode == ExecMode::Pipelined) want_recvs = 0;
        if (mode == ExecMode::AllAtOnce && round == 0) {
          EXPECT_LE(ex.shared_recvs(), want_recvs) << "trial " << trial;
        } else {
          EXPECT_EQ(ex.shared_recvs(), want_recvs)
              << to_string(mode) << " trial " << trial << " round " << round;
        }
      }
    }
  }
  if (n > 1) {
    EXPECT_GT(shared_total, 0U);
  }
  // Set before the first post() only.
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  hpf::ExchangePlan ring;
  ring.sends.push_back({(me + 1) % n, 64, 0});
  ring.recvs.push_back({(me + n - 1) % n, 64, 0});
  hpf::Exchange ex(comm, ring, ExecMode::AllAtOnce);
  ex.execute([](std::size_t, std::byte* buf) { std::memset(buf, 7, 64); },
             [](std::size_t, const std::byte*) {});
  HPF_EXPECT_ERROR(ex.set_shared_memory(0), "set_shared_memory: must come before the first post()");
}

// All at once, an exchange settles on persistent requests (Exchange::persistent):
// from its first post() without shared memory, from its third with it. Random schedules, message by
// message and batched (set_batch), some messages in place with bases that move between three
// buffers (the requests of the last two pairs of bases are kept: alternating between two makes none
// again, a third replaces the older), two post_agreeing() in between (whose messages that carry the
// header are others: made again for them and after them), progress by wait() and by test(); the
// bytes checked after every execution, and the sets of requests made counted against that rule.
TEST(Exchange, SettledPostsRunOnPersistentRequests) {
  const int me = world_rank();
  std::mt19937 rng(4242); // same seed on every rank: same plans everywhere
  for (int trial = 0; trial < 16; ++trial) {
    const RandomExchange x = random_exchange(rng, 3000);
    const auto plan = hpf::exchange_plan(x.schedule, x.my_sender, x.my_receiver, x.senders, x.receivers, 1);
    const bool batch = trial % 2 == 1;
    const std::size_t shm = trial % 4 >= 2 ? std::size_t{1024} : SIZE_MAX;
    const bool in_place = trial % 3 == 0;
    const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
    hpf::Exchange ex(comm, plan, ExecMode::AllAtOnce);
    ex.set_shared_memory(shm);
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
    // The rule, as a model: the two most recent sets (the current first), keyed by the buffer pair
    // where some message is in place, and dropped when the exchange switches between post() and
    // post_agreeing().
    const bool bound = in_place && (!plan.sends.empty() || !plan.recvs.empty());
    std::array<int, 2> kept{-1, -1};
    bool kept_carrying = false;
    std::size_t sets = 0;
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
      const bool agreeing = round == 6 || round == 7;
      if (agreeing) {
        ex.post_agreeing(99, pack_one, unpack_one, src.data(), dst.data());
        ASSERT_TRUE(ex.headers_agreed());
      } else {
        ex.post(pack_one, unpack_one, src.data(), dst.data());
      }
      const bool want = shm == SIZE_MAX || round >= 2;
      EXPECT_EQ(ex.persistent(), want) << "trial " << trial << " round " << round;
      if (want) {
        const int key = bound ? static_cast<int>(which) : 0;
        if (kept[0] >= 0 && kept_carrying != agreeing) kept = {-1, -1};
        kept_carrying = agreeing;
        if (kept[1] == key) {
          std::swap(kept[0], kept[1]);
        } else if (kept[0] != key) {
          kept = {key, kept[0]};
          ++sets;
        }
      }
      EXPECT_EQ(ex.persistent_sets_made(), sets) << "trial " << trial << " round " << round;
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

namespace {
/// A ring of `bytes`-byte messages through shared memory (StepSynchronous, threshold 4 KiB): one
/// exchange executed for rounds first_round and first_round + 1, every 4093rd byte checked; then
/// `before_end` runs (on every rank) while the exchange still exists. Returns its shared receives.
std::size_t shared_ring(const hpf::Comm& comm, std::size_t bytes, int first_round,
                        const std::function<void()>& before_end = {}) {
  const int n = world_size();
  const int me = world_rank();
  hpf::ExchangePlan ring;
  ring.sends.push_back({(me + 1) % n, bytes, 0});
  ring.recvs.push_back({(me + n - 1) % n, bytes, 0});
  hpf::Exchange ex(comm, ring, ExecMode::StepSynchronous);
  ex.set_shared_memory(4096);
  for (int round = first_round; round < first_round + 2; ++round) {
    bool good = true;
    ex.execute(
        [&](std::size_t, std::byte* buf) {
          for (std::size_t b = 0; b < bytes; b += 4093) buf[b] = byte_of(me, 0, b, round);
        },
        [&](std::size_t, const std::byte* buf) {
          for (std::size_t b = 0; b < bytes; b += 4093)
            good = good && buf[b] == byte_of((me + n - 1) % n, 0, b, round);
        });
    EXPECT_TRUE(good) << "round " << round;
  }
  if (before_end) before_end();
  return ex.shared_recvs();
}
} // namespace

// The segment pool (exec/shared_memory.hpp): an exchange made after another between the same ranks
// has gone takes that one's segment (receiver) and mapping (sender) from the pool instead of making
// new ones, and the bytes still arrive. A message of an unusual size (9.5 MB), so that no segment of
// an earlier test fits it.
TEST(SharedMemory, PoolReusesSegmentsAndMappings) {
  const int n = world_size();
  constexpr std::size_t bytes = 9'500'000;
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const auto run = [&](int first_round) { return shared_ring(comm, bytes, first_round); };
  (void)run(0);
  const hpf::SharedMemoryStats before = hpf::shared_memory_stats();
  const std::size_t shared = run(2);
  const hpf::SharedMemoryStats after = hpf::shared_memory_stats();
  if (n > 1) {
    EXPECT_EQ(shared, 1U);
  }
  // Reuse needs room in the pool for both (HPF_BUFFER_POOL_MIB=0 disables it).
  if (shared > 0 && hpf::detail::buffer_pool_limit() >= 4 * bytes) {
    EXPECT_EQ(after.segments_made, before.segments_made);
    EXPECT_EQ(after.mappings_made, before.mappings_made);
    EXPECT_GE(after.segments_reused, before.segments_reused + 1);
    EXPECT_GE(after.mappings_reused, before.mappings_reused + 1);
    EXPECT_GE(after.pooled_segments, 1U); // both back in the pool
    EXPECT_GE(after.pooled_mappings, 1U);
  }
  EXPECT_LE(after.pooled_bytes, hpf::detail::buffer_pool_limit());
}

namespace {
/// This process's segment names in /dev/shm ("hpfrt-<pid>-..."), with their leading slash.
std::vector<std::string> own_segment_names() {
  const std::string prefix = "hpfrt-" + std::to_string(::getpid()) + "-";
  std::vector<std::string> names;
  if (DIR* dir = ::opendir("/dev/shm")) {
    while (const dirent* e = ::readdir(dir))
      if (std::string_view(e->d_name).starts_with(prefix)) names.push_back(std::string("/") + e->d_name);
    ::closedir(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// Collective: every rank removes `names` (its own), between two barriers.
void remove_names(const hpf::Comm& comm, const std::vector<std::string>& names) {
  HPF_MPI_CHECK(MPI_Barrier(comm.get()));
  for (const std::string& nm : names) ::shm_unlink(nm.c_str());
  HPF_MPI_CHECK(MPI_Barrier(comm.get()));
}
} // namespace

// A segment's name removed while its exchange runs (by remove_stale_shared_memory in a process that
// takes its owner for ended, or by hand): when the exchange ends, the receiver's segment and the
// sender's mapping of it are freed rather than pooled, and the next exchange makes a new segment and
// shares memory again, with the same bytes.
TEST(SharedMemory, RemovedNamesAreReplaced) {
  const int n = world_size();
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  constexpr std::size_t bytes = 7'300'000;
  const hpf::SharedMemoryStats before = hpf::shared_memory_stats();
  const std::size_t first = shared_ring(comm, bytes, 0, [&] { remove_names(comm, own_segment_names()); });
  HPF_MPI_CHECK(MPI_Barrier(comm.get())); // every rank's exchange has ended
  const hpf::SharedMemoryStats after = hpf::shared_memory_stats();
  const std::size_t second = shared_ring(comm, bytes, 2); // the bytes are checked inside
  const hpf::SharedMemoryStats last = hpf::shared_memory_stats();
  if (n > 1) {
    EXPECT_EQ(first, 1U);
    EXPECT_GE(after.mappings_dropped, before.mappings_dropped + 1);
    EXPECT_GE(after.segments_dropped, before.segments_dropped + 1);
    EXPECT_EQ(second, 1U);
    EXPECT_GE(last.segments_made, after.segments_made + 1);
  }
}

// A name removed after the receiver offered its segment and before the sender maps it: the sender
// cannot map it, packs for MPI instead, and the receiver tells the data from a notice by its count.
// The first execution of a step mode maps in wait() (exec/exchange.hpp), so the names go between
// post() and wait(). The names of the segments pooled so far go first, so that the receiver makes a
// new one, which no sender has mapped before.
TEST(SharedMemory, NameRemovedBeforeTheSenderMapsFallsBackToMpi) {
  const int n = world_size();
  const int me = world_rank();
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  remove_names(comm, own_segment_names());
  constexpr std::size_t bytes = 5'300'000;
  hpf::ExchangePlan ring;
  ring.sends.push_back({(me + 1) % n, bytes, 0});
  ring.recvs.push_back({(me + n - 1) % n, bytes, 0});
  hpf::Exchange ex(comm, ring, ExecMode::StepSynchronous);
  ex.set_shared_memory(4096);
  for (int round = 0; round < 3; ++round) {
    bool good = true;
    const auto pack = [&](std::size_t, std::byte* buf) {
      for (std::size_t b = 0; b < bytes; b += 4093) buf[b] = byte_of(me, 0, b, round);
    };
    const auto unpack = [&](std::size_t, const std::byte* buf) {
      for (std::size_t b = 0; b < bytes; b += 4093)
        good = good && buf[b] == byte_of((me + n - 1) % n, 0, b, round);
    };
    ex.post(pack, unpack);
    if (round == 0) remove_names(comm, own_segment_names());
    ex.wait();
    EXPECT_TRUE(good) << "round " << round;
  }
  EXPECT_EQ(ex.shared_recvs(), 0U); // through MPI: no name to map
}

// When the pool is short of room, the pooled segments and kept mappings whose names are gone are
// freed first: the next exchange's segment and mapping are kept in their place, and a third exchange
// reuses them. Sizes no other test uses (13.1 and 29.3 MB; a pooled segment serves up to twice its
// message), and the pool's budget set here: just room for the second exchange's pair once the first
// exchange's nameless pair is freed.
TEST(SharedMemory, ShortPoolFreesNamelessFirst) {
  const int n = world_size();
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const std::size_t limit = hpf::detail::buffer_pool_limit();
  hpf::detail::set_buffer_pool_limit(std::max<std::size_t>(limit, std::size_t{256} << 20));
  constexpr std::size_t first = 13'100'000;
  constexpr std::size_t second = 29'300'000;
  const std::vector<std::string> earlier = own_segment_names();
  const std::size_t shared = shared_ring(comm, first, 0);
  HPF_MPI_CHECK(MPI_Barrier(comm.get())); // every rank's exchange has ended: its pair is pooled
  std::vector<std::string> made;
  std::ranges::set_difference(own_segment_names(), earlier, std::back_inserter(made));
  remove_names(comm, made); // the first exchange's pair loses its names in the pool
  const hpf::SharedMemoryStats before = hpf::shared_memory_stats();
  const std::size_t pair = 2 * ((second + (std::size_t{1} << 21) - 1) >> 21 << 21); // rounded to huge pages
  hpf::detail::set_buffer_pool_limit(before.pooled_bytes + pair * 3 / 4 + (std::size_t{1} << 20));
  (void)shared_ring(comm, second, 0);
  HPF_MPI_CHECK(MPI_Barrier(comm.get()));
  const hpf::SharedMemoryStats after = hpf::shared_memory_stats();
  (void)shared_ring(comm, second, 2);
  const hpf::SharedMemoryStats last = hpf::shared_memory_stats();
  hpf::detail::set_buffer_pool_limit(limit);
  if (n > 1 && shared == 1) {
    EXPECT_GE(after.mappings_dropped, before.mappings_dropped + 1);
    EXPECT_GE(after.segments_dropped, before.segments_dropped + 1);
    EXPECT_EQ(last.segments_made, after.segments_made); // the third exchange reuses both
    EXPECT_EQ(last.mappings_made, after.mappings_made);
  }
}

// remove_stale_shared_memory removes the segment names of processes that no longer exist, and only
// those: not this process's, not a running process's, not a name it did not make.
TEST(SharedMemory, RemovesOnlyNamesOfEndedProcesses) {
  if (world_rank() == 0) {
    int pid_max = 32768;
    std::ifstream("/proc/sys/kernel/pid_max") >> pid_max;
    int dead = pid_max - 1;
    while (dead > 1 && !(::kill(dead, 0) != 0 && errno == ESRCH)) --dead;
    ASSERT_GT(dead, 1) << "no free pid";
    const auto name = [](int pid, const char* tail) { return "/hpfrt-" + std::to_string(pid) + "-" + tail; };
    const std::string gone = name(dead, "00000000deadbeef");
    const std::vector<std::string> kept = {
        name(static_cast<int>(::getpid()), "00000000deadbeef"),  // this process
        name(static_cast<int>(::getppid()), "00000000deadbeef"), // a running one
        name(dead, "deadbeef"),                                  // not a segment's name
        "/hpfrt-x" + std::to_string(dead) + "-00000000deadbeef"};
    const auto exists = [](const std::string& nm) {
      const int fd = ::shm_open(nm.c_str(), O_RDONLY, 0);
      if (fd >= 0) ::close(fd);
      return fd >= 0;
    };
    std::vector<std::string> all = kept;
    all.push_back(gone);
    for (const std::string& nm : all) {
      const int fd = ::shm_open(nm.c_str(), O_RDWR | O_CREAT, 0600);
      ASSERT_GE(fd, 0) << nm;
      ::close(fd);
    }
    const hpf::SharedMemoryStats before = hpf::shared_memory_stats();
    const std::size_t removed = hpf::remove_stale_shared_memory();
    const hpf::SharedMemoryStats after = hpf::shared_memory_stats();
    // Another test program's first segment may have removed it already: the name is what counts.
    EXPECT_FALSE(exists(gone));
    for (const std::string& nm : kept) EXPECT_TRUE(exists(nm)) << nm;
    EXPECT_EQ(after.stale_names_removed - before.stale_names_removed, removed);
    for (const std::string& nm : all) ::shm_unlink(nm.c_str());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Requests::received_bytes, which the shared-memory exchanges check every packed receive with: a
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
  // post_agreeing: only an all-at-once exchange carries a hash, and its test() waits for the headers.
  const auto no_pack = [](std::size_t, std::byte*) {};
  const auto no_unpack = [](std::size_t, const std::byte*) {};
  hpf::Exchange steps(comm, hpf::ExchangePlan{}, ExecMode::StepSynchronous);
  HPF_EXPECT_ERROR(steps.post_agreeing(1, no_pack, no_unpack), "mode step-synchronous cannot carry",
                   "expected all-at-once");
  HPF_EXPECT_ERROR(ok.headers_agreed(), "no post_agreeing() is pending");
  ok.post_agreeing(5, no_pack, no_unpack); // a header to every other rank, alone
  HPF_EXPECT_ERROR(ok.test(), "headers_agreed() must have returned true first");
  EXPECT_TRUE(ok.headers_agreed());
  EXPECT_TRUE(ok.test());
}

// set_after_sends: the callback runs once per post(), once the sends that post() starts first have
// started (all of them all at once, the first step's in StepSynchronous, the first step begun in
// Handshake) and before the exchange completes; also in a first execution with shared memory under
// post_agreeing, whose sends wait in wait() for their receivers' offers. An all-to-all in n - 1 steps
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
    for (const bool shared : {false, true}) {
      SCOPED_TRACE(hpf::to_string(mode) + (shared ? ", shared memory" : ""));
      hpf::Exchange ex(hpf::Comm::duplicate(MPI_COMM_WORLD), plan, mode);
      if (shared) ex.set_shared_memory(4096);
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
        if (mode == ExecMode::AllAtOnce && shared) {
          ex.post_agreeing(99, pack, unpack);
          ASSERT_TRUE(ex.headers_agreed());
        } else {
          ex.post(pack, unpack);
        }
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

// Moving an exchange: refused, with every member left where it was, while a post() (here one that
// carries the agreement's header, which MPI sends from inside the exchange) is pending; an idle
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
  ex.post_agreeing(7, pack, unpack);
  HPF_EXPECT_ERROR(hpf::Exchange(std::move(ex)), "the exchange moved from has a post() pending",
                   "expected wait()");
  hpf::Exchange idle(hpf::Comm::duplicate(MPI_COMM_WORLD), ring, ExecMode::AllAtOnce);
  HPF_EXPECT_ERROR(ex = std::move(idle), "the exchange moved to has a post() pending");
  HPF_EXPECT_ERROR(idle = std::move(ex), "the exchange moved from has a post() pending");
  EXPECT_TRUE(ex.posted());
  EXPECT_TRUE(ex.headers_agreed());
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

  // abandon(): a posted all-at-once exchange is taken back without waiting for any peer (on a
  // communicator freed next, with whatever no rank received); the step modes refuse.
  {
    const hpf::Comm scratch = hpf::Comm::duplicate(MPI_COMM_WORLD);
    hpf::Exchange flow(scratch, plan, ExecMode::AllAtOnce);
    flow.post([](std::size_t, std::byte* buf) { std::memset(buf, 1, count * sizeof(int)); },
              [](std::size_t, const std::byte*) {});
    flow.abandon();
    EXPECT_FALSE(flow.posted());
    hpf::Exchange steps(scratch, plan, ExecMode::StepSynchronous);
    HPF_EXPECT_ERROR(steps.abandon(), "mode step-synchronous cannot be abandoned",
                     "expected all-at-once or pipelined");
  }
}

// Issue 15: a message's bytes are a size_t product; one that would wrap is an error on every rank (it
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
