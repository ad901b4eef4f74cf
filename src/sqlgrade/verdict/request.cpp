// The request model of a verdict (verdict/request.hpp): benchmark names and aliases, the JSON form of a
// request's fields and checks (the 400 messages), gold_result cells as values, the echoed fields.
#include "sqlgrade/verdict/request.hpp"

#include <algorithm>
#include <filesystem>
#include <cstdint>
#include <iterator>
#include <set>

#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/core/bounds.hpp"
#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/engine/server.hpp"
#include "sqlgrade/verdict/registry.hpp"
#include "sqlgrade/verdict/shaping.hpp"
#include "sqlgrade/verdict/verify_option.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/str.hpp"

namespace sqlgrade::verdicts {

using json = nlohmann::json;
namespace fs = std::filesystem;

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

std::string dialect_of(const std::string& name) {
  const std::string d = to_lower(name);
  if (d == "sqlite" || d.empty()) return "sqlite";
  if (auto dialect = dialect_of_scheme(d)) return dialect_word(*dialect);
  bad("`dialect` must be sqlite, postgresql or mysql; got '" + name.substr(0, 40) + "'");
}

bool is_server_uri(const std::string& db) {
  const size_t sep = db.substr(0, 16).find("://");
  return sep != std::string::npos && dialect_of_scheme(std::string_view(db).substr(0, sep)).has_value();
}

void check_server_request(const Benchmark& b, const VerdictRequest& req) {
  const ServerDsn dsn = parse_server_dsn(req.db, "db");
  const std::string dialect = dialect_word(dsn.dialect);
  if (!b.grades_servers())
    bad(std::string("benchmark ") + b.name() + " grades SQLite databases; a " + dialect_name(dsn.dialect) +
        " database is graded with benchmark bird (\"benchmark\": \"bird\")");
  if (!req.dialect.empty() && req.dialect != dialect)
    bad("`dialect` is " + req.dialect + " but the database is a " + dialect_name(dsn.dialect) + " one");
  if (req.verify)
    bad("`verify` searches SQLite databases for a counterexample: it is not available for a " +
        std::string(dialect_name(dsn.dialect)) + " database");
}

const Benchmark& parse_bench(const json& req) {
  auto it = req.find("benchmark");
  if (it == req.end() || it->is_null()) return default_benchmark();
  if (!it->is_string()) throw BadRequest("`benchmark` must be a string: spider2, spider or bird");
  return benchmark_named(it->get_ref<const std::string&>());
}

const Benchmark& bench_of(const VerdictRequest& req) { return req.bench ? *req.bench : benchmark_named(req.benchmark); }

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::optional<double> bounded_field(const json& req, const char* key, std::string_view bound, std::string_view label) {
  auto it = req.find(key);
  if (it == req.end() || it->is_null()) return std::nullopt;
  const bounds::Bound& b = bounds::bound(bound);
  const std::string name(label.empty() ? std::string_view(key) : label);
  if (!it->is_number()) {
    std::string shown = dump(*it);
    if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
    throw BadRequest(name + ": must be " + bounds::describe(b) + "; got " + shown);
  }
  const double v = it->get<double>();
  if (auto msg = bounds::violation(b, v)) throw BadRequest(name + ": " + *msg);
  return v;
}

void set_bool_opt(const json& o, const char* key, bool& dst) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return;
  if (!it->is_boolean()) throw BadRequest(std::string("`extract.") + key + "` must be a boolean");
  dst = it->get<bool>();
}

std::string model_text(const json& req) {
  auto it = req.find("response");
  if (it == req.end() || it->is_null()) {
    auto mo = req.find("model_output");
    if (mo != req.end() && mo->is_string()) return mo->get<std::string>();
    throw BadRequest("request has no `response` (OpenAI Responses object) and no `model_output` string");
  }
  const json& r = *it;
  if (r.is_string()) return r.get<std::string>();
  if (!r.is_object()) throw BadRequest("`response` must be an object");
  std::string text;
  auto out = r.find("output");
  if (out != r.end() && out->is_array()) {
    for (auto& item : *out) {
      if (!item.is_object() || item.value("type", "") != "message") continue;
      auto content = item.find("content");
      if (content == item.end() || !content->is_array()) continue;
      for (auto& c : *content) {
        if (!c.is_object() || c.value("type", "") != "output_text") continue;
        auto t = c.find("text");
        if (t != c.end() && t->is_string()) text += t->get_ref<const std::string&>();
      }
    }
  } else {
    auto ot = r.find("output_text");
    if (ot != r.end() && ot->is_string()) text = ot->get<std::string>();
  }
  return text;
}

json echo_fields(const json& req, std::vector<std::string>* dropped) {
  static const char* const kNotEchoed[] = {"db_id", "question", "gold_sql", "gold_result", "ignore_order", "condition_cols",
                                           "db", "order", "shaping", "alternative_answers",
                                           "reward_components"};
  static const char* const kKnown[] = {"responses_create_params", "response", "instance_id", "uuid", "metadata",
                                       "model_output", "benchmark", "extract", "gold_single_file", "sql", "timeout",
                                       "plug_value", "keep_distinct", "now", "dialect"};
  json out = json::object();
  size_t unknown_bytes = 0;
  for (auto it = req.begin(); it != req.end(); ++it) {
    const std::string& k = it.key();
    if (std::find(std::begin(kNotEchoed), std::end(kNotEchoed), k) != std::end(kNotEchoed)) continue;
    bool known = k.rfind("_ng_", 0) == 0 || std::find(std::begin(kKnown), std::end(kKnown), k) != std::end(kKnown);
    if (!known) {
      size_t cost = k.size() + dump(*it).size();
      if (unknown_bytes + cost > kMaxUnknownEchoBytes) {
        if (dropped && dropped->size() < 32) dropped->push_back(k.substr(0, 64));
        continue;
      }
      unknown_bytes += cost;
    }
    out[k] = *it;
  }
  return out;
}

Value json_to_value(const json& v, const Benchmark& b) {
  switch (v.type()) {
    case json::value_t::null: return Value::null();
    case json::value_t::boolean:
      // Python bool: prints "True"/"False" into the official CSV (spider2), equals 1/0 elsewhere.
      return b.bool_cell(v.get<bool>());
    case json::value_t::number_integer: return Value::integer(v.get<int64_t>());
    case json::value_t::number_unsigned: {
      uint64_t u = v.get<uint64_t>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) return Value::integer(static_cast<int64_t>(u));
      return Value::real(static_cast<double>(u));
    }
    case json::value_t::number_float: return Value::real(v.get<double>());
    case json::value_t::string: return Value::text(v.get<std::string>());
    default: return Value::text(dump(v));
  }
}

std::vector<Table> gold_tables(const json& gr, const Benchmark& b) {
  if (!gr.is_array() || gr.empty()) throw BadRequest("`gold_result` must be a non-empty list of result sets");
  std::vector<Table> out;
  for (size_t a = 0; a < gr.size(); ++a) {
    const json& alt = gr[a];
    if (!alt.is_array()) throw BadRequest("`gold_result[" + std::to_string(a) + "]` must be a list of rows");
    size_t width = 0;
    for (auto& row : alt) {
      if (!row.is_array()) throw BadRequest("`gold_result[" + std::to_string(a) + "]` holds a row that is not a list");
      width = std::max(width, row.size());
    }
    Table t;
    for (size_t c = 0; c < std::max<size_t>(width, 1); ++c) t.columns.push_back("c" + std::to_string(c));
    for (auto& row : alt) {
      Row r;
      for (auto& cell : row) r.push_back(json_to_value(cell, b));
      while (r.size() < width) r.push_back(Value::null());
      if (width) t.rows.push_back(std::move(r));
    }
    out.push_back(std::move(t));
  }
  return out;
}

const std::vector<std::string>& label_keys() {
  static const std::vector<std::string> keys{
      "gold_sql", "alternative_answers", "gold_result", "db_id", "db_path", "benchmark", "ignore_order",
      "condition_cols", "instance_id", "gold_single_file", "extract", "timeout", "plug_value", "keep_distinct",
      "verify", "order", "shaping", "reward_components"};
  return keys;
}

const std::vector<std::pair<const char*, bool ExtractOptions::*>>& extract_switches() {
  static const std::vector<std::pair<const char*, bool ExtractOptions::*>> table{
      {"word_boundary", &ExtractOptions::word_boundary},
      {"tags_and_json", &ExtractOptions::tags_and_json},
      {"raw_fallback", &ExtractOptions::raw_fallback},
      {"after_think", &ExtractOptions::after_think}};
  return table;
}

json label_body(const json& label) {
  json body = json::object();
  for (const std::string& k : label_keys())
    if (auto it = label.find(k); it != label.end() && k != "db_path") body[k] = *it;
  if (!body.contains("db_id")) {
    auto dp = label.find("db_path");
    if (dp == label.end() || !dp->is_string()) throw BadRequest("needs `db_id` or `db_path`");
    body["db_id"] = fs::path(dp->get<std::string>()).stem().string();
  }
  return body;
}

VerdictRequest parse_request(const json& body, const ExtractOptions& base_extract) {
  if (!body.is_object()) bad("the request body must be a JSON object");
  VerdictRequest r;
  const Benchmark& bench = parse_bench(body);
  r.benchmark = bench.name();
  r.bench = &bench;
  parse_gold_sql(body, r);  // a string, or a list: the gold and its alternatives (shaping.cpp)
  if (auto it = body.find("gold_result"); it != body.end() && !it->is_null()) {
    if (!it->is_array()) bad("`gold_result` must be a list of result sets");
    // shape check only; rows are converted once, on a cache miss
    for (size_t a = 0; a < it->size(); ++a) {
      const json& alt = (*it)[a];
      if (!alt.is_array()) bad("`gold_result[" + std::to_string(a) + "]` must be a list of rows");
      for (auto& row : alt)
        if (!row.is_array()) bad("`gold_result[" + std::to_string(a) + "]` holds a row that is not a list");
    }
    if (!it->empty()) r.gold_result_json = dump(*it);  // the gold cache key; rows are read on a miss
  }
  r.ignore_order = opt_bool(body, "ignore_order");
  if (auto it = body.find("condition_cols"); it != body.end() && !it->is_null()) {
    if (!it->is_array() && !it->is_number_integer())
      bad("`condition_cols` must be null, a list of column indices or a list of such lists");
    r.condition_cols_json = dump(*it);
  }
  r.gold_single_file = opt_bool(body, "gold_single_file");
  if (auto id = body.find("instance_id"); id != body.end() && id->is_string()) r.instance_id = id->get<std::string>();
  if (auto it = body.find("extract"); it != body.end() && !it->is_null()) {
    // A preset name alone ("gym-bird-0.7") is short for {"preset": "gym-bird-0.7"}.
    const json xj = it->is_string() ? json{{"preset", *it}} : *it;
    if (!xj.is_object()) bad("`extract` must be an object or a preset name");
    ExtractOptions xo = base_extract;
    if (auto p = xj.find("preset"); p != xj.end() && !p->is_null()) {
      auto preset = p->is_string() ? answer::preset_from_name(p->get_ref<const std::string&>()) : std::nullopt;
      if (!preset) {
        std::vector<std::string> quoted;
        for (const std::string& n : answer::preset_names()) quoted.push_back(dump(json(n)));
        bad("`extract.preset` must be " + join_or(quoted) + "; got " + dump(*p));
      }
      xo.preset = *preset;
    }
    const json& x = xj;
    for (const auto& [key, field] : extract_switches()) set_bool_opt(x, key, xo.*field);
    r.extract = xo;
  }
  r.sql = opt_string(body, "sql");
  if (!r.sql) r.model_output = model_text(body);
  if (auto t = bounded_field(body, "timeout", "timeout")) r.timeout_s = *t;
  r.plug_value = opt_bool(body, "plug_value").value_or(false);
  r.keep_distinct = opt_bool(body, "keep_distinct").value_or(false);
  if ((r.now = opt_string(body, "now"))) {  // SQL's clock for this request (core/clock.hpp)
    std::string why;
    auto at = sql_clock::parse(*r.now, &why);
    if (!at) bad("`now`: " + why);
    r.now = sql_clock::format(*at);
  }
  if (auto d = opt_string(body, "dialect")) r.dialect = dialect_of(*d);
  r.verify = parse_verify_option(body);  // RL: search for a counterexample after a match
  r.order = parse_order(body);            // RL: the top-level ORDER BY rule (shaping.cpp)
  r.shaping = parse_shaping(body);        // RL: the score of each outcome
  r.reward_components = opt_bool(body, "reward_components").value_or(false);  // RL: multi-reward
  if ((r.plug_value || r.keep_distinct) && !r.bench->has_test_suite_options())
    bad("`plug_value` and `keep_distinct` apply to benchmark spider only");
  return r;
}

void to_json(const Verdict& v, const std::string& benchmark, json& resp) {
  resp["reward"] = v.reward;
  resp["execution_match"] = v.execution_match;
  resp["extracted_sql"] = v.extracted_sql ? json(*v.extracted_sql) : json();
  resp["failure_reason"] = v.failure_reason;
  resp["failure_detail"] = v.failure_detail;
  resp["stage"] = to_string(v.stage);
  resp["extraction_source"] = v.extraction_source;
  resp["benchmark"] = benchmark;
  resp["gold_cached"] = v.gold_cached;
  resp["pred_executed"] = v.pred_executed ? json(*v.pred_executed) : json();
  resp["timings"] = {{"extract_s", v.timings.extract_s}, {"gold_s", v.timings.gold_s}, {"pred_s", v.timings.pred_s},
                     {"compare_s", v.timings.compare_s}, {"total_s", v.timings.total_s}};
  verify_to_json(v, resp);
}

VerdictRequest request_of(const Grader& grader, const json& body, const std::string& db) {
  VerdictRequest req = parse_request(body, grader.config().extract);
  if (!db.empty()) {
    req.db = db;
  } else {
    auto it = body.find("db");
    if (it == body.end() || !it->is_string()) bad("`db` (the database path, a string) is required");
    req.db = it->get<std::string>();
  }
  return req;
}

json verdict_json(Grader& grader, const json& body, const std::string& db) {
  return verdict_json(grader, request_of(grader, body, db), body);
}

json verdict_json(Grader& grader, const VerdictRequest& req, const json& body) {
  Verdict v = grader.verdict(req);
  std::vector<std::string> unechoed;
  json resp = echo_fields(body, &unechoed);
  auto db_id = body.find("db_id");
  resp["db_id"] = db_id != body.end() && db_id->is_string() ? *db_id
                  : is_server_uri(req.db)                      ? json(parse_server_dsn(req.db, "db").database)
                                                               : json(fs::path(req.db).stem().string());
  resp["question"] = body.contains("question") ? body["question"] : json("");
  resp["model_output"] = req.model_output.value_or("");
  // The gold that decided: the first that matched, else the first (gold alternatives).
  const std::string* gold = v.gold_index == 0 ? (req.gold_sql ? &*req.gold_sql : nullptr)
                                               : &req.gold_sql_alternatives.at(v.gold_index - 1);
  resp["gold_sql"] = gold && !gold->empty() ? json(*gold) : json();
  to_json(v, req.benchmark, resp);
  rules_to_json(req, v, resp);
  if (!unechoed.empty()) resp["unechoed_fields"] = unechoed;
  return resp;
}

// ---- the request fields of the RL rules (shaping.hpp) and of the verify option (verify_option.hpp) ----

OrderRule parse_order(const json& body) {
  auto it = body.find("order");
  if (it == body.end() || it->is_null()) return OrderRule::Benchmark;
  if (it->is_string() && *it == "benchmark") return OrderRule::Benchmark;
  if (it->is_string() && *it == "top_level") return OrderRule::TopLevel;
  std::string shown = dump(*it);
  if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
  throw BadRequest("`order` must be \"benchmark\" or \"top_level\"; got " + shown);
}

const std::vector<ShapingField>& shaping_fields() {
  static const std::vector<ShapingField> f{{"correct", &RewardShaping::correct},
                                           {"wrong_result", &RewardShaping::wrong_result},
                                           {"error", &RewardShaping::error},
                                           {"no_sql", &RewardShaping::no_sql},
                                           {"gold_error", &RewardShaping::gold_error}};
  return f;
}

std::optional<RewardShaping> parse_shaping(const json& body) {
  auto it = body.find("shaping");
  if (it == body.end() || it->is_null()) return std::nullopt;
  std::string names;
  for (const ShapingField& f : shaping_fields()) names += std::string(names.empty() ? "" : ", ") + f.name;
  if (!it->is_object()) throw BadRequest("`shaping` must be an object of " + names);
  for (auto f = it->begin(); f != it->end(); ++f) {
    bool known = false;
    for (const ShapingField& field : shaping_fields()) known = known || f.key() == field.name;
    if (!known) throw BadRequest("`shaping`: unknown option '" + f.key().substr(0, 64) + "' (" + names + ")");
  }
  RewardShaping s;
  for (const ShapingField& f : shaping_fields())
    if (auto v = bounded_field(*it, f.name, "score", std::string("shaping.") + f.name)) s.*f.member = *v;
  return s;
}

namespace {

// The golds of one field (a string, kept as it is, or a list of strings whose blank entries are
// dropped): the first becomes gold_sql when there is none yet, the rest alternatives.
void add_golds(const json& body, const char* field, VerdictRequest& r) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) return;
  auto add = [&](const json& g) {
    if (!r.gold_sql) r.gold_sql = g.get<std::string>();
    else r.gold_sql_alternatives.push_back(g.get<std::string>());
  };
  if (it->is_string()) return add(*it);
  if (!it->is_array()) throw BadRequest(std::string("`") + field + "` must be a string or a list of strings");
  for (size_t k = 0; k < it->size(); ++k) {
    const json& g = (*it)[k];
    if (!g.is_string()) throw BadRequest(std::string("`") + field + "[" + std::to_string(k) + "]` must be a string");
    if (!py::strip_view(g.get_ref<const std::string&>()).empty()) add(g);
  }
}

}  // namespace

void parse_gold_sql(const json& body, VerdictRequest& r) {
  add_golds(body, "gold_sql", r);
  add_golds(body, "alternative_answers", r);  // the adapters' data contract: more golds, any match counts
}

// reward_components (docs/serve.md, "Reward components"): the same keys for every rollout of a
// request shape, so a trainer's per-component tensors line up. 1.0/0.0 unless said otherwise.
//   sql_acc        the official verdict (execution_match; a refuted match keeps it)
//   sql_found      SQL was found in the output (not Gym 0.4's `SELECT 1` filler)
//   sql_executed   the prediction ran to a result
//   with `shaping`: shaping_<outcome> for each of the five outcomes — that outcome's shaping value
//                  when it is the verdict's outcome, else 0 (they sum to `score`)
//   with `verify`: sql_verified (the match stands after the search: reward 1), sql_refuted (a clean
//                  refutation), sql_unverified (the search was cut before it found anything)
json reward_components(const VerdictRequest& req, const Verdict& v) {
  auto b = [](bool x) { return x ? 1.0 : 0.0; };
  json c = json::object();
  c["sql_acc"] = b(v.execution_match);
  c["sql_found"] = b(v.extracted_sql && v.extraction_source != "filler");
  c["sql_executed"] = b(v.pred_executed.value_or(false));
  if (req.shaping) {
    for (VerdictOutcome o : {VerdictOutcome::Correct, VerdictOutcome::WrongResult, VerdictOutcome::Error,
                             VerdictOutcome::NoSql, VerdictOutcome::GoldError})
      c[std::string("shaping_") + to_string(o)] = v.outcome == o ? v.score : 0.0;
  }
  if (req.verify) {
    c["sql_verified"] = b(v.execution_match && v.stage == VerdictStage::Equal);
    c["sql_refuted"] = b(v.stage == VerdictStage::Refuted);
    c["sql_unverified"] = b(v.verify && v.verify->status == "unverified");
  }
  return c;
}

void rules_to_json(const VerdictRequest& req, const Verdict& v, json& reply) {
  if (req.reward_components) reply["reward_components"] = reward_components(req, v);
  if (req.shaping) {
    reply["score"] = v.score;
    reply["outcome"] = to_string(v.outcome);
  }
  if (!req.gold_sql_alternatives.empty()) reply["gold_index"] = v.gold_index;
}

std::optional<VerdictRequest::VerifyOption> parse_verify_option(const json& body) {
  auto it = body.find("verify");
  if (it == body.end() || it->is_null() || (it->is_boolean() && !it->get<bool>())) return std::nullopt;
  VerdictRequest::VerifyOption o;
  if (it->is_boolean()) return o;
  if (!it->is_object())
    throw BadRequest("verify: must be true, false or an object {budget, candidates, seed, on_unverified}");
  static const std::set<std::string> known{"budget", "candidates", "seed", "on_unverified"};
  for (auto f = it->begin(); f != it->end(); ++f)
    if (!known.count(f.key()))
      throw BadRequest("verify." + f.key().substr(0, 64) + ": unknown field (budget, candidates, seed, on_unverified)");
  if (auto p = it->find("on_unverified"); p != it->end() && !p->is_null()) {
    if (*p == "match") o.on_unverified = VerdictRequest::VerifyOption::OnUnverified::Match;
    else if (*p == "zero") o.on_unverified = VerdictRequest::VerifyOption::OnUnverified::Zero;
    else throw BadRequest("verify.on_unverified: must be \"match\" or \"zero\"; got " + dump(*p).substr(0, 40));
  }
  try {
    if (auto v = bounded_field(*it, "budget", "verify_budget")) o.budget_s = *v;
    if (auto v = bounded_field(*it, "candidates", "verify_candidates")) o.candidates = static_cast<size_t>(*v);
    if (bounded_field(*it, "seed", "seed")) o.seed = (*it)["seed"].get<uint64_t>();  // exact, not through a double
  } catch (const BadRequest& e) {
    throw BadRequest("verify." + e.message());  // "verify.budget: must be a number of seconds in ..."
  }
  return o;
}

void verify_to_json(const Verdict& v, json& reply) {
  if (!v.verify) return;
  const auto& o = *v.verify;
  json j{{"status", o.status}, {"reason", o.reason}, {"candidates", o.candidates}, {"seconds", o.seconds},
         {"time_capped", o.time_capped}};
  if (!o.counterexample_json.empty()) j["counterexample"] = json::parse(o.counterexample_json);
  reply["verify"] = std::move(j);
}

}  // namespace sqlgrade::verdicts
