// GEN_BLOCK -> GEN_BLOCK redistribution schedules (HPF 2.0's irregular blocks), pure and O(P + Q).
//
// Source process p holds the global interval [s_p, s_{p+1}), target q holds [t_q, t_{q+1}). The source
// and target breakpoints cut [0, n) into at most P + Q - 1 non-empty intervals, each one message
// (p, q); listed in index order, both p and q never decrease, so a process's messages are consecutive
// in the list and two consecutive messages share at most one endpoint. The bipartite graph is an
// interval graph without cycles (a forest of caterpillars), and the messages that share a process form
// "stars": runs of consecutive messages. A colouring in list order in which each message takes a colour
// different from the earlier messages of its star needs only Δ colours (Δ = max degree; König's bound,
// Theorem 1 of Desprez et al.), because only the first message of a star can already carry a colour (it is
// the last message of the previous star).
//
// Total cost. Among Δ-step schedules we want the least TC = sum over steps of the longest message.
// Minimising it is a max-colouring problem (NP-hard on interval graphs in general); we use a greedy
// that keeps O((P + Q) log Δ): stars in list order, each star's uncoloured messages by decreasing
// length onto the free colours by decreasing current step maximum, so long messages share steps with
// long ones; done in index order, in reverse order and heaviest component first, the cheapest kept.
// tests/schedule/test_gen_block.cpp measures it against brute force over every Δ-colouring of thousands of
// small random instances.
#pragma once

#include <hpf/core/math.hpp>
#include <hpf/schedule/schedule.hpp>

#include <vector>

namespace hpf {

/// The messages of a GEN_BLOCK -> GEN_BLOCK redistribution in index order: message k moves the
/// interval [k-th breakpoint, (k+1)-th) from its source to its target. `src_offsets` (P + 1 entries)
/// and `dst_offsets` (Q + 1) are the prefix sums of the block sizes: non-decreasing, starting at 0 and
/// ending at the same extent. Throws hpf::Error otherwise.
[[nodiscard]] std::vector<Message> gen_block_messages(const std::vector<index_t>& src_offsets,
                                                      const std::vector<index_t>& dst_offsets);

/// The P x Q communication grid of those messages.
[[nodiscard]] CommMatrix gen_block_pattern(const std::vector<index_t>& src_offsets,
                                           const std::vector<index_t>& dst_offsets);

/// True when a GEN_BLOCK grid is small enough (messages times max degree at most
/// gen_block_matching_budget) that König's stepwise matchings (schedule/strategy.hpp) cost little
/// next to the interval colouring: RedistributionPlan then keeps the cheaper TC of the two.
inline constexpr double gen_block_matching_budget = 2e4;
[[nodiscard]] bool gen_block_prefers_matchings(const CommMatrix& grid);

/// A contention-free schedule of exactly max-degree steps (none empty), with the greedy total-cost
/// rule above. Deterministic: the same offsets give the same schedule on every rank.
[[nodiscard]] Schedule gen_block_schedule(const std::vector<index_t>& src_offsets,
                                          const std::vector<index_t>& dst_offsets);

} // namespace hpf
