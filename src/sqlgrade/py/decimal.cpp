// Python's decimal.Decimal: parsing, str(), exact comparison and hashing — see decimal.hpp.
#include "sqlgrade/py/decimal.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include <cmath>
#include <cstdlib>
#include <functional>

#include "sqlgrade/core/text.hpp"

namespace sqlgrade::py {

namespace {

using BigInt = boost::multiprecision::cpp_int;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Trailing zeros of the coefficient moved into the exponent: the normal form two equal finite
// Decimals share (zero: "0", exponent 0).
Decimal normalized(const Decimal& d) {
  Decimal n = d;
  if (n.form != Decimal::Form::Finite) return n;
  if (n.digits == "0") {
    n.exponent = 0;
    n.negative = false;
    return n;
  }
  size_t z = 0;
  while (z + 1 < n.digits.size() && n.digits[n.digits.size() - 1 - z] == '0') ++z;
  n.digits.resize(n.digits.size() - z);
  n.exponent += static_cast<int64_t>(z);
  return n;
}

// 10^k as a big integer.
BigInt pow10(int64_t k) {
  BigInt r = 1;
  for (int64_t i = 0; i < k; ++i) r *= 10;
  return r;
}

}  // namespace

std::optional<Decimal> Decimal::parse(std::string_view t) {
  Decimal d;
  size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) d.negative = t[i++] == '-';
  std::string_view rest = t.substr(i);
  std::string low = to_lower(std::string(rest));
  if (low == "nan") {
    d.form = Form::NaN;
    return d;
  }
  if (low == "inf" || low == "infinity") {
    d.form = Form::Infinity;
    return d;
  }
  std::string coef;
  int64_t frac = 0;
  bool seen_digit = false, dot = false;
  for (; i < t.size(); ++i) {
    char c = t[i];
    if (is_digit(c)) {
      seen_digit = true;
      if (!(coef.empty() && c == '0')) coef += c;
      if (dot) ++frac;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!seen_digit) return std::nullopt;
  int64_t exp = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool neg = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) neg = t[i++] == '-';
    if (i >= t.size()) return std::nullopt;
    for (; i < t.size(); ++i) {
      if (!is_digit(t[i])) return std::nullopt;
      if (exp < 1'000'000'000'000LL) exp = exp * 10 + (t[i] - '0');
    }
    if (neg) exp = -exp;
  }
  if (i != t.size()) return std::nullopt;
  d.digits = coef.empty() ? "0" : coef;
  d.exponent = exp - frac;
  return d;
}

// CPython's Decimal.__str__ (eng=False): plain notation when the exponent is <= 0 and the adjusted
// exponent is >= -6, else one digit before the point and E±n.
std::string Decimal::str() const {
  const std::string sign = negative ? "-" : "";
  if (form == Form::NaN) return sign + "NaN";
  if (form == Form::Infinity) return sign + "Infinity";
  const int64_t n = static_cast<int64_t>(digits.size());
  const int64_t leftdigits = exponent + n;
  const int64_t dotplace = exponent <= 0 && leftdigits > -6 ? leftdigits : 1;
  std::string intpart, fracpart;
  if (dotplace <= 0) {
    intpart = "0";
    fracpart = "." + std::string(static_cast<size_t>(-dotplace), '0') + digits;
  } else if (dotplace >= n) {
    intpart = digits + std::string(static_cast<size_t>(dotplace - n), '0');
  } else {
    intpart = digits.substr(0, static_cast<size_t>(dotplace));
    fracpart = "." + digits.substr(static_cast<size_t>(dotplace));
  }
  std::string exp;
  if (leftdigits != dotplace) {
    const int64_t e = leftdigits - dotplace;
    exp = std::string("E") + (e < 0 ? "-" : "+") + std::to_string(e < 0 ? -e : e);
  }
  return sign + intpart + fracpart + exp;
}

bool decimal_equals(const Decimal& a, const Decimal& b) {
  if (a.form == Decimal::Form::NaN || b.form == Decimal::Form::NaN) return false;
  if (a.form == Decimal::Form::Infinity || b.form == Decimal::Form::Infinity)
    return a.form == b.form && a.negative == b.negative;
  const Decimal x = normalized(a), y = normalized(b);
  return x.negative == y.negative && x.digits == y.digits && x.exponent == y.exponent;
}

std::optional<int64_t> decimal_as_int64(const Decimal& d) {
  if (d.form != Decimal::Form::Finite) return std::nullopt;
  const Decimal n = normalized(d);
  if (n.exponent < 0) return std::nullopt;
  if (static_cast<int64_t>(n.digits.size()) + n.exponent > 19) return std::nullopt;
  BigInt v(n.digits);
  v *= pow10(n.exponent);
  if (n.negative) v = -v;
  if (v > BigInt(INT64_MAX) || v < BigInt(INT64_MIN)) return std::nullopt;
  return static_cast<int64_t>(v);
}

bool decimal_equals(const Decimal& a, int64_t b) {
  auto v = decimal_as_int64(a);
  return v && *v == b;
}

bool decimal_equals(const Decimal& a, double b) {
  if (std::isnan(b) || a.form == Decimal::Form::NaN) return false;
  if (std::isinf(b) || a.form == Decimal::Form::Infinity)
    return std::isinf(b) && a.form == Decimal::Form::Infinity && a.negative == (b < 0);
  if (b == 0) return a.is_zero();
  if (a.is_zero()) return false;
  // The correctly rounded double of the decimal must be b, else they differ; then the exact check.
  const Decimal n = normalized(a);
  const std::string text = std::string(n.negative ? "-" : "") + n.digits + "e" + std::to_string(n.exponent);
  if (std::strtod(text.c_str(), nullptr) != b) return false;
  int e2 = 0;
  const double f = std::frexp(std::fabs(b), &e2);                    // |b| = f * 2^e2, f in [0.5, 1)
  const BigInt mant(static_cast<int64_t>(std::ldexp(f, 53)));        // |b| = mant * 2^(e2 - 53)
  e2 -= 53;
  BigInt lhs(n.digits), rhs = mant;                                   // lhs * 10^exp  vs  rhs * 2^e2
  if (n.exponent >= 0) lhs *= pow10(n.exponent);
  else rhs *= pow10(-n.exponent);
  if (e2 >= 0) rhs <<= e2;
  else lhs <<= -e2;
  return lhs == rhs && n.negative == (b < 0);
}

std::optional<double> decimal_as_exact_double(const Decimal& d) {
  if (d.form == Decimal::Form::NaN) return std::nullopt;
  if (d.form == Decimal::Form::Infinity) return d.negative ? -HUGE_VAL : HUGE_VAL;
  const Decimal n = normalized(d);
  const std::string text = std::string(n.negative ? "-" : "") + n.digits + "e" + std::to_string(n.exponent);
  const double x = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(x) || !decimal_equals(n, x)) return std::nullopt;
  return x;
}

size_t decimal_hash(const Decimal& d, size_t (*int_hash)(int64_t), size_t (*real_hash)(double)) {
  if (auto i = decimal_as_int64(d)) return int_hash(*i);
  if (auto x = decimal_as_exact_double(d)) return real_hash(*x);
  const Decimal n = normalized(d);
  return std::hash<std::string>{}(std::string(n.negative ? "-" : "+") + n.digits + "e" + std::to_string(n.exponent)) ^
         static_cast<size_t>(n.form) * 0x632be59bd9b4e019ULL;
}

}  // namespace sqlgrade::py
