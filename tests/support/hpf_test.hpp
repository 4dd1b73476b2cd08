// Helpers shared by the tests (MPI and pure).
#pragma once

#include <hpf/hpf.hpp>

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace hpf::test {

inline int world_rank() { return comm_rank(MPI_COMM_WORLD); }
inline int world_size() { return comm_size(MPI_COMM_WORLD); }

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
