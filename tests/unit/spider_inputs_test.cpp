// Bad inputs for `sqlgrade spider`: blank / missing / extra prediction lines never shift the
// pairing, CRLF and BOM are read, TABs inside SQL and unparseable predictions are warned about and
// score 0, a malformed gold line is a clean exit 2; the JSON report carries the printed numbers; the
// database is never written; a runaway prediction times out.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "record_views.hpp"

using namespace sqlgrade::test;

namespace {

struct Fixture {
  TempDir dir;
  std::string db_dir, tables, gold;
  Fixture() {
    make_shop_spider(dir.path);
    db_dir = (dir / "db").string();
    tables = (dir / "tables.json").string();
    gold = (dir / "gold.sql").string();
    spit(gold,
         "SELECT name FROM item WHERE price > 2\tshop\n"
         "SELECT count(*) FROM item\tshop\n"
         "SELECT city FROM shop ORDER BY city\tshop\n"
         "SELECT T1.name FROM item AS T1 JOIN shop AS T2 ON T1.shop_id = T2.shop_id WHERE T2.city = 'Oslo'\tshop\n");
  }
  CliResult run(const std::string& pred_text, std::vector<std::string> extra = {}) {
    std::string pred = (dir / "pred.sql").string();
    spit(pred, pred_text);
    std::vector<std::string> args = {"spider", "--gold", gold, "--pred", pred, "--db", db_dir, "--table", tables};
    for (auto& e : extra) args.push_back(e);
    return run_cli(args);
  }
};

std::string row(const std::string& out, const std::string& label) {
  size_t p = out.find("\n" + label + " ");
  if (p == std::string::npos) return "";
  return out.substr(p + 1, out.find('\n', p + 1) - p - 1);
}

const std::string kGoodPreds =
    "SELECT name FROM item WHERE price > 2\n"
    "SELECT count(*) FROM item\n"
    "SELECT city FROM shop ORDER BY city\n"
    "SELECT T1.name FROM item AS T1 JOIN shop AS T2 ON T1.shop_id = T2.shop_id WHERE T2.city = 'Oslo'\n";

}  // namespace

TEST(SpiderInputs, PerfectPredictionsScoreOne) {
  Fixture f;
  auto r = f.run(kGoodPreds, {"--etype", "all"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(row(r.out, "execution").find("1.000                1.000"), std::string::npos) << r.out;
  EXPECT_EQ(row(r.out, "count").substr(0, 22), "count                3");  // 3 easy, 1 medium
  EXPECT_NE(r.out.find("exact match          1.000"), std::string::npos) << r.out;
}

TEST(SpiderInputs, BlankPredictionLineDoesNotShiftLaterLines) {
  Fixture f;
  // line 2 blank: only example 2 scores 0; examples 3 and 4 keep their own predictions.
  auto r = f.run("SELECT name FROM item WHERE price > 2\n\nSELECT city FROM shop ORDER BY city\n"
                 "SELECT T1.name FROM item AS T1 JOIN shop AS T2 ON T1.shop_id = T2.shop_id WHERE T2.city = 'Oslo'\n",
                 {"--etype", "all"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("pred.sql:2: blank prediction line"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("exact match          "), std::string::npos);
  // all = 3/4 in both metrics
  EXPECT_NE(row(r.out, "exact match").find("0.750"), std::string::npos) << r.out;
  EXPECT_NE(row(r.out, "execution").find("0.750"), std::string::npos) << r.out;
}

TEST(SpiderInputs, MissingAndExtraPredictionsAreReported) {
  Fixture f;
  auto r = f.run("SELECT name FROM item WHERE price > 2\nSELECT count(*) FROM item\n", {"--etype", "match"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("2 prediction line(s) for 4 gold examples"), std::string::npos) << r.err;
  EXPECT_NE(row(r.out, "count").find("4"), std::string::npos);
  EXPECT_NE(row(r.out, "exact match").find("0.500"), std::string::npos) << r.out;
  auto e = f.run(kGoodPreds + "SELECT 1\n", {"--etype", "match"});
  EXPECT_NE(e.err.find("1 extra prediction line(s)"), std::string::npos) << e.err;
}

TEST(SpiderInputs, CrlfBomTabsAndErrorPredictions) {
  Fixture f;
  std::string preds = "\xEF\xBB\xBFSELECT name FROM item WHERE price > 2\r\n"
                      "error\r\n"
                      "SELECT city FROM shop ORDER BY city\tshop\r\n"
                      "SELECT T1.name FROM item AS T1 JOIN shop AS T2 ON T1.shop_id = T2.shop_id WHERE T2.city = 'Oslo'\tx\ty\r\n";
  auto r = f.run(preds, {"--etype", "match", "--compat", "spider"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("BOM removed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("pred.sql:4: TAB inside the prediction"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 prediction(s) do not parse"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("eval_err_num:1\n"), std::string::npos) << r.out;
  EXPECT_NE(row(r.out, "exact match").find("0.750"), std::string::npos) << r.out;
}

TEST(SpiderInputs, MalformedGoldLineIsExit2WithFileAndLine) {
  Fixture f;
  spit(f.gold, "SELECT count(*) FROM item\tshop\nSELECT name FROM item\n");
  auto r = f.run(kGoodPreds, {"--etype", "match"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("gold.sql:2:"), std::string::npos) << r.err;
}

TEST(SpiderInputs, UnknownDbIsExit2) {
  Fixture f;
  spit(f.gold, "SELECT count(*) FROM item\tnope\n");
  auto r = f.run("SELECT count(*) FROM item\n", {"--etype", "match"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
}

TEST(SpiderInputs, TestSuiteReplacesValueInPredictions) {
  Fixture f;
  spit(f.gold, "SELECT name FROM item LIMIT 1\tshop\n");
  auto r = f.run("SELECT name FROM item LIMIT value\n", {"--etype", "match"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(row(r.out, "exact match").find("1.000"), std::string::npos) << r.out;
  // The original script cannot parse `LIMIT value`.
  auto s = f.run("SELECT name FROM item LIMIT value\n", {"--etype", "match", "--compat", "spider"});
  EXPECT_NE(s.out.find("eval_err_num:1"), std::string::npos) << s.out;
}

TEST(SpiderInputs, JsonReportMatchesPrintedNumbers) {
  Fixture f;
  std::string json = (f.dir / "out.json").string();
  auto r = f.run("SELECT name FROM item WHERE price > 2\nSELECT count(*) FROM shop\n"
                 "SELECT city FROM shop ORDER BY city\nSELECT name FROM item\n",
                 {"--etype", "all", "--json", json});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(sqlgrade::test::spider_examples(j).size(), 4u);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", j["summary"]["all"]["exact"].get<double>());
  EXPECT_NE(row(r.out, "exact match").find(buf), std::string::npos) << r.out << buf;
  std::snprintf(buf, sizeof buf, "%.3f", j["summary"]["all"]["exec"].get<double>());
  EXPECT_NE(row(r.out, "execution").find(buf), std::string::npos) << r.out << buf;
  EXPECT_EQ(sqlgrade::test::spider_examples(j)[1]["exact"], 0);
  EXPECT_EQ(sqlgrade::test::spider_examples(j)[0]["exact"], 1);
  EXPECT_TRUE(sqlgrade::test::spider_examples(j)[0].contains("hardness"));
  // The default deadline (issue 31: 60 s, docs/spider-exec.md "Timeout"), recorded with the run.
  EXPECT_EQ(j["timeout_s"], 60.0) << j["timeout_s"];
}

TEST(SpiderInputs, DatabaseNeverWrittenAndTimeoutScoresZero) {
  Fixture f;
  std::string dbfile = f.db_dir + "/shop/shop.sqlite";
  make_sqlite(dbfile,
              "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL, shop_id INTEGER);"
              "CREATE TABLE shop(shop_id INTEGER PRIMARY KEY, city TEXT);"
              "CREATE TABLE big(x INTEGER);"
              "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000) INSERT INTO big SELECT x FROM c;");
  std::string before = file_hash(dbfile);
  spit(f.gold, "SELECT count(*) FROM item\tshop\nSELECT count(*) FROM shop\tshop\n");
  // A parseable runaway prediction (3000^4 rows) and a write attempt.
  auto r = f.run(
      "SELECT count(*) FROM big AS T1 JOIN big AS T2 JOIN big AS T3 JOIN big AS T4\n"
      "DELETE FROM shop\n",
      {"--etype", "exec", "--compat", "spider", "--timeout", "0.5"});
  ASSERT_EQ(r.rc, 0) << r.err;
  // The warning says what was cut and how to get the official number (no working timeout there).
  EXPECT_NE(r.err.find("1 prediction(s) hit the 0.5 s timeout and scored 0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a larger --timeout reproduces their number"), std::string::npos) << r.err;
  EXPECT_NE(row(r.out, "execution").find("0.000"), std::string::npos) << r.out;
  EXPECT_EQ(file_hash(dbfile), before);
}

TEST(SpiderInputs, InteractionFilesPrintTurnTables) {
  Fixture f;
  spit(f.gold,
       "SELECT count(*) FROM item\tshop\nSELECT name FROM item\tshop\n\n"
       "SELECT city FROM shop\tshop\n");
  auto r = f.run("SELECT count(*) FROM item\nSELECT name FROM shop\n\nSELECT city FROM shop\n", {"--etype", "match"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("joint_all"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("turn > 4"), std::string::npos) << r.out;
  // joint_all exact: interaction 2 fully right, interaction 1 not → 0.500
  std::string em = row(r.out, "exact match");
  EXPECT_NE(em.find("0.500"), std::string::npos) << r.out;
  // mismatched interaction counts → exit 2
  auto bad = f.run("SELECT count(*) FROM item\n\nSELECT city FROM shop\n\nSELECT 1\n", {"--etype", "match"});
  EXPECT_EQ(bad.rc, 2) << bad.out;
}

TEST(SpiderInputs, ParseSubcommandReportsErrorsPerQuery) {
  Fixture f;
  auto r = run_cli({"spider", "parse", "--table", f.tables},
                   "SELECT name FROM item WHERE price > 2\tshop\n\nSELECT name FROM item LEFT JOIN shop\tshop\r\n");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  // item is table 0, name is column 2, price column 3; the value stays a float
  EXPECT_EQ(j[0]["sql"]["select"].dump(), "[false,[[0,[0,[0,2,false],null]]]]");
  EXPECT_EQ(j[0]["sql"]["where"][0][3].get<double>(), 2.0);
  EXPECT_TRUE(j[1]["sql"].is_null());
  EXPECT_TRUE(j[1].contains("error"));
  EXPECT_NE(r.err.find("1 query(ies) did not parse"), std::string::npos) << r.err;
  auto bad = run_cli({"spider", "parse", "--table", f.tables}, "SELECT 1\n");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find(":1:"), std::string::npos) << bad.err;
}

TEST(SpiderInputs, InvalidUtf8PredictionIsGradedAndJsonStillWritten) {
  Fixture f;
  std::string json = (f.dir / "out.json").string();
  auto r = f.run("SELECT name FROM item WHERE price > 2\nSELECT count(*) FROM item WHERE name = '\xff\xfe'\n"
                 "SELECT city FROM shop ORDER BY city\nSELECT name FROM item\n",
                 {"--etype", "all", "--json", json});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(sqlgrade::test::spider_examples(j).size(), 4u);
  EXPECT_EQ(sqlgrade::test::spider_examples(j)[1]["pred_parsed"], true);
}
