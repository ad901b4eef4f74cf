#include "sqlgrade/verdict/judge.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "sqlgrade/core/deadline.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/engine/server.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/spider/bench.hpp"
#include "sqlgrade/verdict/registry.hpp"

namespace sqlgrade::verdicts {

using json = nlohmann::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The status in a human reason: to_string(ExecStatus) with spaces ("too large"), as the replies say.
std::string status_word(ExecStatus s) {
  std::string w = to_string(s);
  std::replace(w.begin(), w.end(), '_', ' ');
  return w;
}

VerdictStage stage_of(ExecStatus s) {
  return s == ExecStatus::Timeout ? VerdictStage::Timeout
         : s == ExecStatus::TooLarge ? VerdictStage::TooLarge
                                     : VerdictStage::PredFailed;
}

// A SQLite file, or a PostgreSQL / MySQL database by its URI (benchmark bird; grader.cpp checks).
ExecResult run(const std::string& path, const std::string& sql, const Limits& lim) {
  try {
    if (is_server_uri(path)) return ServerPool::lease(parse_server_dsn(path, "db"))->execute(sql, lim);
    return SqlitePool::lease(path)->execute(sql, lim);
  } catch (const std::exception& e) {
    ExecResult r;
    r.status = ExecStatus::Error;
    r.error = e.what();
    return r;
  }
}

std::string seconds_text(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", s);
  return b;
}

// A JSON text field of the request ("" = null); BadRequest naming the field when it is not JSON.
json parse_cells(const std::string& text, const char* field) {
  if (text.empty()) return json();
  try {
    return json::parse(text);
  } catch (const json::exception&) {
    throw BadRequest(std::string("`") + field + "` is not JSON text");
  }
}

}  // namespace

Judge::Judge(const GraderConfig& cfg, GoldCache& cache) : cfg_(cfg), cache_(cache) {
  if (cfg_.spider2_gold_dir.empty()) return;
  for (const Benchmark* b : benchmarks())  // the benchmark whose official gold folder it is (Spider 2.0)
    if (b->has_official_gold()) official_ = b->official_gold(cfg_.spider2_gold_dir);
}

// An instance's official gold, read by its benchmark (OfficialGold::read) once per cache entry.
GoldPtr Judge::gold_from_dir(const std::string& id, bool* hit) {
  return cache_.get(gold_key({"golddir", cfg_.spider2_gold_dir, id}), [&]() -> GoldPtr {
    auto d = std::make_shared<GoldData>();
    OfficialGold::Read r = official_->read(id);
    d->ok = r.error.empty();
    d->error = std::move(r.error);
    d->transient = r.transient;
    d->form = std::move(r.form);
    d->bytes = gold_bytes(*d);
    return d;
  }, hit);
}

Limits Judge::pred_limits(const VerdictRequest& req) const {
  double t = req.timeout_s > 0 ? req.timeout_s : cfg_.timeout_s;
  if (cfg_.max_timeout_s > 0) t = std::min(t, cfg_.max_timeout_s);
  return Limits{t, cfg_.max_rows, cfg_.max_result_bytes};
}
Limits Judge::gold_limits() const {
  return Limits{cfg_.gold_timeout_s > 0 ? cfg_.gold_timeout_s : cfg_.timeout_s, cfg_.max_rows, cfg_.max_result_bytes};
}

// Executes a gold query once per (benchmark, db, SQL) and keeps its result in the benchmark's form.
GoldPtr Judge::gold_from_sql(const Benchmark& b, const std::string& path, const std::string& gold_sql, bool* hit) {
  // keyed by the file's version too: a database replaced at its path is queried again (core/fs.hpp)
  return cache_.get(gold_key({b.name(), path, file_version(path), gold_sql}), [&]() -> GoldPtr {
    auto d = std::make_shared<GoldData>();
    ExecResult r = run(path, gold_sql, gold_limits());
    if (!r.ok()) {
      d->transient = load_dependent(r);
      d->error = std::string("gold ") + status_word(r.status) + ": " + r.error;
    } else {
      const double t = gold_limits().timeout_s;
      std::vector<Table> tables;
      tables.push_back(std::move(r.table));
      try {  // what the gold query left of its deadline bounds the conversion (core/deadline.hpp)
        d->form = b.gold_form(std::move(tables), Deadline::left_of(t, r.seconds));
        d->ok = true;
      } catch (const DeadlineExceeded&) {
        d->transient = true;  // a timeout depends on load: never cached
        d->error = "gold timeout after " + seconds_text(t) + " s (converting the result)";
      } catch (const std::exception& e) {
        d->error = std::string("gold result cannot be read as the official CSV: ") + e.what();
      }
    }
    d->bytes = gold_bytes(*d);
    return d;
  }, hit);
}

// gold_result rows converted once per distinct payload.
GoldPtr Judge::gold_from_rows(const Benchmark& b, const std::string& gold_result_json, bool* hit) {
  return cache_.get(gold_key({"rows", b.name(), gold_result_json}), [&]() -> GoldPtr {
    auto d = std::make_shared<GoldData>();
    std::vector<Table> tables = gold_tables(parse_cells(gold_result_json, "gold_result"), b);
    try {
      d->form = b.gold_form(std::move(tables));
      d->ok = true;
    } catch (const std::exception& e) {
      d->error = std::string("gold_result cannot be read as the official CSV: ") + e.what();
    }
    d->bytes = gold_bytes(*d);
    return d;
  }, hit);
}

// One evaluator per test-suite parent folder (the request's flags and deadline travel with each
// item); at most 64 are kept.
std::shared_ptr<spider::ExecEvaluator> Judge::spider_evaluator(const std::string& db_dir) {
  std::lock_guard<std::mutex> lk(spider_mu_);
  auto it = spider_evals_.find(db_dir);
  if (it != spider_evals_.end()) return it->second;
  if (spider_evals_.size() >= 64) spider_evals_.clear();  // in-flight users hold their own reference
  spider::ExecOptions eo;
  eo.timeout_s = cfg_.timeout_s;  // each item brings the request's own deadline
  eo.gold_timeout_s = gold_limits().timeout_s;
  eo.max_rows = cfg_.max_rows;
  eo.max_result_bytes = cfg_.max_result_bytes;
  auto ev = std::make_shared<spider::ExecEvaluator>(db_dir, eo);
  spider_evals_.emplace(db_dir, ev);
  return ev;
}

// Spider: the test-suite evaluator on every *.sqlite of the database's folder. A database file that is
// not inside its own <db_id>/ folder (the flat <dir>/<db_id>.sqlite layout) is refused: its folder
// holds other databases, which must not be taken for test-suite variants.
void Judge::judge_spider(const VerdictRequest& req, const std::string& pred_sql, Verdict& v) {
  std::error_code ec;
  fs::path p(req.db), folder = fs::is_directory(p, ec) ? p : p.parent_path();
  if (!fs::is_directory(p, ec)) {
    if (p.stem() != folder.filename())
      throw InputError(req.db, "benchmark spider needs the test-suite layout <dir>/<db_id>/<db_id>.sqlite "
                               "(this file is not in a folder named after it; use benchmark bird for one flat file)");
  }
  auto ev = spider_evaluator(folder.parent_path().string());
  const std::string db_id = folder.filename().string();
  int hits = 0, misses = 0;
  double gold_s = 0;
  auto t0 = Clock::now();
  spider::ExecVerdict r = ev->evaluate(
      {db_id, *req.gold_sql, pred_sql, req.plug_value, req.keep_distinct, pred_limits(req).timeout_s},
      [&](const std::string& db_file, const std::string& query, const std::function<ExecResult()>& execute) {
        auto g0 = Clock::now();
        bool hit = false;
        GoldPtr g = cache_.get(gold_key({"spider-testsuite", db_file, file_version(db_file), query}), [&]() -> GoldPtr {
          auto d = std::make_shared<GoldData>();
          d->exec = execute();
          d->ok = d->exec.ok();
          d->transient = load_dependent(d->exec);
          d->bytes = gold_bytes(*d);
          return d;
        }, &hit);
        ++(hit ? hits : misses);
        gold_s += since(g0);
        return std::shared_ptr<const ExecResult>(g, &g->exec);
      });
  double total = since(t0);
  v.timings.gold_s = gold_s;
  v.timings.pred_s = std::max(0.0, total - gold_s);  // prediction runs and comparisons, interleaved
  v.gold_cached = hits > 0 && misses == 0;
  Outcome o = spider::outcome_of(std::move(r));
  v.execution_match = o.match();
  v.failure_detail = std::move(o.detail);
  v.stage = o.stage;
  if (v.stage == VerdictStage::GoldFailed) v.pred_executed.reset();
  else v.pred_executed = v.stage == VerdictStage::Equal || v.stage == VerdictStage::Different;
}

void Judge::judge(const Benchmark& b, const VerdictRequest& req, const std::string& pred_sql, Verdict& v) {
  v.execution_match = false;
  const bool has_gold_sql = req.gold_sql && !req.gold_sql->empty();
  if (b.grades_folders() && has_gold_sql) return judge_spider(req, pred_sql, v);  // the test suite

  const bool has_rows = !req.gold_result_json.empty();
  // Grader::require_gold has checked that there is a gold: SQL, rows or (spider2) the official one.
  const bool off = !has_gold_sql && !has_rows;

  auto t0 = Clock::now();
  GoldPtr gold = has_gold_sql ? gold_from_sql(b, req.db, *req.gold_sql, &v.gold_cached)
                 : off        ? gold_from_dir(req.instance_id, &v.gold_cached)
                              : gold_from_rows(b, req.gold_result_json, &v.gold_cached);
  v.timings.gold_s = since(t0);
  if (!gold->ok) {
    v.stage = VerdictStage::GoldFailed;
    v.failure_detail = gold->error;
    return;  // pred_executed stays unknown
  }
  const std::string sql = b.sql_as_run(pred_sql);
  t0 = Clock::now();
  ExecResult pr = run(req.db, sql, pred_limits(req));
  v.timings.pred_s = since(t0);
  if (!pr.ok()) {
    v.pred_executed = false;
    v.stage = stage_of(pr.status);
    v.failure_detail = std::string("prediction ") + status_word(pr.status) + ": " + pr.error;
    return;
  }
  v.pred_executed = true;
  t0 = Clock::now();
  // What the prediction left of its deadline bounds converting and comparing its result
  // (core/deadline.hpp); a cancelled request (core/cancel.hpp) stops there too.
  const double timeout_s = pred_limits(req).timeout_s;
  try {
    compare(b, req, *gold, pr.table, Deadline::left_of(timeout_s, pr.seconds), v);
  } catch (const DeadlineExceeded&) {
    v.execution_match = false;
    v.stage = VerdictStage::Timeout;
    v.failure_detail = "prediction timeout after " + seconds_text(timeout_s) + " s (converting or comparing the result)";
  }
  v.timings.compare_s = since(t0);
  if (v.stage != VerdictStage::Timeout) v.stage = v.execution_match ? VerdictStage::Equal : VerdictStage::Different;
}

// The prediction's result against the gold, by the benchmark's check (Benchmark::check), under
// `deadline` (DeadlineExceeded: the caller scores a timeout).
void Judge::compare(const Benchmark& b, const VerdictRequest& req, const GoldData& gold, const Table& pred,
                    const Deadline& deadline, Verdict& v) {
  const bool has_gold_sql = req.gold_sql && !req.gold_sql->empty();
  CheckItem item{req.instance_id, req.ignore_order.value_or(true), nullptr, has_gold_sql, req.gold_single_file};
  const json condition_cols = parse_cells(req.condition_cols_json, "condition_cols");
  item.condition_cols = &condition_cols;
  if (!has_gold_sql && req.gold_result_json.empty()) official_->check_options(req.instance_id, item);  // the official gold
  Outcome o = b.check(item, *gold.form, pred, deadline);
  v.execution_match = o.match();
  if (!v.execution_match) v.failure_detail = std::move(o.detail);
}

}  // namespace sqlgrade::verdicts
