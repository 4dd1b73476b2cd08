// A REDISTRIBUTE whose one message holds more than INT_MAX bytes (2^28 + 5
// doubles, 2 GiB + 40 bytes). MPI counts are ints: exec/ splits such a message into chunks of at
// most max_message_bytes (core/mpi.hpp), and MPI_Alltoallv falls back to the all-at-once executor.
// Values are global indices, checked element by element.
//
// Needs about 8 GiB: every rank checks the free memory (sysconf) and, unless all have enough, the
// test is skipped with a message. CTest label `bigmem` lets a machine short of memory leave it out.
#include "hpf_test.hpp"
#include "test_scale.hpp"

#include <hpf/hpf.hpp>

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using hpf::DistArray;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::test::world_rank;
using hpf::test::world_size;

constexpr index_t kElements = (index_t{1} << 28) + 5;
constexpr std::size_t kBytes = static_cast<std::size_t>(kElements) * sizeof(double);
constexpr unsigned long long kNeeded = 8ULL << 30;

/// Free memory of this machine, the smallest any rank saw (collective).
unsigned long long free_bytes_everywhere() {
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  unsigned long long mine = pages > 0 && page > 0 ? static_cast<unsigned long long>(pages) * page : 0;
  unsigned long long least = 0;
  MPI_Allreduce(&mine, &least, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  return least;
}

#ifdef HPF_TEST_ASAN // ASan's shadow and quarantine on top of 8 GiB; the release build runs it
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

#define HPF_SKIP_UNLESS_MEMORY()                                                                             \
  do {                                                                                                       \
    if (kSanitized) GTEST_SKIP() << "not under AddressSanitizer (8 GiB of messages plus its shadow memory)"; \
    const unsigned long long free = free_bytes_everywhere();                                                 \
    if (free < kNeeded)                                                                                      \
      GTEST_SKIP() << "needs 8 GiB of free memory for messages of " << kBytes << " bytes; " << (free >> 20)  \
                   << " MiB free";                                                                           \
  } while (0)

/// Elements of a one-owner array (its local storage is the whole array in global order) that do not
/// hold their global index.
index_t wrong_elements(const DistArray<double, 1>& A) {
  const double* p = A.local_view().data();
  index_t bad = 0;
  for (index_t i = 0; i < A.local_size(); ++i) bad += p[i] == static_cast<double>(i) ? 0 : 1;
  return bad;
}

TEST(Issue15BigMessage, SelfMessageOverIntMaxThroughExchange) {
  static_assert(kBytes > static_cast<std::size_t>(INT32_MAX), "the message must not fit an int count");
  // On one rank (the 2-rank run sends between ranks below; both at once would double time and memory).
  if (world_size() > 1) GTEST_SKIP() << "the self-message case runs on one rank";
  HPF_SKIP_UNLESS_MEMORY();
  // One message of kBytes from the rank to itself, through MPI (no local shortcut in Exchange).
  const int me = world_rank();
  hpf::ExchangePlan plan;
  plan.sends.push_back({me, kBytes, 0});
  plan.recvs.push_back({me, kBytes, 0});
  hpf::Exchange ex(hpf::Comm::duplicate(MPI_COMM_WORLD), plan, hpf::ExecMode::AllAtOnce,
                   hpf::tags::exchange.base);
  index_t bad = -1;
  ex.execute(
      [&](std::size_t, std::byte* buf) {
        double* d = reinterpret_cast<double*>(buf);
        for (index_t i = 0; i < kElements; ++i) d[i] = static_cast<double>(i + me);
      },
      [&](std::size_t, const std::byte* buf) {
        const double* d = reinterpret_cast<const double*>(buf);
        bad = 0;
        for (index_t i = 0; i < kElements; ++i) bad += d[i] == static_cast<double>(i + me) ? 0 : 1;
      });
  EXPECT_EQ(bad, 0);
}

TEST(Issue15BigMessage, RedistributeOverIntMaxBytesPerMessage) {
  if (world_size() < 2) GTEST_SKIP() << "a message between ranks needs 2 ranks";
  HPF_SKIP_UNLESS_MEMORY();
  // The whole array on rank 0, redistributed to rank 1: one message of 2 GiB + 40 bytes. Then back,
  // through the MPI_Alltoallv strategy (its int counts and displacements cannot hold it: fallback).
  const ProcessGrid on0(MPI_COMM_WORLD, std::vector<int>{0}, {1});
  const ProcessGrid on1(MPI_COMM_WORLD, std::vector<int>{1}, {1});
  DistArray<double, 1> A("A", Layout<1>({kElements}, {hpf::Block()}, on0));
  if (world_rank() == 0) {
    double* p = A.local_view().data();
    for (index_t i = 0; i < kElements; ++i) p[i] = static_cast<double>(i);
  }
  A.redistribute(Layout<1>({kElements}, {hpf::Block()}, on1));
  EXPECT_EQ(A.local_size(), world_rank() == 1 ? kElements : 0);
  EXPECT_EQ(wrong_elements(A), 0);
  hpf::RedistOptions a2a;
  a2a.strategy = hpf::Strategy::Alltoallv;
  A.redistribute(Layout<1>({kElements}, {hpf::Block()}, on0), a2a);
  EXPECT_EQ(A.local_size(), world_rank() == 0 ? kElements : 0);
  EXPECT_EQ(wrong_elements(A), 0);
}

} // namespace
