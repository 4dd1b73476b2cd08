// Every message tag range of hpfrt, in one place. Engines that may be in flight at the same time on
// one communicator use disjoint ranges, so a message of one can never match a receive of another.
// A range is [base, base + width); an engine adds its own offset (a plan's option, a phase) within it.
// MPI guarantees tags up to 32767 (MPI_TAG_UB is at least that).
#pragma once

namespace hpf::tags {

/// A range of message tags, [base, base + width).
struct Range {
  /// First tag of the range.
  int base;
  /// Number of tags in the range.
  int width;
  /// Whether `tag` lies in [base, base + width).
  [[nodiscard]] constexpr bool contains(int tag) const noexcept { return tag >= base && tag < base + width; }
};

inline constexpr Range model{100, 100};           ///< exec/model: ping-pong and latency measurements
inline constexpr Range gather_scatter{1000, 100}; ///< DistArray gather / scatter
inline constexpr Range exchange{2000, 100};       ///< exec/: Exchange default and tests
inline constexpr Range irregular{2100, 900};      ///< irregular/: GatherPlan / ScatterPlan (tag and tag + 1)
inline constexpr Range redist{3000,
                              1000}; ///< redist/: RedistOptions::tag (plans in flight need distinct tags)
inline constexpr Range reduce{4000, 100};  ///< reduce/: tree reductions
inline constexpr Range bcast{5000, 100};   ///< adaptive/: broadcasts (a two-level plan uses several tags)
inline constexpr Range steady{6000, 100};  ///< steady/: pipelines
inline constexpr Range shadow{6100, 100};  ///< array/: DistArray shadow updates (update_shadow, post_shadow)
inline constexpr Range shift{6200, 100};   ///< array/: cshift / eoshift
inline constexpr Range section{6500, 100}; ///< section/: SectionPlan (array sections, transposes)
inline constexpr Range redist_batch{6600, 100}; ///< redist/: RedistributionBatch (several arrays in one exchange)
inline constexpr Range user{7000, 25000};  ///< free for programs that share a communicator with hpfrt

} // namespace hpf::tags
