// Reward server against hostile requests (issue 12), without HTTP: condition_cols indexes that wrap,
// outputs that are not a query, task indexes of /aggregate_metrics, echoed fields, the gold cache.
#include <gtest/gtest.h>
#include <malloc.h>

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve_proc.hpp"
#include "sqlgrade/serve/server.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::serve;
using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

struct HostileShop {
  TempDir tmp;
  std::string dbdir;
  HostileShop() {
    dbdir = (tmp / "dbs").string();
    make_sqlite(tmp / "dbs" / "shop" / "shop.sqlite", slurp(fixtures() + "/serve/shop.sql"));
  }
  ServerOptions opts() const {
    ServerOptions o;
    o.db_dir = dbdir;
    o.max_concurrency = 2;
    o.grader.timeout_s = 5;
    return o;
  }
};

std::string answer_fenced(const std::string& sql) { return "Answer:\n```sql\n" + sql + "\n```"; }

// Bytes currently allocated by this process (every malloc arena, mmapped blocks included), or under
// AddressSanitizer its allocator's count. Unlike the RSS, it drops as soon as memory is freed.
#if defined(__SANITIZE_ADDRESS__)
#define SQLGRADE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SQLGRADE_TEST_ASAN 1
#endif
#endif
#ifdef SQLGRADE_TEST_ASAN
extern "C" size_t __sanitizer_get_current_allocated_bytes();
size_t live_heap_bytes() { return __sanitizer_get_current_allocated_bytes(); }
#else
size_t live_heap_bytes() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}
#endif

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

const char* kUint64Max = "18446744073709551615";
const char kNulThenQuery[] = "```sql\n;\0SELECT name FROM item\n```";

}  // namespace

// Item 6: pandas iloc raises IndexError for 18446744073709551615 (Python ints do not wrap); the
// official evaluator then scores 0. It used to be read as -1 (the last column) and score 1.
TEST(ServeHostile, ConditionColsIndexThatWrapsScoresZero) {
  HostileShop f;
  RewardServer s(f.opts());
  json gr = json::array({json::array({json::array({"apple", 1.5}), json::array({"pear", 2.25})})});
  std::string pred = answer_fenced("SELECT price FROM item WHERE id <= 2 ORDER BY id");  // the gold's last column only
  json huge = json::parse(std::string("[") + kUint64Max + "]");
  for (bool single : {false, true}) {
    json extra = {{"gold_result", gr}, {"gold_single_file", single}};
    extra["condition_cols"] = huge;
    json r = verify_json(s, serve_request(pred, extra));
    EXPECT_EQ(r["reward"], 0.0) << "single=" << single << " " << r.dump();
    EXPECT_NE(r["failure_detail"].get<std::string>().find("out-of-bounds"), std::string::npos) << r["failure_detail"];
    extra["condition_cols"] = json::array({-1});  // a real -1 is the last column, as in pandas
    EXPECT_EQ(verify_json(s, serve_request(pred, extra))["reward"], 1.0) << "single=" << single;
    extra["condition_cols"] = json::array({1});
    EXPECT_EQ(verify_json(s, serve_request(pred, extra))["reward"], 1.0) << "single=" << single;
    if (!single) {  // per alternative (list of lists): alternative 0 uses [1] and matches
      extra["condition_cols"] = json::array({json::array({1}), huge});
      EXPECT_EQ(verify_json(s, serve_request(pred, extra))["reward"], 1.0);
    }
  }
  // gold_sql takes the same rule
  json gs = {{"gold_sql", "SELECT name, price FROM item WHERE id <= 2"}, {"condition_cols", huge}};
  EXPECT_EQ(verify_json(s, serve_request(pred, gs))["reward"], 0.0);
  gs["condition_cols"] = json::parse(std::string("[[") + kUint64Max + "]]");
  EXPECT_EQ(verify_json(s, serve_request(pred, gs))["reward"], 0.0);

  // ... and so does spider2lite_eval.jsonl of --spider2-gold-dir
  TempDir g;
  spit(g / "spider2lite_eval.jsonl", std::string("{\"instance_id\": \"local900\", \"condition_cols\": [") + kUint64Max +
                                         "], \"ignore_order\": true}\n"
                                         "{\"instance_id\": \"local901\", \"condition_cols\": [-1], \"ignore_order\": true}\n");
  spit(g / "exec_result" / "local900.csv", "name,price\napple,1.5\npear,2.25\n");
  spit(g / "exec_result" / "local901.csv", "name,price\napple,1.5\npear,2.25\n");
  ServerOptions o = f.opts();
  o.grader.spider2_gold_dir = g.str();
  RewardServer official(o);
  json r0 = serve_request(pred, {{"instance_id", "local900"}}), r1 = serve_request(pred, {{"instance_id", "local901"}});
  EXPECT_EQ(verify_json(official, r0)["reward"], 0.0);
  EXPECT_EQ(verify_json(official, r1)["reward"], 1.0);
}

// Item 6, CLI side: `sqlgrade spider2` reads the same spider2lite_eval.jsonl field the same way.
TEST(ServeHostile, ConditionColsIndexThatWrapsInEvalJsonlScoresZeroInTheCli) {
  TempDir t;
  spit(t / "g" / "spider2lite_eval.jsonl",
       std::string("{\"instance_id\": \"local900\", \"condition_cols\": [") + kUint64Max + "], \"ignore_order\": true}\n" +
           "{\"instance_id\": \"local901\", \"condition_cols\": [-1], \"ignore_order\": true}\n");
  for (const char* id : {"local900", "local901"}) {
    spit(t / "g" / "exec_result" / (std::string(id) + ".csv"), "name,price\napple,1.5\npear,2.25\n");
    spit(t / "p" / (std::string(id) + ".csv"), "price\n1.5\n2.25\n");
  }
  CliResult r = run_cli({"spider2", "--mode", "exec_result", "--result_dir", (t / "p").string(), "--gold_dir",
                         (t / "g").string(), "--no-progress"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "{'local900': 0, 'local901': 1}") << r.out;
}

// Item 7: a prediction that is not a query (`;`, a lone comment) executes as an empty result; it
// must never earn reward 1 against a gold with no rows, whatever the benchmark.
TEST(ServeHostile, NothingScoresZeroForEveryBenchmark) {
  HostileShop f;
  RewardServer s(f.opts());
  const std::vector<std::string> nothing = {
      answer_fenced(";"),
      answer_fenced(";;\n;"),
      answer_fenced("-- the answer is empty"),
      answer_fenced("/* nothing */"),
      answer_fenced("/* unterminated"),
      answer_fenced("  \t;\r\n-- x\n/* y */ ;"),
      std::string(kNulThenQuery, sizeof kNulThenQuery - 1),  // SQLite stops reading at the NUL
      "<answer>;</answer>",
      "{\"answer\": \"-- none\"}",
  };
  int checked = 0;
  for (const char* bench : {"spider2", "spider", "bird"}) {
    json empty_gold = {{"benchmark", bench}, {"gold_sql", "SELECT name FROM item WHERE id < 0"}};
    json empty_rows = {{"benchmark", bench}, {"gold_result", json::array({json::array()})}};
    for (const json& gold : {empty_gold, empty_rows}) {
      for (auto& text : nothing) {
        json r = verify_json(s, serve_request(text, gold));
        EXPECT_EQ(r["reward"], 0.0) << bench << " " << json(text).dump() << " " << r.dump();
        EXPECT_EQ(r["failure_reason"], "no_sql_extracted") << bench << " " << json(text).dump();
        EXPECT_TRUE(r["extracted_sql"].is_null());
        ++checked;
      }
      // a real query with an empty result still matches an empty gold
      json ok = verify_json(s, serve_request(answer_fenced("SELECT name FROM item WHERE id > 100"), gold));
      EXPECT_EQ(ok["reward"], 1.0) << bench << " " << ok.dump();
    }
  }
  EXPECT_GE(checked, 18);
}

// Item 8: task indexes are grouped exactly over the whole JSON integer range, in numeric order;
// anything else is refused.
TEST(ServeHostile, AggregateTaskIndexesAreExact) {
  const std::vector<std::string> idx = {kUint64Max, "-1", "9223372036854775807", "-9223372036854775808",
                                        "4611686018427387904", "0", "4611686018427387903"};
  json rs = json::array();
  for (size_t i = 0; i < idx.size(); ++i)
    for (int k = 0; k < 2; ++k)
      rs.push_back({{"_ng_task_index", json::parse(idx[i])}, {"reward", k == 0 && i % 2 == 0 ? 1.0 : 0.0}});
  json m = aggregate(rs);
  EXPECT_EQ(m["agent_metrics"]["num_tasks"], idx.size());
  const std::vector<std::string> order = {"-9223372036854775808", "-1", "0", "4611686018427387903",
                                          "4611686018427387904", "9223372036854775807", kUint64Max};
  ASSERT_EQ(m["group_level_metrics"].size(), order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(m["group_level_metrics"][i]["task"].dump(), order[i]);
    EXPECT_EQ(m["group_level_metrics"][i]["num_rollouts"], 2);
  }
  EXPECT_DOUBLE_EQ(m["agent_metrics"]["pass@2"].get<double>(), 4.0 / 7);
  // not an integer: 400, not a silent fallback to instance_id
  HostileShop f;
  RewardServer s(f.opts());
  for (const char* bad : {"1.5", "\"3\"", "true", "[1]"}) {
    std::string body = std::string(R"({"verify_responses": [{"_ng_task_index": )") + bad + R"(, "reward": 1.0}]})";
    Reply r = s.aggregate_metrics(body);
    EXPECT_EQ(r.status, 400) << bad << " " << r.body;
    EXPECT_NE(r.body.find("_ng_task_index"), std::string::npos) << r.body;
  }
  EXPECT_EQ(s.aggregate_metrics(R"({"verify_responses": [{"_ng_task_index": null, "reward": 1.0}]})").status, 200);
}

// Item 4: the cache holds a digest of each gold text, not the text, and counts what it keeps. Distinct
// 1 MiB gold_sql texts used to stay in memory twice each (map key + LRU list), uncounted.
TEST(ServeHostile, GoldCacheKeepsNoGoldTextAndCountsItsKeys) {
  HostileShop f;
  ServerOptions o = f.opts();
  o.grader.gold_cache_bytes = 4 * kMiB;
  RewardServer s(o);
  verify_json(s, serve_request(answer_fenced("SELECT name FROM item"), {{"gold_sql", "SELECT name FROM item"}}));  // warm the pools
  size_t before = live_heap_bytes();
  const int kTexts = 24;
  for (int i = 0; i < kTexts; ++i) {
    std::string gold = "SELECT name FROM item /* " + std::to_string(i) + std::string(kMiB, 'x') + " */";
    json r = verify_json(s, serve_request(answer_fenced("SELECT name FROM item"), {{"gold_sql", gold}}));
    EXPECT_EQ(r["reward"], 1.0);
  }
  size_t grown = live_heap_bytes() > before ? live_heap_bytes() - before : 0;
  ServerStats st = s.stats();
  EXPECT_EQ(st.gold_cache_entries, size_t(kTexts) + 1);  // small results: all kept, 32-byte keys
  EXPECT_LE(st.gold_cache_bytes, 4 * kMiB);
  EXPECT_GT(st.gold_cache_bytes, st.gold_cache_entries * 64);  // keys and bookkeeping are counted
  EXPECT_LT(grown, 4 * kMiB) << "the cache kept " << grown / kMiB << " MiB for " << kTexts << " texts of 1 MiB";
}

// Item 4: spider, bird and spider2 golds share one cache, bounded by bytes; a result larger than the
// whole cache is not kept. Spider test-suite golds used to stay in the evaluator's own map forever.
TEST(ServeHostile, OneBoundedGoldCacheForEveryBenchmark) {
  HostileShop f;
  ServerOptions o = f.opts();
  o.grader.gold_cache_bytes = 16 * kMiB;
  RewardServer s(o);
  for (const char* bench : {"spider2", "spider", "bird"})  // warm the pools and evaluators
    verify_json(s, serve_request(answer_fenced("SELECT 1"), {{"benchmark", bench}, {"gold_sql", "SELECT 1"}}));
  size_t before = live_heap_bytes();
  // ~7 MB per result (50 000 rows of an integer and a short text); 6 distinct golds per benchmark
  auto big_gold = [](int i, int rows) {
    return "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT " + std::to_string(rows) +
           ") SELECT x + " + std::to_string(i) + ", 'row ' || x FROM c";
  };
  int sent = 0;
  for (const char* bench : {"spider2", "spider", "bird"}) {
    for (int i = 0; i < 6; ++i) {
      json r = verify_json(s, serve_request(answer_fenced("SELECT 1"), {{"benchmark", bench}, {"gold_sql", big_gold(i, 50000)}}));
      EXPECT_EQ(r["failure_reason"], "result_mismatch") << bench << " " << r["failure_detail"];  // ran, other rows
      ++sent;
    }
  }
  size_t grown = live_heap_bytes() > before ? live_heap_bytes() - before : 0;
  EXPECT_GE(sent, 12);
  EXPECT_LE(s.stats().gold_cache_bytes, 16 * kMiB);
  EXPECT_LT(grown, 28 * kMiB) << sent << " big golds left " << grown / kMiB << " MiB behind (cache: 16 MiB)";
  // larger than the whole cache: returned, not kept (and nothing else evicted for it)
  size_t entries = s.stats().gold_cache_entries;
  for (const char* bench : {"spider", "bird"}) {
    json g = {{"benchmark", bench}, {"gold_sql", big_gold(99, 200000)}};
    EXPECT_EQ(verify_json(s, serve_request(answer_fenced("SELECT 1"), g))["gold_cached"], false);
    EXPECT_EQ(verify_json(s, serve_request(answer_fenced("SELECT 1"), g))["gold_cached"], false) << bench;
  }
  EXPECT_EQ(s.stats().gold_cache_entries, entries);
}

// Item 5: spider golds run under the gold timeout (not the prediction's), a gold that times out is
// tried again on the next request (it used to answer gold_execution_error until a restart), and a
// good spider gold is served from the cache.
TEST(ServeHostile, GoldTimeoutsAreNeverCachedAndSpiderUsesTheGoldTimeout) {
  HostileShop f;
  const std::string slow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 3000000) "
                           "SELECT count(*) FROM c";  // about a second on an idle core
  {
    ServerOptions o = f.opts();
    o.grader.timeout_s = 0.05;
    o.grader.gold_timeout_s = 60;
    RewardServer s(o);
    for (const char* bench : {"spider", "bird", "spider2"}) {
        json g = {{"benchmark", bench}, {"gold_sql", slow}};
      json r = verify_json(s, serve_request(answer_fenced("SELECT 3000000"), g));
      EXPECT_EQ(r["reward"], 1.0) << bench << " " << r.dump();
      EXPECT_EQ(r["gold_cached"], false) << bench;
      EXPECT_EQ(verify_json(s, serve_request(answer_fenced("SELECT 3000000"), g))["gold_cached"], true) << bench;
    }
  }
  ServerOptions o = f.opts();
  o.grader.timeout_s = 5;
  o.grader.gold_timeout_s = 0.3;
  RewardServer s(o);
  const std::string runaway = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c";
  for (const char* bench : {"spider", "bird", "spider2"}) {
    json g = {{"benchmark", bench}, {"gold_sql", runaway}};
    for (int round = 0; round < 2; ++round) {
      auto t0 = std::chrono::steady_clock::now();
      json r = verify_json(s, serve_request(answer_fenced("SELECT 1"), g));
      double secs = seconds_since(t0);
      EXPECT_EQ(r["failure_reason"], "gold_execution_error") << bench << " " << r.dump();
      EXPECT_EQ(r["gold_cached"], false) << bench << " round " << round;
      EXPECT_GE(secs, 0.25) << bench << " round " << round << ": the gold was not executed again";
    }
  }
}

// Item 2: the reply echoes NeMo's task fields and `_ng_*` bookkeeping, but not megabytes of fields a
// client invented (a 1 MiB request used to come back with every unknown field).
TEST(ServeHostile, ReplyDoesNotEchoUnboundedUnknownFields) {
  HostileShop f;
  RewardServer s(f.opts());
  json req = serve_request(answer_fenced("SELECT name FROM item"), {{"gold_sql", "SELECT name FROM item"}});
  req["uuid"] = "u-1";
  req["metadata"] = {{"split", "dev"}};
  req["_ng_task_index"] = 7;
  req["_ng_rollout_index"] = 3;
  req["small_extra"] = "kept";
  for (int i = 0; i < 8; ++i) req["junk" + std::to_string(i)] = std::string(256 << 10, 'j');
  std::string body = req.dump();
  Reply r = s.verify(body);
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 300);
  json j = json::parse(r.body);
  EXPECT_EQ(j["reward"], 1.0);
  EXPECT_EQ(j["uuid"], "u-1");
  EXPECT_EQ(j["metadata"]["split"], "dev");
  EXPECT_EQ(j["_ng_task_index"], 7);
  EXPECT_EQ(j["_ng_rollout_index"], 3);
  EXPECT_EQ(j["instance_id"], "local901");
  EXPECT_TRUE(j.contains("response"));
  EXPECT_LT(r.body.size(), 100u << 10) << "request " << body.size() << " bytes, reply " << r.body.size();
  int junk = 0;
  for (int i = 0; i < 8; ++i) junk += j.contains("junk" + std::to_string(i));
  EXPECT_EQ(junk, 0);
  ASSERT_TRUE(j.contains("unechoed_fields"));
  EXPECT_EQ(j["unechoed_fields"].size(), 8u);
  EXPECT_EQ(j["small_extra"], "kept");  // small enough for the allowance
}
