#pragma once
// Wire format of the reward server (NeMo Gym `spider2_lite`, spec §6.1b): benchmark names, request
// checks, gold_result cells as values, JSON helpers. Internal to the serve module.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/serve/server.hpp"
#include "sqlgrade/core/json.hpp"
#include "sqlgrade/core/table.hpp"

namespace sqlgrade::serve {

enum class Bench { Spider2, Spider, Bird };

const char* bench_name(Bench b);
// The request's `benchmark` (default spider2); throws BadRequest for an unknown name.
Bench parse_bench(const nlohmann::json& req);
// spider2 (spider2_lite, spider2-lite, spider2lite), spider (testsuite, test-suite) or bird, any case.
Bench bench_from_name(const std::string& name);

// A db_id names a file below the database folder and nothing else.
bool safe_db_id(const std::string& s);

// Deepest nesting of arrays/objects in a JSON text (core/json.hpp: the bound every JSON input shares).
// nlohmann's parser is iterative, but copying and dumping a value recurse: a hostile body of 10^6 '['
// would overflow the stack.
using sqlgrade::json_depth;
using sqlgrade::kMaxJsonDepth;
// Parses a request body: BadRequest when it is nested too deeply; json::parse_error when invalid.
// Lone surrogate escapes are read as surrogates.hpp says (model output keeps them; elsewhere a 400).
nlohmann::json parse_body(std::string_view body);

// Every reply is dumped with invalid UTF-8 replaced by U+FFFD (a reply never throws).
std::string dump(const nlohmann::json& j);
Reply error_reply(int status, const std::string& message);

// A numeric request field checked against its row of the table of bounds (core/bounds.hpp), with the
// message the CLI flag and the Python argument give: absent or null → nullopt; not a number or out of
// bounds → BadRequest "<key>: must be a number of seconds in (0, 86400]; got 1e+300" (HTTP 400).
std::optional<double> bounded_field(const nlohmann::json& req, const char* key, std::string_view bound);

// request[key] as a boolean option (absent/null: unchanged); BadRequest when it is not a boolean.
void set_bool_opt(const nlohmann::json& o, const char* key, bool& dst);

// The request fields a verify reply echoes (the NeMo shape): the fields of NeMo's request schema and
// NeMo Gym's `_ng_*` bookkeeping whatever their size; any other field only while it fits, with the
// other such fields echoed, in kMaxUnknownEchoBytes (serialized), so that a reply never carries back megabytes a
// client invented. The names left out go to `dropped` (at most 32, each cut to 64 bytes).
// db_id, question, gold_sql, gold_result, ignore_order and condition_cols are not echoed (the reply
// sets its own db_id, question and gold_sql).
inline constexpr size_t kMaxUnknownEchoBytes = 64u << 10;
nlohmann::json echo_fields(const nlohmann::json& req, std::vector<std::string>* dropped);

// A JSON cell of gold_result as the value Python's sqlite3/csv path would hold.
Value json_to_value(const nlohmann::json& v, Bench b);
// gold_result: [alternative][row][cell] -> one Table per alternative (columns c0..; short rows padded).
std::vector<Table> gold_tables(const nlohmann::json& gr, Bench b);

}  // namespace sqlgrade::serve
