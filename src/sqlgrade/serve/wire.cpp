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

namespace {
bool ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
// The end of the JSON string that opens at t[i] ('"'), past its closing quote; npos if unterminated.
size_t string_end(std::string_view t, size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\') ++i;
    else if (t[i] == '"') return i + 1;
  }
  return std::string_view::npos;
}
// The end of the JSON value that starts at t[i] (t is valid JSON).
size_t value_end(std::string_view t, size_t i) {
  if (i >= t.size()) return std::string_view::npos;
  if (t[i] == '"') return string_end(t, i);
  if (t[i] != '{' && t[i] != '[') {
    while (i < t.size() && !ws(t[i]) && t[i] != ',' && t[i] != '}' && t[i] != ']') ++i;
    return i;
  }
  size_t depth = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"') {
      i = string_end(t, i);
      if (i == std::string_view::npos) return i;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) return i + 1;
    ++i;
  }
  return std::string_view::npos;
}
}  // namespace

std::optional<std::string_view> raw_member(std::string_view t, std::string_view key) {
  size_t i = 0;
  auto skip = [&] { while (i < t.size() && ws(t[i])) ++i; };
  skip();
  if (i >= t.size() || t[i] != '{') return std::nullopt;
  ++i;
  std::optional<std::string_view> found;
  while (true) {
    skip();
    if (i >= t.size() || t[i] != '"') return found;  // '}' (or not an object we can read)
    const size_t kend = string_end(t, i);
    if (kend == std::string_view::npos) return std::nullopt;
    const std::string_view k = t.substr(i + 1, kend - i - 2);
    if (k.find('\\') != std::string_view::npos) return std::nullopt;  // an escaped key: leave it to the parser
    i = kend;
    skip();
    if (i >= t.size() || t[i] != ':') return std::nullopt;
    ++i;
    skip();
    const size_t vend = value_end(t, i);
    if (vend == std::string_view::npos) return std::nullopt;
    if (k == key) found = t.substr(i, vend - i);  // the last one, as the parser keeps it
    i = vend;
    skip();
    if (i < t.size() && t[i] == ',') ++i;
  }
}

std::string with_raw_member(std::string dumped, std::string_view key, std::string_view raw) {
  if (dumped.empty() || dumped.back() != '}') return dumped;
  dumped.pop_back();
  if (dumped.size() > 1) dumped += ',';
  dumped += '"';
  dumped.append(key);
  dumped += "\":";
  dumped.append(raw);
  dumped += '}';
  return dumped;
}

Reply error_reply(int status, const std::string& message) { return Reply{status, dump(json{{"error", message}})}; }

}  // namespace sqlgrade::serve
