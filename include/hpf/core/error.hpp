// hpf::Error and the checks that raise it.
//
// Every bad input in hpfrt throws hpf::Error. Messages name the argument, the value, what was
// expected, and the rank that saw it, e.g.
//   "Cyclic(r): block size must be >= 1, got 0 (rank 3)".
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace hpf {

/// The one exception type of hpfrt.
class Error : public std::runtime_error {
public:
  /// An error whose message is `what` (detail::fail appends the rank).
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

namespace detail {

/// Rank of this process in MPI_COMM_WORLD, or -1 when MPI is not (or no longer) initialised.
int world_rank() noexcept;

/// " (rank R)" or "" when MPI is not running: appended to every error message.
std::string rank_suffix();

template <class... Args> std::string concat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

/// Throws hpf::Error with the concatenated message and the rank suffix.
template <class... Args> [[noreturn]] void fail(Args&&... args) {
  throw Error(concat(std::forward<Args>(args)...) + rank_suffix());
}

/// Throws unless `cond`; the message is only concatenated on failure. Its arguments are evaluated at
/// the call, though: where one is costly (a layout's description) on a path every execution takes,
/// write `if (!cond) fail(...)` instead.
template <class... Args> void require(bool cond, Args&&... args) {
  if (!cond) fail(std::forward<Args>(args)...);
}

} // namespace detail
} // namespace hpf
