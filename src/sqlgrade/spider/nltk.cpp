// NLTK 3.8 word_tokenize as the Spider tokenizer uses it: a byte-level re-implementation of the
// rules that can fire on SQL text (straight quotes never reach NLTK: process_sql turns every quoted span
// into a placeholder first) and of the untrained Punkt sentence splitter. Each rule below names the NLTK
// regex it stands for; they run in NLTK's order because some rules look at their neighbours (`,`
// followed by a digit, the final period).
#include "sqlgrade/spider/nltk.hpp"

#include <algorithm>
#include <cstring>

namespace sqlgrade::spider {

namespace {

// Byte length of the (Unicode) whitespace character at s[i], or 0. Python's str.split() and the
// regex class \s treat these as whitespace.
size_t ws_len(std::string_view s, size_t i) {
  const size_t n = s.size();
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f)) return 1;
  if (c < 0x80) return 0;
  auto at = [&](size_t k) { return k < n ? static_cast<unsigned char>(s[k]) : 0; };
  if (c == 0xC2 && (at(i + 1) == 0x85 || at(i + 1) == 0xA0)) return 2;
  if (c == 0xE1 && at(i + 1) == 0x9A && at(i + 2) == 0x80) return 3;  // U+1680
  if (c == 0xE2) {
    unsigned char d = at(i + 1), e = at(i + 2);
    if (d == 0x80 && ((e >= 0x80 && e <= 0x8A) || e == 0xA8 || e == 0xA9 || e == 0xAF)) return 3;
    if (d == 0x81 && e == 0x9F) return 3;  // U+205F
  }
  if (c == 0xE3 && at(i + 1) == 0x80 && at(i + 2) == 0x80) return 3;  // U+3000
  return 0;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
// \w for the \b of the contraction rules; non-ASCII bytes count as letters (approximation of
// Unicode alphanumerics).
bool is_word(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalnum(u) || c == '_';
}

// Pad every character of `set` with spaces (rules like `[;@#$%&]` → ` \g<0> `). Every rule below works
// in place and leaves the text untouched (no copy) when it does not apply.
void pad_chars(std::string& s, const char* set) {
  if (s.find_first_of(set) == std::string::npos) return;
  std::string o;
  o.reserve(s.size() + 16);
  for (char c : s) {
    if (c != '\0' && std::strchr(set, c)) {
      o += ' ';
      o += c;
      o += ' ';
    } else {
      o += c;
    }
  }
  s.swap(o);
}

// Pad multi-byte characters (UTF-8 sequences) from a list.
void pad_seqs(std::string& s, std::initializer_list<const char*> seqs) {
  bool any = false;
  for (const char* q : seqs)
    if (s.find(q) != std::string::npos) any = true;
  if (!any) return;
  std::string o;
  for (size_t i = 0; i < s.size();) {
    bool hit = false;
    for (const char* q : seqs) {
      size_t L = std::strlen(q);
      if (s.compare(i, L, q) == 0) {
        o += ' ';
        o.append(q, L);
        o += ' ';
        i += L;
        hit = true;
        break;
      }
    }
    if (!hit) o += s[i++];
  }
  s.swap(o);
}

// ([^\.])(\.)([\]\)}>"\']*)\s*$  →  \1 \2 \3  (the "final period" rule; both NLTK variants only
// differ in spacing, which does not change the tokens).
void final_period(std::string& s) {
  const size_t n = s.size();
  // The match is unique: after the period only closing brackets and whitespace may follow.
  size_t end = n;
  size_t j = n;
  // strip trailing whitespace
  while (j > 0) {
    // find the start of the last character if whitespace
    size_t k = j - 1;
    while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
    if (ws_len(s, k) == j - k) j = k;
    else break;
  }
  size_t ws_start = j;
  while (j > 0 && std::strchr("])}>\"'", s[j - 1]) && s[j - 1] != '\0') --j;
  size_t closers = j;
  if (j == 0 || s[j - 1] != '.') return;
  size_t dot = j - 1;
  if (dot == 0 || s[dot - 1] == '.') return;
  std::string tail = s.substr(closers, ws_start - closers);
  s.resize(dot);
  s += " . ";
  s += tail;
  s += ' ';
  (void)end;
}

// ([:,])([^\d]) → " \1 \2" then ([:,])$ → " \1 ".
void comma_colon(std::string& s) {
  if (s.find_first_of(",:") == std::string::npos) return;
  std::string o;
  o.reserve(s.size() + 16);
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    char c = s[i];
    if ((c == ':' || c == ',') && i + 1 < n && !is_digit(s[i + 1])) {
      o += ' ';
      o += c;
      o += ' ';
      o += s[i + 1];
      i += 2;
    } else {
      o += c;
      ++i;
    }
  }
  if (!o.empty() && (o.back() == ':' || o.back() == ',')) {
    char c = o.back();
    o.pop_back();
    o += ' ';
    o += c;
    o += ' ';
  }
  s.swap(o);
}

// \.{2,} → " \g<0> "
void dot_runs(std::string& s) {
  if (s.find("..") == std::string::npos) return;
  std::string o;
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    if (s[i] == '.' && i + 1 < n && s[i + 1] == '.') {
      size_t j = i;
      while (j < n && s[j] == '.') ++j;
      o += ' ';
      o.append(s, i, j - i);
      o += ' ';
      i = j;
    } else {
      o += s[i++];
    }
  }
  s.swap(o);
}

// ([«“‘„]|[`]+) → " \1 ", then (``) → " \1 "
void starting_quotes(std::string& t) {
  pad_seqs(t, {"\xC2\xAB", "\xE2\x80\x9C", "\xE2\x80\x98", "\xE2\x80\x9E"});
  if (t.find('`') == std::string::npos) return;
  std::string o;
  const size_t n = t.size();
  for (size_t i = 0; i < n;) {
    if (t[i] == '`') {
      size_t j = i;
      while (j < n && t[j] == '`') ++j;
      o += ' ';
      // then (``) pads every non-overlapping pair inside the run
      size_t len = j - i;
      for (size_t k = 0; k + 1 < len + 1 && k < len;) {
        if (k + 1 < len) {
          o += " `` ";
          k += 2;
        } else {
          o += '`';
          k += 1;
        }
      }
      o += ' ';
      i = j;
    } else {
      o += t[i++];
    }
  }
  t.swap(o);
}

// -- → " -- " (left to right, non-overlapping)
void double_dash(std::string& s) {
  if (s.find("--") == std::string::npos) return;
  std::string o;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      o += " -- ";
      i += 2;
    } else {
      o += s[i++];
    }
  }
  s.swap(o);
}

// MacIntyre contractions (?i)\b(can)(not)\b, gim|me, gon|na, got|ta, lem|me, and (wan)(na)(?=\s).
void contractions(std::string& cur) {
  struct C {
    const char* w;
    size_t split;
    bool need_ws;
  };
  static const C cs[] = {{"cannot", 3, false}, {"gimme", 3, false}, {"gonna", 3, false},
                         {"gotta", 3, false},  {"lemme", 3, false}, {"wanna", 3, true}};
  for (const C& c : cs) {
    const size_t L = std::strlen(c.w);
    // quick case-insensitive presence check
    bool present = false;
    for (size_t i = 0; i + L <= cur.size() && !present; ++i) {
      size_t k = 0;
      while (k < L && std::tolower(static_cast<unsigned char>(cur[i + k])) == c.w[k]) ++k;
      present = k == L;
    }
    if (!present) continue;
    std::string o;
    const size_t n = cur.size();
    for (size_t i = 0; i < n;) {
      bool hit = false;
      if (i + L <= n && (i == 0 || !is_word(cur[i - 1]))) {
        size_t k = 0;
        while (k < L && std::tolower(static_cast<unsigned char>(cur[i + k])) == c.w[k]) ++k;
        if (k == L) {
          bool after_ok = c.need_ws ? (i + L < n && ws_len(cur, i + L) > 0) : (i + L == n || !is_word(cur[i + L]));
          if (after_ok) {
            o += ' ';
            o.append(cur, i, c.split);
            o += ' ';
            o.append(cur, i + c.split, L - c.split);
            o += ' ';
            i += L;
            hit = true;
          }
        }
      }
      if (!hit) o += cur[i++];
    }
    cur = std::move(o);
  }
}

void split_ws(const std::string& s, TokenList& out) {
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    size_t w;
    while (i < n && (w = ws_len(s, i)) > 0) i += w;
    if (i >= n) break;
    size_t j = i;
    while (j < n && ws_len(s, j) == 0) ++j;
    out.push_back(std::string_view(s).substr(i, j - i));
    i = j;
  }
}

void tokenize_sentence(std::string t, TokenList& out) {
  starting_quotes(t);
  // PUNCTUATION, in NLTK's order.
  final_period(t);
  comma_colon(t);
  dot_runs(t);
  pad_chars(t, ";@#$%&");
  final_period(t);
  pad_chars(t, "?!");
  pad_chars(t, "*");
  // PARENS_BRACKETS, DOUBLE_DASHES
  pad_chars(t, "[](){}<>");
  double_dash(t);
  // ENDING_QUOTES (only the curly ones can occur here)
  pad_seqs(t, {"\xC2\xBB", "\xE2\x80\x9D", "\xE2\x80\x99"});
  contractions(t);
  split_ws(t, out);
}

bool is_nonword(char c) { return c != '\0' && std::strchr(")\";}]*:@'({[!?", c) != nullptr; }
bool is_word_start_excluded(char c) { return c != '\0' && std::strchr("(\"`{[:;&#*@)}]-,", c) != nullptr; }

bool punkt_number(std::string_view x) {
  // X + "." matches ^-?[\.,]?\d[\d,\.-]*\.?$  <=>  X matches -?[.,]?\d[\d,.-]*
  size_t i = 0;
  if (i < x.size() && x[i] == '-') ++i;
  if (i < x.size() && (x[i] == '.' || x[i] == ',')) ++i;
  if (i >= x.size() || !is_digit(x[i])) return false;
  ++i;
  for (; i < x.size(); ++i)
    if (!(is_digit(x[i]) || x[i] == ',' || x[i] == '.' || x[i] == '-')) return false;
  return true;
}

bool punkt_initial(std::string_view x) {
  if (x.size() == 1) return std::isalpha(static_cast<unsigned char>(x[0])) || x[0] == '_';
  unsigned char c = static_cast<unsigned char>(x[0]);
  if (c < 0xC0) return false;
  size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
  return x.size() == len;  // one non-ASCII code point (assumed to be a letter)
}

// An untrained Punkt sentence splitter, reduced to what changes tokens: a word ending in a period
// (not an ellipsis) and followed by whitespace + a token or by punctuation ends a sentence, so the
// final-period rule detaches that period. Numbers and single-letter "initials" keep their period
// when the next token starts in lower case (Punkt's orthographic heuristic with empty statistics).
std::vector<std::string_view> punkt_sentences(std::string_view t) {
  std::vector<std::string_view> out;
  const size_t n = t.size();
  size_t start = 0;
  for (size_t p = 1; p + 1 < n; ++p) {
    if (t[p] != '.') continue;
    char prev = t[p - 1];
    if (prev == '.' || ws_len(t, p - 1) > 0 || is_nonword(prev) || prev == ',') continue;
    // next token
    size_t q = p + 1;
    std::string_view next;
    if (is_nonword(t[q])) {
      next = t.substr(q, 1);
    } else {
      size_t w = ws_len(t, q);
      if (w == 0) continue;
      while (q < n && (w = ws_len(t, q)) > 0) q += w;
      if (q >= n) continue;
      size_t e = q;
      if (is_word_start_excluded(t[q])) {
        e = q + 1;
      } else {
        while (e < n && ws_len(t, e) == 0 && (e == q || !is_nonword(t[e]))) ++e;
      }
      next = t.substr(q, e - q);
    }
    // the Punkt word that ends with this period
    size_t b = p;
    while (b > start && ws_len(t, b - 1) == 0 && !is_nonword(t[b - 1]) && t[b - 1] != ',') --b;
    std::string_view word = t.substr(b, p - b);
    bool num = punkt_number(word), ini = punkt_initial(word);
    bool brk = true;
    if (num || ini) {
      bool punct = next.size() == 1 && std::strchr(";:,.!?", next[0]) != nullptr;
      unsigned char f = static_cast<unsigned char>(next[0]);
      if (punct || (f >= 'a' && f <= 'z')) brk = false;
      else if (ini && f >= 'A' && f <= 'Z') brk = false;
    }
    if (brk) {
      out.push_back(t.substr(start, p + 1 - start));
      start = p + 1;
    }
  }
  out.push_back(t.substr(start));
  return out;
}

}  // namespace

void nltk_into(std::string&& text, TokenList& out) {
  // Tokens never outnumber the bytes, and their text never exceeds them (padding adds only spaces).
  out.reserve(text.size(), text.size());
  std::vector<std::string_view> sents = punkt_sentences(text);
  if (sents.size() == 1 && sents[0].size() == text.size()) return tokenize_sentence(std::move(text), out);
  for (std::string_view sent : sents) tokenize_sentence(std::string(sent), out);
}

std::vector<std::string> nltk_word_tokenize(std::string_view text) {
  TokenList out;
  nltk_into(std::string(text), out);
  return out.to_vector();
}

}  // namespace sqlgrade::spider
