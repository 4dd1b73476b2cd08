// Inspector/executor for an index-array gather and scatter-add (Wang and Ranka, PARTI style): the plans are
// built once from the index lists and executed every iteration. Prints "ok" on rank 0 when both
// results match a serial reference; exits 1 otherwise.
#include <hpf/array/irregular.hpp>
#include <hpf/hpf.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  auto grid = hpf::ProcessGrid::world({hpf::comm_size(MPI_COMM_WORLD)});
  const int me = hpf::comm_rank(MPI_COMM_WORLD);
  hpf::Layout<1> L({1000}, {hpf::Cyclic(4)}, grid);
  hpf::DistArray<double, 1> x("x", L);

  // This rank's global indices: any order, duplicates allowed (an edge list, a sparse matrix, ...).
  std::vector<hpf::index_t> idx;
  for (int i = 0; i < 50; ++i) idx.push_back((37 * i + 101 * me) % 1000);

  hpf::IrregularOptions opt;
  opt.schedule.algo = hpf::AllToManyAlgo::RS_NL;  // ac | lp | rs_n | rs_nl | optimal
  opt.schedule.routing = hpf::RoutingKind::Full;  // RS_NL's routing model
  hpf::GatherPlan<double, 1> gather(x, idx, opt); // inspector: collective, once
  hpf::ScatterPlan<double, 1> scatter(x, idx, opt);

  bool ok = true;
  for (int iter = 0; iter < 3; ++iter) {
    hpf::forall(x, [iter](const hpf::Index<1>& g, double& v) { v = double(g[0]) + iter; });
    std::vector<double> y = gather.execute(x); // executor: y[i] = x(idx[i])
    for (std::size_t i = 0; i < idx.size(); ++i) ok = ok && y[i] == double(idx[i]) + iter;
    scatter.execute(x, std::span<const double>(y)); // x(idx[i]) += y[i], every rank's indices
  }
  // The last iteration: x(g) = g + 2 + (number of requests of g over all ranks) * (g + 2).
  std::vector<double> want(1000);
  for (int g = 0; g < 1000; ++g) want[std::size_t(g)] = g + 2.0;
  for (int r = 0; r < hpf::comm_size(MPI_COMM_WORLD); ++r)
    for (int i = 0; i < 50; ++i)
      want[std::size_t((37 * i + 101 * r) % 1000)] += (37 * i + 101 * r) % 1000 + 2.0;
  std::vector<double> all = x.gather(0);
  if (me == 0) ok = ok && all == want;
  int good = ok ? 1 : 0, all_good = 0;
  MPI_Allreduce(&good, &all_good, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (me == 0)
    std::printf("%s: %zu indices per rank, %d phases (%s), executor %s\n", all_good ? "ok" : "WRONG",
                idx.size(), gather.schedule().num_steps(), hpf::to_string(opt.schedule.algo).c_str(),
                hpf::to_string(gather.mode()).c_str());
  return all_good ? 0 : 1;
}
