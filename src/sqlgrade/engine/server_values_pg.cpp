// PostgreSQL result cells as psycopg2 2.9.9 returns them — see server_values.hpp. Mirrors psycopg2's
// psycopg/typecast_builtins.c, typecast_basic.c, typecast_datetime.c, typecast_array.c, psycopg2/_json.py
// and psycopg2/_range.py (the typecasters registered by default, by type OID, on the text format).
#include "sqlgrade/engine/server_values.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <vector>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/datetime.hpp"
#include "sqlgrade/py/decimal.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::server_values {

namespace {

// Reads an unsigned decimal number at s[i...], advancing i; false when there is none.
bool read_uint(std::string_view s, size_t& i, int64_t& out, size_t* ndigits = nullptr) {
  size_t b = i;
  out = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - b < 18) out = out * 10 + (s[i++] - '0');
  if (ndigits) *ndigits = i - b;
  return i > b;
}

// ---------------------------------------------------------------- PostgreSQL

// psycopg2's date/time parsers on the ISO output (DateStyle ISO): "YYYY-MM-DD[ BC]",
// "HH:MM:SS[.ffffff][+HH[:MM[:SS]]]".
struct Clock {
  int64_t h = 0, m = 0, s = 0, us = 0;
  bool has_tz = false;
  int64_t tz = 0;  // seconds east of UTC
};

bool parse_date(std::string_view t, size_t& i, int64_t& y, int64_t& m, int64_t& d) {
  if (!read_uint(t, i, y) || i >= t.size() || t[i++] != '-') return false;
  if (!read_uint(t, i, m) || i >= t.size() || t[i++] != '-') return false;
  return read_uint(t, i, d);
}

bool parse_clock(std::string_view t, size_t& i, Clock& c) {
  if (!read_uint(t, i, c.h) || i >= t.size() || t[i++] != ':') return false;
  if (!read_uint(t, i, c.m)) return false;
  if (i < t.size() && t[i] == ':') {
    ++i;
    if (!read_uint(t, i, c.s)) return false;
  }
  if (i < t.size() && t[i] == '.') {
    ++i;
    size_t n = 0;
    int64_t f = 0;
    if (!read_uint(t, i, f, &n)) return false;
    while (n < 6) {
      f *= 10;
      ++n;
    }
    while (n > 6) {
      f /= 10;
      --n;
    }
    c.us = f;
  }
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
    const int64_t sign = t[i++] == '-' ? -1 : 1;
    int64_t hh = 0, mm = 0, ss = 0;
    if (!read_uint(t, i, hh)) return false;
    if (i < t.size() && t[i] == ':') {
      ++i;
      read_uint(t, i, mm);
      if (i < t.size() && t[i] == ':') {
        ++i;
        read_uint(t, i, ss);
      }
    }
    c.has_tz = true;
    c.tz = sign * (hh * 3600 + mm * 60 + ss);
  }
  return true;
}

bool bc_suffix(std::string_view t) { return t.size() >= 3 && t.substr(t.size() - 3) == " BC"; }

std::optional<Value> pg_date(std::string_view t, std::string& err) {
  if (t == "infinity") return py::date_max();
  if (t == "-infinity") return py::date_min();
  size_t i = 0;
  int64_t y, m, d;
  if (!parse_date(t, i, y, m, d)) {
    err = "unable to parse date " + std::string(t);
    return std::nullopt;
  }
  if (bc_suffix(t)) y = 1 - y;
  auto v = py::make_date(y, m, d);
  if (!v) err = "ValueError: year " + std::to_string(y) + " is out of range (the date " + std::string(t) + ")";
  return v;
}

std::optional<Value> pg_timestamp(std::string_view t, bool tz, std::string& err) {
  if (t == "infinity") return py::datetime_max();
  if (t == "-infinity") return py::datetime_min();
  size_t i = 0;
  int64_t y, mo, d;
  Clock c;
  if (!parse_date(t, i, y, mo, d) || i >= t.size() || t[i++] != ' ' || !parse_clock(t, i, c)) {
    err = "unable to parse timestamp " + std::string(t);
    return std::nullopt;
  }
  if (bc_suffix(t)) y = 1 - y;
  auto v = tz && c.has_tz ? py::make_datetime_tz(y, mo, d, c.h, c.m, c.s, c.us, c.tz)
                          : py::make_datetime(y, mo, d, c.h, c.m, c.s, c.us);
  if (!v) err = "ValueError: the timestamp " + std::string(t) + " is out of Python's range";
  return v;
}

std::optional<Value> pg_time(std::string_view t, std::string& err) {
  size_t i = 0;
  Clock c;
  if (!parse_clock(t, i, c)) {
    err = "unable to parse time " + std::string(t);
    return std::nullopt;
  }
  if (c.h == 24) c.h = 0;  // psycopg2 reads 24:00:00 as midnight
  auto v = c.has_tz ? py::make_time_tz(c.h, c.m, c.s, c.us, c.tz) : py::make_time(c.h, c.m, c.s, c.us);
  if (!v) err = "ValueError: the time " + std::string(t) + " is out of Python's range";
  return v;
}

// psycopg2's typecast_PYINTERVAL_cast: a state machine over the postgres IntervalStyle
// ("1 year 2 mons -3 days +04:05:06.7"); a year is 365 days, a month 30.
std::optional<Value> pg_interval(std::string_view t, std::string& err) {
  int64_t years = 0, months = 0, days = 0, hours = 0, minutes = 0, seconds = 0, micros = 0, v = 0, denom = 1;
  int sign = 1, part = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    auto skip_word = [&] {
      while (i + 1 < t.size() && t[i + 1] != ' ') ++i;
    };
    if (c == '-') {
      sign = -1;
    } else if (c >= '0' && c <= '9') {
      if (v > 922'337'203'685'477LL) {
        err = "interval out of range: " + std::string(t);
        return std::nullopt;
      }
      v = v * 10 + (c - '0');
      if (part == 6) denom *= 10;
    } else if (c == 'y' && part == 0) {
      years = v * sign, v = 0, sign = 1, part = 1;
      skip_word();
    } else if (c == 'm' && part <= 1) {
      months = v * sign, v = 0, sign = 1, part = 2;
      skip_word();
    } else if (c == 'd' && part <= 2) {
      days = v * sign, v = 0, sign = 1, part = 3;
      skip_word();
    } else if (c == ':' && part <= 3) {
      hours = v, v = 0, part = 4;
    } else if (c == ':' && part == 4) {
      minutes = v, v = 0, part = 5;
    } else if (c == '.' && part == 5) {
      seconds = v, v = 0, part = 6;
    } else if (c == 'P') {
      err = "iso_8601 intervalstyle currently not supported";
      return std::nullopt;
    }
  }
  if (part == 4) minutes = v;
  else if (part == 5) seconds = v;
  else if (part == 6) {
    micros = v;
    while (denom < 1'000'000) micros *= 10, denom *= 10;
    if (denom > 1'000'000) micros = static_cast<int64_t>(std::llround(static_cast<double>(micros) / static_cast<double>(denom) * 1e6));
  }
  seconds += 60 * (minutes + 60 * hours);
  if (sign < 0) seconds = -seconds, micros = -micros;
  days += 30 * months + 365 * years;
  auto out = py::make_timedelta(days, seconds, micros);
  if (!out) err = "OverflowError: the interval " + std::string(t) + " is out of Python's timedelta range";
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// bytea in the hex (\x...) or escape output format.
std::optional<Value> pg_bytea(std::string_view t, std::string& err) {
  std::string out;
  if (t.size() >= 2 && t[0] == '\\' && t[1] == 'x') {
    out.reserve((t.size() - 2) / 2);
    for (size_t i = 2; i + 1 < t.size(); i += 2) {
      int a = hex_digit(t[i]), b = hex_digit(t[i + 1]);
      if (a < 0 || b < 0) {
        err = "bad bytea hex text";
        return std::nullopt;
      }
      out += static_cast<char>(a * 16 + b);
    }
  } else {
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] != '\\') {
        out += t[i];
      } else if (i + 1 < t.size() && t[i + 1] == '\\') {
        out += '\\';
        ++i;
      } else if (i + 3 < t.size()) {
        out += static_cast<char>(((t[i + 1] - '0') << 6) | ((t[i + 2] - '0') << 3) | (t[i + 3] - '0'));
        i += 3;
      }
    }
  }
  return Value::blob(std::move(out));
}

using OJson = nlohmann::ordered_json;

// repr() of what json.loads returns.
std::string json_repr(const OJson& j) {
  switch (j.type()) {
    case OJson::value_t::object: {
      std::string s = "{";
      bool first = true;
      for (auto it = j.begin(); it != j.end(); ++it) {
        s += (first ? "" : ", ") + py::str_repr(it.key()) + ": " + json_repr(it.value());
        first = false;
      }
      return s + "}";
    }
    case OJson::value_t::array: {
      std::string s = "[";
      for (size_t k = 0; k < j.size(); ++k) s += (k ? ", " : "") + json_repr(j[k]);
      return s + "]";
    }
    case OJson::value_t::string: return py::str_repr(j.get<std::string>());
    case OJson::value_t::boolean: return j.get<bool>() ? "True" : "False";
    case OJson::value_t::number_integer: return std::to_string(j.get<int64_t>());
    case OJson::value_t::number_unsigned: return std::to_string(j.get<uint64_t>());
    case OJson::value_t::number_float: return py::float_repr(j.get<double>());
    default: return "None";
  }
}

std::optional<Value> pg_json(std::string_view t, std::string& err) {
  OJson j = OJson::parse(t, nullptr, false);
  if (j.is_discarded()) {
    err = "json.loads failed on the server's JSON text";
    return std::nullopt;
  }
  switch (j.type()) {
    case OJson::value_t::object: return Value::typed(Kind::Unhashable, 1, json_repr(j));
    case OJson::value_t::array: return Value::typed(Kind::Unhashable, 0, json_repr(j));
    case OJson::value_t::string: return Value::text(j.get<std::string>());
    case OJson::value_t::boolean: return Value::typed(Kind::Bool, j.get<bool>() ? 1 : 0, "");
    case OJson::value_t::number_integer: return Value::integer(j.get<int64_t>());
    case OJson::value_t::number_unsigned: return python_int(std::to_string(j.get<uint64_t>()));
    case OJson::value_t::number_float: return Value::real(j.get<double>());
    default: return Value::null();
  }
}

// The element type of the array types psycopg2 registers a caster for (others stay str).
uint32_t array_element(uint32_t oid) {
  switch (oid) {
    case 1000: return 16;
    case 1001: return 17;
    case 1002: return 18;
    case 1003: return 19;
    case 1005: return 21;
    case 1006: return 22;
    case 1007: return 23;
    case 1009: return 25;
    case 1013: return 30;
    case 1014: return 1042;
    case 1015: return 1043;
    case 1016: return 20;
    case 1021: return 700;
    case 1022: return 701;
    case 1028: return 26;
    case 1040: return 829;
    case 1041: return 869;
    case 651: return 650;
    case 1115: return 1114;
    case 1182: return 1082;
    case 1183: return 1083;
    case 1185: return 1184;
    case 1187: return 1186;
    case 1231: return 1700;
    case 1270: return 1266;
    case 199: return 114;
    case 3807: return 3802;
    case 3905: return 3904;
    case 3907: return 3906;
    case 3909: return 3908;
    case 3911: return 3910;
    case 3913: return 3912;
    case 3927: return 3926;
    default: return 0;
  }
}

// repr() of the list psycopg2 makes of an array literal ({1,2,NULL}, {{1,2},{3,4}}, {"a b",c}).
bool array_repr(std::string_view t, size_t& i, uint32_t elem, std::string& out) {
  if (i >= t.size() || t[i] != '{') return false;
  ++i;
  out += '[';
  bool first = true;
  while (i < t.size() && t[i] != '}') {
    if (!first) out += ", ";
    first = false;
    if (t[i] == '{') {
      if (!array_repr(t, i, elem, out)) return false;
    } else {
      std::string item;
      bool quoted = t[i] == '"';
      if (quoted) {
        ++i;
        while (i < t.size() && t[i] != '"') {
          if (t[i] == '\\' && i + 1 < t.size()) ++i;
          item += t[i++];
        }
        ++i;
      } else {
        while (i < t.size() && t[i] != ',' && t[i] != '}') item += t[i++];
      }
      std::string err;
      std::optional<Value> v = !quoted && item == "NULL" ? std::optional<Value>(Value::null()) : from_postgres(elem, item, err);
      out += v ? py::repr(*v) : py::str_repr(item);
    }
    if (i < t.size() && t[i] == ',') ++i;
  }
  if (i >= t.size()) return false;
  ++i;
  out += ']';
  return true;
}

std::optional<Value> pg_array(uint32_t elem, std::string_view t) {
  std::string out;
  size_t i = 0;
  if (size_t eq = t.find("={"); !t.empty() && t[0] == '[' && eq != std::string_view::npos) i = eq + 1;  // [1:2]={..}
  if (!array_repr(t, i, elem, out)) out = py::str_repr(t);
  return Value::typed(Kind::Unhashable, 0, out);
}

// psycopg2's Range subclasses, shown as their repr: NumericRange(1, 5, '[)'), DateRange(empty=True).
std::optional<Value> pg_range(uint32_t oid, std::string_view t) {
  const char* cls = oid == 3912 ? "DateRange" : oid == 3908 ? "DateTimeRange" : oid == 3910 ? "DateTimeTZRange" : "NumericRange";
  const uint32_t sub = oid == 3904 ? 23 : oid == 3926 ? 20 : oid == 3906 ? 1700 : oid == 3912 ? 1082 : oid == 3908 ? 1114 : 1184;
  if (t == "empty") return Value::typed(Kind::Other, 0, std::string(cls) + "(empty=True)");
  std::string s = cls;
  size_t comma = t.find(',');
  if (t.size() < 3 || comma == std::string_view::npos) return Value::typed(Kind::Other, 0, s + "(" + std::string(t) + ")");
  auto bound = [&](std::string_view b) {
    if (b.empty()) return std::string("None");
    if (b.size() >= 2 && b.front() == '"') b = b.substr(1, b.size() - 2);
    std::string err;
    auto v = from_postgres(sub, b, err);
    return v ? py::repr(*v) : py::str_repr(b);
  };
  s += "(" + bound(t.substr(1, comma - 1)) + ", " + bound(t.substr(comma + 1, t.size() - comma - 2)) + ", '" + t.front() +
       t.back() + "')";
  return Value::typed(Kind::Other, 0, s);
}

}  // namespace

std::optional<Value> from_postgres(uint32_t oid, std::string_view t, std::string& err) {
  switch (oid) {
    case 20:
    case 21:
    case 23:
    case 26: {
      auto v = python_int(t);
      if (!v) err = "invalid literal for int(): " + std::string(t);
      return v;
    }
    case 700:
    case 701: {
      auto v = python_float(t);
      if (!v) err = "could not convert string to float: " + std::string(t);
      return v;
    }
    case 1700: {
      auto d = py::Decimal::parse(t);
      if (!d) {
        err = "decimal.InvalidOperation: " + std::string(t);
        return std::nullopt;
      }
      return decimal_value(*d);
    }
    case 16: return Value::typed(Kind::Bool, !t.empty() && t[0] == 't' ? 1 : 0, "");
    case 1082: return pg_date(t, err);
    case 1114: return pg_timestamp(t, false, err);
    case 1184: return pg_timestamp(t, true, err);
    case 1083:
    case 1266: return pg_time(t, err);
    case 704:
    case 1186: return pg_interval(t, err);
    case 17: return pg_bytea(t, err);
    case 114:
    case 3802: return pg_json(t, err);
    case 3904:
    case 3906:
    case 3908:
    case 3910:
    case 3912:
    case 3926: return pg_range(oid, t);
    default: break;
  }
  if (uint32_t elem = array_element(oid)) return pg_array(elem, t);
  if (!is_valid_utf8(t)) {  // the client encoding is UTF8: psycopg2 decodes, and raises on bad bytes
    err = "UnicodeDecodeError: 'utf-8' codec can't decode a result cell";
    return std::nullopt;
  }
  return Value::text(std::string(t));
}


}  // namespace sqlgrade::server_values
