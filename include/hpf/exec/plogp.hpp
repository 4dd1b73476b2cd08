// The parameterized LogP model (pLogP, Kielmann et al.) that Steffenel ("Adaptive collective
// communications on heterogeneous hierarchical networks", INRIA RR-6036) uses for every
// prediction: L is the end-to-end latency, g(m) the gap of an m-byte message (the minimum time between
// two consecutive sends or receives of that size), os(m) / or(m) the send / receive overheads.
//
// The parameters are measured at a few message sizes; between them they are interpolated linearly,
// beyond the first or last measured size extrapolated from the two nearest samples (clamped at 0).
//
// Part of the machine model of exec/ (exec/model.hpp), which measures it. Pure data: no MPI, no I/O. Times
// are in seconds (any unit works as long as it is consistent).
#pragma once

#include <cstddef>
#include <vector>

namespace hpf {

/// pLogP values measured for one message size (bytes).
struct PLogPSample {
  /// Message size in bytes.
  std::size_t m = 0;
  double g = 0;   ///< gap g(m)
  double os = 0;  ///< send overhead os(m)
  double orr = 0; ///< receive overhead or(m) ("or" is a C++ keyword)
  /// Member-wise equality.
  friend bool operator==(const PLogPSample&, const PLogPSample&) = default;
};

/// L and the per-size samples of g, os, or.
class PLogP {
public:
  /// Throws hpf::Error unless L is finite and >= 0, `samples` is non-empty with strictly increasing
  /// sizes, and every g, os, or is finite and >= 0.
  PLogP(double L, std::vector<PLogPSample> samples);
  /// g(m) = g0 + G m (os = or = 0): the linear model used by the simulations and the CLI.
  static PLogP linear(double L, double g0, double G);

  /// End-to-end latency L.
  [[nodiscard]] double L() const noexcept { return m_L; }
  /// Gap g(m) of an m-byte message, interpolated between the samples (see the header comment).
  [[nodiscard]] double g(std::size_t m) const;
  /// Send overhead os(m), interpolated likewise.
  [[nodiscard]] double os(std::size_t m) const;
  /// Receive overhead or(m), interpolated likewise.
  [[nodiscard]] double orr(std::size_t m) const;
  /// The measured samples, by increasing size.
  [[nodiscard]] const std::vector<PLogPSample>& samples() const noexcept { return m_samples; }

  /// Member-wise equality.
  friend bool operator==(const PLogP&, const PLogP&) = default;

private:
  double m_L = 0;
  std::vector<PLogPSample> m_samples;
};

} // namespace hpf
