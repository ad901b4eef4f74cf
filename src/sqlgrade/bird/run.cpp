// BIRD: the run — pairs predictions with gold questions, runs every query read-only on all cores through
// exec::run (gold results memoised per (database, gold SQL), outcomes per (database, gold, prediction)
// outside VES/R-VES) and applies the metric of compare.hpp to each pair.
#include "sqlgrade/bird/run.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/bird/backend.hpp"
#include "sqlgrade/bird/compare.hpp"
#include "sqlgrade/bird/inputs.hpp"
#include "sqlgrade/exec/runner.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/runs/result_rows.hpp"
#include "sqlgrade/py/equality.hpp"
#include "sqlgrade/py/number.hpp"

namespace sqlgrade::bird {

using json = nlohmann::ordered_json;

// ---------------------------------------------------------------- evaluation

namespace {

std::string join_path(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

std::string db_file(const std::string& root, const std::string& db_id) {
  return (fs::path(root) / db_id / (db_id + ".sqlite")).string();
}

std::string preview_list(const std::vector<std::string>& xs, size_t max = 10) {
  std::string out;
  for (size_t i = 0; i < xs.size() && i < max; ++i) out += (i ? ", " : "") + xs[i];
  if (xs.size() > max) out += ", ... (" + std::to_string(xs.size() - max) + " more)";
  return out;
}

std::optional<long long> int_key(const std::string& k) {
  auto v = py::parse_int(k);
  if (!v) return std::nullopt;
  return *v;
}

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

bool has_unhashable(const Table& t) {
  for (const Row& r : t.rows)
    for (const Value& v : r)
      if (v.kind == Kind::Unhashable) return true;
  return false;
}

std::string failure_status(const char* side, ExecStatus s) {
  return std::string(side) + (s == ExecStatus::Timeout ? "_timeout" : s == ExecStatus::TooLarge ? "_too_large" : "_error");
}

// The outcome of one pair of results: a failed gold, then a failed prediction, scores 0 with the engine's
// message; else EX (result sets equal) and the metric's score (VES/R-VES: left to the timing). The
// comparison gets what the prediction's deadline left: past it, a "pred_timeout" as for the query.
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

using Clock = std::chrono::steady_clock;

// VES / R-VES of a correct pair: alternate pred / gold `repeat` times; SQLite's timer covers the engine
// call (prepare + step to the end + row copy), i.e. execute + fetchall without connecting; a server's is
// the time the server reports (backend.hpp). A failure or the budget (meta_time_out x repeat) exceeded
// scores 0.
void time_pair(Outcome& o, Backend& db, const exec::Item& item, const Options& opt, const Limits& pred_lim,
               const Limits& gold_lim) {
  const int repeat = std::max(1, opt.repeat);
  std::vector<double> ratios;
  ratios.reserve(repeat);
  auto budget_end = Clock::now() + std::chrono::duration<double>(opt.meta_time_out > 0 ? opt.meta_time_out * repeat : 1e18);
  for (int r = 0; r < repeat; ++r) {
    ExecResult tp = db.timed(item.db, item.pred, pred_lim);
    ExecResult tg = db.timed(item.db, item.gold, gold_lim);
    if (!tp.ok() || !tg.ok()) {
      o.status = !tp.ok() ? "pred_timeout" : "gold_timeout";
      o.reason = "during timing: " + (!tp.ok() ? tp.error : tg.error);
      return;
    }
    ratios.push_back(tg.seconds / std::max(tp.seconds, 1e-9));
    if (Clock::now() > budget_end) {
      o.status = "pred_timeout";
      o.reason = "timing exceeded meta_time_out x repeat";
      return;
    }
  }
  o.time_ratio = filtered_time_ratio(ratios);
  o.score = opt.metric == Metric::Ves ? ves_score(o.time_ratio) : rves_score(rves_reward(o.time_ratio));
}

}  // namespace

GoldFailures gold_failures(const std::vector<Instance>& items) {
  GoldFailures f;
  for (const auto& it : items) {
    if (it.status == "gold_timeout") ++f.timeouts;
    else if (it.status == "gold_error" || it.status == "gold_too_large") ++f.errors;
  }
  return f;
}

// Shared by the systems of one evaluate_many call: each (database, gold SQL) runs once, and (not under
// VES/R-VES) each (database, gold, prediction) is checked once, by whichever system has it first.
struct SharedCache {
  exec::GoldMemo<ExecResult> gold;
  exec::VerdictMemo<Outcome> outcomes{MemoBounds{SIZE_MAX, 64u << 20}, [](const std::string& key, const Outcome& o) {
    return key.size() + sizeof(Outcome) + heap_bytes(o.status) + heap_bytes(o.reason) +
           heap_bytes(o.gold_first) + heap_bytes(o.pred_first) +
           exec::VerdictMemo<Outcome>::entry_bookkeeping();
  }};
};

Run evaluate(const Options& opt, const std::function<void(const std::string&)>& warn_cb) {
  SharedCache cache;
  return evaluate_with(opt, warn_cb, cache);
}

InputFiles input_files(const Options& opt) {
  InputFiles f{opt.predicted_sql_path, opt.ground_truth_path, false};
  std::error_code ec;
  f.original = !opt.data_mode.empty() || fs::is_directory(f.pred, ec);
  if (f.original) {
    std::string mode = opt.data_mode.empty() ? "dev" : opt.data_mode;
    if (fs::is_directory(f.pred, ec)) f.pred = join_path(f.pred, "predict_" + mode + ".json");
    if (fs::is_directory(f.gold, ec)) f.gold = join_path(f.gold, mode + "_gold.sql");
  }
  return f;
}

std::vector<Run> evaluate_many(const Options& opt, const std::vector<std::string>& preds,
                               const std::function<void(size_t, const std::string&)>& warn_cb) {
  SharedCache cache;
  std::vector<Run> out;
  for (size_t k = 0; k < preds.size(); ++k) {
    Options o = opt;
    o.predicted_sql_path = preds[k];
    out.push_back(evaluate_with(o, [&](const std::string& w) { if (warn_cb) warn_cb(k, w); }, cache));
  }
  return out;
}

namespace {

// One evaluate_with call: its options, the run it fills, its inputs and the warning sink (each warning
// is kept in the run and passed on as it is found).
struct Grading {
  const Options& opt;
  Run& rr;
  std::function<void(const std::string&)> warn;
  InputFiles files{};
  std::vector<GoldItem> gold{};
  PredFile preds{};
  std::vector<QuestionInfo> questions{};
  size_t n = 0;
  std::vector<int> pred_of{};    // gold index -> prediction entry index
  std::vector<char> in_shard{};  // per gold index
  Backend* backend = nullptr;    // where the queries run (--sql_dialect)
};

void read_inputs(Grading& g) {
  g.files = input_files(g.opt);
  if (g.files.original) g.rr.layout = Layout::Original;
  g.gold = load_gold(g.files.gold);
  g.preds = load_predictions(g.files.pred);
  if (!g.opt.diff_json_path.empty()) g.questions = load_questions(g.opt.diff_json_path);
  else g.warn("no --diff_json_path: every question counts in 'total' only (the official scripts require it)");
  g.n = g.gold.size();
}

// The question indices of every question_id of the difficulty file (aligned by position).
std::map<long long, std::vector<size_t>> questions_by_id(const Grading& g) {
  std::map<long long, std::vector<size_t>> by_qid;
  for (size_t i = 0; i < g.n && i < g.questions.size(); ++i)
    if (g.questions[i].question_id >= 0) by_qid[g.questions[i].question_id].push_back(i);
  return by_qid;
}

// Is the difficulty file consistent with the gold file?
void check_questions(Grading& g) {
  const size_t n = g.n, nq = g.questions.size();
  if (nq && nq != n)
    g.warn("the difficulty file has " + std::to_string(nq) + " entries but the gold file has " + std::to_string(n) +
           " questions; entries are matched by position" +
           (nq > n ? " (extra entries ignored)" : " (questions without an entry count in 'total' only)"));
  size_t no_diff = 0;
  std::vector<std::string> mism;
  for (size_t i = 0; i < n && i < nq; ++i) {
    const auto& q = g.questions[i];
    if (q.difficulty.empty()) ++no_diff;
    if (!q.db_id.empty() && q.db_id != g.gold[i].db_id) mism.push_back(std::to_string(i));
  }
  if (no_diff && nq)
    g.warn(std::to_string(no_diff) + " entries of the difficulty file have no 'difficulty'; they count in 'total' only");
  if (!mism.empty())
    g.warn("the difficulty file's db_id differs from the gold file's at " + std::to_string(mism.size()) +
           " positions (" + preview_list(mism) + "): are the files aligned?");
  for (auto& [qid, where] : questions_by_id(g)) {
    if (where.size() < 2) continue;
    std::vector<std::string> lines;
    for (size_t w : where) lines.push_back(std::to_string(g.gold[w].line));
    g.warn("DUPLICATE question_id " + std::to_string(qid) + " appears " + std::to_string(where.size()) +
           " times (gold lines " + preview_list(lines) + "); each occurrence is graded separately");
  }
}

// --pair-by auto: by index when every key is a gold index, else by question_id when every key is one.
PairBy choose_pairing(Grading& g) {
  if (g.opt.pair_by != PairBy::Auto) return g.opt.pair_by;
  bool all_index = !g.preds.entries.empty();
  for (auto& e : g.preds.entries) {
    auto k = int_key(e.key);
    if (!k || *k < 0 || static_cast<size_t>(*k) >= g.n) {
      all_index = false;
      break;
    }
  }
  if (all_index) return PairBy::Index;
  const auto by_qid = questions_by_id(g);
  bool all_qid = !by_qid.empty() && !g.preds.entries.empty();
  for (auto& e : g.preds.entries) {
    auto k = int_key(e.key);
    if (!k || !by_qid.count(*k)) {
      all_qid = false;
      break;
    }
  }
  if (all_qid) g.warn("prediction keys are question_ids of the difficulty file: pairing by question_id");
  return all_qid ? PairBy::QuestionId : PairBy::Index;
}

// Fills g.pred_of; returns the keys that match no question.
std::vector<std::string> pair_by_position(Grading& g) {
  std::vector<std::string> extra;
  size_t out_of_order = 0;
  for (size_t i = 0; i < g.preds.entries.size(); ++i) {
    if (i >= g.n) {
      extra.push_back(g.preds.entries[i].key);
      continue;
    }
    g.pred_of[i] = static_cast<int>(i);
    auto k = int_key(g.preds.entries[i].key);
    if (!k || *k != static_cast<long long>(i)) ++out_of_order;
  }
  if (out_of_order)
    g.warn("--pair-by position: " + std::to_string(out_of_order) +
           " keys do not equal their position in the file; predictions may be paired with the wrong questions "
           "(mini_dev#41)");
  return extra;
}

std::vector<std::string> pair_by_index(Grading& g) {
  std::vector<std::string> extra;
  for (size_t e = 0; e < g.preds.entries.size(); ++e) {
    auto k = int_key(g.preds.entries[e].key);
    // Out of range, or "5" after "05" (same index): not paired.
    if (!k || *k < 0 || static_cast<size_t>(*k) >= g.n || g.pred_of[*k] >= 0) extra.push_back(g.preds.entries[e].key);
    else g.pred_of[*k] = static_cast<int>(e);
  }
  return extra;
}

std::vector<std::string> pair_by_question_id(Grading& g) {
  const auto by_qid = questions_by_id(g);
  if (by_qid.empty())
    throw InputError(g.opt.diff_json_path.empty() ? "--diff_json_path" : g.opt.diff_json_path,
                     "--pair-by question_id needs a question file with question_id fields");
  std::vector<std::string> extra;
  for (size_t e = 0; e < g.preds.entries.size(); ++e) {
    auto k = int_key(g.preds.entries[e].key);
    auto it = k ? by_qid.find(*k) : by_qid.end();
    if (it == by_qid.end()) {
      extra.push_back(g.preds.entries[e].key);
      continue;
    }
    for (size_t gi : it->second)
      if (g.pred_of[gi] < 0) g.pred_of[gi] = static_cast<int>(e);
  }
  return extra;
}

void pair_predictions(Grading& g) {
  for (auto& [k, cnt] : g.preds.duplicate_keys)
    g.warn("DUPLICATE prediction key \"" + k + "\" appears " + std::to_string(cnt) + " times in " + g.files.pred +
           "; the last value is used (as Python's json module does)");
  const PairBy mode = choose_pairing(g);
  g.rr.pair_by_used = mode;
  g.pred_of.assign(g.n, -1);
  std::vector<std::string> extra = mode == PairBy::Position ? pair_by_position(g)
                                   : mode == PairBy::Index  ? pair_by_index(g)
                                                            : pair_by_question_id(g);
  g.rr.extra_preds = extra.size();
  if (!extra.empty())
    g.warn("EXTRA predictions: " + std::to_string(extra.size()) + " keys match no question and are ignored (" +
           preview_list(extra) + ")");
}

// The prediction problems found while building the instances (one warning each at the end).
struct PredProblems {
  std::vector<std::string> missing, not_string, no_sep, db_diff;
};

// In the original layout, a prediction naming another database runs (with its gold) there (quirk).
void use_prediction_db(const Grading& g, Instance& it, const std::string& pdb) {
  std::error_code ec;
  if (!is_plain_name(pdb)) {
    // "/x" would replace --db_root_path and "../x" climb out of it: a prediction never picks a
    // database outside the folder the user gave.
    it.has_pred = false;
    it.status = "pred_error";
    it.reason = "the prediction's database '" + pdb + "' is not a folder name inside --db_root_path";
  } else if (fs::is_regular_file(db_file(g.opt.db_root_path, pdb), ec)) {
    it.db_id = pdb;
  } else {
    it.has_pred = false;
    it.status = "pred_error";
    it.reason = "the prediction's database '" + pdb + "' does not exist";
  }
}

// The prediction of gold question i (its SQL, or why there is none).
void read_prediction(const Grading& g, size_t i, Instance& it, PredProblems& pp) {
  int e = g.pred_of[i];
  if (e < 0) {
    it.status = "no_prediction";
    it.reason = "no prediction for this question";
    pp.missing.push_back(std::to_string(i));
    return;
  }
  const PredEntry& pe = g.preds.entries[e];
  it.key = pe.key;
  if (!pe.is_string) {
    it.status = "not_a_string";
    it.reason = "prediction is a JSON " + pe.type_name + ", not a string";
    pp.not_string.push_back(pe.key);
    return;
  }
  bool sep = false;
  auto [sql, pdb] = split_prediction(pe.raw, &sep);
  if (!sep) pp.no_sep.push_back(pe.key);
  if (g.opt.answer_json) {
    auto ans = answer::json_answer(sql, answer::JsonAnswerRule::WholeFencedOrLastObject);
    if (!ans) {
      it.status = "no_answer";
      it.reason = "no {\"answer\": \"...\"} object in the model output";
      it.pred_sql = sql;
      return;
    }
    sql = *ans;
  }
  it.has_pred = true;
  it.pred_sql = sql;
  if (sep && pdb != g.gold[i].db_id) {
    pp.db_diff.push_back(pe.key);
    if (g.files.original) use_prediction_db(g, it, pdb);
  }
}

void build_instances(Grading& g) {
  g.rr.items.resize(g.n);
  PredProblems pp;
  for (size_t i = 0; i < g.n; ++i) {
    Instance& it = g.rr.items[i];
    it.index = i;
    it.gold_sql = g.gold[i].sql;
    it.db_id = g.gold[i].db_id;
    if (i < g.questions.size()) {
      it.difficulty = g.questions[i].difficulty;
      it.question = g.questions[i].question;
      it.question_id = g.questions[i].question_id;
    }
    read_prediction(g, i, it, pp);
  }
  if (!pp.missing.empty())
    g.warn("MISSING predictions: " + std::to_string(pp.missing.size()) + " of " + std::to_string(g.n) +
           " questions have none and score 0 (gold indices " + preview_list(pp.missing) + ")");
  if (!pp.not_string.empty())
    g.warn("NON-STRING predictions: " + std::to_string(pp.not_string.size()) +
           " values are not strings and score 0 (keys " + preview_list(pp.not_string) + ")");
  if (!pp.no_sep.empty())
    g.warn(std::to_string(pp.no_sep.size()) + " predictions lack exactly one '\\t----- bird -----\\t' separator; the "
           "whole string (stripped) is used as SQL (keys " + preview_list(pp.no_sep) + ")");
  if (!pp.db_diff.empty())
    g.warn(std::to_string(pp.db_diff.size()) + " predictions name a different db_id than their gold line (keys " +
           preview_list(pp.db_diff) + "); " +
           (g.files.original ? "the original BIRD script runs them on the prediction's database, as we do"
                             : "Mini-Dev uses the gold's database, as we do"));
}

// Databases must exist (the official scripts would silently create empty files).
void check_databases(const Grading& g) {
  std::set<std::string> dbs;
  for (auto& it : g.rr.items) dbs.insert(it.db_id);
  for (auto& d : dbs) {
    long line = 0;
    for (auto& gi : g.gold)
      if (gi.db_id == d) {
        line = gi.line;
        break;
      }
    g.backend->check_database(d, g.files.gold, line);
  }
}

// Instance ids (question_id, "#k" for its k-th occurrence; the index without one) and the shard.
void assign_ids(Grading& g) {
  std::map<long long, int> seen;
  for (auto& it : g.rr.items) {
    if (it.question_id >= 0) {
      int k = ++seen[it.question_id];
      it.id = std::to_string(it.question_id) + (k > 1 ? "#" + std::to_string(k) : "");
    } else {
      it.id = std::to_string(it.index);
    }
  }
  g.in_shard.assign(g.n, 1);
  if (const std::optional<runs::Shard> sh = runs::shard_option(g.opt.shard_index, g.opt.shard_count, g.opt.shard_by))
    for (size_t i = 0; i < g.n; ++i) g.in_shard[i] = runs::in_shard(*sh, g.rr.items[i].id, g.rr.items[i].db_id) ? 1 : 0;
}

// One pass over the questions that have a prediction, on all cores (exec::run): each a pure check of
// (database, gold, prediction). In the original layout the gold runs on the prediction's database, as
// the official script does.
void grade(Grading& g, SharedCache& cache, const Limits& pred_lim, const Limits& gold_lim) {
  const Options& opt = g.opt;
  Backend& db = *g.backend;
  std::vector<size_t> pending;
  std::vector<exec::Item> work;
  for (size_t i = 0; i < g.n; ++i) {
    const Instance& it = g.rr.items[i];
    if (!it.has_pred || !g.in_shard[i]) continue;  // nothing to compare: the gold need not run
    pending.push_back(i);
    work.push_back({db.location(it.db_id), it.gold_sql, it.pred_sql});
  }
  const bool ves = opt.metric == Metric::Ves || opt.metric == Metric::RVes;
  exec::Steps<ExecResult, ExecResult, Outcome> steps{
      [&](const exec::Item& w) { return db.execute(w.db, w.gold, gold_lim); },
      [&](const exec::Item& w) { return db.execute(w.db, w.pred, pred_lim); },
      [&](const exec::Item& w, const ExecResult& gr, const ExecResult& pr) {
        Outcome o = check(opt.metric, gr, pr, pred_lim.timeout_s, opt.keep_rows);
        if (ves && o.correct) time_pair(o, db, w, opt, pred_lim, gold_lim);
        return o;
      }};
  Progress progress("bird " + std::string(metric_name(opt.metric)), work.size(), opt.progress);
  const uint64_t golds_before = cache.gold.executions();
  std::vector<Outcome> outcomes = exec::run(work, steps, cache.gold, resolve_jobs(opt.num_cpus), &progress,
                                            ves ? nullptr : &cache.outcomes);
  progress.finish();
  g.rr.gold_executions = cache.gold.executions() - golds_before;
  for (size_t k = 0; k < pending.size(); ++k) apply(g.rr.items[pending[k]], outcomes[k]);
}

void warn_gold_failures(Grading& g, const Limits& gold_lim) {
  const GoldFailures gf = gold_failures(g.rr.items);
  if (gf.timeouts)
    g.warn("GOLD TIMEOUT: " + std::to_string(gf.timeouts) + " gold queries exceeded " +
           std::to_string(gold_lim.timeout_s) + " s; those questions score 0 whatever the prediction (mini_dev#43). "
           "Raise --gold_time_out to grade them.");
  if (gf.errors) g.warn("GOLD ERROR: " + std::to_string(gf.errors) + " gold queries failed; those questions score 0");
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
  Grading g{opt, rr, [&](const std::string& w) {
              rr.warnings.push_back(w);
              if (warn_cb) warn_cb(w);
            }};
  g.backend = backend.get();
  read_inputs(g);
  check_questions(g);
  pair_predictions(g);
  build_instances(g);
  check_databases(g);
  assign_ids(g);
  const Limits pred_lim{opt.meta_time_out, opt.max_rows, Limits{}.max_bytes};
  const Limits gold_lim{opt.gold_time_out < 0 ? opt.meta_time_out : opt.gold_time_out, opt.max_rows, Limits{}.max_bytes};
  grade(g, cache, pred_lim, gold_lim);
  warn_gold_failures(g, gold_lim);
  if (opt.shard_count > 0) {
    std::vector<Instance> kept;
    for (size_t i = 0; i < g.n; ++i)
      if (g.in_shard[i]) kept.push_back(std::move(rr.items[i]));
    rr.items = std::move(kept);
  }
  rr.wall_seconds = std::chrono::duration<double>(Clock::now() - t_start).count();
  return rr;
}

}  // namespace sqlgrade::bird
