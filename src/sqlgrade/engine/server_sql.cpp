// Statement texts for servers: splitting and the query check — see server_sql.hpp.
#include "sqlgrade/engine/server_sql.hpp"

#include <cctype>

#include "sqlgrade/core/text.hpp"

namespace sqlgrade::server_sql {

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80; }

// The end of a PostgreSQL dollar-quote tag starting at `i` ($tag$), or npos when `i` starts none.
size_t dollar_tag_end(std::string_view s, size_t i) {
  if (s[i] != '$') return std::string_view::npos;
  if (i > 0 && ident_char(s[i - 1])) return std::string_view::npos;  // $ inside an identifier (a$b)
  size_t j = i + 1;
  if (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) return std::string_view::npos;  // $1
  while (j < s.size() && ident_char(s[j]) && s[j] != '$') ++j;
  if (j < s.size() && s[j] == '$') return j + 1;
  return std::string_view::npos;
}

// From `i` (just after an opening quote q), past the closing quote. `backslash`: a backslash escapes
// the next byte (E'...', MySQL strings). A doubled quote is the quote itself. npos when unterminated.
size_t skip_quoted(std::string_view s, size_t i, char q, bool backslash) {
  while (i < s.size()) {
    char c = s[i];
    if (backslash && c == '\\') {
      i += 2;
    } else if (c == q) {
      if (i + 1 < s.size() && s[i + 1] == q) i += 2;
      else return i + 1;
    } else {
      ++i;
    }
  }
  return std::string_view::npos;
}

// Past a /* comment */ starting at i (PostgreSQL nests them, MySQL does not). npos when unterminated.
size_t skip_block_comment(std::string_view s, size_t i, bool nested) {
  int depth = 0;
  while (i + 1 < s.size()) {
    if (s[i] == '/' && s[i + 1] == '*') {
      ++depth;
      i += 2;
      if (!nested && depth > 1) depth = 1;
    } else if (s[i] == '*' && s[i + 1] == '/') {
      i += 2;
      if (--depth == 0) return i;
    } else {
      ++i;
    }
  }
  return std::string_view::npos;
}

size_t skip_line(std::string_view s, size_t i) {
  while (i < s.size() && s[i] != '\n') ++i;
  return i;
}

// MySQL's "-- " comment needs a space or control character after the dashes; "#" starts one too.
bool mysql_line_comment(std::string_view s, size_t i) {
  if (s[i] == '#') return true;
  return s[i] == '-' && i + 1 < s.size() && s[i + 1] == '-' &&
         (i + 2 >= s.size() || static_cast<unsigned char>(s[i + 2]) <= ' ');
}

// Past the spaces and comments from i (also opening parentheses when `parens`).
size_t skip_noise(std::string_view s, size_t i, ServerDialect d, bool parens) {
  const bool pg = d == ServerDialect::PostgreSQL;
  while (i < s.size()) {
    char c = s[i];
    if (is_ascii_space(c) || (parens && c == '(')) {
      ++i;
    } else if (pg && c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      i = skip_line(s, i);
    } else if (!pg && mysql_line_comment(s, i)) {
      i = skip_line(s, i);
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      if (!pg && i + 2 < s.size() && (s[i + 2] == '!' || (s[i + 2] == 'M' && i + 3 < s.size() && s[i + 3] == '!')))
        return i;  // MySQL executable comment: code
      size_t e = skip_block_comment(s, i, pg);
      if (e == std::string_view::npos) return s.size();
      i = e;
    } else {
      return i;
    }
  }
  return i;
}

}  // namespace

std::vector<std::string> split_postgres(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0, i = 0;
  auto flush = [&](size_t end) {
    std::string_view piece = s.substr(start, end - start);
    if (!is_empty_statement(piece, ServerDialect::PostgreSQL)) out.push_back(trim(piece));
  };
  while (i < s.size()) {
    char c = s[i];
    size_t next = i + 1;
    if (c == '\'') {
      // E'...' (also e'...'): backslash escapes, unless the E is the end of an identifier (xe'..' is not).
      bool e = i > 0 && (s[i - 1] == 'E' || s[i - 1] == 'e') && !(i > 1 && ident_char(s[i - 2]));
      next = skip_quoted(s, i + 1, '\'', e);
    } else if (c == '"') {
      next = skip_quoted(s, i + 1, '"', false);
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      next = skip_line(s, i);
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      next = skip_block_comment(s, i, true);
    } else if (c == '$') {
      size_t tag_end = dollar_tag_end(s, i);
      if (tag_end != std::string_view::npos) {
        std::string_view tag = s.substr(i, tag_end - i);
        size_t close = s.find(tag, tag_end);
        next = close == std::string_view::npos ? std::string_view::npos : close + tag.size();
      }
    } else if (c == ';') {
      flush(i);
      start = i + 1;
    }
    if (next == std::string_view::npos) break;  // unterminated: the rest is one piece, the server decides
    i = next;
  }
  if (start < s.size()) flush(s.size());
  return out;
}

std::string first_word(std::string_view s, ServerDialect d) {
  size_t i = skip_noise(s, 0, d, true);
  size_t j = i;
  while (j < s.size() && (std::isalpha(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
  if (j == i && i < s.size()) return std::string(1, s[i]);  // a symbol: "/*!", ";" …
  return to_upper(s.substr(i, j - i));
}

std::string refusal(std::string_view sql, ServerDialect d) {
  const std::string w = first_word(sql, d);
  if (w == "SELECT" || w == "WITH" || w == "VALUES" || w == "TABLE") return "";
  if (w.empty()) return "";  // empty: the server says so, as for the official drivers
  // A Markdown fence left in the text (```sql): no statement starts so — an empty `` identifier is an
  // error in MySQL, a backtick one in PostgreSQL — so the server may say so in its own words, as it does
  // to the official scripts.
  const size_t start = skip_noise(sql, 0, d, false);
  if (sql.substr(start, 3) == "```") return "";
  return "not a query: sqlgrade runs only SELECT, WITH, VALUES and TABLE statements on a " +
         std::string(dialect_name(d)) + " server (this one starts with " + (w.size() > 40 ? w.substr(0, 40) : w) + ")";
}

bool is_empty_statement(std::string_view s, ServerDialect d) { return skip_noise(s, 0, d, false) >= s.size(); }

}  // namespace sqlgrade::server_sql
