// No refutation from order or ties (issue 30 item 1; src/sqlgrade/verify/ties.hpp): the tie-break
// variants of a query, the verdict on a database, and whole searches under the three rules — a pair
// that differs only where a tie-break decides is never "refuted", a real difference beyond a LIMIT
// still is.
#include <gtest/gtest.h>

#include "sqlgrade/verify/scratch_db.hpp"
#include "sqlgrade/verify/ties.hpp"
#include "sqlgrade/verify/verify.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::verify;
using sqlgrade::test::TempDir;

namespace {

constexpr const char* kPeople =
    "CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL);"
    "INSERT INTO people VALUES (1,'Ann',31),(2,'Bob',25),(3,'Cid',40),(4,'Dan',52),(5,'Eve',19);";

// Spider dev 24's schema: concert.stadium_id is TEXT, stadium.stadium_id INTEGER ('10' < '9', 9 < 10).
constexpr const char* kConcerts =
    "CREATE TABLE stadium(stadium_id INTEGER PRIMARY KEY, name TEXT NOT NULL, capacity INTEGER NOT NULL);"
    "CREATE TABLE concert(concert_id INTEGER PRIMARY KEY, stadium_id TEXT NOT NULL, year INTEGER NOT NULL);"
    "INSERT INTO stadium VALUES (1,'Arena',5000),(2,'Bowl',8000),(9,'Dome',3000),(10,'Field',12000);"
    "INSERT INTO concert VALUES (1,'1',2014),(2,'2',2015),(3,'9',2014),(4,'10',2016),(5,'10',2015),(6,'1',2013);";

struct Db {
  TempDir dir;
  std::string path;
  explicit Db(const char* sql) : path((dir / "x.sqlite").string()) { test::make_sqlite(path, sql); }
  Item item(const std::string& gold, const std::string& pred, Rule r = Rule::SpiderTestSuite) const {
    Item it;
    it.id = "t";
    it.db_path = path;
    it.gold_sql = gold;
    it.pred_sql = pred;
    it.rule.rule = r;
    std::string g = gold;
    for (char& c : g) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    it.rule.order_matters = g.find("order by") != std::string::npos;
    return it;
  }
};

Outcome search(const Item& it, uint64_t seed = 0) {
  Budget b;
  b.seed = seed;
  b.candidates = 200;
  b.seconds = 30;
  return verify::verify(it, b);
}

// The variants of `sql` on an in-memory copy of `schema`.
TieVariants variants(const char* schema, const std::string& sql) {
  ScratchDb db;
  db.exec(schema);
  return tie_variants(sql, [&](const std::string& s) { return db.run(s, Limits{2.0, 1000, 1u << 20}); });
}

Table col(std::vector<Row> rows) { return Table{{"a"}, std::move(rows)}; }
Row r1(long long v) { return {Value::integer(v)}; }

}  // namespace

TEST(VerifyTies, VariantsBreakTiesAtEveryOrderByLimitWithTheOutputColumns) {
  auto v = variants(kPeople, "SELECT name, age FROM people ORDER BY age LIMIT 1");
  EXPECT_EQ(v.asc, "SELECT name, age FROM people ORDER BY age, 1, 2 LIMIT 1");
  EXPECT_EQ(v.desc, "SELECT name, age FROM people ORDER BY age, 1 DESC, 2 DESC LIMIT 1");
  EXPECT_TRUE(v.top_order);
  // SELECT *: the column count comes from SQLite.
  v = variants(kPeople, "select * from people order by age desc limit 2 offset 1");
  EXPECT_EQ(v.asc, "select * from people order by age desc, 1, 2, 3 limit 2 offset 1");
  // A subquery's cut (Spider dev 43); the outer query does not sort.
  v = variants(kConcerts, "SELECT count(*) FROM concert WHERE stadium_id = (SELECT stadium_id FROM stadium ORDER BY capacity DESC LIMIT 1);");
  EXPECT_EQ(v.asc, "SELECT count(*) FROM concert WHERE stadium_id = (SELECT stadium_id FROM stadium ORDER BY capacity DESC, 1 LIMIT 1);");
  EXPECT_FALSE(v.top_order);
  ASSERT_EQ(v.subqueries.size(), 1u);  // the subquery alone, to see its own cut
  EXPECT_EQ(v.subqueries[0].second, "SELECT stadium_id FROM stadium ORDER BY capacity DESC, 1 DESC LIMIT 1");
  // LIMIT without ORDER BY gets one; a window's ORDER BY is left alone.
  v = variants(kPeople, "SELECT name FROM people WHERE age > 20 LIMIT 2");
  EXPECT_EQ(v.desc, "SELECT name FROM people WHERE age > 20 ORDER BY 1 DESC LIMIT 2");
  v = variants(kPeople, "SELECT name, row_number() OVER (ORDER BY age) FROM people");
  EXPECT_EQ(v.asc, "");
  EXPECT_FALSE(v.top_order);
  // No LIMIT, a top-level ORDER BY (its ties decide the row order): broken too.
  v = variants(kPeople, "SELECT name FROM people ORDER BY age -- youngest first");
  EXPECT_EQ(v.asc, "SELECT name FROM people ORDER BY age, 1 -- youngest first");
}

TEST(VerifyTies, TheVerdictNeedsTheGoldDeterminedAndNoTieBreakOfThePredictionGivingIt) {
  RuleSpec bird{Rule::BirdSet, false, nullptr, false};
  QueryRuns gold{col({r1(1)}), col({r1(1)}), col({r1(1)}), col({r1(2)}), true};  // the LIMIT cut is in a tie
  QueryRuns pred{col({r1(2)}), col({r1(2)}), std::nullopt, std::nullopt, false};
  EXPECT_EQ(judge_ties(bird, gold, pred), TieVerdict::Tie);
  gold.desc = col({r1(1)});  // determined now
  EXPECT_EQ(judge_ties(bird, gold, pred), TieVerdict::Differs);
  pred.base = col({r1(1)});
  EXPECT_EQ(judge_ties(bird, gold, pred), TieVerdict::Same);
  // A prediction whose own tie-break could give the gold's answer: a tie; one whose every tie-break
  // has another size than the gold's: a difference.
  pred = QueryRuns{col({r1(2)}), col({r1(2)}), col({r1(3)}), col({r1(3)}), true};
  EXPECT_EQ(judge_ties(bird, gold, pred), TieVerdict::Tie);
  pred = QueryRuns{col({r1(2), r1(4)}), col({r1(2), r1(4)}), col({r1(3), r1(4)}), col({r1(2), r1(4)}), false};
  EXPECT_EQ(judge_ties(bird, gold, pred), TieVerdict::Differs);
  // Order only: counts when the gold sorts without ties, not when the gold leaves the order open.
  RuleSpec ordered{Rule::SpiderTestSuite, true, nullptr, false};
  QueryRuns g2{col({r1(1), r1(2)}), col({r1(1), r1(2)}), std::nullopt, std::nullopt, true};
  QueryRuns p2{col({r1(2), r1(1)}), col({r1(2), r1(1)}), std::nullopt, std::nullopt, false};
  EXPECT_EQ(judge_ties(ordered, g2, p2), TieVerdict::Differs);
  g2.top_order = false;  // e.g. GROUP BY key order, or an ORDER BY in a subquery only
  EXPECT_EQ(judge_ties(ordered, g2, p2), TieVerdict::Tie);
  // A cut of the gold inside a tie, even where the gold's result is the same either way.
  gold.inner_tie = true;
  EXPECT_EQ(judge_ties(bird, gold, QueryRuns{col({r1(2)}), col({r1(2)}), std::nullopt, std::nullopt, false}), TieVerdict::Tie);
}

TEST(VerifyTies, AnOrderByLimitThatDiffersOnlyOnTiedRowsIsNotRefuted) {
  Db db(kPeople);
  for (Rule r : {Rule::SpiderTestSuite, Rule::BirdSet}) {
    for (auto [g, p] : {std::pair{"SELECT name FROM people ORDER BY age LIMIT 1", "SELECT name FROM people ORDER BY age, name LIMIT 1"},
                        std::pair{"SELECT name FROM people ORDER BY age, name LIMIT 1", "SELECT name FROM people ORDER BY age LIMIT 1"},
                        std::pair{"SELECT id FROM people ORDER BY age LIMIT 1", "SELECT id FROM people ORDER BY age, name DESC LIMIT 1"}}) {
      Outcome o = search(db.item(g, p, r));
      EXPECT_NE(o.status, Status::Refuted) << to_string(r) << " " << g << " / " << p << ": " << o.reason;
    }
  }
}

TEST(VerifyTies, ADifferenceBeyondTheLimitIsStillRefuted) {
  Db db(kPeople);
  for (Rule r : {Rule::SpiderTestSuite, Rule::BirdSet}) {
    Outcome o = search(db.item("SELECT name FROM people ORDER BY age DESC LIMIT 1", "SELECT name FROM people ORDER BY age LIMIT 1", r));
    ASSERT_EQ(o.status, Status::Refuted) << to_string(r) << ": " << o.reason;
    // The witness is determined: its gold result is the one row of the largest age, unique there.
    ASSERT_TRUE(o.cex);
    EXPECT_EQ(o.cex->gold_result.rows.size(), 1u);
    o = search(db.item("SELECT name FROM people ORDER BY age LIMIT 2", "SELECT name FROM people ORDER BY age LIMIT 1", r));
    EXPECT_EQ(o.status, Status::Refuted) << to_string(r) << ": " << o.reason;
  }
  // Order: a prediction that does not sort what the gold sorts is refuted under Spider's order rule.
  Outcome o = search(db.item("SELECT name FROM people ORDER BY age", "SELECT name FROM people"));
  EXPECT_EQ(o.status, Status::Refuted) << o.reason;
}

TEST(VerifyTies, GroupKeysOfAnotherTypeBreakingATieAreNotRefuted) {
  Db db(kConcerts);
  const std::string gold =
      "SELECT T2.name, T2.capacity FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id "
      "WHERE T1.year >= 2014 GROUP BY T2.stadium_id ORDER BY count(*) DESC LIMIT 1";
  const std::string pred =
      "select stadium.name, stadium.capacity from concert join stadium on concert.stadium_id = stadium.stadium_id "
      "where concert.year >= 2014 group by concert.stadium_id order by count(*) desc limit 1";
  for (Rule r : {Rule::SpiderTestSuite, Rule::BirdSet})
    for (uint64_t seed : {0, 1}) {
      Outcome o = search(db.item(gold, pred, r), seed);
      EXPECT_NE(o.status, Status::Refuted) << to_string(r) << " seed " << seed << ": " << o.reason;
    }
}

TEST(VerifyTies, AGoldWhoseLimitPicksAmongTiesIsATieFinding) {
  Db db(kPeople);
  // The gold keeps one of the youngest; the prediction keeps all of them: they differ only when the
  // youngest age is tied, and there the gold's answer is any one of them.
  Outcome o = search(db.item("SELECT name FROM people ORDER BY age LIMIT 1",
                             "SELECT name FROM people WHERE age = (SELECT min(age) FROM people)", Rule::BirdSet));
  EXPECT_EQ(o.status, Status::Tie) << o.reason;
  EXPECT_STREQ(to_string(o.status), "tie");
  ASSERT_TRUE(o.cex);  // the tie witness, for a reviewer: two or more of the youngest
  EXPECT_GE(o.cex->pred_result.rows.size(), 2u);
  // Under Spider's bag rule two namesakes of the same age differ for real (one row vs two), but the
  // data's names are unique: an edge, never a refutation.
  o = search(db.item("SELECT name FROM people ORDER BY age LIMIT 1",
                     "SELECT name FROM people WHERE age = (SELECT min(age) FROM people)"));
  EXPECT_TRUE(o.status == Status::Tie || o.status == Status::Edge) << o.reason;
  // In a subquery (Spider dev 43/44).
  Db c(kConcerts);
  o = search(c.item("SELECT count(*) FROM concert WHERE stadium_id = (SELECT stadium_id FROM stadium ORDER BY capacity DESC LIMIT 1)",
                            "SELECT count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id "
                            "WHERE T2.capacity = (SELECT max(capacity) FROM stadium)"));
  EXPECT_NE(o.status, Status::Refuted) << o.reason;
}

TEST(VerifyTies, Spider2RowOrderTheGoldDoesNotSortIsNotADifference) {
  Db db(kPeople);
  Item it = db.item("SELECT age, count(*) FROM people GROUP BY age", "SELECT age, count(*) FROM people GROUP BY age ORDER BY age DESC",
                    Rule::Spider2Columns);
  it.rule.ignore_order = false;
  Outcome o = search(it);
  EXPECT_NE(o.status, Status::Refuted) << o.reason;
  // A real difference under the same rule is still found.
  it.pred_sql = "SELECT age, count(*) FROM people WHERE age > 20 GROUP BY age";
  o = search(it);
  EXPECT_EQ(o.status, Status::Refuted) << o.reason;
}
