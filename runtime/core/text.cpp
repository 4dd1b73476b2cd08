#include <hpf/core/error.hpp>
#include <hpf/core/text.hpp>

#include <filesystem>
#include <fstream>
#include <system_error>

namespace hpf::detail {

std::string printable(std::string_view s, std::size_t max_bytes) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  const std::size_t n = s.size() < max_bytes ? s.size() : max_bytes;
  out.reserve(n + 8);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (n < s.size()) out += concat("...(", s.size(), " bytes)");
  return out;
}

void check_json_nesting(std::string_view text, std::string_view what, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i; // the escaped character cannot close the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      require(++depth <= max_depth, what, ": JSON nested deeper than ", max_depth, " levels at byte ", i,
              "; expected at most ", max_depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth; // unbalanced closers are the parser's to report
    }
  }
}

std::string read_input_file(const std::string& path, std::string_view what, std::size_t max_bytes) {
  const std::string shown = printable(path, 200);
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  require(!ec && std::filesystem::exists(status), what, ": cannot open '", shown, "': no such file");
  require(std::filesystem::is_regular_file(status), what, ": '", shown,
          "' is not a regular file (a directory or a device?); expected a file");
  const auto size = std::filesystem::file_size(path, ec);
  require(!ec, what, ": cannot read the size of '", shown, "'");
  require(size <= max_bytes, what, ": '", shown, "' has ", size, " bytes; expected at most ", max_bytes);
  std::ifstream in(path, std::ios::binary);
  require(in.good(), what, ": cannot open '", shown, "'");
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  require(static_cast<std::size_t>(in.gcount()) == size, what, ": could not read all of '", shown, "'");
  return text;
}

} // namespace hpf::detail
