// The C ABI's complex element types (HPF_COMPLEX64, HPF_COMPLEX128) on 1..7 ranks, ranks 1 to 4:
// scatter/gather, local blocks, fill, sum, allgather/store_owned, redistribute, realign, shadows,
// sections, transposes, transforms with and without conjugation, cshift and eoshift, each checked
// exactly against the serial result (every value is a small integer pair, so every sum and product is
// exact whatever the order); min and max refuse complex arrays with the element type named.
#include "capi_test.hpp"

#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using hpf::test::ArrayGuard;
using hpf::test::GridGuard;
using hpf::test::world_rank;
using hpf::test::world_size;

constexpr std::array<int64_t, 4> all_extents = {7, 3, 2, 2};

template <class T> constexpr int32_t type_code() {
  return std::is_same_v<T, std::complex<float>> ? HPF_COMPLEX64 : HPF_COMPLEX128;
}

/// The global value at linear (Fortran-order) index k.
template <class T> T value(int64_t k) {
  return T(static_cast<typename T::value_type>(k + 1), static_cast<typename T::value_type>(2 * k - 3));
}

/// The Fortran-order linear index of `g` in `ext` (n entries).
int64_t linear(const int64_t* g, const int64_t* ext, int n) {
  int64_t at = 0;
  int64_t stride = 1;
  for (int d = 0; d < n; ++d) {
    at += g[d] * stride;
    stride *= ext[d];
  }
  return at;
}

/// The multi-index of linear index k in `ext` (n entries).
std::array<int64_t, 4> unlinear(int64_t k, const int64_t* ext, int n) {
  std::array<int64_t, 4> g{};
  for (int d = 0; d < n; ++d) {
    g[static_cast<std::size_t>(d)] = k % ext[d];
    k /= ext[d];
  }
  return g;
}

int64_t size_of(const int64_t* ext, int n) {
  int64_t s = 1;
  for (int d = 0; d < n; ++d) s *= ext[d];
  return s;
}

/// The whole of an array of extents `ext` (n entries) as a section.
std::vector<hpf_triplet> whole(const int64_t* ext, int n) {
  std::vector<hpf_triplet> t;
  for (int d = 0; d < n; ++d) t.push_back({0, ext[d] - 1, 1});
  return t;
}

/// `d` for dimension 0 and `*` for the others: one grid dimension over every rank.
std::vector<hpf_dist> first_distributed(int n, hpf_dist d) {
  std::vector<hpf_dist> ds(static_cast<std::size_t>(n), hpf_dist{HPF_DIST_COLLAPSED, 0, nullptr});
  ds[0] = d;
  return ds;
}

/// A complex array of rank n over `grid` holding value<T>(k) at linear index k.
template <class T>
void make_filled(ArrayGuard& A, int n, const int64_t* ext, const hpf_dist* dists, hpf_grid grid) {
  HPF_C_OK(hpf_array_create("Z", type_code<T>(), n, ext, dists, grid, &A.a));
  std::vector<T> all(static_cast<std::size_t>(size_of(ext, n)));
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = value<T>(static_cast<int64_t>(k));
  HPF_C_OK(hpf_array_scatter(A.a, 0, world_rank() == 0 ? all.data() : nullptr,
                             world_rank() == 0 ? static_cast<int64_t>(all.size()) : 0));
}

template <class T> std::vector<T> everything(hpf_array a, int64_t size) {
  std::vector<T> all(static_cast<std::size_t>(size));
  EXPECT_EQ(hpf_array_allgather(a, all.data()), HPF_OK) << hpf_last_error();
  return all;
}

template <class T> void check_rank(int n) {
  SCOPED_TRACE(std::string(type_code<T>() == HPF_COMPLEX64 ? "HPF_COMPLEX64" : "HPF_COMPLEX128") + " rank " +
               std::to_string(n) + " (rank " + std::to_string(world_rank()) + ")");
  const int P = world_size();
  GridGuard grid;
  HPF_C_OK(hpf_grid_create_world(1, &P, &grid.g));
  const int64_t* ext = all_extents.data();
  const int64_t size = size_of(ext, n);
  const auto cyclic = first_distributed(n, {HPF_DIST_CYCLIC, 2, nullptr});
  const auto block = first_distributed(n, {HPF_DIST_BLOCK, 0, nullptr});

  ArrayGuard A;
  make_filled<T>(A, n, ext, cyclic.data(), grid.g);

  // The local block holds each owned element at the offset hpf_array_locate gives.
  void* data = nullptr;
  std::array<int64_t, 4> lext{};
  HPF_C_OK(hpf_array_local(A.a, &data, lext.data()));
  int64_t owned_count = 0;
  for (int64_t k = 0; k < size; ++k) {
    const auto g = unlinear(k, ext, n);
    int owned = -1;
    int64_t off = -1;
    HPF_C_OK(hpf_array_locate(A.a, g.data(), &owned, &off));
    if (owned == 1) {
      ++owned_count;
      EXPECT_EQ(static_cast<T*>(data)[off], value<T>(k)) << "at linear index " << k;
    }
  }
  EXPECT_EQ(owned_count, size_of(lext.data(), n));

  // SUM, gather, allgather.
  T total{};
  for (int64_t k = 0; k < size; ++k) total += value<T>(k);
  T s{};
  HPF_C_OK(hpf_array_sum(A.a, &s));
  EXPECT_EQ(s, total);
  std::vector<T> root(static_cast<std::size_t>(size));
  HPF_C_OK(hpf_array_gather(A.a, 0, root.data()));
  const auto all = everything<T>(A.a, size);
  for (int64_t k = 0; k < size; ++k) {
    const auto ku = static_cast<std::size_t>(k);
    EXPECT_EQ(all[ku], value<T>(k));
    if (world_rank() == 0) {
      EXPECT_EQ(root[ku], value<T>(k));
    }
  }

  // MINVAL and MAXVAL are not defined on complex numbers: refused, naming the type.
  T unused{};
  const std::string type_name = type_code<T>() == HPF_COMPLEX64 ? "HPF_COMPLEX64" : "HPF_COMPLEX128";
  EXPECT_EQ(hpf_array_min(A.a, &unused), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find("hpf_array_min: the array's element type is " + type_name),
            std::string::npos)
      << hpf_last_error();
  EXPECT_EQ(hpf_array_max(A.a, &unused), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find(type_name), std::string::npos) << hpf_last_error();

  // REDISTRIBUTE keeps the values; store_owned writes a replicated copy back.
  HPF_C_OK(hpf_array_redistribute(A.a, block.data(), grid.g, HPF_STRATEGY_AUTO));
  EXPECT_EQ(everything<T>(A.a, size), all);
  std::vector<T> twice(all);
  for (auto& z : twice) z *= T(0, 2);
  HPF_C_OK(hpf_array_store_owned(A.a, twice.data()));
  EXPECT_EQ(everything<T>(A.a, size), twice);
  HPF_C_OK(hpf_array_store_owned(A.a, all.data()));

  // FILL, then SUM over the whole array.
  ArrayGuard F;
  HPF_C_OK(hpf_array_create("F", type_code<T>(), n, ext, block.data(), grid.g, &F.a));
  const T three_minus_i(3, -1);
  HPF_C_OK(hpf_array_fill(F.a, &three_minus_i));
  HPF_C_OK(hpf_array_sum(F.a, &s));
  EXPECT_EQ(s, three_minus_i * static_cast<typename T::value_type>(size));

  // ALIGN with the array's layout, then REALIGN with the CYCLIC(2) one: the values stay.
  hpf_template base = nullptr;
  HPF_C_OK(hpf_template_of_array(A.a, &base));
  std::vector<hpf_align_dim> identity(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d) identity[static_cast<std::size_t>(d)] = {d, 1, 0};
  ArrayGuard B;
  HPF_C_OK(hpf_array_create_aligned("B", type_code<T>(), n, ext, base, identity.data(), nullptr, &B.a));
  HPF_C_OK(hpf_template_free(&base));
  HPF_C_OK(hpf_array_assign_section(B.a, whole(ext, n).data(), A.a, whole(ext, n).data(), nullptr));
  ArrayGuard C;
  make_filled<T>(C, n, ext, cyclic.data(), grid.g);
  HPF_C_OK(hpf_template_of_array(C.a, &base));
  HPF_C_OK(hpf_array_realign(B.a, base, identity.data(), nullptr, HPF_STRATEGY_AUTO));
  HPF_C_OK(hpf_template_free(&base));
  EXPECT_EQ(everything<T>(B.a, size), all);

  // A section with a negative stride: B(0:e-1:2, ...) = A(e-1:0:-2, ...) along dimension 0.
  {
    auto dst = whole(ext, n);
    auto src = whole(ext, n);
    dst[0] = {0, ext[0] - 1, 2};
    src[0] = {ext[0] - 1, 0, -2};
    HPF_C_OK(hpf_array_assign_section(B.a, dst.data(), A.a, src.data(), nullptr));
    const auto got = everything<T>(B.a, size);
    for (int64_t k = 0; k < size; ++k) {
      auto g = unlinear(k, ext, n);
      if (g[0] % 2 == 0) g[0] = ext[0] - 1 - g[0];
      EXPECT_EQ(got[static_cast<std::size_t>(k)], all[static_cast<std::size_t>(linear(g.data(), ext, n))])
          << "section, linear index " << k;
    }
  }

  // TRANSPOSE (dimensions reversed) and a conjugating transform into the reversed shape:
  // R = alpha CONJG(op(A)) + beta R, R filled with three_minus_i first.
  std::array<int64_t, 4> rext{};
  std::vector<int32_t> reverse(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d) {
    rext[static_cast<std::size_t>(d)] = ext[n - 1 - d];
    reverse[static_cast<std::size_t>(d)] = n - 1 - d;
  }
  const auto last = [&] {
    std::vector<hpf_dist> ds(static_cast<std::size_t>(n), hpf_dist{HPF_DIST_COLLAPSED, 0, nullptr});
    ds[static_cast<std::size_t>(n - 1)] = {HPF_DIST_BLOCK, 0, nullptr};
    return ds;
  }();
  const auto transposed = [&](const std::array<int64_t, 4>& i) {
    std::array<int64_t, 4> j{};
    for (int d = 0; d < n; ++d) j[static_cast<std::size_t>(n - 1 - d)] = i[static_cast<std::size_t>(d)];
    return all[static_cast<std::size_t>(linear(j.data(), ext, n))];
  };
  for (const bool conjugate : {false, true}) {
    SCOPED_TRACE(conjugate ? "conjugated" : "not conjugated");
    ArrayGuard R;
    HPF_C_OK(hpf_array_create("R", type_code<T>(), n, rext.data(), last.data(), grid.g, &R.a));
    HPF_C_OK(hpf_array_transpose(A.a, nullptr, R.a));
    auto got = everything<T>(R.a, size);
    for (int64_t k = 0; k < size; ++k)
      EXPECT_EQ(got[static_cast<std::size_t>(k)], transposed(unlinear(k, rext.data(), n)));
    HPF_C_OK(hpf_array_fill(R.a, &three_minus_i));
    const T alpha(2, 1);
    const T beta(1, -1);
    HPF_C_OK(hpf_array_transform(R.a, whole(rext.data(), n).data(), A.a, whole(ext, n).data(), reverse.data(),
                                 &alpha, &beta, conjugate ? 1 : 0));
    got = everything<T>(R.a, size);
    for (int64_t k = 0; k < size; ++k) {
      const T x = transposed(unlinear(k, rext.data(), n));
      EXPECT_EQ(got[static_cast<std::size_t>(k)],
                alpha * (conjugate ? std::conj(x) : x) + beta * three_minus_i)
          << "transform, linear index " << k;
    }
  }

  // CSHIFT and EOSHIFT along dimension 0 (the distributed one), into an array of A's (BLOCK) layout,
  // with a complex boundary.
  ArrayGuard S;
  HPF_C_OK(hpf_array_create("S", type_code<T>(), n, ext, block.data(), grid.g, &S.a));
  HPF_C_OK(hpf_cshift(A.a, 3, 0, S.a));
  auto got = everything<T>(S.a, size);
  for (int64_t k = 0; k < size; ++k) {
    auto g = unlinear(k, ext, n);
    g[0] = (g[0] + 3) % ext[0];
    EXPECT_EQ(got[static_cast<std::size_t>(k)], all[static_cast<std::size_t>(linear(g.data(), ext, n))]);
  }
  const T edge(-5, 7);
  HPF_C_OK(hpf_eoshift(A.a, -2, 0, &edge, S.a));
  got = everything<T>(S.a, size);
  for (int64_t k = 0; k < size; ++k) {
    auto g = unlinear(k, ext, n);
    g[0] -= 2;
    EXPECT_EQ(got[static_cast<std::size_t>(k)],
              g[0] < 0 ? edge : all[static_cast<std::size_t>(linear(g.data(), ext, n))]);
  }

  // SHADOW of width 1 along dimension 0, periodic: each slot next to a block holds its neighbour.
  std::vector<int64_t> widths(static_cast<std::size_t>(n), 0);
  widths[0] = 1;
  ArrayGuard H;
  HPF_C_OK(hpf_array_create_shadow("H", type_code<T>(), n, ext, block.data(), widths.data(), grid.g, &H.a));
  HPF_C_OK(hpf_array_store_owned(H.a, all.data()));
  HPF_C_OK(hpf_array_update_shadow(H.a, HPF_BOUNDARY_PERIODIC));
  HPF_C_OK(hpf_array_local(H.a, &data, lext.data()));
  const int64_t storage = size_of(lext.data(), n);
  for (int64_t off = 0; off < storage; ++off) {
    int owned = -1;
    std::array<int64_t, 4> g{};
    HPF_C_OK(hpf_array_slot(H.a, off, &owned, g.data()));
    if (owned != 1) continue;
    const auto at = [&](int64_t delta) {
      auto h = g;
      h[0] = (h[0] + delta + ext[0]) % ext[0];
      return all[static_cast<std::size_t>(linear(h.data(), ext, n))];
    };
    EXPECT_EQ(static_cast<T*>(data)[off], at(0));
    // The first and last owned slots of the block: their outer neighbours are shadow slots.
    const int64_t i0 = off % lext[0];
    if (i0 == 1) {
      EXPECT_EQ(static_cast<T*>(data)[off - 1], at(-1));
    }
    if (i0 == lext[0] - 2) {
      EXPECT_EQ(static_cast<T*>(data)[off + 1], at(1));
    }
  }
}

TEST(CApiComplex, SingleEveryRank) {
  for (int n = 1; n <= 4; ++n) check_rank<std::complex<float>>(n);
}

TEST(CApiComplex, DoubleEveryRank) {
  for (int n = 1; n <= 4; ++n) check_rank<std::complex<double>>(n);
}

TEST(CApiComplex, MixingRealAndComplexIsRefused) {
  const int P = world_size();
  GridGuard grid;
  HPF_C_OK(hpf_grid_create_world(1, &P, &grid.g));
  const int64_t ext[1] = {5};
  const hpf_dist d[1] = {{HPF_DIST_BLOCK, 0, nullptr}};
  ArrayGuard Z;
  ArrayGuard X;
  HPF_C_OK(hpf_array_create("Z", HPF_COMPLEX128, 1, ext, d, grid.g, &Z.a));
  HPF_C_OK(hpf_array_create("X", HPF_FLOAT64, 1, ext, d, grid.g, &X.a));
  EXPECT_EQ(hpf_cshift(Z.a, 1, 0, X.a), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find("element type or rank differs"), std::string::npos)
      << hpf_last_error();
  ArrayGuard W;
  EXPECT_EQ(hpf_array_create("W", 6, 1, ext, d, grid.g, &W.a), HPF_ERR_ARG);
  EXPECT_NE(std::string(hpf_last_error()).find("HPF_COMPLEX128 (0..5), got 6"), std::string::npos)
      << hpf_last_error();
}

} // namespace
