#include <hpf/core/error.hpp>
#include <hpf/layout/distribution.hpp>

#include <algorithm>

namespace hpf {

Distribution Block() noexcept { return {Distribution::Kind::Block, 0}; }

Distribution Cyclic(index_t r) {
  detail::require(r >= 1, "Cyclic(r): block size must be >= 1, got ", r);
  return {Distribution::Kind::Cyclic, r};
}

Distribution Collapsed() noexcept { return {Distribution::Kind::Collapsed, 0}; }

CyclicMap Distribution::map(index_t n, int P) const noexcept {
  switch (m_kind) {
  case Kind::Cyclic:
    return {n, P, m_block};
  case Kind::Block:
    return {n, P, std::max<index_t>(1, detail::ceil_div(n, P))};
  case Kind::Collapsed:
    break;
  }
  return {n, 1, std::max<index_t>(1, n)};
}

std::string Distribution::to_string() const {
  switch (m_kind) {
  case Kind::Cyclic:
    return "CYCLIC(" + std::to_string(m_block) + ")";
  case Kind::Block:
    return "BLOCK";
  case Kind::Collapsed:
    break;
  }
  return "*";
}

} // namespace hpf
