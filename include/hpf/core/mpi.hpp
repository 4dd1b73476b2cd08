// Thin RAII over the MPI handles hpfrt uses, and the checks around every MPI call.
//
// - HPF_MPI_CHECK(call): turns a non-success return code into hpf::Error naming the call.
// - Comm: shared, value-semantic owner of a duplicated communicator that uses MPI_ERRORS_RETURN.
// - Requests: an owned list of MPI_Request; its destructor completes whatever is still pending.
// - PersistentRequests: persistent requests made once and started many times; freed by the destructor.
// - Datatype: an owned derived datatype, freed unless MPI is already finalised.
// - Large messages: isend_bytes / irecv_bytes split a byte range into chunks of at most INT_MAX
//   bytes, so no count is ever narrowed to int with wrap-around.
// - Agreement (runtime/core/agree.cpp): detail::agree_on_error makes a check that failed on some ranks
//   fail on all of them; check_same_on_all_ranks checks that every rank passed the same arguments to
//   a collective, both at the cost of one small allreduce when nothing is wrong.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/core/math.hpp>

#include <mpi.h>

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace hpf {
namespace detail {

/// Throws hpf::Error naming the call, MPI's text for `rc`, and where it was made.
[[noreturn]] void mpi_fail(int rc, const char* call, const char* file, int line);

/// Throws hpf::Error for an MPI return code other than MPI_SUCCESS. Inline: every MPI call of an
/// exchange goes through it, and a small exchange makes dozens of them.
inline void mpi_check(int rc, const char* call, const char* file, int line) {
  if (rc != MPI_SUCCESS) [[unlikely]]
    mpi_fail(rc, call, file, line);
}

} // namespace detail

#define HPF_MPI_CHECK(call) ::hpf::detail::mpi_check((call), #call, __FILE__, __LINE__)

/// A communicator owned by hpfrt. Copies share the handle; the last copy frees it (unless MPI is
/// already finalised). Created communicators use MPI_ERRORS_RETURN so that failures become hpf::Error.
class Comm {
public:
  Comm() = default;

  /// Collective over `parent`: duplicates it and sets MPI_ERRORS_RETURN on the duplicate.
  static Comm duplicate(MPI_Comm parent);
  /// Takes ownership of an existing handle (MPI_COMM_NULL gives an empty Comm).
  static Comm adopt(MPI_Comm owned);

  /// The handle (MPI_COMM_NULL for an empty Comm); the Comm keeps ownership.
  [[nodiscard]] MPI_Comm get() const noexcept { return m_shared ? m_shared->handle : MPI_COMM_NULL; }
  /// True for an empty Comm.
  [[nodiscard]] bool is_null() const noexcept { return get() == MPI_COMM_NULL; }
  /// Rank of the calling process (MPI_Comm_rank). Local. Throws hpf::Error for an empty Comm.
  [[nodiscard]] int rank() const;
  /// Number of processes (MPI_Comm_size). Local. Throws hpf::Error for an empty Comm.
  [[nodiscard]] int size() const;

  /// The value of the attribute `keyval` on this communicator, or nullptr when it has none
  /// (MPI_Comm_get_attr). A value found is remembered by this Comm and its copies, so that a path
  /// every call takes (REDISTRIBUTE's cost model, its one-node flag, its agreement's communicator)
  /// does not pay Open MPI's locked attribute lookup each time. Only for keyvals whose delete
  /// callback calls detail::comm_attributes_changed(): a value set again, deleted, or freed with its
  /// communicator then makes every remembered value be looked up afresh, so none is ever stale.
  /// Local; one thread at a time (the Comm's memo is not locked).
  [[nodiscard]] void* attribute(int keyval) const;

private:
  struct Shared {
    MPI_Comm handle = MPI_COMM_NULL;
    // The attributes found by attribute(), valid while the global epoch equals `epoch`.
    std::uint64_t epoch = 0;
    std::size_t remembered = 0;
    std::array<std::pair<int, void*>, 4> memo{};
  };
  std::shared_ptr<Shared> m_shared;
};

namespace detail {
/// Forgets every attribute value that Comm::attribute() remembers, in every Comm. Called by the
/// delete callback of every keyval read through Comm::attribute() (MPI calls it when the value is
/// replaced, deleted, or freed with its communicator). Never throws.
void comm_attributes_changed() noexcept;
} // namespace detail

/// An owned set of pending requests. `wait_all()` completes them; the destructor does too, so
/// that no buffer is released while MPI may still touch it.
class Requests {
public:
  Requests() = default;
  Requests(const Requests&) = delete;
  Requests& operator=(const Requests&) = delete;
  /// Takes over the requests of the list moved from, which is left empty.
  Requests(Requests&&) noexcept = default;
  /// Completes this list's pending requests, then takes over `other`'s; `other` is left empty.
  Requests& operator=(Requests&& other) noexcept;
  ~Requests();

  /// A slot for a nonblocking call (MPI_Isend, MPI_Irecv) to fill; its index counts from 0.
  MPI_Request* add() { return &m_reqs.emplace_back(MPI_REQUEST_NULL); }
  /// Blocks until every request has completed; the list is emptied.
  void wait_all();
  /// True (and the list emptied) when every request has completed; never blocks.
  [[nodiscard]] bool test();
  /// Blocks until one pending request completes and returns its index (the index add() gave it,
  /// counting from 0), or -1 when none is pending. The completed slot stays, as MPI_REQUEST_NULL.
  /// With `received`, a receive of MPI_BYTE also gives the bytes it brought.
  int wait_any(std::size_t* received = nullptr);
  /// Never blocks: the index of a pending request that has completed (its slot becomes
  /// MPI_REQUEST_NULL), -1 when none is pending, -2 when some are but none has completed. `received`
  /// as in wait_any.
  int test_any(std::size_t* received = nullptr);
  /// Indices of the requests that have completed since the last call, without blocking.
  [[nodiscard]] std::vector<int> test_some();
  /// True when request `i` has completed (MPI_REQUEST_NULL); does not call MPI.
  [[nodiscard]] bool done(std::size_t i) const { return m_reqs.at(i) == MPI_REQUEST_NULL; }
  /// Forgets every request; all must have completed. Throws hpf::Error otherwise.
  void clear();
  /// True when the list holds no request.
  [[nodiscard]] bool empty() const noexcept { return m_reqs.empty(); }
  /// Number of requests in the list, completed slots included.
  [[nodiscard]] std::size_t size() const noexcept { return m_reqs.size(); }
  /// After wait_all(), or a test() that returned true: the bytes request i (a receive of MPI_BYTE)
  /// brought, i counting from 0 in the order of add() since the list was last emptied.
  [[nodiscard]] std::size_t received_bytes(std::size_t i) const;

private:
  std::vector<MPI_Request> m_reqs;
  std::vector<MPI_Status> m_status; // of the requests completed by the last wait_all() or test()
};

/// Persistent requests (MPI_Send_init / MPI_Recv_init): made once, started and completed many times
/// (the same message to the same peer from the same buffer each time), which spares each start the
/// argument checks and request set-up of MPI_Isend / MPI_Irecv. Move-only; the destructor frees
/// them, waiting first for any still active (as Requests does).
class PersistentRequests {
public:
  PersistentRequests() = default;
  PersistentRequests(const PersistentRequests&) = delete;
  PersistentRequests& operator=(const PersistentRequests&) = delete;
  /// Takes over `other`'s requests; `other` is left empty.
  PersistentRequests(PersistentRequests&& other) noexcept
      : m_reqs(std::exchange(other.m_reqs, {})), m_active(std::exchange(other.m_active, {})) {}
  /// Frees this object's requests (as clear()), then takes over `other`'s; `other` is left empty.
  PersistentRequests& operator=(PersistentRequests&& other) noexcept;
  ~PersistentRequests() { clear(); }

  /// A slot for MPI_Send_init / MPI_Recv_init to fill.
  MPI_Request* add() {
    m_active.push_back(0);
    return &m_reqs.emplace_back(MPI_REQUEST_NULL);
  }
  /// Starts request i (MPI_Start); it must be inactive.
  void start(std::size_t i);
  /// Blocks until at least one started request completes (MPI_Waitsome; with `block` false,
  /// MPI_Testsome) and returns the indices that did (empty: none yet, or none active). Only the started
  /// requests are passed to MPI. `received` gets, per index, the bytes a receive of MPI_BYTE brought
  /// (SIZE_MAX when MPI cannot count them).
  std::span<const int> some(bool block, std::vector<std::size_t>* received = nullptr);
  /// Frees every request, waiting first for any still active. Never throws.
  void clear() noexcept;

private:
  std::vector<MPI_Request> m_reqs;
  std::vector<char> m_active;       // per request: started and not yet seen complete
  std::vector<MPI_Request> m_live;  // of the last some(): the active requests' handles
  std::vector<int> m_live_index;    // ... and their indices in m_reqs
  std::vector<MPI_Status> m_status; // of the last some()
  std::vector<int> m_indices;       // of the last some()
};

/// An owned MPI datatype: move-only, freed by the destructor unless MPI is finalised (or null).
class Datatype {
public:
  Datatype() = default;
  /// Takes ownership of a derived datatype (MPI_DATATYPE_NULL gives an empty Datatype).
  explicit Datatype(MPI_Datatype owned) noexcept : m_type(owned) {}
  Datatype(const Datatype&) = delete;
  Datatype& operator=(const Datatype&) = delete;
  /// Takes over `other`'s handle; `other` is left empty.
  Datatype(Datatype&& other) noexcept : m_type(other.release()) {}
  /// Frees this handle (reset()), then takes over `other`'s; `other` is left empty.
  Datatype& operator=(Datatype&& other) noexcept {
    if (this != &other) {
      reset();
      m_type = other.release();
    }
    return *this;
  }
  ~Datatype() { reset(); }

  /// The handle (MPI_DATATYPE_NULL when empty); the Datatype keeps ownership.
  [[nodiscard]] MPI_Datatype get() const noexcept { return m_type; }
  /// True when no datatype is owned.
  [[nodiscard]] bool is_null() const noexcept { return m_type == MPI_DATATYPE_NULL; }
  /// Gives up ownership: the caller frees the handle.
  [[nodiscard]] MPI_Datatype release() noexcept {
    const MPI_Datatype t = m_type;
    m_type = MPI_DATATYPE_NULL;
    return t;
  }
  /// Frees the handle (if any, and if MPI is still running).
  void reset() noexcept;

private:
  MPI_Datatype m_type = MPI_DATATYPE_NULL;
};

/// The handles of `types`, in order (MPI_DATATYPE_NULL for empty ones); `types` keeps ownership.
inline std::vector<MPI_Datatype> raw_handles(const std::vector<Datatype>& types) {
  std::vector<MPI_Datatype> out;
  out.reserve(types.size());
  for (const Datatype& t : types) out.push_back(t.get());
  return out;
}

/// Largest byte count sent in one MPI message; larger ranges are split.
inline constexpr std::size_t max_message_bytes = static_cast<std::size_t>(INT32_MAX);

/// Posts non-blocking sends of `nbytes` bytes from `data` to `dest` with `tag`, chunked.
void isend_bytes(const Comm& comm, const void* data, std::size_t nbytes, int dest, int tag, Requests& reqs);
/// Posts the matching receives (the receiver must know `nbytes`).
void irecv_bytes(const Comm& comm, void* data, std::size_t nbytes, int source, int tag, Requests& reqs);
/// Calls into MPI's progress engine once (an MPI_Iprobe on `comm`) without sending, receiving or
/// touching any request. Without an asynchronous progress thread a message above the eager limit
/// only moves while its receiver is inside MPI; long local work calls this between pieces (e.g. from
/// an Exchange unpack callback, where Exchange::test() must not be re-entered).
void drive_progress(const Comm& comm);

/// The MPI datatype of a C++ arithmetic type (used by the collective reductions).
template <class T> MPI_Datatype mpi_type() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, double>)
    return MPI_DOUBLE;
  else if constexpr (std::is_same_v<U, float>)
    return MPI_FLOAT;
  else if constexpr (std::is_same_v<U, long double>)
    return MPI_LONG_DOUBLE;
  else if constexpr (std::is_same_v<U, int>)
    return MPI_INT;
  else if constexpr (std::is_same_v<U, unsigned>)
    return MPI_UNSIGNED;
  else if constexpr (std::is_same_v<U, long>)
    return MPI_LONG;
  else if constexpr (std::is_same_v<U, unsigned long>)
    return MPI_UNSIGNED_LONG;
  else if constexpr (std::is_same_v<U, long long>)
    return MPI_LONG_LONG;
  else if constexpr (std::is_same_v<U, unsigned long long>)
    return MPI_UNSIGNED_LONG_LONG;
  else if constexpr (std::is_same_v<U, short>)
    return MPI_SHORT;
  else if constexpr (std::is_same_v<U, unsigned short>)
    return MPI_UNSIGNED_SHORT;
  else if constexpr (std::is_same_v<U, signed char>)
    return MPI_SIGNED_CHAR;
  else if constexpr (std::is_same_v<U, unsigned char>)
    return MPI_UNSIGNED_CHAR;
  else if constexpr (std::is_same_v<U, char>)
    return MPI_CHAR;
  else if constexpr (std::is_same_v<U, std::complex<float>>)
    return MPI_CXX_FLOAT_COMPLEX;
  else if constexpr (std::is_same_v<U, std::complex<double>>)
    return MPI_CXX_DOUBLE_COMPLEX;
  else
    static_assert(sizeof(U) == 0, "hpf::mpi_type: no MPI datatype for this element type");
}

/// True for the element types that mpi_type<T>() knows.
template <class T> inline constexpr bool has_mpi_type_v = std::is_arithmetic_v<T> ||
                                                          std::is_same_v<T, std::complex<float>> ||
                                                          std::is_same_v<T, std::complex<double>>;

/// Rank and size of a raw communicator, checked.
int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

namespace detail {

/// Collective over `comm`: if any rank passes a non-empty `local_problem`, every rank throws
/// hpf::Error with the problem of the lowest such rank (so that no rank is left waiting in a later
/// collective); ranks that did not see it themselves add "[reported by rank R]".
void agree_on_error(const Comm& comm, const std::string& local_problem);
void agree_on_error(MPI_Comm comm, const std::string& local_problem);

/// 64-bit FNV-1a-style mix of words, one at a time (a fingerprint of a collective's arguments).
class WordHash {
public:
  void add(std::int64_t w) noexcept {
    std::uint64_t x = static_cast<std::uint64_t>(w) + 0x9e3779b97f4a7c15ULL; // a 64-bit finaliser per word
    x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
    x ^= x >> 31U;
    m_h = (m_h ^ x) * 0x100000001b3ULL;
    ++m_n;
  }
  [[nodiscard]] std::uint64_t value() const noexcept { return m_h ^ m_n; }

private:
  std::uint64_t m_h = 0xcbf29ce484222325ULL; // FNV-1a offset basis
  std::uint64_t m_n = 0;
};

/// WordHash of `words`.
[[nodiscard]] std::uint64_t hash_words(std::span<const std::int64_t> words) noexcept;

} // namespace detail

/// A collective's arguments as integers with a name each, for messages (check_same_on_all_ranks).
struct NamedWords {
  std::vector<std::int64_t> words; ///< the arguments, flattened
  std::vector<std::string> names;  ///< one per word (or none)
};

/// Collective over `comm`: checks that every rank passed the same `words` (a collective's arguments
/// flattened to integers: extents, block sizes, grid ranks and shape, a root...) and throws the same
/// hpf::Error on every rank otherwise, naming `what`. One MPI_Allreduce of three 64-bit words (the
/// maximum of a hash of the words and of its complement, and a failure flag) when the ranks agree;
/// when they do not, a full compare (on the error path only) names the first word that differs, with
/// its minimum and maximum over the ranks: the words and names of `full_words()` when given (`words`
/// may then be a digest of them, such as cached hashes), else `words` with `names` (one per word, or
/// none: named by index). A non-empty `local_problem` is this rank's own failure before the
/// collective (an allocation, a plan): it travels in the same allreduce, and when any rank has one,
/// every rank throws the problem of the lowest such rank (as agree_on_error, which then runs),
/// before the arguments are compared. With argument checks off (argument_checks()), nothing is
/// compared and no MPI call is made: a `local_problem` is thrown on this rank only.
void check_same_on_all_ranks(MPI_Comm comm, std::string_view what, std::span<const std::int64_t> words,
                             std::span<const std::string_view> names = {},
                             std::string_view local_problem = {},
                             const std::function<NamedWords()>& full_words = {});

/// Whether check_same_on_all_ranks compares arguments: true unless the environment variable
/// HPF_CHECK_ARGUMENTS is 0 (read once) or set_argument_checks(false) was called. Every rank must see
/// the same value, or ranks would disagree on whether the check's allreduce takes place.
[[nodiscard]] bool argument_checks() noexcept;
/// Turns the argument checks on or off for this process (every rank the same). Local.
void set_argument_checks(bool on) noexcept;

} // namespace hpf
