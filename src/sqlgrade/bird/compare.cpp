// BIRD comparison rules. Mirrors, per metric (spec shared/spec/official-evaluators.md §3):
//   EX       AlibabaResearch/DAMO-ConvAI bird/llm/src @ dec31ae evaluation.py and bird-bench/mini_dev
//            @ 4d970a9 evaluation/evaluation_ex.py (calculate_ex: set(pred) == set(gold)), §3.1/§3.3;
//   Soft-F1  bird-bench/mini_dev @ 4d970a9 evaluation/evaluation_f1.py (calculate_f1_score), §3.3;
//   VES      DAMO-ConvAI bird/llm/src @ dec31ae evaluation_ves.py (clean_abnormal, sqrt of the mean
//            time ratio), §3.2;
//   R-VES    bird-bench/mini_dev @ 4d970a9 evaluation/evaluation_ves.py (reward buckets), §3.3;
//   EM+F1    the BIRD works_cycles prompt-optimisation subset recipe: (EM + Soft-F1) / 2 (docs/bird.md).
// The timing behind VES / R-VES is measured in run.cpp; Python value semantics are documented in
// compare.hpp.
#include "sqlgrade/bird/compare.hpp"

#include <algorithm>
#include <cmath>

#include "sqlgrade/py/equality.hpp"

namespace sqlgrade::bird {

bool ex_match(const Table& pred, const Table& gold, const Deadline& deadline) {
  return py::same_set(pred.rows, gold.rows, deadline);
}

double soft_f1_rows(const std::vector<Row>& pred_in, const std::vector<Row>& gold_in, const Deadline& deadline) {
  if (pred_in.empty() && gold_in.empty()) return 1.0;
  // The de-duplicated rows in place (the official lists of tuples), not copies.
  const std::vector<const Row*> pred = py::unique_rows(pred_in, deadline), gold = py::unique_rows(gold_in, deadline);
  DeadlineTicker tick(deadline);
  // Sums accumulate in the official list order (Python 3.11 sum(): plain left-to-right addition).
  double tp = 0, fp = 0, fn = 0;
  // The official code builds three lists; the pred_only list gets its entries in gold-row order for
  // paired rows, then 1 per extra pred row; truth_only gets paired entries, then 1 per unpaired gold
  // row (those come last because unpaired gold rows have the highest indices). Adding zeros changes
  // nothing, so the sums below equal the official ones bit for bit.
  size_t paired = std::min(pred.size(), gold.size());
  for (size_t i = 0; i < paired; ++i) {
    const Row& p = *pred[i];
    const Row& g = *gold[i];
    tick.tick(p.size() * g.size() + 1);
    double total = static_cast<double>(g.size());
    long matches = 0, pred_only = 0, truth_only = 0;
    for (const Value& v : p) {
      if (py::contains(g, v)) ++matches;
      else ++pred_only;
    }
    for (const Value& v : g)
      if (!py::contains(p, v)) ++truth_only;
    tp += static_cast<double>(matches) / total;
    fp += static_cast<double>(pred_only) / total;
    fn += static_cast<double>(truth_only) / total;
  }
  for (size_t i = paired; i < gold.size(); ++i) fn += 1;
  for (size_t i = paired; i < pred.size(); ++i) fp += 1;
  double precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  double recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  return precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0;
}

double soft_f1(const Table& pred, const Table& gold, const Deadline& deadline) {
  return soft_f1_rows(pred.rows, gold.rows, deadline);
}

double em_f1(const Table& pred, const Table& gold, const Deadline& deadline) {
  double em = ex_match(pred, gold, deadline) ? 1.0 : 0.0;
  return (em + soft_f1(pred, gold, deadline)) / 2;
}

double filtered_time_ratio(const std::vector<double>& ratios) {
  if (ratios.empty()) return 0;
  double n = static_cast<double>(ratios.size());
  double sum = 0;
  for (double x : ratios) sum += x;
  double mean = sum / n;
  double var = 0;
  for (double x : ratios) var += (x - mean) * (x - mean);
  double sd = std::sqrt(var / n);
  double kept = 0;
  size_t count = 0;
  for (double x : ratios) {
    if (x < mean + 3 * sd && x > mean - 3 * sd) {
      kept += x;
      ++count;
    }
  }
  if (count == 0) return 0;  // official: ZeroDivisionError -> exception handler -> 0
  return kept / static_cast<double>(count);
}

double ves_score(double time_ratio) { return time_ratio > 0 ? 100.0 * std::sqrt(time_ratio) : 0.0; }

double rves_reward(double r) {
  if (r == 0) return 0;
  if (r >= 2) return 1.25;
  if (r >= 1) return 1;
  if (r >= 0.5) return 0.75;
  if (r >= 0.25) return 0.5;
  return 0.25;
}

double rves_score(double reward) { return reward > 0 ? 100.0 * std::sqrt(reward) : 0.0; }

}  // namespace sqlgrade::bird
