// Executors: run the calling rank's part of a scheduled exchange on byte buffers.
//
// exec/ knows bytes, not arrays (DESIGN.md): a plan lists, for this rank, the messages it sends and
// receives (peer, byte count, step); packing and unpacking are callbacks. The same executors serve
// redistribution, irregular gathers/scatters and steady-state pipelines, and build under SimGrid SMPI.
//
//   | mode            | what it does                                                               |
//   |-----------------|----------------------------------------------------------------------------|
//   | StepSynchronous | per step at most one Isend and one Irecv per rank, completed before the   |
//   |                 | next step; no barrier between steps; two message buffers alive at most     |
//   |                 | (and the shared-memory segments of set_shared_memory, one per shared send) |
//   | AllAtOnce       | post every Irecv, then every Isend in step order; each receive is unpacked |
//   |                 | as soon as it arrives, in any order (S2 of seed 001); with set_batch, all  |
//   |                 | sends are packed in one call and all receives unpacked in one at the end;  |
//   |                 | once every choice stands, post() starts persistent requests (persistent()) |
//   | Pipelined       | dataflow in step order, for trees and pipelines: receives posted ahead    |
//   |                 | (set_receive_window, default all) and unpacked in step order as they      |
//   |                 | arrive; a send of step k is packed and started once every receive of an   |
//   |                 | earlier step is unpacked and every send of an earlier step has completed. |
//   |                 | Unpack may combine (reductions) and a later pack may forward what an      |
//   |                 | earlier unpack stored (broadcast trees, segmented pipelines). Several     |
//   |                 | messages per step are allowed (a rank that plays several nodes).          |
//   | Handshake       | per step: post the Irecv, send a zero-byte ready signal to the sender; the |
//   |                 | sender sends on the signal (S1 of seed 001) — no unexpected messages       |
//   | Alltoallv       | one MPI_Alltoallv over the communicator (collective: every rank calls)     |
//
// Split phase: post() starts the exchange, wait() completes it (STYLE.md, after Tpetra's
// doPosts/doWaits). For AllAtOnce and Alltoallv, post() sends everything and the caller may compute
// before wait(); the step-driven modes start the first step in post() (never blocking) and run the
// rest in wait() (all of them in wait() in a first execution with shared memory, below). Several exchanges
// may be in flight at once on one communicator if they use distinct tags and are waited in the same order on
// every rank. Progress by test: test() does whatever can be done without blocking and returns true once the
// exchange is complete, so a caller overlaps computation with transfers by calling it between
// pieces of work (AllAtOnce, Pipelined and the step modes never block in test(); Alltoallv, one
// blocking collective, completes in post()).
// Messages larger than INT_MAX bytes are split (never wrapped); MPI_Alltoallv falls back to AllAtOnce
// (decided collectively) when any count or displacement would not fit an int.
// In place: set_in_place gives a message an MPI datatype that describes where its bytes lie in the
// caller's memory; MPI then sends it from there, or receives it straight into place, with no message
// buffer and no pack or unpack call (MPI's own engine walks the datatype). The two ends of a message
// decide independently: a datatype built of MPI_BYTE matches a packed buffer of as many bytes. A
// message that may go through shared memory (below) is packed whatever its datatype: both ends decide
// that from its size and the threshold, and packing into the receiver's segment took a median 0.62x
// the time of MPI's datatype engine on one node (docs/redistribute.md, "Long pieces on one node").
// Shared memory (set_shared_memory; StepSynchronous and AllAtOnce): a packed message of at least
// min_bytes between two ranks that see the same /dev/shm is packed straight into a POSIX segment the
// receiver maps, and unpacked from there; MPI carries only a zero-byte notice. That is two passes over
// the bytes where MPI's shared-memory transport makes four (pack, copy in, copy out, unpack). The ends
// agree inside the first execution, without blocking in post(): its post() sends each such message's
// receiver's offer (a segment it made, or none) to the sender. A sender whose offer is in when it
// packs packs into the segment if it can map it, and sends the notice; else it packs for MPI. The
// step modes start their steps in wait() during the first execution, and a send waits there for its
// offer, so they use the segments from the first execution on; AllAtOnce sends everything in post()
// and uses a segment from the first execution whose pack finds its offer in (the second at the
// latest). The receiver tells a notice from data by the received count and keeps the segment once a
// notice came; after the second execution every choice stands.
// The sender packs into a segment only once its receiver has unpacked the previous execution's
// contents (a counter in the segment; pack may wait for it). With shared memory on, every packed
// receive checks its count, and every receive through a segment checks the segment's counters, so
// that a notice never passes for data, nor data for a notice, nor stale contents for new ones.
// Never under SimGrid SMPI (simulated time).
// Agreement carried (post_agreeing; AllAtOnce): DistArray::redistribute's hash of its arguments
// (core/pairwise_agreement.hpp) rides in a header at the front of the one message to a peer where that
// message is small (at most carry_max_bytes, under the shared-memory threshold) and the only one to that
// peer; both ends decide that from the plan and the size alone, and pack such a message whatever its
// datatype. Every other peer gets the header alone. On a communicator with an AgreementMailbox
// (DistArray::redistribute's private one, between ranks of one node) both go into the mailbox's slot
// for that peer instead of an MPI message: a carried message is packed there and unpacked from there.
// headers_agreed() completes the receives that bring headers and nothing else, so that ranks with other
// arguments never wait for data. Every other receive from a peer (data, and the first execution's offers) is
// posted only once that peer's header has come with the same hash (then the peer passed the same arguments
// and sends the lengths this rank expects): a rank with other arguments may send a longer message, and Open
// MPI 4.1.4 wrote past the buffer of a truncated receive of a large message (seen in
// tests/exec/test_exchange.cpp before the receives were held).
#pragma once

#include <hpf/core/memory.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/core/pairwise_agreement.hpp>
#include <hpf/schedule/schedule.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace hpf {

namespace detail {
/// A POSIX shared-memory segment holding one message (exchange.cpp).
class SharedSegment;

/// What a receiver tells its sender about the segment of one message (travels as bytes).
struct SegmentOffer {
  std::array<char, 48> name{}; ///< empty: no segment, the message travels through MPI
  std::uint64_t cookie = 0;    ///< written at the segment's start: the receiver checks it
  std::uint64_t bytes = 0;     ///< the message's bytes
};

/// An allocator whose resize() leaves new elements uninitialised: message buffers are always written
/// (packed or received) before they are read, so zero-filling them would be a wasted pass over memory.
/// Large buffers come from allocate_large (core/memory.hpp): their first touch faults per huge page.
template <class T> struct UninitAllocator : std::allocator<T> {
  template <class U> struct rebind { using other = UninitAllocator<U>; };
  UninitAllocator() = default;
  // NOLINTNEXTLINE(google-explicit-constructor): allocators convert implicitly between element types
  template <class U> UninitAllocator(const UninitAllocator<U>& /*other*/) noexcept {}
  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocate_large(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { free_large(p, n * sizeof(T)); }
  template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
  template <class U, class... A> void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};
/// A message buffer (see UninitAllocator).
using ByteBuffer = std::vector<std::byte, UninitAllocator<std::byte>>;

/// Whether an Exchange has a post() pending. It is the Exchange's first member, so that moving a
/// pending Exchange throws hpf::Error before any other member has moved: MPI holds addresses inside
/// a pending exchange (the agreement's header among them), and they would dangle.
class PendingFlag {
public:
  PendingFlag() = default;
  PendingFlag(const PendingFlag&) = delete;
  PendingFlag& operator=(const PendingFlag&) = delete;
  // A move that refuses a pending exchange throws by design.
  // NOLINTNEXTLINE(bugprone-exception-escape,performance-noexcept-move-constructor)
  PendingFlag(PendingFlag&& other) : m_on(other.m_on) { refuse_if(m_on, "moved from"); }
  // A move that refuses a pending exchange throws by design.
  // NOLINTNEXTLINE(bugprone-exception-escape,performance-noexcept-move-constructor)
  PendingFlag& operator=(PendingFlag&& other) {
    refuse_if(m_on, "moved to");
    refuse_if(other.m_on, "moved from");
    return *this;
  }
  ~PendingFlag() = default;
  PendingFlag& operator=(bool on) noexcept {
    m_on = on;
    return *this;
  }
  // Read as the bool it was.
  // NOLINTNEXTLINE(google-explicit-constructor,hicpp-explicit-conversions)
  operator bool() const noexcept { return m_on; }

private:
  static void refuse_if(bool pending, const char* side) {
    if (pending)
      fail("Exchange: the exchange ", side,
           " has a post() pending; expected wait() (or abandon()) to complete it before the move");
  }
  bool m_on = false;
};
} // namespace detail

/// One message of the calling rank: peer rank in the exchange's communicator, bytes, schedule step.
struct Transfer {
  int peer = 0;
  std::size_t bytes = 0;
  int step = 0;
};

/// The calling rank's part of an exchange: sends and receives, each sorted by step.
struct ExchangePlan {
  std::vector<Transfer> sends;
  std::vector<Transfer> recvs;
  [[nodiscard]] std::size_t send_bytes() const noexcept;
  [[nodiscard]] std::size_t recv_bytes() const noexcept;
};

/// The calling rank's part of `schedule`: it plays sender `my_sender` and receiver `my_receiver`
/// (-1 when it plays none). `sender_ranks[i]` / `receiver_ranks[j]` are the communicator ranks of
/// sender i and receiver j; each unit of a message is `bytes_per_unit` bytes. Zero-length messages
/// are dropped (they move nothing); steps keep their schedule index.
ExchangePlan exchange_plan(const Schedule& schedule, int my_sender, int my_receiver,
                           const std::vector<int>& sender_ranks, const std::vector<int>& receiver_ranks,
                           std::size_t bytes_per_unit);

enum class ExecMode { StepSynchronous, AllAtOnce, Handshake, Alltoallv, Pipelined };

/// "step-synchronous", "all-at-once", "handshake", "alltoallv".
[[nodiscard]] std::string to_string(ExecMode m);
/// Inverse of to_string; throws hpf::Error naming the argument `what`, the value and the valid names.
[[nodiscard]] ExecMode parse_exec_mode(std::string_view name, std::string_view what = "mode");

/// pack(i, buf): write send i (index into plan.sends) into buf, which holds plan.sends[i].bytes bytes.
using PackFn = std::function<void(std::size_t, std::byte*)>;
/// unpack(i, buf): consume receive i (index into plan.recvs) from buf.
using UnpackFn = std::function<void(std::size_t, const std::byte*)>;
/// pack_many(sends, bufs): pack sends[j] into bufs[j] for every j, in one call (Exchange::set_batch).
using PackManyFn = std::function<void(std::span<const std::size_t>, std::span<std::byte* const>)>;
/// unpack_many(recvs, bufs): consume receive recvs[j] from bufs[j] for every j, in one call.
using UnpackManyFn = std::function<void(std::span<const std::size_t>, std::span<const std::byte* const>)>;

/// Runs one ExchangePlan. Owns its buffers and requests; reusable: post()/wait() may be called again
/// after wait() returned. Alltoallv mode is collective over the communicator; the others involve only
/// the ranks that exchange messages with each other.
class Exchange {
public:
  Exchange(Comm comm, ExchangePlan plan, ExecMode mode, int tag = 2001);
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;
  /// Moves an idle exchange. Throws hpf::Error, and moves nothing, when either side has a post()
  /// pending (MPI holds addresses inside it).
  // A move that refuses a pending exchange throws by design (PendingFlag).
  // NOLINTNEXTLINE(bugprone-exception-escape)
  Exchange(Exchange&&) = default;
  // A move that refuses a pending exchange throws by design (PendingFlag).
  // NOLINTNEXTLINE(bugprone-exception-escape)
  Exchange& operator=(Exchange&&) = default;
  ~Exchange() = default;

  /// post(pack, unpack): starts the exchange. `send_base` / `recv_base` are the addresses the in-place
  /// datatypes (set_in_place) are relative to; required when any send / receive is in place.
  void post(PackFn pack, UnpackFn unpack, const void* send_base = nullptr, void* recv_base = nullptr);
  void wait();
  /// post() that also carries an agreement (core/pairwise_agreement.hpp): `hash` goes to every other
  /// rank of the communicator on tags::agreement.base, in front of this rank's message to that peer
  /// where it carries one (see the header comment), alone otherwise. AllAtOnce only (throws hpf::Error
  /// otherwise). Never blocks; call headers_agreed() before wait().
  void post_agreeing(std::uint64_t hash, PackFn pack, UnpackFn unpack, const void* send_base = nullptr,
                     void* recv_base = nullptr);
  /// After post_agreeing(): blocks until every other rank's header is in (each rank sends one whatever
  /// its arguments, and this waits for no other message) and returns true when every one carries the
  /// same hash in a message of the length this rank expects. Nothing has been unpacked yet. Then
  /// wait() completes the exchange, or abandon() takes it back (every rank sees the same answer); a
  /// wait() after a difference abandons and throws hpf::Error, and test() throws hpf::Error until
  /// headers_agreed() has returned true.
  [[nodiscard]] bool headers_agreed();
  /// Messages of at most this many bytes may carry the header of post_agreeing().
  static constexpr std::size_t carry_max_bytes = detail::agreement_carry_max_bytes;
  /// AllAtOnce (and Alltoallv's fallback to it): from the next post() on, the packed sends are packed in
  /// one pack_many call, once all their buffers or segments are ready (pack(i) is not called for them),
  /// and the packed receives are unpacked in one unpack_many call once every receive has arrived,
  /// instead of each on arrival. A caller whose data repeats with a short period moves all messages in
  /// one pass over its memory (RedistributionPlan::pack_many): a message-by-message pass reads or writes
  /// the whole block once per message. pack_many is called exactly once by each AllAtOnce post(), with
  /// empty spans when nothing is packed. Empty functions (the default): message by message. Ignored by
  /// the other modes. Throws hpf::Error while a post() is pending.
  void set_batch(PackManyFn pack_many, UnpackManyFn unpack_many);
  /// From the next post() on, `after` runs once per post(), as soon as the sends it starts first have
  /// started (AllAtOnce: every send; StepSynchronous: the first step's, if it has one; Handshake: once
  /// its first step has started, its send waiting for the receiver's signal):
  /// in post(), or in wait() or test() when sends wait for their receivers' segment offers (a first
  /// execution with shared memory), and before anything waits for a receive of a later step. Local
  /// work placed there overlaps the transfers either way (RedistributionExecutor copies the locally
  /// kept part). Empty (the default): nothing. Ignored by Alltoallv and Pipelined. Throws hpf::Error
  /// while a post() is pending.
  void set_after_sends(std::function<void()> after);
  /// Whether set_after_sends' callback runs in `mode` (every mode but Alltoallv and Pipelined).
  [[nodiscard]] static constexpr bool calls_after_sends(ExecMode mode) noexcept {
    return mode == ExecMode::AllAtOnce || mode == ExecMode::StepSynchronous || mode == ExecMode::Handshake;
  }
  /// Sends i / receives i whose datatype here is not MPI_DATATYPE_NULL move in place: one element of
  /// that datatype at the base given to post(), instead of pack(i) / unpack(i) on a buffer. The vectors
  /// hold one entry per send / receive (or are empty: nothing in place). Each datatype must be
  /// committed, its size must equal the transfer's bytes (at most INT_MAX), and it stays the caller's:
  /// it must outlive every post() that uses it. Alltoallv mode packs one buffer (in place applies only
  /// when it falls back to AllAtOnce). A message that may go through shared memory (set_shared_memory:
  /// at least its threshold) is packed on both ends, whatever its datatype (in_place_sends()).
  /// Throws hpf::Error for a size mismatch or a pending post().
  void set_in_place(std::vector<MPI_Datatype> send_types, std::vector<MPI_Datatype> recv_types);
  /// Packed messages of at least `min_bytes` (and at most INT_MAX) between ranks of one node go
  /// through shared memory (see the header comment: from the first or second execution on); SIZE_MAX (the
  /// default) turns it off. Applies to StepSynchronous and AllAtOnce (ignored otherwise, and under
  /// SimGrid SMPI). Every rank of the exchange must set the same value before its first post(): the
  /// receiver of such a message sends its sender an offer in the first execution. Throws hpf::Error
  /// after the first post().
  void set_shared_memory(std::size_t min_bytes);
  /// Sends / receives that move in place: those with a datatype from set_in_place, except messages
  /// that may go through shared memory (set_shared_memory), which are packed on both ends.
  [[nodiscard]] std::size_t in_place_sends() const noexcept;
  [[nodiscard]] std::size_t in_place_recvs() const noexcept;
  /// Sends / receives that move through shared memory (settled once the second execution is complete).
  [[nodiscard]] std::size_t shared_sends() const noexcept;
  [[nodiscard]] std::size_t shared_recvs() const noexcept;
  /// Whether the last post() or post_agreeing() ran on persistent requests: all at once, once the
  /// shared-memory choices stand (from the first post without shared memory, from the third with
  /// it), every message one MPI message. Such a post starts each message's request, made by the first
  /// one (MPI_Send_init, MPI_Recv_init; again when it switches between post() and post_agreeing(),
  /// whose carried messages are others), and completes the receives by MPI_Waitsome: what a post and
  /// wait() cost around the transfers themselves is about halved (docs/redistribute.md, "Persistent
  /// requests"). An in-place request holds the base address it was made for: the requests of the
  /// last two pairs of bases are kept, so that a caller alternating between two buffers (double
  /// buffering) starts requests made once for each.
  [[nodiscard]] bool persistent() const noexcept { return m_settled_now; }
  /// How many sets of persistent requests this exchange has made (a diagnostic; see persistent()).
  [[nodiscard]] std::size_t persistent_sets_made() const noexcept { return m_settled_sets_made; }
  /// Progress without blocking (see the table above); true once complete (then like wait() returned).
  [[nodiscard]] bool test();
  /// Pipelined: at most `w` receives in flight (posted and not yet arrived; 0 = all at post()). With
  /// w = 1 the next receive is posted as soon as the previous one arrives, before it is unpacked: a
  /// transfer overlaps the combination of the previous input, one input at a time (seed 002, Sec. 3.1).
  void set_receive_window(std::size_t w) noexcept { m_window = w; }
  [[nodiscard]] bool posted() const noexcept { return m_posted; }
  /// True when post() only starts nonblocking sends and receives that abandon() can take back (the
  /// flow modes, AllAtOnce and Pipelined). The step modes and Alltoallv are not abandonable.
  [[nodiscard]] bool abandonable() const noexcept {
    return m_mode == ExecMode::AllAtOnce || m_mode == ExecMode::Pipelined;
  }
  /// Takes back a post() whose peers turned out to disagree (DistArray::redistribute's agreement):
  /// pending receives are cancelled and completed, pending sends released. A send no peer receives
  /// stays with MPI, so the communicator must be freed next and never reused. Then nothing is posted.
  /// Throws hpf::Error unless abandonable(); never blocks on a peer.
  void abandon();
  void execute(PackFn pack, UnpackFn unpack) {
    post(std::move(pack), std::move(unpack));
    wait();
  }

  [[nodiscard]] const ExchangePlan& plan() const noexcept { return m_plan; }
  [[nodiscard]] ExecMode mode() const noexcept { return m_mode; }

private:
  // Step modes: start_step posts the current step's receive (and, Handshake, the ready signals) and
  // its send; finish_step completes them and unpacks. post() only starts, so that executions of
  // several exchanges may overlap without one rank blocking in a step its peer has not reached.
  void start_step();
  bool finish_step(bool block);
  bool progress_steps(bool block);
  void run_after_sends();
  void post_flow();
  bool progress_flow(bool block);
  void setup_alltoallv();
  void run_alltoallv();
  // One message, packed or in place: the buffer is used (and sized) only when it is packed.
  // A message that may go through shared memory is packed whatever datatype set_in_place gave it:
  // both of its ends know its size and the threshold, so both pack it, and neither end's choice keeps
  // the other from the segment. So is a message that carries the agreement's header (both ends
  // decide that from the plan). Inline, as the predicates below: each is asked several times per
  // message of every execution.
  [[nodiscard]] MPI_Datatype send_type(std::size_t i) const noexcept {
    return i < m_send_types.size() && !shm_candidate(m_plan.sends[i].bytes) && !carries_send(i)
               ? m_send_types[i]
               : MPI_DATATYPE_NULL;
  }
  [[nodiscard]] MPI_Datatype recv_type(std::size_t i) const noexcept {
    return i < m_recv_types.size() && !shm_candidate(m_plan.recvs[i].bytes) && !carries_recv(i)
               ? m_recv_types[i]
               : MPI_DATATYPE_NULL;
  }
  // Requests: MPI_Irecv / MPI_Isend; PersistentRequests: MPI_Recv_init / MPI_Send_init (one each).
  template <class Reqs> void start_recv(std::size_t i, detail::ByteBuffer& buf, Reqs& reqs);
  void pack_send(std::size_t i, detail::ByteBuffer& buf);
  // pack_send in two halves: where send i is packed (null: in place; a segment is waited for), and
  // what follows its pack (a segment's counter).
  [[nodiscard]] std::byte* pack_target(std::size_t i, detail::ByteBuffer& buf);
  void pack_done(std::size_t i);
  void start_sends_batched();
  // With set_batch, once every receive has arrived: one unpack_many call (got(i): the bytes receive i
  // brought).
  template <class Got> void unpack_batched(Got got);
  // The settled path: an AllAtOnce post() or post_agreeing(), once every shared-memory choice stands
  // (from the first post without shared memory, from the third with it), when every message is one MPI
  // message (packed, a segment's notice, or in place). Each message then has a persistent request, made by
  // the first such post (again when it switches between carrying the agreement and not, or when an in-place
  // base differs) and started by every later one: MPI_Startall spares each message MPI_Isend's and
  // MPI_Irecv's checks and request set-up, and the receives complete by MPI_Waitsome instead of a test per
  // receive per pass. With the agreement, the receives that carry headers start in the post and the others as
  // their peers agree (post_held_from, headers_agreed), as on the flow path.
  [[nodiscard]] bool settled();
  void post_settled();
  bool progress_settled(bool block);
  void drop_settled() noexcept;
  template <class Reqs> void start_send(std::size_t i, const detail::ByteBuffer& buf, Reqs& reqs);
  // The bytes receive i brought, from its completed request(s) `reqs` (SIZE_MAX: split past INT_MAX).
  [[nodiscard]] std::size_t received_bytes(std::size_t i, const Requests& reqs) const;
  // `got`: the bytes the receive brought (SIZE_MAX: not known, a message split past INT_MAX).
  void finish_recv(std::size_t i, const detail::ByteBuffer& buf, std::size_t got);
  // finish_recv in two halves: where receive i is unpacked from (null: in place), after the checks,
  // and what follows its unpack (a segment's counter).
  [[nodiscard]] const std::byte* recv_source(std::size_t i, const detail::ByteBuffer& buf, std::size_t got);
  void recv_done(std::size_t i);
  // Shared memory: the offers of the first execution, posted before its data; whether send i may
  // start (its offer is in, or it has none: block waits for it); and what the first execution leaves.
  [[nodiscard]] bool shm_setting_up() const noexcept { return m_shm_min != SIZE_MAX && m_shm_execs < 2; }
  [[nodiscard]] bool shm_offered(std::size_t bytes) const noexcept;
  // A message of `bytes` that may go through a segment (above the threshold, one MPI message): packed.
  [[nodiscard]] bool shm_candidate(std::size_t bytes) const noexcept {
    return m_shm_min != SIZE_MAX && bytes > 0 && bytes >= m_shm_min && bytes <= max_message_bytes;
  }
  void make_offers();
  void post_offers();
  void prepare_agreeing();
  void post_offer_receives(int peer);
  void post_held_from(int peer);
  bool offer_in(std::size_t i, bool block);
  bool send_may_start(std::size_t i, bool block);
  void finish_offers();
  [[nodiscard]] detail::SharedSegment* send_segment(std::size_t i) const noexcept;
  [[nodiscard]] detail::SharedSegment* recv_segment(std::size_t i) const noexcept;
  void start(PackFn pack, UnpackFn unpack, const void* send_base, void* recv_base);
  // The agreement carried (post_agreeing): which messages carry the header, decided once (the plan and
  // the threshold are fixed), and whether send / receive i carries it in this post.
  void plan_carrying();
  [[nodiscard]] bool carries_send(std::size_t i) const noexcept {
    return m_carrying && i < m_send_carries.size() && m_send_carries[i] != 0;
  }
  [[nodiscard]] bool carries_recv(std::size_t i) const noexcept {
    return m_carrying && i < m_recv_carries.size() && m_recv_carries[i] != 0;
  }
  // A carried message between ranks whose headers go through the agreement's mailbox (the private
  // communicator's, core/pairwise_agreement.hpp): it travels in the mailbox's slot with its header,
  // and MPI carries nothing (its persistent request is a null one).
  [[nodiscard]] bool boxed_send(std::size_t i) const noexcept {
    return m_box != nullptr && carries_send(i) && m_box->boxed(m_plan.sends[i].peer);
  }
  [[nodiscard]] bool boxed_recv(std::size_t i) const noexcept {
    return m_box != nullptr && carries_recv(i) && m_box->boxed(m_plan.recvs[i].peer);
  }
  // Notes that receive i has arrived (flow modes); a receive that carries the header is checked here.
  bool note_arrival(std::size_t i, bool block);

  detail::PendingFlag m_posted; // first: a move checks it before any other member moves
  Comm m_comm;
  ExchangePlan m_plan;
  ExecMode m_mode;
  int m_tag;
  PackFn m_pack;
  UnpackFn m_unpack;
  // set_batch: the callbacks, whether this post() has yet to call pack_many, and their arguments.
  PackManyFn m_pack_many;
  UnpackManyFn m_unpack_many;
  bool m_batch_pack_due = false;
  // set_after_sends: the callback, and whether this post() has yet to call it.
  std::function<void()> m_after_sends;
  bool m_after_sends_due = false;
  std::vector<std::size_t> m_batch_sends;
  std::vector<std::byte*> m_batch_outs;
  std::vector<std::size_t> m_batch_recvs;
  std::vector<const std::byte*> m_batch_ins;
  // In place: per send / receive a datatype (MPI_DATATYPE_NULL: packed), and this post()'s bases.
  std::vector<MPI_Datatype> m_send_types;
  std::vector<MPI_Datatype> m_recv_types;
  const void* m_send_base = nullptr;
  void* m_recv_base = nullptr;
  // Step-driven modes: progress through the steps and the two reusable message buffers.
  std::vector<int> m_steps;
  std::size_t m_next_step = 0;
  std::size_t m_si = 0;
  std::size_t m_ri = 0;
  bool m_step_open = false; // the step m_next_step - 1 is started, not finished
  bool m_step_sending = false;
  bool m_step_receiving = false;
  bool m_send_started = false; // Handshake: the data send waits for the receiver's signal
  Requests m_step_reqs;
  Requests m_ready_req;
  detail::ByteBuffer m_send_buf;
  detail::ByteBuffer m_recv_buf;
  // AllAtOnce and Pipelined (the "flow" modes): one buffer and one request set per message.
  std::vector<detail::ByteBuffer> m_send_bufs;
  std::vector<detail::ByteBuffer> m_recv_bufs;
  std::vector<Requests> m_sreq;
  std::vector<Requests> m_rreq;
  std::vector<char> m_arrived;     // per receive: completed
  std::vector<char> m_unpacked;    // per receive (AllAtOnce unpacks in arrival order)
  std::vector<char> m_sent;        // per send: completed
  std::vector<char> m_recv_posted; // post_agreeing: per receive, posted early (post_held_from)
  std::size_t m_window = 0;
  // Shared memory: threshold (SIZE_MAX: off), executions completed (counted to 2: then every choice
  // stands), segments per send and receive (null: through MPI; a receive's is used once a notice
  // has come through it, m_recv_shared), executions packed into each send's segment, and the offers
  // in flight (per send: one request).
  std::size_t m_shm_min = SIZE_MAX;
  bool m_ever_posted = false;
  int m_shm_execs = 0;
  std::vector<char> m_recv_shared;
  std::vector<std::shared_ptr<detail::SharedSegment>> m_send_segs;
  std::vector<std::shared_ptr<detail::SharedSegment>> m_recv_segs;
  std::vector<std::uint64_t> m_send_uses;
  std::vector<detail::SegmentOffer> m_offers_out;
  std::vector<detail::SegmentOffer> m_offers_in;
  std::vector<char> m_offer_pending;
  std::vector<Requests> m_offer_recvs;
  bool m_offers_held = false; // post_agreeing: the offers' receives wait for the headers
  bool m_offers_made = false; // post_agreeing: made before the headers (make_offers), not sent yet
  Requests m_offer_sends;
  std::size_t m_rposted = 0;  // receives posted
  std::size_t m_rarrived = 0; // receives completed
  std::size_t m_rdone = 0;    // receives unpacked (Pipelined: a prefix in step order)
  std::size_t m_sstarted = 0; // sends started
  std::size_t m_sdone = 0;    // first send not known to be complete
  // The agreement carried (post_agreeing): this post carries it, its hash, per send / receive whether
  // the header rides in front (empty until planned), the peers that get and send the header alone,
  // the messages to and from each peer, its state (0: open, 1: agreed, -1: differ), a difference seen in a
  // carried header so far, and the header-only messages.
  bool m_carrying = false;
  bool m_carry_planned = false;
  bool m_some_send_carries = false; // a send of this rank carries the header (see send_may_start)
  std::uint64_t m_hash = 0;
  std::vector<char> m_send_carries;
  std::vector<char> m_recv_carries;
  std::vector<char> m_header_to;
  std::vector<char> m_header_from;
  std::vector<std::vector<std::size_t>> m_sends_to;   // per peer: its sends (offers held for it)
  std::vector<std::vector<std::size_t>> m_recvs_from; // per peer: its receives (held until its header)
  int m_header_state = 0;
  bool m_carried_differ = false;
  detail::AgreementHeaders m_headers;
  detail::AgreementMailbox* m_box = nullptr; // post_agreeing: its communicator's mailbox, if any
  std::uint64_t m_box_round = 0;             // ... and this post's round in it
  // The settled path (settled()): whether it applies once settled (unknown until a post asks; reset
  // by set_in_place), whether this post() runs it, the persistent requests (one per receive and per
  // send, in plan order; empty until made), and this post's progress: receives not yet complete, the
  // bytes each brought (set_batch), whether the batch is unpacked and the sends complete.
  bool m_settled_known = false;
  bool m_settled_ok = false;
  bool m_settled_start_all = false;      // one message at most with each peer each way: MPI_Startall
  bool m_settled_recvs_in_place = false; // then the receives' requests hold m_settled_recv_base
  bool m_settled_sends_in_place = false;
  void* m_settled_recv_base = nullptr;
  const void* m_settled_send_base = nullptr;
  bool m_settled_now = false;
  bool m_settled_built = false;
  bool m_settled_carrying = false; // the requests were made for post_agreeing's messages
  PersistentRequests m_precvs;
  PersistentRequests m_psends;
  // The requests of the bases before (in place, a request holds its base), made under the same
  // carrying state and on the same buffers: a post at those bases swaps them back in.
  PersistentRequests m_spare_precvs;
  PersistentRequests m_spare_psends;
  void* m_spare_recv_base = nullptr;
  const void* m_spare_send_base = nullptr;
  bool m_spare_built = false;
  std::size_t m_settled_sets_made = 0;
  std::size_t m_settled_left = 0;
  bool m_settled_unpacked = false;
  bool m_settled_sent = false;
  std::vector<std::size_t> m_got;
  std::vector<std::size_t> m_some_got;
  // Alltoallv: counts, displacements and buffers, set up by the first post() and reused (the plan is
  // fixed, so they never change).
  bool m_a2a_ready = false;
  bool m_fallback = false; // Alltoallv counts too large: run AllAtOnce instead
  std::vector<int> m_sc, m_sd, m_rc, m_rd;
  detail::ByteBuffer m_a2a_send;
  detail::ByteBuffer m_a2a_recv;
};

} // namespace hpf
