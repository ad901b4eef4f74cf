// sqlparse 0.4.2 emulation, the statement level — see sqlparse.hpp: the first statement of a text as
// sqlparse's StatementSplitter cuts it (its split-level rules: parentheses, CREATE ... BEGIN/END blocks,
// DECLARE, IF/FOR/WHILE/CASE inside them) and remove_distinct on it. The lexer is sqlparse.cpp.
#include "sqlgrade/spider/sqlparse.hpp"

#include <algorithm>
#include <string>

namespace sqlgrade::spider::sqlparse {

namespace {

std::string upper_ascii(std::string_view s) {
  std::string o(s);
  for (char& c : o)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  return o;
}

}  // namespace

std::vector<Token> first_statement(std::string_view sql, bool* found) {
  // The statement is a prefix of the token list: it is cut in place (no copy of a long list).
  std::vector<Token> toks = tokenize(sql);
  size_t kept = 0;
  int level = 0;
  bool is_create = false, consume_ws = false;
  int begin_depth = 0;
  for (auto& tk : toks) {
    if (consume_ws && tk.type != TokType::Whitespace && tk.type != TokType::CommentSingle) {
      if (found) *found = true;
      toks.resize(kept);
      return toks;
    }
    // split level (StatementSplitter._change_splitlevel)
    if (tk.type == TokType::Punctuation && tk.text() == "(") {
      ++level;
    } else if (tk.type == TokType::Punctuation && tk.text() == ")") {
      --level;
    } else if (tk.type == TokType::Keyword) {
      std::string u = upper_ascii(tk.text());
      if (u.rfind("CREATE", 0) == 0) {
        is_create = true;
      } else if (u == "DECLARE" && is_create && begin_depth == 0) {
        ++level;
      } else if (u == "BEGIN") {
        ++begin_depth;
        if (is_create) ++level;
      } else if (u == "END") {
        begin_depth = std::max(0, begin_depth - 1);
        --level;
      } else if ((u == "IF" || u == "FOR" || u == "WHILE" || u == "CASE") && is_create && begin_depth > 0) {
        ++level;
      } else if (u.rfind("END", 0) == 0 && u.size() > 3) {
        // END IF / END WHILE (END LOOP keeps the level)
        std::string rest = u.substr(3);
        size_t k = 0;
        while (k < rest.size() && (rest[k] == ' ' || rest[k] == '\t' || rest[k] == '\n' || rest[k] == '\r')) ++k;
        rest = rest.substr(k);
        if (rest == "IF" || rest == "WHILE") --level;
      }
    }
    ++kept;
    if (level <= 0 && tk.type == TokType::Punctuation && tk.text() == ";") consume_ws = true;
  }
  bool any = false;
  for (auto& tk : toks)
    if (tk.type != TokType::Whitespace && tk.type != TokType::Newline) any = true;
  if (found) *found = any;
  if (!any) toks.clear();
  return toks;
}

std::string remove_distinct(std::string_view sql, bool* found) {
  bool f = false;
  std::vector<Token> toks = first_statement(sql, &f);
  if (found) *found = f;
  std::string out;
  out.reserve(sql.size());
  for (auto& tk : toks)
    if (!(tk.len == 8 && lower_ascii(tk.text()) == "distinct")) out += tk.text();
  return out;
}

}  // namespace sqlgrade::spider::sqlparse
