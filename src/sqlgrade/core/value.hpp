#pragma once
// Typed result cells: NULL, integer, real, text, blob. Engines convert their native types into these
// (DuckDB HUGEINT/DECIMAL become Int when integral and in range, else Real; DATE/BOOL/TIMESTAMP
// become their text rendering). Results from PostgreSQL and MySQL servers also carry the other Python
// types their official drivers return (psycopg2, PyMySQL; engine/server_values.hpp): Decimal, bool,
// date, datetime, time, timedelta, and lists/dicts that Python cannot hash. A value's text as Python shows it (repr(), str(), float repr) is
// py/repr.hpp's: Python behaviour lives in py/, above core.
#include <cstdint>
#include <string>
#include <string_view>

namespace sqlgrade {

enum class Kind : uint8_t {
  Null = 0, Int = 1, Real = 2, Text = 3, Blob = 4,
  // Only from server engines (py/decimal.hpp, py/datetime.hpp say how each compares):
  Decimal = 5,     // decimal.Decimal: s = its str() (exact; == compares the number)
  Bool = 6,        // bool: i = 0 or 1 (True == 1 == 1.0 in Python)
  Date = 7,        // datetime.date: i = days from 0001-01-01, s = str()
  DateTime = 8,    // naive datetime.datetime: i = microseconds from 0001-01-01, s = str()
  DateTimeTz = 9,  // aware datetime.datetime: i = the UTC instant in microseconds, r = UTC offset (s), s = str()
  Time = 10,       // naive datetime.time: i = microseconds of the day, s = str()
  TimeTz = 11,     // aware datetime.time: i = microseconds of the day minus the offset, r = offset (s)
  Duration = 12,   // datetime.timedelta: i = total microseconds, s = str()
  Other = 13,      // another hashable object (psycopg2's Range): equal only to the same s (its repr)
  Unhashable = 14  // list or dict (an array, a JSON object): s = its repr(); hash() raises (py/equality.hpp)
};

struct Value {
  Kind kind = Kind::Null;
  int64_t i = 0;
  double r = 0.0;
  std::string s;  // text (UTF-8) or blob bytes

  static Value null() { return {}; }
  static Value integer(int64_t v) { Value x; x.kind = Kind::Int; x.i = v; return x; }
  static Value real(double v) { Value x; x.kind = Kind::Real; x.r = v; return x; }
  static Value text(std::string v) { Value x; x.kind = Kind::Text; x.s = std::move(v); return x; }
  static Value blob(std::string v) { Value x; x.kind = Kind::Blob; x.s = std::move(v); return x; }
  // One of the server kinds (Decimal … Unhashable) with its fields as value.hpp's Kind describes them.
  static Value typed(Kind k, int64_t i, std::string s, double r = 0) {
    Value x; x.kind = k; x.i = i; x.r = r; x.s = std::move(s); return x;
  }

  bool is_null() const { return kind == Kind::Null; }
  bool is_number() const { return kind == Kind::Int || kind == Kind::Real; }
  double as_double() const { return kind == Kind::Int ? static_cast<double>(i) : r; }

  bool operator==(const Value& o) const;  // same kind and same content (1 != 1.0 here)
};

// Hash/equality helpers used by multiset comparisons.
size_t hash_value(const Value& v);

}  // namespace sqlgrade
