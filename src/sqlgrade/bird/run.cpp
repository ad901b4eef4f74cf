// BIRD: the run — pairs predictions with gold questions, runs every query read-only on all cores through
// exec::run (gold results memoised per (database, gold SQL), outcomes per (database, gold, prediction)
// outside VES/R-VES) and applies the metric of compare.hpp to each pair.
#include "sqlgrade/bird/run.hpp"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/bird/compare.hpp"
#include "sqlgrade/bird/inputs.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/exec/runner.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/core/text.hpp"

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
  auto v = parse_int(k);
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

std::string failure_status(const char* side, ExecStatus s) {
  return std::string(side) + (s == ExecStatus::Timeout ? "_timeout" : s == ExecStatus::TooLarge ? "_too_large" : "_error");
}

// The outcome of one pair of results: a failed gold, then a failed prediction, scores 0 with the engine's
// message; else EX (result sets equal) and the metric's score (VES/R-VES: left to the timing). The
// comparison gets what the prediction's deadline left: past it, a "pred_timeout" as for the query.
Outcome check(Metric m, const ExecResult& g, const ExecResult& p, double pred_timeout_s, bool keep_rows) {
  Outcome o;
  if (keep_rows && g.ok()) o.gold_first = first_rows(g.table);
  if (keep_rows && p.ok()) o.pred_first = first_rows(p.table);
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

// VES / R-VES of a correct pair: alternate pred / gold `repeat` times on this thread's connection; the
// timer covers the engine call (prepare + step to the end + row copy), i.e. execute + fetchall without
// connecting. A failure or the budget (meta_time_out x repeat) exceeded scores 0.
void time_pair(Outcome& o, SqliteDb& db, const exec::Item& item, const Options& opt, const Limits& pred_lim,
               const Limits& gold_lim) {
  const int repeat = std::max(1, opt.repeat);
  std::vector<double> ratios;
  ratios.reserve(repeat);
  auto budget_end = Clock::now() + std::chrono::duration<double>(opt.meta_time_out > 0 ? opt.meta_time_out * repeat : 1e18);
  for (int r = 0; r < repeat; ++r) {
    ExecResult tp = db.execute(item.pred, pred_lim);
    ExecResult tg = db.execute(item.gold, gold_lim);
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

Run evaluate_with(const Options& opt, const std::function<void(const std::string&)>& warn_cb, SharedCache& cache) {
  auto t_start = Clock::now();
  Run rr;
  rr.opt = opt;
  rr.metric = opt.metric;
  rr.sql_dialect = opt.sql_dialect;
  rr.engine_version = sqlite3_libversion();
  rr.started_at = runs::utc_now_iso8601();
  auto warn = [&](const std::string& w) {
    rr.warnings.push_back(w);
    if (warn_cb) warn_cb(w);
  };
  if (opt.sql_dialect != "SQLite")
    throw InputError("--sql_dialect", "only SQLite is supported (MySQL/PostgreSQL need a server; the official "
                                      "scripts use hard-coded localhost credentials)");

  // Resolve the layout and file names.
  const InputFiles files = input_files(opt);
  const std::string& pred_path = files.pred;
  const std::string& gold_path = files.gold;
  const bool original = files.original;
  if (original) rr.layout = Layout::Original;
  std::error_code ec;

  std::vector<GoldItem> gold = load_gold(gold_path);
  PredFile preds = load_predictions(pred_path);
  std::vector<QuestionInfo> questions;
  if (!opt.diff_json_path.empty()) {
    questions = load_questions(opt.diff_json_path);
  } else {
    warn("no --diff_json_path: every question counts in 'total' only (the official scripts require it)");
  }
  const size_t n = gold.size();

  // ---- difficulty file consistency
  if (!questions.empty() && questions.size() != n)
    warn("the difficulty file has " + std::to_string(questions.size()) + " entries but the gold file has " +
         std::to_string(n) + " questions; entries are matched by position" +
         (questions.size() > n ? " (extra entries ignored)" : " (questions without an entry count in 'total' only)"));
  {
    size_t no_diff = 0, db_mismatch = 0;
    std::vector<std::string> mism;
    for (size_t i = 0; i < n && i < questions.size(); ++i) {
      const auto& q = questions[i];
      if (q.difficulty.empty()) ++no_diff;
      if (!q.db_id.empty() && q.db_id != gold[i].db_id) {
        ++db_mismatch;
        mism.push_back(std::to_string(i));
      }
    }
    if (no_diff && !questions.empty())
      warn(std::to_string(no_diff) + " entries of the difficulty file have no 'difficulty'; they count in 'total' only");
    if (db_mismatch)
      warn("the difficulty file's db_id differs from the gold file's at " + std::to_string(db_mismatch) +
           " positions (" + preview_list(mism) + "): are the files aligned?");
    std::map<long long, std::vector<size_t>> by_qid;
    for (size_t i = 0; i < n && i < questions.size(); ++i)
      if (questions[i].question_id >= 0) by_qid[questions[i].question_id].push_back(i);
    for (auto& [qid, where] : by_qid) {
      if (where.size() < 2) continue;
      std::vector<std::string> lines;
      for (size_t w : where) lines.push_back(std::to_string(gold[w].line));
      warn("DUPLICATE question_id " + std::to_string(qid) + " appears " + std::to_string(where.size()) +
           " times (gold lines " + preview_list(lines) + "); each occurrence is graded separately");
    }
  }

  // ---- pairing
  for (auto& [k, cnt] : preds.duplicate_keys)
    warn("DUPLICATE prediction key \"" + k + "\" appears " + std::to_string(cnt) + " times in " + pred_path +
         "; the last value is used (as Python's json module does)");

  PairBy mode = opt.pair_by;
  if (mode == PairBy::Auto) {
    bool all_index = !preds.entries.empty();
    for (auto& e : preds.entries) {
      auto k = int_key(e.key);
      if (!k || *k < 0 || static_cast<size_t>(*k) >= n) {
        all_index = false;
        break;
      }
    }
    if (all_index) {
      mode = PairBy::Index;
    } else {
      std::set<long long> qids;
      for (size_t i = 0; i < n && i < questions.size(); ++i)
        if (questions[i].question_id >= 0) qids.insert(questions[i].question_id);
      bool all_qid = !qids.empty() && !preds.entries.empty();
      for (auto& e : preds.entries) {
        auto k = int_key(e.key);
        if (!k || !qids.count(*k)) {
          all_qid = false;
          break;
        }
      }
      mode = all_qid ? PairBy::QuestionId : PairBy::Index;
      if (all_qid) warn("prediction keys are question_ids of the difficulty file: pairing by question_id");
    }
  }
  rr.pair_by_used = mode;

  std::vector<int> pred_of(n, -1);  // gold index -> entry index
  std::vector<std::string> extra;
  if (mode == PairBy::Position) {
    for (size_t i = 0; i < preds.entries.size(); ++i) {
      if (i < n) pred_of[i] = static_cast<int>(i);
      else extra.push_back(preds.entries[i].key);
    }
    size_t out_of_order = 0;
    for (size_t i = 0; i < preds.entries.size() && i < n; ++i) {
      auto k = int_key(preds.entries[i].key);
      if (!k || *k != static_cast<long long>(i)) ++out_of_order;
    }
    if (out_of_order)
      warn("--pair-by position: " + std::to_string(out_of_order) +
           " keys do not equal their position in the file; predictions may be paired with the wrong questions "
           "(mini_dev#41)");
  } else if (mode == PairBy::Index) {
    for (size_t e = 0; e < preds.entries.size(); ++e) {
      auto k = int_key(preds.entries[e].key);
      if (!k || *k < 0 || static_cast<size_t>(*k) >= n) {
        extra.push_back(preds.entries[e].key);
        continue;
      }
      if (pred_of[*k] >= 0) {  // "5" and "05": same index
        extra.push_back(preds.entries[e].key);
        continue;
      }
      pred_of[*k] = static_cast<int>(e);
    }
  } else {  // QuestionId
    std::map<long long, std::vector<size_t>> by_qid;
    for (size_t i = 0; i < n && i < questions.size(); ++i)
      if (questions[i].question_id >= 0) by_qid[questions[i].question_id].push_back(i);
    if (by_qid.empty())
      throw InputError(opt.diff_json_path.empty() ? "--diff_json_path" : opt.diff_json_path,
                       "--pair-by question_id needs a question file with question_id fields");
    for (size_t e = 0; e < preds.entries.size(); ++e) {
      auto k = int_key(preds.entries[e].key);
      auto it = k ? by_qid.find(*k) : by_qid.end();
      if (it == by_qid.end()) {
        extra.push_back(preds.entries[e].key);
        continue;
      }
      for (size_t gi : it->second)
        if (pred_of[gi] < 0) pred_of[gi] = static_cast<int>(e);
    }
  }
  if (!extra.empty())
    warn("EXTRA predictions: " + std::to_string(extra.size()) + " keys match no question and are ignored (" +
         preview_list(extra) + ")");

  // ---- build instances
  rr.items.resize(n);
  std::vector<std::string> missing, not_string, no_sep, db_diff;
  for (size_t i = 0; i < n; ++i) {
    Instance& it = rr.items[i];
    it.index = i;
    it.gold_sql = gold[i].sql;
    it.db_id = gold[i].db_id;
    if (i < questions.size()) {
      it.difficulty = questions[i].difficulty;
      it.question = questions[i].question;
      it.question_id = questions[i].question_id;
    }
    int e = pred_of[i];
    if (e < 0) {
      it.status = "no_prediction";
      it.reason = "no prediction for this question";
      missing.push_back(std::to_string(i));
      continue;
    }
    const PredEntry& pe = preds.entries[e];
    it.key = pe.key;
    if (!pe.is_string) {
      it.status = "not_a_string";
      it.reason = "prediction is a JSON " + pe.type_name + ", not a string";
      not_string.push_back(pe.key);
      continue;
    }
    bool sep = false;
    auto [sql, pdb] = split_prediction(pe.raw, &sep);
    if (!sep) no_sep.push_back(pe.key);
    if (opt.answer_json) {
      auto ans = answer::json_answer(sql, answer::JsonAnswerRule::WholeFencedOrLastObject);
      if (!ans) {
        it.status = "no_answer";
        it.reason = "no {\"answer\": \"...\"} object in the model output";
        it.pred_sql = sql;
        continue;
      }
      sql = *ans;
    }
    it.has_pred = true;
    it.pred_sql = sql;
    if (sep && pdb != gold[i].db_id) {
      db_diff.push_back(pe.key);
      if (original) {  // original BIRD runs pred AND gold on the prediction's database (quirk)
        if (!is_plain_name(pdb)) {
          // "/x" would replace --db_root_path and "../x" climb out of it: a prediction never picks a
          // database outside the folder the user gave.
          it.has_pred = false;
          it.status = "pred_error";
          it.reason = "the prediction's database '" + pdb + "' is not a folder name inside --db_root_path";
        } else if (fs::is_regular_file(db_file(opt.db_root_path, pdb), ec)) {
          it.db_id = pdb;
        } else {
          it.has_pred = false;
          it.status = "pred_error";
          it.reason = "the prediction's database '" + pdb + "' does not exist";
        }
      }
    }
  }
  if (!missing.empty())
    warn("MISSING predictions: " + std::to_string(missing.size()) + " of " + std::to_string(n) +
         " questions have none and score 0 (gold indices " + preview_list(missing) + ")");
  if (!not_string.empty())
    warn("NON-STRING predictions: " + std::to_string(not_string.size()) + " values are not strings and score 0 (keys " +
         preview_list(not_string) + ")");
  if (!no_sep.empty())
    warn(std::to_string(no_sep.size()) + " predictions lack exactly one '\\t----- bird -----\\t' separator; the whole "
         "string (stripped) is used as SQL (keys " + preview_list(no_sep) + ")");
  if (!db_diff.empty())
    warn(std::to_string(db_diff.size()) + " predictions name a different db_id than their gold line (keys " +
         preview_list(db_diff) + "); " +
         (original ? "the original BIRD script runs them on the prediction's database, as we do"
                   : "Mini-Dev uses the gold's database, as we do"));

  // ---- databases must exist (the official scripts would silently create empty files)
  {
    std::set<std::string> dbs;
    for (auto& it : rr.items) dbs.insert(it.db_id);
    for (auto& d : dbs) {
      std::string p = db_file(opt.db_root_path, d);
      bool plain = is_plain_name(d);
      if (!plain || !fs::is_regular_file(p, ec)) {
        long line = 0;
        for (auto& g : gold)
          if (g.db_id == d) { line = g.line; break; }
        throw InputError(gold_path, plain ? "database not found: " + p
                                          : "db_id '" + d + "' is not a folder name inside --db_root_path", line);
      }
    }
  }

  // ---- instance ids (question_id, "#k" for its k-th occurrence; the index without one) and the shard
  std::vector<char> in_shard(n, 1);
  {
    std::map<long long, int> seen;
    for (auto& it : rr.items) {
      if (it.question_id >= 0) {
        int k = ++seen[it.question_id];
        it.id = std::to_string(it.question_id) + (k > 1 ? "#" + std::to_string(k) : "");
      } else {
        it.id = std::to_string(it.index);
      }
    }
    if (const std::optional<runs::Shard> sh = runs::shard_option(opt.shard_index, opt.shard_count))
      for (size_t i = 0; i < n; ++i) in_shard[i] = runs::in_shard(rr.items[i].id, *sh) ? 1 : 0;
  }

  SqliteOptions sopt;
  sopt.text_decode = SqliteOptions::TextDecode::Error;  // Python's default text_factory raises
  sopt.empty_is_ok = true;                              // cursor.execute(" ") returns no rows
  Limits pred_lim{opt.meta_time_out, opt.max_rows, Limits{}.max_bytes};
  Limits gold_lim{opt.gold_time_out < 0 ? opt.meta_time_out : opt.gold_time_out, opt.max_rows, Limits{}.max_bytes};

  // ---- one pass over the questions that have a prediction, on all cores (exec::run). In the original
  // layout the gold runs on the prediction's database, as the official script does.
  std::vector<size_t> pending;
  std::vector<exec::Item> work;
  for (size_t i = 0; i < n; ++i) {
    const Instance& it = rr.items[i];
    if (!it.has_pred || !in_shard[i]) continue;  // nothing to compare: the gold need not run
    pending.push_back(i);
    work.push_back({db_file(opt.db_root_path, it.db_id), it.gold_sql, it.pred_sql});
  }
  const bool ves = opt.metric == Metric::Ves || opt.metric == Metric::RVes;
  exec::Steps<ExecResult, ExecResult, Outcome> steps{
      [&](const exec::Item& w) { return SqlitePool::lease(w.db, sopt)->execute(w.gold, gold_lim); },
      [&](const exec::Item& w) { return SqlitePool::lease(w.db, sopt)->execute(w.pred, pred_lim); },
      [&](const exec::Item& w, const ExecResult& g, const ExecResult& p) {
        Outcome o = check(opt.metric, g, p, pred_lim.timeout_s, opt.keep_rows);
        if (ves && o.correct) time_pair(o, *SqlitePool::lease(w.db, sopt), w, opt, pred_lim, gold_lim);
        return o;
      }};
  Progress progress("bird " + std::string(metric_name(opt.metric)), work.size(), opt.progress);
  const uint64_t golds_before = cache.gold.executions();
  std::vector<Outcome> outcomes = exec::run(work, steps, cache.gold, resolve_jobs(opt.num_cpus), &progress,
                                            ves ? nullptr : &cache.outcomes);
  progress.finish();
  rr.gold_executions = cache.gold.executions() - golds_before;
  for (size_t k = 0; k < pending.size(); ++k) apply(rr.items[pending[k]], outcomes[k]);

  const GoldFailures gf = gold_failures(rr.items);
  if (gf.timeouts)
    warn("GOLD TIMEOUT: " + std::to_string(gf.timeouts) + " gold queries exceeded " +
         std::to_string(gold_lim.timeout_s) + " s; those questions score 0 whatever the prediction (mini_dev#43). "
         "Raise --gold_time_out to grade them.");
  if (gf.errors)
    warn("GOLD ERROR: " + std::to_string(gf.errors) + " gold queries failed; those questions score 0");
  if (opt.shard_count > 0) {
    std::vector<Instance> kept;
    for (size_t i = 0; i < n; ++i)
      if (in_shard[i]) kept.push_back(std::move(rr.items[i]));
    rr.items = std::move(kept);
  }
  rr.wall_seconds = std::chrono::duration<double>(Clock::now() - t_start).count();
  return rr;
}

}  // namespace sqlgrade::bird
