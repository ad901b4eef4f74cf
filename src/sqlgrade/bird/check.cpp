// BIRD: the check of one (database, gold, prediction) triple — result comparison (compare.hpp) and the
// VES / R-VES timing — and how its outcome fills an Instance.
#include "sqlgrade/bird/check.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "sqlgrade/bird/compare.hpp"
#include "sqlgrade/py/equality.hpp"
#include "sqlgrade/runs/result_rows.hpp"

namespace sqlgrade::bird {

namespace {

bool has_unhashable(const Table& t) {
  for (const Row& r : t.rows)
    for (const Value& v : r)
      if (v.kind == Kind::Unhashable) return true;
  return false;
}

std::string failure_status(const char* side, ExecStatus s) {
  return std::string(side) + (s == ExecStatus::Timeout ? "_timeout" : s == ExecStatus::TooLarge ? "_too_large" : "_error");
}

using Clock = std::chrono::steady_clock;

}  // namespace

VerdictStage stage_of(const std::string& status, bool ex_match) {
  if (ex_match) return VerdictStage::Equal;
  if (status == "ok") return VerdictStage::Different;
  if (status.rfind("gold_", 0) == 0) return VerdictStage::GoldFailed;
  if (status == "pred_timeout") return VerdictStage::Timeout;
  if (status == "pred_too_large") return VerdictStage::TooLarge;
  if (status == "pred_error") return VerdictStage::PredFailed;
  return VerdictStage::NoSql;  // no_prediction, not_a_string, no_answer
}

void fail_before_running(Instance& it, const std::string& status, std::string reason) {
  it.outcome.score = 0;
  it.outcome.status = status;
  it.outcome.detail = std::move(reason);
  it.outcome.stage = stage_of(status, false);
}

namespace {

// The outcome's status, detail and stage at once (the stage follows both).
void end_at(Outcome& o, std::string status, std::string detail, bool ex_match) {
  o.status = std::move(status);
  o.detail = std::move(detail);
  o.stage = stage_of(o.status, ex_match);
  const std::string tail = "_timeout";
  if (o.status.size() > tail.size() && o.status.compare(o.status.size() - tail.size(), tail.size(), tail) == 0)
    o.deadline_hit = true;
}

}  // namespace

Checked check(Metric m, const ExecResult& g, const ExecResult& p, double pred_timeout_s, bool keep_rows) {
  Checked c;
  Outcome& o = c.outcome;
  if (keep_rows && g.ok()) o.gold_rows = runs::first_rows(g.table);
  if (keep_rows && p.ok()) o.pred_rows = runs::first_rows(p.table);
  c.pred_seconds = p.seconds;
  c.gold_seconds = g.seconds;
  c.pred_rows = p.table.rows.size();
  c.gold_rows = g.table.rows.size();
  if (!g.ok()) return end_at(o, failure_status("gold", g.status), g.error, false), c;
  if (!p.ok()) return end_at(o, failure_status("pred", p.status), p.error, false), c;
  const Deadline deadline = Deadline::left_of(pred_timeout_s, p.seconds);
  try {
    const bool correct = ex_match(p.table, g.table, deadline);
    if (m == Metric::SoftF1) o.score = soft_f1(p.table, g.table, deadline);
    else if (m == Metric::EmF1) o.score = em_f1(p.table, g.table, deadline);
    else if (m == Metric::Ex) o.score = correct ? 1.0 : 0.0;
    end_at(o, "ok", "", correct);
  } catch (const DeadlineExceeded&) {
    o.score = 0;
    end_at(o, failure_status("pred", ExecStatus::Timeout),
           "timeout after " + std::to_string(pred_timeout_s) + " s (comparing the result)", false);
  } catch (const py::Unhashable& e) {
    // A list or dict cell (a PostgreSQL array, a JSON object): set() raises TypeError in the official
    // script, whose handler scores the pair 0 — whichever side holds it.
    o.score = 0;
    end_at(o, failure_status(has_unhashable(g.table) ? "gold" : "pred", ExecStatus::Error),
           std::string("TypeError: ") + e.what() + " (the official script's set() of the rows raises)", false);
  }
  return c;
}

void apply(Instance& it, const Checked& c) {
  it.outcome = c.outcome;
  it.time_ratio = c.time_ratio;
  it.pred_seconds = c.pred_seconds;
  it.gold_seconds = c.gold_seconds;
  it.pred_rows = c.pred_rows;
  it.gold_rows = c.gold_rows;
}

// SQLite's timer covers the engine call (prepare + step to the end + row copy), i.e. execute + fetchall
// without connecting; a server's is the time the server reports (backend.hpp).
Checked time_pair(Checked o, Backend& db, const exec::Item& item, const Options& opt, const Limits& pred_lim,
                  const Limits& gold_lim) {
  const int repeat = std::max(1, opt.repeat);
  std::vector<double> ratios;
  ratios.reserve(repeat);
  auto budget_end = Clock::now() + std::chrono::duration<double>(opt.timeout_s > 0 ? opt.timeout_s * repeat : 1e18);
  for (int r = 0; r < repeat; ++r) {
    ExecResult tp = db.timed(item.db, item.pred, pred_lim);
    ExecResult tg = db.timed(item.db, item.gold, gold_lim);
    if (!tp.ok() || !tg.ok()) {  // the results matched: the stage stays Equal, the score 0
      end_at(o.outcome, !tp.ok() ? "pred_timeout" : "gold_timeout", "during timing: " + (!tp.ok() ? tp.error : tg.error),
             true);
      return o;
    }
    ratios.push_back(tg.seconds / std::max(tp.seconds, 1e-9));
    if (Clock::now() > budget_end) {
      end_at(o.outcome, "pred_timeout", "timing exceeded meta_time_out x repeat", true);
      return o;
    }
  }
  o.time_ratio = filtered_time_ratio(ratios);
  o.outcome.score = opt.metric == Metric::Ves ? ves_score(o.time_ratio) : rves_score(rves_reward(o.time_ratio));
  return o;
}

}  // namespace sqlgrade::bird
