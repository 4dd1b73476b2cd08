// Process relabeling: the weights V from the 1-D communication grids, and the exact arrangement from
// the assignment solver (see relabel.hpp).
#include <hpf/redist/relabel.hpp>
#include <hpf/redist/runs.hpp>
#include <hpf/schedule/assignment.hpp>

#include <algorithm>
#include <string>

namespace hpf {

namespace {

/// "{0, 3, 1}", shortened after 16 entries (grids of a thousand ranks).
std::string ranks_text(const std::vector<int>& v) {
  constexpr std::size_t shown = 16;
  std::string s = "{";
  for (std::size_t i = 0; i < v.size() && i < shown; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  if (v.size() > shown) s += ", ... (" + std::to_string(v.size()) + " ranks)";
  return s + "}";
}

/// Throws hpf::Error unless the fields of `s` (named `name`) agree with each other.
void check_side(const RelabelSide& s, std::string_view name) {
  const std::size_t n = s.ranks.size();
  detail::require(!s.maps.empty(), "relabel_volumes: ", name,
                  ".maps is empty; expected one map per array dimension");
  detail::require(s.counts.size() == n, "relabel_volumes: ", name, ".counts has ", s.counts.size(),
                  " entries; expected one per grid position (", n, ")");
  detail::require(s.coords.size() == n * s.maps.size(), "relabel_volumes: ", name, ".coords has ",
                  s.coords.size(), " entries; expected one per grid position and array dimension (", n, " x ",
                  s.maps.size(), ")");
  for (int pos = 0; pos < s.size(); ++pos)
    for (int d = 0; d < static_cast<int>(s.maps.size()); ++d) {
      const int c = s.coord(pos, d);
      if (c < 0 || c >= s.maps[static_cast<std::size_t>(d)].P)
        detail::fail("relabel_volumes: ", name, " position ", pos, " has coordinate ", c, " along dimension ",
                     d, "; expected one in [0, ", s.maps[static_cast<std::size_t>(d)].P, ")");
    }
}

/// True when `a` and `b` hold the same ranks, in any order.
bool same_rank_set(std::vector<int> a, std::vector<int> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

} // namespace

namespace detail {

void require_same_rank_set(const std::vector<int>& expected, const std::vector<int>& ranks,
                           std::string_view what, std::string_view name) {
  if (!same_rank_set(expected, ranks))
    fail(what, ": ", name, " ", ranks_text(ranks), " is not a rearrangement of the target grid's ranks ",
         ranks_text(expected), "; expected the same set of parent ranks, in any order");
}

} // namespace detail

RelabelSide RelabelSide::plain(const std::vector<index_t>& extents, const std::vector<Distribution>& dists,
                               const std::vector<int>& shape, const std::vector<int>& ranks,
                               int parent_size) {
  detail::require(dists.size() == extents.size(), "RelabelSide::plain: ", dists.size(), " distributions for ",
                  extents.size(), " extents; expected one per array dimension");
  detail::require(!shape.empty(), "RelabelSide::plain: shape is empty; expected 1 to ", max_rank,
                  " grid dimensions");
  std::size_t product = 1;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    detail::require(shape[k] >= 1, "RelabelSide::plain: shape[", k, "] must be >= 1, got ", shape[k]);
    product *= static_cast<std::size_t>(shape[k]);
  }
  detail::require(product == ranks.size(), "RelabelSide::plain: the shape has ", product, " positions but ",
                  ranks.size(), " ranks were given");
  RelabelSide s;
  std::vector<int> grid_dim; // per array dimension, as the plain Layout constructor places it
  std::size_t next = 0;
  for (std::size_t d = 0; d < extents.size(); ++d) {
    const bool collapsed = dists[d].is_collapsed();
    detail::require(collapsed || next < shape.size(),
                    "RelabelSide::plain: more distributed dimensions than the ", shape.size(),
                    " grid dimension(s); expected one grid dimension per distributed dimension");
    grid_dim.push_back(collapsed ? -1 : static_cast<int>(next));
    s.maps.push_back(dists[d].map(extents[d], collapsed ? 1 : shape[next]));
    next += collapsed ? 0 : 1;
  }
  detail::require(next == shape.size() || (next == 0 && product == 1), "RelabelSide::plain: ", next,
                  " distributed dimension(s) on a grid of ", shape.size(),
                  " dimension(s); expected one grid dimension per distributed dimension");
  s.ranks = ranks;
  s.parent_size = parent_size;
  for (std::size_t pos = 0; pos < ranks.size(); ++pos) {
    for (const int g : grid_dim) {
      std::size_t c = pos; // the coordinate along grid dimension g (Fortran order)
      for (int k = 0; k < g; ++k) c /= static_cast<std::size_t>(shape[static_cast<std::size_t>(k)]);
      s.coords.push_back(
          g < 0 ? 0 : static_cast<int>(c % static_cast<std::size_t>(shape[static_cast<std::size_t>(g)])));
    }
    s.counts.push_back(1);
  }
  return s;
}

RelabelVolumes relabel_volumes(const RelabelSide& source, const RelabelSide& target) {
  check_side(source, "source");
  check_side(target, "target");
  const std::size_t dims = source.maps.size();
  detail::require(target.maps.size() == dims, "relabel_volumes: the source has ", dims,
                  " array dimension(s) and the target ", target.maps.size(), "; expected the same");
  // Per dimension, the 1-D grid as a dense P x Q table: the closed forms, never the elements.
  std::vector<std::vector<index_t>> grid(dims);
  std::vector<int> Q(dims);
  for (std::size_t d = 0; d < dims; ++d) {
    const CyclicMap& a = source.maps[d];
    const CyclicMap& b = target.maps[d];
    detail::require(a.n == b.n, "relabel_volumes: dimension ", d, " has extent ", a.n, " in the source and ",
                    b.n, " in the target; expected the same extents");
    Q[d] = b.P;
    grid[d].assign(static_cast<std::size_t>(a.P) * static_cast<std::size_t>(b.P), 0);
    const CommMatrix pattern = dim_pattern(a, b);
    for (const Message& m : pattern.entries())
      grid[d][static_cast<std::size_t>(m.src) * static_cast<std::size_t>(b.P) +
              static_cast<std::size_t>(m.dst)] += m.len;
  }
  RelabelVolumes V;
  V.rows = source.size();
  V.cols = target.size();
  V.v.assign(static_cast<std::size_t>(V.rows) * static_cast<std::size_t>(V.cols), 0);
  for (int i = 0; i < V.rows; ++i) {
    if (source.counts[static_cast<std::size_t>(i)] == 0) continue;
    for (int j = 0; j < V.cols; ++j) {
      if (target.counts[static_cast<std::size_t>(j)] == 0) continue;
      // An N-d block is the product of its 1-D parts; it fits in index_t as the array's size does.
      index_t e = 1;
      for (std::size_t d = 0; d < dims && e != 0; ++d)
        e *= grid[d][static_cast<std::size_t>(source.coord(i, static_cast<int>(d))) *
                         static_cast<std::size_t>(Q[d]) +
                     static_cast<std::size_t>(target.coord(j, static_cast<int>(d)))];
      V.v[static_cast<std::size_t>(i) * static_cast<std::size_t>(V.cols) + static_cast<std::size_t>(j)] = e;
      V.total = detail::checked_add(V.total, e, "relabel_volumes: the elements the target holds");
    }
  }
  return V;
}

Relabeling best_relabeling(const RelabelSide& source, const RelabelSide& target, std::size_t element_bytes) {
  detail::require(element_bytes >= 1, "best_relabeling: element_bytes must be >= 1, got ", element_bytes);
  detail::require(source.parent_size == target.parent_size,
                  "best_relabeling: the source grid's parent communicator has ", source.parent_size,
                  " ranks and the target grid's ", target.parent_size, "; expected one parent");
  if (!same_rank_set(source.ranks, target.ranks))
    detail::fail("best_relabeling: the target grid holds the parent ranks ", ranks_text(target.ranks),
                 " and the source grid ", ranks_text(source.ranks),
                 "; expected grids over the same set of ranks (any shapes and orders)");
  // The source position of every rank, to count what the target grid as given keeps.
  std::vector<int> row_of_rank(static_cast<std::size_t>(std::max(source.parent_size, 0)), -1);
  for (int i = 0; i < source.size(); ++i) {
    const int r = source.ranks[static_cast<std::size_t>(i)];
    detail::require(r >= 0 && r < source.parent_size, "best_relabeling: source rank ", r,
                    " is outside the parent communicator of size ", source.parent_size);
    int& row = row_of_rank[static_cast<std::size_t>(r)];
    detail::require(row < 0, "best_relabeling: rank ", r, " is at source positions ", row, " and ", i,
                    "; expected each rank once");
    row = i;
  }
  const RelabelVolumes V = relabel_volumes(source, target);
  const int n = V.rows; // = V.cols: the same ranks on both sides
  const Assignment best = max_weight_assignment(n, V.v);
  // Kept with the target grid as given: target position j stays with the rank at j.
  index_t kept_given = 0;
  for (int j = 0; j < n; ++j)
    kept_given += V.at(row_of_rank[static_cast<std::size_t>(target.ranks[static_cast<std::size_t>(j)])], j);
  Relabeling out;
  const auto bytes = static_cast<index_t>(element_bytes);
  out.bytes_moved_given =
      detail::checked_mul(V.total - kept_given, bytes, "best_relabeling: the bytes moved");
  if (kept_given >= best.weight) { // the given arrangement is already one of the best: keep it
    out.ranks = target.ranks;
    out.bytes_moved = out.bytes_moved_given;
    return out;
  }
  out.ranks.resize(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j)
    out.ranks[static_cast<std::size_t>(j)] =
        source.ranks[static_cast<std::size_t>(best.row_of[static_cast<std::size_t>(j)])];
  out.bytes_moved = detail::checked_mul(V.total - best.weight, bytes, "best_relabeling: the bytes moved");
  return out;
}

} // namespace hpf
