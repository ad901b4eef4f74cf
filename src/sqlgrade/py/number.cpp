// Python's int() and float() of a text — see number.hpp.
#include "sqlgrade/py/number.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "sqlgrade/core/text.hpp"

namespace sqlgrade::py {

std::optional<long long> parse_int(std::string_view s) {
  s = trim_view(s);
  if (s.empty()) return std::nullopt;
  size_t b = 0;
  if (s[0] == '+') b = 1;
  long long v = 0;
  auto r = std::from_chars(s.data() + b, s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  if (b == 1 && s.size() > 1 && s[1] == '-') return std::nullopt;
  return v;
}

std::optional<double> parse_float(std::string_view s) {
  s = trim_view(s);
  if (s.empty()) return std::nullopt;
  std::string low = to_lower(s);
  std::string_view body = low;
  bool neg = false;
  if (body[0] == '+' || body[0] == '-') {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == "nan") return std::nan("");
  if (body == "inf" || body == "infinity") return neg ? -INFINITY : INFINITY;
  // float() accepts digits with optional '.', exponent; no hex, no spaces inside.
  bool digit = false;
  for (char c : body) {
    if (std::isdigit(static_cast<unsigned char>(c))) digit = true;
    else if (c != '.' && c != 'e' && c != '+' && c != '-') return std::nullopt;
  }
  if (!digit) return std::nullopt;
  double v = 0;
  auto r = std::from_chars(body.data(), body.data() + body.size(), v);
  if (r.ptr != body.data() + body.size()) return std::nullopt;
  if (r.ec == std::errc::result_out_of_range) {
    v = std::strtod(std::string(body).c_str(), nullptr);
  } else if (r.ec != std::errc()) {
    return std::nullopt;
  }
  return neg ? -v : v;
}

bool parse_int_token(std::string_view t, long long& out) {
  size_t i = 0;
  const size_t n = t.size();
  bool neg = false;
  if (i < n && (t[i] == '+' || t[i] == '-')) neg = t[i++] == '-';
  if (i >= n) return false;
  long long v = 0;
  bool last_digit = false;
  for (; i < n; ++i) {
    char c = t[i];
    if (c >= '0' && c <= '9') {
      if (v < (1LL << 58)) v = v * 10 + (c - '0');  // saturates on absurd sizes
      last_digit = true;
    } else if (c == '_' && last_digit && i + 1 < n && t[i + 1] >= '0' && t[i + 1] <= '9') {
      last_digit = false;
    } else {
      return false;
    }
  }
  out = neg ? -v : v;
  return true;
}

}  // namespace sqlgrade::py
