// hpf::transform: B(sb) = alpha op(A(sa)) + beta B(sb) between two distributed arrays of any layouts,
// op a dimension permutation (TRANSPOSE for matrices) with or without complex conjugation, computed
// while the elements move: the section assignment's plan and messages (array/section.hpp), with the
// arithmetic done where each received piece is unpacked. What ScaLAPACK's pdgeadd, pdtran and pztranc
// do on its one layout family, and COSTA's transform between any two (docs/sections.md).
#pragma once

#include <hpf/array/section.hpp>

#include <complex>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace hpf {

/// What hpf::transform applies to A on the way: nothing, TRANSPOSE, or the conjugate transpose (for
/// real elements the same as TRANSPOSE).
enum class MatrixOp { None, Transpose, ConjTranspose };

namespace detail {

template <class T> struct IsComplex : std::false_type {};
template <class T> struct IsComplex<std::complex<T>> : std::true_type {};

template <class T, bool Conjugate> T maybe_conj(const T& a) {
  if constexpr (Conjugate && IsComplex<T>::value)
    return std::conj(a);
  else
    return a;
}

/// b = alpha op(a): B's old value is not read (a NaN there does not spread), as in the BLAS.
template <class T, bool Conjugate> struct ScaleInto {
  T alpha;
  void operator()(T& b, const T& a) const { b = alpha * maybe_conj<T, Conjugate>(a); }
};
/// b = alpha op(a) + beta b.
template <class T, bool Conjugate> struct AddInto {
  T alpha;
  T beta;
  void operator()(T& b, const T& a) const { b = alpha * maybe_conj<T, Conjugate>(a) + beta * b; }
};

/// Calls run(f) with the element operation of (alpha, beta, conjugate): a plain copy when it is one
/// (alpha 1, beta 0, no conjugation: the section assignment, messages in place where they can be),
/// else one of four operations, so that no branch is taken per element.
template <class T, class Run> void with_element_op(T alpha, T beta, bool conjugate, Run&& run) {
  const bool conj = conjugate && IsComplex<T>::value;
  if (alpha == T(1) && beta == T(0) && !conj)
    run(Assign{});
  else if (beta == T(0))
    conj ? run(ScaleInto<T, true>{alpha}) : run(ScaleInto<T, false>{alpha});
  else
    conj ? run(AddInto<T, true>{alpha, beta}) : run(AddInto<T, false>{alpha, beta});
}

/// Appends a scalar's bytes to the agreement words (every rank must pass the same alpha and beta).
template <class T> void add_scalar_words(AgreementWords& w, const T& x, const char* name) {
  constexpr std::size_t words = (sizeof(T) + sizeof(std::int64_t) - 1) / sizeof(std::int64_t);
  std::int64_t v[words] = {};
  std::memcpy(v, &x, sizeof(T));
  for (std::size_t k = 0; k < words; ++k)
    w.add(v[k], [&] { return std::string(name) + (words > 1 ? "[" + std::to_string(k) + "]" : ""); });
}

} // namespace detail

namespace detail {

/// The body of every hpf::transform: `problem` is this rank's argument error found before, if any,
/// made every rank's error by the agreement.
template <class T, int N> void transform(DistArray<T, N>& B, const Section<N>& sb, const DistArray<T, N>& A,
                                         const Section<N>& sa, const std::optional<Permutation<N>>& perm,
                                         T alpha, T beta, bool conjugate, std::string problem) {
  const SectionOptions opt = array_section_options(B.layout().grid().comm());
  // Whole arrays of one layout, dimensions in order: every element stays where it is, and the
  // transform is one loop over the local blocks, as pdgeadd's on its own layout. Decided from the
  // arguments, which the agreement below checks are every rank's.
  bool in_order = true;
  for (int d = 0; perm && d < N; ++d) in_order = in_order && (*perm)[static_cast<std::size_t>(d)] == d;
  const bool elementwise = problem.empty() && in_order && !A.has_shadow() && !B.has_shadow() &&
                           sb == whole_section<N>(B.layout().extents()) &&
                           sa == whole_section<N>(A.layout().extents()) && A.layout() == B.layout();
  with_element_op<T>(alpha, beta, conjugate, [&](const auto& f) {
    constexpr bool combining = !std::is_same_v<std::remove_cvref_t<decltype(f)>, Assign>;
    const auto scalars = [&](AgreementWords& w) {
      add_scalar_words(w, alpha, "alpha");
      add_scalar_words(w, beta, "beta");
      w.add(conjugate ? 1 : 0, [] { return std::string("conjugate"); });
    };
    if (elementwise) {
      check_same_assignment<T, N>(B.layout(), sb, A.layout(), sa, perm, opt, "hpf::transform", problem,
                                  scalars);
      T* b = B.local_data();
      const T* a = A.local_data();
      const index_t n = B.local_size();
      for (index_t i = 0; i < n; ++i) f(b[i], a[i]);
      return;
    }
    std::shared_ptr<const SectionPlan<T, N>> plan;
    if (problem.empty())
      plan = prepared_section_plan<T, N>(B.layout(), sb, A.layout(), sa, perm, opt, problem, combining);
    check_same_assignment<T, N>(B.layout(), sb, A.layout(), sa, perm, opt, "hpf::transform", problem,
                                scalars);
    plan->execute(B, A, f);
  });
}

} // namespace detail

/// Collective over the parent communicator of both grids (every rank of it calls, in or out of either
/// grid): B(sb) = alpha op(A(sa)) + beta B(sb), where B's dimension d takes A's dimension perm[d] and
/// op conjugates complex elements when `conjugate`. With beta == 0 B's old values are not read.
/// Elements of B outside sb are unchanged; A and B may be the same array (A(sa) is read first). The
/// plan is cached like hpf::assign's. Throws hpf::Error on every rank, with B unchanged, for the
/// errors of hpf::assign, or unless every rank passed the same arguments, alpha, beta and conjugate
/// included.
template <class T, int N> void transform(DistArray<T, N>& B, const Section<N>& sb, const DistArray<T, N>& A,
                                         const Section<N>& sa, const Permutation<N>& perm,
                                         std::type_identity_t<T> alpha, std::type_identity_t<T> beta,
                                         bool conjugate = false) {
  detail::transform<T, N>(B, sb, A, sa, perm, alpha, beta, conjugate, {});
}

/// Collective, as above, pairing the sections' dimensions as Fortran does (hpf::assign without a
/// permutation: dimensions of extent 1 may be dropped on either side).
template <class T, int N> void transform(DistArray<T, N>& B, const Section<N>& sb, const DistArray<T, N>& A,
                                         const Section<N>& sa, std::type_identity_t<T> alpha,
                                         std::type_identity_t<T> beta, bool conjugate = false) {
  detail::transform<T, N>(B, sb, A, sa, std::nullopt, alpha, beta, conjugate, {});
}

/// Collective: B = alpha op(A) + beta B for whole arrays (ScaLAPACK's pdgeadd for MatrixOp::None,
/// pdtran for Transpose, pztranc for ConjTranspose). A transpose needs N == 2 and B's extents (n1, n0)
/// for A's (n0, n1); MatrixOp::None any N and equal extents. Throws hpf::Error on every rank otherwise.
template <class T, int N> void transform(DistArray<T, N>& B, const DistArray<T, N>& A, MatrixOp op,
                                         std::type_identity_t<T> alpha, std::type_identity_t<T> beta) {
  Permutation<N> perm{};
  for (int d = 0; d < N; ++d) perm[static_cast<std::size_t>(d)] = d;
  std::string problem;
  if (op != MatrixOp::None && N != 2)
    problem = "hpf::transform: op must be MatrixOp::None for an array of " + std::to_string(N) +
              " dimensions, got a transpose; expected N == 2";
  else if (op != MatrixOp::None)
    std::swap(perm[0], perm[N - 1]);
  detail::transform<T, N>(B, whole_section<N>(B.layout().extents()), A,
                          whole_section<N>(A.layout().extents()), perm, alpha, beta,
                          op == MatrixOp::ConjTranspose, problem);
}

} // namespace hpf
