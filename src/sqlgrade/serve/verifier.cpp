// sqlgrade::Verifier (include/sqlgrade/verdict.hpp): request validation, extraction, the Judge and the
// gold cache. The reward server and the Python module call this; neither grades on its own.
#include <chrono>
#include <filesystem>
#include <mutex>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/serve/gold_cache.hpp"
#include "sqlgrade/serve/judge.hpp"
#include "sqlgrade/serve/surrogates.hpp"
#include "sqlgrade/serve/verify_option.hpp"
#include "sqlgrade/serve/wire.hpp"
#include "sqlgrade/verdict.hpp"

namespace sqlgrade {

using json = nlohmann::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

[[noreturn]] void bad(const std::string& msg) { throw InputError("", msg); }

std::optional<bool> opt_bool(const json& body, const char* key) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) bad(std::string("`") + key + "` must be a boolean");
  return it->get<bool>();
}

std::optional<std::string> opt_string(const json& body, const char* key) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) bad(std::string("`") + key + "` must be a string");
  return it->get<std::string>();
}

}  // namespace

struct Verifier::Impl {
  VerifierConfig cfg;
  serve::GoldCache cache;
  serve::Judge judge;
  std::atomic<uint64_t> verdicts{0};
  explicit Impl(VerifierConfig c)
      : cfg(std::move(c)), cache(cfg.gold_cache_entries, cfg.gold_cache_bytes), judge(cfg, cache) {}
};

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

VerdictRequest Verifier::parse_request(const json& body, const answer::ExtractOptions& base_extract) {
  if (!body.is_object()) bad("the request body must be a JSON object");
  VerdictRequest r;
  r.benchmark = serve::bench_name(serve::parse_bench(body));
  r.gold_sql = opt_string(body, "gold_sql");
  if (auto it = body.find("gold_result"); it != body.end() && !it->is_null()) {
    if (!it->is_array()) bad("`gold_result` must be a list of result sets");
    // shape check only; rows are converted once, on a cache miss
    for (size_t a = 0; a < it->size(); ++a) {
      const json& alt = (*it)[a];
      if (!alt.is_array()) bad("`gold_result[" + std::to_string(a) + "]` must be a list of rows");
      for (auto& row : alt)
        if (!row.is_array()) bad("`gold_result[" + std::to_string(a) + "]` holds a row that is not a list");
    }
    r.gold_result = *it;
  }
  r.ignore_order = opt_bool(body, "ignore_order");
  if (auto it = body.find("condition_cols"); it != body.end() && !it->is_null()) {
    if (!it->is_array() && !it->is_number_integer())
      bad("`condition_cols` must be null, a list of column indices or a list of such lists");
    r.condition_cols = *it;
  }
  r.gold_single_file = opt_bool(body, "gold_single_file");
  if (auto id = body.find("instance_id"); id != body.end() && id->is_string()) r.instance_id = id->get<std::string>();
  if (auto it = body.find("extract"); it != body.end() && !it->is_null()) {
    if (!it->is_object()) bad("`extract` must be an object");
    answer::ExtractOptions xo = base_extract;
    serve::set_bool_opt(*it, "word_boundary", xo.word_boundary);
    serve::set_bool_opt(*it, "tags_and_json", xo.tags_and_json);
    serve::set_bool_opt(*it, "raw_fallback", xo.raw_fallback);
    serve::set_bool_opt(*it, "after_think", xo.after_think);
    r.extract = xo;
  }
  r.sql = opt_string(body, "sql");
  if (!r.sql) r.model_output = serve::model_text(body);
  if (auto t = serve::bounded_field(body, "timeout", "timeout")) r.timeout_s = *t;
  r.plug_value = opt_bool(body, "plug_value").value_or(false);
  r.keep_distinct = opt_bool(body, "keep_distinct").value_or(false);
  r.verify = serve::parse_verify_option(body);  // RL: search for a counterexample after a match
  if ((r.plug_value || r.keep_distinct) && r.benchmark != "spider")
    bad("`plug_value` and `keep_distinct` apply to benchmark spider only");
  return r;
}

void Verifier::require_gold(const VerdictRequest& req) const {
  const bool has_gold = (req.gold_sql && !req.gold_sql->empty()) ||
                        (req.gold_result.is_array() && !req.gold_result.empty()) ||
                        (serve::bench_from_name(req.benchmark) == serve::Bench::Spider2 && has_official_gold(req.instance_id));
  if (!has_gold)
    bad(impl_->judge.official_count() == 0
            ? "the request needs `gold_sql` or `gold_result`"
            : "the request needs `gold_sql`, `gold_result` or an instance_id of --spider2-gold-dir");
}

Verdict Verifier::verdict(const VerdictRequest& req) {
  auto t0 = Clock::now();
  serve::Bench b = serve::bench_from_name(req.benchmark);
  std::error_code ec;
  if (req.db.empty()) bad("no database: `db` (a path) is required");
  bool dir = fs::is_directory(req.db, ec);
  if (!(fs::is_regular_file(req.db, ec) || (dir && b == serve::Bench::Spider)))
    throw InputError(req.db, "no such database file");
  if (dir && !(req.gold_sql && !req.gold_sql->empty()))
    throw InputError(req.db, "a database folder needs gold_sql (the test suite); give a .sqlite file for gold_result");
  require_gold(req);

  Verdict v;
  std::optional<std::string> sql;
  if (req.sql) {
    std::string_view s = py::strip_view(*req.sql);
    v.extraction_source = "verbatim";
    if (!answer::holds_no_statement(s)) sql = std::string(s);
    else v.failure_detail = "the SQL holds no statement (only ';', comments or whitespace)";
  } else {
    const std::string text = req.model_output.value_or("");
    answer::Extracted ex = answer::extract_reward_sql(text, req.extract.value_or(impl_->cfg.extract));
    v.extraction_source = answer::to_string(ex.source);
    sql = ex.sql;
    if (!sql)
      v.failure_detail = text.empty() ? "empty model output"
                         : ex.source == answer::ExtractSource::UnclosedThink
                             ? "the model output ends inside an unclosed <think> (no answer after the reasoning)"
                         : ex.source != answer::ExtractSource::None
                             ? "the extracted text holds no SQL statement (only ';', comments or whitespace)"
                             : "no SQL found in the model output";
  }
  v.timings.extract_s = std::chrono::duration<double>(Clock::now() - t0).count();
  v.extracted_sql = sql;
  if (!sql) {
    v.failure_reason = "no_sql_extracted";
    v.pred_executed = false;
  } else if (std::string why = serve::sql_not_unicode(*sql); !why.empty()) {
    v.failure_detail = "prediction error: " + why;  // an execution error, as in the official scripts
    v.pred_executed = false;
  } else {
    impl_->judge.judge(b, req, *sql, v);
    serve::verify_verdict(b, req, *sql, v);  // only when the request asks (`verify`)
  }
  // A refuted match keeps execution_match (the official verdict) but earns no reward.
  v.reward = v.execution_match && !(v.verify && v.verify->status == "refuted") ? 1.0 : 0.0;
  impl_->verdicts++;
  v.timings.total_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return v;
}

void Verifier::to_json(const Verdict& v, const std::string& benchmark, json& resp) {
  resp["reward"] = v.reward;
  resp["execution_match"] = v.execution_match;
  resp["extracted_sql"] = v.extracted_sql ? json(*v.extracted_sql) : json();
  resp["failure_reason"] = v.failure_reason;
  resp["failure_detail"] = v.failure_detail;
  resp["extraction_source"] = v.extraction_source;
  resp["benchmark"] = benchmark;
  resp["gold_cached"] = v.gold_cached;
  resp["pred_executed"] = v.pred_executed ? json(*v.pred_executed) : json();
  resp["timings"] = {{"extract_s", v.timings.extract_s}, {"gold_s", v.timings.gold_s}, {"pred_s", v.timings.pred_s},
                     {"compare_s", v.timings.compare_s}, {"total_s", v.timings.total_s}};
  serve::verify_to_json(v, resp);
}

VerdictRequest Verifier::request_of(const json& body, const std::string& db) const {
  VerdictRequest req = parse_request(body, impl_->cfg.extract);
  if (!db.empty()) {
    req.db = db;
  } else {
    auto it = body.find("db");
    if (it == body.end() || !it->is_string()) bad("`db` (the database path, a string) is required");
    req.db = it->get<std::string>();
  }
  return req;
}

json Verifier::verdict_json(const json& body, const std::string& db) { return verdict_json(request_of(body, db), body); }

json Verifier::verdict_json(const VerdictRequest& req, const json& body) {
  Verdict v = verdict(req);
  std::vector<std::string> unechoed;
  json resp = serve::echo_fields(body, &unechoed);
  auto db_id = body.find("db_id");
  resp["db_id"] = db_id != body.end() && db_id->is_string() ? *db_id : json(fs::path(req.db).stem().string());
  resp["question"] = body.contains("question") ? body["question"] : json("");
  resp["model_output"] = req.model_output.value_or("");
  resp["gold_sql"] = req.gold_sql && !req.gold_sql->empty() ? json(*req.gold_sql) : json();
  to_json(v, req.benchmark, resp);
  if (!unechoed.empty()) resp["unechoed_fields"] = unechoed;
  return resp;
}

Verdict verdict(const VerdictRequest& request) {
  static Verifier shared;
  return shared.verdict(request);
}

}  // namespace sqlgrade
