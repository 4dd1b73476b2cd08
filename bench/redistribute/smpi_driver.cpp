// bench_redistribute_smpi: REDISTRIBUTE CYCLIC(r) -> CYCLIC(s) of M doubles on every rank of
// MPI_COMM_WORLD (P = Q = ranks, one grid, as in section 5 of Desprez et al.), built with smpicxx by
// smpi_run.sh and run under SimGrid SMPI on the platforms of bench/platforms/. Only the Kokkos-free
// layers are used: layout/ (Layout, ProcessGrid), redist/ (RedistributionPlan, RedistributionExecutor
// on raw buffers), schedule/ and exec/ (Exchange). The same file builds natively (bench_redistribute_smpi
// of the CMake build) so that it keeps compiling warning-free.
//
// For each method of --methods (hpfrt Strategy names: caterpillar, class, koenig-stepwise,
// koenig-greedy, all-at-once, alltoallv) the plan is built once, one untimed execution is checked
// element by element (every target element must hold its global index), then --repeats executions
// are timed: barrier, MPI_Wtime, execute, MPI_Wtime, and the slowest rank's time (MPI_Allreduce MAX).
// Under SMPI with smpi/simulate-computation:no, MPI_Wtime is the simulated clock and packing and
// unpacking cost nothing: the figure is the communication time, as in Desprez et al. (who pack before
// starting their timer). The simulation is deterministic; the median of the repeats is printed (an
// alltoallv executor's first execution also agrees on its counts, which the median leaves out).
// Strategy alltoallv runs one MPI_Alltoallv, whose algorithm SMPI takes from --cfg=smpi/alltoallv:X;
// --label names the row (e.g. alltoallv_pair).
//
// Method caterpillar-steps is the caterpillar without its plan: the caterpillar schedule holds every
// pair (p, q) of its P steps, empty messages included (P^2 = 1M messages, 16 MB, on every rank at
// P = 1024: 16 GB for 1024 simulated ranks, more than this machine has), though the executor drops
// the empty ones. caterpillar-steps runs the messages of the König stepwise plan (the same messages:
// a plan's messages do not depend on its strategy) in the caterpillar's steps, p -> q in step
// (q - p) mod P, through hpf::Exchange (StepSynchronous) with the plan's pack and unpack. Its steps
// and total cost are the caterpillar's (an Allreduce of the longest message per step). At 16 to 256
// ranks both run, and smpi_run.sh reports both: they agree.
//
// --shared 1 (for 256 and more simulated ranks) allocates the source and target blocks of the timed
// runs with SMPI_SHARED_MALLOC: every simulated rank maps the same pages, so 1024 ranks fit in memory
// but the contents are meaningless. The check then runs on private blocks of a smaller problem with
// the same pattern: M' = min(M, 2 L + M mod L) elements, L = lcm(P r, Q s) (the pattern of M is
// floor(M / L) times that of a slice plus that of the remainder, Desprez et al.), so the same pairs talk in
// the same steps, with shorter messages. Since the timed contents are meaningless anyway, the timed
// runs then skip packing, unpacking and the local copy: they run the executor's hpf::Exchange (the
// same ExchangePlan, ExecMode and tag, so the same MPI calls in the same order) with callbacks that do
// nothing. Packing costs no simulated time under smpi/simulate-computation:no, so the simulated time
// is unchanged; at 1024 ranks packing 1 GiB per execution was about a quarter of the real time of a
// method.
//
// --check 0 skips the check, and the row's checked elements are then 0. smpi_run.sh uses it only for
// MPI_Alltoallv from 1024 ranks on, where the check is a second full MPI_Alltoallv of P^2 messages,
// most of them empty, and costs about a third of the real time of the run (see smpi_run.sh).
//
// Output (rank 0, stdout): one line per method
//   RESULT,<label>,<simulated seconds>,<steps>,<total cost (elements)>,<largest message (bytes)>,
//          <smallest message (bytes)>,<checked elements>
//
//   smpirun ... bench_redistribute_smpi --M 1e6 --r 3 --s 5 --methods caterpillar,class [--repeats 3]
//                                       [--label name] [--shared 0|1] [--check 0|1]
#include <hpf/core/error.hpp>
#include <hpf/core/math.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/layout/layout.hpp>
#include <hpf/redist/plan.hpp>
#include <hpf/schedule/strategy.hpp>

#include "../common/bench_common.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#ifndef HPF_SMPI // native build: plain allocations
#define SMPI_SHARED_MALLOC(size) std::malloc(size)
#define SMPI_SHARED_FREE(p) std::free(p)
#endif

namespace {

using hpf::index_t;

struct Args {
  index_t M = 1000000;
  index_t r = 3;
  index_t s = 5;
  std::vector<std::string> methods{"caterpillar", "class", "koenig-stepwise", "koenig-greedy", "all-at-once"};
  std::string label;
  int repeats = 3;
  bool shared = false;
  bool check = true;
};

Args parse(int argc, char** argv) {
  using hpf::bench::parse_number;
  Args a;
  hpf::bench::for_each_option(
      argc, argv,
      "[--M elements] [--r r] [--s s] [--methods m,...] [--label name] [--repeats R] [--shared 0|1] "
      "[--check 0|1]",
      [&](std::string_view k, std::string_view v) {
        if (k == "--M")
          a.M = static_cast<index_t>(parse_number<double>(v, "--M"));
        else if (k == "--r")
          a.r = parse_number<index_t>(v, "--r");
        else if (k == "--s")
          a.s = parse_number<index_t>(v, "--s");
        else if (k == "--methods")
          a.methods = hpf::bench::split_list(v);
        else if (k == "--label")
          a.label = v;
        else if (k == "--repeats")
          a.repeats = parse_number<int>(v, "--repeats");
        else if (k == "--shared")
          a.shared = parse_number<int>(v, "--shared") != 0;
        else if (k == "--check")
          a.check = parse_number<int>(v, "--check") != 0;
        else
          return false;
        return true;
      });
  hpf::detail::require(a.M >= 0, "--M: expected >= 0 elements, got ", a.M);
  hpf::detail::require(a.r >= 1 && a.s >= 1, "--r / --s: expected block sizes >= 1, got ", a.r, " and ", a.s);
  hpf::detail::require(a.repeats >= 1, "--repeats: expected >= 1, got ", a.repeats);
  hpf::detail::require(a.label.empty() || a.methods.size() == 1,
                       "--label: names one method's row, but --methods lists ", a.methods.size());
  return a;
}

/// A private block of n doubles (std::vector would zero-fill; the target need not be).
struct Block {
  explicit Block(index_t n, bool shared)
      : shared(shared), n(n),
        data(static_cast<double*>(shared ? SMPI_SHARED_MALLOC(bytes()) : std::malloc(bytes()))) {
    hpf::detail::require(data != nullptr, "bench_redistribute_smpi: cannot allocate ", bytes(), " bytes");
  }
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  ~Block() {
    if (shared) {
      SMPI_SHARED_FREE(data);
    } else {
      std::free(data);
    }
  }
  [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(std::max<index_t>(n, 1)) * 8; }
  bool shared;
  index_t n;
  double* data;
};

/// One method's execution: src -> dst (blocks laid out by the plan's source and target).
using Run = std::function<void(const double*, double*)>;

/// The caterpillar's steps for the messages of `plan` (see the header): P = Q on one grid, so grid
/// positions are ranks of MPI_COMM_WORLD.
class CaterpillarSteps {
public:
  CaterpillarSteps(const hpf::RedistributionPlan<1>& plan, int P, int me) : m_plan(&plan) {
    const hpf::ExchangePlan xp = plan.exchange_plan(sizeof(double));
    hpf::ExchangePlan cat;
    m_sends = order(
        xp.sends, [&](int peer) { return (peer - me + P) % P; }, cat.sends);
    m_recvs = order(
        xp.recvs, [&](int peer) { return (me - peer + P) % P; }, cat.recvs);
    // Total cost: the longest message of each step, over all ranks.
    std::vector<long long> longest(static_cast<std::size_t>(P), 0);
    for (const auto& t : cat.sends)
      longest[static_cast<std::size_t>(t.step)] = static_cast<long long>(t.bytes / sizeof(double));
    longest[0] = std::max<long long>(longest[0], plan.local_copy_elements()); // step 0: p -> p, kept
    MPI_Allreduce(MPI_IN_PLACE, longest.data(), P, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    m_total_cost = std::accumulate(longest.begin(), longest.end(), 0LL);
    m_exchange.emplace(plan.source().grid().comm(), std::move(cat), hpf::ExecMode::StepSynchronous,
                       plan.options().tag);
  }
  void operator()(const double* src, double* dst) {
    if (src == nullptr) { // bytes only (see --shared in the header): the same messages, nothing packed
      m_exchange->execute([](std::size_t, std::byte*) {}, [](std::size_t, const std::byte*) {});
      return;
    }
    const hpf::RedistributionPlan<1>* plan = m_plan;
    const std::vector<std::size_t>& sends = m_sends;
    const std::vector<std::size_t>& recvs = m_recvs;
    m_exchange->post(
        [&](std::size_t i, std::byte* buf) { plan->pack(sends[i], src, reinterpret_cast<double*>(buf)); },
        [&](std::size_t i, const std::byte* buf) {
          plan->unpack(recvs[i], reinterpret_cast<const double*>(buf), dst);
        });
    plan->copy_local(src, dst);
    m_exchange->wait();
  }
  [[nodiscard]] long long total_cost() const { return m_total_cost; }

private:
  /// `in` with steps from step_of(peer), sorted by step into `out`; returns the index in `in` of each.
  template <class F> static std::vector<std::size_t> order(const std::vector<hpf::Transfer>& in, F step_of,
                                                           std::vector<hpf::Transfer>& out) {
    std::vector<std::size_t> idx(in.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::sort(idx.begin(), idx.end(),
              [&](std::size_t a, std::size_t b) { return step_of(in[a].peer) < step_of(in[b].peer); });
    for (std::size_t i : idx) {
      hpf::Transfer t = in[i];
      t.step = step_of(t.peer);
      out.push_back(t);
    }
    return idx;
  }
  const hpf::RedistributionPlan<1>* m_plan;
  std::vector<std::size_t> m_sends;
  std::vector<std::size_t> m_recvs;
  long long m_total_cost = 0;
  std::optional<hpf::Exchange> m_exchange;
};

/// The plan's strategy: caterpillar-steps is planned as koenig-stepwise (its messages).
hpf::Strategy strategy_of(const std::string& method) {
  return method == "caterpillar-steps" ? hpf::Strategy::KoenigStepwise
                                       : hpf::parse_strategy(method, "--methods");
}

hpf::Layout<1> layout(index_t M, index_t b, const hpf::ProcessGrid& grid) {
  return hpf::Layout<1>({M}, {hpf::Cyclic(b)}, grid);
}

/// Runs `plan` once on private blocks and checks every target element against its global index.
/// Returns the number of elements checked on this rank; throws hpf::Error (on every rank, after an
/// agreement) when one is wrong.
index_t check(const hpf::RedistributionPlan<1>& plan, const std::string& method, int P, int me) {
  const hpf::CyclicMap sm = plan.source().map(0);
  const hpf::CyclicMap dm = plan.target().map(0);
  Block src(sm.local_extent(me), false);
  Block dst(dm.local_extent(me), false);
  for (index_t l = 0; l < src.n; ++l) src.data[l] = static_cast<double>(sm.global(me, l));
  for (index_t l = 0; l < dst.n; ++l) dst.data[l] = -1;
  if (method == "caterpillar-steps") {
    CaterpillarSteps(plan, P, me)(src.data, dst.data);
  } else {
    hpf::RedistributionExecutor<1>(plan).execute(src.data, dst.data);
  }
  index_t bad = -1;
  for (index_t l = 0; l < dst.n && bad < 0; ++l)
    if (dst.data[l] != static_cast<double>(dm.global(me, l))) bad = l;
  long long any_bad = bad >= 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any_bad, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (bad >= 0)
    std::fprintf(stderr, "rank %d: target local %lld holds %g, expected global index %lld\n", me,
                 static_cast<long long>(bad), dst.data[bad], static_cast<long long>(dm.global(me, bad)));
  hpf::detail::require(any_bad == 0, "bench_redistribute_smpi: strategy ",
                       hpf::to_string(plan.options().strategy),
                       " moved an element to the wrong place (see stderr)");
  return dst.n;
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  try {
    const Args a = parse(argc, argv);
    int me = 0;
    int P = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const hpf::ProcessGrid grid(MPI_COMM_WORLD, {P});
    // The smaller problem with the same pattern, for the check of shared-buffer runs.
    index_t M_check = a.M;
    if (a.shared) {
      const index_t L = hpf::slice_length(P, a.r, P, a.s);
      M_check = std::min(a.M, 2 * L + a.M % L);
    }
    for (const std::string& name : a.methods) {
      hpf::RedistOptions opt;
      opt.strategy = strategy_of(name);
      opt.element_bytes = sizeof(double);
      const hpf::RedistributionPlan<1> plan(layout(a.M, a.r, grid), layout(a.M, a.s, grid), opt);
      index_t checked = 0;
      if (!a.check) {
        // --check 0: nothing checked, and the row says so (checked elements 0)
      } else if (M_check == a.M) {
        checked = check(plan, name, P, me);
      } else {
        checked =
            check(hpf::RedistributionPlan<1>(layout(M_check, a.r, grid), layout(M_check, a.s, grid), opt),
                  name, P, me);
      }
      long long checked_all = checked;
      MPI_Allreduce(MPI_IN_PLACE, &checked_all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);

      Block src(plan.source().map(0).local_extent(me), a.shared);
      Block dst(plan.target().map(0).local_extent(me), a.shared);
      if (!a.shared)
        for (index_t l = 0; l < src.n; ++l) src.data[l] = static_cast<double>(l);
      Run run;
      std::optional<hpf::RedistributionExecutor<1>> ex;
      std::optional<hpf::Exchange> bytes_only;
      std::optional<CaterpillarSteps> cat;
      if (name == "caterpillar-steps") {
        cat.emplace(plan, P, me);
        run = [&](const double* s, double* d) { a.shared ? (*cat)(nullptr, nullptr) : (*cat)(s, d); };
      } else if (a.shared) { // what RedistributionExecutor::execute does, without the copies (header)
        bytes_only.emplace(plan.source().grid().comm(), plan.exchange_plan(sizeof(double)), plan.exec_mode(),
                           plan.options().tag);
        run = [&](const double*, double*) {
          bytes_only->execute([](std::size_t, std::byte*) {}, [](std::size_t, const std::byte*) {});
        };
      } else {
        ex.emplace(plan);
        run = [&](const double* s, double* d) { ex->execute(s, d); };
      }
      std::vector<double> times;
      for (int k = 0; k < a.repeats; ++k) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        run(src.data, dst.data);
        double t = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        times.push_back(t);
      }
      const hpf::Schedule& sched = plan.dim_schedule(0);
      index_t largest = 0;
      index_t smallest = 0;
      for (const auto& step : sched.steps())
        for (const auto& m : step.messages) {
          if (m.src == m.dst || m.len == 0) continue; // kept locally (P = Q, one grid), or empty
          largest = std::max(largest, m.len);
          smallest = smallest == 0 ? m.len : std::min(smallest, m.len);
        }
      const int steps = cat ? P : sched.num_steps();
      const long long total_cost = cat ? cat->total_cost() : static_cast<long long>(sched.total_cost());
      if (me == 0)
        std::printf("RESULT,%s,%.9g,%d,%lld,%lld,%lld,%lld\n",
                    a.label.empty() ? name.c_str() : a.label.c_str(), hpf::median(times), steps, total_cost,
                    static_cast<long long>(largest) * 8, static_cast<long long>(smallest) * 8, checked_all);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_redistribute_smpi: %s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
