// What the two queries mention: their constants (the search's seeds) and the tables they read
// (candidate.hpp; split from candidate.cpp).
#include <set>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/number.hpp"
#include "sqlgrade/spider/sqlparse.hpp"
#include "sqlgrade/verify/candidate.hpp"

namespace sqlgrade::verify {

namespace {
using sqlgrade::spider::sqlparse::TokType;

void add_constant(std::vector<Constant>& out, Value v, const std::string& from) {
  for (auto& c : out)
    if (c.value == v) {
      if (c.from != from) c.from = "both";
      return;
    }
  out.push_back({std::move(v), from});
}

void constants_of(const std::string& sql, const std::string& from, std::vector<Constant>& out) {
  for (const auto& tok : spider::sqlparse::tokenize(sql)) {
    std::string t(tok.text());
    if (tok.type == TokType::Number) {
      if (auto i = py::parse_int(t)) add_constant(out, Value::integer(*i), from);
      else if (auto d = py::parse_float(t)) add_constant(out, Value::real(*d), from);
    } else if ((tok.type == TokType::StringSingle || tok.type == TokType::StringSymbol) && t.size() >= 2) {
      const std::string quote(1, t[0]);
      std::string body = replace_all(t.substr(1, t.size() - 2), quote + quote, quote);
      add_constant(out, Value::text(body), from);
      std::string bare;
      for (char c : body)
        if (c != '%' && c != '_') bare += c;
      if (bare != body && !bare.empty()) add_constant(out, Value::text(bare), from);
    }
  }
}

}  // namespace

bool SqlWord::is_word() const { return type == TokType::Name || type == TokType::StringSymbol || type == TokType::Keyword; }

std::vector<SqlWord> significant_words(const std::string& sql) {
  std::vector<SqlWord> out;
  for (const auto& t : spider::sqlparse::tokenize(sql)) {
    if (t.type == TokType::Whitespace || t.type == TokType::Newline || t.type == TokType::CommentSingle ||
        t.type == TokType::CommentMultiline)
      continue;
    SqlWord w{t.type, std::string(t.text()), to_lower(collapse_ws(t.text())), to_lower(t.text())};
    if (w.name.size() >= 2 && (w.name[0] == '"' || w.name[0] == '`' || w.name[0] == '['))
      w.name = w.name.substr(1, w.name.size() - 2);
    out.push_back(std::move(w));
  }
  return out;
}

std::vector<Constant> query_constants(const std::string& gold_sql, const std::string& pred_sql) {
  std::vector<Constant> out;
  constants_of(gold_sql, "gold", out);
  constants_of(pred_sql, "pred", out);
  return out;
}


std::vector<bool> tables_used(const Schema& s, const std::string& gold_sql, const std::string& pred_sql) {
  std::set<std::string> words;
  for (const std::string* q : {&gold_sql, &pred_sql})
    for (const auto& tok : spider::sqlparse::tokenize(*q)) {
      std::string t = to_lower(tok.text());
      if (t.size() >= 2 && (t[0] == '"' || t[0] == '`' || t[0] == '[')) t = t.substr(1, t.size() - 2);
      words.insert(t);
    }
  std::vector<bool> used(s.tables.size(), false);
  bool any_view = false;
  for (const auto& ddl : s.after_ddl)
    if (starts_with_ci(trim(ddl), "create view")) any_view = true;
  for (size_t i = 0; i < s.tables.size(); ++i) used[i] = any_view || words.count(to_lower(s.tables[i].name)) > 0;
  // Parents of used tables stay in (foreign keys need them).
  for (size_t t = s.tables.size(); t-- > 0;)
    if (used[t])
      for (const auto& fk : s.tables[t].fks)
        if (fk.parent != SIZE_MAX) used[fk.parent] = true;
  return used;
}

}  // namespace sqlgrade::verify
