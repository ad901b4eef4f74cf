// UDA driver, summaries: summary.json / summary.csv of a dataset and the console table.
#include <array>
#include <cstdio>
#include <map>

#include "sqlgrade/csv.hpp"
#include "sqlgrade/suites/uda.hpp"

namespace sqlgrade::uda {

using json = nlohmann::json;

json DatasetSummary::to_json() const {
  json j;
  j["dataset"] = dataset;
  json qs = json::array();
  std::map<std::string, std::array<double, 4>> by_task;  // n_ok, p, r, f1
  std::map<std::string, size_t> errors_by_task;
  std::array<double, 4> all{0, 0, 0, 0};
  size_t errors = 0;
  for (auto& q : queries) {
    qs.push_back({{"path", q.path}, {"task", q.task}, {"file", q.file_stem}, {"index", q.index},
                  {"label", q.label}, {"category", q.category}, {"query_type", q.query_type},
                  {"status", q.status}, {"reason", q.reason}, {"macro_precision", q.macro_precision},
                  {"macro_recall", q.macro_recall}, {"macro_f1", q.macro_f1}, {"len_gold", q.len_gold},
                  {"len_pred", q.len_pred}, {"matched_rows", q.matched_rows}, {"judge_questions", q.judge_questions}});
    if (q.status != "ok") {
      ++errors;
      errors_by_task[q.task]++;
      continue;
    }
    auto& t = by_task[q.task];
    t[0] += 1;
    t[1] += q.macro_precision;
    t[2] += q.macro_recall;
    t[3] += q.macro_f1;
    all[0] += 1;
    all[1] += q.macro_precision;
    all[2] += q.macro_recall;
    all[3] += q.macro_f1;
  }
  j["queries"] = qs;
  json cats = json::object();
  for (auto& [task, t] : by_task)
    cats[task] = {{"queries", t[0]}, {"errors", errors_by_task[task]}, {"macro_precision", t[1] / t[0]},
                  {"macro_recall", t[2] / t[0]}, {"macro_f1", t[3] / t[0]}};
  for (auto& [task, n] : errors_by_task)
    if (!cats.contains(task)) cats[task] = {{"queries", 0}, {"errors", n}};
  j["by_task"] = cats;
  j["overall"] = {{"queries", all[0]}, {"errors", errors},
                  {"macro_precision", all[0] ? all[1] / all[0] : 0.0},
                  {"macro_recall", all[0] ? all[2] / all[0] : 0.0},
                  {"macro_f1", all[0] ? all[3] / all[0] : 0.0}};
  return j;
}

std::string DatasetSummary::to_csv() const {
  std::string out = csv_line(std::vector<std::string>{"path", "task", "file", "index", "label", "category", "query_type",
                                                      "status", "reason", "macro_precision", "macro_recall", "macro_f1",
                                                      "len_gold", "len_pred", "matched_rows"});
  for (auto& q : queries)
    out += csv_line(std::vector<std::string>{q.path, q.task, q.file_stem, std::to_string(q.index), q.label, q.category,
                                             q.query_type, q.status, q.reason, python_float_repr(q.macro_precision),
                                             python_float_repr(q.macro_recall), python_float_repr(q.macro_f1),
                                             std::to_string(q.len_gold), std::to_string(q.len_pred),
                                             std::to_string(q.matched_rows)});
  return out;
}

std::string summary_table(const std::vector<DatasetSummary>& sums) {
  char buf[256];
  std::string out;
  std::snprintf(buf, sizeof buf, "%-10s %-8s %7s %6s %9s %9s %9s\n", "dataset", "task", "queries", "errors", "precision",
                "recall", "f1");
  out += buf;
  std::array<double, 5> total{0, 0, 0, 0, 0};
  for (auto& s : sums) {
    std::map<std::string, std::array<double, 5>> t;  // ok, err, p, r, f
    for (auto& q : s.queries) {
      auto& a = t[q.task];
      if (q.status != "ok") {
        a[1] += 1;
        continue;
      }
      a[0] += 1;
      a[2] += q.macro_precision;
      a[3] += q.macro_recall;
      a[4] += q.macro_f1;
    }
    for (auto& [task, a] : t) {
      std::snprintf(buf, sizeof buf, "%-10s %-8s %7.0f %6.0f %9.3f %9.3f %9.3f\n", s.dataset.c_str(), task.c_str(),
                    a[0] + a[1], a[1], a[0] ? a[2] / a[0] : 0.0, a[0] ? a[3] / a[0] : 0.0, a[0] ? a[4] / a[0] : 0.0);
      out += buf;
      for (int k = 0; k < 5; ++k) total[k] += a[k];
    }
  }
  std::snprintf(buf, sizeof buf, "%-10s %-8s %7.0f %6.0f %9.3f %9.3f %9.3f\n", "all", "", total[0] + total[1], total[1],
                total[0] ? total[2] / total[0] : 0.0, total[0] ? total[3] / total[0] : 0.0,
                total[0] ? total[4] / total[0] : 0.0);
  out += buf;
  return out;
}

}  // namespace sqlgrade::uda
