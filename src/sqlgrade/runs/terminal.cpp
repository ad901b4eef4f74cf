// Terminal-safe text. See terminal.hpp.
#include "sqlgrade/runs/terminal.hpp"

#include "sqlgrade/core/text.hpp"

namespace sqlgrade::runs {

namespace {

// Decodes one code point of valid UTF-8 at s[i]; returns its length.
size_t decode(std::string_view s, size_t i, char32_t& cp) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n && i + k < s.size(); ++k) cp = cp << 6 | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return n;
}

bool inert_space(char32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F || cp == 0x061C;
}

}  // namespace

std::string terminal_safe(std::string_view in, size_t max_chars) {
  const std::string s = utf8_lenient(in);
  std::string out;
  bool space = true;  // drops leading spaces
  for (size_t i = 0; i < s.size();) {
    char32_t cp;
    size_t n = decode(s, i, cp);
    if (inert_space(cp) || cp == ' ') {
      if (!space) out += ' ', space = true;
    } else {
      out.append(s, i, n), space = false;
    }
    i += n;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (max_chars && display_width(out) > max_chars) {
    size_t keep = 0, chars = 0;  // bytes of the first max_chars - 1 code points
    while (keep < out.size() && chars < max_chars - 1) {
      ++keep, ++chars;
      while (keep < out.size() && (static_cast<unsigned char>(out[keep]) & 0xC0) == 0x80) ++keep;
    }
    out.resize(keep);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\xE2\x80\xA6";  // …
  }
  return out;
}

size_t display_width(std::string_view s) {
  size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

std::string pad_right(std::string s, size_t width) {
  size_t w = display_width(s);
  if (w < width) s.append(width - w, ' ');
  return s;
}

std::string pad_left(std::string s, size_t width) {
  size_t w = display_width(s);
  if (w < width) s.insert(0, width - w, ' ');
  return s;
}

}  // namespace sqlgrade::runs
