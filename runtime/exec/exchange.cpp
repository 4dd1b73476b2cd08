// The executor of every plan (exec/exchange.hpp): persistent MPI requests over message buffers or
// in-place datatypes, driven step by step, all at once, as a pipeline, or by one MPI_Alltoallv.
#include <hpf/core/error.hpp>
#include <hpf/core/names.hpp>
#include <hpf/exec/exchange.hpp>

#include <algorithm>
#include <climits>
#include <new>

namespace hpf {

std::size_t ExchangePlan::send_bytes() const noexcept {
  std::size_t n = 0;
  for (const Transfer& t : sends) n += t.bytes;
  return n;
}

std::size_t ExchangePlan::recv_bytes() const noexcept {
  std::size_t n = 0;
  for (const Transfer& t : recvs) n += t.bytes;
  return n;
}

ExchangePlan exchange_plan(const Schedule& schedule, int my_sender, int my_receiver,
                           const std::vector<int>& sender_ranks, const std::vector<int>& receiver_ranks,
                           std::size_t bytes_per_unit) {
  detail::require(static_cast<int>(sender_ranks.size()) == schedule.num_senders(),
                  "exchange_plan: sender_ranks has ", sender_ranks.size(), " entries; expected ",
                  schedule.num_senders());
  detail::require(static_cast<int>(receiver_ranks.size()) == schedule.num_receivers(),
                  "exchange_plan: receiver_ranks has ", receiver_ranks.size(), " entries; expected ",
                  schedule.num_receivers());
  ExchangePlan plan;
  const auto& steps = schedule.steps();
  for (std::size_t k = 0; k < steps.size(); ++k) {
    for (const Message& m : steps[k].messages) {
      if (m.len == 0) continue;
      // A size_t product that must not wrap; counts past INT_MAX are split into several messages.
      std::size_t bytes = 0;
      detail::require(m.len > 0 &&
                          !__builtin_mul_overflow(static_cast<std::size_t>(m.len), bytes_per_unit, &bytes),
                      "exchange_plan: message of step ", k, " from sender ", m.src, " to receiver ", m.dst,
                      " has ", m.len, " units of ", bytes_per_unit,
                      " bytes; expected a positive length whose bytes fit in 64 bits");
      if (m.src == my_sender)
        plan.sends.push_back({receiver_ranks[static_cast<std::size_t>(m.dst)], bytes, static_cast<int>(k)});
      if (m.dst == my_receiver)
        plan.recvs.push_back({sender_ranks[static_cast<std::size_t>(m.src)], bytes, static_cast<int>(k)});
    }
  }
  return plan;
}

namespace {
constexpr NameTable<ExecMode, 5> exec_mode_names{{{{ExecMode::StepSynchronous, "step-synchronous"},
                                                   {ExecMode::AllAtOnce, "all-at-once"},
                                                   {ExecMode::Handshake, "handshake"},
                                                   {ExecMode::Alltoallv, "alltoallv"},
                                                   {ExecMode::Pipelined, "pipelined"}}}};

bool step_mode(ExecMode m) { return m == ExecMode::StepSynchronous || m == ExecMode::Handshake; }
} // namespace

std::string to_string(ExecMode m) { return std::string(exec_mode_names.name(m)); }

ExecMode parse_exec_mode(std::string_view name, std::string_view what) {
  return exec_mode_names.parse(name, what);
}

Exchange::Exchange(Comm comm, ExchangePlan plan, ExecMode mode, int tag)
    : m_comm(std::move(comm)), m_plan(std::move(plan)), m_mode(mode), m_tag(tag) {
  detail::require(!m_comm.is_null(), "Exchange: communicator is null");
  detail::require(tag >= 0 && tag < 32000, "Exchange: tag must be in [0, 32000), got ", tag);
  auto by_step = [](const Transfer& a, const Transfer& b) { return a.step < b.step; };
  detail::require(std::is_sorted(m_plan.sends.begin(), m_plan.sends.end(), by_step) &&
                      std::is_sorted(m_plan.recvs.begin(), m_plan.recvs.end(), by_step),
                  "Exchange: plan sends and receives must be sorted by step");
  const int size = m_comm.size();
  for (const auto* list : {&m_plan.sends, &m_plan.recvs})
    for (const Transfer& t : *list)
      detail::require(t.peer >= 0 && t.peer < size, "Exchange: peer ", t.peer,
                      " is outside the communicator of size ", size);
  for (const auto* list : {&m_plan.sends, &m_plan.recvs})
    for (const Transfer& t : *list) m_steps.push_back(t.step);
  std::sort(m_steps.begin(), m_steps.end());
  m_steps.erase(std::unique(m_steps.begin(), m_steps.end()), m_steps.end());
  if (step_mode(m_mode)) {
    // Every step of a partial permutation has at most one send and one receive per rank.
    for (const auto* list : {&m_plan.sends, &m_plan.recvs})
      for (std::size_t i = 1; i < list->size(); ++i)
        detail::require((*list)[i].step != (*list)[i - 1].step, "Exchange: two ",
                        list == &m_plan.sends ? "sends" : "receives", " in step ", (*list)[i].step,
                        "; a step-driven mode needs a partial permutation per step");
  }
  layout_side(false);
  layout_side(true);
}

// A transfer's MPI messages: one for an in-place datatype (at most INT_MAX bytes), else chunks of
// at most INT_MAX bytes of its buffer.
void Exchange::layout_side(bool recv) {
  Side& s = recv ? m_recv : m_send;
  const std::vector<Transfer>& list = transfers(recv);
  s.pieces.clear();
  s.first.assign(1, 0);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::size_t bytes = list[i].bytes;
    if (s.in_place(i) || bytes == 0) {
      s.pieces.push_back({i, 0, bytes});
    } else {
      for (std::size_t at = 0; at < bytes; at += max_message_bytes)
        s.pieces.push_back({i, at, std::min(max_message_bytes, bytes - at)});
    }
    s.first.push_back(s.pieces.size());
  }
  s.left.assign(list.size(), 0);
  s.bufs.clear();
  m_reqs.clear();
  m_reqs_made = false;
}

void Exchange::set_in_place(std::vector<MPI_Datatype> send_types, std::vector<MPI_Datatype> recv_types) {
  detail::require(!m_posted, "Exchange::set_in_place: a post() is pending");
  const auto check = [](const std::vector<MPI_Datatype>& types, const std::vector<Transfer>& list,
                        const char* what) {
    detail::require(types.empty() || types.size() == list.size(), "Exchange::set_in_place: ", what, " has ",
                    types.size(), " datatypes; expected 0 or one per ", what, " (", list.size(), ")");
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (types[i] == MPI_DATATYPE_NULL) continue;
      int size = 0;
      HPF_MPI_CHECK(MPI_Type_size(types[i], &size));
      detail::require(static_cast<std::size_t>(size) == list[i].bytes,
                      "Exchange::set_in_place: the datatype of ", what, " ", i, " holds ", size,
                      " bytes; expected the transfer's ", list[i].bytes, " bytes");
    }
  };
  check(send_types, m_plan.sends, "send");
  check(recv_types, m_plan.recvs, "receive");
  m_send.types = std::move(send_types);
  m_recv.types = std::move(recv_types);
  layout_side(false);
  layout_side(true);
}

std::size_t Exchange::in_place_sends() const noexcept {
  if (running_mode() == ExecMode::Alltoallv) return 0;
  return static_cast<std::size_t>(std::count_if(m_send.types.begin(), m_send.types.end(),
                                                [](MPI_Datatype t) { return t != MPI_DATATYPE_NULL; }));
}

std::size_t Exchange::in_place_recvs() const noexcept {
  if (running_mode() == ExecMode::Alltoallv) return 0;
  return static_cast<std::size_t>(std::count_if(m_recv.types.begin(), m_recv.types.end(),
                                                [](MPI_Datatype t) { return t != MPI_DATATYPE_NULL; }));
}

void Exchange::set_batch(PackManyFn pack_many, UnpackManyFn unpack_many) {
  detail::require(!m_posted, "Exchange::set_batch: a post() is pending");
  m_pack_many = std::move(pack_many);
  m_unpack_many = std::move(unpack_many);
}

void Exchange::set_after_sends(std::function<void()> after) {
  detail::require(!m_posted, "Exchange::set_after_sends: a post() is pending");
  m_after_sends = std::move(after);
}

// The step modes share one buffer per direction (a step moves one message each way); the flow
// modes keep one per transfer. Sized once, so that the persistent requests stay valid.
std::byte* Exchange::buffer(bool recv, std::size_t i) {
  Side& s = recv ? m_recv : m_send;
  const std::vector<Transfer>& list = transfers(recv);
  if (s.bufs.empty()) {
    if (step_mode(m_mode)) {
      std::size_t most = 0;
      for (std::size_t k = 0; k < list.size(); ++k)
        if (!s.in_place(k)) most = std::max(most, list[k].bytes);
      s.bufs.resize(1);
      s.bufs[0].resize(most);
    } else {
      s.bufs.resize(list.size());
      for (std::size_t k = 0; k < list.size(); ++k)
        if (!s.in_place(k)) s.bufs[k].resize(list[k].bytes);
    }
  }
  return s.bufs[step_mode(m_mode) ? 0 : i].data();
}

// Each buffer counts what allocate_large takes for it (detail::allocation_bytes).
std::size_t Exchange::buffer_bytes() const noexcept {
  if (running_mode() == ExecMode::Alltoallv)
    return detail::allocation_bytes(m_plan.send_bytes()) + detail::allocation_bytes(m_plan.recv_bytes());
  std::size_t total = 0;
  for (const bool recv : {true, false}) {
    const Side& s = recv ? m_recv : m_send;
    const std::vector<Transfer>& list = transfers(recv);
    std::size_t most = 0; // the step modes' one buffer per direction
    for (std::size_t k = 0; k < list.size(); ++k) {
      if (s.in_place(k)) continue;
      most = std::max(most, list[k].bytes);
      if (!step_mode(m_mode)) total += detail::allocation_bytes(list[k].bytes);
    }
    if (step_mode(m_mode)) total += detail::allocation_bytes(most);
  }
  return total;
}

void Exchange::reserve() {
  try {
    if (running_mode() == ExecMode::Alltoallv) { // one packed buffer per direction
      m_a2a_send.resize(m_plan.send_bytes());
      m_a2a_recv.resize(m_plan.recv_bytes());
      return;
    }
    for (const bool recv : {true, false})
      if (!transfers(recv).empty()) (void)buffer(recv, 0);
  } catch (const std::bad_alloc&) {
    m_send.bufs.clear();
    m_recv.bufs.clear();
    detail::fail("Exchange: cannot allocate message buffers of ", m_plan.send_bytes(), " bytes to send and ",
                 m_plan.recv_bytes(), " bytes to receive; out of memory");
  }
}

// Every MPI message's persistent request: the receives', then the sends', in plan order.
void Exchange::make_requests() {
  m_reqs.clear();
  for (const bool recv : {true, false}) {
    Side& s = recv ? m_recv : m_send;
    const std::vector<Transfer>& list = transfers(recv);
    for (const Piece& p : s.pieces) {
      const Transfer& t = list[p.msg];
      void* data = nullptr;
      int count = 1;
      MPI_Datatype type = MPI_BYTE;
      if (s.in_place(p.msg)) {
        data = recv ? m_recv_base : const_cast<void*>(m_send_base);
        type = s.types[p.msg];
      } else {
        data = buffer(recv, p.msg) + p.offset;
        count = static_cast<int>(p.bytes);
      }
      if (recv)
        HPF_MPI_CHECK(MPI_Recv_init(data, count, type, t.peer, m_tag, m_comm.get(), m_reqs.add()));
      else
        HPF_MPI_CHECK(MPI_Send_init(data, count, type, t.peer, m_tag, m_comm.get(), m_reqs.add()));
      ++m_requests_made;
    }
    s.base_made = recv ? static_cast<const void*>(m_recv_base) : m_send_base;
  }
  m_reqs_made = true;
}

void Exchange::post(PackFn pack, UnpackFn unpack, const void* send_base, void* recv_base) {
  detail::require(!m_posted, "Exchange::post: the previous post() has not been completed by wait()");
  m_pack = std::move(pack);
  m_unpack = std::move(unpack);
  if (m_mode == ExecMode::Alltoallv) {
    setup_alltoallv(); // collective on every post: an exchange made afresh on some ranks only agrees too
    if (!m_fallback) {
      m_posted = true;
      run_alltoallv();
      return;
    }
  }
  const bool sends_in_place = in_place_sends() > 0;
  const bool recvs_in_place = in_place_recvs() > 0;
  detail::require(!sends_in_place || send_base != nullptr,
                  "Exchange::post: sends are in place (set_in_place) but send_base is null");
  detail::require(!recvs_in_place || recv_base != nullptr,
                  "Exchange::post: receives are in place (set_in_place) but recv_base is null");
  m_send_base = send_base;
  m_recv_base = recv_base;
  reserve();
  if (!m_reqs_made || (sends_in_place && m_send.base_made != send_base) ||
      (recvs_in_place && m_recv.base_made != recv_base))
    make_requests();
  for (Side* s : {&m_send, &m_recv}) {
    s->started = 0;
    s->done = 0;
  }
  m_arrived = 0;
  m_send_prefix = 0;
  m_next_step = 0;
  m_step_open = false;
  m_posted = true;
  const ExecMode mode = running_mode();
  if (mode == ExecMode::AllAtOnce) {
    for (std::size_t i = 0; i < m_plan.recvs.size(); ++i) start_transfer(true, i);
    if (m_pack_many)
      start_sends_batched();
    else
      for (std::size_t i = 0; i < m_plan.sends.size(); ++i) pack_and_start(i);
  } else if (mode == ExecMode::Pipelined) {
    (void)progress_flow(false);
  } else if (!m_steps.empty()) {
    start_step();
  }
  if (m_after_sends && calls_after_sends(mode)) m_after_sends();
}

void Exchange::start_transfer(bool recv, std::size_t i) {
  Side& s = recv ? m_recv : m_send;
  for (std::size_t k = s.first[i]; k < s.first[i + 1]; ++k) m_reqs.start(piece_index(recv, k));
  s.left[i] = static_cast<std::uint32_t>(s.first[i + 1] - s.first[i]);
  ++s.started;
}

void Exchange::pack_and_start(std::size_t i) {
  if (!m_send.in_place(i)) m_pack(i, buffer(false, i));
  start_transfer(false, i);
}

void Exchange::unpack(std::size_t i) {
  if (!m_recv.in_place(i)) m_unpack(i, buffer(true, i));
}

// AllAtOnce with set_batch: every packed send in one pack_many call, then every send starts.
void Exchange::start_sends_batched() {
  std::vector<std::size_t> ids;
  std::vector<std::byte*> bufs;
  for (std::size_t i = 0; i < m_plan.sends.size(); ++i)
    if (!m_send.in_place(i)) {
      ids.push_back(i);
      bufs.push_back(buffer(false, i));
    }
  m_pack_many(ids, bufs);
  for (std::size_t i = 0; i < m_plan.sends.size(); ++i) start_transfer(false, i);
}

// AllAtOnce with set_batch, once every receive has arrived: one unpack_many call.
void Exchange::unpack_batched() {
  std::vector<std::size_t> ids;
  std::vector<const std::byte*> bufs;
  for (std::size_t i = 0; i < m_plan.recvs.size(); ++i)
    if (!m_recv.in_place(i)) {
      ids.push_back(i);
      bufs.push_back(buffer(true, i));
    }
  m_unpack_many(ids, bufs);
  m_recv.done = m_plan.recvs.size();
}

bool Exchange::complete_some(bool block) {
  const std::span<const int> idx = m_reqs.some(block, &m_received);
  const bool unpack_now = running_mode() == ExecMode::AllAtOnce && !m_unpack_many;
#ifdef SMPI_H
  constexpr bool count_checked = false;
#else
  constexpr bool count_checked = true;
#endif
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const auto r = static_cast<std::size_t>(idx[k]);
    const bool recv = r < m_recv.pieces.size();
    Side& s = recv ? m_recv : m_send;
    const Piece& p = s.pieces[recv ? r : r - m_recv.pieces.size()];
    // A count that differs is another plan's message (every rank must run the same plan). Not under
    // SimGrid SMPI, whose statuses of persistent receives do not carry the count.
    if (count_checked && recv && !s.in_place(p.msg) && m_received[k] != SIZE_MAX && m_received[k] != p.bytes)
      detail::fail("Exchange: a message from rank ", m_plan.recvs[p.msg].peer, " brought ", m_received[k],
                   " bytes; expected ", p.bytes, " (every rank must run the same plan)");
    if (--s.left[p.msg] != 0) continue;
    if (!recv) {
      ++s.done;
      continue;
    }
    ++m_arrived;
    if (unpack_now) {
      unpack(p.msg);
      ++s.done;
    }
  }
  return !idx.empty();
}

bool Exchange::progress(bool block) {
  switch (running_mode()) {
  case ExecMode::StepSynchronous:
  case ExecMode::Handshake:
    return progress_steps(block);
  case ExecMode::AllAtOnce:
  case ExecMode::Pipelined:
    return progress_flow(block);
  case ExecMode::Alltoallv:
    return true; // complete in post()
  }
  return true;
}

void Exchange::wait() {
  detail::require(m_posted, "Exchange::wait: nothing was posted");
  (void)progress(true);
  m_posted = false;
}

bool Exchange::test() {
  detail::require(m_posted, "Exchange::test: nothing was posted");
  if (!progress(false)) return false;
  m_posted = false;
  return true;
}

// Pipelined: a send of step s may start once every receive of an earlier step is unpacked and every
// send of an earlier step has completed.
bool Exchange::send_ready(std::size_t i) {
  const int step = m_plan.sends[i].step;
  if (m_recv.done < m_plan.recvs.size() && m_plan.recvs[m_recv.done].step < step) return false;
  while (m_send_prefix < i && complete(false, m_send_prefix)) ++m_send_prefix;
  return m_send_prefix >= i || m_plan.sends[m_send_prefix].step >= step;
}

// The flow modes: AllAtOnce started everything in post(); Pipelined posts receives within its window,
// unpacks them in step order and starts each send once its predecessors are done.
bool Exchange::progress_flow(bool block) {
  const std::size_t nr = m_plan.recvs.size();
  const std::size_t ns = m_plan.sends.size();
  const bool pipelined = running_mode() == ExecMode::Pipelined;
  while (true) {
    bool moved = false;
    if (pipelined) {
      while (m_recv.started < nr && (m_window == 0 || m_recv.started - m_arrived < m_window)) {
        start_transfer(true, m_recv.started);
        moved = true;
      }
      while (m_recv.done < nr && complete(true, m_recv.done)) {
        unpack(m_recv.done++);
        moved = true;
      }
      while (m_send.started < ns && send_ready(m_send.started)) {
        pack_and_start(m_send.started);
        moved = true;
      }
    } else if (m_unpack_many && m_recv.done < nr && m_arrived == nr) {
      unpack_batched();
    }
    if (m_recv.done == nr && m_send.done == ns) return true;
    if (moved) continue;
    if (!complete_some(block)) {
      detail::require(!block, "Exchange: no request is active but the exchange is not complete");
      return false;
    }
  }
}

void Exchange::start_step() {
  const int step = m_steps[m_next_step++];
  const bool sends = m_send.started < m_plan.sends.size() && m_plan.sends[m_send.started].step == step;
  const bool recvs = m_recv.started < m_plan.recvs.size() && m_plan.recvs[m_recv.started].step == step;
  m_step_send = sends ? m_send.started : SIZE_MAX;
  m_step_recv = recvs ? m_recv.started : SIZE_MAX;
  m_step_open = true;
  m_step_send_started = false;
  if (recvs) {
    start_transfer(true, m_step_recv);
    if (m_mode == ExecMode::Handshake) // S1 of Wang and Ranka: tell the sender the receive is posted
      HPF_MPI_CHECK(MPI_Isend(nullptr, 0, MPI_BYTE, m_plan.recvs[m_step_recv].peer, m_tag + 1, m_comm.get(),
                              m_ready_out.add()));
  }
  if (!sends) return;
  if (m_mode == ExecMode::Handshake) {
    HPF_MPI_CHECK(MPI_Irecv(nullptr, 0, MPI_BYTE, m_plan.sends[m_step_send].peer, m_tag + 1, m_comm.get(),
                            m_ready_in.add()));
  } else {
    pack_and_start(m_step_send);
    m_step_send_started = true;
  }
}

// The step modes: per step at most one send and one receive of this rank, completed before the next
// step starts. post() only starts the first step, so overlapping exchanges never wait on each other.
bool Exchange::progress_steps(bool block) {
  while (true) {
    if (m_step_open) {
      if (m_step_send != SIZE_MAX && !m_step_send_started) { // Handshake: send on the signal
        if (block)
          m_ready_in.wait_all();
        else if (!m_ready_in.test())
          return false;
        pack_and_start(m_step_send);
        m_step_send_started = true;
      }
      while ((m_step_recv != SIZE_MAX && !complete(true, m_step_recv)) ||
             (m_step_send != SIZE_MAX && !complete(false, m_step_send)))
        if (!complete_some(block)) {
          detail::require(!block, "Exchange: no request is active but the step is not complete");
          return false;
        }
      if (block)
        m_ready_out.wait_all();
      else if (!m_ready_out.test())
        return false;
      if (m_step_recv != SIZE_MAX) {
        unpack(m_step_recv);
        ++m_recv.done;
      }
      m_step_open = false;
    }
    if (m_next_step == m_steps.size()) return true;
    start_step();
  }
}

// Collective (every post() of an Alltoallv exchange): whether the counts and displacements fit
// MPI_Alltoallv's ints on every rank (else every rank falls back to AllAtOnce together). The counts
// themselves are computed once.
void Exchange::setup_alltoallv() {
  const std::size_t stotal = m_plan.send_bytes();
  const std::size_t rtotal = m_plan.recv_bytes();
  int too_big = stotal > max_message_bytes || rtotal > max_message_bytes ? 1 : 0;
  int any_too_big = 0;
  HPF_MPI_CHECK(MPI_Allreduce(&too_big, &any_too_big, 1, MPI_INT, MPI_MAX, m_comm.get()));
  const bool fallback = any_too_big != 0;
  if (m_a2a_ready && fallback == m_fallback) return;
  m_fallback = fallback;
  m_a2a_ready = true;
  if (m_fallback) {
    layout_side(false); // the fallback moves datatypes in place as AllAtOnce does
    layout_side(true);
    return;
  }
  const auto n = static_cast<std::size_t>(m_comm.size());
  m_sc.assign(n, 0);
  m_sd.assign(n, 0);
  m_rc.assign(n, 0);
  m_rd.assign(n, 0);
  for (const Transfer& t : m_plan.sends) m_sc[static_cast<std::size_t>(t.peer)] += static_cast<int>(t.bytes);
  for (const Transfer& t : m_plan.recvs) m_rc[static_cast<std::size_t>(t.peer)] += static_cast<int>(t.bytes);
  int so = 0;
  int ro = 0;
  for (std::size_t p = 0; p < n; ++p) {
    m_sd[p] = so;
    m_rd[p] = ro;
    so += m_sc[p];
    ro += m_rc[p];
  }
  m_a2a_send.resize(stotal);
  m_a2a_recv.resize(rtotal);
}

// Messages to one peer are concatenated in step order; the receiver splits them in the same order.
void Exchange::run_alltoallv() {
  std::vector<std::size_t> cursor(m_sd.begin(), m_sd.end());
  for (std::size_t i = 0; i < m_plan.sends.size(); ++i) {
    const Transfer& t = m_plan.sends[i];
    m_pack(i, m_a2a_send.data() + cursor[static_cast<std::size_t>(t.peer)]);
    cursor[static_cast<std::size_t>(t.peer)] += t.bytes;
  }
  HPF_MPI_CHECK(MPI_Alltoallv(m_a2a_send.data(), m_sc.data(), m_sd.data(), MPI_BYTE, m_a2a_recv.data(),
                              m_rc.data(), m_rd.data(), MPI_BYTE, m_comm.get()));
  cursor.assign(m_rd.begin(), m_rd.end());
  for (std::size_t i = 0; i < m_plan.recvs.size(); ++i) {
    const Transfer& t = m_plan.recvs[i];
    m_unpack(i, m_a2a_recv.data() + cursor[static_cast<std::size_t>(t.peer)]);
    cursor[static_cast<std::size_t>(t.peer)] += t.bytes;
  }
}

} // namespace hpf
