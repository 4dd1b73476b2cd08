// libFuzzer target: platform JSON (hpf::steady::Platform::from_json). Any input must either parse or
// throw hpf::Error; anything else (a crash, another exception, a sanitizer report) is a finding.
#include <hpf/core/error.hpp>
#include <hpf/steady/platform.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)hpf::steady::Platform::from_json(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const hpf::Error&) {
  }
  return 0;
}
