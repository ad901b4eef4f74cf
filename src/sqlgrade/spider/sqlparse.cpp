// sqlparse 0.4.2 emulation for the test-suite execution check — see sqlparse.hpp. This file is the lexer;
// the statement splitter and remove_distinct are sqlparse_statement.cpp.
// The rules below follow sqlparse's lexer rule list in order (first rule that matches at the
// current position wins), including the regex backtracking outcomes that decide token boundaries.
#include "sqlgrade/spider/sqlparse.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "sqlgrade/py/str.hpp"

namespace sqlgrade::spider::sqlparse {

namespace {

// ---- UTF-8 code point helpers ---------------------------------------------------------------

struct Cp {
  uint32_t cp;
  size_t len;
};

Cp decode(std::string_view s, size_t i) {
  if (i >= s.size()) return {0, 0};
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return {c, 1};
  auto cont = [&](size_t k) { return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80; };
  if ((c & 0xE0) == 0xC0 && cont(1)) return {((c & 0x1Fu) << 6) | (s[i + 1] & 0x3F), 2};
  if ((c & 0xF0) == 0xE0 && cont(1) && cont(2))
    return {((c & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3F), 3};
  if ((c & 0xF8) == 0xF0 && cont(1) && cont(2) && cont(3))
    return {((c & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) | ((s[i + 2] & 0x3Fu) << 6) | (s[i + 3] & 0x3F), 4};
  return {0xFFFD, 1};  // invalid byte: treat as one opaque character
}

// Start of the code point that ends just before byte i (i > 0).
size_t prev_start(std::string_view s, size_t i) {
  size_t j = i - 1;
  while (j > 0 && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80 && i - j < 4) --j;
  return j;
}

bool is_ascii_alnum(uint32_t c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// Python's \w (approximation outside ASCII: letters/digits of every script count, common
// punctuation and symbol blocks do not).
bool is_word_cp(uint32_t c) {
  if (c < 0x80) return is_ascii_alnum(c) || c == '_';
  if (py::is_space(c)) return false;
  if (c >= 0xA0 && c <= 0xBF)
    return c == 0xAA || c == 0xB2 || c == 0xB3 || c == 0xB5 || c == 0xB9 || c == 0xBA || (c >= 0xBC && c <= 0xBE);
  if (c == 0xD7 || c == 0xF7) return false;
  if (c >= 0x2000 && c <= 0x2BFF) return false;    // punctuation, symbols, arrows, box drawing
  if (c >= 0x3000 && c <= 0x3004) return false;    // CJK punctuation
  if (c >= 0x3008 && c <= 0x3020) return false;
  if (c >= 0xFF01 && c <= 0xFF0F) return false;    // fullwidth punctuation
  if (c >= 0xFF1A && c <= 0xFF20) return false;
  if (c >= 0xFF3B && c <= 0xFF40) return false;
  if (c >= 0xFF5B && c <= 0xFF65) return false;
  if (c == 0xFFFD) return false;
  return true;
}

// [A-ZÀ-Ü] with re.IGNORECASE.
bool is_name_start_cp(uint32_t c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) return true;
  if (c >= 0xC0 && c <= 0xDC) return true;
  if (c >= 0xE0 && c <= 0xFC && c != 0xF7) return true;
  return c == 0x130 || c == 0x131 || c == 0x17F || c == 0x212A;
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    // At most one token per byte; capacity that is never written is not resident memory.
    out.reserve(s_.size());
    size_t i = 0;
    while (i < s_.size()) {
      TokType t = TokType::Error;
      size_t n = match(i, t);
      if (n == 0) {  // no rule: one Error token for the character
        n = std::max<size_t>(1, decode(s_, i).len);
        t = TokType::Error;
      }
      n = std::min<size_t>(n, UINT32_MAX);
      out.push_back(Token{t, static_cast<uint32_t>(n), s_.data() + i});
      i += n;
    }
    return out;
  }

 private:
  std::string_view s_;

  uint32_t cp_at(size_t i) const { return decode(s_, i).cp; }
  size_t len_at(size_t i) const { return decode(s_, i).len; }
  bool at_end(size_t i) const { return i >= s_.size(); }
  char ch(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }
  bool word_at(size_t i) const { return !at_end(i) && is_word_cp(cp_at(i)); }
  bool space_at(size_t i) const { return !at_end(i) && py::is_space(cp_at(i)); }
  bool name_start_at(size_t i) const { return !at_end(i) && is_name_start_cp(cp_at(i)); }
  bool digit_at(size_t i) const { return i < s_.size() && s_[i] >= '0' && s_[i] <= '9'; }
  bool prev_is_word(size_t i) const { return i > 0 && is_word_cp(decode(s_, prev_start(s_, i)).cp); }
  bool prev_is_space_or_start(size_t i) const { return i == 0 || py::is_space(decode(s_, prev_start(s_, i)).cp); }

  size_t skip_word(size_t i) const {  // \w*
    while (word_at(i)) i += len_at(i);
    return i;
  }
  size_t skip_space(size_t i) const {  // \s*
    while (space_at(i)) i += len_at(i);
    return i;
  }
  // Case-insensitive ASCII literal at i; returns end or npos.
  size_t lit(size_t i, const char* w) const {
    size_t n = std::strlen(w);
    if (i + n > s_.size()) return std::string_view::npos;
    for (size_t k = 0; k < n; ++k) {
      char a = s_[i + k], b = w[k];
      if (a >= 'a' && a <= 'z') a = static_cast<char>(a - 32);
      if (a != b) return std::string_view::npos;
    }
    return i + n;
  }
  bool boundary(size_t i) const { return !word_at(i); }  // \b after a word character
  // `W\s+` : literal then at least one whitespace.
  size_t lit_ws(size_t i, const char* w) const {
    size_t e = lit(i, w);
    if (e == std::string_view::npos || !space_at(e)) return std::string_view::npos;
    return skip_space(e);
  }
  size_t lit_b(size_t i, const char* w) const {  // W\b
    size_t e = lit(i, w);
    if (e == std::string_view::npos || !boundary(e)) return std::string_view::npos;
    return e;
  }

  // '(''|\\'|[^'])*'  (q = quote char) with Python's backtracking outcome; returns end or 0.
  size_t quoted(size_t i, char q, bool backslash) const {
    // Greedy scan from i+1 recording the choice points; on reaching the end without a closing quote,
    // resume from the most recent choice point with its other alternative.
    struct Choice { size_t pos; bool doubled; };
    std::vector<Choice> stack;
    size_t p = i + 1;
    while (true) {
      while (p < s_.size()) {
        if (s_[p] == q && p + 1 < s_.size() && s_[p + 1] == q) {
          stack.push_back({p, true});
          p += 2;
        } else if (backslash && s_[p] == '\\' && p + 1 < s_.size() && s_[p + 1] == q) {
          stack.push_back({p, false});
          p += 2;
        } else if (s_[p] == q) {
          return p + 1;
        } else {
          ++p;
        }
      }
      if (stack.empty()) return 0;
      Choice c = stack.back();
      stack.pop_back();
      if (c.doubled) return c.pos + 1;  // the first quote of the pair closes the string
      p = c.pos + 1;                    // the backslash is an ordinary character; go on at the quote
      // At p there is a quote: either a doubled quote (choice) or the closing one.
      if (p + 1 < s_.size() && s_[p + 1] == q) {
        stack.push_back({p, true});
        p += 2;
        continue;
      }
      return p + 1;
    }
  }

  // Lookahead (?![_A-ZÀ-Ü]) at i.
  bool not_letter_at(size_t i) const { return at_end(i) || !(s_[i] == '_' || is_name_start_cp(cp_at(i))); }

  size_t number(size_t i) const {
    size_t p = i;
    bool neg = ch(p) == '-';
    if (neg) ++p;
    // -?0x[\dA-F]+
    if (ch(p) == '0' && (ch(p + 1) == 'x' || ch(p + 1) == 'X')) {
      size_t q = p + 2;
      while (q < s_.size() && (digit_at(q) || (s_[q] >= 'a' && s_[q] <= 'f') || (s_[q] >= 'A' && s_[q] <= 'F'))) ++q;
      if (q > p + 2) return q;
    }
    // -?\d+(\.\d+)?E-?\d+
    if (digit_at(p)) {
      size_t q = p;
      while (digit_at(q)) ++q;
      auto exp_at = [&](size_t r) -> size_t {
        if (ch(r) != 'e' && ch(r) != 'E') return 0;
        ++r;
        if (ch(r) == '-') ++r;
        if (!digit_at(r)) return 0;
        while (digit_at(r)) ++r;
        return r;
      };
      if (ch(q) == '.' && digit_at(q + 1)) {
        size_t r = q + 1;
        while (digit_at(r)) ++r;
        if (size_t e = exp_at(r)) return e;
      }
      if (size_t e = exp_at(q)) return e;
    }
    // (?![_A-ZÀ-Ü])-?(\d+(\.\d*)|\.\d+)(?![_A-ZÀ-Ü])
    if (not_letter_at(i)) {
      if (digit_at(p)) {
        size_t q = p;
        while (digit_at(q)) ++q;
        if (ch(q) == '.') {
          size_t r = q + 1, k = 0;
          while (digit_at(r)) { ++r; ++k; }
          if (not_letter_at(r)) return r;
          if (k > 0) return r - 1;  // \d* gives back one digit; a digit follows
          // \d* empty: the character after '.' is a letter -> this alternative fails
        }
      } else if (ch(p) == '.' && digit_at(p + 1)) {
        size_t r = p + 1, k = 0;
        while (digit_at(r)) { ++r; ++k; }
        if (not_letter_at(r)) return r;
        if (k > 1) return r - 1;
      }
      // (?![_A-ZÀ-Ü])-?\d+(?![_A-ZÀ-Ü])
      if (digit_at(p)) {
        size_t r = p, k = 0;
        while (digit_at(r)) { ++r; ++k; }
        if (not_letter_at(r)) return r;
        if (k > 1) return r - 1;
      }
    }
    return 0;
  }

  size_t keyword_phrase(size_t i, TokType& t) const {
    constexpr size_t npos = std::string_view::npos;
    // ((LEFT\s+|RIGHT\s+|FULL\s+)?(INNER\s+|OUTER\s+|STRAIGHT\s+)?|(CROSS\s+|NATURAL\s+)?)?JOIN\b
    {
      std::vector<size_t> starts;
      for (const char* a : {"LEFT", "RIGHT", "FULL", ""}) {
        size_t p = *a ? lit_ws(i, a) : i;
        if (p == npos) continue;
        for (const char* b : {"INNER", "OUTER", "STRAIGHT", ""}) {
          size_t q = *b ? lit_ws(p, b) : p;
          if (q != npos) starts.push_back(q);
        }
      }
      for (const char* a : {"CROSS", "NATURAL"}) {
        size_t p = lit_ws(i, a);
        if (p != npos) starts.push_back(p);
      }
      for (size_t p : starts) {
        size_t e = lit_b(p, "JOIN");
        if (e != npos) { t = TokType::Keyword; return e - i; }
      }
    }
    // END(\s+IF|\s+LOOP|\s+WHILE)?\b
    if (size_t e = lit(i, "END"); e != npos) {
      if (space_at(e)) {
        size_t p = skip_space(e);
        for (const char* w : {"IF", "LOOP", "WHILE"}) {
          size_t q = lit_b(p, w);
          if (q != npos) { t = TokType::Keyword; return q - i; }
        }
      }
      if (boundary(e)) { t = TokType::Keyword; return e - i; }
    }
    auto two = [&](const char* a, std::initializer_list<const char*> bs, TokType tt) -> size_t {
      size_t p = lit_ws(i, a);
      if (p == npos) return 0;
      for (const char* b : bs) {
        size_t q = lit_b(p, b);
        if (q != npos) { t = tt; return q - i; }
      }
      return 0;
    };
    if (size_t n = two("NOT", {"NULL"}, TokType::Keyword)) return n;
    if (size_t n = two("NULLS", {"FIRST", "LAST"}, TokType::Keyword)) return n;
    if (size_t n = two("UNION", {"ALL"}, TokType::Keyword)) return n;
    if (size_t e = lit(i, "CREATE"); e != npos) {
      if (space_at(e)) {
        size_t p = lit_ws(skip_space(e), "OR");
        if (p != npos) {
          size_t q = lit_b(p, "REPLACE");
          if (q != npos) { t = TokType::Keyword; create_ = true; return q - i; }
        }
      }
      if (boundary(e)) { t = TokType::Keyword; create_ = true; return e - i; }
    }
    if (size_t n = two("DOUBLE", {"PRECISION"}, TokType::Name)) return n;
    if (size_t n = two("GROUP", {"BY"}, TokType::Keyword)) return n;
    if (size_t n = two("ORDER", {"BY"}, TokType::Keyword)) return n;
    if (size_t n = two("HANDLER", {"FOR"}, TokType::Keyword)) return n;
    if (size_t p = lit_ws(i, "LATERAL"); p != npos) {
      if (size_t q = lit_ws(p, "VIEW"); q != npos)
        for (const char* w : {"EXPLODE", "INLINE", "PARSE_URL_TUPLE", "POSEXPLODE", "STACK"})
          if (size_t r = lit_b(q, w); r != npos) { t = TokType::Keyword; return r - i; }
    }
    // (AT|WITH')\s+TIME\s+ZONE\s+'[^']+'
    for (const char* a : {"AT", "WITH'"}) {
      size_t p = lit_ws(i, a);
      if (p == npos) continue;
      size_t q = lit_ws(p, "TIME");
      if (q == npos) continue;
      size_t r = lit_ws(q, "ZONE");
      if (r == npos || ch(r) != '\'') continue;
      size_t e = r + 1;
      while (e < s_.size() && s_[e] != '\'') ++e;
      if (e < s_.size() && e > r + 1) { t = TokType::Keyword; return e + 1 - i; }
    }
    // (NOT\s+)?(LIKE|ILIKE|RLIKE)\b
    for (size_t p : {lit_ws(i, "NOT"), i}) {
      if (p == npos) continue;
      for (const char* w : {"LIKE", "ILIKE", "RLIKE"}) {
        size_t q = lit_b(p, w);
        if (q != npos) { t = TokType::Comparison; return q - i; }
      }
    }
    return 0;
  }

 public:
  mutable bool create_ = false;

 private:
  size_t match(size_t i, TokType& t) const {
    constexpr size_t npos = std::string_view::npos;
    char c = s_[i];
    // comments
    if ((c == '-' && ch(i + 1) == '-') || (c == '#' && ch(i + 1) == ' ')) {
      size_t p = i + 2;
      while (p < s_.size() && s_[p] != '\r' && s_[p] != '\n') ++p;
      if (p < s_.size()) p += (s_[p] == '\r' && ch(p + 1) == '\n') ? 2 : 1;
      t = TokType::CommentSingle;
      return p - i;
    }
    if (c == '/' && ch(i + 1) == '*') {
      size_t e = s_.find("*/", i + 2);
      if (e != npos) { t = TokType::CommentMultiline; return e + 2 - i; }
    }
    if (c == '\r' || c == '\n') {
      t = TokType::Newline;
      return (c == '\r' && ch(i + 1) == '\n') ? 2 : 1;
    }
    if (space_at(i)) { t = TokType::Whitespace; return len_at(i); }
    if (c == ':' && ch(i + 1) == '=') { t = TokType::Assignment; return 2; }
    if (c == ':' && ch(i + 1) == ':') { t = TokType::Punctuation; return 2; }
    if (c == '*') { t = TokType::Wildcard; return 1; }
    if (c == '`') {
      if (size_t e = quoted(i, '`', false)) { t = TokType::Name; return e - i; }
    }
    if (static_cast<unsigned char>(c) == 0xC2 && static_cast<unsigned char>(ch(i + 1)) == 0xB4) {  // ´...´
      size_t p = i + 2;
      while (p + 1 < s_.size()) {
        if (static_cast<unsigned char>(s_[p]) == 0xC2 && static_cast<unsigned char>(s_[p + 1]) == 0xB4) {
          if (p + 3 < s_.size() && static_cast<unsigned char>(s_[p + 2]) == 0xC2 &&
              static_cast<unsigned char>(s_[p + 3]) == 0xB4) {
            p += 4;
            continue;
          }
          t = TokType::Name;
          return p + 2 - i;
        }
        ++p;
      }
    }
    if (c == '$' && prev_is_space_or_start(i)) {  // $tag$ ... $tag$
      size_t p = i + 1;
      if (name_start_at(p) || ch(p) == '_') p = skip_word(p + len_at(p));
      if (ch(p) == '$') {
        std::string_view tag = s_.substr(i, p + 1 - i);
        size_t e = s_.find(tag, p + 1);
        if (e != npos) { t = TokType::Literal; return e + tag.size() - i; }
      }
    }
    if (c == '?') { t = TokType::Placeholder; return 1; }
    if (c == '%') {
      if (ch(i + 1) == 's') { t = TokType::Placeholder; return 2; }
      if (ch(i + 1) == '(') {
        size_t p = skip_word(i + 2);
        if (p > i + 2 && ch(p) == ')' && ch(p + 1) == 's') { t = TokType::Placeholder; return p + 2 - i; }
      }
    }
    if ((c == '$' || c == ':' || c == '?') && !prev_is_word(i) && word_at(i + 1)) {
      t = TokType::Placeholder;
      return skip_word(i + 1) - i;
    }
    if (c == '\\' && word_at(i + 1)) { t = TokType::Command; return skip_word(i + 1) - i; }
    // (NOT\s+)?(IN)\b
    for (size_t p : {lit_ws(i, "NOT"), i}) {
      if (p == npos) continue;
      if (size_t e = lit_b(p, "IN"); e != npos) { t = TokType::Comparison; return e - i; }
    }
    for (const char* w : {"CASE", "IN", "VALUES", "USING", "FROM", "AS"})
      if (size_t e = lit_b(i, w); e != npos) { t = TokType::Keyword; return e - i; }
    // (@|##|#)[A-ZÀ-Ü]\w+
    for (const char* pre : {"@", "##", "#"}) {
      size_t n = std::strlen(pre);
      if (s_.compare(i, n, pre) != 0) continue;
      size_t p = i + n;
      if (!name_start_at(p)) continue;
      p += len_at(p);
      if (!word_at(p)) continue;
      t = TokType::Name;
      return skip_word(p) - i;
    }
    if (name_start_at(i)) {
      size_t e = skip_word(i + len_at(i));
      if (ch(skip_space(e)) == '.') { t = TokType::Name; return e - i; }     // Name followed by .
      if (i > 0 && s_[i - 1] == '.') { t = TokType::Name; return e - i; }    // .Name
      if (ch(e) == '(') { t = TokType::Name; return e - i; }                 // function name
    }
    if (c == '-' || c == '.' || digit_at(i)) {
      if (size_t e = number(i)) { t = TokType::Number; return e - i; }
    }
    if (c == '\'') {
      if (size_t e = quoted(i, '\'', true)) { t = TokType::StringSingle; return e - i; }
    }
    if (c == '"') {
      if (size_t e = quoted(i, '"', true)) { t = TokType::StringSymbol; return e - i; }
    }
    if (c == '[' && !prev_is_word(i) && !(i > 0 && (s_[i - 1] == ']' || s_[i - 1] == ')'))) {
      size_t p = i + 1;
      while (p < s_.size() && s_[p] != ']' && s_[p] != '[') ++p;
      if (p > i + 1 && ch(p) == ']') { t = TokType::Name; return p + 1 - i; }
    }
    if (size_t n = keyword_phrase(i, t)) return n;
    if (digit_at(i) || c == '_' || name_start_at(i)) {  // [0-9_A-ZÀ-Ü][_$#\w]*
      size_t p = i + len_at(i);
      while (p < s_.size() && (s_[p] == '$' || s_[p] == '#' || word_at(p))) p += len_at(p);
      std::string up;
      for (size_t k = i; k < p; ++k) up += static_cast<char>(s_[k] >= 'a' && s_[k] <= 'z' ? s_[k] - 32 : s_[k]);
      static const char* kws[] = {"BEGIN", "DECLARE", "IF", "FOR", "WHILE", "DISTINCT", "SELECT"};
      t = TokType::Name;
      for (const char* k : kws)
        if (up == k) t = TokType::Keyword;
      return p - i;
    }
    if (std::strchr(";:()[],.", c) && c) { t = TokType::Punctuation; return 1; }
    auto run = [&](const char* set) {
      size_t p = i;
      while (p < s_.size() && s_[p] && std::strchr(set, s_[p])) ++p;
      return p - i;
    };
    if (size_t n = run("<>=~!")) { t = TokType::Comparison; return n; }
    if (size_t n = run("+/@#%^&|-")) { t = TokType::Operator; return n; }
    return 0;
  }
};

}  // namespace

std::string lower_ascii(std::string_view s) {
  std::string o(s);
  for (char& c : o)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return o;
}

size_t char_len_at(std::string_view s, size_t i) { return decode(s, i).len; }

std::vector<Token> tokenize(std::string_view sql) { return Lexer(sql).run(); }

}  // namespace sqlgrade::spider::sqlparse
