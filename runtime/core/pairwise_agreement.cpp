// PairwiseAgreement (core/pairwise_agreement.hpp): the hash of a collective's arguments sent to every
// other rank beside the collective's own messages, on a private duplicate of the communicator.
#include <hpf/core/error.hpp>
#include <hpf/core/pairwise_agreement.hpp>
#include <hpf/core/tags.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hpf::detail {
namespace {

std::atomic<int> g_limit{16};

/// The private duplicate of a communicator, kept as its attribute: never copied to a duplicate of
/// the communicator, freed with it (the Comm frees its handle).
struct Private {
  Comm comm;
  std::uint64_t generation = 0;
};

/// The keyval of an attribute that holds a T: never copied to a duplicate of its communicator, and
/// deleted (Comm::attribute() told) with it.
template <class T> int owning_keyval() {
  static const int keyval = [] {
    const auto remove = [](MPI_Comm, int, void* attr, void*) -> int {
      comm_attributes_changed(); // Comm::attribute() forgets it
      delete static_cast<T*>(attr);
      return MPI_SUCCESS;
    };
    int k = MPI_KEYVAL_INVALID;
    HPF_MPI_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, remove, &k, nullptr));
    return k;
  }();
  return keyval;
}

int private_keyval() { return owning_keyval<Private>(); }
int mailbox_keyval() { return owning_keyval<AgreementMailbox>(); }

/// The private duplicate of `comm`, made on first use (collective over `comm`), with its mailbox.
const Private& private_of(const Comm& comm) {
  static std::uint64_t next_generation = 0; // rank-local: only compared with itself
  if (const void* attr = comm.attribute(private_keyval())) return *static_cast<const Private*>(attr);
  auto made = std::make_unique<Private>(Private{Comm::duplicate(comm.get()), ++next_generation});
  AgreementMailbox::attach(made->comm);
  HPF_MPI_CHECK(MPI_Comm_set_attr(comm.get(), private_keyval(), made.get()));
  return *made.release();
}

// HPF_AGREEMENT_MAILBOX in the environment: 0 turns the mailbox off (for measurements, or where
// /dev/shm is not to be used), auto (or unset) is the default and always is the same (see Use). Any other
// value is kept here and refused by the next attach, on every rank of its communicator, rather than read as
// one of these.
struct MailboxSetting {
  AgreementMailbox::Use use = AgreementMailbox::Use::Auto;
  std::string unknown; // the value, when it is none of the above
};

MailboxSetting setting_from_environment() {
  const char* v = std::getenv("HPF_AGREEMENT_MAILBOX");
  const std::string_view value = v != nullptr ? v : "";
  if (value.empty() || value == "auto") return {};
  if (value == "0") return {AgreementMailbox::Use::Off, {}};
  if (value == "always") return {AgreementMailbox::Use::Always, {}};
  return {AgreementMailbox::Use::Off, std::string(value)};
}

const MailboxSetting g_environment = setting_from_environment();
std::atomic<AgreementMailbox::Use> g_mailbox_use{g_environment.use};
std::atomic<bool> g_use_set{false}; // set_use overrides the environment, a bad value included

/// The environment's value when it is not one attach accepts and set_use has not overridden it.
std::string_view unknown_setting() noexcept {
  return g_use_set.load() ? std::string_view{} : std::string_view{g_environment.unknown};
}

[[noreturn]] void refuse_setting(std::string_view value, int rank) {
  fail("HPF_AGREEMENT_MAILBOX: expected 0, auto or always (or unset), got \"", value,
       "\" on communicator rank ", rank);
}

/// The cores this process may run on (all of the machine's when the mask cannot be read).
cpu_set_t own_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) {
    CPU_ZERO(&set);
    for (unsigned c = 0; c < std::max(1U, std::thread::hardware_concurrency()) && c < CPU_SETSIZE; ++c)
      CPU_SET(c, &set);
  }
  return set;
}

/// Whether a node runs more ranks than they have cores: `ranks` ranks of the communicator share
/// /dev/shm, and so the node, and may run on `cores` cores between them (the union of their affinity
/// masks: ranks bound to one core each are not crowded); the launcher may know of more ranks on the
/// node (Open MPI's and MPICH's count of the job's ranks there).
bool oversubscribed(std::ptrdiff_t ranks, int cores) {
  long local = static_cast<long>(ranks);
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"})
    if (const char* v = std::getenv(name)) local = std::max(local, std::strtol(v, nullptr, 10));
  return local > static_cast<long>(cores);
}

/// A segment's first line: the cookie its maker chose, which every mapping checks.
struct SegmentHead {
  alignas(64) std::uint64_t cookie;
};

} // namespace

struct AgreementMailbox::Box {
  alignas(64) std::atomic<std::uint64_t> consumed; // the last round the reader is done with
  std::array<Slot, 2> slots;                       // round k in slots[k % 2]
};

AgreementMailbox::~AgreementMailbox() {
  for (void* p : m_theirs)
    if (p != nullptr) ::munmap(p, m_bytes);
  if (m_mine != nullptr) ::munmap(m_mine, m_bytes);
}

AgreementMailbox::Box& AgreementMailbox::box_in(void* base, int peer) const noexcept {
  auto* first = reinterpret_cast<Box*>(static_cast<std::byte*>(base) + sizeof(SegmentHead));
  return first[static_cast<std::size_t>(peer)];
}

void AgreementMailbox::set_use(Use use) noexcept {
  g_mailbox_use.store(use);
  g_use_set.store(true);
}
AgreementMailbox::Use AgreementMailbox::use() noexcept { return g_mailbox_use.load(); }

void AgreementMailbox::attach(const Comm& comm) {
#ifdef SMPI_H
  (void)comm; // simulated ranks share one process and simulated time: headers go through MPI
#else
  const int n = comm.size();
  if (n < 2) { // the same on every rank
    if (!unknown_setting().empty()) refuse_setting(unknown_setting(), 0);
    return;
  }
  // A rank with the mailbox turned off offers no segment but takes part in both allgathers, so that
  // ranks with different settings (or environments) still make the same collective calls.
  const int me = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  std::unique_ptr<AgreementMailbox> box(new AgreementMailbox);
  box->m_bytes = sizeof(SegmentHead) + un * sizeof(Box);
  box->m_me = me;
  // This rank's segment, named as Exchange's segments are (so that remove_stale_shared_memory finds
  // it if this process is killed before the name is removed below). A failure here only unboxes.
  struct Name {
    char name[56];
    std::uint64_t cookie;
    char unknown[24]; // a refused HPF_AGREEMENT_MAILBOX (its start), so that every rank can name it
    cpu_set_t cores;  // where this rank may run (crowded())
  };
  Name mine{};
  mine.cores = own_cores();
  static std::mt19937_64 rng(std::random_device{}() ^ (static_cast<std::uint64_t>(::getpid()) << 32U));
  mine.cookie = rng();
  std::snprintf(mine.name, sizeof mine.name, "/hpfrt-%d-%016llx", static_cast<int>(::getpid()),
                static_cast<unsigned long long>(rng()));
  const auto map = [&](int fd) -> void* {
    void* p = ::mmap(nullptr, box->m_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    return p == MAP_FAILED ? nullptr : p;
  };
  const std::string_view unknown = unknown_setting();
  if (!unknown.empty()) unknown.copy(mine.unknown, sizeof mine.unknown - 1);
  const bool offer = use() != Use::Off && unknown.empty();
  if (const int fd = offer ? ::shm_open(mine.name, O_CREAT | O_EXCL | O_RDWR, 0600) : -1; fd >= 0) {
    if (::ftruncate(fd, static_cast<off_t>(box->m_bytes)) == 0) box->m_mine = map(fd);
    ::close(fd);
    if (box->m_mine == nullptr) ::shm_unlink(mine.name);
  }
  if (box->m_mine != nullptr) {
    ::new (box->m_mine) SegmentHead{mine.cookie};
    for (int q = 0; q < n; ++q) {
      Box& b = box->box_in(box->m_mine, q);
      ::new (&b.consumed) std::atomic<std::uint64_t>(0);
      for (Slot& slot : b.slots) ::new (&slot.round) std::atomic<std::uint64_t>(0);
    }
  } else {
    mine.name[0] = '\0';
  }
  std::vector<Name> names(un);
  HPF_MPI_CHECK(
      MPI_Allgather(&mine, sizeof(Name), MPI_BYTE, names.data(), sizeof(Name), MPI_BYTE, comm.get()));
  for (int q = 0; q < n; ++q) {
    const Name& theirs = names[static_cast<std::size_t>(q)];
    if (theirs.unknown[0] == '\0') continue;
    if (box->m_mine != nullptr) ::shm_unlink(mine.name); // no peer maps it now
    refuse_setting(
        q == me ? unknown
                : std::string_view(theirs.unknown, ::strnlen(theirs.unknown, sizeof theirs.unknown - 1)),
        q);
  }
  // Every peer's segment this rank can map (one of this node's, as large as expected, with its cookie).
  box->m_theirs.assign(un, nullptr);
  std::vector<char> can(un, 0);
  for (int q = 0; q < n && box->m_mine != nullptr; ++q) {
    const Name& theirs = names[static_cast<std::size_t>(q)];
    if (q == me || theirs.name[0] != '/' || theirs.name[sizeof theirs.name - 1] != '\0') continue;
    const int fd = ::shm_open(theirs.name, O_RDWR, 0);
    if (fd < 0) continue;
    struct stat st {};
    void* p =
        ::fstat(fd, &st) == 0 && static_cast<std::size_t>(st.st_size) == box->m_bytes ? map(fd) : nullptr;
    ::close(fd);
    if (p == nullptr) continue;
    if (static_cast<const SegmentHead*>(p)->cookie != theirs.cookie) {
      ::munmap(p, box->m_bytes);
      continue;
    }
    box->m_theirs[static_cast<std::size_t>(q)] = p;
    can[static_cast<std::size_t>(q)] = 1;
  }
  // A node with more ranks than the cores its mapped ranks may use between them (this rank's and their
  // affinity masks): a rank spinning on a slot would keep the peer it waits for off the core (pause),
  // so its waits yield at every turn instead. Local: only how this rank waits, not who is boxed.
  cpu_set_t cores = mine.cores;
  for (int q = 0; q < n; ++q)
    if (can[static_cast<std::size_t>(q)] != 0)
      CPU_OR(&cores, &cores, &names[static_cast<std::size_t>(q)].cores);
  box->m_crowded = oversubscribed(1 + std::count(can.begin(), can.end(), 1), CPU_COUNT(&cores));
  std::vector<char> all(un * un);
  HPF_MPI_CHECK(MPI_Allgather(can.data(), n, MPI_CHAR, all.data(), n, MPI_CHAR, comm.get()));
  if (box->m_mine != nullptr) ::shm_unlink(mine.name); // every rank that could map it has
  box->m_boxed.assign(un, 0);
  bool any = false;
  const auto row = [&](std::size_t rank) { return all.data() + rank * un; };
  for (std::size_t q = 0; q < un; ++q) {
    const auto m = static_cast<std::size_t>(me);
    box->m_boxed[q] = static_cast<char>(row(m)[q] != 0 && row(q)[m] != 0);
    if (box->m_boxed[q] == 0 && box->m_theirs[q] != nullptr) {
      ::munmap(box->m_theirs[q], box->m_bytes);
      box->m_theirs[q] = nullptr;
    }
    any = any || box->m_boxed[q] != 0;
  }
  if (!any) return;
  box->m_comm = comm.get();
  HPF_MPI_CHECK(MPI_Comm_set_attr(comm.get(), mailbox_keyval(), box.get()));
  (void)box.release();
#endif
}

// Where the ranks fit their node's cores the peer runs while this rank waits for it: spin (a cache
// line read each turn) for a few thousand turns, then also progress MPI and give the core away (a peer
// descheduled by other load). On a crowded node, give it away from the first turn: spinning there
// costs the peer its time slice (4096 spins took 17-29x MPI_Alltoallw on 4 ranks over 2 cores, yielding
// 0.6-1.0x; a probe every turn instead of every 16th was slower at 10^3 doubles).
void AgreementMailbox::pause(unsigned& spins) const {
  if (++spins < 4096 && !m_crowded) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    return;
  }
  if (spins % 16 == 0) {
    int flag = 0;
    HPF_MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, m_comm, &flag, MPI_STATUS_IGNORE));
  }
  sched_yield();
}

AgreementMailbox* AgreementMailbox::of(const Comm& comm) {
  return static_cast<AgreementMailbox*>(comm.attribute(mailbox_keyval()));
}

void AgreementMailbox::detach(const Comm& comm) {
  if (of(comm) != nullptr) HPF_MPI_CHECK(MPI_Comm_delete_attr(comm.get(), mailbox_keyval()));
}

std::byte* AgreementMailbox::open(int peer, std::uint64_t k, const AgreementHeader& header) {
  Box& b = box_in(m_theirs[static_cast<std::size_t>(peer)], m_me);
  for (unsigned spins = 0; b.consumed.load(std::memory_order_acquire) + 2 < k;) pause(spins);
  Slot& slot = b.slots[k % 2];
  slot.header = header;
  return slot.payload.data();
}

void AgreementMailbox::publish(int peer, std::uint64_t k, std::size_t bytes) {
  Slot& slot = box_in(m_theirs[static_cast<std::size_t>(peer)], m_me).slots[k % 2];
  slot.bytes = bytes;
  slot.round.store(k, std::memory_order_release);
}

const AgreementMailbox::Slot* AgreementMailbox::arrived(int peer, std::uint64_t k, bool block) {
  const Slot& slot = box_in(m_mine, peer).slots[k % 2];
  for (unsigned spins = 0;; pause(spins)) {
    const std::uint64_t got = slot.round.load(std::memory_order_acquire);
    if (got >= k) {
      require(got == k, "AgreementMailbox: round ", got, " from rank ", peer, " where round ", k,
              " was expected (the ranks' agreements are out of step)");
      return &slot;
    }
    if (!block) return nullptr;
  }
}

const std::byte* AgreementMailbox::payload_from(int peer, std::uint64_t k) {
  const Slot* slot = arrived(peer, k, false);
  require(slot != nullptr, "AgreementMailbox: round ", k, " from rank ", peer, " has not come");
  return slot->payload.data();
}

void AgreementMailbox::consume(int peer, std::uint64_t k) noexcept {
  box_in(m_mine, peer).consumed.store(k, std::memory_order_release);
}

int pairwise_agreement_limit() noexcept { return g_limit.load(); }
void set_pairwise_agreement_limit(int ranks) noexcept { g_limit.store(ranks); }
bool pairwise_agreement(MPI_Comm comm) { return comm_size(comm) <= pairwise_agreement_limit(); }

void AgreementHeaders::post(const Comm& comm, std::uint64_t hash, const std::vector<char>& to,
                            const std::vector<char>& from, bool refused) {
  m_mine.hash = hash;
  m_mine.refused = refused ? 1 : 0;
  m_same = true;
  m_recvs.clear(); // every receive of the previous round has completed (next() or agreed())
  m_box = AgreementMailbox::of(comm);
  m_round = m_box != nullptr ? m_box->begin_round() : 0;
  const MPI_Comm c = comm.get();
  const int tag = tags::agreement.base;
  m_from.clear();
  m_boxed_from.clear();
  for (std::size_t q = 0; q < from.size(); ++q)
    if (from[q] != 0)
      (m_box != nullptr && m_box->boxed(static_cast<int>(q)) ? m_boxed_from : m_from)
          .push_back(static_cast<int>(q));
  m_theirs.resize(slot * m_from.size());
  for (std::size_t k = 0; k < m_from.size(); ++k)
    HPF_MPI_CHECK(MPI_Irecv(&m_theirs[k * slot], static_cast<int>(agreement_message_max_bytes), MPI_BYTE,
                            m_from[k], tag, c, m_recvs.add()));
  for (std::size_t q = 0; q < to.size(); ++q) {
    if (to[q] == 0) continue;
    const int peer = static_cast<int>(q);
    if (m_box != nullptr && m_box->boxed(peer)) {
      (void)m_box->open(peer, m_round, m_mine);
      m_box->publish(peer, m_round, 0);
    } else {
      HPF_MPI_CHECK(MPI_Isend(&m_mine, static_cast<int>(agreement_header_bytes), MPI_BYTE, peer, tag, c,
                              m_sends.add()));
    }
  }
}

int AgreementHeaders::next(bool& same) {
  const auto differs = [&](const AgreementHeader& theirs, bool alone) {
    return !alone || theirs.hash != m_mine.hash || theirs.refused != m_mine.refused;
  };
  const auto from_mpi = [&](int k, std::size_t got) {
    // A peer that carries its header in a longer message differs.
    same = !differs(m_theirs[static_cast<std::size_t>(k) * slot], got == agreement_header_bytes);
    m_same = m_same && same;
    return m_from[static_cast<std::size_t>(k)];
  };
  std::size_t got = 0;
  for (unsigned spins = 0; !m_boxed_from.empty();) {
    for (auto it = m_boxed_from.begin(); it != m_boxed_from.end(); ++it) {
      const int peer = *it;
      if (const AgreementMailbox::Slot* s = m_box->arrived(peer, m_round, false)) {
        same = !differs(s->header, s->bytes == 0); // a carried message differs too
        m_box->consume(peer, m_round);
        m_same = m_same && same;
        m_boxed_from.erase(it);
        return peer;
      }
    }
    if (const int k = m_recvs.test_any(&got); k >= 0) return from_mpi(k, got);
    if (!m_recvs.empty()) continue; // MPI_Testany progresses MPI
    m_box->pause(spins);
  }
  const int k = m_recvs.wait_any(&got);
  if (k < 0) return -1;
  return from_mpi(k, got);
}

bool AgreementHeaders::agreed() {
  bool same = true;
  while (next(same) >= 0) {
  }
  m_recvs.clear();
  m_sends.wait_all(); // every peer receives one message on the tag (the header's contract)
  return m_same;
}

void AgreementHeaders::abandon() noexcept {
  m_recvs.cancel_receives();
  m_sends.release_sends();
  m_boxed_from.clear();
}

PairwiseAgreement::PairwiseAgreement(const Comm& comm, std::uint64_t hash)
    : m_parent(comm.get()), m_hash(hash) {
  const Private& p = private_of(comm);
  m_private = p.comm;
  m_generation = p.generation;
}

void PairwiseAgreement::post_headers(bool refused) {
  require(!m_posted && m_state == 0, "PairwiseAgreement::post_headers: the headers are already out");
  const auto n = static_cast<std::size_t>(m_private.size());
  std::vector<char> others(n, 1);
  others[static_cast<std::size_t>(m_private.rank())] = 0;
  m_headers.post(m_private, m_hash, others, others, refused);
  m_posted = true;
}

void PairwiseAgreement::refuse() {
  post_headers(true);
  (void)m_headers.agreed(); // every other rank sends one message on the tag, whatever it passed
  m_state = -1;
}

bool PairwiseAgreement::agreed() {
  if (m_state == 0) {
    require(m_posted, "PairwiseAgreement::agreed: no headers were posted or settled");
    m_state = m_headers.agreed() ? 1 : -1;
  }
  return m_state == 1;
}

void PairwiseAgreement::discard() {
  require(m_state == -1, "PairwiseAgreement::discard: the ranks agreed; nothing to discard");
  // The duplicate is kept, unused, until the program ends, not freed: a message of the abandoned call
  // may still be on its way to it, and Open MPI gives a freed communicator's context id to the next
  // new one, where that message would match a receive (seen in tests/regress/issue_15_agreement.cpp).
  // One communicator per refused call.
  static std::vector<Comm> retired;
  AgreementMailbox::detach(m_private); // its segments are of no further use
  retired.push_back(m_private);
  HPF_MPI_CHECK(MPI_Comm_delete_attr(m_parent, private_keyval()));
  m_private = Comm();
}

} // namespace hpf::detail
