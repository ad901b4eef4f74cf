#pragma once
// The request model of a verdict, shared by the reward server (serve/) and the Python module: the
// benchmark names and their aliases, the JSON form of a request's fields with their checks (the
// one-line messages a 400 or a Python ValueError carries), gold_result cells as the values Python
// would hold, and the fields a reply echoes (the NeMo Gym shape, spec §6.1b). Internal to the library;
// the public entry point is include/sqlgrade/verdict.hpp.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/table.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/exec/benchmark.hpp"
#include "sqlgrade/verdict.hpp"

namespace sqlgrade::verdicts {

// A request that cannot be graded (HTTP 400; InputError without a file).
struct BadRequest : InputError {
  explicit BadRequest(const std::string& message) : InputError("", message) {}
};

// The request's `benchmark` (default spider2) in the registry (verdict/registry.hpp); throws BadRequest
// for an unknown name.
const Benchmark& parse_bench(const nlohmann::json& req);
// The benchmark of a request: its resolved handle, else the registry's for its `benchmark` name.
const Benchmark& bench_of(const VerdictRequest& req);
// The request's `dialect`: sqlite | postgresql (postgres) | mysql (mariadb); InputError otherwise.
std::string dialect_of(const std::string& name);
// True when `db` is a PostgreSQL or MySQL URI (postgresql://, postgres://, mysql://, mariadb://).
bool is_server_uri(const std::string& db);
// A request whose `db` is such a URI: benchmark bird only, its `dialect` (if any) the URI's, no `verify`
// (the counterexample search builds SQLite databases). InputError with the 400's message otherwise.
void check_server_request(const Benchmark& b, const VerdictRequest& req);

// Every reply is dumped with invalid UTF-8 replaced by U+FFFD (a reply never throws).
std::string dump(const nlohmann::json& j);

// A numeric request field checked against its row of the table of bounds (core/bounds.hpp), with the
// message the CLI flag and the Python argument give: absent or null → nullopt; not a number or out of
// bounds → BadRequest "<key>: must be a number of seconds in (0, 86400]; got 1e+300" (HTTP 400). The
// message names `label` instead of the key when one is given ("shaping.correct").
std::optional<double> bounded_field(const nlohmann::json& req, const char* key, std::string_view bound,
                                    std::string_view label = {});

// request[key] as a boolean option (absent/null: unchanged); BadRequest when it is not a boolean.
void set_bool_opt(const nlohmann::json& o, const char* key, bool& dst);

// The model text of a NeMo verify request: the concatenation of every output_text part of every
// "message" output item of `response` (OpenAI Responses `output_text`); a plain string `response`,
// or a top-level "model_output" string when `response` is absent, are accepted too.
std::string model_text(const nlohmann::json& request);

// The request fields a verify reply echoes (the NeMo shape): the fields of NeMo's request schema and
// NeMo Gym's `_ng_*` bookkeeping whatever their size; any other field only while it fits, with the
// other such fields echoed, in kMaxUnknownEchoBytes (serialized), so that a reply never carries back megabytes a
// client invented. The names left out go to `dropped` (at most 32, each cut to 64 bytes).
// db_id, question, gold_sql, gold_result, ignore_order and condition_cols are not echoed (the reply
// sets its own db_id, question and gold_sql).
inline constexpr size_t kMaxUnknownEchoBytes = 64u << 10;
nlohmann::json echo_fields(const nlohmann::json& req, std::vector<std::string>* dropped);

// A JSON cell of gold_result as the value Python's sqlite3/csv path would hold.
Value json_to_value(const nlohmann::json& v, const Benchmark& b);
// gold_result: [alternative][row][cell] -> one Table per alternative (columns c0..; short rows padded).
std::vector<Table> gold_tables(const nlohmann::json& gr, const Benchmark& b);

// The keys of a label, the RL adapters' data contract (docs/python.md, "The data contract"): one table
// for every road that grades a dataset row — /get_reward (serve/endpoints.cpp through label_body),
// sqlgrade.openrlhf, verl, TRL, SkyRL, AReaL and inspect_ai (python/sqlgrade/_rows.py LABEL_KEYS,
// which python/tests/test_outcomes.py holds equal to this). Each is the /verify field of the same name,
// except db_path (the database file; the server takes its name as the db_id) and alternative_answers
// (more golds, after gold_sql's). A row's other keys are data (a question, an id), not grading rules.
// Python reads this table (registry_table(), python/sqlgrade/_tables.py); it keeps no copy.
const std::vector<std::string>& label_keys();
// The boolean switches of a request's `extract` object, in order (word_boundary, tags_and_json,
// raw_fallback, after_think: ExtractOptions' fields): the one table parse_request reads them by; Python
// reads it too. The names `extract.preset` takes are answer::preset_names().
const std::vector<std::pair<const char*, bool ExtractOptions::*>>& extract_switches();
// A label (a JSON object) as the /verify body it stands for: its label keys copied, nothing else; a
// db_path without a db_id gives the db_id (its file name without the extension). BadRequest naming the
// key when a label has neither db_id nor db_path.
nlohmann::json label_body(const nlohmann::json& label);

// The request of a /verify body (validation only; `db` is left to the caller). An `extract` object
// overrides base_extract (request.extract is then set). Throws BadRequest with the one-line message
// a 400 (or a Python ValueError) carries.
VerdictRequest parse_request(const nlohmann::json& body, const ExtractOptions& base_extract = {});
// The request of a /verify body as verdict_json grades it: parse_request with the grader's
// extraction options, and the database `db` when given, else the body's `db` field (a path).
VerdictRequest request_of(const Grader& grader, const nlohmann::json& body, const std::string& db = "");
// The /verify reply fields of a verdict (reward, execution_match, extracted_sql, failure_reason,
// failure_detail, stage, extraction_source, benchmark, gold_cached, pred_executed, timings).
void to_json(const Verdict& v, const std::string& benchmark, nlohmann::json& reply);
// JSON in, JSON out, for the Python module and the server: the /verify reply (echoed fields included)
// of the body `body`, graded as request_of(grader, body, db).
nlohmann::json verdict_json(Grader& grader, const nlohmann::json& body, const std::string& db = "");
// The same for a request already parsed from `body`: `body` only gives the echoed fields.
nlohmann::json verdict_json(Grader& grader, const VerdictRequest& request, const nlohmann::json& body);

// The JSON of the RL rules' fields (the rules themselves: shaping.hpp) and of the `verify` option
// (the search: verify_option.hpp) — every field of a request is read and written in request.cpp.
// The request's `order` ("benchmark" | "top_level"; absent/null: Benchmark) and `shaping` ({correct,
// wrong_result, error, no_sql, gold_error}, each checked against the table of bounds' row "score";
// absent/null: nullopt). BadRequest with the one-line message otherwise.
OrderRule parse_order(const nlohmann::json& body);
std::optional<RewardShaping> parse_shaping(const nlohmann::json& body);
// The `shaping` object's fields, in order, each with its RewardShaping member: the one list that the
// parser, its messages and the registry (Python's Shaping.request_fields) read.
struct ShapingField {
  const char* name;
  double RewardShaping::*member;
};
const std::vector<ShapingField>& shaping_fields();
// The request's `gold_sql`: a string (kept as it is) or a list of strings (entries that are blank under
// str.strip() dropped, as the Python API always did); the first is the gold, the rest its alternatives.
void parse_gold_sql(const nlohmann::json& body, VerdictRequest& request);

// The reply fields of the rules: `score` and `outcome` when the request had `shaping`, `gold_index`
// when it had gold alternatives. A reply to a request without them is unchanged.
void rules_to_json(const VerdictRequest& request, const Verdict& v, nlohmann::json& reply);
// The reply's `reward_components` (request field `reward_components: true`; names in shaping.cpp).
nlohmann::json reward_components(const VerdictRequest& request, const Verdict& v);

// The request's `verify`: absent, null or false → none; true → the defaults (0.2 s, 50 candidates,
// seed 0, on_unverified "match"); an object {budget, candidates, seed, on_unverified} (each optional;
// the numbers bounded by the table rows verify_budget, verify_candidates, seed; on_unverified "match"
// or "zero"). Anything else: BadRequest/InputError naming the field.
std::optional<VerdictRequest::VerifyOption> parse_verify_option(const nlohmann::json& body);

// reply["verify"] when the verdict carries one.
void verify_to_json(const Verdict& v, nlohmann::json& reply);

}  // namespace sqlgrade::verdicts
