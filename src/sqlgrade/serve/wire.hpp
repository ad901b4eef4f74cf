#pragma once
// Wire format of the reward server (NeMo Gym `spider2_lite`, spec §6.1b): request bodies, db_id
// names, error replies. The request model itself (benchmark names, field checks, gold_result cells,
// echoed fields) is the verdict module's (verdict/request.hpp); serve/ only turns HTTP bodies into
// it and verdicts back into replies. Internal to the serve module.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/json.hpp"
#include "sqlgrade/serve/server.hpp"
#include "sqlgrade/verdict/request.hpp"

namespace sqlgrade::serve {

using verdicts::bench_of;
using verdicts::bounded_field;
using verdicts::dump;
using verdicts::echo_fields;
using verdicts::gold_tables;
using verdicts::json_to_value;
using verdicts::kMaxUnknownEchoBytes;
using verdicts::model_text;
using verdicts::parse_bench;
using verdicts::set_bool_opt;

// A db_id names a file below the database folder and nothing else.
bool safe_db_id(const std::string& s);

// Deepest nesting of arrays/objects in a JSON text (core/json.hpp: the bound every JSON input shares).
// nlohmann's parser is iterative, but copying and dumping a value recurse: a hostile body of 10^6 '['
// would overflow the stack.
using sqlgrade::json_depth;
using sqlgrade::kMaxJsonDepth;
// Parses a request body: BadRequest when it is nested too deeply; json::parse_error when invalid.
// Lone surrogate escapes are read as verdict/surrogates.hpp says (model output keeps them; elsewhere a 400).
nlohmann::json parse_body(std::string_view body);

Reply error_reply(int status, const std::string& message);

// The raw text of the top-level member `key` of a JSON object text, as the client sent it (the last
// one, as the parser keeps it); nullopt when absent, or when a key uses escapes. `body` must be JSON
// the parser accepted. /verify echoes `response` with it, byte for byte (NeMo Gym 0.7's contract:
// verify returns the response it received, unmodified; a re-serialised copy would reorder keys and
// respell numbers).
std::optional<std::string_view> raw_member(std::string_view body, std::string_view key);
// `dumped` (a serialised object) with "key":raw appended as its last member.
std::string with_raw_member(std::string dumped, std::string_view key, std::string_view raw);

}  // namespace sqlgrade::serve
