// --plug_value candidate generation (spec §2.5). Token lists and values were produced by the
// test-suite parse.py functions running on sqlparse 0.4.2.
#include <gtest/gtest.h>

#include <set>

#include "sqlgrade/spider/plug_value.hpp"

using namespace sqlgrade::spider::sqlparse;
using V = std::vector<std::string>;

TEST(SpiderExecPlugValue, ExtractsStringsNumbersAndLimit) {
  auto q = extract_query_values("SELECT T1.name FROM singer AS T1 WHERE T1.age > 20 AND T1.country = 'France' LIMIT 3");
  ASSERT_TRUE(q.ok);
  EXPECT_EQ(q.tokens, (V{"select", "t1", ".", "name", "from", "singer", "as", "t1", "where", "t1", ".", "age", ">",
                         "valuerare", "and", "t1", ".", "country", "=", "valuerare", "limit", "valuerare"}));
  EXPECT_EQ(std::set<std::string>(q.values.begin(), q.values.end()), (std::set<std::string>{"20", "'France'", "3"}));
}

TEST(SpiderExecPlugValue, FloatsAndDoubleQuotedValues) {
  auto q = extract_query_values("select count(*) from singer where country = \"France\" and age > 30.5;");
  ASSERT_TRUE(q.ok);
  EXPECT_EQ(q.tokens, (V{"select", "count", "(", "*", ")", "from", "singer", "where", "country", "=", "valuerare",
                         "and", "age", ">", "valuerare"}));
  EXPECT_EQ(q.values, (V{"\"France\"", "30.5"}));
}

TEST(SpiderExecPlugValue, IntegerRuleQuirks) {
  // "[^tT]\d+" also matches columns such as a1 and c3 when they stand alone; t2/T1 aliases never match.
  auto q = extract_query_values("select max(t2.a1) from t as t2 where t2.b = 5 and c3 = 7 and x=10");
  ASSERT_TRUE(q.ok);
  EXPECT_EQ(q.tokens, (V{"select", "max", "(", "t2", ".", "valuerare", ")", "from", "t", "as", "t2", "where", "t2", ".",
                         "b", "=", "valuerare", "and", "valuerare", "=", "valuerare", "and", "x", "=", "valuerare"}));
  EXPECT_EQ(q.values, (V{"a1", "5", "c3", "7", "10"}));
}

TEST(SpiderExecPlugValue, CandidatesInProductOrder) {
  PlugCandidates pc("SELECT name FROM t WHERE a = 'x' AND b = 3", "select name from t where a = 'y' and b = 4");
  ASSERT_TRUE(pc.ok());
  EXPECT_EQ(pc.slots(), 2u);
  ASSERT_EQ(pc.count(), 4u);
  std::set<std::string> all;
  for (uint64_t k = 0; k < pc.count(); ++k) all.insert(pc.candidate(k));
  EXPECT_EQ(all, (std::set<std::string>{"select name from t where a = 3 and b = 3",
                                         "select name from t where a = 3 and b = 'x'",
                                         "select name from t where a = 'x' and b = 3",
                                         "select name from t where a = 'x' and b = 'x'"}));
  // the last slot varies fastest
  EXPECT_EQ(pc.candidate(0).substr(0, 31), pc.candidate(1).substr(0, 31));
}

TEST(SpiderExecPlugValue, DuplicateGoldValuesCountOnce) {
  PlugCandidates pc("SELECT a FROM t WHERE b = 10 OR c = 10 OR d = 'q'", "SELECT a FROM t WHERE b = 1 AND c = 2 AND d = 3");
  ASSERT_TRUE(pc.ok());
  EXPECT_EQ(pc.values().size(), 2u);
  EXPECT_EQ(pc.slots(), 3u);
  EXPECT_EQ(pc.count(), 8u);
}

TEST(SpiderExecPlugValue, NoSlotsGivesOneCandidateAndEmptyTextNone) {
  PlugCandidates pc("SELECT a FROM t WHERE b = 1", "SELECT a FROM t");
  ASSERT_TRUE(pc.ok());
  EXPECT_EQ(pc.count(), 1u);
  EXPECT_EQ(pc.candidate(0), "select a from t");
  EXPECT_FALSE(PlugCandidates("SELECT 1", "  ").ok());
}
