// The RL rules around an official verdict (verdict/shaping.hpp): reward shaping, the top-level ORDER BY
// rule, gold alternatives' JSON form. Before issue 20 these lived only in the Python package
// (sqlgrade/shaping.py, api.py); the Python API now sends them here, with the same numbers.
#include "sqlgrade/verdict/shaping.hpp"

#include <cstdint>

#include "sqlgrade/core/bounds.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/verdict/request.hpp"

namespace sqlgrade::verdicts {


namespace {

// The code point starting at s[i] and its length; a byte that starts no well-formed sequence is one
// character that is neither a letter nor whitespace (Python would hold a lone surrogate there).
uint32_t next_char(std::string_view s, size_t i, size_t& len) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const auto cont = [&](size_t k) { return k < s.size() && (b(k) & 0xC0) == 0x80; };
  const unsigned char c = b(i);
  len = 1;
  if (c < 0x80) return c;
  uint32_t cp = 0;
  size_t n = 0;
  if (c >= 0xC2 && c <= 0xDF) cp = c & 0x1Fu, n = 2;
  else if (c >= 0xE0 && c <= 0xEF) cp = c & 0x0Fu, n = 3;
  else if (c >= 0xF0 && c <= 0xF4) cp = c & 0x07u, n = 4;
  for (size_t k = 1; k < n; ++k) {
    if (!cont(i + k)) return 0xDC00 + c;
    cp = (cp << 6) | (b(i + k) & 0x3Fu);
  }
  const bool ok = (n == 2) || (n == 3 && cp >= 0x800 && !(cp >= 0xD800 && cp <= 0xDFFF)) ||
                  (n == 4 && cp >= 0x10000 && cp <= 0x10FFFF);
  if (!ok) return 0xDC00 + c;  // surrogateescape's lone surrogate: not alphanumeric, not whitespace
  len = n;
  return cp;
}

bool same_word(std::string_view word, std::string_view lower) {
  if (word.size() != lower.size()) return false;
  for (size_t k = 0; k < word.size(); ++k)
    if ((word[k] | 0x20) != lower[k]) return false;
  return true;
}

// The end of a quoted part opened at s[i] ('…', "…", `…` with doubled quotes inside, […]): the index
// after its closing character, or s.size() when it is not closed.
size_t skip_quoted(std::string_view s, size_t i) {
  const char close = s[i] == '[' ? ']' : s[i];
  size_t j = i + 1;
  while (j < s.size()) {
    if (s[j] == close) {
      if (close != ']' && j + 1 < s.size() && s[j + 1] == close) {  // a doubled quote
        j += 2;
        continue;
      }
      break;
    }
    ++j;
  }
  return j + 1;
}

}  // namespace

bool has_top_level_order_by(std::string_view sql) {
  const size_t n = sql.size();
  size_t depth = 0, i = 0;
  bool after_order = false;  // the last word at depth 0, with nothing but whitespace or comments since, is ORDER
  while (i < n) {
    const char c = sql[i];
    if (c == '\'' || c == '"' || c == '`' || c == '[') {
      i = skip_quoted(sql, i), after_order = false;
    } else if (sql.compare(i, 2, "--") == 0) {
      const size_t j = sql.find('\n', i);
      i = j == std::string_view::npos ? n : j + 1;
    } else if (sql.compare(i, 2, "/*") == 0) {
      const size_t j = sql.find("*/", i + 2);
      i = j == std::string_view::npos ? n : j + 2;
    } else if (c == '(' || c == ')') {
      depth = c == '(' ? depth + 1 : (depth > 0 ? depth - 1 : 0);
      after_order = false, ++i;
    } else {
      size_t len = 0;
      const uint32_t cp = next_char(sql, i, len);
      if (py::is_alpha(cp) || cp == '_') {
        size_t j = i + len;
        for (size_t l = 0; j < n && (py::is_alnum(next_char(sql, j, l)) || sql[j] == '_'); j += l) {
        }
        if (depth == 0) {
          const std::string_view word = sql.substr(i, j - i);
          if (after_order && same_word(word, "by")) return true;
          after_order = same_word(word, "order");
        }
        i = j;
        continue;
      }
      if (!py::is_space(cp)) after_order = false;
      i += len;
    }
  }
  return false;
}

std::optional<bool> ignore_order_for(const VerdictRequest& req, const std::string& gold_sql) {
  if (req.ignore_order) return req.ignore_order;
  if (req.order == OrderRule::TopLevel && bench_of(req).has_order_rule())
    return !has_top_level_order_by(gold_sql);
  return std::nullopt;
}

VerdictOutcome outcome_of(const Verdict& v) {
  switch (v.stage) {
    case VerdictStage::Equal: return VerdictOutcome::Correct;
    case VerdictStage::Different:
    case VerdictStage::Refuted:  // a counterexample: the result is wrong on a database the schema allows
    case VerdictStage::Unverified: return VerdictOutcome::WrongResult;
    case VerdictStage::NoSql: return VerdictOutcome::NoSql;
    case VerdictStage::GoldFailed: return VerdictOutcome::GoldError;
    case VerdictStage::PredFailed:
    case VerdictStage::Timeout:
    case VerdictStage::TooLarge: break;
  }
  return VerdictOutcome::Error;
}

double score_of(const RewardShaping& s, VerdictOutcome o) {
  switch (o) {
    case VerdictOutcome::Correct: return s.correct;
    case VerdictOutcome::WrongResult: return s.wrong_result;
    case VerdictOutcome::NoSql: return s.no_sql;
    case VerdictOutcome::GoldError: return s.gold_error;
    case VerdictOutcome::Error: break;
  }
  return s.error;
}

}  // namespace sqlgrade::verdicts

namespace sqlgrade {

const char* to_string(OrderRule rule) { return rule == OrderRule::TopLevel ? "top_level" : "benchmark"; }

const char* to_string(VerdictOutcome o) {
  switch (o) {
    case VerdictOutcome::Correct: return "correct";
    case VerdictOutcome::WrongResult: return "wrong_result";
    case VerdictOutcome::NoSql: return "no_sql";
    case VerdictOutcome::GoldError: return "gold_error";
    case VerdictOutcome::Error: break;
  }
  return "error";
}

}  // namespace sqlgrade
