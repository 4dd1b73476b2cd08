#include <hpf/exec/datatype.hpp>
#include <hpf/redist/runs_datatype.hpp>

#include <vector>

namespace hpf::detail {

namespace {

/// The runs of `runs` on one side of the message (exec/datatype.hpp's form).
std::vector<PieceRun> side_runs(const std::vector<StridedRun>& runs, Side side) {
  std::vector<PieceRun> out;
  out.reserve(runs.size());
  for (const StridedRun& r : runs)
    out.push_back(side == Side::Src ? PieceRun{r.src_local, r.len, r.count, r.src_step}
                                    : PieceRun{r.dst_local, r.len, r.count, r.dst_step});
  return out;
}

} // namespace

std::optional<Datatype> runs_datatype(const PeriodicRuns& runs, Side side, MPI_Datatype elem,
                                      MPI_Aint elem_stride) {
  require(side != Side::Both, "runs_datatype: the side must be Src or Dst");
  return periodic_datatype(side_runs(runs.period, side), runs.reps,
                           side == Side::Src ? runs.src_shift : runs.dst_shift, side_runs(runs.tail, side),
                           elem, elem_stride);
}

double mean_piece_bytes(const PeriodicRuns& runs, std::size_t elem_bytes) noexcept {
  index_t pieces = 0;
  for (const StridedRun& r : runs.period) pieces += r.count;
  pieces *= runs.reps;
  for (const StridedRun& r : runs.tail) pieces += r.count;
  if (pieces == 0) return 0;
  return static_cast<double>(runs.elements) * static_cast<double>(elem_bytes) / static_cast<double>(pieces);
}

} // namespace hpf::detail
