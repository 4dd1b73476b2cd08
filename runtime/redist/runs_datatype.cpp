#include <hpf/redist/runs_datatype.hpp>

#include <climits>
#include <vector>

namespace hpf::detail {

namespace {

bool fits_int(index_t v) noexcept { return v >= 0 && v <= INT_MAX; }

/// A run's offsets on one side of the message.
struct Offsets {
  index_t local;
  index_t step;
};

Offsets offsets(const StridedRun& r, Side side) noexcept {
  return side == Side::Src ? Offsets{r.src_local, r.src_step} : Offsets{r.dst_local, r.dst_step};
}

/// The members of an MPI struct type under construction (the datatypes it owns until it is built).
class StructBuilder {
public:
  void add(Datatype type, MPI_Aint disp) {
    m_disps.push_back(disp);
    m_types.push_back(type.get());
    m_owned.push_back(std::move(type));
  }
  [[nodiscard]] bool empty() const noexcept { return m_owned.empty(); }
  /// The struct of the members (a single member at displacement 0 is returned as it is).
  [[nodiscard]] std::optional<Datatype> build() {
    if (m_owned.size() == 1 && m_disps[0] == 0) return std::move(m_owned[0]);
    if (m_owned.size() > static_cast<std::size_t>(INT_MAX)) return std::nullopt;
    const std::vector<int> lens(m_owned.size(), 1);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    HPF_MPI_CHECK(MPI_Type_create_struct(static_cast<int>(m_owned.size()), lens.data(), m_disps.data(),
                                         m_types.data(), &t));
    return Datatype(t);
  }

private:
  std::vector<MPI_Aint> m_disps;
  std::vector<MPI_Datatype> m_types;
  std::vector<Datatype> m_owned;
};

/// `len` consecutive elements: contiguous when the elements abut, an hvector otherwise.
Datatype piece_type(index_t len, MPI_Datatype elem, MPI_Aint elem_stride) {
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  HPF_MPI_CHECK(MPI_Type_get_extent(elem, &lb, &extent));
  MPI_Datatype t = MPI_DATATYPE_NULL;
  if (extent == elem_stride)
    HPF_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(len), elem, &t));
  else
    HPF_MPI_CHECK(MPI_Type_create_hvector(static_cast<int>(len), 1, elem_stride, elem, &t));
  return Datatype(t);
}

/// Adds the StridedRun `r` (its pieces in global order) to `out`; false when a count does not fit an int.
bool add_run(StructBuilder& out, const StridedRun& r, Side side, MPI_Datatype elem, MPI_Aint elem_stride) {
  if (!fits_int(r.len) || !fits_int(r.count)) return false;
  const Offsets o = offsets(r, side);
  Datatype piece = piece_type(r.len, elem, elem_stride);
  if (r.count == 1) {
    out.add(std::move(piece), static_cast<MPI_Aint>(o.local) * elem_stride);
    return true;
  }
  MPI_Datatype t = MPI_DATATYPE_NULL;
  HPF_MPI_CHECK(MPI_Type_create_hvector(static_cast<int>(r.count), 1,
                                        static_cast<MPI_Aint>(o.step) * elem_stride, piece.get(), &t));
  out.add(Datatype(t), static_cast<MPI_Aint>(o.local) * elem_stride);
  return true;
}

} // namespace

std::optional<Datatype> runs_datatype(const PeriodicRuns& runs, Side side, MPI_Datatype elem,
                                      MPI_Aint elem_stride) {
  require(side != Side::Both, "runs_datatype: the side must be Src or Dst");
  StructBuilder whole;
  if (runs.reps > 0 && !runs.period.empty()) {
    if (!fits_int(runs.reps)) return std::nullopt;
    StructBuilder slice;
    for (const StridedRun& r : runs.period)
      if (!add_run(slice, r, side, elem, elem_stride)) return std::nullopt;
    std::optional<Datatype> one = slice.build();
    if (!one) return std::nullopt;
    // Slice k lies one shift further than slice k - 1: resize the slice's extent to the shift.
    const index_t shift = side == Side::Src ? runs.src_shift : runs.dst_shift;
    MPI_Datatype resized = MPI_DATATYPE_NULL;
    HPF_MPI_CHECK(
        MPI_Type_create_resized(one->get(), 0, static_cast<MPI_Aint>(shift) * elem_stride, &resized));
    const Datatype owned_resized(resized);
    MPI_Datatype reps = MPI_DATATYPE_NULL;
    HPF_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(runs.reps), resized, &reps));
    whole.add(Datatype(reps), 0);
  }
  for (const StridedRun& r : runs.tail)
    if (!add_run(whole, r, side, elem, elem_stride)) return std::nullopt;
  return whole.build();
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
