#include "sqlgrade/sql/statements.hpp"

#include <cctype>
#include <charconv>
#include <regex>

#include "sqlgrade/error.hpp"
#include "sqlgrade/util/text.hpp"

namespace sqlgrade {

namespace {

void apply_comment_metadata(SqlStatement& st, std::string& current_group) {
  static const std::regex query_re(R"(^\s*Query\s+(\d+)\s*:?\s*(.*)$)", std::regex::icase);
  static const std::regex cat_re(R"(^\s*Category\s+\d+\s*:\s*(.*)$)", std::regex::icase);
  for (auto& c : st.comments) {
    std::smatch m;
    if (std::regex_match(c, m, query_re)) {
      // A label number too large for an int ("Query 99999999999") is kept as text only (stoi threw).
      int num = 0;
      std::string digits = m[1].str();
      auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), num);
      if (ec == std::errc() && ptr == digits.data() + digits.size()) st.label_number = num;
      st.label = trim(c);
      std::string rest = m[2].str();
      auto p = rest.find('(');
      st.category = trim(p == std::string::npos ? rest : rest.substr(0, p));
    } else if (std::regex_match(c, m, cat_re)) {
      current_group = trim(m[1].str());
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

}  // namespace sqlgrade
