// A REDISTRIBUTE, a TRANSPOSE and a section assignment of 128 MB each complete with the right values
// where /dev/shm is far smaller than the data (CTest runs this under a 64 MiB tmpfs in a private mount
// namespace: tests/regress/CMakeLists.txt). Messages go through MPI, which reports what it cannot do;
// nothing of hpfrt's maps shared memory that a full tmpfs would turn into SIGBUS.
#include "hpf_test.hpp"

#include <hpf/hpf.hpp>

#include <sys/statvfs.h>

namespace {

using hpf::DistArray;
using hpf::index_t;
using hpf::Layout;
using hpf::ProcessGrid;
using hpf::test::world_size;

constexpr index_t kElements = index_t{16} << 20; // 16 Mi doubles: 128 MiB

/// Elements whose value differs from their global index `f(g)`, summed over the ranks (collective).
template <int N, class F> long long wrong(DistArray<double, N>& A, F&& f) {
  long long bad = 0;
  hpf::forall(A, [&](const hpf::Index<N>& g, double& x) { bad += x != f(g) ? 1 : 0; });
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return bad;
}

TEST(SmallDevShm, ShowsTheMountThisRunsUnder) {
  struct statvfs fs {};
  ASSERT_EQ(statvfs("/dev/shm", &fs), 0);
  const double mib = static_cast<double>(fs.f_blocks) * static_cast<double>(fs.f_frsize) / (1 << 20);
  RecordProperty("dev_shm_mib", std::to_string(mib));
  if (hpf::test::world_rank() == 0) std::printf("/dev/shm: %.0f MiB\n", mib);
}

TEST(SmallDevShm, RedistributeOf128MB) {
  const auto grid = ProcessGrid::world({world_size()});
  DistArray<double, 1> A("A", Layout<1>({kElements}, {hpf::Cyclic(3)}, grid));
  hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = static_cast<double>(g[0]); });
  for (const hpf::Distribution& d : {hpf::Cyclic(5), hpf::Block(), hpf::Cyclic(3)}) {
    A.redistribute(Layout<1>({kElements}, {d}, grid));
    EXPECT_EQ(wrong(A, [](const hpf::Index<1>& g) { return static_cast<double>(g[0]); }), 0);
  }
}

TEST(SmallDevShm, TransposeAndSectionOf128MB) {
  const int n = world_size();
  const index_t rows = 4096;
  const index_t cols = kElements / rows;
  const auto grid = ProcessGrid::world({n});
  const Layout<2> a({rows, cols}, {hpf::Block(), hpf::Collapsed()}, grid);
  DistArray<double, 2> A("A", a);
  const auto value = [cols](index_t i, index_t j) { return static_cast<double>(i * cols + j); };
  hpf::forall(A, [&](const hpf::Index<2>& g, double& x) { x = value(g[0], g[1]); });
  DistArray<double, 2> T =
      hpf::transpose(A, Layout<2>({cols, rows}, {hpf::Cyclic(64), hpf::Collapsed()}, grid));
  EXPECT_EQ(wrong(T, [&](const hpf::Index<2>& g) { return value(g[1], g[0]); }), 0);
  // B(:, :) = A(:, :) between two layouts: the whole array as a section.
  DistArray<double, 2> B("B", Layout<2>({rows, cols}, {hpf::Cyclic(7), hpf::Collapsed()}, grid));
  hpf::assign(B, hpf::whole_section<2>(B.layout().extents()), A, hpf::whole_section<2>(a.extents()));
  EXPECT_EQ(wrong(B, [&](const hpf::Index<2>& g) { return value(g[0], g[1]); }), 0);
}

} // namespace
