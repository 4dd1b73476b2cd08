// pLogP interpolation and the broadcast models of Table 1 of Steffenel. Pure.
#include <hpf/adaptive/broadcast_model.hpp>
#include <hpf/adaptive/plogp.hpp>

#include <hpf/core/error.hpp>
#include <hpf/core/names.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

namespace hpf {

// ---------------------------------------------------------------------------------------------------
// Algorithms

namespace {
constexpr std::array<BcastAlgorithm, 11> k_all = {BcastAlgorithm::flat,
                                                  BcastAlgorithm::flat_rendezvous,
                                                  BcastAlgorithm::segmented_flat,
                                                  BcastAlgorithm::chain,
                                                  BcastAlgorithm::chain_rendezvous,
                                                  BcastAlgorithm::segmented_chain,
                                                  BcastAlgorithm::binary,
                                                  BcastAlgorithm::binomial,
                                                  BcastAlgorithm::binomial_rendezvous,
                                                  BcastAlgorithm::segmented_binomial,
                                                  BcastAlgorithm::scatter_collect};

constexpr NameTable<BcastAlgorithm, 11> bcast_names{
    {{{BcastAlgorithm::flat, "flat"},
      {BcastAlgorithm::flat_rendezvous, "flat-rendezvous"},
      {BcastAlgorithm::segmented_flat, "segmented-flat"},
      {BcastAlgorithm::chain, "chain"},
      {BcastAlgorithm::chain_rendezvous, "chain-rendezvous"},
      {BcastAlgorithm::segmented_chain, "segmented-chain"},
      {BcastAlgorithm::binary, "binary"},
      {BcastAlgorithm::binomial, "binomial"},
      {BcastAlgorithm::binomial_rendezvous, "binomial-rendezvous"},
      {BcastAlgorithm::segmented_binomial, "segmented-binomial"},
      {BcastAlgorithm::scatter_collect, "scatter-collect"}}}};

int ceil_log2(int P) {
  int r = 0;
  while ((1LL << r) < P) ++r;
  return r;
}
int floor_log2(int P) {
  int r = 0;
  while ((2LL << r) <= P) ++r;
  return r;
}
} // namespace

std::span<const BcastAlgorithm> all_bcast_algorithms() { return k_all; }

std::string to_string(BcastAlgorithm a) { return std::string(bcast_names.name(a)); }

BcastAlgorithm parse_bcast_algorithm(std::string_view name, std::string_view what) {
  return bcast_names.parse(name, what);
}

bool is_segmented(BcastAlgorithm a) {
  return a == BcastAlgorithm::segmented_flat || a == BcastAlgorithm::segmented_chain ||
         a == BcastAlgorithm::segmented_binomial;
}

double predict_bcast(BcastAlgorithm a, int P, std::size_t m, std::size_t segment, const PLogP& model) {
  detail::require(P >= 1, "predict_bcast: P (number of processes) must be >= 1, got ", P);
  detail::require(segment >= 1, "predict_bcast: segment size must be >= 1 byte, got ", segment);
  if (P == 1) return 0.0;
  const double L = model.L();
  const double p1 = P - 1;
  const double gm = model.g(m);
  const double g1 = model.g(1);
  const std::size_t s = std::min(segment, std::max<std::size_t>(m, 1));
  const std::size_t segments = m == 0 ? 1 : (m + s - 1) / s; // k = ceil(m / s), an integer
  const auto k = static_cast<double>(segments);
  const double gs = model.g(std::min(s, m));
  const double cl = ceil_log2(P), fl = floor_log2(P);
  switch (a) {
  case BcastAlgorithm::flat:
    return L + p1 * gm;
  case BcastAlgorithm::flat_rendezvous:
    return 3 * L + p1 * gm + 2 * g1;
  case BcastAlgorithm::segmented_flat:
    return L + p1 * (gs * k);
  case BcastAlgorithm::chain:
    return p1 * (gm + L);
  case BcastAlgorithm::chain_rendezvous:
    return p1 * (gm + 2 * g1 + 3 * L);
  case BcastAlgorithm::segmented_chain:
    return p1 * (gs + L) + gs * (k - 1);
  case BcastAlgorithm::binary:
    return cl * (2 * gm + L);
  case BcastAlgorithm::binomial:
    return cl * L + fl * gm;
  case BcastAlgorithm::binomial_rendezvous:
    return cl * (2 * g1 + 3 * L) + fl * gm;
  case BcastAlgorithm::segmented_binomial:
    return cl * L + fl * gs * k;
  case BcastAlgorithm::scatter_collect:
    return (cl + p1) * L + 2 * (p1 / P) * gm;
  }
  detail::fail("predict_bcast: unknown algorithm ", static_cast<int>(a));
}

std::vector<std::size_t> candidate_segments(std::size_t m) {
  if (m <= 1) return {1};
  std::vector<std::size_t> out;
  for (std::size_t d = 1; d <= m; d *= 2) {
    out.push_back((m + d - 1) / d);
    if (d > m / 2) break;
  }
  return out;
}

BcastChoice choose_bcast(int P, std::size_t m, const PLogP& model,
                         std::span<const BcastAlgorithm> algorithms) {
  detail::require(P >= 1, "choose_bcast: P (number of processes) must be >= 1, got ", P);
  if (algorithms.empty()) algorithms = k_all;
  BcastChoice c;
  c.P = P;
  c.m = m;
  const std::size_t whole = std::max<std::size_t>(m, 1);
  for (BcastAlgorithm a : algorithms) {
    BcastPrediction p{a, whole, predict_bcast(a, P, m, whole, model)};
    if (is_segmented(a))
      for (std::size_t s : candidate_segments(m)) {
        const double t = predict_bcast(a, P, m, s, model);
        if (t < p.time) p = {a, s, t};
      }
    c.predictions.push_back(p);
  }
  for (std::size_t i = 1; i < c.predictions.size(); ++i)
    if (c.predictions[i].time < c.predictions[c.best].time) c.best = i;
  return c;
}

std::vector<std::vector<int>> bcast_tree(BcastAlgorithm a, int P) {
  detail::require(P >= 1, "bcast_tree: P (number of processes) must be >= 1, got ", P);
  std::vector<std::vector<int>> ch(static_cast<std::size_t>(P));
  switch (a) {
  case BcastAlgorithm::flat:
  case BcastAlgorithm::flat_rendezvous:
  case BcastAlgorithm::segmented_flat:
    for (int r = 1; r < P; ++r) ch[0].push_back(r);
    break;
  case BcastAlgorithm::chain:
  case BcastAlgorithm::chain_rendezvous:
  case BcastAlgorithm::segmented_chain:
    for (int r = 0; r + 1 < P; ++r) ch[static_cast<std::size_t>(r)].push_back(r + 1);
    break;
  case BcastAlgorithm::binary:
    for (int r = 0; r < P; ++r)
      for (int c : {2 * r + 1, 2 * r + 2})
        if (c < P) ch[static_cast<std::size_t>(r)].push_back(c);
    break;
  case BcastAlgorithm::binomial:
  case BcastAlgorithm::binomial_rendezvous:
  case BcastAlgorithm::segmented_binomial:
    // r sends to r + 2^j for every 2^j below its lowest set bit (all j for the root), largest first:
    // the biggest subtree starts first, so the tree finishes in ceil(log2 P) rounds.
    for (int r = 0; r < P; ++r) {
      long long low = r == 0 ? (1LL << ceil_log2(P)) : (r & -r);
      for (long long d = low / 2; d >= 1; d /= 2)
        if (r + d < P) ch[static_cast<std::size_t>(r)].push_back(static_cast<int>(r + d));
    }
    break;
  case BcastAlgorithm::scatter_collect:
    detail::fail("bcast_tree: algorithm scatter-collect is not a tree (scatter then allgather)");
  }
  return ch;
}

// ---------------------------------------------------------------------------------------------------
// Broadcast schedules

namespace {

/// One queued send of a rank: blocks [first, first + count) to relative rank `to`.
struct QueuedSend {
  int to = 0;
  std::size_t first = 0;
  std::size_t count = 0;
};

/// List scheduling of per-rank send queues: at each step every rank sends the head of its queue if
/// it received all of the head's blocks in an earlier step (the root holds everything before step 0).
/// Receivers never collide: every rank has one parent. Appends the steps to `out`.
void list_schedule(std::vector<std::vector<QueuedSend>> queues, std::size_t nblocks,
                   const std::function<BcastPiece(std::size_t, std::size_t)>& piece, BcastSchedule& out) {
  const std::size_t P = queues.size();
  constexpr long never = std::numeric_limits<long>::max();
  // have[r][b]: the step in which r received block b (-1: before step 0, for the root).
  std::vector<std::vector<long>> have(P, std::vector<long>(nblocks, never));
  std::fill(have[0].begin(), have[0].end(), -1L);
  std::vector<std::size_t> head(P, 0);
  std::size_t left = 0;
  for (const auto& q : queues) left += q.size();
  std::vector<Step> steps = out.schedule.steps();
  for (long t = static_cast<long>(steps.size()); left > 0; ++t) {
    Step step;
    std::vector<BcastPiece> pieces;
    for (std::size_t r = 0; r < P; ++r) {
      if (head[r] == queues[r].size()) continue;
      const QueuedSend& q = queues[r][head[r]];
      bool ready = true;
      for (std::size_t b = q.first; b < q.first + q.count; ++b) ready = ready && have[r][b] < t;
      if (!ready) continue;
      for (std::size_t b = q.first; b < q.first + q.count; ++b) have[static_cast<std::size_t>(q.to)][b] = t;
      const BcastPiece pc = piece(q.first, q.count);
      step.messages.push_back({static_cast<int>(r), q.to, static_cast<index_t>(pc.bytes)});
      pieces.push_back(pc);
      ++head[r];
      --left;
    }
    detail::require(!step.messages.empty(), "bcast_schedule: no rank can send (internal error)");
    steps.push_back(std::move(step));
    out.pieces.push_back(std::move(pieces));
  }
  out.schedule = Schedule(out.schedule.num_senders(), out.schedule.num_receivers(), std::move(steps));
}

} // namespace

BcastSchedule bcast_schedule(BcastAlgorithm a, int P, std::size_t m, std::size_t segment) {
  detail::require(P >= 1, "bcast_schedule: P (number of processes) must be >= 1, got ", P);
  detail::require(segment >= 1, "bcast_schedule: segment size must be >= 1 byte, got ", segment);
  BcastSchedule out;
  out.schedule = Schedule(P, P);
  out.rendezvous = a == BcastAlgorithm::flat_rendezvous || a == BcastAlgorithm::chain_rendezvous ||
                   a == BcastAlgorithm::binomial_rendezvous;
  const auto n = static_cast<std::size_t>(P);
  if (a == BcastAlgorithm::scatter_collect) {
    // Scatter/collection ([20] of Steffenel): block b of n is bytes [b bs, (b + 1) bs) clipped to m.
    const std::size_t bs = (m + n - 1) / n;
    auto off = [&](std::size_t b) { return std::min(b * bs, m); };
    auto piece = [&](std::size_t first, std::size_t count) {
      return BcastPiece{first, count, off(first), off(first + count) - off(first)};
    };
    out.blocks = n;
    if (P == 1 || m == 0) return out;
    // Binomial scatter: r's subtree is [r, r + min(lowbit(r), n - r)); the child gets all of it.
    const auto children = bcast_tree(BcastAlgorithm::binomial, P);
    std::vector<std::vector<QueuedSend>> queues(n);
    for (std::size_t r = 0; r < n; ++r)
      for (int c : children[r]) {
        const std::size_t count =
            std::min<std::size_t>(static_cast<std::size_t>(c & -c), n - static_cast<std::size_t>(c));
        if (piece(static_cast<std::size_t>(c), count).bytes > 0)
          queues[r].push_back({c, static_cast<std::size_t>(c), count});
      }
    list_schedule(std::move(queues), n, piece, out);
    // Ring allgather: at step t, r sends block (r - t) mod n to r + 1 (it holds it: its own block at
    // t = 0, else the one it received at step t - 1).
    std::vector<Step> steps = out.schedule.steps();
    for (std::size_t t = 0; t + 1 < n; ++t) {
      Step step;
      std::vector<BcastPiece> pieces;
      for (std::size_t r = 0; r < n; ++r) {
        const BcastPiece pc = piece((r + n - t) % n, 1);
        if (pc.bytes == 0) continue;
        step.messages.push_back(
            {static_cast<int>(r), static_cast<int>((r + 1) % n), static_cast<index_t>(pc.bytes)});
        pieces.push_back(pc);
      }
      if (step.messages.empty()) continue;
      steps.push_back(std::move(step));
      out.pieces.push_back(std::move(pieces));
    }
    out.schedule = Schedule(P, P, std::move(steps));
    return out;
  }
  const std::size_t s =
      is_segmented(a) ? std::min(segment, std::max<std::size_t>(m, 1)) : std::max<std::size_t>(m, 1);
  const std::size_t k = m == 0 ? 0 : (m + s - 1) / s;
  out.blocks = k;
  if (P == 1 || k == 0) return out;
  auto piece = [&](std::size_t first, std::size_t count) {
    const std::size_t lo = first * s, hi = std::min((first + count) * s, m);
    return BcastPiece{first, count, lo, hi - lo};
  };
  const auto children = bcast_tree(a, P);
  std::vector<std::vector<QueuedSend>> queues(n);
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < k; ++i)
      for (int c : children[r]) queues[r].push_back({c, i, 1});
  list_schedule(std::move(queues), k, piece, out);
  return out;
}

} // namespace hpf
