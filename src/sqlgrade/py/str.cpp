// Python str methods on UTF-8 text — see str.hpp.
#include "sqlgrade/py/str.hpp"

#include <utf8proc.h>

namespace sqlgrade::py {

namespace {
// The Unicode general category of a code point (utf8proc's tables, Debian libutf8proc-dev).
bool is_letter(uint32_t c) {
  const auto k = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return k == UTF8PROC_CATEGORY_LU || k == UTF8PROC_CATEGORY_LL || k == UTF8PROC_CATEGORY_LT ||
         k == UTF8PROC_CATEGORY_LM || k == UTF8PROC_CATEGORY_LO;
}
bool is_number(uint32_t c) {
  const auto k = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return k == UTF8PROC_CATEGORY_ND || k == UTF8PROC_CATEGORY_NL || k == UTF8PROC_CATEGORY_NO;
}
}  // namespace

bool is_space(uint32_t c) {
  return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

bool is_alpha(uint32_t c) {
  if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  return is_letter(c);
}

bool is_alnum(uint32_t c) {
  if (c < 0x80) return is_alpha(c) || (c >= '0' && c <= '9');
  return is_letter(c) || is_number(c);
}

size_t space_len(std::string_view s, size_t i) {
  // Every whitespace code point takes 1, 2 or 3 bytes; overlong forms and surrogates are not decoded.
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return is_space(c) ? 1 : 0;
  auto at = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0; };
  auto cont = [](unsigned char b) { return (b & 0xC0) == 0x80; };
  const unsigned char d = at(i + 1);
  if (c >= 0xC2 && c <= 0xDF) return cont(d) && is_space(((c & 0x1Fu) << 6) | (d & 0x3Fu)) ? 2 : 0;
  if (c < 0xE0 || c > 0xEF) return 0;
  const unsigned char e = at(i + 2);
  if (!cont(d) || !cont(e) || (c == 0xE0 && d < 0xA0) || (c == 0xED && d >= 0xA0)) return 0;
  return is_space(((c & 0x0Fu) << 12) | ((d & 0x3Fu) << 6) | (e & 0x3Fu)) ? 3 : 0;
}

std::string_view strip_view(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e) {
    size_t w = space_len(s, b);
    if (!w) break;
    b += w;
  }
  while (e > b) {
    size_t k = e - 1;
    while (k > b && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
    if (space_len(s, k) == e - k) e = k;
    else break;
  }
  return s.substr(b, e - b);
}

std::string strip(std::string_view s) { return std::string(strip_view(s)); }

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size()) {
      size_t w = space_len(s, i);
      if (!w) break;
      i += w;
    }
    if (i >= s.size()) break;
    size_t b = i;
    while (i < s.size() && !space_len(s, i)) ++i;
    out.emplace_back(s.substr(b, i - b));
  }
  return out;
}

}  // namespace sqlgrade::py
