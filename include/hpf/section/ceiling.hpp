// Moves under a memory ceiling: B(sb) = A(sa) as a sequence of smaller section moves ("pieces"),
// each of whose message buffers fit in a given number of bytes on every rank
// (RedistOptions::memory_ceiling_bytes; docs/redistribute.md, "A memory ceiling").
//
// A piece is a box of B's section: whole in B's dimensions below a cut dimension k, a range of
// `width` section elements in k, one element in the dimensions above k; A's side is the same box
// through the dimension pairing. A piece's packed messages are at most what this rank owns of the
// piece on A's side (sends) plus on B's side (receives), and that is bounded from the two layouts
// alone (owned_bound), so every rank computes the same pieces without communicating. The split keeps
// the cut as far out as it can (the fewest pieces, each a whole slab of the outer dimensions) and
// the width as large as fits.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/core/math.hpp>
#include <hpf/core/memory.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/exec/model.hpp>
#include <hpf/layout/layout.hpp>
#include <hpf/section/plan.hpp>
#include <hpf/section/triplet.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>

namespace hpf::detail {

/// The section options of hpf::assign, hpf::transpose and a move under a memory ceiling:
/// SectionOptions' defaults, run all at once when every rank of the parent communicator is on one
/// node (detail::shares_one_node, the rule of REDISTRIBUTE's Auto). In one node's memory the steps of
/// a contention-free schedule avoid no contention, and each step waits for its slowest pair, so all
/// messages go at once. Between nodes, and under SMPI, the step-synchronous König schedule
/// (Desprez et al.). Collective over `comm` the first time on it: every rank calls this
/// before anything that may throw or return early.
inline SectionOptions array_section_options(const Comm& comm) {
  SectionOptions opt;
  if (shares_one_node(comm)) opt.mode = ExecMode::AllAtOnce;
  return opt;
}

/// The most elements, among any `w` consecutive ones of triplet `t`'s selection, that one process
/// of map `m` owns: an upper bound from the map alone (the same on every rank). A run of w
/// selected elements spans (w - 1) |stride| + 1 global indices, which meet at most
/// ceil(span / (P r)) + 1 blocks of one process, each holding at most ceil(r / |stride|) of them;
/// a GEN_BLOCK process owns one block of at most r; INDIRECT is bounded by w only.
inline index_t owned_bound(const CyclicMap& m, const Triplet& t, index_t w) {
  if (w <= 0) return 0;
  if (m.is_indirect() || m.r <= 0) return w;
  const index_t step = t.stride < 0 ? -t.stride : t.stride;
  const index_t per_block = ceil_div(m.r, step);
  if (m.is_gen_block()) return std::min(w, per_block);
  const index_t span = std::min(m.n, (w - 1) * step + 1);
  const index_t blocks = ceil_div(span, m.r * static_cast<index_t>(m.P)) + 1;
  return std::min(w, blocks * per_block);
}

/// How B(sb) = A(sa) is cut into pieces (see the header comment).
template <int N> struct CeilingSplit {
  int dim = N - 1;             ///< the cut dimension k of B's section
  index_t width = 0;           ///< section elements per piece along k (0: nothing to move)
  std::size_t piece_bytes = 0; ///< the bound on one piece's message buffers on any rank
  /// Number of pieces.
  [[nodiscard]] index_t pieces(const Section<N>& sb) const {
    if (width == 0) return 0;
    index_t n = ceil_div(sb[static_cast<std::size_t>(dim)].extent(), width);
    for (int d = dim + 1; d < N; ++d) n *= sb[static_cast<std::size_t>(d)].extent();
    return n;
  }
};

/// The bound on the message buffers of a piece cut at `dim` with `w` elements along it, run step by
/// step (piece_options): one send buffer, at most what one rank owns of the piece on A's side, and
/// one receive buffer, at most what it owns on B's side (B's dimension d takes A's perm[d]), each
/// as allocate_large takes it; saturating at SIZE_MAX.
template <int N> std::size_t piece_bytes_bound(const Layout<N>& dst, const Section<N>& sb,
                                               const Layout<N>& src, const Section<N>& sa,
                                               const Permutation<N>& perm, std::size_t elem_bytes, int dim,
                                               index_t w) {
  constexpr double most = static_cast<double>(std::numeric_limits<std::size_t>::max());
  double b = 1;
  double a = 1;
  for (int d = 0; d < N; ++d) {
    const auto du = static_cast<std::size_t>(d);
    const auto pd = static_cast<std::size_t>(perm[du]);
    const index_t len = d < dim ? sb[du].extent() : d == dim ? w : 1;
    b *= static_cast<double>(owned_bound(dst.map(d), sb[du], len));
    a *= static_cast<double>(owned_bound(src.map(perm[du]), sa[pd], len));
  }
  // The step-synchronous pieces hold one buffer each way, as allocate_large rounds it.
  const double e = static_cast<double>(elem_bytes);
  if (a * e >= most / 2 || b * e >= most / 2) return std::numeric_limits<std::size_t>::max();
  return allocation_bytes(static_cast<std::size_t>(a * e)) +
         allocation_bytes(static_cast<std::size_t>(b * e));
}

/// The split of B(sb) = A(sa) whose pieces each need at most `ceiling` bytes of message buffers on
/// every rank: the outermost cut dimension whose single-element slab fits, and the widest range
/// along it that fits. Pure and the same on every rank. Throws hpf::Error naming `what`, the
/// ceiling and the smallest workable ceiling (one element each way) when even that does not fit.
template <int N> CeilingSplit<N> ceiling_split(const Layout<N>& dst, const Section<N>& sb,
                                               const Layout<N>& src, const Section<N>& sa,
                                               const Permutation<N>& perm, std::size_t elem_bytes,
                                               std::size_t ceiling, const char* what) {
  CeilingSplit<N> split;
  index_t elements = 1;
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) elements *= sb[d].extent();
  if (elements == 0) return split; // nothing moves
  const auto bound = [&](int dim, index_t w) {
    return piece_bytes_bound<N>(dst, sb, src, sa, perm, elem_bytes, dim, w);
  };
  for (int dim = N - 1; dim >= 0; --dim) {
    if (bound(dim, 1) > ceiling) continue;
    // The widest range along dim that fits: the bound grows with w.
    index_t lo = 1;
    index_t hi = sb[static_cast<std::size_t>(dim)].extent();
    while (lo < hi) {
      const index_t mid = lo + (hi - lo + 1) / 2;
      if (bound(dim, mid) <= ceiling)
        lo = mid;
      else
        hi = mid - 1;
    }
    split.dim = dim;
    split.width = lo;
    split.piece_bytes = bound(dim, lo);
    return split;
  }
  fail(what, ": options.memory_ceiling_bytes = ", ceiling, " is below the smallest workable ceiling of ",
       bound(0, 1), " bytes (one element of ", elem_bytes,
       " bytes sent and one received per piece); expected at least that");
}

/// Calls fn(pb, pa) for every piece of the split, B's section pb and A's section pa (B's dimension d
/// takes A's perm[d], extents equal dimension by dimension), in B's section order of the pieces.
template <int N, class Fn> void for_each_piece(const Section<N>& sb, const Section<N>& sa,
                                               const Permutation<N>& perm, const CeilingSplit<N>& split,
                                               Fn&& fn) {
  if (split.width == 0) return;
  const auto sub = [](const Triplet& t, index_t j, index_t len) {
    return Triplet{t.at(j), t.at(j + len - 1), t.stride};
  };
  const auto k = static_cast<std::size_t>(split.dim);
  std::array<index_t, static_cast<std::size_t>(N)> at{}; // piece origin, in section elements
  while (true) {
    Section<N> pb = sb;
    Section<N> pa = sa;
    for (std::size_t d = k; d < static_cast<std::size_t>(N); ++d) {
      const index_t len = d == k ? std::min(split.width, sb[d].extent() - at[d]) : 1;
      const auto ad = static_cast<std::size_t>(perm[d]);
      pb[d] = sub(sb[d], at[d], len);
      pa[ad] = sub(sa[ad], at[d], len);
    }
    fn(static_cast<const Section<N>&>(pb), static_cast<const Section<N>&>(pa));
    // The next origin: along k by the width, then the dimensions above k one by one.
    std::size_t d = k;
    for (; d < static_cast<std::size_t>(N); ++d) {
      at[d] += d == k ? split.width : 1;
      if (at[d] < sb[d].extent()) break;
      at[d] = 0;
    }
    if (d == static_cast<std::size_t>(N)) return;
  }
}

/// Collective over `comm`: a move whose message buffers take `bytes` on this rank runs whole (after
/// `prepare()` allocates them, a failure there being every rank's hpf::Error) when they fit under
/// `ceiling` on every rank (one allreduce of the largest), else in pieces (`pieces()`).
template <class Prepare, class Whole, class Pieces>
void run_under_ceiling(const Comm& comm, std::size_t bytes, std::size_t ceiling, Prepare&& prepare,
                       Whole&& whole, Pieces&& pieces) {
  auto most = static_cast<unsigned long long>(bytes);
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm.get()));
  if (most > ceiling) {
    pieces();
    return;
  }
  std::string problem;
  try {
    prepare();
  } catch (const std::exception& e) {
    problem = e.what();
  }
  agree_on_error(comm, problem);
  whole();
}

/// Collective over the parent communicator of both grids, like SectionPlan::execute: B(sb) = A(sa)
/// through f (detail::Assign for a copy), piece by piece. Each piece's plan is built and its buffers
/// allocated before its messages, and a failure there is every rank's hpf::Error (agree_on_error):
/// the pieces before it have moved, A is unchanged. The arguments must have been agreed and checked
/// (the pieces come from them on every rank); A and B must not share storage or hold shadows.
template <class T, int N, class DstArray, class SrcArray, class F>
void assign_in_pieces(DstArray& B, const Section<N>& sb, const SrcArray& A, const Section<N>& sa,
                      const Permutation<N>& perm, const CeilingSplit<N>& split, const SectionOptions& opt,
                      const F& f) {
  constexpr bool combining = !std::is_same_v<F, Assign>;
  SectionOptions step = opt;
  step.mode = ExecMode::StepSynchronous; // one buffer each way: what piece_bytes_bound counts
  for_each_piece<N>(sb, sa, perm, split, [&](const Section<N>& pb, const Section<N>& pa) {
    std::string problem;
    std::optional<SectionPlan<T, N>> plan;
    try {
      plan.emplace(B.layout(), pb, A.layout(), pa, perm, step);
      plan->prepare(combining);
    } catch (const std::exception& e) {
      problem = e.what();
    }
    agree_on_error(B.layout().grid().comm(), problem);
    plan->execute(B, A, f);
  });
}

} // namespace hpf::detail

namespace hpf::detail {

/// Collective, like plan.execute(B, A, f): runs `plan` whole when its buffers fit under `ceiling` on
/// every rank, else in the pieces of ceiling_split (throwing hpf::Error on every rank, naming `what`,
/// below the smallest piece). The arguments must have been agreed; A and B must not share storage
/// or hold shadows.
template <class T, int N, class DstArray, class SrcArray, class F>
void execute_under_ceiling(const SectionPlan<T, N>& plan, DstArray& B, const SrcArray& A, std::size_t ceiling,
                           const F& f, const char* what) {
  constexpr bool combining = !std::is_same_v<F, Assign>;
  run_under_ceiling(
      B.layout().grid().comm(), plan.buffer_bytes(combining), ceiling, [&] { plan.prepare(combining); },
      [&] { plan.execute(B, A, f); },
      [&] {
        const CeilingSplit<N> split =
            ceiling_split<N>(B.layout(), plan.target_section(), A.layout(), plan.source_section(),
                             plan.permutation(), sizeof(T), ceiling, what);
        assign_in_pieces<T, N>(B, plan.target_section(), A, plan.source_section(), plan.permutation(), split,
                               plan.options(), f);
      });
}

} // namespace hpf::detail
