// Reward server core (no HTTP): verdicts, failure reasons, safety, cache, queue bound, metrics.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include <nlohmann/json.hpp>

#include "serve_proc.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/serve/server.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::serve;
using sqlgrade::verdicts::model_text;
using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

struct Fixture {
  TempDir tmp;
  std::string dbdir, dbfile;
  Fixture() {
    dbdir = (tmp / "dbs").string();
    dbfile = (tmp / "dbs" / "shop" / "shop.sqlite").string();
    make_sqlite(dbfile, slurp(fixtures() + "/serve/shop.sql"));
  }
  ServerOptions opts(double timeout = 5) const {
    ServerOptions o;
    o.db_dir = dbdir;
    o.max_concurrency = 2;
    o.grader.timeout_s = timeout;
    return o;
  }
};

// A NeMo Gym verify request whose model answer is `text`.
json request(const std::string& text, json extra = json::object()) {
  json r = {{"responses_create_params", {{"input", json::array({{{"role", "user"}, {"content", "q?"}, {"type", "message"}}})}}},
            {"response",
             {{"id", "resp_1"},
              {"object", "response"},
              {"output", json::array({{{"type", "reasoning"}, {"summary", json::array()}},
                                      {{"type", "message"},
                                       {"role", "assistant"},
                                       {"content", json::array({{{"type", "output_text"}, {"text", text}, {"annotations", json::array()}}})}}})}}},
            {"instance_id", "local900"},
            {"uuid", nullptr},
            {"db_id", "shop"},
            {"question", "What?"},
            {"ignore_order", true},
            {"condition_cols", nullptr},
            {"metadata", nullptr}};
  for (auto& [k, v] : extra.items()) r[k] = v;
  return r;
}

std::string sql_answer(const std::string& sql) { return "Here it is:\n```sql\n" + sql + "\n```"; }

}  // namespace

TEST(ServeCore, Spider2GoldSqlMatchAndMismatch) {
  Fixture f;
  RewardServer s(f.opts());
  json extra = {{"gold_sql", "SELECT name, price FROM item ORDER BY id"}};
  // columns matched independently, extra pred columns ignored, order ignored (ignore_order true)
  json r = verify_json(s, request(sql_answer("SELECT qty, price, name FROM item ORDER BY name"), extra));
  EXPECT_EQ(r["reward"], 1.0);
  EXPECT_EQ(r["execution_match"], true);
  EXPECT_EQ(r["failure_reason"], "none");
  EXPECT_EQ(r["extracted_sql"], "SELECT qty, price, name FROM item ORDER BY name");
  EXPECT_EQ(r["benchmark"], "spider2");
  // echo of the task fields (NeMo shape): gold_result/ignore_order/condition_cols are not echoed
  EXPECT_EQ(r["instance_id"], "local900");
  EXPECT_EQ(r["db_id"], "shop");
  EXPECT_EQ(r["question"], "What?");
  EXPECT_EQ(r["gold_sql"], "SELECT name, price FROM item ORDER BY id");
  EXPECT_TRUE(r.contains("responses_create_params"));
  EXPECT_TRUE(r.contains("response"));
  EXPECT_FALSE(r.contains("ignore_order"));
  EXPECT_FALSE(r.contains("condition_cols"));
  EXPECT_EQ(r["model_output"], sql_answer("SELECT qty, price, name FROM item ORDER BY name"));

  r = verify_json(s, request(sql_answer("SELECT name FROM item WHERE id < 4"), extra));
  EXPECT_EQ(r["reward"], 0.0);
  EXPECT_EQ(r["execution_match"], false);
  EXPECT_EQ(r["failure_reason"], "result_mismatch");  // NeMo's execution_error would say "did not run" (issue 30)

  // ignore_order false: the order of rows now matters
  json ordered = {{"gold_sql", "SELECT name FROM item ORDER BY id"}, {"ignore_order", false}};
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT name FROM item ORDER BY name"), ordered))["reward"], 0.0);
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT name FROM item ORDER BY id"), ordered))["reward"], 1.0);
}

TEST(ServeCore, Spider2ToleranceAndNullIsZero) {
  Fixture f;
  RewardServer s(f.opts());
  json extra = {{"gold_sql", "SELECT price FROM item WHERE id = 1"}};
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT 1.505"), extra))["reward"], 1.0);   // |diff| <= 0.01
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT 1.52"), extra))["reward"], 0.0);
  // official rule: NULL -> NaN -> 0, so a NULL gold cell equals a 0 prediction
  json nul = {{"gold_sql", "SELECT code FROM item WHERE id = 2"}};
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT 0"), nul))["reward"], 1.0);
  // and the string 'NA' is a pandas NA string: it becomes 0 as well
  json na = {{"gold_sql", "SELECT code FROM item WHERE id = 3"}};
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT NULL"), na))["reward"], 1.0);
}

TEST(ServeCore, Spider2GoldSqlConditionCols) {
  Fixture f;
  RewardServer s(f.opts());
  std::string pred = sql_answer("SELECT name, 0 AS z FROM item");
  // flat list: every listed gold column must be matched (column 1 = price is not in the prediction)
  json flat = {{"gold_sql", "SELECT name, price FROM item"}, {"condition_cols", json::array({0, 1})}};
  EXPECT_EQ(verify_json(s, request(pred, flat))["reward"], 0.0);
  flat["condition_cols"] = json::array({0});
  EXPECT_EQ(verify_json(s, request(pred, flat))["reward"], 1.0);
  // list of lists (as local008, local197, ... carry): element 0 applies to the single gold
  json nested = {{"gold_sql", "SELECT price, name FROM item"}, {"condition_cols", json::array({json::array({1}), json::array({0})})}};
  json r = verify_json(s, request(pred, nested));
  EXPECT_EQ(r["reward"], 1.0) << r["failure_detail"];
  nested["condition_cols"] = json::array({json::array({0}), json::array({1})});
  EXPECT_EQ(verify_json(s, request(pred, nested))["reward"], 0.0);
}

TEST(ServeCore, Spider2GoldResultAndConditionCols) {
  Fixture f;
  RewardServer s(f.opts());
  // two alternatives; the second one matches; condition_cols per alternative
  json gr = json::array({json::array({json::array({"apple", 99})}),
                         json::array({json::array({"apple", 1.5, "x"}), json::array({"pear", 2.25, "y"})})});
  json extra = {{"gold_result", gr}, {"condition_cols", json::array({json::array({0}), json::array({0, 1})})}};
  json r = verify_json(s, request(sql_answer("SELECT name, price FROM item WHERE id <= 2"), extra));
  EXPECT_EQ(r["reward"], 1.0) << r.dump();
  EXPECT_TRUE(r["gold_sql"].is_null());
  // without condition_cols the third gold column must match too
  extra["condition_cols"] = nullptr;
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT name, price FROM item WHERE id <= 2"), extra))["reward"], 0.0);
  // empty alternative: only an empty prediction matches
  json empty = {{"gold_result", json::array({json::array()})}};
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT name FROM item WHERE id > 100"), empty))["reward"], 1.0);
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT name FROM item"), empty))["reward"], 0.0);
}

TEST(ServeCore, FailureReasons) {
  Fixture f;
  RewardServer s(f.opts(0.3));
  json gold = {{"gold_sql", "SELECT name FROM item"}};
  json r = verify_json(s, request("I am not sure how to answer.", gold));
  EXPECT_EQ(r["failure_reason"], "no_sql_extracted");
  EXPECT_TRUE(r["extracted_sql"].is_null());
  EXPECT_EQ(r["reward"], 0.0);
  r = verify_json(s, request("", gold));
  EXPECT_EQ(r["failure_reason"], "no_sql_extracted");
  r = verify_json(s, request(sql_answer("SELECT nope FROM item"), gold));
  EXPECT_EQ(r["failure_reason"], "execution_error");
  EXPECT_NE(r["failure_detail"].get<std::string>().find("no such column"), std::string::npos) << r.dump();
  r = verify_json(s, request(sql_answer("SELECT name FROM item"), {{"gold_sql", "SELECT broken FROM item"}}));
  EXPECT_EQ(r["failure_reason"], "gold_execution_error");
  EXPECT_EQ(r["reward"], 0.0);
  auto t0 = std::chrono::steady_clock::now();
  r = verify_json(s, request(sql_answer("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"), gold));
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r["failure_reason"], "timeout");
  EXPECT_LT(secs, 5.0);
}

TEST(ServeCore, MaliciousSqlNeverChangesTheDatabase) {
  Fixture f;
  std::string before = file_hash(f.dbfile);
  RewardServer s(f.opts());
  json gold = {{"gold_sql", "SELECT name FROM item"}};
  const char* attacks[] = {
      "DROP TABLE item",
      "DELETE FROM item",
      "UPDATE item SET price = 0",
      "INSERT INTO item(name) VALUES ('x')",
      "WITH x AS (SELECT 1) DELETE FROM item",
      "SELECT name FROM item; DROP TABLE item",
      "ATTACH DATABASE 'evil.sqlite' AS evil",
      "PRAGMA writable_schema = 1",
      "CREATE TABLE t2(x)",
      "VACUUM",
      "SELECT load_extension('/tmp/evil')",
  };
  for (const char* a : attacks) {
    json r = verify_json(s, request(sql_answer(a), gold));
    EXPECT_EQ(r["reward"], 0.0) << a;
    EXPECT_EQ(r["failure_reason"], "execution_error") << a << " " << r["failure_detail"];
  }
  EXPECT_EQ(file_hash(f.dbfile), before);
  EXPECT_FALSE(fs::exists(fs::current_path() / "evil.sqlite"));
  // the database still answers normally afterwards
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT name FROM item"), gold))["reward"], 1.0);
}

TEST(ServeCore, BadRequestsAre400) {
  Fixture f;
  RewardServer s(f.opts());
  json gold = {{"gold_sql", "SELECT 1"}};
  EXPECT_EQ(s.verify("{not json").status, 400);
  EXPECT_EQ(s.verify("[1,2]").status, 400);
  json r = request("SELECT 1", gold);
  r.erase("db_id");
  EXPECT_EQ(s.verify(r.dump()).status, 400);
  EXPECT_EQ(s.verify(request("SELECT 1", {{"db_id", "nosuchdb"}, {"gold_sql", "SELECT 1"}}).dump()).status, 400);
  EXPECT_EQ(s.verify(request("SELECT 1", {{"db_id", "../dbs/shop"}, {"gold_sql", "SELECT 1"}}).dump()).status, 400);
  EXPECT_EQ(s.verify(request("SELECT 1").dump()).status, 400);  // neither gold_sql nor gold_result
  EXPECT_EQ(s.verify(request("SELECT 1", {{"gold_sql", "SELECT 1"}, {"benchmark", "wikisql"}}).dump()).status, 400);
  EXPECT_EQ(s.verify(request("SELECT 1", {{"gold_result", json::array({1, 2})}}).dump()).status, 400);
  EXPECT_EQ(s.verify(request("SELECT 1", {{"gold_sql", "SELECT 1"}, {"ignore_order", "yes"}}).dump()).status, 400);
  // hostile nesting is refused before it is parsed, copied or dumped (no stack overflow)
  EXPECT_EQ(s.verify(std::string(1000000, '[')).status, 400);
  EXPECT_EQ(s.aggregate_metrics(std::string(1000000, '{')).status, 400);
  json deep = request(sql_answer("SELECT name FROM item"), {{"gold_sql", "SELECT name FROM item"}});
  deep["metadata"] = json::parse(std::string(200, '[') + std::string(200, ']'));  // deep but allowed
  EXPECT_EQ(s.verify(deep.dump()).status, 200);
  Reply bad = s.verify(request("SELECT 1", {{"db_id", "nosuchdb"}, {"gold_sql", "SELECT 1"}}).dump());
  EXPECT_NE(json::parse(bad.body)["error"].get<std::string>().find("nosuchdb"), std::string::npos);
  EXPECT_GE(s.stats().bad_requests, 9u);
}

// Fuzz finding (fuzz_json_readers): verify() used to throw nlohmann type_error 316 while dumping a
// reply that quoted bytes that are not UTF-8 (a parse error's last token, a result value, a long
// text cut inside a multi-byte character). Every reply is now valid JSON.
TEST(ServeCore, RepliesAreValidJsonWhateverTheBytes) {
  Fixture f;
  RewardServer s(f.opts());
  auto valid_reply = [](const Reply& r, int status, const std::string& what) {
    EXPECT_EQ(r.status, status) << what << ": " << r.body;
    EXPECT_TRUE(json::accept(r.body)) << what << ": not valid JSON";
  };
  valid_reply(s.verify("{\"db_id\": \"shop\", \"x\": \"\xff\xfe\"}"), 400, "raw invalid bytes in a string");
  valid_reply(s.verify("\xc3"), 400, "a lone lead byte");
  valid_reply(s.aggregate_metrics("[\"\xff\"]"), 400, "aggregate with invalid bytes");
  json gold = {{"gold_sql", "SELECT name FROM item"}};
  valid_reply(s.verify(request(sql_answer("SELECT CAST(x'ff61' AS TEXT) AS name"), gold).dump()), 200,
              "a result value that is not UTF-8");
  std::string long_text;
  for (int i = 0; i < 5000; ++i) long_text += "\xc3\xa9";  // 'é' x 5000
  valid_reply(s.verify(request(sql_answer("SELECT '" + long_text + "' AS name"), gold).dump()), 200,
              "a long multi-byte text");
  valid_reply(s.verify(request(sql_answer("SELECT name FROM item WHERE name = '" + long_text + "' GROUP BY"), gold).dump()),
              200, "an error message quoting a long multi-byte text");
}

TEST(ServeCore, GoldResultsAreCached) {
  Fixture f;
  RewardServer s(f.opts());
  json gold = {{"gold_sql", "SELECT name FROM item"}};
  json r1 = verify_json(s, request(sql_answer("SELECT name FROM item"), gold));
  json r2 = verify_json(s, request(sql_answer("SELECT name FROM item WHERE id = 1"), gold));
  EXPECT_EQ(r1["gold_cached"], false);
  EXPECT_EQ(r2["gold_cached"], true);
  EXPECT_EQ(s.stats().gold_cache_hits, 1u);
  EXPECT_EQ(s.stats().gold_cache_misses, 1u);
  // the same gold SQL under another benchmark is another entry (different comparison model)
  ServerOptions tiny = f.opts();
  tiny.grader.gold_cache_entries = 1;
  RewardServer t(tiny);
  verify_json(t, request(sql_answer("SELECT 1"), {{"gold_sql", "SELECT 1"}}));
  verify_json(t, request(sql_answer("SELECT 1"), {{"gold_sql", "SELECT 2"}}));
  EXPECT_EQ(t.stats().gold_cache_entries, 1u);  // bounded: the older entry was evicted
  EXPECT_EQ(verify_json(t, request(sql_answer("SELECT 1"), {{"gold_sql", "SELECT 1"}}))["gold_cached"], false);
}

// NeMo Gym's bird_sql rows (issue 21): no `benchmark`, the gold named `gt_sql`. A server started
// with --benchmark bird grades them as BIRD (set semantics) and echoes gt_sql; without it they are
// spider2 as before, and an explicit `benchmark` still wins.
TEST(ServeCore, GymRowsWithServerBenchmarkAndGtSql) {
  Fixture f;
  ServerOptions o = f.opts();
  o.default_benchmark = "bird";
  RewardServer s(o);
  json row = {{"gt_sql", "SELECT name, qty FROM item WHERE qty > 1"}, {"difficulty", "simple"}, {"id", 7}};
  // BIRD's set semantics: a duplicate row still matches (spider2's ignore_order rule would not)
  const std::string dup = sql_answer("SELECT name, qty FROM item WHERE qty > 1 UNION ALL SELECT name, qty FROM item WHERE qty > 2");
  json r = verify_json(s, request(dup, row));
  EXPECT_EQ(r["benchmark"], "bird");
  EXPECT_EQ(r["reward"], 1.0);
  EXPECT_EQ(r["gt_sql"], row["gt_sql"]);
  EXPECT_EQ(r["id"], 7);
  json explicit_spider2 = row;
  explicit_spider2["benchmark"] = "spider2";
  EXPECT_EQ(verify_json(s, request(dup, explicit_spider2))["benchmark"], "spider2");
  RewardServer plain(f.opts());
  EXPECT_EQ(verify_json(plain, request(dup, row))["benchmark"], "spider2");
  // /execute takes the server's benchmark too: bird resolves the nested layout
  Reply e = s.execute(json({{"db_id", "shop"}, {"sql", "SELECT count(*) FROM item"}}).dump());
  EXPECT_EQ(e.status, 200) << e.body;
}

TEST(ServeCore, BirdVerdicts) {
  Fixture f;
  RewardServer s(f.opts());
  json g = {{"benchmark", "bird"}, {"gold_sql", "SELECT name, qty FROM item WHERE qty > 1"}};
  // set semantics: duplicates and row order do not matter
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT name, qty FROM item WHERE qty > 1 UNION ALL SELECT 'fig', 7 ORDER BY 1"), g))["reward"], 1.0);
  // column order matters
  json r = verify_json(s, request(sql_answer("SELECT qty, name FROM item WHERE qty > 1"), g));
  EXPECT_EQ(r["reward"], 0.0);
  EXPECT_EQ(r["benchmark"], "bird");
  // 1 == 1.0 (Python equality), no tolerance
  json g2 = {{"benchmark", "bird"}, {"gold_sql", "SELECT 10.0"}};
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT 10"), g2))["reward"], 1.0);
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT 10.001"), g2))["reward"], 0.0);
  // gold_result mode
  json g3 = {{"benchmark", "bird"}, {"gold_result", json::array({json::array({json::array({"apple"})})})}};
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT name FROM item WHERE id = 1"), g3))["reward"], 1.0);
}

TEST(ServeCore, SpiderVerdicts) {
  Fixture f;
  RewardServer s(f.opts());
  json g = {{"benchmark", "spider"}, {"gold_sql", "SELECT name, qty FROM item ORDER BY qty"}};
  // column permutation is allowed; ORDER BY in the gold makes row order matter
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT qty, name FROM item ORDER BY qty"), g))["reward"], 1.0);
  json r = verify_json(s, request(sql_answer("SELECT name, qty FROM item ORDER BY name"), g));
  EXPECT_EQ(r["reward"], 0.0);
  EXPECT_EQ(r["failure_reason"], "result_mismatch");
  // bag semantics without ORDER BY: duplicates matter
  json g2 = {{"benchmark", "spider"}, {"gold_sql", "SELECT name FROM item"}};
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT name FROM item UNION ALL SELECT 'fig'"), g2))["reward"], 0.0);
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT name FROM item ORDER BY name DESC"), g2))["reward"], 1.0);
  json ge = {{"benchmark", "spider"}, {"gold_sql", "SELECT nope FROM item"}};
  EXPECT_EQ(verify_json(s, request(sql_answer("SELECT name FROM item"), ge))["failure_reason"], "gold_execution_error");
}

TEST(ServeCore, FullQueueAnswers503) {
  Fixture f;
  ServerOptions o = f.opts(1.5);
  o.max_concurrency = 1;
  o.max_queue = 0;
  RewardServer s(o);
  json slow = request(sql_answer("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"),
                      {{"gold_sql", "SELECT 1"}});
  Reply first;
  std::thread t([&] { first = s.verify(slow.dump()); });
  for (int i = 0; i < 200 && s.stats().inflight == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(s.stats().inflight, 1u);
  Reply busy = s.verify(request(sql_answer("SELECT 1"), {{"gold_sql", "SELECT 1"}}).dump());
  EXPECT_EQ(busy.status, 503);
  t.join();
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(json::parse(first.body)["failure_reason"], "timeout");
  EXPECT_EQ(s.stats().rejected_busy, 1u);
  // after the slot frees up, requests are served again
  EXPECT_EQ(s.verify(request(sql_answer("SELECT 1"), {{"gold_sql", "SELECT 1"}}).dump()).status, 200);
}

TEST(ServeCore, ModelTextConcatenatesOutputText) {
  json r = {{"response",
             {{"output", json::array({{{"type", "reasoning"}, {"content", json::array({{{"type", "output_text"}, {"text", "HIDDEN"}}})}},
                                      {{"type", "message"},
                                       {"content", json::array({{{"type", "output_text"}, {"text", "a"}},
                                                                {{"type", "refusal"}, {"refusal", "no"}},
                                                                {{"type", "output_text"}, {"text", "b"}}})}},
                                      {{"type", "message"}, {"content", json::array({{{"type", "output_text"}, {"text", "c"}}})}}})}}}};
  EXPECT_EQ(model_text(r), "abc");
  EXPECT_EQ(model_text(json{{"model_output", "xyz"}}), "xyz");
  EXPECT_THROW(model_text(json{{"db_id", "x"}}), RewardServer::BadRequest);
}

TEST(ServeCore, PassAtKAndAggregateMetrics) {
  EXPECT_DOUBLE_EQ(pass_at_k(5, 2, 1), 0.4);
  EXPECT_NEAR(pass_at_k(5, 2, 2), 0.7, 1e-12);  // 1 - C(3,2)/C(5,2)
  EXPECT_DOUBLE_EQ(pass_at_k(4, 0, 2), 0.0);
  EXPECT_DOUBLE_EQ(pass_at_k(4, 3, 2), 1.0);
  EXPECT_TRUE(std::isnan(pass_at_k(2, 1, 3)));

  json rs = json::array();
  // task 0: 1 of 4 correct; task 1: 4 of 4; task 2: 0 of 4
  int correct[3] = {1, 4, 0};
  for (int t = 0; t < 3; ++t)
    for (int k = 0; k < 4; ++k)
      rs.push_back({{"_ng_task_index", t}, {"_ng_rollout_index", k}, {"reward", k < correct[t] ? 1.0 : 0.0},
                    {"failure_reason", k < correct[t] ? "none" : "execution_error"}});
  json m = aggregate(rs);
  const json& a = m["agent_metrics"];
  EXPECT_EQ(a["num_tasks"], 3);
  EXPECT_EQ(a["num_rollouts"], 12);
  EXPECT_DOUBLE_EQ(a["mean/reward"].get<double>(), 5.0 / 12);
  EXPECT_DOUBLE_EQ(a["pass@1"].get<double>(), (0.25 + 1 + 0) / 3);
  EXPECT_DOUBLE_EQ(a["pass@1[avg-of-k]"].get<double>(), (0.25 + 1 + 0) / 3);
  EXPECT_NEAR(a["pass@2"].get<double>(), (0.5 + 1 + 0) / 3, 1e-12);  // 1 - C(3,2)/C(4,2) = 0.5
  EXPECT_NEAR(a["pass@4"].get<double>(), 2.0 / 3, 1e-12);
  EXPECT_EQ(a["failure_reason/none"], 5);
  EXPECT_EQ(a["failure_reason/execution_error"], 7);
  ASSERT_EQ(m["group_level_metrics"].size(), 3u);
  EXPECT_EQ(m["group_level_metrics"][1]["task"], 1);
  EXPECT_EQ(m["group_level_metrics"][1]["pass@4"], 1.0);
  EXPECT_TRUE(m["key_metrics"].contains("pass@4"));

  Fixture f;
  RewardServer s(f.opts());
  Reply r = s.aggregate_metrics(json{{"verify_responses", rs}}.dump());
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body)["agent_metrics"], a);
  EXPECT_EQ(s.aggregate_metrics(R"({"verify_responses": [{"no_reward": 1}]})").status, 400);
  EXPECT_EQ(s.aggregate_metrics("nope").status, 400);
}

TEST(ServeCore, Spider2OfficialGoldDir) {
  Fixture f;
  TempDir g;
  spit(g / "spider2lite_eval.jsonl",
       "{\"instance_id\": \"local900\", \"condition_cols\": [1], \"ignore_order\": true}\n"
       "{\"instance_id\": \"local901\", \"condition_cols\": [], \"ignore_order\": false}\n"
       "{\"instance_id\": \"local902\", \"condition_cols\": [], \"ignore_order\": true}\n");
  spit(g / "exec_result" / "local900_a.csv", "name,price\nkiwi,1\napple,1.5\n");  // one alternative: only col 1 checked
  spit(g / "exec_result" / "local901.csv", "name\napple\npear\n");
  ServerOptions o = f.opts();
  o.grader.spider2_gold_dir = g.str();
  RewardServer s(o);
  auto req = [&](const std::string& id, const std::string& sql) {
    json r = request(sql_answer(sql), {{"instance_id", id}});
    r.erase("condition_cols");
    return r;
  };
  // flat condition_cols with a single _a alternative: the official quirk checks column 1 only
  EXPECT_EQ(verify_json(s, req("local900", "SELECT price FROM item WHERE id = 1 UNION ALL SELECT 1"))["reward"], 1.0);
  // <id>.csv with the official ignore_order=false (the request's ignore_order=true is not used)
  EXPECT_EQ(verify_json(s, req("local901", "SELECT name FROM item WHERE id <= 2 ORDER BY id"))["reward"], 1.0);
  EXPECT_EQ(verify_json(s, req("local901", "SELECT name FROM item WHERE id <= 2 ORDER BY id DESC"))["reward"], 0.0);
  // listed but no gold file
  EXPECT_EQ(verify_json(s, req("local902", "SELECT 1"))["failure_reason"], "gold_execution_error");
  // not listed: no gold at all
  EXPECT_EQ(s.verify(req("local999", "SELECT 1").dump()).status, 400);
  // a missing spider2lite_eval.jsonl is an input error naming the file
  ServerOptions bad = f.opts();
  bad.grader.spider2_gold_dir = (g / "nowhere").string();
  EXPECT_THROW(RewardServer{bad}, InputError);
}

TEST(ServeCore, PerRequestExtractionOptions) {
  Fixture f;
  RewardServer s(f.opts());
  json gold = {{"gold_sql", "SELECT name FROM item"}};
  json r = verify_json(s, request("<answer>SELECT name FROM item</answer>", gold));
  EXPECT_EQ(r["reward"], 1.0);
  EXPECT_EQ(r["extraction_source"], "tag");
  // NeMo-exact extraction: the raw fallback keeps "</answer>", which then fails to execute
  r = verify_json(s, request("<answer>SELECT name FROM item</answer>", {{"gold_sql", "SELECT name FROM item"}, {"extract", {{"tags_and_json", false}}}}));
  EXPECT_EQ(r["extracted_sql"], "SELECT name FROM item</answer>;");
  EXPECT_EQ(r["failure_reason"], "execution_error");
  r = verify_json(s, request("SELECT name FROM item", {{"gold_sql", "SELECT name FROM item"}, {"extract", {{"raw_fallback", false}}}}));
  EXPECT_EQ(r["failure_reason"], "no_sql_extracted");
  r = verify_json(s, request("we deselect x; SELECT name FROM item", {{"gold_sql", "SELECT name FROM item"}, {"extract", {{"word_boundary", true}}}}));
  EXPECT_EQ(r["reward"], 1.0);
  EXPECT_EQ(s.verify(request("SELECT 1", {{"gold_sql", "SELECT 1"}, {"extract", {{"word_boundary", "yes"}}}}).dump()).status, 400);
  // server-wide default
  ServerOptions o = f.opts();
  o.grader.extract.tags_and_json = false;
  RewardServer strict(o);
  EXPECT_EQ(verify_json(strict, request("<answer>SELECT name FROM item</answer>", gold))["failure_reason"], "execution_error");
}

// Reasoning models (issue 21): the gold query inside <think> earns nothing by default; the request
// field extract.after_think = false (and the server option) grade the whole text as before.
TEST(ServeCore, ReasoningIsNotGraded) {
  Fixture f;
  RewardServer s(f.opts());
  json gold = {{"gold_sql", "SELECT name FROM item"}};
  const std::string thought = "<think>```sql\nSELECT name FROM item\n```</think> I could not find the answer.";
  json r = verify_json(s, request(thought, gold));
  EXPECT_EQ(r["reward"], 0.0);
  EXPECT_EQ(r["failure_reason"], "no_sql_extracted");
  r = verify_json(s, request("<think>The query is SELECT name FROM item", gold));
  EXPECT_EQ(r["extraction_source"], "unclosed_think");
  EXPECT_NE(r["failure_detail"].get<std::string>().find("unclosed <think>"), std::string::npos) << r.dump();
  EXPECT_EQ(verify_json(s, request("<think>hmm</think>```sql\nSELECT name FROM item\n```", gold))["reward"], 1.0);
  json keep = {{"gold_sql", "SELECT name FROM item"}, {"extract", {{"after_think", false}}}};
  EXPECT_EQ(verify_json(s, request(thought, keep))["reward"], 1.0);
  ServerOptions o = f.opts();
  o.grader.extract.after_think = false;
  RewardServer whole(o);
  EXPECT_EQ(verify_json(whole, request(thought, gold))["reward"], 1.0);
}
