// A local FFTW transform along some dimensions of a distributed complex array, for the FFT examples of
// examples/hpcc. Those dimensions must be held whole on every rank (Collapsed in the array's layout);
// the other owned dimensions are FFTW's "howmany" loops, so one plan covers the local block at any
// strides. The plan is made on the array's storage: keep the array in place (fill it with
// DistArray::redistribute_into or hpf::assign, which keep local_data(), not with redistribute()).
#pragma once

#include "common.hpp"

#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <stdexcept>
#include <vector>

using cplx = std::complex<double>;

template <int N> class FftAlong {
public:
  /// The multi-dimensional DFT along `dims` (each held whole: Collapsed). sign: FFTW_FORWARD or
  /// FFTW_BACKWARD; flags: FFTW_ESTIMATE, or FFTW_MEASURE before the array is filled (measuring
  /// overwrites it). Not collective.
  FftAlong(hpf::DistArray<cplx, N>& A, const std::vector<int>& dims, int sign,
           unsigned flags = FFTW_ESTIMATE) {
    const hpf::Index<N> own = A.owned_extents();
    fftw_iodim along[N]{}, loops[N]{};
    int strides[N]{}, na = 0, nl = 0;
    for (int e = 0, stride = 1; e < N; stride *= static_cast<int>(own[e]), ++e) strides[e] = stride;
    for (int e = N; e-- > 0;) { // slowest first, as FFTW lists dimensions
      const fftw_iodim dim{static_cast<int>(own[e]), strides[e], strides[e]};
      if (std::find(dims.begin(), dims.end(), e) != dims.end())
        along[na++] = dim;
      else
        loops[nl++] = dim;
    }
    auto* data = reinterpret_cast<fftw_complex*>(A.local_data()); // std::complex has FFTW's layout
    if (A.local_size() > 0) m_plan = fftw_plan_guru_dft(na, along, nl, loops, data, data, sign, flags);
    if (A.local_size() > 0 && m_plan == nullptr) throw std::runtime_error("FFTW made no plan");
  }
  FftAlong(const FftAlong&) = delete;
  FftAlong& operator=(const FftAlong&) = delete;
  ~FftAlong() {
    if (m_plan != nullptr) fftw_destroy_plan(m_plan);
  }
  /// Transforms the local block in place. Not collective.
  void operator()() const {
    if (m_plan != nullptr) fftw_execute(m_plan);
  }

private:
  fftw_plan m_plan = nullptr;
};
