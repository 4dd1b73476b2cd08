// The broadcast algorithms of Table 1 of Steffenel and the two-level (inter-cluster schedule, then
// intra-cluster algorithm) broadcast, run as hpf::Schedule steps by hpf::Exchange; pLogP from the one
// machine model and cluster discovery with its ping-pong kernel.
#include <hpf/adaptive/broadcast.hpp>

#include <hpf/core/error.hpp>
#include <hpf/core/stats.hpp>
#include <hpf/core/tags.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/exec/model.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <utility>

namespace hpf {

namespace {

std::size_t idx(int i) { return static_cast<std::size_t>(i); }

// Tags (hpf::tags::bcast): one-level broadcasts and intra-cluster phases use base (and base + 1,
// the ready signal of ExecMode::Handshake); inter-cluster transfers between coordinators base + 10.
constexpr int k_tag_flat = tags::bcast.base;
constexpr int k_tag_inter = tags::bcast.base + 10;

/// MPI_Bcast of `data`, in pieces of at most INT_MAX bytes.
void vendor_bcast(const Comm& comm, std::span<std::byte> data, int root) {
  for (std::size_t at = 0; at < data.size(); at += max_message_bytes) {
    const std::size_t n = std::min(max_message_bytes, data.size() - at);
    HPF_MPI_CHECK(MPI_Bcast(data.data() + at, static_cast<int>(n), MPI_BYTE, root, comm.get()));
  }
}

void check_root(const Comm& comm, int root) {
  detail::require(root >= 0 && root < comm.size(), "AdaptiveBroadcast::execute: root must be a rank in [0, ",
                  comm.size(), "), got ", root);
}

} // namespace

detail::BcastRun::BcastRun(const Comm& comm, const std::vector<int>& ranks, int me, const Schedule& schedule,
                           const std::vector<std::vector<BcastPiece>>& pieces, ExecMode mode, int tag) {
  ExchangePlan plan = exchange_plan(schedule, me, me, ranks, ranks, 1);
  // The pieces of this rank's sends and receives, in exchange_plan's order (step, then message).
  for (std::size_t k = 0; k < schedule.steps().size(); ++k) {
    const auto& msgs = schedule.steps()[k].messages;
    for (std::size_t i = 0; i < msgs.size(); ++i) {
      if (msgs[i].len == 0) continue;
      if (msgs[i].src == me) m_out.push_back(pieces[k][i]);
      if (msgs[i].dst == me) m_in.push_back(pieces[k][i]);
    }
  }
  require(m_out.size() == plan.sends.size() && m_in.size() == plan.recvs.size(),
          "AdaptiveBroadcast: schedule pieces do not match the exchange plan (internal error)");
  if (!m_out.empty() || !m_in.empty()) m_exchange.emplace(comm, std::move(plan), mode, tag);
}

void detail::BcastRun::run(std::span<std::byte> data) {
  if (!m_exchange) return;
  m_exchange->execute(
      [&](std::size_t i, std::byte* buf) { std::memcpy(buf, data.data() + m_out[i].offset, m_out[i].bytes); },
      [&](std::size_t i, const std::byte* buf) {
        std::memcpy(data.data() + m_in[i].offset, buf, m_in[i].bytes);
      });
}

detail::BcastRun detail::bcast_group_run(const Comm& comm, std::span<const int> group, BcastAlgorithm a,
                                         std::size_t segment, std::size_t bytes, int tag) {
  require(segment >= 1, "bcast_group: segment size must be >= 1 byte, got ", segment);
  const int me_world = comm.rank();
  const auto it = std::find(group.begin(), group.end(), me_world);
  require(it != group.end(), "bcast_group: rank ", me_world, " is not in the group");
  const int me = static_cast<int>(it - group.begin());
  if (group.size() == 1 || bytes == 0) return {};
  const BcastSchedule plan = bcast_schedule(a, static_cast<int>(group.size()), bytes, segment);
  // Rendez-vous variants: the executor's handshake mode (a zero-byte ready signal from the receiver
  // before each send) is the rendez-vous of Table 1; the others run as a dataflow in step order.
  return {comm,        std::vector<int>(group.begin(), group.end()),
          me,          plan.schedule,
          plan.pieces, plan.rendezvous ? ExecMode::Handshake : ExecMode::Pipelined,
          tag};
}

void detail::bcast_group(const Comm& comm, std::span<const int> group, BcastAlgorithm a, std::size_t segment,
                         std::span<std::byte> data, int tag) {
  bcast_group_run(comm, group, a, segment, data.size(), tag).run(data);
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

AdaptiveBroadcast AdaptiveBroadcast::plan(Comm comm, std::size_t m, const PLogP& model,
                                          BcastCalibration calibration) {
  const BcastChoice c = choose_bcast(comm.size(), m, model);
  return AdaptiveBroadcast(std::move(comm), c.chosen().algorithm, c.chosen().segment)
      .with_calibration(calibration);
}

AdaptiveBroadcast AdaptiveBroadcast::measured(Comm comm, std::size_t m, BcastCalibration calibration) {
  const PLogP model = measure_plogp(comm);
  return plan(std::move(comm), m, model, calibration);
}

AdaptiveBroadcast AdaptiveBroadcast::with_calibration(BcastCalibration calibration) const {
  detail::require(calibration.rounds >= 1 && calibration.rounds <= 64,
                  "AdaptiveBroadcast: calibration.rounds must be in [1, 64], got ", calibration.rounds);
  detail::require(calibration.margin >= 0 && calibration.margin < 1,
                  "AdaptiveBroadcast: calibration.margin must be in [0, 1), got ", calibration.margin);
  AdaptiveBroadcast b = *this;
  b.m_calibration = calibration;
  return b;
}

AdaptiveBroadcast AdaptiveBroadcast::vendor(Comm comm) {
  AdaptiveBroadcast b(std::move(comm), BcastAlgorithm::binomial, 1);
  b.m_vendor_only = true;
  return b;
}

std::optional<BcastDecision> AdaptiveBroadcast::decision(std::size_t bytes, int root) const {
  if (m_vendor_only) return BcastDecision{true, false, 0, 0};
  for (const Prepared& p : *m_prepared)
    if (p.root == root && p.bytes == bytes) return p.decision;
  return std::nullopt;
}

BcastDecision detail::decide_bcast(std::span<const double> plan, std::span<const double> vendor,
                                   double margin) {
  require(!plan.empty() && plan.size() == vendor.size(),
          "decide_bcast: expected the same number (>= 1) of plan and MPI_Bcast timings, got ", plan.size(),
          " and ", vendor.size());
  require(margin >= 0 && margin < 1, "decide_bcast: margin must be in [0, 1), got ", margin);
  BcastDecision d;
  d.measured = true;
  d.plan_seconds = median(std::vector<double>(plan.begin(), plan.end()));
  d.vendor_seconds = median(std::vector<double>(vendor.begin(), vendor.end()));
  d.vendor = !(d.plan_seconds < (1 - margin) * d.vendor_seconds);
  return d;
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
  if (m_hier)
    detail::require(root == m_plan.root,
                    "AdaptiveBroadcast::execute: root must be the hierarchical plan's root ", m_plan.root,
                    ", got ", root);
  if (m_vendor_only) {
    vendor_bcast(m_comm, data, root);
    return;
  }
  auto& cache = *m_prepared;
  auto hit = std::find_if(cache.begin(), cache.end(),
                          [&](const Prepared& p) { return p.root == root && p.bytes == data.size(); });
  if (hit == cache.end()) {
    if (cache.size() == k_prepared) cache.erase(cache.begin());
    cache.push_back({root, data.size(), prepare(data.size(), root), {}});
    hit = cache.end() - 1;
    // Every rank takes this branch together: the cache sees the same (root, bytes) calls everywhere.
    if (m_calibration.enabled && m_comm.size() > 1 && !data.empty()) {
      hit->decision = calibrate(hit->runs, data, root);
      return; // the calibration runs broadcast the root's bytes already
    }
  }
  if (hit->decision.vendor)
    vendor_bcast(m_comm, data, root);
  else
    for (detail::BcastRun& r : hit->runs) r.run(data);
}

BcastDecision AdaptiveBroadcast::calibrate(std::vector<detail::BcastRun>& runs, std::span<std::byte> data,
                                           int root) const {
  const auto n = static_cast<std::size_t>(m_calibration.rounds);
  std::vector<double> t(2 * n);
  const MPI_Comm c = m_comm.get();
  const auto timed = [&](bool plan) {
    HPF_MPI_CHECK(MPI_Barrier(c));
    const double s = MPI_Wtime();
    if (plan) {
      for (detail::BcastRun& run : runs) run.run(data);
    } else {
      vendor_bcast(m_comm, data, root);
    }
    return MPI_Wtime() - s;
  };
  // One untimed run of each first: the first calls set up the plan's buffers and requests and Open
  // MPI's collective module on the communicator.
  (void)timed(true);
  (void)timed(false);
  for (std::size_t r = 0; r < n; ++r) { // odd rounds run MPI_Bcast first: no order favours either
    const bool plan_first = r % 2 == 0;
    const double first = timed(plan_first);
    const double second = timed(!plan_first);
    t[r] = plan_first ? first : second;
    t[n + r] = plan_first ? second : first;
  }
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, t.data(), static_cast<int>(t.size()), MPI_DOUBLE, MPI_MAX, c));
  return detail::decide_bcast(std::span<const double>(t).first(n), std::span<const double>(t).last(n),
                              m_calibration.margin);
}

std::vector<detail::BcastRun> AdaptiveBroadcast::prepare(std::size_t bytes, int root) const {
  const int P = m_comm.size();
  std::vector<detail::BcastRun> runs;
  if (!m_hier) {
    std::vector<int> group(idx(P));
    for (int r = 0; r < P; ++r) group[idx(r)] = (root + r) % P;
    runs.push_back(detail::bcast_group_run(m_comm, group, m_algorithm, m_segment, bytes, k_tag_flat));
    return runs;
  }
  const int me = m_comm.rank();
  const std::vector<int> of = m_plan.cluster_of();
  const int c = of[idx(me)];
  const std::vector<int>& ranks = m_plan.clusters[idx(c)];
  if (me == ranks.front() && bytes > 0) {
    // Coordinator: the inter-cluster schedule as steps over the coordinators, forwarding the whole
    // message; then the broadcast inside the cluster.
    const Schedule steps = to_schedule(m_plan.inter(), static_cast<index_t>(bytes));
    std::vector<std::vector<BcastPiece>> pieces;
    for (const Step& st : steps.steps()) pieces.emplace_back(st.messages.size(), BcastPiece{0, 1, 0, bytes});
    std::vector<int> coords;
    for (const auto& cl : m_plan.clusters) coords.push_back(cl.front());
    runs.emplace_back(m_comm, coords, c, steps, pieces, ExecMode::Pipelined, k_tag_inter);
  }
  const BcastPrediction& intra = m_plan.intra[idx(c)].chosen();
  runs.push_back(detail::bcast_group_run(m_comm, ranks, intra.algorithm,
                                         std::max<std::size_t>(intra.segment, 1), bytes, k_tag_flat));
  return runs;
}

// ---------------------------------------------------------------------------------------------------
// pLogP: the machine model of exec/, and the discovery of clusters with its ping-pong kernel

namespace {

constexpr int k_nvalues = 1 + 4 * 4; // L, then (m, g, os, or) for the four sizes of measure_machine_model

/// A model as doubles, for assembling per-cluster models with one MPI_Allreduce (MPI_MAX over zeros).
void put_plogp(const PLogP& p, double* out) {
  detail::require(p.samples().size() == 4, "discover_clusters: expected 4 pLogP samples, got ",
                  p.samples().size());
  out[0] = p.L();
  for (std::size_t i = 0; i < 4; ++i) {
    const PLogPSample& s = p.samples()[i];
    out[1 + 4 * i] = static_cast<double>(s.m);
    out[2 + 4 * i] = s.g;
    out[3 + 4 * i] = s.os;
    out[4 + 4 * i] = s.orr;
  }
}

PLogP get_plogp(const double* v) {
  std::vector<PLogPSample> samples;
  for (std::size_t i = 0; i < 4; ++i)
    samples.push_back({static_cast<std::size_t>(v[1 + 4 * i]), v[2 + 4 * i], v[3 + 4 * i], v[4 + 4 * i]});
  return PLogP(v[0], std::move(samples));
}

/// Round r (0 <= r < n-1, n even) of the circle method: rank x's partner (n - 1 may be a dummy).
int partner(int x, int r, int n) {
  const int m = n - 1;
  if (x == m) return r;
  if (x == r) return m;
  return ((2 * r - x) % m + m) % m;
}

} // namespace

PLogP measure_plogp(const Comm& comm) { return machine_model(comm).plogp; }

ClusterMap discover_clusters(const Comm& comm, double rho) {
  detail::require(std::isfinite(rho) && rho >= 0,
                  "discover_clusters: tolerance rho must be finite and >= 0, got ", rho);
  const int P = comm.size(), me = comm.rank();
  const MPI_Comm c = comm.get();
  // 1. Latency of every pair (half the round trip of empty messages, median of 11, by the one
  //    ping-pong kernel): P-1 rounds (P even) or P rounds (P odd, one rank idle) of disjoint pairs.
  const int n = P + (P % 2);
  std::vector<double> w(idx(P) * idx(P), 0.0);
  for (int r = 0; r + 1 < n; ++r) {
    const int peer = partner(me, r, n);
    HPF_MPI_CHECK(MPI_Barrier(c));
    if (peer >= P) continue;
    const int lo = std::min(me, peer), hi = std::max(me, peer);
    const PingPongResult t = ping_pong(comm, lo, hi, 0, {11, 0, false});
    // The lower rank of the pair records the latency; the matrix is assembled by a max-reduction.
    // A measured 0 would read as "no link": keep it positive.
    if (me == lo) w[idx(lo) * idx(P) + idx(hi)] = w[idx(hi) * idx(P) + idx(lo)] = std::max(t.rtt / 2, 1e-9);
  }
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, w.data(), static_cast<int>(w.size()), MPI_DOUBLE, MPI_MAX, c));
  // 2. Algorithm 1 on the same matrix on every rank.
  const std::vector<std::vector<int>> groups = lowekamp_clusters(w, P, rho);
  const int C = static_cast<int>(groups.size());
  std::vector<int> of(idx(P));
  for (int g = 0; g < C; ++g)
    for (int r : groups[idx(g)]) of[idx(r)] = g;
  // 3. One measurement of the machine model inside each cluster, all clusters at once on their own
  //    communicators (measure_machine_model, not machine_model: the sub-communicators are new).
  std::vector<double> intra(idx(C) * k_nvalues, 0.0);
  {
    MPI_Comm sub = MPI_COMM_NULL;
    HPF_MPI_CHECK(MPI_Comm_split(c, of[idx(me)], me, &sub));
    const Comm cluster = Comm::adopt(sub);
    const PLogP p = measure_machine_model(cluster).plogp;
    if (cluster.rank() == 0) put_plogp(p, intra.data() + idx(of[idx(me)]) * k_nvalues);
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
    const PLogP p = measure_machine_model(pair).plogp;
    if (pair.rank() == 0) {
      put_plogp(p, inter.data() + (idx(mine) * idx(C) + idx(other)) * k_nvalues);
      put_plogp(p, inter.data() + (idx(other) * idx(C) + idx(mine)) * k_nvalues);
    }
  }
  HPF_MPI_CHECK(
      MPI_Allreduce(MPI_IN_PLACE, inter.data(), static_cast<int>(inter.size()), MPI_DOUBLE, MPI_MAX, c));
  // The diagonal of inter is never measured (as before): zeros at the measured sizes.
  ClusterMap map;
  for (int g = 0; g < C; ++g)
    map.clusters.push_back({groups[idx(g)], get_plogp(intra.data() + idx(g) * k_nvalues)});
  std::vector<PLogPSample> zeros = map.clusters.front().intra.samples();
  for (PLogPSample& z : zeros) z = {z.m, 0, 0, 0};
  for (int a = 0; a < C; ++a)
    for (int b = 0; b < C; ++b)
      map.inter.push_back(a == b ? PLogP(0, zeros)
                                 : get_plogp(inter.data() + (idx(a) * idx(C) + idx(b)) * k_nvalues));
  return map;
}

} // namespace hpf
