// bench_element_access: what reading one element by its global index costs, A[g] and A.shadow(g),
// against the same reads through the local view and through hpf::forall (one process).
//
//   bench_element_access [--repeats 31] [--csv docs/results/element_access.csv]
//
// Arrays: 1-D CYCLIC(7) of 2^20 doubles, B without a shadow and A with one of width 1, updated
// (Periodic) before timing. Each method sums every element once: B's local view, hpf::forall over B,
// B[g] and A.shadow(g) in global order (every such read checks that g is in bounds and owned, or in
// the shadow); medians over repeats, nanoseconds per element, and the ratio to the local-view loop. Until the
// checks built their error text on every call (their arguments were evaluated before the check), an A[g] took
// about 95 ns here (docs/shadow.md).
#include <hpf/hpf.hpp>

#include "../common/bench_common.hpp"

#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  const auto [repeats, csv] =
      hpf::bench::parse_repeats_and_csv(argc, argv, {31, "docs/results/element_access.csv"});
  const auto grid = hpf::ProcessGrid(MPI_COMM_WORLD, {0}, {1});
  const hpf::index_t n = hpf::index_t(1) << 20;
  const hpf::Layout<1> L({n}, {hpf::Cyclic(7)}, grid);
  hpf::DistArray<double, 1> B("element access", L);
  hpf::DistArray<double, 1> A("element access with a shadow", L.with_shadow({1}));
  const auto value = [](const hpf::Index<1>& g, double& x) { x = static_cast<double>(g[0] % 13); };
  hpf::forall(B, value);
  hpf::forall(A, value);
  A.update_shadow(hpf::Boundary::Periodic);
  const double want = [&] {
    double s = 0;
    for (hpf::index_t i = 0; i < n; ++i) s += static_cast<double>(i % 13);
    return s;
  }();

  struct Method {
    const char* name;
    std::function<double()> sum;
    double median_s = 0;
  };
  std::vector<Method> methods;
  methods.push_back({"local-view", [&] {
                       const auto& v = B.local_view();
                       double s = 0;
                       for (std::size_t l = 0; l < v.extent(0); ++l) s += v(l);
                       return s;
                     }});
  methods.push_back({"forall", [&] {
                       double s = 0;
                       hpf::forall(B, [&s](const hpf::Index<1>&, double& x) { s += x; });
                       return s;
                     }});
  methods.push_back({"operator[]", [&] {
                       double s = 0;
                       for (hpf::index_t i = 0; i < n; ++i) s += B[{i}];
                       return s;
                     }});
  methods.push_back({"shadow", [&] {
                       double s = 0;
                       for (hpf::index_t i = 0; i < n; ++i) s += A.shadow({i});
                       return s;
                     }});

  bool ok = true;
  volatile double sink = 0;
  for (Method& m : methods) {
    ok = ok && m.sum() == want;
    m.median_s = hpf::bench::median_seconds(repeats, [&] { sink = sink + m.sum(); });
  }
  hpf::bench::CsvWriter out(csv, "method,median_s,ns_per_element,over_local_view,ok",
                            hpf::bench::CsvWriter::Mode::Truncate);
  const double base = methods.front().median_s;
  for (const Method& m : methods) {
    const double ns = m.median_s / static_cast<double>(n) * 1e9;
    std::printf("%-12s %10.6f s  %7.2f ns/element  %7.2fx the local view\n", m.name, m.median_s, ns,
                m.median_s / base);
    out.row("%s,%.6g,%.4g,%.4g,%d\n", m.name, m.median_s, ns, m.median_s / base, ok ? 1 : 0);
  }
  std::printf("medians of %d repeats, %lld elements; sums %s\n", repeats, static_cast<long long>(n),
              ok ? "right" : "WRONG");
  return ok ? 0 : 1;
}
