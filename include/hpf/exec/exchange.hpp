// Executors: run the calling rank's part of a scheduled exchange on byte buffers.
//
// exec/ knows bytes, not arrays (docs/architecture.md): a plan lists, for this rank, the messages it
// sends and receives (peer, byte count, step); packing and unpacking are callbacks. The same executor
// serves redistribution, sections, shadows, irregular gathers/scatters, reduction trees, broadcasts and
// steady-state pipelines, and builds under SimGrid SMPI. Every byte goes through MPI.
//
//   | mode            | what it does                                                                |
//   |-----------------|-----------------------------------------------------------------------------|
//   | StepSynchronous | per step at most one send and one receive per rank, completed before the    |
//   |                 | next step; one send and one receive buffer (Desprez et al., Sec. 2)         |
//   | Handshake       | StepSynchronous where the receiver first sends a zero-byte ready signal and |
//   |                 | the sender sends on it: no unexpected messages (S1 of Wang and Ranka)       |
//   | AllAtOnce       | every receive posted, then every send in step order; each receive unpacked  |
//   |                 | as it arrives (S2 of Wang and Ranka); set_batch packs / unpacks in one call |
//   | Pipelined       | dataflow in step order (trees, pipelines): receives posted ahead within a   |
//   |                 | window and unpacked in step order; a send of step k starts once every       |
//   |                 | receive of an earlier step is unpacked and every earlier send completed     |
//   | Alltoallv       | one MPI_Alltoallv over the communicator (collective: every rank calls)      |
//
// Requests are persistent (MPI_Send_init / MPI_Recv_init), made by the first post() and started by
// every later one; a message that moves in place (set_in_place: an MPI datatype over the caller's
// memory, no pack or unpack) has its request made again when post() gets another base address.
// Message buffers are allocated once per Exchange (core/memory.hpp recycles them between exchanges).
// A message larger than INT_MAX bytes is split into several MPI messages, never wrapped.
//
// Split phase: post() starts the exchange and never blocks on a peer (but Alltoallv, one blocking
// collective, completes in post()); wait() completes it; test() progresses without blocking and
// returns true once complete. Several exchanges may be in flight on one communicator if they use
// distinct tags, or are waited in the same order on every rank.
#pragma once

#include <hpf/core/memory.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/core/tags.hpp>
#include <hpf/schedule/schedule.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpf {

namespace detail {
/// An allocator whose resize() leaves new elements uninitialised: message buffers are always written
/// (packed or received) before they are read. Large buffers come from allocate_large (core/memory.hpp).
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
/// pending Exchange throws hpf::Error before any other member has moved.
class PendingFlag {
public:
  PendingFlag() = default;
  PendingFlag(const PendingFlag&) = delete;
  PendingFlag& operator=(const PendingFlag&) = delete;
  // NOLINTNEXTLINE(bugprone-exception-escape,performance-noexcept-move-constructor): refuses by design
  PendingFlag(PendingFlag&& other) : m_on(other.m_on) { refuse_if(m_on, "moved from"); }
  // NOLINTNEXTLINE(bugprone-exception-escape,performance-noexcept-move-constructor): refuses by design
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
  // NOLINTNEXTLINE(google-explicit-constructor,hicpp-explicit-conversions): read as the bool it is
  operator bool() const noexcept { return m_on; }

private:
  static void refuse_if(bool pending, const char* side) {
    if (pending)
      fail("Exchange: the exchange ", side, " has a post() pending; expected wait() to complete it first");
  }
  bool m_on = false;
};
} // namespace detail

/// One message of the calling rank: peer rank in the exchange's communicator, bytes, schedule step.
struct Transfer {
  /// Peer rank in the exchange's communicator.
  int peer = 0;
  /// Bytes of the message.
  std::size_t bytes = 0;
  /// Schedule step.
  int step = 0;
};

/// The calling rank's part of an exchange: sends and receives, each sorted by step.
struct ExchangePlan {
  /// Messages this rank sends, sorted by step.
  std::vector<Transfer> sends;
  /// Messages this rank receives, sorted by step.
  std::vector<Transfer> recvs;
  /// Total bytes of the sends.
  [[nodiscard]] std::size_t send_bytes() const noexcept;
  /// Total bytes of the receives.
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

/// "step-synchronous", "all-at-once", "handshake", "alltoallv", "pipelined".
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

/// Runs one ExchangePlan (see the table above). Owns its buffers and requests; reusable: post() may
/// be called again once wait() (or a test() that returned true) completed the previous one. Alltoallv
/// is collective over the communicator; the other modes involve only the ranks that exchange messages.
class Exchange {
public:
  /// Local. Throws hpf::Error for a null communicator, a tag outside [0, 32000), a peer outside the
  /// communicator, a plan not sorted by step, or two messages in one step of a step mode.
  Exchange(Comm comm, ExchangePlan plan, ExecMode mode, int tag = tags::exchange.base + 1);
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;
  /// Moves an idle exchange; throws hpf::Error when either side has a post() pending (MPI holds
  /// addresses inside it).
  // NOLINTNEXTLINE(bugprone-exception-escape): refuses by design (PendingFlag)
  Exchange(Exchange&&) = default;
  /// Moves an idle exchange (see the move constructor).
  // NOLINTNEXTLINE(bugprone-exception-escape): refuses by design (PendingFlag)
  Exchange& operator=(Exchange&&) = default;
  ~Exchange() = default;

  /// Starts the exchange. `send_base` / `recv_base` are the addresses the in-place datatypes
  /// (set_in_place) are relative to; required when any send / receive is in place. Throws hpf::Error
  /// while a post() is pending.
  void post(PackFn pack, UnpackFn unpack, const void* send_base = nullptr, void* recv_base = nullptr);
  /// Completes the exchange. Throws hpf::Error when nothing was posted.
  void wait();
  /// Progress without blocking; true once complete (then as if wait() returned).
  [[nodiscard]] bool test();
  /// post() then wait().
  void execute(PackFn pack, UnpackFn unpack) {
    post(std::move(pack), std::move(unpack));
    wait();
  }

  /// AllAtOnce (and Alltoallv's fallback to it): from the next post() on, the packed sends are packed
  /// in one pack_many call and the packed receives unpacked in one unpack_many call once all have
  /// arrived, instead of message by message: a caller whose data repeats with a short period moves
  /// every message in one pass over its memory (RedistributionPlan::pack_many). pack_many is called
  /// exactly once per post(), with empty spans when nothing is packed. Empty functions: message by
  /// message. Ignored by the other modes.
  void set_batch(PackManyFn pack_many, UnpackManyFn unpack_many);
  /// From the next post() on, `after` runs once per post(), as soon as the first sends have started
  /// (AllAtOnce: every send; the step modes: the first step's), so that local work placed there
  /// overlaps the transfers (RedistributionExecutor copies the locally kept part). Ignored by
  /// Alltoallv and Pipelined (calls_after_sends).
  void set_after_sends(std::function<void()> after);
  /// Whether set_after_sends' callback runs in `mode`.
  [[nodiscard]] static constexpr bool calls_after_sends(ExecMode mode) noexcept {
    return mode == ExecMode::AllAtOnce || mode == ExecMode::StepSynchronous || mode == ExecMode::Handshake;
  }
  /// Sends i / receives i whose datatype is not MPI_DATATYPE_NULL move in place: one element of that
  /// datatype at the base given to post(). The vectors hold one entry per send / receive, or are
  /// empty. Each datatype must be committed, of size equal to the transfer's bytes (at most INT_MAX),
  /// and outlive the Exchange. The two ends decide independently: a datatype of n bytes matches a
  /// packed message of n bytes. Alltoallv packs every message. Throws hpf::Error for a size mismatch
  /// or a pending post().
  void set_in_place(std::vector<MPI_Datatype> send_types, std::vector<MPI_Datatype> recv_types);
  /// Sends / receives that move in place (set_in_place; none in Alltoallv mode).
  [[nodiscard]] std::size_t in_place_sends() const noexcept;
  /// Receives that move in place (set_in_place; none in Alltoallv mode).
  [[nodiscard]] std::size_t in_place_recvs() const noexcept;
  /// Allocates the message buffers now instead of in the first post(), so that a caller can learn of
  /// a failure before any message goes out (and tell the other ranks: DistArray::redistribute folds
  /// it into its agreement). Throws hpf::Error naming the bytes when memory runs out. Local.
  void reserve();
  /// The bytes of message buffers reserve() allocates (or holds, once allocated), in this mode and
  /// with the messages set_in_place moves without a buffer: what a memory ceiling counts
  /// (RedistOptions::memory_ceiling_bytes). Local; allocates nothing.
  [[nodiscard]] std::size_t buffer_bytes() const noexcept;
  /// Pipelined: at most `w` receives in flight (posted and not yet arrived; 0 = all at post()). With
  /// w = 1 a transfer overlaps the combination of the previous input (Canon and Antoniu, Sec. 3.1).
  void set_receive_window(std::size_t w) noexcept { m_window = w; }

  /// True between post() and the wait() (or the test() that returned true) that completes it.
  [[nodiscard]] bool posted() const noexcept { return m_posted; }
  /// The calling rank's part of the exchange, as given to the constructor.
  [[nodiscard]] const ExchangePlan& plan() const noexcept { return m_plan; }
  /// The mode given to the constructor.
  [[nodiscard]] ExecMode mode() const noexcept { return m_mode; }
  /// How many times this exchange made a message's persistent request (a diagnostic: the first post()
  /// makes one per MPI message; later ones only for in-place messages whose base address changed).
  [[nodiscard]] std::size_t requests_made() const noexcept { return m_requests_made; }

private:
  // One MPI message of a transfer: transfer index, offset and bytes within it.
  struct Piece {
    std::size_t msg;
    std::size_t offset;
    std::size_t bytes;
  };
  // One direction's messages: their buffers, datatypes, MPI pieces and persistent requests.
  struct Side {
    std::vector<MPI_Datatype> types;      // per transfer; empty or MPI_DATATYPE_NULL: packed
    std::vector<detail::ByteBuffer> bufs; // per transfer (the step modes share bufs[0])
    std::vector<Piece> pieces;            // in transfer order
    std::vector<std::size_t> first;       // transfer i's pieces: [first[i], first[i + 1])
    const void* base_made = nullptr;      // the base the in-place requests were made for
    std::vector<std::uint32_t> left;      // per transfer: pieces not complete in this post()
    std::size_t started = 0;              // transfers started in this post()
    std::size_t done = 0;                 // transfers complete (receives: unpacked) in this post()
    [[nodiscard]] bool in_place(std::size_t i) const noexcept {
      return i < types.size() && types[i] != MPI_DATATYPE_NULL;
    }
  };

  [[nodiscard]] const std::vector<Transfer>& transfers(bool recv) const noexcept {
    return recv ? m_plan.recvs : m_plan.sends;
  }
  void layout_side(bool recv);
  void make_requests();
  [[nodiscard]] std::byte* buffer(bool recv, std::size_t i);
  void start_transfer(bool recv, std::size_t i);
  void pack_and_start(std::size_t i);
  void unpack(std::size_t i);
  // Completes whatever requests MPI reports done (blocking for at least one when `block`); false
  // when none was active.
  bool complete_some(bool block);
  bool progress(bool block);
  bool progress_flow(bool block);
  bool progress_steps(bool block);
  void start_step();
  void start_sends_batched();
  void unpack_batched();
  [[nodiscard]] bool send_ready(std::size_t i);
  [[nodiscard]] bool complete(bool recv, std::size_t i) const noexcept {
    const Side& s = recv ? m_recv : m_send;
    return i < s.started && s.left[i] == 0;
  }
  [[nodiscard]] ExecMode running_mode() const noexcept {
    return m_mode == ExecMode::Alltoallv && m_fallback ? ExecMode::AllAtOnce : m_mode;
  }
  void setup_alltoallv();
  void run_alltoallv();
  [[nodiscard]] std::size_t piece_index(bool recv, std::size_t piece) const noexcept {
    return recv ? piece : m_recv.pieces.size() + piece;
  }

  detail::PendingFlag m_posted; // first: a move checks it before any other member moves
  Comm m_comm;
  ExchangePlan m_plan;
  ExecMode m_mode;
  int m_tag;
  PackFn m_pack;
  UnpackFn m_unpack;
  PackManyFn m_pack_many;
  UnpackManyFn m_unpack_many;
  std::function<void()> m_after_sends;
  bool m_after_due = false;
  Side m_send;
  Side m_recv;
  const void* m_send_base = nullptr;
  void* m_recv_base = nullptr;
  // Persistent requests: the receives' pieces, then the sends' (piece_index). Made on first use.
  PersistentRequests m_reqs;
  bool m_reqs_made = false;
  std::size_t m_requests_made = 0;
  std::vector<std::size_t> m_received; // bytes per completed request of the last complete_some()
  // Step modes: the steps that have messages, the next one, and the open step's send / receive.
  std::vector<int> m_steps;
  std::size_t m_next_step = 0;
  bool m_step_open = false;
  std::size_t m_step_send = SIZE_MAX;
  std::size_t m_step_recv = SIZE_MAX;
  bool m_step_send_started = false;
  Requests m_ready_in;  // Handshake: the receiver's ready signal this rank's send waits for
  Requests m_ready_out; // Handshake: this rank's ready signal to its sender
  // Pipelined: at most this many receives in flight (0: all).
  std::size_t m_window = 0;
  std::size_t m_arrived = 0;     // receives complete (not yet necessarily unpacked)
  std::size_t m_send_prefix = 0; // sends before this index are complete
  // Alltoallv: counts and displacements, computed by the first post(), and the fallback to AllAtOnce
  // (agreed by every rank in every post) when any count or displacement would not fit an int.
  bool m_a2a_ready = false;
  bool m_fallback = false;
  std::vector<int> m_sc, m_sd, m_rc, m_rd;
  detail::ByteBuffer m_a2a_send;
  detail::ByteBuffer m_a2a_recv;
};

} // namespace hpf
