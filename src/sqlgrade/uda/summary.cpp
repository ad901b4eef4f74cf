// UDA driver, summaries: the counting rule (SummaryCounts), summary.json / summary.csv of a dataset,
// gold_summary.json, and the console table.
#include <cstdio>
#include <map>

#include "sqlgrade/core/csv.hpp"
#include "sqlgrade/uda/driver.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::uda {

using ordered_json = nlohmann::ordered_json;

namespace {

constexpr const char* kCountingRule =
    "macro_precision/macro_recall/macro_f1 are means over every statement with a gold result "
    "(averaged_over = scored + result_errors + missing_results): a result that is missing, unreadable "
    "or lacks a key column counts 0. Gold errors (the SQL cannot run on the gold tables) are left out "
    "and listed in gold_errors. scored_only averages the scored statements alone.";

std::optional<double> mean(double sum, size_t n) { return n ? std::optional<double>(sum / n) : std::nullopt; }

ordered_json num(std::optional<double> v) { return v ? ordered_json(*v) : ordered_json(nullptr); }

}  // namespace

void SummaryCounts::add(const RunEntry& e) {
  ++statements;
  if (e.status == "ok") {
    ++scored;
    sum_precision += e.macro_precision;
    sum_recall += e.macro_recall;
    sum_f1 += e.macro_f1;
  } else if (e.error_kind == kMissingResult) {
    ++missing_results;
  } else if (e.error_kind == kGoldError) {
    ++gold_errors;
  } else {
    ++result_errors;  // an error of unknown kind counts against the system, never for it
  }
}

void SummaryCounts::add(const SummaryCounts& o) {
  statements += o.statements;
  scored += o.scored;
  result_errors += o.result_errors;
  missing_results += o.missing_results;
  gold_errors += o.gold_errors;
  sum_precision += o.sum_precision;
  sum_recall += o.sum_recall;
  sum_f1 += o.sum_f1;
}

std::optional<double> SummaryCounts::precision() const { return mean(sum_precision, averaged_over()); }
std::optional<double> SummaryCounts::recall() const { return mean(sum_recall, averaged_over()); }
std::optional<double> SummaryCounts::f1() const { return mean(sum_f1, averaged_over()); }
std::optional<double> SummaryCounts::scored_precision() const { return mean(sum_precision, scored); }
std::optional<double> SummaryCounts::scored_recall() const { return mean(sum_recall, scored); }
std::optional<double> SummaryCounts::scored_f1() const { return mean(sum_f1, scored); }

ordered_json counts_json(const SummaryCounts& c) {
  ordered_json j;
  j["statements"] = c.statements;
  j["scored"] = c.scored;
  j["result_errors"] = c.result_errors;
  j["missing_results"] = c.missing_results;
  j["gold_errors"] = c.gold_errors;
  j["averaged_over"] = c.averaged_over();
  j["macro_precision"] = num(c.precision());
  j["macro_recall"] = num(c.recall());
  j["macro_f1"] = num(c.f1());
  j["scored_only"] = {{"statements", c.scored},
                      {"macro_precision", num(c.scored_precision())},
                      {"macro_recall", num(c.scored_recall())},
                      {"macro_f1", num(c.scored_f1())}};
  return j;
}

SummaryCounts DatasetSummary::counts() const {
  SummaryCounts c;
  for (auto& q : queries) c.add(q);
  return c;
}

ordered_json entry_json(const RunEntry& q, EntryLead lead) {
  ordered_json j = lead == EntryLead::Path ? ordered_json{{"path", q.path}} : ordered_json{{"dataset", q.dataset}};
  j["task"] = q.task;
  j["file"] = q.file_stem;
  j["index"] = q.index;
  j["label"] = q.label;
  j["category"] = q.category;
  j["query_type"] = q.query_type;
  j["status"] = q.status;
  j["error_kind"] = q.error_kind;
  j["reason"] = q.reason;
  j["macro_precision"] = q.macro_precision;
  j["macro_recall"] = q.macro_recall;
  j["macro_f1"] = q.macro_f1;
  j["len_gold"] = q.len_gold;
  j["len_pred"] = q.len_pred;
  j["matched_rows"] = q.matched_rows;
  j["judge_questions"] = q.judge_questions;
  return j;
}

RunEntry entry_from(const std::string& path, const ordered_json& d) {
  RunEntry q;
  q.path = path;
  q.dataset = d.at("dataset"), q.task = d.at("task"), q.file_stem = d.at("file"), q.index = d.at("index");
  q.label = d.at("label"), q.category = d.at("category"), q.query_type = d.at("query_type");
  q.status = d.at("status"), q.error_kind = d.at("error_kind"), q.reason = d.at("reason");
  q.macro_precision = d.at("macro_precision"), q.macro_recall = d.at("macro_recall"), q.macro_f1 = d.at("macro_f1");
  q.len_gold = d.at("len_gold"), q.len_pred = d.at("len_pred"), q.matched_rows = d.at("matched_rows");
  q.judge_questions = d.at("judge_questions");
  return q;
}

ordered_json summary_counts_json(const DatasetSummary& s) {
  ordered_json j;
  j["counting"] = kCountingRule;
  j["overall"] = counts_json(s.counts());
  std::map<std::string, SummaryCounts> by_task;
  ordered_json gold_errors = ordered_json::array();
  for (auto& q : s.queries) {
    by_task[q.task].add(q);
    if (q.error_kind == kGoldError) gold_errors.push_back({{"path", q.path}, {"reason", q.reason}});
  }
  ordered_json tasks = ordered_json::object();
  for (auto& [task, c] : by_task) tasks[task] = counts_json(c);
  j["by_task"] = tasks;
  j["gold_errors"] = gold_errors;
  j["load_notes"] = s.load_notes;
  return j;
}

ordered_json summary_json(const DatasetSummary& s) {
  ordered_json j;
  j["dataset"] = s.dataset;
  ordered_json counts = summary_counts_json(s);
  for (auto& [k, v] : counts.items()) j[k] = std::move(v);
  ordered_json qs = ordered_json::array();
  for (auto& q : s.queries) qs.push_back(entry_json(q, EntryLead::Path));
  j["queries"] = qs;
  return j;
}

ordered_json gold_summary_json(const DatasetSummary& s) {
  ordered_json j;
  j["dataset"] = s.dataset;
  size_t bad = 0;
  ordered_json qs = ordered_json::array();
  for (auto& q : s.queries) {
    if (q.status != "ok") ++bad;
    qs.push_back({{"path", q.path}, {"task", q.task}, {"file", q.file_stem}, {"index", q.index},
                  {"label", q.label}, {"category", q.category}, {"query_type", q.query_type},
                  {"status", q.status}, {"reason", q.reason}, {"len_gold", q.len_gold}});
  }
  j["statements"] = s.queries.size();
  j["gold_results"] = s.queries.size() - bad;
  j["gold_errors"] = bad;
  j["load_notes"] = s.load_notes;
  j["queries"] = qs;
  return j;
}

std::string summary_csv(const DatasetSummary& s) {
  std::string out = csv_line(std::vector<std::string>{"path", "task", "file", "index", "label", "category", "query_type",
                                                      "status", "error_kind", "reason", "macro_precision", "macro_recall",
                                                      "macro_f1", "len_gold", "len_pred", "matched_rows"});
  for (auto& q : s.queries)
    out += csv_line(std::vector<std::string>{q.path, q.task, q.file_stem, std::to_string(q.index), q.label, q.category,
                                             q.query_type, q.status, q.error_kind, q.reason,
                                             py::float_repr(q.macro_precision), py::float_repr(q.macro_recall),
                                             py::float_repr(q.macro_f1), std::to_string(q.len_gold),
                                             std::to_string(q.len_pred), std::to_string(q.matched_rows)});
  return out;
}

std::string summary_table(const std::vector<DatasetSummary>& sums) {
  auto fmt = [](std::optional<double> v) {
    char b[32];
    if (!v) return std::string("-");
    std::snprintf(b, sizeof b, "%.3f", *v);
    return std::string(b);
  };
  char buf[320];
  auto line = [&](const std::string& ds, const std::string& task, const SummaryCounts& c) {
    std::snprintf(buf, sizeof buf, "%-8s %-7s %10zu %6zu %12zu %7zu %10zu %9s %6s %6s %14s\n", ds.c_str(), task.c_str(),
                  c.statements, c.scored, c.result_errors, c.missing_results, c.gold_errors, fmt(c.precision()).c_str(),
                  fmt(c.recall()).c_str(), fmt(c.f1()).c_str(), fmt(c.scored_f1()).c_str());
    return std::string(buf);
  };
  std::snprintf(buf, sizeof buf, "%-8s %-7s %10s %6s %12s %7s %10s %9s %6s %6s %14s\n", "dataset", "task", "statements",
                "scored", "result_error", "missing", "gold_error", "precision", "recall", "f1", "scored_only_f1");
  std::string out = buf;
  SummaryCounts total;
  for (auto& s : sums) {
    std::map<std::string, SummaryCounts> by_task;
    for (auto& q : s.queries) by_task[q.task].add(q);
    for (auto& [task, c] : by_task) {
      out += line(s.dataset, task, c);
      total.add(c);
    }
  }
  out += line("all", "", total);
  out += "precision, recall, f1: mean over the " + std::to_string(total.averaged_over()) +
         " statements with a gold result; a missing result or a result\n"
         "  error (unreadable, no key column) counts 0; gold errors (SQL that cannot run on the gold tables)\n"
         "  are left out and listed in summary.json.\n"
         "scored_only_f1: mean f1 over the " + std::to_string(total.scored) + " scored statements only.\n";
  return out;
}

}  // namespace sqlgrade::uda
