#pragma once
// BIRD: the check of one (database, gold SQL, prediction SQL) triple — the metric of compare.hpp on the
// two results, and the timing of VES / R-VES — and how its outcome fills an Instance. run.cpp runs it
// for every paired question (exec::run).
#include <string>

#include "sqlgrade/bird.hpp"
#include "sqlgrade/bird/backend.hpp"
#include "sqlgrade/exec/runner.hpp"

namespace sqlgrade::bird {

// What checking one (database, gold SQL, prediction SQL) triple gives an Instance. Under EX, Soft-F1
// and EM+F1 it is the same for every question and system that has the triple, so evaluate_many checks
// each distinct triple once; VES/R-VES time every pair.
struct Checked {
  Outcome outcome;  // check() always sets its status
  double time_ratio = 0;
  double pred_seconds = 0, gold_seconds = 0;
  size_t pred_rows = 0, gold_rows = 0;
};

// The stage of a BIRD outcome: Equal when the results match (EX), whatever the status (a VES timing
// failure keeps the match and scores 0); otherwise by the status: ok -> different, no_prediction /
// not_a_string / no_answer -> no_sql, pred_error -> pred_failed, pred_timeout -> timeout,
// pred_too_large -> too_large, gold_* -> gold_failed.
VerdictStage stage_of(const std::string& status, bool ex_match);

// An instance that ends before any query runs (no prediction, not a string, no answer, a database
// that is not there): score 0 with BIRD's status and the reason.
void fail_before_running(Instance& it, const std::string& status, std::string reason);

// The outcome of one pair of results: a failed gold, then a failed prediction, scores 0 with the engine's
// message; else EX (result sets equal) and the metric's score (VES/R-VES: left to the timing). The
// comparison gets what the prediction's deadline left: past it, a "pred_timeout" as for the query.
Checked check(Metric m, const ExecResult& g, const ExecResult& p, double pred_timeout_s, bool keep_rows);

// VES / R-VES of a correct pair: alternate pred / gold `opt.repeat` times and score the filtered time
// ratio; a failure or the budget (timeout_s x repeat) exceeded scores 0 (o's status and reason say
// why). Returns o with the timing applied.
Checked time_pair(Checked o, Backend& db, const exec::Item& item, const Options& opt, const Limits& pred_lim,
                  const Limits& gold_lim);

// The instance's fields that the outcome gives (correct, score, status, timings, first rows).
void apply(Instance& it, const Checked& o);

}  // namespace sqlgrade::bird
