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
struct Outcome {
  bool correct = false;
  double score = 0, time_ratio = 0;
  std::string status = "ok", reason;
  double pred_seconds = 0, gold_seconds = 0;
  size_t pred_rows = 0, gold_rows = 0;
  ResultRows gold_first, pred_first;
};

// The outcome of one pair of results: a failed gold, then a failed prediction, scores 0 with the engine's
// message; else EX (result sets equal) and the metric's score (VES/R-VES: left to the timing). The
// comparison gets what the prediction's deadline left: past it, a "pred_timeout" as for the query.
Outcome check(Metric m, const ExecResult& g, const ExecResult& p, double pred_timeout_s, bool keep_rows);

// VES / R-VES of a correct pair: alternate pred / gold `opt.repeat` times and score the filtered time
// ratio; a failure or the budget (timeout_s x repeat) exceeded scores 0 (o's status and reason say
// why). Returns o with the timing applied.
Outcome time_pair(Outcome o, Backend& db, const exec::Item& item, const Options& opt, const Limits& pred_lim,
                  const Limits& gold_lim);

// The instance's fields that the outcome gives (correct, score, status, timings, first rows).
void apply(Instance& it, const Outcome& o);

}  // namespace sqlgrade::bird
