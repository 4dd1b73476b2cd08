// Routing models of RS_NL (Wang and Ranka §5): every path is a walk over existing links from src to dst,
// in the model's order (e-cube: lowest differing bit first; mesh: x before y), of minimal length.
#include <hpf/core/error.hpp>
#include <hpf/schedule/routing.hpp>

#include "hpf_test.hpp"

#include <bit>
#include <cstdlib>

namespace {

using hpf::Routing;

/// Walks `path` hop by hop with link_endpoints and returns the nodes visited (src first).
std::vector<int> walk(const Routing& r, int src, int dst) {
  std::vector<int> nodes{src};
  for (int l : r.path(src, dst)) {
    const auto [from, to] = r.link_endpoints(l);
    EXPECT_EQ(from, nodes.back()) << r.describe() << " path " << src << "->" << dst << " is not contiguous";
    EXPECT_GE(to, 0) << r.describe() << ": link " << l << " leaves the mesh";
    nodes.push_back(to);
  }
  EXPECT_EQ(nodes.back(), dst) << r.describe() << " path " << src << "->" << dst << " ends elsewhere";
  return nodes;
}

TEST(Routing, HypercubeIsECube) {
  for (int n : {1, 2, 8, 32}) {
    const Routing r = Routing::hypercube(n);
    for (int s = 0; s < n; ++s)
      for (int t = 0; t < n; ++t) {
        const std::vector<int> nodes = walk(r, s, t);
        ASSERT_EQ(static_cast<int>(nodes.size()) - 1, std::popcount(static_cast<unsigned>(s ^ t)));
        // Bits are fixed from the least significant upwards: the flipped bit grows along the path.
        for (std::size_t h = 2; h < nodes.size(); ++h)
          EXPECT_LT(nodes[h - 1] ^ nodes[h - 2], nodes[h] ^ nodes[h - 1]);
      }
  }
}

TEST(Routing, MeshIsDimensionOrdered) {
  for (auto [rows, cols] : {std::pair{1, 1}, {3, 4}, {4, 4}, {2, 7}}) {
    const Routing r = Routing::mesh2d(rows, cols);
    EXPECT_EQ(r.num_nodes(), rows * cols);
    for (int s = 0; s < rows * cols; ++s)
      for (int t = 0; t < rows * cols; ++t) {
        const std::vector<int> nodes = walk(r, s, t);
        const int manhattan = std::abs(s % cols - t % cols) + std::abs(s / cols - t / cols);
        ASSERT_EQ(static_cast<int>(nodes.size()) - 1, manhattan);
        // x first: once the row changes, the column never changes again.
        bool moved_y = false;
        for (std::size_t h = 1; h < nodes.size(); ++h) {
          const bool y_step = nodes[h] / cols != nodes[h - 1] / cols;
          EXPECT_FALSE(moved_y && !y_step) << "x hop after a y hop on " << s << "->" << t;
          moved_y = moved_y || y_step;
        }
      }
  }
  const Routing sq = Routing::mesh2d(64);
  EXPECT_EQ(sq.rows(), 8);
  EXPECT_EQ(sq.cols(), 8);
  const Routing prime = Routing::mesh2d(7);
  EXPECT_EQ(prime.rows(), 1);
  EXPECT_EQ(prime.cols(), 7);
}

TEST(Routing, FullHasOneLinkPerPair) {
  const Routing r = Routing::full(5);
  for (int s = 0; s < 5; ++s)
    for (int t = 0; t < 5; ++t) {
      const std::vector<int> nodes = walk(r, s, t);
      EXPECT_EQ(nodes.size(), s == t ? 1U : 2U);
    }
}

TEST(Routing, BadInputs) {
  HPF_EXPECT_ERROR((void)Routing::hypercube(6), "power of two", "6");
  HPF_EXPECT_ERROR((void)Routing::mesh2d(0, 3), "rows", "0");
  HPF_EXPECT_ERROR((void)Routing::full(4).path(0, 4), "dst", "[0, 4)", "4");
  HPF_EXPECT_ERROR((void)hpf::parse_routing_kind("torus", "--routing"), "--routing", "torus");
  EXPECT_EQ(hpf::parse_routing_kind("mesh2d"), hpf::RoutingKind::Mesh2D);
}

} // namespace
