// The MPI datatype of a message's runs (redist/runs_datatype.hpp) against the plan's own copy loops:
// MPI_Pack through the sender's datatype gives exactly the bytes PeriodicRuns::move<Src> packs, and
// MPI_Unpack through the receiver's datatype puts them exactly where move<Dst> does, on thousands of
// random pairs of CYCLIC(r), BLOCK, GEN_BLOCK and INDIRECT maps (periodic slices, tails, strided runs).
// One rank: MPI_Pack and MPI_Unpack move nothing between processes.
#include <hpf/core/error.hpp>
#include <hpf/layout/distribution.hpp>
#include <hpf/redist/runs.hpp>
#include <hpf/redist/runs_datatype.hpp>

#include "hpf_test.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace {

using hpf::CyclicMap;
using hpf::index_t;
using hpf::detail::Side;

/// A random 1-D map of n elements over P processes: short or long cyclic blocks, BLOCK, GEN_BLOCK
/// (zero sizes included) or INDIRECT.
CyclicMap random_map(std::mt19937_64& rng, index_t n, int P) {
  switch (rng() % 6) {
  case 0:
    return hpf::Cyclic(1 + static_cast<index_t>(rng() % 3)).map(n, P);
  case 1:
    return hpf::Cyclic(1 + static_cast<index_t>(rng() % 70)).map(n, P);
  case 2:
    return hpf::Block().map(n, P);
  case 3: {
    std::vector<index_t> sizes(static_cast<std::size_t>(P), 0);
    for (index_t i = 0; i < n; ++i) ++sizes[rng() % sizes.size()];
    return hpf::GenBlock(sizes).map(n, P);
  }
  case 4: {
    std::vector<int> owners(static_cast<std::size_t>(n));
    int o = 0;
    for (int& x : owners) { // runs of equal owners, so that pieces are longer than one element
      if (rng() % 8 == 0) o = static_cast<int>(rng() % static_cast<std::uint64_t>(P));
      x = o;
    }
    return hpf::Indirect(owners).map(n, P);
  }
  default:
    return hpf::Cyclic(1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(n + 2))).map(n, P);
  }
}

/// The committed datatype of `runs` on `side` for elements of `elem_bytes` bytes.
hpf::Datatype committed(const hpf::PeriodicRuns& runs, Side side, std::size_t elem_bytes) {
  MPI_Datatype e = MPI_DATATYPE_NULL;
  HPF_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(elem_bytes), MPI_BYTE, &e));
  const hpf::Datatype elem(e);
  auto t = hpf::detail::runs_datatype(runs, side, elem.get(), static_cast<MPI_Aint>(elem_bytes));
  EXPECT_TRUE(t.has_value());
  if (!t) return {};
  MPI_Datatype c = t->release();
  HPF_MPI_CHECK(MPI_Type_commit(&c));
  return hpf::Datatype(c);
}

TEST(RunsDatatype, PackAndUnpackLikeThePlansCopyLoops) {
  std::mt19937_64 rng(2026);
  int checked = 0;
  for (int t = 0; t < 1500; ++t) {
    const int P = 1 + static_cast<int>(rng() % 6);
    const int Q = 1 + static_cast<int>(rng() % 6);
    const index_t n = static_cast<index_t>(rng() % 900);
    const CyclicMap S = random_map(rng, n, P);
    const CyclicMap T = random_map(rng, n, Q);
    const std::string where = "P=" + std::to_string(P) + " Q=" + std::to_string(Q) +
                              " r=" + std::to_string(S.r) + " s=" + std::to_string(T.r) +
                              " n=" + std::to_string(n) + (S.regular() ? "" : " (source irregular)") +
                              (T.regular() ? "" : " (target irregular)");
    for (int p = 0; p < P; ++p) {
      const auto from = hpf::periodic_runs_from(S, T, p);
      std::vector<double> src(static_cast<std::size_t>(S.local_extent(p)));
      for (std::size_t l = 0; l < src.size(); ++l)
        src[l] = static_cast<double>(S.global(p, static_cast<index_t>(l)));
      for (int q = 0; q < Q; ++q) {
        const auto& pr = from[static_cast<std::size_t>(q)];
        if (pr.elements == 0) continue;
        // The sender: MPI_Pack through the datatype gives the bytes of move<Src>.
        std::vector<double> want(static_cast<std::size_t>(pr.elements));
        pr.move<Side::Src, double>(src.data(), want.data());
        const hpf::Datatype st = committed(pr, Side::Src, sizeof(double));
        MPI_Count size = 0;
        HPF_MPI_CHECK(MPI_Type_size_x(st.get(), &size));
        ASSERT_EQ(size, pr.elements * static_cast<index_t>(sizeof(double))) << where;
        std::vector<double> got(want.size(), -1.0);
        int pos = 0;
        HPF_MPI_CHECK(MPI_Pack(src.data(), 1, st.get(), got.data(),
                               static_cast<int>(got.size() * sizeof(double)), &pos, MPI_COMM_SELF));
        ASSERT_EQ(pos, static_cast<int>(got.size() * sizeof(double))) << where;
        ASSERT_EQ(got, want) << where << " p=" << p << " q=" << q;
        // The receiver: MPI_Unpack through its datatype writes what move<Dst> writes, and nothing else.
        const auto to = hpf::periodic_runs_to(S, T, q);
        const auto& rq = to[static_cast<std::size_t>(p)];
        std::vector<double> dst_loop(static_cast<std::size_t>(T.local_extent(q)), -1.0);
        rq.move<Side::Dst, double>(want.data(), dst_loop.data());
        std::vector<double> dst_type(dst_loop.size(), -1.0);
        const hpf::Datatype rt = committed(rq, Side::Dst, sizeof(double));
        pos = 0;
        HPF_MPI_CHECK(MPI_Unpack(want.data(), static_cast<int>(want.size() * sizeof(double)), &pos,
                                 dst_type.data(), 1, rt.get(), MPI_COMM_SELF));
        ASSERT_EQ(dst_type, dst_loop) << where << " p=" << p << " q=" << q;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 3000);
}

// Elements wider than a double, and above dimension 0 (an element that is a whole column, `stride`
// bytes apart): the datatype places element k at k * stride.
TEST(RunsDatatype, ElementsOfAnySizeAndStride) {
  const CyclicMap S = hpf::Cyclic(3).map(100, 2);
  const CyclicMap T = hpf::Cyclic(5).map(100, 3);
  const auto pr = hpf::periodic_runs_from(S, T, 1)[2];
  constexpr std::size_t bytes = 12;
  constexpr MPI_Aint stride = 40; // 12-byte elements, 28 bytes apart
  MPI_Datatype e = MPI_DATATYPE_NULL;
  HPF_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &e));
  const hpf::Datatype elem(e);
  auto t = hpf::detail::runs_datatype(pr, Side::Src, elem.get(), stride);
  ASSERT_TRUE(t.has_value());
  MPI_Datatype c = t->release();
  HPF_MPI_CHECK(MPI_Type_commit(&c));
  const hpf::Datatype type(c);
  std::vector<unsigned char> block(static_cast<std::size_t>(S.local_extent(1) * stride));
  for (std::size_t i = 0; i < block.size(); ++i) block[i] = static_cast<unsigned char>(i * 7 + 1);
  std::vector<unsigned char> want;
  pr.for_each([&](index_t so, index_t, index_t len) {
    for (index_t k = so; k < so + len; ++k)
      for (std::size_t b = 0; b < bytes; ++b) want.push_back(block[static_cast<std::size_t>(k * stride) + b]);
  });
  std::vector<unsigned char> got(want.size());
  int pos = 0;
  HPF_MPI_CHECK(
      MPI_Pack(block.data(), 1, type.get(), got.data(), static_cast<int>(got.size()), &pos, MPI_COMM_SELF));
  EXPECT_EQ(got, want);
  EXPECT_GT(hpf::detail::mean_piece_bytes(pr, bytes), 0.0);
}

TEST(RunsDatatype, BothSidesIsRefused) {
  const CyclicMap S = hpf::Cyclic(3).map(10, 2);
  const auto pr = hpf::periodic_runs_from(S, S, 0)[0];
  HPF_EXPECT_ERROR((void)hpf::detail::runs_datatype(pr, Side::Both, MPI_BYTE, 1), "Src or Dst");
}

} // namespace
