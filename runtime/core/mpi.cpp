#include <hpf/core/mpi.hpp>

#include <algorithm>
#include <atomic>

namespace hpf {
namespace detail {

void mpi_fail(int rc, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  fail("MPI call failed: ", call, " returned ", rc, " (", std::string(text, static_cast<std::size_t>(len)),
       ") at ", file, ":", line);
}

namespace {
bool mpi_alive() {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

/// Moves on whenever an attribute read through Comm::attribute() changes anywhere (starts at 1: a
/// Comm's epoch 0 means it remembers nothing).
std::atomic<std::uint64_t> g_attribute_epoch{1};
} // namespace

void comm_attributes_changed() noexcept { g_attribute_epoch.fetch_add(1, std::memory_order_acq_rel); }
} // namespace detail

Comm Comm::duplicate(MPI_Comm parent) {
  MPI_Comm dup = MPI_COMM_NULL;
  HPF_MPI_CHECK(MPI_Comm_dup(parent, &dup));
  HPF_MPI_CHECK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
  return adopt(dup);
}

Comm Comm::adopt(MPI_Comm owned) {
  Comm c;
  if (owned != MPI_COMM_NULL) {
    HPF_MPI_CHECK(MPI_Comm_set_errhandler(owned, MPI_ERRORS_RETURN));
    c.m_shared = std::shared_ptr<Shared>(new Shared{owned, 0, 0, {}}, [](Shared* sh) {
      MPI_Comm h = sh->handle;
      if (h != MPI_COMM_WORLD && h != MPI_COMM_SELF && detail::mpi_alive()) MPI_Comm_free(&h);
      delete sh;
    });
  }
  return c;
}

void* Comm::attribute(int keyval) const {
  detail::require(m_shared != nullptr, "Comm::attribute: the communicator is null");
  Shared& sh = *m_shared;
  const std::uint64_t now = detail::g_attribute_epoch.load(std::memory_order_acquire);
  if (sh.epoch != now) { // something changed since these were found: forget them
    sh.epoch = now;
    sh.remembered = 0;
  }
  for (std::size_t i = 0; i < sh.remembered; ++i)
    if (sh.memo[i].first == keyval) return sh.memo[i].second;
  void* value = nullptr;
  int found = 0;
  HPF_MPI_CHECK(MPI_Comm_get_attr(sh.handle, keyval, &value, &found));
  if (found == 0) return nullptr; // not remembered: a value set later is found then
  if (sh.remembered < sh.memo.size()) sh.memo[sh.remembered++] = {keyval, value};
  return value;
}

void Datatype::reset() noexcept {
  if (m_type != MPI_DATATYPE_NULL && detail::mpi_alive()) MPI_Type_free(&m_type);
  m_type = MPI_DATATYPE_NULL;
}

int Comm::rank() const { return comm_rank(get()); }
int Comm::size() const { return comm_size(get()); }

int comm_rank(MPI_Comm comm) {
  detail::require(comm != MPI_COMM_NULL, "comm_rank: communicator is MPI_COMM_NULL");
  int r = 0;
  HPF_MPI_CHECK(MPI_Comm_rank(comm, &r));
  return r;
}

int comm_size(MPI_Comm comm) {
  detail::require(comm != MPI_COMM_NULL, "comm_size: communicator is MPI_COMM_NULL");
  int s = 0;
  HPF_MPI_CHECK(MPI_Comm_size(comm, &s));
  return s;
}

Requests& Requests::operator=(Requests&& other) noexcept {
  if (this != &other) {
    if (!m_reqs.empty() && detail::mpi_alive())
      MPI_Waitall(static_cast<int>(m_reqs.size()), m_reqs.data(), MPI_STATUSES_IGNORE);
    m_reqs = std::move(other.m_reqs);
    other.m_reqs.clear();
  }
  return *this;
}

Requests::~Requests() {
  // Never throw from a destructor: a failed wait here means an earlier error is already in flight.
  if (!m_reqs.empty() && detail::mpi_alive())
    MPI_Waitall(static_cast<int>(m_reqs.size()), m_reqs.data(), MPI_STATUSES_IGNORE);
}

void Requests::wait_all() {
  if (m_reqs.empty()) return;
  m_status.resize(m_reqs.size());
  const int rc = MPI_Waitall(static_cast<int>(m_reqs.size()), m_reqs.data(), m_status.data());
  m_reqs.clear(); // emptied even on failure (the destructor must not wait again); capacity kept, so
                  // that an exchange repeated many times allocates no request lists
  detail::mpi_check(rc, "MPI_Waitall", __FILE__, __LINE__);
}

bool Requests::test() {
  if (m_reqs.empty()) return true;
  int flag = 0;
  m_status.resize(m_reqs.size());
  HPF_MPI_CHECK(MPI_Testall(static_cast<int>(m_reqs.size()), m_reqs.data(), &flag, m_status.data()));
  if (flag != 0) m_reqs.clear();
  return flag != 0;
}

std::size_t Requests::received_bytes(std::size_t i) const {
  detail::require(m_reqs.empty() && i < m_status.size(), "Requests::received_bytes: request ", i,
                  " is not among the ", m_status.size(), " completed by the last wait_all() or test()");
  int n = 0;
  HPF_MPI_CHECK(MPI_Get_count(&m_status[i], MPI_BYTE, &n));
  return n == MPI_UNDEFINED ? SIZE_MAX : static_cast<std::size_t>(n);
}

int Requests::wait_any(std::size_t* received) {
  if (m_reqs.empty()) return -1;
  int index = MPI_UNDEFINED;
  MPI_Status status{};
  HPF_MPI_CHECK(MPI_Waitany(static_cast<int>(m_reqs.size()), m_reqs.data(), &index, &status));
  if (index == MPI_UNDEFINED) return -1;
  if (received != nullptr) {
    int n = 0;
    HPF_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &n));
    *received = n == MPI_UNDEFINED ? SIZE_MAX : static_cast<std::size_t>(n);
  }
  return index;
}

int Requests::test_any(std::size_t* received) {
  if (m_reqs.empty()) return -1;
  int index = MPI_UNDEFINED;
  int flag = 0;
  MPI_Status status{};
  HPF_MPI_CHECK(MPI_Testany(static_cast<int>(m_reqs.size()), m_reqs.data(), &index, &flag, &status));
  if (flag == 0) return -2;
  if (index == MPI_UNDEFINED) return -1; // every request null: none pending
  if (received != nullptr) {
    int n = 0;
    HPF_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &n));
    *received = n == MPI_UNDEFINED ? SIZE_MAX : static_cast<std::size_t>(n);
  }
  return index;
}

std::vector<int> Requests::test_some() {
  std::vector<int> out;
  if (m_reqs.empty()) return out;
  out.resize(m_reqs.size());
  int n = 0;
  HPF_MPI_CHECK(
      MPI_Testsome(static_cast<int>(m_reqs.size()), m_reqs.data(), &n, out.data(), MPI_STATUSES_IGNORE));
  out.resize(n == MPI_UNDEFINED ? 0 : static_cast<std::size_t>(n));
  return out;
}

void Requests::clear() {
  for (const MPI_Request r : m_reqs)
    detail::require(r == MPI_REQUEST_NULL, "Requests::clear: a request is still pending");
  m_reqs.clear();
}

PersistentRequests& PersistentRequests::operator=(PersistentRequests&& other) noexcept {
  if (this != &other) {
    clear();
    m_reqs = std::exchange(other.m_reqs, {});
    m_active = std::exchange(other.m_active, {});
  }
  return *this;
}

namespace {
std::size_t status_bytes(const MPI_Status& status) {
  int n = 0;
  HPF_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &n));
  return n == MPI_UNDEFINED ? SIZE_MAX : static_cast<std::size_t>(n);
}
} // namespace

void PersistentRequests::start(std::size_t i) {
  HPF_MPI_CHECK(MPI_Start(&m_reqs[i]));
  m_active[i] = 1;
}

// Only the started requests go to MPI_Waitsome: an inactive persistent request is to be ignored, but
// passing only the active ones costs less and does not lean on every MPI (SimGrid SMPI among them)
// getting that right. The handle of a persistent request does not change when it completes, so the
// copies stand for the requests.
std::span<const int> PersistentRequests::some(bool block, std::vector<std::size_t>* received) {
  m_live.clear();
  m_live_index.clear();
  for (std::size_t i = 0; i < m_reqs.size(); ++i)
    if (m_active[i] != 0) {
      m_live.push_back(m_reqs[i]);
      m_live_index.push_back(static_cast<int>(i));
    }
  m_indices.resize(m_live.size());
  m_status.resize(m_live.size());
  int count = 0;
  if (!m_live.empty()) {
    const int n = static_cast<int>(m_live.size());
    if (block)
      HPF_MPI_CHECK(MPI_Waitsome(n, m_live.data(), &count, m_indices.data(), m_status.data()));
    else
      HPF_MPI_CHECK(MPI_Testsome(n, m_live.data(), &count, m_indices.data(), m_status.data()));
    if (count == MPI_UNDEFINED) count = 0;
  }
  if (received != nullptr) received->resize(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) {
    const int i = m_live_index[static_cast<std::size_t>(m_indices[static_cast<std::size_t>(k)])];
    m_active[static_cast<std::size_t>(i)] = 0;
    m_indices[static_cast<std::size_t>(k)] = i;
    if (received != nullptr) (*received)[static_cast<std::size_t>(k)] = status_bytes(m_status[k]);
  }
  return {m_indices.data(), static_cast<std::size_t>(count)};
}

void PersistentRequests::clear() noexcept {
  if (detail::mpi_alive())
    for (MPI_Request& r : m_reqs)
      if (r != MPI_REQUEST_NULL) {
        MPI_Wait(&r, MPI_STATUS_IGNORE); // returns at once for an inactive request
        MPI_Request_free(&r);
      }
  m_reqs.clear();
  m_active.clear();
}

void isend_bytes(const Comm& comm, const void* data, std::size_t nbytes, int dest, int tag, Requests& reqs) {
  const auto* p = static_cast<const char*>(data);
  do {
    const std::size_t n = std::min(nbytes, max_message_bytes);
    HPF_MPI_CHECK(MPI_Isend(p, static_cast<int>(n), MPI_BYTE, dest, tag, comm.get(), reqs.add()));
    p += n;
    nbytes -= n;
  } while (nbytes > 0);
}

void irecv_bytes(const Comm& comm, void* data, std::size_t nbytes, int source, int tag, Requests& reqs) {
  auto* p = static_cast<char*>(data);
  do {
    const std::size_t n = std::min(nbytes, max_message_bytes);
    HPF_MPI_CHECK(MPI_Irecv(p, static_cast<int>(n), MPI_BYTE, source, tag, comm.get(), reqs.add()));
    p += n;
    nbytes -= n;
  } while (nbytes > 0);
}

void drive_progress(const Comm& comm) {
  int flag = 0;
  HPF_MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm.get(), &flag, MPI_STATUS_IGNORE));
}

} // namespace hpf
