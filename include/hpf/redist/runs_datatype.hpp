// The runs of a message as an MPI datatype, so that MPI sends a message straight from the source
// block and receives it straight into the target block (Exchange::set_in_place): no pack, no unpack,
// no message buffer. Without MPI's single-copy transport a packed message is copied four times (pack,
// into the shared segment, out of it, unpack); in place it is copied twice.
//
// A PeriodicRuns (redist/runs.hpp) maps onto MPI's constructors one to one:
//   - a piece of `len` elements is a contiguous (or, above dimension 0, an hvector of) `len` elements;
//   - a StridedRun is an hvector of `count` pieces, `step` elements apart, at its local offset;
//   - one slice is the struct of its runs, resized to the slice shift and repeated `reps` times
//     (MPI_Type_contiguous), followed by the tail runs.
// The datatype's type map lists the bytes in the order pack() writes them (global order), so either
// end of a message may be in place while the other packs.
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
