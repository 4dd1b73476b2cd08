#include <hpf/core/error.hpp>
#include <hpf/irregular/com.hpp>

#include <climits>
#include <numeric>

namespace hpf {

namespace {
struct WireEntry { // what travels in the concatenate: fixed size, no padding surprises
  std::int64_t dst;
  std::int64_t len;
};
static_assert(sizeof(WireEntry) == 16);
} // namespace

CommMatrix assemble_com(const Comm& comm, std::span<const SendEntry> my_sends) {
  detail::require(!comm.is_null(), "assemble_com: communicator is null");
  const int n = comm.size();
  detail::require(my_sends.size() <= static_cast<std::size_t>(INT_MAX / 16), "assemble_com: send list of ",
                  my_sends.size(), " entries is too long; expected at most ", INT_MAX / 16);
  const int mine = static_cast<int>(my_sends.size());
  std::vector<int> counts(static_cast<std::size_t>(n), 0);
  HPF_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm.get()));
  std::vector<int> bytes(static_cast<std::size_t>(n));
  std::vector<int> displs(static_cast<std::size_t>(n));
  long long total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    bytes[r] = counts[r] * 16;
    total += static_cast<long long>(counts[r]) * 16;
    detail::require(total <= INT_MAX, "assemble_com: the concatenated send lists hold more than ", INT_MAX,
                    " bytes; expected fewer (split the exchange)");
    displs[r] = static_cast<int>(total) - bytes[r];
  }
  std::vector<WireEntry> out(my_sends.size());
  for (std::size_t i = 0; i < my_sends.size(); ++i) out[i] = {my_sends[i].dst, my_sends[i].len};
  std::vector<WireEntry> all(static_cast<std::size_t>(total / 16));
  HPF_MPI_CHECK(MPI_Allgatherv(out.data(), mine * 16, MPI_BYTE, all.data(), bytes.data(), displs.data(),
                               MPI_BYTE, comm.get()));
  // Every rank checks every list: all ranks see the same data, so all throw the same error.
  CommMatrix com(n, n);
  for (int r = 0; r < n; ++r) {
    const std::size_t base = static_cast<std::size_t>(displs[static_cast<std::size_t>(r)] / 16);
    for (int i = 0; i < counts[static_cast<std::size_t>(r)]; ++i) {
      const WireEntry& e = all[base + static_cast<std::size_t>(i)];
      detail::require(e.dst >= 0 && e.dst < n, "assemble_com: send list of rank ", r, ", entry ", i,
                      ": dst must be a rank in [0, ", n, "), got ", e.dst);
      detail::require(e.len >= 0, "assemble_com: send list of rank ", r, ", entry ", i,
                      ": len must be >= 0, got ", e.len);
      com.add(r, static_cast<int>(e.dst), e.len);
    }
  }
  return com;
}

std::vector<Message> receive_list(const CommMatrix& com, int rank) {
  detail::require(rank >= 0 && rank < com.num_receivers(), "receive_list: rank must be in [0, ",
                  com.num_receivers(), "), got ", rank);
  std::vector<Message> out;
  for (const Message& m : com.entries())
    if (m.dst == rank) out.push_back(m); // entries are sorted by (src, dst): ascending sources
  return out;
}

std::vector<Message> send_list(const CommMatrix& com, int rank) {
  detail::require(rank >= 0 && rank < com.num_senders(), "send_list: rank must be in [0, ", com.num_senders(),
                  "), got ", rank);
  std::vector<Message> out;
  for (const Message& m : com.entries())
    if (m.src == rank) out.push_back(m);
  return out;
}

ExchangePlan all_to_many_exchange_plan(const Schedule& s, int my_rank, std::size_t bytes_per_unit) {
  detail::require(s.num_senders() == s.num_receivers(),
                  "all_to_many_exchange_plan: the schedule must be n x n, got ", s.num_senders(), " x ",
                  s.num_receivers());
  std::vector<int> ranks(static_cast<std::size_t>(s.num_senders()));
  std::iota(ranks.begin(), ranks.end(), 0);
  return exchange_plan(s, my_rank, my_rank, ranks, ranks, bytes_per_unit);
}

ExecMode paper_exec_mode(AllToManyAlgo a) noexcept {
  switch (a) {
  case AllToManyAlgo::AC:
  case AllToManyAlgo::RS_N:
    return ExecMode::AllAtOnce;
  case AllToManyAlgo::LP:
  case AllToManyAlgo::RS_NL:
  case AllToManyAlgo::Optimal:
    break;
  }
  return ExecMode::Handshake;
}

} // namespace hpf
