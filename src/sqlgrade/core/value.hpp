#pragma once
// Typed result cells: NULL, integer, real, text, blob. Engines convert their native types into these
// (DuckDB HUGEINT/DECIMAL become Int when integral and in range, else Real; DATE/BOOL/TIMESTAMP
// become their text rendering). A value's text as Python shows it (repr(), str(), float repr) is
// py/repr.hpp's: Python behaviour lives in py/, above core.
#include <cstdint>
#include <string>
#include <string_view>

namespace sqlgrade {

enum class Kind : uint8_t { Null = 0, Int = 1, Real = 2, Text = 3, Blob = 4 };

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

  bool is_null() const { return kind == Kind::Null; }
  bool is_number() const { return kind == Kind::Int || kind == Kind::Real; }
  double as_double() const { return kind == Kind::Int ? static_cast<double>(i) : r; }

  bool operator==(const Value& o) const;  // same kind and same content (1 != 1.0 here)
};

// Hash/equality helpers used by multiset comparisons.
size_t hash_value(const Value& v);

}  // namespace sqlgrade
