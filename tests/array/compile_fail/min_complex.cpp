// Must not compile: hpf::min needs an ordered element type, and std::complex has no operator<.
// tests/array/CMakeLists.txt builds this and expects the static_assert's message.
#include <hpf/hpf.hpp>

#include <complex>

std::complex<double> smallest(const hpf::DistArray<std::complex<double>, 1>& A) { return hpf::min(A); }
