#pragma once
// Synthetic run records for the runs module's tests.
#include <string>
#include <vector>

#include "sqlgrade/runs/record.hpp"
#include "test_support.hpp"

namespace sqlgrade::test {

inline runs::RunRecord base_run(const std::string& system = "sys") {
  runs::RunRecord r;
  runs::stamp_environment(r);
  r.command = {"sqlgrade", "toy", "--pred", system + ".sql"};
  r.benchmark = "toy";
  r.system = system;
  r.metrics = {{"exec", runs::MetricKind::Binary, "Execution accuracy"}, {"f1", runs::MetricKind::Continuous, "Soft F1"}};
  r.primary_metric = "exec";
  r.options = runs::Json{{"compat", "x"}};
  r.inputs = {{"gold", "gold", "/data/gold.sql", std::string(64, 'a')}, {"pred", "pred", "/p/" + system + ".sql", std::string(64, 'b')}};
  r.engines = {{"sqlite", runs::sqlite_version()}};
  r.timeout_s = 30;
  r.wall_s = 1.5;
  r.category_axes = {{"hardness", {"easy", "medium", "hard"}}};
  return r;
}

inline runs::Instance inst(const std::string& id, double exec, double f1, const std::string& hardness) {
  runs::Instance in;
  in.id = id;
  in.scores = {{"exec", exec}, {"f1", f1}};
  in.category = {{"hardness", hardness}};
  in.gold_sql = "SELECT " + id;
  in.pred_sql = "SELECT " + id + (exec ? "" : " + 1");
  if (!exec) in.failure_reason = "results differ";
  in.time_s = 0.01;
  return in;
}

inline std::string write_run(const TempDir& t, const std::string& name, const runs::RunRecord& r) {
  std::string p = (t / name).string();
  runs::write_run_record(p, r);
  return p;
}

}  // namespace sqlgrade::test
