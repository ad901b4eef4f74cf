#pragma once
// Public API — BIRD (original DAMO-ConvAI bird/llm layout and bird-bench/mini_dev): execution accuracy
// by difficulty (EX), Soft-F1, EM+F1 (the works_cycles prompt-optimisation subset), VES (original) and
// R-VES (Mini-Dev); the works_cycles subset itself and its schema prompt.
//
//   sqlgrade::bird::Options opt;
//   opt.pred = "predict_mini_dev_gpt-4_sqlite.json";
//   opt.gold = "mini_dev_sqlite_gold.sql";
//   opt.db_dir = "dev_databases";
//   opt.diff_json = "mini_dev_sqlite.jsonl";
//   opt.metric = sqlgrade::bird::Metric::SoftF1;
//   sqlgrade::bird::Run run = sqlgrade::bird::evaluate(opt);
//   std::string table = sqlgrade::bird::render_text(run);   // what the official script prints
//
// Nothing here prints. Unusable inputs throw sqlgrade::InputError (errors.hpp) with a one-line message
// naming the file (and line); a bad prediction is a score of 0 with a status and reason in its Instance.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sqlgrade/outcome.hpp"
#include "sqlgrade/result_rows.hpp"

namespace sqlgrade::bird {

enum class Metric { Ex, SoftF1, EmF1, Ves, RVes };
const char* metric_name(Metric m);           // "EX", "Soft-F1", "EM+F1", "VES", "R-VES"
std::optional<Metric> parse_metric(const std::string& s);  // ex|soft-f1|f1|em-f1|ves|r-ves (case-insensitive)

// Mini-Dev (evaluation/*.py): prediction and gold paths are files, the DB comes from the gold line.
// Original (DAMO-ConvAI bird/llm/src): paths are folders + --data_mode, the DB comes from the
// prediction's db_id (quirk reproduced; a mismatch with the gold's db_id is warned about).
enum class Layout { MiniDev, Original };

// How predictions are matched to gold questions.
//   Index:      the key is the 0-based position of the question in the gold file (what the official
//               generation scripts write: {"0": ..., "1": ...}).
//   QuestionId: the key is the question_id of the difficulty/question file.
//   Position:   the official behaviour: the i-th value in file order, keys ignored (mini_dev#41).
//   Auto:       Index when every key is an integer in [0, N); else QuestionId when every key is a
//               question_id of the question file; else Index (unmatched keys are reported).
enum class PairBy { Auto, Index, QuestionId, Position };
std::optional<PairBy> parse_pair_by(const std::string& s);  // auto|index|question_id|position
// The same, for a flag or an argument: InputError "--metric: unknown metric 'x' (ex, soft-f1, em-f1, ves,
// r-ves)" / "--pair-by: unknown value 'x' (auto, index, question_id, position)" (the CLI and the Python
// module share these messages).
Metric metric_from_name(const std::string& s);
PairBy pair_by_from_name(const std::string& s);

// The official flags under sqlgrade's names, the Python keywords' (the official spellings are the CLI's
// aliases: --predicted_sql_path = pred, --ground_truth_path = gold, --db_root_path = db_dir,
// --diff_json_path = diff_json, --num_cpus = jobs, --meta_time_out = timeout_s, --gold_time_out =
// gold_timeout_s); plus sqlgrade's own: pair_by, answer_json, max_rows, max_result_bytes, progress.
struct Options {
  std::string pred, gold, db_dir, diff_json;
  std::string name;       // the system's label in the run record (--name); empty: the prediction's file name
  std::string data_mode;  // non-empty: original layout (folders + predict_<mode>.json / <mode>_gold.sql)
  Metric metric = Metric::Ex;
  PairBy pair_by = PairBy::Auto;
  int jobs = 0;                // worker threads; 0 = all cores
  double timeout_s = 30.0;     // seconds per prediction query (<= 0: none here; the CLI and Python refuse it, issue 19)
  double gold_timeout_s = -1;  // seconds per gold query; < 0: same as timeout_s
  int repeat = 100;            // VES / R-VES timing iterations
  // SQLite (databases from db_dir), or PostgreSQL / MySQL: every question runs on the one server
  // database `dsn` names (postgresql://reader@host:port/bird, mysql://reader@host/BIRD?socket=...), through
  // a login that can only read (docs/bird.md, "PostgreSQL and MySQL").
  std::string sql_dialect = "SQLite";
  std::string dsn;
  bool answer_json = false;    // predictions are model outputs holding {"answer": "<SQL>"}
  size_t max_rows = 1'000'000;
  size_t max_result_bytes = size_t(512) << 20;  // --max-result-mb: a result's byte cap (past it: *_too_large)
  bool keep_rows = false;      // keep the first rows of both results in each Instance (for the run record)
  int progress = -1;           // progress bar on stderr: -1 auto (TTY), 0 off, 1 on
  // --shard i/n: grade only the questions whose id (Instance::id) has shard_of(id, n) == i - 1
  // (docs/comparing-runs.md §5). shard_count 0 = everything.
  int shard_index = 0, shard_count = 0;
  // --shard-by: "" or "id" splits by the id above; "db" by the database (db_id), so that one shard holds
  // every question of its databases (shard_of(db_id, n) == i - 1).
  std::string shard_by;
  // --now: the instant SQL's clock reads (date('now'), CURRENT_TIMESTAMP, julianday('now'), ...;
  // core/clock.hpp), a TIMESTAMP (ISO 8601, UTC unless it carries an offset); "" = the real clock.
  // Recorded in the run record as options.now (canonical form); InputError "--now: ..." when malformed.
  std::string now;
};

// One gold question and its prediction.
struct Instance {
  size_t index = 0;            // position in the gold file
  std::string id;              // run-record id: question_id ("137#2" for its 2nd occurrence), else index
  long long question_id = -1;  // from the question file, when present
  std::string db_id;           // the database actually used
  std::string difficulty;
  std::string question;        // from the question file ("question", then "Evidence: …"), else ""
  std::string key;             // the prediction key paired with this question ("" if none)
  std::string pred_sql, gold_sql;
  bool has_pred = false;
  // How the check ended (include/sqlgrade/outcome.hpp): outcome.match() is EX (set equality of the two
  // results; the record's `correct`), outcome.score the metric's (EX/Soft-F1/EM+F1 in [0,1]; VES/R-VES:
  // 100*sqrt(.)), outcome.status BIRD's word (ok, no_prediction, not_a_string, no_answer, pred_error,
  // pred_timeout, pred_too_large, gold_error, gold_timeout, gold_too_large), outcome.detail the engine
  // message or explanation when the status is not ok, outcome.gold_rows / pred_rows with
  // Options::keep_rows the first rows of both results. Its stage follows status and EX (stage_of in
  // bird/check.hpp).
  Outcome outcome = [] {
    Outcome o;
    o.status = "ok";
    return o;
  }();
  double time_ratio = 0;       // VES / R-VES only
  double pred_seconds = 0, gold_seconds = 0;
  size_t pred_rows = 0, gold_rows = 0;
};

// A whole evaluation.
struct Run {
  Options opt;                 // as given to evaluate()
  Metric metric = Metric::Ex;
  Layout layout = Layout::MiniDev;
  PairBy pair_by_used = PairBy::Index;
  std::vector<Instance> items;
  std::vector<std::string> warnings;  // one line each (the CLI prints them on stderr)
  size_t extra_preds = 0;              // prediction keys paired with no question (ignored; --require-all refuses them)
  double wall_seconds = 0;
  // Gold queries this run executed: each distinct (db, gold SQL) once — none that an earlier system of
  // the same evaluate_many already ran, nor any of a (db, gold, prediction) an earlier one checked.
  size_t gold_executions = 0;
  std::string sql_dialect = "SQLite";
  std::string engine = "sqlite";  // sqlite, postgresql, mysql
  std::string engine_version;  // SQLite library version, or the server's ("PostgreSQL 15.18")
  std::string started_at;      // ISO 8601 UTC
};

// Runs the whole evaluation on all cores (gold results cached per (database, gold SQL)). `warn`
// receives each warning as it is found (they are also kept in Run::warnings). Throws InputError for
// unreadable/invalid input files or missing databases.
Run evaluate(const Options& opt, const std::function<void(const std::string&)>& warn = {});
// The inputs every run needs (predictions, gold, databases), with the CLI's message (InputError).
void check_required(const Options& opt);

// The prediction and gold files an evaluation of `opt` reads: the paths given, or in the original
// layout (--data_mode, or a prediction folder) <folder>/predict_<mode>.json and <folder>/<mode>_gold.sql.
struct InputFiles {
  std::string pred, gold;
  bool original = false;
};
InputFiles input_files(const Options& opt);

// Several systems (prediction files) against the same gold in one pass: gold results are computed
// once, and each distinct (database, gold, prediction) is checked once across all systems (EX,
// Soft-F1, EM+F1; VES/R-VES time every prediction). opt.pred is ignored; result k is
// what evaluate() returns for preds[k]. `warn` receives (system index, warning).
std::vector<Run> evaluate_many(const Options& opt, const std::vector<std::string>& preds,
                               const std::function<void(size_t, const std::string&)>& warn = {});

// The score table by difficulty.
struct Summary {
  std::array<size_t, 4> counts{};   // simple, moderate, challenging, total
  std::array<double, 4> scores{};   // printed values (x100 for EX/F1/EM+F1, already scaled for VES)
  std::array<bool, 4> empty{};      // bucket without questions (the official scripts crash there)
};
// Buckets by difficulty with the official arithmetic: sum in question order, then / count (* 100).
Summary summarize(const Run& run);

// Exactly what the official script prints on stdout for this run (Mini-Dev or original layout).
std::string render_text(const Run& run);
// The block Mini-Dev appends to --output_log_path.
std::string render_log_block(const Run& run);
// The run record (docs/run-record.schema.json, docs/comparing-runs.md): summary = the printed table's
// numbers, one instance per question (id = Instance::id) with its score, difficulty and db, SQL,
// status/reason, time and `detail` from which the "bird" summarizer rebuilds the table. command: argv.
std::string render_json(const Run& run, const std::vector<std::string>& command = {});
// Registers the "bird" summarizer used by `sqlgrade merge` (idempotent).
void register_run_summarizer();

// ---- the works_cycles prompt-optimisation subset (seed "BIRD-bench") ----

struct SubsetOptions {
  std::string data_path;          // train.json (JSON array of {db_id, question, evidence, SQL, ...})
  std::string db_id = "works_cycles";
  uint64_t seed = 1;
  size_t train = 100, valid = 100;
  std::string db_path;            // optional: add "schema_prompt" to every item from this database
  int rows = 0;                   // example rows in the schema prompt (0 = none)
  bool keep_sqlite_sequence = false;
};

struct SubsetItem {
  size_t source_index = 0;  // position in the input file
  std::string json;         // the item as a compact JSON object (input fields + added ones)
  std::string sql, db_id;
};

struct Subset {
  std::vector<SubsetItem> train, valid;
  size_t matched = 0;  // items with the requested db_id
};

// Filter train.json by db_id, shuffle with CPython's random.Random(seed).shuffle over the filtered
// list in file order, split [0, train) / [train, train + valid). Each output item keeps the input
// object's fields and adds "source_index", "answer" (the {"answer": "<SQL>"} target string) and, when
// a database is given, "schema_prompt".
Subset build_subset(const SubsetOptions& opt);

// The subset as one JSON object {"train": [...], "valid": [...]} (what `bird subset` prints).
std::string render_subset_json(const Subset& s);
// The subset as files: train.json, valid.json (JSON arrays), train_gold.sql, valid_gold.sql (one
// "SQL<TAB>db_id" per line, TAB/CR/LF inside the SQL turned into spaces). {file name, content}.
std::vector<std::pair<std::string, std::string>> subset_files(const Subset& s);

// The recipe's schema prompt: every table's CREATE statement in sqlite_master order, separated by a
// blank line; sqlite_sequence skipped unless keep_sqlite_sequence (the original code's skip test
// compares a tuple with a string and never fires, so the original prompt does include it). With
// rows > 0 each table is followed by
//   " \n /* \n N example rows: \n SELECT * FROM t LIMIT N; \n <aligned table> \n */"
// where tables named order/by/group are written in backquotes.
std::string schema_prompt(const std::string& db_path, int rows = 0, bool keep_sqlite_sequence = false);

}  // namespace sqlgrade::bird
