#include <hpf/layout/agree.hpp>
#include <hpf/layout/process_grid.hpp>

#include <numeric>

namespace hpf {

namespace {
std::string list_text(const std::vector<int>& v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "}";
}
} // namespace

ProcessGrid ProcessGrid::world(std::vector<int> shape) {
  return ProcessGrid(MPI_COMM_WORLD, std::move(shape));
}

ProcessGrid::ProcessGrid(MPI_Comm parent, std::vector<int> shape)
    : ProcessGrid(
          parent,
          [&] {
            std::vector<int> all(static_cast<std::size_t>(comm_size(parent)));
            std::iota(all.begin(), all.end(), 0);
            return all;
          }(),
          std::move(shape)) {}

namespace {
/// Coordinates of grid position `position` in a grid of `shape` (Fortran order).
std::vector<int> coords_in(const std::vector<int>& shape, int position) {
  std::vector<int> c(shape.size());
  for (std::size_t d = 0; d < c.size(); ++d) {
    c[d] = position % shape[d];
    position /= shape[d];
  }
  return c;
}
} // namespace

ProcessGrid::ProcessGrid(MPI_Comm parent, std::vector<int> ranks, std::vector<int> shape) {
  using detail::fail;
  using detail::require;
  require(parent != MPI_COMM_NULL, "ProcessGrid: parent communicator is MPI_COMM_NULL");
  // Every rank must pass the same ranks and shape. Checked before anything else
  // can throw, so a mismatch is the same hpf::Error on every rank instead of a hang in MPI_Comm_dup.
  {
    AgreementWords w;
    w.add(static_cast<std::int64_t>(shape.size()), [] { return std::string("shape.size"); });
    for (std::size_t d = 0; d < shape.size(); ++d)
      w.add(shape[d], [&] { return "shape[" + std::to_string(d) + "]"; });
    w.add(static_cast<std::int64_t>(ranks.size()), [] { return std::string("ranks.size"); });
    for (std::size_t i = 0; i < ranks.size(); ++i)
      w.add(ranks[i], [&] { return "ranks[" + std::to_string(i) + "]"; });
    w.check(parent, "ProcessGrid");
  }
  auto impl = std::make_shared<Impl>();
  const int psize = comm_size(parent);
  require(!shape.empty() && static_cast<int>(shape.size()) <= max_rank, "ProcessGrid: shape must have 1 to ",
          max_rank, " dimensions, got ", shape.size());
  long long product = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 1)
      fail("ProcessGrid: shape[", d, "] must be >= 1, got ", shape[d], " (shape ", list_text(shape), ")");
    product *= shape[d];
  }
  if (product != static_cast<long long>(ranks.size()))
    fail("ProcessGrid: shape ", list_text(shape), " has ", product, " positions but ", ranks.size(),
         " ranks were given");
  impl->position_of_rank.assign(static_cast<std::size_t>(psize), -1);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int r = ranks[i];
    require(r >= 0 && r < psize, "ProcessGrid: ranks[", i, "] = ", r,
            " is outside the parent communicator of size ", psize);
    int& pos = impl->position_of_rank[static_cast<std::size_t>(r)];
    require(pos < 0, "ProcessGrid: rank ", r, " appears twice in ranks (positions ", pos, " and ", i, ")");
    pos = static_cast<int>(i);
  }
  impl->parent = Comm::duplicate(parent);
  impl->parent_size = psize;
  impl->my_parent_rank = impl->parent.rank();
  impl->my_position = impl->position_of_rank[static_cast<std::size_t>(impl->my_parent_rank)];
  impl->ranks = std::move(ranks);
  impl->shape = std::move(shape);
  if (impl->my_position >= 0) impl->my_coords = coords_in(impl->shape, impl->my_position);
  m_impl = std::move(impl);
}

const std::vector<int>& ProcessGrid::my_coords() const {
  detail::require(contains_me(), "ProcessGrid::my_coords: parent rank ", parent_rank(),
                  " is not in the grid");
  return m_impl->my_coords;
}

std::vector<int> ProcessGrid::coords_of(int position) const {
  detail::require(position >= 0 && position < size(), "ProcessGrid::coords_of: position must be in [0, ",
                  size(), "), got ", position);
  return coords_in(shape(), position);
}

int ProcessGrid::position_of(const std::vector<int>& coords) const {
  detail::require(coords.size() == shape().size(), "ProcessGrid::position_of: expected ", ndims(),
                  " coordinates, got ", coords.size());
  int pos = 0;
  for (std::size_t d = coords.size(); d-- > 0;) {
    detail::require(coords[d] >= 0 && coords[d] < shape()[d], "ProcessGrid::position_of: coords[", d,
                    "] must be in [0, ", shape()[d], "), got ", coords[d]);
    pos = pos * shape()[d] + coords[d];
  }
  return pos;
}

int ProcessGrid::rank_at(int position) const {
  detail::require(position >= 0 && position < size(), "ProcessGrid::rank_at: position must be in [0, ",
                  size(), "), got ", position);
  return ranks()[static_cast<std::size_t>(position)];
}

int ProcessGrid::position_of_rank(int parent_rank) const {
  if (parent_rank < 0 || parent_rank >= parent_size()) return -1;
  return m_impl->position_of_rank[static_cast<std::size_t>(parent_rank)];
}

bool operator==(const ProcessGrid& a, const ProcessGrid& b) {
  if (a.m_impl == b.m_impl) return true;
  if (a.ranks() != b.ranks() || a.shape() != b.shape()) return false;
  int result = MPI_UNEQUAL;
  HPF_MPI_CHECK(MPI_Comm_compare(a.comm().get(), b.comm().get(), &result));
  return result == MPI_IDENT || result == MPI_CONGRUENT;
}

} // namespace hpf
