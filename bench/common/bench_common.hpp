// Helpers every benchmark in bench/ shares: the median (hpf::median, the project's one median), a CSV
// writer, and "--key value" argument parsing. Free of Kokkos and of MPI, so that the SimGrid builds
// of bench/reduce_tree and bench/steady (smpi_run.sh, smpicxx) compile it as they are. Benchmarks
// include it as "../common/bench_common.hpp", which needs no include path in either build.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/core/memory.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/core/stats.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace hpf::bench {

using hpf::median;

/// Smallest of `samples`. Throws hpf::Error if there are none.
[[nodiscard]] inline double min_of(const std::vector<double>& samples) {
  detail::require(!samples.empty(), "min_of: no samples");
  return *std::min_element(samples.begin(), samples.end());
}

/// The largest of every rank's `t` (a time: the slowest rank's), on every rank of `comm`. Collective.
[[nodiscard]] inline double max_over_ranks(double t, MPI_Comm comm = MPI_COMM_WORLD) {
  double m = 0;
  HPF_MPI_CHECK(MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, comm));
  return m;
}

/// Seconds of one call of f() on the slowest rank of `comm`, every rank starting after a barrier.
/// Collective.
template <class F> [[nodiscard]] double slowest_time(F&& f, MPI_Comm comm = MPI_COMM_WORLD) {
  HPF_MPI_CHECK(MPI_Barrier(comm));
  const double t0 = MPI_Wtime();
  std::forward<F>(f)();
  return max_over_ranks(MPI_Wtime() - t0, comm);
}

/// Median wall time of `repeats` calls of f after one untimed call (one process, std::chrono).
template <class F> [[nodiscard]] double median_seconds(int repeats, F&& f) {
  std::vector<double> t;
  f(); // warm-up
  for (int i = 0; i < repeats; ++i) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  return hpf::median(std::move(t));
}

/// `text` as a T (an integer or a floating-point type), all of it. Throws hpf::Error naming `what`.
template <class T> [[nodiscard]] T parse_number(std::string_view text, std::string_view what) {
  T v{};
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  detail::require(ec == std::errc() && p == end && !text.empty(), what, ": expected a number, got '", text,
                  "'");
  return v;
}

/// A comma-separated list of numbers, e.g. "1,8,64". Throws hpf::Error naming `what`.
/// "a,b,c" -> {"a", "b", "c"} (empty items kept: the caller names what it expected).
[[nodiscard]] inline std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    out.emplace_back(
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

template <class T> [[nodiscard]] std::vector<T> parse_list(std::string_view text, std::string_view what) {
  std::vector<T> out;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    out.push_back(parse_number<T>(text.substr(start, comma - start), what));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

/// Walks "--key value" pairs: `on(key, value)` returns false for a key it does not know, which throws
/// hpf::Error with `usage`; a key without a value throws too.
template <class F> void for_each_option(int argc, char** argv, std::string_view usage, F&& on) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view key = argv[i];
    detail::require(i + 1 < argc, key, ": missing value; usage: ", usage);
    const std::string_view value = argv[++i];
    detail::require(on(key, value), "unknown option '", key, "'; usage: ", usage);
  }
}

/// The options most benchmarks take and nothing else: --repeats R (>= 1) and --csv file.
struct RepeatsAndCsv {
  int repeats;
  std::string csv;
};
inline RepeatsAndCsv parse_repeats_and_csv(int argc, char** argv, RepeatsAndCsv defaults) {
  for_each_option(argc, argv, "[--repeats R] [--csv file]", [&](std::string_view k, std::string_view v) {
    if (k == "--repeats")
      defaults.repeats = parse_number<int>(v, "--repeats");
    else if (k == "--csv")
      defaults.csv = v;
    else
      return false;
    return true;
  });
  detail::require(defaults.repeats >= 1, "--repeats: must be >= 1, got ", defaults.repeats);
  return defaults;
}

/// A CSV file with a header. Append mode writes the header only when the file is new or empty;
/// Truncate rewrites the file. The path "-" is standard output (header always written).
class CsvWriter {
public:
  enum class Mode { Append, Truncate };

  CsvWriter() = default;
  CsvWriter(const std::string& path, std::string_view header, Mode mode = Mode::Append) {
    if (path == "-") {
      m_file = stdout;
    } else {
      m_file = std::fopen(path.c_str(), mode == Mode::Append ? "a" : "w");
      detail::require(m_file != nullptr, "cannot open CSV file '", path, "'");
      m_owned = true;
    }
    if (!m_owned || std::ftell(m_file) == 0)
      std::fprintf(m_file, "%.*s\n", static_cast<int>(header.size()), header.data());
  }
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;
  CsvWriter(CsvWriter&& o) noexcept : m_file(o.m_file), m_owned(o.m_owned) {
    o.m_file = nullptr;
    o.m_owned = false;
  }
  CsvWriter& operator=(CsvWriter&& o) noexcept {
    std::swap(m_file, o.m_file);
    std::swap(m_owned, o.m_owned);
    return *this;
  }
  ~CsvWriter() {
    if (m_owned) std::fclose(m_file);
  }

  /// False for a default-constructed writer (no file): rows are then dropped.
  explicit operator bool() const noexcept { return m_file != nullptr; }

  /// One row, printf-style (the caller's format ends with "\n").
  __attribute__((format(printf, 2, 3))) void row(const char* format, ...) {
    if (m_file == nullptr) return;
    va_list args;
    va_start(args, format);
    std::vfprintf(m_file, format, args);
    va_end(args);
    std::fflush(m_file);
  }

private:
  std::FILE* m_file = nullptr;
  bool m_owned = false;
};

/// `bytes` filled with `fill`, allocated as DistArray allocates its blocks (core/memory.hpp: advised
/// as transparent huge pages from 2 MiB on). The buffers of a benchmark's memcpy limit, so that the
/// limit copies memory of the same kind as the arrays it is compared with.
class LargeBuffer {
public:
  LargeBuffer(std::size_t bytes, unsigned char fill)
      : m_bytes(std::max<std::size_t>(bytes, 1)),
        m_data(static_cast<char*>(detail::allocate_large(m_bytes))) {
    std::memset(m_data, fill, m_bytes);
  }
  LargeBuffer(const LargeBuffer&) = delete;
  LargeBuffer& operator=(const LargeBuffer&) = delete;
  ~LargeBuffer() { detail::free_large(m_data, m_bytes); }
  [[nodiscard]] char* data() const noexcept { return m_data; }

private:
  std::size_t m_bytes;
  char* m_data;
};

} // namespace hpf::bench
