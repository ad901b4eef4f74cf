// sqlgrade::Verifier (include/sqlgrade/verdict.hpp): request validation, extraction, the Judge and the
// gold cache. The reward server and the Python module call this; neither grades on its own.
#include <chrono>
#include <filesystem>
#include <mutex>

#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/verdict/gold_cache.hpp"
#include "sqlgrade/verdict/judge.hpp"
#include "sqlgrade/verdict/shaping.hpp"
#include "sqlgrade/verdict/surrogates.hpp"
#include "sqlgrade/verdict/verify_option.hpp"
#include "sqlgrade/verdict/request.hpp"
#include "sqlgrade/verdict.hpp"

namespace sqlgrade {

using json = nlohmann::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {
[[noreturn]] void bad(const std::string& msg) { throw InputError("", msg); }
}  // namespace

struct Verifier::Impl {
  VerifierConfig cfg;
  verdicts::GoldCache cache;
  verdicts::Judge judge;
  std::atomic<uint64_t> verdicts{0};
  explicit Impl(VerifierConfig c)
      : cfg(std::move(c)), cache(cfg.gold_cache_entries, cfg.gold_cache_bytes), judge(cfg, cache) {}
  void grade(verdicts::Bench b, const VerdictRequest& req, const std::string& sql, Verdict& v);
};

const char* to_string(VerdictStage s) {
  switch (s) {
    case VerdictStage::NoSql: return "no_sql";
    case VerdictStage::PredFailed: return "pred_failed";
    case VerdictStage::Timeout: return "timeout";
    case VerdictStage::TooLarge: return "too_large";
    case VerdictStage::GoldFailed: return "gold_failed";
    case VerdictStage::Different: return "different";
    case VerdictStage::Equal: return "equal";
  }
  return "pred_failed";
}

Verifier::Verifier(VerifierConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Verifier::~Verifier() = default;

const VerifierConfig& Verifier::config() const { return impl_->cfg; }

bool Verifier::has_official_gold(const std::string& id) const { return impl_->judge.has_official(id); }

VerifierStats Verifier::stats() const {
  VerifierStats s;
  s.verdicts = impl_->verdicts;
  s.gold_cache_hits = impl_->cache.hits();
  s.gold_cache_misses = impl_->cache.misses();
  s.gold_cache_entries = impl_->cache.entries();
  s.gold_cache_bytes = impl_->cache.bytes();
  s.spider2_gold_instances = impl_->judge.official_count();
  return s;
}

void Verifier::require_gold(const VerdictRequest& req) const {
  const bool has_gold = (req.gold_sql && !req.gold_sql->empty()) ||
                        !req.gold_result_json.empty() ||
                        (verdicts::bench_from_name(req.benchmark) == verdicts::Bench::Spider2 && has_official_gold(req.instance_id));
  if (!has_gold)
    bad(impl_->judge.official_count() == 0
            ? "the request needs `gold_sql` or `gold_result`"
            : "the request needs `gold_sql`, `gold_result` or an instance_id of --spider2-gold-dir");
}

namespace {

// The SQL to grade: the request's `sql` verbatim, or what answer/ extracts from the model output.
// Sets extraction_source, and failure_detail when there is none.
std::optional<std::string> sql_of(const VerdictRequest& req, const ExtractOptions& config_extract, Verdict& v) {
  if (req.sql) {
    std::string_view s = py::strip_view(*req.sql);
    v.extraction_source = "verbatim";
    if (!answer::holds_no_statement(s)) return std::string(s);
    v.failure_detail = "the SQL holds no statement (only ';', comments or whitespace)";
    return std::nullopt;
  }
  const std::string text = req.model_output.value_or("");
  answer::Extracted ex = answer::extract_reward_sql(text, req.extract.value_or(config_extract));
  v.extraction_source = answer::to_string(ex.source);
  if (!ex.sql)
    v.failure_detail = text.empty() ? "empty model output"
                       : ex.source == answer::ExtractSource::UnclosedThink
                           ? "the model output ends inside an unclosed <think> (no answer after the reasoning)"
                       : ex.source != answer::ExtractSource::None
                           ? "the extracted text holds no SQL statement (only ';', comments or whitespace)"
                           : "no SQL found in the model output";
  return ex.sql;
}

// True when the request's RL rules change what is compared: gold alternatives, or the top-level
// ORDER BY rule deciding ignore_order for its gold_sql.
bool has_gold_rules(const VerdictRequest& req) {
  return !req.gold_sql_alternatives.empty() ||
         (req.gold_sql && !req.gold_sql->empty() && verdicts::ignore_order_for(req, *req.gold_sql) != req.ignore_order);
}

}  // namespace

// The prediction against each gold in turn (gold_sql, then its alternatives): the first that matches
// decides, else the first gold's verdict (the rule the Python API applied before issue 20).
void Verifier::Impl::grade(verdicts::Bench b, const VerdictRequest& req, const std::string& sql, Verdict& v) {
  if (!has_gold_rules(req)) {
    judge.judge(b, req, sql, v);
    verify_verdict(b, req, sql, v);  // only when the request asks (`verify`)
    return;
  }
  std::optional<Verdict> first;
  for (size_t k = 0; k <= req.gold_sql_alternatives.size(); ++k) {
    VerdictRequest r = req;
    if (k > 0) r.gold_sql = req.gold_sql_alternatives[k - 1];
    r.gold_sql_alternatives.clear();
    r.ignore_order = verdicts::ignore_order_for(req, *r.gold_sql);
    Verdict attempt = v;
    judge.judge(b, r, sql, attempt);
    verify_verdict(b, r, sql, attempt);
    attempt.gold_index = k;
    if (attempt.execution_match) {
      v = std::move(attempt);
      return;
    }
    if (!first) first = std::move(attempt);
  }
  v = std::move(*first);
}

Verdict Verifier::verdict(const VerdictRequest& req) {
  auto t0 = Clock::now();
  verdicts::Bench b = verdicts::bench_from_name(req.benchmark);
  std::error_code ec;
  if (req.db.empty()) bad("no database: `db` (a path) is required");
  bool dir = fs::is_directory(req.db, ec);
  if (!(fs::is_regular_file(req.db, ec) || (dir && b == verdicts::Bench::Spider)))
    throw InputError(req.db, "no such database file");
  if (dir && !(req.gold_sql && !req.gold_sql->empty()))
    throw InputError(req.db, "a database folder needs gold_sql (the test suite); give a .sqlite file for gold_result");
  require_gold(req);
  // Gold and prediction (and a `verify` search) read SQL's clock at the request's instant, else the
  // config's; the gold cache keys carry it (gold_cache.cpp).
  const sql_clock::ClockScope clock(req.now ? *req.now : impl_->cfg.now, "now");

  Verdict v;
  std::optional<std::string> sql = sql_of(req, impl_->cfg.extract, v);
  v.timings.extract_s = std::chrono::duration<double>(Clock::now() - t0).count();
  v.extracted_sql = sql;
  if (!sql) {
    v.failure_reason = "no_sql_extracted";
    v.stage = VerdictStage::NoSql;
    v.pred_executed = false;
  } else if (std::string why = verdicts::sql_not_unicode(*sql); !why.empty()) {
    v.failure_detail = "prediction error: " + why;  // an execution error, as in the official scripts
    v.stage = VerdictStage::PredFailed;
    v.pred_executed = false;
  } else {
    impl_->grade(b, req, *sql, v);
  }
  // A refuted match keeps execution_match (the official verdict) but earns no reward.
  v.reward = v.execution_match && !(v.verify && v.verify->status == "refuted") ? 1.0 : 0.0;
  v.outcome = verdicts::outcome_of(v);
  v.score = verdicts::score_of(req.shaping.value_or(RewardShaping{}), v.outcome);
  impl_->verdicts++;
  v.timings.total_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return v;
}

Verdict verdict(const VerdictRequest& request) {
  static Verifier shared;
  return shared.verdict(request);
}

}  // namespace sqlgrade
