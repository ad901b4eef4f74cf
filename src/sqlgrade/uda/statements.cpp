#include "sqlgrade/uda/statements.hpp"

#include <cctype>
#include <optional>
#include <charconv>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/text.hpp"

namespace sqlgrade::uda {

namespace {

// \s of the ECMAScript regex grammar (classic locale): space, \t, \n, \v, \f, \r.
bool re_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// A label comment: `\s*WORD\s+(\d+)\s*:?\s*(.*)` matching the whole text, case-insensitively, where `.`
// stops at line ends (the standard-library regex patterns this replaces, whose recursive matcher overflowed the
// stack on a ~50 KB comment line). With `colon` the ':' is required. Linear, no recursion.
struct LabelParts {
  std::string_view digits, rest;
};
std::optional<LabelParts> match_label(std::string_view s, std::string_view word, bool colon) {
  const size_t n = s.size();
  size_t i = 0;
  while (i < n && re_space(s[i])) ++i;
  if (n - i < word.size()) return std::nullopt;
  for (size_t k = 0; k < word.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(s[i + k])) != word[k]) return std::nullopt;
  i += word.size();
  const size_t ws = i;
  while (i < n && re_space(s[i])) ++i;
  if (i == ws) return std::nullopt;
  const size_t d = i;
  while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == d) return std::nullopt;
  LabelParts out;
  out.digits = s.substr(d, i - d);
  while (i < n && re_space(s[i])) ++i;
  if (i < n && s[i] == ':') ++i;
  else if (colon) return std::nullopt;
  while (i < n && re_space(s[i])) ++i;
  out.rest = s.substr(i);
  if (out.rest.find_first_of("\r\n") != std::string_view::npos) return std::nullopt;
  return out;
}

void apply_comment_metadata(SqlStatement& st, std::string& current_group) {
  for (auto& c : st.comments) {
    if (auto q = match_label(c, "query", false)) {
      // A label number too large for an int ("Query 99999999999") is kept as text only (stoi threw).
      int num = 0;
      auto [ptr, ec] = std::from_chars(q->digits.data(), q->digits.data() + q->digits.size(), num);
      if (ec == std::errc() && ptr == q->digits.data() + q->digits.size()) st.label_number = num;
      st.label = trim(c);
      std::string_view rest = q->rest;
      auto p = rest.find('(');
      st.category = trim(p == std::string_view::npos ? rest : rest.substr(0, p));
    } else if (auto g = match_label(c, "category", true)) {
      current_group = trim(g->rest);
    }
  }
  st.group = current_group;
}

}  // namespace

std::vector<SqlStatement> split_sql_statements(std::string_view text, const std::string& name) {
  if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF) text.remove_prefix(3);
  std::vector<SqlStatement> out;
  std::vector<std::string> pending_comments;
  std::string cur;
  long line = 1, start_line = 0;
  std::string group;
  size_t i = 0, n = text.size();
  auto flush = [&] {
    std::string sql = trim(cur);
    if (!sql.empty()) {
      SqlStatement st;
      st.index = static_cast<int>(out.size()) + 1;
      st.line = start_line;
      st.sql = sql;
      st.comments = pending_comments;
      apply_comment_metadata(st, group);
      out.push_back(std::move(st));
      pending_comments.clear();
    }
    cur.clear();
    start_line = 0;
  };
  while (i < n) {
    char c = text[i];
    bool in_statement = !trim_view(cur).empty();
    if (c == '-' && i + 1 < n && text[i + 1] == '-') {
      size_t e = text.find('\n', i);
      if (e == std::string_view::npos) e = n;
      if (!in_statement) pending_comments.push_back(trim(text.substr(i + 2, e - i - 2)));
      else cur += ' ';
      i = e;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      size_t e = text.find("*/", i + 2);
      if (e == std::string_view::npos) throw InputError(name, "unterminated /* comment", line);
      std::string_view body = text.substr(i + 2, e - i - 2);
      for (char ch : body)
        if (ch == '\n') ++line;
      if (!in_statement) pending_comments.push_back(trim(body));
      else cur += ' ';
      i = e + 2;
      continue;
    }
    if (c == '\'' || c == '"' || c == '`') {
      if (!in_statement) start_line = line;
      long lit_line = line;
      char q = c;
      cur += c;
      ++i;
      bool closed = false;
      while (i < n) {
        char d = text[i];
        if (d == '\n') ++line;
        cur += d;
        ++i;
        if (d == q) {
          if (i < n && text[i] == q) {
            cur += q;
            ++i;
            continue;
          }
          closed = true;
          break;
        }
      }
      if (!closed) throw InputError(name, std::string("unterminated quoted text starting with ") + q, lit_line);
      continue;
    }
    if (c == ';') {
      flush();
      ++i;
      continue;
    }
    if (c == '\n') ++line;
    if (!in_statement && !std::isspace(static_cast<unsigned char>(c))) start_line = line;
    cur += c;
    ++i;
  }
  flush();
  return out;
}

}  // namespace sqlgrade::uda
