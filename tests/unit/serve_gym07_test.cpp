// Issue 34 item 3: NeMo Gym 0.7's contract in the reward server.
//  * `response` echoed unmodified: the bytes the client sent, not a re-serialised copy (Gym PR #2703's
//    VerifierFixture compares the response it sent with the one verify returns);
//  * `reward_components` when asked (request field, or --reward-components): documented names, the
//    shaping terms and, with `verify`, the verification outcome as separate components;
//  * the extraction presets gym-bird-0.4 / gym-bird-0.7 with each version's failure codes (the
//    extraction itself is checked against Gym's own function in python/tests/hosts/test_gym_bird_presets.py).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "serve_proc.hpp"
#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/serve/server.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {


serve::ServerOptions bird_options(const ShopDbs& d) {
  serve::ServerOptions o;
  o.db_dir = d.dir;
  o.max_concurrency = 2;
  o.grader.timeout_s = 0.5;
  o.default_benchmark = "bird";
  return o;
}

}  // namespace

// The response object as sent — keys out of order, numbers spelled 1e2 and 1.50, escapes, spaces — is
// in the reply byte for byte (main re-serialised it: sorted keys, 100.0, 1.5, "é").
TEST(ServeGym07, ResponseEchoedByteForByte) {
  ShopDbs d;
  serve::RewardServer s(bird_options(d));
  const std::string response =
      R"({ "output": [{"type":"message","role":"assistant","content":[{"type":"output_text","text":"```sql\nSELECT name FROM item\n```  \u00e9"}]}],)"
      R"( "id" : "resp_1", "created_at": 1e2, "temperature": 1.50, "zz": [ ], "aa": {"b": null, "a": true} })";
  const std::string body = std::string(R"({"db_id": "shop", "gt_sql": "SELECT name FROM item", "response": )") + response +
                           R"(, "instance_id": "x1"})";
  serve::Reply r = s.verify(body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find("\"response\":" + response), std::string::npos) << r.body;
  json j = json::parse(r.body);
  EXPECT_EQ(j["reward"], 1.0);
  EXPECT_EQ(j["response"], json::parse(response));
  EXPECT_EQ(j["instance_id"], "x1");
  // A request without `response` (model_output) is unchanged; a duplicated key echoes the one graded.
  json plain = verify_json(s, {{"db_id", "shop"}, {"gt_sql", "SELECT 1"}, {"model_output", "```sql\nSELECT 1\n```"}});
  EXPECT_FALSE(plain.contains("response"));
  const std::string twice = R"({"db_id":"shop","gt_sql":"SELECT 1","response":{"output":[]},"response":{"output":[{"type":"message","content":[{"type":"output_text","text":"```sql\nSELECT 1\n```"}]}]}})";
  serve::Reply t = s.verify(twice);
  ASSERT_EQ(t.status, 200);
  EXPECT_EQ(json::parse(t.body)["reward"], 1.0);
  EXPECT_NE(t.body.find(R"("response":{"output":[{"type":"message")"), std::string::npos) << t.body;
}

TEST(ServeGym07, RewardComponentsWhenAsked) {
  ShopDbs d;
  serve::RewardServer s(bird_options(d));
  json base = serve_request("```sql\nSELECT name FROM item\n```", {{"gt_sql", "SELECT name FROM item"}});
  EXPECT_FALSE(verify_json(s, base).contains("reward_components"));  // not asked: the reply as before

  json asked = base;
  asked["reward_components"] = true;
  json j = verify_json(s, asked);
  EXPECT_EQ(j["reward_components"], json::parse(R"({"sql_acc":1.0,"sql_found":1.0,"sql_executed":1.0})"));
  EXPECT_FALSE(j.contains("reward_components_requested"));

  // With shaping: one term per outcome, the outcome's value where it applies; they sum to `score`.
  json shaped = serve_request("```sql\nSELECT nope FROM item\n```",
                              {{"gt_sql", "SELECT name FROM item"}, {"reward_components", true},
                               {"shaping", {{"correct", 1}, {"wrong_result", -0.25}, {"error", -0.5}, {"no_sql", -1}}}});
  j = verify_json(s, shaped);
  EXPECT_EQ(j["outcome"], "error");
  EXPECT_EQ(j["score"], -0.5);
  EXPECT_EQ(j["reward_components"], json::parse(R"({"sql_acc":0.0,"sql_found":1.0,"sql_executed":0.0,
      "shaping_correct":0.0,"shaping_wrong_result":0.0,"shaping_error":-0.5,"shaping_no_sql":0.0,"shaping_gold_error":0.0})"));

  // With verify: the verification outcome as its own components.
  json ver = serve_request("```sql\nSELECT name FROM item WHERE qty >= 0\n```",
                           {{"gt_sql", "SELECT name FROM item"}, {"reward_components", true}, {"verify", true}});
  j = verify_json(s, ver);
  const json& c = j["reward_components"];
  for (const char* k : {"sql_acc", "sql_found", "sql_executed", "sql_verified", "sql_refuted", "sql_unverified"})
    EXPECT_TRUE(c.contains(k)) << k << " " << c.dump();
  EXPECT_EQ(c["sql_acc"], 1.0);
  EXPECT_EQ(c["sql_refuted"], j["stage"] == "refuted" ? 1.0 : 0.0) << j["verify"].dump();
  EXPECT_EQ(c["sql_verified"], j["reward"]);

  // --reward-components: every reply carries them; a request can still say false.
  serve::ServerOptions o = bird_options(d);
  o.reward_components = true;
  serve::RewardServer always(o);
  EXPECT_TRUE(verify_json(always, base)["reward_components"].is_object());
  json no = base;
  no["reward_components"] = false;
  EXPECT_FALSE(verify_json(always, no).contains("reward_components"));
  json bad = base;
  bad["reward_components"] = "yes";
  EXPECT_EQ(s.verify(bad.dump()).status, 400);
}

// gym-bird-0.4: the SELECT 1 filler runs (and matches a gold whose result is that row), and Gym 0.4's
// codes; gym-bird-0.7: no block is no SQL, nothing runs, and 0.7's codes.
TEST(ServeGym07, PresetsAndTheirFailureCodes) {
  ShopDbs d;
  serve::RewardServer s(bird_options(d));
  auto with = [](const std::string& text, const std::string& gold, const json& extract) {
    return serve_request(text, {{"gt_sql", gold}, {"extract", extract}});
  };
  const std::string gold = "SELECT name FROM item";
  json j = verify_json(s, with("I do not know.", gold, {{"preset", "gym-bird-0.4"}}));
  EXPECT_EQ(j["extracted_sql"], "SELECT 1");
  EXPECT_EQ(j["extraction_source"], "filler");
  EXPECT_EQ(j["stage"], "different");
  EXPECT_EQ(j["failure_reason"], "no_sql_extracted");
  EXPECT_EQ(verify_json(s, with("no block", "SELECT 1", "gym-bird-0.4"))["reward"], 1.0);  // Gym 0.4's quirk, pinned
  EXPECT_EQ(verify_json(s, with("```sql\nSELECT id FROM item\n```", gold, "gym-bird-0.4"))["failure_reason"], "execution_error");
  EXPECT_EQ(verify_json(s, with("```sql\nSELECT nope\n```", gold, "gym-bird-0.4"))["failure_reason"], "execution_error");
  j = verify_json(s, with("```sql\nSELECT name -- the names\nFROM item\n```", gold, "gym-bird-0.4"));
  EXPECT_EQ(j["extracted_sql"], "SELECT name");  // 0.4's `--` eats to the end of the text (its quirk)
  EXPECT_EQ(j["failure_reason"], "execution_error");

  j = verify_json(s, with("I do not know.", gold, "gym-bird-0.7"));
  EXPECT_TRUE(j["extracted_sql"].is_null());
  EXPECT_EQ(j["stage"], "no_sql");
  EXPECT_EQ(j["failure_reason"], "no_sql_extracted");
  EXPECT_EQ(j["pred_executed"], false);
  j = verify_json(s, with("```sql\nSELECT name -- the names\nFROM item\n```", gold, "gym-bird-0.7"));
  EXPECT_EQ(j["reward"], 1.0);  // comments kept
  EXPECT_EQ(verify_json(s, with("```SQL\nSELECT id FROM item\n```", gold, "gym-bird-0.7"))["failure_reason"], "result_mismatch");
  EXPECT_EQ(verify_json(s, with("```sql\nSELECT nope\n```", gold, "gym-bird-0.7"))["failure_reason"], "execution_error");
  EXPECT_EQ(verify_json(s, with(std::string("```sql\n") + kRunaway + "\n```", gold, "gym-bird-0.7"))["failure_reason"],
            "execution_timeout");
  EXPECT_EQ(verify_json(s, with(std::string("```sql\n") + kRunaway + "\n```", gold, "sqlgrade"))["failure_reason"], "timeout");
  // sqlgrade's own order is the default: a bare SELECT is found as raw text.
  EXPECT_EQ(verify_json(s, serve_request("SELECT name FROM item", {{"gt_sql", gold}}))["reward"], 1.0);

  serve::Reply bad = s.verify(with("x", gold, "gym-bird-0.5").dump());
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("extract.preset"), std::string::npos) << bad.body;
}

// The server-wide preset (--extract-preset) applies to requests that name none.
TEST(ServeGym07, ServerPreset) {
  ShopDbs d;
  serve::ServerOptions o = bird_options(d);
  o.grader.extract.preset = ExtractPreset::GymBird07;
  serve::RewardServer s(o);
  json j = verify_json(s, serve_request("SELECT name FROM item", {{"gt_sql", "SELECT name FROM item"}}));
  EXPECT_EQ(j["stage"], "no_sql");
  EXPECT_EQ(answer::to_string(ExtractPreset::GymBird04), std::string("gym-bird-0.4"));
  EXPECT_EQ(answer::preset_from_name("gym-bird-0.7"), ExtractPreset::GymBird07);
  EXPECT_FALSE(answer::preset_from_name("gym-bird"));
}

// --failure-codes gym (the Gym folder's servers): failure_reason stays inside NeMo Gym's FailureCode of
// the server the reply stands in for — Gym validates a reply with that model, and sqlgrade's own codes
// (result_mismatch, timeout, refuted) failed it (spider2_lite's enum: none, no_sql_extracted,
// execution_error, gold_execution_error, unknown_error) — while `stage` keeps what happened.
TEST(ServeGym07, GymFailureCodesStayInsideGymsEnum) {
  ShopDbs d;
  serve::ServerOptions o = bird_options(d);
  o.grader.gym_failure_codes = true;
  serve::RewardServer s(o);
  auto reply = [&](const std::string& sql, json extra = json::object()) {
    json req = serve_request("```sql\n" + sql + "\n```", {{"gt_sql", "SELECT name FROM item"}});
    for (auto& [k, v] : extra.items()) req[k] = v;
    return verify_json(s, req);
  };
  json j = reply("SELECT name FROM item WHERE qty < 0");
  EXPECT_EQ(j["stage"], "different");
  EXPECT_EQ(j["failure_reason"], "execution_error");
  j = reply(kRunaway);
  EXPECT_EQ(j["stage"], "timeout");
  EXPECT_EQ(j["failure_reason"], "execution_error");
  j = reply("SELECT name FROM item WHERE qty >= 0", {{"verify", true}});
  EXPECT_EQ(j["stage"], "refuted") << j.dump();  // a negative qty separates them
  EXPECT_EQ(j["failure_reason"], "unknown_error");
  EXPECT_EQ(reply("SELECT name FROM item")["failure_reason"], "none");
  // gym-bird-0.7 keeps 0.7's own codes.
  j = reply("SELECT name FROM item WHERE qty < 0", {{"extract", "gym-bird-0.7"}});
  EXPECT_EQ(j["failure_reason"], "result_mismatch");
  // Without the option: sqlgrade's codes.
  serve::RewardServer plain(bird_options(d));
  json req = serve_request("```sql\nSELECT name FROM item WHERE qty < 0\n```", {{"gt_sql", "SELECT name FROM item"}});
  EXPECT_EQ(verify_json(plain, req)["failure_reason"], "result_mismatch");
  EXPECT_EQ(gym_failure_reason(ExtractPreset::Sqlgrade, VerdictStage::Refuted, false), std::string("unknown_error"));
  EXPECT_EQ(gym_failure_reason(ExtractPreset::Sqlgrade, VerdictStage::TooLarge, false), std::string("execution_error"));
}
