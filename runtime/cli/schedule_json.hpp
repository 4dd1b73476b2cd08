// The one JSON shape of a schedule in the `hpfrt` tool, used by every sub-command that prints one:
//   "steps":     [[[src, dst, len], ...], ...]   one array per step, each message [src, dst, len]
//   "num_steps": the number of steps, empty ones included (what an executor runs)
//   "cost":      alpha * num_steps + beta * sum over steps of the longest message (Schedule::cost)
#pragma once

#include <hpf/schedule/schedule.hpp>

#include <nlohmann/json.hpp>

#include <utility>

namespace hpf::cli {

/// Adds "steps", "num_steps" and "cost" of `s` to the JSON object `j` (nlohmann::json or
/// nlohmann::ordered_json; in the latter they come in that order, after the keys already there).
template <class Json> void put_schedule(Json& j, const Schedule& s, double alpha, double beta) {
  Json steps = Json::array();
  for (const Step& st : s.steps()) {
    Json step = Json::array();
    for (const Message& m : st.messages) step.push_back({m.src, m.dst, m.len});
    steps.push_back(std::move(step));
  }
  j["steps"] = std::move(steps);
  j["num_steps"] = s.num_steps();
  j["cost"] = s.cost(alpha, beta);
}

} // namespace hpf::cli
