// Agreement across the ranks of a communicator: errors seen by some ranks thrown on all of them, and
// the check that every rank passed the same arguments to a collective.
#include <hpf/core/mpi.hpp>

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hpf {
namespace detail {

void agree_on_error(MPI_Comm comm, const std::string& local_problem) {
  const int me = comm_rank(comm);
  const int mine = local_problem.empty() ? INT_MAX : me;
  int first = INT_MAX;
  HPF_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == INT_MAX) return;
  unsigned long long len = me == first ? local_problem.size() : 0;
  HPF_MPI_CHECK(MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, first, comm));
  std::string text = me == first ? local_problem : std::string(static_cast<std::size_t>(len), ' ');
  // Messages are short; a count past INT_MAX would be a bug, not an input.
  require(len <= static_cast<unsigned long long>(INT_MAX), "agree_on_error: message of ", len, " bytes");
  HPF_MPI_CHECK(MPI_Bcast(text.data(), static_cast<int>(len), MPI_CHAR, first, comm));
  if (me == first) {
    // The problem is usually an hpf::Error of this rank, whose message already names the rank.
    const std::string suffix = rank_suffix();
    if (!suffix.empty() && text.size() >= suffix.size() &&
        text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0)
      throw Error(text);
    fail(text);
  }
  fail(text, " [reported by rank ", first, "]");
}

void agree_on_error(const Comm& comm, const std::string& local_problem) {
  agree_on_error(comm.get(), local_problem);
}

std::uint64_t hash_words(std::span<const std::int64_t> words) noexcept {
  WordHash h;
  for (const std::int64_t w : words) h.add(w);
  return h.value();
}

std::atomic<bool>& argument_checks_flag() noexcept {
  static std::atomic<bool> on{[] {
    const char* v = std::getenv("HPF_CHECK_ARGUMENTS");
    return v == nullptr || std::string_view(v) != "0";
  }()};
  return on;
}

} // namespace detail

bool argument_checks() noexcept { return detail::argument_checks_flag().load(std::memory_order_relaxed); }

void set_argument_checks(bool on) noexcept {
  detail::argument_checks_flag().store(on, std::memory_order_relaxed);
}

namespace {

// The full compare, on every rank together: the word count is agreed first (a cheap allreduce), so
// that every rank reduces buffers of the same length; then the maximum of every word and of its
// complement (the minimum) in one allreduce. Throws naming the first word that differs, by its name
// from `names`, else by its index.
[[noreturn]] void compare_words(MPI_Comm comm, std::string_view what, std::span<const std::int64_t> words,
                                std::span<const std::string_view> names) {
  const long long n = static_cast<long long>(words.size());
  long long counts[2] = {n, -n};
  long long cmax[2] = {0, 0};
  HPF_MPI_CHECK(MPI_Allreduce(counts, cmax, 2, MPI_LONG_LONG, MPI_MAX, comm));
  if (cmax[0] != -cmax[1])
    detail::fail(what, ": the ranks passed arguments of different lengths to a collective (", -cmax[1],
                 " to ", cmax[0], " words); every rank must pass the same");
  std::vector<std::int64_t> local(2 * words.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    local[i] = words[i];
    local[words.size() + i] = ~words[i];
  }
  detail::require(local.size() <= static_cast<std::size_t>(INT_MAX), what, ": ", words.size(),
                  " words are too many to compare");
  std::vector<std::int64_t> global(local.size());
  HPF_MPI_CHECK(
      MPI_Allreduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_INT64_T, MPI_MAX, comm));
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::int64_t hi = global[i];
    const std::int64_t lo = ~global[words.size() + i];
    if (hi == lo) continue;
    const std::string name = i < names.size() ? std::string(names[i]) : "word " + std::to_string(i);
    detail::fail(what, ": the ranks passed different arguments to a collective: ", name, " ranges from ", lo,
                 " to ", hi, " over the ranks; every rank must pass the same");
  }
  // Equal words with unequal hashes cannot be: the hashes were of these words.
  detail::fail(what, ": the ranks passed different arguments to a collective; every rank must pass the same");
}

} // namespace

void check_same_on_all_ranks(MPI_Comm comm, std::string_view what, std::span<const std::int64_t> words,
                             std::span<const std::string_view> names, std::string_view local_problem,
                             const std::function<NamedWords()>& full_words) {
  if (!argument_checks()) {
    if (!local_problem.empty()) throw Error(std::string(local_problem));
    return;
  }
  // One allreduce: the maximum of the hash and of its complement (so also its minimum) and of a
  // failure flag. Only when they differ does the full compare run (every rank sees the same).
  const std::uint64_t h = detail::hash_words(words);
  std::uint64_t local[3] = {h, ~h, local_problem.empty() ? 0U : 1U};
  std::uint64_t global[3] = {0, 0, 0};
  HPF_MPI_CHECK(MPI_Allreduce(local, global, 3, MPI_UINT64_T, MPI_MAX, comm));
  if (global[2] != 0) detail::agree_on_error(comm, std::string(local_problem)); // throws on every rank
  if (global[0] == h && global[1] == ~h) return;
  if (!full_words) compare_words(comm, what, words, names);
  const NamedWords full = full_words();
  const std::vector<std::string_view> views(full.names.begin(), full.names.end());
  compare_words(comm, what, full.words, views);
}

} // namespace hpf
