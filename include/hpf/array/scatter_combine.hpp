// hpf::scatter_combine: one-shot irregular updates, T(idx[i]) = op(T(idx[i]), val[i]), for index lists
// that change at every call (e.g. RandomAccess's batches of XOR updates).
//
// A ScatterPlan (array/irregular.hpp) pays for an inspector and a schedule, which the next call with
// the same indices reuses. scatter_combine builds nothing: every rank sorts its (index, value) pairs by
// owner, one MPI_Alltoall moves the counts (with the agreement on the arguments and on errors), one
// MPI_Alltoallv moves the pairs, and each owner applies op to its elements. Pairs whose owner is the
// calling rank never leave it.
#pragma once

#include <hpf/array/dist_array.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/layout/agree.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace hpf {
namespace detail {

/// One update on the wire: the element's index in its owner's owned block (Fortran order of the
/// owned extents; the local index itself in 1-D) and the value to combine into it.
template <class T> struct CombinePair {
  index_t key;
  T value;
};

/// The words each rank sends every other rank in the count exchange.
enum CombineWord : std::size_t {
  count_word,   ///< pairs for the receiver
  total_word,   ///< pairs this rank sends in all (rounds of the exchange)
  hash_word,    ///< of the layout and sizeof(T): every rank must pass the same array
  problem_word, ///< 0 none, 1 idx and val of different lengths, 2 an index out of range
  where_word,   ///< the position of the bad index, or idx.size()
  values_word,  ///< val.size()
  index_words   ///< the bad index, N words
};

/// Owner grid positions and owned-block keys of `idx` (the sender's half, local): stops at the first
/// index out of range and returns its position, or idx.size().
template <int N, class IndexAt> std::size_t locate_updates(const Layout<N>& L, std::size_t n,
                                                           IndexAt&& index_at, std::vector<int>& pos,
                                                           std::vector<index_t>& key) {
  pos.resize(n);
  key.resize(n);
  // A 1-D CYCLIC(r) layout on a 1-D grid (the common case): the grid position is the coordinate, and
  // owner and local index share their divisions.
  if constexpr (N == 1) {
    const CyclicMap& m = L.map(0);
    if (m.regular() && L.grid().ndims() == 1 && !L.replicates_or_fixes()) {
      for (std::size_t i = 0; i < n; ++i) {
        const index_t g = index_at(i)[0];
        if (g < 0 || g >= m.n) return i;
        const index_t q = g / m.r; // block
        pos[i] = static_cast<int>(q % m.P);
        key[i] = (q / m.P) * m.r + (g - q * m.r);
      }
      return n;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Index<N> g = index_at(i);
    if (!L.in_bounds(g)) return i;
    pos[i] = L.owner(g);
    if constexpr (N == 1) {
      key[i] = L.map(0).local(g[0]);
    } else {
      index_t k = 0;
      for (int d = N; d-- > 0;) {
        const CyclicMap& m = L.map(d);
        const auto du = static_cast<std::size_t>(d);
        k = k * m.local_extent(m.owner(g[du])) + m.local(g[du]);
      }
      key[i] = k;
    }
  }
  return n;
}

/// scatter_combine with at most `limit` pairs per rank and exchange: when every rank's pairs together
/// exceed it, the exchange runs in rounds, each moving at most limit / P pairs per sender and
/// receiver pair (MPI counts and displacements are ints). Tests lower the limit to run the rounds.
template <class T, int N, class Op, class IndexAt>
void scatter_combine_impl(DistArray<T, N>& A, std::size_t n, IndexAt&& index_at, std::span<const T> val,
                          Op& op, index_t limit) {
  static_assert(std::is_invocable_v<Op&, const T&, const T&> &&
                    std::is_convertible_v<std::invoke_result_t<Op&, const T&, const T&>, T>,
                "hpf::scatter_combine: op must be callable as op(const T&, const T&) and return a T");
  const Layout<N>& L = A.layout();
  const ProcessGrid& grid = L.grid();
  const Comm& comm = grid.comm();
  const int P = comm.size();
  const int me = grid.parent_rank();
  const auto uP = static_cast<std::size_t>(P);

  // The sender's half: owners and keys, and this rank's problem, if any.
  std::vector<int> pos;
  std::vector<index_t> key;
  std::int64_t problem = 0;
  std::size_t bad = n;
  if (n != val.size()) {
    problem = 1;
  } else {
    bad = locate_updates<N>(L, n, index_at, pos, key);
    if (bad < n) problem = 2;
  }
  // Every copy of an element takes the update (a replicated layout): the parent ranks of the copies
  // of each grid position, `copies` a position.
  const int copies = L.copies();
  std::vector<int> ranks_of(static_cast<std::size_t>(grid.size()) * static_cast<std::size_t>(copies));
  for (int p = 0; p < grid.size(); ++p) {
    const std::vector<int> cs = copies == 1 ? std::vector<int>{p} : L.copies_of(p);
    for (int c = 0; c < copies; ++c)
      ranks_of[static_cast<std::size_t>(p * copies + c)] =
          grid.ranks()[static_cast<std::size_t>(cs[static_cast<std::size_t>(c)])];
  }
  std::vector<index_t> count(uP, 0);
  if (problem == 0)
    for (std::size_t i = 0; i < n; ++i)
      for (int c = 0; c < copies; ++c)
        ++count[static_cast<std::size_t>(ranks_of[static_cast<std::size_t>(pos[i] * copies + c)])];
  const index_t mine = me >= 0 ? count[static_cast<std::size_t>(me)] : 0; // applied here, never sent
  if (me >= 0) count[static_cast<std::size_t>(me)] = 0;
  index_t total = 0;
  for (index_t c : count) total += c;

  // The count exchange, which carries the agreement on the array and on errors.
  detail::WordHash h;
  h.add(static_cast<std::int64_t>(layout_hash(L)));
  h.add(static_cast<std::int64_t>(sizeof(T)));
  const std::size_t W = index_words + static_cast<std::size_t>(N);
  std::vector<std::int64_t> out(uP * W, 0);
  std::vector<std::int64_t> in(uP * W, 0);
  for (std::size_t q = 0; q < uP; ++q) {
    std::int64_t* w = out.data() + q * W;
    w[count_word] = count[q];
    w[total_word] = total;
    w[hash_word] = static_cast<std::int64_t>(h.value());
    w[problem_word] = problem;
    w[where_word] = static_cast<std::int64_t>(problem == 1 ? n : bad);
    w[values_word] = static_cast<std::int64_t>(val.size());
    if (problem == 2) {
      const Index<N> g = index_at(bad);
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) w[index_words + d] = g[d];
    }
  }
  HPF_MPI_CHECK(MPI_Alltoall(out.data(), static_cast<int>(W), MPI_INT64_T, in.data(), static_cast<int>(W),
                             MPI_INT64_T, comm.get()));
  // A rank whose array differs from another's sees a hash that is not its own: then every rank does,
  // and the standard check names the difference.
  for (std::size_t r = 0; r < uP; ++r)
    if (in[r * W + hash_word] != static_cast<std::int64_t>(h.value())) {
      AgreementWords w;
      w.add(static_cast<std::int64_t>(sizeof(T)), [] { return std::string("sizeof(T)"); });
      add_layout_words(w, L, "layout.");
      w.check(comm.get(), "hpf::scatter_combine");
      fail("hpf::scatter_combine(DistArray '", A.label(),
           "'): the ranks passed different arrays to a collective; every rank must pass the same");
    }
  for (std::size_t r = 0; r < uP; ++r) {
    const std::int64_t* w = in.data() + r * W;
    if (w[problem_word] == 1)
      fail("hpf::scatter_combine(DistArray '", A.label(), "'): rank ", r, " passed ", w[where_word],
           " indices and ", w[values_word], " values; expected one value per index");
    if (w[problem_word] == 2) {
      Index<N> g{};
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) g[d] = w[index_words + d];
      if constexpr (N == 1)
        fail("hpf::scatter_combine(DistArray '", A.label(), "'): index ", g[0], " at position ",
             w[where_word], " of rank ", r, " is outside the extent ", L.extent(0),
             "; expected 0 <= index < ", L.extent(0));
      else
        fail("hpf::scatter_combine(DistArray '", A.label(), "'): index ", Layout<N>::to_string(g),
             " at position ", w[where_word], " of rank ", r, " is outside the extents ",
             Layout<N>::to_string(L.extents()), "; expected 0 <= index < extent in every dimension");
    }
  }

  // Where an update lands in this rank's storage.
  T* const data = A.local_data();
  const bool shadow = A.has_shadow();
  const Index<N> own = A.owned_extents();
  const auto storage = [&](index_t k) -> index_t {
    if (!shadow) return k;
    index_t off = 0;
    index_t stride = 1;
    for (int d = 0; d < N; ++d) {
      const auto du = static_cast<std::size_t>(d);
      off += A.slot(d, k % own[du]) * stride;
      k /= own[du];
      stride *= static_cast<index_t>(A.local_view().extent(du));
    }
    return off;
  };
  const auto apply = [&](index_t k, const T& v) {
    T& x = data[storage(k)];
    x = static_cast<T>(op(x, v));
  };

  // Sorted by destination (a counting sort); this rank's own updates are applied on the way.
  using Pair = CombinePair<T>;
  std::vector<index_t> first(uP + 1, 0);
  for (std::size_t q = 0; q < uP; ++q) first[q + 1] = first[q] + count[q];
  std::vector<Pair> send(static_cast<std::size_t>(total));
  {
    std::vector<index_t> at(first.begin(), first.end() - 1);
    for (std::size_t i = 0; i < n && mine + total > 0; ++i)
      for (int c = 0; c < copies; ++c) {
        const int q = ranks_of[static_cast<std::size_t>(pos[i] * copies + c)];
        if (q == me)
          apply(key[i], val[i]);
        else
          send[static_cast<std::size_t>(at[static_cast<std::size_t>(q)]++)] = Pair{key[i], val[i]};
      }
  }

  // Rounds: one unless every rank's pairs together exceed the limit (agreed: every rank knows every
  // rank's total), each moving at most `chunk` pairs between a sender and a receiver.
  index_t all = 0;
  index_t most = 0;
  for (std::size_t r = 0; r < uP; ++r) {
    all += in[r * W + total_word];
    most = std::max(most, static_cast<index_t>(in[r * W + total_word]));
  }
  if (all == 0) return;
  const index_t chunk = all <= limit ? most : std::max<index_t>(1, limit / P);
  const index_t rounds = (most + chunk - 1) / chunk;
  MPI_Datatype pair_type = MPI_DATATYPE_NULL;
  HPF_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(sizeof(Pair)), MPI_BYTE, &pair_type));
  const Datatype owned_type(pair_type);
  HPF_MPI_CHECK(MPI_Type_commit(&pair_type));
  std::vector<int> sc(uP), sd(uP), rc(uP), rd(uP);
  std::vector<Pair> pack;
  std::vector<Pair> recv;
  for (index_t k = 0; k < rounds; ++k) {
    const auto slice = [&](index_t c) { return std::clamp<index_t>(c - k * chunk, 0, chunk); };
    index_t ns = 0;
    index_t nr = 0;
    for (std::size_t q = 0; q < uP; ++q) {
      sc[q] = static_cast<int>(slice(count[q]));
      rc[q] = static_cast<int>(slice(in[q * W + count_word]));
      sd[q] = static_cast<int>(rounds == 1 ? first[q] : ns);
      rd[q] = static_cast<int>(nr);
      ns += sc[q];
      nr += rc[q];
    }
    const Pair* from = send.data();
    if (rounds > 1) { // this round's slices, side by side
      pack.resize(static_cast<std::size_t>(ns));
      for (std::size_t q = 0; q < uP; ++q)
        if (sc[q] > 0) std::copy_n(send.begin() + first[q] + k * chunk, sc[q], pack.begin() + sd[q]);
      from = pack.data();
    }
    recv.resize(static_cast<std::size_t>(nr));
    HPF_MPI_CHECK(MPI_Alltoallv(from, sc.data(), sd.data(), pair_type, recv.data(), rc.data(), rd.data(),
                                pair_type, comm.get()));
    for (const Pair& p : recv) apply(p.key, p.value);
  }
}

} // namespace detail

/// Collective over T's grid's parent communicator (every rank of it calls, in or out of the grid):
/// T(idx[i]) = op(T(idx[i]), val[i]) for every rank's pairs (idx, val), each rank passing its own,
/// possibly empty, lists of equal length. op must be associative and commutative (XOR, +, min, max,
/// a lambda): the updates of one element are combined in an unspecified order, and duplicates are
/// combined one by one. Every copy of a replicated element is updated.
///
/// No plan: one MPI_Alltoall of the counts, one MPI_Alltoallv of the pairs (index, value), and the
/// owners apply op; updates that this rank owns never leave it. For index lists that change at every
/// call; a ScatterPlan (array/irregular.hpp) amortises better when they repeat.
///
/// Throws the same hpf::Error on every rank, with T unchanged, for an index outside the extent
/// (naming the index, its position, the rank that passed it and the extent), for lists of different
/// lengths, or unless every rank passed an array of the same layout and element type (that check
/// travels with the counts: it costs no round of its own). E.g. RandomAccess:
///
///   hpf::scatter_combine(T, std::span<const hpf::index_t>(idx), std::span<const std::uint64_t>(val),
///                        std::bit_xor<std::uint64_t>{});
template <class T, class Op> void scatter_combine(DistArray<T, 1>& A, std::span<const index_t> idx,
                                                  std::span<const std::type_identity_t<T>> val, Op op) {
  detail::scatter_combine_impl<T, 1>(
      A, idx.size(), [idx](std::size_t i) { return Index<1>{idx[i]}; }, val, op, INT_MAX);
}

/// Collective, as above, on an N-dimensional array with global indices Index<N>.
template <class T, int N, class Op> void scatter_combine(DistArray<T, N>& A, std::span<const Index<N>> idx,
                                                         std::span<const std::type_identity_t<T>> val,
                                                         Op op) {
  detail::scatter_combine_impl<T, N>(
      A, idx.size(), [idx](std::size_t i) { return idx[i]; }, val, op, INT_MAX);
}

} // namespace hpf
