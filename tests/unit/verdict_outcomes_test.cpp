// Verdict outcomes that say what happened (issue 30, items 6 and 11): the stage of every verdict and
// its failure_reason from one table; a match refuted by `verify` has its own stage; a query that ran
// and returned other rows its own reason; gold alternatives verified against each gold they match;
// one table of label keys for /get_reward and /verify; a cut search reported as cut, rewarded by a
// policy; a database replaced at its path read again (connections, gold cache, the search's schema).
#include <gtest/gtest.h>

#include <chrono>
#include <algorithm>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/cancel.hpp"
#include "sqlgrade/serve/server.hpp"
#include "sqlgrade/verdict.hpp"
#include "sqlgrade/verdict/request.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

struct Shop {
  TempDir tmp;
  std::string dir = (tmp / "flat").string(), db = (tmp / "flat" / "shop.sqlite").string();
  std::string suite_root = (tmp / "nested").string(), suite = (tmp / "nested" / "shop").string();
  Shop() {
    make_sqlite(db, slurp(fixtures() + "/serve/shop.sql"));
    make_sqlite(suite + "/shop.sqlite", slurp(fixtures() + "/serve/shop.sql"));
  }
};

VerdictRequest request(const std::string& db, const std::string& gold, const std::string& sql, const char* bench = "bird") {
  VerdictRequest r;
  r.benchmark = bench;
  r.db = db;
  r.gold_sql = gold;
  r.sql = sql;
  return r;
}

// Every price of the fixture is above 1: this prediction matches the gold on the database, and a row
// priced 1 or less refutes it.
const char* kFilteredGold = "SELECT name FROM item WHERE price > 1";
const char* kUnfiltered = "SELECT name FROM item";

}  // namespace

TEST(VerdictOutcomes, FailureReasonIsOneFunctionOfTheStage) {
  const std::pair<VerdictStage, const char*> table[] = {
      {VerdictStage::Equal, "none"},           {VerdictStage::NoSql, "no_sql_extracted"},
      {VerdictStage::PredFailed, "execution_error"}, {VerdictStage::TooLarge, "execution_error"},
      {VerdictStage::Timeout, "timeout"},      {VerdictStage::GoldFailed, "gold_execution_error"},
      {VerdictStage::Different, "result_mismatch"}, {VerdictStage::Refuted, "refuted"},
      {VerdictStage::Unverified, "unverified"}};
  for (auto [stage, reason] : table) EXPECT_STREQ(failure_reason(stage), reason) << to_string(stage);

  Shop s;
  Grader v;
  const char* gold = "SELECT name FROM item WHERE qty > 1";
  struct Case {
    std::string sql;
    VerdictStage stage;
  };
  const Case cases[] = {{"SELECT name FROM item WHERE qty >= 2", VerdictStage::Equal},
                        {"SELECT name FROM item", VerdictStage::Different},  // ran, other rows
                        {"SELECT nme FROM item", VerdictStage::PredFailed},
                        {";", VerdictStage::NoSql}};
  for (const Case& c : cases) {
    Verdict d = v.verdict(request(s.db, gold, c.sql));
    EXPECT_EQ(d.stage, c.stage) << c.sql;
    EXPECT_EQ(d.failure_reason, failure_reason(d.stage)) << c.sql;
    EXPECT_EQ(d.reward, d.stage == VerdictStage::Equal ? 1.0 : 0.0) << c.sql;
  }
  // The reply of /verify (and of the Python module, which makes the same call) carries the same.
  json r = verdicts::verdict_json(v, json{{"sql", "SELECT name FROM item"}, {"gold_sql", gold}}, s.db);
  EXPECT_EQ(r["stage"], "different");
  EXPECT_EQ(r["failure_reason"], "result_mismatch");  // was "execution_error", like a query that did not run
  EXPECT_EQ(r["pred_executed"], true);
}

TEST(VerdictOutcomes, ARefutedMatchHasItsOwnStageAndReason) {
  Shop s;
  Grader v;
  VerdictRequest r = request(s.db, kFilteredGold, kUnfiltered);
  r.verify = VerdictRequest::VerifyOption{};
  Verdict d = v.verdict(r);
  EXPECT_TRUE(d.execution_match);  // the official verdict
  EXPECT_EQ(d.reward, 0.0);
  EXPECT_EQ(d.stage, VerdictStage::Refuted);      // was Equal
  EXPECT_EQ(d.failure_reason, "refuted");         // was "none"
  EXPECT_EQ(d.outcome, VerdictOutcome::WrongResult);
  EXPECT_EQ(d.pred_executed, true);
  json j = verdicts::verdict_json(
      v, json{{"sql", kUnfiltered}, {"gold_sql", kFilteredGold}, {"benchmark", "bird"}, {"verify", true}}, s.db);
  EXPECT_EQ(j["stage"], "refuted");
  EXPECT_EQ(j["failure_reason"], "refuted");
  EXPECT_EQ(j["verify"]["status"], "refuted");
  EXPECT_EQ(j["reward"], 0.0);
}

// Item 11(a): with gold alternatives, any gold the prediction is equivalent to counts: a match refuted
// against g1 goes on to g2. Before, the first match decided: g1 matched on the database, the search
// refuted it against g1, reward 0 — while [g2] alone gave 1.
TEST(VerdictOutcomes, GoldAlternativesAreVerifiedAgainstEachGoldTheyMatch) {
  Shop s;
  Grader v;
  for (const char* bench : {"bird", "spider", "spider2"}) {
    const std::string db = std::string(bench) == "spider" ? s.suite : s.db;
    VerdictRequest r = request(db, kFilteredGold, kUnfiltered, bench);
    r.gold_sql_alternatives = {"SELECT name FROM item"};  // g2: the prediction itself
    r.verify = VerdictRequest::VerifyOption{};
    Verdict d = v.verdict(r);
    EXPECT_EQ(d.reward, 1.0) << bench << " " << d.failure_detail;
    EXPECT_EQ(d.stage, VerdictStage::Equal) << bench;
    EXPECT_EQ(d.gold_index, 1u) << bench;  // g2 decided
    ASSERT_TRUE(d.verify) << bench;
    EXPECT_NE(d.verify->status, "refuted") << bench;
    // [g2] alone: the same reward
    VerdictRequest alone = request(db, "SELECT name FROM item", kUnfiltered, bench);
    alone.verify = VerdictRequest::VerifyOption{};
    EXPECT_EQ(v.verdict(alone).reward, 1.0) << bench;
    // every matched gold refuted: the first refuted gold's verdict
    VerdictRequest both = request(db, kFilteredGold, kUnfiltered, bench);
    both.gold_sql_alternatives = {"SELECT nope FROM item", "SELECT name FROM item WHERE price >= 1.5"};
    both.verify = VerdictRequest::VerifyOption{};
    Verdict all = v.verdict(both);
    EXPECT_EQ(all.reward, 0.0) << bench;
    EXPECT_EQ(all.stage, VerdictStage::Refuted) << bench;
    EXPECT_EQ(all.gold_index, 0u) << bench;
  }
  // The JSON road (/verify, `sqlgrade rewards`, Python): the list form and alternative_answers.
  json b{{"sql", kUnfiltered}, {"gold_sql", {kFilteredGold, "SELECT name FROM item"}}, {"benchmark", "bird"},
         {"verify", true}};
  json j = verdicts::verdict_json(v, b, s.db);
  EXPECT_EQ(j["reward"], 1.0);
  EXPECT_EQ(j["gold_index"], 1);
  b["gold_sql"] = kFilteredGold;
  b["alternative_answers"] = {"SELECT name FROM item"};
  json k = verdicts::verdict_json(v, b, s.db);
  EXPECT_EQ(k["reward"], 1.0);
  EXPECT_EQ(k["gold_index"], 1);
  EXPECT_FALSE(k.contains("alternative_answers"));  // a gold, not echoed
}

// Item 11(c): a search that stops before its candidates run out found nothing it can vouch for: it
// is `unverified`, time_capped, and its reward is the request's policy.
TEST(VerdictOutcomes, ACutSearchIsReportedAsCutAndRewardedByThePolicy) {
  Shop s;
  Grader v;
  // equivalent: no candidate ever differs, so only the time cap can end a 10^7-candidate search
  VerdictRequest r = request(s.db, "SELECT name FROM item WHERE qty >= 0 AND price > 1",
                             "SELECT name FROM item WHERE price > 1 AND qty >= 0");
  r.verify = VerdictRequest::VerifyOption{0.05, 10'000'000, 0};
  Verdict kept = v.verdict(r);
  ASSERT_TRUE(kept.verify);
  EXPECT_EQ(kept.verify->status, "unverified");
  EXPECT_TRUE(kept.verify->time_capped);
  EXPECT_EQ(kept.reward, 1.0);  // on_unverified "match" (the default)
  EXPECT_EQ(kept.stage, VerdictStage::Equal);
  r.verify->on_unverified = VerdictRequest::VerifyOption::OnUnverified::Zero;
  Verdict zeroed = v.verdict(r);
  EXPECT_EQ(zeroed.verify->status, "unverified");
  EXPECT_EQ(zeroed.reward, 0.0);
  EXPECT_EQ(zeroed.stage, VerdictStage::Unverified);
  EXPECT_EQ(zeroed.failure_reason, "unverified");
  EXPECT_EQ(zeroed.outcome, VerdictOutcome::WrongResult);

  // Cut by the request's cancellation (the server's budget, a hang-up): before, its interrupted
  // candidate queries counted as "no difference" and the search answered no_counterexample,
  // time_capped false.
  r.verify = VerdictRequest::VerifyOption{60, 10'000'000, 0};
  CancelToken token(nullptr, CancelToken::Clock::now() + std::chrono::milliseconds(1500));
  Verdict cut;
  {
    CancelScope scope(&token);
    cut = v.verdict(r);
  }
  ASSERT_TRUE(cut.verify);
  EXPECT_TRUE(cut.execution_match) << cut.failure_detail;
  EXPECT_EQ(cut.verify->status, "unverified");
  EXPECT_TRUE(cut.verify->time_capped);
  EXPECT_LT(cut.timings.total_s, 30.0);  // the search stopped at the cancellation, not at its 60 s
}

TEST(VerdictOutcomes, TheVerifyPolicyIsCheckedWithOneLine) {
  for (const json& bad : {json{{"on_unverified", "always"}}, json{{"on_unverified", 1}}}) {
    try {
      verdicts::parse_request(json{{"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}, {"verify", bad}});
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("verify.on_unverified: must be \"match\" or \"zero\"", 0), 0u) << e.what();
    }
  }
  VerdictRequest r = verdicts::parse_request(
      json{{"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}, {"verify", {{"on_unverified", "zero"}}}});
  ASSERT_TRUE(r.verify);
  EXPECT_EQ(r.verify->on_unverified, VerdictRequest::VerifyOption::OnUnverified::Zero);
}

// Over the server: a /verify whose search the request budget cuts.
TEST(VerdictOutcomes, TheRequestBudgetCutsTheSearchAndTheReplySaysSo) {
  Shop s;
  serve::ServerOptions o;
  o.db_dir = s.dir;
  o.max_concurrency = 2;
  o.request_budget_s = 1.5;
  serve::RewardServer srv(o);
  json body{{"db_id", "shop"}, {"benchmark", "bird"}, {"sql", "SELECT name FROM item WHERE price > 1 AND qty >= 0"},
            {"gold_sql", "SELECT name FROM item WHERE qty >= 0 AND price > 1"},
            {"verify", {{"budget", 60}, {"candidates", 10000000}, {"on_unverified", "zero"}}}};
  serve::Reply rep = srv.verify(body.dump());
  ASSERT_EQ(rep.status, 200) << rep.body;
  json j = json::parse(rep.body);
  EXPECT_EQ(j["execution_match"], true);
  EXPECT_EQ(j["verify"]["status"], "unverified");  // was no_counterexample, time_capped false, reward 1
  EXPECT_EQ(j["verify"]["time_capped"], true);
  EXPECT_EQ(j["reward"], 0.0);
  EXPECT_EQ(j["stage"], "unverified");
}

// Item 11(b): /get_reward reads the library's one table of label keys, as /verify reads its fields.
TEST(VerdictOutcomes, GetRewardReadsEveryLabelKeyAsVerifyDoes) {
  Shop s;
  serve::ServerOptions o;
  o.db_dir = s.dir;
  o.spider_db_dir = s.suite_root;
  o.max_concurrency = 2;
  serve::RewardServer srv(o);
  struct Case {
    json label;
    std::string sql;
    double reward;  // what /verify gives
  };
  const Case cases[] = {
      // alternative_answers: the second gold matches (was dropped: 0.0)
      {json{{"gold_sql", "SELECT name FROM item WHERE qty = 0"}, {"alternative_answers", {kUnfiltered}}, {"benchmark", "bird"}},
       kUnfiltered, 1.0},
      // keep_distinct: a duplicate-free gold against a prediction with duplicates (was 1.0)
      {json{{"gold_sql", "SELECT DISTINCT item_id FROM sale"}, {"benchmark", "spider"}, {"keep_distinct", true}},
       "SELECT item_id FROM sale", 0.0},
      // verify: a refuted match (was 1.0)
      {json{{"gold_sql", kFilteredGold}, {"benchmark", "bird"}, {"verify", true}}, kUnfiltered, 0.0},
  };
  for (const Case& c : cases) {
    json label = c.label;
    label["db_id"] = "shop";
    json verify_body = label;
    verify_body["sql"] = c.sql;
    serve::Reply one = srv.verify(verify_body.dump());
    ASSERT_EQ(one.status, 200) << one.body;
    EXPECT_EQ(json::parse(one.body)["reward"], c.reward) << label;
    json batch{{"query", {"```sql\n" + c.sql + "\n```"}}, {"labels", {label}}};
    serve::Reply rep = srv.openrlhf(batch.dump());
    ASSERT_EQ(rep.status, 200) << rep.body;
    json j = json::parse(rep.body);
    EXPECT_EQ(j["rewards"][0], c.reward) << label << " " << j;
    EXPECT_EQ(j["scores"][0], c.reward) << label;
  }
  // the refuted match: the official verdict in sql_acc, the refutation in sql_refuted
  json batch{{"query", {kUnfiltered}}, {"labels", {json{{"gold_sql", kFilteredGold}, {"benchmark", "bird"},
                                                        {"verify", true}, {"db_id", "shop"}}}}};
  json j = json::parse(srv.openrlhf(batch.dump()).body);
  EXPECT_EQ(j["extra_logs"]["sql_acc"][0], 1.0);
  EXPECT_EQ(j["extra_logs"]["sql_refuted"][0], 1.0);
  EXPECT_EQ(j["extra_logs"]["sql_unverified"][0], 0.0);
  // a bad value of a label key is a 400 naming the label, with the /verify message
  json bad{{"query", {kUnfiltered}}, {"labels", {json{{"gold_sql", kFilteredGold}, {"db_id", "shop"}, {"verify", "yes"}}}}};
  serve::Reply r = srv.openrlhf(bad.dump());
  EXPECT_EQ(r.status, 400);
  const std::string msg = json::parse(r.body).value("error", "");
  EXPECT_EQ(msg.rfind("labels[0]: verify: must be", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(VerdictOutcomes, TheLabelTableIsTheVerifyFieldsPlusDbPath) {
  const auto& keys = verdicts::label_keys();
  for (const char* k : {"gold_sql", "alternative_answers", "db_path", "db_id", "verify", "keep_distinct", "plug_value",
                        "shaping", "order", "extract", "timeout", "gold_single_file"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
  json body = verdicts::label_body(json{{"db_path", "/x/y/shop.sqlite"}, {"gold_sql", "SELECT 1"}, {"question", "q?"},
                                        {"verify", true}});
  EXPECT_EQ(body, (json{{"db_id", "shop"}, {"gold_sql", "SELECT 1"}, {"verify", true}}));  // data keys left out
  EXPECT_THROW(verdicts::label_body(json{{"gold_sql", "SELECT 1"}}), InputError);
}

// Item 11(d): a database file replaced at its path is read again — renamed over it (a new inode) or
// rewritten in place — by the connection pool, the gold cache and the verify option's schema cache.
TEST(VerdictOutcomes, ADatabaseReplacedAtItsPathIsReadAgain) {
  TempDir t;
  const std::string db = (t / "n.sqlite").string(), next = (t / "next.sqlite").string();
  make_sqlite(db, "CREATE TABLE t(x INT); INSERT INTO t VALUES (1),(2),(3),(4),(5);");
  Grader v;
  VerdictRequest r = request(db, "SELECT count(*) FROM t", "SELECT 5");
  EXPECT_EQ(v.verdict(r).reward, 1.0);
  EXPECT_EQ(v.verdict(r).reward, 1.0);  // the gold cached, a connection pooled
  make_sqlite(next, "CREATE TABLE t(x INT); INSERT INTO t VALUES (1),(2);");
  std::filesystem::rename(next, db);  // replaced: another file at the same path
  Verdict after = v.verdict(r);
  EXPECT_EQ(after.reward, 0.0) << "graded from the old file";
  EXPECT_FALSE(after.gold_cached);
  r.sql = "SELECT 2";
  EXPECT_EQ(v.verdict(r).reward, 1.0);
  // rewritten in place (the same inode): read again too
  make_sqlite(next, "CREATE TABLE t(x INT); INSERT INTO t VALUES (7),(8),(9);");
  std::filesystem::copy_file(next, db, std::filesystem::copy_options::overwrite_existing);
  r.sql = "SELECT 3";
  EXPECT_EQ(v.verdict(r).reward, 1.0) << "graded from the old file";

  // The search's schema: the old file lets a price of 1 or less exist, the new one forbids it, so
  // the prediction without the filter is equivalent there.
  const std::string shop = (t / "shop.sqlite").string();
  make_sqlite(shop, "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL);"
                    "INSERT INTO item VALUES (1, 'apple', 1.5), (2, 'fig', 10.0);");
  VerdictRequest q = request(shop, kFilteredGold, kUnfiltered);
  q.verify = VerdictRequest::VerifyOption{5.0, 50, 0};
  EXPECT_EQ(v.verdict(q).verify->status, "refuted");
  make_sqlite(next, "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL NOT NULL CHECK (price > 1));"
                    "INSERT INTO item VALUES (1, 'apple', 1.5), (2, 'fig', 10.0);");
  std::filesystem::rename(next, shop);
  Verdict checked = v.verdict(q);
  ASSERT_TRUE(checked.verify);
  EXPECT_NE(checked.verify->status, "refuted") << "searched with the old schema: " << checked.verify->counterexample_json;
  EXPECT_EQ(checked.reward, 1.0);
}

// `sqlgrade rewards` (the same verdict_json as /verify): gold alternatives with `verify`, and the
// stage and reason of a refuted match and of other rows.
TEST(VerdictOutcomes, TheRewardsCommandCarriesTheOutcomes) {
  Shop s;
  TempDir t;
  const json lines[] = {
      {{"db_id", "shop"}, {"benchmark", "bird"}, {"sql", kUnfiltered}, {"gold_sql", {kFilteredGold, kUnfiltered}},
       {"verify", true}},
      {{"db_id", "shop"}, {"benchmark", "bird"}, {"sql", kUnfiltered}, {"gold_sql", kFilteredGold}, {"verify", true}},
      {{"db_id", "shop"}, {"benchmark", "bird"}, {"sql", "SELECT 1"}, {"gold_sql", kFilteredGold}},
  };
  std::string text;
  for (const json& l : lines) text += l.dump() + "\n";
  const std::string in = (t / "in.jsonl").string(), out = (t / "out.jsonl").string();
  spit(in, text);
  CliResult r = run_cli({"rewards", "--requests", in, "--db", s.dir, "--out", out});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::vector<json> got;
  std::istringstream replies(slurp(out));
  for (std::string line; std::getline(replies, line);) got.push_back(json::parse(line));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0]["reward"], 1.0);  // equivalent to the second gold
  EXPECT_EQ(got[0]["gold_index"], 1);
  EXPECT_EQ(got[1]["reward"], 0.0);
  EXPECT_EQ(got[1]["stage"], "refuted");
  EXPECT_EQ(got[1]["failure_reason"], "refuted");
  EXPECT_EQ(got[2]["stage"], "different");
  EXPECT_EQ(got[2]["failure_reason"], "result_mismatch");
}
