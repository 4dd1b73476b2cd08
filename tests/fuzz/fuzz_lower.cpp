// libFuzzer target: `!HPF$` / Fortran lowering (hpf::lower_hpf, `hpfrt lower`).
#include <hpf/core/error.hpp>
#include <hpf_lower.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)hpf::lower_hpf(std::string(reinterpret_cast<const char*>(data), size), "fuzz.f90");
  } catch (const hpf::Error&) {
  }
  return 0;
}
