// `sqlgrade spider --compat both` (issue 22 item 6): both official scripts' runs in one pass, the
// test-suite pass borrowing the spider pass's results of the same statement on the same file.
// - Every mode's printed output and records are what that mode's own run gives, on a fixture built to
//   trip a wrong share: a text cell that is not valid UTF-8 (the spider pass fails where test-suite's
//   lenient reading succeeds), a prediction with more rows than its gold (test-suite's capped read is
//   TooLarge, the lent result has every row), DISTINCT and `value` (other texts under test-suite), a
//   second test-suite database (never executed by the spider pass), a blank prediction.
// - Each distinct (database file, SQL text) runs once: ExecCounts against the statements counted
//   here by hand.
// - With SQLGRADE_DATA: two real Spider dev systems, both modes, equal to the separate runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "sqlgrade/spider.hpp"
#include "test_support.hpp"

using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

// The gold and three systems (C = A's answers in another folder); shop 3's city is 'Lim' + byte 0xE1,
// not UTF-8 (the strict reading fails, the lenient one drops the byte); shop_v2.sqlite is a second
// test-suite database, which only test-suite reads.
struct BothFx {
  TempDir dir;
  std::string db_dir = (dir / "db").string(), tables = (dir / "tables.json").string(),
              gold = (dir / "gold.sql").string(), pred_a = (dir / "sys_a.sql").string(),
              pred_b = (dir / "sys_b.sql").string(), pred_c = (dir / "other" / "sys_a.sql").string();
  BothFx() {
    const std::string answers_a =
        "SELECT name FROM item WHERE price > 2\n"
        "SELECT count(*) FROM shop\n"
        "SELECT city FROM shop ORDER BY city\n"
        "SELECT name FROM item\n"
        "SELECT DISTINCT price FROM item\n"
        "SELECT name, price FROM item ORDER BY price LIMIT 1\n"
        "SELECT max(price) FROM item WHERE name != 'value'\n"
        "SELECT city FROM shop WHERE shop_id = 1\n";
    make_shop_fixture(dir.path,
                      "INSERT INTO shop VALUES (1,'Oslo'),(2,'Rome'),(3,CAST(X'4C696DE1' AS TEXT));"
                      "INSERT INTO item VALUES (1,'pen',1.5,1),(2,'cup',3.0,2),(3,'hat',7.25,1),(4,'mug',3.0,3);",
                      {{"gold.sql",
                        "SELECT name FROM item WHERE price > 2\tshop\n"
                        "SELECT count(*) FROM item\tshop\n"
                        "SELECT city FROM shop ORDER BY city\tshop\n"
                        "SELECT name FROM item WHERE shop_id = 1\tshop\n"
                        "SELECT DISTINCT price FROM item\tshop\n"
                        "SELECT name, price FROM item ORDER BY price DESC LIMIT 1\tshop\n"
                        "SELECT max(price) FROM item\tshop\n"
                        "SELECT city FROM shop WHERE shop_id = 1\tshop\n"},
                       {"sys_a.sql", answers_a},
                       {"other/sys_a.sql", answers_a},
                       {"sys_b.sql",
                        "SELECT name FROM item WHERE price >= 3\n"
                        "SELECT count(*) FROM item\n"
                        "SELECT city FROM shop WHERE shop_id < 3 ORDER BY city\n"
                        "SELECT name FROM item WHERE shop_id = 1\n"
                        "SELECT price FROM item\n"
                        "SELECT name, price FROM item ORDER BY price DESC LIMIT 1\n"
                        "SELECT max(price) FROM item\n"
                        "\n"}});
    make_sqlite(dir / "db" / "shop" / "shop_v2.sqlite",
                std::string(kShopSchemaSql) +
                "INSERT INTO shop VALUES (1,'Oslo'),(2,'Lima');"
                "INSERT INTO item VALUES (1,'pen',2.5,1),(2,'cup',3.0,2),(3,'hat',1.0,1);");
  }
  std::vector<std::string> base(const std::string& compat) const {
    return {"spider", "--gold", gold, "--db", db_dir, "--table", tables, "--etype", "all", "--compat", compat,
            "--no-progress", "--quiet"};
  }
};

// A record without what differs between any two runs: times, the start time and the command line.
json without_times(json j) {
  static const std::regex time_key("(^|_)(time_s|seconds|wall_s|wall|started_at)$|seconds");
  if (j.is_object()) {
    json out = json::object();
    for (auto& [k, v] : j.items())
      if (k != "command" && !std::regex_search(k, time_key)) out[k] = without_times(v);
    return out;
  }
  if (j.is_array())
    for (auto& v : j) v = without_times(v);
  return j;
}

}  // namespace

// The CLI: one pass prints each mode's output exactly as its own run does and writes the same records
// (<name>.spider.json, <name>.test-suite.json), for several systems (--json-dir) and for one (--json).
TEST(SpiderBothModes, OutputsAndRecordsEqualTheSeparateRuns) {
  BothFx f;
  std::vector<std::string> preds{f.pred_a, f.pred_b, f.pred_c};
  auto both = f.base("both");
  for (const auto& p : preds) both.insert(both.end(), {"--pred", p});
  both.insert(both.end(), {"--json-dir", (f.dir / "both").string()});
  CliResult all = run_cli(both);
  ASSERT_EQ(all.rc, 0) << all.err;
  std::string expected;
  for (std::string mode : {"spider", "test-suite"}) {
    auto alone = f.base(mode);
    for (const auto& p : preds) alone.insert(alone.end(), {"--pred", p});
    alone.insert(alone.end(), {"--json-dir", (f.dir / mode).string()});
    CliResult one = run_cli(alone);
    ASSERT_EQ(one.rc, 0) << one.err;
    expected += (mode == "spider" ? "" : "\n") + ("==> --compat " + mode + " <==\n") + one.out;
    size_t records = 0;
    for (const auto& e : fs::directory_iterator(f.dir / mode)) {
      const std::string name = e.path().stem().string();  // <folder>__sys_a, <folder>__sys_b, other__sys_a
      json a = json::parse(slurp(e.path()));
      json b = json::parse(slurp(f.dir / "both" / (name + "." + mode + ".json")));
      ++records;
      EXPECT_EQ(without_times(b).dump(1), without_times(a).dump(1)) << mode << " " << name;
      EXPECT_EQ(b["options"]["compat"], a["options"]["compat"]);
    }
    EXPECT_EQ(records, 3u) << mode;
  }
  EXPECT_EQ(all.out, expected) << "each mode's output byte-identical to its own run";
  // The traps really are in the fixture: a gold that fails only under the strict reading, a TooLarge.
  json sp = json::parse(slurp(f.dir / "both" / "other__sys_a.spider.json"));
  json ts = json::parse(slurp(f.dir / "both" / "other__sys_a.test-suite.json"));
  EXPECT_NE(sp["instances"][2]["failure_reason"].get<std::string>().find("decode"), std::string::npos);
  EXPECT_EQ(ts["instances"][2]["scores"]["exec"], 1);
  EXPECT_NE(ts["instances"][3]["failure_reason"].get<std::string>().find("more rows than the gold"), std::string::npos);

  // One system, --json FILE: FILE.spider.json and FILE.test-suite.json.
  auto single = f.base("both");
  single.insert(single.end(), {"--pred", f.pred_b, "--json", (f.dir / "b.json").string()});
  CliResult s = run_cli(single);
  ASSERT_EQ(s.rc, 0) << s.err;
  for (std::string mode : {"spider", "test-suite"}) {
    auto alone = f.base(mode);
    alone.insert(alone.end(), {"--pred", f.pred_b, "--json", (f.dir / ("b-" + mode + ".json")).string()});
    CliResult one = run_cli(alone);
    ASSERT_EQ(one.rc, 0) << one.err;
    EXPECT_NE(s.out.find("==> --compat " + mode + " <==\n" + one.out), std::string::npos) << mode;
    EXPECT_EQ(without_times(json::parse(slurp(f.dir / ("b." + mode + ".json")))).dump(1),
              without_times(json::parse(slurp(f.dir / ("b-" + mode + ".json")))).dump(1));
  }
  // --verify needs the test-suite mode alone.
  auto verify = f.base("both");
  verify.insert(verify.end(), {"--pred", f.pred_b, "--verify"});
  CliResult v = run_cli(verify);
  EXPECT_EQ(v.rc, 2);
  EXPECT_EQ(v.out, "");
}

// Each distinct (database file, SQL text) runs once in the pass: the spider pass executes its
// statements, the test-suite pass only those it cannot borrow. All statements here succeed, the
// second test-suite database is absent and every DISTINCT text belongs to one (gold, prediction)
// pair, so the counts are known exactly.
TEST(SpiderBothModes, EachDistinctStatementRunsOnce) {
  BothFx f;
  fs::remove(f.dir / "db" / "shop" / "shop_v2.sqlite");
  make_sqlite(f.dir / "db" / "shop" / "shop.sqlite",
              std::string(kShopSchemaSql) + "INSERT INTO shop VALUES (1,'Oslo'),(2,'Rome'),(3,'Lima');"
                                            "INSERT INTO item VALUES (1,'pen',1.5,1),(2,'cup',3.0,2),(3,'hat',7.25,1);");
  spit(f.gold,
       "SELECT name FROM item WHERE price > 2\tshop\n"      // g1
       "SELECT count(*) FROM item\tshop\n"                  // g2
       "SELECT DISTINCT city FROM shop\tshop\n");           // g3: test-suite runs "SELECT  city FROM shop"
  spit(f.pred_a,
       "SELECT name FROM item WHERE price > 2\n"            // = g1
       "SELECT count(*) FROM shop\n"                        // p1
       "SELECT DISTINCT city FROM shop\n");                 // = g3
  spit(f.pred_b,
       "SELECT name FROM item\n"                            // p2 (more rows than g1: TooLarge under test-suite)
       "SELECT count(*) FROM item\n"                        // = g2
       "SELECT city FROM shop\n");                          // p3
  sqlgrade::spider::Options opt;
  opt.gold = f.gold;
  opt.db_dir = f.db_dir;
  opt.table = f.tables;
  opt.etype = sqlgrade::spider::Etype::All;
  opt.progress = 0;
  const std::vector<std::string> preds{f.pred_a, f.pred_b};
  // Spider executes g1 g2 g3 p1 p2 p3: 6 texts. Test-suite runs its golds g1, g2 and g3' = "SELECT  city
  // FROM shop" (DISTINCT removed), and each (gold, prediction) pair's prediction unless its text is the
  // gold's (then it reads what the gold read): p1, p2, p3 — A's "SELECT DISTINCT city…" becomes g3'.
  // Alone: 3 + 3 = 6. In one pass only g3' is new (p3 is "SELECT city FROM shop", one space): 6 + 1 = 7
  // statements, the number of distinct texts of both modes together; g1, g2, p1, p2, p3 are borrowed.
  sqlgrade::spider::ExecCounts sp, ts;
  opt.compat = sqlgrade::spider::Compat::Spider;
  auto sp_runs = sqlgrade::spider::evaluate_many(opt, preds, &sp);
  opt.compat = sqlgrade::spider::Compat::TestSuite;
  auto ts_runs = sqlgrade::spider::evaluate_many(opt, preds, &ts);
  auto both = sqlgrade::spider::evaluate_both(opt, preds);
  EXPECT_EQ(sp.spider, 6u);
  EXPECT_EQ(ts.test_suite, 6u);
  EXPECT_EQ(ts.lent, 0u);
  EXPECT_EQ(both.counts.spider, 6u);
  EXPECT_EQ(both.counts.test_suite, 1u) << "only g3'";
  EXPECT_EQ(both.counts.lent, 5u);
  EXPECT_EQ(both.counts.spider + both.counts.test_suite, 7u) << "each distinct (database, SQL) of both modes once";
  ASSERT_EQ(both.spider.size(), 2u);
  for (size_t k = 0; k < preds.size(); ++k) {
    EXPECT_EQ(sqlgrade::spider::render_text(both.spider[k]), sqlgrade::spider::render_text(sp_runs[k]));
    EXPECT_EQ(sqlgrade::spider::render_text(both.test_suite[k]), sqlgrade::spider::render_text(ts_runs[k]));
  }
  ASSERT_TRUE(both.test_suite[1].examples[0].exec && ts_runs[1].examples[0].exec);
  EXPECT_EQ(both.test_suite[1].examples[0].exec->detail, ts_runs[1].examples[0].exec->detail);
  EXPECT_NE(both.test_suite[1].examples[0].exec->detail.find("more rows than the gold"), std::string::npos);
}

// Real data: two real Spider dev systems, one pass of both modes = the two separate runs' outputs.
TEST(SpiderBothModes, RealSpiderDevSystems) {
  SQLGRADE_REQUIRE_DATA("preds/spider_dev/resdsql-3b/pred.sql");
  const fs::path sp = fs::path(DATA) / "spider";
  const fs::path preds = fs::path(DATA) / "preds" / "spider_dev";
  const std::vector<std::string> sys{(preds / "dail-sql_gpt4" / "pred.txt").string(),
                                     (preds / "resdsql-3b" / "pred.sql").string()};
  auto base = [&](const std::string& compat) {
    std::vector<std::string> a{"spider", "--gold", (sp / "dev_gold.sql").string(), "--db", (sp / "database").string(),
                               "--table", (sp / "tables.json").string(), "--etype", "exec", "--compat", compat,
                               "--no-progress", "--quiet"};
    for (const auto& p : sys) a.insert(a.end(), {"--pred", p});
    return a;
  };
  CliResult both = run_cli(base("both"));
  ASSERT_EQ(both.rc, 0) << both.err;
  CliResult s = run_cli(base("spider"));
  CliResult t = run_cli(base("test-suite"));
  ASSERT_EQ(s.rc, 0) << s.err;
  ASSERT_EQ(t.rc, 0) << t.err;
  EXPECT_EQ(both.out, "==> --compat spider <==\n" + s.out + "\n==> --compat test-suite <==\n" + t.out);
}
