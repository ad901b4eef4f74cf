#pragma once
// Lone UTF-16 surrogates in requests (issue 19, finding 14; the decision is in docs/python.md,
// "Text that is not valid Unicode").
//
// A model output can hold a lone surrogate: a high half (U+D800..U+DBFF) without its low half, or a
// low one alone — a tokenizer or a streaming client that cut an emoji between its two UTF-16 code
// units. JSON encoders write it as the escape "\ud83d"; Python keeps it in a str. It is not Unicode,
// and nlohmann (rightly, RFC 8259 §8.2) refuses to parse it.
//
// What is graded is what the official scripts would do: the text around the SQL is never read, so a
// lone surrogate there changes nothing; one inside the SQL makes Python's sqlite3 raise
// UnicodeEncodeError ("surrogates not allowed"), and every official script scores an exception 0.
// So model output keeps each lone surrogate as its 3-byte WTF-8 form (ED A0..BF xx) until the SQL is
// extracted, and a SQL that is not valid UTF-8 is refused (sql_not_unicode). Any other field with a
// lone surrogate (gold SQL, db_id, labels, prompts) is bad input: a 400 naming the field.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sqlgrade::verdicts {

// "" when `text` is valid UTF-8; else what its first bad sequence is: "a lone surrogate (U+D83D) at
// byte 12" or "the byte 0xFF at byte 3, which is not UTF-8".
std::string unicode_problem(std::string_view text);

// "" when the prediction SQL can be run; else why not (no SQL that is not valid UTF-8 is run: Python's
// sqlite3 cannot even receive one). A verdict makes it an execution error, an observation an error.
std::string sql_not_unicode(std::string_view sql);

// The message of a lone surrogate (`code_unit`) where only model output may hold one: "`gold_sql`:
// not valid Unicode: a lone surrogate (U+D83D); only the model output may hold one". `where` is the
// field's path (labels[3].gold_sql); "" names the body itself.
std::string lone_surrogate_error(const std::string& where, unsigned code_unit);

// The request fields that are model output and so may hold lone surrogates: model_output and sql
// (/verify, /execute), response (NeMo Gym's Responses object), query (OpenRLHF's prompt + response).
bool is_model_output_field(std::string_view top_level_key);

// The fallback of parse_body for a body nlohmann refused: nullopt when the body holds no lone
// surrogate escape (the caller reports the parse error); else the body parsed, with each lone
// surrogate of a model-output field as its WTF-8 bytes. Throws BadRequest naming the field when any
// other field (or a field name) holds one. Costs nothing on bodies that parse.
std::optional<nlohmann::json> parse_with_lone_surrogates(std::string_view body);

}  // namespace sqlgrade::verdicts
