// The runs of a REDISTRIBUTE message as an MPI datatype (Exchange::set_in_place): a PeriodicRuns
// (redist/runs.hpp) is one side's period of StridedRuns, repeated at the slice shift, then a tail, which
// is the form exec/datatype.hpp builds. The type map lists the bytes in global order, the order pack()
// writes them.
#pragma once

#include <hpf/core/mpi.hpp>
#include <hpf/redist/runs.hpp>

#include <optional>

namespace hpf::detail {

/// The datatype of the pieces `runs` selects on `side` (Side::Src: source offsets, Side::Dst: target
/// offsets; not Side::Both), each element being one `elem` (a datatype whose bytes start at offset 0)
/// and consecutive elements `elem_stride` bytes apart. Not committed. nullopt when a count does not fit
/// MPI's int (the caller packs instead).
[[nodiscard]] std::optional<Datatype> runs_datatype(const PeriodicRuns& runs, Side side, MPI_Datatype elem,
                                                    MPI_Aint elem_stride);

/// Mean bytes per contiguous piece of `runs` with elements of `elem_bytes` bytes (0 without pieces).
[[nodiscard]] double mean_piece_bytes(const PeriodicRuns& runs, std::size_t elem_bytes) noexcept;

} // namespace hpf::detail
