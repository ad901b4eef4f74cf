#include "sqlgrade/answer/extract.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <vector>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/str.hpp"

namespace sqlgrade::answer {

const char* to_string(ExtractSource s) {
  switch (s) {
    case ExtractSource::None: return "none";
    case ExtractSource::SqlBlock: return "sql_block";
    case ExtractSource::GenericBlock: return "generic_block";
    case ExtractSource::Tag: return "tag";
    case ExtractSource::JsonAnswer: return "json_answer";
    case ExtractSource::RawText: return "raw_text";
    case ExtractSource::UnclosedThink: return "unclosed_think";
    case ExtractSource::Filler: return "filler";
  }
  return "none";
}

namespace {

size_t skip_spaces(std::string_view s, size_t i) {
  while (i < s.size()) {
    size_t n = py::space_len(s, i);
    if (!n) break;
    i += n;
  }
  return i;
}

bool match_ci(std::string_view s, size_t i, std::string_view word) {
  if (i + word.size() > s.size()) return false;
  for (size_t k = 0; k < word.size(); ++k)
    if (ascii_lower(s[i + k]) != word[k]) return false;
  return true;
}

size_t find_ci(std::string_view s, std::string_view word, size_t from) {
  for (size_t i = from; i + word.size() <= s.size(); ++i)
    if (match_ci(s, i, word)) return i;
  return std::string_view::npos;
}

// re.findall(OPEN + r"\s*([\s\S]*?)\s*```", text): the lazy group ends at the first "```" after the
// opener's whitespace; matches do not overlap. Contents are returned unstripped-at-the-front-only
// (callers strip).
std::vector<std::string_view> fenced_blocks(std::string_view text, std::string_view opener, bool ci) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t i = ci ? find_ci(text, opener, pos) : text.find(opener, pos);
    if (i == std::string_view::npos) break;
    size_t j = skip_spaces(text, i + opener.size());
    size_t p = text.find("```", j);
    if (p == std::string_view::npos) break;  // no closer: no later opener can close either
    out.push_back(text.substr(j, p - j));
    pos = p + 3;
  }
  return out;
}

constexpr std::array<std::string_view, 8> kBlockKeywords = {"select", "insert", "update", "delete",
                                                            "with",   "create", "alter",  "drop"};
constexpr std::array<std::string_view, 5> kRawKeywords = {"select", "insert", "update", "delete", "with"};

// Keyword at i followed by one whitespace character.
template <size_t N>
bool keyword_at(std::string_view s, size_t i, const std::array<std::string_view, N>& kws) {
  for (auto kw : kws)
    if (match_ci(s, i, kw) && i + kw.size() < s.size() && py::space_len(s, i + kw.size())) return true;
  return false;
}

bool is_word_byte(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return u >= 0x80 || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_';
}

// Last <solution>…</solution> or <answer>…</answer> (tag names case-insensitive) with non-empty content.
std::optional<std::string> last_tag(std::string_view text) {
  struct Hit {
    size_t at;
    std::string_view content;
  };
  std::optional<Hit> best;
  for (std::string_view tag : {std::string_view("solution"), std::string_view("answer")}) {
    std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
    size_t pos = 0;
    while (true) {
      size_t a = find_ci(text, open, pos);
      if (a == std::string_view::npos) break;
      size_t b = find_ci(text, close, a + open.size());
      if (b == std::string_view::npos) break;
      std::string_view content = py::strip_view(text.substr(a + open.size(), b - a - open.size()));
      if (!content.empty() && (!best || a > best->at)) best = Hit{a, content};
      pos = b + close.size();
    }
  }
  if (!best) return std::nullopt;
  return std::string(best->content);
}

// End (exclusive) of the balanced JSON object starting at s[i] == '{', string-aware; npos if none.
size_t json_object_end(std::string_view s, size_t i) {
  int depth = 0;
  bool in_str = false;
  for (size_t k = i; k < s.size(); ++k) {
    char c = s[k];
    if (in_str) {
      if (c == '\\') ++k;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') in_str = true;
    else if (c == '{') ++depth;
    else if (c == '}' && --depth == 0) return k + 1;
  }
  return std::string_view::npos;
}

// Parses `text` as JSON: false when it is not an object; else true, with *value = its "answer" member
// when that is a string (nullopt otherwise).
bool answer_object(std::string_view text, std::optional<std::string>* value) {
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return false;
  auto it = j.find("answer");
  if (it != j.end() && it->is_string()) *value = it->get<std::string>();
  return true;
}

// JsonAnswerRule::LastKeyStripped (bounded search from the end).
std::optional<std::string> last_key_answer(std::string_view text) {
  size_t end = text.size();
  for (int tries = 0; tries < 8; ++tries) {
    size_t k = text.rfind("\"answer\"", end);
    if (k == std::string_view::npos) break;
    size_t b = k;
    for (int opens = 0; opens < 16 && b > 0;) {
      b = text.rfind('{', b - 1);
      if (b == std::string_view::npos) break;
      ++opens;
      size_t e = json_object_end(text, b);
      if (e == std::string_view::npos || e <= k) continue;
      std::optional<std::string> a;
      if (answer_object(text.substr(b, e - b), &a)) {
        if (a) {
          std::string v = py::strip(*a);
          if (!v.empty()) return v;
        }
        break;  // the innermost object holding this key was not a usable answer
      }
    }
    if (k == 0) break;
    end = k - 1;
  }
  return std::nullopt;
}

std::optional<std::string> answer_of(std::string_view text) {
  std::optional<std::string> a;
  answer_object(text, &a);
  return a;
}

// JsonAnswerRule::WholeFencedOrLastObject.
std::optional<std::string> whole_fenced_or_last_answer(std::string_view out) {
  if (auto a = answer_of(trim_view(out))) return a;
  // Fenced blocks (the body starts after the opener's line), last first.
  std::vector<std::string_view> blocks;
  for (size_t p = out.find("```"); p != std::string_view::npos;) {
    size_t body = out.find('\n', p + 3);
    if (body == std::string_view::npos) break;
    size_t end = out.find("```", body + 1);
    if (end == std::string_view::npos) break;
    blocks.push_back(out.substr(body + 1, end - body - 1));
    p = out.find("```", end + 3);
  }
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it)
    if (auto a = answer_of(trim_view(*it))) return a;
  // Any balanced object in the text; the last one with a string "answer" wins.
  std::optional<std::string> last;
  for (size_t p = out.find('{'); p != std::string_view::npos; p = out.find('{', p + 1)) {
    size_t e = json_object_end(out, p);
    if (e == std::string_view::npos) continue;
    if (auto a = answer_of(out.substr(p, e - p))) {
      last = a;
      p = e - 1;
    }
  }
  return last;
}

}  // namespace

std::optional<std::string> json_answer(std::string_view text, JsonAnswerRule rule) {
  return rule == JsonAnswerRule::LastKeyStripped ? last_key_answer(text) : whole_fenced_or_last_answer(text);
}

std::string spider2_sql_block(std::string_view text) {
  size_t open = text.find("```sql\n");
  while (open != std::string_view::npos) {
    size_t body = open + 7;
    // The lazy group may be empty ("```sql\n\n```"); the closing "\n```" cannot reuse the opening newline.
    size_t close = text.find("\n```", body);
    if (close != std::string_view::npos) return py::strip(text.substr(body, close - body));
    open = text.find("```sql\n", open + 1);
  }
  return std::string(text);
}

std::optional<std::string_view> answer_after_think(std::string_view text) {
  constexpr std::string_view kOpen = "<think>", kClose = "</think>";
  if (size_t close = text.rfind(kClose); close != std::string_view::npos) text.remove_prefix(close + kClose.size());
  if (text.find(kOpen) != std::string_view::npos) return std::nullopt;
  return text;
}

Extracted extract_sql(std::string_view text, const ExtractOptions& opt) {
  if (opt.preset != ExtractPreset::Sqlgrade) return gym_bird_extract(text, opt.preset);
  Extracted out;
  if (opt.after_think) {
    auto answer = answer_after_think(text);
    if (!answer) {
      out.source = ExtractSource::UnclosedThink;
      return out;
    }
    text = *answer;
  }
  if (text.empty()) return out;

  // 1. ```sql blocks: the last one, stripped, even if empty (NeMo returns it and then sees no SQL).
  auto sql_blocks = fenced_blocks(text, "```sql", /*ci=*/true);
  if (!sql_blocks.empty()) {
    out.source = ExtractSource::SqlBlock;
    std::string_view s = py::strip_view(sql_blocks.back());
    if (!s.empty()) out.sql = std::string(s);
    return out;
  }

  // 2. generic ``` blocks whose content starts with a SQL keyword + whitespace; the last one.
  auto blocks = fenced_blocks(text, "```", /*ci=*/false);
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
    std::string_view c = py::strip_view(*it);
    if (keyword_at(c, 0, kBlockKeywords)) {
      out.source = ExtractSource::GenericBlock;
      out.sql = std::string(c);
      return out;
    }
  }

  // 3. sqlgrade extension: tags, then a JSON answer object.
  if (opt.tags_and_json) {
    if (auto t = last_tag(text)) {
      out.source = ExtractSource::Tag;
      out.sql = std::move(*t);
      return out;
    }
    if (auto j = json_answer(text, JsonAnswerRule::LastKeyStripped)) {
      out.source = ExtractSource::JsonAnswer;
      out.sql = std::move(*j);
      return out;
    }
  }

  // 4. raw text.
  if (opt.raw_fallback) {
    size_t start = std::string_view::npos;
    for (size_t i = 0; i < text.size(); ++i) {
      if (opt.word_boundary && i > 0 && is_word_byte(text[i - 1])) continue;
      if (keyword_at(text, i, kRawKeywords)) {
        start = i;
        break;
      }
    }
    if (start != std::string_view::npos) {
      size_t semi = text.rfind(';');
      std::string_view piece = (semi != std::string_view::npos && semi >= start) ? text.substr(start, semi + 1 - start)
                                                                                 : text.substr(start);
      piece = py::strip_view(piece);
      while (!piece.empty() && piece.back() == ';') piece.remove_suffix(1);
      out.source = ExtractSource::RawText;
      out.sql = std::string(piece) + ";";
      return out;
    }
  }
  return out;
}

bool holds_no_statement(std::string_view sql) {
  sql = sql.substr(0, sql.find('\0'));  // SQLite reads no further (comments included)
  size_t i = 0, n = sql.size();
  while (i < n) {
    char c = sql[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ';') {
      ++i;
    } else if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
      size_t e = sql.find('\n', i + 2);
      i = e == std::string_view::npos ? n : e + 1;
    } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
      size_t e = sql.find("*/", i + 2);
      i = e == std::string_view::npos ? n : e + 2;
    } else {
      return false;
    }
  }
  return true;
}

Extracted extract_reward_sql(std::string_view text, const ExtractOptions& opt) {
  Extracted out = extract_sql(text, opt);
  if (out.sql && holds_no_statement(*out.sql)) out.sql.reset();
  return out;
}

}  // namespace sqlgrade::answer
