// Helpers shared by the MPI tests.
#pragma once

#include <hpf/hpf.hpp>

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace hpf::test {

inline int world_rank() { return comm_rank(MPI_COMM_WORLD); }
inline int world_size() { return comm_size(MPI_COMM_WORLD); }

/// Expects `stmt` to throw hpf::Error whose message contains every one of `needles`.
#define HPF_EXPECT_ERROR(stmt, ...)                                                                          \
  do {                                                                                                       \
    try {                                                                                                    \
      stmt;                                                                                                  \
      ADD_FAILURE() << "expected hpf::Error from: " #stmt;                                                   \
    } catch (const ::hpf::Error& hpf_test_e) {                                                               \
      for (const std::string& hpf_test_needle : std::initializer_list<std::string>{__VA_ARGS__})             \
        EXPECT_NE(std::string(hpf_test_e.what()).find(hpf_test_needle), std::string::npos)                   \
            << "message '" << hpf_test_e.what() << "' lacks '" << hpf_test_needle << "'";                    \
    }                                                                                                        \
  } while (0)

} // namespace hpf::test
