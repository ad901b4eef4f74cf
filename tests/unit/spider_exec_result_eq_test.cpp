// spider::result_eq — test-suite result equivalence (spec §2.4). Expected outcomes were checked
// against Python semantics of exec_eval.result_eq (1 == 1.0, '1' != 1, bag semantics, quick_rej).
#include <gtest/gtest.h>

#include <chrono>

#include "sqlgrade/spider/test_suite.hpp"

using namespace sqlgrade;
using sqlgrade::spider::result_eq;

namespace {
Value I(int64_t v) { return Value::integer(v); }
Value R(double v) { return Value::real(v); }
Value S(const char* s) { return Value::text(s); }
Value B(const char* s) { return Value::blob(s); }
Value N() { return Value::null(); }
Table T(std::vector<Row> rows) {
  Table t;
  if (!rows.empty())
    for (size_t k = 0; k < rows[0].size(); ++k) t.columns.push_back("c" + std::to_string(k));
  t.rows = std::move(rows);
  return t;
}
}  // namespace

TEST(SpiderExecResultEq, BothEmptyIsEquivalentEvenWithDifferentWidths) {
  Table a, b;
  a.columns = {"x"};
  b.columns = {"x", "y", "z"};
  EXPECT_TRUE(result_eq(a, b, false));
  EXPECT_TRUE(result_eq(a, b, true));
  EXPECT_FALSE(result_eq(T({{I(1)}}), b, false));
  EXPECT_FALSE(result_eq(a, T({{I(1)}}), false));
}

TEST(SpiderExecResultEq, RowAndColumnCountsMustAgree) {
  EXPECT_FALSE(result_eq(T({{I(1)}, {I(2)}}), T({{I(1)}}), false));
  EXPECT_FALSE(result_eq(T({{I(1), I(2)}}), T({{I(1)}}), false));
}

TEST(SpiderExecResultEq, ColumnOrderNeverMatters) {
  EXPECT_TRUE(result_eq(T({{I(1), S("a")}}), T({{S("a"), I(1)}}), false));
  EXPECT_TRUE(result_eq(T({{I(1), S("a")}}), T({{S("a"), I(1)}}), true));
  EXPECT_TRUE(result_eq(T({{I(1), I(2), I(3)}, {I(4), I(5), I(6)}}), T({{I(3), I(1), I(2)}, {I(6), I(4), I(5)}}), true));
  // A permutation must be the same for every row.
  EXPECT_FALSE(result_eq(T({{I(1), I(2)}, {I(3), I(4)}}), T({{I(1), I(2)}, {I(4), I(3)}}), false));
}

TEST(SpiderExecResultEq, BagSemanticsWithoutOrder) {
  EXPECT_TRUE(result_eq(T({{I(1)}, {I(2)}, {I(2)}}), T({{I(2)}, {I(1)}, {I(2)}}), false));
  EXPECT_FALSE(result_eq(T({{I(1)}, {I(1)}, {I(2)}}), T({{I(1)}, {I(2)}, {I(2)}}), false));
  EXPECT_FALSE(result_eq(T({{I(1), I(2)}, {I(1), I(2)}, {I(3), I(4)}}), T({{I(2), I(1)}, {I(4), I(3)}, {I(4), I(3)}}), false));
}

TEST(SpiderExecResultEq, OrderMattersOnlyWhenAsked) {
  Table g = T({{I(1), I(2)}, {I(3), I(4)}});
  Table p = T({{I(3), I(4)}, {I(1), I(2)}});
  EXPECT_TRUE(result_eq(g, p, false));
  EXPECT_FALSE(result_eq(g, p, true));
}

TEST(SpiderExecResultEq, PythonEqualityOfCells) {
  EXPECT_TRUE(result_eq(T({{I(1), I(2)}}), T({{R(2.0), R(1.0)}}), false));  // 1 == 1.0
  EXPECT_FALSE(result_eq(T({{I(1)}}), T({{S("1")}}), false));                // '1' != 1
  EXPECT_FALSE(result_eq(T({{S("x")}}), T({{B("x")}}), false));              // str != bytes
  EXPECT_TRUE(result_eq(T({{N(), B("x")}}), T({{B("x"), N()}}), false));     // None == None
  // Python compares int and float exactly: 2**53 + 1 != float(2**53).
  EXPECT_FALSE(result_eq(T({{I((int64_t{1} << 53) + 1)}}), T({{R(9007199254740992.0)}}), false));
  EXPECT_TRUE(result_eq(T({{I(int64_t{1} << 53)}}), T({{R(9007199254740992.0)}}), false));
}

// quick_rej sorts each row's cells by str(value) + str(type(value)); 1 and 1.0 sort differently
// against 1.5, so the official code rejects rows that are equal cell by cell (Python prints False).
TEST(SpiderExecResultEq, QuickRejectionQuirkIsReproduced) {
  EXPECT_FALSE(result_eq(T({{I(1), R(1.5)}}), T({{R(1.0), R(1.5)}}), false));
  EXPECT_TRUE(result_eq(T({{I(1), R(1.5)}}), T({{I(1), R(1.5)}}), false));
}

TEST(SpiderExecResultEq, WideResultsAreFast) {
  // 12 identical columns (12! permutations for a naive search) and 10 distinct shuffled columns.
  Row same(12, I(7));
  Table a = T({same, same, same});
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(result_eq(a, a, false));
  Row g, p;
  for (int k = 0; k < 10; ++k) g.push_back(I(k));
  for (int k = 9; k >= 0; --k) p.push_back(I(k));
  Row g2 = g, p2 = p;
  g2[0] = I(100);
  p2[9] = I(100);
  EXPECT_TRUE(result_eq(T({g, g2}), T({p, p2}), false));
  p2[9] = I(101);
  EXPECT_FALSE(result_eq(T({g, g2}), T({p, p2}), false));
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 2.0);
}
