#include <hpf/exec/datatype.hpp>

#include <climits>
#include <vector>

namespace hpf::detail {

namespace {

bool fits_int(index_t v) noexcept { return v >= 0 && v <= INT_MAX; }

/// The members of an MPI struct type under construction (the datatypes it owns until it is built).
class StructBuilder {
public:
  void add(Datatype type, MPI_Aint disp) {
    m_disps.push_back(disp);
    m_types.push_back(type.get());
    m_owned.push_back(std::move(type));
  }
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

/// Adds the pieces of `r` to `out`; false when a count does not fit an int.
bool add_run(StructBuilder& out, const PieceRun& r, MPI_Datatype elem, MPI_Aint elem_stride) {
  if (!fits_int(r.len) || !fits_int(r.count)) return false;
  Datatype piece = piece_type(r.len, elem, elem_stride);
  const auto disp = static_cast<MPI_Aint>(r.local) * elem_stride;
  if (r.count == 1) {
    out.add(std::move(piece), disp);
    return true;
  }
  MPI_Datatype t = MPI_DATATYPE_NULL;
  HPF_MPI_CHECK(MPI_Type_create_hvector(static_cast<int>(r.count), 1,
                                        static_cast<MPI_Aint>(r.step) * elem_stride, piece.get(), &t));
  out.add(Datatype(t), disp);
  return true;
}

} // namespace

std::optional<Datatype> periodic_datatype(std::span<const PieceRun> period, index_t reps, index_t shift,
                                          std::span<const PieceRun> tail, MPI_Datatype elem,
                                          MPI_Aint elem_stride) {
  StructBuilder whole;
  if (reps == 1) { // one copy: its runs as they are, no resized extent
    for (const PieceRun& r : period)
      if (!add_run(whole, r, elem, elem_stride)) return std::nullopt;
  } else if (reps > 1 && !period.empty()) {
    if (!fits_int(reps) || shift < 0) return std::nullopt;
    StructBuilder slice;
    for (const PieceRun& r : period)
      if (!add_run(slice, r, elem, elem_stride)) return std::nullopt;
    std::optional<Datatype> one = slice.build();
    if (!one) return std::nullopt;
    // Copy k lies one shift further than copy k - 1: resize the copy's extent to the shift.
    MPI_Datatype resized = MPI_DATATYPE_NULL;
    HPF_MPI_CHECK(
        MPI_Type_create_resized(one->get(), 0, static_cast<MPI_Aint>(shift) * elem_stride, &resized));
    const Datatype owned_resized(resized);
    MPI_Datatype copies = MPI_DATATYPE_NULL;
    HPF_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(reps), resized, &copies));
    whole.add(Datatype(copies), 0);
  }
  for (const PieceRun& r : tail)
    if (!add_run(whole, r, elem, elem_stride)) return std::nullopt;
  return whole.build();
}

Datatype element_datatype(std::size_t bytes) {
  require(bytes >= 1 && bytes <= static_cast<std::size_t>(INT_MAX), "element_datatype: bytes must be in [1, ",
          INT_MAX, "], got ", bytes);
  MPI_Datatype e = MPI_DATATYPE_NULL;
  HPF_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &e));
  return Datatype(e);
}

Datatype committed(Datatype type) {
  MPI_Datatype t = type.release();
  HPF_MPI_CHECK(MPI_Type_commit(&t));
  return Datatype(t);
}

} // namespace hpf::detail
