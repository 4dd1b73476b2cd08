// The value the series benchmark (bench_series) reduces: a 2 x 2 matrix of
// unsigned 64-bit integers, multiplied modulo 2^64 (associative, not commutative), and the element
// each phase writes at a global index.
#pragma once

#include <hpf/core/math.hpp>

#include <mpi.h>

#include <array>
#include <cstdint>

namespace hpf::bench::series {

using Mat = std::array<std::uint64_t, 4>;

inline Mat mul(const Mat& x, const Mat& y) {
  return Mat{x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2],
             x[2] * y[1] + x[3] * y[3]};
}

/// Element g of phase t.
inline Mat element(hpf::index_t g, std::int64_t t) {
  const auto a = static_cast<std::uint64_t>(g), s = static_cast<std::uint64_t>(t);
  return Mat{1 + 3 * a + 7 * s, 2 + a * s, 5 * s + 11 * a + 1, 3 + a};
}

/// MPI_Reduce's user operator: inout = in (x) inout, in rank order (MPI's convention for
/// non-commutative operators: the lower rank's value is the left operand).
inline void mpi_mul(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  auto* a = static_cast<Mat*>(in);
  auto* b = static_cast<Mat*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = mul(a[i], b[i]);
}

} // namespace hpf::bench::series
