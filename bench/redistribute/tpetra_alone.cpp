// bench_redistribute_tpetra_alone: the minimal standalone Tpetra program that the Tpetra peer of
// bench_redistribute_sweep is cross-checked against. Nothing of hpfrt: Tpetra's own
// ScopeGuard, two Maps listing the block-cyclic ownership by their global IDs, one Import, and
// Vector::doImport with INSERT, as Tpetra's examples call them. Only doImport is timed (largest over
// ranks after a barrier, median of --repeats); the result is checked once per case.
//
// 1-D: every (r, s, M) of the lists, CYCLIC(r) -> CYCLIC(s) on all ranks (0 = BLOCK, ceil(M/P)).
// 2-D (--n2d n): an n x n matrix (column-major, global ID i + j n), blocks r2d x r2d on a P x 1 grid
// -> s2d x s2d on a 1 x P grid (COSTA's case with n = 8000, 36 -> 128, P = 2).
//
//   mpirun -n 2 bench_redistribute_tpetra_alone [--M 1e3,1e5] [--r 1,3] [--s 5] [--repeats 9]
//              [--n2d 8000 --r2d 36 --s2d 128] [--csv out.csv]
#include <Teuchos_Array.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_Vector.hpp>
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using map_type = Tpetra::Map<>;
using vector_type = Tpetra::Vector<double>;
using GO = map_type::global_ordinal_type;

/// Thrown for an option value that is not a whole number >= 0 (main prints it and exits with 2).
struct BadOption {
  std::string message;
};

/// A whole number >= 0, also written as 1e3; the whole text must be the number.
long long parse_count(const std::string& text, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !(v >= 0) || v > 1e18 ||
      v != std::floor(v))
    throw BadOption{what + ": expected a whole number >= 0 (e.g. 1000 or 1e3), got '" + text + "'"};
  return static_cast<long long>(v);
}

/// A comma-separated list of parse_count values.
std::vector<long long> parse_list(const std::string& text, const std::string& what) {
  std::vector<long long> out;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    out.push_back(parse_count(text.substr(start, comma - start), what));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

/// Global indices that process p of P owns under CYCLIC(b) of n elements (b = 0: BLOCK), ascending.
std::vector<long long> owned(long long n, long long b, int P, int p) {
  if (b == 0) b = std::max(1LL, (n + P - 1) / P);
  std::vector<long long> g;
  for (long long start = static_cast<long long>(p) * b; start < n; start += b * P)
    for (long long i = start; i < std::min(n, start + b); ++i) g.push_back(i);
  return g;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

/// Imports a vector holding its global IDs from `src` GIDs to `dst` GIDs, times doImport and checks.
double run(long long n, const std::vector<GO>& src, const std::vector<GO>& dst, int repeats, bool& ok) {
  auto comm = Tpetra::getDefaultComm();
  const auto gn = static_cast<Tpetra::global_size_t>(n);
  auto source = Teuchos::rcp(new map_type(gn, Teuchos::ArrayView<const GO>(src), 0, comm));
  auto target = Teuchos::rcp(new map_type(gn, Teuchos::ArrayView<const GO>(dst), 0, comm));
  Tpetra::Import<> importer(source, target);
  vector_type x(source);
  vector_type y(target);
  {
    auto xd = x.getDataNonConst();
    for (std::size_t l = 0; l < src.size(); ++l)
      xd[static_cast<Teuchos::Ordinal>(l)] = static_cast<double>(src[l]);
  }
  std::vector<double> t;
  for (int k = 0; k <= repeats; ++k) { // call 0 is the warm-up
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    y.doImport(x, importer, Tpetra::INSERT);
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (k > 0) t.push_back(dt);
  }
  int good = 1;
  auto yd = y.getData();
  for (std::size_t l = 0; l < dst.size(); ++l)
    good = good && yd[static_cast<Teuchos::Ordinal>(l)] == static_cast<double>(dst[l]);
  MPI_Allreduce(MPI_IN_PLACE, &good, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  ok = ok && good == 1;
  return median(t);
}

} // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard tpetra(&argc, &argv);
  std::vector<long long> Ms{8000000};
  std::vector<long long> rs{3};
  std::vector<long long> ss{5};
  long long n2d = 0;
  long long r2d = 36;
  long long s2d = 128;
  int repeats = 9;
  std::string csv;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const std::string v = argv[i + 1];
    try {
      if (k == "--M")
        Ms = parse_list(v, k);
      else if (k == "--r")
        rs = parse_list(v, k);
      else if (k == "--s")
        ss = parse_list(v, k);
      else if (k == "--n2d")
        n2d = parse_count(v, k);
      else if (k == "--r2d")
        r2d = parse_count(v, k);
      else if (k == "--s2d")
        s2d = parse_count(v, k);
      else if (k == "--repeats") {
        const long long n = parse_count(v, k);
        if (n < 1 || n > 1000000) throw BadOption{"--repeats: must be in [1, 1000000], got " + v};
        repeats = static_cast<int>(n);
      } else if (k == "--csv")
        csv = v;
      else {
        std::fprintf(stderr, "bench_redistribute_tpetra_alone: unknown option '%s'\n", k.c_str());
        return 2;
      }
    } catch (const BadOption& e) {
      std::fprintf(stderr, "bench_redistribute_tpetra_alone: %s\n", e.message.c_str());
      return 2;
    }
  }
  if (argc % 2 == 0 || repeats < 1) {
    std::fprintf(stderr,
                 "usage: %s [--M list] [--r list] [--s list] [--n2d n --r2d b --s2d b] "
                 "[--repeats R >= 1] [--csv file]\n",
                 argv[0]);
    return 2;
  }
  int P = 0;
  int me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  FILE* out = nullptr;
  if (me == 0 && !csv.empty()) {
    out = std::fopen(csv.c_str(), "a");
    if (out == nullptr) {
      std::fprintf(stderr, "bench_redistribute_tpetra_alone: cannot open '%s'\n", csv.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  bool ok = true;
  auto report = [&](const std::string& name, long long n, long long r, long long s, double t) {
    if (me != 0) return;
    std::printf("tpetra-alone %-9s ranks %d  M %-10lld r %-4lld s %-4lld %10.3f ms\n", name.c_str(), P, n, r,
                s, t * 1e3);
    if (out != nullptr) std::fprintf(out, "%s,%d,%lld,%lld,%lld,%.9g\n", name.c_str(), P, n, r, s, t);
  };
  auto as_go = [](const std::vector<long long>& v) { return std::vector<GO>(v.begin(), v.end()); };
  for (long long M : Ms) // --M 0: no 1-D case
    for (long long r : M > 0 ? rs : std::vector<long long>{})
      for (long long s : ss)
        report("1d", M, r, s, run(M, as_go(owned(M, r, P, me)), as_go(owned(M, s, P, me)), repeats, ok));
  if (n2d > 0) {
    // Source: rows CYCLIC(r2d) over P, columns CYCLIC(r2d) over 1 (all columns); target: rows over 1,
    // columns CYCLIC(s2d) over P. Local storage column-major; global ID i + j n.
    auto ids = [&](long long b, int prow, int pcol, int myrow, int mycol) {
      const std::vector<long long> rows = owned(n2d, b, prow, myrow);
      const std::vector<long long> cols = owned(n2d, b, pcol, mycol);
      std::vector<GO> g;
      g.reserve(rows.size() * cols.size());
      for (long long j : cols)
        for (long long i : rows) g.push_back(static_cast<GO>(i + j * n2d));
      return g;
    };
    report("2d-costa", n2d * n2d, r2d, s2d,
           run(n2d * n2d, ids(r2d, P, 1, me, 0), ids(s2d, 1, P, 0, me), repeats, ok));
  }
  if (out != nullptr) std::fclose(out);
  if (!ok && me == 0) std::fprintf(stderr, "bench_redistribute_tpetra_alone: WRONG DATA\n");
  return ok ? 0 : 1;
}
