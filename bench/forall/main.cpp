// bench_forall: the cost of hpf::forall against hand-written loops over the same local data.
//
//   bench_forall [--repeats 31] [--csv docs/results/forall.csv]
//
// Kernel: x = 0.5 * x + (sum of the global indices), on the local block of a 1-D array (CYCLIC(7),
// 2^22 local elements) and a 3-D array (CYCLIC(3) x * x BLOCK, 160^3 elements), one process.
// Peers: a loop over the Kokkos view with the local->global tables, and a loop over the raw pointer
// computing global indices with the cyclic formula. Reports medians over repeats and the ratio
// forall / best hand-written loop (the target is <= 1.10).
#include <hpf/hpf.hpp>

#include "../common/bench_common.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

/// The local -> global table of dimension d, built here for the hand-written peer (DistArray keeps
/// no such table: its metadata does not grow with the extent).
template <class A> std::vector<hpf::index_t> global_table(const A& a, int d) {
  std::vector<hpf::index_t> t(a.local_view().extent(static_cast<std::size_t>(d)));
  for (std::size_t l = 0; l < t.size(); ++l) t[l] = a.global_index(d, static_cast<hpf::index_t>(l));
  return t;
}

struct Row {
  std::string name;
  double forall_s, view_s, raw_s;
};

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  const auto [repeats, csv] = hpf::bench::parse_repeats_and_csv(argc, argv, {31, "docs/results/forall.csv"});
  const auto grid = hpf::ProcessGrid(MPI_COMM_WORLD, {0}, {1});
  std::vector<Row> rows;
  volatile double sink = 0;

  { // 1-D
    const hpf::index_t n = hpf::index_t(1) << 22;
    hpf::DistArray<double, 1> A("A1", hpf::Layout<1>({n}, {hpf::Cyclic(7)}, grid));
    A.fill(1.0);
    const auto v = A.local_view();
    const auto g0 = global_table(A, 0);
    const hpf::CyclicMap m = A.layout().map(0);
    Row r{"1-D 4M", 0, 0, 0};
    r.forall_s = hpf::bench::median_seconds(repeats, [&] {
      hpf::forall(A, [](const hpf::Index<1>& g, double& x) { x = 0.5 * x + double(g[0]); });
    });
    r.view_s = hpf::bench::median_seconds(repeats, [&] {
      for (std::size_t i = 0; i < v.extent(0); ++i) v(i) = 0.5 * v(i) + double(g0[i]);
    });
    r.raw_s = hpf::bench::median_seconds(repeats, [&] {
      double* p = v.data();
      const hpf::index_t e = static_cast<hpf::index_t>(v.extent(0));
      for (hpf::index_t l = 0; l < e; ++l) p[l] = 0.5 * p[l] + double(m.global(0, l));
    });
    sink = sink + v(0);
    rows.push_back(r);
  }
  { // 3-D
    const hpf::index_t n = 160;
    const hpf::Layout<3> L({n, n, n}, {hpf::Cyclic(3), hpf::Collapsed(), hpf::Collapsed()}, grid);
    hpf::DistArray<double, 3> A("A3", L);
    A.fill(1.0);
    const auto v = A.local_view();
    const auto g0 = global_table(A, 0);
    const auto g1 = global_table(A, 1);
    const auto g2 = global_table(A, 2);
    const hpf::CyclicMap m0 = L.map(0);
    Row r{"3-D 160^3", 0, 0, 0};
    r.forall_s = hpf::bench::median_seconds(repeats, [&] {
      hpf::forall(A, [](const hpf::Index<3>& g, double& x) { x = 0.5 * x + double(g[0] + g[1] + g[2]); });
    });
    r.view_s = hpf::bench::median_seconds(repeats, [&] {
      for (std::size_t k = 0; k < v.extent(2); ++k)
        for (std::size_t j = 0; j < v.extent(1); ++j)
          for (std::size_t i = 0; i < v.extent(0); ++i)
            v(i, j, k) = 0.5 * v(i, j, k) + double(g0[i] + g1[j] + g2[k]);
    });
    r.raw_s = hpf::bench::median_seconds(repeats, [&] {
      double* p = v.data();
      const auto e0 = static_cast<hpf::index_t>(v.extent(0));
      const auto e1 = static_cast<hpf::index_t>(v.extent(1));
      const auto e2 = static_cast<hpf::index_t>(v.extent(2));
      for (hpf::index_t k = 0; k < e2; ++k)
        for (hpf::index_t j = 0; j < e1; ++j)
          for (hpf::index_t i = 0; i < e0; ++i, ++p) *p = 0.5 * *p + double(m0.global(0, i) + j + k);
    });
    sink = sink + v(0, 0, 0);
    rows.push_back(r);
  }

  hpf::bench::CsvWriter out(
      csv, "case,forall_median_s,view_loop_median_s,raw_loop_median_s,ratio_forall_over_best",
      hpf::bench::CsvWriter::Mode::Truncate);
  std::printf("%-12s %14s %14s %14s %8s\n", "case", "forall (s)", "view loop (s)", "raw loop (s)", "ratio");
  bool ok = true;
  for (const Row& r : rows) {
    const double ratio = r.forall_s / std::min(r.view_s, r.raw_s);
    ok = ok && ratio <= 1.10;
    std::printf("%-12s %14.6f %14.6f %14.6f %8.3f\n", r.name.c_str(), r.forall_s, r.view_s, r.raw_s, ratio);
    out.row("%s,%.6g,%.6g,%.6g,%.6g\n", r.name.c_str(), r.forall_s, r.view_s, r.raw_s, ratio);
  }
  std::printf("medians of %d repeats; target ratio <= 1.10: %s (results in %s)\n", repeats,
              ok ? "met" : "NOT met", csv.c_str());
  return 0;
}
