// bench_single_copy: what Open MPI's shared-memory transport costs for a large message with and
// without its single-copy mechanism. scripts/env.sh sets btl_vader_single_copy_mechanism=none for
// every test and benchmark, so every MPI peer (pdgemr2d, Tpetra, MPI_Alltoallw, ...) and hpfrt's own
// MPI path copy a large message twice (into vader's fragments and out of them); CMA
// (process_vm_readv) would copy it once. This measures which is faster here: run it once per setting
// (single_copy.sh does) and compare.
//
// Each repeat, between barriers, both ranks of a pair exchange `bytes` with MPI_Sendrecv (rank 2k with
// 2k + 1), and separately each rank memcpy's `bytes` at once (the physical limit of moving them); a
// repeat's time is the slowest rank's. The CSV gets, per size, the median of --repeats repeats and its
// ratio to the memcpy's median:
//   mechanism,ranks,bytes,method,median_s,vs_memcpy
//
//   OMPI_MCA_btl_vader_single_copy_mechanism=cma mpirun -np 2 bench_single_copy --mechanism cma
//       [--bytes 65536,1048576,...] [--repeats R] [--csv file]
#include "../common/bench_common.hpp"

#include <hpf/core/mpi.hpp>

#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  try {
    int ranks = 0;
    HPF_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &ranks));
    std::vector<std::size_t> sizes{std::size_t{64} << 10, std::size_t{1} << 20, std::size_t{8} << 20,
                                   std::size_t{64} << 20};
    int repeats = 21;
    std::string csv = "-";
    std::string mechanism;
    hpf::bench::for_each_option(argc, argv, "--mechanism NAME [--bytes a,b,...] [--repeats R] [--csv file]",
                                [&](std::string_view k, std::string_view v) {
                                  if (k == "--bytes")
                                    sizes = hpf::bench::parse_list<std::size_t>(v, "--bytes");
                                  else if (k == "--repeats")
                                    repeats = hpf::bench::parse_number<int>(v, "--repeats");
                                  else if (k == "--csv")
                                    csv = v;
                                  else if (k == "--mechanism")
                                    mechanism = v;
                                  else
                                    return false;
                                  return true;
                                });
    hpf::detail::require(!mechanism.empty(),
                         "--mechanism: expected the setting's name (none, cma), got nothing");
    hpf::detail::require(repeats >= 9, "--repeats: medians need >= 9 repeats, got ", repeats);
    hpf::detail::require(ranks % 2 == 0, "bench_single_copy: expected an even number of ranks, got ", ranks);
    hpf::bench::CsvWriter out;
    if (me == 0) out = hpf::bench::CsvWriter(csv, "mechanism,ranks,bytes,method,median_s,vs_memcpy");
    const int peer = me ^ 1;
    for (const std::size_t bytes : sizes) {
      hpf::detail::require(bytes >= 1 && bytes <= static_cast<std::size_t>(INT32_MAX),
                           "--bytes: expected 1..", INT32_MAX, ", got ", bytes);
      const hpf::bench::LargeBuffer send(bytes, static_cast<unsigned char>(me + 1));
      const hpf::bench::LargeBuffer recv(bytes, 0);
      const auto exchange = [&] {
        HPF_MPI_CHECK(MPI_Sendrecv(send.data(), static_cast<int>(bytes), MPI_BYTE, peer, 0, recv.data(),
                                   static_cast<int>(bytes), MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
      };
      const auto copy = [&] { std::memcpy(recv.data(), send.data(), bytes); };
      exchange(); // the first exchange maps the peer's segments; not timed
      hpf::detail::require(static_cast<unsigned char>(recv.data()[bytes - 1]) == peer + 1,
                           "bench_single_copy: the received bytes are wrong");
      std::vector<double> t_mpi;
      std::vector<double> t_copy;
      for (int r = 0; r < repeats; ++r) { // interleaved, so that both see the same machine
        t_mpi.push_back(hpf::bench::slowest_time(exchange));
        t_copy.push_back(hpf::bench::slowest_time(copy));
      }
      const double mpi = hpf::bench::median(t_mpi);
      const double limit = hpf::bench::median(t_copy);
      out.row("%s,%d,%zu,MPI_Sendrecv,%.9g,%.4f\n", mechanism.c_str(), ranks, bytes, mpi, mpi / limit);
      out.row("%s,%d,%zu,memcpy,%.9g,1.0000\n", mechanism.c_str(), ranks, bytes, limit);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what()); // hpf::Error names the rank
    status = 1;
  }
  if (status != 0) MPI_Abort(MPI_COMM_WORLD, status);
  MPI_Finalize();
  return 0;
}
