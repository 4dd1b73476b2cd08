// RedistributionBatch: the merged messages of k plans and their one Exchange (redist/batch.hpp).
#include <hpf/redist/batch.hpp>

#include <hpf/exec/model.hpp>
#include <hpf/redist/plan_cache.hpp>

#include <algorithm>
#include <map>

namespace hpf {

namespace {
constexpr const char* execute_what = "RedistributionBatch::execute";

std::size_t round_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }

/// Array m's parts of the merged messages `which` (whose buffers are `bufs`): their message indices
/// in its plan into `idx`, their addresses into `out` (both emptied first).
template <class Parts, class Byte>
void parts_of(std::size_t m, const Parts& parts, std::span<const std::size_t> which,
              std::span<Byte* const> bufs, std::vector<std::size_t>& idx, std::vector<Byte*>& out) {
  idx.clear();
  out.clear();
  for (std::size_t j = 0; j < which.size(); ++j)
    for (const auto& p : parts[which[j]])
      if (p.member == m) {
        idx.push_back(p.msg);
        out.push_back(bufs[j] + p.offset);
      }
}

/// Whether two communicators are one parent (the same group in the same order).
bool same_parent(const Comm& a, const Comm& b) {
  int cmp = MPI_UNEQUAL;
  HPF_MPI_CHECK(MPI_Comm_compare(a.get(), b.get(), &cmp));
  return cmp == MPI_IDENT || cmp == MPI_CONGRUENT;
}
} // namespace

RedistributionBatch::RedistributionBatch(int tag) : m_tag(tag) {
  detail::require(tags::redist_batch.contains(tag), "RedistributionBatch: tag must be in [",
                  tags::redist_batch.base, ", ", tags::redist_batch.base + tags::redist_batch.width,
                  "), got ", tag);
}

void RedistributionBatch::bind(const Comm& comm) {
  detail::require(!pending(), "RedistributionBatch::bind: a post() is pending; expected wait() first");
  if (comm.get() == m_comm.get()) return;
  m_exchange.reset(); // held the old communicator
  m_comm = comm;
}

void RedistributionBatch::add_member(std::unique_ptr<detail::BatchMember> m) {
  detail::require(!pending(), "RedistributionBatch::add: a post() is pending; expected wait() first");
  const std::size_t i = m_members.size();
  // From the plans alone (MPI_Comm_compare is local): every rank refuses the same array.
  detail::require(same_parent(m->source_comm(), m->target_comm()), "RedistributionBatch::add: arrays[", i,
                  "]: its source grid (", m->source_comm().size(), " ranks in the parent) and target grid (",
                  m->target_comm().size(),
                  ") are built on different parent communicators; expected one parent");
  if (i > 0)
    detail::require(same_parent(m->source_comm(), m_members.front()->source_comm()),
                    "RedistributionBatch::add: arrays[", i,
                    "]'s grids are built on a parent communicator of ", m->source_comm().size(),
                    " ranks other than arrays[0]'s (", m_members.front()->source_comm().size(),
                    " ranks); expected every array's grids on one parent communicator");
  m_members.push_back(std::move(m));
  m_exchange.reset();
  m_planned = false;
}

const ExchangePlan& RedistributionBatch::exchange_plan() const {
  detail::require(m_planned,
                  "RedistributionBatch::exchange_plan: not planned yet; expected prepare() or post() first");
  return m_plan;
}

void RedistributionBatch::plan_messages() {
  // Every array's messages, grouped by peer (array order kept within a peer: a stable sort), then
  // each group laid out as one message, part after part, each aligned for its element type.
  struct Item {
    int peer;
    std::size_t member;
    std::size_t msg;
    std::size_t bytes;
  };
  const auto merge = [&](bool recv, std::vector<Transfer>& out, std::vector<std::vector<Part>>& parts) {
    std::vector<Item> items;
    for (std::size_t m = 0; m < m_members.size(); ++m) {
      const ExchangePlan xp = m_members[m]->exchange_plan();
      const std::vector<Transfer>& list = recv ? xp.recvs : xp.sends;
      for (std::size_t i = 0; i < list.size(); ++i) items.push_back({list[i].peer, m, i, list[i].bytes});
    }
    std::stable_sort(items.begin(), items.end(),
                     [](const Item& a, const Item& b) { return a.peer < b.peer; });
    out.clear();
    parts.clear();
    for (const Item& it : items) {
      if (out.empty() || out.back().peer != it.peer) {
        out.push_back({it.peer, 0, 0});
        parts.emplace_back();
      }
      const std::size_t offset = round_up(out.back().bytes, m_members[it.member]->elem_align());
      parts.back().push_back({it.member, it.msg, offset});
      out.back().bytes = offset + it.bytes;
    }
  };
  m_plan = {};
  merge(false, m_plan.sends, m_send_parts);
  merge(true, m_plan.recvs, m_recv_parts);

  bool all_at_once = true;
  bool all_alltoallv = !m_members.empty();
  for (const auto& m : m_members) {
    all_at_once = all_at_once && m->exec_mode() == ExecMode::AllAtOnce;
    all_alltoallv = all_alltoallv && m->exec_mode() == ExecMode::Alltoallv;
  }
  m_steps = 1;
  if (all_alltoallv || all_at_once) {
    m_mode = all_alltoallv ? ExecMode::Alltoallv : ExecMode::AllAtOnce;
  } else {
    // The union of the k communication grids, in bytes between parent ranks, scheduled as Auto
    // schedules one plan's grid (see the header comment); every rank computes the same schedule.
    const detail::BatchMember& first = *m_members.front();
    const int ranks = comm().size();
    CommMatrix bytes(ranks, ranks);
    for (const auto& m : m_members) m->add_pairs(bytes);
    const MachineModel fallback = MachineModel::fallback();
    ScheduleOptions so;
    so.alpha = first.options().alpha.value_or(fallback.alpha);
    so.beta = first.options().beta.value_or(fallback.beta); // per byte: the union counts bytes
    const AutoChoice c = auto_choice(bytes, so);
    const double ns = c.schedule.num_steps();
    const double tc = static_cast<double>(c.schedule.total_cost());
    m_mode = so.alpha * ns > so.beta * tc ? ExecMode::AllAtOnce : ExecMode::StepSynchronous;
    m_steps = c.schedule.num_steps();
    const int me = comm().rank();
    const auto place = [&](const std::vector<std::pair<int, Message>>& mine, bool recv,
                           std::vector<Transfer>& out) {
      std::map<int, int> step_of;
      for (const auto& [step, msg] : mine)
        if (msg.len > 0) step_of[recv ? msg.src : msg.dst] = step;
      for (Transfer& t : out) {
        const auto it = step_of.find(t.peer);
        detail::require(it != step_of.end(), "RedistributionBatch: internal error: no step for the message ",
                        recv ? "from" : "to", " rank ", t.peer);
        t.step = it->second;
      }
    };
    place(c.schedule.sends_of(me), false, m_plan.sends);
    place(c.schedule.receives_of(me), true, m_plan.recvs);
    // The Exchange takes each direction sorted by step; the parts follow their message.
    const auto by_step = [](std::vector<Transfer>& out, std::vector<std::vector<Part>>& parts) {
      std::vector<std::size_t> order(out.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return out[a].step < out[b].step; });
      std::vector<Transfer> o2;
      std::vector<std::vector<Part>> p2;
      for (const std::size_t i : order) {
        o2.push_back(out[i]);
        p2.push_back(std::move(parts[i]));
      }
      out = std::move(o2);
      parts = std::move(p2);
    };
    by_step(m_plan.sends, m_send_parts);
    by_step(m_plan.recvs, m_recv_parts);
  }
  m_planned = true;
}

void RedistributionBatch::build_exchange() {
  Exchange ex(comm(), m_plan, m_mode, m_tag);
  ex.reserve(); // a failure to allocate comes here, before any message (post() agrees on it)
  m_exchange.emplace(std::move(ex));
}

void RedistributionBatch::prepare() {
  if (m_members.empty()) return;
  if (!m_planned) plan_messages();
  if (!m_exchange) build_exchange();
}

void RedistributionBatch::check(std::span<const BatchBlocks> blocks, std::string problem) const {
  if (problem.empty() && blocks.size() != m_members.size())
    problem = detail::concat(execute_what, ": ", blocks.size(), " arrays given; expected the batch's ",
                             m_members.size());
  for (std::size_t i = 0; problem.empty() && i < blocks.size(); ++i)
    if (blocks[i].elem_bytes != m_members[i]->elem_bytes())
      problem =
          detail::concat(execute_what, ": arrays[", i, "] has elements of ", blocks[i].elem_bytes,
                         " bytes; expected its plan's element size, ", m_members[i]->elem_bytes(), " bytes");
  // One word travels: the hash of k and of every array's layouts, options and element size.
  detail::WordHash h;
  h.add(static_cast<std::int64_t>(m_members.size()));
  for (const auto& m : m_members) h.add(static_cast<std::int64_t>(m->digest()));
  const auto digest = static_cast<std::int64_t>(h.value());
  check_same_on_all_ranks(
      comm().get(), execute_what, std::span<const std::int64_t>(&digest, 1), {}, problem, [&] {
        AgreementWords w;
        w.named = true;
        w.add(static_cast<std::int64_t>(m_members.size()), [] { return std::string("k"); });
        for (std::size_t i = 0; i < m_members.size(); ++i)
          m_members[i]->add_words(w, "arrays[" + std::to_string(i) + "].");
        return NamedWords{std::move(w.words), std::move(w.names)};
      });
}

void RedistributionBatch::post_checked(std::span<const BatchBlocks> blocks,
                                       const std::string& array_problem) {
  if (m_members.empty()) { // k = 0: no communicator, nothing to move
    detail::require(array_problem.empty() && blocks.empty(), execute_what, ": ",
                    array_problem.empty()
                        ? detail::concat(blocks.size(), " arrays given; expected none (the batch is empty)")
                        : array_problem);
    return;
  }
  // This rank's failures (its arrays, a pending post, planning, buffers) ride in the agreement's one
  // allreduce: every rank throws the same error, before any message.
  std::string problem = array_problem;
  if (problem.empty() && pending())
    problem = detail::concat(execute_what, ": the previous post() has not been completed by wait()");
  if (problem.empty()) {
    try {
      prepare();
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  check(blocks, problem);

  m_now.assign(blocks.begin(), blocks.end());
  m_kept_done.assign(m_members.size(), 0);
  Exchange& ex = *m_exchange;
  // The callbacks capture `this` (two pointers at most: no allocation), set at every post since a
  // batch may have moved in between.
  if (m_mode == ExecMode::AllAtOnce)
    ex.set_batch(
        [this](std::span<const std::size_t> s, std::span<std::byte* const> b) { pack_many(s, b); },
        [this](std::span<const std::size_t> r, std::span<const std::byte* const> b) { unpack_many(r, b); });
  const bool after_sends = Exchange::calls_after_sends(m_mode);
  if (after_sends)
    ex.set_after_sends([this] {
      // The kept parts that neither the sends' nor the receives' one pass takes, while the first
      // messages travel.
      for (std::size_t i = 0; i < m_members.size(); ++i) {
        const bool fused =
            m_mode == ExecMode::AllAtOnce && (m_members[i]->fuses_sends() || m_members[i]->kept_with_recvs());
        if (!fused) copy_kept(i);
      }
    });
  PackFn pack = [this](std::size_t j, std::byte* buf) {
    for (const Part& p : m_send_parts[j])
      m_members[p.member]->pack(p.msg, m_now[p.member].src, buf + p.offset);
  };
  UnpackFn unpack = [this](std::size_t j, const std::byte* buf) {
    for (const Part& p : m_recv_parts[j])
      m_members[p.member]->unpack(p.msg, buf + p.offset, m_now[p.member].dst);
  };
  ex.post(std::move(pack), std::move(unpack));
  if (!after_sends)
    for (std::size_t i = 0; i < m_members.size(); ++i) copy_kept(i);
}

void RedistributionBatch::wait() {
  if (m_members.empty()) return; // k = 0: post() moved nothing
  detail::require(pending(), "RedistributionBatch::wait: nothing was posted");
  m_exchange->wait();
  for (std::size_t i = 0; i < m_members.size(); ++i) copy_kept(i);
}

void RedistributionBatch::copy_kept(std::size_t i) {
  if (m_kept_done[i] != 0) return;
  m_members[i]->copy_local(m_now[i].src, m_now[i].dst);
  m_kept_done[i] = 1;
}

void RedistributionBatch::pack_many(std::span<const std::size_t> sends, std::span<std::byte* const> bufs) {
  // Array by array, its parts of every merged send in one call of its plan's pack_many (one pass over
  // its block where the plan fuses), with its kept part when the plan fuses it with the sends.
  for (std::size_t m = 0; m < m_members.size(); ++m) {
    parts_of(m, m_send_parts, sends, bufs, m_idx, m_bufs);
    const bool kept = m_members[m]->fuses_sends() && m_kept_done[m] == 0;
    if (m_idx.empty() && !kept) continue;
    m_members[m]->pack_many(m_idx, m_bufs, m_now[m].src, kept ? m_now[m].dst : nullptr);
    if (kept) m_kept_done[m] = 1;
  }
}

void RedistributionBatch::unpack_many(std::span<const std::size_t> recvs,
                                      std::span<const std::byte* const> bufs) {
  for (std::size_t m = 0; m < m_members.size(); ++m) {
    parts_of(m, m_recv_parts, recvs, bufs, m_idx, m_cbufs);
    const bool kept = m_members[m]->kept_with_recvs() && m_kept_done[m] == 0;
    if (m_idx.empty() && !kept) continue;
    m_members[m]->unpack_many(m_idx, m_cbufs, m_now[m].dst, kept ? m_now[m].src : nullptr);
    if (kept) m_kept_done[m] = 1;
  }
}

namespace detail {
namespace {
struct CachedBatch {
  std::vector<BatchKey> key;
  std::unique_ptr<RedistributionBatch> batch;
};
constexpr std::size_t batch_cache_capacity = 8;
std::vector<CachedBatch>& batch_cache() {
  static std::vector<CachedBatch> cache;
  static const bool registered = [] {
    // Cleared with the plan cache (hpf::Environment does it before MPI_Finalize): a batch holds
    // communicators and persistent requests. It counts no plans of its own.
    register_plan_cache_clearer([] { batch_cache().clear(); }, [] { return std::size_t{0}; });
    return true;
  }();
  (void)registered;
  return cache;
}
} // namespace

RedistributionBatch& cached_batch(std::span<const BatchKey> key,
                                  const std::function<void(RedistributionBatch&)>& fill) {
  auto& cache = batch_cache();
  for (auto it = cache.begin(); it != cache.end(); ++it)
    if (std::equal(key.begin(), key.end(), it->key.begin(), it->key.end()) && !it->batch->pending()) {
      std::rotate(cache.begin(), it, it + 1); // most recently used first
      return *cache.front().batch;
    }
  auto batch = std::make_unique<RedistributionBatch>();
  fill(*batch);
  cache.insert(cache.begin(), CachedBatch{std::vector<BatchKey>(key.begin(), key.end()), std::move(batch)});
  if (cache.size() > batch_cache_capacity) cache.pop_back();
  return *cache.front().batch;
}
} // namespace detail

} // namespace hpf
