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

Outcome check(Metric m, const ExecResult& g, const ExecResult& p, double pred_timeout_s, bool keep_rows) {
  Outcome o;
  if (keep_rows && g.ok()) o.gold_first = runs::first_rows(g.table);
  if (keep_rows && p.ok()) o.pred_first = runs::first_rows(p.table);
  o.pred_seconds = p.seconds;
  o.gold_seconds = g.seconds;
  o.pred_rows = p.table.rows.size();
  o.gold_rows = g.table.rows.size();
  if (!g.ok()) {
    o.status = failure_status("gold", g.status);
    o.reason = g.error;
  } else if (!p.ok()) {
    o.status = failure_status("pred", p.status);
    o.reason = p.error;
  } else {
    const Deadline deadline = Deadline::left_of(pred_timeout_s, p.seconds);
    try {
      o.correct = ex_match(p.table, g.table, deadline);
      if (m == Metric::SoftF1) o.score = soft_f1(p.table, g.table, deadline);
      else if (m == Metric::EmF1) o.score = em_f1(p.table, g.table, deadline);
      else if (m == Metric::Ex) o.score = o.correct ? 1.0 : 0.0;
    } catch (const DeadlineExceeded&) {
      o.correct = false;
      o.score = 0;
      o.status = failure_status("pred", ExecStatus::Timeout);
      o.reason = "timeout after " + std::to_string(pred_timeout_s) + " s (comparing the result)";
    } catch (const py::Unhashable& e) {
      // A list or dict cell (a PostgreSQL array, a JSON object): set() raises TypeError in the official
      // script, whose handler scores the pair 0 — whichever side holds it.
      o.correct = false;
      o.score = 0;
      o.status = failure_status(has_unhashable(g.table) ? "gold" : "pred", ExecStatus::Error);
      o.reason = std::string("TypeError: ") + e.what() + " (the official script's set() of the rows raises)";
    }
  }
  return o;
}

void apply(Instance& it, const Outcome& o) {
  it.correct = o.correct;
  it.score = o.score;
  it.time_ratio = o.time_ratio;
  it.status = o.status;
  it.reason = o.reason;
  it.pred_seconds = o.pred_seconds;
  it.gold_seconds = o.gold_seconds;
  it.pred_rows = o.pred_rows;
  it.gold_rows = o.gold_rows;
  it.gold_first = o.gold_first;
  it.pred_first = o.pred_first;
}

// SQLite's timer covers the engine call (prepare + step to the end + row copy), i.e. execute + fetchall
// without connecting; a server's is the time the server reports (backend.hpp).
Outcome time_pair(Outcome o, Backend& db, const exec::Item& item, const Options& opt, const Limits& pred_lim,
                  const Limits& gold_lim) {
  const int repeat = std::max(1, opt.repeat);
  std::vector<double> ratios;
  ratios.reserve(repeat);
  auto budget_end = Clock::now() + std::chrono::duration<double>(opt.timeout_s > 0 ? opt.timeout_s * repeat : 1e18);
  for (int r = 0; r < repeat; ++r) {
    ExecResult tp = db.timed(item.db, item.pred, pred_lim);
    ExecResult tg = db.timed(item.db, item.gold, gold_lim);
    if (!tp.ok() || !tg.ok()) {
      o.status = !tp.ok() ? "pred_timeout" : "gold_timeout";
      o.reason = "during timing: " + (!tp.ok() ? tp.error : tg.error);
      return o;
    }
    ratios.push_back(tg.seconds / std::max(tp.seconds, 1e-9));
    if (Clock::now() > budget_end) {
      o.status = "pred_timeout";
      o.reason = "timing exceeded meta_time_out x repeat";
      return o;
    }
  }
  o.time_ratio = filtered_time_ratio(ratios);
  o.score = opt.metric == Metric::Ves ? ves_score(o.time_ratio) : rves_score(rves_reward(o.time_ratio));
  return o;
}

}  // namespace sqlgrade::bird
