// bench_redistribute_copy_loops: the two ways a plan moves the pieces of a message (redist/runs.hpp),
// on the messages of the sweep's 1-D cells (r, s in {1, 3, 7, 64, BLOCK}, r != s, M in {10^3, 10^5}
// on P = Q = 2 and 4 processes): by the offset table of one slice, one indexed load and store per
// element, or by the strided runs (detail::move_strided: one memcpy for a contiguous run, copy_pieces
// for a fixed piece length up to 8, a strided element copy for CYCLIC(1)). PeriodicRuns::tabulate
// keeps a table only where a slice's runs carry few elements each; this measures that rule.
//
// A cell's work is all of one redistribution's data movement in one process: every source p packs its
// message to every other q (Side::Src), q unpacks it with its own runs (Side::Dst), and p copies the
// part it keeps (Side::Both). Each variant runs the whole cell 100 times per sample; medians of
// --repeats samples, the variants round-robin within each repeat. Pure: no MPI.
//
//   bench_redistribute_copy_loops [--repeats 15] [--csv out.csv]
#include "../common/bench_common.hpp"

#include <hpf/layout/distribution.hpp>
#include <hpf/redist/runs.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using hpf::index_t;
using hpf::detail::Side;

/// One (p, q) pair's runs on both ends, in the three forms the bench times.
struct Pair {
  hpf::PeriodicRuns from; // p's runs to q (Src, and Both when p == q)
  hpf::PeriodicRuns to;   // q's runs from p (Dst)
  bool local = false;     // p == q: the kept part
  int p = 0;
  int q = 0;
};

enum Variant : std::size_t { Table, Strided, Planned };

hpf::PeriodicRuns as(hpf::PeriodicRuns pr, Variant v) {
  if (v == Table) pr.build_tables();
  if (v == Strided) {
    pr.src_index.clear();
    pr.dst_index.clear();
  }
  return pr; // Planned: as periodic_runs_from / _to left it
}

/// The sweep's block sizes: CYCLIC(b), and BLOCK for 0.
hpf::Distribution dist_of(index_t b) { return b == 0 ? hpf::Block() : hpf::Cyclic(b); }

} // namespace

int main(int argc, char** argv) {
  try {
    constexpr int loops = 100; // whole cells per timed sample: 10^3 cells take about a microsecond
    const auto args = hpf::bench::parse_repeats_and_csv(argc, argv, {15, ""});
    hpf::detail::require(args.repeats >= 9, "--repeats: must be >= 9 (medians), got ", args.repeats);
    const int repeats = args.repeats;
    const std::string& csv_path = args.csv;
    hpf::bench::CsvWriter csv;
    if (!csv_path.empty())
      csv = hpf::bench::CsvWriter(
          csv_path,
          "M,P,r,s,elements,strided_runs,elements_per_run,single_element_pieces,tables_kept,messages,"
          "table_s,strided_s,planned_s,strided_over_table,planned_over_best",
          hpf::bench::CsvWriter::Mode::Truncate);
    const std::array<index_t, 5> blocks{1, 3, 7, 64, 0};
    for (const index_t M : {index_t{1000}, index_t{100000}})
      for (const int P : {2, 4})
        for (const index_t r : blocks)
          for (const index_t s : blocks) {
            if (r == s) continue;
            const hpf::CyclicMap S = dist_of(r).map(M, P);
            const hpf::CyclicMap T = dist_of(s).map(M, P);
            std::vector<Pair> pairs;
            index_t elements = 0;
            index_t runs = 0;
            index_t slice_elements = 0;
            index_t pieces = 0; // of one slice, summed over the messages
            int kept = 0;
            for (int p = 0; p < P; ++p) {
              const auto from = hpf::periodic_runs_from(S, T, p);
              for (int q = 0; q < P; ++q) {
                const hpf::PeriodicRuns& f = from[static_cast<std::size_t>(q)];
                if (f.elements == 0) continue;
                pairs.push_back(
                    {f, hpf::periodic_runs_to(S, T, q)[static_cast<std::size_t>(p)], p == q, p, q});
                elements += f.elements;
                runs += static_cast<index_t>(f.period.size());
                slice_elements += f.period_elements;
                for (const hpf::StridedRun& run : f.period) pieces += run.count;
                kept += f.src_index.empty() ? 0 : 1;
              }
            }
            std::array<std::vector<Pair>, 3> forms;
            for (const Variant v : {Table, Strided, Planned})
              for (const Pair& pr : pairs)
                forms[v].push_back({as(pr.from, v), as(pr.to, v), pr.local, pr.p, pr.q});
            std::vector<std::vector<double>> src(static_cast<std::size_t>(P));
            std::vector<std::vector<double>> dst(static_cast<std::size_t>(P));
            for (int p = 0; p < P; ++p) {
              src[static_cast<std::size_t>(p)].assign(static_cast<std::size_t>(S.local_extent(p)), 1.0);
              dst[static_cast<std::size_t>(p)].assign(static_cast<std::size_t>(T.local_extent(p)), 0.0);
            }
            std::vector<double> buf(static_cast<std::size_t>(M) + 1);
            const auto run_cell = [&](const std::vector<Pair>& ps) {
              for (const Pair& pr : ps) {
                const double* in = src[static_cast<std::size_t>(pr.p)].data();
                double* out = dst[static_cast<std::size_t>(pr.q)].data();
                if (pr.local) {
                  pr.from.move<Side::Both>(in, out);
                } else {
                  pr.from.move<Side::Src>(in, buf.data());
                  pr.to.move<Side::Dst>(buf.data(), out);
                }
              }
            };
            std::array<std::vector<double>, 3> t;
            for (int k = 0; k < repeats; ++k)
              for (const Variant v : {Table, Strided, Planned}) {
                run_cell(forms[v]); // warm
                const auto t0 = std::chrono::steady_clock::now();
                for (int i = 0; i < loops; ++i) run_cell(forms[v]);
                t[v].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                               loops);
              }
            const double table = hpf::median(t[Table]);
            const double strided = hpf::median(t[Strided]);
            const double planned = hpf::median(t[Planned]);
            const double per_run =
                runs == 0 ? 0.0 : static_cast<double>(slice_elements) / static_cast<double>(runs);
            std::printf(
                "M %6lld P %d  %-10s -> %-10s  elements/run %8.1f  tables %2d of %2zu  table %9.3f us  "
                "strided %9.3f us  strided/table %5.2f  planned/best %5.2f\n",
                static_cast<long long>(M), P, dist_of(r).to_string().c_str(), dist_of(s).to_string().c_str(),
                per_run, kept, pairs.size(), table * 1e6, strided * 1e6, strided / table,
                planned / std::min(table, strided));
            csv.row("%lld,%d,%lld,%lld,%lld,%lld,%.4g,%d,%d,%zu,%.6g,%.6g,%.6g,%.4g,%.4g\n",
                    static_cast<long long>(M), P, static_cast<long long>(r), static_cast<long long>(s),
                    static_cast<long long>(elements), static_cast<long long>(runs), per_run,
                    pieces == slice_elements ? 1 : 0, kept, pairs.size(), table, strided, planned,
                    strided / table, planned / std::min(table, strided));
          }
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "bench_redistribute_copy_loops: %s\n", e.what());
    return 2;
  }
  return 0;
}
