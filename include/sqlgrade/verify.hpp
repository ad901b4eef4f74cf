#pragma once
// Public API — verified execution accuracy and the gold audit (docs/verify.md).
//
// For every instance that a benchmark's execution check scores as a match, search for a database with
// the same schema on which the prediction and the gold differ under that benchmark's own rule
// (Spider test-suite, BIRD EX set equality, Spider 2.0-Lite column vectors). Verified EX counts the
// matches for which no counterexample was found within the budget.
//
//   sqlgrade::spider::Run run = sqlgrade::spider::evaluate(opt);          // the official grading
//   auto rep = sqlgrade::verify::verify_spider(run, sqlgrade::verify::Options{});
//   std::string text = sqlgrade::verify::render_text({rep});
//
// Nothing here prints. Counterexample files are written only under Options::counterexamples_dir.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sqlgrade/bird.hpp"
#include "sqlgrade/spider.hpp"
#include "sqlgrade/spider2.hpp"

namespace sqlgrade::verify {

struct Options {
  uint64_t seed = 0;
  double budget_s = 5.0;        // --verify-budget: wall-clock cap per instance (seconds)
  size_t candidates = 200;      // --verify-candidates: candidate databases per instance (deterministic bound)
  size_t rows_per_table = 10;   // rows per table of a candidate before shrinking
  int jobs = 0;                 // worker threads; 0 = every core
  std::string counterexamples_dir;  // --counterexamples DIR: <system>/<id>.sqlite + .json per refutation
  int progress = -1;            // -1 auto (TTY), 0 off, 1 on
};

struct InstanceReport {
  std::string id, db, gold_sql, pred_sql;  // the SQL as the benchmark executes it
  // "refuted" (a clean refutation: the only status verified EX counts), "gold_suspect", "edge",
  // "no_counterexample", "skipped" (and any class the search adds: consumers go by name)
  std::string status;
  std::string reason;
  size_t candidates = 0;
  double seconds = 0;      // elapsed time of this instance's search
  double cpu_seconds = 0;  // CPU time of this instance's search
  bool time_capped = false;
  std::string counterexample_file;  // the .sqlite written under counterexamples_dir, if any
  std::string counterexample_json;  // the sidecar's JSON text (every status with a witness)
};

struct SystemReport {
  std::string system;      // the prediction file / folder
  std::string benchmark;   // "spider", "bird", "spider2"
  size_t total = 0;        // instances graded
  size_t ex = 0;           // execution matches (the official verdict)
  size_t verified = 0;     // matches with no counterexample found (status "no_counterexample")
  size_t refuted = 0;      // clean refutations (status "refuted"): verified EX = (ex - refuted) / total
  size_t skipped = 0;      // matches that could not be searched (reason per instance)
  std::map<std::string, size_t> statuses;  // matches per status name, every class (gold_suspect, edge, ...)
  size_t candidates = 0;   // candidate databases evaluated, all instances
  size_t time_capped = 0;  // instances whose search the wall-clock cap ended early
  double seconds = 0;      // summed per-instance elapsed time (searches run in parallel: not a cost)
  double cpu_s = 0;        // summed CPU time of this system's searches (an instance shared with another
                           // system of the pass is searched once and counted for each)
  double pass_cpu_s = 0;   // CPU time of every search of the pass (each unique instance once)
  double wall_s = 0;       // wall-clock time of the verification pass (shared by the systems of one pass)
  int threads = 1;         // worker threads of the pass
  std::vector<InstanceReport> instances;  // one per match, in the benchmark's order
};

// One report per run (several systems of one pass share the search of identical instances).
// With Options::counterexamples_dir, a counterexample that cannot be written (the folder or a file of
// it: permissions, a full disk) is an InputError naming the folder, after every file this call wrote is
// removed: a refutation is never dropped for want of a file, and no half-written folder is left.
std::vector<SystemReport> verify_spider(const std::vector<spider::Run>& runs, const std::vector<std::string>& systems,
                                        const Options& opt);
std::vector<SystemReport> verify_bird(const std::vector<bird::Run>& runs, const std::vector<std::string>& systems,
                                      const Options& opt);
std::vector<SystemReport> verify_spider2(const std::vector<spider2::Run>& runs, const Options& opt);

// What verifying a benchmark run needs (`--verify` of the CLI, `verify=` of Python's evaluate()):
// grading by execution under the rule the search follows. InputError naming --verify otherwise:
// Spider: --etype exec or all and --compat test-suite (`both_modes`: --compat both, refused); BIRD:
// --metric ex; Spider 2.0-Lite: --mode sql.
void check_verifiable(const spider::Options& opt, bool both_modes = false);
void check_verifiable(const bird::Options& opt);
void check_verifiable(const spider2::Options& opt);

// The --counterexamples folder (`verify={"counterexamples": ...}` in Python), checked before anything
// runs: not a symbolic link or a file (OutputDir::check), and either a folder this process may write
// into or a path whose nearest existing ancestor is such a folder. InputError "<dir>: cannot write
// counterexamples here: <why>" otherwise (one line, exit 2 in the CLI). Writes nothing.
void check_counterexamples_dir(const std::string& dir);

// The lines `--verify` prints after the official output, and `sqlgrade verify`'s text.
std::string render_text(const std::vector<SystemReport>& reports);
std::string render_json(const std::vector<SystemReport>& reports);
// A benchmark's run record (the text its render_json wrote) with this system's verification added:
// the binary metric "verified_ex" on every instance graded by execution, detail.verify on every match
// (status, budget used, the counterexample's rows and both results), options.verify and summary.verify.
std::string add_to_record(const std::string& record_json, const SystemReport& rep, const Options& opt);

// ---- the gold audit (`sqlgrade audit`)
struct AuditFinding {
  std::string id, db, gold_sql;
  // "gold_fails", "nondeterministic", "clock_dependent" (its result changes with SQL's clock),
  // "gold_suspect" (with `verify`: a system's refutation on which the gold shows its own bug)
  std::string kind;
  std::string detail;
  std::vector<std::string> predictions;  // "<system>: <id> scored <0|1>" graded against this gold
};
struct AuditReport {
  std::string benchmark;
  size_t nominal = 0;     // instances the benchmark's denominator counts
  size_t scoreable = 0;   // instances that can be graded here
  std::vector<std::string> notes;  // denominators and unscoreable items explained
  size_t golds_checked = 0;
  std::vector<AuditFinding> findings;
};
struct AuditOptions {
  std::string benchmark;  // spider | bird | spider2
  std::string gold, db_dir, table;           // spider: gold file, database folder
  std::string bird_gold, bird_db_root, bird_diff;  // bird
  std::string spider2_gold_dir, spider2_db_dir, spider2_meta;  // spider2
  std::vector<std::string> preds;  // optional: prediction files/folders graded against these golds
  int jobs = 0;
  double timeout_s = 30;
  size_t max_rows = 1'000'000;                 // --max-rows: a result's row cap (a gold past it: gold_fails)
  size_t max_result_bytes = size_t(512) << 20;  // --max-result-mb: a result's byte cap
  std::string now;  // --now: SQL's clock for every query but the clock check's own two runs ("" = real)
  bool verify = false;      // --verify: verify the predictions (spider, bird) and list gold-suspect questions
  Options verify_options;   // the search's options then
};
AuditReport audit(const AuditOptions& opt);
std::string render_audit_text(const AuditReport& r);
std::string render_audit_json(const AuditReport& r);

}  // namespace sqlgrade::verify
