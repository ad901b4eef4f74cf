// The public single-rollout API (include/sqlgrade/verdict.hpp, execute.hpp) and the server endpoints
// built on it: /execute, OpenRLHF's /get_reward, per-request options, verbatim SQL, pred_executed and
// timings; the Spider 2.0-Lite gold folder read by the spider2 module's loader (numeric ignore_order
// agrees between `sqlgrade spider2` and the server); spider on a flat layout is a 400.
#include <gtest/gtest.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/execute.hpp"
#include "sqlgrade/serve/server.hpp"
#include "sqlgrade/verdict/registry.hpp"
#include "sqlgrade/verdict.hpp"
#include "sqlgrade/verdict/request.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

const char* kRunawayCount = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r";

struct Dbs {
  TempDir tmp;
  std::string flat_dir, flat, nested_dir, nested;
  Dbs() {
    flat_dir = (tmp / "flat").string();
    flat = (tmp / "flat" / "shop.sqlite").string();
    nested_dir = (tmp / "nested").string();
    nested = (tmp / "nested" / "shop" / "shop.sqlite").string();
    make_sqlite(flat, slurp(fixtures() + "/serve/shop.sql"));
    make_sqlite(nested, slurp(fixtures() + "/serve/shop.sql"));
  }
};

serve::ServerOptions opts(const std::string& dir, double timeout = 5) {
  serve::ServerOptions o;
  o.db_dir = dir;
  o.max_concurrency = 2;
  o.grader.timeout_s = timeout;
  return o;
}

json call(serve::Reply r, int expect = 200) {
  EXPECT_EQ(r.status, expect) << r.body;
  return json::parse(r.body);
}

// The shop databases, a Grader and a request on the flat database.
class VerdictApi : public ::testing::Test {
 protected:
  VerdictApi() { r.db = d.flat; }
  Dbs d;
  Grader v;
  VerdictRequest r;
};

}  // namespace

TEST_F(VerdictApi, StructsInStructsOut) {
  r.model_output = "```sql\nSELECT name FROM item WHERE qty > 1\n```";
  r.gold_sql = "SELECT name FROM item WHERE qty >= 2";
  Verdict a = v.verdict(r);
  EXPECT_EQ(a.reward, 1.0);
  EXPECT_EQ(a.failure_reason, "none");
  EXPECT_EQ(a.extraction_source, "sql_block");
  ASSERT_TRUE(a.pred_executed.has_value());
  EXPECT_TRUE(*a.pred_executed);
  EXPECT_FALSE(a.gold_cached);
  EXPECT_GT(a.timings.total_s, 0);
  EXPECT_GE(a.timings.total_s, a.timings.gold_s + a.timings.pred_s);
  Verdict b = v.verdict(r);
  EXPECT_TRUE(b.gold_cached);
  EXPECT_EQ(v.stats().gold_cache_hits, 1u);

  // wrong result: executed, reward 0; failing SQL: not executed; no SQL: not executed
  r.model_output = "```sql\nSELECT name FROM item\n```";
  Verdict w = v.verdict(r);
  EXPECT_EQ(w.reward, 0.0);
  EXPECT_EQ(w.failure_reason, "result_mismatch");  // ran, other rows (issue 30: not "did not run")
  EXPECT_TRUE(w.pred_executed.value_or(false));
  r.model_output = "```sql\nDROP TABLE item\n```";
  Verdict e = v.verdict(r);
  EXPECT_EQ(e.failure_reason, "execution_error");
  EXPECT_FALSE(e.pred_executed.value_or(true));
  r.model_output = "no sql here";
  Verdict n = v.verdict(r);
  EXPECT_EQ(n.failure_reason, "no_sql_extracted");
  EXPECT_FALSE(n.pred_executed.value_or(true));
  // a gold that fails: pred_executed unknown
  r.model_output = "```sql\nSELECT 1\n```";
  r.gold_sql = "SELECT nope FROM item";
  Verdict g = v.verdict(r);
  EXPECT_EQ(g.failure_reason, "gold_execution_error");
  EXPECT_FALSE(g.pred_executed.has_value());
}

TEST_F(VerdictApi, VerbatimSqlSkipsExtraction) {
  r.gold_sql = "SELECT name FROM item WHERE qty > 1";
  // Text that extraction would cut (the fence inside a string literal): used as is.
  r.sql = "SELECT name FROM item WHERE qty > 1 AND name <> '```'";
  Verdict a = v.verdict(r);
  EXPECT_EQ(a.extraction_source, "verbatim");
  EXPECT_EQ(a.extracted_sql.value_or(""), *r.sql);
  EXPECT_EQ(a.reward, 1.0) << a.failure_detail;
  r.sql = " ; -- nothing";
  Verdict n = v.verdict(r);
  EXPECT_EQ(n.failure_reason, "no_sql_extracted");
}

// Every verdict says where it ended as a value (VerdictStage), for each benchmark's road; the reply's
// `stage` is its name. Nothing is read from the English failure_detail.
TEST_F(VerdictApi, StageSaysWhereTheVerdictEnded) {
  auto stage = [&](const std::string& bench, const std::string& sql, const std::string& gold) {
    r.benchmark = bench;
    r.db = bench == "spider" ? d.nested : d.flat;
    r.sql = sql;
    r.gold_sql = gold;
    return std::string(to_string(v.verdict(r).stage));
  };
  for (const char* bench : {"spider2", "bird", "spider"}) {
    SCOPED_TRACE(bench);
    EXPECT_EQ(stage(bench, "SELECT name FROM item WHERE qty > 1", "SELECT name FROM item WHERE qty > 1"), "equal");
    EXPECT_EQ(stage(bench, "SELECT name FROM item WHERE qty > 100", "SELECT name FROM item WHERE qty > 1"), "different");
    EXPECT_EQ(stage(bench, "SELECT nope FROM item", "SELECT name FROM item"), "pred_failed");
    EXPECT_EQ(stage(bench, " ;", "SELECT name FROM item"), "no_sql");
    EXPECT_EQ(stage(bench, "SELECT name FROM item", "SELECT nope FROM item"), "gold_failed");
    r.timeout_s = 0.3;
    EXPECT_EQ(stage(bench, kRunawayCount, "SELECT 1"), "timeout");
    r.timeout_s = 0;
  }
  GraderConfig two_rows;
  two_rows.max_rows = 2;
  Grader capped(two_rows);
  r.benchmark = "bird";
  r.db = d.flat;
  r.sql = "SELECT name FROM item";
  r.gold_sql = "SELECT 1";
  Verdict big = capped.verdict(r);
  EXPECT_EQ(big.stage, VerdictStage::TooLarge) << big.failure_detail;
  EXPECT_EQ(big.pred_executed, false);
  // The JSON reply carries the same code.
  json reply = verdicts::verdict_json(v, json{{"db", d.flat}, {"sql", "SELECT 1"}, {"gold_sql", "SELECT 2"}});
  EXPECT_EQ(reply["stage"], "different");
  EXPECT_EQ(reply["pred_executed"], true);
}

TEST_F(VerdictApi, BadRequestsThrowInputError) {
  r.db = d.flat + ".missing";
  r.sql = "SELECT 1";
  r.gold_sql = "SELECT 1";
  EXPECT_THROW(v.verdict(r), InputError);
  r.db = d.flat;
  r.gold_sql.reset();
  EXPECT_THROW(v.verdict(r), InputError);  // no gold
  r.gold_sql = "SELECT 1";
  r.benchmark = "nope";
  EXPECT_THROW(v.verdict(r), InputError);
  // JSON entry: the same messages as the server's 400s
  for (json bad : {json::array(), json{{"db", d.flat}, {"sql", "SELECT 1"}, {"gold_sql", 3}},
                   json{{"db", d.flat}, {"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}, {"timeout", -1}},
                   json{{"db", d.flat}, {"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}, {"ignore_order", 1}},
                   json{{"db", d.flat}, {"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}, {"plug_value", true}},
                   json{{"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}}}) {
    EXPECT_THROW(sqlgrade::verdicts::verdict_json(v, bad), InputError) << bad.dump();
  }
}

TEST_F(VerdictApi, JsonEntryEqualsServerReply) {
  serve::RewardServer s(opts(d.flat_dir));
  json body = {{"db_id", "shop"}, {"model_output", "```sql\nSELECT name FROM item WHERE qty > 1\n```"},
               {"gold_sql", "SELECT name FROM item WHERE qty >= 2"}, {"instance_id", "x1"}};
  json a = call(s.verify(body.dump()));
  json with_db = body;
  with_db["db"] = d.flat;
  json b = sqlgrade::verdicts::verdict_json(v, with_db);
  for (json* j : {&a, &b}) j->erase("timings");
  EXPECT_EQ(a, b);
}

TEST_F(VerdictApi, PerRequestTimeoutIsCappedByTheServer) {
  r.sql = kRunawayCount;
  r.gold_sql = "SELECT 1";
  r.timeout_s = 0.3;
  auto t0 = std::chrono::steady_clock::now();
  Verdict a = v.verdict(r);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(a.failure_reason, "timeout");
  EXPECT_LT(took, 3.0);
  // the server lowers, never raises: a request asking for 1000 s gets --timeout 0.3
  serve::RewardServer s(opts(d.flat_dir, 0.3));
  t0 = std::chrono::steady_clock::now();
  json j = call(s.verify(json{{"db_id", "shop"}, {"sql", kRunawayCount}, {"gold_sql", "SELECT 1"}, {"timeout", 1000}}.dump()));
  took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(j["failure_reason"], "timeout");
  EXPECT_EQ(j["pred_executed"], false);
  EXPECT_LT(took, 3.0);
}

TEST_F(VerdictApi, ReplyAlwaysHasPredExecutedAndTimings) {
  serve::RewardServer s(opts(d.flat_dir));
  for (std::string out : {"```sql\nSELECT 1\n```", "nothing", "```sql\nSELECT nope\n```"}) {
    json j = call(s.verify(json{{"db_id", "shop"}, {"model_output", out}, {"gold_sql", "SELECT 1"}}.dump()));
    ASSERT_TRUE(j.contains("pred_executed")) << j.dump();
    for (const char* k : {"extract_s", "gold_s", "pred_s", "compare_s", "total_s"})
      EXPECT_TRUE(j["timings"][k].is_number()) << k << " " << j.dump();
  }
}

TEST_F(VerdictApi, SpiderFlagsPerRequest) {
  r.benchmark = "spider";
  r.db = d.nested;
  r.gold_sql = "SELECT DISTINCT qty > 0 FROM item";
  r.sql = "SELECT qty > 0 FROM item";
  // test-suite default: DISTINCT is removed from both, so the rows (as a multiset) match
  EXPECT_EQ(v.verdict(r).reward, 1.0);
  r.keep_distinct = true;  // kept: 2 rows vs 4
  EXPECT_EQ(v.verdict(r).reward, 0.0);
  // plug_value: the gold's literal goes into the prediction's slot
  r.keep_distinct = false;
  r.gold_sql = "SELECT name FROM item WHERE qty > 2";
  r.sql = "SELECT name FROM item WHERE qty > 5";
  EXPECT_EQ(v.verdict(r).reward, 0.0);
  r.plug_value = true;
  EXPECT_EQ(v.verdict(r).reward, 1.0);
}

TEST(ServeApi, SpiderOnAFlatLayoutIsA400WithOneLine) {
  Dbs d;
  serve::RewardServer s(opts(d.flat_dir));
  json j = call(s.verify(json{{"db_id", "shop"}, {"benchmark", "spider"}, {"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}}.dump()),
                400);
  std::string msg = j["error"];
  EXPECT_NE(msg.find("test-suite layout"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  // the nested layout works
  serve::RewardServer n(opts(d.nested_dir));
  json ok = call(n.verify(json{{"db_id", "shop"}, {"benchmark", "spider"}, {"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}}.dump()));
  EXPECT_EQ(ok["reward"], 1.0);
}

// A test-suite folder without a database named after it is still a Spider database (its *.sqlite are
// the suite): the server grades the folder, as Python's db_root lookup does (one Benchmark::locate).
TEST(ServeApi, SpiderFolderWithoutItsNamesakeIsGradedAsTheSuite) {
  Dbs d;
  const std::string dir = (d.tmp / "suite").string();
  make_sqlite(dir + "/shop/variant1.sqlite", slurp(fixtures() + "/serve/shop.sql"));
  const Located at = verdicts::benchmark_named("spider").locate(dir, "shop");
  EXPECT_EQ(at.path, dir + "/shop");
  serve::RewardServer s(opts(dir));
  json ok = call(s.verify(json{{"db_id", "shop"}, {"benchmark", "spider"}, {"sql", "SELECT count(*) FROM item"},
                               {"gold_sql", "SELECT count(*) FROM item"}}.dump()));
  EXPECT_EQ(ok["reward"], 1.0);
  json wrong = call(s.verify(json{{"db_id", "shop"}, {"benchmark", "spider"}, {"sql", "SELECT 0"},
                                  {"gold_sql", "SELECT count(*) FROM item"}}.dump()));
  EXPECT_EQ(wrong["reward"], 0.0);
}

TEST(ServeApi, DefaultConcurrencyIsTwiceTheCoresAtLeastFour) {
  unsigned c = serve::default_max_concurrency();
  EXPECT_GE(c, 4u);
  Dbs d;
  serve::ServerOptions o = opts(d.flat_dir);
  o.max_concurrency = 0;
  serve::RewardServer def(o);
  EXPECT_EQ(def.options().max_concurrency, c);
}

TEST(ExecuteApi, RowsTruncationAndFailures) {
  Dbs d;
  std::string before = file_hash(d.flat);
  ExecuteResult r = execute(d.flat, "SELECT name, qty FROM item ORDER BY id", {5, 2, 1 << 20, ""});
  EXPECT_EQ(r.status, "ok");
  EXPECT_TRUE(r.truncated);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.columns, (std::vector<std::string>{"name", "qty"}));
  EXPECT_EQ(r.rows[0][0].s, "apple");
  ExecuteResult all = execute(d.flat, "SELECT name FROM item", {5, 4, 1 << 20, ""});
  EXPECT_FALSE(all.truncated);
  EXPECT_EQ(all.rows.size(), 4u);
  ExecuteResult bytes = execute(d.flat, "SELECT name FROM item", {5, 100, 30, ""});
  EXPECT_TRUE(bytes.truncated);
  EXPECT_LT(bytes.rows.size(), 4u);
  EXPECT_EQ(execute(d.flat, "DROP TABLE item").status, "error");
  EXPECT_EQ(execute(d.flat, "SELECT nope").status, "error");
  EXPECT_EQ(execute(d.flat, "SELECT 1; DELETE FROM item").status, "error");
  EXPECT_EQ(execute(d.flat, "ATTACH DATABASE 'x.db' AS x").status, "error");
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(execute(d.flat, kRunawayCount, {0.3, 10, 1 << 20, ""}).status, "timeout");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 3.0);
  EXPECT_THROW(execute(d.flat + ".nope", "SELECT 1"), InputError);
  EXPECT_THROW(execute(d.flat, "SELECT 1", {0, 1, 1, ""}), InputError);
  EXPECT_EQ(file_hash(d.flat), before);
}

TEST(ServeApi, ExecuteEndpointIsBounded) {
  Dbs d;
  serve::ServerOptions o = opts(d.flat_dir, 0.3);
  o.max_execute_rows = 3;
  serve::RewardServer s(o);
  json j = call(s.execute(json{{"db_id", "shop"}, {"sql", "SELECT id, name, price, code FROM item ORDER BY id"},
                               {"max_rows", 1000000}}.dump()));
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["rows"].size(), 3u);  // capped by --max-execute-rows
  EXPECT_EQ(j["truncated"], true);
  EXPECT_EQ(j["rows"][0], json::array({1, "apple", 1.5, "A1"}));
  EXPECT_TRUE(j["rows"][1][3].is_null());
  EXPECT_EQ(call(s.execute(json{{"db_id", "shop"}, {"sql", "SELECT x'00ff'"}}.dump()))["rows"][0][0]["blob_hex"], "00ff");
  auto t0 = std::chrono::steady_clock::now();
  // A request lowers the deadline, never raises it: one day (the table's largest timeout) is capped by
  // --timeout; beyond one day the field is refused (issue 19: core/bounds.hpp).
  EXPECT_EQ(call(s.execute(json{{"db_id", "shop"}, {"sql", kRunawayCount}, {"timeout", 86400}}.dump()))["status"], "timeout");
  EXPECT_EQ(s.execute(json{{"db_id", "shop"}, {"sql", kRunawayCount}, {"timeout", 1e9}}.dump()).status, 400);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 3.0);
  EXPECT_EQ(call(s.execute(json{{"db_id", "shop"}, {"sql", "DELETE FROM item"}}.dump()))["status"], "error");
  for (json bad : {json{{"sql", "SELECT 1"}}, json{{"db_id", "shop"}}, json{{"db_id", "../flat/shop"}, {"sql", "SELECT 1"}},
                   json{{"db_id", "nope"}, {"sql", "SELECT 1"}}, json{{"db_id", "shop"}, {"sql", "SELECT 1"}, {"max_rows", -1}},
                   json{{"db_id", "shop"}, {"sql", 5}}, json::array()})
    call(s.execute(bad.dump()), 400);
  call(s.execute("{\"db_id\": "), 400);
  call(s.execute(std::string(100000, '[')), 400);
}

TEST(ServeApi, OpenRlhfRemoteRewardShape) {
  Dbs d;
  serve::RewardServer s(opts(d.flat_dir));
  json label = {{"gold_sql", "SELECT name FROM item WHERE qty > 1"}, {"db_id", "shop"}};
  json label_path = {{"gold_sql", "SELECT name FROM item WHERE qty > 1"}, {"db_path", "/elsewhere/shop.sqlite"}};
  json req = {{"query", {"Q1 ```sql\nSELECT name FROM item WHERE qty >= 2\n```", "Q2 ```sql\nSELECT name FROM item\n```",
                         "Q3 no sql", "Q4 ```sql\nSELECT nope\n```"}},
              {"prompts", {"Q1 ", "Q2 ", "Q3 ", "Q4 "}},
              {"labels", {label.dump(), label, label_path, label}}};
  json j = call(s.openrlhf(req.dump()));
  EXPECT_EQ(j["rewards"], json::array({1.0, 0.0, 0.0, 0.0}));
  EXPECT_EQ(j["scores"], j["rewards"]);
  EXPECT_EQ(j["extra_logs"]["sql_found"], json::array({1.0, 1.0, 0.0, 1.0}));
  EXPECT_EQ(j["extra_logs"]["sql_executed"], json::array({1.0, 1.0, 0.0, 0.0}));
  // bad shapes: 400 with the index, before any work
  for (json bad : {json{{"query", {"a"}}}, json{{"query", {"a"}}, {"labels", json::array()}},
                   json{{"query", {"a"}}, {"labels", {"not json"}}},
                   json{{"query", {"a"}}, {"labels", {json{{"gold_sql", "SELECT 1"}}}}},
                   json{{"query", {5}}, {"labels", {label}}},
                   json{{"query", {"a"}}, {"labels", {json{{"gold_sql", "SELECT 1"}, {"db_id", "../x"}}}}},
                   json{{"query", {"a"}}, {"prompts", {"a", "b"}}, {"labels", {label}}}}) {
    json e = call(s.openrlhf(bad.dump()), 400);
    EXPECT_EQ(e["error"].get<std::string>().find('\n'), std::string::npos);
  }
  json big = {{"query", json::array()}, {"labels", json::array()}};
  for (int i = 0; i < 5000; ++i) {
    big["query"].push_back("x");
    big["labels"].push_back(label);
  }
  call(s.openrlhf(big.dump()), 400);  // over --max-batch 4096
  json deep = {{"query", {"a"}}, {"labels", {std::string(5000, '[')}}};
  call(s.openrlhf(deep.dump()), 400);
}

// The official gold folder is read by spider2::load_eval_jsonl, so a numeric ignore_order (1/0) means
// the same in `sqlgrade spider2` and in the server (the server used to read 1 as false).
TEST(ServeApi, NumericIgnoreOrderAgreesWithTheCli) {
  TempDir t;
  fs::path gold = t / "gold", dbs = t / "dbs", pred = t / "pred";
  make_sqlite(dbs / "shop.sqlite", slurp(fixtures() + "/serve/shop.sql"));
  fs::create_directories(gold / "exec_result");
  fs::create_directories(pred);
  spit(gold / "spider2lite_eval.jsonl",
       "{\"instance_id\": \"local001\", \"condition_cols\": [], \"ignore_order\": 1}\n"
       "{\"instance_id\": \"local002\", \"condition_cols\": [], \"ignore_order\": 0}\n"
       "{\"instance_id\": \"local003\", \"condition_cols\": [], \"ignore_order\": 1.0}\n");
  spit(t / "spider2-lite.jsonl",
       "{\"instance_id\": \"local001\", \"db\": \"shop\"}\n{\"instance_id\": \"local002\", \"db\": \"shop\"}\n"
       "{\"instance_id\": \"local003\", \"db\": \"shop\"}\n");
  for (const char* id : {"local001", "local002", "local003"})
    spit(gold / "exec_result" / (std::string(id) + ".csv"), "name\napple\nfig\nkiwi\n");
  const std::string reversed = "SELECT name FROM item WHERE qty > 1 ORDER BY name DESC";  // kiwi, fig, apple
  for (const char* id : {"local001", "local002", "local003"}) spit(pred / (std::string(id) + ".sql"), reversed);
  auto r = run_cli({"spider2", "--mode", "sql", "--result_dir", pred.string(), "--gold_dir", gold.string(), "--db_dir",
                    dbs.string(), "--meta", (t / "spider2-lite.jsonl").string(), "--json", (t / "out.json").string(),
                    "--no-progress"});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::map<std::string, double> cli;
  json out = json::parse(slurp(t / "out.json"));
  for (auto& p : out["instances"]) cli[p["id"].get<std::string>()] = p["scores"]["ex"].get<double>();
  ASSERT_EQ(cli.size(), 3u) << out.dump() << r.out;

  serve::ServerOptions o = opts(dbs.string());
  o.grader.spider2_gold_dir = gold.string();
  serve::RewardServer s(o);
  Grader v([&] {
    GraderConfig c;
    c.spider2_gold_dir = gold.string();
    return c;
  }());
  for (const char* id : {"local001", "local002", "local003"}) {
    json j = call(s.verify(json{{"db_id", "shop"}, {"instance_id", id}, {"sql", reversed}}.dump()));
    EXPECT_EQ(j["reward"].get<double>(), cli.at(id)) << id << " " << j.dump();
    VerdictRequest q;
    q.db = (dbs / "shop.sqlite").string();
    q.instance_id = id;
    q.sql = reversed;
    EXPECT_EQ(v.verdict(q).reward, cli.at(id)) << id;
  }
  EXPECT_EQ(cli.at("local001"), 1.0);  // order ignored
  EXPECT_EQ(cli.at("local002"), 0.0);  // order matters
  EXPECT_EQ(cli.at("local003"), 1.0);
}

// issue 21 item 7: a server with only a BIRD folder grades BIRD; a request without `benchmark` that
// cannot be Spider 2.0 is refused with a message saying so (not only "unknown db_id").
TEST(ServeApi, AnyOneDatabaseFolderAndNoBenchmarkNamed) {
  Dbs d;
  serve::ServerOptions o = opts("");
  o.bird_db_dir = d.nested_dir;
  serve::RewardServer bird_only(o);
  json ok = call(bird_only.verify(json{{"db_id", "shop"}, {"benchmark", "bird"}, {"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}}.dump()));
  EXPECT_EQ(ok["reward"], 1.0);
  json none = call(bird_only.verify(json{{"db_id", "shop"}, {"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}}.dump()), 400);
  EXPECT_NE(none["error"].get<std::string>().find("no database folder for it (--db-dir)"), std::string::npos) << none;
  EXPECT_NE(none["error"].get<std::string>().find("names no `benchmark`"), std::string::npos) << none;
  json named = call(bird_only.verify(json{{"db_id", "shop"}, {"benchmark", "spider2"}, {"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}}.dump()), 400);
  EXPECT_EQ(named["error"].get<std::string>().find("names no `benchmark`"), std::string::npos) << named;
  serve::RewardServer s2(opts(d.flat_dir));
  json unknown = call(s2.verify(json{{"db_id", "california_schools"}, {"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}}.dump()), 400);
  EXPECT_NE(unknown["error"].get<std::string>().find("unknown db_id 'california_schools'"), std::string::npos) << unknown;
  EXPECT_NE(unknown["error"].get<std::string>().find("names no `benchmark`"), std::string::npos) << unknown;
}
