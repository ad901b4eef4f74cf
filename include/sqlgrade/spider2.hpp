#pragma once
// Public API — Spider 2.0-Lite: the official evaluate.py (xlang-ai/Spider2 @ e12c5f1; column-vector
// match on pandas-typed frames) in its two modes — `sql` runs each <id>.sql on the local SQLite
// databases, `exec_result` compares each <id>.csv — plus the --strict diagnostics and the tolerant
// v2 evaluator (evaluate_v2.py, column and row precision/recall/F1).
//
//   sqlgrade::spider2::Options opt;
//   opt.mode = sqlgrade::spider2::Mode::Sql;
//   opt.result_dir = "preds"; opt.gold_dir = "spider2-lite/evaluation_suite/gold";
//   sqlgrade::spider2::Run run = sqlgrade::spider2::evaluate(opt);
//   sqlgrade::spider2::write_outputs(run);                 // the files the official script writes
//   std::string text = sqlgrade::spider2::render_text(run);  // what it prints
//
// Nothing here prints. Unusable inputs throw sqlgrade::InputError (errors.hpp) with a one-line
// message naming the file (and line); a bad prediction scores 0 with its reason in the Instance.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/outcome.hpp"

namespace sqlgrade::spider2 {

// sql: <result_dir>/<id>.sql executed on <db_dir>/<db>.sqlite (official: the stripped inner text of
// the first "```sql" block, else the whole file); exec_result: <result_dir>/<id>.csv.
enum class Mode { Sql, ExecResult };
// "sql" | "exec_result"; anything else: InputError "--mode: x not in {sql,exec_result}" (the CLI's
// --mode check and the Python module's share it).
Mode mode_from_name(const std::string& s);

struct Options {
  Mode mode = Mode::Sql;
  std::string result_dir;
  std::string name;       // the system's label in the run record (--name); empty: the result folder's name
  std::string gold_dir;   // spider2lite_eval.jsonl and exec_result/
  std::string db_dir;     // sql mode: <db_dir>/<db>.sqlite; default <gold_dir>/../databases
  std::string meta;       // spider2-lite.jsonl; default <gold_dir>/../spider2-lite.jsonl (--meta)
  int jobs = 0;           // worker threads (--jobs; the official --max_workers), 0 = all cores
  double timeout_s = 60;  // per query (the official flag is accepted but unused; ours is real); it also
                          // bounds converting and comparing the query's result (sql mode)
  // The bound on one prediction's result (`--max-result-mb`): sql mode stops a query whose result
  // passes it (the engine's count) or whose CSV text would; exec_result mode does not read a CSV
  // file larger than it. Either scores 0 with the reason "result too large".
  size_t max_result_bytes = size_t(64) << 20;
  size_t max_rows = 1'000'000;  // --max-rows: sql mode stops a query past this many rows ("result too large")
  bool strict = false;    // also report what the official rule misses
  bool v2 = false;        // score with the tolerant v2 metrics instead
  int progress = -1;      // progress bar on stderr: -1 auto (TTY), 0 off, 1 on
  // --v2: the log the v2 errors are appended to (as Python logging with filemode='a'); "" = none.
  std::string errors_log = "errors.log";
  // "i/n": grade only the ids with shard_of(id, n) == i - 1 (docs/comparing-runs.md); "" = all.
  std::string shard;
  // --shard-by: "" or "id" splits by instance id; "db" by the task's database (shard_of(db, n) == i - 1).
  std::string shard_by;
  // Files the caller writes after the run (the CLI's --json / --json-dir records). evaluate_many
  // checks them, with the run's own outputs (<result_dir>_csv/, -ids.csv, -detailed-metrics.json,
  // errors_log), against every input before anything runs: no output may replace an input.
  std::vector<std::string> also_written;
  // --now: the instant SQL's clock reads (date('now'), CURRENT_TIMESTAMP, julianday('now'), ...;
  // core/clock.hpp), a TIMESTAMP (ISO 8601, UTC unless it carries an offset); "" = the real clock.
  // Recorded in the run record as options.now (canonical form); InputError "--now: ..." when malformed.
  std::string now;
};

// The tolerant v2 evaluator's metrics of one instance.
namespace v2 {
struct Overall {
  double precision = 0, recall = 0, f1 = 0;
  long tp = 0, fp = 0, fn = 0;
};
struct ColumnMetrics {
  double precision = 0, recall = 0, f1 = 0;
  std::vector<std::string> tp, fp, fn;  // normalised names, sorted
};
struct RowMetrics {
  double precision = 0, recall = 0, f1 = 0;
  long tp = 0, fp = 0, fn = 0;
  std::vector<std::string> common_columns;  // sorted normalised names
};
struct Result {
  int score = 0;  // 1 iff column F1 == 1 and row F1 == 1
  ColumnMetrics columns;
  RowMetrics rows;
  Overall overall;  // micro metrics over columns + rows (of the best-column alternative for multi-gold)
};
}  // namespace v2

// One instance (an id with both a gold entry and a prediction).
struct Instance {
  std::string instance_id;
  // The official rule's verdict: outcome.score 1/0 (the record's `score`), outcome.detail the official
  // error_info ("" on a match, where the record writes null: "Result Error", execution error text, ...).
  Outcome outcome;
  std::optional<std::string> pred_sql;    // sql mode: the statement executed
  std::vector<std::string> messages;      // lines the official script prints while evaluating
  std::vector<std::string> strict;        // --strict findings
  bool strict_scrambled = false;          // scored 1, but rows are scrambled across columns
  bool strict_sort_miss = false;          // scored 0, but a value sort (tolerance kept) would score 1
  std::optional<std::string> result_csv;  // sql mode: the CSV the official script would write
  double seconds = 0;                     // sql mode: engine time
  // --v2
  v2::Result v2;
  std::optional<std::string> v2_error;
  std::optional<std::string> db;  // from spider2-lite.jsonl, when it is there
};

// A whole evaluation.
struct Run {
  Options opt;
  std::vector<Instance> items;  // sorted by instance_id
  size_t n_gold_ids = 0;
  size_t n_pred_ids = 0;
  // Gold ids (of the shard) without a prediction file, and prediction files whose id is no gold id
  // (--require-all refuses both).
  size_t n_missing = 0, n_unpaired = 0;
  std::string started_at;  // UTC, ISO 8601 (evaluate / evaluate_many)
  double wall_s = 0;       // of the whole pass (shared by the systems of evaluate_many)
  size_t n_executed = 0;   // sql mode: distinct (database, SQL) executions of the whole pass
};

// Runs the whole evaluation on all cores. Throws InputError for unusable inputs (missing folders,
// a malformed eval jsonl line, sql mode with an unusable <result_dir>_csv). Writes nothing.
Run evaluate(const Options& opt);

// Several systems against one gold in one pass (`--result_dir A --result_dir B`): the gold CSVs are
// read once and each distinct (database, SQL) is executed once; each Run equals evaluate() of that
// folder alone (its Instance::seconds is the time of the shared execution). InputError when two
// folders would write the same output files.
std::vector<Run> evaluate_many(const Options& opt, const std::vector<std::string>& result_dirs);

// The files the official script writes, each atomically: sql mode <result_dir>_csv/<id>.csv (stale
// CSVs there are removed first — never through a symlink; the official script deletes the folder);
// <result_dir>-ids.csv (the correct ids: official rule, or the v2 rule with --v2); --v2
// <result_dir>-detailed-metrics.json and the errors log (appended). Nothing when no id overlaps.
void write_outputs(const Run& run);

// The denominator of the official "Real score" line, hard-coded in evaluate.py.
constexpr int kRealTotal = 547;

// evaluate_v2's data score of one instance: 0 after a v2 error, else v2.score (the verdict that
// --v2 writes to <result_dir>-ids.csv and the v2 summary counts).
int v2_data_score(const Instance& it);

// What the official script prints (without tqdm's lines), byte for byte; with --v2 its summary, with
// --strict the strict section after it.
std::string render_text(const Run& run);
// The run record (docs/run-record.schema.json, docs/comparing-runs.md): summary = the printed
// numbers, one instance per instance_id with ex (and with --v2 the v2 score and F1s), db category,
// SQL, failure reason, time, and the detail the "spider2" summarizer rebuilds the printed text from.
// `command`: the invocation recorded.
std::string render_json(const Run& run, const std::vector<std::string>& command = {});
// Whether the run has a record to write (--json, the Python run's `json`): a run with instances, and
// every shard's run, even an empty one (its ids or databases hold no prediction: merge needs all n).
// The one rule of the CLI and the Python module.
bool has_record(const Run& run);

// Registers the "spider2" summarizer (`sqlgrade merge`): rebuilds render_text and the summary from
// the instances' detail. Idempotent.
void register_run_summarizer();

}  // namespace sqlgrade::spider2
