// MySQL result cells as PyMySQL 1.1.1 returns them, and Python's int()/float() of a number's text — see
// server_values.hpp (PostgreSQL's: server_values_pg.cpp). Mirrors PyMySQL's pymysql/converters.py
// (decoders) and connections.py (_get_descriptions: which fields are decoded, which stay bytes).
#include "sqlgrade/engine/server_values.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/datetime.hpp"
#include "sqlgrade/py/decimal.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::server_values {

namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

Value decimal_value(const py::Decimal& d) { return Value::typed(Kind::Decimal, 0, d.str()); }

std::optional<Value> python_int(std::string_view t) {
  std::string_view s = trim_view(t);
  bool neg = false;
  std::string_view digits = s;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    neg = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (!all_digits(digits)) return std::nullopt;
  errno = 0;
  const std::string z(s);
  char* end = nullptr;
  long long v = std::strtoll(z.c_str(), &end, 10);
  if (errno == 0 && end && *end == 0) return Value::integer(v);
  py::Decimal d;  // beyond int64: the same number, compared exactly
  d.negative = neg;
  size_t nz = digits.find_first_not_of('0');
  d.digits = nz == std::string_view::npos ? "0" : std::string(digits.substr(nz));
  return decimal_value(d);
}

std::optional<Value> python_float(std::string_view t) {
  const std::string z(trim_view(t));
  if (z.empty() || z.find_first_of("xXpP") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(z.c_str(), &end);
  if (!end || *end != 0) return std::nullopt;
  return Value::real(v);
}

// ---------------------------------------------------------------- MySQL

namespace {

// PyMySQL's convert_date: date(*[int(x) for x in text.split("-", 2)]), the text itself on ValueError.
Value my_date(std::string_view t) {
  std::vector<std::string> parts;
  size_t b = 0;
  for (int k = 0; k < 2; ++k) {
    size_t dash = t.find('-', b);
    if (dash == std::string_view::npos) break;
    parts.emplace_back(t.substr(b, dash - b));
    b = dash + 1;
  }
  parts.emplace_back(t.substr(b));
  if (parts.size() == 3) {
    auto y = python_int(parts[0]), m = python_int(parts[1]), d = python_int(parts[2]);
    if (y && m && d && y->kind == Kind::Int && m->kind == Kind::Int && d->kind == Kind::Int)
      if (auto v = py::make_date(y->i, m->i, d->i)) return *v;
  }
  return Value::text(std::string(t));
}

// Reads up to `max` digits at t[i..] (regex \d{1,max}).
bool digits_upto(std::string_view t, size_t& i, size_t max, int64_t& out, size_t* n = nullptr) {
  size_t b = i;
  out = 0;
  while (i < t.size() && i - b < max && t[i] >= '0' && t[i] <= '9') out = out * 10 + (t[i++] - '0');
  if (n) *n = i - b;
  return i > b;
}

// _convert_second_fraction: the fraction's first six digits, padded with zeros.
int64_t fraction_us(int64_t f, size_t n) {
  while (n < 6) f *= 10, ++n;
  return f;
}

// PyMySQL's DATETIME_RE (re.match: a prefix) then datetime(*groups); else convert_date.
Value my_datetime(std::string_view t) {
  size_t i = 0;
  int64_t y, mo, d, h, mi, s, f = 0;
  size_t nf = 0;
  bool ok = digits_upto(t, i, 4, y) && i < t.size() && t[i++] == '-' && digits_upto(t, i, 2, mo) && i < t.size() &&
            t[i++] == '-' && digits_upto(t, i, 2, d) && i < t.size() && (t[i] == 'T' || t[i] == ' ') && ++i &&
            digits_upto(t, i, 2, h) && i < t.size() && t[i++] == ':' && digits_upto(t, i, 2, mi) && i < t.size() &&
            t[i++] == ':' && digits_upto(t, i, 2, s);
  if (ok && i + 1 < t.size() && t[i] != '\n') {  // (?:.(\d{1,6}))? — any character, then digits
    size_t j = i + 1;
    if (digits_upto(t, j, 6, f, &nf)) i = j;
  }
  if (ok)
    if (auto v = py::make_datetime(y, mo, d, h, mi, s, fraction_us(f, nf))) return *v;
  return my_date(t);
}

// PyMySQL's TIMEDELTA_RE then timedelta(hours, minutes, seconds, microseconds) * sign; else the text.
Value my_timedelta(std::string_view t) {
  size_t i = 0;
  bool neg = i < t.size() && t[i] == '-';
  if (neg) ++i;
  int64_t h, m, s, f = 0;
  size_t nf = 0;
  bool ok = digits_upto(t, i, 3, h) && i < t.size() && t[i++] == ':' && digits_upto(t, i, 2, m) && i < t.size() &&
            t[i++] == ':' && digits_upto(t, i, 2, s);
  if (ok && i + 1 < t.size() && t[i] != '\n') {
    size_t j = i + 1;
    if (digits_upto(t, j, 6, f, &nf)) i = j;
  }
  if (!ok) return Value::text(std::string(t));
  const int64_t us = ((h * 60 + m) * 60 + s) * 1'000'000 + fraction_us(f, nf);
  return *py::make_timedelta(0, 0, neg ? -us : us);
}

}  // namespace

std::optional<Value> from_mysql(int type, unsigned charsetnr, std::string_view b, std::string& err) {
  enum { kDecimal = 0, kTiny = 1, kShort = 2, kLong = 3, kFloat = 4, kDouble = 5, kTimestamp = 7, kLongLong = 8,
         kInt24 = 9, kDate = 10, kTime = 11, kDateTime = 12, kYear = 13, kNewDate = 14, kVarchar = 15, kBit = 16,
         kJson = 245, kNewDecimal = 246, kTinyBlob = 249, kMediumBlob = 250, kLongBlob = 251, kBlob = 252,
         kVarString = 253, kString = 254, kGeometry = 255 };
  const bool text_type = type == kBit || type == kBlob || type == kLongBlob || type == kMediumBlob || type == kString ||
                         type == kTinyBlob || type == kVarString || type == kVarchar || type == kGeometry;
  if (text_type && charsetnr == 63) return Value::blob(std::string(b));  // binary: bytes, not decoded
  if (text_type || type == kJson) {
    if (!is_valid_utf8(b)) {
      err = "UnicodeDecodeError: 'utf-8' codec can't decode a result cell";
      return std::nullopt;
    }
    return Value::text(std::string(b));
  }
  // Every other field is decoded as ASCII first.
  for (unsigned char c : b)
    if (c >= 0x80) {
      err = "UnicodeDecodeError: 'ascii' codec can't decode a result cell";
      return std::nullopt;
    }
  switch (type) {
    case kTiny:
    case kShort:
    case kLong:
    case kLongLong:
    case kInt24:
    case kYear: {
      auto v = python_int(b);
      if (!v) err = "ValueError: invalid literal for int(): " + std::string(b);
      return v;
    }
    case kFloat:
    case kDouble: {
      auto v = python_float(b);
      if (!v) err = "ValueError: could not convert string to float: " + std::string(b);
      return v;
    }
    case kDecimal:
    case kNewDecimal: {
      auto d = py::Decimal::parse(b);
      if (!d) {
        err = "decimal.InvalidOperation: " + std::string(b);
        return std::nullopt;
      }
      return decimal_value(*d);
    }
    case kTimestamp:
    case kDateTime: return my_datetime(b);
    case kDate: return my_date(b);
    case kTime: return my_timedelta(b);
    default: return Value::text(std::string(b));  // no decoder: the ASCII text
  }
}

}  // namespace sqlgrade::server_values
