// Test-suite execution accuracy: the evaluator that finds a database's test-suite variants, runs gold
// (once per file and query) and prediction on each, and applies the rule of test_suite.cpp — see
// exec_evaluator.hpp and docs/spider-exec.md.
#include "sqlgrade/spider/exec_evaluator.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <sys/resource.h>
#include <unordered_map>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/exec/runner.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/spider/plug_value.hpp"
#include "sqlgrade/runs/result_rows.hpp"

namespace sqlgrade::spider {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// The evaluator.

struct ExecEvaluator::Impl {
  exec::GoldMemo<ExecResult> gold;  // unbounded: one CLI run (the server brings its own bounded cache)
  std::mutex mu;
  std::unordered_map<std::string, std::vector<std::string>> dbsets;
  std::unordered_map<std::string, std::string> dbset_errors;
  std::atomic<uint64_t> executed{0}, lent{0};
};

namespace {
// Every worker thread keeps one read-only connection (one file descriptor) per test-suite database
// it has touched (SqlitePool). The official test suites hold thousands of database files, more than
// the common soft limit of 1024 open files, so raise the soft limit to the hard one once.
void raise_open_file_limit() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != rl.rlim_max) {
      rl.rlim_cur = rl.rlim_max;
      setrlimit(RLIMIT_NOFILE, &rl);
    }
  });
}
}  // namespace

ExecEvaluator::ExecEvaluator(std::string db_dir, ExecOptions opt)
    : db_dir_(std::move(db_dir)), opt_(opt), impl_(std::make_unique<Impl>()) {
  raise_open_file_limit();
}
ExecEvaluator::~ExecEvaluator() = default;

namespace {
bool sidecar(const std::string& name) {
  for (const char* suf : {"-journal", "-wal", "-shm"}) {
    size_t n = std::strlen(suf);
    if (name.size() >= n && name.compare(name.size() - n, n, suf) == 0) return true;
  }
  return false;
}
}  // namespace

std::vector<std::string> ExecEvaluator::db_paths(const std::string& db_id) {
  {
    std::lock_guard<std::mutex> lk(impl_->mu);
    auto it = impl_->dbsets.find(db_id);
    if (it != impl_->dbsets.end()) return it->second;
    auto e = impl_->dbset_errors.find(db_id);
    if (e != impl_->dbset_errors.end()) throw InputError(db_dir_, e->second);
  }
  fs::path dir = fs::path(db_dir_) / db_id;
  std::string main = db_id + ".sqlite";
  std::vector<std::string> out;
  std::error_code ec;
  bool has_main = false;
  if (!is_plain_name(db_id)) {
    ec = std::make_error_code(std::errc::invalid_argument);
  } else if (opt_.compat == Compat::Spider) {
    if (fs::is_regular_file(dir / main, ec)) out.push_back((dir / main).string());
  } else if (fs::is_directory(dir, ec)) {
    // Every entry whose name contains ".sqlite" (exec_eval's rule), except SQLite's own side files.
    std::vector<std::string> others;
    for (auto& ent : fs::directory_iterator(dir, ec)) {
      std::string name = ent.path().filename().string();
      if (name.find(".sqlite") == std::string::npos || sidecar(name)) continue;
      std::error_code e2;
      if (!ent.is_regular_file(e2)) continue;
      if (name == main) has_main = true;
      else others.push_back(ent.path().string());
    }
    std::sort(others.begin(), others.end());
    if (has_main) out.push_back((dir / main).string());
    out.insert(out.end(), others.begin(), others.end());
  }
  std::lock_guard<std::mutex> lk(impl_->mu);
  if (out.empty()) {
    std::string msg = "no test-suite database for db_id '" + db_id + "' (looked for *.sqlite in " + dir.string() + ")";
    impl_->dbset_errors[db_id] = msg;
    throw InputError(db_dir_, msg);
  }
  impl_->dbsets[db_id] = out;
  return out;
}

namespace {
SqliteOptions sqlite_opts(Compat c) {
  SqliteOptions o;
  o.text_decode = c == Compat::Spider ? SqliteOptions::TextDecode::Error : SqliteOptions::TextDecode::Ignore;
  o.empty_is_ok = true;
  return o;
}
std::string file_name(const std::string& p) { return fs::path(p).filename().string(); }
}  // namespace

std::shared_ptr<const ExecResult> ExecEvaluator::borrow(const std::string& db_path, const std::string& sql,
                                                        const Limits& lim) {
  std::shared_ptr<const ExecResult> r = opt_.lend ? opt_.lend(db_path, sql, lim) : nullptr;
  if (r) ++impl_->lent;
  return r;
}

ExecResult ExecEvaluator::execute(const std::string& db_path, const std::string& sql, const Limits& lim) {
  ++impl_->executed;
  return SqlitePool::lease(db_path, sqlite_opts(opt_.compat))->execute(sql, lim);
}

ExecEvaluator::Counts ExecEvaluator::counts() const { return {impl_->executed, impl_->lent}; }

std::shared_ptr<const ExecResult> ExecEvaluator::gold_result(const std::string& db_path, const std::string& gold_sql,
                                                             const GoldSource& gold) {
  std::string q = opt_.compat == Compat::Spider ? gold_sql : replace_cur_year(gold_sql);
  auto run = [&]() -> ExecResult {
    Limits lim;
    lim.timeout_s = opt_.gold_timeout_s > 0 ? opt_.gold_timeout_s : opt_.timeout_s;
    lim.max_rows = opt_.max_rows;
    lim.max_bytes = opt_.max_result_bytes;
    if (std::shared_ptr<const ExecResult> lent = borrow(db_path, q, lim)) return *lent;
    return execute(db_path, q, lim);
  };
  if (gold) return gold(db_path, q, run);
  return impl_->gold.get(db_path, gold_sql, run);  // kept for the evaluator's lifetime
}

std::shared_ptr<const ExecResult> ExecEvaluator::run_pred(const std::string& db_path, const std::string& sql,
                                                          size_t max_rows, double timeout_s) {
  Limits lim;
  lim.timeout_s = timeout_s;
  lim.max_rows = max_rows;
  const std::string q = opt_.compat == Compat::Spider ? sql : replace_cur_year(sql);
  if (std::shared_ptr<const ExecResult> lent = borrow(db_path, q, lim)) return lent;
  return std::make_shared<const ExecResult>(execute(db_path, q, lim));
}

bool ExecEvaluator::gold_read_serves(double pred_timeout_s) const {
  const double gold_timeout_s = opt_.gold_timeout_s > 0 ? opt_.gold_timeout_s : opt_.timeout_s;
  const bool time_ok = pred_timeout_s <= 0 || (gold_timeout_s > 0 && pred_timeout_s >= gold_timeout_s);
  return time_ok && Limits{}.max_bytes >= opt_.max_result_bytes;
}

// One candidate over every database: 1 when it matches everywhere, 0 when not (*why says where;
// *failed when the prediction raised an error there; v.timeout on a deadline), -1 when the gold
// failed (v.gold_error, v.reason).
int ExecEvaluator::check_candidate(const Candidates& c, const std::string& cand, ExecVerdict& v, std::string* why,
                                   bool* failed) {
  *failed = false;
  for (const std::string& db : c.dbs) {
    std::shared_ptr<const ExecResult> gold_res = gold_result(db, c.gold_sql, c.gold);
    const ExecResult& gr = *gold_res;
    if (!gr.ok()) {
      v.gold_error = true;
      v.reason = std::string("gold ") + (gr.status == ExecStatus::Timeout ? "timed out" : "failed") + " on " +
                 file_name(db) + ": " + gr.error;
      return -1;
    }
    // A prediction with more rows than the gold can never be equivalent: stop reading there. A
    // prediction whose text is the gold's reads exactly what the gold read (same file and reading, the
    // gold's row count is within the cap, deadline and byte cap no tighter): it is not run again.
    const bool as_gold = cand == c.gold_sql && gold_read_serves(c.timeout_s);
    const std::shared_ptr<const ExecResult> pred_res =
        as_gold ? gold_res : run_pred(db, cand, gr.table.rows.size(), c.timeout_s);
    const ExecResult& pr = *pred_res;
    if (opt_.keep_rows && db == c.dbs.front() && &cand == c.given) {  // what the drill-down shows
      v.gold_rows = runs::first_rows(gr.table);
      if (pr.ok()) v.pred_rows = runs::first_rows(pr.table);
    }
    switch (pr.status) {
      case ExecStatus::Ok: break;
      case ExecStatus::Timeout:
        v.timeout = true;
        *why = "prediction timed out on " + file_name(db) + " (" + pr.error + ")";
        return 0;
      case ExecStatus::TooLarge:
        // Past the row cap (the gold's row count) the results differ; past another bound (memory,
        // temporary files, result bytes) the prediction was cut, and is reported as cut.
        if (pr.error.rfind("result has more than", 0) != 0) {
          *why = "prediction stopped on " + file_name(db) + ": " + pr.error;
          return 0;
        }
        *why = "results differ on " + file_name(db) + ": prediction returns more rows than the gold (" +
               std::to_string(gr.table.rows.size()) + ")";
        return 0;
      case ExecStatus::Error:
        *why = "prediction failed on " + file_name(db) + ": " + pr.error;
        *failed = true;
        return 0;
    }
    // The comparison gets what the prediction's deadline left; past it, a timeout as for the query.
    bool same = false;
    try {
      same = result_eq(gr.table, pr.table, c.order_matters, Deadline::left_of(c.timeout_s, pr.seconds));
    } catch (const DeadlineExceeded&) {
      v.timeout = true;
      *why = "prediction timed out on " + file_name(db) + " (comparing the result)";
      return 0;
    }
    if (!same) {
      *why = "results differ on " + file_name(db);
      return 0;
    }
  }
  return 1;
}

ExecVerdict ExecEvaluator::evaluate(const ExecItem& item, const GoldSource& gold) {
  auto t0 = Clock::now();
  ExecVerdict v;
  auto done = [&]() {
    v.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return v;
  };
  const bool ts = opt_.compat == Compat::TestSuite;
  const bool keep_distinct = item.keep_distinct.value_or(opt_.keep_distinct);
  const bool plug_value = item.plug_value.value_or(opt_.plug_value);
  const double timeout_s = item.timeout_s.value_or(opt_.timeout_s);
  const ExecQueries prepared = prepare_exec_queries(item.gold_sql, item.pred_sql, ts, keep_distinct);
  if (!prepared.error.empty()) {
    v.gold_error = prepared.gold_error;
    v.pred_failed = !prepared.gold_error;
    v.reason = prepared.error;
    return done();
  }
  const std::string& g = prepared.gold;
  const std::string& p = prepared.pred;
  const bool order_matters = prepared.order_matters;
  const std::vector<std::string> dbs = db_paths(item.db_id);

  const Candidates run{dbs, g, gold, timeout_s, order_matters, &p};
  bool failed = false;  // the last candidate's prediction raised an error
  auto try_candidate = [&](const std::string& cand, std::string* why) { return check_candidate(run, cand, v, why, &failed); };

  std::string why;
  int r = try_candidate(p, &why);
  v.pred_failed = failed;  // the reason starts with the first candidate's
  if (r == 1) {
    v.score = 1;
    return done();
  }
  if (r < 0) return done();
  if (ts && plug_value) {
    sqlparse::PlugCandidates pc(g, p);
    if (pc.ok() && pc.count() > 0) {
      const double budget = opt_.plug_budget_s > 0 ? opt_.plug_budget_s : timeout_s;
      std::string first_why = why;
      uint64_t tried = 0;
      for (uint64_t k = 0; k < pc.count(); ++k) {
        if (budget > 0 && std::chrono::duration<double>(Clock::now() - t0).count() > budget) {
          v.timeout = true;
          v.reason = first_why + "; plug_value: time budget of " + std::to_string(budget) + " s spent after " +
                     std::to_string(tried) + " of " + std::to_string(pc.count()) + " candidates";
          return done();
        }
        std::string cw;
        int cr = try_candidate(pc.candidate(k), &cw);
        ++tried;
        if (cr == 1) {
          v.score = 1;
          v.timeout = false;
          return done();
        }
        if (cr < 0) return done();
      }
      v.reason = first_why + "; none of the " + std::to_string(pc.count()) + " plug_value candidates matched";
      return done();
    }
  }
  v.reason = why;
  return done();
}

std::vector<ExecVerdict> ExecEvaluator::evaluate_all(const std::vector<ExecItem>& items, unsigned jobs,
                                                     Progress* progress) {
  return exec::run_each<ExecVerdict>(items.size(), jobs, progress, [&](size_t i) { return evaluate(items[i]); });
}

}  // namespace sqlgrade::spider
