// bench_batch: several arrays in one exchange (hpf::RedistributionBatch, hpf::redistribute_many)
// against moving them one at a time, each repeat timed between barriers as the slowest rank's time;
// the CSV gets the median of --repeats repeats, the ratio to the case's baseline, and the time of one
// memcpy of the same local bytes (every rank copying at once) measured in the same job.
//
// Cases, 1-D arrays of doubles on the world's P ranks, pattern BLOCK -> CYCLIC(1) or CYCLIC(64):
//   small   k = 8 arrays of --small elements each (default 10^4). Baseline: separate, eight
//           A.redistribute(target) calls (plans cached, as a program writes them). Rows:
//             separate            the baseline;
//             separate-executors  eight held RedistributionExecutors into fixed target arrays (no
//                                 agreement, no target block per call);
//             batch               one reused RedistributionBatch into fixed target arrays;
//             redistribute-many   hpf::redistribute_many on the eight arrays (in place, cached batch).
//           The in-place rows move the arrays back, untimed, after every repeat.
//   large   k arrays of --large / k elements (default 8 * 10^6 in all), k = 1, 2, 4, 8. Baseline: one
//           array of --large elements through a held RedistributionExecutor (k = 1, "one-array"); rows
//           batch for k = 2, 4, 8 (the same total bytes).
//
//   mpirun -n 4 bench_batch --repeats 11 --job 1 --csv docs/results/redistribute_batch.csv
#include <hpf/hpf.hpp>

#include "../common/bench_common.hpp"

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace {

using hpf::DistArray;
using hpf::index_t;
using hpf::Layout;

using Array = DistArray<double, 1>;

struct Options {
  int repeats = 11;
  index_t small = 10000;
  index_t large = 8000000;
  int job = 1;
  std::string csv = "-";
};

struct Row {
  std::string pattern;
  std::string kase;
  int k;
  index_t elements; // per array
  std::string method;
  double median;
  double baseline;
  double memcpy_s;
};

/// Median over `repeats` of the slowest rank's time of f(), after one untimed call; `after` runs
/// untimed after each call (moving in-place arrays back).
template <class F, class G> double median_time(int repeats, F&& f, G&& after) {
  f();
  after();
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    t.push_back(hpf::bench::slowest_time(f));
    after();
  }
  return hpf::median(std::move(t));
}
template <class F> double median_time(int repeats, F&& f) {
  return median_time(repeats, std::forward<F>(f), [] {});
}

/// The slowest rank's median time of one memcpy of `bytes`, every rank at once.
double memcpy_time(int repeats, std::size_t bytes) {
  std::vector<char> a(bytes + 1, 1);
  std::vector<char> b(bytes + 1, 2);
  return median_time(repeats, [&] { std::memcpy(b.data(), a.data(), bytes); });
}

/// Options as DistArray::redistribute fills them (the machine model's alpha, beta, one node, cache).
hpf::RedistOptions model_options(const Layout<1>& from) {
  return hpf::detail::with_model(from, {}, sizeof(double));
}

std::vector<Array> make_arrays(const std::string& name, int k, const Layout<1>& L, bool fill) {
  std::vector<Array> out;
  for (int i = 0; i < k; ++i) {
    out.emplace_back(name + std::to_string(i), L);
    if (fill) hpf::forall(out.back(), [](const hpf::Index<1>& g, double& x) { x = double(g[0]); });
  }
  return out;
}

void small_case(const Options& o, const std::string& pattern, const Layout<1>& from, const Layout<1>& to,
                std::vector<Row>& rows) {
  constexpr int k = 8;
  std::vector<Array> A = make_arrays("A", k, from, true);
  std::vector<Array> B = make_arrays("B", k, to, false);
  const hpf::RedistOptions opt = model_options(from);
  const auto plan = hpf::cached_plan(from, to, opt);
  const int P = hpf::comm_size(MPI_COMM_WORLD);
  const std::size_t bytes = static_cast<std::size_t>(k * o.small / P) * sizeof(double);
  const double copy = memcpy_time(o.repeats, bytes);

  const double separate = median_time(
      o.repeats,
      [&] {
        for (Array& a : A) a.redistribute(to);
      },
      [&] {
        for (Array& a : A) a.redistribute(from);
      });

  std::vector<std::unique_ptr<hpf::RedistributionExecutor<1>>> ex;
  for (int i = 0; i < k; ++i) ex.push_back(std::make_unique<hpf::RedistributionExecutor<1>>(*plan));
  const double executors = median_time(o.repeats, [&] {
    for (int i = 0; i < k; ++i)
      ex[static_cast<std::size_t>(i)]->execute(A[static_cast<std::size_t>(i)],
                                               B[static_cast<std::size_t>(i)]);
  });

  hpf::RedistributionBatch batch;
  for (int i = 0; i < k; ++i) batch.add<double>(plan);
  std::vector<hpf::BatchBlocks> blocks;
  for (int i = 0; i < k; ++i)
    blocks.emplace_back(static_cast<const double*>(A[static_cast<std::size_t>(i)].local_data()),
                        B[static_cast<std::size_t>(i)].local_data());
  const double batched = median_time(o.repeats, [&] { batch.execute(blocks); });

  const auto all = std::tie(A[0], A[1], A[2], A[3], A[4], A[5], A[6], A[7]);
  const double many = median_time(
      o.repeats,
      [&] {
        hpf::redistribute_many(all, {to, to, to, to, to, to, to, to});
      },
      [&] {
        hpf::redistribute_many(all, {from, from, from, from, from, from, from, from});
      });

  for (const auto& [method, t] : {std::pair<const char*, double>{"separate", separate},
                                  {"separate-executors", executors},
                                  {"batch", batched},
                                  {"redistribute-many", many}})
    rows.push_back({pattern, "small", k, o.small, method, t, separate, copy});
}

void large_case(const Options& o, const std::string& pattern,
                const std::function<Layout<1>(index_t, bool)>& layout, std::vector<Row>& rows) {
  const int P = hpf::comm_size(MPI_COMM_WORLD);
  const std::size_t bytes = static_cast<std::size_t>(o.large / P) * sizeof(double);
  const double copy = memcpy_time(o.repeats, bytes);
  double baseline = 0;
  for (int k : {1, 2, 4, 8}) {
    const index_t n = o.large / k;
    const Layout<1> from = layout(n, false);
    const Layout<1> to = layout(n, true);
    std::vector<Array> A = make_arrays("A", k, from, true);
    std::vector<Array> B = make_arrays("B", k, to, false);
    const auto plan = std::make_shared<const hpf::RedistributionPlan<1>>(from, to, model_options(from));
    double t = 0;
    if (k == 1) {
      hpf::RedistributionExecutor<1> ex(*plan);
      t = median_time(o.repeats, [&] { ex.execute(A[0], B[0]); });
      baseline = t;
    } else {
      hpf::RedistributionBatch batch;
      std::vector<hpf::BatchBlocks> blocks;
      for (int i = 0; i < k; ++i) {
        batch.add<double>(plan);
        blocks.emplace_back(static_cast<const double*>(A[static_cast<std::size_t>(i)].local_data()),
                            B[static_cast<std::size_t>(i)].local_data());
      }
      t = median_time(o.repeats, [&] { batch.execute(blocks); });
    }
    rows.push_back({pattern, "large", k, n, k == 1 ? "one-array" : "batch", t, baseline, copy});
  }
}

} // namespace

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    Options o;
    hpf::bench::for_each_option(argc, argv, "[--repeats R] [--small n] [--large n] [--job j] [--csv file]",
                                [&](std::string_view k, std::string_view v) {
                                  if (k == "--repeats")
                                    o.repeats = hpf::bench::parse_number<int>(v, k);
                                  else if (k == "--small")
                                    o.small = hpf::bench::parse_number<index_t>(v, k);
                                  else if (k == "--large")
                                    o.large = hpf::bench::parse_number<index_t>(v, k);
                                  else if (k == "--job")
                                    o.job = hpf::bench::parse_number<int>(v, k);
                                  else if (k == "--csv")
                                    o.csv = v;
                                  else
                                    return false;
                                  return true;
                                });
    hpf::detail::require(o.repeats >= 1, "--repeats: must be >= 1, got ", o.repeats);
    const int P = hpf::comm_size(MPI_COMM_WORLD);
    const auto world = hpf::ProcessGrid::world({P});
    std::vector<Row> rows;
    for (const int r : {1, 64}) {
      const std::string pattern = "BLOCK->CYCLIC(" + std::to_string(r) + ")";
      small_case(o, pattern, Layout<1>({o.small}, {hpf::Block()}, world),
                 Layout<1>({o.small}, {hpf::Cyclic(r)}, world), rows);
      large_case(
          o, pattern,
          [&](index_t n, bool target) {
            return target ? Layout<1>({n}, {hpf::Cyclic(r)}, world) : Layout<1>({n}, {hpf::Block()}, world);
          },
          rows);
    }
    if (hpf::comm_rank(MPI_COMM_WORLD) == 0) {
      hpf::bench::CsvWriter csv(
          o.csv, "ranks,job,case,pattern,k,elements_per_array,method,median_s,baseline_s,ratio,"
                 "memcpy_s,repeats");
      for (const Row& r : rows)
        csv.row("%d,%d,%s,%s,%d,%lld,%s,%.6e,%.6e,%.4f,%.6e,%d\n", P, o.job, r.kase.c_str(),
                r.pattern.c_str(), r.k, static_cast<long long>(r.elements), r.method.c_str(), r.median,
                r.baseline, r.median / r.baseline, r.memcpy_s, o.repeats);
    }
    return 0;
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "bench_batch: %s\n", e.what());
    return 1;
  }
}
