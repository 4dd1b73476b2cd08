// PairwiseAgreement (core/pairwise_agreement.hpp): the hash of a collective's arguments sent to every
// other rank beside the collective's own messages, on a private duplicate of the communicator.
#include <hpf/core/pairwise_agreement.hpp>
#include <hpf/core/tags.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

namespace hpf::detail {
namespace {

std::atomic<int> g_limit{16};

/// The private duplicate of a communicator, kept as its attribute: never copied to a duplicate of
/// the communicator, freed with it (the Comm frees its handle).
struct Private {
  Comm comm;
  std::uint64_t generation = 0;
};

int delete_private(MPI_Comm, int, void* attr, void*) {
  comm_attributes_changed(); // Comm::attribute() forgets it
  delete static_cast<Private*>(attr);
  return MPI_SUCCESS;
}

int private_keyval() {
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    HPF_MPI_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_private, &k, nullptr));
    return k;
  }();
  return keyval;
}

/// The private duplicate of `comm`, made on first use (collective over `comm`).
const Private& private_of(const Comm& comm) {
  static std::uint64_t next_generation = 0; // rank-local: only compared with itself
  if (const void* attr = comm.attribute(private_keyval())) return *static_cast<const Private*>(attr);
  auto made = std::make_unique<Private>(Private{Comm::duplicate(comm.get()), ++next_generation});
  HPF_MPI_CHECK(MPI_Comm_set_attr(comm.get(), private_keyval(), made.get()));
  return *made.release();
}

} // namespace

int pairwise_agreement_limit() noexcept { return g_limit.load(); }
void set_pairwise_agreement_limit(int ranks) noexcept { g_limit.store(ranks); }
bool pairwise_agreement(MPI_Comm comm) { return comm_size(comm) <= pairwise_agreement_limit(); }

void AgreementHeaders::post(const Comm& comm, std::uint64_t hash, const std::vector<char>& to,
                            const std::vector<char>& from, bool refused) {
  m_mine.hash = hash;
  m_mine.refused = refused ? 1 : 0;
  m_same = true;
  m_recvs.clear(); // every receive of the previous round has completed (next() or agreed())
  const MPI_Comm c = comm.get();
  const int tag = tags::agreement.base;
  m_from.clear();
  for (std::size_t q = 0; q < from.size(); ++q)
    if (from[q] != 0) m_from.push_back(static_cast<int>(q));
  m_theirs.resize(slot * m_from.size());
  for (std::size_t k = 0; k < m_from.size(); ++k)
    HPF_MPI_CHECK(MPI_Irecv(&m_theirs[k * slot], static_cast<int>(agreement_message_max_bytes), MPI_BYTE,
                            m_from[k], tag, c, m_recvs.add()));
  for (std::size_t q = 0; q < to.size(); ++q)
    if (to[q] != 0)
      HPF_MPI_CHECK(MPI_Isend(&m_mine, static_cast<int>(agreement_header_bytes), MPI_BYTE,
                              static_cast<int>(q), tag, c, m_sends.add()));
}

int AgreementHeaders::next(bool& same) {
  std::size_t got = 0;
  const int k = m_recvs.wait_any(&got);
  if (k < 0) return -1;
  // A peer that carries its header in a longer message differs.
  const AgreementHeader& theirs = m_theirs[static_cast<std::size_t>(k) * slot];
  same = got == agreement_header_bytes && theirs.hash == m_mine.hash && theirs.refused == m_mine.refused;
  m_same = m_same && same;
  return m_from[static_cast<std::size_t>(k)];
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
  retired.push_back(m_private);
  HPF_MPI_CHECK(MPI_Comm_delete_attr(m_parent, private_keyval()));
  m_private = Comm();
}

} // namespace hpf::detail
