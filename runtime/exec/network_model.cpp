#include <hpf/exec/network_model.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

namespace hpf {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Median half round trip of `bytes` between ranks 0 and 1 (meaningful on rank 0).
double half_round_trip(const Comm& comm, std::vector<char>& buf, int reps) {
  const int me = comm.rank();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const double a = MPI_Wtime();
    if (me == 0) {
      HPF_MPI_CHECK(MPI_Send(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, 1, 77, comm.get()));
      HPF_MPI_CHECK(
          MPI_Recv(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, 1, 77, comm.get(), MPI_STATUS_IGNORE));
    } else if (me == 1) {
      HPF_MPI_CHECK(
          MPI_Recv(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, 0, 77, comm.get(), MPI_STATUS_IGNORE));
      HPF_MPI_CHECK(MPI_Send(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, 0, 77, comm.get()));
    }
    t.push_back((MPI_Wtime() - a) / 2);
  }
  return median(t);
}

} // namespace

NetworkModel measure_network(const Comm& comm) {
  static std::map<MPI_Comm, NetworkModel> cache;
  if (auto it = cache.find(comm.get()); it != cache.end()) return it->second;
  constexpr std::size_t big = std::size_t(1) << 20;
  double model[2] = {0, 0};
  if (comm.size() == 1) {
    std::vector<char> a(big, 1), b(big);
    std::vector<double> t;
    for (int i = 0; i < 5; ++i) {
      const double s = MPI_Wtime();
      std::memcpy(b.data(), a.data(), big);
      t.push_back(MPI_Wtime() - s);
    }
    model[1] = median(t) / static_cast<double>(big);
  } else {
    std::vector<char> none(0);
    std::vector<char> buf(big, 1);
    const double a = half_round_trip(comm, none, 51);
    const double b = half_round_trip(comm, buf, 9);
    model[0] = a;
    model[1] = std::max(b - a, 0.0) / static_cast<double>(big);
  }
  HPF_MPI_CHECK(MPI_Bcast(model, 2, MPI_DOUBLE, 0, comm.get()));
  const NetworkModel m{model[0], std::max(model[1], 1e-12)};
  cache.emplace(comm.get(), m);
  return m;
}

} // namespace hpf
