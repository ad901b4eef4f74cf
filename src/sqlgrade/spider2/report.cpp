// Printing for `sqlgrade spider2`. See spider2.hpp.
#include "sqlgrade/spider2/report.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

#include "sqlgrade/core/value.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::spider2 {

namespace {

size_t n_correct(const Run& r) {
  size_t c = 0;
  for (auto& it : r.items) c += it.outcome.match();
  return c;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

bool sf_prefixed(const std::string& id) {
  return id.rfind("bq", 0) == 0 || id.rfind("ga", 0) == 0 || id.rfind("local", 0) == 0;
}

}  // namespace

std::string ids_csv_path(const Options& opt) { return opt.result_dir + "-ids.csv"; }
std::string csv_dir_path(const Options& opt) { return opt.result_dir + "_csv"; }
std::string v2_metrics_path(const Options& opt) { return opt.result_dir + "-detailed-metrics.json"; }

std::string format_official(const Run& r, const Options& opt) {
  if (r.items.empty()) return "No overlapping prediction IDs with gold set. Nothing to evaluate.\n";
  std::string out;
  for (auto& it : r.items)
    for (auto& m : it.messages) out += m + "\n";
  out += "{";
  for (size_t i = 0; i < r.items.size(); ++i) {
    if (i) out += ", ";
    out += py::str_repr(r.items[i].instance_id) + ": " + std::to_string(r.items[i].outcome.match() ? 1 : 0);
  }
  out += "}\n";
  const size_t c = n_correct(r), n = r.items.size();
  out += "Final score: " + py::float_repr(static_cast<double>(c) / static_cast<double>(n)) +
         ", Correct examples: " + std::to_string(c) + ", Total examples: " + std::to_string(n) + "\n";
  out += "Real score: " + py::float_repr(static_cast<double>(c) / kRealTotal) +
         ", Correct examples: " + std::to_string(c) + ", Total examples: " + std::to_string(kRealTotal) + "\n";
  if (opt.mode == Mode::Sql) out += "Execution results saved to: " + csv_dir_path(opt) + "\n";
  out += "Correct IDs saved to: " + ids_csv_path(opt) + "\n";
  out += "TOTAL_GB_PROCESSED: 0.00000 GB\n";
  return out;
}

int v2_data_score(const Instance& it) { return it.v2_error ? 0 : it.v2.score; }

std::string ids_csv(const Run& r, bool v2_rule) {
  std::string out = "instance_id\n";
  for (auto& it : r.items)
    if ((v2_rule ? v2_data_score(it) == 1 : it.outcome.match())) out += (sf_prefixed(it.instance_id) ? "sf_" : "") + it.instance_id + "\n";
  return out;
}

std::string format_strict(const Run& r) {
  std::string out = "\n=== Strict check (does not change the official score) ===\n";
  size_t flagged_correct = 0, missed = 0;
  for (auto& it : r.items) {
    flagged_correct += it.strict_scrambled;
    missed += it.strict_sort_miss;
    for (auto& f : it.strict) out += "[" + it.instance_id + "] " + (it.outcome.match() ? "scored 1, but " : "scored 0, but ") + f + "\n";
  }
  const size_t n = r.items.size(), c = n_correct(r);
  out += "Scored 1 with rows scrambled across columns: " + std::to_string(flagged_correct) + "\n";
  out += "Scored 0 only because of the string-representation sort: " + std::to_string(missed) + "\n";
  if (n)
    out += "Strict score: " + py::float_repr(static_cast<double>(c - flagged_correct) / static_cast<double>(n)) +
           ", Correct examples: " + std::to_string(c - flagged_correct) + ", Total examples: " + std::to_string(n) + "\n";
  return out;
}

namespace {

// Sums of the v2 per-instance metrics (printed summary and detailed JSON both average these).
struct V2Totals {
  double cp = 0, cr = 0, cf = 0, rp = 0, rrc = 0, rf = 0, tp = 0, fp = 0, fn = 0, op = 0, orc = 0, of = 0;
  long perfect_col = 0, missing = 0, extra = 0, perfect_row = 0;
};

V2Totals v2_totals(const Run& r) {
  V2Totals t;
  for (auto& it : r.items) {
    const auto& v = it.v2;
    t.cp += v.columns.precision, t.cr += v.columns.recall, t.cf += v.columns.f1;
    t.perfect_col += v.columns.f1 == 1.0;
    t.missing += !v.columns.fn.empty();
    t.extra += !v.columns.fp.empty();
    t.rp += v.rows.precision, t.rrc += v.rows.recall, t.rf += v.rows.f1;
    t.perfect_row += v.rows.f1 == 1.0;
    t.tp += v.rows.tp, t.fp += v.rows.fp, t.fn += v.rows.fn;
    t.op += v.overall.precision, t.orc += v.overall.recall, t.of += v.overall.f1;
  }
  return t;
}

}  // namespace

std::string format_v2_summary(const Run& r, const Options& opt) {
  std::string out;
  const size_t n = r.items.size();
  if (n) {
    const V2Totals t = v2_totals(r);
    const double d = static_cast<double>(n);
    const std::string ns = std::to_string(n);
    out += "\n=== Column Comparison Metrics ===\n";
    out += "Average Column Precision: " + fixed(t.cp / d, 4) + "\n";
    out += "Average Column Recall: " + fixed(t.cr / d, 4) + "\n";
    out += "Average Column F1 Score: " + fixed(t.cf / d, 4) + "\n";
    out += "Perfect column matches: " + std::to_string(t.perfect_col) + " / " + ns + "\n";
    out += "Examples with missing columns: " + std::to_string(t.missing) + "\n";
    out += "Examples with extra columns: " + std::to_string(t.extra) + "\n";
    out += "\n=== Row Comparison Metrics ===\n";
    out += "Average Row Precision: " + fixed(t.rp / d, 4) + "\n";
    out += "Average Row Recall: " + fixed(t.rrc / d, 4) + "\n";
    out += "Average Row F1 Score: " + fixed(t.rf / d, 4) + "\n";
    out += "Perfect row matches: " + std::to_string(t.perfect_row) + " / " + ns + "\n";
    out += "Average matched rows (TP): " + fixed(t.tp / d, 2) + "\n";
    out += "Average extra rows (FP): " + fixed(t.fp / d, 2) + "\n";
    out += "Average missing rows (FN): " + fixed(t.fn / d, 2) + "\n";
    out += "\n=== Overall (Columns + Rows) Metrics ===\n";
    out += "Average Overall Precision: " + fixed(t.op / d, 4) + "\n";
    out += "Average Overall Recall: " + fixed(t.orc / d, 4) + "\n";
    out += "Average Overall F1 Score: " + fixed(t.of / d, 4) + "\n";
  }
  out += "\nDetailed column and row metrics saved to: " + v2_metrics_path(opt) + "\n";
  return out;
}

nlohmann::json v2_summary_json(const Run& r) {
  using nlohmann::json;
  const size_t n = r.items.size();
  const V2Totals t = v2_totals(r);
  long correct = 0;
  for (auto& it : r.items) correct += v2_data_score(it);
  const double dn = n ? static_cast<double>(n) : 1.0;
  return json{
      {"column_metrics",
       {{"avg_precision", t.cp / dn}, {"avg_recall", t.cr / dn}, {"avg_f1", t.cf / dn}, {"perfect_matches", t.perfect_col},
        {"missing_columns_count", t.missing}, {"extra_columns_count", t.extra}}},
      {"row_metrics",
       {{"avg_precision", t.rp / dn}, {"avg_recall", t.rrc / dn}, {"avg_f1", t.rf / dn}, {"perfect_matches", t.perfect_row},
        {"avg_tp_rows", t.tp / dn}, {"avg_fp_rows", t.fp / dn}, {"avg_fn_rows", t.fn / dn}}},
      {"overall_metrics", {{"avg_precision", t.op / dn}, {"avg_recall", t.orc / dn}, {"avg_f1", t.of / dn}}},
      {"total_evaluated", n},
      {"correct_data_matches", correct}};
}

nlohmann::json v2_detailed_json(const Run& r) {
  using nlohmann::json;
  json details = json::array();
  for (auto& it : r.items) {
    json d = v2::to_json(it.v2);
    json row = {{"instance_id", it.instance_id}};
    row["data_score"] = v2_data_score(it);
    row["column_metrics"] = d["column_metrics"];
    row["row_metrics"] = d["row_metrics"];
    row["overall_metrics"] = d["overall_metrics"];
    if (it.v2_error) row["error"] = *it.v2_error;
    details.push_back(std::move(row));
  }
  return json{{"summary", v2_summary_json(r)}, {"detailed_results", details}};
}

std::string v2_errors_log(const Run& r, const Options& opt) {
  std::string out;
  std::time_t now = std::time(nullptr);
  char ts[64];
  std::strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
  for (auto& it : r.items) {
    if (!it.v2_error) continue;
    nlohmann::json ctx = {{"instance_id", it.instance_id},
                          {"mode", opt.mode == Mode::Sql ? "sql" : "exec_result"},
                          {"result_dir", opt.result_dir},
                          {"gold_result_dir", opt.gold_dir + "/exec_result"},
                          {"error", *it.v2_error},
                          {"score", 0}};
    if (it.pred_sql) ctx["pred_sql"] = *it.pred_sql;
    std::string msg = it.v2_error->substr(0, it.v2_error->find(':'));
    out += std::string(ts) + " | ERROR | " + msg + " | context=" + ctx.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  return out;
}

}  // namespace sqlgrade::spider2
