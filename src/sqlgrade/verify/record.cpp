// Verification in a benchmark's run record (`--verify` with --json/--json-dir): the metric
// "verified_ex", each match's outcome in detail.verify (the counterexample's rows and both results
// included), options.verify and summary.verify (runs/verify_record.hpp rebuilds the same totals when
// records are merged).
#include <utility>
#include <map>

#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/runs/verify_record.hpp"
#include "sqlgrade/verify.hpp"

namespace sqlgrade::verify {

namespace {

constexpr size_t kResultRowsKept = 50;  // per result in the record; the .json sidecar keeps them all

void cap_rows(runs::Json& result) {
  if (!result.is_object() || !result.contains("rows") || result["rows"].size() <= kResultRowsKept) return;
  result["row_count"] = result["rows"].size();
  runs::Json kept = runs::Json::array();
  for (size_t i = 0; i < kResultRowsKept; ++i) kept.push_back(result["rows"][i]);
  result["rows"] = std::move(kept);
  result["truncated"] = true;
}

runs::Json instance_json(const InstanceReport& i) {
  runs::Json j{{"status", i.status}, {"candidates", i.candidates}, {"seconds", i.seconds}, {"cpu_seconds", i.cpu_seconds},
               {"time_capped", i.time_capped}};
  if (!i.reason.empty()) j["reason"] = i.reason;
  if (!i.counterexample_file.empty()) j["counterexample_file"] = i.counterexample_file;
  if (i.counterexample_json.empty()) return j;
  const runs::Json side = runs::Json::parse(i.counterexample_json);
  runs::Json c = side.value("counterexample", runs::Json::object());
  c["gold_sql"] = side.value("gold_sql", "");  // as searched (after the benchmark's rewrites)
  c["pred_sql"] = side.value("pred_sql", "");
  cap_rows(c["gold_result"]);
  cap_rows(c["pred_result"]);
  j["counterexample"] = std::move(c);
  return j;
}

}  // namespace

std::string add_to_record(const std::string& record_json, const SystemReport& rep, const Options& opt) {
  runs::RunRecord rec = runs::parse_run_record(record_json, rep.system);
  const std::string ex = rec.metric("exec") ? "exec" : "ex";  // Spider's name, BIRD's and Spider 2.0's
  if (!rec.metric(runs::kVerifiedMetric))
    rec.metrics.push_back({runs::kVerifiedMetric, runs::MetricKind::Binary, "Verified execution accuracy (no counterexample found)"});
  std::map<std::string, const InstanceReport*> by_id;
  for (const InstanceReport& i : rep.instances) by_id[i.id] = &i;
  for (runs::Instance& in : rec.instances) {
    const double* score = in.score(ex);
    if (!score) continue;  // not graded by execution (e.g. a failing Spider gold): no verified score either
    auto it = by_id.find(in.id);
    // Only a clean refutation costs the match its verified score (gold_suspect, edge, tie do not).
    const bool refuted = it != by_id.end() && it->second->status == "refuted";
    in.scores.emplace_back(runs::kVerifiedMetric, *score == 1 && !refuted ? 1.0 : 0.0);
    if (it == by_id.end()) continue;
    if (!in.detail.is_object()) in.detail = runs::Json::object();
    in.detail["verify"] = instance_json(*it->second);
  }
  rec.options["verify"] = runs::Json{{"seed", opt.seed}, {"candidates", opt.candidates}, {"budget_s", opt.budget_s}};
  if (!rec.summary.is_object()) rec.summary = runs::Json::object();
  rec.summary["verify"] = runs::verify_summary(rec);
  return runs::render_run_record(std::move(rec));
}

}  // namespace sqlgrade::verify
