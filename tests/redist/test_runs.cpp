// Message runs against element-by-element enumeration: for every (p, q) the runs cover exactly the
// elements owned by p in the source and q in the target, in global order, with correct local indices,
// and the sender's and receiver's views of a message are identical.
#include <hpf/layout/distribution.hpp>
#include <hpf/redist/runs.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>

namespace {

using hpf::CyclicMap;
using hpf::index_t;
using RunT = hpf::Run;

TEST(RedistRuns, MatchBruteForceAndAgreeBetweenSides) {
  std::mt19937_64 rng(4);
  for (int t = 0; t < 3000; ++t) {
    const int P = 1 + static_cast<int>(rng() % 9);
    const int Q = 1 + static_cast<int>(rng() % 9);
    const index_t r = 1 + static_cast<index_t>(rng() % 8);
    const index_t s = 1 + static_cast<index_t>(rng() % 8);
    const index_t n = static_cast<index_t>(
        rng() % static_cast<std::uint64_t>(3 * P * r * Q * s / std::max<index_t>(1, std::min(r, s)) + 3));
    const CyclicMap S{n, P, r};
    const CyclicMap T{n, Q, s};
    std::vector<std::vector<std::vector<RunT>>> to(static_cast<std::size_t>(Q));
    for (int q = 0; q < Q; ++q) to[static_cast<std::size_t>(q)] = hpf::runs_to(S, T, q);
    index_t covered = 0;
    for (int p = 0; p < P; ++p) {
      const auto from = hpf::runs_from(S, T, p);
      for (int q = 0; q < Q; ++q) {
        std::vector<index_t> want;
        for (index_t i = 0; i < n; ++i)
          if (S.owner(i) == p && T.owner(i) == q) want.push_back(i);
        std::vector<index_t> got;
        for (const RunT& run : from[static_cast<std::size_t>(q)]) {
          ASSERT_GT(run.len, 0);
          for (index_t k = 0; k < run.len; ++k) {
            const index_t g = S.global(p, run.src_local + k);
            ASSERT_EQ(T.global(q, run.dst_local + k), g);
            got.push_back(g);
          }
        }
        ASSERT_EQ(got, want) << "P=" << P << " Q=" << Q << " r=" << r << " s=" << s << " n=" << n;
        ASSERT_EQ(from[static_cast<std::size_t>(q)],
                  to[static_cast<std::size_t>(q)][static_cast<std::size_t>(p)]);
        covered += static_cast<index_t>(got.size());
      }
    }
    ASSERT_EQ(covered, n);
  }
}

// One stored slice, repeated, gives exactly the runs of the whole extent (Desprez et al.: the pattern repeats
// every L = lcm(P r, Q s) elements), including extents below, at and far above L and n = 0.
TEST(RedistRuns, PeriodicRunsExpandToTheFullRunList) {
  std::mt19937_64 rng(7);
  for (int t = 0; t < 3000; ++t) {
    const int P = 1 + static_cast<int>(rng() % 9);
    const int Q = 1 + static_cast<int>(rng() % 9);
    const index_t r = 1 + static_cast<index_t>(rng() % 8);
    const index_t s = 1 + static_cast<index_t>(rng() % 8);
    const index_t L = std::lcm(P * r, Q * s);
    const index_t n = static_cast<index_t>(rng() % static_cast<std::uint64_t>(4 * L + 2));
    const CyclicMap S{n, P, r};
    const CyclicMap T{n, Q, s};
    for (int p = 0; p < P; ++p) {
      const auto full = hpf::runs_from(S, T, p);
      const auto per = hpf::periodic_runs_from(S, T, p);
      ASSERT_EQ(per.size(), full.size());
      for (std::size_t q = 0; q < full.size(); ++q) {
        std::vector<RunT> got;
        per[q].for_each([&](index_t so, index_t dof, index_t len) { got.push_back({so, dof, len}); });
        ASSERT_EQ(got, full[q]) << "P=" << P << " Q=" << Q << " r=" << r << " s=" << s << " n=" << n;
        index_t total = 0;
        for (const RunT& run : full[q]) total += run.len;
        ASSERT_EQ(per[q].elements, total);
      }
    }
    for (int q = 0; q < Q; ++q) {
      const auto full = hpf::runs_to(S, T, q);
      const auto per = hpf::periodic_runs_to(S, T, q);
      for (std::size_t p = 0; p < full.size(); ++p) {
        std::vector<RunT> got;
        per[p].for_each([&](index_t so, index_t dof, index_t len) { got.push_back({so, dof, len}); });
        ASSERT_EQ(got, full[p]);
      }
    }
  }
}

// Block sizes from 1 to beyond n / P (BLOCK), where a block of one side holds many blocks of the
// other: the strided runs expand to the full run list, and packing (Side::Src), unpacking (Side::Dst)
// and the local copy (Side::Both) move exactly the elements owned by p and q, in global order, to the
// right local places: as planned (by offset tables where the planner keeps them) and again with the
// tables dropped, so that the strided loops (detail::move_strided: one contiguous piece, each fixed
// piece length of detail::copy_pieces, element by element, piece by piece) are checked on every case.
TEST(RedistRuns, StridedRunsAndTheirCopiesMatchBruteForce) {
  std::mt19937_64 rng(11);
  auto block = [&](index_t n, int P) -> index_t {
    switch (rng() % 4) {
    case 0:
      return 1 + static_cast<index_t>(rng() % 3);
    case 1:
      return 1 + static_cast<index_t>(rng() % 40);
    case 2:
      return std::max<index_t>(1, (n + P - 1) / P); // BLOCK
    default:
      return 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(n + 2));
    }
  };
  const auto untabled = [](hpf::PeriodicRuns pr) {
    pr.src_index.clear();
    pr.dst_index.clear();
    return pr;
  };
  int tabled = 0;
  std::vector<int> strided_len(10); // strided runs (count > 1, pieces apart on a side) of length 1-8, longer
  for (int t = 0; t < 2000; ++t) {
    const int P = 1 + static_cast<int>(rng() % 7);
    const int Q = 1 + static_cast<int>(rng() % 7);
    const index_t n = static_cast<index_t>(rng() % 700);
    const CyclicMap S{n, P, block(n, P)};
    const CyclicMap T{n, Q, block(n, Q)};
    const std::string where = "P=" + std::to_string(P) + " Q=" + std::to_string(Q) +
                              " r=" + std::to_string(S.r) + " s=" + std::to_string(T.r) +
                              " n=" + std::to_string(n);
    for (int p = 0; p < P; ++p) {
      const auto full = hpf::runs_from(S, T, p);
      const auto per = hpf::periodic_runs_from(S, T, p);
      std::vector<double> src(static_cast<std::size_t>(S.local_extent(p)));
      for (std::size_t l = 0; l < src.size(); ++l)
        src[l] = static_cast<double>(S.global(p, static_cast<index_t>(l)));
      for (int q = 0; q < Q; ++q) {
        const auto to = hpf::periodic_runs_to(S, T, q);
        const hpf::PeriodicRuns& planned = per[static_cast<std::size_t>(q)];
        tabled += planned.src_index.empty() ? 0 : 1;
        for (const hpf::StridedRun& r : planned.period)
          if (r.count > 1 && (r.src_step != r.len || r.dst_step != r.len))
            ++strided_len[static_cast<std::size_t>(std::min<index_t>(r.len, 9))];
        for (const bool tables : {true, false}) {
          const hpf::PeriodicRuns pr = tables ? planned : untabled(planned);
          const hpf::PeriodicRuns rq =
              tables ? to[static_cast<std::size_t>(p)] : untabled(to[static_cast<std::size_t>(p)]);
          const std::string how = where + (tables ? " as planned" : " without tables");
          std::vector<RunT> got;
          pr.for_each([&](index_t so, index_t dof, index_t len) { got.push_back({so, dof, len}); });
          ASSERT_EQ(got, full[static_cast<std::size_t>(q)]) << how;
          std::vector<double> want;
          for (index_t g = 0; g < n; ++g)
            if (S.owner(g) == p && T.owner(g) == q) want.push_back(static_cast<double>(g));
          ASSERT_EQ(pr.elements, static_cast<index_t>(want.size())) << how;
          // Pack.
          std::vector<double> buf(want.size() + 1, -1.0);
          ASSERT_EQ((pr.move<hpf::detail::Side::Src, double>(src.data(), buf.data())), pr.elements) << how;
          ASSERT_EQ(buf.back(), -1.0) << how;
          buf.pop_back();
          ASSERT_EQ(buf, want) << how;
          // Unpack on q with the receiver's own runs, and the local copy.
          std::vector<double> dst(static_cast<std::size_t>(T.local_extent(q)), -1.0);
          ASSERT_EQ((rq.move<hpf::detail::Side::Dst, double>(buf.data(), dst.data())), pr.elements) << how;
          std::vector<double> dst2(dst.size(), -1.0);
          pr.move<hpf::detail::Side::Both, double>(src.data(), dst2.data());
          for (std::size_t l = 0; l < dst.size(); ++l) {
            const index_t g = T.global(q, static_cast<index_t>(l));
            const double expect = S.owner(g) == p ? static_cast<double>(g) : -1.0;
            ASSERT_EQ(dst[l], expect) << how << " p=" << p << " q=" << q << " l=" << l;
            ASSERT_EQ(dst2[l], expect) << how << " p=" << p << " q=" << q << " l=" << l;
          }
        }
      }
    }
  }
  // Both ways were taken, and the strided loops saw every piece length they special-case.
  EXPECT_GT(tabled, 0);
  for (std::size_t len = 1; len < strided_len.size(); ++len)
    EXPECT_GT(strided_len[len], 0) << "length " << len;
}

// The offset tables are kept where a slice's runs carry few elements each (short pieces that do not
// repeat at a fixed step), never where a run holds many pieces of one length (CYCLIC(7) -> BLOCK:
// copy_pieces<7> moves them), nor for long pieces (PeriodicRuns::tabulate's measured rule).
TEST(RedistRuns, TablesOnlyForRunsOfFewElements) {
  const auto tables = [](index_t n, int P, index_t r, int Q, index_t s) {
    const auto per = hpf::periodic_runs_from(CyclicMap{n, P, r}, CyclicMap{n, Q, s}, 0);
    int count = 0;
    for (const hpf::PeriodicRuns& pr : per) count += pr.src_index.empty() ? 0 : 1;
    return count;
  };
  EXPECT_EQ(tables(1000, 2, 1, 2, 3), 2);    // CYCLIC(1) -> CYCLIC(3): runs of 1.5 elements
  EXPECT_EQ(tables(1000, 4, 3, 4, 7), 4);    // runs of 2-3 elements
  EXPECT_EQ(tables(1000, 2, 7, 2, 500), 0);  // CYCLIC(7) -> BLOCK: runs of 36 pieces of 7
  EXPECT_EQ(tables(1000, 2, 3, 2, 64), 0);   // runs of about 19 elements
  EXPECT_EQ(tables(1000, 2, 64, 2, 500), 0); // long pieces
  // Single-element pieces (a CYCLIC(1) side): the table up to 48 elements a run.
  EXPECT_EQ(tables(1000, 2, 1, 2, 64), 2);  // runs of 32 single elements
  EXPECT_EQ(tables(1000, 2, 1, 2, 500), 0); // runs of 250
  EXPECT_EQ(tables(1000, 4, 250, 4, 1), 0); // BLOCK -> CYCLIC(1): runs of 62 or 63
}

// A fused pass (RedistributionPlan::pack_many) moves a message a few slices at a time: slices
// [k0, k1) in chunks of any size, then the tail, move exactly what one move() moves, on every side.
TEST(RedistRuns, SlicesInChunksMoveWhatMoveMoves) {
  using hpf::detail::Side;
  std::mt19937_64 rng(13);
  for (int t = 0; t < 2000; ++t) {
    const int P = 1 + static_cast<int>(rng() % 7);
    const int Q = 1 + static_cast<int>(rng() % 7);
    const index_t r = 1 + static_cast<index_t>(rng() % (rng() % 2 == 0 ? 4 : 70));
    const index_t s = 1 + static_cast<index_t>(rng() % (rng() % 2 == 0 ? 4 : 70));
    const index_t L = std::lcm(P * r, Q * s);
    const index_t n =
        static_cast<index_t>(rng() % static_cast<std::uint64_t>(std::min<index_t>(6 * L + 3, 5000)));
    const CyclicMap S{n, P, r};
    const CyclicMap T{n, Q, s};
    const int p = static_cast<int>(rng() % static_cast<std::uint64_t>(P));
    const int q = static_cast<int>(rng() % static_cast<std::uint64_t>(Q));
    const auto froms = hpf::periodic_runs_from(S, T, p);
    const auto tos = hpf::periodic_runs_to(S, T, q);
    const hpf::PeriodicRuns& from = froms[static_cast<std::size_t>(q)];
    const hpf::PeriodicRuns& to = tos[static_cast<std::size_t>(p)];
    const std::string where = "P=" + std::to_string(P) + " Q=" + std::to_string(Q) +
                              " r=" + std::to_string(r) + " s=" + std::to_string(s) +
                              " n=" + std::to_string(n);
    std::vector<double> src(static_cast<std::size_t>(S.local_extent(p)));
    std::iota(src.begin(), src.end(), 1.0);
    const auto chunked = [&](const hpf::PeriodicRuns& pr, auto side, const double* in, double* out) {
      const index_t chunk = 1 + static_cast<index_t>(rng() % 5);
      for (index_t k = 0; k < pr.reps; k += chunk)
        pr.move_slices<decltype(side)::value>(k, std::min(pr.reps, k + chunk), in, out);
      pr.move_tail<decltype(side)::value>(in, out);
    };
    using SrcSide = std::integral_constant<Side, Side::Src>;
    using DstSide = std::integral_constant<Side, Side::Dst>;
    using BothSide = std::integral_constant<Side, Side::Both>;
    std::vector<double> whole(static_cast<std::size_t>(from.elements), -1.0);
    std::vector<double> parts(whole.size(), -1.0);
    from.move<Side::Src>(src.data(), whole.data());
    chunked(from, SrcSide{}, src.data(), parts.data());
    ASSERT_EQ(parts, whole) << where;
    std::vector<double> dst_whole(static_cast<std::size_t>(T.local_extent(q)), -1.0);
    std::vector<double> dst_parts(dst_whole.size(), -1.0);
    to.move<Side::Dst>(whole.data(), dst_whole.data());
    chunked(to, DstSide{}, whole.data(), dst_parts.data());
    ASSERT_EQ(dst_parts, dst_whole) << where;
    std::vector<double> both(dst_whole.size(), -1.0);
    chunked(from, BothSide{}, src.data(), both.data());
    ASSERT_EQ(both, dst_whole) << where;
  }
}

// The other fused pass (RedistributionPlan::pack_many where slices are long or the whole extent is one)
// moves a message a chunk of block offsets at a time: move_upto with increasing limits of any step
// moves exactly what one move() moves, on every side, and after each call exactly the pieces that
// start before the limit on the walked side (Src, Both: source offsets; Dst, and Both as unpack_many
// walks the kept part: target offsets).
// CYCLIC, BLOCK, GEN_BLOCK and INDIRECT maps (local order is global order on each process for all).
TEST(RedistRuns, OffsetsInChunksMoveWhatMoveMoves) {
  using hpf::detail::Side;
  std::mt19937_64 rng(17);
  int partial = 0; // calls that stopped inside a strided run
  for (int t = 0; t < 3000; ++t) {
    const int P = 1 + static_cast<int>(rng() % 7);
    const int Q = 1 + static_cast<int>(rng() % 7);
    const index_t n = static_cast<index_t>(rng() % 3000);
    const auto map = [&](int procs) -> CyclicMap {
      switch (rng() % 5) {
      case 0:
        return hpf::Block().map(n, procs);
      case 1: { // GEN_BLOCK
        std::vector<index_t> cut(static_cast<std::size_t>(procs - 1));
        for (index_t& c : cut) c = static_cast<index_t>(rng() % static_cast<std::uint64_t>(n + 1));
        cut.push_back(0);
        cut.push_back(n);
        std::sort(cut.begin(), cut.end());
        std::vector<index_t> sizes;
        for (std::size_t k = 1; k < cut.size(); ++k) sizes.push_back(cut[k] - cut[k - 1]);
        return hpf::GenBlock(sizes).map(n, procs);
      }
      case 2: { // INDIRECT, in runs of equal owners
        std::vector<int> owner(static_cast<std::size_t>(n));
        int cur = 0;
        for (int& o : owner) {
          if (rng() % 6 == 0) cur = static_cast<int>(rng() % static_cast<std::uint64_t>(procs));
          o = cur;
        }
        return hpf::Indirect(owner).map(n, procs);
      }
      default:
        return hpf::Cyclic(1 + static_cast<index_t>(rng() % (rng() % 2 == 0 ? 8 : 300))).map(n, procs);
      }
    };
    const CyclicMap S = map(P);
    const CyclicMap T = map(Q);
    const int p = static_cast<int>(rng() % static_cast<std::uint64_t>(P));
    const int q = static_cast<int>(rng() % static_cast<std::uint64_t>(Q));
    const hpf::PeriodicRuns from = hpf::periodic_runs_from(S, T, p)[static_cast<std::size_t>(q)];
    const hpf::PeriodicRuns to = hpf::periodic_runs_to(S, T, q)[static_cast<std::size_t>(p)];
    const std::string where = "P=" + std::to_string(P) + " Q=" + std::to_string(Q) +
                              " r=" + std::to_string(S.r) + " s=" + std::to_string(T.r) +
                              " n=" + std::to_string(n) + " p=" + std::to_string(p) +
                              " q=" + std::to_string(q);
    // Elements of the pieces that start before `limit` on the walked side.
    const auto before = [](const hpf::PeriodicRuns& pr, bool by_src, index_t limit) {
      index_t e = 0;
      pr.for_each([&](index_t so, index_t dof, index_t len) { e += (by_src ? so : dof) < limit ? len : 0; });
      return e;
    };
    const auto chunked = [&](const hpf::PeriodicRuns& pr, auto side, auto walk, const double* in,
                             double* out) {
      constexpr Side sd = decltype(side)::value;
      constexpr bool by_src = decltype(walk)::value;
      hpf::PeriodicRuns::Cursor at;
      for (index_t limit = 0; !pr.done(at);) {
        limit += static_cast<index_t>(rng() % 40);
        pr.move_upto<sd, by_src>(at, limit, in, out);
        partial += at.piece > 0 ? 1 : 0;
        ASSERT_EQ(at.packed, before(pr, by_src, limit)) << where << " limit " << limit;
        ASSERT_LE(limit, n + 40) << where; // it ends
      }
      ASSERT_EQ(at.packed, pr.elements) << where;
    };
    using SrcSide = std::integral_constant<Side, Side::Src>;
    using DstSide = std::integral_constant<Side, Side::Dst>;
    using BothSide = std::integral_constant<Side, Side::Both>;
    using BySrc = std::true_type;
    using ByDst = std::false_type;
    std::vector<double> src(static_cast<std::size_t>(S.local_extent(p)));
    std::iota(src.begin(), src.end(), 1.0);
    std::vector<double> whole(static_cast<std::size_t>(from.elements), -1.0);
    std::vector<double> parts(whole.size(), -1.0);
    from.move<Side::Src>(src.data(), whole.data());
    // The same by non-temporal stores (RedistributionPlan's writes into large areas): same bytes, on
    // every side, nothing written past the message.
    std::vector<double> streamed(whole.size() + 1, -1.0);
    from.move<Side::Src, double, true>(src.data(), streamed.data());
    hpf::detail::stream_fence();
    ASSERT_EQ(streamed.back(), -1.0) << where;
    streamed.pop_back();
    ASSERT_EQ(streamed, whole) << where;
    chunked(from, SrcSide{}, BySrc{}, src.data(), parts.data());
    if (HasFatalFailure()) return;
    ASSERT_EQ(parts, whole) << where;
    std::vector<double> dst_whole(static_cast<std::size_t>(T.local_extent(q)), -1.0);
    std::vector<double> dst_parts(dst_whole.size(), -1.0);
    to.move<Side::Dst>(whole.data(), dst_whole.data());
    std::vector<double> dst_streamed(dst_whole.size(), -1.0);
    to.move<Side::Dst, double, true>(whole.data(), dst_streamed.data());
    std::vector<double> both_streamed(dst_whole.size(), -1.0);
    from.move<Side::Both, double, true>(src.data(), both_streamed.data());
    hpf::detail::stream_fence();
    ASSERT_EQ(dst_streamed, dst_whole) << where;
    ASSERT_EQ(both_streamed, dst_whole) << where;
    chunked(to, DstSide{}, ByDst{}, whole.data(), dst_parts.data());
    if (HasFatalFailure()) return;
    ASSERT_EQ(dst_parts, dst_whole) << where;
    std::vector<double> both(dst_whole.size(), -1.0);
    chunked(from, BothSide{}, BySrc{}, src.data(), both.data());
    if (HasFatalFailure()) return;
    ASSERT_EQ(both, dst_whole) << where;
    std::vector<double> both_by_dst(dst_whole.size(), -1.0);
    chunked(from, BothSide{}, ByDst{}, src.data(), both_by_dst.data());
    if (HasFatalFailure()) return;
    ASSERT_EQ(both_by_dst, dst_whole) << where;
  }
  EXPECT_GT(partial, 100);
}

// Non-temporal copies (detail::stream_bytes) write exactly the bytes memcpy writes, whatever the
// alignment of either end and the length (a head to the 64-byte line, whole lines, a tail), and
// nothing around them.
TEST(RedistRuns, StreamedBytesAreMemcpysBytes) {
  std::mt19937_64 rng(29);
  std::vector<std::byte> from(4200);
  for (std::byte& b : from) b = static_cast<std::byte>(rng());
  for (int t = 0; t < 3000; ++t) {
    const std::size_t so = rng() % 64;
    const std::size_t d0 = rng() % 64;
    const std::size_t n = rng() % (t % 2 == 0 ? 64 : 4096);
    std::vector<std::byte> want(4200, std::byte{0x5a});
    std::vector<std::byte> got(want);
    std::memcpy(want.data() + d0, from.data() + so, n);
    hpf::detail::stream_bytes(got.data() + d0, from.data() + so, n);
    hpf::detail::stream_fence();
    ASSERT_EQ(got, want) << "source offset " << so << ", target offset " << d0 << ", " << n << " bytes";
  }
}

// Planning is O(period), not O(elements): BLOCK -> CYCLIC(1) of 10^7 elements on 3 -> 5 processes
// stores a few strided runs per pair, not one run per element.
TEST(RedistRuns, BlockToCyclicOneStoresFewRuns) {
  const index_t n = 10000000;
  const CyclicMap S{n, 3, (n + 2) / 3};
  const CyclicMap T{n, 5, 1};
  // Each process's runs, per peer: few of them, and together its whole local block.
  auto check = [](const std::vector<hpf::PeriodicRuns>& per, index_t local) {
    index_t total = 0;
    for (const auto& pr : per) {
      EXPECT_LE(pr.period.size() + pr.tail.size(), 3U);
      total += pr.elements;
    }
    EXPECT_EQ(total, local);
  };
  for (int p = 0; p < 3; ++p) check(hpf::periodic_runs_from(S, T, p), S.local_extent(p));
  for (int q = 0; q < 5; ++q) check(hpf::periodic_runs_to(S, T, q), T.local_extent(q));
}

} // namespace
