#pragma once
// Spider adapter: read the gold/prediction files (Spider one-per-line or SParC/CoSQL interactions
// separated by blank lines), pair them without ever shifting, parse and grade every example (exact
// set match + partial components + hardness), run the execution check (original Spider §1.14 or
// test-suite via ExecEvaluator), and aggregate the official score table.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "sqlgrade/spider/exact_match.hpp"
#include "sqlgrade/spider/exec_evaluator.hpp"
#include "sqlgrade/spider/hardness.hpp"

namespace sqlgrade::spider {

enum class Etype { Match, Exec, All };

struct SpiderOptions {
  std::string gold, pred, db_dir, table;
  Etype etype = Etype::Exec;
  Compat compat = Compat::TestSuite;
  bool plug_value = false, keep_distinct = false, progress_each = false;
  double timeout_s = 30;
  int jobs = 0;  // 0 = all cores
  int progress = -1;  // -1 auto (TTY), 0 off, 1 on
};

struct Example {
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
  int exec = -1;
  std::string exec_reason;
  bool exec_timeout = false, exec_gold_error = false;
  double parse_seconds = 0, exec_seconds = 0;
};

struct LevelScores {
  long count = 0;
  double exact = 0, exec = 0;
  struct Part {
    double acc = 0, rec = 0, f1 = 0;
    long acc_count = 0, rec_count = 0;
  };
  std::array<Part, C_COUNT> partial{};
};

struct SpiderScores {
  // easy, medium, hard, extra, all, joint_all
  std::array<LevelScores, 6> levels{};
  // turn 1..4, turn > 4
  std::array<LevelScores, 5> turns{};
  bool include_turn = false;
};

struct SpiderRun {
  SpiderOptions opt;
  std::vector<Example> examples;
  size_t n_interactions = 0;
  SpiderScores scores;
  std::vector<std::string> warnings;  // one line each, for stderr
  double seconds_parse = 0, seconds_exec = 0;
};

// Runs the whole evaluation. Throws InputError for unusable inputs (unreadable files, a gold line
// without `SQL<TAB>db_id`, unknown db_id, interaction files whose interaction counts differ).
SpiderRun run_spider(const SpiderOptions& opt);

// `spider parse`: one "SQL<TAB>db_id" per input line → one JSON object per line with the sql field in
// the dataset format (or {"error": ...}). Returns the JSON lines.
std::vector<std::string> parse_lines_to_json(const std::vector<std::string>& lines, const std::string& tables_json,
                                             bool testsuite_limit, size_t* n_errors);

}  // namespace sqlgrade::spider
