// bench_series_probe (issue 14): where a series with SeriesStrategy::Collective loses time against
// the bench's bare MPI_Reduce loop (bench/steady/series.cpp). Variants, interleaved, medians of the
// slowest rank's time per reduction; `name.outside` is the time outside MPI_Reduce (a PMPI wrapper
// below times every MPI_Reduce of the process, the series' too: libhpfrt is linked statically):
//   bare-mat       the bench's loop: forall, fold, MPI_Reduce(Mat = 4 x uint64, non-commutative op, WORLD)
//   bare-mat-comm  the same with the op created commutative (another algorithm inside Open MPI)
//   mat-dup        bare-mat on a duplicated communicator
//   bytes32        bare-mat with the value as 32 MPI_BYTEs
//   part40-direct  the value and a flag, as the series sends it (sizeof(Part) MPI_BYTEs), op inlined
//   part40-fn      the same, the op called through std::function as the series does
//   bare-part      part40-fn on a duplicated communicator (the series' datatype, op and communicator)
//   bare-part+allreduce  bare-part and one MPI_Allreduce after (the series' error agreement)
//   part-batch     the contributions kept, then one MPI_Reduce of count K
//   part-batch+allreduce  part-batch and one MPI_Allreduce after (what the series now does per batch)
//   series         ReductionSeries<Mat>, SeriesStrategy::Collective (series.loop: the phase loop,
//                  series.wait: wait_all)
//   mpirun -n P bench_series_probe [--ops K] [--repeats R] [--only variant]
#include <hpf/hpf.hpp>

#include "../common/bench_common.hpp"
#include "series_mat.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

using hpf::bench::max_over_ranks;
using hpf::bench::series::element;
using hpf::bench::series::Mat;
using hpf::bench::series::mpi_mul;
using hpf::bench::series::mul;

struct Part {
  Mat value;
  unsigned char has;
};
std::function<Mat(const Mat&, const Mat&)> g_op = mul;
const std::function<void(const std::byte*, std::byte*)>* g_fold = nullptr;

void part_fold(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i)
    (*g_fold)(static_cast<const std::byte*>(in) + i * sizeof(Part),
              static_cast<std::byte*>(inout) + i * sizeof(Part));
}

void part_mul(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<Part*>(in);
  auto* b = static_cast<Part*>(inout);
  for (int i = 0; i < *len; ++i) b[i].value = mul(a[i].value, b[i].value);
}

double g_in_mpi = 0; // seconds inside MPI_Reduce on this rank (PMPI wrapper below)

} // namespace

// Time spent inside MPI_Reduce, for every caller (the series' too: libhpfrt is linked statically).
extern "C" int MPI_Reduce(const void* s, void* r, int n, MPI_Datatype ty, MPI_Op o, int root, MPI_Comm c) {
  const double t0 = MPI_Wtime();
  const int rc = PMPI_Reduce(s, r, n, ty, o, root, c);
  g_in_mpi += MPI_Wtime() - t0;
  return rc;
}

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  long long K = 100;
  int repeats = 15;
  std::string only;
  hpf::bench::for_each_option(argc, argv, "[--ops K] [--repeats R] [--only variant]",
                              [&](std::string_view k, std::string_view v) {
                                if (k == "--ops")
                                  K = hpf::bench::parse_number<long long>(v, "--ops");
                                else if (k == "--repeats")
                                  repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                else if (k == "--only")
                                  only = v;
                                else
                                  return false;
                                return true;
                              });
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto grid = hpf::ProcessGrid::world({size});
  const hpf::Layout<1> layout({size * 4}, {hpf::Block()}, grid);
  hpf::DistArray<Mat, 1> A("A", layout);

  hpf::steady::MeasureOptions mo;
  mo.unit_bytes = sizeof(Mat) + 8;
  const auto platform = hpf::steady::measure_platform(hpf::Comm::duplicate(MPI_COMM_WORLD), mo);

  MPI_Datatype mat_type = MPI_DATATYPE_NULL, part_type = MPI_DATATYPE_NULL;
  HPF_MPI_CHECK(MPI_Type_contiguous(4, MPI_UINT64_T, &mat_type));
  HPF_MPI_CHECK(MPI_Type_commit(&mat_type));
  HPF_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(sizeof(Part)), MPI_BYTE, &part_type));
  HPF_MPI_CHECK(MPI_Type_commit(&part_type));
  MPI_Datatype bytes32 = MPI_DATATYPE_NULL;
  HPF_MPI_CHECK(MPI_Type_contiguous(32, MPI_BYTE, &bytes32));
  HPF_MPI_CHECK(MPI_Type_commit(&bytes32));
  MPI_Op op_pmul = MPI_OP_NULL;
  HPF_MPI_CHECK(MPI_Op_create(&part_mul, 0, &op_pmul));
  MPI_Op op = MPI_OP_NULL, op_comm = MPI_OP_NULL, op_part = MPI_OP_NULL;
  HPF_MPI_CHECK(MPI_Op_create(&mpi_mul, 0, &op));
  HPF_MPI_CHECK(MPI_Op_create(&mpi_mul, 1, &op_comm));
  HPF_MPI_CHECK(MPI_Op_create(&part_fold, 0, &op_part));
  hpf::Comm dup = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const std::function<void(const std::byte*, std::byte*)> fold = [](const std::byte* in, std::byte* inout) {
    Part a, b;
    std::memcpy(static_cast<void*>(&a), in, sizeof a);
    std::memcpy(static_cast<void*>(&b), inout, sizeof b);
    Part c = b;
    if (a.has && b.has)
      c = Part{g_op(a.value, b.value), 1};
    else if (a.has)
      c = a;
    std::memcpy(static_cast<void*>(inout), &c, sizeof c);
  };
  g_fold = &fold;

  std::vector<Mat> out(static_cast<std::size_t>(K));
  std::vector<Part> pout(static_cast<std::size_t>(K));
  auto bare = [&](MPI_Op o, MPI_Datatype ty = MPI_DATATYPE_NULL, MPI_Comm c = MPI_COMM_WORLD) {
    if (ty == MPI_DATATYPE_NULL) ty = mat_type;
    for (long long k = 0; k < K; ++k) {
      hpf::forall(A, [k](const hpf::Index<1>& g, Mat& x) { x = element(g[0], k); });
      Mat part = A.local_data()[0];
      for (hpf::index_t i = 1; i < A.local_size(); ++i) part = mul(part, A.local_data()[i]);
      HPF_MPI_CHECK(MPI_Reduce(&part, &out[static_cast<std::size_t>(k)], 1, ty, o, 0, c));
    }
  };
  auto bare_part = [&](MPI_Op o, MPI_Comm c) {
    for (long long k = 0; k < K; ++k) {
      hpf::forall(A, [k](const hpf::Index<1>& g, Mat& x) { x = element(g[0], k); });
      Part part{A.local_data()[0], 1};
      for (hpf::index_t i = 1; i < A.local_size(); ++i) part.value = g_op(part.value, A.local_data()[i]);
      HPF_MPI_CHECK(MPI_Reduce(&part, &pout[static_cast<std::size_t>(k)], 1, part_type, o, 0, c));
    }
  };
  std::map<std::string, std::vector<double>> t;
  auto series = [&] {
    hpf::SeriesOptions so;
    so.platform = platform;
    so.strategy = hpf::SeriesStrategy::Collective;
    so.expected = K;
    so.batch = K;
    hpf::ReductionSeries<Mat> red(layout, mul, so);
    HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    g_in_mpi = 0;
    const double t0 = MPI_Wtime();
    for (long long k = 0; k < K; ++k) {
      hpf::forall(A, [k](const hpf::Index<1>& g, Mat& x) { x = element(g[0], k); });
      red.submit(A);
    }
    const double t1 = MPI_Wtime(), in_mpi = g_in_mpi;
    red.wait_all();
    const double t2 = MPI_Wtime();
    t["series.outside"].push_back(max_over_ranks(t1 - t0 - in_mpi));
    t["series.loop"].push_back(max_over_ranks(t1 - t0));
    t["series.wait"].push_back(max_over_ranks(t2 - t1));
    return t2 - t0;
  };
  auto timed = [&](const std::string& name, auto&& fn) {
    if (!only.empty() && only != name) return;
    HPF_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    g_in_mpi = 0;
    const double t0 = MPI_Wtime();
    fn();
    const double dt = MPI_Wtime() - t0;
    t[name].push_back(max_over_ranks(dt));
    t[name + ".outside"].push_back(max_over_ranks(dt - g_in_mpi));
  };
  for (int rep = 0; rep < repeats; ++rep) {
    timed("bare-mat", [&] { bare(op); });
    timed("bare-mat-comm", [&] { bare(op_comm); });
    timed("mat-dup", [&] { bare(op, mat_type, dup.get()); });
    timed("bytes32", [&] { bare(op, bytes32); });
    timed("part40-direct", [&] { bare_part(op_pmul, MPI_COMM_WORLD); });
    timed("part40-fn", [&] { bare_part(op_part, MPI_COMM_WORLD); });
    timed("bare-part", [&] { bare_part(op_part, dup.get()); });
    timed("part-batch", [&] {
      std::vector<Part> in(static_cast<std::size_t>(K));
      for (long long k = 0; k < K; ++k) {
        hpf::forall(A, [k](const hpf::Index<1>& g, Mat& x) { x = element(g[0], k); });
        Part part{A.local_data()[0], 1};
        for (hpf::index_t i = 1; i < A.local_size(); ++i) part.value = g_op(part.value, A.local_data()[i]);
        in[static_cast<std::size_t>(k)] = part;
      }
      HPF_MPI_CHECK(
          MPI_Reduce(in.data(), pout.data(), static_cast<int>(K), part_type, op_part, 0, dup.get()));
    });
    timed("part-batch+allreduce", [&] {
      std::vector<Part> in(static_cast<std::size_t>(K));
      for (long long k = 0; k < K; ++k) {
        hpf::forall(A, [k](const hpf::Index<1>& g, Mat& x) { x = element(g[0], k); });
        Part part{A.local_data()[0], 1};
        for (hpf::index_t i = 1; i < A.local_size(); ++i) part.value = g_op(part.value, A.local_data()[i]);
        in[static_cast<std::size_t>(k)] = part;
      }
      HPF_MPI_CHECK(
          MPI_Reduce(in.data(), pout.data(), static_cast<int>(K), part_type, op_part, 0, dup.get()));
      int x = 0, y = 0;
      HPF_MPI_CHECK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, dup.get()));
    });
    timed("bare-part+allreduce", [&] {
      bare_part(op_part, dup.get());
      int x = 0, y = 0;
      HPF_MPI_CHECK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, dup.get()));
    });
    if (only.empty() || only == "series") t["series"].push_back(max_over_ranks(series()));
  }
  const double ref = t.count("bare-mat") ? hpf::bench::median(t["bare-mat"]) : 1.0;
  if (rank == 0)
    for (auto& [name, s] : t)
      std::printf("P=%d K=%lld %-14s %8.3f us/op  x%.3f bare-mat\n", size, K, name.c_str(),
                  hpf::bench::median(s) * 1e6 / static_cast<double>(K), hpf::bench::median(s) / ref);
  HPF_MPI_CHECK(MPI_Op_free(&op));
  HPF_MPI_CHECK(MPI_Op_free(&op_comm));
  HPF_MPI_CHECK(MPI_Op_free(&op_part));
  HPF_MPI_CHECK(MPI_Type_free(&mat_type));
  HPF_MPI_CHECK(MPI_Type_free(&part_type));
  return 0;
}
