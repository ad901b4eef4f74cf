// Spider and BIRD run records (issue 15 phase 2): `--shard i/n` parts merged by `sqlgrade merge`
// reproduce the whole run's summary and printed table (the "spider" and "bird" summarizers), and
// several prediction files graded in one pass print, for each system, exactly what grading it alone
// prints (after a "==> FILE <==" header line) and write the same record. Small fixtures always; the
// real Spider dev / BIRD Mini-Dev data when SQLGRADE_DATA is present.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runs_benchmarks_support.hpp"
#include "test_support.hpp"

using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

// ---- Spider fixture: two databases, 12 questions of every hardness, two systems.
struct SpiderFx {
  TempDir dir;
  std::string db_dir, tables, gold, pred_a, pred_b, pred_c;
  SpiderFx() {
    db_dir = (dir / "db").string();
    make_sqlite(dir / "db" / "shop" / "shop.sqlite",
                std::string(kShopSchemaSql) +
                "INSERT INTO shop VALUES (1,'Oslo'),(2,'Rome'),(3,'Lima');"
                "INSERT INTO item VALUES (1,'pen',1.5,1),(2,'cup',3.0,2),(3,'hat',7.25,1),(4,'mug',3.0,3);");
    tables = (dir / "tables.json").string();
    spit(tables, kShopTablesJson);
    gold = (dir / "gold.sql").string();
    spit(gold,
         "SELECT name FROM item WHERE price > 2\tshop\n"
         "SELECT count(*) FROM item\tshop\n"
         "SELECT city FROM shop ORDER BY city\tshop\n"
         "SELECT T1.name FROM item AS T1 JOIN shop AS T2 ON T1.shop_id = T2.shop_id WHERE T2.city = 'Oslo'\tshop\n"
         "SELECT shop_id, count(*) FROM item GROUP BY shop_id HAVING count(*) > 1\tshop\n"
         "SELECT name FROM item WHERE price = (SELECT max(price) FROM item)\tshop\n"
         "SELECT city FROM shop WHERE shop_id NOT IN (SELECT shop_id FROM item WHERE price > 5) ORDER BY city LIMIT 2\tshop\n"
         "SELECT avg(price) FROM item\tshop\n"
         "SELECT name FROM item WHERE price > 2 UNION SELECT city FROM shop\tshop\n"
         "SELECT max(price), min(price) FROM item\tshop\n"
         "SELECT name, price FROM item ORDER BY price DESC LIMIT 1\tshop\n"
         "SELECT DISTINCT price FROM item\tshop\n");
    pred_a = (dir / "sys_a.sql").string();
    spit(pred_a,
         "SELECT name FROM item WHERE price > 2\n"
         "SELECT count(*) FROM shop\n"
         "SELECT city FROM shop ORDER BY city\n"
         "SELECT T1.name FROM item AS T1 JOIN shop AS T2 ON T1.shop_id = T2.shop_id WHERE T2.city = 'Oslo'\n"
         "SELECT shop_id, count(*) FROM item GROUP BY shop_id\n"
         "error\n"
         "SELECT city FROM shop ORDER BY city LIMIT 2\n"
         "SELECT avg(price) FROM item\n"
         "SELECT name FROM item\n"
         "SELECT max(price), min(price) FROM item\n"
         "SELECT name, price FROM item ORDER BY price DESC LIMIT 1\n"
         "SELECT price FROM item\n");
    pred_b = (dir / "sys_b.sql").string();
    spit(pred_b,
         "SELECT name FROM item WHERE price >= 3\n"
         "SELECT count(*) FROM item\n"
         "SELECT city FROM shop\n"
         "SELECT name FROM item WHERE shop_id = 1\n"
         "SELECT shop_id, count(*) FROM item GROUP BY shop_id HAVING count(*) > 1\n"
         "SELECT name FROM item ORDER BY price DESC LIMIT 1\n"
         "SELECT city FROM shop WHERE shop_id NOT IN (SELECT shop_id FROM item WHERE price > 5) ORDER BY city LIMIT 2\n"
         "SELECT sum(price) / count(*) FROM item\n"
         "SELECT name FROM item WHERE price > 2 UNION SELECT city FROM shop\n"
         "SELECT max(price), min(price) FROM item\n"
         "\n"
         "SELECT DISTINCT price FROM item\n");
    pred_c = (dir / "other" / "sys_c.sql").string();
    fs::create_directories(dir / "other");
    spit(pred_c, slurp(pred_a));  // identical to system A: executed once, graded twice
  }
  std::vector<std::string> base(const std::string& compat) const {
    return {"spider", "--gold", gold, "--db", db_dir, "--table", tables, "--etype", "all", "--compat", compat,
            "--no-progress", "--quiet"};
  }
};

}  // namespace

TEST(RunsBenchmarks, SpiderShardsMergeToTheWholeRun) {
  SpiderFx f;
  for (std::string compat : {"spider", "test-suite"})
    for (int n : {2, 3, 5}) {
      auto b = f.base(compat);
      b.insert(b.end(), {"--pred", f.pred_a});
      check_shards(b, n, "spider " + compat + " n=" + std::to_string(n));
    }
}

TEST(RunsBenchmarks, SpiderManySystemsInOnePass) {
  SpiderFx f;
  for (std::string compat : {"spider", "test-suite"})
    check_multi(f.base(compat), "--pred", {f.pred_a, f.pred_b, f.pred_c}, "spider " + compat);
}

TEST(RunsBenchmarks, SpiderRecordFields) {
  SpiderFx f;
  auto b = f.base("test-suite");
  std::string js = (f.dir / "r.json").string();
  b.insert(b.end(), {"--pred", f.pred_b, "--json", js});
  CliResult r = run_cli(b);
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(slurp(js));
  EXPECT_EQ(j["benchmark"], "spider");
  EXPECT_EQ(j["primary_metric"], "exec");
  ASSERT_EQ(j["instances"].size(), 12u);
  const json& in10 = j["instances"][10];  // blank prediction line
  EXPECT_EQ(in10["id"], "10");
  EXPECT_EQ(in10["scores"]["exec"], 0);
  EXPECT_EQ(in10["failure_reason"], "no prediction");
  EXPECT_TRUE(in10["pred_sql"].is_null());
  EXPECT_EQ(j["instances"][1]["scores"], json({{"exec", 1}, {"exact", 1}}));
  EXPECT_EQ(j["instances"][1]["category"]["db"], "shop");
  EXPECT_TRUE(j["instances"][1]["category"].contains("hardness"));
  EXPECT_EQ(j["instances"][7]["scores"]["exact"], 0);  // sum / count: same result, different query
  EXPECT_EQ(j["instances"][7]["scores"]["exec"], 1);
  EXPECT_EQ(j["instances"][7]["failure_reason"].get<std::string>().rfind("prediction does not parse", 0), 0u);
  EXPECT_EQ(j["instances"][6]["scores"], json({{"exec", 1}, {"exact", 1}}));
  EXPECT_FALSE(j["instances"][6].contains("failure_reason"));
}

TEST(RunsBenchmarks, SpiderFlagErrors) {
  SpiderFx f;
  auto b = f.base("test-suite");
  auto one = b;
  one.insert(one.end(), {"--pred", f.pred_a, "--pred", f.pred_b, "--json", (f.dir / "x.json").string()});
  CliResult r = run_cli(one);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--json-dir"), std::string::npos) << r.err;
  auto same = b;
  same.insert(same.end(), {"--pred", f.pred_a, "--pred", f.pred_a, "--json-dir", (f.dir / "d").string()});
  r = run_cli(same);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("given twice"), std::string::npos) << r.err;
  for (std::string bad : {"0/3", "4/3", "x", "1/0"}) {
    auto s = b;
    s.insert(s.end(), {"--pred", f.pred_a, "--shard", bad});
    r = run_cli(s);
    EXPECT_EQ(r.rc, 2) << bad;
    EXPECT_EQ(r.out, "") << bad;
  }
}

// Issue 22: runs are named (--name, one per --pred, in order; else the file name, with its folder when
// two systems share it), records carry the question (--questions or dev.json beside the gold), the first
// rows of both results and measured times.
TEST(RunsBenchmarks, SpiderNamesQuestionsAndRows) {
  SpiderFx f;
  auto b = f.base("test-suite");
  json dev = json::array();
  for (int i = 0; i < 12; ++i) dev.push_back({{"question", "Question " + std::to_string(i) + "?"}, {"db_id", "shop"}});
  spit(f.dir / "questions.json", dev.dump());
  auto named = b;
  named.insert(named.end(), {"--pred", f.pred_a, "--name", "Model A/v1", "--pred", f.pred_b, "--name", "Model B",
                             "--questions", (f.dir / "questions.json").string(), "--json-dir", (f.dir / "named").string()});
  CliResult r = run_cli(named);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("==> Model A/v1 (" + f.pred_a + ") <==\n"), std::string::npos);
  EXPECT_NE(r.out.find("==> Model B (" + f.pred_b + ") <==\n"), std::string::npos);
  json a = json::parse(slurp(f.dir / "named" / "Model_A_v1.json"));  // the name made a file name
  json bj = json::parse(slurp(f.dir / "named" / "Model_B.json"));
  EXPECT_EQ(a["system"], "Model A/v1");
  EXPECT_EQ(bj["system"], "Model B");
  EXPECT_EQ(a["instances"][3]["question"], "Question 3?");
  const json& rows = a["instances"][1]["rows"];  // gold count(*) FROM item = 4, sys_a count(*) FROM shop = 3
  EXPECT_EQ(rows["gold"], json::array({json::array({"4"})})) << rows.dump();
  EXPECT_EQ(rows["pred"], json::array({json::array({"3"})})) << rows.dump();
  EXPECT_EQ(rows["gold_total"], 1);
  EXPECT_EQ(rows["truncated"], false);
  EXPECT_EQ(a["instances"][0]["rows"]["gold_columns"], json::array({"name"}));
  double time = 0;
  for (const auto& in : a["instances"]) time += in.value("time_s", 0.0);
  EXPECT_GT(time, 0) << "per-instance times are measured";

  // Without --name: the file names; two files of one name get their folder.
  fs::create_directories(f.dir / "x");
  fs::create_directories(f.dir / "y");
  fs::copy_file(f.pred_a, f.dir / "x" / "pred.txt");
  fs::copy_file(f.pred_b, f.dir / "y" / "pred.txt");
  auto plain = b;
  plain.insert(plain.end(), {"--pred", (f.dir / "x" / "pred.txt").string(), "--pred", (f.dir / "y" / "pred.txt").string(),
                             "--json-dir", (f.dir / "plain").string()});
  r = run_cli(plain);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(json::parse(slurp(f.dir / "plain" / "x__pred.json"))["system"], "x/pred.txt");
  EXPECT_EQ(json::parse(slurp(f.dir / "plain" / "y__pred.json"))["system"], "y/pred.txt");

  // dev.json beside the gold is found; rows only when a record is written (nothing else changes).
  spit(f.dir / "dev.json", dev.dump());
  auto found = b;
  found.insert(found.end(), {"--pred", f.pred_a, "--json", (f.dir / "found.json").string()});
  r = run_cli(found);
  ASSERT_EQ(r.rc, 0) << r.err;
  json fj = json::parse(slurp(f.dir / "found.json"));
  EXPECT_EQ(fj["system"], "sys_a.sql");
  EXPECT_EQ(fj["instances"][11]["question"], "Question 11?");
}

TEST(RunsBenchmarks, SpiderNameErrors) {
  SpiderFx f;
  auto b = f.base("test-suite");
  auto few = b;
  few.insert(few.end(), {"--pred", f.pred_a, "--pred", f.pred_b, "--name", "only-one"});
  CliResult r = run_cli(few);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--name: 1 name(s) for 2 --pred"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  auto twice = b;
  twice.insert(twice.end(), {"--pred", f.pred_a, "--name", "same", "--pred", f.pred_b, "--name", "same"});
  r = run_cli(twice);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("given twice"), std::string::npos) << r.err;
  // A questions file that does not match the gold: one line naming it, exit 2, nothing printed.
  spit(f.dir / "bad.json", R"([{"question": "q", "db_id": "other"}])");
  auto bad = b;
  bad.insert(bad.end(), {"--pred", f.pred_a, "--questions", (f.dir / "bad.json").string()});
  r = run_cli(bad);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("bad.json"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}
