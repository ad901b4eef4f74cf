// No refutation from order or ties (issue 30 item 1; src/sqlgrade/verify/ties.hpp): the tie-break
// variants of a query, the verdict on a database, and whole searches under the three rules — a pair
// that differs only where a tie-break decides is never "refuted", a real difference beyond a LIMIT
// still is.
#include <gtest/gtest.h>

#include "sqlgrade/verify.hpp"
#include "sqlgrade/verify/scratch_db.hpp"
#include "sqlgrade/verify/ties.hpp"
#include "sqlgrade/verify/verify.hpp"
#include "sqlgrade/core/text.hpp"
#include "test_support.hpp"
#include "verify_fixtures.hpp"

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
    Item it = test::search_item(path, gold, pred, to_lower(gold).find("order by") != std::string::npos);
    it.rule.rule = r;
    return it;
  }
};

verify::SearchOutcome search(const Item& it, uint64_t seed = 0) {
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

TEST(VerifyTies, ADifferenceCountsOnlyWhenNoAnswerOfTheGoldIsThePredictions) {
  RuleSpec bird{Rule::BirdSet, false, nullptr, false};
  // The gold's LIMIT cut is in a tie (its variants keep 1 or 2); the prediction keeps 2: a tie.
  QueryRuns gold{col({r1(1)}), col({r1(1)}), col({r1(1)}), col({r1(2)}), true};
  QueryRuns pred{col({r1(2)}), col({r1(2)}), std::nullopt, std::nullopt, false};
  EXPECT_EQ(judge_ties(bird, gold, pred), TieVerdict::Tie);
  // Unknown tie group: a tie; known and without the prediction's result: a difference.
  pred = QueryRuns{col({r1(3)}), col({r1(3)}), std::nullopt, std::nullopt, false};
  EXPECT_EQ(judge_ties(bird, gold, pred), TieVerdict::Tie);
  EXPECT_EQ(judge_ties(bird, gold, pred, [] { return std::optional<bool>(false); }), TieVerdict::Differs);
  EXPECT_EQ(judge_ties(bird, gold, pred, [] { return std::optional<bool>(true); }), TieVerdict::Tie);
  // Every tie-break of the gold keeps one row, the prediction returns two: a difference.
  pred = QueryRuns{col({r1(1), r1(2)}), col({r1(1), r1(2)}), std::nullopt, std::nullopt, false};
  EXPECT_EQ(judge_ties(bird, gold, pred), TieVerdict::Differs);
  // Determined gold: a difference unless the prediction's reversed scan gives the gold's result.
  gold.desc = col({r1(1)});
  pred = QueryRuns{col({r1(3)}), col({r1(3)}), std::nullopt, std::nullopt, false};
  EXPECT_EQ(judge_ties(bird, gold, pred), TieVerdict::Differs);
  pred.reversed = col({r1(1)});
  EXPECT_EQ(judge_ties(bird, gold, pred), TieVerdict::Tie);
  pred.base = col({r1(1)});
  EXPECT_EQ(judge_ties(bird, gold, pred), TieVerdict::Same);
  // An undetermined prediction (its cut in a tie: 2 or 3): a tie unless none of its tied rows is the
  // gold's answer (Spider dev 225, 278).
  pred = QueryRuns{col({r1(2)}), col({r1(2)}), col({r1(2)}), col({r1(3)}), true};
  EXPECT_EQ(judge_ties(bird, gold, pred), TieVerdict::Tie);
  EXPECT_EQ(judge_ties(bird, gold, pred, {}, [] { return std::optional<bool>(true); }), TieVerdict::Tie);
  EXPECT_EQ(judge_ties(bird, gold, pred, {}, [] { return std::optional<bool>(false); }), TieVerdict::Differs);
  // Order only: counts when the gold sorts without ties, not when the gold leaves the order open.
  RuleSpec ordered{Rule::SpiderTestSuite, true, nullptr, false};
  QueryRuns g2{col({r1(1), r1(2)}), col({r1(1), r1(2)}), std::nullopt, std::nullopt, true};
  QueryRuns p2{col({r1(2), r1(1)}), col({r1(2), r1(1)}), std::nullopt, std::nullopt, false};
  EXPECT_EQ(judge_ties(ordered, g2, p2), TieVerdict::Differs);
  g2.top_order = false;  // e.g. GROUP BY key order, or an ORDER BY in a subquery only
  EXPECT_EQ(judge_ties(ordered, g2, p2), TieVerdict::Tie);
  // A cut of a gold subquery inside a tie, even where the gold's result is the same either way.
  gold.inner_tie = true;
  EXPECT_EQ(judge_ties(bird, gold, QueryRuns{col({r1(2)}), col({r1(2)}), std::nullopt, std::nullopt, false}), TieVerdict::Tie);
}

TEST(VerifyTies, AnOrderByLimitThatDiffersOnlyOnTiedRowsIsNotRefuted) {
  Db db(kPeople);
  for (Rule r : {Rule::SpiderTestSuite, Rule::BirdSet}) {
    for (auto [g, p] : {std::pair{"SELECT name FROM people ORDER BY age LIMIT 1", "SELECT name FROM people ORDER BY age, name LIMIT 1"},
                        std::pair{"SELECT id FROM people ORDER BY age LIMIT 1", "SELECT id FROM people ORDER BY age, name DESC LIMIT 1"},
                        std::pair{"SELECT name FROM people ORDER BY age DESC LIMIT 2", "SELECT name FROM people ORDER BY age DESC, id LIMIT 2"},
                        std::pair{"SELECT name FROM people LIMIT 1", "SELECT name FROM people ORDER BY age LIMIT 1"}}) {
      verify::SearchOutcome o = search(db.item(g, p, r));
      EXPECT_NE(o.status, Status::Refuted) << to_string(r) << " " << g << " / " << p << ": " << o.reason;
    }
  }
}

TEST(VerifyTies, ADifferenceBeyondTheLimitIsStillRefuted) {
  Db db(kPeople);
  for (Rule r : {Rule::SpiderTestSuite, Rule::BirdSet}) {
    verify::SearchOutcome o = search(db.item("SELECT name FROM people ORDER BY age DESC LIMIT 1", "SELECT name FROM people ORDER BY age LIMIT 1", r));
    ASSERT_EQ(o.status, Status::Refuted) << to_string(r) << ": " << o.reason;
    // The witness is determined: its gold result is the one row of the largest age, unique there.
    ASSERT_TRUE(o.cex);
    EXPECT_EQ(o.cex->gold_result.rows.size(), 1u);
    o = search(db.item("SELECT name FROM people ORDER BY age LIMIT 2", "SELECT name FROM people ORDER BY age LIMIT 1", r));
    EXPECT_EQ(o.status, Status::Refuted) << to_string(r) << ": " << o.reason;
  }
  // Order: a prediction that does not sort what the gold sorts is refuted under Spider's order rule.
  verify::SearchOutcome o = search(db.item("SELECT name FROM people ORDER BY age", "SELECT name FROM people"));
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
      verify::SearchOutcome o = search(db.item(gold, pred, r), seed);
      EXPECT_NE(o.status, Status::Refuted) << to_string(r) << " seed " << seed << ": " << o.reason;
    }
}

TEST(VerifyTies, AGoldWhoseLimitPicksAmongTiesIsATieFinding) {
  // Spider dev 24's pair: where the counts tie, the gold's GROUP BY order (INTEGER keys) and the
  // prediction's (TEXT keys) keep different stadiums — each one of the gold's answers.
  Db c(kConcerts);
  verify::SearchOutcome o;
  for (Rule r : {Rule::SpiderTestSuite, Rule::BirdSet}) {
    o = search(c.item("SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id "
                      "GROUP BY T2.stadium_id ORDER BY count(*) DESC LIMIT 1",
                      "SELECT stadium.name FROM concert JOIN stadium ON concert.stadium_id = stadium.stadium_id "
                      "GROUP BY concert.stadium_id ORDER BY count(*) DESC LIMIT 1", r));
    EXPECT_EQ(o.status, Status::Tie) << to_string(r) << ": " << o.reason;
    EXPECT_STREQ(to_string(o.status), "tie");
    ASSERT_TRUE(o.cex);  // the tie witness, for a reviewer: each query keeps one of the tied stadiums
    EXPECT_EQ(o.cex->gold_result.rows.size(), 1u);
    EXPECT_EQ(o.cex->pred_result.rows.size(), 1u);
  }
  // Both keep one of the youngest (Spider dev 655): never a refutation.
  Db db(kPeople);
  o = search(db.item("SELECT name FROM people ORDER BY age LIMIT 1",
                     "SELECT name FROM people WHERE age = (SELECT min(age) FROM people) LIMIT 1"));
  EXPECT_NE(o.status, Status::Refuted) << o.reason;
  // In a subquery (Spider dev 43/44): with two stadiums tied on the largest capacity the gold counts
  // the concerts of one of them, the prediction of both — the gold's question has no answer there.
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
  verify::SearchOutcome o = search(it);
  EXPECT_NE(o.status, Status::Refuted) << o.reason;
  // A real difference under the same rule is still found.
  it.pred_sql = "SELECT age, count(*) FROM people WHERE age > 20 GROUP BY age";
  o = search(it);
  EXPECT_EQ(o.status, Status::Refuted) << o.reason;
}

TEST(VerifyTies, APredictionIsJudgedByWhatItReturnsAgainstEveryAnswerOfTheGold) {
  // Spider dev 225 in small: the gold's busiest airport counts arrivals, the prediction ranks airports
  // by departures only. On flights A->B and C->B the gold says B (2, determined); the prediction's
  // LIMIT 1 picks A or C (one departure each) — whichever it keeps, it is not the gold's answer.
  constexpr const char* kFlights =
      "CREATE TABLE airports(code TEXT PRIMARY KEY, city TEXT NOT NULL);"
      "CREATE TABLE flights(no INTEGER PRIMARY KEY, src TEXT NOT NULL REFERENCES airports(code), "
      "  dst TEXT NOT NULL REFERENCES airports(code));"
      "INSERT INTO airports VALUES ('AAA','Ames'),('BBB','Bath'),('CCC','Cork'),('DDD','Deal');"
      "INSERT INTO flights VALUES (1,'AAA','BBB'),(2,'BBB','AAA'),(3,'AAA','CCC'),(4,'CCC','AAA'),(5,'DDD','AAA');";
  Db db(kFlights);
  verify::SearchOutcome o = search(db.item("SELECT a.code FROM airports AS a JOIN flights AS f ON a.code = f.dst OR a.code = f.src "
                             "GROUP BY a.code ORDER BY count(*) DESC LIMIT 1",
                             "SELECT a.code FROM airports AS a JOIN flights AS f ON a.code = f.src GROUP BY f.src "
                             "ORDER BY count(*) DESC LIMIT 1"));
  EXPECT_EQ(o.status, Status::Refuted) << o.reason;
  // The rows tied at a prediction's cut, with their ranks: which choices it has.
  auto r = ranked_query("SELECT name FROM people ORDER BY age LIMIT 2;");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->sql, "SELECT name , RANK() OVER (ORDER BY age) FROM people ORDER BY age ");
  EXPECT_EQ(r->limit, 2u);
  EXPECT_FALSE(ranked_query("SELECT DISTINCT name FROM people ORDER BY age LIMIT 2"));
  EXPECT_FALSE(ranked_query("SELECT name FROM people ORDER BY age LIMIT 2 OFFSET 1"));
  RuleSpec bird{Rule::BirdSet, false, nullptr, false};
  Table ranked{{"n", "rank"}, {{Value::text("x"), Value::integer(1)}, {Value::text("y"), Value::integer(2)},
                               {Value::text("z"), Value::integer(2)}, {Value::text("w"), Value::integer(4)}}};
  EXPECT_EQ(cut_could_give(bird, ranked, 2, Table{{"n"}, {{Value::text("x")}, {Value::text("z")}}}), std::optional<bool>(true));
  EXPECT_EQ(cut_could_give(bird, ranked, 2, Table{{"n"}, {{Value::text("x")}, {Value::text("w")}}}), std::optional<bool>(false));
  EXPECT_EQ(cut_could_give(bird, ranked, 1, Table{{"n"}, {{Value::text("x")}}}), std::nullopt);  // no tie at the cut
  r = ranked_query("SELECT name FROM people WHERE age > 20 LIMIT 1");  // no ORDER BY: every row tied
  ASSERT_TRUE(r);
  EXPECT_EQ(r->sql, "SELECT name , 0 FROM people WHERE age > 20 ");
}

// The benchmark-database check (`sqlgrade audit`) reads ties the same way: a subquery's cut inside a
// tie on the database (Spider dev 159), which its top-level probe and reversed scans do not see.
TEST(VerifyTies, TheAuditFlagsAGoldWhoseSubqueryCutFallsInATie) {
  TempDir d;
  test::make_sqlite(d / "db/people/people.sqlite",
                    "CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL);"
                    "INSERT INTO people VALUES (1,'Ann',31),(2,'Bob',52),(3,'Cid',40),(4,'Dan',52),(5,'Eve',19);");
  test::spit(d / "gold.sql",
             "SELECT count(*) FROM people WHERE id < (SELECT id FROM people ORDER BY age DESC LIMIT 1)\tpeople\n"
             "SELECT count(*) FROM people WHERE id < (SELECT id FROM people ORDER BY age ASC LIMIT 1)\tpeople\n");
  AuditOptions o;
  o.benchmark = "spider";
  o.gold = (d / "gold.sql").string();
  o.db_dir = (d / "db").string();
  const AuditReport r = audit(o);
  ASSERT_EQ(r.findings.size(), 1u) << render_audit_text(r);  // Bob and Dan tie on the largest age
  EXPECT_EQ(r.findings[0].id, "0");
  EXPECT_EQ(r.findings[0].kind, "nondeterministic");
  EXPECT_NE(r.findings[0].detail.find("subquery"), std::string::npos) << r.findings[0].detail;
}
