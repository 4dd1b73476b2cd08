// The process's resident memory from /proc/self/status, and its peak reset through
// /proc/self/clear_refs (Linux 4.0 and later): what the tests of memory ceilings and in-place moves
// measure around a move.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace hpf::test {

/// A field of /proc/self/status in KiB (VmRSS, VmHWM), or -1.
inline long status_kib(const std::string& key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key + ":", 0) == 0) {
      std::istringstream in(line.substr(key.size() + 1));
      long v = -1;
      in >> v;
      return v;
    }
  return -1;
}

/// Resets VmHWM to the current VmRSS; false where that is not possible.
inline bool reset_peak() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  f.flush();
  return f.good();
}

} // namespace hpf::test
