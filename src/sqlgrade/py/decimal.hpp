#pragma once
// Python's decimal.Decimal, as far as the official BIRD scripts depend on it: psycopg2 returns a
// PostgreSQL NUMERIC and PyMySQL a MySQL DECIMAL as Decimal(text), and the scripts compare results with
// Python's == and hash(). Decimal equality is exact, also against int and float:
//   Decimal('0.5') == 0.5, Decimal('33.33333') != 33.33333, Decimal('1.0') == 1 == Decimal('1.00').
// Only what those comparisons and str()/repr() need: parsing the servers' text, str() (to-scientific-
// string), exact comparison with an int64, a double or another Decimal, and a hash consistent with
// them (py/equality.hpp).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sqlgrade::py {

struct Decimal {
  enum class Form : uint8_t { Finite, Infinity, NaN };
  Form form = Form::Finite;
  bool negative = false;
  std::string digits = "0";  // the coefficient, no leading zeros ("0" for zero)
  int64_t exponent = 0;      // value = (-1)^negative * digits * 10^exponent

  // Decimal(text) for the texts servers write: [sign] digits [. digits] [(e|E) [sign] digits], and
  // NaN / Infinity / inf (any case, with a sign). Nothing else (no spaces, no underscores).
  static std::optional<Decimal> parse(std::string_view text);

  // str(d): Python's to-scientific-string ("33.33333", "1E-7", "1.0E+2", "-0.000", "NaN", "-Infinity").
  std::string str() const;
  // repr(d): Decimal('...').
  std::string repr() const { return "Decimal('" + str() + "')"; }

  bool is_zero() const { return form == Form::Finite && digits == "0"; }
};

// Exact == (Python semantics; NaN equals nothing).
bool decimal_equals(const Decimal& a, const Decimal& b);
bool decimal_equals(const Decimal& a, int64_t b);
bool decimal_equals(const Decimal& a, double b);

// The value as an int64 when it is integral and fits; the double it equals exactly, when there is one.
std::optional<int64_t> decimal_as_int64(const Decimal& d);
std::optional<double> decimal_as_exact_double(const Decimal& d);

// A hash consistent with decimal_equals and with py::hash of ints and floats: an integral value that
// fits int64 hashes as that int, one equal to a double as that double, anything else by its normal form.
// `int_hash` / `real_hash` are py::hash's for Int and Real values.
size_t decimal_hash(const Decimal& d, size_t (*int_hash)(int64_t), size_t (*real_hash)(double));

}  // namespace sqlgrade::py
