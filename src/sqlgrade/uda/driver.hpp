#pragma once
// UDA-Bench / OpenQuest evaluation driver: prepares query folders (sql.json), computes gold results
// on the gold tables, evaluates a system's result.csv against them, and runs whole datasets in
// parallel with per-dataset summaries. The comparison rule itself lives in compare.hpp; the public
// entry points (api.cpp) in include/sqlgrade/uda.hpp.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/uda.hpp"
#include "sqlgrade/exec/runner.hpp"
#include "sqlgrade/uda/compare.hpp"
#include "sqlgrade/engine/engine.hpp"
#include "sqlgrade/uda/query_shape.hpp"
#include "sqlgrade/uda/statements.hpp"
#include "sqlgrade/uda/dataset.hpp"

namespace sqlgrade::uda {

// One statement of a query file of a dataset.
struct QueryItem {
  std::string task;       // Agg, Filter, Join, Mixed, Select
  std::string file_stem;  // e.g. filter_queries_player
  SqlStatement stmt;      // index = position in the file (1-based)
  fs::path rel_dir() const { return fs::path(task) / file_stem / std::to_string(stmt.index); }
};

// Every statement of every <Task>/*.sql file of the dataset folder (sorted by task, file).
std::vector<QueryItem> discover_queries(const fs::path& dataset_dir);

// The gold side of one statement: parsed shape, the SQL actually run, and where things are.
struct GoldPlan {
  std::string sql;       // statement as given
  std::string gold_sql;  // literals normalised, id columns injected
  QueryShape shape;
  std::vector<std::string> injected;  // injected id column names, in order (prefix of the result)
  std::vector<int> item_gold_col;     // gold column index per select item
  std::vector<std::string> item_names;  // reported name per select item (duplicates qualified)
};

struct GoldRun {
  std::string error;  // non-empty: the gold could not be computed
  GoldPlan plan;
  Table table;
  double seconds = 0;
};

struct QueryEval {
  std::string status = "ok";  // ok | error
  std::string error_kind;     // "" when ok, else kResultError / kMissingResult / kGoldError
  std::string reason;
  std::shared_ptr<const GoldRun> gold;  // set by every Evaluator call; shared with the gold memo
  TextTable pred;  // the result as read (text or NULL cells)
  std::vector<KeySpec> keys;
  std::vector<ColumnSpec> columns;
  std::vector<std::string> skipped;  // select items not scored (keys, stop columns)
  std::string primary_key;
  MatchResult match;
  std::vector<std::string> warnings;
  std::string judge_name, judge_model;
};

class Evaluator {
 public:
  Evaluator(Dataset& ds, EvalOptions opt, judge::Judge& jd);
  // sql.json content for a statement: sql, comments/labels and value_type/description of every
  // attribute it touches, grouped by the table name as spelled in the SQL.
  // `parsed`, when given, is the statement's shape already parsed (saves DuckDB a second parse).
  nlohmann::json sql_json(DuckConn& conn, const QueryItem& item, const QueryShape* parsed = nullptr);
  GoldRun run_gold(DuckConn& conn, const std::string& sql, const QueryShape* parsed = nullptr);
  // Full evaluation of one result.csv (errors are reported in the result, never thrown).
  QueryEval evaluate(DuckConn& conn, const std::string& sql, const fs::path& result_csv);
  QueryEval evaluate_table(DuckConn& conn, const std::string& sql, TextTable pred);
  // A statement without a result: the gold is still run (its size goes to acc.json, and a gold
  // that fails makes the statement a gold error instead of a missing result).
  QueryEval missing_result(DuckConn& conn, const std::string& sql, std::string reason);

  Dataset& dataset() { return ds_; }
  const EvalOptions& options() const { return opt_; }
  judge::Judge& judge() { return judge_; }

 private:
  // run_gold through the gold memo (exec/runner.hpp): a statement's gold runs once per Evaluator
  // however many result folders (or repeated statements) ask for it, and is shared, not copied;
  // failed golds are not kept; bounded by bytes.
  std::shared_ptr<const GoldRun> gold(DuckConn& conn, const std::string& sql);
  Dataset& ds_;
  EvalOptions opt_;
  judge::Judge& judge_;
  exec::GoldMemo<GoldRun> golds_;
};

// Turns `ev` into an unscored statement of the given kind (a gold error wins when the gold failed):
// every metric 0, the real gold and result sizes, the columns that would have been scored at 0.
void mark_unscored(QueryEval& ev, const char* kind, std::string reason);

// Reads a system's result.csv: BOM/CRLF tolerant; columns without a header or named "Unnamed…"
// dropped; header names trimmed and unquoted; NA tokens become NULL; empty fields after the last
// column (a trailing comma) are dropped and reported in `notes`. InputError when malformed (a row
// with extra non-empty fields, an unterminated quote, …), naming the line, and when the file is larger
// than `max_bytes` (0: the input bound).
// The table is compact (about 4 bytes a cell plus its text; see core/table.hpp).
TextTable read_result_csv(const fs::path& path, std::vector<std::string>* notes = nullptr, size_t max_bytes = 0);

// acc.json of one statement, and the file's text (2-space indent, invalid UTF-8 replaced, final newline).
nlohmann::ordered_json acc_json(const QueryEval& ev, const EvalOptions& opt);
std::string acc_file_text(const nlohmann::ordered_json& acc);
struct AccJson {
  nlohmann::ordered_json json;  // acc_json()
  // For the run record's drill-down (record_view): the first rows of the gold and of the result as
  // submitted, and the first matched pairs' scored cells side by side with their scores.
  ResultRows gold_first, pred_first;
  nlohmann::json cells;
};
// The record's view of one evaluated statement (fills AccJson's gold_first, pred_first, cells):
// cells = {"columns": [...], "pairs": [{"gold": [...], "pred": [...], "p": [...], "r": [...]}],
// "pairs_total": n}, at most kResultRowsKept pairs and kResultColumnsKept columns, cells cut as
// first_rows cuts them.
void record_view(const QueryEval& ev, AccJson& out);
// Writes acc.json (`acc_text`: acc_file_text of acc_json(ev, …)), gold_result.csv, matched_result.csv
// and matched_gold_result.csv into out_dir.
void write_query_outputs(const fs::path& out_dir, const QueryEval& ev, const std::string& acc_text);
std::string table_to_csv(const Table& t);

// ---- whole datasets ----
// RunEntry, SummaryCounts, DatasetSummary and RunOptions are public (include/sqlgrade/uda.hpp).

// summary.json of `uda run`: the dataset, summary_counts_json(s), and every statement
// (entry_json(q, EntryLead::Path)).
nlohmann::ordered_json summary_json(const DatasetSummary& s);
// summary.json without the dataset's name and its statements: counting rule, overall and per-task
// counts and averages, the gold errors, the gold tables' load notes (the run record's summary).
nlohmann::ordered_json summary_counts_json(const DatasetSummary& s);
// One statement's fields as summary.json lists them (led by its path) and as the run record's
// instance detail keeps them (led by its dataset: the instance id is the path); entry_from reads the
// latter back (the "uda" summarizer), throwing nlohmann's exceptions on a missing or mistyped field.
enum class EntryLead { Path, Dataset };
nlohmann::ordered_json entry_json(const RunEntry& q, EntryLead lead);
RunEntry entry_from(const std::string& path, const nlohmann::ordered_json& d);
// gold_summary.json of `uda gold`: statements, gold results and errors, load notes.
nlohmann::ordered_json gold_summary_json(const DatasetSummary& s);
// summary.csv of `uda run`.
std::string summary_csv(const DatasetSummary& s);
nlohmann::ordered_json counts_json(const SummaryCounts& c);

// The gold result as a system would write it: injected id columns become <t>.file_name / file_name
// holding "<id>.txt". Feeding it back must score 1.0 (the evaluator's ceiling check).
Table gold_as_result(const GoldRun& g);

// Dataset folders under `dir`: the folder itself if it holds *_attributes.json, else its subfolders that do.
std::vector<fs::path> dataset_dirs(const fs::path& dir);

// `uda run`: evaluate every statement of each dataset's query files against
// <results>/<Dataset>/<Task>/<stem>/<n>/result.csv (plus any other folder of the results tree with a
// result.csv or sql.json). A statement without result.csv is a missing result; it still counts.
// Writes acc_result/ into every existing statement folder and summary.json / summary.csv per dataset.
std::vector<DatasetSummary> run_datasets(const fs::path& dataset_dir, const fs::path& results_root,
                                         const RunOptions& opt, judge::Judge& jd);

// `uda prepare` / `uda gold`: write sql.json (and gold_result.csv when with_gold) for every statement.
// Returns one entry per statement (status error with the reason when the gold fails).
std::vector<DatasetSummary> prepare_datasets(const fs::path& dataset_dir, const fs::path& out_root,
                                             bool with_gold, const RunOptions& opt);

// Console table: one line per (dataset, task) with the counts, the headline P/R/F1 (every statement
// with a gold result) and the scored-only F1, a line for the whole run, and a legend.
std::string summary_table(const std::vector<DatasetSummary>& sums);

}  // namespace sqlgrade::uda
