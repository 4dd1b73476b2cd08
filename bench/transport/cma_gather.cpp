// bench_cma_gather: could a redistribution on one node move a message with one copy instead of two?
// The four 10^7 cells the sweep loses (docs/redistribute.md, the sweep section) have a BLOCK side: on
// 2 ranks a message is half a rank's block, in pieces of `piece` bytes every 2 * piece bytes on one
// side and contiguous on the other. hpfrt moves it twice (the sender packs it into the receiver's
// shared-memory segment, the receiver unpacks it), and Open MPI (single copy off, scripts/env.sh)
// moves it twice too, through small fragments that stay in cache. process_vm_readv (CMA) lets the
// receiver read the pieces straight out of the sender's block, once.
//
// Each repeat, on both ranks of a pair at once (rank 2k with 2k + 1), each rank receives one message of
// `bytes` (rounded down to whole pieces) from its peer, as:
//   memcpy   one memcpy of `bytes` (the limit: the same bytes moved once, contiguous);
//   segment  pack into the peer's POSIX segment (4 KiB pages, as hpfrt's), a notice, unpack from
//            one's own (hpfrt's path for a message between ranks of one node);
//   ring     the same through a ring of --slots chunks of --chunk bytes (default 8 x 64 KiB) in the
//            peer's segment: each rank packs its next chunk when a slot is free and unpacks the
//            peer's when one is in, so both copies stay in cache (as Open MPI's fragments do);
//   cma      process_vm_readv from the peer's block into one's own, IOV_MAX pieces a call, then a
//            notice that the peer's block may change again;
//   mpi      MPI_Sendrecv of an MPI_Type_vector on the strided side (what MPI_Alltoallw does).
// `shape` says which side is strided: gather (strided source, contiguous target: BLOCK -> CYCLIC(k)
// seen by the receiver) or scatter (contiguous source, strided target: CYCLIC(k) -> BLOCK). A repeat's
// time is the slowest rank's; the methods run round-robin, each timed call right after an untimed one
// of the same method. Every method's target is checked once. The CSV gets, per shape and piece, the
// median of --repeats repeats and its ratio to the memcpy's median:
//   ranks,bytes,shape,piece,method,median_s,vs_memcpy
//
//   mpirun -np 2 bench_cma_gather [--bytes B] [--pieces 56,512,4096] [--chunk C] [--slots S]
//       [--repeats R] [--csv file]
#include "../common/bench_common.hpp"

#include <hpf/core/mpi.hpp>

#include <mpi.h>

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

/// A POSIX shared-memory segment of `bytes`, made by one rank and mapped by both ends.
class Segment {
public:
  Segment(const std::string& name, std::size_t bytes, bool create)
      : m_name(name), m_bytes(bytes), m_owner(create) {
    const int fd = shm_open(name.c_str(), create ? O_CREAT | O_EXCL | O_RDWR : O_RDWR, 0600);
    hpf::detail::require(fd >= 0, "bench_cma_gather: shm_open(", name, ") failed: ", std::strerror(errno));
    if (create && ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
      close(fd);
      hpf::detail::require(false, "bench_cma_gather: ftruncate failed: ", std::strerror(errno));
    }
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    hpf::detail::require(p != MAP_FAILED, "bench_cma_gather: mmap failed: ", std::strerror(errno));
    m_data = static_cast<char*>(p);
  }
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  ~Segment() {
    munmap(m_data, m_bytes);
    if (m_owner) shm_unlink(m_name.c_str());
  }
  [[nodiscard]] char* data() const noexcept { return m_data; }

private:
  std::string m_name;
  std::size_t m_bytes;
  bool m_owner;
  char* m_data = nullptr;
};

struct Where {
  std::uint64_t pid;
  std::uint64_t source;
};

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  try {
    int me = 0;
    int ranks = 0;
    HPF_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    HPF_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &ranks));
    std::size_t bytes = std::size_t{20} << 20; // a 10^7 cell's message on 2 ranks: 2.5 * 10^6 doubles
    std::vector<std::size_t> pieces{56, 512, 4096};
    std::size_t chunk = std::size_t{64} << 10;
    std::size_t slots = 8;
    int repeats = 21;
    std::string csv = "-";
    hpf::bench::for_each_option(
        argc, argv, "[--bytes B] [--pieces a,b,...] [--chunk C] [--slots S] [--repeats R] [--csv file]",
        [&](std::string_view k, std::string_view v) {
          if (k == "--bytes")
            bytes = hpf::bench::parse_number<std::size_t>(v, "--bytes");
          else if (k == "--pieces")
            pieces = hpf::bench::parse_list<std::size_t>(v, "--pieces");
          else if (k == "--chunk")
            chunk = hpf::bench::parse_number<std::size_t>(v, "--chunk");
          else if (k == "--slots")
            slots = hpf::bench::parse_number<std::size_t>(v, "--slots");
          else if (k == "--repeats")
            repeats = hpf::bench::parse_number<int>(v, "--repeats");
          else if (k == "--csv")
            csv = v;
          else
            return false;
          return true;
        });
    hpf::detail::require(slots >= 1 && chunk >= 1, "--slots, --chunk: expected >= 1, got ", slots, ", ",
                         chunk);
    hpf::detail::require(repeats >= 9, "--repeats: medians need >= 9 repeats, got ", repeats);
    hpf::detail::require(ranks % 2 == 0, "bench_cma_gather: expected an even number of ranks, got ", ranks);
    const int peer = me ^ 1;
    hpf::bench::CsvWriter out;
    if (me == 0) out = hpf::bench::CsvWriter(csv, "ranks,bytes,shape,piece,method,median_s,vs_memcpy");

    for (const std::size_t piece : pieces) {
      hpf::detail::require(piece >= 8 && piece <= bytes && bytes / piece <= INT32_MAX,
                           "--pieces: expected piece sizes from 8 to --bytes (", bytes, "), got ", piece);
      const std::size_t count = bytes / piece; // the message: count whole pieces
      const std::size_t msg = count * piece;
      // The strided side spans 2 * msg bytes (the pieces of the message and, between them, those of the
      // part a rank keeps), the contiguous side msg bytes.
      const hpf::bench::LargeBuffer strided_src(2 * msg, static_cast<unsigned char>(me + 1));
      const hpf::bench::LargeBuffer contiguous_src(msg, static_cast<unsigned char>(me + 1));
      const hpf::bench::LargeBuffer strided_dst(2 * msg, 0);
      const hpf::bench::LargeBuffer contiguous_dst(msg, 0);
      const hpf::bench::LargeBuffer limit_src(msg, 1);
      const hpf::bench::LargeBuffer limit_dst(msg, 0);
      const std::string mine = "/hpf_cma_bench_" + std::to_string(getpid());
      std::array<char, 64> peer_name{};
      std::array<char, 64> my_name{};
      std::snprintf(my_name.data(), my_name.size(), "%s", mine.c_str());
      const Segment inbound(mine, msg, true);
      HPF_MPI_CHECK(MPI_Sendrecv(my_name.data(), 64, MPI_CHAR, peer, 0, peer_name.data(), 64, MPI_CHAR, peer,
                                 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      const Segment outbound(peer_name.data(), msg, false);
      // The ring: a count of chunks produced (written by the sender) and one of chunks consumed (by the
      // receiver), a cache line each, then `slots` chunks of whole pieces.
      const std::size_t per_chunk = std::max<std::size_t>(1, chunk / piece);
      const std::size_t chunk_bytes = per_chunk * piece;
      const std::size_t ring_bytes = 128 + slots * chunk_bytes;
      const Segment inbound_ring(mine + "_ring", ring_bytes, true);
      HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); // both rings exist before either is mapped
      const Segment outbound_ring(std::string(peer_name.data()) + "_ring", ring_bytes, false);
      std::uint64_t ring_base = 0; // chunks moved through the ring so far, the same on both ends

      for (const bool gather : {true, false}) {
        char* src = gather ? strided_src.data() : contiguous_src.data();
        char* dst = gather ? contiguous_dst.data() : strided_dst.data();
        const std::size_t src_stride = gather ? 2 * piece : piece;
        const std::size_t dst_stride = gather ? piece : 2 * piece;
        // Each piece of the message starts with its rank and index, so that a piece moved to the wrong
        // place fails the check below (the rest of the source is the rank's fill byte).
        const auto stamp = [](int rank, std::size_t i) { return (std::uint64_t(rank) << 48U) | i; };
        for (std::size_t i = 0; i < count; ++i) {
          const std::uint64_t s = stamp(me, i);
          std::memcpy(src + i * src_stride, &s, sizeof s);
        }
        const Where here{static_cast<std::uint64_t>(getpid()), reinterpret_cast<std::uintptr_t>(src)};
        Where there{};
        HPF_MPI_CHECK(MPI_Sendrecv(&here, sizeof here, MPI_BYTE, peer, 1, &there, sizeof there, MPI_BYTE,
                                   peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        const auto notice = [&] {
          char a = 0;
          char b = 0;
          HPF_MPI_CHECK(MPI_Sendrecv(&a, 1, MPI_CHAR, peer, 2, &b, 1, MPI_CHAR, peer, 2, MPI_COMM_WORLD,
                                     MPI_STATUS_IGNORE));
        };
        const auto copy = [&] { std::memcpy(limit_dst.data(), limit_src.data(), msg); };
        const auto segment = [&] {
          char* w = outbound.data();
          for (std::size_t i = 0; i < count; ++i) std::memcpy(w + i * piece, src + i * src_stride, piece);
          notice();
          const char* r = inbound.data();
          for (std::size_t i = 0; i < count; ++i) std::memcpy(dst + i * dst_stride, r + i * piece, piece);
          notice(); // the peer may pack into my segment again
        };
        const auto ring = [&] {
          const std::uint64_t n = (count + per_chunk - 1) / per_chunk;
          auto* out_hdr = reinterpret_cast<std::uint64_t*>(outbound_ring.data());
          auto* in_hdr = reinterpret_cast<std::uint64_t*>(inbound_ring.data());
          std::atomic_ref<std::uint64_t> produced_out(out_hdr[0]);
          std::atomic_ref<std::uint64_t> consumed_out(out_hdr[8]);
          std::atomic_ref<std::uint64_t> produced_in(in_hdr[0]);
          std::atomic_ref<std::uint64_t> consumed_in(in_hdr[8]);
          std::uint64_t sent = 0;
          std::uint64_t got = 0;
          for (unsigned idle = 0; sent < n || got < n;) {
            bool moved = false;
            if (sent < n && ring_base + sent - consumed_out.load(std::memory_order_acquire) < slots) {
              char* w = outbound_ring.data() + 128 + ((ring_base + sent) % slots) * chunk_bytes;
              const std::size_t first = sent * per_chunk;
              const std::size_t end = std::min<std::size_t>(count, first + per_chunk);
              for (std::size_t i = first; i < end; ++i)
                std::memcpy(w + (i - first) * piece, src + i * src_stride, piece);
              produced_out.store(ring_base + ++sent, std::memory_order_release);
              moved = true;
            }
            if (got < n && produced_in.load(std::memory_order_acquire) > ring_base + got) {
              const char* r = inbound_ring.data() + 128 + ((ring_base + got) % slots) * chunk_bytes;
              const std::size_t first = got * per_chunk;
              const std::size_t end = std::min<std::size_t>(count, first + per_chunk);
              for (std::size_t i = first; i < end; ++i)
                std::memcpy(dst + i * dst_stride, r + (i - first) * piece, piece);
              consumed_in.store(ring_base + ++got, std::memory_order_release);
              moved = true;
            }
            if (moved)
              idle = 0;
            else if (++idle % 4096 == 0)
              sched_yield(); // a peer off its core
            else
              __builtin_ia32_pause();
          }
          ring_base += n;
        };
        std::vector<iovec> local(IOV_MAX);
        std::vector<iovec> remote(IOV_MAX);
        const auto cma = [&] {
          for (std::size_t first = 0; first < count; first += IOV_MAX) {
            const std::size_t n = std::min<std::size_t>(IOV_MAX, count - first);
            for (std::size_t i = 0; i < n; ++i) {
              local[i] = {dst + (first + i) * dst_stride, piece};
              remote[i] = {reinterpret_cast<void*>(there.source + (first + i) * src_stride), piece};
            }
            const std::size_t want = n * piece;
            const ssize_t got =
                process_vm_readv(static_cast<pid_t>(there.pid), local.data(), n, remote.data(), n, 0);
            hpf::detail::require(got == static_cast<ssize_t>(want),
                                 "bench_cma_gather: process_vm_readv read ", got, " of ", want,
                                 " bytes: ", std::strerror(errno));
          }
          notice(); // the peer's block may change again
        };
        MPI_Datatype strided = MPI_DATATYPE_NULL;
        HPF_MPI_CHECK(MPI_Type_vector(static_cast<int>(count), static_cast<int>(piece),
                                      static_cast<int>(2 * piece), MPI_BYTE, &strided));
        HPF_MPI_CHECK(MPI_Type_commit(&strided));
        const auto mpi = [&] {
          if (gather)
            HPF_MPI_CHECK(MPI_Sendrecv(src, 1, strided, peer, 3, dst, static_cast<int>(msg), MPI_BYTE, peer,
                                       3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
          else
            HPF_MPI_CHECK(MPI_Sendrecv(src, static_cast<int>(msg), MPI_BYTE, peer, 3, dst, 1, strided, peer,
                                       3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        };
        struct Method {
          const char* name;
          std::function<void()> run;
          std::vector<double> times;
        };
        std::vector<Method> methods{{"memcpy", copy, {}},
                                    {"segment", segment, {}},
                                    {"ring", ring, {}},
                                    {"cma", cma, {}},
                                    {"mpi", mpi, {}}};
        for (Method& m : methods) { // each result checked once: the peer's bytes, where they belong
          std::memset(dst, 0, gather ? msg : 2 * msg);
          m.run();
          if (m.name != std::string("memcpy"))
            for (std::size_t i = 0; i < count; ++i) {
              std::uint64_t s = 0;
              std::memcpy(&s, dst + i * dst_stride, sizeof s);
              hpf::detail::require(
                  s == stamp(peer, i) &&
                      (piece == sizeof s || dst[i * dst_stride + piece - 1] == static_cast<char>(peer + 1)),
                  "bench_cma_gather: ", m.name, " left piece ", i, " wrong");
            }
        }
        for (int r = 0; r < repeats; ++r)
          for (Method& m : methods) {
            m.run(); // untimed: every timed call follows one of its own method
            m.times.push_back(hpf::bench::slowest_time(m.run));
          }
        HPF_MPI_CHECK(MPI_Type_free(&strided));
        const double limit = hpf::bench::median(methods.front().times);
        for (const Method& m : methods) {
          const double t = hpf::bench::median(m.times);
          out.row("%d,%zu,%s,%zu,%s,%.9g,%.4f\n", ranks, msg, gather ? "gather" : "scatter", piece, m.name, t,
                  t / limit);
        }
      }
      HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); // the peer unmaps before my segment goes
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    status = 1;
  }
  if (status != 0) MPI_Abort(MPI_COMM_WORLD, status);
  MPI_Finalize();
  return 0;
}
