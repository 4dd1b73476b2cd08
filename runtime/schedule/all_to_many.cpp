// All-to-many schedulers of Wang and Ranka. See include/hpf/schedule/all_to_many.hpp.
#include <hpf/core/error.hpp>
#include <hpf/core/names.hpp>
#include <hpf/schedule/all_to_many.hpp>
#include <hpf/schedule/matching.hpp>

#include <algorithm>
#include <unordered_set>

namespace hpf {

namespace {

using std::size_t;

constexpr size_t uz(int v) noexcept { return static_cast<size_t>(v); }

/// Separate streams from one user seed, so that CCOM's shuffle and the phases' starting rows are
/// independent draws.
constexpr std::uint64_t stream_ccom = 0x0c0ffee0c0ffeeULL;
constexpr std::uint64_t stream_start = 0x5eed5eed5eedULL;
constexpr std::uint64_t stream_pattern = 0x9a77e9a77e9aULL;

void sort_step(Step& s) {
  std::sort(s.messages.begin(), s.messages.end(),
            [](const Message& a, const Message& b) { return a.src < b.src; });
}

void require_square(const CommMatrix& com, const char* who) {
  detail::require(com.num_senders() == com.num_receivers(), who,
                  ": the communication matrix must be square (n x n), got ", com.num_senders(), " x ",
                  com.num_receivers());
}

/// Link bookkeeping of one RS_NL phase: PATHS of Figure 4, one flag per directed link. The path
/// of every message is computed once (the scan tries each pending message many times).
class LinkClaims {
public:
  LinkClaims(const Routing* r, const CommMatrix& com) : m_on(r != nullptr) {
    if (!r) return;
    m_busy.assign(uz(r->num_links()), 0);
    const auto& e = com.entries();
    m_off.reserve(e.size() + 1);
    m_off.push_back(0);
    for (const Message& m : e) {
      r->append_path(m.src, m.dst, m_links);
      m_off.push_back(m_links.size());
    }
  }
  /// Check_Path for message `mid` (its index in com.entries()).
  [[nodiscard]] bool free(int mid) const {
    if (!m_on) return true;
    for (std::size_t i = m_off[uz(mid)]; i < m_off[uz(mid) + 1]; ++i)
      if (m_busy[uz(m_links[i])]) return false;
    return true;
  }
  /// Both messages free and no link shared between them: O(|path a| + |path b|) by marking a's
  /// links for the duration of the check.
  [[nodiscard]] bool free_pair(int a, int b) {
    if (!m_on) return true;
    if (!free(a)) return false;
    for (std::size_t i = m_off[uz(a)]; i < m_off[uz(a) + 1]; ++i) m_busy[uz(m_links[i])] = 1;
    const bool ok = free(b);
    for (std::size_t i = m_off[uz(a)]; i < m_off[uz(a) + 1]; ++i) m_busy[uz(m_links[i])] = 0;
    return ok;
  }
  /// Mark_Path for message `mid`.
  void claim(int mid) {
    if (!m_on) return;
    for (std::size_t i = m_off[uz(mid)]; i < m_off[uz(mid) + 1]; ++i) {
      m_busy[uz(m_links[i])] = 1;
      m_claimed.push_back(m_links[i]);
    }
  }
  /// Frees every claimed link (start of a phase): O(claimed), not O(links).
  void reset() {
    for (int l : m_claimed) m_busy[uz(l)] = 0;
    m_claimed.clear();
  }

private:
  bool m_on;
  std::vector<char> m_busy;
  std::vector<int> m_claimed;
  std::vector<int> m_links;       // every message's path, concatenated
  std::vector<std::size_t> m_off; // message i's path is m_links[m_off[i], m_off[i + 1])
};

/// Figures 3 and 4 on CCOM: RS_N when `routing` is null, RS_NL otherwise.
Schedule random_schedule(const CommMatrix& com, const Routing* routing, std::uint64_t seed) {
  CompressedCom c = compress_com(com, seed);
  const int ns = c.num_senders;
  const int nr = c.num_receivers;
  detail::SplitMix64 rng(seed ^ stream_start);
  std::vector<int> tsend(uz(ns));
  std::vector<int> trecv(uz(nr));
  LinkClaims links(routing, com);
  // Message id (index in com.entries()) of every CCOM cell; it moves with the cell.
  std::vector<int> mid(c.dst.size(), -1);
  {
    const auto& e = com.entries();
    for (int x = 0; x < ns; ++x)
      for (int z = 0; z <= c.prt[uz(x)]; ++z) {
        const auto it = std::lower_bound(e.begin(), e.end(), Message{x, c.dst_at(x, z), 0},
                                         [](const Message& a, const Message& b) {
                                           return a.src != b.src ? a.src < b.src : a.dst < b.dst;
                                         });
        mid[c.idx(x, z)] = static_cast<int>(it - e.begin());
      }
  }
  std::vector<Step> steps;
  std::size_t remaining = com.entries().size();

  // Pairwise-exchange bookkeeping of RS_NL, all O(1) per query: rev[m] is the message id of the
  // reverse of message m (-1 if COM has none), sent[m] whether m is already scheduled, col[m] the
  // CCOM column that currently holds m (it moves when take() fills a gap).
  std::vector<int> rev;
  std::vector<char> sent;
  std::vector<int> col;
  if (routing) {
    const auto& e = com.entries();
    rev.assign(e.size(), -1);
    sent.assign(e.size(), 0);
    col.assign(e.size(), -1);
    for (std::size_t m = 0; m < e.size(); ++m) {
      const auto it = std::lower_bound(
          e.begin(), e.end(), Message{e[m].dst, e[m].src, 0},
          [](const Message& a, const Message& b) { return a.src != b.src ? a.src < b.src : a.dst < b.dst; });
      if (it != e.end() && it->src == e[m].dst && it->dst == e[m].src)
        rev[m] = static_cast<int>(it - e.begin());
    }
    for (int x = 0; x < ns; ++x)
      for (int z = 0; z <= c.prt[uz(x)]; ++z) col[uz(mid[c.idx(x, z)])] = z;
  }
  // Takes CCOM(x, z) into the phase and closes the gap with the row's last active entry (Fig. 3 ii).
  auto take = [&](Step& step, int x, int z) {
    const int y = c.dst_at(x, z);
    const int m = mid[c.idx(x, z)];
    tsend[uz(x)] = y;
    trecv[uz(y)] = x;
    links.claim(m);
    step.messages.push_back({x, y, c.len_at(x, z)});
    const int last = c.prt[uz(x)];
    c.dst[c.idx(x, z)] = c.dst_at(x, last);
    c.len[c.idx(x, z)] = c.len_at(x, last);
    mid[c.idx(x, z)] = mid[c.idx(x, last)];
    c.dst[c.idx(x, last)] = -1;
    c.len[c.idx(x, last)] = 0;
    --c.prt[uz(x)];
    if (routing) {
      sent[uz(m)] = 1;
      col[uz(mid[c.idx(x, z)])] = z; // the moved entry (or m itself when z was the last column)
    }
  };

  while (remaining > 0) {
    std::fill(tsend.begin(), tsend.end(), -1); // (a)
    std::fill(trecv.begin(), trecv.end(), -1);
    links.reset();
    Step step;
    int x = static_cast<int>(rng.below(static_cast<std::uint64_t>(ns))); // (b)
    for (int k = 0; k < ns; ++k, x = (x + 1) % ns) {                     // (c)
      // A row already used as the second half of a pairwise exchange has sent in this phase.
      if (tsend[uz(x)] != -1 || c.prt[uz(x)] < 0) continue;
      if (routing && trecv[uz(x)] == -1) {
        // §5: priority to a pairwise exchange x <-> y, both directions in this phase.
        bool paired = false;
        for (int z = 0; z <= c.prt[uz(x)] && !paired; ++z) {
          const int y = c.dst_at(x, z);
          if (y == x || trecv[uz(y)] != -1 || tsend[uz(y)] != -1) continue;
          const int r = rev[uz(mid[c.idx(x, z)])];
          if (r < 0 || sent[uz(r)]) continue; // no pending reverse message y -> x
          const int zr = col[uz(r)];
          if (!links.free_pair(mid[c.idx(x, z)], r)) continue;
          take(step, x, z);
          take(step, y, zr);
          paired = true;
        }
        if (paired) continue;
      }
      for (int z = 0; z <= c.prt[uz(x)]; ++z) { // (c) i: first admissible entry of row x
        const int y = c.dst_at(x, z);
        if (trecv[uz(y)] == -1 && links.free(mid[c.idx(x, z)])) {
          take(step, x, z);
          break;
        }
      }
    }
    remaining -= step.messages.size();
    sort_step(step);
    steps.push_back(std::move(step));
  }
  return Schedule(com.num_senders(), com.num_receivers(), std::move(steps));
}

} // namespace

CompressedCom compress_com(const CommMatrix& com, std::uint64_t seed) {
  CompressedCom c;
  c.num_senders = com.num_senders();
  c.num_receivers = com.num_receivers();
  const std::vector<int> deg = com.row_degrees();
  for (int v : deg) c.d = std::max(c.d, v);
  c.dst.assign(uz(c.num_senders) * uz(c.d), -1);
  c.len.assign(c.dst.size(), 0);
  c.prt.assign(uz(c.num_senders), -1);
  for (const Message& m : com.entries()) {
    const int z = ++c.prt[uz(m.src)];
    c.dst[c.idx(m.src, z)] = m.dst;
    c.len[c.idx(m.src, z)] = m.len;
  }
  // §4.2: "the compressing procedure also randomly swaps the active entries in each row"; without
  // it rows are in ascending order and the first phases collide on small ids.
  detail::SplitMix64 rng(seed ^ stream_ccom);
  for (int i = 0; i < c.num_senders; ++i) {
    for (int z = c.prt[uz(i)]; z > 0; --z) {
      const int w = static_cast<int>(rng.below(static_cast<std::uint64_t>(z) + 1));
      std::swap(c.dst[c.idx(i, z)], c.dst[c.idx(i, w)]);
      std::swap(c.len[c.idx(i, z)], c.len[c.idx(i, w)]);
    }
  }
  return c;
}

namespace {
// "rs_n" and "rs_nl" were the names before the one casing; tests, the README, bench/all_to_many and
// docs/results/all_to_many.csv use them, so they stay accepted.
constexpr NameTable<AllToManyAlgo, 7> all_to_many_names{{{{AllToManyAlgo::AC, "ac"},
                                                          {AllToManyAlgo::LP, "lp"},
                                                          {AllToManyAlgo::RS_N, "rs-n"},
                                                          {AllToManyAlgo::RS_NL, "rs-nl"},
                                                          {AllToManyAlgo::Optimal, "optimal"},
                                                          {AllToManyAlgo::RS_N, "rs_n"},
                                                          {AllToManyAlgo::RS_NL, "rs_nl"}}}};
} // namespace

std::string to_string(AllToManyAlgo a) { return std::string(all_to_many_names.name(a)); }

AllToManyAlgo parse_all_to_many_algo(std::string_view name, std::string_view what) {
  return all_to_many_names.parse(name, what);
}

std::vector<AllToManyAlgo> all_to_many_algos() {
  return {AllToManyAlgo::AC, AllToManyAlgo::LP, AllToManyAlgo::RS_N, AllToManyAlgo::RS_NL,
          AllToManyAlgo::Optimal};
}

Schedule schedule_ac(const CommMatrix& com) {
  std::vector<Step> steps;
  std::vector<std::vector<char>> recv_busy; // per step: receivers already taken
  int prev_src = -1;
  std::size_t next = 0; // first step allowed for the current sender's next message
  for (const Message& m : com.entries()) {
    if (m.src != prev_src) {
      prev_src = m.src;
      next = 0;
    }
    std::size_t k = next;
    while (k < steps.size() && recv_busy[k][uz(m.dst)]) ++k;
    if (k == steps.size()) {
      steps.emplace_back();
      recv_busy.emplace_back(uz(com.num_receivers()), 0);
    }
    steps[k].messages.push_back(m);
    recv_busy[k][uz(m.dst)] = 1;
    next = k + 1;
  }
  for (Step& s : steps) sort_step(s);
  return Schedule(com.num_senders(), com.num_receivers(), std::move(steps));
}

Schedule schedule_lp(const CommMatrix& com) {
  require_square(com, "schedule_lp");
  const int n = com.num_senders();
  const bool pow2 = n > 0 && (n & (n - 1)) == 0;
  // Figure 2: phase k pairs i with i XOR k (n = 2^j); otherwise i -> (i + k) mod n. Phase 0 is the
  // message to oneself. Bucketing the entries by k is O(E) instead of the figure's O(n^2) scan.
  std::vector<Step> by_phase(uz(n));
  for (const Message& m : com.entries()) {
    const int k = pow2 ? (m.src ^ m.dst) : static_cast<int>(detail::pos_mod(m.dst - m.src, n));
    by_phase[uz(k)].messages.push_back(m);
  }
  std::vector<Step> steps;
  for (Step& s : by_phase)
    if (!s.messages.empty()) steps.push_back(std::move(s));
  return Schedule(n, n, std::move(steps));
}

Schedule schedule_rs_n(const CommMatrix& com, std::uint64_t seed) {
  return random_schedule(com, nullptr, seed);
}

Schedule schedule_rs_nl(const CommMatrix& com, const Routing& routing, std::uint64_t seed) {
  require_square(com, "schedule_rs_nl");
  if (routing.num_nodes() != com.num_senders())
    detail::fail("schedule_rs_nl: routing ", routing.describe(), " has ", routing.num_nodes(),
                 " nodes; expected n = ", com.num_senders());
  return random_schedule(com, &routing, seed);
}

Schedule schedule_optimal(const CommMatrix& com) {
  // König's edge colouring from the matching engine: each phase saturates every maximum-degree
  // node, so there are exactly max_degree() phases (Theorem 1 of Desprez et al.). Lengths are not weighed
  // (weight 0): the objective here is the number of phases, and weighing them (koenig-stepwise of
  // strategy.hpp) multiplies the planning time on dense patterns (e.g. n = 256, d = 255).
  const std::vector<Message>& msgs = com.entries();
  std::vector<BipartiteEdge> edges;
  edges.reserve(msgs.size());
  for (const Message& m : msgs) edges.push_back({m.src, m.dst, 0, 0});
  std::vector<Step> steps;
  for (const std::vector<std::size_t>& cls : bipartite_edge_colouring(
           com.num_senders(), com.num_receivers(), edges, ColouringRule::SaturateMaxDegree)) {
    Step& st = steps.emplace_back();
    for (std::size_t e : cls) st.messages.push_back(msgs[e]);
  }
  return Schedule(com.num_senders(), com.num_receivers(), std::move(steps));
}

Schedule schedule_all_to_many(const CommMatrix& com, const AllToManyOptions& opt) {
  switch (opt.algo) {
  case AllToManyAlgo::AC:
    return schedule_ac(com);
  case AllToManyAlgo::LP:
    return schedule_lp(com);
  case AllToManyAlgo::RS_N:
    return schedule_rs_n(com, opt.seed);
  case AllToManyAlgo::RS_NL:
    require_square(com, "schedule_all_to_many(rs_nl)");
    return schedule_rs_nl(com, Routing::make(opt.routing, std::max(1, com.num_senders())), opt.seed);
  case AllToManyAlgo::Optimal:
    break;
  }
  return schedule_optimal(com);
}

std::string check_link_contention(const Schedule& s, const Routing& routing) {
  if (s.num_senders() > routing.num_nodes() || s.num_receivers() > routing.num_nodes())
    return detail::concat("schedule is ", s.num_senders(), "x", s.num_receivers(), " but ",
                          routing.describe(), " has ", routing.num_nodes(), " nodes");
  std::vector<int> user(uz(routing.num_links()), -1); // message index that claimed the link
  std::vector<int> path;
  for (std::size_t k = 0; k < s.steps().size(); ++k) {
    const auto& msgs = s.steps()[k].messages;
    for (std::size_t i = 0; i < msgs.size(); ++i) {
      path.clear();
      routing.append_path(msgs[i].src, msgs[i].dst, path);
      for (int l : path) {
        const int other = user[uz(l)];
        if (other >= 0) {
          const Message& o = msgs[uz(other)];
          const auto [from, to] = routing.link_endpoints(l);
          return detail::concat("step ", k, ": ", o.src, "->", o.dst, " and ", msgs[i].src, "->", msgs[i].dst,
                                " both use link ", l, " (", from, "->", to, ")");
        }
        user[uz(l)] = static_cast<int>(i);
      }
    }
    for (const Message& m : msgs) {
      path.clear();
      routing.append_path(m.src, m.dst, path);
      for (int l : path) user[uz(l)] = -1;
    }
  }
  return {};
}

CommMatrix random_regular_com(int n, int d, index_t len, std::uint64_t seed) {
  detail::require(n >= 1, "random_regular_com: n must be >= 1, got ", n);
  detail::require(d >= 0 && d < n, "random_regular_com: d must be in [0, n - 1] = [0, ", n - 1, "], got ", d);
  detail::require(len >= 1, "random_regular_com: len must be >= 1, got ", len);
  detail::SplitMix64 rng(seed ^ stream_pattern);
  // A relabelled circulant graph: node pi(i) sends to pi(i + s) for d distinct shifts s in [1, n).
  std::vector<int> pi(uz(n));
  for (int i = 0; i < n; ++i) pi[uz(i)] = i;
  for (int i = n - 1; i > 0; --i) std::swap(pi[uz(i)], pi[rng.below(static_cast<std::uint64_t>(i) + 1)]);
  std::vector<int> shifts(uz(n - 1));
  for (int i = 0; i < n - 1; ++i) shifts[uz(i)] = i + 1;
  for (int i = 0; i < d; ++i) // partial Fisher-Yates: the first d entries are a random d-subset
    std::swap(shifts[uz(i)], shifts[uz(i) + rng.below(static_cast<std::uint64_t>(n - 1 - i))]);
  struct Arc {
    int s, t;
  };
  std::vector<Arc> arcs;
  arcs.reserve(uz(n) * uz(d));
  auto key = [n](int s, int t) {
    return static_cast<std::uint64_t>(s) * static_cast<std::uint64_t>(n) + uz(t);
  };
  std::unordered_set<std::uint64_t> present;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) {
      const Arc a{pi[uz(i)], pi[uz((i + shifts[uz(k)]) % n)]};
      arcs.push_back(a);
      present.insert(key(a.s, a.t));
    }
  // Degree-preserving switches (a->b, c->e) => (a->e, c->b) break the circulant structure, which
  // would otherwise favour LP's shift phases.
  const std::size_t m = arcs.size();
  if (m >= 2) {
    const std::size_t tries = 10 * m;
    for (std::size_t t = 0; t < tries; ++t) {
      Arc& x = arcs[rng.below(m)];
      Arc& y = arcs[rng.below(m)];
      if (x.s == y.s || x.t == y.t || x.s == y.t || y.s == x.t) continue;
      if (present.count(key(x.s, y.t)) || present.count(key(y.s, x.t))) continue;
      present.erase(key(x.s, x.t));
      present.erase(key(y.s, y.t));
      std::swap(x.t, y.t);
      present.insert(key(x.s, x.t));
      present.insert(key(y.s, y.t));
    }
  }
  CommMatrix com(n, n);
  for (const Arc& a : arcs) com.add(a.s, a.t, len);
  return com;
}

} // namespace hpf
