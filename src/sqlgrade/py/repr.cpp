// Python's repr() and str() of values — see repr.hpp.
#include "sqlgrade/py/repr.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "sqlgrade/py/datetime.hpp"
#include "sqlgrade/py/decimal.hpp"

namespace sqlgrade::py {

// CPython's float_repr_style 'short': format_float_short with mode 0 (shortest round trip), then
// "r" formatting — fixed when the decimal point lies in (-4, 16], else scientific with at least two
// exponent digits.
std::string float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  // sci looks like "-d.ddde+XX" or "de-XX"
  bool neg = sci[0] == '-';
  if (neg) sci.erase(0, 1);
  size_t epos = sci.find('e');
  std::string mant = sci.substr(0, epos);
  int exp10 = std::stoi(sci.substr(epos + 1));
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  int decpt = exp10 + 1;  // value = 0.DIGITS * 10^decpt
  std::string out;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out = "0." + std::string(-decpt, '0') + digits;
    } else if (decpt >= static_cast<int>(digits.size())) {
      out = digits + std::string(decpt - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, decpt) + "." + digits.substr(decpt);
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    int e = decpt - 1;
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    out += eb;
  }
  return neg ? "-" + out : out;
}

namespace {
// CPython's quoting of str and bytes reprs (unicode_repr, bytes_repr); bytes also escape every byte
// >= 0x7f.
std::string quoted_repr(std::string_view s, bool bytes) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char q = (has_single && !has_double) ? '"' : '\'';
  std::string out = bytes ? "b" : "";
  out += q;
  for (unsigned char c : s) {
    if (c == static_cast<unsigned char>(q) || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f || (bytes && c > 0x7f)) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += q;
  return out;
}
}  // namespace

std::string str_repr(std::string_view s) { return quoted_repr(s, false); }
std::string bytes_repr(std::string_view s) { return quoted_repr(s, true); }

std::string repr(const Value& v) {
  switch (v.kind) {
    case Kind::Null: return "None";
    case Kind::Int: return std::to_string(v.i);
    case Kind::Real: return float_repr(v.r);
    case Kind::Text: return str_repr(v.s);
    case Kind::Blob: return bytes_repr(v.s);
    case Kind::Decimal: return "Decimal('" + v.s + "')";
    case Kind::Bool: return v.i ? "True" : "False";
    case Kind::Other:
    case Kind::Unhashable: return v.s;
    default: return datetime_repr(v);  // dates, times, timedelta
  }
}

// str() differs from repr() for str itself (no quotes) and for the types whose str() value.hpp keeps
// (Decimal, dates and times: 1.5, 2020-01-02); bytes print their repr.
std::string str(const Value& v) {
  switch (v.kind) {
    case Kind::Text:
    case Kind::Decimal:
    case Kind::Date:
    case Kind::DateTime:
    case Kind::DateTimeTz:
    case Kind::Time:
    case Kind::TimeTz:
    case Kind::Duration: return v.s;
    default: return repr(v);
  }
}

std::string text(const Value& v) {
  if (v.kind == Kind::Null) return "";
  return v.kind == Kind::Blob ? v.s : str(v);  // numbers: str() = repr()
}

}  // namespace sqlgrade::py
