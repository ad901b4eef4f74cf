// UDA driver, per-query outputs: acc.json and the three CSVs (gold, matched gold, matched result),
// replaced as one folder.
#include <algorithm>
#include <fstream>
#include <thread>
#include <unistd.h>

#include "sqlgrade/core/csv.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/uda/judge/llm_trace.hpp"
#include "sqlgrade/uda/driver.hpp"
#include "sqlgrade/version.hpp"
#include "sqlgrade/runs/result_rows.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::uda {

using ordered_json = nlohmann::ordered_json;

std::string table_to_csv(const Table& t) {
  std::string out = csv_line(t.columns);
  std::vector<std::optional<std::string>> f;
  for (auto& r : t.rows) {
    f.clear();
    for (auto& v : r) f.push_back(v.is_null() ? std::nullopt : std::optional<std::string>(py::text(v)));
    out += csv_line(f);
  }
  return out;
}

ordered_json acc_json(const QueryEval& ev, const EvalOptions& opt) {
  ordered_json j;
  ordered_json cols = ordered_json::object();
  std::vector<std::string> evaluated;
  for (auto& c : ev.match.columns) {
    std::string key = c.name;
    for (int k = 2; cols.contains(key); ++k) key = c.name + "#" + std::to_string(k);
    cols[key] = {{"precision", c.precision}, {"recall", c.recall}, {"f1", c.f1}, {"kind", to_string(c.kind)},
                 {"judged_cells", c.judged}};
    evaluated.push_back(key);
  }
  j["columns"] = cols;
  j["macro_precision"] = ev.match.macro_precision;
  j["macro_recall"] = ev.match.macro_recall;
  j["macro_f1"] = ev.match.macro_f1;
  j["rows"] = {{"len_gold", ev.match.len_gold}, {"len_pred", ev.match.len_pred}, {"matched_rows", ev.match.pairs.size()}};
  j["row_precision"] = ev.match.row_precision;
  j["row_recall"] = ev.match.row_recall;
  j["row_f1"] = ev.match.row_f1;
  j["warnings"] = ev.warnings;
  ordered_json keys = ordered_json::array();
  for (auto& k : ev.keys) keys.push_back(k.name);
  j["used_keys"] = keys;
  j["evaluated_columns"] = evaluated;
  j["skipped_columns"] = ev.skipped;
  j["status"] = ev.status;
  if (!ev.error_kind.empty()) j["error_kind"] = ev.error_kind;
  if (!ev.reason.empty()) j["reason"] = ev.reason;
  j["mode"] = {{"query_type", to_string(ev.gold->plan.shape.type)},
               {"multi_entity", ev.match.multi_entity},
               {"primary_key", ev.primary_key}};
  // Per-query judge use: counted by the judge into the QueryTrace the driver opens around each
  // query (judge/llm_trace.hpp); outside a trace (library use) only the question count is known.
  judge::QueryJudgeCounts jc;
  if (auto* t = judge::QueryTrace::current()) jc = t->counts;
  j["judge"] = {{"name", ev.judge_name},          {"model", ev.judge_model},
                {"questions", ev.match.judge_questions}, {"calls", jc.calls},
                {"cache_hits", jc.cache_hits},      {"deduplicated", jc.deduplicated},
                {"failures", jc.failures}};
  j["tolerances"] = {{"float_tolerance", opt.float_tolerance},
                     {"float_rule", "|pred - gold| <= float_tolerance * max(1, |gold|)"},
                     {"aggregate_rule", "1 / (1 + |pred - gold| / |gold|); gold = 0: 1 / (1 + |pred|)"},
                     {"multi_value_sep", opt.multi_sep}};
  j["sql"] = ev.gold->plan.sql;
  j["gold_sql"] = ev.gold->plan.gold_sql;
  j["sqlgrade_version"] = SQLGRADE_VERSION;
  return j;
}

void record_view(const QueryEval& ev, AccJson& out) {
  const bool gold_ok = ev.gold && ev.gold->error.empty();
  if (gold_ok) out.gold_first = runs::first_rows(ev.gold->table);
  if (ev.error_kind.empty() || ev.pred.width() > 0) out.pred_first = runs::first_rows(ev.pred);
  if (!gold_ok || ev.match.pairs.empty() || ev.match.cells.size() != ev.match.columns.size()) return;
  nlohmann::json cols = nlohmann::json::array(), pairs = nlohmann::json::array();
  const size_t n_cols = std::min(ev.columns.size(), std::min(ev.match.columns.size(), kResultColumnsKept));
  for (size_t c = 0; c < n_cols; ++c) cols.push_back(ev.match.columns[c].name);
  for (size_t k = 0; k < ev.match.pairs.size() && k < kResultRowsKept; ++k) {
    const auto [g, p] = ev.match.pairs[k];
    nlohmann::json gold = nlohmann::json::array(), pred = nlohmann::json::array(), sp = nlohmann::json::array(),
                   sr = nlohmann::json::array();
    for (size_t c = 0; c < n_cols; ++c) {
      const ColumnSpec& spec = ev.columns[c];
      const auto gt = spec.gold_col >= 0 ? runs::cell_text(ev.gold->table.rows[g][static_cast<size_t>(spec.gold_col)]) : std::nullopt;
      gold.push_back(gt ? nlohmann::json(*gt) : nlohmann::json(nullptr));
      if (spec.pred_col >= 0 && !ev.pred.is_null(p, static_cast<size_t>(spec.pred_col)))
        pred.push_back(runs::cut_cell(std::string(ev.pred.text(p, static_cast<size_t>(spec.pred_col)))));
      else
        pred.push_back(nullptr);
      const CellScore& cs = ev.match.cells[c][k];
      sp.push_back(cs.p), sr.push_back(cs.r);
    }
    pairs.push_back({{"gold", gold}, {"pred", pred}, {"p", sp}, {"r", sr}});
  }
  out.cells = {{"columns", cols}, {"pairs", pairs}, {"pairs_total", ev.match.pairs.size()}};
}

std::string acc_file_text(const ordered_json& acc) {
  return acc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void write_query_outputs(const fs::path& out_dir, const QueryEval& ev, const std::string& acc_text) {
  Table mg, mp;
  mg.columns = ev.gold->table.columns;
  mp.columns = ev.pred.columns;
  for (auto& [g, p] : ev.match.pairs) {
    mg.rows.push_back(ev.gold->table.rows[g]);
    mp.rows.push_back(ev.pred.row(p));
  }
  // The four files are written into a fresh sibling folder that then replaces out_dir with one
  // rename: readers see the old complete set or the new complete set, never a mix. (One directory
  // rename instead of four file renames also avoids ext4's flush-on-replace, which dominated run time.)
  fs::path tmp = out_dir;
  tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()) & 0xffffff);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) throw InputError(tmp.string(), "cannot create folder: " + ec.message());
  auto put = [&](const char* name, const std::string& content) {
    std::ofstream out(tmp / name, std::ios::binary);
    out << content;
    if (!out) {
      fs::remove_all(tmp, ec);
      throw InputError((out_dir / name).string(), "cannot write");
    }
  };
  put("gold_result.csv", table_to_csv(ev.gold->table));
  put("matched_gold_result.csv", table_to_csv(mg));
  put("matched_result.csv", table_to_csv(mp));
  put("acc.json", acc_text);
  fs::remove_all(out_dir, ec);
  fs::rename(tmp, out_dir, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    throw InputError(out_dir.string(), "cannot move results into place");
  }
}

}  // namespace sqlgrade::uda
