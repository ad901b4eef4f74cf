// The RL rules of a verdict in the library (issue 20 item 4, issue 21 "reward shaping over HTTP"):
// gold alternatives (any match counts, the reply reports the gold that decided), the top-level
// ORDER BY rule, and reward shaping (the score of each outcome, from the structured stage) — through
// sqlgrade::Grader, the JSON request model and `sqlgrade serve` over HTTP (/verify, /get_reward).
// Before, these existed only in the Python package (sqlgrade/shaping.py, api.py).
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "serve_proc.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/verdict.hpp"
#include "sqlgrade/verdict/request.hpp"
#include "sqlgrade/verdict/shaping.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::test;
using json = nlohmann::json;
using sqlgrade::verdicts::has_top_level_order_by;

namespace {

json body(const std::string& sql, json gold_sql) {
  return json{{"sql", sql}, {"gold_sql", std::move(gold_sql)}, {"benchmark", "spider2"}};
}

json verdict(Grader& v, const ShopDbs& s, const json& b) { return verdicts::verdict_json(v, b, s.file); }

std::string bad_request(const json& b) {
  try {
    verdicts::parse_request(b);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(VerdictRules, TopLevelOrderByIgnoresNestingQuotesAndComments) {
  EXPECT_TRUE(has_top_level_order_by("SELECT a FROM t ORDER BY a"));
  EXPECT_TRUE(has_top_level_order_by("select a from t order\n -- why\n  by a desc"));
  EXPECT_TRUE(has_top_level_order_by("WITH c AS (SELECT 1 AS a) SELECT a FROM c ORDER /* x */ BY a"));
  EXPECT_FALSE(has_top_level_order_by("SELECT a FROM (SELECT a FROM t ORDER BY a)"));
  EXPECT_FALSE(has_top_level_order_by("SELECT rank() OVER (ORDER BY a) FROM t"));
  EXPECT_FALSE(has_top_level_order_by("SELECT 'ORDER BY' FROM t"));
  EXPECT_FALSE(has_top_level_order_by("SELECT \"order\" \"by\" FROM t"));
  EXPECT_FALSE(has_top_level_order_by("SELECT [order by] FROM t"));
  EXPECT_FALSE(has_top_level_order_by("SELECT 'it''s ORDER BY' FROM t"));
  EXPECT_FALSE(has_top_level_order_by("SELECT a FROM t -- ORDER BY a"));
  EXPECT_FALSE(has_top_level_order_by("SELECT border by FROM t"));      // words, not substrings
  EXPECT_FALSE(has_top_level_order_by("SELECT order, by FROM t"));      // a comma separates them
  EXPECT_FALSE(has_top_level_order_by("SELECT a FROM t ORDER BY_x"));  // BY_x is one word
  EXPECT_TRUE(has_top_level_order_by("SELECT a FROM t\u3000ORDER\u00a0BY a"));  // Unicode whitespace
  EXPECT_FALSE(has_top_level_order_by("SELECT a FROM t ORDER\u2026BY a"));       // '…' is no space
  EXPECT_FALSE(has_top_level_order_by("SELECT a FROM t ORDERé BY a"));           // é continues the word
  EXPECT_FALSE(has_top_level_order_by("SELECT a FROM (t ORDER BY"));              // unclosed: still nested
  EXPECT_TRUE(has_top_level_order_by("SELECT a FROM t) ORDER BY a"));             // depth never below 0
}

TEST(VerdictRules, GoldAlternativesAnyMatchCountsAndTheReplyNamesTheGold) {
  ShopDbs s;
  Grader v;
  const std::string pred = "SELECT name FROM item WHERE price > 5";
  const json golds = {"SELECT name FROM item WHERE qty = 0", "  ", "SELECT name FROM item WHERE price > 5"};
  json one = verdict(v, s, body(pred, golds[0]));
  EXPECT_EQ(one["reward"], 0.0);
  EXPECT_FALSE(one.contains("gold_index"));  // a request without alternatives: the reply as before
  json any = verdict(v, s, body(pred, golds));
  EXPECT_EQ(any["reward"], 1.0);
  EXPECT_EQ(any["gold_index"], 1);  // the blank entry is dropped: the second gold decided
  EXPECT_EQ(any["gold_sql"], golds[2]);
  json none = verdict(v, s, body("SELECT 1", golds));
  EXPECT_EQ(none["reward"], 0.0);
  EXPECT_EQ(none["gold_index"], 0);  // none matches: the first gold's verdict
  EXPECT_EQ(none["gold_sql"], golds[0]);
  EXPECT_EQ(none["stage"], "different");
  // A list of one is the plain gold; a failing first gold does not hide a matching second one.
  json listed = verdict(v, s, body(pred, json::array({golds[2]}))), plain = verdict(v, s, body(pred, golds[2]));
  listed.erase("timings"), plain.erase("timings");
  EXPECT_EQ(listed.dump(), plain.dump());
  json after_error = verdict(v, s, body(pred, {"SELECT nope FROM item", golds[2]}));
  EXPECT_EQ(after_error["reward"], 1.0);
  EXPECT_EQ(bad_request(body(pred, {"SELECT 1", 2})), "`gold_sql[1]` must be a string");
}

TEST(VerdictRules, OrderTopLevelDecidesPerGold) {
  ShopDbs s;
  Grader v;
  const std::string reversed = "SELECT name FROM item ORDER BY price";
  const std::string gold = "SELECT name FROM item ORDER BY price DESC";
  auto with = [](json b, const char* order) { return b["order"] = order, b; };
  EXPECT_EQ(verdict(v, s, body(reversed, gold))["reward"], 1.0);  // spider2 ignores order by default
  EXPECT_EQ(verdict(v, s, with(body(reversed, gold), "top_level"))["reward"], 0.0);
  EXPECT_EQ(verdict(v, s, with(body(reversed, gold), "benchmark"))["reward"], 1.0);
  const std::string nested = "SELECT name FROM (SELECT name, price FROM item ORDER BY price DESC)";
  EXPECT_EQ(verdict(v, s, with(body(reversed, nested), "top_level"))["reward"], 1.0);
  // the first alternative keeps its order (no match), the second has none (a match)
  const json golds = {"SELECT name FROM item WHERE qty > 100 ORDER BY price DESC", "SELECT name FROM item"};
  EXPECT_EQ(verdict(v, s, with(body(reversed, golds), "top_level"))["reward"], 1.0);
  json pinned = with(body(reversed, gold), "top_level");
  pinned["ignore_order"] = true;  // an explicit ignore_order wins
  EXPECT_EQ(verdict(v, s, pinned)["reward"], 1.0);
  json bird = with(body(reversed, gold), "top_level");
  bird["benchmark"] = "bird";  // set semantics whatever the rule
  EXPECT_EQ(verdict(v, s, bird)["reward"], 1.0);
  EXPECT_EQ(bad_request(with(body(reversed, gold), "always")), "`order` must be \"benchmark\" or \"top_level\"; got \"always\"");
}

TEST(VerdictRules, ShapingScoresEachOutcomeFromTheStage) {
  ShopDbs s;
  Grader v;
  const json shaping = {{"correct", 2.0}, {"wrong_result", 0.1}, {"error", -0.5}, {"no_sql", -1}, {"gold_error", 0.25}};
  const std::string gold = "SELECT name FROM item WHERE qty > 1";
  struct Case {
    json req;
    const char* outcome;
    double score;
  };
  const Case cases[] = {
      {body("SELECT name FROM item WHERE qty >= 2", gold), "correct", 2.0},
      {body("SELECT name FROM item", gold), "wrong_result", 0.1},
      {body("SELECT nme FROM item", gold), "error", -0.5},
      {json{{"model_output", "no idea"}, {"gold_sql", gold}}, "no_sql", -1.0},
      {body("SELECT 1", "SELECT nope"), "gold_error", 0.25},
  };
  for (const Case& c : cases) {
    json plain = verdict(v, s, c.req);
    EXPECT_FALSE(plain.contains("score")) << plain;  // no shaping asked: the reply as it always was
    json req = c.req;
    req["shaping"] = shaping;
    json shaped = verdict(v, s, req);
    EXPECT_EQ(shaped["outcome"], c.outcome) << shaped;
    EXPECT_DOUBLE_EQ(shaped["score"].get<double>(), c.score) << shaped;
    EXPECT_EQ(shaped["reward"], plain["reward"]);  // the official verdict is untouched
    EXPECT_FALSE(shaped.contains("shaping"));        // a grading input, not echoed
  }
  // Options left out keep their defaults (correct 1, the rest 0).
  json partial = body("SELECT name FROM item", gold);
  partial["shaping"] = {{"no_sql", -1}};
  EXPECT_EQ(verdict(v, s, partial)["score"], 0.0);
}

TEST(VerdictRules, ShapingFieldsAreCheckedAgainstTheTableOfBounds) {
  auto with = [](json shaping) { return json{{"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}, {"shaping", shaping}}; };
  EXPECT_EQ(bad_request(with({{"correct", "high"}})), "shaping.correct: must be a number in [-1000000, 1000000]; got \"high\"");
  EXPECT_EQ(bad_request(with({{"error", 1e300}})), "shaping.error: must be a number in [-1000000, 1000000]; got 1e+300");
  EXPECT_EQ(bad_request(with({{"wrong", 0.1}})),
            "`shaping`: unknown option 'wrong' (correct, wrong_result, error, no_sql, gold_error)");
  EXPECT_EQ(bad_request(with(0.5)), "`shaping` must be an object of correct, wrong_result, error, no_sql, gold_error");
  EXPECT_EQ(bad_request(with({{"no_sql", -1e6}})), "");
}

TEST(VerdictRules, TheCppApiTakesTheRulesAsFields) {
  ShopDbs s;
  Grader v;
  VerdictRequest r;
  r.db = s.file;
  r.sql = "SELECT name FROM item ORDER BY price";
  r.gold_sql = "SELECT name FROM item WHERE qty = 0";
  r.gold_sql_alternatives = {"SELECT name FROM item ORDER BY price DESC"};
  Verdict any = v.verdict(r);
  EXPECT_EQ(any.reward, 1.0);
  EXPECT_EQ(any.gold_index, 1u);
  EXPECT_EQ(any.outcome, VerdictOutcome::Correct);
  EXPECT_EQ(any.score, 1.0);
  r.order = OrderRule::TopLevel;
  r.shaping = RewardShaping{1.0, 0.1, 0.0, 0.0, 0.0};
  Verdict ordered = v.verdict(r);
  EXPECT_EQ(ordered.reward, 0.0);
  EXPECT_EQ(ordered.gold_index, 0u);
  EXPECT_EQ(ordered.stage, VerdictStage::Different);
  EXPECT_EQ(ordered.score, 0.1);
  EXPECT_STREQ(to_string(ordered.outcome), "wrong_result");
}

// Over HTTP: /verify takes the fields (same messages, 400), /get_reward's labels too.
TEST(ServeRules, VerifyAndGetRewardTakeTheRules) {
  ShopDbs s;
  TempDir t;
  ServerProc srv({"--db-dir", s.dir, "--max-concurrency", "2"}, (t / "err").string());
  ASSERT_GT(srv.port, 0) << slurp(t / "err");
  httplib::Client c("127.0.0.1", srv.port);
  auto post = [&](const char* path, const json& b) {
    auto r = c.Post(path, b.dump(), "application/json");
    return r ? std::make_pair(r->status, json::parse(r->body)) : std::make_pair(0, json());
  };
  json req = {{"db_id", "shop"}, {"sql", "SELECT name FROM item ORDER BY price"},
              {"gold_sql", {"SELECT name FROM item WHERE qty = 0", "SELECT name FROM item ORDER BY price DESC"}},
              {"order", "top_level"}, {"shaping", {{"wrong_result", 0.1}}}};
  auto [st, reply] = post("/verify", req);
  ASSERT_EQ(st, 200) << reply;
  EXPECT_EQ(reply["reward"], 0.0);
  EXPECT_EQ(reply["score"], 0.1);
  EXPECT_EQ(reply["outcome"], "wrong_result");
  EXPECT_EQ(reply["gold_index"], 0);
  req["order"] = "benchmark";
  EXPECT_EQ(post("/verify", req).second["gold_index"], 1);
  req["shaping"] = {{"correct", "x"}};
  auto [bad_st, bad] = post("/verify", req);
  EXPECT_EQ(bad_st, 400);
  EXPECT_EQ(bad["error"], "shaping.correct: must be a number in [-1000000, 1000000]; got \"x\"");

  json label = {{"db_id", "shop"}, {"gold_sql", {"SELECT 1", "SELECT name FROM item WHERE qty > 1"}},
                {"shaping", {{"wrong_result", 0.1}, {"no_sql", -1}}}};
  auto [gst, got] = post("/get_reward", json{{"query", {"```sql\nSELECT name FROM item WHERE qty >= 2\n```",
                                                        "```sql\nSELECT name FROM item\n```", "nothing"}},
                                             {"labels", {label, label, label}}});
  ASSERT_EQ(gst, 200) << got;
  EXPECT_EQ(got["rewards"], json::parse("[1.0, 0.1, -1.0]"));  // the shaped scores ...
  EXPECT_EQ(got["scores"], json::parse("[1.0, 0.0, 0.0]"));  // ... beside the official verdicts
  EXPECT_EQ(got["extra_logs"]["sql_acc"], got["scores"]);
  label["order"] = 3;
  auto [lst, lbad] = post("/get_reward", json{{"query", {"x"}}, {"labels", {label}}});
  EXPECT_EQ(lst, 400);
  EXPECT_EQ(lbad["error"], "labels[0]: `order` must be \"benchmark\" or \"top_level\"; got 3");
}

// `sqlgrade rewards`: the same replies as /verify's code, in order; a bad line is one error naming the
// file and line, exit 2, nothing written.
TEST(ServeRules, RewardsCommandGradesAFileOfVerifyBodies) {
  ShopDbs s;
  TempDir t;
  const json lines[] = {
      {{"db_id", "shop"}, {"sql", "SELECT name FROM item ORDER BY price"},
       {"gold_sql", {"SELECT name FROM item WHERE qty = 0", "SELECT name FROM item ORDER BY price DESC"}},
       {"shaping", {{"wrong_result", 0.1}}}},
      {{"db_id", "shop"}, {"sql", "SELECT name FROM item ORDER BY price"},
       {"gold_sql", "SELECT name FROM item ORDER BY price DESC"}, {"order", "top_level"},
       {"shaping", {{"wrong_result", 0.1}}}},
      {{"db_id", "shop"}, {"model_output", "no SQL here"}, {"gold_sql", "SELECT 1"}},
  };
  std::string text;
  for (const json& l : lines) text += l.dump() + "\n\n";  // blank lines are skipped
  const std::string in = (t / "in.jsonl").string(), out = (t / "out.jsonl").string();
  spit(in, text);
  CliResult r = run_cli({"rewards", "--requests", in, "--db", s.dir, "--out", out, "--jobs", "2"});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::vector<json> got;
  std::istringstream replies(slurp(out));
  for (std::string line; std::getline(replies, line);) got.push_back(json::parse(line));
  ASSERT_EQ(got.size(), 3u);
  Grader v;
  for (size_t i = 0; i < 3; ++i) {
    json want = verdicts::verdict_json(v, lines[i], s.file);
    want.erase("timings"), got[i].erase("timings"), want.erase("gold_cached"), got[i].erase("gold_cached");
    EXPECT_EQ(got[i], want) << i;
  }
  EXPECT_EQ(got[0]["gold_index"], 1);
  EXPECT_EQ(got[1]["score"], 0.1);

  spit(in, text + "{\"db_id\": \"nope\", \"sql\": \"SELECT 1\", \"gold_sql\": \"SELECT 1\", \"benchmark\": \"bird\"}\n");
  const std::string out2 = (t / "out2.jsonl").string();
  r = run_cli({"rewards", "--requests", in, "--db", s.dir, "--out", out2});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err, "sqlgrade: " + in + ":7: unknown db_id 'nope' (no database file for it under the database folder)\n");
  EXPECT_FALSE(std::filesystem::exists(out2));
  spit(in, "{\"db_id\": \"shop\", \"sql\": \"SELECT 1\", \"gold_sql\": \"SELECT 1\", \"order\": 1}\n");
  r = run_cli({"rewards", "--requests", in, "--db", s.dir});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err, "sqlgrade: " + in + ":1: `order` must be \"benchmark\" or \"top_level\"; got 1\n");
  EXPECT_EQ(r.out, "");
}
