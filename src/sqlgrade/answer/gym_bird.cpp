// NeMo Gym bird_sql's `extract_sql_from_response`, one function per pinned Gym version (the presets
// gym-bird-0.4 and gym-bird-0.7 of include/sqlgrade/extract.hpp). Behaviour read from the nemo-gym
// 0.4.0 and 0.7.0 wheels (resources_servers/bird_sql/app.py); written here from that description:
//
//  * Both: the contents of Python's re.findall(r"(?:```sql)(.*?[a-zA-Z].*?)(?:```)", text, re.DOTALL),
//    the LAST one. From an opener, the content runs to the first ``` after the first ASCII letter
//    that follows the opener — so a block holding no letter reaches past its own closing fence into
//    the next one (a Gym quirk, kept). 0.7 adds re.IGNORECASE and \b after `sql` (```SQL opens a block,
//    ```sqlite does not; 0.4 is case-sensitive and ```sqlite opens one, leaving "ite" in the query).
//  * 0.4: comments removed with re.sub(r"--.*?$|/\*.*?\*/", "", ans, re.DOTALL) — without MULTILINE a
//    `--` eats to the end of the text (Gym's documented quirk: the rest of the query is lost), an
//    unterminated `/*` stays; whitespace runs (Python \s) become one space; a leading **bold** header
//    is dropped (re.sub(r"^\*\*.*\*\*", "")); strip(). No block (or no text): the filler `SELECT 1`,
//    which Gym 0.4 executes and compares like any query.
//  * 0.7 (Gym PR #2898): strip(), the **bold** header dropped (its `.` stops at the first newline),
//    strip(); comments and newlines kept. No block: no SQL (Gym scores 0 without executing).
// Python's IGNORECASE would also let `ſ` (U+017F) match `s` and the Kelvin sign `k` — in an opener or as
// the "letter" — which this ASCII folding does not (the same accepted difference as extract.cpp's).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/str.hpp"

namespace sqlgrade::answer {

namespace {

bool ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The code point at s[i] of well-formed UTF-8 (0xFFFD for a stray byte).
uint32_t code_point(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return c;
  const int n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if (n == 0) return 0xFFFD;
  uint32_t cp = c & (0x3Fu >> n);
  for (int k = 1; k <= n; ++k) {
    if (i + k >= s.size()) return 0xFFFD;
    const unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0xFFFD;
    cp = (cp << 6) | (d & 0x3Fu);
  }
  return cp;
}

// Python's \w on str (Unicode): alphanumeric or '_'.
bool word_char(uint32_t cp) { return cp == '_' || py::is_alnum(cp); }

bool opener_at(std::string_view t, size_t p, bool v07) {
  if (t.compare(p, 3, "```") != 0 || p + 6 > t.size()) return false;
  for (int k = 0; k < 3; ++k) {
    const char c = t[p + 3 + k];
    if (v07 ? ascii_lower(c) != "sql"[k] : c != "sql"[k]) return false;
  }
  return !v07 || p + 6 == t.size() || !word_char(code_point(t, p + 6));  // \b after "sql"
}

// The content of the last re.findall match (see the header comment), or nullopt when there is none.
std::optional<std::string_view> last_block(std::string_view t, bool v07) {
  std::optional<std::string_view> last;
  size_t pos = 0;
  while (true) {
    size_t p = t.find("```", pos);
    while (p != std::string_view::npos && !opener_at(t, p, v07)) p = t.find("```", p + 1);
    if (p == std::string_view::npos) return last;
    const size_t content = p + 6;
    size_t letter = content;
    while (letter < t.size() && !ascii_letter(t[letter])) ++letter;
    if (letter >= t.size()) return last;  // no later opener can match either
    const size_t close = t.find("```", letter + 1);
    if (close == std::string_view::npos) return last;
    last = t.substr(content, close - content);
    pos = close + 3;
  }
}

// re.sub(r"--.*?$|/\*.*?\*/", "", s, flags=re.DOTALL): `$` (no MULTILINE) is the end of the text or
// just before its final newline, so a `--` runs there.
std::string strip_comments_04(std::string_view s) {
  std::string out;
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    if (s[i] == '-' && i + 1 < n && s[i + 1] == '-') {
      i = n > 0 && s[n - 1] == '\n' && n - 1 >= i + 2 ? n - 1 : n;
      continue;
    }
    if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t e = s.find("*/", i + 2);
      if (e != std::string_view::npos) {
        i = e + 2;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

// re.sub(r"\s+", " ", s)
std::string collapse_space(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t w = py::space_len(s, i);
    if (!w) {
      out += s[i++];
      continue;
    }
    while (i < s.size() && (w = py::space_len(s, i))) i += w;
    out += ' ';
  }
  return out;
}

// re.sub(r"^\*\*.*\*\*", "", s): from a leading "**" to the last "**" of the first line.
std::string drop_bold_header(std::string s) {
  if (s.compare(0, 2, "**") != 0) return s;
  const size_t eol = s.find('\n');
  const std::string_view line = std::string_view(s).substr(0, eol);
  const size_t k = line.rfind("**");
  if (k == std::string_view::npos || k < 2) return s;
  return s.substr(k + 2);
}

}  // namespace

const char* to_string(ExtractPreset p) {
  switch (p) {
    case ExtractPreset::GymBird04: return "gym-bird-0.4";
    case ExtractPreset::GymBird07: return "gym-bird-0.7";
    case ExtractPreset::Sqlgrade: break;
  }
  return "sqlgrade";
}

namespace {
constexpr ExtractPreset kPresets[] = {ExtractPreset::Sqlgrade, ExtractPreset::GymBird04, ExtractPreset::GymBird07};
}

std::optional<ExtractPreset> preset_from_name(std::string_view name) {
  for (ExtractPreset p : kPresets)
    if (name == to_string(p)) return p;
  return std::nullopt;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (ExtractPreset p : kPresets) out.push_back(to_string(p));
  return out;
}

Extracted gym_bird_extract(std::string_view text, ExtractPreset preset) {
  const bool v07 = preset == ExtractPreset::GymBird07;
  Extracted out;
  std::optional<std::string_view> block = text.empty() ? std::nullopt : last_block(text, v07);
  if (!block) {
    if (!v07) {
      out.sql = "SELECT 1";  // Gym 0.4's filler: executed, so it matches a gold whose result is that row
      out.source = ExtractSource::Filler;
    }
    return out;
  }
  out.source = ExtractSource::SqlBlock;
  std::string s = v07 ? py::strip(*block) : collapse_space(strip_comments_04(*block));
  s = py::strip(drop_bold_header(std::move(s)));
  if (!s.empty()) out.sql = std::move(s);  // 0.4 can strip everything (Gym then runs ""; see docs/serve.md)
  return out;
}

}  // namespace sqlgrade::answer
