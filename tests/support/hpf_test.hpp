// Helpers shared by the tests (MPI and pure).
#pragma once

#include <hpf/hpf.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace hpf::test {

inline int world_rank() { return comm_rank(MPI_COMM_WORLD); }
inline int world_size() { return comm_size(MPI_COMM_WORLD); }

/// Runs `f` when the scope ends, however it ends: a test that changes a process-wide setting
/// restores it even when an assertion returns early.
template <class F> class OnExit {
public:
  explicit OnExit(F f) : m_f(std::move(f)) {}
  OnExit(const OnExit&) = delete;
  OnExit& operator=(const OnExit&) = delete;
  OnExit(OnExit&&) = delete;
  OnExit& operator=(OnExit&&) = delete;
  ~OnExit() { m_f(); }

private:
  F m_f;
};

/// A 1-D grid over a random subset of the world's ranks, in a random order (the same on every rank
/// when `rng` is seeded alike). Its communicator is the world's: its collectives involve every rank.
inline ProcessGrid random_world_grid(std::mt19937& rng) {
  const int n = world_size();
  std::vector<int> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  std::shuffle(all.begin(), all.end(), rng);
  const int count = 1 + static_cast<int>(rng() % static_cast<unsigned>(n));
  return ProcessGrid(MPI_COMM_WORLD, std::vector<int>(all.begin(), all.begin() + count), {count});
}

/// Expects the expression `stmt` to throw hpf::Error whose message contains every one of `needles`.
/// Its value, if any, is discarded (so [[nodiscard]] calls need no cast). Pure tests use it too.
#define HPF_EXPECT_ERROR(stmt, ...)                                                                          \
  do {                                                                                                       \
    try {                                                                                                    \
      (void)(stmt);                                                                                          \
      ADD_FAILURE() << "expected hpf::Error from: " #stmt;                                                   \
    } catch (const ::hpf::Error& hpf_test_e) {                                                               \
      for (const std::string& hpf_test_needle : std::initializer_list<std::string>{__VA_ARGS__})             \
        EXPECT_NE(std::string(hpf_test_e.what()).find(hpf_test_needle), std::string::npos)                   \
            << "message '" << hpf_test_e.what() << "' lacks '" << hpf_test_needle << "'";                    \
    }                                                                                                        \
  } while (0)

} // namespace hpf::test
