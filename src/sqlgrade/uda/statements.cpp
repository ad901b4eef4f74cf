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

// The statements of one .sql file, read left to right: comments before a statement are its
// comments (their metadata applied by apply_comment_metadata), a comment inside one is a space,
// quoted text is kept whole ('' doubles a quote), ';' ends a statement.
class StatementSplitter {
 public:
  StatementSplitter(std::string_view text, const std::string& name) : text_(text), name_(name), n_(text.size()) {}

  std::vector<SqlStatement> run() {
    while (i_ < n_) {
      char c = text_[i_];
      bool in_statement = !trim_view(cur_).empty();
      if (c == '-' && i_ + 1 < n_ && text_[i_ + 1] == '-') {
        line_comment(in_statement);
      } else if (c == '/' && i_ + 1 < n_ && text_[i_ + 1] == '*') {
        block_comment(in_statement);
      } else if (c == '\'' || c == '"' || c == '`') {
        quoted(c, in_statement);
      } else if (c == ';') {
        flush();
        ++i_;
      } else {
        if (c == '\n') ++line_;
        if (!in_statement && !std::isspace(static_cast<unsigned char>(c))) start_line_ = line_;
        cur_ += c;
        ++i_;
      }
    }
    flush();
    return std::move(out_);
  }

 private:
  void flush() {
    std::string sql = trim(cur_);
    if (!sql.empty()) {
      SqlStatement st;
      st.index = static_cast<int>(out_.size()) + 1;
      st.line = start_line_;
      st.sql = sql;
      st.comments = pending_comments_;
      apply_comment_metadata(st, group_);
      out_.push_back(std::move(st));
      pending_comments_.clear();
    }
    cur_.clear();
    start_line_ = 0;
  }

  // "--" to the end of the line.
  void line_comment(bool in_statement) {
    size_t e = text_.find('\n', i_);
    if (e == std::string_view::npos) e = n_;
    if (!in_statement) pending_comments_.push_back(trim(text_.substr(i_ + 2, e - i_ - 2)));
    else cur_ += ' ';
    i_ = e;
  }

  // "/* ... */"; an unterminated one is an InputError.
  void block_comment(bool in_statement) {
    size_t e = text_.find("*/", i_ + 2);
    if (e == std::string_view::npos) throw InputError(name_, "unterminated /* comment", line_);
    std::string_view body = text_.substr(i_ + 2, e - i_ - 2);
    for (char ch : body)
      if (ch == '\n') ++line_;
    if (!in_statement) pending_comments_.push_back(trim(body));
    else cur_ += ' ';
    i_ = e + 2;
  }

  // Text quoted with q (' " or `), a doubled quote inside it kept; an unterminated one is an InputError.
  void quoted(char q, bool in_statement) {
    if (!in_statement) start_line_ = line_;
    long lit_line = line_;
    cur_ += q;
    ++i_;
    while (i_ < n_) {
      char d = text_[i_];
      if (d == '\n') ++line_;
      cur_ += d;
      ++i_;
      if (d != q) continue;
      if (i_ < n_ && text_[i_] == q) {
        cur_ += q;
        ++i_;
        continue;
      }
      return;
    }
    throw InputError(name_, std::string("unterminated quoted text starting with ") + q, lit_line);
  }

  std::string_view text_;
  const std::string& name_;
  size_t n_, i_ = 0;
  std::vector<SqlStatement> out_;
  std::vector<std::string> pending_comments_;
  std::string cur_;
  long line_ = 1, start_line_ = 0;
  std::string group_;
};

}  // namespace

std::vector<SqlStatement> split_sql_statements(std::string_view text, const std::string& name) {
  if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF) text.remove_prefix(3);
  return StatementSplitter(text, name).run();
}

}  // namespace sqlgrade::uda
