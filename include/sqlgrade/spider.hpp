#pragma once
// Public API — Spider 1.0 (and SParC/CoSQL interaction files): exact set match with partial
// components and hardness (taoyds/spider evaluation.py), and execution accuracy, either the original
// Spider check or the test-suite one (taoyds/test-suite-sql-eval, the default).
//
//   sqlgrade::spider::Options opt;
//   opt.gold = "dev_gold.sql"; opt.pred = "pred.txt"; opt.db_dir = "database"; opt.table = "tables.json";
//   opt.etype = sqlgrade::spider::Etype::All;
//   sqlgrade::spider::Run run = sqlgrade::spider::evaluate(opt);
//   std::string table = sqlgrade::spider::render_text(run);   // what the official script prints
//
// Nothing here prints. Unusable inputs throw sqlgrade::InputError (errors.hpp) with a one-line
// message naming the file (and line); a bad prediction is a score of 0 with a reason in its Example.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/outcome.hpp"
#include "sqlgrade/result_rows.hpp"

namespace sqlgrade::spider {

// What to evaluate: exact set match, execution, or both (the official --etype).
enum class Etype { Match, Exec, All };

// Which official script to reproduce (printed table, execution check, LIMIT handling):
// Spider = taoyds/spider evaluation.py; TestSuite = taoyds/test-suite-sql-eval evaluation.py.
enum class Compat { Spider, TestSuite };

// The command-line spellings: "match" | "exec" | "all"; "spider" | "test-suite" (or "testsuite").
// Anything else is an InputError naming the flag (--etype / --compat) and the accepted values.
Etype parse_etype(const std::string& s);
Compat parse_compat(const std::string& s);

// The hardness levels of evaluation.py eval_hardness.
enum class Hardness { Easy = 0, Medium = 1, Hard = 2, Extra = 3 };
const char* to_string(Hardness h);  // "easy", "medium", "hard", "extra"

// Partial-matching components in the order the official table prints them.
enum Component : int {
  C_SELECT = 0, C_SELECT_NO_AGG, C_WHERE, C_WHERE_NO_OP, C_GROUP_NO_HAVING, C_GROUP, C_ORDER, C_AND_OR,
  C_IUEN, C_KEYWORDS, C_COUNT
};
extern const char* const kComponentNames[C_COUNT];  // "select", "select(no AGG)", ...

// One component of one example (evaluation.py get_scores). `count` (the matched units) is only known
// while grading: a run record keeps score and the totals, so an example read back from one has 0.
struct ComponentScore {
  int label_total = 0, pred_total = 0, count = 0;
  int score = 0;  // acc = rec = f1 = score for one example
};
using PartialScores = std::array<ComponentScore, C_COUNT>;

// The official flags.
struct Options {
  std::string gold;    // SQL<TAB>db_id per line (blank lines separate interactions)
  std::string pred;    // one SQL per line (text after a TAB is ignored)
  std::string db_dir;  // <db_dir>/<db_id>/<db_id>.sqlite (+ test-suite variants beside it)
  std::string table;   // tables.json (needed for match/all and for --compat spider)
  std::string name;    // the system's label in the run record (--name); empty: the prediction's file name
  Etype etype = Etype::Exec;
  Compat compat = Compat::TestSuite;
  bool plug_value = false;     // test-suite: fill gold values into the prediction's slots
  bool keep_distinct = false;  // test-suite: keep DISTINCT when executing
  bool progress_each = false;  // --progress_bar_for_each_datapoint
  double timeout_s = 60;       // per query; a prediction past it scores 0 (60: see docs/spider-exec.md "Timeout")
  int jobs = 0;                // worker threads; 0 = all cores
  // --max-rows / --max-result-mb: a gold result's row and byte caps (a gold past them fails; a
  // prediction is read up to the gold's row count, as before)
  size_t max_rows = 1'000'000;
  size_t max_result_bytes = size_t(512) << 20;
  int progress = -1;           // progress bar on stderr: -1 auto (TTY), 0 off, 1 on
  // Keep the first rows of the gold and predicted results (test-suite: on <db_id>.sqlite) in each
  // Example for the run record; the CLI sets it when a record is written.
  bool keep_rows = false;
  // dev.json (a JSON array with "question" per gold line, in order) for the record's question text;
  // empty and keep_rows: dev.json beside the gold file when its db_ids match the gold's, else none.
  std::string questions;
  // --shard i/n: grade only the questions whose id (0-based question index) has
  // shard_of(id, n) == i - 1 (docs/comparing-runs.md §5). shard_count 0 = everything.
  int shard_index = 0, shard_count = 0;
  // --shard-by: "" or "id" splits by the id above; "db" by the database (db_id), so that one shard holds
  // every question of its databases (shard_of(db_id, n) == i - 1).
  std::string shard_by;
  // --now: the instant SQL's clock reads (date('now'), CURRENT_TIMESTAMP, julianday('now'), ...;
  // core/clock.hpp), a TIMESTAMP (ISO 8601, UTC unless it carries an offset); "" = the real clock.
  // Recorded in the run record as options.now (canonical form); InputError "--now: ..." when malformed.
  std::string now;
};

// One gold/prediction pair.
struct Example {
  size_t index = 0;  // 0-based question index in the gold file: the run record's instance id
  size_t interaction = 0, turn = 0;
  long gold_line = 0, pred_line = 0;  // 1-based physical lines; pred_line 0 = no prediction
  std::string db_id, gold_sql;
  std::string pred_sql;  // as evaluated and printed (test-suite: after `value` → `1`)
  bool has_pred = true;
  // grading
  bool gold_ok = true;  // the gold parsed (otherwise the example is reported and left out)
  std::string gold_error;
  Hardness hardness = Hardness::Easy;
  bool pred_parsed = false;
  std::string parse_error;
  int exact = -1;  // -1 = not evaluated
  PartialScores partial{};
  // The execution check (include/sqlgrade/outcome.hpp); null: not evaluated. The run record's fields
  // are read from it (spider/record.cpp; Python: the same names): `exec` its score 1/0, `exec_reason`
  // its detail, `timeout` its deadline_hit (a deadline was hit on some candidate, whatever the stage),
  // `gold_exec_error` its stage gold_failed; gold_rows / pred_rows with Options::keep_rows.
  std::optional<Outcome> exec;
  int exec_score() const { return exec ? static_cast<int>(exec->score) : -1; }  // 1/0, -1: not evaluated
  double parse_seconds = 0, exec_seconds = 0;
  std::string question;                 // from Options::questions (or dev.json beside the gold), else ""
};

// Averages of one hardness level (or turn) as the official table prints them.
struct LevelScores {
  long count = 0;
  double exact = 0, exec = 0;
  struct Part {
    double acc = 0, rec = 0, f1 = 0;
    long acc_count = 0, rec_count = 0;
  };
  std::array<Part, C_COUNT> partial{};
};

struct Scores {
  std::array<LevelScores, 6> levels{};  // easy, medium, hard, extra, all, joint_all
  std::array<LevelScores, 5> turns{};   // turn 1..4, turn > 4
  bool include_turn = false;
};

// A whole evaluation.
struct Run {
  Options opt;
  std::vector<Example> examples;
  size_t n_interactions = 0;
  Scores scores;
  std::vector<std::string> warnings;  // one line each (the CLI prints them on stderr)
  size_t extra_preds = 0;  // prediction lines paired with no gold example (ignored; --require-all refuses them)
  std::string started_at;  // ISO 8601 UTC
  double wall_s = 0;
};

// Runs the whole evaluation on all cores. Throws InputError for unusable inputs (unreadable files, a
// gold line without `SQL<TAB>db_id`, unknown db_id, interaction files whose interaction counts differ).
Run evaluate(const Options& opt);

// How many statements SQLite ran for one call (all systems): what `--compat both` saves, and the hook
// by which the tests check that each distinct (database, SQL) ran once.
struct ExecCounts {
  uint64_t spider = 0;      // --compat spider: statements executed (each distinct (database, SQL) once)
  uint64_t test_suite = 0;  // test-suite: statements executed
  uint64_t lent = 0;        // test-suite: results taken from the spider pass instead (--compat both)
};

// The inputs every run needs, with the CLI's message: the CLI and the Python module both call it
// (inline here: the check is one line, and the module's sources are not needed for it).
inline void check_required(const Options& opt) {
  if (opt.gold.empty() || opt.pred.empty() || opt.db_dir.empty())
    throw InputError("spider", "--gold, --pred and --db are required");
}

// Several systems (one prediction file each) against the same gold in one pass: gold files, schemas
// and gold parses are read once, and every distinct execution check (db, gold, prediction) runs once
// across all systems. opt.pred is ignored; result k is what evaluate() returns for preds[k].
// counts (optional) receives the statements executed.
std::vector<Run> evaluate_many(const Options& opt, const std::vector<std::string>& preds, ExecCounts* counts = nullptr);

// `sqlgrade spider --compat both`: both official scripts' runs in one call (opt.compat ignored).
// spider[k] / test_suite[k] are what evaluate_many with that compat returns for preds[k]; the
// test-suite pass borrows the spider pass's results of the same statement on the same database file
// when they are what its own reading returns (docs/comparing-runs.md §8), and executes the rest.
struct BothModes {
  std::vector<Run> spider, test_suite;
  ExecCounts counts;
};
BothModes evaluate_both(const Options& opt, const std::vector<std::string>& preds);
// What `--compat both` prints on stdout before each mode's part: "==> --compat spider <==\n" first,
// "\n==> --compat test-suite <==\n" after the spider part (an empty line between the two). The CLI and
// the Python module (sqlgrade.spider.evaluate(compat="both")) compose the output with it.
std::string both_header(Compat mode);

// What the official script prints for this run, byte for byte (the compat chosen in its options).
std::string render_text(const Run& run);
// Only its score table (the end of render_text: from the level header row on).
std::string render_table(const Run& run);
// The run record (docs/run-record.schema.json, docs/comparing-runs.md): summary = the printed table's
// numbers, one instance per question (id = question index) with scores, hardness and db, SQL, failure
// reason, time and `detail` from which the "spider" summarizer rebuilds the table. `command`: argv.
std::string render_json(const Run& run, const std::vector<std::string>& command = {});
// Registers the "spider" summarizer used by `sqlgrade merge` (idempotent).
void register_run_summarizer();

// `sqlgrade spider parse`: one "SQL<TAB>db_id" per input line → one JSON object per line with the
// dataset's `sql` structure (or {"sql": null, "error": ...}); testsuite_limit: the test-suite LIMIT
// handling. Blank lines are skipped (but counted in line numbers). `n_errors` (optional) receives the
// number of lines that did not parse. InputError for a line that is not `SQL<TAB>db_id` or a db_id
// missing from tables.json.
std::vector<std::string> parse_lines_to_json(const std::vector<std::string>& lines, const std::string& tables_json,
                                             bool testsuite_limit, size_t* n_errors);

// The same over a whole input text (a UTF-8 BOM removed; \r\n, \r and \n end lines), as the command
// prints it: a JSON array with one object per line.
struct ParseOutput {
  std::string json;
  size_t n_errors = 0;  // lines whose query did not parse ("sql": null)
};
ParseOutput parse_to_json(std::string text, const std::string& tables_json, bool testsuite_limit);

}  // namespace sqlgrade::spider
