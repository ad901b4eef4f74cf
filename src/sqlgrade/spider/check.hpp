#pragma once
// Spider: the per-slot checks of a pass — each slot's gold and prediction parsed and exact-matched
// (once per question and per distinct prediction), and the execution check (test-suite's
// ExecEvaluator, or the original Spider metric). Each returns its results; run.cpp puts them in the
// examples.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/spider/exec_evaluator.hpp"
#include "sqlgrade/spider/pairing.hpp"
#include "sqlgrade/spider/result_share.hpp"
#include "sqlgrade/spider/sql.hpp"

namespace sqlgrade::spider {

// One slot parsed: the trees the exec check needs and what its example records.
struct SlotParse {
  std::shared_ptr<const Sql> gold;  // shared by the systems' examples of one question (null: gold unparsed)
  std::shared_ptr<const Sql> pred;  // shared by the examples of one question with the same prediction
  Hardness hardness = Hardness::Easy;
  bool gold_ok = true;
  std::string gold_error;
  bool pred_parsed = false;
  std::string parse_error;
  int exact = -1;
  PartialScores partial{};
  double parse_seconds = 0;
};

// Every slot parsed and (when mode.do_match) exact-matched: each question's gold once for all systems,
// each (question, prediction) once (on mode.jobs threads).
std::vector<SlotParse> parse_all(const PassMode& mode, const Databases& dbs, const std::vector<Run>& runs,
                                 const Slots& slots);
// The example's fields that its parse gives.
void apply(Example& ex, const SlotParse& sp);

// Seconds on the steady clock, for the passes' timings (check.cpp, run.cpp).
double now_s();

// One slot's execution verdict; nullopt when the example is left out (gold unparsed). (Not an Outcome:
// that is the one type every benchmark's check returns, exec/benchmark.hpp.)
using SlotVerdict = std::optional<ExecVerdict>;

// The outcomes of one execution pass and the statements it executed (or borrowed).
struct Executed {
  std::vector<SlotVerdict> outcomes;  // per slot
  ExecCounts counts;
};

// The limits of the original Spider pass (every row up to the engine's caps, the --timeout deadline).
Limits strict_limits(const Options& opt);

// Test-suite exec: each distinct (db, gold, prediction) checked once; with `share` (--compat both),
// results the spider pass already has are borrowed.
Executed exec_test_suite(const Options& opt, const PassMode& mode, const std::vector<Run>& runs, const Slots& slots,
                         const ResultShare* share, Progress& progress);
// Original Spider exec: every distinct (database, SQL) runs once, its result kept in `share` (own one
// when null) for the test-suite pass of --compat both.
Executed exec_spider(const Options& opt, const PassMode& mode, const std::vector<Run>& runs, const Slots& slots,
                     const std::vector<SlotParse>& parses, ResultShare* share, Progress& progress);

}  // namespace sqlgrade::spider
