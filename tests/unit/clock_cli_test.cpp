// `--now TIMESTAMP` on every road that executes SQL (issue 30, item 9): spider, bird, spider2, verify,
// audit, uda, serve (/verify, /execute, a request's own `now`) and rewards; the run record's
// options.now, merge and diff over it; BIRD Mini-Dev question 1227 (julianday/strftime of 'now')
// graded byte-identically by two pinned runs.
#include <gtest/gtest.h>
#include <httplib.h>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve_proc.hpp"
#include "test_support.hpp"

using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

// A query whose answer depends on the day: every item before 2010, none after.
const char* kClockQuery = "SELECT name FROM item WHERE date('now') < '2010-01-01'";

// Spider: the gold lists every item; the prediction reads the clock (a Spider gold must parse with the
// benchmark's grammar, which has no date functions; a prediction need not).
void make_spider(const fs::path& t) {
  make_shop_fixture(t, "INSERT INTO shop VALUES (1,'Oslo');INSERT INTO item VALUES (1,'pen',1.5,1),(2,'cup',3.0,1);",
                    {{"gold.sql", "SELECT name FROM item\tshop\n"}, {"pred.sql", std::string(kClockQuery) + "\n"}});
}

std::vector<std::string> spider_args(const fs::path& t, const std::string& json_out) {
  return {"spider", "--gold", (t / "gold.sql").string(), "--pred", (t / "pred.sql").string(), "--db", (t / "db").string(),
          "--table", (t / "tables.json").string(), "--etype", "exec", "--no-progress", "--json", json_out};
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

json record(const fs::path& p) { return json::parse(slurp(p)); }

// Drops every field that measures time (time_s, gold_seconds, ...): what a second run may change.
void drop_timings(json& j) {
  if (j.is_array())
    for (auto& e : j) drop_timings(e);
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end();) {
    const std::string& k = it.key();
    const bool timing = k == "time_s" || (k.size() >= 7 && k.compare(k.size() - 7, 7, "seconds") == 0);
    if (timing) {
      it = j.erase(it);
    } else {
      drop_timings(*it);
      ++it;
    }
  }
}

// The instances of a record without what a second run may change (its timings).
json instances_without_time(json rec) {
  drop_timings(rec["instances"]);
  return rec["instances"];
}

}  // namespace

TEST(ClockCli, SpiderGradesUnderThePinAndRecordsIt) {
  TempDir t;
  make_spider(t.path);
  auto a = run_cli(with(spider_args(t.path, (t / "a.json").string()), {"--now", "2005-06-01"}));
  ASSERT_EQ(a.rc, 0) << a.err;
  json ra = record(t / "a.json");
  EXPECT_EQ(ra["options"]["now"], "2005-06-01T00:00:00Z");
  EXPECT_EQ(ra["instances"][0]["scores"]["exec"], 1);  // in 2005 the prediction lists every item
  // The real clock (after 2010): the prediction lists nothing, it is wrong; no `now` recorded.
  auto b = run_cli(spider_args(t.path, (t / "b.json").string()));
  ASSERT_EQ(b.rc, 0) << b.err;
  json rb = record(t / "b.json");
  EXPECT_FALSE(rb["options"].contains("now"));
  EXPECT_EQ(rb["instances"][0]["scores"]["exec"], 0);
  // An offset is read and the instant recorded in its canonical form.
  auto c = run_cli(with(spider_args(t.path, (t / "c.json").string()), {"--now", "2005-06-01T02:00:00+02:00"}));
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_EQ(record(t / "c.json")["options"]["now"], "2005-06-01T00:00:00Z");
  EXPECT_EQ(c.out, a.out);
  // diff notes the difference; merge refuses shards graded under two clocks.
  auto d = run_cli({"diff", (t / "a.json").string(), (t / "b.json").string()});
  EXPECT_NE(d.out.find("options differ between the runs: now"), std::string::npos) << d.out << d.err;
  auto s1 = run_cli(with(spider_args(t.path, (t / "s1.json").string()), {"--shard", "1/2", "--now", "2005-06-01"}));
  auto s2 = run_cli(with(spider_args(t.path, (t / "s2.json").string()), {"--shard", "2/2", "--now", "2006-06-01"}));
  ASSERT_EQ(s1.rc, 0) << s1.err;
  ASSERT_EQ(s2.rc, 0) << s2.err;
  auto m = run_cli({"merge", (t / "s1.json").string(), (t / "s2.json").string(), "-o", (t / "m.json").string()});
  EXPECT_EQ(m.rc, 2);
  EXPECT_NE(m.err.find("options"), std::string::npos) << m.err;
  // A malformed TIMESTAMP: one line, exit 2, nothing written.
  auto bad = run_cli(with(spider_args(t.path, (t / "x.json").string()), {"--now", "2005-02-30"}));
  EXPECT_EQ(bad.rc, 2);
  EXPECT_EQ(bad.err.rfind("sqlgrade: --now: not a timestamp: 2005-02-30 (no such date)", 0), 0u) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1);
  EXPECT_FALSE(fs::exists(t / "x.json"));
}

TEST(ClockCli, BirdTwoPinnedRunsAreIdenticalAndTheClockChangesTheGold) {
  TempDir t;
  make_sqlite(t / "db" / "p" / "p.sqlite",
              "CREATE TABLE patient(id INTEGER PRIMARY KEY, sex TEXT, birthday TEXT);"
              "INSERT INTO patient VALUES (1,'M','1950-03-01'),(2,'M','1971-11-30'),(3,'F','1990-01-01');");
  // BIRD Mini-Dev 1227's shape: the average age by year('now') - year(birthday).
  spit(t / "gold.sql", "SELECT AVG(STRFTIME('%Y', date('NOW')) - STRFTIME('%Y', birthday)) FROM patient WHERE sex = 'M'\tp\n");
  spit(t / "q.jsonl", "{\"question_id\": 1227, \"db_id\": \"p\", \"difficulty\": \"moderate\"}\n");
  const std::string sep = "\\t----- bird -----\\t";
  spit(t / "pred.json", "{\"0\": \"SELECT AVG(CAST(strftime('%Y', 'now') AS INT) - CAST(strftime('%Y', birthday) AS INT)) "
                        "FROM patient WHERE sex = 'M'" + sep + "p\"}");
  auto run = [&](const std::string& now, const std::string& out) {
    std::vector<std::string> a = {"bird", "--pred", (t / "pred.json").string(), "--gold", (t / "gold.sql").string(), "--db",
                                  (t / "db").string(), "--diff_json_path", (t / "q.jsonl").string(), "--no-progress",
                                  "--json", (t / out).string()};
    if (!now.empty()) a.insert(a.end(), {"--now", now});
    return run_cli(a);
  };
  auto a = run("2024-06-30T12:00:00Z", "a.json"), b = run("2024-06-30T12:00:00Z", "b.json");
  ASSERT_EQ(a.rc, 0) << a.err;
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_EQ(a.out, b.out);  // stdout byte for byte
  EXPECT_EQ(instances_without_time(record(t / "a.json")), instances_without_time(record(t / "b.json")));
  const json ra = record(t / "a.json");
  EXPECT_EQ(ra["options"]["now"], "2024-06-30T12:00:00Z");
  EXPECT_EQ(ra["instances"][0]["rows"]["gold"], json::parse("[[\"63.5\"]]"));  // (74 + 53) / 2
  auto c = run("2040-01-01", "c.json");
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_EQ(record(t / "c.json")["instances"][0]["rows"]["gold"], json::parse("[[\"79.5\"]]"));
}

TEST(ClockCli, BirdMiniDev1227IsByteIdenticalUnderAPinnedClock) {
  SQLGRADE_REQUIRE_DATA("bird/minidev/mini_dev_sqlite_gold.sql");
  TempDir t;
  const std::string pred = DATA + "/preds/bird_minidev/official_baselines_sql_output_kg/predict_mini_dev_gpt-4_sqlite.json";
  auto run = [&](const std::string& now, const std::string& out) {
    return run_cli({"bird", "--pred", pred, "--gold", DATA + "/bird/minidev/mini_dev_sqlite_gold.sql", "--db",
                    DATA + "/bird/dev_databases", "--diff_json_path", DATA + "/bird/minidev/mini_dev_sqlite.json",
                    "--no-progress", "--quiet", "--now", now, "--json", (t / out).string()});
  };
  auto a = run("2024-06-30", "a.json"), b = run("2024-06-30", "b.json"), c = run("2040-06-30", "c.json");
  ASSERT_EQ(a.rc, 0) << a.err;
  ASSERT_EQ(b.rc, 0) << b.err;
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_EQ(a.out, b.out);
  const json ia = instances_without_time(record(t / "a.json")), ib = instances_without_time(record(t / "b.json"));
  EXPECT_EQ(ia, ib);
  auto q1227 = [](const json& instances) {
    for (const auto& in : instances)
      if (in["id"] == "1227") return in;
    return json();
  };
  ASSERT_FALSE(q1227(ia).is_null());
  // The gold's answer (an average age) moves with the clock: 16 years later it is 16 more.
  const json ic = instances_without_time(record(t / "c.json"));
  ASSERT_FALSE(q1227(ic)["rows"]["gold"].is_null());
  EXPECT_NE(q1227(ia)["rows"]["gold"], q1227(ic)["rows"]["gold"]);
  EXPECT_NEAR(std::stod(q1227(ic)["rows"]["gold"][0][0].get<std::string>()) -
                  std::stod(q1227(ia)["rows"]["gold"][0][0].get<std::string>()),
              16.0, 1e-9);
}

TEST(ClockCli, VerifySearchesUnderTheRunsClock) {
  TempDir t;
  make_spider(t.path);
  // Under the pin the prediction is the gold on every database (its date test is true): nothing to
  // find. Searched under the real clock, every candidate with an item would refute it.
  auto r = run_cli({"verify", "spider", "--gold", (t / "gold.sql").string(), "--pred", (t / "pred.sql").string(), "--db",
                    (t / "db").string(), "--now", "2005-06-01", "--verify-candidates", "40", "--no-progress", "--json",
                    (t / "v.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  const json v = record(t / "v.json");
  ASSERT_EQ(v[0]["ex"], 1) << v.dump();
  EXPECT_EQ(v[0]["refuted"], 0) << v.dump();
  EXPECT_GE(v[0]["instances"][0]["candidates"].get<int>(), 40);
}

TEST(ClockCli, AuditFlagsGoldsWhoseResultDependsOnTheClock) {
  TempDir t;
  make_shop_fixture(t.path, "INSERT INTO shop VALUES (1,'Oslo');INSERT INTO item VALUES (1,'pen',1.5,1),(2,'cup',3.0,1);",
                    {{"gold.sql", std::string(kClockQuery) + "\tshop\n"
                                  "SELECT count(*) FROM item WHERE date('now') > '1990-01-01'\tshop\n"
                                  "SELECT name FROM item ORDER BY id\tshop\n"
                                  "SELECT strftime('%Y') - 2000 FROM shop\tshop\n"}});
  auto r = run_cli({"audit", "--benchmark", "spider", "--gold", (t / "gold.sql").string(), "--db", (t / "db").string(),
                    "--json", (t / "a.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  const json a = record(t / "a.json");
  std::vector<std::string> flagged;
  for (const auto& f : a["findings"])
    if (f["kind"] == "clock_dependent") flagged.push_back(f["id"]);
  EXPECT_EQ(flagged, (std::vector<std::string>{"0", "3"})) << a.dump(1);
  EXPECT_NE(r.out.find("  clock-dependent 2\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[clock_dependent] 0 (shop.sqlite): reads SQL's clock"), std::string::npos) << r.out;
}

TEST(ClockCli, UdaRecordsThePin) {
  TempDir t;
  fs::path shop = fs::path(fixtures()) / "uda" / "Shop";
  auto g = run_cli({"uda", "gold", "--dataset-dir", shop.string(), "--out", (t / "res").string(), "--as-result", "--now",
                    "2001-01-01"});
  ASSERT_EQ(g.rc, 0) << g.err;
  auto r = run_cli({"uda", "run", "--dataset-dir", shop.string(), "--results", (t / "res").string(), "--json",
                    (t / "r.json").string(), "--now", "2001-01-01T00:00:00+00:00"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(record(t / "r.json")["options"]["now"], "2001-01-01T00:00:00Z");
  auto bad = run_cli({"uda", "run", "--dataset-dir", shop.string(), "--results", (t / "res").string(), "--now", "soon"});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_EQ(bad.err.rfind("sqlgrade: --now: not a timestamp: soon", 0), 0u) << bad.err;
}

TEST(ClockServe, ServerClockRequestClockAndTheGoldCache) {
  ShopDbs d;
  TempDir t;
  ServerProc srv({"--db-dir", d.dir, "--now", "2005-06-01T10:00:00Z"}, (t / "err").string());
  ASSERT_GT(srv.port, 0) << slurp(t / "err");
  httplib::Client c("127.0.0.1", srv.port);
  c.set_read_timeout(60, 0);
  auto verify = [&](const json& extra) {
    json body = serve_request("```sql\nSELECT '2005-06-01' AS d\n```", extra);
    auto res = c.Post("/verify", body.dump(), "application/json");
    return res ? std::make_pair(res->status, json::parse(res->body)) : std::make_pair(0, json());
  };
  // The gold reads the server's clock.
  auto [s1, v1] = verify({{"gold_sql", "SELECT date('now') AS d"}});
  ASSERT_EQ(s1, 200) << v1.dump();
  EXPECT_EQ(v1["reward"], 1.0) << v1.dump();
  // A request's own `now` wins, and the gold cached at the server's clock is not reused for it.
  auto [s2, v2] = verify({{"gold_sql", "SELECT date('now') AS d"}, {"now", "2010-01-01"}});
  ASSERT_EQ(s2, 200) << v2.dump();
  EXPECT_EQ(v2["reward"], 0.0) << v2.dump();
  EXPECT_EQ(v2["gold_cached"], false);
  EXPECT_EQ(v2["now"], "2010-01-01");  // echoed as sent
  auto [s3, v3] = verify({{"gold_sql", "SELECT date('now', '-1 day') AS d"}, {"now", "2005-06-02T23:00:00+02:00"}});
  EXPECT_EQ(v3["reward"], 1.0) << v3.dump();  // 2005-06-02T21:00Z, a day before: 2005-06-01
  auto [s4, v4] = verify({{"gold_sql", "SELECT date('now') AS d"}, {"now", "June 1st"}});
  EXPECT_EQ(s4, 400);
  EXPECT_NE(v4.dump().find("not a timestamp"), std::string::npos) << v4.dump();
  // /execute: the server's clock, or the request's.
  auto e1 = c.Post("/execute", json{{"db_id", "shop"}, {"sql", "SELECT CURRENT_TIMESTAMP"}}.dump(), "application/json");
  ASSERT_TRUE(e1);
  EXPECT_EQ(json::parse(e1->body)["rows"], json::parse("[[\"2005-06-01 10:00:00\"]]")) << e1->body;
  auto e2 = c.Post("/execute", json{{"db_id", "shop"}, {"sql", "SELECT julianday('now')"}, {"now", "2000-01-01T12:00:00Z"}}.dump(),
                   "application/json");
  ASSERT_TRUE(e2);
  EXPECT_EQ(json::parse(e2->body)["rows"], json::parse("[[2451545.0]]")) << e2->body;
  EXPECT_EQ(srv.stop(), 0);
}

TEST(ClockServe, RewardsReadTheFlagAndTheRequest) {
  ShopDbs d;
  TempDir t;
  const std::string in = (t / "in.jsonl").string(), out = (t / "out.jsonl").string();
  spit(in, json{{"db_id", "shop"}, {"sql", "SELECT '2005-06-01'"}, {"gold_sql", "SELECT date('now')"}}.dump() + "\n" +
               json{{"db_id", "shop"}, {"sql", "SELECT '2005-06-01'"}, {"gold_sql", "SELECT date('now')"}, {"now", "2006-01-01"}}.dump() +
               "\n");
  auto r = run_cli({"rewards", "--requests", in, "--db", d.dir, "--out", out, "--now", "2005-06-01"});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::istringstream lines(slurp(out));
  std::vector<double> rewards;
  for (std::string line; std::getline(lines, line);) rewards.push_back(json::parse(line)["reward"]);
  EXPECT_EQ(rewards, (std::vector<double>{1.0, 0.0}));
}
