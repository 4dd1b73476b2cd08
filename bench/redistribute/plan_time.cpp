// bench_redistribute_plan_time: how long planning one dimension takes (the goals: P = Q = 1024 with
// r = 3, s = 5 under 50 ms; any r, s at P, Q <= 1024 under 1 s). Planning is what every rank does
// for a new (source, target) pair: the communication grid (block_cyclic_pattern) and Auto's schedule
// (auto_choice: every candidate built once, the cheapest kept). Pure: no MPI. Median of --repeats; also NS
// and TC of the schedule against their lower bounds (max degree, max volume), and whether the König
// candidates used the fast colouring.
//
//   bench_redistribute_plan_time [--repeats 5] [--cases n] [--csv out.csv]
// --cases n runs only the first n cases (the CTest smoke run takes the first, the quickest).
#include "../common/bench_common.hpp"

#include <hpf/redist/pattern.hpp>
#include <hpf/schedule/strategy.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string_view>
#include <vector>

int main(int argc, char** argv) {
  try {
    hpf::bench::RepeatsAndCsv args{5, ""};
    std::size_t max_cases = SIZE_MAX;
    hpf::bench::for_each_option(argc, argv, "[--repeats R] [--cases n] [--csv file]",
                                [&](std::string_view k, std::string_view v) {
                                  if (k == "--repeats")
                                    args.repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                  else if (k == "--cases")
                                    max_cases = hpf::bench::parse_number<std::size_t>(v, "--cases");
                                  else if (k == "--csv")
                                    args.csv = v;
                                  else
                                    return false;
                                  return true;
                                });
    hpf::detail::require(args.repeats >= 1, "--repeats: must be >= 1, got ", args.repeats);
    hpf::detail::require(max_cases >= 1, "--cases: must be >= 1, got ", max_cases);
    struct Case {
      int P;
      hpf::index_t r;
      int Q;
      hpf::index_t s;
    };
    std::vector<Case> cases{{1024, 3, 1024, 5}, {1024, 7, 1024, 64},  {1024, 1, 1024, 1},
                            {1000, 1, 999, 1},  {1024, 7, 1023, 64},  {1024, 64, 1023, 3},
                            {1023, 1, 1024, 7}, {512, 1000, 1024, 1}, {1024, 3, 768, 5}};
    if (cases.size() > max_cases) cases.resize(max_cases);
    hpf::bench::CsvWriter csv;
    if (!args.csv.empty())
      csv = hpf::bench::CsvWriter(
          args.csv, "P,r,Q,s,M,median_s,strategy,NS,NS_lower_bound,TC,TC_lower_bound,fast_colouring",
          hpf::bench::CsvWriter::Mode::Truncate);
    for (const Case& c : cases) {
      const hpf::index_t L = std::lcm(c.P * c.r, c.Q * c.s);
      std::vector<double> t;
      hpf::Schedule sched;
      hpf::Strategy st = hpf::Strategy::Auto;
      bool fast = false;
      hpf::CommMatrix grid;
      for (int k = 0; k < args.repeats; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        grid = hpf::block_cyclic_pattern(c.P, c.r, c.Q, c.s, L);
        hpf::ScheduleOptions o;
        o.params = hpf::BlockCyclicParams{c.P, c.r, c.Q, c.s, L};
        hpf::AutoChoice choice = hpf::auto_choice(grid, o);
        st = choice.strategy;
        sched = std::move(choice.schedule);
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        fast = hpf::koenig_uses_fast_colouring(grid);
      }
      const double m = hpf::median(t);
      std::printf("P %4d r %4lld -> Q %4d s %4lld  M %9lld  plan %8.1f ms  %-16s NS %5d (>= %5d)  TC %7lld "
                  "(>= %7lld)%s\n",
                  c.P, static_cast<long long>(c.r), c.Q, static_cast<long long>(c.s),
                  static_cast<long long>(L), m * 1e3, hpf::to_string(st).c_str(), sched.num_steps(),
                  grid.max_degree(), static_cast<long long>(sched.total_cost()),
                  static_cast<long long>(grid.max_volume()), fast ? "  (König: fast colouring)" : "");
      csv.row("%d,%lld,%d,%lld,%lld,%.6g,%s,%d,%d,%lld,%lld,%d\n", c.P, static_cast<long long>(c.r), c.Q,
              static_cast<long long>(c.s), static_cast<long long>(L), m, hpf::to_string(st).c_str(),
              sched.num_steps(), grid.max_degree(), static_cast<long long>(sched.total_cost()),
              static_cast<long long>(grid.max_volume()), fast ? 1 : 0);
    }
  } catch (const hpf::Error& e) {
    std::fprintf(stderr, "bench_redistribute_plan_time: %s\n", e.what());
    return 2;
  }
  return 0;
}
