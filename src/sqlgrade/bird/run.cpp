// BIRD: the run — reads and pairs the inputs (pairing.hpp), runs every query read-only on all cores
// through exec::run (gold results memoised per (database, gold SQL), outcomes per (database, gold,
// prediction) outside VES/R-VES) and applies the check of check.hpp to each pair.
#include "sqlgrade/bird/run.hpp"

#include <chrono>
#include <set>

#include "sqlgrade/bird/backend.hpp"
#include "sqlgrade/bird/check.hpp"
#include "sqlgrade/bird/pairing.hpp"
#include "sqlgrade/exec/runner.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/core/parallel.hpp"

namespace sqlgrade::bird {

GoldFailures gold_failures(const std::vector<Instance>& items) {
  GoldFailures f;
  for (const auto& it : items) {
    if (it.outcome.status == "gold_timeout") ++f.timeouts;
    else if (it.outcome.stage == VerdictStage::GoldFailed) ++f.errors;
  }
  return f;
}

// Shared by the systems of one evaluate_many call: each (database, gold SQL) runs once, and (not under
// VES/R-VES) each (database, gold, prediction) is checked once, by whichever system has it first.
struct SharedCache {
  exec::GoldMemo<ExecResult> gold;
  exec::VerdictMemo<Checked> outcomes{MemoBounds{SIZE_MAX, 64u << 20}, [](const std::string& key, const Checked& c) {
    const Outcome& o = c.outcome;
    return key.size() + sizeof(Checked) + heap_bytes(o.status) + heap_bytes(o.detail) + heap_bytes(o.gold_rows) +
           heap_bytes(o.pred_rows) + exec::VerdictMemo<Checked>::entry_bookkeeping();
  }};
};

Run evaluate(const Options& opt, const std::function<void(const std::string&)>& warn_cb) {
  SharedCache cache;
  return evaluate_with(opt, warn_cb, cache);
}

std::vector<Run> evaluate_many(const Options& opt, const std::vector<std::string>& preds,
                               const std::function<void(size_t, const std::string&)>& warn_cb) {
  SharedCache cache;
  std::vector<Run> out;
  for (size_t k = 0; k < preds.size(); ++k) {
    Options o = opt;
    o.pred = preds[k];
    out.push_back(evaluate_with(o, [&](const std::string& w) { if (warn_cb) warn_cb(k, w); }, cache));
  }
  return out;
}

namespace {

using Clock = std::chrono::steady_clock;

// Databases must exist (the official scripts would silently create empty files).
void check_databases(const std::vector<Instance>& items, const Inputs& in, const Backend& backend) {
  std::set<std::string> dbs;
  for (auto& it : items) dbs.insert(it.db_id);
  for (auto& d : dbs) {
    long line = 0;
    for (auto& gi : in.gold)
      if (gi.db_id == d) {
        line = gi.line;
        break;
      }
    backend.check_database(d, in.files.gold, line);
  }
}

// The outcomes of one grading pass: outcomes[k] belongs to items[pending[k]].
struct Graded {
  std::vector<size_t> pending;
  std::vector<Checked> outcomes;
  uint64_t gold_executions = 0;  // gold queries this run executed (the others came from the memo)
};

// One pass over the questions that have a prediction, on all cores (exec::run): each a pure check of
// (database, gold, prediction). In the original layout the gold runs on the prediction's database, as
// the official script does.
Graded grade(const std::vector<Instance>& items, const std::vector<char>& in_shard, const Options& opt, Backend& db,
             SharedCache& cache, const Limits& pred_lim, const Limits& gold_lim) {
  Graded out;
  std::vector<exec::Item> work;
  for (size_t i = 0; i < items.size(); ++i) {
    const Instance& it = items[i];
    if (!it.has_pred || !in_shard[i]) continue;  // nothing to compare: the gold need not run
    out.pending.push_back(i);
    work.push_back({db.location(it.db_id), it.gold_sql, it.pred_sql});
  }
  const bool ves = opt.metric == Metric::Ves || opt.metric == Metric::RVes;
  exec::Steps<ExecResult, ExecResult, Checked> steps{
      [&](const exec::Item& w) { return db.execute(w.db, w.gold, gold_lim); },
      [&](const exec::Item& w) { return db.execute(w.db, w.pred, pred_lim); },
      [&](const exec::Item& w, const ExecResult& gr, const ExecResult& pr) {
        Checked o = check(opt.metric, gr, pr, pred_lim.timeout_s, opt.keep_rows);
        if (ves && o.outcome.match()) o = time_pair(std::move(o), db, w, opt, pred_lim, gold_lim);
        return o;
      }};
  Progress progress("bird " + std::string(metric_name(opt.metric)), work.size(), opt.progress);
  const uint64_t golds_before = cache.gold.executions();
  out.outcomes = exec::run(work, steps, cache.gold, resolve_jobs(opt.jobs), &progress,
                           ves ? nullptr : &cache.outcomes);
  progress.finish();
  out.gold_executions = cache.gold.executions() - golds_before;
  return out;
}

void warn_gold_failures(const std::vector<Instance>& items, const Limits& gold_lim, const Warn& warn) {
  const GoldFailures gf = gold_failures(items);
  if (gf.timeouts)
    warn("GOLD TIMEOUT: " + std::to_string(gf.timeouts) + " gold queries exceeded " +
         std::to_string(gold_lim.timeout_s) + " s; those questions score 0 whatever the prediction (mini_dev#43). "
         "Raise --gold_time_out to grade them.");
  if (gf.errors) warn("GOLD ERROR: " + std::to_string(gf.errors) + " gold queries failed; those questions score 0");
}

}  // namespace

// inputs (gold, predictions, questions) → paired instances → a pure check of each (exec::run, shared
// memos) → the run.
Run evaluate_with(const Options& opt, const std::function<void(const std::string&)>& warn_cb, SharedCache& cache) {
  const sql_clock::ClockScope clock(opt.now, "--now");  // every query of the run reads this clock
  auto t_start = Clock::now();
  Run rr;
  rr.opt = opt;
  rr.metric = opt.metric;
  rr.sql_dialect = opt.sql_dialect;
  rr.started_at = runs::utc_now_iso8601();
  const std::unique_ptr<Backend> backend = make_backend(opt);
  rr.engine = backend->engine();
  rr.engine_version = backend->engine_version();
  // Each warning is kept in the run and passed on as it is found.
  const Warn warn = [&](const std::string& w) {
    rr.warnings.push_back(w);
    if (warn_cb) warn_cb(w);
  };
  const Inputs in = read_inputs(opt, warn);
  if (in.files.original) rr.layout = Layout::Original;
  check_questions(in, warn);
  const Pairing pairing = pair_predictions(in, opt, warn);
  rr.pair_by_used = pairing.mode;
  rr.extra_preds = pairing.extra;
  rr.items = build_instances(in, pairing, opt, warn);
  check_databases(rr.items, in, *backend);
  assign_ids(rr.items);
  const std::vector<char> in_shard = shard_mask(rr.items, opt);
  const Limits pred_lim{opt.timeout_s, opt.max_rows, opt.max_result_bytes};
  const Limits gold_lim{opt.gold_timeout_s < 0 ? opt.timeout_s : opt.gold_timeout_s, opt.max_rows, opt.max_result_bytes};
  const Graded graded = grade(rr.items, in_shard, opt, *backend, cache, pred_lim, gold_lim);
  rr.gold_executions = graded.gold_executions;
  for (size_t k = 0; k < graded.pending.size(); ++k) apply(rr.items[graded.pending[k]], graded.outcomes[k]);
  warn_gold_failures(rr.items, gold_lim, warn);
  if (opt.shard_count > 0) {
    std::vector<Instance> kept;
    for (size_t i = 0; i < rr.items.size(); ++i)
      if (in_shard[i]) kept.push_back(std::move(rr.items[i]));
    rr.items = std::move(kept);
  }
  rr.wall_seconds = std::chrono::duration<double>(Clock::now() - t_start).count();
  return rr;
}

}  // namespace sqlgrade::bird
