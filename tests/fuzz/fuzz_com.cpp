// libFuzzer target: the COM pattern JSON of `hpfrt all-to-many --com` (hpf::cli::com_from_json).
#include "com_json.hpp"

#include <hpf/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)hpf::cli::com_from_json(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  } catch (const hpf::Error&) {
  }
  return 0;
}
