// GoogleTest main for MPI tests.
//
// Every rank runs every test. After each test the ranks agree (MPI_Allreduce) on whether it failed
// anywhere: rank 0 reports a test that failed only on other ranks, with their ranks. Failure messages
// are printed by the failing rank, tagged "[rank R]". Other output comes from rank 0 only. The exit
// code is non-zero on every rank when any test failed on any rank.
#include <hpf/hpf.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// Prints failed assertions of non-zero ranks (rank 0's are printed by the default printer) and
/// makes rank 0 report tests that failed elsewhere.
class RankListener : public testing::EmptyTestEventListener {
public:
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (world_rank() == 0 || !r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", world_rank(), r.file_name() ? r.file_name() : "?",
                 r.line_number(), r.message());
    std::fflush(stderr);
  }

  void OnTestEnd(const testing::TestInfo& info) override {
    const int failed_here = info.result()->Failed() ? 1 : 0;
    std::vector<int> all(static_cast<std::size_t>(world_size()), 0);
    MPI_Gather(&failed_here, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (world_rank() != 0 || failed_here) return;
    std::string ranks;
    for (std::size_t r = 0; r < all.size(); ++r)
      if (all[r]) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    if (!ranks.empty())
      ADD_FAILURE() << info.test_suite_name() << "." << info.name() << " failed on rank(s) " << ranks;
  }
};

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  testing::InitGoogleTest(&argc, argv);
  auto& listeners = testing::UnitTest::GetInstance()->listeners();
  if (world_rank() != 0) delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new RankListener);

  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}
