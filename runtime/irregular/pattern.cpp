// The element-type independent half of the inspector of GatherPlan / ScatterPlan.
#include <hpf/core/error.hpp>
#include <hpf/irregular/gather_scatter.hpp>

#include <algorithm>
#include <cstring>

namespace hpf::detail {

namespace {
/// Tag offset of the inspector's one exchange of requested offsets (the executor uses tag, tag + 1).
constexpr int inspector_tag_offset = 2;
} // namespace

std::shared_ptr<const IrregularPattern> build_irregular_pattern(const Comm& comm,
                                                                const std::vector<int>& owner_rank,
                                                                const std::vector<index_t>& offset,
                                                                const IrregularOptions& opt,
                                                                IrregularDirection dir) {
  require(opt.tag >= 0 && opt.tag + inspector_tag_offset < 32000, "IrregularOptions::tag must be in [0, ",
          32000 - inspector_tag_offset, "), got ", opt.tag);
  require(owner_rank.size() == offset.size(), "build_irregular_pattern: ", owner_rank.size(), " owners but ",
          offset.size(), " offsets");
  auto P = std::make_shared<IrregularPattern>();
  P->comm = comm;
  P->rank = comm.rank();
  P->size = comm.size();
  P->num_positions = owner_rank.size();
  P->mode = opt.mode.value_or(paper_exec_mode(opt.schedule.algo));
  P->tag = opt.tag;
  const auto n = static_cast<std::size_t>(P->size);
  P->requested.resize(n);
  P->fill.resize(n);
  P->served.resize(n);

  // Group by owner and deduplicate: sort (owner, offset, position) once, O(m log m).
  std::vector<std::size_t> order(owner_rank.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (owner_rank[a] != owner_rank[b]) return owner_rank[a] < owner_rank[b];
    if (offset[a] != offset[b]) return offset[a] < offset[b];
    return a < b;
  });
  for (std::size_t pos : order) {
    const auto o = static_cast<std::size_t>(owner_rank[pos]);
    auto& req = P->requested[o];
    if (req.empty() || req.back() != offset[pos]) req.push_back(offset[pos]);
    P->fill[o].emplace_back(pos, req.size() - 1);
  }
  for (auto& f : P->fill) std::sort(f.begin(), f.end());

  // COM from every rank's send list: one collective; this rank's column says who asks it for what.
  std::vector<SendEntry> sends;
  for (std::size_t o = 0; o < n; ++o)
    if (o != static_cast<std::size_t>(P->rank) && !P->requested[o].empty())
      sends.push_back({static_cast<int>(o), static_cast<index_t>(P->requested[o].size())});
  P->com = assemble_com(comm, sends);
  for (const Message& m : receive_list(P->com, P->rank))
    P->served[static_cast<std::size_t>(m.src)].resize(static_cast<std::size_t>(m.len));

  // The requested offsets travel to their owners once (S2: post everything, in send-list order).
  {
    const ExchangePlan xp = all_to_many_exchange_plan(schedule_ac(P->com), P->rank, sizeof(index_t));
    Exchange ex(comm, xp, ExecMode::AllAtOnce, opt.tag + inspector_tag_offset);
    ex.execute(
        [&](std::size_t i, std::byte* buf) {
          const auto& req = P->requested[static_cast<std::size_t>(xp.sends[i].peer)];
          std::memcpy(buf, req.data(), req.size() * sizeof(index_t));
        },
        [&](std::size_t i, const std::byte* buf) {
          auto& srv = P->served[static_cast<std::size_t>(xp.recvs[i].peer)];
          std::memcpy(srv.data(), buf, srv.size() * sizeof(index_t));
        });
  }

  // The data schedule, the same on every rank (pure scheduler, same COM, same seed).
  if (dir == IrregularDirection::Scatter) {
    P->schedule = schedule_all_to_many(P->com, opt.schedule);
  } else {
    CommMatrix transposed(P->size, P->size);
    for (const Message& m : P->com.entries()) transposed.add(m.dst, m.src, m.len);
    P->schedule = schedule_all_to_many(transposed, opt.schedule);
  }
  return P;
}

} // namespace hpf::detail
