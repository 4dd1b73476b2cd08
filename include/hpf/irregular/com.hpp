// Run-time assembly of the communication matrix COM from each rank's send list (Wang and Ranka §4:
// "all processors can participate in a concatenate operation which will combine each processor's
// sending vector to form the communication matrix COM and leave a copy at every processor").
//
// After assemble_com every rank holds the same CommMatrix, so every rank can (1) read its receive
// list off its column — assumption 4 of Wang and Ranka §2.1 ("each processor knows ... the source nodes
// of its incoming messages") is met without a second user call — and (2) compute the same schedule
// locally with a pure scheduler of schedule/all_to_many.hpp: no schedule is ever broadcast.
#pragma once

#include <hpf/core/mpi.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/schedule/all_to_many.hpp>
#include <hpf/schedule/schedule.hpp>

#include <span>
#include <string>
#include <vector>

namespace hpf {

/// One entry of a rank's send list: `len` units to rank `dst`.
struct SendEntry {
  int dst = 0;     ///< destination rank
  index_t len = 0; ///< units to send
};

/// Collective over `comm`: the n x n COM (n = comm.size()) whose row r is rank r's send list.
/// Entries with len 0 are dropped, repeated destinations accumulate. Every rank validates every
/// list, so a bad entry (dst outside [0, n), len < 0) throws hpf::Error on every rank, naming the
/// rank, the position in its list and the value.
///
/// Cost: one MPI_Allgather of one count per rank and one MPI_Allgatherv of the E = sum of the
/// list lengths entries (16 bytes each): O(alpha log n + beta (n + 16 E)) with recursive-doubling
/// collectives — the "concatenate" of Wang and Ranka §4, O(alpha log n + beta d n) for density d — plus
/// O(E log E) local work to sort the matrix.
[[nodiscard]] CommMatrix assemble_com(const Comm& comm, std::span<const SendEntry> my_sends);

/// The messages `rank` receives (column `rank` of COM), by ascending source.
[[nodiscard]] std::vector<Message> receive_list(const CommMatrix& com, int rank);
/// The messages `rank` sends (row `rank` of COM), by ascending destination.
[[nodiscard]] std::vector<Message> send_list(const CommMatrix& com, int rank);

/// The calling rank's part of an all-to-many schedule whose senders and receivers are the ranks of
/// a communicator (sender i = receiver i = rank i): exchange_plan with identity rank maps.
[[nodiscard]] ExchangePlan all_to_many_exchange_plan(const Schedule& s, int my_rank,
                                                     std::size_t bytes_per_unit);

/// The executor Wang and Ranka §6 pairs with each algorithm: S1 (ExecMode::Handshake) for those built
/// on pairwise exchanges and synchronised phases (LP, RS_NL, optimal), S2 (ExecMode::AllAtOnce)
/// for AC and RS_N.
[[nodiscard]] ExecMode paper_exec_mode(AllToManyAlgo a) noexcept;

} // namespace hpf
