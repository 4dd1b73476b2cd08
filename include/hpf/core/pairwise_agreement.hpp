// The agreement of a collective carried beside its own messages (issue 10).
//
// check_same_on_all_ranks (core/mpi.hpp) is one MPI_Allreduce before the collective moves any data:
// a whole extra round, which is most of what a small REDISTRIBUTE costs beyond the exchange itself
// (bench/redistribute/overhead.sh). On a communicator of at most pairwise_agreement_limit() ranks,
// PairwiseAgreement instead sends the calling rank's hash of its arguments to every other rank and
// receives theirs, on a private duplicate of the communicator; the collective posts its own messages
// on that duplicate right after, so that the headers and the data travel together.
//
// Every rank sends and receives exactly one header per other rank whatever its arguments, so the
// headers complete on every rank even when the arguments differ, and then every rank sees the
// difference (each has every other rank's hash). Its collective takes its messages back
// (Exchange::abandon: receives cancelled, sends released) and discard() frees the private duplicate,
// so that a message no rank received can never match a later call; the next call makes a new one.
// A collective whose post() may block (a step mode, MPI_Alltoallv) waits for agreed() before posting.
//
// The choice between this and the allreduce depends only on the communicator's size, the same on
// every rank. The private duplicate is an attribute of the communicator (never keyed by its handle),
// made by the first call on it (collective) and freed with it.
#pragma once

#include <hpf/core/mpi.hpp>

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

class PairwiseAgreement {
public:
  /// Collective over `comm` (the first call on `comm` duplicates it): sends `hash` to every other rank
  /// and posts the receives of theirs. Never blocks on a peer otherwise.
  PairwiseAgreement(MPI_Comm comm, std::uint64_t hash);
  PairwiseAgreement(const PairwiseAgreement&) = delete;
  PairwiseAgreement& operator=(const PairwiseAgreement&) = delete;
  ~PairwiseAgreement() = default; // Requests' destructor completes the headers (they always arrive)

  /// The private duplicate of the communicator: the collective posts its messages there.
  [[nodiscard]] const Comm& comm() const noexcept { return m_private; }
  /// Identifies the private duplicate (a new one after discard()): a cache of anything built on
  /// comm() compares this, never the handle, which MPI may reuse.
  [[nodiscard]] std::uint64_t generation() const noexcept { return m_generation; }
  /// Completes the headers (the first call; later calls return the same): true when every rank
  /// passed the same hash.
  [[nodiscard]] bool agreed();
  /// Collective over the communicator, after !agreed() (every rank sees it): frees the private
  /// duplicate, whose unmatched messages go with it.
  void discard();

private:
  MPI_Comm m_parent = MPI_COMM_NULL;
  Comm m_private;
  std::uint64_t m_generation = 0;
  std::uint64_t m_hash = 0;
  std::vector<std::uint64_t> m_theirs;
  Requests m_reqs;
  int m_state = 0; // 0: headers pending, 1: agreed, -1: differ
};

} // namespace hpf::detail
