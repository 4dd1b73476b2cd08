// Hierarchical broadcast on clusters (Steffenel, Sections 4.1, 4.4, 4.5 and 5).
//
// 1. Clustering (Section 4.1.2, Algorithm 1, Lowekamp's greedy algorithm): ranks are grouped into
//    logical clusters of homogeneous latency with a tolerance rho (20% in Algorithm 1, 30% in the
//    Grid'5000 experiment of Section 7).
// 2. Intra-cluster: each cluster broadcasts with its own best algorithm of Table 1 (choose_bcast on
//    its own pLogP parameters); T_i is that predicted time.
// 3. Inter-cluster (Section 4.5): clusters are split into A (the coordinator holds the message) and B.
//    Each round a sender i in A and a receiver j in B are chosen; the transfer takes g_ij(m) of the
//    sender's time and arrives L_ij later. A coordinator broadcasts inside its cluster once it takes
//    part in no more inter-cluster transfers, so cluster i finishes at (its last send, or its arrival
//    time when it sends nothing) + T_i. The makespan is the latest cluster's finish.
//    Heuristics (Section 5), RT_i = time sender i is free to send:
//      flat       root cluster sends to the others in index order (ECO, MagPIe)
//      fef        smallest edge L_ij over i in A, j in B (Fastest Edge First, Bhat)
//      ecef       min RT_i + g_ij + L_ij (Early Completion Edge First)
//      ecef-la    min RT_i + g_ij + L_ij + F_j,  F_j = min_{k in B} (g_jk + L_jk)
//      ecef-lat   same with F_j = min_{k in B} (g_jk + L_jk + T_k)          (ECEF-LAt)
//      ecef-lat-max  same with F_j = max_{k in B} (g_jk + L_jk + T_k)       (ECEF-LAT)
//      bottom-up  receiver j = argmax_{j in B} min_{i in A} (g_ij + L_ij + T_j), sender the argmin i
//    Readings we had to choose: k ranges over B without j (F_j = 0 when j is the last of B); ECEF-LAT
//    selects by the same min rule as ECEF-LA, only F_j changes (the text says it "maximizes" through
//    F_j); FEF and BottomUp use their formulas literally (no RT_i); ties go to the lowest indices.
//
// Pure planning: no MPI, no I/O.
#pragma once

#include <hpf/adaptive/broadcast_model.hpp>
#include <hpf/adaptive/plogp.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hpf {

/// Algorithm 1 of Steffenel (Lowekamp): partitions nodes 0..n-1 given the n x n distance matrix
/// `w` (row-major, w[i*n+j]; 0 means "no link", as the paper's matrix M) with tolerance rho (0.2 =
/// 20%). Edges are taken by nondecreasing weight; edge (a,b) merges the subnets of a and b unless it
/// exceeds (1+rho) times the minimum edge of a, of b, or of a's or b's subnet. Returns the clusters,
/// each sorted, ordered by their smallest node. Throws hpf::Error unless w has n*n finite entries >= 0
/// and rho >= 0.
std::vector<std::vector<int>> lowekamp_clusters(std::span<const double> w, int n, double rho);

/// The inter-cluster scheduling heuristics of Section 5.
enum class InterHeuristic { flat, fef, ecef, ecef_la, ecef_lat, ecef_laT, bottom_up };
std::span<const InterHeuristic> all_inter_heuristics();
/// "flat", "fef", "ecef", "ecef-la", "ecef-lat", "ecef-lat-max" (ECEF-LAT), "bottom-up".
std::string to_string(InterHeuristic h);
/// Inverse of to_string; throws hpf::Error naming the argument `what`, the value and the valid names.
InterHeuristic parse_inter_heuristic(std::string_view name, std::string_view what = "heuristic");

/// Costs of the inter-cluster problem for one message size: C clusters, gap[i*C+j] = g_ij(m),
/// latency[i*C+j] = L_ij (diagonals ignored), intra[i] = T_i.
struct InterClusterCosts {
  int C = 0; ///< number of clusters
  std::vector<double>
      gap; ///< gap[i*C+j] = g_ij(m): time the sender of cluster i is busy sending to cluster j
  std::vector<double> latency; ///< latency[i*C+j] = L_ij
  std::vector<double>
      intra; ///< intra[i] = T_i: time of cluster i's own broadcast once its coordinator holds the message
};

/// One inter-cluster transfer of the schedule.
struct InterTransfer {
  int from = 0;      ///< sending cluster
  int to = 0;        ///< receiving cluster
  double start = 0;  ///< when the sender starts it
  double arrive = 0; ///< start + g + L: when the receiver's coordinator holds the message
};

/// An inter-cluster schedule and its predicted times.
struct InterSchedule {
  InterHeuristic heuristic = InterHeuristic::ecef; ///< the heuristic that built it
  int root_cluster = 0;                            ///< the cluster holding the message first
  std::vector<InterTransfer> transfers;            ///< in the order they are chosen (C-1 of them)
  std::vector<double> finish;                      ///< per cluster: when its intra-cluster broadcast is done
  double makespan = 0;                             ///< max of finish
};

/// Builds the schedule of heuristic `h` from the cluster holding the root. Throws hpf::Error unless
/// the costs have C >= 1 clusters, C*C gaps and latencies and C intra times, all finite and >= 0, and
/// root_cluster is in [0, C).
InterSchedule schedule_inter(InterHeuristic h, const InterClusterCosts& costs, int root_cluster);
/// The transfers of `s` as hpf::Schedule steps over clusters 0..C-1 (C = s.finish.size()), every
/// message `len` units: a transfer takes the first step after the one in which its sender received
/// the message and after the sender's previous transfer, so each step is a partial permutation and
/// the order of each sender's transfers is kept. validate() passes against the matrix of the
/// transfers.
Schedule to_schedule(const InterSchedule& s, index_t len);

/// Predicted makespan of a given order of transfers (each `to` once, every `from` already served).
InterSchedule evaluate_inter(std::span<const InterTransfer> order, const InterClusterCosts& costs,
                             int root_cluster, InterHeuristic label);

/// A cluster: its ranks (of the communicator) and its intra-cluster pLogP parameters.
struct ClusterSpec {
  std::vector<int> ranks; ///< ranks of the communicator in this cluster
  PLogP intra;            ///< pLogP parameters between its ranks
};

/// The platform: clusters and the C x C inter-cluster parameters (inter[i*C+j]; diagonal ignored).
struct ClusterMap {
  std::vector<ClusterSpec> clusters; ///< the clusters, a partition of the ranks
  std::vector<PLogP> inter;          ///< inter[i*C+j]: pLogP parameters from cluster i to cluster j
  /// Number of ranks; throws unless clusters partition 0..P-1 and inter has C*C entries.
  [[nodiscard]] int validate() const;
  /// A uniform platform: clusters of the given sizes over consecutive ranks, the same intra model in
  /// every cluster and the same inter model between any two.
  static ClusterMap uniform(std::span<const int> sizes, const PLogP& intra, const PLogP& inter);
};

/// Predicted time of a one-level ("grid-unaware") broadcast of m bytes: the tree of algorithm `a`
/// over the ranks root, root+1, ..., root-1 of the platform, every transfer costing the pLogP of its
/// own link (the intra model of a cluster inside it, inter[ci*C+cj] between clusters). A rank that
/// holds the message at t sends to its children in tree order; the k-th child has it at
/// t + g_1(m) + ... + g_k(m) + L_k. For comparing the two-level plans with what a grid-unaware MPI does
/// (Section 7 of Steffenel). Algorithms: flat, chain, binary, binomial (throws hpf::Error for the
/// others, for an invalid map or root).
double simulate_one_level(const ClusterMap& map, BcastAlgorithm a, int root, std::size_t m);

/// A two-level broadcast plan: who coordinates each cluster, the inter-cluster schedule and the
/// algorithm (and segment) of each cluster.
struct HierarchicalPlan {
  int P = 0;                              ///< ranks
  int root = 0;                           ///< the broadcast root
  std::size_t m = 0;                      ///< message bytes
  std::vector<std::vector<int>> clusters; ///< ranks of each cluster, coordinator first
  std::vector<BcastChoice> intra;         ///< per cluster: Table 1 predictions and the choice
  std::vector<InterSchedule> candidates;  ///< one schedule per heuristic considered
  std::size_t best = 0;                   ///< index of the heuristic with the smallest makespan
  /// The chosen inter-cluster schedule.
  [[nodiscard]] const InterSchedule& inter() const { return candidates.at(best); }
  /// Predicted time of the whole broadcast (the chosen schedule's makespan).
  [[nodiscard]] double predicted() const { return inter().makespan; }
  /// Cluster index of every rank.
  [[nodiscard]] std::vector<int> cluster_of() const;
};

/// Plans a broadcast of m bytes from `root`: per-cluster choice (coordinator = root in its cluster,
/// else the cluster's lowest rank), then every heuristic in `heuristics` (all when empty), keeping
/// the smallest predicted makespan. Throws hpf::Error for an invalid map or root.
HierarchicalPlan plan_hierarchical(const ClusterMap& map, int root, std::size_t m,
                                   std::span<const InterHeuristic> heuristics = {});

} // namespace hpf
