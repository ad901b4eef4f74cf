#pragma once
// BIRD adapter: reads the prediction / gold / difficulty files (Mini-Dev and original BIRD layouts),
// pairs predictions with gold questions by id, runs every query read-only on all cores (gold results
// cached per (database, gold SQL)), applies the metric from compare/bird.hpp and returns per-question
// results. Printing is in report/bird.hpp.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/engine/engine.hpp"

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
std::optional<PairBy> parse_pair_by(const std::string& s);

struct Options {
  std::string predicted_sql_path, ground_truth_path, db_root_path, diff_json_path;
  std::string data_mode;  // non-empty: original layout (folders + predict_<mode>.json / <mode>_gold.sql)
  Metric metric = Metric::Ex;
  PairBy pair_by = PairBy::Auto;
  int num_cpus = 0;            // 0 = all cores
  double meta_time_out = 30.0; // seconds per prediction query (<= 0: none)
  double gold_time_out = -1;   // seconds per gold query; < 0: same as meta_time_out
  int repeat = 100;            // VES / R-VES timing iterations
  std::string sql_dialect = "SQLite";
  bool answer_json = false;    // predictions are model outputs holding {"answer": "<SQL>"}
  size_t max_rows = 1'000'000;
  int progress = -1;           // -1 auto (TTY), 0 off, 1 on
};

struct Instance {
  size_t index = 0;            // position in the gold file
  long long question_id = -1;  // from the question file, when present
  std::string db_id;           // the database actually used
  std::string difficulty;
  std::string key;             // the prediction key paired with this question ("" if none)
  std::string pred_sql, gold_sql;
  bool has_pred = false;
  bool correct = false;        // EX (set equality) of the two results
  double score = 0;            // EX/Soft-F1/EM+F1 in [0,1]; VES/R-VES: 100*sqrt(.)
  double time_ratio = 0;       // VES / R-VES only
  std::string status = "ok";   // ok, no_prediction, not_a_string, no_answer, pred_error, pred_timeout,
                               // pred_too_large, gold_error, gold_timeout, gold_too_large
  std::string reason;          // engine message or explanation when status != ok
  double pred_seconds = 0, gold_seconds = 0;
  size_t pred_rows = 0, gold_rows = 0;
};

struct RunResult {
  Metric metric = Metric::Ex;
  Layout layout = Layout::MiniDev;
  PairBy pair_by_used = PairBy::Index;
  std::vector<Instance> items;
  std::vector<std::string> warnings;
  unsigned jobs = 1;
  double engine_seconds = 0;  // sum of SQLite execution time (pred + distinct gold runs, VES timing excluded)
  double wall_seconds = 0;
  size_t gold_executions = 0;  // distinct (db, gold SQL) pairs executed
  size_t gold_timeouts = 0, gold_errors = 0;
  std::string sql_dialect = "SQLite";
  std::string engine_version;  // SQLite library version
};

// Runs the whole evaluation. `warn` receives each warning as it is found (also kept in the result).
// Throws InputError for unreadable/invalid input files or missing databases.
RunResult evaluate(const Options& opt, const std::function<void(const std::string&)>& warn = {});

// Metric value of one pair of results (EX/Soft-F1/EM+F1; VES metrics use ex_match for correctness).
double metric_value(Metric m, const Table& pred, const Table& gold);

}  // namespace sqlgrade::bird
