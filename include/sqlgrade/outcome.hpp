#pragma once
// sqlgrade::Outcome — how the check of ONE prediction against its gold ended, the same type for every
// benchmark (issue 32): a Spider example's execution check (spider::Example::exec), a BIRD instance
// (bird::Instance::outcome), a Spider 2.0-Lite instance (spider2::Instance::outcome), and the check
// inside a single-rollout verdict (sqlgrade::Verdict is built from one). The run records and Python read
// it; each benchmark writes its official record keys from it in one function (its record.cpp), and the
// Python items carry it as `outcome` (docs/python.md).
//
// Standard library only.
#include <string>

#include "sqlgrade/result_rows.hpp"

namespace sqlgrade {

// Where a check ended, as a value (never read from the English detail): the stage that decided it.
enum class VerdictStage {
  NoSql,       // no SQL found in the model output (or it holds no statement; BIRD: no prediction)
  PredFailed,  // the prediction did not run: an error, an empty query, SQL that is not Unicode
  Timeout,     // the prediction hit its deadline (running, converting or comparing its result)
  TooLarge,    // the prediction's result is over the row/byte caps
  GoldFailed,  // the gold could not be computed (the prediction may not have run)
  Different,   // the prediction ran and its result differs from the gold (or cannot be read as one)
  Equal,       // the prediction's result matches the gold: reward 1
  Refuted,     // it matched, but `verify` refuted the match against every gold it matched: reward 0
  Unverified,  // it matched, the `verify` search was cut, and on_unverified is Zero: reward 0
};
// no_sql | pred_failed | timeout | too_large | gold_failed | different | equal | refuted | unverified
// (the /verify `stage`, Python's outcome["stage"]).
const char* to_string(VerdictStage stage);

// The failure_reason of a stage, the one place it is decided (docs/serve.md has the table): equal ->
// none, no_sql -> no_sql_extracted, pred_failed and too_large -> execution_error, timeout -> timeout,
// gold_failed -> gold_execution_error (NeMo Gym's words, and `timeout`), different ->
// result_mismatch, refuted -> refuted, unverified -> unverified.
const char* failure_reason(VerdictStage stage);

struct Outcome {
  VerdictStage stage = VerdictStage::Different;
  // The benchmark's score of the item: 1/0 for an execution match (Spider, Spider 2.0, BIRD EX), BIRD's
  // Soft-F1 / EM+F1 in [0, 1], VES / R-VES 100*sqrt(.). BIRD's VES can be 0 on an Equal stage (the
  // timing failed: `status` says why).
  double score = 0;
  // The benchmark's own finer word where the stage alone does not say it, as its run record writes it:
  // BIRD's status (ok, no_prediction, not_a_string, no_answer, pred_error, pred_timeout, pred_too_large,
  // gold_error, gold_timeout, gold_too_large); "" for Spider and Spider 2.0, whose stage says it all.
  std::string status;
  std::string detail;  // the human reason ("" on a match): Spider's exec_reason, BIRD's reason, Spider 2.0's error_info
  // A deadline was hit on the way, whatever the stage: Spider's test-suite check can time out on one
  // plug_value candidate and still end Different (the record's `timeout`).
  bool deadline_hit = false;
  ResultRows gold_rows, pred_rows;  // with the benchmark's keep_rows: the first rows of both results

  bool match() const { return stage == VerdictStage::Equal; }
  const char* failure_reason() const { return sqlgrade::failure_reason(stage); }
};

}  // namespace sqlgrade
