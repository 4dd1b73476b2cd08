// Hostile inputs to the parsers: nesting bounded before any JSON parser runs,
// files read with limits, bytes shown as escapes, and every JSON reader (platform, machine model)
// giving an hpf::Error, never a crash or the input echoed back.
#include "hpf_test.hpp"

#include <hpf/core/text.hpp>
#include <hpf/exec/model.hpp>
#include <hpf/steady/platform.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace {

bool all_printable(const std::string& s) {
  for (const char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
  return true;
}

TEST(HostileInput, PrintableEscapesEveryByteOutsidePrintableAscii) {
  EXPECT_EQ(hpf::detail::printable("abc 123"), "abc 123");
  EXPECT_EQ(hpf::detail::printable(std::string("a\nb\tc\\d\x01\x7f\xff\0e", 12)),
            "a\\nb\\tc\\\\d\\x01\\x7f\\xff\\x00e");
  EXPECT_EQ(hpf::detail::printable(std::string(100, 'x'), 10), "xxxxxxxxxx...(100 bytes)");
  // Every byte value: the result is printable, and decoding the escapes gives the input back.
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  const std::string shown = hpf::detail::printable(all, 1000);
  EXPECT_TRUE(all_printable(shown));
  std::string back;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    if (shown[i] != '\\') {
      back += shown[i];
      continue;
    }
    const char k = shown[++i];
    if (k == 'n') {
      back += '\n';
    } else if (k == 't') {
      back += '\t';
    } else if (k == '\\') {
      back += '\\';
    } else {
      ASSERT_EQ(k, 'x');
      back += static_cast<char>(std::stoi(shown.substr(i + 1, 2), nullptr, 16));
      i += 2;
    }
  }
  EXPECT_EQ(back, all);
}

TEST(HostileInput, JsonNestingIsBoundedAndStringsDoNotCount) {
  using hpf::detail::check_json_nesting;
  EXPECT_NO_THROW(check_json_nesting(std::string(64, '[') + std::string(64, ']'), "x"));
  HPF_EXPECT_ERROR(check_json_nesting(std::string(65, '['), "the file"),
                   "the file: JSON nested deeper than 64 levels at byte 64");
  HPF_EXPECT_ERROR(check_json_nesting(std::string(100000, '{'), "f"), "deeper than 64");
  // Brackets inside strings, escaped quotes included, are text.
  EXPECT_NO_THROW(
      check_json_nesting("[\"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"]", "x"));
  EXPECT_NO_THROW(check_json_nesting(std::string(1000, ']'), "x")); // the parser reports these
  EXPECT_NO_THROW(check_json_nesting("[[[", "x", 3));
  HPF_EXPECT_ERROR(check_json_nesting("[[[[", "x", 3), "deeper than 3");
  // Random bytes never crash it.
  std::mt19937 rng(15);
  for (int t = 0; t < 2000; ++t) {
    std::string s(static_cast<std::size_t>(rng() % 300), ' ');
    for (char& c : s) c = "[]{}\"\\a"[rng() % 7];
    try {
      check_json_nesting(s, "x", 8);
    } catch (const hpf::Error&) {
    }
  }
}

TEST(HostileInput, InputFilesAreRegularFilesOfBoundedSize) {
  const auto dir = std::filesystem::temp_directory_path() / ("hpf_hostile_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "f.json").string();
  { std::ofstream(file) << "{\"a\": 1}"; }
  EXPECT_EQ(hpf::detail::read_input_file(file, "--x"), "{\"a\": 1}");
  HPF_EXPECT_ERROR(hpf::detail::read_input_file(dir.string(), "--x"), "--x: '", "is not a regular file");
  HPF_EXPECT_ERROR(hpf::detail::read_input_file((dir / "none").string(), "--x"), "no such file");
  HPF_EXPECT_ERROR(hpf::detail::read_input_file(file, "--x", 3), "has 8 bytes; expected at most 3");
  HPF_EXPECT_ERROR(hpf::detail::read_input_file(std::string("bad\x01\xff"), "--x"), "bad\\x01\\xff");
  std::filesystem::remove_all(dir);
}

TEST(HostileInput, PlatformJsonDeepGarbageAndEscapes) {
  HPF_EXPECT_ERROR(hpf::steady::Platform::from_json("{\"nodes\":" + std::string(100000, '[')),
                   "platform JSON", "deeper than 64");
  HPF_EXPECT_ERROR(hpf::steady::Platform::from_json(std::string(100000, '[') + std::string(100000, ']')),
                   "deeper than 64");
  try {
    (void)hpf::steady::Platform::from_json(std::string("\x01\xff{\"nodes\": 3}"));
    ADD_FAILURE() << "garbage accepted";
  } catch (const hpf::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON at byte"), std::string::npos) << e.what();
    EXPECT_TRUE(all_printable(e.what()));
  }
  // A node entry that is a huge array: the message names the entry, without printing it.
  std::string huge = "[1";
  for (int i = 0; i < 20000; ++i) huge += ",1";
  huge += "]";
  try {
    (void)hpf::steady::Platform::from_json("{\"nodes\":[" + huge + "]}");
    ADD_FAILURE() << "accepted";
  } catch (const hpf::Error& e) {
    EXPECT_LT(std::string(e.what()).size(), 300u) << "input echoed";
    EXPECT_NE(std::string(e.what()).find("nodes[0]"), std::string::npos) << e.what();
  }
}

TEST(HostileInput, MachineModelJsonDeepAndGarbage) {
  HPF_EXPECT_ERROR(hpf::machine_model_from_json(std::string(100000, '[')), "machine model JSON",
                   "deeper than 64");
  HPF_EXPECT_ERROR(hpf::machine_model_from_json("{\"alpha\":" + std::string(100000, '{')), "deeper than 64");
  try {
    (void)hpf::machine_model_from_json(std::string("\x1b[2J\xff", 5));
    ADD_FAILURE() << "garbage accepted";
  } catch (const hpf::Error& e) {
    EXPECT_TRUE(all_printable(e.what())) << e.what();
  }
  const auto dir = std::filesystem::temp_directory_path();
  HPF_EXPECT_ERROR(hpf::load_machine_model(dir.string()), "load_machine_model", "is not a regular file");
}

} // namespace
