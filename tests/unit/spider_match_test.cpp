// Hardness (with the official quirks), the rebuild steps, each partial-matching component, exact
// match, and the original Spider execution comparison — on a concert_singer-shaped schema.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sqlgrade/py/equality.hpp"
#include "sqlgrade/spider/exact_match.hpp"
#include "sqlgrade/spider/hardness.hpp"
#include "sqlgrade/spider/parser.hpp"
#include "sqlgrade/spider/rebuild.hpp"
#include "sqlgrade/spider/schema.hpp"

using namespace sqlgrade::spider;
using sqlgrade::Table;
using sqlgrade::Value;

namespace {

const DbInfo& db() {
  static std::shared_ptr<DbInfo> info = [] {
    CatalogueTables cat = {
        {"stadium", {"Stadium_ID", "Location", "Name", "Capacity", "Highest", "Lowest", "Average"}},
        {"singer", {"Singer_ID", "Name", "Country", "Song_Name", "Song_release_year", "Age", "Is_male"}},
        {"concert", {"concert_ID", "concert_Name", "Theme", "Stadium_ID", "Year"}},
        {"singer_in_concert", {"concert_ID", "Singer_ID"}},
    };
    // tables.json-style entry: column indices as in Spider's concert_singer
    nlohmann::json e = {
        {"db_id", "concert_singer"},
        {"table_names_original", {"stadium", "singer", "concert", "singer_in_concert"}},
        {"column_names_original",
         {{-1, "*"}, {0, "Stadium_ID"}, {0, "Location"}, {0, "Name"}, {0, "Capacity"}, {0, "Highest"}, {0, "Lowest"},
          {0, "Average"}, {1, "Singer_ID"}, {1, "Name"}, {1, "Country"}, {1, "Song_Name"}, {1, "Song_release_year"},
          {1, "Age"}, {1, "Is_male"}, {2, "concert_ID"}, {2, "concert_Name"}, {2, "Theme"}, {2, "Stadium_ID"},
          {2, "Year"}, {3, "concert_ID"}, {3, "Singer_ID"}}},
        {"foreign_keys", {{18, 1}, {21, 8}, {20, 15}}},
    };
    return make_db_info("concert_singer", cat, &e);
  }();
  return *info;
}

std::unique_ptr<Sql> P(const std::string& q) { return parse_sql(db().schema, q); }
std::unique_ptr<Sql> R(const std::string& q) {
  auto s = P(q);
  rebuild_sql(*s, db());
  return s;
}
const char* H(const std::string& q) { return to_string(hardness(*P(q))); }
int EM(const std::string& pred, const std::string& gold) { return exact_match(*R(pred), *R(gold), db()); }
ComponentScore comp(const std::string& pred, const std::string& gold, Component c) {
  return partial_match(*R(pred), *R(gold), db())[c];
}

}  // namespace

TEST(SpiderHardness, VerifiedExamples) {
  EXPECT_STREQ(H("SELECT count(*) FROM singer"), "easy");
  EXPECT_STREQ(H("SELECT name, age FROM singer"), "medium");
  EXPECT_STREQ(H("SELECT name FROM singer WHERE age > 1 AND age < 5"), "medium");
  EXPECT_STREQ(H("SELECT name FROM singer GROUP BY name HAVING count(*) > 1 AND count(*) < 9"), "easy");
  EXPECT_STREQ(H("SELECT name FROM singer WHERE age NOT IN (SELECT age FROM singer)"), "hard");
}

TEST(SpiderHardness, QuirkNotCountsAsAggregation) {
  EXPECT_STREQ(H("SELECT count(*) FROM singer WHERE age IN (SELECT age FROM singer)"), "hard");
  EXPECT_STREQ(H("SELECT count(*) FROM singer WHERE age NOT IN (SELECT age FROM singer)"), "extra");
}

TEST(SpiderHardness, QuirkHavingConnectorsCountAsAggregations) {
  EXPECT_STREQ(H("SELECT name FROM singer GROUP BY name HAVING count(*) > 1 AND avg(age) > 2 OR max(age) < 3"), "medium");
  auto h = hardness_counts(*P("SELECT name FROM singer GROUP BY name HAVING count(*) > 1 AND avg(age) > 2"));
  EXPECT_EQ(h.others, 0);  // one connector = one aggregation, not > 1
  EXPECT_EQ(h.component1, 1);  // GROUP BY only: HAVING itself does not count
}

TEST(SpiderHardness, FromSubqueryIsNotNesting) {
  auto h = hardness_counts(*P("SELECT count(*) FROM (SELECT name FROM singer)"));
  EXPECT_EQ(h.component2, 0);
  auto u = hardness_counts(*P("SELECT name FROM singer UNION SELECT name FROM stadium"));
  EXPECT_EQ(u.component2, 1);
}

TEST(SpiderRebuild, ValuesDroppedAndDistinctCleared) {
  EXPECT_EQ(EM("SELECT name FROM singer WHERE age > 99", "SELECT name FROM singer WHERE age > 20"), 1);
  EXPECT_EQ(EM("SELECT DISTINCT name FROM singer", "SELECT name FROM singer"), 1);
  EXPECT_EQ(EM("SELECT count(DISTINCT name) FROM singer", "SELECT count(name) FROM singer"), 1);
  // column right-hand sides are dropped too
  EXPECT_EQ(EM("SELECT name FROM singer WHERE age > song_release_year", "SELECT name FROM singer WHERE age > 20"), 1);
}

TEST(SpiderRebuild, ForeignKeyCanonicalisation) {
  EXPECT_EQ(EM("SELECT T2.singer_id FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id",
               "SELECT T1.singer_id FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id"),
            1);
  // Without the joined table the FK column is not valid, so no canonicalisation.
  EXPECT_EQ(EM("SELECT singer_id FROM singer_in_concert", "SELECT singer_id FROM singer"), 0);
}

TEST(SpiderRebuild, NestedWhereQueriesAreNotColumnRebuilt) {
  // DISTINCT inside a WHERE sub-query survives the rebuild, so it decides the comparison.
  EXPECT_EQ(EM("SELECT name FROM singer WHERE age IN (SELECT DISTINCT age FROM singer)",
               "SELECT name FROM singer WHERE age IN (SELECT age FROM singer)"),
            0);
  // Values inside it are removed.
  EXPECT_EQ(EM("SELECT name FROM singer WHERE age IN (SELECT age FROM singer WHERE age > 3)",
               "SELECT name FROM singer WHERE age IN (SELECT age FROM singer WHERE age > 5)"),
            1);
}

TEST(SpiderComponents, SelectIsAMultiset) {
  EXPECT_EQ(EM("SELECT country, name FROM singer", "SELECT name, country FROM singer"), 1);
  auto c = comp("SELECT max(age) FROM singer", "SELECT min(age) FROM singer", C_SELECT);
  EXPECT_EQ(c.score, 0);
  auto d = comp("SELECT max(age) FROM singer", "SELECT min(age) FROM singer", C_SELECT_NO_AGG);
  EXPECT_EQ(d.score, 1);
}

TEST(SpiderComponents, WhereAndWhereNoOp) {
  auto w = comp("SELECT name FROM singer WHERE age < 3", "SELECT name FROM singer WHERE age > 3", C_WHERE);
  EXPECT_EQ(w.score, 0);
  auto n = comp("SELECT name FROM singer WHERE age < 3", "SELECT name FROM singer WHERE age > 3", C_WHERE_NO_OP);
  EXPECT_EQ(n.score, 1);
  EXPECT_EQ(n.label_total, 1);
}

TEST(SpiderComponents, GroupIgnoresTableAndChecksHaving) {
  auto g = comp("SELECT count(*) FROM stadium GROUP BY name", "SELECT count(*) FROM singer GROUP BY name", C_GROUP_NO_HAVING);
  EXPECT_EQ(g.score, 1);
  auto h = comp("SELECT count(*) FROM singer GROUP BY name HAVING count(*) > 1", "SELECT count(*) FROM singer GROUP BY name",
                C_GROUP);
  EXPECT_EQ(h.score, 0);
}

TEST(SpiderComponents, OrderUsesLimitPresenceOnly) {
  EXPECT_EQ(EM("SELECT name FROM singer ORDER BY age LIMIT 5", "SELECT name FROM singer ORDER BY age LIMIT 1"), 1);
  EXPECT_EQ(EM("SELECT name FROM singer ORDER BY age ASC", "SELECT name FROM singer ORDER BY age"), 1);
  EXPECT_EQ(comp("SELECT name FROM singer ORDER BY age", "SELECT name FROM singer ORDER BY age LIMIT 1", C_ORDER).score, 0);
  EXPECT_EQ(comp("SELECT name FROM singer ORDER BY age DESC", "SELECT name FROM singer ORDER BY age", C_ORDER).score, 0);
}

TEST(SpiderComponents, AndOrTotalsAreSwapped) {
  auto c = comp("SELECT name FROM singer WHERE age > 1 AND age < 3 OR age = 5", "SELECT name FROM singer WHERE age > 1",
                C_AND_OR);
  EXPECT_EQ(c.score, 0);
  EXPECT_EQ(c.label_total, 2);  // size of the *prediction's* connector set
  EXPECT_EQ(c.pred_total, 0);
}

TEST(SpiderComponents, IuenAndKeywords) {
  auto i = comp("SELECT name FROM singer UNION SELECT name FROM stadium", "SELECT name FROM singer", C_IUEN);
  EXPECT_EQ(i.pred_total, 1);
  EXPECT_EQ(i.label_total, 0);
  EXPECT_EQ(i.score, 0);
  auto k = comp("SELECT name FROM singer WHERE name LIKE 'a' ORDER BY age", "SELECT name FROM singer WHERE name NOT IN (SELECT name FROM stadium)",
                C_KEYWORDS);
  // pred {where, like, order, asc}; gold {where, not, in}
  EXPECT_EQ(k.pred_total, 4);
  EXPECT_EQ(k.label_total, 3);
  EXPECT_EQ(k.count, 1);
}

TEST(SpiderExact, FromTablesAreCompared) {
  EXPECT_EQ(EM("SELECT count(*) FROM concert", "SELECT count(*) FROM singer"), 0);
  // ON conditions are never compared
  EXPECT_EQ(EM("SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.concert_id",
               "SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id"),
            1);
}

TEST(SpiderExact, UnparseablePredictionScoresZero) {
  auto empty = empty_sql();
  rebuild_sql(*empty, db());
  EXPECT_EQ(exact_match(*empty, *R("SELECT name FROM singer"), db()), 0);
}

TEST(SpiderExec, OriginalMetricKeysBySelectItems) {
  auto pred = R("SELECT max(age) FROM singer");
  auto gold = R("SELECT min(age) FROM singer");
  Table a, b;
  a.columns = {"x"};
  b.columns = {"y"};
  a.rows = {{Value::integer(5)}};
  b.rows = {{Value::real(5.0)}};
  // max(a) and min(a) share a key (Spider issue #31); 5 == 5.0 in Python.
  EXPECT_TRUE(spider_exec_maps_equal(*pred, a, *gold, b));
  b.rows = {{Value::text("5")}};
  EXPECT_FALSE(spider_exec_maps_equal(*pred, a, *gold, b));
}

TEST(SpiderExec, RowOrderMattersAndColumnsArePairedByKey) {
  auto pred = R("SELECT age, name FROM singer");
  auto gold = R("SELECT name, age FROM singer");
  Table p, g;
  p.rows = {{Value::integer(1), Value::text("a")}, {Value::integer(2), Value::text("b")}};
  g.rows = {{Value::text("a"), Value::integer(1)}, {Value::text("b"), Value::integer(2)}};
  EXPECT_TRUE(spider_exec_maps_equal(*pred, p, *gold, g));
  std::swap(g.rows[0], g.rows[1]);
  EXPECT_FALSE(spider_exec_maps_equal(*pred, p, *gold, g));
}

TEST(SpiderExec, PythonValueEquality) {
  EXPECT_TRUE(sqlgrade::py::equal(Value::integer(1), Value::real(1.0)));
  EXPECT_FALSE(sqlgrade::py::equal(Value::integer(1), Value::text("1")));
  EXPECT_TRUE(sqlgrade::py::equal(Value::null(), Value::null()));
  EXPECT_FALSE(sqlgrade::py::equal(Value::null(), Value::integer(0)));
  EXPECT_FALSE(sqlgrade::py::equal(Value::text("a"), Value::blob("a")));
}
