#include <hpf/core/error.hpp>
#include <hpf/layout/distribution.hpp>

#include <algorithm>

namespace hpf {

namespace {

/// FNV-1a over the kind and the words of a table: cheap, and the same on every rank.
template <class V> std::uint64_t table_hash(Distribution::Kind k, const V& v) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&](std::uint64_t w) {
    for (int b = 0; b < 8; ++b) {
      h ^= (w >> (8 * b)) & 0xffU;
      h *= 1099511628211ULL;
    }
  };
  mix(static_cast<std::uint64_t>(k));
  mix(v.size());
  for (const auto& x : v) mix(static_cast<std::uint64_t>(x));
  return h;
}

const std::vector<index_t> no_sizes;
const std::vector<int> no_owners;

template <class V> std::string list(const V& v) {
  std::string s;
  const std::size_t shown = std::min<std::size_t>(v.size(), 8);
  // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, a false positive, its bug 105651) on
  // `const char* + std::string&&`.
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) s += ',';
    s += std::to_string(v[i]);
  }
  if (shown < v.size()) {
    s += ",... (";
    s += std::to_string(v.size());
    s += " entries)";
  }
  return s;
}

} // namespace

Distribution Block() noexcept { return {Distribution::Kind::Block, 0}; }

Distribution Cyclic(index_t r) {
  detail::require(r >= 1, "Cyclic(r): block size must be >= 1, got ", r);
  return {Distribution::Kind::Cyclic, r};
}

Distribution Collapsed() noexcept { return {Distribution::Kind::Collapsed, 0}; }

Distribution GenBlock(std::vector<index_t> sizes) {
  for (std::size_t p = 0; p < sizes.size(); ++p)
    detail::require(sizes[p] >= 0, "GenBlock(sizes): sizes[", p, "] must be >= 0, got ", sizes[p]);
  Distribution d(Distribution::Kind::GenBlock, 0);
  d.m_hash = table_hash(d.m_kind, sizes);
  d.m_sizes = std::make_shared<const std::vector<index_t>>(std::move(sizes));
  return d;
}

Distribution Indirect(std::vector<int> owners) {
  for (std::size_t i = 0; i < owners.size(); ++i)
    detail::require(owners[i] >= 0, "Indirect(owners): owners[", i, "] must be a grid coordinate >= 0, got ",
                    owners[i]);
  Distribution d(Distribution::Kind::Indirect, 0);
  d.m_hash = table_hash(d.m_kind, owners);
  d.m_owners = std::make_shared<const std::vector<int>>(std::move(owners));
  return d;
}

const std::vector<index_t>& Distribution::sizes() const noexcept { return m_sizes ? *m_sizes : no_sizes; }
const std::vector<int>& Distribution::owners() const noexcept { return m_owners ? *m_owners : no_owners; }

CyclicMap Distribution::map(index_t n, int P) const {
  switch (m_kind) {
  case Kind::Cyclic:
    return {n, P, m_block, {}};
  case Kind::Block:
    return {n, P, std::max<index_t>(1, detail::ceil_div(n, P)), {}};
  case Kind::Collapsed:
    break;
  case Kind::GenBlock: {
    const auto& b = sizes();
    detail::require(b.size() == static_cast<std::size_t>(P), "GenBlock(sizes): got ", b.size(),
                    " sizes for a dimension over ", P, " processes; expected one size per process (", P, ")");
    auto t = std::make_shared<IrregularTables>();
    t->kind = IrregularTables::Kind::GenBlock;
    t->hash = m_hash;
    t->offset.assign(b.size() + 1, 0);
    index_t largest = 1;
    for (std::size_t p = 0; p < b.size(); ++p) {
      t->offset[p + 1] = detail::checked_add(t->offset[p], b[p], "GenBlock(sizes): the sum of the sizes");
      largest = std::max(largest, b[p]);
    }
    detail::require(t->offset.back() == n, "GenBlock(sizes): the sizes (", list(b), ") sum to ",
                    t->offset.back(), "; expected the extent of the dimension, ", n);
    return {n, P, largest, std::move(t)};
  }
  case Kind::Indirect: {
    const auto& o = owners();
    detail::require(static_cast<index_t>(o.size()) == n, "Indirect(owners): the table has ", o.size(),
                    " entries; expected one per index of the dimension (", n, ")");
    auto t = std::make_shared<IrregularTables>();
    t->kind = IrregularTables::Kind::Indirect;
    t->hash = m_hash;
    t->owner = o;
    t->first.assign(static_cast<std::size_t>(P) + 1, 0);
    for (std::size_t i = 0; i < o.size(); ++i) {
      detail::require(o[i] < P, "Indirect(owners): owners[", i, "] = ", o[i],
                      " is outside the process grid; expected a coordinate in [0, ", P, ")");
      ++t->first[static_cast<std::size_t>(o[i]) + 1];
    }
    for (std::size_t p = 0; p < static_cast<std::size_t>(P); ++p) t->first[p + 1] += t->first[p];
    t->globals.resize(o.size());
    t->local.resize(o.size());
    std::vector<index_t> fill(t->first.begin(), t->first.end() - 1);
    for (std::size_t i = 0; i < o.size(); ++i) {
      const auto p = static_cast<std::size_t>(o[i]);
      t->local[i] = fill[p] - t->first[p];
      t->globals[static_cast<std::size_t>(fill[p]++)] = static_cast<index_t>(i);
    }
    return {n, P, 1, std::move(t)};
  }
  }
  return {n, 1, std::max<index_t>(1, n), {}};
}

std::string Distribution::to_string() const {
  switch (m_kind) {
  case Kind::Cyclic:
    return "CYCLIC(" + std::to_string(m_block) + ")";
  case Kind::Block:
    return "BLOCK";
  case Kind::Collapsed:
    break;
  case Kind::GenBlock:
    return "GEN_BLOCK(" + list(sizes()) + ")";
  case Kind::Indirect:
    return "INDIRECT(" + list(owners()) + ")";
  }
  return "*";
}

} // namespace hpf
