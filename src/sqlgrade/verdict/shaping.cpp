// The RL rules around an official verdict (verdict/shaping.hpp): reward shaping, the top-level ORDER BY
// rule, gold alternatives' JSON form. Before issue 20 these lived only in the Python package
// (sqlgrade/shaping.py, api.py); the Python API now sends them here, with the same numbers.
#include "sqlgrade/verdict/shaping.hpp"

#include <cstdint>

#include "sqlgrade/core/bounds.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/verdict/request.hpp"

namespace sqlgrade::verdicts {

using json = nlohmann::json;

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

OrderRule parse_order(const json& body) {
  auto it = body.find("order");
  if (it == body.end() || it->is_null()) return OrderRule::Benchmark;
  if (it->is_string() && *it == "benchmark") return OrderRule::Benchmark;
  if (it->is_string() && *it == "top_level") return OrderRule::TopLevel;
  std::string shown = dump(*it);
  if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
  throw BadRequest("`order` must be \"benchmark\" or \"top_level\"; got " + shown);
}

std::optional<RewardShaping> parse_shaping(const json& body) {
  auto it = body.find("shaping");
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_object()) throw BadRequest("`shaping` must be an object of correct, wrong_result, error, no_sql, gold_error");
  RewardShaping s;
  const std::pair<const char*, double*> fields[] = {{"correct", &s.correct}, {"wrong_result", &s.wrong_result},
                                                    {"error", &s.error}, {"no_sql", &s.no_sql},
                                                    {"gold_error", &s.gold_error}};
  for (auto f = it->begin(); f != it->end(); ++f) {
    bool known = false;
    for (auto& [key, dst] : fields) known = known || f.key() == key;
    if (!known)
      throw BadRequest("`shaping`: unknown option '" + f.key().substr(0, 64) +
                       "' (correct, wrong_result, error, no_sql, gold_error)");
  }
  for (auto& [key, dst] : fields)
    if (auto v = bounded_field(*it, key, "score", std::string("shaping.") + key)) *dst = *v;
  return s;
}

namespace {

// The golds of one field (a string, kept as it is, or a list of strings whose blank entries are
// dropped): the first becomes gold_sql when there is none yet, the rest alternatives.
void add_golds(const json& body, const char* field, VerdictRequest& r) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) return;
  auto add = [&](const json& g) {
    if (!r.gold_sql) r.gold_sql = g.get<std::string>();
    else r.gold_sql_alternatives.push_back(g.get<std::string>());
  };
  if (it->is_string()) return add(*it);
  if (!it->is_array()) throw BadRequest(std::string("`") + field + "` must be a string or a list of strings");
  for (size_t k = 0; k < it->size(); ++k) {
    const json& g = (*it)[k];
    if (!g.is_string()) throw BadRequest(std::string("`") + field + "[" + std::to_string(k) + "]` must be a string");
    if (!py::strip_view(g.get_ref<const std::string&>()).empty()) add(g);
  }
}

}  // namespace

void parse_gold_sql(const json& body, VerdictRequest& r) {
  add_golds(body, "gold_sql", r);
  add_golds(body, "alternative_answers", r);  // the adapters' data contract: more golds, any match counts
}

// reward_components (docs/serve.md, "Reward components"): the same keys for every rollout of a
// request shape, so a trainer's per-component tensors line up. 1.0/0.0 unless said otherwise.
//   sql_acc        the official verdict (execution_match; a refuted match keeps it)
//   sql_found      SQL was found in the output (not Gym 0.4's `SELECT 1` filler)
//   sql_executed   the prediction ran to a result
//   with `shaping`: shaping_<outcome> for each of the five outcomes — that outcome's shaping value
//                  when it is the verdict's outcome, else 0 (they sum to `score`)
//   with `verify`: sql_verified (the match stands after the search: reward 1), sql_refuted (a clean
//                  refutation), sql_unverified (the search was cut before it found anything)
json reward_components(const VerdictRequest& req, const Verdict& v) {
  auto b = [](bool x) { return x ? 1.0 : 0.0; };
  json c = json::object();
  c["sql_acc"] = b(v.execution_match);
  c["sql_found"] = b(v.extracted_sql && v.extraction_source != "filler");
  c["sql_executed"] = b(v.pred_executed.value_or(false));
  if (req.shaping) {
    for (VerdictOutcome o : {VerdictOutcome::Correct, VerdictOutcome::WrongResult, VerdictOutcome::Error,
                             VerdictOutcome::NoSql, VerdictOutcome::GoldError})
      c[std::string("shaping_") + to_string(o)] = v.outcome == o ? v.score : 0.0;
  }
  if (req.verify) {
    c["sql_verified"] = b(v.execution_match && v.stage == VerdictStage::Equal);
    c["sql_refuted"] = b(v.stage == VerdictStage::Refuted);
    c["sql_unverified"] = b(v.verify && v.verify->status == "unverified");
  }
  return c;
}

void rules_to_json(const VerdictRequest& req, const Verdict& v, json& reply) {
  if (req.reward_components) reply["reward_components"] = reward_components(req, v);
  if (req.shaping) {
    reply["score"] = v.score;
    reply["outcome"] = to_string(v.outcome);
  }
  if (!req.gold_sql_alternatives.empty()) reply["gold_index"] = v.gold_index;
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
