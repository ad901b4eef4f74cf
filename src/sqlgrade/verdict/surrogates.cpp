// Lone surrogates in requests (surrogates.hpp): the parse fallback for their JSON escapes, and the
// check that no prediction SQL that is not valid UTF-8 is run.
#include "sqlgrade/verdict/surrogates.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/verdict/request.hpp"

namespace sqlgrade::verdicts {

using json = nlohmann::json;

namespace {

// The marks of lone surrogates while the body is parsed: the noncharacters U+FDD0..U+FDEF, which
// Unicode reserves for a program's internal use; the first that the body does not hold is used.
constexpr unsigned kMark0 = 0xFDD0, kMarks = 32;

std::string hex(unsigned v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%0*X", digits, v);
  return buf;
}

long hex4(std::string_view s, size_t i) {
  if (i + 4 > s.size()) return -1;
  long v = 0;
  for (size_t k = i; k < i + 4; ++k) {
    const char c = s[k];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

bool is_high(long u) { return u >= 0xD800 && u <= 0xDBFF; }
bool is_low(long u) { return u >= 0xDC00 && u <= 0xDFFF; }

// A BMP code point (surrogates included: WTF-8) as its 3-byte UTF-8 form.
void put3(unsigned u, std::string& out) {
  out += static_cast<char>(0xE0 | (u >> 12));
  out += static_cast<char>(0x80 | ((u >> 6) & 0x3F));
  out += static_cast<char>(0x80 | (u & 0x3F));
}

// Length of the UTF-8 sequence a lead byte announces (0: not a lead byte).
size_t lead_length(unsigned char c) {
  return c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
}

struct Scan {
  std::vector<size_t> lone;  // offsets of the '\' of each lone-surrogate escape
  uint32_t marks_used = 0;   // bit k: the body holds U+FDD0 + k (raw or escaped)
};

// One pass over the JSON text, inside its strings only.
Scan scan(std::string_view s) {
  Scan r;
  bool in_str = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (!in_str || c == '"') {
      in_str = !in_str ? c == '"' : false;
      continue;
    }
    if (c == 0xEF && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xB7) {
      const unsigned b = static_cast<unsigned char>(s[i + 2]);
      if (b >= 0x90 && b <= 0xAF) r.marks_used |= 1u << (b - 0x90);
    }
    if (c != '\\') continue;
    const long u = i + 1 < s.size() && s[i + 1] == 'u' ? hex4(s, i + 2) : -1;
    if (u < 0) {  // another escape (or a bad one, which the parser reports)
      ++i;
      continue;
    }
    if (u >= kMark0 && u < kMark0 + kMarks) r.marks_used |= 1u << (u - kMark0);
    if (is_high(u) && i + 12 <= s.size() && s[i + 6] == '\\' && s[i + 7] == 'u' && is_low(hex4(s, i + 8))) {
      i += 11;  // a pair: one character
      continue;
    }
    if (is_high(u) || is_low(u)) r.lone.push_back(i);
    i += 5;
  }
  return r;
}

// Writes the mark's escape and then the surrogate's four hex digits (as text) for each lone escape.
std::string rewrite(std::string_view s, const std::vector<size_t>& lone, unsigned mark) {
  const std::string esc = "\\u" + hex(mark, 4);
  std::string out;
  out.reserve(s.size() + esc.size() * lone.size());
  size_t at = 0;
  for (size_t i : lone) {
    out.append(s.substr(at, i - at)).append(esc).append(s.substr(i + 2, 4));
    at = i + 6;
  }
  out.append(s.substr(at));
  return out;
}

// Puts the lone surrogates of model output back as WTF-8; anywhere else they are bad input.
struct Restore {
  std::string mark;  // the mark's UTF-8
  std::string path;  // of the value being walked: labels[3].gold_sql

  void value(json& j, bool model) {
    const size_t n = path.size();
    if (j.is_string()) {
      text(j.get_ref<std::string&>(), model);
    } else if (j.is_array()) {
      for (size_t i = 0; i < j.size(); ++i) {
        path += "[" + std::to_string(i) + "]";
        value(j[i], model);
        path.resize(n);
      }
    } else if (j.is_object()) {
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key().find(mark) != std::string::npos)
          throw BadRequest("a field name" + (path.empty() ? std::string() : " in `" + path + "`") +
                           " holds a lone surrogate: not valid Unicode");
        const bool top = path.empty();
        path += (top ? "" : ".") + it.key();
        value(it.value(), model || (top && is_model_output_field(it.key())));
        path.resize(n);
      }
    }
  }

  void text(std::string& s, bool model) {
    size_t p = s.find(mark);
    if (p == std::string::npos) return;
    if (!model) throw BadRequest(lone_surrogate_error(path, static_cast<unsigned>(hex4(s, p + 3))));
    std::string out;
    out.reserve(s.size());
    size_t at = 0;
    for (; p != std::string::npos; p = s.find(mark, at)) {
      out.append(s, at, p - at);
      put3(static_cast<unsigned>(hex4(s, p + 3)), out);
      at = p + 7;  // the mark (3 bytes) and the four hex digits
    }
    out.append(s, at);
    s = std::move(out);
  }
};

}  // namespace

std::string unicode_problem(std::string_view text) {
  if (is_valid_utf8(text)) return "";
  size_t i = 0;
  for (size_t n; i < text.size() && (n = lead_length(static_cast<unsigned char>(text[i]))) != 0 &&
                 i + n <= text.size() && is_valid_utf8(text.substr(i, n));)
    i += n;
  const auto c = static_cast<unsigned char>(text[i]);
  if (c == 0xED && i + 2 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xE0) == 0xA0 &&
      (static_cast<unsigned char>(text[i + 2]) & 0xC0) == 0x80) {
    const unsigned u = 0xD000 | ((static_cast<unsigned char>(text[i + 1]) & 0x3F) << 6) |
                       (static_cast<unsigned char>(text[i + 2]) & 0x3F);
    return "a lone surrogate (U+" + hex(u, 4) + ") at byte " + std::to_string(i);
  }
  return "the byte 0x" + hex(c, 2) + " at byte " + std::to_string(i) + ", which is not UTF-8";
}

std::string lone_surrogate_error(const std::string& where, unsigned code_unit) {
  return (where.empty() ? std::string("the body") : "`" + where + "`") + ": not valid Unicode: a lone surrogate (U+" +
         hex(code_unit, 4) + "); only the model output may hold one";
}

std::string sql_not_unicode(std::string_view sql) {
  std::string why = unicode_problem(sql);
  if (why.empty()) return why;
  return "the SQL is not valid Unicode: it holds " + why + "; Python's sqlite3 refuses such a string (UnicodeEncodeError)";
}

bool is_model_output_field(std::string_view key) {
  return key == "model_output" || key == "sql" || key == "response" || key == "query";
}

std::optional<json> parse_with_lone_surrogates(std::string_view body) {
  const Scan sc = scan(body);
  if (sc.lone.empty()) return std::nullopt;
  if (sc.marks_used == 0xFFFFFFFFu)
    throw BadRequest("the body holds lone surrogates and also every character U+FDD0..U+FDEF; send valid Unicode");
  unsigned k = 0;
  while (sc.marks_used >> k & 1u) ++k;
  Restore r;
  put3(kMark0 + k, r.mark);
  json j = json::parse(rewrite(body, sc.lone, kMark0 + k), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;  // another error too: the caller reports the first one
  r.value(j, false);
  return j;
}

}  // namespace sqlgrade::verdicts
