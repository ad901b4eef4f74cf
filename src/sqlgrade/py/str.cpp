// Python str methods on UTF-8 text — see str.hpp.
#include "sqlgrade/py/str.hpp"

namespace sqlgrade::py {

size_t space_len(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f)) return 1;
  if (c < 0x80) return 0;
  auto at = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0; };
  if (c == 0xC2 && (at(i + 1) == 0x85 || at(i + 1) == 0xA0)) return 2;
  if (c == 0xE1 && at(i + 1) == 0x9A && at(i + 2) == 0x80) return 3;
  if (c == 0xE2) {
    unsigned char d = at(i + 1), e = at(i + 2);
    if (d == 0x80 && ((e >= 0x80 && e <= 0x8A) || e == 0xA8 || e == 0xA9 || e == 0xAF)) return 3;
    if (d == 0x81 && e == 0x9F) return 3;
  }
  if (c == 0xE3 && at(i + 1) == 0x80 && at(i + 2) == 0x80) return 3;
  return 0;
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

std::string str(const Value& v) {
  switch (v.kind) {
    case Kind::Null: return "None";
    case Kind::Int: return std::to_string(v.i);
    case Kind::Real: return python_float_repr(v.r);
    case Kind::Text: return v.s;
    case Kind::Blob: return python_bytes_repr(v.s);
  }
  return "";
}

}  // namespace sqlgrade::py
