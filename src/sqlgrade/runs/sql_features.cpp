// Lexer-based SQL feature classifier. See sql_features.hpp.
#include "sqlgrade/runs/sql_features.hpp"

namespace sqlgrade::runs {

namespace {

enum class Tok { Word, LParen, RParen, Comma, Star, Semi, Other, End };

struct Token {
  Tok kind = Tok::End;
  std::string word;  // upper-cased, Tok::Word only
};

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Token next() {
    skip_space_and_comments();
    if (i_ >= s_.size()) return {};
    const char c = s_[i_];
    if (c == '\'' || c == '"' || c == '`') {
      skip_quoted(c, c);
      return {c == '\'' ? Tok::Other : Tok::Word, ""};  // a quoted identifier is a name, never a keyword
    }
    if (c == '[') {
      skip_quoted('[', ']');
      return {Tok::Word, ""};
    }
    if (is_word_start(c)) {
      Token t{Tok::Word, ""};
      while (i_ < s_.size() && is_word(s_[i_])) {
        char u = s_[i_++];
        t.word += (u >= 'a' && u <= 'z') ? static_cast<char>(u - 32) : u;
      }
      return t;
    }
    ++i_;
    switch (c) {
      case '(': return {Tok::LParen, ""};
      case ')': return {Tok::RParen, ""};
      case ',': return {Tok::Comma, ""};
      case '*': return {Tok::Star, ""};
      case ';': return {Tok::Semi, ""};
      default: return {Tok::Other, ""};
    }
  }

 private:
  static bool is_word_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || static_cast<unsigned char>(c) >= 0x80;
  }
  static bool is_word(char c) { return is_word_start(c) || (c >= '0' && c <= '9') || c == '$'; }

  void skip_space_and_comments() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++i_;
      } else if (c == '-' && i_ + 1 < s_.size() && s_[i_ + 1] == '-') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '#') {  // MySQL/BigQuery line comment
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '*') {
        size_t e = s_.find("*/", i_ + 2);
        i_ = e == std::string_view::npos ? s_.size() : e + 2;
      } else {
        return;
      }
    }
  }

  // Skips a quoted run opened by `open`; a doubled closing quote is an escaped one (standard SQL and
  // SQLite; backslash is an ordinary character there); an unterminated quote runs to the end.
  void skip_quoted(char open, char close) {
    ++i_;
    while (i_ < s_.size()) {
      const char c = s_[i_++];
      if (c == close) {
        if (i_ < s_.size() && s_[i_] == close && open == close) ++i_;
        else return;
      }
    }
  }

  std::string_view s_;
  size_t i_ = 0;
};

// One open parenthesis level (level 0 = the statement itself).
struct Level {
  bool query = false;      // the level holds a query (statement level, or a paren opened by SELECT/WITH/VALUES/paren-query)
  bool undecided = false;  // a paren whose first token has not been seen yet
  bool in_from = false;    // inside this level's FROM clause
};

bool ends_from(const std::string& w) {
  return w == "WHERE" || w == "GROUP" || w == "ORDER" || w == "LIMIT" || w == "HAVING" || w == "UNION" || w == "INTERSECT" ||
         w == "EXCEPT" || w == "WINDOW" || w == "QUALIFY" || w == "SELECT" || w == "FETCH" || w == "OFFSET";
}

}  // namespace

unsigned classify_sql(std::string_view sql) {
  Lexer lex(sql);
  unsigned f = 0;
  std::vector<Level> st{Level{true, false, false}};
  Token prev, t;
  for (t = lex.next(); t.kind != Tok::End; prev = t, t = lex.next()) {
    Level& top = st.back();
    if (top.undecided) {
      top.undecided = false;
      const bool q = t.kind == Tok::Word && (t.word == "SELECT" || t.word == "WITH" || t.word == "VALUES");
      const bool inner_paren_query = t.kind == Tok::LParen;  // ((SELECT …) UNION (SELECT …))
      top.query = q || (inner_paren_query && st.size() >= 2 && st[st.size() - 2].query);
      if (q) f |= kNested;
    }
    Level& cur = st.back();
    switch (t.kind) {
      case Tok::LParen:
        st.push_back(Level{false, true, false});
        break;
      case Tok::RParen:
        if (st.size() > 1) st.pop_back();
        break;
      case Tok::Comma:
        if (cur.in_from) f |= kJoin;
        break;
      case Tok::Semi:
        st.resize(1);
        st[0].in_from = false;
        break;
      case Tok::Word: {
        const std::string& w = t.word;
        if (w == "JOIN") f |= kJoin;
        else if (w == "UNION" || w == "INTERSECT") f |= kSetOp;
        else if (w == "EXCEPT" && prev.kind != Tok::Star) f |= kSetOp;
        if (cur.query) {
          if (w == "BY" && prev.kind == Tok::Word && prev.word == "GROUP") f |= kGroupBy;
          else if (w == "HAVING") f |= kGroupBy;
          else if (w == "BY" && prev.kind == Tok::Word && prev.word == "ORDER") f |= kOrderLimit;
          else if (w == "LIMIT") f |= kOrderLimit;
          else if ((w == "FIRST" || w == "NEXT") && prev.kind == Tok::Word && prev.word == "FETCH") f |= kOrderLimit;
          if (w == "FROM") cur.in_from = true;
          else if (ends_from(w)) cur.in_from = false;
        }
        break;
      }
      default:
        break;
    }
  }
  return f;
}

const std::vector<FeatureInfo>& sql_features() {
  static const std::vector<FeatureInfo> k{{kJoin, "join", "JOIN"},
                                          {kGroupBy, "group_by", "GROUP BY / HAVING"},
                                          {kNested, "nested", "Nested query"},
                                          {kOrderLimit, "order_limit", "ORDER BY / LIMIT"},
                                          {kSetOp, "set_op", "Set operation"}};
  return k;
}

std::vector<std::string> feature_names(unsigned mask) {
  std::vector<std::string> out;
  for (const auto& fi : sql_features())
    if (mask & fi.bit) out.push_back(fi.name);
  return out;
}

}  // namespace sqlgrade::runs
