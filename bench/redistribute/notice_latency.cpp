// What one small exchange costs through MPI and through a flag in shared memory (issue 10: the sweep's
// cells of 10^3 doubles, which A.redistribute() loses to MPI_Alltoallw by fractions of a microsecond).
//
// Ranks 2k and 2k+1 exchange `bytes` bytes each way, as the two ranks of a 2-rank REDISTRIBUTE of 10^3
// doubles do (about 2 KB each way), over and over:
//   - mpi:   a persistent MPI_Send_init / MPI_Recv_init pair, MPI_Startall and MPI_Waitall, then the
//            received bytes copied out (what Exchange's settled path does for a packed message);
//   - flag:  each rank copies its bytes into a POSIX shared-memory slot its partner maps, publishes a
//            count (release store), waits for its partner's count (acquire loads; sched_yield between
//            them when the ranks outnumber the cores) and copies the partner's bytes out, then tells the
//            partner its slot is free again (a second count the writer waits for before the next round).
//            No MPI call is on the path: this is what a transport of hpfrt's own for small messages
//            would cost, and the floor of any message-carried agreement.
// A block is --round calls of one method in a row; its time is the largest over all ranks of the block
// divided by --round. Blocks alternate between the methods; medians of --repeats blocks per method.
// Every received byte is checked against what its sender wrote (ok = 1). Needs an even number of ranks
// on one node.
//
//   mpirun -n 2 bench_redistribute_notice_latency [--bytes 8,64,512,2048,4096] [--round 200]
//                                                 [--repeats 21] [--csv out.csv]
#include "../common/bench_common.hpp"

#include <hpf/hpf.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

namespace {

using hpf::bench::max_over_ranks;

constexpr std::size_t line = 64;

// One rank's slot: the count its partner published (produced), the count this rank has read
// (consumed), each on a cache line of its own, then the payload.
struct SlotHeader {
  alignas(line) std::atomic<std::uint64_t> produced{0};
  alignas(line) std::atomic<std::uint64_t> consumed{0};
};
static_assert(sizeof(SlotHeader) == 2 * line);

// This rank's slot (its partner writes into it) and its mapping of the partner's slot.
class SlotPair {
public:
  SlotPair(int me, int partner, std::size_t capacity) : m_bytes(sizeof(SlotHeader) + capacity) {
    const std::string mine = name(me), theirs = name(partner);
    const int fd = ::shm_open(mine.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    hpf::detail::require(fd >= 0, "notice_latency: shm_open('", mine, "') failed: ", std::strerror(errno));
    hpf::detail::require(::ftruncate(fd, static_cast<off_t>(m_bytes)) == 0,
                         "notice_latency: ftruncate failed");
    m_mine = map(fd);
    ::close(fd);
    ::new (m_mine) SlotHeader();
    HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); // every slot exists
    const int pfd = ::shm_open(theirs.c_str(), O_RDWR, 0);
    hpf::detail::require(pfd >= 0, "notice_latency: shm_open('", theirs,
                         "') failed: the ranks of a pair must share /dev/shm (one node)");
    m_theirs = map(pfd);
    ::close(pfd);
    HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); // every slot is mapped: the names may go
    ::shm_unlink(mine.c_str());
  }
  SlotPair(const SlotPair&) = delete;
  SlotPair& operator=(const SlotPair&) = delete;
  ~SlotPair() {
    ::munmap(m_mine, m_bytes);
    ::munmap(m_theirs, m_bytes);
  }
  [[nodiscard]] SlotHeader& mine() const noexcept { return *static_cast<SlotHeader*>(m_mine); }
  [[nodiscard]] SlotHeader& theirs() const noexcept { return *static_cast<SlotHeader*>(m_theirs); }
  [[nodiscard]] const std::byte* my_data() const noexcept {
    return static_cast<const std::byte*>(m_mine) + sizeof(SlotHeader);
  }
  [[nodiscard]] std::byte* their_data() const noexcept {
    return static_cast<std::byte*>(m_theirs) + sizeof(SlotHeader);
  }

private:
  static std::string name(int rank) {
    return "/hpfrt-bench-notice-" + std::to_string(::getppid()) + "-" + std::to_string(rank);
  }
  void* map(int fd) const {
    void* p = ::mmap(nullptr, m_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    hpf::detail::require(p != MAP_FAILED, "notice_latency: mmap failed: ", std::strerror(errno));
    return p;
  }
  std::size_t m_bytes;
  void* m_mine = nullptr;
  void* m_theirs = nullptr;
};

void wait_for(const std::atomic<std::uint64_t>& count, std::uint64_t value, bool yield) {
  while (count.load(std::memory_order_acquire) < value)
    if (yield) sched_yield();
}

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    std::vector<std::size_t> sizes{8, 64, 512, 2048, 4096};
    int round = 200;
    int repeats = 21;
    std::string csv_path = "-";
    hpf::bench::for_each_option(argc, argv, "[--bytes list] [--round n] [--repeats R] [--csv file]",
                                [&](std::string_view k, std::string_view v) {
                                  if (k == "--bytes")
                                    sizes = hpf::bench::parse_list<std::size_t>(v, "--bytes");
                                  else if (k == "--round")
                                    round = hpf::bench::parse_number<int>(v, "--round");
                                  else if (k == "--repeats")
                                    repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                  else if (k == "--csv")
                                    csv_path = v;
                                  else
                                    return false;
                                  return true;
                                });
    int me = 0, np = 0;
    HPF_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    HPF_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    hpf::detail::require(np % 2 == 0, "notice_latency: needs an even number of ranks (pairs), got ", np);
    hpf::detail::require(repeats >= 9, "--repeats: must be >= 9 (medians), got ", repeats);
    hpf::detail::require(round >= 1, "--round: must be >= 1, got ", round);
    hpf::detail::require(
        !sizes.empty() &&
            std::all_of(sizes.begin(), sizes.end(),
                        [](std::size_t b) { return b >= sizeof(std::uint64_t) && b <= (1U << 20U); }),
        "--bytes: every size must be in [8, 2^20]");
    const int partner = me ^ 1;
    const bool yield = np > static_cast<int>(std::thread::hardware_concurrency());
    const std::size_t capacity = *std::max_element(sizes.begin(), sizes.end());
    SlotPair slots(me, partner, capacity);
    hpf::bench::CsvWriter csv;
    if (me == 0) csv = hpf::bench::CsvWriter(csv_path, "ranks,bytes,method,median_s,over_mpi,ok");

    std::uint64_t rounds_done = 0; // the flag method's count, shared by every size
    for (const std::size_t bytes : sizes) {
      // A fixed pattern of the sender's, checked whole after each block, and the round's count stamped at
      // both ends of the message, checked after every round, so that stale bytes fail.
      std::vector<unsigned char> out(bytes), in(bytes), got(bytes);
      for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<unsigned char>(i * 7 + me);
      const auto stamp = [&](std::uint64_t k) {
        std::memcpy(out.data(), &k, sizeof k);
        std::memcpy(out.data() + bytes - sizeof k, &k, sizeof k);
      };
      const auto stamped = [&](std::uint64_t k) {
        std::uint64_t head = 0, tail = 0;
        std::memcpy(&head, got.data(), sizeof k);
        std::memcpy(&tail, got.data() + bytes - sizeof k, sizeof k);
        return head == k && tail == k;
      };
      const auto pattern_intact = [&] {
        for (std::size_t i = sizeof(std::uint64_t); i + sizeof(std::uint64_t) < bytes; ++i)
          if (got[i] != static_cast<unsigned char>(i * 7 + partner)) return false;
        return true;
      };
      const int count = static_cast<int>(bytes);
      MPI_Request reqs[2];
      HPF_MPI_CHECK(MPI_Send_init(out.data(), count, MPI_BYTE, partner, 7, MPI_COMM_WORLD, &reqs[0]));
      HPF_MPI_CHECK(MPI_Recv_init(in.data(), count, MPI_BYTE, partner, 7, MPI_COMM_WORLD, &reqs[1]));
      bool ok = true;
      std::uint64_t mpi_rounds = 0;
      const auto mpi_call = [&] {
        ++mpi_rounds;
        HPF_MPI_CHECK(MPI_Startall(2, reqs));
        HPF_MPI_CHECK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        std::memcpy(got.data(), in.data(), bytes);
      };
      const auto flag_call = [&] {
        const std::uint64_t k = ++rounds_done;
        wait_for(slots.theirs().consumed, k - 1, yield); // the partner has read the previous round
        std::memcpy(slots.their_data(), out.data(), bytes);
        slots.theirs().produced.store(k, std::memory_order_release);
        wait_for(slots.mine().produced, k, yield);
        std::memcpy(got.data(), slots.my_data(), bytes);
        slots.mine().consumed.store(k, std::memory_order_release);
      };
      std::vector<double> t_mpi, t_flag;
      for (int rep = -1; rep < repeats; ++rep) { // rep -1: untimed, warms both paths
        for (int method = 0; method < 2; ++method) {
          HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
          const double t0 = MPI_Wtime();
          for (int c = 0; c < round; ++c) {
            // Both ranks count both methods' rounds alike: the stamp of the round about to run.
            if (method == 0) {
              stamp(mpi_rounds + 1);
              mpi_call();
              ok = ok && stamped(mpi_rounds);
            } else {
              stamp(rounds_done + 1);
              flag_call();
              ok = ok && stamped(rounds_done);
            }
          }
          ok = ok && pattern_intact();
          const double t = max_over_ranks((MPI_Wtime() - t0) / round);
          if (rep >= 0) (method == 0 ? t_mpi : t_flag).push_back(t);
        }
      }
      HPF_MPI_CHECK(MPI_Request_free(&reqs[0]));
      HPF_MPI_CHECK(MPI_Request_free(&reqs[1]));
      int all_ok = ok ? 1 : 0;
      HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
      const double m_mpi = hpf::median(t_mpi), m_flag = hpf::median(t_flag);
      if (me == 0) {
        std::printf("ranks %d  bytes %6zu  mpi %.3f us  flag %.3f us  flag/mpi %.2f  %s\n", np, bytes,
                    m_mpi * 1e6, m_flag * 1e6, m_flag / m_mpi, all_ok != 0 ? "ok" : "WRONG DATA");
        csv.row("%d,%zu,mpi,%.6g,1.0000,%d\n", np, bytes, m_mpi, all_ok);
        csv.row("%d,%zu,flag,%.6g,%.4f,%d\n", np, bytes, m_flag, m_flag / m_mpi, all_ok);
      }
      if (all_ok == 0) return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "notice_latency: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return 0;
}
