#include "sqlgrade/serve/wire.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "sqlgrade/verdict/surrogates.hpp"

namespace sqlgrade::serve {

using json = nlohmann::json;
using verdicts::BadRequest;
using verdicts::parse_with_lone_surrogates;

bool safe_db_id(const std::string& s) {
  if (s.empty() || s.size() > 255 || s[0] == '.') return false;
  for (char c : s)
    if (c == '/' || c == '\\' || c == '\0') return false;
  return true;
}

json parse_body(std::string_view body) {
  if (json_depth(body) > kMaxJsonDepth) throw BadRequest("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  try {
    return json::parse(body);
  } catch (const json::parse_error&) {
    // "\ud83d" without its pair (issue 19): graded when it is in model output, else a 400 naming the field.
    if (auto j = parse_with_lone_surrogates(body)) return std::move(*j);
    throw;
  }
}

Reply error_reply(int status, const std::string& message) { return Reply{status, dump(json{{"error", message}})}; }

}  // namespace sqlgrade::serve
