#pragma once
// Test-suite execution accuracy for Spider, the evaluator (taoyds/test-suite-sql-eval `exec_eval.py`
// semantics): every *.sqlite in the database folder is a test-suite database, gold results computed
// once per (file, query), optional plug_value, the rule of test_suite.hpp on every database.
// Differences from the official tool (real timeout, gold cache, parallelism, lenient errors) are
// documented in docs/spider-exec.md.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/engine/engine.hpp"
#include "sqlgrade/spider/test_suite.hpp"

namespace sqlgrade::spider {

using ResultLender =
    std::function<std::shared_ptr<const ExecResult>(const std::string& db_path, const std::string& sql, const Limits& lim)>;

struct ExecOptions {
  bool plug_value = false;     // --plug_value: fill gold literals into the prediction's slots
  bool keep_distinct = false;  // --keep_distinct: do not strip DISTINCT before executing
  double timeout_s = 60;       // per-query wall-clock deadline; <= 0 disables it (spider::Options' default)
  double gold_timeout_s = 0;   // deadline of gold queries; <= 0 means timeout_s
  size_t max_rows = 1'000'000;        // row cap of a gold result
  size_t max_result_bytes = 512u << 20;  // byte cap of a gold result
  Compat compat = Compat::TestSuite;
  // --plug_value only: wall-clock budget for one item over all its candidates (the official tool
  // can enumerate |values|^slots candidates for hours). <= 0 means "timeout_s". When spent, the
  // item scores 0 and is reported as a timeout.
  double plug_budget_s = 0;
  bool keep_rows = false;  // fill ExecVerdict::gold_rows / pred_rows (first database, the prediction as given)
  // `sqlgrade spider --compat both`: a result the evaluator takes instead of executing a statement
  // (database file, final SQL text, the limits of this read) — ResultShare::lend, which lends only what
  // this evaluator's own reading would return; null (or no function): execute it.
  ResultLender lend;
};

struct ExecItem {
  std::string db_id;
  std::string gold_sql;
  std::string pred_sql;
  // Per-item choices (the reward server's per-request flags and deadline); unset: the evaluator's
  // ExecOptions. Gold results do not depend on them, so one evaluator serves every combination.
  std::optional<bool> plug_value{}, keep_distinct{};
  std::optional<double> timeout_s{};
};

struct ExecVerdict {
  int score = 0;           // 1 = equivalent on every test-suite database
  std::string reason;      // why 0 (empty when score == 1)
  bool gold_error = false; // the gold itself failed / timed out on some database
  bool timeout = false;    // the prediction hit the deadline
  bool pred_failed = false; // the prediction is empty or raised an error (on the first candidate's first failing database)
  bool no_pred = false;    // there is no prediction (a run's question without one)
  double seconds = 0;      // wall time spent on this item
  ResultRows gold_rows, pred_rows;  // ExecOptions::keep_rows: first rows on the first database
};

// Where gold results come from: given the database file, the final gold query and a function that
// executes it (with the evaluator's engine options and gold limits), returns the result. A caller can
// keep gold results in its own bounded cache (the reward server does); without one, the evaluator
// keeps every gold result for its lifetime (one CLI run).
using GoldSource = std::function<std::shared_ptr<const ExecResult>(
    const std::string& db_path, const std::string& query, const std::function<ExecResult()>& run)>;

class ExecEvaluator {
 public:
  ExecEvaluator(std::string db_dir, ExecOptions opt);
  ~ExecEvaluator();
  ExecEvaluator(const ExecEvaluator&) = delete;
  ExecEvaluator& operator=(const ExecEvaluator&) = delete;

  ExecVerdict evaluate(const ExecItem& item, const GoldSource& gold = nullptr);  // thread-safe
  // Every item on `jobs` threads (0 = every core); verdicts in item order. progress may be null.
  std::vector<ExecVerdict> evaluate_all(const std::vector<ExecItem>& items, unsigned jobs, Progress* progress);

  // The test-suite databases of db_id: every *.sqlite in <db_dir>/<db_id>/, with <db_id>.sqlite first,
  // the rest in name order. Throws InputError when there are none.
  std::vector<std::string> db_paths(const std::string& db_id);

  const ExecOptions& options() const { return opt_; }

  // Statements this evaluator had SQLite execute, and results it took from ExecOptions::lend instead.
  struct Counts {
    uint64_t executed = 0, lent = 0;
  };
  Counts counts() const;

  // The result of a gold query on one database file, exactly as given (callers apply the
  // postprocess / DISTINCT removal first): from `gold` when given, else computed once per
  // (file, SQL) and shared across threads.
  std::shared_ptr<const ExecResult> gold_result(const std::string& db_path, const std::string& gold_sql,
                                                const GoldSource& gold = nullptr);


 private:
  std::shared_ptr<const ExecResult> run_pred(const std::string& db_path, const std::string& sql, size_t max_rows,
                                             double timeout_s);
  // Every statement the evaluator runs: lent by ExecOptions::lend when it can (else null), else executed.
  std::shared_ptr<const ExecResult> borrow(const std::string& db_path, const std::string& sql, const Limits& lim);
  ExecResult execute(const std::string& db_path, const std::string& sql, const Limits& lim);
  // Whether a gold result (Ok) is what a prediction of the same text reads under pred_timeout_s.
  bool gold_read_serves(double pred_timeout_s) const;
  // What every candidate of one item is checked against (evaluate: the prediction, then plug_value's).
  struct Candidates {
    const std::vector<std::string>& dbs;
    const std::string& gold_sql;
    const GoldSource& gold;
    double timeout_s;
    bool order_matters;
    const std::string* given = nullptr;  // the prediction as given (not a plug_value variant): its rows are kept
  };
  int check_candidate(const Candidates& c, const std::string& cand, ExecVerdict& v, std::string* why, bool* failed);
  struct Impl;
  std::string db_dir_;
  ExecOptions opt_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sqlgrade::spider
