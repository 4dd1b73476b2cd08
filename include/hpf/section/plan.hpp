// hpf::SectionPlan<T, N>: B(sb) = A(sa) between two distributed arrays of any layouts, planned once
// and executed many times (HPF array-section assignment, transposes and dimension permutations).
//
// Dimension d of B's section takes dimension perm[d] of A's section. Each such pair is an independent
// 1-D problem solved in closed form by section_map.hpp (access sequences and runs that repeat with the
// lcm of the two periods); its communication grid is scheduled by König's theorem (each step a partial
// permutation: contention-free, NS = max degree, Theorem 1 of Desprez et al.). As for REDISTRIBUTE
// (DESIGN.md), an N-d message is the tuple of one message per dimension and the product of the 1-D
// schedules is a schedule of the N-d problem, run by hpf::Exchange. Both sides list a message's
// elements in B's section order (dimension 0 fastest), so messages carry no indices.
//
// Plans are computed locally on every rank from the two layouts and sections (no handshake, no MPI
// call in the constructor). Source and target grids may be identical, overlap or be disjoint, with
// any numbers of processes, on one parent communicator; ranks in neither grid take part in execute()
// but move nothing. When source and target are the same storage, execute() reads the whole source
// first (Fortran semantics for overlapping sections) by copying it through a buffer.
//
// Section extents must agree. Without an explicit permutation, dimensions of extent 1 (HPF's scalar
// subscripts, a triplet with lo == hi) may be dropped on either side, as Fortran's rank reduction
// does: B(0:n-1:2, c) = A(k, 0:m-1) pairs B's dimension 0 with A's dimension 1.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/core/tags.hpp>
#include <hpf/exec/datatype.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/layout/grid_coords.hpp>
#include <hpf/layout/layout.hpp>
#include <hpf/layout/runs.hpp>
#include <hpf/schedule/strategy.hpp>
#include <hpf/section/section_map.hpp>
#include <hpf/section/triplet.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace hpf {

/// A dimension permutation: B's dimension d takes A's dimension perm[d].
template <int N> using Permutation = std::array<int, static_cast<std::size_t>(N)>;

/// The options of a SectionPlan: how it schedules and runs its messages.
struct SectionOptions {
  /// How each dimension's grid is scheduled (any strategy of schedule/ but Class, which needs
  /// block-cyclic parameters of a whole-array move).
  Strategy strategy = Strategy::KoenigStepwise;
  /// How the executor runs the product schedule: StepSynchronous (one message in and out per rank
  /// per step, Desprez et al.) or AllAtOnce.
  ExecMode mode = ExecMode::StepSynchronous;
  /// Message tag, in hpf::tags::section.
  int tag = tags::section.base;
  /// A message whose contiguous pieces (along B's dimension 0, in this rank's local block) are this
  /// many bytes long on average or more moves in place: MPI reads it from A's block or writes it into
  /// B's through a derived datatype (exec/datatype.hpp), with no pack, unpack or message buffer. Shorter
  /// pieces (strided sections, transposes) are packed by the plan's tiled loops, which measure faster.
  /// Each end decides for itself: ranks may differ.
  std::size_t in_place_min_piece_bytes = 256;
  /// Member-wise equality.
  friend bool operator==(const SectionOptions&, const SectionOptions&) = default;
};

namespace detail {

template <int N> std::string section_string(const Section<N>& s) {
  std::string out = "(";
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) out += (d ? ", " : "") + s[d].to_string();
  return out + ")";
}

template <int N> std::string extents_string(const Section<N>& s) {
  std::string out = "(";
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
    out += (d ? ", " : "") + std::to_string(s[d].extent());
  return out + ")";
}

/// Checks the triplets of `s` against `L` ("sa[d]" / "sb[d]" in messages).
template <int N>
void check_section(const Layout<N>& L, const Section<N>& s, const char* op, const char* name) {
  for (int d = 0; d < N; ++d)
    check_triplet(s[static_cast<std::size_t>(d)], L.extent(d),
                  std::string(op) + ": " + name + "[" + std::to_string(d) + "]");
}

/// Throws hpf::Error unless perm is a permutation of 0..N-1.
template <int N> void check_permutation(const Permutation<N>& perm, const char* op) {
  std::array<bool, static_cast<std::size_t>(N)> seen{};
  std::string text = "{";
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
    text += (d ? ", " : "") + std::to_string(perm[d]);
  text += "}";
  for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
    const int a = perm[d];
    require(a >= 0 && a < N, op, ": perm = ", text, ": perm[", d, "] = ", a, " must be a dimension in [0, ",
            N, ")");
    require(!seen[static_cast<std::size_t>(a)], op, ": perm = ", text, " names dimension ", a,
            " twice; expected a permutation of 0..", N - 1);
    seen[static_cast<std::size_t>(a)] = true;
  }
}

/// The dimension pairing of B(sb) = A(sa): with `perm`, checked as given (extents must agree dimension
/// by dimension); without, the identity when the extents agree, else the rank-reducing pairing (the
/// dimensions of extent other than 1 in order on both sides, then those of extent 1).
template <int N> Permutation<N> section_pairing(const Section<N>& sb, const Section<N>& sa,
                                                const std::optional<Permutation<N>>& perm, const char* op) {
  constexpr auto n = static_cast<std::size_t>(N);
  if (perm) {
    check_permutation<N>(*perm, op);
    for (std::size_t d = 0; d < n; ++d) {
      const auto a = static_cast<std::size_t>((*perm)[d]);
      require(sb[d].extent() == sa[a].extent(), op, ": section extents disagree under the permutation: sb[",
              d, "] = ", sb[d].to_string(), " selects ", sb[d].extent(), " elements but sa[", a,
              "] = ", sa[a].to_string(), " selects ", sa[a].extent(), " elements; expected equal extents");
    }
    return *perm;
  }
  Permutation<N> p{};
  bool same = true;
  for (std::size_t d = 0; d < n; ++d) {
    p[d] = static_cast<int>(d);
    same = same && sb[d].extent() == sa[d].extent();
  }
  if (same) return p;
  std::vector<int> b_big, a_big, b_one, a_one;
  for (std::size_t d = 0; d < n; ++d) {
    (sb[d].extent() == 1 ? b_one : b_big).push_back(static_cast<int>(d));
    (sa[d].extent() == 1 ? a_one : a_big).push_back(static_cast<int>(d));
  }
  bool ok = b_big.size() == a_big.size();
  for (std::size_t k = 0; ok && k < b_big.size(); ++k)
    ok = sb[static_cast<std::size_t>(b_big[k])].extent() == sa[static_cast<std::size_t>(a_big[k])].extent();
  require(ok, op, ": section extents disagree: sb = ", section_string<N>(sb), " has extents ",
          extents_string<N>(sb), " but sa = ", section_string<N>(sa), " has extents ", extents_string<N>(sa),
          "; expected equal extents (dimensions of extent 1 may be dropped on either side)");
  for (std::size_t k = 0; k < b_big.size(); ++k) p[static_cast<std::size_t>(b_big[k])] = a_big[k];
  for (std::size_t k = 0; k < b_one.size(); ++k) p[static_cast<std::size_t>(b_one[k])] = a_one[k];
  return p;
}

/// The element operation of a plain copy: out = in. Copies of it take memcpy where both sides are
/// contiguous.
struct Assign {
  template <class T> void operator()(T& out, const T& in) const { out = in; }
};

/// f(dst[t dstep], src[t sstep]) for t < len (f = Assign: a copy).
template <class T, class F = Assign>
inline void apply_strided(T* dst, index_t dstep, const T* src, index_t sstep, index_t len, const F& f = {}) {
  if constexpr (std::is_same_v<F, Assign>) {
    if (dstep == 1 && sstep == 1 && len > 8) {
      std::memcpy(dst, src, static_cast<std::size_t>(len) * sizeof(T));
      return;
    }
  }
  for (index_t t = 0; t < len; ++t) f(dst[t * dstep], src[t * sstep]);
}

/// Elements of T in one 64-byte cache line (at least 1).
template <class T> inline constexpr index_t line_elements = sizeof(T) >= 64 ? 1 : index_t(64 / sizeof(T));
/// Side of the square tiles a transposed piece is copied in: 32 lines, so the tile's source and
/// target pages stay in the TLB and its lines in L2.
template <class T> inline constexpr index_t tile_elements = 32 * line_elements<T>;

/// f(dst[t0 d0 + t1 d1], src[t0 s0 + t1 s1]) for t0 < n0, t1 < n1 (f = Assign: a copy). When both
/// sides step within a cache line along t0, row by row (t0 innermost). A transposed piece (one side
/// steps within a line along t0 only, the other along t1 only: the local part and the packing of a
/// transpose) is walked in tiles of tile_elements<T> along t0 and bands of one cache line along t1,
/// so every line read or written is used whole while it is in L1 and the tile's pages stay in the
/// TLB. Inside a band the innermost loop runs along the target's contiguous dimension: stores go
/// to consecutive addresses (and whole lines) while the strided loads hit the tile's lines that the
/// band keeps in L1, the store-sequential order of cache-blocked transposes (Chatterjee and Sen,
/// "Cache-efficient matrix transposition", HPCA 2000). Callers keep n1 <= tile_elements<T>
/// (SectionPlan tiles dimension 1).
template <class T, class F = Assign> inline void apply_2d(T* dst, index_t d0, index_t d1, const T* src,
                                                          index_t s0, index_t s1, index_t n0, index_t n1,
                                                          const F& f = {}) {
  const auto near = [](index_t s) { return (s < 0 ? -s : s) < line_elements<T>; };
  if (n1 > 1 && n0 > 1 && !(near(s0) && near(d0)) && (near(s1) || near(d1))) {
    const bool store_along_t0 = near(d0);
    for (index_t a = 0; a < n0; a += tile_elements<T>) {
      const index_t ea = std::min(n0, a + tile_elements<T>);
      for (index_t b = 0; b < n1; b += line_elements<T>) {
        const index_t eb = std::min(n1, b + line_elements<T>);
        if (store_along_t0) {
          for (index_t t1 = b; t1 < eb; ++t1) {
            T* out = dst + t1 * d1;
            const T* in = src + t1 * s1;
            for (index_t t0 = a; t0 < ea; ++t0) f(out[t0 * d0], in[t0 * s0]);
          }
        } else {
          for (index_t t0 = a; t0 < ea; ++t0) {
            T* out = dst + t0 * d0;
            const T* in = src + t0 * s0;
            for (index_t t1 = b; t1 < eb; ++t1) f(out[t1 * d1], in[t1 * s1]);
          }
        }
      }
    }
    return;
  }
  for (index_t t1 = 0; t1 < n1; ++t1) apply_strided(dst + t1 * d1, d0, src + t1 * s1, s0, n0, f);
}

/// A 2-D piece of a section message: n0 x n1 elements (t0 < n0 along B's dimension 0, t1 < n1 along
/// dimension 1) at local source offset so + t0 ss0 + t1 ss1, local target offset dof + t0 ds0 + t1 ds1
/// and message position pos + t0 + t1 ps1 (B's section order, dimension 0 fastest).
struct SectionPiece {
  index_t so = 0;
  index_t dof = 0;
  index_t pos = 0;
  index_t n0 = 0;
  index_t ss0 = 0;
  index_t ds0 = 0;
  index_t n1 = 1;
  index_t ss1 = 0;
  index_t ds1 = 0;
  index_t ps1 = 0;
};

} // namespace detail

/// B(sb) = A(sa) between two distributed arrays of element type T, planned once and executed many
/// times (see the header comment).
template <class T, int N> class SectionPlan {
  static_assert(std::is_trivially_copyable_v<T>, "hpf::SectionPlan<T, N>: T must be trivially copyable");
  static constexpr auto n_ = static_cast<std::size_t>(N);

public:
  /// Plans B(sb) = A(sa) for B laid out by `dst` and A by `src`, pairing dimensions as Fortran does
  /// (see the header comment). Local and pure: no MPI call. Throws hpf::Error (on every rank, as every
  /// rank passes the same arguments) for a stride of 0, a triplet outside its extent, section extents
  /// that disagree, grids over parents of different sizes or a tag outside hpf::tags::section.
  SectionPlan(const Layout<N>& dst, const Section<N>& sb, const Layout<N>& src, const Section<N>& sa,
              SectionOptions opt = {})
      : SectionPlan(dst, sb, src, sa, std::nullopt, opt) {}
  /// Same with an explicit permutation: B's dimension d takes A's dimension perm[d], and the extents
  /// must agree dimension by dimension. Throws hpf::Error for a perm that is not a permutation.
  SectionPlan(const Layout<N>& dst, const Section<N>& sb, const Layout<N>& src, const Section<N>& sa,
              const Permutation<N>& perm, SectionOptions opt = {})
      : SectionPlan(dst, sb, src, sa, std::optional<Permutation<N>>(perm), opt) {}

  /// A's layout.
  [[nodiscard]] const Layout<N>& source() const noexcept { return m_src; }
  /// B's layout.
  [[nodiscard]] const Layout<N>& target() const noexcept { return m_dst; }
  /// A's section sa.
  [[nodiscard]] const Section<N>& source_section() const noexcept { return m_sa; }
  /// B's section sb.
  [[nodiscard]] const Section<N>& target_section() const noexcept { return m_sb; }
  /// B's dimension d takes A's dimension permutation()[d].
  [[nodiscard]] const Permutation<N>& permutation() const noexcept { return m_perm; }
  /// The options the plan was made with.
  [[nodiscard]] const SectionOptions& options() const noexcept { return m_opt; }
  /// Number of elements assigned (the product of the section extents).
  [[nodiscard]] index_t elements() const noexcept { return m_elements; }
  /// The 1-D grid (A's processes along dimension perm[d] x B's along d) and schedule of B's dimension d.
  [[nodiscard]] const CommMatrix& dim_grid(int d) const { return dim(d).grid; }
  /// The 1-D schedule of B's dimension d.
  [[nodiscard]] const Schedule& dim_schedule(int d) const { return dim(d).schedule; }
  /// Steps of the product schedule (the product of the dimensions' step counts).
  [[nodiscard]] int num_steps() const noexcept { return m_steps; }
  /// Elements this rank sends to / receives from other ranks, and copies locally.
  [[nodiscard]] index_t send_elements() const noexcept { return m_send_elems; }
  /// Elements this rank receives from other ranks.
  [[nodiscard]] index_t recv_elements() const noexcept { return m_recv_elems; }
  /// Elements this rank copies locally, from A's block to B's.
  [[nodiscard]] index_t local_copy_elements() const noexcept { return m_self_elems; }
  /// Messages this rank sends (the local copy not counted).
  [[nodiscard]] std::size_t num_sends() const noexcept { return m_sends.size(); }
  /// Messages this rank receives (the local copy not counted).
  [[nodiscard]] std::size_t num_recvs() const noexcept { return m_recvs.size(); }
  /// Sends / receives of this rank that move in place (SectionOptions::in_place_min_piece_bytes);
  /// known from the first execute() on (0 before).
  [[nodiscard]] std::size_t in_place_sends() const noexcept {
    return m_exec && m_exec->exchange ? m_exec->exchange->in_place_sends() : 0;
  }
  /// Receives of this rank that move in place; known from the first execute() on (0 before).
  [[nodiscard]] std::size_t in_place_recvs() const noexcept {
    return m_exec && m_exec->exchange ? m_exec->exchange->in_place_recvs() : 0;
  }

  /// Collective over the parent communicator of both grids (every rank of it calls; ranks in neither
  /// grid move nothing): B(sb) = A(sa) for two arrays laid out as planned (e.g. hpf::DistArray<T, N>).
  /// Elements of B outside sb are unchanged. A and B may be the same array. Throws hpf::Error on every
  /// rank, before anything moves, when an array's layout is not the plan's.
  template <class DstArray, class SrcArray>
  requires requires(DstArray& b, const SrcArray& a) {
    b.local_data();
    a.local_data();
    b.layout();
    a.layout();
  } && std::is_same_v<typename DstArray::value_type, T> && std::is_same_v<typename SrcArray::value_type, T>
  void execute(DstArray& B, const SrcArray& A) const { execute(B, A, detail::Assign{}); }

  /// Collective, as above, combining instead of assigning: f(b, a) for every element b of B(sb) and
  /// its element a of A(sa), where f(T& b, const T& a) updates b (e.g. b = alpha a + beta b for
  /// hpf::transform). Received messages are unpacked through f, so none is received in place.
  template <class DstArray, class SrcArray, class F>
  requires requires(DstArray& b, const SrcArray& a) {
    b.local_data();
    a.local_data();
    b.layout();
    a.layout();
  } && std::is_same_v<typename DstArray::value_type, T> && std::is_same_v<typename SrcArray::value_type, T> &&
      std::is_invocable_v<const F&, T&, const T&>
  void execute(DstArray& B, const SrcArray& A, const F& f) const {
    require_layout(B.layout(), m_dst, "target (B)");
    require_layout(A.layout(), m_src, "source (A)");
    if constexpr (requires {
                    A.has_shadow();
                    B.has_shadow();
                    A.owned_copy();
                    B.copy_owned(nullptr, false);
                  }) {
      if (A.has_shadow() || B.has_shadow()) {
        // Local storage with SHADOW slots: the plan runs on compact copies of the owned blocks (B's
        // elements outside sb are kept). B's shadow is not updated: call update_shadow() afterwards.
        const std::vector<T> in = A.owned_copy();
        std::vector<T> out = B.owned_copy();
        execute(out.data(), in.data(), f);
        B.copy_owned(out.data(), false);
        return;
      }
    }
    const T* src = A.local_data();
    T* dst = B.local_data();
    if (src != nullptr && static_cast<const void*>(src) == static_cast<const void*>(dst)) {
      // The same storage on both sides: read the whole right-hand side first (Fortran semantics).
      const auto count = static_cast<std::size_t>(A.local_size());
      std::vector<T> copy(src, src + count);
      execute(dst, copy.data(), f);
      return;
    }
    execute(dst, src, f);
  }

  /// Builds the executor and allocates its message buffers, as the first execute() would, so that a
  /// failure (out of memory) comes before any message. `combining`: the executor of execute() with
  /// an element operation (no receive in place). Local.
  void prepare(bool combining = false) const { executor(combining).exchange->reserve(); }
  /// The bytes of message buffers prepare(combining) allocates (Exchange::buffer_bytes): what a
  /// memory ceiling counts. Local; allocates no buffer.
  [[nodiscard]] std::size_t buffer_bytes(bool combining = false) const {
    return executor(combining).exchange->buffer_bytes();
  }

  /// Collective, as above, on local blocks: `src` holds the calling rank's block of source() (its
  /// my_local_extents() in Fortran order), `dst` its block of target(). They must not overlap.
  void execute(T* dst, const T* src) const { execute(dst, src, detail::Assign{}); }

  /// Collective, as above, on local blocks, combining through f (see execute(B, A, f)).
  template <class F> void execute(T* dst, const T* src, const F& f) const {
    constexpr bool copy = std::is_same_v<F, detail::Assign>;
    Exchange& exchange = *executor(!copy).exchange;
    exchange.post(
        [this, src](std::size_t i, std::byte* buf) {
          T* out = reinterpret_cast<T*>(buf);
          for_message(m_sends[i], true, [&](const detail::SectionPiece& p) {
            detail::apply_2d(out + p.pos, 1, p.ps1, src + p.so, p.ss0, p.ss1, p.n0, p.n1);
          });
        },
        [this, dst, &f](std::size_t i, const std::byte* buf) {
          const T* in = reinterpret_cast<const T*>(buf);
          for_message(m_recvs[i], false, [&](const detail::SectionPiece& p) {
            detail::apply_2d(dst + p.dof, p.ds0, p.ds1, in + p.pos, 1, p.ps1, p.n0, p.n1, f);
          });
        },
        src, dst);
    // The part this rank sends to itself, copied while the messages are in flight: test() between
    // its pieces moves them on (with Open MPI's copy-in/copy-out shared memory transport a large
    // message only advances inside MPI calls), and unpacks those that have arrived.
    // A test() per 32K elements copied at most (a test costs about a microsecond).
    bool done = false;
    index_t copied = 0;
    if (m_self)
      for_message(*m_self, true, [&](const detail::SectionPiece& p) {
        detail::apply_2d(dst + p.dof, p.ds0, p.ds1, src + p.so, p.ss0, p.ss1, p.n0, p.n1, f);
        copied += p.n0 * p.n1;
        if (!done && copied >= index_t{1} << 15) {
          done = exchange.test();
          copied = 0;
        }
      });
    if (!done) exchange.wait();
  }

private:
  struct Dim {
    SectionDim sd; ///< A's dimension perm[d] -> B's dimension d
    CommMatrix grid;
    Schedule schedule;
  };
  /// One message of this rank: the peer's grid position and per-dimension (B order) coordinates.
  struct Msg {
    int peer_pos = 0;
    std::array<int, N> coords{};
    int step = 0;
    index_t len = 0;
  };

  SectionPlan(const Layout<N>& dst, const Section<N>& sb, const Layout<N>& src, const Section<N>& sa,
              const std::optional<Permutation<N>>& perm, SectionOptions opt)
      : m_dst(dst.with_shadow(Index<N>{})), m_src(src.with_shadow(Index<N>{})), m_sb(sb), m_sa(sa),
        m_opt(opt) {
    const char* op = "SectionPlan";
    detail::require(src.grid().parent_size() == dst.grid().parent_size(), op,
                    ": the source grid's parent communicator has ", src.grid().parent_size(),
                    " ranks and the target grid's ", dst.grid().parent_size(), "; expected one parent");
    // ALIGN's replicated layouts are out of scope here (docs/align.md): redistribute first. Fixed
    // grid dimensions are fine (one copy; the processes off the fixed coordinate hold nothing).
    for (const Layout<N>* L : {&dst, &src})
      detail::require(L->copies() == 1, op, ": the ", L == &dst ? "target" : "source", " layout ",
                      L->describe_dists(),
                      " replicates its elements; expected a layout without replicated grid"
                      " dimensions (sections of replicated arrays are not supported: see docs/align.md)");
    detail::require(tags::section.contains(opt.tag), op, ": options.tag must be in [", tags::section.base,
                    ", ", tags::section.base + tags::section.width, "), got ", opt.tag);
    detail::require(opt.strategy != Strategy::Class && opt.strategy != Strategy::Auto, op,
                    ": options.strategy must be a strategy that needs no block-cyclic parameters, got ",
                    to_string(opt.strategy));
    detail::require(opt.mode == ExecMode::StepSynchronous || opt.mode == ExecMode::AllAtOnce, op,
                    ": options.mode must be step-synchronous or all-at-once, got ", to_string(opt.mode));
    detail::check_section<N>(dst, sb, op, "sb");
    detail::check_section<N>(src, sa, op, "sa");
    m_perm = detail::section_pairing<N>(sb, sa, perm, op);
    m_elements = 1;
    m_steps = 1;
    for (std::size_t d = 0; d < n_; ++d) {
      const auto a = static_cast<std::size_t>(m_perm[d]);
      Dim& dm = m_dims[d];
      dm.sd = SectionDim{src.map(static_cast<int>(a)), sa[a], dst.map(static_cast<int>(d)), sb[d]};
      dm.grid = section_grid(dm.sd);
      dm.schedule = make_schedule(dm.grid, opt.strategy);
      m_elements *= sb[d].extent();
      m_steps *= dm.schedule.num_steps();
    }
    if (m_elements == 0) m_steps = 0;
    plan_my_part();
  }

  static void require_layout(const Layout<N>& got, const Layout<N>& want, const char* which) {
    if (!(got.with_shadow(Index<N>{}) == want))
      detail::fail("SectionPlan::execute: the ", which, " array's layout ", got.describe_dists(),
                   " of extents ", Layout<N>::to_string(got.extents()), " is not the plan's ",
                   want.describe_dists(), " of extents ", Layout<N>::to_string(want.extents()),
                   " (on its grid)");
  }

  [[nodiscard]] const Dim& dim(int d) const {
    detail::require(d >= 0 && d < N, "SectionPlan: dimension must be in [0, ", N, "), got ", d);
    return m_dims[static_cast<std::size_t>(d)];
  }

  void plan_my_part() {
    if (m_elements == 0) return;
    const int me = m_src.grid().parent_rank();
    // A process off a fixed grid coordinate (ALIGN, docs/align.md) holds nothing: it takes no part.
    const int sp = m_src.grid().position_of_rank(me) >= 0 && m_src.holds(m_src.grid().position_of_rank(me))
                       ? m_src.grid().position_of_rank(me)
                       : -1;
    const int tp = m_dst.grid().position_of_rank(me) >= 0 && m_dst.holds(m_dst.grid().position_of_rank(me))
                       ? m_dst.grid().position_of_rank(me)
                       : -1;
    // My coordinate in each 1-D problem d: along A's dimension perm[d] as a sender, along B's d as a
    // receiver.
    std::array<int, N> my_src{};
    std::array<int, N> my_dst{};
    if (sp >= 0) {
      const auto c = array_coords(m_src, sp);
      const Index<N> st = fortran_strides<N>(m_src.local_extents(sp));
      for (std::size_t d = 0; d < n_; ++d) {
        my_src[d] = c[static_cast<std::size_t>(m_perm[d])];
        m_src_strides[d] = st[static_cast<std::size_t>(m_perm[d])];
        m_runs_from[d] = section_runs_from(m_dims[d].sd, my_src[d]);
      }
    }
    if (tp >= 0) {
      my_dst = array_coords(m_dst, tp);
      m_dst_strides = fortran_strides<N>(m_dst.local_extents(tp));
      for (std::size_t d = 0; d < n_; ++d) m_runs_to[d] = section_runs_to(m_dims[d].sd, my_dst[d]);
    }
    auto collect = [&](bool sending) {
      std::array<std::vector<std::pair<int, Message>>, N> lists;
      for (std::size_t d = 0; d < n_; ++d)
        for (const auto& e :
             sending ? m_dims[d].schedule.sends_of(my_src[d]) : m_dims[d].schedule.receives_of(my_dst[d]))
          if (e.second.len > 0) lists[d].push_back(e);
      std::vector<Msg> out;
      for (const auto& l : lists)
        if (l.empty()) return out;
      std::array<std::size_t, N> idx{};
      while (true) {
        Msg m;
        int step = 0;
        m.len = 1;
        std::array<int, N> peer{}; // in the peer layout's own dimension order
        for (std::size_t d = n_; d-- > 0;) {
          const auto& [k, msg] = lists[d][idx[d]];
          step = step * m_dims[d].schedule.num_steps() + k;
          m.coords[d] = sending ? msg.dst : msg.src;
          m.len *= msg.len;
          peer[sending ? d : static_cast<std::size_t>(m_perm[d])] = m.coords[d];
        }
        m.step = step;
        m.peer_pos = position_of_array_coords(sending ? m_dst : m_src, peer);
        out.push_back(m);
        std::size_t d = 0;
        for (; d < n_; ++d) {
          if (++idx[d] < lists[d].size()) break;
          idx[d] = 0;
        }
        if (d == n_) break;
      }
      std::stable_sort(out.begin(), out.end(), [](const Msg& a, const Msg& b) { return a.step < b.step; });
      return out;
    };
    if (sp >= 0) {
      for (const Msg& m : collect(true)) {
        if (m_dst.grid().rank_at(m.peer_pos) == me) { // kept: copied locally, never sent to oneself
          m_self = m;
          m_self_elems = m.len;
          continue;
        }
        m_sends.push_back(m);
        m_send_elems += m.len;
      }
    }
    if (tp >= 0) {
      for (const Msg& m : collect(false)) {
        if (m_src.grid().rank_at(m.peer_pos) == me) continue; // the local copy, found on the sending side
        m_recvs.push_back(m);
        m_recv_elems += m.len;
      }
    }
  }

  /// The exchange of this plan and the datatypes of its in-place messages, built on first execute and
  /// reused (its buffers too).
  struct Executor {
    std::vector<Datatype> send_types; // declared before the exchange, so that they outlive it
    std::vector<Datatype> recv_types;
    std::optional<Exchange> exchange;
  };

  /// The executor of plain copies (combining false: messages in place where their pieces are long
  /// enough) or of combining executions (received messages are always unpacked, through the element
  /// operation); built on first use.
  Executor& executor(bool combining) const {
    std::shared_ptr<Executor>& exec = combining ? m_combine_exec : m_exec;
    if (!exec) exec = build_executor(combining);
    return *exec;
  }

  [[nodiscard]] std::shared_ptr<Executor> build_executor(bool combining) const {
    int cmp = MPI_UNEQUAL; // local: both grids must be built on one parent communicator
    HPF_MPI_CHECK(MPI_Comm_compare(m_src.grid().comm().get(), m_dst.grid().comm().get(), &cmp));
    detail::require(cmp == MPI_IDENT || cmp == MPI_CONGRUENT, "SectionPlan: the source grid (",
                    m_src.grid().size(), " ranks) and the target grid (", m_dst.grid().size(),
                    " ranks) are built on different parent communicators; expected one parent");
    auto exec = std::make_shared<Executor>();
    exec->exchange.emplace(m_src.grid().comm(), exchange_plan(), m_opt.mode, m_opt.tag);
    for (const Msg& m : m_sends) exec->send_types.push_back(message_datatype(m, true));
    for (const Msg& m : m_recvs)
      exec->recv_types.push_back(combining ? Datatype{} : message_datatype(m, false));
    exec->exchange->set_in_place(raw_handles(exec->send_types), raw_handles(exec->recv_types));
    return exec;
  }

  /// The committed datatype of a message of this rank, relative to A's block (a send) or to B's (a
  /// receive), when it moves in place (SectionOptions::in_place_min_piece_bytes); null when it is
  /// packed. Its type map lists the elements in the message's order, B's section order: dimension d's
  /// element is the datatype of dimensions below d, one local stride of that side apart.
  [[nodiscard]] Datatype message_datatype(const Msg& m, bool sending) const {
    const Index<N>& strides = sending ? m_src_strides : m_dst_strides;
    const auto runs_of = [&](std::size_t d) -> const SectionRuns& {
      return sending ? m_runs_from[d][static_cast<std::size_t>(m.coords[d])]
                     : m_runs_to[d][static_cast<std::size_t>(m.coords[d])];
    };
    // One side of a run: a piece of len adjacent elements, or len pieces of one element.
    const auto pieces = [&](const std::vector<SectionRun>& runs, bool adjacent_steps) {
      std::vector<detail::PieceRun> out;
      out.reserve(runs.size());
      for (const SectionRun& r : runs) {
        const index_t local = sending ? r.src_local : r.dst_local;
        const index_t step = sending ? r.src_step : r.dst_step;
        out.push_back(step == 1 && adjacent_steps ? detail::PieceRun{local, r.len, 1, 0}
                                                  : detail::PieceRun{local, 1, r.len, step});
      }
      return out;
    };
    // The average contiguous piece decides: the pieces of one line along dimension 0, times the
    // message's lines (one per index of the higher dimensions). A transposed side (dimension 0 not
    // A's or B's contiguous one) has pieces of one element, which MPI's datatype engine would move
    // one by one; the plan's tiled loops pack and unpack those.
    const SectionRuns& r0 = runs_of(0);
    index_t period_pieces = 0;
    index_t tail_pieces = 0;
    for (const detail::PieceRun& p : pieces(r0.period, strides[0] == 1)) period_pieces += p.count;
    for (const detail::PieceRun& p : pieces(r0.tail, strides[0] == 1)) tail_pieces += p.count;
    const index_t lines = r0.elements > 0 ? m.len / r0.elements : 0;
    const index_t count = (period_pieces * r0.reps + tail_pieces) * lines;
    const double bytes = static_cast<double>(m.len) * static_cast<double>(sizeof(T));
    if (count == 0 || bytes > static_cast<double>(INT_MAX) ||
        bytes / static_cast<double>(count) < static_cast<double>(m_opt.in_place_min_piece_bytes))
      return {};
    Datatype type = detail::element_datatype(sizeof(T));
    for (std::size_t d = 0; d < n_; ++d) {
      const SectionRuns& r = runs_of(d);
      const auto stride = static_cast<MPI_Aint>(strides[d] * static_cast<index_t>(sizeof(T)));
      const std::vector<detail::PieceRun> period = pieces(r.period, true);
      const std::vector<detail::PieceRun> tail = pieces(r.tail, true);
      std::optional<Datatype> t = detail::periodic_datatype(
          period, r.reps, sending ? r.src_shift : r.dst_shift, tail, type.get(), stride);
      if (!t) return {};
      type = std::move(*t);
    }
    return detail::committed(std::move(type));
  }

  [[nodiscard]] ExchangePlan exchange_plan() const {
    ExchangePlan xp;
    for (const Msg& m : m_sends)
      xp.sends.push_back(
          {m_dst.grid().rank_at(m.peer_pos), static_cast<std::size_t>(m.len) * sizeof(T), m.step});
    for (const Msg& m : m_recvs)
      xp.recvs.push_back(
          {m_src.grid().rank_at(m.peer_pos), static_cast<std::size_t>(m.len) * sizeof(T), m.step});
    return xp;
  }

  /// Calls fn(piece) for the 2-D pieces (detail::SectionPiece) of a message: B's dimensions 0 and 1
  /// in square tiles of tile_elements<T> message positions (dimension 0 untiled unless the source is
  /// transposed), each tile cut at the runs that cross it; higher dimensions one index at a time. Each piece
  /// carries its position in the message buffer, in B's section order (dimension 0 fastest). A sender's
  /// message (sending) knows only the source offsets, a receiver's only the target ones; the local copy knows
  /// both (it is walked as a sender's, whose runs carry both local indices).
  template <class Fn> void for_message(const Msg& m, bool sending, Fn&& fn) const {
    std::array<const SectionRuns*, N> runs{};
    for (std::size_t d = 0; d < n_; ++d)
      runs[d] = sending ? &m_runs_from[d][static_cast<std::size_t>(m.coords[d])]
                        : &m_runs_to[d][static_cast<std::size_t>(m.coords[d])];
    if constexpr (N == 1) {
      index_t pos = 0;
      runs[0]->for_each([&](index_t s, index_t d, index_t len, index_t ss, index_t ds) {
        fn(detail::SectionPiece{s * m_src_strides[0], d * m_dst_strides[0], pos, len, ss * m_src_strides[0],
                                ds * m_dst_strides[0], 1, 0, 0, 0});
        pos += len;
      });
    } else {
      // Dimensions 0 and 1 are cut into tiles of positions (of the message), so their runs are listed
      // once: O(extent) entries per dimension, not per element.
      const std::array<std::vector<Run>, 2> r{listed(*runs[0]), listed(*runs[1])};
      // Along dimension 0 only a transposed source (A's dimension under B's dimension 0 is not its
      // contiguous one) is tiled; otherwise each column of a tile is copied whole.
      const bool tile0 = sending && m_src_strides[0] > 1;
      walk<N - 1>(runs, r, tile0, 0, 0, 0, fn);
    }
  }

  /// One run of a dimension with its position (off) among the message's indices along it.
  struct Run {
    index_t s, d, len, ss, ds, off;
  };
  static std::vector<Run> listed(const SectionRuns& runs) {
    std::vector<Run> out;
    index_t off = 0;
    runs.for_each([&](index_t s, index_t d, index_t len, index_t ss, index_t ds) {
      out.push_back({s, d, len, ss, ds, off});
      off += len;
    });
    return out;
  }

  template <int D, class Fn> void walk(const std::array<const SectionRuns*, N>& runs,
                                       const std::array<std::vector<Run>, 2>& r, bool tile0, index_t so,
                                       index_t dof, index_t pos, Fn& fn) const {
    constexpr auto du = static_cast<std::size_t>(D);
    if constexpr (D == 1) {
      constexpr index_t tile = detail::tile_elements<T>;
      const auto total = [](const std::vector<Run>& v) {
        return v.empty() ? index_t{0} : v.back().off + v.back().len;
      };
      const index_t tot0 = total(r[0]);
      const index_t tot1 = total(r[1]);
      const index_t step0 = tile0 ? tile : std::max<index_t>(tot0, 1);
      const index_t band = tile0 ? detail::line_elements<T> : tile;
      std::size_t k1 = 0; // first run of dimension 1 that reaches into the tile
      for (index_t a1 = 0; a1 < tot1; a1 += tile) {
        const index_t e1 = std::min(tot1, a1 + tile);
        while (k1 < r[1].size() && r[1][k1].off + r[1][k1].len <= a1) ++k1;
        std::size_t k0 = 0;
        for (index_t a0 = 0; a0 < tot0; a0 += step0) {
          const index_t e0 = std::min(tot0, a0 + step0);
          while (k0 < r[0].size() && r[0][k0].off + r[0][k0].len <= a0) ++k0;
          for (std::size_t i1 = k1; i1 < r[1].size() && r[1][i1].off < e1; ++i1) {
            const Run& q1 = r[1][i1];
            const index_t lo1 = std::max(a1, q1.off);
            const index_t hi1 = std::min(e1, q1.off + q1.len);
            // A transposed source: one cache line of dimension 1 at a time across the whole tile of
            // dimension 0, so each band runs down all 256 positions whatever the runs' lengths (short
            // runs, e.g. CYCLIC(64), would otherwise give 64-long bands, several times slower).
            for (index_t l1 = lo1; l1 < hi1; l1 += band) {
              const index_t b = l1 - q1.off;
              const index_t n1 = std::min(hi1 - l1, band);
              const index_t so1 = so + (q1.s + b * q1.ss) * m_src_strides[1];
              const index_t dof1 = dof + (q1.d + b * q1.ds) * m_dst_strides[1];
              for (std::size_t i0 = k0; i0 < r[0].size() && r[0][i0].off < e0; ++i0) {
                const Run& q0 = r[0][i0];
                const index_t lo0 = std::max(a0, q0.off);
                const index_t c = lo0 - q0.off;
                fn(detail::SectionPiece{
                    so1 + (q0.s + c * q0.ss) * m_src_strides[0], dof1 + (q0.d + c * q0.ds) * m_dst_strides[0],
                    pos + l1 * tot0 + lo0, std::min(e0, q0.off + q0.len) - lo0, q0.ss * m_src_strides[0],
                    q0.ds * m_dst_strides[0], n1, q1.ss * m_src_strides[1], q1.ds * m_dst_strides[1], tot0});
              }
            }
          }
        }
      }
    } else {
      index_t inner = 1; // elements of the message per index along D
      for (std::size_t e = 0; e < du; ++e) inner *= runs[e]->elements;
      index_t off = 0;
      runs[du]->for_each([&](index_t s, index_t d, index_t len, index_t ss, index_t ds) {
        for (index_t t = 0; t < len; ++t)
          walk<D - 1>(runs, r, tile0, so + (s + t * ss) * m_src_strides[du],
                      dof + (d + t * ds) * m_dst_strides[du], pos + (off + t) * inner, fn);
        off += len;
      });
    }
  }

  Layout<N> m_dst;
  Layout<N> m_src;
  Section<N> m_sb;
  Section<N> m_sa;
  SectionOptions m_opt;
  Permutation<N> m_perm{};
  std::array<Dim, N> m_dims;
  index_t m_elements = 0;
  int m_steps = 0;
  Index<N> m_src_strides{}; ///< local strides of A along A's dimension perm[d], by d
  Index<N> m_dst_strides{}; ///< local strides of B along d
  std::array<std::vector<SectionRuns>, N> m_runs_from; // [d][B coordinate along d]
  std::array<std::vector<SectionRuns>, N> m_runs_to;   // [d][A coordinate along perm[d]]
  std::vector<Msg> m_sends;
  std::vector<Msg> m_recvs;
  std::optional<Msg> m_self;
  index_t m_send_elems = 0;
  index_t m_recv_elems = 0;
  index_t m_self_elems = 0;
  // The executors of this plan (plain copies, and combining executions), built on first use and
  // reused; shared by copies of the plan, so a plan must not be executed by two threads at once.
  mutable std::shared_ptr<Executor> m_exec;
  mutable std::shared_ptr<Executor> m_combine_exec;
};

} // namespace hpf
