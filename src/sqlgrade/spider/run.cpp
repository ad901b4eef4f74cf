// Spider: the run — reads the gold and prediction files (one per line, or SParC/CoSQL interactions),
// pairs them, parses and grades every example (exact set match, partial components, hardness), runs
// the execution check and aggregates the official score table. Printing is in report.cpp.
#include "sqlgrade/spider.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <unordered_map>

#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/exec/runner.hpp"
#include "sqlgrade/py/io.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/spider/aggregate.hpp"
#include "sqlgrade/spider/exact_match.hpp"
#include "sqlgrade/spider/exec_evaluator.hpp"
#include "sqlgrade/spider/hardness.hpp"
#include "sqlgrade/spider/parser.hpp"
#include "sqlgrade/spider/questions.hpp"
#include "sqlgrade/spider/rebuild.hpp"
#include "sqlgrade/spider/result_share.hpp"
#include "sqlgrade/spider/schema.hpp"
#include "sqlgrade/spider/sql_json.hpp"
#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/memo.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/runs/result_rows.hpp"

namespace sqlgrade::spider {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Line {
  long no;
  std::vector<std::string> fields;
};
// Blank-line separated groups (test-suite's reading: consecutive blank lines make empty groups,
// the last group is kept without a trailing blank line).
std::vector<std::vector<Line>> group_lines(const std::vector<std::string>& raw) {
  std::vector<std::vector<Line>> groups;
  std::vector<Line> cur;
  for (size_t i = 0; i < raw.size(); ++i) {
    std::string s = py::strip(raw[i]);
    if (s.empty()) {
      groups.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back({static_cast<long>(i + 1), split(s, "\t")});
    }
  }
  if (!cur.empty()) groups.push_back(std::move(cur));
  return groups;
}

std::string replace_value(std::string s) { return replace_all(std::move(s), "value", "1"); }

// The gold of one question, parsed (and rebuilt when needed) once for every system.
struct GoldParse {
  std::shared_ptr<const Sql> sql;  // null when the gold does not parse
  bool ok = true;
  std::string error;
  Hardness hardness = Hardness::Easy;  // set before the shape check, as evaluation.py does
  double seconds = 0;
};

struct Parsed {
  std::shared_ptr<const Sql> gold;  // shared by the systems' examples of one question
  std::shared_ptr<const Sql> pred;  // shared by the examples of one question with the same prediction
};


// One prediction file being paired with the gold: the run it fills and how it adds examples.
struct Pairing {
  Run& run;
  bool ts;

  std::string pred_text(const Line& l) {
    if (l.fields.size() > 2)
      run.warnings.push_back(run.opt.pred + ":" + std::to_string(l.no) +
                             ": TAB inside the prediction; only the text before the first TAB is used (as the official scripts do)");
    return l.fields[0];
  }

  void add(size_t inter, size_t turn, const Line& g, const Line* p, bool blank_pred, long pline) {
    Example ex;
    ex.index = run.examples.size();
    ex.interaction = inter;
    ex.turn = turn;
    ex.gold_line = g.no;
    ex.gold_sql = g.fields[0];
    ex.db_id = g.fields[1];
    if (p) {
      ex.pred_line = p->no;
      ex.pred_sql = pred_text(*p);
    } else {
      ex.has_pred = false;
      ex.pred_line = pline;
      if (blank_pred)
        run.warnings.push_back(run.opt.pred + ":" + std::to_string(pline) +
                               ": blank prediction line; scored 0 (never shifts later lines)");
    }
    if (ts) ex.pred_sql = replace_value(ex.pred_sql);  // test-suite quirk: applied before match AND exec
    run.examples.push_back(std::move(ex));
  }

  // One example per line: pair by physical line so that a blank or missing prediction never shifts
  // the rest.
  void by_line(const std::vector<Line>& gl, std::vector<std::string> plines) {
    const std::string& pred = run.opt.pred;
    while (!plines.empty() && py::strip(plines.back()).empty()) plines.pop_back();
    for (size_t k = 0; k < gl.size(); ++k) {
      if (k >= plines.size()) {
        add(0, k, gl[k], nullptr, false, 0);
        continue;
      }
      std::string s = py::strip(plines[k]);
      if (s.empty()) {
        add(0, k, gl[k], nullptr, true, static_cast<long>(k + 1));
      } else {
        Line pl{static_cast<long>(k + 1), split(s, "\t")};
        add(0, k, gl[k], &pl, false, pl.no);
      }
    }
    if (plines.size() < gl.size())
      run.warnings.push_back(pred + ": " + std::to_string(plines.size()) + " prediction line(s) for " +
                             std::to_string(gl.size()) + " gold examples; the missing ones score 0");
    else if (plines.size() > gl.size()) {
      run.extra_preds = plines.size() - gl.size();
      run.warnings.push_back(pred + ": " + std::to_string(plines.size() - gl.size()) +
                             " extra prediction line(s) after the last gold example ignored");
    }
  }

  // SParC/CoSQL: blank-line separated interactions, paired turn by turn.
  void by_interaction(const std::vector<std::vector<Line>>& ggroups, const std::vector<std::string>& praw) {
    const Options& opt = run.opt;
    auto pgroups = group_lines(praw);
    while (pgroups.size() > ggroups.size() && pgroups.back().empty()) pgroups.pop_back();
    if (pgroups.size() != ggroups.size())
      throw InputError(opt.pred, std::to_string(pgroups.size()) + " interactions (blank-line separated) but " + opt.gold +
                                     " has " + std::to_string(ggroups.size()));
    for (size_t i = 0; i < ggroups.size(); ++i) {
      const auto& g = ggroups[i];
      const auto& p = pgroups[i];
      for (size_t t = 0; t < g.size(); ++t) {
        if (t < p.size()) add(i, t, g[t], &p[t], false, p[t].no);
        else add(i, t, g[t], nullptr, false, 0);
      }
      if (p.size() < g.size())
        run.warnings.push_back(opt.pred + ": interaction " + std::to_string(i + 1) + " has " + std::to_string(p.size()) +
                               " prediction(s) for " + std::to_string(g.size()) + " gold turns; the missing ones score 0");
      else if (p.size() > g.size()) {
        run.extra_preds += p.size() - g.size();
        run.warnings.push_back(opt.pred + ": interaction " + std::to_string(i + 1) + ": " +
                               std::to_string(p.size() - g.size()) + " extra prediction(s) ignored");
      }
    }
  }
};

// Reads run.opt.pred and pairs it with the gold groups; then keeps the examples of run.opt's shard.
void read_and_pair(Run& run, const std::vector<std::vector<Line>>& ggroups, bool gbom) {
  const Options& opt = run.opt;
  bool pbom = false;
  auto praw = py::read_lines_universal(opt.pred, &pbom);
  if (gbom) run.warnings.push_back(opt.gold + ": UTF-8 BOM removed");
  if (pbom) run.warnings.push_back(opt.pred + ": UTF-8 BOM removed (the official script would fail line 1)");
  Pairing pairing{run, opt.compat == Compat::TestSuite};
  if (ggroups.size() > 1) pairing.by_interaction(ggroups, praw);
  else pairing.by_line(ggroups.empty() ? std::vector<Line>{} : ggroups[0], std::move(praw));
  if (opt.shard_count > 0) {
    const runs::Shard sh = *runs::shard_option(opt.shard_index, opt.shard_count, opt.shard_by);
    std::vector<Example> kept;
    for (auto& ex : run.examples)
      if (runs::in_shard(sh, std::to_string(ex.index), ex.db_id)) kept.push_back(std::move(ex));
    run.examples = std::move(kept);
  }
}

}  // namespace

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

// What the phases of one evaluate_many call share: the options, every system's run, the databases,
// and the slots — one per (system, example), the unit that is parsed, matched and executed.
struct Batch {
  const Options& opt;
  bool ts, do_match, do_exec, need_table;
  unsigned jobs;
  std::vector<Run> runs;
  std::unordered_map<std::string, std::shared_ptr<DbInfo>> dbs;
  std::vector<std::pair<size_t, size_t>> slots;  // (system, example)
  std::vector<Parsed> parsed;                    // per slot
  std::optional<Questions> texts;                // question texts for the records (--questions, dev.json)
  ResultShare* share = nullptr;                  // --compat both: the spider pass's results (else its own)
  ExecCounts* counts = nullptr;                  // statements executed / lent, when asked
  Example& at(size_t s) { return runs[slots[s].first].examples[slots[s].second]; }
  std::string db_path(const std::string& db_id) const {
    return (fs::path(opt.db_dir) / db_id / (db_id + ".sqlite")).string();
  }
};

Batch make_batch(const Options& opt) {
  const bool ts = opt.compat == Compat::TestSuite;
  const bool do_match = opt.etype != Etype::Exec;
  // The original Spider exec metric compares rebuilt structures, which need the foreign keys.
  const bool need_table = do_match || !ts;
  if (need_table && opt.table.empty()) throw InputError("", "--table is required for this --etype/--compat");
  const std::optional<Questions> texts = load_questions(opt);  // before grading: a bad file is exit 2 at once
  runs::shard_option(opt.shard_index, opt.shard_count, opt.shard_by);  // a bad shard: before anything runs
  return Batch{opt, ts, do_match, opt.etype != Etype::Match, need_table, resolve_jobs(opt.jobs), {}, {}, {}, {}, texts};
}

// Reads the gold once and pairs every prediction file with it: one Run per system, then the slots.
void read_systems(Batch& b, const std::vector<std::string>& preds, const std::string& started_at) {
  bool gbom = false;
  auto graw = py::read_lines_universal(b.opt.gold, &gbom);
  auto ggroups = group_lines(graw);
  for (auto& g : ggroups)
    for (auto& l : g)
      if (l.fields.size() != 2)
        throw InputError(b.opt.gold, "expected `SQL<TAB>db_id` (" + std::to_string(l.fields.size()) + " field(s))", l.no);
  b.runs.resize(preds.size());
  for (size_t k = 0; k < preds.size(); ++k) {
    Run& run = b.runs[k];
    run.opt = b.opt;
    run.opt.pred = preds[k];
    run.started_at = started_at;
    run.n_interactions = b.ts ? ggroups.size() : 1;
    if (b.ts) run.scores.include_turn = ggroups.size() > 1;
    read_and_pair(run, ggroups, gbom);
  }
  for (size_t k = 0; k < b.runs.size(); ++k)
    for (size_t i = 0; i < b.runs[k].examples.size(); ++i) b.slots.emplace_back(k, i);
}

// The schema of every database the gold names (once for all systems).
void load_databases(Batch& b) {
  std::unordered_map<std::string, nlohmann::json> tables;
  if (!b.opt.table.empty() && b.need_table) tables = load_tables_json(b.opt.table);
  for (const auto& run : b.runs)
    for (const auto& ex : run.examples) {
      if (b.dbs.count(ex.db_id)) continue;
      if (!is_plain_name(ex.db_id))
        throw InputError(b.opt.gold, "db_id '" + ex.db_id + "' is not a folder name inside --db", ex.gold_line);
      std::string path = b.db_path(ex.db_id);
      std::error_code ec;
      if (!fs::is_regular_file(path, ec))
        throw InputError(b.opt.gold, "database " + path + " not found for db_id '" + ex.db_id + "'", ex.gold_line);
      const nlohmann::json* entry = nullptr;
      if (b.need_table) {
        auto it = tables.find(ex.db_id);
        if (it == tables.end()) throw InputError(b.opt.table, "no entry for db_id '" + ex.db_id + "'");
        entry = &it->second;
      }
      b.dbs.emplace(ex.db_id, make_db_info(ex.db_id, read_sqlite_catalogue(path), entry));
    }
}

// Every system pairs the same gold questions in the same order (read_and_pair), so a question's gold
// is parsed and rebuilt once, then shared by the slots of all systems.
GoldParse parse_gold(const Batch& b, const Example& ex) {
  const DbInfo& db = *b.dbs.at(ex.db_id);
  double a = now_s();
  GoldParse gp;
  std::unique_ptr<Sql> g;
  try {
    g = parse_sql(db.schema, ex.gold_sql, ParseOptions{b.ts});
    gp.hardness = hardness(*g);
    if (b.do_match || !b.ts) check_condition_shape(*g);
  } catch (const ParseError& e) {
    gp.ok = false;
    gp.error = e.what();
    return gp;
  }
  if (b.do_match || !b.ts) rebuild_sql(*g, db);
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

PredParse parse_and_match(const Batch& b, const Example& ex, const GoldParse& gp) {
  const DbInfo& db = *b.dbs.at(ex.db_id);
  double a = now_s();
  PredParse pp;
  std::unique_ptr<Sql> pred;
  try {
    if (!ex.has_pred) throw ParseError("no prediction");
    pred = parse_sql(db.schema, ex.pred_sql, ParseOptions{b.ts});
    if (b.do_match || !b.ts) check_condition_shape(*pred);
    pp.parsed = true;
  } catch (const ParseError& e) {
    pred = empty_sql();
    pp.error = e.what();
  }
  if (b.do_match || !b.ts) rebuild_sql(*pred, db);
  if (b.do_match) pp.exact = exact_match(*pred, *gp.sql, db, &pp.partial);
  pp.sql = std::move(pred);
  pp.seconds = now_s() - a;
  return pp;
}

// One slot: its prediction parsed and exact-matched (memoised per question and prediction).
Parsed parse_slot(const Batch& b, Example& ex, size_t question, const GoldParse& gp, Memo<std::string, PredParse>& memo) {
  ex.hardness = gp.hardness;
  Parsed ps;
  if (!gp.ok) {
    ex.gold_ok = false;
    ex.gold_error = gp.error;
    return ps;
  }
  ps.gold = gp.sql;
  std::string key = std::to_string(question) + (ex.has_pred ? "\n+" : "\n-") + ex.pred_sql;
  auto pp = memo.get(key, [&] { return parse_and_match(b, ex, gp); });
  ps.pred = pp->sql;
  ex.pred_parsed = pp->parsed;
  ex.parse_error = pp->error;
  ex.exact = pp->exact;
  ex.partial = pp->partial;
  ex.parse_seconds = gp.seconds + pp->seconds;
  return ps;
}

void parse_all(Batch& b) {
  const std::vector<Example> none;
  const std::vector<Example>& questions = b.runs.empty() ? none : b.runs[0].examples;
  auto golds = exec::run_each<GoldParse>(questions.size(), b.jobs, nullptr,
                                         [&](size_t q) { return parse_gold(b, questions[q]); });
  Memo<std::string, PredParse> preds;
  b.parsed = exec::run_each<Parsed>(b.slots.size(), b.jobs, nullptr, [&](size_t i) {
    const size_t q = b.slots[i].second;
    return parse_slot(b, b.at(i), q, golds[q], preds);
  });
  for (auto& run : b.runs)
    for (const auto& ex : run.examples)
      if (!ex.gold_ok)
        run.warnings.push_back(b.opt.gold + ":" + std::to_string(ex.gold_line) +
                               ": gold does not parse with the Spider grammar (" + ex.gold_error +
                               "); example left out (the official script aborts here)");
}

// The outcome of one slot's execution check; nullopt when the example is left out (gold unparsed).
using Outcome = std::optional<ExecVerdict>;

Outcome no_prediction() {
  ExecVerdict v;
  v.reason = "no prediction";
  return v;
}

// Test-suite exec (ExecEvaluator): a verdict depends only on (db, gold, prediction), so each distinct
// triple is checked once (exec::VerdictMemo, single flight), however many examples or systems share
// it. pred_sql already has test-suite's `value` → `1` replacement (spec §2.1): the suite applies it
// once, before both match and exec; the evaluator receives the replaced text.
std::vector<Outcome> exec_test_suite(Batch& b, Progress& progress) {
  ExecOptions eo;
  eo.plug_value = b.opt.plug_value;
  eo.keep_distinct = b.opt.keep_distinct;
  eo.timeout_s = b.opt.timeout_s;
  eo.compat = Compat::TestSuite;
  eo.keep_rows = b.opt.keep_rows;
  if (const ResultShare* share = b.share)
    eo.lend = [share](const std::string& path, const std::string& sql, const Limits& lim) { return share->lend(path, sql, lim); };
  ExecEvaluator ev(b.opt.db_dir, eo);
  exec::VerdictMemo<ExecVerdict> verdicts;
  auto out = exec::run_each<Outcome>(b.slots.size(), b.jobs, &progress, [&](size_t i) -> Outcome {
    const Example& ex = b.at(i);
    if (!ex.gold_ok) return std::nullopt;
    if (!ex.has_pred) return no_prediction();
    return *verdicts.get(exec::verdict_key(ex.db_id, ex.gold_sql, ex.pred_sql),
                         [&] { return ev.evaluate({ex.db_id, ex.gold_sql, ex.pred_sql}); });
  });
  if (b.counts) {
    b.counts->test_suite += ev.counts().executed;
    b.counts->lent += ev.counts().lent;
  }
  return out;
}

// The limits of the original Spider pass (every row up to the engine's caps, the --timeout deadline).
Limits strict_limits(const Options& opt) {
  Limits lim;
  lim.timeout_s = opt.timeout_s;
  return lim;
}

// Original Spider exec (spec §1.14): one DB file, default text factory (invalid UTF-8 is an error),
// result columns keyed by the parsed select items. Every distinct (database, SQL) runs once: gold and
// prediction results share one memo across all systems (a prediction equal to its gold, a gold shared
// by several examples, or one prediction of several systems, is executed a single time), bounded by
// bytes so that large results are not all kept (ResultShare: with --compat both, the test-suite pass
// borrows from the same memo afterwards).
class SpiderExec {
 public:
  SpiderExec(const Batch& b, ResultShare& share) : b_(b), lim_(strict_limits(b.opt)), results_(share) {
    so_.text_decode = SqliteOptions::TextDecode::Error;
  }

  Outcome check(const Example& ex, const Parsed& ps) {
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
    std::string path = b_.db_path(ex.db_id);
    auto pr = result(path, ex.pred_sql);
    auto gr = result(path, ex.gold_sql);
    if (b_.opt.keep_rows) {  // what the record's drill-down shows
      if (gr->ok()) v.gold_rows = runs::first_rows(gr->table);
      if (pr->ok()) v.pred_rows = runs::first_rows(pr->table);
    }
    if (!pr->ok()) {
      v.timeout = pr->status == ExecStatus::Timeout;
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

  const Batch& b_;
  SqliteOptions so_;
  Limits lim_;
  ResultShare& results_;
};

// Runs the execution check of every slot and stores the outcomes in the examples.
void execute_all(Batch& b) {
  Progress progress("spider exec", b.slots.size(), b.opt.progress_each ? 1 : b.opt.progress);
  std::vector<Outcome> outcomes;
  if (b.ts) {
    outcomes = exec_test_suite(b, progress);
  } else {
    ResultShare own(strict_limits(b.opt));
    ResultShare& share = b.share ? *b.share : own;
    const uint64_t before = share.executed();
    SpiderExec sx(b, share);
    outcomes = exec::run_each<Outcome>(b.slots.size(), b.jobs, &progress,
                                       [&](size_t i) { return sx.check(b.at(i), b.parsed[i]); });
    if (b.counts) b.counts->spider += share.executed() - before;
  }
  progress.finish();
  for (size_t i = 0; i < b.slots.size(); ++i) {
    if (!outcomes[i]) continue;
    const ExecVerdict& v = *outcomes[i];
    Example& ex = b.at(i);
    ex.exec = v.score;
    ex.exec_reason = v.reason;
    ex.exec_timeout = v.timeout;
    ex.exec_gold_error = v.gold_error;
    ex.exec_seconds = v.seconds;
    ex.gold_rows = v.gold_rows;
    ex.pred_rows = v.pred_rows;
  }
}

void warn_exec(Batch& b) {
  for (auto& run : b.runs) {
    size_t n_timeout = 0;
    for (const auto& ex : run.examples) {
      if (ex.exec_gold_error)
        run.warnings.push_back(b.opt.gold + ":" + std::to_string(ex.gold_line) + ": gold query failed on its database (" +
                               ex.exec_reason + "); example scored 0 (the official script aborts here)");
      if (ex.exec_timeout) ++n_timeout;
    }
    if (n_timeout)
      run.warnings.push_back(std::to_string(n_timeout) + " prediction(s) hit the " + std::to_string(b.opt.timeout_s) +
                             " s timeout and scored 0");
  }
}


// inputs (gold + every prediction file) → slots (system, example) → parse and match each → execute
// each (a pure check per slot, memoised, on all cores: exec::run_each) → aggregate per system.
// share: the --compat both memo (the spider pass fills it, the test-suite pass borrows from it).
std::vector<Run> evaluate_pass(const Options& opt, const std::vector<std::string>& preds, ResultShare* share,
                               ExecCounts* counts) {
  const sql_clock::ClockScope clock(opt.now, "--now");  // every query of the pass reads this clock
  const double t_start = now_s();
  Batch b = make_batch(opt);
  b.share = share;
  b.counts = counts;
  read_systems(b, preds, runs::utc_now_iso8601());
  load_databases(b);
  parse_all(b);
  if (b.do_exec) {
    execute_all(b);
    warn_exec(b);
  }
  attach_questions(b.texts, b.runs);
  const double wall = now_s() - t_start;
  for (auto& run : b.runs) {
    aggregate(run);
    run.wall_s = wall;
  }
  return std::move(b.runs);
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
