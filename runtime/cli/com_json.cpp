#include "com_json.hpp"

#include <hpf/core/error.hpp>
#include <hpf/core/text.hpp>

#include <nlohmann/json.hpp>

#include <unordered_map>

namespace hpf::cli {

nlohmann::json parse_input_json(const std::string& text, const std::string& what, const std::string& path) {
  detail::check_json_nesting(text, what);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    detail::fail(what, ": '", detail::printable(path, 200), "' is not valid JSON at byte ", e.byte);
  } catch (const nlohmann::json::exception& e) { // a number out of range (scripts/fuzz found it)
    detail::fail(what, ": '", detail::printable(path, 200), "' is not valid JSON (nlohmann error ", e.id,
                 ")");
  }
}

CommMatrix com_from_json(const std::string& text, const std::string& path) {
  const std::string shown = detail::printable(path, 200);
  nlohmann::json j = parse_input_json(text, "--com", path);
  detail::require(
      j.is_object() && j.contains("n") && j["n"].is_number_integer(), "--com: '", shown,
      "' must be an object with an integer \"n\"; expected {\"n\":N,\"messages\":[[src,dst,len],...]}");
  const auto n = j["n"].get<long long>();
  detail::require(n >= 1 && n <= max_n, "--com: \"n\" must be in [1, ", max_n, "], got ", n);
  detail::require(j.contains("messages") && j["messages"].is_array(), "--com: '", shown,
                  "' needs an array \"messages\" of [src, dst, len] triples");
  CommMatrix com(static_cast<int>(n), static_cast<int>(n));
  std::unordered_map<long long, std::size_t> first_of_pair; // src * n + dst -> first message index
  std::size_t i = 0;
  for (const nlohmann::json& m : j["messages"]) {
    detail::require(m.is_array() && m.size() == 3 && m[0].is_number_integer() && m[1].is_number_integer() &&
                        m[2].is_number_integer(),
                    "--com: messages[", i, "] is a JSON ", m.type_name(),
                    (m.is_array() ? detail::concat(" of ", m.size(), " elements") : std::string()),
                    "; expected [src, dst, len] with integers");
    const auto src = m[0].get<long long>();
    const auto dst = m[1].get<long long>();
    const auto len = m[2].get<long long>();
    detail::require(src >= 0 && src < n, "--com: messages[", i, "]: src must be in [0, ", n, "), got ", src);
    detail::require(dst >= 0 && dst < n, "--com: messages[", i, "]: dst must be in [0, ", n, "), got ", dst);
    detail::require(len >= 1, "--com: messages[", i, "]: len must be >= 1, got ", len);
    detail::require(src != dst, "--com: messages[", i, "]: src = dst = ", src,
                    " is a message to itself; expected src != dst");
    const auto [seen, fresh] = first_of_pair.emplace(src * n + dst, i);
    detail::require(fresh, "--com: messages[", i, "] repeats the pair (", src, ", ", dst, ") of messages[",
                    seen->second, "]; expected one message per pair (add the lengths)");
    com.add(static_cast<int>(src), static_cast<int>(dst), static_cast<index_t>(len));
    ++i;
  }
  return com;
}

} // namespace hpf::cli
