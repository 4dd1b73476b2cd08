// libFuzzer target: machine model JSON (hpf::machine_model_from_json, HPF_MACHINE_MODEL files).
#include <hpf/core/error.hpp>
#include <hpf/exec/model.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)hpf::machine_model_from_json(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const hpf::Error&) {
  }
  return 0;
}
