// A message's elements as an MPI derived datatype, so that Exchange::set_in_place sends it straight
// from the source block and receives it straight into the target block: no pack, no unpack, no message
// buffer. Without MPI's single-copy transport a packed message is copied four times (pack, into the
// shared segment, out of it, unpack); in place it is copied twice.
//
// The layers that plan messages describe one side of a message the same way: runs of equally spaced
// pieces, a period of such runs repeated with a fixed shift, then a tail (redist/runs_datatype.hpp for
// REDISTRIBUTE, section/plan.hpp for array sections). That description maps onto MPI's constructors one
// to one:
//   - a piece of `len` elements is a contiguous (or, when elements are not adjacent, an hvector of)
//     `len` elements;
//   - a run is an hvector of `count` pieces, `step` elements apart, at its local offset;
//   - the period is the struct of its runs, resized to the shift and repeated `reps` times
//     (MPI_Type_contiguous), followed by the tail's runs.
// The type map lists the bytes in the order of the runs, which is the order the packing loops write
// them, so either end of a message may be in place while the other packs.
#pragma once

#include <hpf/core/math.hpp>
#include <hpf/core/mpi.hpp>

#include <optional>
#include <span>

namespace hpf::detail {

/// `count` pieces of `len` consecutive elements, piece t starting at element local + t step (steps
/// may be negative: reversed sections).
struct PieceRun {
  index_t local = 0;
  index_t len = 0;
  index_t count = 1;
  index_t step = 0;
};

/// The datatype of the elements of `period` (runs in order) repeated `reps` times, copy k lying
/// k `shift` elements further, followed by those of `tail`. Each element is one `elem` (a datatype whose
/// bytes start at offset 0), consecutive elements `elem_stride` bytes apart. Not committed. nullopt when
/// a count does not fit MPI's int, or for a negative shift of more than one copy (the caller packs).
[[nodiscard]] std::optional<Datatype> periodic_datatype(std::span<const PieceRun> period, index_t reps,
                                                        index_t shift, std::span<const PieceRun> tail,
                                                        MPI_Datatype elem, MPI_Aint elem_stride);

/// `bytes` contiguous bytes, the element of a message of trivially copyable values. Not committed.
[[nodiscard]] Datatype element_datatype(std::size_t bytes);

/// Commits `type` and returns it.
[[nodiscard]] Datatype committed(Datatype type);

} // namespace hpf::detail
