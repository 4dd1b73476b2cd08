// The peers of REDISTRIBUTE that bench_redistribute, bench_redistribute_speed and
// bench_redistribute_sweep share: timing, the data check, the naive MPI_Alltoallv, the
// MPI_Alltoallw over derived datatypes, ScaLAPACK descriptors on BLACS grids, and (when built with
// HPF_BENCH_TPETRA) a Tpetra::Import between two Maps listing the block-cyclic ownership.
// Every layout is on MPI_COMM_WORLD with grid position = rank.
#pragma once

#include "../common/bench_common.hpp"
#include "../common/scalapack.hpp"

#include <hpf/hpf.hpp>
#include <hpf/redist/runs.hpp>

#ifdef HPF_BENCH_TPETRA
#include <Tpetra_Core.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_Vector.hpp>
#endif

#include <algorithm>
#include <array>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace hpf::bench::redist {

/// Seconds of one call of fn on the slowest rank, after a barrier.
template <class Fn> double time_once(Fn&& fn) { return slowest_time(std::forward<Fn>(fn)); }

/// One timed call of `run` (time_once) right after an untimed one, each preceded by `prepare` when it is
/// set (untimed, idempotent: puts the state where `run` starts). The timed call finds the method's own
/// data in the caches, as a program that repeats the call does, and as the standalone programs time
/// their peer.
inline double time_warm(const std::function<void()>& run, const std::function<void()>& prepare = {}) {
  if (prepare) prepare();
  run();
  if (prepare) prepare();
  return time_once(run);
}

/// A comma-separated list of sizes as integers, also written as 1e6. Throws hpf::Error naming `what`.
inline std::vector<index_t> parse_sizes(std::string_view s, std::string_view what) {
  std::vector<index_t> out;
  for (double v : hpf::bench::parse_list<double>(s, what)) out.push_back(static_cast<index_t>(v));
  return out;
}

/// The 1-minute load average (/proc/loadavg), recorded beside results: the machine is shared.
inline double load_average() {
  std::ifstream in("/proc/loadavg");
  double l = -1;
  in >> l;
  return l;
}

inline hpf::Distribution dist_of(index_t b) { return b == 0 ? hpf::Block() : hpf::Cyclic(b); }
inline std::string name_of(index_t b) { return b == 0 ? "BLOCK" : "CYCLIC(" + std::to_string(b) + ")"; }

/// Block size of dimension d of `layout` as ScaLAPACK sees it (hpfrt's BLOCK is CYCLIC(ceil(n/P))).
template <int N> int scalapack_block(const hpf::Layout<N>& layout, int d) {
  return static_cast<int>(std::max<index_t>(1, layout.map(d).r));
}

/// Linear (column-major) global index of every local element of `layout` on this rank, in local
/// storage order (dimension 0 fastest, as DistArray stores it).
template <int N> std::vector<long long> global_ids(const hpf::Layout<N>& layout) {
  std::vector<long long> ids;
  if (!layout.grid().contains_me()) return ids;
  const std::vector<int> c = layout.grid().my_coords();
  const hpf::Index<N> ext = layout.my_local_extents();
  index_t total = 1;
  for (index_t e : ext) total *= e;
  ids.reserve(static_cast<std::size_t>(total));
  hpf::Index<N> l{};
  for (index_t k = 0; k < total; ++k) {
    long long g = 0;
    long long scale = 1;
    for (int d = 0; d < N; ++d) {
      const auto du = static_cast<std::size_t>(d);
      g += static_cast<long long>(layout.map(d).global(layout.coord(c, d), l[du])) * scale;
      scale *= static_cast<long long>(layout.extent(d));
    }
    ids.push_back(g);
    for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
      if (++l[d] < ext[d]) break;
      l[d] = 0;
    }
  }
  return ids;
}

/// Collective: true on every rank when x[l] == ids[l] for every local element on every rank.
inline bool holds(const double* x, const std::vector<long long>& ids) {
  int ok = 1;
  for (std::size_t l = 0; l < ids.size(); ++l) ok = ok && x[l] == static_cast<double>(ids[l]);
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  return ok == 1;
}

/// Each method's own source (holding the global indices of layout a) and preallocated target (layout
/// b), by name: no method runs on memory another one has just warmed, or displaced (on this VM a pass
/// over memory other work has touched costs faults the guest does not see, docs/redistribute.md).
/// References stay valid as methods are added (std::map).
template <int N> class OwnArrays {
public:
  struct Pair {
    hpf::DistArray<double, N> X;
    hpf::DistArray<double, N> Y;
  };
  OwnArrays(hpf::Layout<N> a, hpf::Layout<N> b)
      : m_a(std::move(a)), m_b(std::move(b)), m_ids(global_ids(m_a)) {}

  /// The pair of method `name`, made on first use with X holding its global indices.
  Pair& own(const std::string& name) {
    const auto [it, made] = m_pairs.emplace(name, Pair{{name + ".X", m_a}, {name + ".Y", m_b}});
    if (made) {
      double* x = it->second.X.local_data();
      for (std::size_t l = 0; l < m_ids.size(); ++l) x[l] = static_cast<double>(m_ids[l]);
    }
    return it->second;
  }
  /// The pair of method `name`, or null when it has none.
  [[nodiscard]] Pair* find(const std::string& name) {
    const auto it = m_pairs.find(name);
    return it == m_pairs.end() ? nullptr : &it->second;
  }

private:
  hpf::Layout<N> m_a;
  hpf::Layout<N> m_b;
  std::vector<long long> m_ids;
  std::map<std::string, Pair> m_pairs;
};

/// The naive MPI_Alltoallv redistribution of an N-d array between two layouts on the same ranks
/// (grid position = rank): owner and global index computed per element on both sides, what most codes
/// do. Buffers are kept between calls, so that only the method is compared.
template <int N> class NaiveAlltoallv {
public:
  NaiveAlltoallv(const hpf::Layout<N>& src, const hpf::Layout<N>& dst) : m_src(src), m_dst(dst) {
    m_size = src.grid().size();
    m_me = src.grid().my_position();
    m_sc.assign(static_cast<std::size_t>(m_size), 0);
    m_rc = m_sd = m_rd = m_pos = m_sc;
  }

  void run(const double* a, double* b) {
    const hpf::Index<N> se = m_src.local_extents(m_me);
    const hpf::Index<N> de = m_dst.local_extents(m_me);
    const std::vector<int> sc = m_src.grid().coords_of(m_me);
    const std::vector<int> dc = m_dst.grid().coords_of(m_me);
    std::fill(m_sc.begin(), m_sc.end(), 0);
    walk(m_src, sc, se, m_dst, [&](index_t, int q) { ++m_sc[static_cast<std::size_t>(q)]; });
    HPF_MPI_CHECK(MPI_Alltoall(m_sc.data(), 1, MPI_INT, m_rc.data(), 1, MPI_INT, MPI_COMM_WORLD));
    int so = 0;
    int ro = 0;
    for (std::size_t k = 0; k < m_sc.size(); ++k) {
      m_sd[k] = so;
      m_rd[k] = ro;
      so += m_sc[k];
      ro += m_rc[k];
    }
    m_sbuf.resize(static_cast<std::size_t>(so));
    m_rbuf.resize(static_cast<std::size_t>(ro));
    m_pos = m_sd;
    walk(m_src, sc, se, m_dst, [&](index_t l, int q) {
      m_sbuf[static_cast<std::size_t>(m_pos[static_cast<std::size_t>(q)]++)] = a[l];
    });
    HPF_MPI_CHECK(MPI_Alltoallv(m_sbuf.data(), m_sc.data(), m_sd.data(), MPI_DOUBLE, m_rbuf.data(),
                                m_rc.data(), m_rd.data(), MPI_DOUBLE, MPI_COMM_WORLD));
    m_pos = m_rd;
    walk(m_dst, dc, de, m_src, [&](index_t l, int p) {
      b[l] = m_rbuf[static_cast<std::size_t>(m_pos[static_cast<std::size_t>(p)]++)];
    });
  }

private:
  /// fn(local offset, owner in `other`) for every local element of `mine` in local (= global) order.
  template <class Fn> static void walk(const hpf::Layout<N>& mine, const std::vector<int>& c,
                                       const hpf::Index<N>& ext, const hpf::Layout<N>& other, Fn&& fn) {
    index_t total = 1;
    for (index_t e : ext) total *= e;
    std::array<hpf::CyclicMap, N> m{};
    std::array<hpf::CyclicMap, N> o{};
    std::array<int, N> my{};
    std::array<int, N> stride{};
    int st = 1;
    for (int d = 0; d < N; ++d) {
      const auto du = static_cast<std::size_t>(d);
      m[du] = mine.map(d);
      o[du] = other.map(d);
      my[du] = mine.coord(c, d);
      stride[du] = st;
      st *= o[du].P;
    }
    hpf::Index<N> l{};
    for (index_t k = 0; k < total; ++k) {
      int owner = 0;
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d)
        owner += o[d].owner(m[d].global(my[d], l[d])) * stride[d];
      fn(k, owner);
      for (std::size_t d = 0; d < static_cast<std::size_t>(N); ++d) {
        if (++l[d] < ext[d]) break;
        l[d] = 0;
      }
    }
  }

  hpf::Layout<N> m_src;
  hpf::Layout<N> m_dst;
  int m_size = 0;
  int m_me = 0;
  std::vector<int> m_sc, m_rc, m_sd, m_rd, m_pos;
  std::vector<double> m_sbuf, m_rbuf;
};

/// The MPI_Alltoallw peer (1-D): one derived datatype per (sender, receiver) pair listing the
/// elements' local offsets (MPI_Type_indexed over the runs, built once), so MPI packs and unpacks; no
/// packing in hpfrt. Both layouts on all ranks of MPI_COMM_WORLD, in rank order.
class Alltoallw {
public:
  Alltoallw(const hpf::Layout<1>& a, const hpf::Layout<1>& b, int P, int me)
      : m_counts(static_cast<std::size_t>(P), 0), m_zero(static_cast<std::size_t>(P), 0),
        m_send(static_cast<std::size_t>(P), MPI_DOUBLE), m_recv(static_cast<std::size_t>(P), MPI_DOUBLE),
        m_rcounts(static_cast<std::size_t>(P), 0) {
    const auto from = hpf::runs_from(a.map(0), b.map(0), me);
    const auto to = hpf::runs_to(a.map(0), b.map(0), me);
    for (int k = 0; k < P; ++k) {
      const auto ks = static_cast<std::size_t>(k);
      if (!from[ks].empty()) {
        m_send[ks] = indexed(from[ks], true);
        m_counts[ks] = 1;
      }
      if (!to[ks].empty()) {
        m_recv[ks] = indexed(to[ks], false);
        m_rcounts[ks] = 1;
      }
    }
  }
  Alltoallw(const Alltoallw&) = delete;
  Alltoallw& operator=(const Alltoallw&) = delete;
  ~Alltoallw() {
    for (MPI_Datatype& t : m_owned) MPI_Type_free(&t);
  }
  void run(const double* src, double* dst) {
    HPF_MPI_CHECK(MPI_Alltoallw(src, m_counts.data(), m_zero.data(), m_send.data(), dst, m_rcounts.data(),
                                m_zero.data(), m_recv.data(), MPI_COMM_WORLD));
  }

private:
  MPI_Datatype indexed(const std::vector<hpf::Run>& runs, bool source_side) {
    std::vector<int> len;
    std::vector<int> disp;
    for (const hpf::Run& r : runs) {
      len.push_back(static_cast<int>(r.len));
      disp.push_back(static_cast<int>(source_side ? r.src_local : r.dst_local));
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    HPF_MPI_CHECK(MPI_Type_indexed(static_cast<int>(len.size()), len.data(), disp.data(), MPI_DOUBLE, &t));
    HPF_MPI_CHECK(MPI_Type_commit(&t));
    m_owned.push_back(t);
    return t;
  }
  std::vector<int> m_counts;
  std::vector<int> m_zero; // byte displacements: the types carry the offsets
  std::vector<MPI_Datatype> m_send;
  std::vector<MPI_Datatype> m_recv;
  std::vector<int> m_rcounts;
  std::vector<MPI_Datatype> m_owned;
};

/// A BLACS grid of nprow x npcol in column-major order (process (i, j) = rank i + j nprow), which is
/// hpf::ProcessGrid's Fortran order.
struct BlacsGrid {
  int ctxt = -1;
  int nprow = 0;
  int npcol = 0;
  int myrow = -1;
  int mycol = -1;
  BlacsGrid(int rows, int cols) {
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "C", rows, cols);
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  }
  BlacsGrid(const BlacsGrid&) = delete;
  BlacsGrid& operator=(const BlacsGrid&) = delete;
  ~BlacsGrid() { Cblacs_gridexit(ctxt); }
};

/// ScaLAPACK descriptor of an m x n matrix with blocks mb x nb on `g` (local leading dimension from
/// numroc_, as ScaLAPACK's documentation computes it).
inline std::array<int, 9> descriptor(const BlacsGrid& g, int m, int n, int mb, int nb) {
  std::array<int, 9> desc{};
  const int zero = 0;
  const int lld = std::max(1, numroc_(&m, &mb, &g.myrow, &zero, &g.nprow));
  int info = 0;
  descinit_(desc.data(), &m, &n, &mb, &nb, &zero, &zero, &g.ctxt, &lld, &info);
  hpf::detail::require(info == 0, "descinit_ failed with info ", info);
  return desc;
}

/// Local elements of an m x n matrix with blocks mb x nb on `g` (at least 1, as a user allocates).
inline std::size_t scalapack_local_size(const BlacsGrid& g, int m, int n, int mb, int nb) {
  const int zero = 0;
  const long long rows = numroc_(&m, &mb, &g.myrow, &zero, &g.nprow);
  const long long cols = numroc_(&n, &nb, &g.mycol, &zero, &g.npcol);
  return static_cast<std::size_t>(std::max(1LL, rows * cols));
}

#ifdef HPF_BENCH_TPETRA
/// Tpetra as a Trilinos user would redistribute: two Maps whose global IDs list the block-cyclic
/// ownership (in the local storage order of the hpfrt layouts), one Import built once, and
/// Vector::doImport with INSERT. run() is the doImport alone; load() copies an hpfrt local block into
/// the source vector (untimed), result() is the target vector's local data.
class TpetraImport {
public:
  using map_type = Tpetra::Map<>;
  using GO = map_type::global_ordinal_type;

  template <int N> TpetraImport(const hpf::Layout<N>& a, const hpf::Layout<N>& b) {
    auto comm = Tpetra::getDefaultComm();
    const auto n = static_cast<Tpetra::global_size_t>(a.global_size());
    const std::vector<long long> sa = global_ids(a);
    const std::vector<long long> sb = global_ids(b);
    const std::vector<GO> ga(sa.begin(), sa.end());
    const std::vector<GO> gb(sb.begin(), sb.end());
    m_source = Teuchos::rcp(new map_type(n, Teuchos::ArrayView<const GO>(ga), 0, comm));
    m_target = Teuchos::rcp(new map_type(n, Teuchos::ArrayView<const GO>(gb), 0, comm));
    m_import = Teuchos::rcp(new Tpetra::Import<>(m_source, m_target));
    m_x = Teuchos::rcp(new Tpetra::Vector<double>(m_source));
    m_y = Teuchos::rcp(new Tpetra::Vector<double>(m_target));
  }
  void load(const double* src) {
    auto x = m_x->getDataNonConst();
    std::copy(src, src + x.size(), x.begin());
  }
  void run() { m_y->doImport(*m_x, *m_import, Tpetra::INSERT); }
  [[nodiscard]] Teuchos::ArrayRCP<const double> result() const { return m_y->getData(); }

private:
  Teuchos::RCP<const map_type> m_source;
  Teuchos::RCP<const map_type> m_target;
  Teuchos::RCP<Tpetra::Import<>> m_import;
  Teuchos::RCP<Tpetra::Vector<double>> m_x;
  Teuchos::RCP<Tpetra::Vector<double>> m_y;
};
#endif

} // namespace hpf::bench::redist
