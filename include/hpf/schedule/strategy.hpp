// Schedulers for a communication grid (Desprez et al., section 4.3-4.5), pure and deterministic.
//
// A schedule splits the non-zero entries of a P x Q grid into steps in which every sender sends at
// most one and every receiver receives at most one message. NS is the number of steps that move
// data, TC the sum over steps of the longest message; any schedule has NS >= the grid's max degree
// (König) and TC >= its max row/column volume.
//
//   Strategy        what it does                                               Desprez et al.
//   caterpillar     ScaLAPACK pxgemr2d's total exchange: max(P, Q) steps, at    section 3.2
//                   step k sender p meets receiver (p + k) mod max(P, Q), empty
//                   messages included
//   class           class by class when gcd(r', Q) = gcd(s', P) = 1: optimal    Prop. 3 and 4
//                   NS and TC (needs the block-cyclic parameters)
//   koenig-stepwise each step a maximum-weight matching among those saturating  Theorem 1, 4.5
//                   every vertex of maximum degree: NS = max degree, always
//   koenig-greedy   each step a maximum-weight matching: more steps, often      4.5, Example 5
//                   lower TC (not a theorem)
//                   Both fall back to a fast König colouring (max-degree steps by
//                   alternating paths, heaviest messages first) on grids where
//                   one matching per step would be too slow
//                   (koenig_uses_fast_colouring); TC is then not optimised
//   all-at-once     one message per step (the executor posts them all at once)
//   alltoallv       same shape; the executor calls MPI_Alltoallv
//   auto            the least alpha * steps + beta * TC among class (when it
//                   applies), koenig-stepwise, koenig-greedy and caterpillar
//
// Every scheduler is deterministic: the same grid (and options) give the same schedule on every rank.
#pragma once

#include <hpf/core/math.hpp>
#include <hpf/schedule/schedule.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpf {

enum class Strategy { Auto, Caterpillar, Class, KoenigStepwise, KoenigGreedy, AllAtOnce, Alltoallv };

/// "auto", "caterpillar", "class", "koenig-stepwise", "koenig-greedy", "all-at-once", "alltoallv".
[[nodiscard]] std::string to_string(Strategy s);
/// Inverse of to_string; throws hpf::Error naming the argument `what`, the value and the valid names.
[[nodiscard]] Strategy parse_strategy(std::string_view name, std::string_view what = "strategy");
/// Every strategy, in declaration order.
[[nodiscard]] const std::vector<Strategy>& all_strategies();

/// The 1-D block-cyclic problem behind a grid: CYCLIC(r) on P -> CYCLIC(s) on Q, M elements.
struct BlockCyclicParams {
  int P = 1;     ///< source processes
  index_t r = 1; ///< source block size
  int Q = 1;     ///< target processes
  index_t s = 1; ///< target block size
  index_t M = 0; ///< array extent (0: one period of lcm(P r, Q s) elements)
  /// Parameters compare equal field by field.
  friend bool operator==(const BlockCyclicParams&, const BlockCyclicParams&) = default;
};

/// What make_schedule needs besides the grid: the cost model of Auto and the block-cyclic parameters.
struct ScheduleOptions {
  double alpha = 1e-5; ///< seconds per step (start-up), for Auto
  double beta = 8e-10; ///< seconds per unit of message length (element), for Auto
  /// The block-cyclic parameters of the grid: required by Class, used by Auto to try Class.
  std::optional<BlockCyclicParams> params;
};

/// Builds the schedule of `grid` with `strategy`. Throws hpf::Error when the strategy does not apply
/// (Class without params or when Prop. 3's condition fails; params that do not match the grid).
[[nodiscard]] Schedule make_schedule(const CommMatrix& grid, Strategy strategy,
                                     const ScheduleOptions& opt = {});

/// Auto's pick with its schedule, from one pass over the candidates (auto_strategy followed by
/// make_schedule builds them twice).
struct AutoChoice {
  Strategy strategy = Strategy::Auto; ///< the strategy Auto picked
  Schedule schedule;                  ///< its schedule
};
[[nodiscard]] AutoChoice auto_choice(const CommMatrix& grid, const ScheduleOptions& opt = {});

/// The strategy Auto picks for this grid (never Auto, AllAtOnce or Alltoallv). Ties (equal cost up to
/// a relative 1e-12) go to the first of class, koenig-stepwise, koenig-greedy, caterpillar: optimal
/// by theorem first, then fewest steps.
[[nodiscard]] Strategy auto_strategy(const CommMatrix& grid, const ScheduleOptions& opt = {});

/// ScaLAPACK's caterpillar: n = max(P, Q) steps; at step k each sender p < P exchanges with receiver
/// (p + k) mod n when that is < Q, with a zero-length message when the pair has nothing to send.
[[nodiscard]] Schedule caterpillar_schedule(const CommMatrix& grid);

/// One message per step, in (src, dst) order.
[[nodiscard]] Schedule all_at_once_schedule(const CommMatrix& grid);

/// True when scheduling class by class applies (Prop. 3, Desprez et al.): with D = gcd(r, s),
/// gcd(r / D, Q) = gcd(s / D, P) = 1. `why` (if given) receives the reason when it does not.
[[nodiscard]] bool class_schedule_applies(const BlockCyclicParams& params, std::string* why = nullptr);

/// Class by class (Prop. 3 and 4): for each class residue c mod g' with data, max(P, Q) / g'
/// complete steps; lengths are read from `grid` (P x Q). Zero-length messages (pairs of a silent
/// class, or pairs that hold no data when M is not a multiple of L) are left out and steps left
/// empty are dropped. Valid for any P x Q grid; optimal in NS and TC for the grid of `params` with M a
/// multiple of L. Throws hpf::Error when Prop. 3 does not apply or the grid is not P x Q.
[[nodiscard]] Schedule class_schedule(const CommMatrix& grid, const BlockCyclicParams& params);

/// Theorem 1 (König): each step a maximum-weight matching among the matchings that saturate every
/// vertex of maximum degree, so NS equals the max degree of the grid.
[[nodiscard]] Schedule koenig_stepwise_schedule(const CommMatrix& grid);

/// Greedy (section 4.5): each step a maximum-weight matching of what is left; among those, one that
/// covers the most maximum-degree vertices (our deterministic tie-break; the paper leaves ties open).
[[nodiscard]] Schedule koenig_greedy_schedule(const CommMatrix& grid);

/// True when the König schedulers use the fast colouring (ColouringRule::Fast: NS = max degree, TC
/// not optimised) instead of one maximum-weight matching per step, because the grid's messages times
/// its max degree exceed koenig_exact_budget (about 0.1 s of matchings on this machine).
inline constexpr double koenig_exact_budget = 4e6;
[[nodiscard]] bool koenig_uses_fast_colouring(const CommMatrix& grid);

} // namespace hpf
