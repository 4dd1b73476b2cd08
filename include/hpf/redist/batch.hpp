// hpf::RedistributionBatch: REDISTRIBUTE of several arrays in one exchange, with one message per
// pair of ranks (per step), planned once and executed many times.
//
// k arrays, each with its own source and target layout and element type (any rank N), all on grids of
// one parent communicator, move together: the message from rank a to rank b is the concatenation of
// every array's message from a to b, in array order (array 0's bytes, then array 1's, ...), each part
// starting at a multiple of its element type's alignment. Both ends compute the same offsets from the
// plans, which every rank has: no header travels with the data (DESIGN.md, "core/agree": no header
// protocol inside data messages). COSTA's transformer, heFFTe's batched plans and FFTW's `howmany`
// batch the same way; the gain is the start-ups: k small arrays pay alpha once per pair instead of k
// times.
//
// Steps. Under the cost model alpha * steps + beta * sum of the longest message per step (Desprez et
// al., seed 004), concatenating messages keeps TC's beta term (every byte is still sent once) and
// divides the alpha term by up to k. When every plan posts its messages all at once, so does the
// batch: one message per pair, no steps. Otherwise the k plans' steps cannot simply be laid side by
// side: a pair (a, b) sits in step 3 of one plan and step 5 of another, so keeping per-plan steps
// would send k messages per pair again. Instead the batch schedules the union of the k communication
// grids, its entries the summed bytes per pair of parent ranks, with Strategy::Auto's choice among
// König's stepwise and greedy matchings and the caterpillar (Theorem 1: NS = the union's max degree,
// at most the sum of the plans' NS); every step stays a partial permutation, so it stays free of
// contention. It then runs those steps one by one when beta * TC dominates alpha * NS, and all at
// once otherwise, as RedistributionPlan's Auto does.
//
// Packing goes through each plan's own pack / unpack / copy_local, and, all at once, its pack_many /
// unpack_many (one pass over the block for patterns that repeat in short slices): the batch moves
// bytes no slower than k plans would. Every message is packed (no in-place datatypes): one merged
// message spans k blocks.
//
// The batch owns one Exchange (persistent requests, buffers allocated once), built by the first
// post() and reused by every later one with the same element sizes; add() drops it. Collective: every
// rank of the parent communicator calls post()/execute() with the same plans in the same order; ranks
// in no grid move nothing. Errors (a block of another element size, arrays whose layouts are not the
// plans', a count that is not the batch's size) are agreed in one allreduce (check_same_on_all_ranks)
// and thrown on every rank before anything moves. Grids on different parent communicators are
// refused by add(), on every rank (from the plans alone).
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/core/tags.hpp>
#include <hpf/exec/exchange.hpp>
#include <hpf/layout/agree.hpp>
#include <hpf/redist/plan.hpp>
#include <hpf/schedule/schedule.hpp>
#include <hpf/schedule/strategy.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace hpf {

/// The local blocks of one array of a batch: its source block, its target block and the size of its
/// elements (which the batch checks against the plan's element type). Made from typed pointers.
struct BatchBlocks {
  /// Source block (laid out by the plan's source layout, this rank's part, Fortran order).
  const void* src = nullptr;
  /// Target block (laid out by the plan's target layout).
  void* dst = nullptr;
  /// sizeof of the element type.
  std::size_t elem_bytes = 0;
  BatchBlocks() = default;
  /// The blocks of an array of T: source `s`, target `d` (null where this rank holds nothing).
  template <class T> BatchBlocks(const T* s, T* d) noexcept
      : src(s), dst(d), elem_bytes(sizeof(T)) {} // NOLINT(*-explicit-*)
};

namespace detail {

/// One array of a batch: a RedistributionPlan<N> with its element type erased. The batch needs only
/// what is listed here, so arrays of any rank and type share one list.
class BatchMember {
public:
  BatchMember() = default;
  BatchMember(const BatchMember&) = delete;
  BatchMember& operator=(const BatchMember&) = delete;
  BatchMember(BatchMember&&) = delete;
  BatchMember& operator=(BatchMember&&) = delete;
  virtual ~BatchMember() = default;
  /// sizeof and alignof of the element type.
  [[nodiscard]] virtual std::size_t elem_bytes() const noexcept = 0;
  [[nodiscard]] virtual std::size_t elem_align() const noexcept = 0;
  /// The array's rank N and its layouts (as const Layout<N>*).
  [[nodiscard]] virtual int rank() const noexcept = 0;
  [[nodiscard]] virtual const void* source_layout() const noexcept = 0;
  [[nodiscard]] virtual const void* target_layout() const noexcept = 0;
  /// The source grid's communicator (the parent's) and the target grid's.
  [[nodiscard]] virtual const Comm& source_comm() const noexcept = 0;
  [[nodiscard]] virtual const Comm& target_comm() const noexcept = 0;
  [[nodiscard]] virtual const RedistOptions& options() const noexcept = 0;
  [[nodiscard]] virtual ExecMode exec_mode() const noexcept = 0;
  [[nodiscard]] virtual bool fuses_sends() const noexcept = 0;
  [[nodiscard]] virtual bool fuses_recvs() const noexcept = 0;
  [[nodiscard]] virtual bool kept_with_recvs() const noexcept = 0;
  /// This rank's messages in bytes (RedistributionPlan::exchange_plan).
  [[nodiscard]] virtual ExchangePlan exchange_plan() const = 0;
  /// Adds every pair's bytes, between ranks of the parent, to `bytes` (kept parts left out).
  virtual void add_pairs(CommMatrix& bytes) const = 0;
  /// The hash of the layouts, options and element size (what every rank must pass the same).
  [[nodiscard]] virtual std::uint64_t digest() const = 0;
  /// The same arguments as named words, for the message of a disagreement.
  virtual void add_words(AgreementWords& w, const std::string& prefix) const = 0;
  /// The plan's callbacks, on type-erased blocks.
  virtual void pack(std::size_t i, const void* src, std::byte* out) const = 0;
  virtual void unpack(std::size_t i, const std::byte* in, void* dst) const = 0;
  virtual void pack_many(std::span<const std::size_t> sends, std::span<std::byte* const> bufs,
                         const void* src, void* kept) const = 0;
  virtual void unpack_many(std::span<const std::size_t> recvs, std::span<const std::byte* const> bufs,
                           void* dst, const void* kept) const = 0;
  virtual void copy_local(const void* src, void* dst) const = 0;

  /// The source / target layout when the array has rank M, else null.
  template <int M> [[nodiscard]] const Layout<M>* source_as() const noexcept {
    return rank() == M ? static_cast<const Layout<M>*>(source_layout()) : nullptr;
  }
  template <int M> [[nodiscard]] const Layout<M>* target_as() const noexcept {
    return rank() == M ? static_cast<const Layout<M>*>(target_layout()) : nullptr;
  }
};

/// A RedistributionPlan<N> moving elements of T, as a BatchMember.
template <int N, class T> class BatchMemberOf final : public BatchMember {
  static_assert(std::is_trivially_copyable_v<T>, "RedistributionBatch: T must be trivially copyable");

public:
  explicit BatchMemberOf(std::shared_ptr<const RedistributionPlan<N>> plan) : m_plan(std::move(plan)) {}
  [[nodiscard]] std::size_t elem_bytes() const noexcept override { return sizeof(T); }
  [[nodiscard]] std::size_t elem_align() const noexcept override { return alignof(T); }
  [[nodiscard]] int rank() const noexcept override { return N; }
  [[nodiscard]] const void* source_layout() const noexcept override { return &m_plan->source(); }
  [[nodiscard]] const void* target_layout() const noexcept override { return &m_plan->target(); }
  [[nodiscard]] const Comm& source_comm() const noexcept override { return m_plan->source().grid().comm(); }
  [[nodiscard]] const Comm& target_comm() const noexcept override { return m_plan->target().grid().comm(); }
  [[nodiscard]] const RedistOptions& options() const noexcept override { return m_plan->options(); }
  [[nodiscard]] ExecMode exec_mode() const noexcept override { return m_plan->exec_mode(); }
  [[nodiscard]] bool fuses_sends() const noexcept override { return m_plan->fuses_sends(); }
  [[nodiscard]] bool fuses_recvs() const noexcept override { return m_plan->fuses_recvs(); }
  [[nodiscard]] bool kept_with_recvs() const noexcept override { return m_plan->kept_with_recvs(); }
  [[nodiscard]] ExchangePlan exchange_plan() const override { return m_plan->exchange_plan(sizeof(T)); }
  void add_pairs(CommMatrix& bytes) const override {
    const ProcessGrid& sg = m_plan->source().grid();
    const ProcessGrid& tg = m_plan->target().grid();
    for (const Step& s : m_plan->schedule().steps())
      for (const Message& m : s.messages) {
        const int a = sg.rank_at(m.src);
        const int b = tg.rank_at(m.dst);
        if (a != b && m.len > 0) bytes.add(a, b, m.len * static_cast<index_t>(sizeof(T)));
      }
  }
  [[nodiscard]] std::uint64_t digest() const override {
    const auto words = agreement_words(m_plan->options());
    WordHash h;
    h.add(static_cast<std::int64_t>(sizeof(T)));
    h.add(static_cast<std::int64_t>(redistribution_hash(m_plan->source(), m_plan->target(), words)));
    return h.value();
  }
  void add_words(AgreementWords& w, const std::string& prefix) const override {
    w.add(static_cast<std::int64_t>(sizeof(T)), [&] { return prefix + "element bytes"; });
    for (const OptionWord& o : agreement_words(m_plan->options()))
      w.add(o.value, [&] { return prefix + o.name; });
    add_layout_words(w, m_plan->source(), prefix + "source.");
    add_layout_words(w, m_plan->target(), prefix + "target.");
  }
  void pack(std::size_t i, const void* src, std::byte* out) const override {
    m_plan->pack(i, static_cast<const T*>(src), reinterpret_cast<T*>(out));
  }
  void unpack(std::size_t i, const std::byte* in, void* dst) const override {
    m_plan->unpack(i, reinterpret_cast<const T*>(in), static_cast<T*>(dst));
  }
  void pack_many(std::span<const std::size_t> sends, std::span<std::byte* const> bufs, const void* src,
                 void* kept) const override {
    m_plan->pack_many(sends, bufs, static_cast<const T*>(src), static_cast<T*>(kept));
  }
  void unpack_many(std::span<const std::size_t> recvs, std::span<const std::byte* const> bufs, void* dst,
                   const void* kept) const override {
    m_plan->unpack_many(recvs, bufs, static_cast<T*>(dst), static_cast<const T*>(kept));
  }
  void copy_local(const void* src, void* dst) const override {
    m_plan->copy_local(static_cast<const T*>(src), static_cast<T*>(dst));
  }

private:
  std::shared_ptr<const RedistributionPlan<N>> m_plan;
};

} // namespace detail

/// REDISTRIBUTE of k arrays in one exchange, reusable (see the header comment). Built locally with
/// add(); executed collectively.
class RedistributionBatch {
public:
  /// An empty batch whose messages carry `tag` (in hpf::tags::redist_batch: batches in flight at the
  /// same time whose wait() calls come in different orders on different ranks need distinct tags).
  /// Local. Throws hpf::Error for a tag outside the range.
  explicit RedistributionBatch(int tag = tags::redist_batch.base);
  RedistributionBatch(const RedistributionBatch&) = delete;
  RedistributionBatch& operator=(const RedistributionBatch&) = delete;
  /// Moves an idle batch; throws hpf::Error when a post() is pending (the Exchange's rule).
  RedistributionBatch(RedistributionBatch&&) = default;
  /// Moves an idle batch (see the move constructor).
  RedistributionBatch& operator=(RedistributionBatch&&) = default;
  ~RedistributionBatch() = default;

  /// Appends array k = size() moving elements of T by `plan` (shared, not copied). Local. Throws
  /// hpf::Error, the same on every rank, when the plan's grids are not on the parent communicator of
  /// the arrays already in the batch, or when a post() is pending. Returns *this, to chain.
  template <class T, int N> RedistributionBatch& add(std::shared_ptr<const RedistributionPlan<N>> plan) {
    detail::require(plan != nullptr, "RedistributionBatch::add: arrays[", size(), "]: the plan is null");
    add_member(std::make_unique<detail::BatchMemberOf<N, T>>(std::move(plan)));
    return *this;
  }
  /// As add(shared plan), with a copy of `plan`.
  template <class T, int N> RedistributionBatch& add(const RedistributionPlan<N>& plan) {
    return add<T>(std::make_shared<const RedistributionPlan<N>>(plan));
  }

  /// The number of arrays k.
  [[nodiscard]] std::size_t size() const noexcept { return m_members.size(); }
  /// How the merged messages run: AllAtOnce, StepSynchronous or Alltoallv (see the header comment).
  /// Planned by the first post() (or prepare()); AllAtOnce before.
  [[nodiscard]] ExecMode exec_mode() const noexcept { return m_mode; }
  /// Number of steps of the merged schedule: 1 when all at once (or Alltoallv), else the steps of the
  /// union schedule. Planned by the first post() (or prepare()).
  [[nodiscard]] int num_steps() const noexcept { return m_steps; }
  /// The calling rank's merged messages (one per peer and direction), once planned.
  [[nodiscard]] const ExchangePlan& exchange_plan() const;
  /// True between post() and the wait() that completes it.
  [[nodiscard]] bool pending() const noexcept { return m_exchange && m_exchange->posted(); }

  /// Plans the merged messages and allocates their buffers, as the first post() would. Local (a
  /// failure here is this rank's: post() agrees on it). Throws hpf::Error.
  void prepare();

  /// The next post() runs on `comm`, a communicator congruent with the plans' parent (the caller's
  /// grid's, when the plans may hold an equal grid's communicator, as cached plans do: every rank
  /// must run on the same one). The exchange is built again when the communicator changes. Local.
  void bind(const Comm& comm);

  /// Collective over the parent communicator: post() then wait().
  void execute(std::span<const BatchBlocks> blocks) {
    post(blocks);
    wait();
  }
  /// Collective: execute() with the blocks listed in place, `batch.execute({{a, a2}, {b, b2}})`.
  void execute(std::initializer_list<BatchBlocks> blocks) {
    execute(std::span<const BatchBlocks>(blocks.begin(), blocks.size()));
  }
  /// Collective: moves arrays, given as (source, target) pairs in batch order:
  /// `batch.execute(A, A2, B, B2)`. Each pair's layouts must be its plan's and its element size the
  /// plan's (hpf::Error on every rank otherwise, naming the array, before anything moves).
  template <class... Arrays>
  requires(sizeof...(Arrays) % 2 == 0 && sizeof...(Arrays) > 0) void execute(Arrays&... arrays) {
    std::vector<BatchBlocks> blocks;
    std::string problem;
    collect_pairs<0>(blocks, problem, arrays...);
    post_checked(blocks, problem);
    wait();
  }

  /// Split phase (collective like execute): checks the blocks (agreed on every rank), starts the
  /// exchange and copies the locally kept parts (with the sends' pack, on their own once the first
  /// sends have started, or with the receives in wait()). Every source block must stay unchanged and
  /// every target block untouched until wait() returns; source and target blocks must not overlap.
  void post(std::span<const BatchBlocks> blocks) { post_checked(blocks, {}); }
  /// Split phase with the blocks listed in place.
  void post(std::initializer_list<BatchBlocks> blocks) {
    post(std::span<const BatchBlocks>(blocks.begin(), blocks.size()));
  }
  /// Completes post(). Throws hpf::Error when nothing was posted.
  void wait();

private:
  // One array's part of a merged message: the array, its message index, the offset in the merged
  // message.
  struct Part {
    std::size_t member;
    std::size_t msg;
    std::size_t offset;
  };

  void add_member(std::unique_ptr<detail::BatchMember> m);
  [[nodiscard]] const Comm& comm() const noexcept {
    return m_comm.is_null() ? m_members.front()->source_comm() : m_comm;
  }
  void post_checked(std::span<const BatchBlocks> blocks, const std::string& array_problem);
  void check(std::span<const BatchBlocks> blocks, std::string problem) const;
  void plan_messages();
  void build_exchange();
  void copy_kept(std::size_t i);
  void pack_many(std::span<const std::size_t> sends, std::span<std::byte* const> bufs);
  void unpack_many(std::span<const std::size_t> recvs, std::span<const std::byte* const> bufs);

  // Array by array: its source and target layouts against the plan's, and its element size.
  template <std::size_t I, class Src, class Dst, class... Rest>
  void collect_pairs(std::vector<BatchBlocks>& blocks, std::string& problem, const Src& src, Dst& dst,
                     Rest&... rest) const {
    using T = typename Dst::value_type;
    static_assert(std::is_same_v<typename Src::value_type, T>,
                  "RedistributionBatch::execute: a source and its target must hold the same element type");
    constexpr int M = std::remove_cvref_t<decltype(src.layout())>::rank();
    blocks.emplace_back(static_cast<const T*>(src.local_data()), dst.local_data());
    if (problem.empty() && I < m_members.size()) {
      const detail::BatchMember& m = *m_members[I];
      const auto describe = [](const auto& L) {
        return L.describe_dists() + " of extents " + std::decay_t<decltype(L)>::to_string(L.extents());
      };
      if (m.rank() != M)
        problem = detail::concat("RedistributionBatch::execute: arrays[", I, "] has rank ", M,
                                 "; expected the rank of its plan, ", m.rank());
      else if (!(src.layout() == *m.source_as<M>()))
        problem = detail::concat("RedistributionBatch::execute: arrays[", I, "]: the source array's layout ",
                                 describe(src.layout()), " is not its plan's source layout ",
                                 describe(*m.source_as<M>()));
      else if (!(dst.layout() == *m.target_as<M>()))
        problem = detail::concat("RedistributionBatch::execute: arrays[", I, "]: the target array's layout ",
                                 describe(dst.layout()), " is not its plan's target layout ",
                                 describe(*m.target_as<M>()));
    }
    if constexpr (sizeof...(Rest) > 0) collect_pairs<I + 1>(blocks, problem, rest...);
  }

  int m_tag;
  std::vector<std::unique_ptr<detail::BatchMember>> m_members;
  Comm m_comm; // bind()'s; empty: arrays[0]'s source grid's
  ExecMode m_mode = ExecMode::AllAtOnce;
  int m_steps = 0;
  bool m_planned = false;
  ExchangePlan m_plan;
  std::vector<std::vector<Part>> m_send_parts; // per merged send
  std::vector<std::vector<Part>> m_recv_parts; // per merged receive
  // This post()'s blocks and which arrays' kept parts are copied.
  std::vector<BatchBlocks> m_now;
  std::vector<char> m_kept_done;
  // Scratch of pack_many / unpack_many, kept to avoid allocating per call.
  std::vector<std::size_t> m_idx;
  std::vector<std::byte*> m_bufs;
  std::vector<const std::byte*> m_cbufs;
  std::optional<Exchange> m_exchange; // made by the first post(); dropped by add()
};

namespace detail {
/// One array of a cached batch: its plan (shared with the plan cache) and element size.
struct BatchKey {
  const void* plan;
  std::size_t elem_bytes;
  friend bool operator==(const BatchKey&, const BatchKey&) = default;
};
/// The batch of these plans, kept in a small least-recently-used cache (hpf::redistribute_many):
/// built on first use by `fill`, which adds the plans in `key` order. The batch holds the plans, so
/// a key's addresses stay theirs while it is cached. Emptied by clear_plan_cache(). Local.
RedistributionBatch& cached_batch(std::span<const BatchKey> key,
                                  const std::function<void(RedistributionBatch&)>& fill);
} // namespace detail

} // namespace hpf
