// bench_redistribute_relabel: how many bytes a REDISTRIBUTE moves between random 2-D block-cyclic
// layouts of up to 1024 ranks with the target grid as given (both grids over ranks 0..n-1 in rank
// order, as grids made from a communicator are), with the target's ranks rearranged by a greedy
// pairwise-swap heuristic (COSTA's ranks reordering: start from the identity and apply the swap of two
// target positions that keeps the most extra bytes, until no swap keeps more), and with the exact
// arrangement of best_relabeling (redist/relabel.hpp), and how long each takes to compute. Pure: no
// MPI, the layouts are RelabelSide::plain. One CSV row per layout pair. Two families of pairs, half of
// the cases each: `independent` draws the target's distributions and grid shape independently of the
// source's; `regrid` keeps the source's distributions and draws another grid shape only (the move of
// an array to another arrangement of the same ranks).
//
//   bench_redistribute_relabel [--cases-per-size 8] [--max-ranks 1024] [--seed 1] [--csv out.csv]
#include "../common/bench_common.hpp"

#include <hpf/redist/relabel.hpp>
#include <hpf/schedule/assignment.hpp>

#include <chrono>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

using hpf::index_t;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The weight the assignment row_of keeps (row_of[j]: the row that takes column j).
index_t kept(const hpf::RelabelVolumes& V, const std::vector<int>& row_of) {
  index_t k = 0;
  for (int j = 0; j < V.cols; ++j) k += V.at(row_of[static_cast<std::size_t>(j)], j);
  return k;
}

/// COSTA's greedy: from the identity, the best swap of two columns' rows while one keeps more.
std::vector<int> greedy_swaps(const hpf::RelabelVolumes& V) {
  const int n = V.cols;
  std::vector<int> row_of(static_cast<std::size_t>(n));
  std::iota(row_of.begin(), row_of.end(), 0);
  while (true) {
    index_t best = 0;
    int ba = -1;
    int bb = -1;
    for (int a = 0; a < n; ++a) {
      const int ra = row_of[static_cast<std::size_t>(a)];
      const index_t keep_a = V.at(ra, a);
      for (int b = a + 1; b < n; ++b) {
        const int rb = row_of[static_cast<std::size_t>(b)];
        const index_t gain = V.at(ra, b) + V.at(rb, a) - keep_a - V.at(rb, b);
        if (gain > best) {
          best = gain;
          ba = a;
          bb = b;
        }
      }
    }
    if (ba < 0) return row_of;
    std::swap(row_of[static_cast<std::size_t>(ba)], row_of[static_cast<std::size_t>(bb)]);
  }
}

std::string shape_text(const std::vector<int>& s) {
  return std::to_string(s[0]) + "x" + std::to_string(s[1]);
}

/// CYCLIC(r) with r drawn from {1, 2, 3, 4, 8, 16, 32, 64, 100}, or BLOCK one time in four.
template <class Rng> std::pair<hpf::Distribution, std::string> random_dist(Rng& rng) {
  static const std::vector<index_t> blocks{1, 2, 3, 4, 8, 16, 32, 64, 100};
  if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) return {hpf::Block(), "BLOCK"};
  const index_t r = blocks[std::uniform_int_distribution<std::size_t>(0, blocks.size() - 1)(rng)];
  return {hpf::Cyclic(r), "CYCLIC(" + std::to_string(r) + ")"};
}

} // namespace

int main(int argc, char** argv) {
  try {
    int per_size = 8;
    int max_ranks = 1024;
    unsigned seed = 1;
    std::string csv_path;
    hpf::bench::for_each_option(argc, argv, "[--cases-per-size n] [--max-ranks n] [--seed s] [--csv file]",
                                [&](std::string_view k, std::string_view v) {
                                  if (k == "--cases-per-size")
                                    per_size = hpf::bench::parse_number<int>(v, "--cases-per-size");
                                  else if (k == "--max-ranks")
                                    max_ranks = hpf::bench::parse_number<int>(v, "--max-ranks");
                                  else if (k == "--seed")
                                    seed = hpf::bench::parse_number<unsigned>(v, "--seed");
                                  else if (k == "--csv")
                                    csv_path = v;
                                  else
                                    return false;
                                  return true;
                                });
    hpf::detail::require(per_size >= 1, "--cases-per-size: must be >= 1, got ", per_size);
    hpf::detail::require(max_ranks >= 4, "--max-ranks: must be >= 4, got ", max_ranks);
    hpf::bench::CsvWriter csv;
    if (!csv_path.empty())
      csv = hpf::bench::CsvWriter(
          csv_path,
          "case,family,ranks,src_grid,dst_grid,M,N,src_dists,dst_dists,total_bytes,moved_none,"
          "moved_greedy,moved_exact,greedy_positions_changed,volumes_s,greedy_s,exact_s",
          hpf::bench::CsvWriter::Mode::Truncate);
    std::mt19937 rng(seed);
    const std::vector<int> sizes{4, 12, 16, 36, 64, 100, 256, 360, 1024};
    int id = 0;
    for (const int n : sizes) {
      if (n > max_ranks) break;
      std::vector<int> divisors;
      for (int a = 1; a <= n; ++a)
        if (n % a == 0) divisors.push_back(a);
      const auto shape = [&] {
        const int a = divisors[std::uniform_int_distribution<std::size_t>(0, divisors.size() - 1)(rng)];
        return std::vector<int>{a, n / a};
      };
      std::vector<int> ranks(static_cast<std::size_t>(n));
      std::iota(ranks.begin(), ranks.end(), 0);
      for (int c = 0; c < per_size; ++c, ++id) {
        // Extents of a few thousand per dimension, multiples of nothing in particular.
        const std::vector<index_t> ext{std::uniform_int_distribution<index_t>(500, 20000)(rng),
                                       std::uniform_int_distribution<index_t>(500, 20000)(rng)};
        const std::vector<int> ps = shape();
        const std::vector<int> qs = shape();
        const bool regrid = c % 2 == 1;
        const auto [a0, a0s] = random_dist(rng);
        const auto [a1, a1s] = random_dist(rng);
        auto [b0, b0s] = random_dist(rng);
        auto [b1, b1s] = random_dist(rng);
        if (regrid) {
          std::tie(b0, b0s) = std::tie(a0, a0s);
          std::tie(b1, b1s) = std::tie(a1, a1s);
        }
        const char* family = regrid ? "regrid" : "independent";
        const hpf::RelabelSide src = hpf::RelabelSide::plain(ext, {a0, a1}, ps, ranks, n);
        const hpf::RelabelSide dst = hpf::RelabelSide::plain(ext, {b0, b1}, qs, ranks, n);
        auto t0 = std::chrono::steady_clock::now();
        const hpf::RelabelVolumes V = hpf::relabel_volumes(src, dst);
        const double volumes_s = seconds_since(t0);
        std::vector<int> identity(static_cast<std::size_t>(n));
        std::iota(identity.begin(), identity.end(), 0);
        t0 = std::chrono::steady_clock::now();
        const std::vector<int> greedy = greedy_swaps(V);
        const double greedy_s = seconds_since(t0);
        t0 = std::chrono::steady_clock::now();
        const hpf::Assignment exact = hpf::max_weight_assignment(n, V.v);
        const double exact_s = seconds_since(t0);
        int swaps = 0;
        for (int j = 0; j < n; ++j) swaps += greedy[static_cast<std::size_t>(j)] != j ? 1 : 0;
        const index_t none_kept = kept(V, identity);
        const index_t greedy_kept = kept(V, greedy);
        // The exact optimum keeps at least what any heuristic keeps, and best_relabeling agrees with it.
        hpf::detail::require(exact.weight >= greedy_kept && greedy_kept >= none_kept, "relabel report: case ",
                             id, ": exact keeps ", exact.weight, ", greedy ", greedy_kept, ", none ",
                             none_kept, "; expected exact >= greedy >= none");
        const hpf::Relabeling r = hpf::best_relabeling(src, dst, 8);
        hpf::detail::require(r.bytes_moved == (V.total - exact.weight) * 8 &&
                                 r.bytes_moved_given == (V.total - none_kept) * 8,
                             "relabel report: case ", id, ": best_relabeling disagrees with the assignment");
        const std::string sd = "(" + a0s + " " + a1s + ")";
        const std::string dd = "(" + b0s + " " + b1s + ")";
        std::printf(
            "%3d %-11s %4d ranks %9s -> %-9s %6lld x %-6lld %-22s -> %-22s moved: none %.3f greedy %.3f "
            "exact %.3f of %lld B  (%.3g s, %.3g s)\n",
            id, family, n, shape_text(ps).c_str(), shape_text(qs).c_str(), static_cast<long long>(ext[0]),
            static_cast<long long>(ext[1]), sd.c_str(), dd.c_str(),
            static_cast<double>(V.total - none_kept) / static_cast<double>(V.total),
            static_cast<double>(V.total - greedy_kept) / static_cast<double>(V.total),
            static_cast<double>(V.total - exact.weight) / static_cast<double>(V.total),
            static_cast<long long>(V.total * 8), greedy_s, exact_s);
        csv.row("%d,%s,%d,%s,%s,%lld,%lld,%s,%s,%lld,%lld,%lld,%lld,%d,%.6g,%.6g,%.6g\n", id, family, n,
                shape_text(ps).c_str(), shape_text(qs).c_str(), static_cast<long long>(ext[0]),
                static_cast<long long>(ext[1]), sd.c_str(), dd.c_str(), static_cast<long long>(V.total * 8),
                static_cast<long long>((V.total - none_kept) * 8),
                static_cast<long long>((V.total - greedy_kept) * 8),
                static_cast<long long>((V.total - exact.weight) * 8), swaps, volumes_s, greedy_s, exact_s);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_redistribute_relabel: %s\n", e.what());
    return 1;
  }
}
