// py/repr and py/number: Python's repr()/str() of values and int()/float() of a text. Expected values
// are what CPython 3.11 returns.
#include <gtest/gtest.h>

#include <cmath>

#include "sqlgrade/core/value.hpp"
#include "sqlgrade/py/number.hpp"
#include "sqlgrade/py/repr.hpp"

using namespace sqlgrade;

TEST(PythonRepr, Floats) {
  EXPECT_EQ(py::float_repr(1.0), "1.0");
  EXPECT_EQ(py::float_repr(0.1), "0.1");
  EXPECT_EQ(py::float_repr(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(py::float_repr(1e16), "1e+16");
  EXPECT_EQ(py::float_repr(123456789012345678.0), "1.2345678901234568e+17");
  EXPECT_EQ(py::float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(py::float_repr(0.0001), "0.0001");
  EXPECT_EQ(py::float_repr(0.00001), "1e-05");
  EXPECT_EQ(py::float_repr(-2.5), "-2.5");
  EXPECT_EQ(py::float_repr(-0.0), "-0.0");
  EXPECT_EQ(py::float_repr(1.5e-7), "1.5e-07");
  EXPECT_EQ(py::float_repr(58.744924), "58.744924");
}

TEST(PythonRepr, StringsAndTuples) {
  EXPECT_EQ(py::str_repr("abc"), "'abc'");
  EXPECT_EQ(py::str_repr("it's"), "\"it's\"");
  EXPECT_EQ(py::str_repr("a'b\"c"), "'a\\'b\"c'");
  EXPECT_EQ(py::str_repr("x\ny"), "'x\\ny'");
  EXPECT_EQ(py::repr(Value::null()), "None");
  EXPECT_EQ(py::repr(Value::integer(3)), "3");
  EXPECT_EQ(py::repr(Value::real(3)), "3.0");
  EXPECT_EQ(py::str_repr("C\xc3\xa9"), "'C\xc3\xa9'");          // str keeps non-ASCII text
  EXPECT_EQ(py::bytes_repr("C\xc3\xa9'"), "b\"C\\xc3\\xa9'\"");  // bytes escape it
  EXPECT_EQ(py::repr(Value::blob(std::string("\x00\xff", 2))), "b'\\x00\\xff'");
}

TEST(PythonRepr, CellText) {
  // py::text: "" for NULL, str() of numbers and text, a blob's raw bytes (not its repr).
  EXPECT_EQ(py::text(Value::null()), "");
  EXPECT_EQ(py::text(Value::integer(-7)), "-7");
  EXPECT_EQ(py::text(Value::real(2.0)), "2.0");
  EXPECT_EQ(py::text(Value::real(1e-05)), "1e-05");
  EXPECT_EQ(py::text(Value::text("it's")), "it's");
  EXPECT_EQ(py::text(Value::blob("ab")), "ab");
}

TEST(PythonNumber, IntAndFloatOfText) {
  EXPECT_EQ(py::parse_int(" 42 ").value(), 42);
  EXPECT_EQ(py::parse_int("+7").value(), 7);
  EXPECT_FALSE(py::parse_int("+-7").has_value());
  EXPECT_FALSE(py::parse_int("4.0").has_value());
  EXPECT_FALSE(py::parse_int("1,000").has_value());
  EXPECT_DOUBLE_EQ(py::parse_float("1e3").value(), 1000.0);
  EXPECT_DOUBLE_EQ(py::parse_float("-.5").value(), -0.5);
  EXPECT_FALSE(py::parse_float("12%").has_value());
  EXPECT_FALSE(py::parse_float("").has_value());
  EXPECT_FALSE(py::parse_float("0x10").has_value());
  EXPECT_TRUE(std::isnan(py::parse_float("NaN").value()));
  EXPECT_EQ(py::parse_float("-Infinity").value(), -INFINITY);
  EXPECT_EQ(py::parse_float("1e999").value(), INFINITY);  // float("1e999") == inf, no error
}

TEST(PythonNumber, IntOfAToken) {
  // int("1_000") == 1000; int("1__0"), int("_1"), int("1_"), int("+"), int(" 1") raise (tokens: no whitespace).
  long long v = 0;
  EXPECT_TRUE(py::parse_int_token("1_000", v));
  EXPECT_EQ(v, 1000);
  EXPECT_TRUE(py::parse_int_token("-12", v));
  EXPECT_EQ(v, -12);
  for (const char* bad : {"1__0", "_1", "1_", "+", "", " 1", "1.0", "0x1"}) EXPECT_FALSE(py::parse_int_token(bad, v)) << bad;
  EXPECT_TRUE(py::parse_int_token("99999999999999999999999", v));  // no OverflowError in Python either
  EXPECT_GT(v, 1LL << 58);
}
