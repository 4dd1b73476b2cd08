// Executors of the broadcast algorithms of Table 1 of seed 003 with point-to-point MPI messages, the
// two-level (inter-cluster schedule, then intra-cluster algorithm) broadcast, and pLogP measurement.
#include <hpf/adaptive/broadcast.hpp>

#include <hpf/core/error.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

namespace hpf {

namespace {

std::size_t idx(int i) { return static_cast<std::size_t>(i); }

bool is_rendezvous(BcastAlgorithm a) {
  return a == BcastAlgorithm::flat_rendezvous || a == BcastAlgorithm::chain_rendezvous ||
         a == BcastAlgorithm::binomial_rendezvous;
}

/// Tree algorithms: every rank receives its segments from its parent (all receives posted first, so
/// segment i+1 arrives while segment i is forwarded: the pipeline of the segmented chain), and
/// forwards each segment to its children in tree order. Rendez-vous variants precede the data with a
/// 1-byte request from the parent and a 1-byte acknowledgement from the child.
void tree_bcast(const Comm& comm, std::span<const int> group, BcastAlgorithm a, std::size_t segment,
                std::span<std::byte> data, int me, int tag) {
  const int n = static_cast<int>(group.size());
  const auto children = bcast_tree(a, n);
  int parent = -1;
  for (int r = 0; r < n && parent < 0; ++r)
    for (int c : children[idx(r)])
      if (c == me) parent = r;
  const std::size_t nbytes = data.size();
  const std::size_t s = is_segmented(a) ? std::min(segment, nbytes) : nbytes;
  const std::size_t k = (nbytes + s - 1) / s;
  const bool rdv = is_rendezvous(a);
  std::byte token{1};
  auto seg = [&](std::size_t i) { return data.subspan(i * s, std::min(s, nbytes - i * s)); };

  std::vector<Requests> recvs(parent >= 0 ? k : 0);
  if (parent >= 0) {
    const int from = group[idx(parent)];
    if (rdv) HPF_MPI_CHECK(MPI_Recv(&token, 1, MPI_BYTE, from, tag + 1, comm.get(), MPI_STATUS_IGNORE));
    for (std::size_t i = 0; i < k; ++i) irecv_bytes(comm, seg(i).data(), seg(i).size(), from, tag, recvs[i]);
    if (rdv) HPF_MPI_CHECK(MPI_Send(&token, 1, MPI_BYTE, from, tag + 2, comm.get()));
  }
  Requests sends;
  for (std::size_t i = 0; i < k; ++i) {
    if (parent >= 0) recvs[i].wait_all();
    for (int c : children[idx(me)]) {
      const int to = group[idx(c)];
      if (rdv) {
        HPF_MPI_CHECK(MPI_Send(&token, 1, MPI_BYTE, to, tag + 1, comm.get()));
        HPF_MPI_CHECK(MPI_Recv(&token, 1, MPI_BYTE, to, tag + 2, comm.get(), MPI_STATUS_IGNORE));
      }
      isend_bytes(comm, seg(i).data(), seg(i).size(), to, tag, sends);
    }
  }
  sends.wait_all();
}

/// Scatter/collection (Table 1, [20]): a binomial scatter gives relative rank r block r of n, then a
/// ring allgather circulates the blocks in n-1 steps.
void scatter_collect(const Comm& comm, std::span<const int> group, std::span<std::byte> data, int me,
                     int tag) {
  const int n = static_cast<int>(group.size());
  const std::size_t nbytes = data.size();
  const std::size_t bs = (nbytes + idx(n) - 1) / idx(n);
  auto off = [&](int b) { return std::min(idx(b) * bs, nbytes); };
  auto blocks = [&](int first, int count) {
    return data.subspan(off(first), off(first + count) - off(first));
  };
  // Binomial scatter: r's subtree is [r, r + min(lowbit(r), n - r)); the root's is everything.
  const auto children = bcast_tree(BcastAlgorithm::binomial, n);
  auto subtree = [&](int r) { return r == 0 ? n : std::min(r & -r, n - r); };
  for (int r = 0; r < n; ++r)
    for (int c : children[idx(r)])
      if (c == me) {
        Requests rq;
        const auto b = blocks(me, subtree(me));
        irecv_bytes(comm, b.data(), b.size(), group[idx(r)], tag, rq);
        rq.wait_all();
      }
  {
    Requests rq;
    for (int c : children[idx(me)]) {
      const auto b = blocks(c, subtree(c));
      isend_bytes(comm, b.data(), b.size(), group[idx(c)], tag, rq);
    }
    rq.wait_all();
  }
  // Ring allgather: at step t, r sends block (r - t) to r + 1 and receives block (r - t - 1).
  const int right = group[idx((me + 1) % n)], left = group[idx((me + n - 1) % n)];
  for (int t = 0; t + 1 < n; ++t) {
    Requests rq;
    const auto out = blocks(((me - t) % n + n) % n, 1);
    const auto in = blocks(((me - t - 1) % n + n) % n, 1);
    irecv_bytes(comm, in.data(), in.size(), left, tag + 1, rq);
    isend_bytes(comm, out.data(), out.size(), right, tag + 1, rq);
    rq.wait_all();
  }
}

constexpr int k_tag_flat = 4100;  // tags 4100..4102: one-level broadcasts and intra-cluster phases
constexpr int k_tag_inter = 4110; // inter-cluster transfers between coordinators

void check_root(const Comm& comm, int root) {
  detail::require(root >= 0 && root < comm.size(), "AdaptiveBroadcast::execute: root must be a rank in [0, ",
                  comm.size(), "), got ", root);
}

} // namespace

void detail::bcast_group(const Comm& comm, std::span<const int> group, BcastAlgorithm a, std::size_t segment,
                         std::span<std::byte> data, int tag) {
  require(segment >= 1, "bcast_group: segment size must be >= 1 byte, got ", segment);
  const int me_world = comm.rank();
  const auto it = std::find(group.begin(), group.end(), me_world);
  require(it != group.end(), "bcast_group: rank ", me_world, " is not in the group");
  const int me = static_cast<int>(it - group.begin());
  if (group.size() == 1 || data.empty()) return;
  if (a == BcastAlgorithm::scatter_collect)
    scatter_collect(comm, group, data, me, tag);
  else
    tree_bcast(comm, group, a, segment, data, me, tag);
}

AdaptiveBroadcast::AdaptiveBroadcast(Comm comm, BcastAlgorithm a, std::size_t segment)
    : m_comm(std::move(comm)), m_algorithm(a), m_segment(segment) {
  detail::require(!m_comm.is_null(), "AdaptiveBroadcast: comm must not be null");
  detail::require(segment >= 1, "AdaptiveBroadcast: segment size must be >= 1 byte, got ", segment);
  const auto all = all_bcast_algorithms();
  detail::require(std::find(all.begin(), all.end(), a) != all.end(),
                  "AdaptiveBroadcast: algorithm must be one of the ", all.size(), " of Table 1, got value ",
                  static_cast<int>(a));
}

AdaptiveBroadcast AdaptiveBroadcast::plan(Comm comm, std::size_t m, const PLogP& model) {
  const BcastChoice c = choose_bcast(comm.size(), m, model);
  return AdaptiveBroadcast(std::move(comm), c.chosen().algorithm, c.chosen().segment);
}

AdaptiveBroadcast AdaptiveBroadcast::measured(Comm comm, std::size_t m) {
  const PLogP model = measure_plogp(comm);
  return plan(std::move(comm), m, model);
}

AdaptiveBroadcast::AdaptiveBroadcast(Comm comm, HierarchicalPlan plan)
    : m_comm(std::move(comm)), m_hier(true), m_plan(std::move(plan)) {
  detail::require(!m_comm.is_null(), "AdaptiveBroadcast: comm must not be null");
  detail::require(m_plan.P == m_comm.size(), "AdaptiveBroadcast: the hierarchical plan is for P = ", m_plan.P,
                  " ranks, the communicator has ", m_comm.size());
  detail::require(m_plan.clusters.size() == m_plan.intra.size() && !m_plan.candidates.empty(),
                  "AdaptiveBroadcast: the hierarchical plan is incomplete (use plan_hierarchical)");
}

void AdaptiveBroadcast::execute(std::span<std::byte> data, int root) const {
  check_root(m_comm, root);
  const int P = m_comm.size();
  if (!m_hier) {
    std::vector<int> group(idx(P));
    for (int r = 0; r < P; ++r) group[idx(r)] = (root + r) % P;
    detail::bcast_group(m_comm, group, m_algorithm, m_segment, data, k_tag_flat);
    return;
  }
  detail::require(root == m_plan.root,
                  "AdaptiveBroadcast::execute: root must be the hierarchical plan's root ", m_plan.root,
                  ", got ", root);
  const int me = m_comm.rank();
  const std::vector<int> of = m_plan.cluster_of();
  const int c = of[idx(me)];
  const std::vector<int>& ranks = m_plan.clusters[idx(c)];
  if (me == ranks.front() && !data.empty()) {
    // Coordinator: receive from the sending cluster, forward in schedule order, then broadcast inside.
    const InterSchedule& s = m_plan.inter();
    for (const InterTransfer& t : s.transfers)
      if (t.to == c) {
        Requests rq;
        irecv_bytes(m_comm, data.data(), data.size(), m_plan.clusters[idx(t.from)].front(), k_tag_inter, rq);
        rq.wait_all();
      }
    Requests sends;
    for (const InterTransfer& t : s.transfers)
      if (t.from == c)
        isend_bytes(m_comm, data.data(), data.size(), m_plan.clusters[idx(t.to)].front(), k_tag_inter, sends);
    sends.wait_all();
  }
  const BcastPrediction& intra = m_plan.intra[idx(c)].chosen();
  detail::bcast_group(m_comm, ranks, intra.algorithm, std::max<std::size_t>(intra.segment, 1), data,
                      k_tag_flat);
}

// ---------------------------------------------------------------------------------------------------
// pLogP measurement

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// On rank 0 (ranks 0 and 1 take part): {RTT, g, os, or} for messages of m bytes.
std::array<double, 4> measure_size(const Comm& comm, std::size_t m) {
  const int me = comm.rank();
  const MPI_Comm c = comm.get();
  const int n = static_cast<int>(m);
  std::vector<char> buf(std::max<std::size_t>(m, 1), 1);
  const int reps = m >= (1u << 20) ? 5 : 21;
  const int stream = m >= (1u << 20) ? 6 : 24;
  std::vector<double> rtt, gap, os, orr;
  for (int rep = 0; rep < reps; ++rep) {
    if (me == 0) {
      double t = MPI_Wtime();
      HPF_MPI_CHECK(MPI_Send(buf.data(), n, MPI_BYTE, 1, 90, c));
      HPF_MPI_CHECK(MPI_Recv(buf.data(), n, MPI_BYTE, 1, 90, c, MPI_STATUS_IGNORE));
      rtt.push_back(MPI_Wtime() - t);
      // A stream of back-to-back sends, closed by a 0-byte acknowledgement.
      t = MPI_Wtime();
      for (int i = 0; i < stream; ++i) {
        const double a = MPI_Wtime();
        HPF_MPI_CHECK(MPI_Send(buf.data(), n, MPI_BYTE, 1, 91, c));
        os.push_back(MPI_Wtime() - a);
      }
      HPF_MPI_CHECK(MPI_Recv(nullptr, 0, MPI_BYTE, 1, 92, c, MPI_STATUS_IGNORE));
      gap.push_back((MPI_Wtime() - t) / stream);
      HPF_MPI_CHECK(MPI_Send(buf.data(), n, MPI_BYTE, 1, 93, c));
    } else if (me == 1) {
      HPF_MPI_CHECK(MPI_Recv(buf.data(), n, MPI_BYTE, 0, 90, c, MPI_STATUS_IGNORE));
      HPF_MPI_CHECK(MPI_Send(buf.data(), n, MPI_BYTE, 0, 90, c));
      for (int i = 0; i < stream; ++i)
        HPF_MPI_CHECK(MPI_Recv(buf.data(), n, MPI_BYTE, 0, 91, c, MPI_STATUS_IGNORE));
      HPF_MPI_CHECK(MPI_Send(nullptr, 0, MPI_BYTE, 0, 92, c));
      // or(m): the receive of a message that has already arrived.
      HPF_MPI_CHECK(MPI_Probe(0, 93, c, MPI_STATUS_IGNORE));
      const double a = MPI_Wtime();
      HPF_MPI_CHECK(MPI_Recv(buf.data(), n, MPI_BYTE, 0, 93, c, MPI_STATUS_IGNORE));
      orr.push_back(MPI_Wtime() - a);
    }
  }
  double r[4] = {0, 0, 0, 0};
  if (me == 0) {
    r[0] = median(rtt);
    r[1] = median(gap);
    r[2] = median(os);
  } else if (me == 1) {
    r[3] = median(orr);
  }
  // or(m) is measured on rank 1: bring it to rank 0.
  if (me == 1) HPF_MPI_CHECK(MPI_Send(&r[3], 1, MPI_DOUBLE, 0, 94, c));
  if (me == 0) HPF_MPI_CHECK(MPI_Recv(&r[3], 1, MPI_DOUBLE, 1, 94, c, MPI_STATUS_IGNORE));
  return {r[0], r[1], r[2], r[3]};
}

constexpr std::size_t k_sizes[] = {0, 1024, 32768, std::size_t(1) << 20};
constexpr int k_ns = 4;
constexpr int k_nvalues = 1 + 3 * k_ns; // L, then (g, os, or) per size

/// The measurement of measure_plogp, meaningful on rank 0 of `comm` (zeros elsewhere and on one rank).
std::array<double, k_nvalues> measure_values(const Comm& comm) {
  std::array<double, k_nvalues> values{};
  if (comm.size() > 1) {
    double rtt0 = 0;
    for (int i = 0; i < k_ns; ++i) {
      const auto r = measure_size(comm, k_sizes[i]);
      if (i == 0) rtt0 = r[0];
      values[1 + 3 * i] = r[1];
      values[2 + 3 * i] = r[2];
      values[3 + 3 * i] = r[3];
    }
    values[0] = std::max(0.0, (rtt0 - 2 * values[1]) / 2); // Figure 2: L = (RTT(0) - 2 g(0)) / 2
  }
  if (comm.rank() != 0) values.fill(0);
  return values;
}

PLogP to_plogp(const double* values) {
  std::vector<PLogPSample> samples;
  samples.reserve(k_ns);
  for (int i = 0; i < k_ns; ++i)
    samples.push_back({k_sizes[i], values[1 + 3 * i], values[2 + 3 * i], values[3 + 3 * i]});
  return PLogP(values[0], std::move(samples));
}

/// Round r (0 <= r < n-1, n even) of the circle method: rank x's partner (n - 1 may be a dummy).
int partner(int x, int r, int n) {
  const int m = n - 1;
  if (x == m) return r;
  if (x == r) return m;
  return ((2 * r - x) % m + m) % m;
}

} // namespace

PLogP measure_plogp(const Comm& comm) {
  static std::map<MPI_Comm, PLogP> cache;
  if (auto it = cache.find(comm.get()); it != cache.end()) return it->second;
  auto values = measure_values(comm);
  HPF_MPI_CHECK(MPI_Bcast(values.data(), k_nvalues, MPI_DOUBLE, 0, comm.get()));
  PLogP model = to_plogp(values.data());
  cache.emplace(comm.get(), model);
  return model;
}

ClusterMap discover_clusters(const Comm& comm, double rho) {
  detail::require(std::isfinite(rho) && rho >= 0,
                  "discover_clusters: tolerance rho must be finite and >= 0, got ", rho);
  const int P = comm.size(), me = comm.rank();
  const MPI_Comm c = comm.get();
  // 1. Latency of every pair: P-1 rounds (P even) or P rounds (P odd, one rank idle) of disjoint pairs.
  const int n = P + (P % 2);
  std::vector<double> w(idx(P) * idx(P), 0.0);
  for (int r = 0; r + 1 < n; ++r) {
    const int peer = partner(me, r, n);
    HPF_MPI_CHECK(MPI_Barrier(c));
    if (peer >= P) continue;
    std::vector<double> t;
    for (int i = 0; i < 11; ++i) {
      const double a = MPI_Wtime();
      if (me < peer) {
        HPF_MPI_CHECK(MPI_Send(nullptr, 0, MPI_BYTE, peer, 95, c));
        HPF_MPI_CHECK(MPI_Recv(nullptr, 0, MPI_BYTE, peer, 95, c, MPI_STATUS_IGNORE));
      } else {
        HPF_MPI_CHECK(MPI_Recv(nullptr, 0, MPI_BYTE, peer, 95, c, MPI_STATUS_IGNORE));
        HPF_MPI_CHECK(MPI_Send(nullptr, 0, MPI_BYTE, peer, 95, c));
      }
      t.push_back((MPI_Wtime() - a) / 2);
    }
    // The lower rank of the pair records the latency; the matrix is assembled by a max-reduction.
    // A measured 0 would read as "no link": keep it positive.
    if (me < peer)
      w[idx(me) * idx(P) + idx(peer)] = w[idx(peer) * idx(P) + idx(me)] = std::max(median(t), 1e-9);
  }
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, w.data(), static_cast<int>(w.size()), MPI_DOUBLE, MPI_MAX, c));
  // 2. Algorithm 1 on the same matrix on every rank.
  const std::vector<std::vector<int>> groups = lowekamp_clusters(w, P, rho);
  const int C = static_cast<int>(groups.size());
  std::vector<int> of(idx(P));
  for (int g = 0; g < C; ++g)
    for (int r : groups[idx(g)]) of[idx(r)] = g;
  // 3. One pLogP measurement inside each cluster, all clusters at once on their own communicators.
  std::vector<double> intra(idx(C) * k_nvalues, 0.0);
  {
    MPI_Comm sub = MPI_COMM_NULL;
    HPF_MPI_CHECK(MPI_Comm_split(c, of[idx(me)], me, &sub));
    const Comm cluster = Comm::adopt(sub);
    const auto v = measure_values(cluster);
    if (cluster.rank() == 0) std::copy(v.begin(), v.end(), intra.data() + idx(of[idx(me)]) * k_nvalues);
  }
  HPF_MPI_CHECK(
      MPI_Allreduce(MPI_IN_PLACE, intra.data(), static_cast<int>(intra.size()), MPI_DOUBLE, MPI_MAX, c));
  // 4. One measurement per pair of clusters between their coordinators (lowest ranks), in rounds of
  //    disjoint pairs of clusters; links are taken as symmetric.
  std::vector<double> inter(idx(C) * idx(C) * k_nvalues, 0.0);
  const int nc = C + (C % 2);
  const int mine = of[idx(me)];
  const bool coordinator = groups[idx(mine)].front() == me;
  for (int r = 0; r + 1 < nc; ++r) {
    const int other = coordinator ? partner(mine, r, nc) : -1;
    const bool active = other >= 0 && other < C;
    MPI_Comm sub = MPI_COMM_NULL;
    // Colour: the lower cluster of the pair; the lower coordinator becomes rank 0 of the pair.
    HPF_MPI_CHECK(MPI_Comm_split(c, active ? std::min(mine, other) : MPI_UNDEFINED, mine, &sub));
    if (!active) continue;
    const Comm pair = Comm::adopt(sub);
    const auto v = measure_values(pair);
    if (pair.rank() == 0) {
      std::copy(v.begin(), v.end(), inter.data() + (idx(mine) * idx(C) + idx(other)) * k_nvalues);
      std::copy(v.begin(), v.end(), inter.data() + (idx(other) * idx(C) + idx(mine)) * k_nvalues);
    }
  }
  HPF_MPI_CHECK(
      MPI_Allreduce(MPI_IN_PLACE, inter.data(), static_cast<int>(inter.size()), MPI_DOUBLE, MPI_MAX, c));
  ClusterMap map;
  for (int g = 0; g < C; ++g)
    map.clusters.push_back({groups[idx(g)], to_plogp(intra.data() + idx(g) * k_nvalues)});
  for (int a = 0; a < C; ++a)
    for (int b = 0; b < C; ++b)
      map.inter.push_back(to_plogp(inter.data() + (idx(a) * idx(C) + idx(b)) * k_nvalues));
  return map;
}

} // namespace hpf
