#include "sqlgrade/core/value.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

namespace sqlgrade {

std::string python_float_repr(double v) {
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
// CPython's quoting of str and bytes reprs; bytes also escape every byte >= 0x7f.
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

std::string python_str_repr(std::string_view s) { return quoted_repr(s, false); }
std::string python_bytes_repr(std::string_view s) { return quoted_repr(s, true); }

std::string Value::to_string() const {
  switch (kind) {
    case Kind::Null: return "";
    case Kind::Int: return std::to_string(i);
    case Kind::Real: return python_float_repr(r);
    case Kind::Text:
    case Kind::Blob: return s;
  }
  return "";
}

std::string Value::python_repr() const {
  switch (kind) {
    case Kind::Null: return "None";
    case Kind::Int: return std::to_string(i);
    case Kind::Real: return python_float_repr(r);
    case Kind::Text: return python_str_repr(s);
    case Kind::Blob: return python_bytes_repr(s);
  }
  return "";
}

bool Value::operator==(const Value& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::Null: return true;
    case Kind::Int: return i == o.i;
    case Kind::Real: return r == o.r || (std::isnan(r) && std::isnan(o.r));
    default: return s == o.s;
  }
}

size_t hash_value(const Value& v) {
  size_t h = static_cast<size_t>(v.kind) * 0x9e3779b97f4a7c15ULL;
  switch (v.kind) {
    case Kind::Null: return h;
    case Kind::Int: return h ^ std::hash<int64_t>{}(v.i);
    case Kind::Real: return h ^ std::hash<double>{}(v.r);
    default: return h ^ std::hash<std::string>{}(v.s);
  }
}

}  // namespace sqlgrade
