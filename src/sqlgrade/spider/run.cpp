// Spider: the pass — reads and pairs the inputs (pairing.hpp), parses and matches every (system,
// example) slot, runs the execution check (check.hpp) and aggregates the official score table of each
// system. Printing is in report.cpp.
#include "sqlgrade/spider.hpp"

#include <chrono>
#include <optional>
#include <sstream>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/spider/aggregate.hpp"
#include "sqlgrade/spider/check.hpp"
#include "sqlgrade/spider/pairing.hpp"
#include "sqlgrade/spider/questions.hpp"
#include "sqlgrade/core/clock.hpp"

namespace sqlgrade::spider {

Etype parse_etype(const std::string& s) {
  if (s == "match") return Etype::Match;
  if (s == "exec") return Etype::Exec;
  if (s == "all") return Etype::All;
  throw InputError("--etype", "Unknown evaluation method '" + s + "' (match, exec, all)");
}

Compat parse_compat(const std::string& s) {
  if (s == "test-suite" || s == "testsuite") return Compat::TestSuite;
  if (s == "spider") return Compat::Spider;
  throw InputError("--compat", "unknown value '" + s + "' (spider, test-suite)");
}

Run evaluate(const Options& opt) {
  auto runs = evaluate_many(opt, {opt.pred});
  return std::move(runs[0]);
}

namespace {

// Every slot parsed and matched; the results go into the examples, and each run warns about the golds
// that do not parse.
std::vector<SlotParse> parse_step(const Options& opt, const PassMode& mode, const Databases& dbs,
                                  std::vector<Run>& runs, const Slots& slots) {
  std::vector<SlotParse> parses = parse_all(mode, dbs, runs, slots);
  for (size_t i = 0; i < slots.size(); ++i) apply(runs[slots[i].first].examples[slots[i].second], parses[i]);
  for (auto& run : runs)
    for (const auto& ex : run.examples)
      if (!ex.gold_ok)
        run.warnings.push_back(opt.gold + ":" + std::to_string(ex.gold_line) +
                               ": gold does not parse with the Spider grammar (" + ex.gold_error +
                               "); example left out (the official script aborts here)");
  return parses;
}

// The execution check of every slot (test-suite or original Spider, by mode.ts).
Executed execute_all(const Options& opt, const PassMode& mode, const std::vector<Run>& runs, const Slots& slots,
                     const std::vector<SlotParse>& parses, ResultShare* share) {
  Progress progress("spider exec", slots.size(), opt.progress_each ? 1 : opt.progress);
  Executed out = mode.ts ? exec_test_suite(opt, mode, runs, slots, share, progress)
                         : exec_spider(opt, mode, runs, slots, parses, share, progress);
  progress.finish();
  return out;
}

// Stores each slot's execution outcome in its example.
void apply_outcomes(std::vector<Run>& runs, const Slots& slots, const std::vector<SlotVerdict>& outcomes) {
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!outcomes[i]) continue;
    Example& ex = runs[slots[i].first].examples[slots[i].second];
    ex.exec_seconds = outcomes[i]->seconds;
    ex.exec = outcome_of(*outcomes[i]);
  }
}

// The warnings of one run's execution: failed golds, and how many predictions timed out.
std::vector<std::string> exec_warnings(const Options& opt, const Run& run) {
  std::vector<std::string> out;
  size_t n_timeout = 0;
  for (const auto& ex : run.examples) {
    if (!ex.exec) continue;
    if (ex.exec->stage == VerdictStage::GoldFailed)
      out.push_back(opt.gold + ":" + std::to_string(ex.gold_line) + ": gold query failed on its database (" +
                    ex.exec->detail + "); example scored 0 (the official script aborts here)");
    if (ex.exec->deadline_hit) ++n_timeout;
  }
  if (n_timeout) {
    // The official scripts have no working timeout (docs/spider-exec.md "Timeout"): they would have run
    // these to the end, so the printed number may be below theirs — say how to get it.
    std::ostringstream s;
    s << n_timeout << " prediction(s) hit the " << opt.timeout_s
      << " s timeout and scored 0 (the official scripts have no working timeout and run every query to the end: "
         "a larger --timeout reproduces their number)";
    out.push_back(s.str());
  }
  return out;
}

void add_counts(ExecCounts* to, const ExecCounts& c) {
  if (!to) return;
  to->spider += c.spider;
  to->test_suite += c.test_suite;
  to->lent += c.lent;
}

// inputs (gold + every prediction file) → slots (system, example) → parse and match each → execute
// each (a pure check per slot, memoised, on all cores: exec::run_each) → aggregate per system.
// share: the --compat both memo (the spider pass fills it, the test-suite pass borrows from it).
std::vector<Run> evaluate_pass(const Options& opt, const std::vector<std::string>& preds, ResultShare* share,
                               ExecCounts* counts) {
  const sql_clock::ClockScope clock(opt.now, "--now");  // every query of the pass reads this clock
  const double t_start = now_s();
  const PassMode mode = pass_mode(opt);
  const std::optional<Questions> texts = load_questions(opt);  // before grading: a bad file is exit 2 at once
  runs::shard_option(opt.shard_index, opt.shard_count, opt.shard_by);  // a bad shard: before anything runs
  std::vector<Run> runs = read_systems(opt, mode, preds, runs::utc_now_iso8601());
  const Slots slots = make_slots(runs);
  const Databases dbs = load_databases(opt, mode, runs);
  const std::vector<SlotParse> parses = parse_step(opt, mode, dbs, runs, slots);
  if (mode.do_exec) {
    const Executed done = execute_all(opt, mode, runs, slots, parses, share);
    add_counts(counts, done.counts);
    apply_outcomes(runs, slots, done.outcomes);
    for (auto& run : runs)
      for (std::string& w : exec_warnings(opt, run)) run.warnings.push_back(std::move(w));
  }
  attach_questions(texts, runs);
  const double wall = now_s() - t_start;
  for (auto& run : runs) {
    aggregate(run);
    run.wall_s = wall;
  }
  return runs;
}

}  // namespace

std::vector<Run> evaluate_many(const Options& opt, const std::vector<std::string>& preds, ExecCounts* counts) {
  return evaluate_pass(opt, preds, nullptr, counts);
}

// The spider pass first: it executes every distinct (database, SQL) it needs, strictly and whole; the
// test-suite pass then runs only what it cannot borrow (ResultShare's rules keep each verdict what the
// test-suite run alone gives).
BothModes evaluate_both(const Options& opt, const std::vector<std::string>& preds) {
  Options sp = opt, ts = opt;
  sp.compat = Compat::Spider;
  ts.compat = Compat::TestSuite;
  ResultShare share(strict_limits(sp));
  BothModes out;
  out.spider = evaluate_pass(sp, preds, &share, &out.counts);
  out.test_suite = evaluate_pass(ts, preds, &share, &out.counts);
  return out;
}

}  // namespace sqlgrade::spider
