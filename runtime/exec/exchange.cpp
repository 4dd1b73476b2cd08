#include <hpf/core/error.hpp>
#include <hpf/core/names.hpp>
#include <hpf/core/tags.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/exec/shared_memory.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hpf {

namespace detail {

// One message's POSIX shared-memory segment: a header (a cookie, the sender's count of packed
// executions and the receiver's count of unpacked ones) and the packed bytes. The receiver makes it
// (or takes it from SegmentPool) and keeps its name for as long as it lives; the sender maps it by
// name. Mappings are populated when they are made (MAP_POPULATE): one system call instead of a fault
// per page during the first pack or unpack.
class SharedSegment {
public:
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;
  SharedSegment(SharedSegment&&) = delete;
  SharedSegment& operator=(SharedSegment&&) = delete;
  ~SharedSegment() {
    if (m_owner) ::shm_unlink(m_offer.name.data());
    if (m_base != nullptr) ::munmap(m_base, m_mapped);
  }

  /// A receiver's segment for a message of `bytes` bytes (from the pool, else new), with a fresh
  /// cookie and both counts at 0; null when the system refuses one (then the message goes through MPI).
  static std::shared_ptr<SharedSegment> make(std::size_t bytes);

  /// The sender's mapping of the segment `offer` names (the pool's, when this process mapped it
  /// before); null unless it exists here, is large enough and carries the offer's cookie (a segment
  /// of that name on another node is never seen: /dev/shm is per node).
  static std::shared_ptr<SharedSegment> open(const SegmentOffer& offer);

  [[nodiscard]] const SegmentOffer& offer() const noexcept { return m_offer; }
  [[nodiscard]] std::size_t capacity() const noexcept { return m_mapped - header_bytes; }
  [[nodiscard]] std::byte* data() const noexcept { return static_cast<std::byte*>(m_base) + header_bytes; }
  /// Executions whose contents the sender has packed / the receiver has unpacked.
  [[nodiscard]] std::atomic<std::uint64_t>& produced() const noexcept { return header().produced; }
  [[nodiscard]] std::atomic<std::uint64_t>& consumed() const noexcept { return header().consumed; }
  /// A receiver's segment may go back to the pool once no sender can write into it any more: its
  /// exchange is not in the middle of an execution (an exception there, or an abandoned post, leaves
  /// a sender that may still pack into it, so such a segment is freed instead).
  void set_poolable(bool poolable) noexcept { m_poolable = poolable; }

private:
  friend class SegmentPool;
  /// A new mapping of the segment `offer` names, or null.
  /// The whole segment is mapped, so that the mapping serves whatever message the receiver offers
  /// the segment for next.
  static std::unique_ptr<SharedSegment> map_offered(const SegmentOffer& offer) {
    if (offer.name[0] != '/' || offer.name.back() != '\0') return nullptr;
    const int fd = ::shm_open(offer.name.data(), O_RDWR, 0);
    if (fd < 0) return nullptr;
    struct stat st {};
    const bool sized = ::fstat(fd, &st) == 0 && st.st_size >= 0 &&
                       static_cast<std::size_t>(st.st_size) >= header_bytes + offer.bytes;
    auto seg = std::unique_ptr<SharedSegment>(
        new SharedSegment(offer, sized ? static_cast<std::size_t>(st.st_size) : 0, false));
    if (sized) seg->map(fd);
    ::close(fd);
    if (seg->m_base == nullptr) return nullptr;
    return seg;
  }
  struct Header {
    std::uint64_t cookie;
    std::atomic<std::uint64_t> produced;
    std::atomic<std::uint64_t> consumed;
  };
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "a shared counter must be lock-free");
  static constexpr std::size_t header_bytes = 64; // the payload starts on its own cache line

  SharedSegment(const SegmentOffer& offer, std::size_t mapped, bool owner)
      : m_offer(offer), m_mapped(mapped), m_owner(owner) {}

  /// A new segment of `capacity` payload bytes named after this process, or null.
  static std::unique_ptr<SharedSegment> create(std::size_t capacity) {
    static std::atomic<std::uint64_t> counter{0};
    SegmentOffer offer;
    std::snprintf(offer.name.data(), offer.name.size(), "/hpfrt-%d-%016llx", static_cast<int>(::getpid()),
                  static_cast<unsigned long long>(fresh_cookie() ^ (counter.fetch_add(1) + 1)));
    const int fd = ::shm_open(offer.name.data(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return nullptr;
    auto seg = std::unique_ptr<SharedSegment>(new SharedSegment(offer, header_bytes + capacity, true));
    if (::ftruncate(fd, static_cast<off_t>(seg->m_mapped)) == 0) seg->map(fd);
    ::close(fd);
    if (seg->m_base == nullptr) return nullptr; // the destructor removes the name
    ::new (seg->m_base) Header{0, {}, {}};
    return seg;
  }
  /// Gets the segment ready for a new message of `bytes` (at most capacity()) bytes.
  void reset(std::size_t bytes) noexcept {
    m_offer.bytes = bytes;
    m_offer.cookie = fresh_cookie();
    m_poolable = false; // until its exchange completes an execution
    header().cookie = m_offer.cookie;
    header().produced.store(0, std::memory_order_relaxed);
    header().consumed.store(0, std::memory_order_release);
  }
  static std::uint64_t fresh_cookie() {
    static std::mt19937_64 rng(std::random_device{}() ^ (static_cast<std::uint64_t>(::getpid()) << 32U));
    static std::mutex m;
    const std::lock_guard<std::mutex> lock(m);
    return rng();
  }
  void map(int fd) {
    void* p = ::mmap(nullptr, m_mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    m_base = p == MAP_FAILED ? nullptr : p;
  }
  [[nodiscard]] Header& header() const noexcept { return *static_cast<Header*>(m_base); }

  SegmentOffer m_offer;
  std::size_t m_mapped;
  void* m_base = nullptr;
  bool m_owner;
  bool m_poolable = false;
};

// Segments outlive their exchanges here, as message buffers do in the buffer pool (core/memory.hpp):
// a receiver's new exchange, between the same layouts or for any message of a similar size (a
// segment of a message of `bytes` bytes is taken for up to twice as many), takes one whose pages are
// already there and mapped, and offers it again; its sender finds its own earlier mapping of that
// name here. A new mapping costs its first pass a fault per page: on the development VM (shadow page
// tables) 4-5 us per 4 KiB page even after MAP_POPULATE and MADV_POPULATE_WRITE, 7.5 ms for the
// 3.7 MB of a first pack against 0.3 ms for a later one (issue 10, the first call). Bounded by
// buffer_pool_limit() bytes of its own. Never destroyed (exchanges in static objects may return
// segments at exit): at exit it frees what it holds, names included, and then frees what comes back.
class SegmentPool {
public:
  static SegmentPool& instance() {
    static SegmentPool* pool = [] {
      auto* p = new SegmentPool; // NOLINT(cppcoreguidelines-owning-memory): lives until the process ends
      std::atexit([] { instance().close(); });
      return p;
    }();
    return *pool;
  }

  /// A receiver's segment for a message of `bytes` bytes: a pooled one, else a new one, else null.
  std::unique_ptr<SharedSegment> take(std::size_t bytes) {
    {
      const std::lock_guard<std::mutex> lock(m_mutex);
      for (auto it = m_held.lower_bound(bytes); it != m_held.end() && it->first / 2 <= bytes;) {
        std::unique_ptr<SharedSegment> seg = std::move(it->second);
        it = m_held.erase(it);
        m_bytes -= seg->m_mapped;
        if (!name_exists(seg->m_offer)) { // no sender could map it: offering it would send through MPI
          ++m_stats.segments_dropped;
          continue;
        }
        ++m_stats.segments_reused;
        return seg;
      }
    }
    static std::once_flag swept;
    std::call_once(swept, [] { remove_stale_shared_memory(); });
    // New segments are rounded up as pooled buffers are, so that similar sizes share them.
    const std::size_t unit = bytes >= huge_page_bytes ? huge_page_bytes : pool_unit_bytes;
    std::unique_ptr<SharedSegment> seg = SharedSegment::create((bytes + unit - 1) / unit * unit);
    if (seg) {
      const std::lock_guard<std::mutex> lock(m_mutex);
      ++m_stats.segments_made;
    }
    return seg;
  }

  /// Lends `seg` out: it comes back to the pool (give) when its last holder lets go.
  static std::shared_ptr<SharedSegment> lend(std::unique_ptr<SharedSegment> seg) {
    return {seg.release(), [](SharedSegment* p) { instance().give(p); }};
  }

  /// A sender's mapping of the segment `offer` names: one an exchange of this process still holds
  /// (an exchange whose receiver has given the segment up never writes into it again), else a kept
  /// one, else a new one; null unless it is large enough and carries the offer's cookie.
  std::shared_ptr<SharedSegment> mapping(const SegmentOffer& offer) {
    const std::string name(offer.name.data());
    std::shared_ptr<SharedSegment> seg;
    {
      const std::lock_guard<std::mutex> lock(m_mutex);
      if (auto it = m_live.find(name); it != m_live.end()) seg = it->second.lock();
      if (seg && seg->m_mapped < SharedSegment::header_bytes + offer.bytes) seg.reset(); // too small
      if (seg) ++m_stats.mappings_reused;
    }
    if (!seg) {
      std::unique_ptr<SharedSegment> fresh = take_mapping(offer);
      if (!fresh) {
        fresh = SharedSegment::map_offered(offer);
        if (!fresh) return nullptr;
        const std::lock_guard<std::mutex> lock(m_mutex);
        ++m_stats.mappings_made;
      }
      fresh->m_poolable = true; // a sender writes into it only while an exchange uses it
      seg = lend(std::move(fresh));
      const std::lock_guard<std::mutex> lock(m_mutex);
      std::erase_if(m_live, [](const auto& kv) { return kv.second.expired(); });
      m_live[name] = seg;
    }
    if (seg->header().cookie != offer.cookie) return nullptr;
    seg->m_offer = offer;
    return seg;
  }

  /// A sender's mapping of the segment `offer` names, kept from an earlier exchange, or null.
  std::unique_ptr<SharedSegment> take_mapping(const SegmentOffer& offer) {
    const std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_mappings.find(std::string(offer.name.data()));
    if (it == m_mappings.end() || it->second->m_mapped < SharedSegment::header_bytes + offer.bytes)
      return nullptr;
    std::unique_ptr<SharedSegment> seg = std::move(it->second);
    m_mappings.erase(it);
    m_bytes -= seg->m_mapped;
    ++m_stats.mappings_reused;
    seg->m_offer = offer;
    return seg;
  }

  /// Takes back a segment or mapping nothing holds any more: pooled while the budget allows, else
  /// freed. One whose name is gone is of no further use and is freed: a kept mapping (its receiver
  /// freed the segment, or exited) can never be offered again, and a receiver's segment (its name
  /// removed by hand, or by remove_stale_shared_memory in a process that took this one for ended)
  /// could never be mapped by a new sender. Names that go while their segments sit in the pool are
  /// found when the budget is short (those are freed first) or, for a receiver's, when it is taken.
  void give(SharedSegment* seg) noexcept {
    std::unique_ptr<SharedSegment> owned(seg);
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (m_closed || !seg->m_poolable) return; // freed
    if (!name_exists(seg->m_offer)) {
      ++(seg->m_owner ? m_stats.segments_dropped : m_stats.mappings_dropped);
      return;
    }
    if (m_bytes + seg->m_mapped > buffer_pool_limit()) drop_nameless();
    if (m_bytes + seg->m_mapped > buffer_pool_limit()) return; // freed
    m_bytes += seg->m_mapped;
    if (seg->m_owner) {
      m_held.emplace(seg->capacity(), std::move(owned));
    } else {
      auto [it, fresh] = m_mappings.try_emplace(std::string(seg->m_offer.name.data()), std::move(owned));
      if (!fresh) m_bytes -= seg->m_mapped; // one mapping per name is enough: this one is freed
    }
  }

  SharedMemoryStats stats() {
    const std::lock_guard<std::mutex> lock(m_mutex);
    SharedMemoryStats out = m_stats;
    out.pooled_segments = m_held.size();
    out.pooled_mappings = m_mappings.size();
    out.pooled_bytes = m_bytes;
    out.segment_packs = m_packs.load(std::memory_order_relaxed);
    return out;
  }

  void count_pack() noexcept { m_packs.fetch_add(1, std::memory_order_relaxed); }

  void count_stale_removed(std::size_t n) {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_stats.stale_names_removed += n;
  }

private:
  static bool name_exists(const SegmentOffer& offer) noexcept {
    const int fd = ::shm_open(offer.name.data(), O_RDONLY, 0);
    if (fd < 0) return errno != ENOENT;
    ::close(fd);
    return true;
  }

  /// Frees the pooled segments and kept mappings whose names are gone. Under m_mutex.
  void drop_nameless() noexcept {
    const auto sweep = [this](auto& pooled, std::size_t& dropped) {
      for (auto it = pooled.begin(); it != pooled.end();) {
        if (name_exists(it->second->m_offer)) {
          ++it;
          continue;
        }
        m_bytes -= it->second->m_mapped;
        ++dropped;
        it = pooled.erase(it);
      }
    };
    sweep(m_held, m_stats.segments_dropped);
    sweep(m_mappings, m_stats.mappings_dropped);
  }

  void close() noexcept {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_closed = true;
    m_held.clear();
    m_mappings.clear();
    m_live.clear();
    m_bytes = 0;
  }

  std::mutex m_mutex;
  std::multimap<std::size_t, std::unique_ptr<SharedSegment>> m_held; // receivers' segments
  std::map<std::string, std::unique_ptr<SharedSegment>> m_mappings;  // senders' mappings, kept
  std::map<std::string, std::weak_ptr<SharedSegment>> m_live;        // ... and held by exchanges
  std::size_t m_bytes = 0;
  bool m_closed = false;
  SharedMemoryStats m_stats;
  std::atomic<std::size_t> m_packs{0}; // SharedMemoryStats::segment_packs: counted outside the lock
};

std::shared_ptr<SharedSegment> SharedSegment::make(std::size_t bytes) {
  std::unique_ptr<SharedSegment> seg = SegmentPool::instance().take(bytes);
  if (!seg) return nullptr;
  seg->reset(bytes);
  return SegmentPool::lend(std::move(seg));
}

std::shared_ptr<SharedSegment> SharedSegment::open(const SegmentOffer& offer) {
  return SegmentPool::instance().mapping(offer);
}

namespace {
/// The pid in a segment name "hpfrt-<pid>-<16 hex digits>" (as SharedSegment::create makes them,
/// without the leading slash), or -1 for any other name.
int segment_name_pid(std::string_view name) {
  constexpr std::string_view prefix = "hpfrt-";
  if (!name.starts_with(prefix)) return -1;
  name.remove_prefix(prefix.size());
  const std::size_t dash = name.find('-');
  if (dash == 0 || dash == std::string_view::npos || dash > 9 || name.size() - dash - 1 != 16) return -1;
  long pid = 0;
  for (char c : name.substr(0, dash)) {
    if (c < '0' || c > '9') return -1;
    pid = pid * 10 + (c - '0');
  }
  for (char c : name.substr(dash + 1))
    if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) return -1;
  return pid > 0 && pid <= INT_MAX ? static_cast<int>(pid) : -1;
}
} // namespace

} // namespace detail

std::size_t remove_stale_shared_memory() {
  // POSIX names no directory for shared-memory objects; on Linux it is /dev/shm (elsewhere nothing is
  // listed and nothing is removed).
  DIR* dir = ::opendir("/dev/shm");
  if (dir == nullptr) return 0;
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(dir)) {
    const int pid = detail::segment_name_pid(e->d_name);
    // kill(pid, 0) fails with ESRCH only when no such process exists (EPERM: it runs as another user).
    if (pid > 0 && pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH)
      stale.push_back(std::string("/") + e->d_name);
  }
  ::closedir(dir);
  std::size_t removed = 0;
  for (const std::string& name : stale)
    if (::shm_unlink(name.c_str()) == 0) ++removed;
  detail::SegmentPool::instance().count_stale_removed(removed);
  return removed;
}

SharedMemoryStats shared_memory_stats() { return detail::SegmentPool::instance().stats(); }

std::size_t ExchangePlan::send_bytes() const noexcept {
  std::size_t n = 0;
  for (const Transfer& t : sends) n += t.bytes;
  return n;
}

std::size_t ExchangePlan::recv_bytes() const noexcept {
  std::size_t n = 0;
  for (const Transfer& t : recvs) n += t.bytes;
  return n;
}

ExchangePlan exchange_plan(const Schedule& schedule, int my_sender, int my_receiver,
                           const std::vector<int>& sender_ranks, const std::vector<int>& receiver_ranks,
                           std::size_t bytes_per_unit) {
  detail::require(static_cast<int>(sender_ranks.size()) == schedule.num_senders(),
                  "exchange_plan: sender_ranks has ", sender_ranks.size(), " entries; expected ",
                  schedule.num_senders());
  detail::require(static_cast<int>(receiver_ranks.size()) == schedule.num_receivers(),
                  "exchange_plan: receiver_ranks has ", receiver_ranks.size(), " entries; expected ",
                  schedule.num_receivers());
  ExchangePlan plan;
  const auto& steps = schedule.steps();
  for (std::size_t k = 0; k < steps.size(); ++k) {
    for (const Message& m : steps[k].messages) {
      if (m.len == 0) continue;
      // Bytes of one message: a size_t product that must not wrap (issue 15: counts past INT_MAX are
      // split by isend_bytes / irecv_bytes, core/mpi.hpp; a count past SIZE_MAX is an error).
      std::size_t bytes = 0;
      detail::require(m.len > 0 &&
                          !__builtin_mul_overflow(static_cast<std::size_t>(m.len), bytes_per_unit, &bytes),
                      "exchange_plan: message of step ", k, " from sender ", m.src, " to receiver ", m.dst,
                      " has ", m.len, " units of ", bytes_per_unit,
                      " bytes; expected a positive length whose bytes fit in 64 bits");
      if (m.src == my_sender)
        plan.sends.push_back({receiver_ranks[static_cast<std::size_t>(m.dst)], bytes, static_cast<int>(k)});
      if (m.dst == my_receiver)
        plan.recvs.push_back({sender_ranks[static_cast<std::size_t>(m.src)], bytes, static_cast<int>(k)});
    }
  }
  return plan;
}

namespace {
constexpr NameTable<ExecMode, 5> exec_mode_names{{{{ExecMode::StepSynchronous, "step-synchronous"},
                                                   {ExecMode::AllAtOnce, "all-at-once"},
                                                   {ExecMode::Handshake, "handshake"},
                                                   {ExecMode::Alltoallv, "alltoallv"},
                                                   {ExecMode::Pipelined, "pipelined"}}}};
} // namespace

std::string to_string(ExecMode m) { return std::string(exec_mode_names.name(m)); }

ExecMode parse_exec_mode(std::string_view name, std::string_view what) {
  return exec_mode_names.parse(name, what);
}

Exchange::Exchange(Comm comm, ExchangePlan plan, ExecMode mode, int tag)
    : m_comm(std::move(comm)), m_plan(std::move(plan)), m_mode(mode), m_tag(tag) {
  detail::require(!m_comm.is_null(), "Exchange: communicator is null");
  detail::require(tag >= 0 && tag < 32000, "Exchange: tag must be in [0, 32000), got ", tag);
  auto by_step = [](const Transfer& a, const Transfer& b) { return a.step < b.step; };
  detail::require(std::is_sorted(m_plan.sends.begin(), m_plan.sends.end(), by_step) &&
                      std::is_sorted(m_plan.recvs.begin(), m_plan.recvs.end(), by_step),
                  "Exchange: plan sends and receives must be sorted by step");
  const int size = m_comm.size();
  for (const auto* list : {&m_plan.sends, &m_plan.recvs})
    for (const Transfer& t : *list)
      detail::require(t.peer >= 0 && t.peer < size, "Exchange: peer ", t.peer,
                      " is outside the communicator of size ", size);
  for (const Transfer& t : m_plan.sends) m_steps.push_back(t.step);
  for (const Transfer& t : m_plan.recvs) m_steps.push_back(t.step);
  std::sort(m_steps.begin(), m_steps.end());
  m_steps.erase(std::unique(m_steps.begin(), m_steps.end()), m_steps.end());
  if (m_mode == ExecMode::StepSynchronous || m_mode == ExecMode::Handshake) {
    // Every step of a partial permutation has at most one send and one receive per rank.
    for (std::size_t i = 1; i < m_plan.sends.size(); ++i)
      detail::require(m_plan.sends[i].step != m_plan.sends[i - 1].step, "Exchange: two sends in step ",
                      m_plan.sends[i].step, "; a step-driven mode needs a partial permutation per step");
    for (std::size_t i = 1; i < m_plan.recvs.size(); ++i)
      detail::require(m_plan.recvs[i].step != m_plan.recvs[i - 1].step, "Exchange: two receives in step ",
                      m_plan.recvs[i].step, "; a step-driven mode needs a partial permutation per step");
  }
}

void Exchange::set_in_place(std::vector<MPI_Datatype> send_types, std::vector<MPI_Datatype> recv_types) {
  detail::require(!m_posted, "Exchange::set_in_place: a post() is pending");
  auto check = [](const std::vector<MPI_Datatype>& types, const std::vector<Transfer>& list,
                  const char* what) {
    detail::require(types.empty() || types.size() == list.size(), "Exchange::set_in_place: ", what, " has ",
                    types.size(), " datatypes; expected 0 or one per ", what, " (", list.size(), ")");
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (types[i] == MPI_DATATYPE_NULL) continue;
      MPI_Count size = 0;
      HPF_MPI_CHECK(MPI_Type_size_x(types[i], &size));
      detail::require(
          size >= 0 && static_cast<std::size_t>(size) == list[i].bytes && list[i].bytes <= max_message_bytes,
          "Exchange::set_in_place: the datatype of ", what, " ", i, " holds ", size,
          " bytes; expected the transfer's ", list[i].bytes, " bytes (at most ", max_message_bytes, ")");
    }
  };
  check(send_types, m_plan.sends, "send");
  check(recv_types, m_plan.recvs, "receive");
  drop_settled(); // made for the previous datatypes
  m_settled_known = false;
  m_send_types = std::move(send_types);
  m_recv_types = std::move(recv_types);
}

void Exchange::set_shared_memory(std::size_t min_bytes) {
  detail::require(!m_ever_posted, "Exchange::set_shared_memory: must come before the first post()");
#ifdef SMPI_H
  (void)min_bytes; // simulated ranks share one process and simulated time: messages go through MPI
#else
  if (m_mode == ExecMode::StepSynchronous || m_mode == ExecMode::AllAtOnce) m_shm_min = min_bytes;
#endif
}

namespace {
/// How many of the indices 0 .. n-1 satisfy `pred`.
template <class Pred> std::size_t count_indices(std::size_t n, Pred pred) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i) k += pred(i) ? 1 : 0;
  return k;
}
} // namespace

std::size_t Exchange::shared_sends() const noexcept {
  return count_indices(m_plan.sends.size(), [this](std::size_t i) { return send_segment(i) != nullptr; });
}

std::size_t Exchange::shared_recvs() const noexcept {
  return count_indices(m_plan.recvs.size(), [this](std::size_t i) { return recv_segment(i) != nullptr; });
}

detail::SharedSegment* Exchange::send_segment(std::size_t i) const noexcept {
  return i < m_send_segs.size() ? m_send_segs[i].get() : nullptr; // mapped once its offer is in
}

detail::SharedSegment* Exchange::recv_segment(std::size_t i) const noexcept {
  return i < m_recv_shared.size() && m_recv_shared[i] != 0 ? m_recv_segs[i].get() : nullptr;
}

// Whether a message of `bytes` trades an offer in the first execution: both of its ends know its size
// and the threshold, so both decide the same. A single MPI message (at most INT_MAX bytes), so that
// its receiver can tell the notice from the data by one count.
bool Exchange::shm_offered(std::size_t bytes) const noexcept {
  return m_shm_execs == 0 && shm_candidate(bytes);
}

// The first execution: the receiver of every offered message sends its sender an offer (a segment
// when the receive is packed and one could be made, else none), and the sender posts the offer's
// receive. Both are posted before the execution's data, on the data's tag, so that on every
// (sender, receiver) pair they are matched in the same order on both ends.
// The first execution's segments and offers, made before anything is sent (they may fail: a segment
// is a file in /dev/shm); post_offers sends them.
void Exchange::make_offers() {
  const auto& sends = m_plan.sends;
  const auto& recvs = m_plan.recvs;
  m_offers_out.assign(recvs.size(), {});
  m_offers_in.assign(sends.size(), {});
  m_offer_pending.assign(sends.size(), 0);
  m_offer_recvs.resize(sends.size());
  m_send_segs.assign(sends.size(), nullptr);
  m_recv_segs.assign(recvs.size(), nullptr);
  m_recv_shared.assign(recvs.size(), 0);
  m_send_uses.assign(sends.size(), 0);
  for (std::size_t i = 0; i < recvs.size(); ++i) {
    if (!shm_offered(recvs[i].bytes)) continue;
    if (recv_type(i) == MPI_DATATYPE_NULL) m_recv_segs[i] = detail::SharedSegment::make(recvs[i].bytes);
    if (m_recv_segs[i]) m_offers_out[i] = m_recv_segs[i]->offer();
  }
  m_offers_made = true;
}

void Exchange::post_offers() {
  if (!m_offers_made) make_offers();
  m_offers_made = false;
  const auto& sends = m_plan.sends;
  const auto& recvs = m_plan.recvs;
  for (std::size_t i = 0; i < recvs.size(); ++i)
    if (shm_offered(recvs[i].bytes))
      HPF_MPI_CHECK(MPI_Isend(&m_offers_out[i], sizeof(detail::SegmentOffer), MPI_BYTE, recvs[i].peer, m_tag,
                              m_comm.get(), m_offer_sends.add()));
  for (std::size_t i = 0; i < sends.size(); ++i)
    if (shm_offered(sends[i].bytes)) m_offer_pending[i] = 1;
  m_offers_held = m_carrying; // post_agreeing: the receives wait for the peers' headers (post_held_from)
  if (!m_offers_held) post_offer_receives(-1);
}

// The offers' receives from `peer` (every peer: -1) not posted yet.
void Exchange::post_offer_receives(int peer) {
  const auto post = [&](std::size_t i) {
    if (m_offer_pending[i] != 0 && m_offer_recvs[i].empty())
      HPF_MPI_CHECK(MPI_Irecv(&m_offers_in[i], sizeof(detail::SegmentOffer), MPI_BYTE, m_plan.sends[i].peer,
                              m_tag, m_comm.get(), m_offer_recvs[i].add()));
  };
  if (peer >= 0) {
    for (const std::size_t i : m_sends_to[static_cast<std::size_t>(peer)]) post(i);
    return;
  }
  for (std::size_t i = 0; i < m_plan.sends.size(); ++i) post(i);
  m_offers_held = false;
}

// post_agreeing: a peer whose header agrees passed the same arguments, so its messages have the lengths
// this rank expects: its held receives are posted at once (offers first, in the order it sent them).
void Exchange::post_held_from(int peer) {
  if (m_offers_held) post_offer_receives(peer);
  for (const std::size_t i : m_recvs_from[static_cast<std::size_t>(peer)])
    if (!carries_recv(i) && m_recv_posted[i] == 0) {
      if (m_settled_now)
        m_precvs.start(i);
      else
        start_recv(i, m_recv_bufs[i], m_rreq[i]);
      m_recv_posted[i] = 1;
    }
}

// True once send i may be packed: it trades no offer, or its offer is in (then the sender maps the
// offered segment if its send is packed). Waiting for an offer needs only the receiver's post().
bool Exchange::offer_in(std::size_t i, bool block) {
  if (i >= m_offer_pending.size() || m_offer_pending[i] == 0) return true;
  if (m_offers_held) return false; // not received yet: this execution's send goes through MPI
  if (block) {
    m_offer_recvs[i].wait_all();
  } else if (!m_offer_recvs[i].test()) {
    return false;
  }
  m_offer_pending[i] = 0;
  const detail::SegmentOffer& offer = m_offers_in[i];
  if (offer.name[0] != '\0' && offer.bytes == m_plan.sends[i].bytes && send_type(i) == MPI_DATATYPE_NULL)
    m_send_segs[i] = detail::SharedSegment::open(offer);
  return true;
}

// Whether send i may start now. post_agreeing's first execution with shared memory: a send whose
// receiver offers a segment waits for the offer (in wait(), blocking), so that it goes through the
// segment from the first call on, as the step modes' sends do. An AllAtOnce post() otherwise starts
// every send at once, and a send whose offer is not in yet goes through MPI that once: 1.5-2.0x the
// time of a repeated call at 10^6 doubles per rank (docs/redistribute.md, "The first REDISTRIBUTE").
// Only post_agreeing defers: its communicator (DistArray::redistribute's private one) carries no
// other exchange at the same time, so a send started late cannot be matched by a receive of another
// exchange in flight on the same tag. Offers come from the receivers' post(), which waits for
// nothing; with the offers' receives still held (headers not agreed) it goes through MPI. Not when a
// send of this rank carries its header: the offers' receives wait for the headers, and sends start in
// order (a batch all at once), so a carried header behind a waiting send would never leave.
bool Exchange::send_may_start(std::size_t i, bool block) {
  if (!m_carrying || m_shm_execs != 0 || m_some_send_carries) return true;
  return offer_in(i, block) || block;
}

// Once each of the first two executions is complete. After the first, every offer is in (each
// sender has mapped its segment or never will). After the second, a receiver whose segment has seen
// no notice gives it back: its sender chose MPI. Then what the executions buffered for messages that
// now go through segments is released.
void Exchange::finish_offers() {
  if (m_shm_execs == 0) {
    for (std::size_t i = 0; i < m_offer_pending.size(); ++i) (void)offer_in(i, true);
    m_offer_sends.wait_all();
  } else {
    for (std::size_t i = 0; i < m_recv_segs.size(); ++i)
      if (m_recv_segs[i] && m_recv_shared[i] == 0) {
        m_recv_segs[i]->set_poolable(true);
        m_recv_segs[i].reset();
      }
  }
  ++m_shm_execs;
  for (std::size_t i = 0; i < m_send_segs.size() && i < m_send_bufs.size(); ++i)
    if (m_send_segs[i]) detail::ByteBuffer().swap(m_send_bufs[i]);
  for (std::size_t i = 0; i < m_recv_shared.size() && i < m_recv_bufs.size(); ++i)
    if (m_recv_shared[i] != 0) detail::ByteBuffer().swap(m_recv_bufs[i]);
  const auto all = [](const auto& v) {
    return std::all_of(v.begin(), v.end(), [](const auto& p) { return bool(p); });
  };
  if (all(m_send_segs)) detail::ByteBuffer().swap(m_send_buf); // the step modes' buffers
  if (all(m_recv_shared)) detail::ByteBuffer().swap(m_recv_buf);
}

std::size_t Exchange::in_place_sends() const noexcept {
  return count_indices(m_plan.sends.size(),
                       [this](std::size_t i) { return send_type(i) != MPI_DATATYPE_NULL; });
}

std::size_t Exchange::in_place_recvs() const noexcept {
  return count_indices(m_plan.recvs.size(),
                       [this](std::size_t i) { return recv_type(i) != MPI_DATATYPE_NULL; });
}

// Receive i: MPI_Irecv, or with PersistentRequests (the settled path: one MPI message each)
// MPI_Recv_init, to be started by every post.
template <class Reqs> void Exchange::start_recv(std::size_t i, detail::ByteBuffer& buf, Reqs& reqs) {
  const Transfer& t = m_plan.recvs[i];
  const auto irecv = [&](void* data, std::size_t count, MPI_Datatype type, int tag) {
    if constexpr (std::is_same_v<Reqs, PersistentRequests>)
      HPF_MPI_CHECK(
          MPI_Recv_init(data, static_cast<int>(count), type, t.peer, tag, m_comm.get(), reqs.add()));
    else
      HPF_MPI_CHECK(MPI_Irecv(data, static_cast<int>(count), type, t.peer, tag, m_comm.get(), reqs.add()));
  };
  if (boxed_recv(i)) { // in the mailbox: no MPI message
    if constexpr (std::is_same_v<Reqs, PersistentRequests>) reqs.add_null();
    return;
  }
  if (carries_recv(i)) { // the header, then the data; room for any message on the tag (never truncated)
    buf.resize(detail::agreement_message_max_bytes);
    irecv(buf.data(), buf.size(), MPI_BYTE, tags::agreement.base);
    return;
  }
  if (recv_segment(i) != nullptr) { // the data is in the segment: MPI brings the notice
    irecv(nullptr, 0, MPI_BYTE, m_tag);
    return;
  }
  if (const MPI_Datatype type = recv_type(i); type != MPI_DATATYPE_NULL) {
    irecv(m_recv_base, 1, type, m_tag);
    return;
  }
  buf.resize(t.bytes);
  if constexpr (std::is_same_v<Reqs, PersistentRequests>)
    irecv(buf.data(), t.bytes, MPI_BYTE, m_tag);
  else
    irecv_bytes(m_comm, buf.data(), t.bytes, t.peer, m_tag, reqs);
}

void Exchange::pack_send(std::size_t i, detail::ByteBuffer& buf) {
  if (std::byte* out = pack_target(i, buf)) m_pack(i, out);
  pack_done(i);
}

std::byte* Exchange::pack_target(std::size_t i, detail::ByteBuffer& buf) {
  if (boxed_send(i)) return m_box->open(m_plan.sends[i].peer, m_box_round, {m_hash, 0}); // taking part
  if (carries_send(i)) {
    buf.resize(detail::agreement_header_bytes + m_plan.sends[i].bytes);
    const detail::AgreementHeader header{m_hash, 0}; // taking part
    std::memcpy(buf.data(), &header, sizeof header);
    return buf.data() + detail::agreement_header_bytes;
  }
  if (send_type(i) != MPI_DATATYPE_NULL) return nullptr; // MPI reads it in place
  if (detail::SharedSegment* seg = send_segment(i)) {
    // The receiver must have unpacked the previous execution's contents; MPI is kept progressing
    // meanwhile (its notice of this one may need this rank's progress on some transports).
    const std::uint64_t done = m_send_uses[i]++;
    while (seg->consumed().load(std::memory_order_acquire) < done) {
      int flag = 0;
      HPF_MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, m_comm.get(), &flag, MPI_STATUS_IGNORE));
      std::this_thread::yield();
    }
    detail::SegmentPool::instance().count_pack();
    return seg->data();
  }
  buf.resize(m_plan.sends[i].bytes);
  return buf.data();
}

void Exchange::pack_done(std::size_t i) {
  if (boxed_send(i)) {
    m_box->publish(m_plan.sends[i].peer, m_box_round, m_plan.sends[i].bytes);
    return;
  }
  if (carries_send(i) || send_type(i) != MPI_DATATYPE_NULL) return;
  if (detail::SharedSegment* seg = send_segment(i))
    seg->produced().store(m_send_uses[i], std::memory_order_release); // before the notice goes out
}

// Send i: MPI_Isend, or with PersistentRequests MPI_Send_init (as start_recv).
template <class Reqs> void Exchange::start_send(std::size_t i, const detail::ByteBuffer& buf, Reqs& reqs) {
  const Transfer& t = m_plan.sends[i];
  const auto isend = [&](const void* data, std::size_t count, MPI_Datatype type, int tag) {
    if constexpr (std::is_same_v<Reqs, PersistentRequests>)
      HPF_MPI_CHECK(
          MPI_Send_init(data, static_cast<int>(count), type, t.peer, tag, m_comm.get(), reqs.add()));
    else
      HPF_MPI_CHECK(MPI_Isend(data, static_cast<int>(count), type, t.peer, tag, m_comm.get(), reqs.add()));
  };
  if (boxed_send(i)) { // in the mailbox: no MPI message
    if constexpr (std::is_same_v<Reqs, PersistentRequests>) reqs.add_null();
    return;
  }
  if (carries_send(i)) {
    isend(buf.data(), buf.size(), MPI_BYTE, tags::agreement.base);
    return;
  }
  if (send_segment(i) != nullptr) { // packed into the segment: only the notice goes through MPI
    isend(nullptr, 0, MPI_BYTE, m_tag);
    return;
  }
  if (const MPI_Datatype type = send_type(i); type != MPI_DATATYPE_NULL) {
    isend(m_send_base, 1, type, m_tag);
    return;
  }
  if constexpr (std::is_same_v<Reqs, PersistentRequests>)
    isend(buf.data(), t.bytes, MPI_BYTE, m_tag);
  else
    isend_bytes(m_comm, buf.data(), t.bytes, t.peer, m_tag, reqs);
}

void Exchange::finish_recv(std::size_t i, const detail::ByteBuffer& buf, std::size_t got) {
  if (const std::byte* in = recv_source(i, buf, got)) m_unpack(i, in);
  recv_done(i);
}

const std::byte* Exchange::recv_source(std::size_t i, const detail::ByteBuffer& buf, std::size_t got) {
  if (boxed_recv(i)) return m_box->payload_from(m_plan.recvs[i].peer, m_box_round);
  if (carries_recv(i)) // its length and header were checked on arrival (note_arrival)
    return buf.data() + detail::agreement_header_bytes;
  if (recv_type(i) != MPI_DATATYPE_NULL) return nullptr; // MPI wrote it in place
  const Transfer& t = m_plan.recvs[i];
  // A message this rank offered a segment for, in the first two executions: a notice when its sender
  // packed into the segment (it will from now on), else the data.
  if (i < m_recv_segs.size() && m_recv_segs[i] && m_recv_shared[i] == 0 && got == 0) m_recv_shared[i] = 1;
  detail::SharedSegment* seg = recv_segment(i);
  if (m_shm_min != SIZE_MAX && got != SIZE_MAX) // executors out of step between ranks show here
    detail::require(got == (seg != nullptr ? 0 : t.bytes), "Exchange: receive ", i, " from rank ", t.peer,
                    " brought ", got, " bytes; expected ", seg != nullptr ? 0 : t.bytes,
                    " (the exchanges of the two ranks are out of step: every rank must run the same "
                    "executors in the same order)");
  if (seg != nullptr) {
    const std::uint64_t packed = seg->produced().load(std::memory_order_acquire);
    const std::uint64_t unpacked = seg->consumed().load(std::memory_order_relaxed);
    detail::require(packed == unpacked + 1, "Exchange: receive ", i, " from rank ", t.peer,
                    " found its shared-memory segment packed ", packed, " times after ", unpacked,
                    " unpacks; expected one more (the exchanges of the two ranks are out of step)");
    return seg->data();
  }
  return buf.data();
}

void Exchange::recv_done(std::size_t i) {
  if (carries_recv(i) || recv_type(i) != MPI_DATATYPE_NULL) return;
  if (detail::SharedSegment* seg = recv_segment(i))
    seg->consumed().fetch_add(1, std::memory_order_release); // the sender may pack the next one
}

std::size_t Exchange::received_bytes(std::size_t i, const Requests& reqs) const {
  if (boxed_recv(i)) return m_plan.recvs[i].bytes; // no request: checked on arrival
  return m_plan.recvs[i].bytes <= max_message_bytes ? reqs.received_bytes(0) : SIZE_MAX;
}

void Exchange::post(PackFn pack, UnpackFn unpack, const void* send_base, void* recv_base) {
  detail::require(!m_posted, "Exchange::post: the previous post() has not been completed by wait()");
  m_carrying = false;
  start(std::move(pack), std::move(unpack), send_base, recv_base);
}

void Exchange::set_batch(PackManyFn pack_many, UnpackManyFn unpack_many) {
  detail::require(!m_posted, "Exchange::set_batch: the previous post() has not been completed by wait()");
  m_pack_many = std::move(pack_many);
  m_unpack_many = std::move(unpack_many);
}

void Exchange::set_after_sends(std::function<void()> after) {
  detail::require(!m_posted,
                  "Exchange::set_after_sends: the previous post() has not been completed by wait()");
  m_after_sends = std::move(after);
}

void Exchange::post_agreeing(std::uint64_t hash, PackFn pack, UnpackFn unpack, const void* send_base,
                             void* recv_base) {
  if (m_mode != ExecMode::AllAtOnce) // not require(): its message would be built on every call
    detail::fail("Exchange::post_agreeing: mode ", to_string(m_mode),
                 " cannot carry an agreement; expected all-at-once");
  detail::require(!m_posted, "Exchange::post_agreeing: the previous post() has not been completed by wait()");
  if (!m_carry_planned) plan_carrying();
  m_box = detail::AgreementMailbox::of(m_comm);
  m_hash = hash;
  m_header_state = 0;
  m_carried_differ = false;
  m_carrying = true;
  try {
    // Requests made for carrying posts stand on buffers of the right sizes, which nothing has
    // resized since (another kind of post drops them first): nothing to prepare.
    if (!(m_settled_built && m_settled_carrying)) prepare_agreeing();
  } catch (...) {
    m_carrying = false; // nothing was sent: posted() is false, and the caller may refuse the round
    throw;
  }
  // The headers alone first, then every carried message with the rest (AllAtOnce starts every send
  // in post()): nothing below completes a receive, so every header is out before anything can fail.
  m_headers.post(m_comm, hash, m_header_to, m_header_from);
  m_box_round = m_headers.round();
  start(std::move(pack), std::move(unpack), send_base, recv_base);
}

// What may fail locally in post_agreeing (the buffers of this execution, the first execution's
// shared-memory segments), before any header goes out: a rank whose own part fails then has sent
// nothing, and DistArray::redistribute refuses the round. A send that waits for its peer's offer
// (the first execution) learns only then whether it needs a buffer: that one is not reserved here.
void Exchange::prepare_agreeing() {
  if (m_shm_min != SIZE_MAX && m_shm_execs == 0) make_offers();
  const std::size_t nr = m_plan.recvs.size();
  const std::size_t ns = m_plan.sends.size();
  m_recv_bufs.resize(nr);
  m_send_bufs.resize(ns);
  const auto reserve = [](detail::ByteBuffer& buf, std::size_t bytes, const char* which, int peer) {
    try {
      buf.resize(bytes);
    } catch (const std::bad_alloc&) {
      detail::fail("Exchange: cannot allocate the buffer of a message ", which, " rank ", peer, " (", bytes,
                   " bytes)");
    }
  };
  for (std::size_t i = 0; i < nr; ++i) {
    const int peer = m_plan.recvs[i].peer;
    if (boxed_recv(i)) continue;
    if (carries_recv(i))
      reserve(m_recv_bufs[i], detail::agreement_message_max_bytes, "from", peer);
    else if (recv_segment(i) == nullptr && recv_type(i) == MPI_DATATYPE_NULL)
      reserve(m_recv_bufs[i], m_plan.recvs[i].bytes, "from", peer);
  }
  for (std::size_t i = 0; i < ns; ++i) {
    const std::size_t bytes = m_plan.sends[i].bytes;
    const int peer = m_plan.sends[i].peer;
    if (boxed_send(i)) continue;
    if (carries_send(i))
      reserve(m_send_bufs[i], detail::agreement_header_bytes + bytes, "to", peer);
    else if (send_type(i) == MPI_DATATYPE_NULL && send_segment(i) == nullptr && !shm_offered(bytes))
      reserve(m_send_bufs[i], bytes, "to", peer);
  }
}

// Which messages carry the header: the only one to (from) its peer, packed on both ends, at most
// carry_max_bytes and under the shared-memory threshold. The plan and the threshold never change, so the two
// ends of a message decide alike whenever their arguments agree (and a difference shows either way).
void Exchange::plan_carrying() {
  const auto n = static_cast<std::size_t>(m_comm.size());
  const int me = m_comm.rank();
  const auto decide = [&](const std::vector<Transfer>& list, std::vector<char>& carries,
                          std::vector<char>& alone, std::vector<std::vector<std::size_t>>& of_peer) {
    of_peer.assign(n, {});
    for (std::size_t i = 0; i < list.size(); ++i)
      if (list[i].peer >= 0 && static_cast<std::size_t>(list[i].peer) < n)
        of_peer[static_cast<std::size_t>(list[i].peer)].push_back(i);
    alone.assign(n, 1);
    alone[static_cast<std::size_t>(me)] = 0;
    carries.assign(list.size(), 0);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Transfer& t = list[i];
      if (t.peer == me || t.peer < 0 || static_cast<std::size_t>(t.peer) >= n) continue;
      if (of_peer[static_cast<std::size_t>(t.peer)].size() != 1 || t.bytes == 0 ||
          t.bytes > carry_max_bytes || shm_candidate(t.bytes))
        continue;
      carries[i] = 1;
      alone[static_cast<std::size_t>(t.peer)] = 0;
    }
  };
  decide(m_plan.sends, m_send_carries, m_header_to, m_sends_to);
  m_some_send_carries =
      std::any_of(m_send_carries.begin(), m_send_carries.end(), [](char c) { return c != 0; });
  decide(m_plan.recvs, m_recv_carries, m_header_from, m_recvs_from);
  m_carry_planned = true;
}

bool Exchange::note_arrival(std::size_t i, bool block) {
  if (boxed_recv(i)) {
    const Transfer& t = m_plan.recvs[i];
    const detail::AgreementMailbox::Slot* slot = m_box->arrived(t.peer, m_box_round, block);
    if (slot == nullptr) return false;
    if (m_settled_now) {
      m_got[i] = detail::agreement_header_bytes + slot->bytes;
      --m_settled_left;
    }
    m_arrived[i] = 1;
    // A peer with other arguments may send another length, the header alone, or another hash.
    if (slot->bytes != t.bytes || slot->header.hash != m_hash || slot->header.refused != 0)
      m_carried_differ = true;
    // Consumed on arrival: its sender writes this slot again two rounds on, which it reaches only
    // after this rank's next round has begun, so after this one's unpack (or its exception).
    m_box->consume(t.peer, m_box_round);
    return true;
  }
  std::size_t got = 0;
  if (m_settled_now) {
    if (!m_precvs.test(i, block, &got)) return false;
    m_got[i] = got;
    --m_settled_left;
  } else {
    Requests& reqs = m_rreq[i];
    if (block)
      reqs.wait_all();
    else if (!reqs.test())
      return false;
    if (carries_recv(i)) got = reqs.received_bytes(0);
  }
  m_arrived[i] = 1;
  if (carries_recv(i)) { // a peer with other arguments may send another length (never a longer one
                         // than the buffer holds) or another hash
    bool same = got == detail::agreement_header_bytes + m_plan.recvs[i].bytes;
    if (same) {
      detail::AgreementHeader header;
      std::memcpy(&header, m_recv_bufs[i].data(), sizeof header);
      same = header.hash == m_hash && header.refused == 0;
    }
    if (!same) m_carried_differ = true;
  }
  return true;
}

bool Exchange::headers_agreed() {
  detail::require(m_posted && m_carrying, "Exchange::headers_agreed: no post_agreeing() is pending");
  if (m_header_state == 0) {
    // The headers that come alone first, as they arrive: each peer whose header agrees gets its
    // receives posted right away (its large messages wait for them).
    bool same = true;
    for (int peer = m_headers.next(same); peer >= 0; peer = m_headers.next(same))
      if (same) post_held_from(peer);
    for (std::size_t i = 0; i < m_plan.recvs.size(); ++i) // all posted by post_flow (AllAtOnce)
      if (carries_recv(i) && m_arrived[i] == 0) (void)note_arrival(i, true);
    const bool alone = m_headers.agreed();
    m_header_state = alone && !m_carried_differ ? 1 : -1;
    if (m_header_state == 1) { // the rest of the held receives, offers first
      if (m_offers_held) post_offer_receives(-1);
      if (m_settled_now) {
        for (std::size_t i = 0; i < m_plan.recvs.size(); ++i)
          if (m_recv_posted[i] == 0) {
            m_precvs.start(i);
            m_recv_posted[i] = 1;
          }
      } else {
        (void)progress_flow(false);
      }
    }
  }
  return m_header_state == 1;
}

void Exchange::start(PackFn pack, UnpackFn unpack, const void* send_base, void* recv_base) {
  const auto in_place = [](const std::vector<MPI_Datatype>& types) {
    return std::any_of(types.begin(), types.end(), [](MPI_Datatype t) { return t != MPI_DATATYPE_NULL; });
  };
  detail::require(send_base != nullptr || !in_place(m_send_types),
                  "Exchange::post: sends are in place (set_in_place) but send_base is null");
  detail::require(recv_base != nullptr || !in_place(m_recv_types),
                  "Exchange::post: receives are in place (set_in_place) but recv_base is null");
  m_send_base = send_base;
  m_recv_base = recv_base;
  m_pack = std::move(pack);
  m_unpack = std::move(unpack);
  m_batch_pack_due = static_cast<bool>(m_pack_many);
  m_after_sends_due = static_cast<bool>(m_after_sends) && calls_after_sends(m_mode);
  // Another path may resize the buffers the settled path's persistent requests point into (a carried
  // header's receive is longer): they are made again when it comes back.
  m_settled_now = settled();
  if (!m_settled_now && (m_settled_built || m_spare_built)) drop_settled();
  m_posted = true;
  m_ever_posted = true;
  for (const auto& seg : m_recv_segs) // until this execution completes (see set_poolable)
    if (seg) seg->set_poolable(false);
  const bool offers = m_shm_min != SIZE_MAX && m_shm_execs == 0;
  if (offers) post_offers();
  switch (m_mode) {
  case ExecMode::StepSynchronous:
  case ExecMode::Handshake:
    m_next_step = 0;
    m_si = 0;
    m_ri = 0;
    m_step_open = false;
    // With offers in flight, every step starts in wait() or test(): a send may wait there for its
    // offer, and no other exchange's message to the same peer can pass it (on every rank alike).
    if (!offers) progress_steps(false);
    break;
  case ExecMode::AllAtOnce:
  case ExecMode::Pipelined:
    if (m_settled_now)
      post_settled();
    else
      post_flow();
    break;
  case ExecMode::Alltoallv:
    run_alltoallv();
    break;
  }
}

void Exchange::wait() {
  detail::require(m_posted, "Exchange::wait: nothing was posted");
  if (m_carrying && !headers_agreed()) {
    abandon();
    detail::fail("Exchange::wait: the ranks passed different hashes to post_agreeing(); the exchange was "
                 "taken back (its communicator must not be used again)");
  }
  switch (m_mode) {
  case ExecMode::StepSynchronous:
  case ExecMode::Handshake:
    progress_steps(true);
    break;
  case ExecMode::AllAtOnce:
  case ExecMode::Pipelined:
    if (m_settled_now)
      progress_settled(true);
    else
      progress_flow(true);
    break;
  case ExecMode::Alltoallv:
    if (m_fallback) progress_flow(true);
    break;
  }
  if (shm_setting_up()) finish_offers();
  for (const auto& seg : m_recv_segs)
    if (seg) seg->set_poolable(true);
  m_posted = false;
}

void Exchange::abandon() {
  if (!abandonable())
    detail::fail("Exchange::abandon: mode ", to_string(m_mode),
                 " cannot be abandoned; expected all-at-once or pipelined");
  if (!m_posted) return;
  if (m_settled_now) {
    m_precvs.cancel_receives();
    m_psends.release_sends();
    drop_settled(); // and the spare set's, inactive
  }
  m_settled_known = false;
  for (Requests& r : m_rreq) r.cancel_receives();
  for (Requests& r : m_sreq) r.release_sends();
  for (Requests& r : m_offer_recvs) r.cancel_receives();
  m_offer_sends.release_sends();
  if (m_carrying) m_headers.abandon();
  m_carrying = false;
  m_offers_held = false;
  m_shm_min = SIZE_MAX; // no further offers: the communicator is about to be freed
  m_send_segs.clear();
  m_recv_segs.clear();
  m_recv_shared.clear();
  m_posted = false;
}

bool Exchange::test() {
  detail::require(m_posted, "Exchange::test: nothing was posted");
  detail::require(!m_carrying || m_header_state == 1,
                  "Exchange::test: after post_agreeing(), headers_agreed() must have returned true first");
  const bool flow = !m_settled_now && (m_mode == ExecMode::AllAtOnce || m_mode == ExecMode::Pipelined ||
                                       (m_mode == ExecMode::Alltoallv && m_fallback));
  if (m_settled_now && !progress_settled(false)) return false;
  const bool steps = m_mode == ExecMode::StepSynchronous || m_mode == ExecMode::Handshake;
  if (flow && !progress_flow(false)) return false;
  if (steps && !progress_steps(false)) return false;
  if (m_shm_min != SIZE_MAX && m_shm_execs == 0) { // every offer in, every offer sent
    for (std::size_t i = 0; i < m_offer_pending.size(); ++i)
      if (!offer_in(i, false)) return false;
    if (!m_offer_sends.test()) return false;
  }
  wait();
  return true;
}

// The step modes: per step at most one send and one receive of this rank, completed before the next
// step starts. Nothing blocks until wait() (or a blocking test), so overlapping exchanges cannot
// wait on each other.
bool Exchange::progress_steps(bool block) {
  while (true) {
    run_after_sends(); // a deferred first send calls it in finish_step
    if (m_step_open && !finish_step(block)) return false;
    if (m_next_step == m_steps.size()) return true;
    start_step();
  }
}

// set_after_sends: the callback, once the sends this post() starts first have started (every send all
// at once; the first step's in StepSynchronous, or none when that step has no send; Handshake: once
// its first step has started, since its send waits for the receiver's signal).
void Exchange::run_after_sends() {
  if (!m_after_sends_due) return;
  bool started = false;
  if (m_mode == ExecMode::AllAtOnce)
    started = !m_batch_pack_due && m_sstarted == m_plan.sends.size();
  else if (m_mode == ExecMode::Handshake) // its first send waits for a signal: the work overlaps that
    started = m_steps.empty() || m_next_step >= 1;
  else
    started = m_steps.empty() || m_next_step > 1 ||
              (m_next_step == 1 && (!m_step_open || !m_step_sending || m_send_started));
  if (!started) return;
  m_after_sends_due = false;
  m_after_sends();
}

void Exchange::start_step() {
  const int step = m_steps[m_next_step++];
  m_step_sending = m_si < m_plan.sends.size() && m_plan.sends[m_si].step == step;
  m_step_receiving = m_ri < m_plan.recvs.size() && m_plan.recvs[m_ri].step == step;
  m_send_started = false;
  m_step_open = true;
  if (m_step_receiving) {
    start_recv(m_ri, m_recv_buf, m_step_reqs);
    if (m_mode == ExecMode::Handshake) // S1 of seed 001: tell the sender its receive is posted
      HPF_MPI_CHECK(MPI_Isend(nullptr, 0, MPI_BYTE, m_plan.recvs[m_ri].peer, m_tag + 1, m_comm.get(),
                              m_step_reqs.add()));
  }
  if (m_step_sending && offer_in(m_si, false)) { // else it waits for its receiver's offer
    pack_send(m_si, m_send_buf);
    if (m_mode == ExecMode::Handshake) {
      HPF_MPI_CHECK(MPI_Irecv(nullptr, 0, MPI_BYTE, m_plan.sends[m_si].peer, m_tag + 1, m_comm.get(),
                              m_ready_req.add()));
    } else {
      start_send(m_si, m_send_buf, m_step_reqs);
      m_send_started = true;
    }
  }
}

bool Exchange::finish_step(bool block) {
  if (m_step_sending && !m_send_started) {
    if (m_mode == ExecMode::Handshake) { // send on the receiver's signal
      if (block) {
        m_ready_req.wait_all();
      } else if (!m_ready_req.test()) {
        return false;
      }
    } else { // pack once the receiver's offer is in (first execution with shared memory)
      if (!offer_in(m_si, block)) return false;
      pack_send(m_si, m_send_buf);
    }
    start_send(m_si, m_send_buf, m_step_reqs);
    m_send_started = true;
    run_after_sends(); // before this step's wait
  }
  if (block) {
    m_step_reqs.wait_all();
  } else if (!m_step_reqs.test()) {
    return false;
  }
  if (m_step_receiving) { // the step's first request (start_step)
    finish_recv(m_ri, m_recv_buf, received_bytes(m_ri, m_step_reqs));
    ++m_ri;
  }
  if (m_step_sending) ++m_si;
  m_step_open = false;
  return true;
}

// AllAtOnce with set_batch: every send's buffer or segment is made ready (the first execution's
// offers that are in decide, as in pack_send), then pack_many fills them all in one pass over the
// caller's memory, and the sends start. Once per post().
void Exchange::start_sends_batched() {
  m_batch_pack_due = false;
  const std::size_t ns = m_plan.sends.size();
  m_batch_sends.clear();
  m_batch_outs.clear();
  for (std::size_t i = m_sstarted; i < ns; ++i) {
    (void)offer_in(i, false);
    if (std::byte* out = pack_target(i, m_send_bufs[i])) {
      m_batch_sends.push_back(i);
      m_batch_outs.push_back(out);
    }
  }
  m_pack_many(m_batch_sends, m_batch_outs);
  for (std::size_t i = m_sstarted; i < ns; ++i) {
    pack_done(i);
    start_send(i, m_send_bufs[i], m_sreq[i]);
  }
  m_sstarted = ns;
}

// AllAtOnce with set_batch, once every receive has arrived: unpack_many empties them all in one pass.
template <class Got> void Exchange::unpack_batched(Got got) {
  const std::size_t nr = m_plan.recvs.size();
  m_batch_recvs.clear();
  m_batch_ins.clear();
  for (std::size_t i = m_rdone; i < nr; ++i)
    if (const std::byte* in = recv_source(i, m_recv_bufs[i], got(i))) {
      m_batch_recvs.push_back(i);
      m_batch_ins.push_back(in);
    }
  m_unpack_many(m_batch_recvs, m_batch_ins);
  for (std::size_t i = m_rdone; i < nr; ++i) recv_done(i);
  m_rdone = nr;
}

// Whether this post() takes the settled path (see the header). A message past INT_MAX bytes takes
// several requests and keeps an exchange on the flow path (a long message, whose time the requests'
// set-up does not show in).
bool Exchange::settled() {
  if (m_mode != ExecMode::AllAtOnce || shm_setting_up()) return false;
  if (!m_settled_known) {
    const auto single = [](const std::vector<Transfer>& list) {
      return std::all_of(list.begin(), list.end(),
                         [](const Transfer& t) { return t.bytes <= max_message_bytes; });
    };
    const auto any = [](const std::vector<MPI_Datatype>& types) {
      return std::any_of(types.begin(), types.end(), [](MPI_Datatype t) { return t != MPI_DATATYPE_NULL; });
    };
    // MPI_Startall starts its requests "in some arbitrary order" (MPI 3.1 Sec. 3.9): two messages
    // with one peer on one tag must start one by one, in plan order, to be matched in that order.
    const auto one_per_peer = [](const std::vector<Transfer>& list) {
      std::vector<int> peers(list.size());
      std::transform(list.begin(), list.end(), peers.begin(), [](const Transfer& t) { return t.peer; });
      std::sort(peers.begin(), peers.end());
      return std::adjacent_find(peers.begin(), peers.end()) == peers.end();
    };
    m_settled_ok = single(m_plan.sends) && single(m_plan.recvs);
    m_settled_start_all = one_per_peer(m_plan.sends) && one_per_peer(m_plan.recvs);
    m_settled_recvs_in_place = any(m_recv_types); // some may be packed: rebound all the same
    m_settled_sends_in_place = any(m_send_types);
    m_settled_known = true;
  }
  return m_settled_ok;
}

// The persistent requests are made once (every receive first, then every send, in plan order, as the
// flow path posts them) and started by every post: receives, then the packs, then the sends (in step
// order), as the flow path does.
void Exchange::post_settled() {
  const std::size_t nr = m_plan.recvs.size();
  const std::size_t ns = m_plan.sends.size();
  // post_agreeing's messages that carry the header are other messages (on another tag, with room
  // for the header, in buffers of other sizes): a post that carries and one that does not make their
  // requests each.
  if (m_settled_built && m_settled_carrying != m_carrying) drop_settled();
  // In place, a request is bound to the base address it was made for. The set of the bases before
  // is kept as the spare: a post at other bases swaps it in, and makes a set of its own when the
  // spare was made for others too (which then replaces the older of the two).
  const auto other_bases = [&](const void* recv_base, const void* send_base) {
    return (m_settled_recvs_in_place && m_recv_base != recv_base) ||
           (m_settled_sends_in_place && m_send_base != send_base);
  };
  if (m_settled_built && other_bases(m_settled_recv_base, m_settled_send_base)) {
    std::swap(m_precvs, m_spare_precvs);
    std::swap(m_psends, m_spare_psends);
    std::swap(m_settled_recv_base, m_spare_recv_base);
    std::swap(m_settled_send_base, m_spare_send_base);
    std::swap(m_settled_built, m_spare_built);
    if (m_settled_built && other_bases(m_settled_recv_base, m_settled_send_base)) {
      m_precvs.clear();
      m_psends.clear();
      m_settled_built = false;
    }
  }
  if (!m_settled_built) {
    ++m_settled_sets_made;
    m_recv_bufs.resize(nr);
    m_send_bufs.resize(ns);
    for (std::size_t i = 0; i < nr; ++i) start_recv(i, m_recv_bufs[i], m_precvs);
    for (std::size_t i = 0; i < ns; ++i) {
      if (send_segment(i) == nullptr && send_type(i) == MPI_DATATYPE_NULL && !boxed_send(i)) // packed here
        m_send_bufs[i].resize((carries_send(i) ? detail::agreement_header_bytes : 0) + m_plan.sends[i].bytes);
      start_send(i, m_send_bufs[i], m_psends);
    }
    m_got.assign(nr, 0);
    m_settled_recv_base = m_recv_base;
    m_settled_send_base = m_send_base;
    m_settled_carrying = m_carrying;
    m_settled_built = true;
  }
  m_settled_left = nr;
  if (m_carrying) { // the receives that carry headers now, the others once their peers agree
    m_arrived.assign(nr, 0);
    m_unpacked.assign(nr, 0);
    m_recv_posted.assign(nr, 0);
    for (std::size_t i = 0; i < nr; ++i)
      if (carries_recv(i)) {
        m_precvs.start(i);
        m_recv_posted[i] = 1;
      }
  } else if (m_settled_start_all) {
    m_precvs.start_all();
  } else {
    for (std::size_t i = 0; i < nr; ++i) m_precvs.start(i);
  }
  m_settled_unpacked = !m_unpack_many;
  m_settled_sent = false;
  m_rdone = 0;
  if (m_batch_pack_due) {
    m_batch_pack_due = false;
    m_batch_sends.clear();
    m_batch_outs.clear();
    for (std::size_t i = 0; i < ns; ++i)
      if (std::byte* out = pack_target(i, m_send_bufs[i])) {
        m_batch_sends.push_back(i);
        m_batch_outs.push_back(out);
      }
    m_pack_many(m_batch_sends, m_batch_outs);
    for (std::size_t i = 0; i < ns; ++i) pack_done(i);
    if (m_settled_start_all)
      m_psends.start_all();
    else
      for (std::size_t i = 0; i < ns; ++i) m_psends.start(i);
  } else {
    for (std::size_t i = 0; i < ns; ++i) {
      pack_send(i, m_send_bufs[i]);
      m_psends.start(i);
    }
  }
  m_sstarted = ns;
  run_after_sends();
}

// Receives complete in any order (MPI_Waitsome): each is unpacked as it arrives, or all in one
// unpack_many call once the last is in (set_batch); then the sends complete.
bool Exchange::progress_settled(bool block) {
  if (m_carrying) // the receives that carried headers arrived in headers_agreed()
    for (std::size_t i = 0; i < m_arrived.size(); ++i)
      if (m_arrived[i] != 0 && m_unpacked[i] == 0) {
        if (!m_unpack_many) finish_recv(i, m_recv_bufs[i], m_got[i]);
        m_unpacked[i] = 1;
      }
  while (m_settled_left > 0) {
    const std::span<const int> done = m_precvs.some(block, &m_some_got);
    if (done.empty()) {
      if (!block) return false;
      detail::fail("Exchange: ", m_settled_left, " receives pending and none of them active");
    }
    for (std::size_t k = 0; k < done.size(); ++k) {
      const auto i = static_cast<std::size_t>(done[k]);
      if (m_unpack_many)
        m_got[i] = m_some_got[k];
      else
        finish_recv(i, m_recv_bufs[i], m_some_got[k]);
    }
    m_settled_left -= done.size();
  }
  if (!m_settled_unpacked) {
    unpack_batched([this](std::size_t i) { return m_got[i]; });
    m_settled_unpacked = true;
  }
  if (!m_settled_sent) {
    if (block)
      m_psends.wait_all();
    else if (!m_psends.test_all())
      return false;
    m_settled_sent = true;
  }
  return true;
}

void Exchange::drop_settled() noexcept {
  m_precvs.clear();
  m_psends.clear();
  m_settled_built = false;
  m_spare_precvs.clear();
  m_spare_psends.clear();
  m_spare_built = false;
}

// The flow modes. AllAtOnce posts everything at once and unpacks in arrival order; Pipelined gates
// each send on the receives and sends of earlier steps and unpacks in step order (see the header).
void Exchange::post_flow() {
  const std::size_t nr = m_plan.recvs.size();
  const std::size_t ns = m_plan.sends.size();
  m_recv_bufs.resize(nr);
  m_send_bufs.resize(ns);
  m_rreq.resize(nr);
  m_sreq.resize(ns);
  m_arrived.assign(nr, 0);
  m_unpacked.assign(nr, 0);
  m_sent.assign(ns, 0);
  m_recv_posted.assign(nr, 0);
  m_rposted = m_rarrived = m_rdone = m_sstarted = m_sdone = 0;
  if (m_carrying)
    for (std::size_t i = 0; i < nr; ++i)
      if (carries_recv(i)) start_recv(i, m_recv_bufs[i], m_rreq[i]);
  progress_flow(false);
}

bool Exchange::progress_flow(bool block) {
  const bool pipelined = m_mode == ExecMode::Pipelined;
  const auto& recvs = m_plan.recvs;
  const auto& sends = m_plan.sends;
  const std::size_t nr = recvs.size();
  const std::size_t ns = sends.size();
  while (true) {
    // Note arrivals, then post receives (Pipelined: at most `window` in flight, in step order), so
    // that the next input is already on its way while this one is unpacked (seed 002, Sec. 3.1).
    for (std::size_t i = m_rarrived; i < m_rposted; ++i)
      if (m_arrived[i] == 0) (void)note_arrival(i, false);
    while (m_rarrived < m_rposted && m_arrived[m_rarrived] != 0) ++m_rarrived;
    // post_agreeing: the receives that carry headers are posted by post_flow, the others once their
    // peer's header has agreed (post_held_from) or every header has (a peer with other arguments may
    // send longer messages; none may be truncated).
    const std::size_t window = pipelined && m_window > 0 ? m_window : nr;
    const bool held = m_carrying && m_header_state != 1;
    while (!held && m_rposted < nr && m_rposted - m_rarrived < window) {
      if (!carries_recv(m_rposted) && m_recv_posted[m_rposted] == 0)
        start_recv(m_rposted, m_recv_bufs[m_rposted], m_rreq[m_rposted]);
      ++m_rposted;
    }
    // Unpack what has arrived: Pipelined in step order, AllAtOnce in any order (with set_batch, all
    // at once when the last has arrived).
    if (!pipelined && m_unpack_many) {
      if (m_rarrived == nr && m_rdone < nr) {
        std::fill(m_unpacked.begin() + static_cast<std::ptrdiff_t>(m_rdone), m_unpacked.end(), 1);
        unpack_batched([this](std::size_t i) { return received_bytes(i, m_rreq[i]); });
      }
    } else {
      for (std::size_t i = m_rdone; i < m_rposted; ++i) {
        if (m_unpacked[i] == 0 && m_arrived[i] != 0) {
          finish_recv(i, m_recv_bufs[i], received_bytes(i, m_rreq[i]));
          m_unpacked[i] = 1;
        }
        if (m_unpacked[i] == 0 && pipelined) break;
      }
    }
    while (m_rdone < nr && m_unpacked[m_rdone] != 0) ++m_rdone;
    // Sends complete in any order; m_sdone is the first one not known to be complete.
    for (std::size_t i = m_sdone; i < m_sstarted; ++i)
      if (m_sent[i] == 0 && m_sreq[i].test()) m_sent[i] = 1;
    while (m_sdone < m_sstarted && m_sent[m_sdone] != 0) ++m_sdone;
    // Start sends: AllAtOnce all of them (with set_batch, packed in one call); Pipelined those whose
    // earlier steps are done.
    if (!pipelined && m_batch_pack_due) {
      bool ready = true;
      for (std::size_t i = m_sstarted; i < ns && ready; ++i) ready = send_may_start(i, block);
      if (ready) start_sends_batched();
    }
    const int recv_barrier = m_rdone < nr ? recvs[m_rdone].step : INT_MAX;
    const int send_barrier = m_sdone < m_sstarted ? sends[m_sdone].step : INT_MAX;
    while (
        !m_batch_pack_due && m_sstarted < ns &&
        (!pipelined || (sends[m_sstarted].step <= recv_barrier && sends[m_sstarted].step <= send_barrier))) {
      // First execution: the segment is used if its offer is in already; a send waits for it only
      // under post_agreeing (send_may_start: other exchanges in flight together on one tag rely on
      // every send starting in post()).
      if (!send_may_start(m_sstarted, block)) break;
      (void)offer_in(m_sstarted, false);
      pack_send(m_sstarted, m_send_bufs[m_sstarted]);
      start_send(m_sstarted, m_send_bufs[m_sstarted], m_sreq[m_sstarted]);
      ++m_sstarted;
    }
    // The caller's work after the sends, once every send has started (in post(), or in wait() or
    // test() when sends waited for their receivers' offers), before any wait for a receive.
    if (!pipelined) run_after_sends();
    if (m_rdone == nr && m_sdone == ns) return true;
    if (!block) return false;
    // Block on the oldest unfinished operation (the receive first on a tie): every one of them has
    // its matching operation started or startable on its peer, since steps only depend on earlier steps.
    const bool recv_first =
        m_rdone < nr && (m_sdone == m_sstarted || recvs[m_rdone].step <= sends[m_sdone].step);
    if (recv_first) {
      std::size_t i = m_rdone;
      if (!pipelined) // AllAtOnce: any pending receive will do; take the first not yet arrived
        while (i < m_rposted && (m_unpacked[i] != 0 || m_arrived[i] != 0)) ++i;
      if (i < m_rposted && m_unpacked[i] == 0 && m_arrived[i] == 0)
        (void)note_arrival(i, true); // the next receive is posted by the next pass
    } else if (m_sdone < m_sstarted) {
      m_sreq[m_sdone].wait_all();
      m_sent[m_sdone] = 1;
    }
  }
}

// Collective (the first post() of an Alltoallv exchange): counts and displacements per peer, and
// whether they fit MPI_Alltoallv's ints on every rank.
void Exchange::setup_alltoallv() {
  const int size = m_comm.size();
  std::vector<std::size_t> scount(static_cast<std::size_t>(size), 0);
  std::vector<std::size_t> rcount(static_cast<std::size_t>(size), 0);
  for (const Transfer& t : m_plan.sends) scount[static_cast<std::size_t>(t.peer)] += t.bytes;
  for (const Transfer& t : m_plan.recvs) rcount[static_cast<std::size_t>(t.peer)] += t.bytes;
  const std::size_t stotal = m_plan.send_bytes();
  const std::size_t rtotal = m_plan.recv_bytes();
  // Displacements are ints too: fall back (on every rank together) when any total exceeds INT_MAX.
  int too_big =
      (stotal > static_cast<std::size_t>(INT_MAX) || rtotal > static_cast<std::size_t>(INT_MAX)) ? 1 : 0;
  int any_too_big = 0;
  HPF_MPI_CHECK(MPI_Allreduce(&too_big, &any_too_big, 1, MPI_INT, MPI_MAX, m_comm.get()));
  m_fallback = any_too_big != 0;
  m_a2a_ready = true;
  if (m_fallback) return;
  const auto n = static_cast<std::size_t>(size);
  m_sc.assign(n, 0);
  m_sd.assign(n, 0);
  m_rc.assign(n, 0);
  m_rd.assign(n, 0);
  int so = 0;
  int ro = 0;
  for (std::size_t p = 0; p < n; ++p) {
    m_sc[p] = static_cast<int>(scount[p]);
    m_rc[p] = static_cast<int>(rcount[p]);
    m_sd[p] = so;
    m_rd[p] = ro;
    so += m_sc[p];
    ro += m_rc[p];
  }
  m_a2a_send.resize(stotal);
  m_a2a_recv.resize(rtotal);
}

void Exchange::run_alltoallv() {
  if (!m_a2a_ready) setup_alltoallv();
  if (m_fallback) {
    post_flow();
    return;
  }
  // Messages to one peer are concatenated in step order; the receiver splits them in the same order.
  std::vector<std::size_t> cursor(m_sd.begin(), m_sd.end());
  for (std::size_t i = 0; i < m_plan.sends.size(); ++i) {
    const Transfer& t = m_plan.sends[i];
    m_pack(i, m_a2a_send.data() + cursor[static_cast<std::size_t>(t.peer)]);
    cursor[static_cast<std::size_t>(t.peer)] += t.bytes;
  }
  HPF_MPI_CHECK(MPI_Alltoallv(m_a2a_send.data(), m_sc.data(), m_sd.data(), MPI_BYTE, m_a2a_recv.data(),
                              m_rc.data(), m_rd.data(), MPI_BYTE, m_comm.get()));
  cursor.assign(m_rd.begin(), m_rd.end());
  for (std::size_t i = 0; i < m_plan.recvs.size(); ++i) {
    const Transfer& t = m_plan.recvs[i];
    m_unpack(i, m_a2a_recv.data() + cursor[static_cast<std::size_t>(t.peer)]);
    cursor[static_cast<std::size_t>(t.peer)] += t.bytes;
  }
}

} // namespace hpf
