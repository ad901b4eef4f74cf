// py/equality and py::str(Value) (py/repr): Python 3 ==, hash consistency, set()/dict.fromkeys/`in` on tuples,
// and str() of sqlite3 values. Expected values are what CPython 3.11 evaluates (e.g. 2**53 + 1 ==
// 2.0**53 is False, str(b"a'") == 'b"a\'"', float("nan") == float("nan") is False).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sqlgrade/py/equality.hpp"
#include "sqlgrade/py/repr.hpp"

using namespace sqlgrade;

namespace {
Value I(int64_t v) { return Value::integer(v); }
Value R(double v) { return Value::real(v); }
Value T(const char* s) { return Value::text(s); }
Value B(const char* s) { return Value::blob(s); }
Value N() { return Value::null(); }
}  // namespace

TEST(PyEquality, CellsCompareLikePython3) {
  EXPECT_TRUE(py::equal(I(1), R(1.0)));
  EXPECT_TRUE(py::equal(R(-0.0), I(0)));
  EXPECT_FALSE(py::equal(I(1), R(1.5)));
  EXPECT_FALSE(py::equal(I(1), T("1")));
  EXPECT_FALSE(py::equal(T("a"), B("a")));
  EXPECT_FALSE(py::equal(N(), I(0)));
  EXPECT_FALSE(py::equal(N(), T("")));
  EXPECT_TRUE(py::equal(N(), N()));
  // Exact int/float comparison, no rounding through double (the former spider py_value_eq said true).
  EXPECT_FALSE(py::equal(I((int64_t(1) << 53) + 1), R(9007199254740992.0)));
  EXPECT_FALSE(py::equal(R(9007199254740992.0), I((int64_t(1) << 53) + 1)));
  EXPECT_TRUE(py::equal(I(int64_t(1) << 53), R(9007199254740992.0)));
  EXPECT_FALSE(py::equal(I(std::numeric_limits<int64_t>::max()), R(9223372036854775808.0)));  // 2**63 - 1 vs 2.0**63
  EXPECT_FALSE(py::equal(I(1), R(std::numeric_limits<double>::infinity())));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(py::equal(R(nan), R(nan)));
}

TEST(PyEquality, HashIsConsistentWithEqual) {
  EXPECT_EQ(py::hash(I(7)), py::hash(R(7.0)));
  EXPECT_EQ(py::hash(I(0)), py::hash(R(-0.0)));
  EXPECT_EQ(py::row_hash({I(1), T("x"), N()}), py::row_hash({R(1.0), T("x"), N()}));
  EXPECT_TRUE(py::rows_equal({I(1), T("x"), N()}, {R(1.0), T("x"), N()}));
  EXPECT_FALSE(py::rows_equal({I(1)}, {I(1), I(1)}));
  EXPECT_FALSE(py::rows_equal({I(1), I(2)}, {I(2), I(1)}));
}

TEST(PyEquality, SetsDictFromkeysAndMembership) {
  // set([(1,), (1,), (2,)]) == set([(2.0,), (1,)])
  EXPECT_TRUE(py::same_set({{I(1)}, {I(1)}, {I(2)}}, {{R(2.0)}, {I(1)}}));
  EXPECT_FALSE(py::same_set({{I(1)}}, {{I(1)}, {I(2)}}));
  EXPECT_FALSE(py::same_set({{T("1")}}, {{I(1)}}));
  EXPECT_TRUE(py::same_set({}, {}));
  // list(dict.fromkeys([(3,), (1,), (3.0,), (2,), (1,)])) == [(3,), (1,), (2,)]
  auto d = py::unique_in_order({{I(3)}, {I(1)}, {R(3.0)}, {I(2)}, {I(1)}});
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0][0].kind, Kind::Int);
  EXPECT_EQ(d[1][0].i, 1);
  EXPECT_EQ(d[2][0].i, 2);
  EXPECT_TRUE(py::contains({T("a"), R(2.0)}, I(2)));
  EXPECT_FALSE(py::contains({T("a"), R(2.5)}, I(2)));
  EXPECT_FALSE(py::contains({}, N()));
}

TEST(PyStrOfValue, StrLikePython) {
  EXPECT_EQ(py::str(N()), "None");
  EXPECT_EQ(py::str(I(-12)), "-12");
  EXPECT_EQ(py::str(R(3.0)), "3.0");
  EXPECT_EQ(py::str(R(1e-05)), "1e-05");
  EXPECT_EQ(py::str(R(1e16)), "1e+16");
  EXPECT_EQ(py::str(T("it's")), "it's");
  EXPECT_EQ(py::str(Value::blob(std::string("\x00\xff" "A", 3))), "b'\\x00\\xffA'");
  EXPECT_EQ(py::str(B("a'")), "b\"a'\"");
}
