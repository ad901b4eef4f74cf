// Spider: the per-slot checks of a pass — parsing and exact match (memoised per question and
// prediction) and the two execution checks (test-suite, original Spider), each slot a pure check.
#include "sqlgrade/spider/check.hpp"

#include <chrono>

#include "sqlgrade/core/memo.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/exec/runner.hpp"
#include "sqlgrade/runs/result_rows.hpp"
#include "sqlgrade/spider/exact_match.hpp"
#include "sqlgrade/spider/hardness.hpp"
#include "sqlgrade/spider/parser.hpp"
#include "sqlgrade/spider/rebuild.hpp"

namespace sqlgrade::spider {

// Seconds on the steady clock (the passes' timings).
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {

// The gold of one question, parsed (and rebuilt when needed) once for every system.
struct GoldParse {
  std::shared_ptr<const Sql> sql;  // null when the gold does not parse
  bool ok = true;
  std::string error;
  Hardness hardness = Hardness::Easy;  // set before the shape check, as evaluation.py does
  double seconds = 0;
};

// Every system pairs the same gold questions in the same order (pairing.cpp), so a question's gold is
// parsed and rebuilt once, then shared by the slots of all systems.
GoldParse parse_gold(const PassMode& m, const DbInfo& db, const Example& ex) {
  double a = now_s();
  GoldParse gp;
  std::unique_ptr<Sql> g;
  try {
    g = parse_sql(db.schema, ex.gold_sql, ParseOptions{m.ts});
    gp.hardness = hardness(*g);
    if (m.do_match || !m.ts) check_condition_shape(*g);
  } catch (const ParseError& e) {
    gp.ok = false;
    gp.error = e.what();
    return gp;
  }
  if (m.do_match || !m.ts) rebuild_sql(*g, db);
  gp.sql = std::move(g);
  gp.seconds = now_s() - a;
  return gp;
}

// What parsing and matching one prediction against its question's gold gives. It depends on nothing
// but (question, prediction), so it is computed once for every system that gave the same prediction.
struct PredParse {
  std::shared_ptr<const Sql> sql;  // an empty query when the prediction does not parse
  bool parsed = false;
  std::string error;
  int exact = -1;
  PartialScores partial{};
  double seconds = 0;
};

PredParse parse_and_match(const PassMode& m, const DbInfo& db, const Example& ex, const GoldParse& gp) {
  double a = now_s();
  PredParse pp;
  std::unique_ptr<Sql> pred;
  try {
    if (!ex.has_pred) throw ParseError("no prediction");
    pred = parse_sql(db.schema, ex.pred_sql, ParseOptions{m.ts});
    if (m.do_match || !m.ts) check_condition_shape(*pred);
    pp.parsed = true;
  } catch (const ParseError& e) {
    pred = empty_sql();
    pp.error = e.what();
  }
  if (m.do_match || !m.ts) rebuild_sql(*pred, db);
  if (m.do_match) pp.exact = exact_match(*pred, *gp.sql, db, &pp.partial);
  pp.sql = std::move(pred);
  pp.seconds = now_s() - a;
  return pp;
}

// One slot: its prediction parsed and exact-matched (memoised per question and prediction).
SlotParse parse_slot(const PassMode& m, const DbInfo& db, const Example& ex, size_t question, const GoldParse& gp,
                     Memo<std::string, PredParse>& memo) {
  SlotParse sp;
  sp.hardness = gp.hardness;
  if (!gp.ok) {
    sp.gold_ok = false;
    sp.gold_error = gp.error;
    return sp;
  }
  sp.gold = gp.sql;
  std::string key = std::to_string(question) + (ex.has_pred ? "\n+" : "\n-") + ex.pred_sql;
  auto pp = memo.get(key, [&] { return parse_and_match(m, db, ex, gp); });
  sp.pred = pp->sql;
  sp.pred_parsed = pp->parsed;
  sp.parse_error = pp->error;
  sp.exact = pp->exact;
  sp.partial = pp->partial;
  sp.parse_seconds = gp.seconds + pp->seconds;
  return sp;
}

SlotVerdict no_prediction() {
  ExecVerdict v;
  v.no_pred = true;
  v.reason = "no prediction";
  return v;
}

}  // namespace

std::vector<SlotParse> parse_all(const PassMode& mode, const Databases& dbs, const std::vector<Run>& runs,
                                 const Slots& slots) {
  const std::vector<Example> none;
  const std::vector<Example>& questions = runs.empty() ? none : runs[0].examples;
  auto golds = exec::run_each<GoldParse>(questions.size(), mode.jobs, nullptr, [&](size_t q) {
    return parse_gold(mode, *dbs.at(questions[q].db_id), questions[q]);
  });
  Memo<std::string, PredParse> preds;
  return exec::run_each<SlotParse>(slots.size(), mode.jobs, nullptr, [&](size_t i) {
    const size_t q = slots[i].second;
    const Example& ex = at(runs, slots, i);
    return parse_slot(mode, *dbs.at(ex.db_id), ex, q, golds[q], preds);
  });
}

void apply(Example& ex, const SlotParse& sp) {
  ex.hardness = sp.hardness;
  if (!sp.gold_ok) {
    ex.gold_ok = false;
    ex.gold_error = sp.gold_error;
    return;
  }
  ex.pred_parsed = sp.pred_parsed;
  ex.parse_error = sp.parse_error;
  ex.exact = sp.exact;
  ex.partial = sp.partial;
  ex.parse_seconds = sp.parse_seconds;
}

// Test-suite exec (ExecEvaluator): a verdict depends only on (db, gold, prediction), so each distinct
// triple is checked once (exec::VerdictMemo, single flight), however many examples or systems share
// it. pred_sql already has test-suite's `value` → `1` replacement (spec §2.1): the suite applies it
// once, before both match and exec; the evaluator receives the replaced text.
Executed exec_test_suite(const Options& opt, const PassMode& mode, const std::vector<Run>& runs, const Slots& slots,
                         const ResultShare* share, Progress& progress) {
  ExecOptions eo;
  eo.plug_value = opt.plug_value;
  eo.keep_distinct = opt.keep_distinct;
  eo.timeout_s = opt.timeout_s;
  eo.max_rows = opt.max_rows;
  eo.max_result_bytes = opt.max_result_bytes;
  eo.compat = Compat::TestSuite;
  eo.keep_rows = opt.keep_rows;
  if (share)
    eo.lend = [share](const std::string& path, const std::string& sql, const Limits& lim) { return share->lend(path, sql, lim); };
  ExecEvaluator ev(opt.db_dir, eo);
  exec::VerdictMemo<ExecVerdict> verdicts;
  Executed out;
  out.outcomes = exec::run_each<SlotVerdict>(slots.size(), mode.jobs, &progress, [&](size_t i) -> SlotVerdict {
    const Example& ex = at(runs, slots, i);
    if (!ex.gold_ok) return std::nullopt;
    if (!ex.has_pred) return no_prediction();
    return *verdicts.get(exec::verdict_key(ex.db_id, ex.gold_sql, ex.pred_sql),
                         [&] { return ev.evaluate({ex.db_id, ex.gold_sql, ex.pred_sql}); });
  });
  out.counts.test_suite = ev.counts().executed;
  out.counts.lent = ev.counts().lent;
  return out;
}

Limits strict_limits(const Options& opt) {
  Limits lim;
  lim.timeout_s = opt.timeout_s;
  lim.max_rows = opt.max_rows;
  lim.max_bytes = opt.max_result_bytes;
  return lim;
}

namespace {

// Original Spider exec (spec §1.14): one DB file, default text factory (invalid UTF-8 is an error),
// result columns keyed by the parsed select items. Every distinct (database, SQL) runs once: gold and
// prediction results share one memo across all systems (a prediction equal to its gold, a gold shared
// by several examples, or one prediction of several systems, is executed a single time), bounded by
// bytes so that large results are not all kept (ResultShare: with --compat both, the test-suite pass
// borrows from the same memo afterwards).
class SpiderExec {
 public:
  SpiderExec(const Options& opt, ResultShare& share) : opt_(opt), lim_(strict_limits(opt)), results_(share) {
    so_.text_decode = SqliteOptions::TextDecode::Error;
  }

  SlotVerdict check(const Example& ex, const SlotParse& ps) {
    if (!ex.gold_ok) return std::nullopt;
    if (!ex.has_pred) return no_prediction();
    ExecVerdict v;
    // A prediction that does not parse has an empty select map, which can only equal the gold's when
    // the gold has no select items either: otherwise the score is 0 without executing it.
    if (!ex.pred_parsed && ps.gold && !ps.gold->select.empty()) {
      v.reason = "prediction does not parse (the original metric keys results by parsed select items)";
      return v;
    }
    double a = now_s();
    std::string path = db_path(opt_.db_dir, ex.db_id);
    auto pr = result(path, ex.pred_sql);
    auto gr = result(path, ex.gold_sql);
    if (opt_.keep_rows) {  // what the record's drill-down shows
      if (gr->ok()) v.gold_rows = runs::first_rows(gr->table);
      if (pr->ok()) v.pred_rows = runs::first_rows(pr->table);
    }
    if (!pr->ok()) {
      v.timeout = pr->status == ExecStatus::Timeout;
      v.pred_failed = pr->status == ExecStatus::Error;
      v.reason = std::string("prediction: ") + to_string(pr->status) + ": " + pr->error;
    } else if (!gr->ok()) {
      v.gold_error = true;
      v.reason = std::string("gold: ") + to_string(gr->status) + ": " + gr->error;
    } else {
      v.score = spider_exec_maps_equal(*ps.pred, pr->table, *ps.gold, gr->table) ? 1 : 0;
      if (!v.score) v.reason = "results differ";
    }
    v.seconds = now_s() - a;
    return v;
  }

 private:
  // The connection is leased only while the query runs, never while waiting for another thread's
  // computation of the same result (SqlitePool: a thread holds one lease at a time).
  std::shared_ptr<const ExecResult> result(const std::string& path, const std::string& sql) {
    return results_.strict(path, sql, [&] { return SqlitePool::lease(path, so_)->execute(sql, lim_); });
  }

  const Options& opt_;
  SqliteOptions so_;
  Limits lim_;
  ResultShare& results_;
};

}  // namespace

Executed exec_spider(const Options& opt, const PassMode& mode, const std::vector<Run>& runs, const Slots& slots,
                     const std::vector<SlotParse>& parses, ResultShare* share, Progress& progress) {
  ResultShare own(strict_limits(opt));
  ResultShare& results = share ? *share : own;
  const uint64_t before = results.executed();
  SpiderExec sx(opt, results);
  Executed out;
  out.outcomes = exec::run_each<SlotVerdict>(slots.size(), mode.jobs, &progress,
                                         [&](size_t i) { return sx.check(at(runs, slots, i), parses[i]); });
  out.counts.spider = results.executed() - before;
  return out;
}

}  // namespace sqlgrade::spider
