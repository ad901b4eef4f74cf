#include "sqlgrade/core/unicode.hpp"

#include <utf8proc.h>

#include <cctype>
#include <cstdlib>

#include "sqlgrade/core/text.hpp"

namespace sqlgrade::unicode {

namespace {

bool is_ascii(std::string_view s) {
  for (unsigned char c : s)
    if (c >= 0x80) return false;
  return true;
}

// Length of the valid UTF-8 sequence at s[i] and its code point; 0 when the byte starts no valid
// sequence (it is then read as Latin-1 by the callers).
size_t next_cp(std::string_view s, size_t i, char32_t& cp) {
  utf8proc_int32_t c = 0;
  auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
                            static_cast<utf8proc_ssize_t>(s.size() - i), &c);
  if (n <= 0 || !utf8proc_codepoint_valid(c)) return 0;
  cp = static_cast<char32_t>(c);
  return static_cast<size_t>(n);
}

bool is_category(char32_t cp, std::initializer_list<utf8proc_category_t> cats) {
  auto c = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  for (auto k : cats)
    if (c == k) return true;
  return false;
}

bool opens_quote(char32_t cp) {
  if (cp == '"' || cp == '\'' || cp == '`') return true;
  if (cp < 0x80) return false;
  // U+201E/U+201A (low-9 quotation marks) are "open punctuation" but only ever open a quotation.
  return cp == 0x201E || cp == 0x201A || is_category(cp, {UTF8PROC_CATEGORY_PI, UTF8PROC_CATEGORY_PF});
}

bool closes_quote(char32_t cp) {
  if (cp == '"' || cp == '\'' || cp == '`') return true;
  return cp >= 0x80 && is_category(cp, {UTF8PROC_CATEGORY_PI, UTF8PROC_CATEGORY_PF});
}

}  // namespace

bool is_space(char32_t cp) {
  if (cp < 0x80) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F);
  if (cp == 0x85) return true;
  return is_category(cp, {UTF8PROC_CATEGORY_ZS, UTF8PROC_CATEGORY_ZL, UTF8PROC_CATEGORY_ZP});
}

bool is_letter(char32_t cp) {
  return is_category(cp, {UTF8PROC_CATEGORY_LU, UTF8PROC_CATEGORY_LL, UTF8PROC_CATEGORY_LT, UTF8PROC_CATEGORY_LM,
                          UTF8PROC_CATEGORY_LO});
}

bool is_number(char32_t cp) {
  return is_category(cp, {UTF8PROC_CATEGORY_ND, UTF8PROC_CATEGORY_NL, UTF8PROC_CATEGORY_NO});
}

bool is_punct(char32_t cp) {
  if (cp < 0x80) return std::ispunct(static_cast<int>(cp)) != 0;
  return is_category(cp, {UTF8PROC_CATEGORY_PC, UTF8PROC_CATEGORY_PD, UTF8PROC_CATEGORY_PS, UTF8PROC_CATEGORY_PE,
                          UTF8PROC_CATEGORY_PI, UTF8PROC_CATEGORY_PF, UTF8PROC_CATEGORY_PO});
}

bool is_digit(char32_t cp) { return cp >= '0' && cp <= '9'; }

std::u32string decode(std::string_view s) {
  std::u32string o;
  o.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    char32_t cp = c;
    size_t n = c < 0x80 ? 1 : next_cp(s, i, cp);
    if (n == 0) {  // not UTF-8: the byte as Latin-1
      cp = c;
      n = 1;
    }
    o += cp;
    i += n;
  }
  return o;
}

std::string encode(std::u32string_view s) {
  std::string o;
  o.reserve(s.size());
  utf8proc_uint8_t buf[4];
  for (char32_t cp : s) {
    if (cp < 0x80) {
      o += static_cast<char>(cp);
      continue;
    }
    auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), buf);
    o.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
  }
  return o;
}

std::string collapse_space(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  bool pending = false;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    char32_t cp = c;
    size_t n = c < 0x80 ? 1 : next_cp(s, i, cp);
    bool space = n > 0 && is_space(cp);
    if (n == 0) n = 1;  // an invalid byte is kept as it is
    if (space) {
      pending = !o.empty();
    } else {
      if (pending) o += ' ';
      pending = false;
      o.append(s.substr(i, n));
    }
    i += n;
  }
  return o;
}

std::string fold(std::string_view s) {
  if (is_ascii(s)) return to_lower(collapse_space(s));
  std::string valid = encode(decode(s));
  utf8proc_uint8_t* out = nullptr;
  auto opts = static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD |
                                             UTF8PROC_STRIPMARK | UTF8PROC_IGNORE | UTF8PROC_LUMP);
  auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(valid.data()), static_cast<utf8proc_ssize_t>(valid.size()),
                        &out, opts);
  if (n < 0) {  // out of memory or a library error: ASCII case folding of the repaired text
    std::free(out);
    return to_lower(collapse_space(valid));
  }
  std::string mapped(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
  std::free(out);
  return collapse_space(mapped);
}

std::string unquote(std::string_view in) {
  std::string s = collapse_space(in);
  if (s.size() < 2) return s;
  unsigned char f = static_cast<unsigned char>(s.front());
  if (f < 0x80 && f != '"' && f != '\'' && f != '`') return s;  // fast path: no opening mark
  std::u32string u = decode(s);
  size_t b = 0, e = u.size();
  while (e - b >= 2 && opens_quote(u[b]) && closes_quote(u[e - 1])) {
    ++b;
    --e;
    while (b < e && is_space(u[b])) ++b;
    while (e > b && is_space(u[e - 1])) --e;
  }
  if (b == 0) return s;
  return encode(std::u32string_view(u).substr(b, e - b));
}

}  // namespace sqlgrade::unicode
