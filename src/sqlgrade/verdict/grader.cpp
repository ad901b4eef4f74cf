// sqlgrade::Grader (include/sqlgrade/verdict.hpp): request validation, extraction, the Judge and the
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

struct Grader::Impl {
  GraderConfig cfg;
  verdicts::GoldCache cache;
  verdicts::Judge judge;
  std::atomic<uint64_t> verdicts{0};
  explicit Impl(GraderConfig c)
      : cfg(std::move(c)), cache(cfg.gold_cache_entries, cfg.gold_cache_bytes), judge(cfg, cache) {}
  void grade(const Benchmark& b, const VerdictRequest& req, const std::string& sql, Verdict& v);
};

// to_string(VerdictStage) and failure_reason(VerdictStage): include/sqlgrade/outcome.hpp, defined in
// exec/benchmark.cpp.

// NeMo Gym bird_sql's failure codes of a pinned version (docs/serve.md, "Extraction presets").
// 0.4: a query that ran and differs, failed or timed out is `execution_error`, and
// `no_sql_extracted` when the query was the filler of an answer without a ```sql block; a gold
// failure or timeout `gold_execution_error`. 0.7 (PR #2898): `result_mismatch`, `execution_error`,
// `execution_timeout`, `gold_execution_error` (0.7's `gold_execution_timeout` is not told apart: a
// gold that timed out is `gold_execution_error` here). `refuted` and `unverified` stay sqlgrade's.
const char* gym_bird_failure_reason(ExtractPreset preset, VerdictStage s, bool filler) {
  const bool v07 = preset == ExtractPreset::GymBird07;
  switch (s) {
    case VerdictStage::Different:
    case VerdictStage::PredFailed:
    case VerdictStage::TooLarge:
    case VerdictStage::Timeout:
      if (!v07) return filler ? "no_sql_extracted" : "execution_error";
      return s == VerdictStage::Different ? "result_mismatch" : s == VerdictStage::Timeout ? "execution_timeout" : "execution_error";
    default: break;
  }
  return failure_reason(s);
}

const char* gym_failure_reason(ExtractPreset preset, VerdictStage s, bool filler) {
  if (s == VerdictStage::Refuted || s == VerdictStage::Unverified) return "unknown_error";
  if (preset == ExtractPreset::Sqlgrade) preset = ExtractPreset::GymBird04;  // 0.4's words = spider2_lite's
  return gym_bird_failure_reason(preset, s, filler);
}

Grader::Grader(GraderConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Grader::~Grader() = default;

const GraderConfig& Grader::config() const { return impl_->cfg; }

bool Grader::has_official_gold(const std::string& id) const { return impl_->judge.has_official(id); }

GraderStats Grader::stats() const {
  GraderStats s;
  s.verdicts = impl_->verdicts;
  s.gold_cache_hits = impl_->cache.hits();
  s.gold_cache_misses = impl_->cache.misses();
  s.gold_cache_entries = impl_->cache.entries();
  s.gold_cache_bytes = impl_->cache.bytes();
  s.spider2_gold_instances = impl_->judge.official_count();
  return s;
}

void Grader::require_gold(const VerdictRequest& req) const {
  const bool has_gold = (req.gold_sql && !req.gold_sql->empty()) ||
                        !req.gold_result_json.empty() ||
                        (verdicts::bench_of(req).has_official_gold() && has_official_gold(req.instance_id));
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

// The failure_reason of a verdict: its stage's word (failure_reason, the one table), in NeMo Gym's
// words when the server asks for them (--failure-codes gym) or the request's extraction preset is a
// Gym one (a verbatim `sql` keeps sqlgrade's).
const char* reason_words(const GraderConfig& cfg, const VerdictRequest& req, const Verdict& v) {
  const ExtractPreset p = req.extract.value_or(cfg.extract).preset;
  const bool filler = v.extraction_source == "filler";
  if (cfg.gym_failure_codes) return gym_failure_reason(req.sql ? ExtractPreset::Sqlgrade : p, v.stage, filler);
  if (p != ExtractPreset::Sqlgrade && !req.sql) return gym_bird_failure_reason(p, v.stage, filler);
  return failure_reason(v.stage);
}

}  // namespace

// The prediction against each gold in turn (gold_sql, then its alternatives). The first gold whose
// match stands decides: a match on the database, and with `verify` one that the search did not refute
// (verdicts::stage_after_verify). A match refuted against one gold goes on to the next, so any gold
// the prediction is equivalent to counts. Else the first refuted match's verdict, else the first
// gold's (the rule the Python API applied before issue 20).
void Grader::Impl::grade(const Benchmark& b, const VerdictRequest& req, const std::string& sql, Verdict& v) {
  const bool rules = has_gold_rules(req);
  std::optional<Verdict> first, first_refuted;
  for (size_t k = 0; k <= req.gold_sql_alternatives.size(); ++k) {
    VerdictRequest alt;  // this gold alone, with the order rule applied to it
    if (rules) {
      alt = req;
      if (k > 0) alt.gold_sql = req.gold_sql_alternatives[k - 1];
      alt.gold_sql_alternatives.clear();
      alt.ignore_order = verdicts::ignore_order_for(req, *alt.gold_sql);
    }
    const VerdictRequest& r = rules ? alt : req;
    Verdict attempt = v;
    judge.judge(b, r, sql, attempt);
    verdicts::verify_verdict(b, r, sql, attempt);  // only when the request asks (`verify`)
    attempt.gold_index = k;
    if (attempt.execution_match) attempt.stage = verdicts::stage_after_verify(r, attempt);
    if (attempt.stage == VerdictStage::Equal) {
      v = std::move(attempt);
      return;
    }
    if (attempt.execution_match && !first_refuted) first_refuted = std::move(attempt);
    else if (!first) first = std::move(attempt);
  }
  v = std::move(first_refuted ? *first_refuted : *first);
}

Verdict Grader::verdict(const VerdictRequest& req) {
  auto t0 = Clock::now();
  const Benchmark& b = verdicts::bench_of(req);
  std::error_code ec;
  if (req.db.empty()) bad("no database: `db` (a path) is required");
  if (verdicts::is_server_uri(req.db)) {
    verdicts::check_server_request(b, req);
  } else {
    if (!req.dialect.empty() && req.dialect != "sqlite")
      bad("`dialect` is " + req.dialect + " but `db` is a SQLite file: give the database's URI");
    bool dir = fs::is_directory(req.db, ec);
    if (!(fs::is_regular_file(req.db, ec) || (dir && b.grades_folders())))
      throw InputError(req.db, "no such database file");
    if (dir && !(req.gold_sql && !req.gold_sql->empty()))
      throw InputError(req.db, "a database folder needs gold_sql (the test suite); give a .sqlite file for gold_result");
  }
  require_gold(req);
  // Gold and prediction (and a `verify` search) read SQL's clock at the request's instant, else the
  // config's; the gold cache keys carry it (gold_cache.cpp).
  const sql_clock::ClockScope clock(req.now ? *req.now : impl_->cfg.now, "now");

  Verdict v;
  std::optional<std::string> sql = sql_of(req, impl_->cfg.extract, v);
  v.timings.extract_s = std::chrono::duration<double>(Clock::now() - t0).count();
  v.extracted_sql = sql;
  if (!sql) {
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
  v.reward = v.stage == VerdictStage::Equal ? 1.0 : 0.0;
  v.failure_reason = reason_words(impl_->cfg, req, v);
  v.outcome = verdicts::outcome_of(v);
  v.score = verdicts::score_of(req.shaping.value_or(RewardShaping{}), v.outcome);
  impl_->verdicts++;
  v.timings.total_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return v;
}

Verdict verdict(const VerdictRequest& request) {
  static Grader shared;
  return shared.verdict(request);
}

}  // namespace sqlgrade
