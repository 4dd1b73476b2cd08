// The machine model: the one ping-pong kernel, its measurement, the attribute cache and JSON.
#include <hpf/exec/model.hpp>

#include <hpf/core/stats.hpp>
#include <hpf/core/tags.hpp>
#include <hpf/core/text.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

namespace hpf {

MachineModel MachineModel::fallback() {
  MachineModel m;
  m.alpha = 2e-6;
  m.beta = 1e-10;
  m.plogp = PLogP::linear(m.alpha, m.alpha, m.beta);
  return m;
}

// ---------------------------------------------------------------------------------------------------
// JSON

std::string to_json(const MachineModel& m) {
  nlohmann::json samples = nlohmann::json::array();
  for (const PLogPSample& s : m.plogp.samples())
    samples.push_back({{"m", s.m}, {"g", s.g}, {"os", s.os}, {"or", s.orr}});
  const nlohmann::json j = {{"alpha", m.alpha},
                            {"beta", m.beta},
                            {"plogp", {{"L", m.plogp.L()}, {"samples", samples}}},
                            {"cache_bytes", m.cache_bytes},
                            {"shared_cache_bytes", m.shared_cache_bytes}};
  return j.dump(2);
}

namespace {
double field(const nlohmann::json& j, const char* name, const char* where) {
  detail::require(j.is_object() && j.contains(name) && j.at(name).is_number(), "machine model JSON: ", where,
                  " needs a number field '", name, "'");
  const double v = j.at(name).get<double>();
  detail::require(std::isfinite(v) && v >= 0, "machine model JSON: ", where, ".", name,
                  " must be finite and >= 0, got ", v);
  return v;
}
} // namespace

MachineModel machine_model_from_json(std::string_view text) {
  // nlohmann's parser is iterative, but printing or destroying a deep tree is not: nesting is
  // bounded first.
  detail::check_json_nesting(text, "machine model JSON");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    detail::fail("machine model JSON: not valid JSON (nlohmann error ", e.id, ")");
  }
  detail::require(j.is_object(), "machine model JSON: expected an object");
  MachineModel m;
  m.alpha = field(j, "alpha", "model");
  m.beta = field(j, "beta", "model");
  detail::require(j.contains("plogp") && j.at("plogp").is_object(),
                  "machine model JSON: needs an object 'plogp'");
  const auto& p = j.at("plogp");
  const double L = field(p, "L", "plogp");
  detail::require(p.contains("samples") && p.at("samples").is_array() && !p.at("samples").empty(),
                  "machine model JSON: plogp.samples must be a non-empty array");
  std::vector<PLogPSample> samples;
  for (const auto& s : p.at("samples")) {
    detail::require(s.is_object() && s.contains("m") && s.at("m").is_number_unsigned(),
                    "machine model JSON: every plogp sample needs a size 'm' >= 0 (an integer)");
    samples.push_back({s.at("m").get<std::size_t>(), field(s, "g", "sample"), field(s, "os", "sample"),
                       field(s, "or", "sample")});
  }
  m.plogp = PLogP(L, std::move(samples)); // checks increasing sizes
  for (auto [name, out] :
       {std::pair{"cache_bytes", &m.cache_bytes}, {"shared_cache_bytes", &m.shared_cache_bytes}}) {
    if (!j.contains(name)) continue; // optional: the defaults of MachineModel
    detail::require(j.at(name).is_number_unsigned() && j.at(name).get<std::size_t>() > 0,
                    "machine model JSON: ", name, " must be a positive integer of bytes");
    *out = j.at(name).get<std::size_t>();
  }
  return m;
}

void save_machine_model(const MachineModel& m, const std::string& path) {
  std::ofstream out(path);
  detail::require(out.good(), "save_machine_model: cannot open '", path, "' for writing");
  out << to_json(m) << '\n';
  detail::require(out.good(), "save_machine_model: writing '", path, "' failed");
}

MachineModel load_machine_model(const std::string& path) {
  const std::string text = detail::read_input_file(path, "load_machine_model");
  try {
    return machine_model_from_json(text);
  } catch (const Error& e) {
    detail::fail("load_machine_model: '", detail::printable(path, 200), "': ", e.what());
  }
}

// ---------------------------------------------------------------------------------------------------
// The ping-pong kernel

PingPongResult ping_pong(const Comm& comm, int a, int b, std::size_t bytes, const PingPongOptions& opt) {
  const int size = comm.size();
  detail::require(a >= 0 && a < size && b >= 0 && b < size, "ping_pong: ranks a = ", a, " and b = ", b,
                  " must be in [0, ", size, ")");
  detail::require(bytes <= max_message_bytes, "ping_pong: bytes must be <= ", max_message_bytes, ", got ",
                  bytes);
  detail::require(opt.repeats >= 1 && opt.stream >= 0,
                  "ping_pong: repeats must be >= 1 and stream >= 0, got ", opt.repeats, " and ", opt.stream);
  PingPongResult r;
  const int me = comm.rank();
  if (a == b || (me != a && me != b)) return r;
  const MPI_Comm c = comm.get();
  const int n = static_cast<int>(bytes);
  const int t0 = tags::model.base;
  std::vector<char> buf(std::max<std::size_t>(bytes, 1), 1);
  std::vector<double> rtt, gap, os, orr;
  for (int rep = -1; rep < opt.repeats; ++rep) { // rep -1: untimed warm-up (sets up the connection)
    if (me == a) {
      double t = MPI_Wtime(); // the simulated clock under SimGrid SMPI
      HPF_MPI_CHECK(MPI_Send(buf.data(), n, MPI_BYTE, b, t0, c));
      HPF_MPI_CHECK(MPI_Recv(buf.data(), n, MPI_BYTE, b, t0, c, MPI_STATUS_IGNORE));
      if (rep >= 0) rtt.push_back(MPI_Wtime() - t);
      if (opt.stream > 0) { // back-to-back sends closed by an empty acknowledgement (Figure 2 of Steffenel)
        t = MPI_Wtime();
        for (int i = 0; i < opt.stream; ++i) {
          const double s = MPI_Wtime();
          HPF_MPI_CHECK(MPI_Send(buf.data(), n, MPI_BYTE, b, t0 + 1, c));
          if (rep >= 0) os.push_back(MPI_Wtime() - s);
        }
        HPF_MPI_CHECK(MPI_Recv(nullptr, 0, MPI_BYTE, b, t0 + 2, c, MPI_STATUS_IGNORE));
        if (rep >= 0) gap.push_back((MPI_Wtime() - t) / opt.stream);
      }
      if (opt.recv_overhead) HPF_MPI_CHECK(MPI_Send(buf.data(), n, MPI_BYTE, b, t0 + 3, c));
    } else {
      HPF_MPI_CHECK(MPI_Recv(buf.data(), n, MPI_BYTE, a, t0, c, MPI_STATUS_IGNORE));
      HPF_MPI_CHECK(MPI_Send(buf.data(), n, MPI_BYTE, a, t0, c));
      if (opt.stream > 0) {
        for (int i = 0; i < opt.stream; ++i)
          HPF_MPI_CHECK(MPI_Recv(buf.data(), n, MPI_BYTE, a, t0 + 1, c, MPI_STATUS_IGNORE));
        HPF_MPI_CHECK(MPI_Send(nullptr, 0, MPI_BYTE, a, t0 + 2, c));
      }
      if (opt.recv_overhead) { // or(m): the receive of a message that has already arrived
        HPF_MPI_CHECK(MPI_Probe(a, t0 + 3, c, MPI_STATUS_IGNORE));
        const double s = MPI_Wtime();
        HPF_MPI_CHECK(MPI_Recv(buf.data(), n, MPI_BYTE, a, t0 + 3, c, MPI_STATUS_IGNORE));
        if (rep >= 0) orr.push_back(MPI_Wtime() - s);
      }
    }
  }
  if (me == a) {
    r.rtt = median(rtt);
    if (opt.stream > 0) {
      r.g = median(gap);
      r.os = median(os);
    }
    if (opt.recv_overhead) HPF_MPI_CHECK(MPI_Recv(&r.orr, 1, MPI_DOUBLE, b, t0 + 4, c, MPI_STATUS_IGNORE));
  } else if (opt.recv_overhead) {
    const double v = median(orr);
    HPF_MPI_CHECK(MPI_Send(&v, 1, MPI_DOUBLE, a, t0 + 4, c));
  }
  return r;
}

// ---------------------------------------------------------------------------------------------------
// Measurement

MachineModel measure_machine_model(const Comm& comm) {
  constexpr std::array<std::size_t, 4> sizes = {0, 1024, 32768, std::size_t(1) << 20};
  constexpr std::size_t big = sizes.back();
  // Rank 0 measures; the values travel in one broadcast: alpha, beta, L, then (g, os, or) per size.
  std::array<double, 3 + 3 * sizes.size()> v{};
  if (comm.size() == 1) {
    std::vector<char> x(big, 1), y(big);
    std::vector<double> t;
    for (int i = 0; i < 5; ++i) {
      const double s = MPI_Wtime();
      std::memcpy(y.data(), x.data(), big);
      t.push_back(MPI_Wtime() - s);
    }
    v[1] = median(t) / static_cast<double>(big);
  } else {
    double rtt0 = 0;
    double rtt_big = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const bool large = sizes[i] >= big;
      // Few samples: this runs at the start of every program (hpf::Environment); medians of 5 (3 at
      // 1 MiB) keep it to about 150 messages between two ranks.
      const PingPongResult r = ping_pong(comm, 0, 1, sizes[i], {large ? 3 : 5, large ? 2 : 4, true});
      if (i == 0) rtt0 = r.rtt;
      if (large) rtt_big = r.rtt;
      v[3 + 3 * i] = r.g;
      v[4 + 3 * i] = r.os;
      v[5 + 3 * i] = r.orr;
    }
    v[0] = rtt0 / 2;
    v[1] = std::max(rtt_big / 2 - v[0], 0.0) / static_cast<double>(big);
    v[2] = std::max(0.0, (rtt0 - 2 * v[3]) / 2); // Figure 2 of Steffenel: L = (RTT(0) - 2 g(0)) / 2
  }
  HPF_MPI_CHECK(MPI_Bcast(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, 0, comm.get()));
  MachineModel m;
  // The caches as the operating system reports them (0 or -1 where it does not: the defaults), the
  // smallest over the ranks, so that every rank makes the same choices from them.
  const auto sys = [](int name, std::size_t fallback) {
    const long v = sysconf(name);
    return v > 0 ? static_cast<unsigned long long>(v) : static_cast<unsigned long long>(fallback);
  };
  std::array<unsigned long long, 2> caches = {sys(_SC_LEVEL2_CACHE_SIZE, m.cache_bytes),
                                              sys(_SC_LEVEL3_CACHE_SIZE, m.shared_cache_bytes)};
  HPF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, caches.data(), 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm.get()));
  m.cache_bytes = static_cast<std::size_t>(caches[0]);
  m.shared_cache_bytes = static_cast<std::size_t>(caches[1]);
  m.alpha = v[0];
  m.beta = std::max(v[1], 1e-12);
  std::vector<PLogPSample> samples;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    samples.push_back({sizes[i], v[3 + 3 * i], v[4 + 3 * i], v[5 + 3 * i]});
  m.plogp = PLogP(v[2], std::move(samples));
  return m;
}

// ---------------------------------------------------------------------------------------------------
// The attribute cache

namespace {

int copy_model(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = new MachineModel(*static_cast<const MachineModel*>(in));
  *flag = 1;
  return MPI_SUCCESS;
}

int delete_model(MPI_Comm, int, void* attr, void*) {
  detail::comm_attributes_changed(); // Comm::attribute() forgets it
  delete static_cast<MachineModel*>(attr);
  return MPI_SUCCESS;
}

/// The delete callback of an attribute that owns nothing: Comm::attribute() forgets it.
int forget_attribute(MPI_Comm, int, void*, void*) {
  detail::comm_attributes_changed();
  return MPI_SUCCESS;
}

int model_keyval() {
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    HPF_MPI_CHECK(MPI_Comm_create_keyval(copy_model, delete_model, &k, nullptr));
    return k;
  }();
  return keyval;
}

const MachineModel* cached(MPI_Comm comm) {
  void* attr = nullptr;
  int found = 0;
  HPF_MPI_CHECK(MPI_Comm_get_attr(comm, model_keyval(), &attr, &found));
  return found != 0 ? static_cast<const MachineModel*>(attr) : nullptr;
}

} // namespace

bool has_machine_model(MPI_Comm comm) { return cached(comm) != nullptr; }

void set_machine_model(MPI_Comm comm, const MachineModel& m) {
  detail::require(comm != MPI_COMM_NULL, "set_machine_model: communicator is MPI_COMM_NULL");
  // MPI_Comm_set_attr calls the delete callback on a previous value.
  HPF_MPI_CHECK(MPI_Comm_set_attr(comm, model_keyval(), new MachineModel(m)));
}

void set_machine_model(const Comm& comm, const MachineModel& m) { set_machine_model(comm.get(), m); }

MachineModel machine_model(const Comm& comm) {
  detail::require(!comm.is_null(), "machine_model: communicator is null");
  if (const void* m = comm.attribute(model_keyval())) return *static_cast<const MachineModel*>(m);
  MachineModel m = measure_machine_model(comm);
  set_machine_model(comm, m);
  return m;
}

bool detail::shares_one_node(const Comm& comm) {
  require(!comm.is_null(), "shares_one_node: communicator is null");
  // The attribute points at one of two constants: MPI_COMM_DUP_FN copies the pointer, nothing to free.
  static const bool yes = true;
  static const bool no = false;
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    HPF_MPI_CHECK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, forget_attribute, &k, nullptr));
    return k;
  }();
  if (const void* attr = comm.attribute(keyval)) return *static_cast<const bool*>(attr);
  bool one = false;
  // HPF_ONE_NODE=0 takes the path of a job spread over nodes (docs/cluster.md): the same on every rank.
  const char* forced = std::getenv("HPF_ONE_NODE");
  if (forced != nullptr && std::string_view(forced) == "0") {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): MPI takes the value as void*; only read
    HPF_MPI_CHECK(MPI_Comm_set_attr(comm.get(), keyval, const_cast<bool*>(&no)));
    return false;
  }
#ifndef SMPI_H
  MPI_Comm node = MPI_COMM_NULL;
  HPF_MPI_CHECK(MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int on_node = 0;
  HPF_MPI_CHECK(MPI_Comm_size(node, &on_node));
  HPF_MPI_CHECK(MPI_Comm_free(&node));
  one = on_node == comm.size(); // every rank sees the same: all on one node, or every node smaller
#endif
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): MPI takes the value as void*; it is only read
  HPF_MPI_CHECK(MPI_Comm_set_attr(comm.get(), keyval, const_cast<bool*>(one ? &yes : &no)));
  return one;
}

std::pair<double, double> detail::machine_alpha_beta(const Comm& comm) {
  if (const void* attr = comm.is_null() ? nullptr : comm.attribute(model_keyval())) {
    const auto* m = static_cast<const MachineModel*>(attr);
    return {m->alpha, m->beta};
  }
  const MachineModel m = machine_model(comm);
  return {m.alpha, m.beta};
}

std::size_t detail::machine_cache_bytes(const Comm& comm) {
  if (const void* attr = comm.is_null() ? nullptr : comm.attribute(model_keyval()))
    return static_cast<const MachineModel*>(attr)->cache_bytes;
  return machine_model(comm).cache_bytes;
}

} // namespace hpf
