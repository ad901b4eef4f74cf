#include "sqlgrade/core/text.hpp"

#include <cctype>

namespace sqlgrade {

std::string to_lower(std::string_view s) {
  std::string o(s);
  for (auto& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}
std::string to_upper(std::string_view s) {
  std::string o(s);
  for (auto& c : o) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return o;
}
bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}
bool starts_with_ci(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && iequals(s.substr(0, p.size()), p);
}
std::string_view trim_view(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_ascii_space(s[b])) ++b;
  while (e > b && is_ascii_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}
std::string trim(std::string_view s) { return std::string(trim_view(s)); }

std::string first_line(std::string_view msg) {
  size_t b = msg.find_first_not_of("\r\n");
  if (b == std::string_view::npos) return std::string();
  size_t e = msg.find_first_of("\r\n", b);
  return std::string(msg.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
}

std::string collapse_ws(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  bool pending = false;
  for (char c : s) {
    if (is_ascii_space(c)) {
      pending = !o.empty();
    } else {
      if (pending) o += ' ';
      pending = false;
      o += c;
    }
  }
  return o;
}

std::vector<std::string> split(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  if (sep.empty()) {
    out.emplace_back(s);
    return out;
  }
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    if (p == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      break;
    }
    out.emplace_back(s.substr(start, p - start));
    start = p + sep.size();
  }
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string o;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) o += sep;
    o += parts[i];
  }
  return o;
}

std::string join_or(const std::vector<std::string>& parts) {
  std::string o;
  for (size_t i = 0; i < parts.size(); ++i) o += (i == 0 ? "" : i + 1 == parts.size() ? " or " : ", ") + parts[i];
  return o;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  if (from.empty()) return s;
  size_t p = 0;
  while ((p = s.find(from, p)) != std::string::npos) {
    s.replace(p, from.size(), to);
    p += to.size();
  }
  return s;
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid.
static size_t utf8_seq(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t n;
  unsigned cp;
  if ((c & 0xE0) == 0xC0) { n = 2; cp = c & 0x1F; }
  else if ((c & 0xF0) == 0xE0) { n = 3; cp = c & 0x0F; }
  else if ((c & 0xF8) == 0xF0) { n = 4; cp = c & 0x07; }
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
  return n;
}

std::string utf8_lenient(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_seq(s, i);
    if (n == 0) {
      ++i;
      continue;
    }
    o.append(s.substr(i, n));
    i += n;
  }
  return o;
}

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_seq(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace sqlgrade
