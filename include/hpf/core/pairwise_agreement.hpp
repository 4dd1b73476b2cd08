// The agreement of a collective carried beside its own messages (issue 10).
//
// check_same_on_all_ranks (core/mpi.hpp) is one MPI_Allreduce before the collective moves any data:
// a whole extra round, which is most of what a small REDISTRIBUTE costs beyond the exchange itself
// (bench/redistribute/overhead.sh). On a communicator of at most pairwise_agreement_limit() ranks,
// PairwiseAgreement instead gives every other rank the calling rank's hash of its arguments and
// receives theirs, on a private duplicate of the communicator, where the collective's own messages go
// too. The hash travels in a header of agreement_header_bytes, on the tag tags::agreement.base:
// - at the front of the collective's own message to a peer, where the collective carries it
//   (Exchange::post_agreeing: one small packed message to that peer), so that the agreement costs no
//   message at all;
// - alone, to every other peer (PairwiseAgreement::post_headers, or the rest of post_agreeing).
//
// Every rank sends exactly one message on that tag to every other rank and receives one from each,
// whatever its arguments and whichever way it carries its headers, so the headers complete on every
// rank even when the arguments differ, and then every rank sees the difference: another hash, or a
// message of another length where the two ranks disagree on what travels between them (every
// receive on the tag has room for the longest message, so none is truncated). Its collective takes its
// messages back (Exchange::abandon: receives cancelled, sends released) and discard() retires the private
// duplicate, so that a message no rank received can never match a later call; the next call makes a new one.
// A collective whose post() may block (a step mode, MPI_Alltoallv) waits for agreed() before posting.
//
// The choice between this and the allreduce depends only on the communicator's size, the same on
// every rank. The private duplicate is an attribute of the communicator (never keyed by its handle),
// made by the first call on it (collective) and freed with it.
#pragma once

#include <hpf/core/mpi.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hpf::detail {

/// Communicators of at most this many ranks agree pairwise (default 16: beyond that, n - 1 headers
/// per rank cost more than an allreduce's log2 n rounds).
[[nodiscard]] int pairwise_agreement_limit() noexcept;
/// For tests: every rank must set the same limit between the same collectives.
void set_pairwise_agreement_limit(int ranks) noexcept;
/// True when `comm` agrees pairwise: its size is at most pairwise_agreement_limit(). Local.
[[nodiscard]] bool pairwise_agreement(MPI_Comm comm);

/// The header: the hash, then a word that is 0 from a rank taking part and 1 from a rank that refuses
/// the call (PairwiseAgreement::refuse), so that data packed after it stays aligned for any type. A
/// header agrees with this rank's when both words are the same.
struct AgreementHeader {
  std::uint64_t hash = 0;
  std::uint64_t refused = 0;
};
inline constexpr std::size_t agreement_header_bytes = sizeof(AgreementHeader);
static_assert(agreement_header_bytes % alignof(std::max_align_t) == 0);
/// A collective's message carries the header only if it has at most this many bytes of its own, so
/// that every message on the agreement's tag fits agreement_message_max_bytes: each receive on that
/// tag is posted that large and is never truncated (a peer with other arguments may send another
/// length). With Open MPI 4.1.4 a truncated receive on this tag hung in MPI_Waitall on 2 ranks,
/// although MPI_Request_get_status reported it complete.
inline constexpr std::size_t agreement_carry_max_bytes = std::size_t{1} << 12U;
inline constexpr std::size_t agreement_message_max_bytes = agreement_header_bytes + agreement_carry_max_bytes;

/// The agreement's own transport between the ranks of one node (issue 10: at 10^3 doubles a
/// REDISTRIBUTE is one MPI message latency long, about 1.2 us on 2 ranks, where a flag in shared
/// memory takes 0.14 us; bench/redistribute/notice_latency.sh). Made with the private duplicate of
/// a communicator (collective; never under SimGrid SMPI, nor on a rank with set_use(Use::Off)) and
/// kept as its attribute: each rank maps a segment of its own that holds, per peer, two slots of a
/// header and up to agreement_carry_max_bytes of payload, and every other rank of its node maps it
/// too. A pair of ranks that could both map the other's segment, on a node whose ranks fit its cores
/// (else a rank waiting on a slot keeps its peer off the core), is boxed: every header between the
/// two, alone or in front of a carried message (Exchange::post_agreeing), goes into a slot instead
/// of an MPI message, whatever its arguments, so a rank with other arguments is still seen.
///
/// Every header round on the communicator (a post_headers, refuse or post_agreeing on every rank)
/// sends one header to every other rank, so the ranks number their rounds alike (begin_round). Round
/// k writes slot k % 2, once the reader has consumed round k - 2 from it; the writer publishes the
/// round number last (release), and the reader waits for it (acquire). Local; one thread at a time.
class AgreementMailbox {
public:
  /// One message: the header, its payload's length (0: the header alone) and the payload.
  struct Slot {
    alignas(64) std::atomic<std::uint64_t> round;
    AgreementHeader header;
    std::uint64_t bytes;
    alignas(64) std::array<std::byte, agreement_carry_max_bytes> payload;
  };

  AgreementMailbox(const AgreementMailbox&) = delete;
  AgreementMailbox& operator=(const AgreementMailbox&) = delete;
  AgreementMailbox(AgreementMailbox&&) = delete;
  AgreementMailbox& operator=(AgreementMailbox&&) = delete;
  ~AgreementMailbox();

  /// Collective over `comm`: makes the mailbox and sets it as an attribute of `comm` when some pair
  /// is boxed (else none).
  static void attach(const Comm& comm);
  /// The mailbox of `comm`, or null. Local.
  [[nodiscard]] static AgreementMailbox* of(const Comm& comm);
  /// Frees the mailbox of `comm`, if any (its pair's writes go to their own mappings). Local.
  static void detach(const Comm& comm);

  /// Whether the headers between this rank and communicator rank `peer` go through the mailbox.
  [[nodiscard]] bool boxed(int peer) const noexcept {
    return peer >= 0 && static_cast<std::size_t>(peer) < m_boxed.size() &&
           m_boxed[static_cast<std::size_t>(peer)] != 0;
  }
  /// The number of the round that starts now (1, 2, ...).
  std::uint64_t begin_round() noexcept { return ++m_round; }
  [[nodiscard]] std::uint64_t round() const noexcept { return m_round; }
  /// Round k's slot to `peer`, with `header` written in it, for the payload; waits until the peer has
  /// consumed round k - 2 from it (keeping MPI progressing meanwhile).
  std::byte* open(int peer, std::uint64_t k, const AgreementHeader& header);
  /// Publishes round k to `peer` with `bytes` of payload (0: the header alone).
  void publish(int peer, std::uint64_t k, std::size_t bytes);
  /// Round k's slot from `peer` once it has come (null before); with `block`, waits for it.
  [[nodiscard]] const Slot* arrived(int peer, std::uint64_t k, bool block);
  /// The payload of round k from `peer`, which has come (arrived returned its slot) and is not yet
  /// consumed. Throws hpf::Error if it has not.
  [[nodiscard]] const std::byte* payload_from(int peer, std::uint64_t k);
  /// Tells `peer` that round k's slot from it is free again.
  void consume(int peer, std::uint64_t k) noexcept;
  /// One turn of a wait for a peer: `spins` counts the turns (start at 0). Spins a few thousand turns
  /// before it gives the core away, or gives it away at once on a crowded node (below).
  void pause(unsigned& spins) const;
  /// Whether this rank's node runs more ranks than they may use cores between them (the union of the
  /// affinity masks of this rank and the ranks whose segments it maps, or the launcher's count of the
  /// node's ranks when that is larger): then the peer it waits for is likely off the core, and every
  /// turn of a wait yields to it. Local: only how this rank waits.
  [[nodiscard]] bool crowded() const noexcept { return m_crowded; }

  /// Whether this rank offers a mailbox segment to the private duplicates made from now on: Off (none)
  /// or Auto (the default: to every rank of its node). Always is Auto under the name the tests and
  /// scripts used when Auto left crowded nodes out (it no longer does). The environment sets the
  /// default: HPF_AGREEMENT_MAILBOX=0 is Off, =auto (or unset) is Auto, =always is Always. Any other
  /// value makes attach throw hpf::Error naming it, on every rank of the communicator (until set_use
  /// overrides it). A pair is boxed only when both of its ranks offer one, so ranks with different
  /// settings still agree (through MPI).
  enum class Use { Off, Auto, Always };
  static void set_use(Use use) noexcept;
  [[nodiscard]] static Use use() noexcept;

private:
  struct Box; // per peer: the reader's consumed count and the two slots
  AgreementMailbox() = default;
  [[nodiscard]] Box& box_in(void* base, int peer) const noexcept;
  void* m_mine = nullptr;      // this rank's segment (its peers write into it)
  std::vector<void*> m_theirs; // per peer: the mapping of its segment (null: not boxed)
  std::vector<char> m_boxed;   // per peer
  std::size_t m_bytes = 0;     // of every segment
  std::uint64_t m_round = 0;
  bool m_crowded = false;          // see crowded()
  int m_me = 0;                    // this rank in the communicator
  MPI_Comm m_comm = MPI_COMM_NULL; // MPI progress while waiting
};

/// Header-only messages of one agreement: to and from chosen ranks of a communicator, on the tag
/// tags::agreement.base. A received message of another length or with another hash is a difference.
class AgreementHeaders {
public:
  /// Sends `hash` (as a refusal when `refused`) to every rank q with to[q] != 0 and posts a receive
  /// from every q with from[q] != 0 (both sized like the communicator). Never blocks.
  void post(const Comm& comm, std::uint64_t hash, const std::vector<char>& to, const std::vector<char>& from,
            bool refused = false);
  /// Blocks until one more header has come and returns its sender, or -1 once every one has. `same`
  /// tells whether it is `hash` in a header-only message (the first difference is remembered).
  int next(bool& same);
  /// The mailbox of the communicator of the last post() (null: none) and that post's round in it.
  [[nodiscard]] AgreementMailbox* mailbox() const noexcept { return m_box; }
  [[nodiscard]] std::uint64_t round() const noexcept { return m_round; }
  /// Completes them (blocks; every peer sends one): true when every received header is `hash`.
  [[nodiscard]] bool agreed();
  /// Takes them back (receives cancelled, sends released); the communicator must be retired. Never throws.
  void abandon() noexcept;

private:
  static constexpr std::size_t slot = agreement_message_max_bytes / sizeof(AgreementHeader);
  AgreementHeader m_mine;
  std::vector<AgreementHeader> m_theirs; // `slot` per receive, in the order posted (room for any message)
  std::vector<int> m_from;               // the sender of each receive
  bool m_same = true;                    // every header in so far is this rank's
  AgreementMailbox* m_box = nullptr;
  std::uint64_t m_round = 0;
  std::vector<int> m_boxed_from; // the boxed peers whose header has not come yet
  Requests m_recvs;
  Requests m_sends;
};

class PairwiseAgreement {
public:
  /// Collective over `comm` the first time (it duplicates `comm`); sends nothing: the headers go out
  /// with post_headers() or in the collective's own messages (Exchange::post_agreeing on comm()).
  PairwiseAgreement(const Comm& comm, std::uint64_t hash);
  PairwiseAgreement(const PairwiseAgreement&) = delete;
  PairwiseAgreement& operator=(const PairwiseAgreement&) = delete;
  ~PairwiseAgreement() = default; // Requests' destructors complete the headers (they always arrive)

  /// The private duplicate of the communicator: the collective posts its messages there.
  [[nodiscard]] const Comm& comm() const noexcept { return m_private; }
  /// Identifies the private duplicate (a new one after discard()): a cache of anything built on
  /// comm() compares this, never the handle, which MPI may reuse.
  [[nodiscard]] std::uint64_t generation() const noexcept { return m_generation; }
  [[nodiscard]] std::uint64_t hash() const noexcept { return m_hash; }
  /// Sends the header to every other rank and posts the receives of theirs. Never blocks.
  void post_headers() { post_headers(false); }
  /// For a rank that cannot take part (its own part of the collective failed before anything was
  /// sent, e.g. an option invalid there only): sends every other rank a header no agreeing rank
  /// sends, waits for theirs, and settles on a difference, so that every rank sees one and none waits
  /// for this rank's messages. Then discard(). Blocks for the other ranks' headers only.
  void refuse();
  /// The collective's own messages carried the headers (Exchange::headers_agreed): what they said.
  void settle(bool agreed) noexcept { m_state = agreed ? 1 : -1; }
  /// Completes the headers of post_headers() (the first call; later calls return the same), or
  /// returns what settle() said: true when every rank passed the same hash.
  [[nodiscard]] bool agreed();
  /// After !agreed() (every rank sees it): retires the private duplicate, whose unmatched messages go
  /// with it. Local.
  void discard();

private:
  void post_headers(bool refused);

  MPI_Comm m_parent = MPI_COMM_NULL;
  Comm m_private;
  std::uint64_t m_generation = 0;
  std::uint64_t m_hash = 0;
  AgreementHeaders m_headers;
  bool m_posted = false;
  int m_state = 0; // 0: not known, 1: agreed, -1: differ
};

} // namespace hpf::detail
