// The steady-state Platform of the ranks of a communicator, measured by hpfrt itself (docs/series.md).
//
// Legrand et al.'s platform is a graph G = (V, E, c) with a speed per node. No user knows their link costs
// in the paper's units, so measure_platform() builds it:
//   - one node per rank ("r0", "r1", ...), a directed edge both ways between every pair of ranks;
//   - edge costs: the time of one unit message of `unit_bytes`, half the median round trip of the one
//     ping-pong kernel of exec/model (hpf::ping_pong). With P <= pairwise_max every pair is measured
//     (P (P - 1) / 2 pairs). Above it, the cluster model: only the pairs (i, i + 2^k mod P), k <
//     ceil(log2 P), are measured (O(P log P) pairs), Lowekamp's clustering (Steffenel, Algorithm 1,
//     adaptive/hierarchical.hpp) groups the ranks on that sparse matrix, and every pair gets the
//     median of the measured pairs between its two clusters (or inside its cluster); a pair of
//     clusters with no measured pair gets the median of every measured inter-cluster pair;
//   - node speeds: 1 / (median time of the user's operator on one unit of data) on that rank;
//     without an operator every speed is 1 time unit^-1 (scatters and gossips compute nothing).
// Times become exact rationals in a time unit of `quantum` seconds (the smallest measured time
// divided by `resolution`), each rounded to `digits` significant digits: the LP's period is the lcm
// of denominators, and rounding keeps it reasonable (the series uses a fixed period anyway).
//
// Agreed collectively: rank 0 collects every measurement, builds the platform and broadcasts its
// JSON, so every rank returns the same Platform. Save and load with Platform::to_json/from_json.
#pragma once

#include <hpf/core/mpi.hpp>
#include <hpf/steady/platform.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpf::steady {

/// How measure_platform measures the ranks of a communicator.
struct MeasureOptions {
  std::size_t unit_bytes = 8;    ///< bytes of a unit message (the series' value size)
  std::function<void()> compute; ///< one operation on a unit of data; empty: every speed is 1
  int repeats = 7;               ///< ping-pongs (and operator calls) per median
  int pairwise_max = 8;          ///< measure every pair up to this many ranks; cluster model above
  double rho = 0.3;              ///< Lowekamp's tolerance (Steffenel, Section 7 uses 30 %)
  double resolution = 8;         ///< the time unit is the smallest measured time / resolution
  int digits = 2;                ///< significant digits kept in every cost and task time
  int batch_units = 64;          ///< ranks 0 and 1 also ping-pong batch_units units, at most 1 MiB
                                 ///< when a unit is smaller (0 or 1: not measured)
};

/// What measure_platform measured, before it became a Platform (pure input of platform_from_costs).
struct MeasuredCosts {
  int ranks = 0;                          ///< ranks of the communicator
  std::vector<std::pair<int, int>> pairs; ///< measured pairs (a < b)
  std::vector<double> seconds;            ///< one-way time of a unit message per measured pair
  std::vector<double> task_seconds;       ///< per rank: time of the operator (0: no operator)
  double value_seconds = 0;               ///< see MeasuredPlatform::value_seconds
};

/// The pairs that measure_platform measures for P ranks: every pair when P <= pairwise_max, else
/// (i, i + 2^k mod P) for k < ceil(log2 P), each unordered pair once, sorted. Pure.
[[nodiscard]] std::vector<std::pair<int, int>> measurement_pairs(int ranks, int pairwise_max);

/// Rounds x > 0 to `digits` significant digits (digits >= 1). Pure.
[[nodiscard]] double round_significant(double x, int digits);

/// A measured platform and the time unit of its costs and speeds.
struct MeasuredPlatform {
  Platform platform;         ///< one node per rank; edge costs and speeds in time units
  double time_unit = 0;      ///< seconds per time unit of the platform
  std::vector<int> clusters; ///< cluster of every rank (Lowekamp; all 0 when every pair was measured)
  int measured_pairs = 0;    ///< ping-pong pairs measured
  /// Seconds one more unit adds to a message of many (ranks 0 and 1: one-way time of batch_units
  /// units minus that of one, over batch_units - 1); 0 when not measured. An edge's cost is the time
  /// of a message of one unit, latency included; the steady-state executor sends many values per
  /// message, so the series' prediction charges them this marginal time instead.
  double value_seconds = 0;

  /// {"time_unit": s, "clusters": [...], "measured_pairs": n, "value_seconds": s, "platform": {...}}.
  [[nodiscard]] std::string to_json() const;
  /// Inverse of to_json; throws hpf::Error naming the field on malformed input.
  [[nodiscard]] static MeasuredPlatform from_json(std::string_view text);
  /// Writes to_json() to `path`; throws hpf::Error naming the path on failure.
  void save(const std::string& path) const;
  /// Reads a file written by save(); throws hpf::Error naming the path or the field.
  [[nodiscard]] static MeasuredPlatform load(const std::string& path);
};

/// The platform of the costs (see the header comment). Pure: throws hpf::Error on inconsistent or
/// non-positive measurements.
[[nodiscard]] MeasuredPlatform platform_from_costs(const MeasuredCosts& costs, const MeasureOptions& opts);

/// Collective over `comm`: measures (see the header comment) and returns the same platform on every
/// rank (rank 0 decides and broadcasts). Throws hpf::Error on every rank for bad options, or when
/// opts.compute throws on some rank (named in the message).
[[nodiscard]] MeasuredPlatform measure_platform(const Comm& comm, const MeasureOptions& opts = {});

} // namespace hpf::steady
