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
