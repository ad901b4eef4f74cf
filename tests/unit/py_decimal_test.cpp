// Python's Decimal, bool and datetime values (py/decimal.hpp, py/datetime.hpp, py/equality.hpp): the
// expected values are what CPython 3.11 prints for the same expressions (shown beside each).
#include <gtest/gtest.h>

#include "sqlgrade/py/datetime.hpp"
#include "sqlgrade/py/decimal.hpp"
#include "sqlgrade/py/equality.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::py {
namespace {

Value dec(const char* s) { return Value::typed(Kind::Decimal, 0, Decimal::parse(s)->str()); }
Value boolean(bool b) { return Value::typed(Kind::Bool, b ? 1 : 0, ""); }

TEST(PyDecimal, StrIsPythonsToScientificString) {
  // str(Decimal(x)) in CPython 3.11
  EXPECT_EQ(Decimal::parse("33.33333")->str(), "33.33333");
  EXPECT_EQ(Decimal::parse("0.00000001")->str(), "1E-8");
  EXPECT_EQ(Decimal::parse("0.0000001")->str(), "1E-7");
  EXPECT_EQ(Decimal::parse("0.000001")->str(), "0.000001");
  EXPECT_EQ(Decimal::parse("0.00000010")->str(), "1.0E-7");
  EXPECT_EQ(Decimal::parse("1E+2")->str(), "1E+2");
  EXPECT_EQ(Decimal::parse("-0.000")->str(), "-0.000");
  EXPECT_EQ(Decimal::parse("100.00")->str(), "100.00");
  EXPECT_EQ(Decimal::parse("0012.50")->str(), "12.50");
  EXPECT_EQ(Decimal::parse("2.5000000000000000")->str(), "2.5000000000000000");
  EXPECT_EQ(Decimal::parse("NaN")->str(), "NaN");
  EXPECT_EQ(Decimal::parse("-Infinity")->str(), "-Infinity");
  EXPECT_FALSE(Decimal::parse("1.2.3"));
  EXPECT_FALSE(Decimal::parse(""));
  EXPECT_EQ(repr(dec("14.8148")), "Decimal('14.8148')");
}

TEST(PyDecimal, EqualityIsExactAgainstIntFloatAndDecimal) {
  EXPECT_TRUE(equal(dec("0.5"), Value::real(0.5)));            // Decimal('0.5') == 0.5
  EXPECT_FALSE(equal(dec("33.33333"), Value::real(33.33333)));  // Decimal('33.33333') != 33.33333
  EXPECT_FALSE(equal(dec("14.8148"), Value::real(14.814814814814815)));
  EXPECT_TRUE(equal(dec("1.0"), Value::integer(1)));            // Decimal('1.0') == 1
  EXPECT_TRUE(equal(dec("1.00"), dec("1")));
  EXPECT_TRUE(equal(dec("1E+2"), Value::integer(100)));
  EXPECT_FALSE(equal(dec("1.5"), Value::integer(1)));
  EXPECT_TRUE(equal(dec("-0"), Value::real(0.0)));
  EXPECT_FALSE(equal(dec("NaN"), dec("NaN")));
  EXPECT_TRUE(equal(dec("Infinity"), Value::real(HUGE_VAL)));
  EXPECT_TRUE(equal(dec("0.1000000000000000055511151231257827021181583404541015625"), Value::real(0.1)));
  EXPECT_FALSE(equal(dec("0.1"), Value::real(0.1)));             // Decimal('0.1') != 0.1
  EXPECT_TRUE(equal(boolean(true), Value::integer(1)));          // True == 1
  EXPECT_TRUE(equal(boolean(true), dec("1.0")));
  EXPECT_FALSE(equal(dec("1"), Value::text("1")));
}

TEST(PyDecimal, HashAgreesWithEquality) {
  EXPECT_EQ(hash(dec("1.0")), hash(Value::integer(1)));
  EXPECT_EQ(hash(dec("0.5")), hash(Value::real(0.5)));
  EXPECT_EQ(hash(dec("2.50")), hash(dec("2.5")));
  EXPECT_EQ(hash(boolean(true)), hash(Value::integer(1)));
  // set((Decimal('1.0'),)) == set((1,)), and {(Decimal('33.33333'),)} != {(33.33333,)}
  EXPECT_TRUE(same_set({{dec("1.0")}}, {{Value::integer(1)}}));
  EXPECT_FALSE(same_set({{dec("33.33333")}}, {{Value::real(33.33333)}}));
}

TEST(PyDecimal, ListsCannotBeHashedSoSetRaises) {
  Value list = Value::typed(Kind::Unhashable, 0, "[1, 2]");
  EXPECT_THROW(hash(list), Unhashable);
  EXPECT_THROW(same_set({{list}}, {{Value::integer(1)}}), Unhashable);  // set(pred) raises TypeError
  try {
    hash(list);
  } catch (const Unhashable& e) {
    EXPECT_STREQ(e.what(), "unhashable type: 'list'");
  }
}

TEST(PyDatetime, StrReprAndEqualityAsCPython) {
  Value d = *make_date(2020, 1, 2);
  EXPECT_EQ(str(d), "2020-01-02");
  EXPECT_EQ(repr(d), "datetime.date(2020, 1, 2)");
  Value dt = *make_datetime(2020, 1, 2, 3, 4, 5, 500000);
  EXPECT_EQ(str(dt), "2020-01-02 03:04:05.500000");
  EXPECT_EQ(repr(dt), "datetime.datetime(2020, 1, 2, 3, 4, 5, 500000)");
  EXPECT_EQ(repr(*make_datetime(2020, 1, 2, 0, 0, 0, 0)), "datetime.datetime(2020, 1, 2, 0, 0)");
  EXPECT_FALSE(equal(*make_date(2020, 1, 2), *make_datetime(2020, 1, 2, 0, 0, 0, 0)));  // date != datetime
  Value tz = *make_datetime_tz(2020, 1, 2, 3, 0, 0, 0, 7200);
  EXPECT_EQ(str(tz), "2020-01-02 03:00:00+02:00");
  EXPECT_EQ(repr(tz), "datetime.datetime(2020, 1, 2, 3, 0, tzinfo=datetime.timezone(datetime.timedelta(seconds=7200)))");
  EXPECT_TRUE(equal(tz, *make_datetime_tz(2020, 1, 2, 1, 0, 0, 0, 0)));  // the same instant
  EXPECT_FALSE(equal(tz, *make_datetime(2020, 1, 2, 1, 0, 0, 0)));       // aware != naive
  EXPECT_EQ(str(*make_timedelta(-1, 5, 0)), "-1 day, 0:00:05");
  EXPECT_EQ(repr(*make_timedelta(-1, 5, 0)), "datetime.timedelta(days=-1, seconds=5)");
  EXPECT_EQ(str(*make_timedelta(2, 3723, 5)), "2 days, 1:02:03.000005");
  EXPECT_EQ(repr(*make_timedelta(0, 0, 0)), "datetime.timedelta(0)");
  EXPECT_EQ(repr(*make_time(1, 2, 0, 0)), "datetime.time(1, 2)");
  EXPECT_FALSE(make_date(2021, 2, 29));  // ValueError
  EXPECT_FALSE(make_date(0, 1, 1));      // year 0 is out of range
  EXPECT_EQ(str(date_max()), "9999-12-31");
}

}  // namespace
}  // namespace sqlgrade::py
