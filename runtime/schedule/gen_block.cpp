#include <hpf/core/error.hpp>
#include <hpf/schedule/gen_block.hpp>

#include <algorithm>
#include <numeric>

namespace hpf {

namespace {

void check_offsets(const std::vector<index_t>& o, const char* what) {
  detail::require(o.size() >= 2, "gen_block_schedule: ", what, " must have at least 2 entries (P + 1), got ",
                  o.size());
  detail::require(o.front() == 0, "gen_block_schedule: ", what, "[0] must be 0, got ", o.front());
  for (std::size_t i = 1; i < o.size(); ++i)
    detail::require(o[i] >= o[i - 1], "gen_block_schedule: ", what, " must not decrease, got ", what, "[",
                    i - 1, "] = ", o[i - 1], " > ", what, "[", i, "] = ", o[i]);
}

} // namespace

std::vector<Message> gen_block_messages(const std::vector<index_t>& src_offsets,
                                        const std::vector<index_t>& dst_offsets) {
  check_offsets(src_offsets, "src_offsets");
  check_offsets(dst_offsets, "dst_offsets");
  detail::require(src_offsets.back() == dst_offsets.back(), "gen_block_schedule: the source blocks sum to ",
                  src_offsets.back(), " and the target blocks to ", dst_offsets.back(),
                  "; expected the same extent");
  std::vector<Message> out;
  const int P = static_cast<int>(src_offsets.size()) - 1;
  const int Q = static_cast<int>(dst_offsets.size()) - 1;
  const index_t n = src_offsets.back();
  int p = 0;
  int q = 0;
  for (index_t a = 0; a < n;) {
    // Skip the processes whose blocks end at or before a (zero-size blocks included).
    while (p < P && src_offsets[static_cast<std::size_t>(p) + 1] <= a) ++p;
    while (q < Q && dst_offsets[static_cast<std::size_t>(q) + 1] <= a) ++q;
    const index_t b =
        std::min(src_offsets[static_cast<std::size_t>(p) + 1], dst_offsets[static_cast<std::size_t>(q) + 1]);
    out.push_back({p, q, b - a});
    a = b;
  }
  return out;
}

CommMatrix gen_block_pattern(const std::vector<index_t>& src_offsets,
                             const std::vector<index_t>& dst_offsets) {
  CommMatrix m(static_cast<int>(src_offsets.size()) - 1, static_cast<int>(dst_offsets.size()) - 1);
  for (const Message& msg : gen_block_messages(src_offsets, dst_offsets)) m.add(msg.src, msg.dst, msg.len);
  return m;
}

namespace {

/// The greedy colouring of the messages in list order (see the header); returns one colour per message
/// and sets `delta` to the number of colours (the max degree).
std::vector<int> colour_in_order(const std::vector<Message>& msgs, int& delta) {
  const std::size_t K = msgs.size();
  // Stars: maximal runs of consecutive messages with the same source or the same target. Two stars
  // overlap in at most one message (the last of one is the first of the next).
  std::vector<std::pair<std::size_t, std::size_t>> stars; // [begin, end)
  delta = 0;
  for (std::size_t k = 0; k < K;) {
    std::size_t e = k + 1;
    const bool by_src = e < K && msgs[e].src == msgs[k].src;
    while (e < K && (by_src ? msgs[e].src == msgs[k].src : msgs[e].dst == msgs[k].dst)) ++e;
    stars.emplace_back(k, e);
    delta = std::max(delta, static_cast<int>(e - k));
    // The next star starts at the last message of this one when that message continues with the next
    // along its other endpoint; otherwise right after it.
    const bool junction =
        e < K && e - k > 1 && (by_src ? msgs[e].dst == msgs[e - 1].dst : msgs[e].src == msgs[e - 1].src);
    k = junction ? e - 1 : e;
  }
  std::vector<int> colour(K, -1);
  std::vector<index_t> top(static_cast<std::size_t>(delta), 0); // longest message per step so far
  std::vector<int> free_colours;
  std::vector<std::size_t> fresh;
  for (const auto& [b, e] : stars) {
    fresh.clear();
    free_colours.clear();
    for (std::size_t k = b; k < e; ++k)
      if (colour[k] < 0) fresh.push_back(k);
    for (int c = 0; c < delta; ++c)
      if (colour[b] != c) free_colours.push_back(c);
    // Longest uncoloured messages onto the steps whose longest message is longest (ties: lower index).
    std::stable_sort(fresh.begin(), fresh.end(),
                     [&](std::size_t x, std::size_t y) { return msgs[x].len > msgs[y].len; });
    const std::size_t need = fresh.size();
    std::partial_sort(free_colours.begin(), free_colours.begin() + static_cast<std::ptrdiff_t>(need),
                      free_colours.end(), [&](int x, int y) {
                        const auto ux = static_cast<std::size_t>(x);
                        const auto uy = static_cast<std::size_t>(y);
                        return top[ux] != top[uy] ? top[ux] > top[uy] : x < y;
                      });
    for (std::size_t i = 0; i < need; ++i) {
      const int c = free_colours[i];
      colour[fresh[i]] = c;
      top[static_cast<std::size_t>(c)] = std::max(top[static_cast<std::size_t>(c)], msgs[fresh[i]].len);
    }
  }
  return colour;
}

index_t cost_of(const std::vector<Message>& msgs, const std::vector<int>& colour, int delta) {
  std::vector<index_t> top(static_cast<std::size_t>(delta), 0);
  for (std::size_t k = 0; k < msgs.size(); ++k)
    top[static_cast<std::size_t>(colour[k])] =
        std::max(top[static_cast<std::size_t>(colour[k])], msgs[k].len);
  index_t c = 0;
  for (index_t x : top) c += x;
  return c;
}

} // namespace

Schedule gen_block_schedule(const std::vector<index_t>& src_offsets,
                            const std::vector<index_t>& dst_offsets) {
  const std::vector<Message> msgs = gen_block_messages(src_offsets, dst_offsets);
  const int P = static_cast<int>(src_offsets.size()) - 1;
  const int Q = static_cast<int>(dst_offsets.size()) - 1;
  // The list read backwards is an interval order too: colour both ways and keep the cheaper.
  int delta = 0;
  std::vector<int> colour = colour_in_order(msgs, delta);
  const std::vector<Message> back(msgs.rbegin(), msgs.rend());
  std::vector<int> rev = colour_in_order(back, delta);
  std::reverse(rev.begin(), rev.end());
  if (cost_of(msgs, rev, delta) < cost_of(msgs, colour, delta)) colour = std::move(rev);
  std::vector<Step> steps(static_cast<std::size_t>(delta));
  for (std::size_t k = 0; k < msgs.size(); ++k)
    steps[static_cast<std::size_t>(colour[k])].messages.push_back(msgs[k]);
  return Schedule(P, Q, std::move(steps));
}

} // namespace hpf
