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

bool gen_block_prefers_matchings(const CommMatrix& grid) {
  return static_cast<double>(grid.entries().size()) * grid.max_degree() <= gen_block_matching_budget;
}

CommMatrix gen_block_pattern(const std::vector<index_t>& src_offsets,
                             const std::vector<index_t>& dst_offsets) {
  CommMatrix m(static_cast<int>(src_offsets.size()) - 1, static_cast<int>(dst_offsets.size()) - 1);
  for (const Message& msg : gen_block_messages(src_offsets, dst_offsets)) m.add(msg.src, msg.dst, msg.len);
  return m;
}

namespace {

/// Stars: maximal runs [begin, end) of consecutive messages with the same source or the same target.
/// Two consecutive stars overlap in at most one message (the last of one is the first of the next).
std::vector<std::pair<std::size_t, std::size_t>> find_stars(const std::vector<Message>& msgs, int& delta) {
  const std::size_t K = msgs.size();
  std::vector<std::pair<std::size_t, std::size_t>> stars;
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
  return stars;
}

/// Colours one star: its uncoloured messages, longest first, onto the colours no message of the star
/// has, those whose step maximum `top` is longest first (ties: lower colour).
void colour_star(const std::vector<Message>& msgs, std::size_t b, std::size_t e, int delta,
                 std::vector<int>& colour, std::vector<index_t>& top) {
  std::vector<std::size_t> fresh;
  std::vector<char> used(static_cast<std::size_t>(delta), 0);
  for (std::size_t k = b; k < e; ++k) {
    if (colour[k] < 0) {
      fresh.push_back(k);
    } else {
      used[static_cast<std::size_t>(colour[k])] = 1;
    }
  }
  std::vector<int> free_colours;
  for (int c = 0; c < delta; ++c)
    if (!used[static_cast<std::size_t>(c)]) free_colours.push_back(c);
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

/// The greedy colouring (see the header) with the stars taken in list order, or (heaviest_first) by
/// components in decreasing order of their longest message, each grown from its heaviest star towards
/// the heavier neighbouring star. Either order keeps every star, when reached, touching exactly one
/// coloured star, so at most one of its messages has a colour. Returns one colour per message and
/// sets `delta` to the number of colours (the max degree).
std::vector<int> colour_greedy(const std::vector<Message>& msgs, bool heaviest_first, int& delta) {
  const auto stars = find_stars(msgs, delta);
  std::vector<int> colour(msgs.size(), -1);
  std::vector<index_t> top(static_cast<std::size_t>(delta), 0);
  if (!heaviest_first) {
    for (const auto& [b, e] : stars) colour_star(msgs, b, e, delta, colour, top);
    return colour;
  }
  const std::size_t S = stars.size();
  std::vector<index_t> heavy(S, 0);
  for (std::size_t i = 0; i < S; ++i)
    for (std::size_t k = stars[i].first; k < stars[i].second; ++k) heavy[i] = std::max(heavy[i], msgs[k].len);
  // Components: runs of stars linked by a shared message.
  std::vector<std::pair<std::size_t, std::size_t>> comps; // [first star, last star]
  for (std::size_t i = 0; i < S; ++i) {
    if (i > 0 && stars[i - 1].second - 1 == stars[i].first) {
      comps.back().second = i;
    } else {
      comps.emplace_back(i, i);
    }
  }
  std::vector<std::size_t> order(comps.size());
  std::vector<std::size_t> root(comps.size());
  std::vector<index_t> cmax(comps.size(), 0);
  for (std::size_t c = 0; c < comps.size(); ++c) {
    order[c] = c;
    root[c] = comps[c].first;
    for (std::size_t i = comps[c].first; i <= comps[c].second; ++i)
      if (heavy[i] > heavy[root[c]]) root[c] = i;
    cmax[c] = heavy[root[c]];
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return cmax[x] > cmax[y]; });
  for (std::size_t c : order) {
    const auto [a, z] = comps[c];
    const std::size_t r = root[c];
    colour_star(msgs, stars[r].first, stars[r].second, delta, colour, top);
    std::size_t left = r; // stars [left, right] are coloured
    std::size_t right = r;
    while (left > a || right < z) {
      const bool go_left = left > a && (right == z || heavy[left - 1] >= heavy[right + 1]);
      const std::size_t i = go_left ? --left : ++right;
      colour_star(msgs, stars[i].first, stars[i].second, delta, colour, top);
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
  // Three orders of the same greedy, the cheapest kept: list order, the list read backwards (an
  // interval order too), and heaviest first.
  int delta = 0;
  std::vector<int> colour = colour_greedy(msgs, false, delta);
  index_t best = cost_of(msgs, colour, delta);
  const std::vector<Message> back(msgs.rbegin(), msgs.rend());
  std::vector<int> rev = colour_greedy(back, false, delta);
  std::reverse(rev.begin(), rev.end());
  if (const index_t c = cost_of(msgs, rev, delta); c < best) {
    best = c;
    colour = std::move(rev);
  }
  std::vector<int> heavy = colour_greedy(msgs, true, delta);
  if (cost_of(msgs, heavy, delta) < best) colour = std::move(heavy);
  std::vector<Step> steps(static_cast<std::size_t>(delta));
  for (std::size_t k = 0; k < msgs.size(); ++k)
    steps[static_cast<std::size_t>(colour[k])].messages.push_back(msgs[k]);
  return Schedule(P, Q, std::move(steps));
}

} // namespace hpf
