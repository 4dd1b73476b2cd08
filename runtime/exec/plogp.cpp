// pLogP: validation and piecewise-linear interpolation of the measured samples. Pure.
#include <hpf/exec/plogp.hpp>

#include <hpf/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

namespace hpf {

PLogP::PLogP(double L, std::vector<PLogPSample> samples) : m_L(L), m_samples(std::move(samples)) {
  detail::require(std::isfinite(L) && L >= 0, "PLogP: latency L must be finite and >= 0, got ", L);
  detail::require(!m_samples.empty(), "PLogP: samples must hold at least one message size, got none");
  for (std::size_t i = 0; i < m_samples.size(); ++i) {
    const PLogPSample& s = m_samples[i];
    detail::require(i == 0 || s.m > m_samples[i - 1].m, "PLogP: sample sizes must increase strictly, got ",
                    s.m, " after ", i == 0 ? 0 : m_samples[i - 1].m);
    for (auto [name, v] : {std::pair{"g", s.g}, std::pair{"os", s.os}, std::pair{"or", s.orr}})
      detail::require(std::isfinite(v) && v >= 0, "PLogP: ", name, "(", s.m,
                      ") must be finite and >= 0, got ", v);
  }
}

PLogP PLogP::linear(double L, double g0, double G) {
  detail::require(std::isfinite(G) && G >= 0, "PLogP::linear: gap per byte G must be finite and >= 0, got ",
                  G);
  return PLogP(L, {PLogPSample{0, g0, 0, 0}, PLogPSample{1, g0 + G, 0, 0}});
}

namespace {
/// Piecewise-linear interpolation of field `f` at m; linear extrapolation outside, clamped at 0.
template <class F> double interpolate(const std::vector<PLogPSample>& s, std::size_t m, F f) {
  if (s.size() == 1) return f(s[0]);
  // Segment [i, i+1] containing m, or the first / last segment for extrapolation.
  std::size_t i = 0;
  while (i + 2 < s.size() && m > s[i + 1].m) ++i;
  const double x0 = static_cast<double>(s[i].m), x1 = static_cast<double>(s[i + 1].m);
  const double y0 = f(s[i]), y1 = f(s[i + 1]);
  const double y = y0 + (y1 - y0) * ((static_cast<double>(m) - x0) / (x1 - x0));
  return std::max(y, 0.0);
}
} // namespace

double PLogP::g(std::size_t m) const {
  return interpolate(m_samples, m, [](const PLogPSample& s) { return s.g; });
}
double PLogP::os(std::size_t m) const {
  return interpolate(m_samples, m, [](const PLogPSample& s) { return s.os; });
}
double PLogP::orr(std::size_t m) const {
  return interpolate(m_samples, m, [](const PLogPSample& s) { return s.orr; });
}

} // namespace hpf
