// The report's SQL feature classifier: strings, identifiers and comments are not keywords; ORDER BY
// inside OVER()/aggregates is not a query-level ORDER BY; BigQuery's SELECT * EXCEPT is not a set op.
#include <gtest/gtest.h>

#include "sqlgrade/runs/sql_features.hpp"

using namespace sqlgrade::runs;

namespace {
std::vector<std::string> f(const char* sql) { return feature_names(classify_sql(sql)); }
using V = std::vector<std::string>;
}  // namespace

TEST(RunsSqlFeatures, Basics) {
  EXPECT_EQ(f("SELECT count(*) FROM singer"), V{});
  EXPECT_EQ(f("SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.id"), V{"join"});
  EXPECT_EQ(f("select name from a, b where a.id = b.id"), V{"join"});
  EXPECT_EQ(f("SELECT a, b, c FROM t WHERE x IN (1, 2, 3)"), V{});
  EXPECT_EQ(f("SELECT country, count(*) FROM singer GROUP BY country HAVING count(*) > 1"), V{"group_by"});
  EXPECT_EQ(f("SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)"), V{"nested"});
  EXPECT_EQ(f("SELECT name FROM singer ORDER BY age DESC LIMIT 3"), V{"order_limit"});
  EXPECT_EQ(f("SELECT name FROM a UNION SELECT name FROM b"), V{"set_op"});
  EXPECT_EQ(f("SELECT name FROM a INTERSECT SELECT name FROM b EXCEPT SELECT x FROM c"), V{"set_op"});
  EXPECT_EQ(f("WITH t AS (SELECT a FROM x) SELECT * FROM t"), V{"nested"});
  EXPECT_EQ(f("SELECT * FROM (SELECT a FROM x) AS s, y"), (V{"join", "nested"}));
  EXPECT_EQ(f("SELECT * FROM t FETCH FIRST 3 ROWS ONLY"), V{"order_limit"});
}

TEST(RunsSqlFeatures, StringsCommentsAndQuotedNamesAreNotKeywords) {
  EXPECT_EQ(f("SELECT 'a JOIN b' FROM t WHERE x = 'GROUP BY' -- ORDER BY x\n"), V{});
  EXPECT_EQ(f("SELECT \"union\", `join`, [order] FROM t /* LIMIT 1 ( SELECT */"), V{});
  EXPECT_EQ(f("SELECT 'it''s (SELECT 1)' FROM t"), V{});
  EXPECT_EQ(f("SELECT 'unterminated JOIN"), V{});
  EXPECT_EQ(f("SELECT 1 /* unterminated UNION"), V{});
}

TEST(RunsSqlFeatures, WindowsAggregatesAndDialects) {
  EXPECT_EQ(f("SELECT rank() OVER (PARTITION BY a ORDER BY b) FROM t"), V{});
  EXPECT_EQ(f("SELECT group_concat(x ORDER BY y) FROM t"), V{});
  EXPECT_EQ(f("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM t"), V{});
  EXPECT_EQ(f("SELECT EXTRACT(YEAR FROM d), b FROM t"), V{});
  EXPECT_EQ(f("SELECT * EXCEPT (a, b) FROM t"), V{});
  EXPECT_EQ(f("SELECT x FROM t, UNNEST(t.arr) AS e"), V{"join"});
  EXPECT_EQ(f("SELECT a FROM t WHERE b IN (SELECT b FROM u ORDER BY c LIMIT 1)"), (V{"nested", "order_limit"}));
  EXPECT_EQ(f("((SELECT a FROM t) UNION (SELECT a FROM u)) ORDER BY a"), (V{"nested", "order_limit", "set_op"}));
  EXPECT_EQ(f("SELECT a FROM t; SELECT b FROM u, v"), V{"join"});
}

TEST(RunsSqlFeatures, HostileInputDoesNotCrash) {
  std::string s;
  for (int i = 0; i < 100000; ++i) s += "((";
  s += "\xFF\xFE\x00 SELECT";
  EXPECT_EQ(f(s.c_str()) , V{});
  std::string closes(5000, ')');
  EXPECT_EQ(f((closes + " SELECT a FROM b, c").c_str()), V{"join"});
  EXPECT_EQ(f(""), V{});
}
