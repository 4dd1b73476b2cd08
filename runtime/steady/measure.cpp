// The measured steady-state platform (see include/hpf/steady/measure.hpp).
#include <hpf/adaptive/hierarchical.hpp>
#include <hpf/core/error.hpp>
#include <hpf/core/stats.hpp>
#include <hpf/exec/model.hpp>
#include <hpf/steady/measure.hpp>

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace hpf::steady {

namespace {

std::size_t idx(int i) { return static_cast<std::size_t>(i); }

void check_options(const MeasureOptions& o) {
  detail::require(o.unit_bytes >= 1, "measure_platform: unit_bytes must be >= 1, got ", o.unit_bytes);
  detail::require(o.repeats >= 1, "measure_platform: repeats must be >= 1, got ", o.repeats);
  detail::require(o.pairwise_max >= 1, "measure_platform: pairwise_max must be >= 1, got ", o.pairwise_max);
  detail::require(std::isfinite(o.rho) && o.rho >= 0, "measure_platform: rho must be >= 0, got ", o.rho);
  detail::require(std::isfinite(o.resolution) && o.resolution >= 1,
                  "measure_platform: resolution must be >= 1, got ", o.resolution);
  detail::require(o.digits >= 1 && o.digits <= 6, "measure_platform: digits must be in [1, 6], got ",
                  o.digits);
  detail::require(o.batch_units >= 0, "measure_platform: batch_units must be >= 0, got ", o.batch_units);
}

// x seconds as a positive integer number of `unit`s, `digits` significant digits.
Rational in_units(double x, double unit, int digits) {
  const double q = std::max(1.0, round_significant(x / unit, digits));
  return Rational(static_cast<long long>(std::llround(q)));
}

} // namespace

std::vector<std::pair<int, int>> measurement_pairs(int ranks, int pairwise_max) {
  detail::require(ranks >= 1, "measurement_pairs: ranks must be >= 1, got ", ranks);
  detail::require(pairwise_max >= 1, "measurement_pairs: pairwise_max must be >= 1, got ", pairwise_max);
  std::vector<std::pair<int, int>> out;
  if (ranks <= pairwise_max) {
    for (int a = 0; a < ranks; ++a)
      for (int b = a + 1; b < ranks; ++b) out.emplace_back(a, b);
    return out;
  }
  // The hops of a hypercube-like ring: every rank reaches every other in log2 P hops, so Lowekamp's
  // clustering sees each rank linked to ceil(log2 P) others at distances 1, 2, 4, ...
  for (int hop = 1; hop < ranks; hop *= 2)
    for (int i = 0; i < ranks; ++i) {
      const int j = (i + hop) % ranks;
      out.emplace_back(std::min(i, j), std::max(i, j));
    }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double round_significant(double x, int digits) {
  detail::require(std::isfinite(x) && x > 0, "round_significant: x must be finite and > 0, got ", x);
  detail::require(digits >= 1, "round_significant: digits must be >= 1, got ", digits);
  const double scale = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(x))));
  return std::round(x * scale) / scale;
}

MeasuredPlatform platform_from_costs(const MeasuredCosts& c, const MeasureOptions& opts) {
  check_options(opts);
  const int P = c.ranks;
  detail::require(P >= 1, "platform_from_costs: ranks must be >= 1, got ", P);
  detail::require(c.pairs.size() == c.seconds.size(), "platform_from_costs: ", c.pairs.size(), " pairs but ",
                  c.seconds.size(), " times");
  detail::require(c.task_seconds.size() == idx(P), "platform_from_costs: task_seconds has ",
                  c.task_seconds.size(), " entries, expected one per rank (", P, ")");
  double smallest = 0;
  auto note = [&](double x, const char* what) {
    detail::require(std::isfinite(x) && x >= 0, "platform_from_costs: ", what,
                    " must be finite and >= 0, got ", x);
    if (x > 0) smallest = smallest == 0 ? x : std::min(smallest, x);
  };
  std::vector<double> w(idx(P) * idx(P), 0.0);
  for (std::size_t i = 0; i < c.pairs.size(); ++i) {
    const auto [a, b] = c.pairs[i];
    detail::require(a >= 0 && b >= 0 && a < P && b < P && a != b, "platform_from_costs: pair (", a, ", ", b,
                    ") is not a pair of distinct ranks in [0, ", P, ")");
    note(c.seconds[i], "a unit message time");
    // A 0 time (a clock too coarse) would read as "no link" to Lowekamp: keep it a link.
    w[idx(a) * idx(P) + idx(b)] = w[idx(b) * idx(P) + idx(a)] = std::max(c.seconds[i], 1e-12);
  }
  for (double t : c.task_seconds) note(t, "an operator time");

  MeasuredPlatform out;
  out.measured_pairs = static_cast<int>(c.pairs.size());
  detail::require(std::isfinite(c.value_seconds) && c.value_seconds >= 0,
                  "measure_platform: value_seconds must be >= 0, got ", c.value_seconds);
  out.value_seconds = c.value_seconds;
  out.time_unit = (smallest > 0 ? smallest : 1e-6) / opts.resolution;
  const bool every_pair = c.pairs.size() == idx(P) * idx(P - 1) / 2;
  out.clusters.assign(idx(P), 0);
  if (!every_pair) {
    const auto cl = lowekamp_clusters(w, P, opts.rho);
    for (std::size_t k = 0; k < cl.size(); ++k)
      for (int r : cl[k]) out.clusters[idx(r)] = static_cast<int>(k);
  }
  // Cost of every pair: measured, or the median of the measured pairs between the two clusters.
  std::map<std::pair<int, int>, std::vector<double>> by_clusters;
  std::vector<double> inter;
  for (std::size_t i = 0; i < c.pairs.size(); ++i) {
    int x = out.clusters[idx(c.pairs[i].first)], y = out.clusters[idx(c.pairs[i].second)];
    if (x > y) std::swap(x, y);
    by_clusters[{x, y}].push_back(c.seconds[i]);
    if (x != y) inter.push_back(c.seconds[i]);
  }
  auto cost = [&](int a, int b) -> double {
    const double direct = w[idx(a) * idx(P) + idx(b)];
    if (every_pair) return direct;
    int x = out.clusters[idx(a)], y = out.clusters[idx(b)];
    if (x > y) std::swap(x, y);
    const auto it = by_clusters.find({x, y});
    if (it != by_clusters.end()) return median(it->second);
    return inter.empty() ? median(c.seconds) : median(inter);
  };
  // Node names "r<rank>", built once (GCC 12 at -O3 warns, -Wrestrict, a false positive of its bug
  // 105651, on `"r" + std::to_string(...)` inlined here).
  std::vector<std::string> name(idx(P));
  for (int r = 0; r < P; ++r) name[idx(r)].append("r").append(std::to_string(r));
  for (int r = 0; r < P; ++r) {
    const double t = c.task_seconds[idx(r)];
    out.platform.add_node(name[idx(r)],
                          t > 0 ? Rational(1) / in_units(t, out.time_unit, opts.digits) : Rational(1));
  }
  for (int a = 0; a < P; ++a)
    for (int b = 0; b < P; ++b)
      if (a != b)
        out.platform.add_edge(name[idx(a)], name[idx(b)], in_units(cost(a, b), out.time_unit, opts.digits));
  return out;
}

MeasuredPlatform measure_platform(const Comm& comm, const MeasureOptions& opts) {
  check_options(opts);
  const Comm c = Comm::duplicate(comm.get()); // the ping-pongs' tags stay off the caller's communicator
  const int P = c.size(), me = c.rank();
  MeasuredCosts costs;
  costs.ranks = P;
  costs.pairs = measurement_pairs(P, opts.pairwise_max);
  // Every rank walks the same list; ping_pong returns at once on the ranks outside the pair, and the
  // time is meaningful on the pair's first rank, which reports it (0 elsewhere: summed on rank 0).
  std::vector<double> mine(costs.pairs.size(), 0.0);
  const PingPongOptions pp{opts.repeats, 0, false};
  for (std::size_t i = 0; i < costs.pairs.size(); ++i) {
    const auto [a, b] = costs.pairs[i];
    const PingPongResult r = ping_pong(c, a, b, opts.unit_bytes, pp);
    if (me == a) mine[i] = r.rtt / 2;
  }
  // The marginal time of a value in a long message, from ranks 0 and 1 (pair (0, 1) is always
  // measured): every rank walks this call too. The long message has batch_units units, but at most
  // 1 MiB when a unit is smaller (at least 2 units), so large values do not ping-pong 64 of them.
  const std::size_t units =
      std::min<std::size_t>(static_cast<std::size_t>(opts.batch_units),
                            std::max<std::size_t>(2, (std::size_t{1} << 20) / opts.unit_bytes));
  if (P >= 2 && opts.batch_units > 1) {
    const PingPongResult r = ping_pong(c, 0, 1, opts.unit_bytes * units, pp);
    if (me == 0) {
      const auto one = std::find(costs.pairs.begin(), costs.pairs.end(), std::make_pair(0, 1));
      if (one != costs.pairs.end()) {
        const double unit = mine[static_cast<std::size_t>(one - costs.pairs.begin())];
        costs.value_seconds = std::max(0.0, (r.rtt / 2 - unit) / static_cast<double>(units - 1));
      }
    }
  }
  double task = 0;
  if (opts.compute) {
    // The operator is user code: an exception must not leave this rank outside the collectives
    // below, so it is reported through them (a negative time) and rank 0 fails everyone.
    try {
      std::vector<double> t;
      for (int r = 0; r < opts.repeats; ++r) {
        const double t0 = MPI_Wtime(); // the simulated clock under SMPI
        opts.compute();
        t.push_back(MPI_Wtime() - t0);
      }
      task = median(std::move(t));
    } catch (...) {
      task = -1;
    }
  }
  costs.seconds.assign(mine.size(), 0.0);
  costs.task_seconds.assign(idx(P), 0.0);
  if (!mine.empty())
    HPF_MPI_CHECK(MPI_Reduce(mine.data(), costs.seconds.data(), static_cast<int>(mine.size()), MPI_DOUBLE,
                             MPI_SUM, 0, c.get()));
  HPF_MPI_CHECK(MPI_Gather(&task, 1, MPI_DOUBLE, costs.task_seconds.data(), 1, MPI_DOUBLE, 0, c.get()));
  // Rank 0 decides; the others get its JSON, so every rank parses the same text.
  std::string text;
  int ok = 1;
  if (me == 0) {
    try {
      for (int r = 0; r < P; ++r)
        detail::require(costs.task_seconds[idx(r)] >= 0,
                        "the operator (MeasureOptions::compute) threw on rank ", r);
      text = platform_from_costs(costs, opts).to_json();
    } catch (const Error& e) {
      ok = 0;
      text = e.what();
    }
  }
  unsigned long long n = text.size();
  HPF_MPI_CHECK(MPI_Bcast(&ok, 1, MPI_INT, 0, c.get()));
  HPF_MPI_CHECK(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, c.get()));
  text.resize(n);
  HPF_MPI_CHECK(MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, c.get()));
  detail::require(ok == 1, "measure_platform: rank 0 could not build the platform: ", text);
  return MeasuredPlatform::from_json(text);
}

std::string MeasuredPlatform::to_json() const {
  nlohmann::json j;
  j["time_unit"] = time_unit;
  j["clusters"] = clusters;
  j["measured_pairs"] = measured_pairs;
  j["value_seconds"] = value_seconds;
  j["platform"] = nlohmann::json::parse(platform.to_json());
  return j.dump();
}

MeasuredPlatform MeasuredPlatform::from_json(std::string_view text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("measured platform JSON: not JSON: ") + e.what());
  }
  detail::require(j.is_object() && j.contains("time_unit") && j["time_unit"].is_number() &&
                      j.contains("platform") && j["platform"].is_object(),
                  "measured platform JSON: needs a number 'time_unit' and an object 'platform'");
  MeasuredPlatform m;
  m.time_unit = j["time_unit"].get<double>();
  detail::require(std::isfinite(m.time_unit) && m.time_unit > 0,
                  "measured platform JSON: 'time_unit' must be > 0, got ", m.time_unit);
  m.platform = Platform::from_json(j["platform"].dump());
  if (j.contains("measured_pairs")) m.measured_pairs = j["measured_pairs"].get<int>();
  if (j.contains("value_seconds")) m.value_seconds = j["value_seconds"].get<double>();
  detail::require(std::isfinite(m.value_seconds) && m.value_seconds >= 0,
                  "measured platform JSON: 'value_seconds' must be >= 0, got ", m.value_seconds);
  if (j.contains("clusters")) m.clusters = j["clusters"].get<std::vector<int>>();
  detail::require(m.clusters.empty() || static_cast<int>(m.clusters.size()) == m.platform.node_count(),
                  "measured platform JSON: 'clusters' has ", m.clusters.size(), " entries for ",
                  m.platform.node_count(), " nodes");
  return m;
}

void MeasuredPlatform::save(const std::string& path) const {
  std::ofstream f(path);
  f << to_json() << "\n";
  detail::require(static_cast<bool>(f), "MeasuredPlatform::save: cannot write '", path, "'");
}

MeasuredPlatform MeasuredPlatform::load(const std::string& path) {
  std::ifstream f(path);
  detail::require(static_cast<bool>(f), "MeasuredPlatform::load: cannot read '", path, "'");
  std::ostringstream s;
  s << f.rdbuf();
  return from_json(s.str());
}

} // namespace hpf::steady
