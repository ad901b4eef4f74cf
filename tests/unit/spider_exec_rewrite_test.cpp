// Query rewriting before execution (spec §2.2): operator fixes, DISTINCT removal through sqlparse
// tokens (first statement only), YEAR(CURDATE()) -> 2020. Expected strings were produced by
// sqlparse 0.4.2, the version the official outputs were made with.
#include <gtest/gtest.h>

#include "sqlgrade/spider/test_suite.hpp"
#include "sqlgrade/spider/sqlparse.hpp"

using namespace sqlgrade::spider;

TEST(SpiderExecRewrite, OperatorFixes) {
  EXPECT_EQ(postprocess_sql("a > = 1 AND b < = 2 AND c ! = 3"), "a >= 1 AND b <= 2 AND c != 3");
  EXPECT_EQ(postprocess_sql("a >  = 1"), "a >  = 1");  // exactly one space only
  EXPECT_EQ(postprocess_sql("a < > 1"), "a < > 1");
}

TEST(SpiderExecRewrite, RemoveDistinctKeepsSurroundingText) {
  EXPECT_EQ(remove_distinct("SELECT DISTINCT name FROM t"), "SELECT  name FROM t");
  EXPECT_EQ(remove_distinct("SELECT count(DISTINCT x) FROM t"), "SELECT count( x) FROM t");
  EXPECT_EQ(remove_distinct("select count(distinct(x)) from t"), "select count((x)) from t");
  // strings, quoted names, identifiers that merely contain the word, and comments are untouched
  EXPECT_EQ(remove_distinct("SELECT \"distinct\", distinct_x FROM t WHERE a = 'distinct' -- distinct\n"),
            "SELECT \"distinct\", distinct_x FROM t WHERE a = 'distinct' -- distinct\n");
  EXPECT_EQ(remove_distinct("SELECT `distinct` FROM t"), "SELECT `distinct` FROM t");
}

TEST(SpiderExecRewrite, RemoveDistinctKeepsOnlyTheFirstStatement) {
  EXPECT_EQ(remove_distinct("SELECT DISTINCT a FROM t; SELECT b FROM t"), "SELECT  a FROM t; ");
  EXPECT_EQ(remove_distinct("SELECT a FROM t;  \n SELECT b"), "SELECT a FROM t;  ");
  EXPECT_EQ(remove_distinct("SELECT a FROM t WHERE b = 'a;b' ; "), "SELECT a FROM t WHERE b = 'a;b' ; ");
  EXPECT_EQ(remove_distinct("SELECT (a; b) FROM t; SELECT 2"), "SELECT (a; b) FROM t; ");
  bool found = true;
  EXPECT_EQ(sqlparse::remove_distinct("   ", &found), "");
  EXPECT_FALSE(found);
  sqlparse::remove_distinct(";", &found);
  EXPECT_TRUE(found);
}

TEST(SpiderExecRewrite, CurrentYear) {
  EXPECT_EQ(replace_cur_year("SELECT YEAR(CURDATE()) - age FROM t"), "SELECT 2020- age FROM t");
  EXPECT_EQ(replace_cur_year("select year ( curdate ( ) )  -  1"), "select 2020-  1");
  EXPECT_EQ(replace_cur_year("select year(now())"), "select year(now())");
}

TEST(SpiderExecRewrite, LexerTokenTypes) {
  auto toks = sqlparse::tokenize("SELECT a FROM t WHERE b = 'it''s' AND c = -1.5 -- x\nORDER BY a");
  std::vector<std::string> strings, numbers;
  bool comment = false;
  for (auto& t : toks) {
    if (t.type == sqlparse::TokType::StringSingle) strings.emplace_back(t.text());
    if (t.type == sqlparse::TokType::Number) numbers.emplace_back(t.text());
    if (t.type == sqlparse::TokType::CommentSingle) comment = t.text() == "-- x\n";
  }
  EXPECT_EQ(strings, std::vector<std::string>{"'it''s'"});
  EXPECT_EQ(numbers, std::vector<std::string>{"-1.5"});
  EXPECT_TRUE(comment);
  std::string joined;
  for (auto& t : toks) joined += t.text();
  EXPECT_EQ(joined, "SELECT a FROM t WHERE b = 'it''s' AND c = -1.5 -- x\nORDER BY a");  // round trip
}
