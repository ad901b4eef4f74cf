#pragma once
// Flat per-question views of the run records `sqlgrade spider --json` and `sqlgrade bird --json` write
// (docs/run-record.schema.json): each instance's `detail` with its scores, categories, SQL and
// failure reason beside it, under the names tests used before the envelope.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace sqlgrade::test {

inline nlohmann::json flat_instance(const nlohmann::json& in) {
  nlohmann::json e = in.value("detail", nlohmann::json::object());
  if (e.is_null()) e = nlohmann::json::object();
  e["id"] = in["id"];
  for (auto& [k, v] : in["scores"].items()) e[k] = v;
  for (auto& [k, v] : in["category"].items()) e[k == "db" ? "db_id" : k] = v;
  e["gold_sql"] = in.value("gold_sql", nlohmann::json());
  e["pred_sql"] = in.value("pred_sql", nlohmann::json());
  if (in.contains("failure_reason")) e["failure_reason"] = in["failure_reason"];
  if (in.contains("time_s")) e["time_s"] = in["time_s"];
  return e;
}

// Spider: exec, exact, hardness, db_id, pred_parsed, exec_reason, exec_seconds, … per question.
inline nlohmann::json spider_examples(const nlohmann::json& rec) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& in : rec["instances"]) out.push_back(flat_instance(in));
  return out;
}

// BIRD: score (the metric's), status, reason (the failure reason without its "status: " prefix),
// db_id, difficulty, pred_seconds, … per question, in gold-file order (detail.index; the record itself
// is in natural id order).
inline nlohmann::json bird_results(const nlohmann::json& rec) {
  nlohmann::json out = nlohmann::json::array();
  const std::string primary = rec["primary_metric"].get<std::string>();
  for (const auto& in : rec["instances"]) {
    nlohmann::json e = flat_instance(in);
    e["score"] = in["scores"][primary];
    std::string status = e.value("status", "ok"), f = in.value("failure_reason", "");
    if (status != "ok" && f.rfind(status + ": ", 0) == 0) e["reason"] = f.substr(status.size() + 2);
    e["pred_seconds"] = in.value("time_s", 0.0);
    out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a.value("index", 0ul) < b.value("index", 0ul);
  });
  return out;
}

}  // namespace sqlgrade::test
