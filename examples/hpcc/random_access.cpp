// HPC Challenge RandomAccess on hpfrt: T(a mod 2^m) ^= a for 4 * 2^m values a of HPCC's random
// stream, the table of 2^m words BLOCK-distributed. Each process generates the part of the stream
// that starts at 4 times its first table index and, as HPCC's rules allow, looks at most 1024 values
// ahead: each batch of 1024 is one hpf::scatter_combine (docs/irregular.md), with no schedule to
// build. Prints HPCC's metric, updates / time in GUP/s, and HPCC's check: the same updates again
// restore T(i) = i except in at most 1 % of the entries.
//   mpirun -n 2 ./hpcc_random_access [m, default 20]
#include <hpf/hpf.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <span>
#include <vector>

using u64 = std::uint64_t;

/// The stream: a_{i+1} = a_i x modulo HPCC's primitive polynomial x^64 + x^2 + x + 1 over GF(2),
/// a_0 = 1, whose period is HPCC's PERIOD.
constexpr u64 next(u64 a) { return (a << 1) ^ (a >> 63 != 0 ? 7 : 0); }

/// a_n = x^n by square and multiply: squaring spreads bit j to x^(2j), read from a table.
u64 stream_at(std::int64_t n) {
  constexpr std::int64_t period = 1317624576693539401LL;
  n %= period;
  if (n < 0) n += period;
  u64 square_of_bit[64];
  square_of_bit[0] = 1;
  for (int j = 1; j < 64; ++j) square_of_bit[j] = next(next(square_of_bit[j - 1]));
  u64 a = 1;
  for (int bit = 62; bit >= 0; --bit) {
    u64 sq = 0;
    for (int j = 0; j < 64; ++j)
      if ((a >> j) & 1) sq ^= square_of_bit[j];
    a = (n >> bit) & 1 ? next(sq) : sq;
  }
  return a;
}

int main(int argc, char** argv) {
  hpf::Environment env(argc, argv);
  try {
    const int m = argc > 1 ? std::atoi(argv[1]) : 20;
    if (m < 0 || m > 40) { // every rank reads the same arguments, so every rank stops here
      if (env.rank() == 0) std::fprintf(stderr, "hpcc_random_access: m must be in [0, 40], got %d\n", m);
      return 1;
    }
    const hpf::index_t size = hpf::index_t{1} << m;
    hpf::DistArray<u64, 1> T("T",
                             hpf::Layout<1>({size}, {hpf::Block()}, hpf::ProcessGrid::world({env.size()})));
    hpf::forall(T, [](const hpf::Index<1>& g, u64& t) { t = static_cast<u64>(g[0]); });
    const std::int64_t first = T.local_size() > 0 ? T.global_index(0, 0) : 0;
    const std::int64_t mine = 4 * T.local_size();
    std::int64_t most = mine; // every process makes as many calls as the busiest
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);

    const auto update = [&] {
      std::vector<hpf::index_t> idx(1024);
      std::vector<u64> val(1024);
      u64 a = stream_at(4 * first);
      for (std::int64_t done = 0; done < most; done += 1024) {
        const auto k = static_cast<std::size_t>(std::clamp<std::int64_t>(mine - done, 0, 1024));
        for (std::size_t i = 0; i < k; ++i) {
          a = next(a);
          idx[i] = static_cast<hpf::index_t>(a & static_cast<u64>(size - 1));
          val[i] = a;
        }
        hpf::scatter_combine(T, std::span<const hpf::index_t>(idx.data(), k),
                             std::span<const u64>(val.data(), k), std::bit_xor<u64>{});
      }
    };
    MPI_Barrier(MPI_COMM_WORLD);
    double t = -MPI_Wtime();
    update();
    t += MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    // HPCC's check (verification): XOR twice restores the table; count the entries that differ.
    update();
    hpf::forall(T, [](const hpf::Index<1>& g, u64& x) { x = x != static_cast<u64>(g[0]); });
    const u64 errors = hpf::sum(T);
    const bool ok = static_cast<double>(errors) <= 0.01 * static_cast<double>(size);
    if (env.rank() == 0)
      std::printf("hpcc random_access: table 2^%d words, processes %d, GUP/s %.5f, errors %llu, check %s\n",
                  m, env.size(), 4.0 * static_cast<double>(size) / t / 1e9,
                  static_cast<unsigned long long>(errors), ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
  } catch (const hpf::Error& e) { // a bad size names itself: extent, block size, grid
    std::fprintf(stderr, "hpcc_random_access: %s\n", e.what());
    return 1;
  }
}
