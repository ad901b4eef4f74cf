// The `verify` option of a verdict (RL rewards; docs/verify.md "For RL"): a match that a small search
// refutes earns reward 0 (execution_match stays the official verdict), an equivalent rewrite keeps 1,
// a verdict that did not ask carries nothing, and a bad `verify` field is a 400 with one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sqlgrade/serve/server.hpp"
#include "sqlgrade/verdict.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

struct OptionShop {
  TempDir tmp;
  std::string dir = (tmp / "flat").string(), db = (tmp / "flat" / "shop.sqlite").string();
  std::string suite = (tmp / "nested" / "shop").string();  // a Spider test-suite folder
  OptionShop() {
    make_sqlite(db, slurp(fixtures() + "/serve/shop.sql"));
    make_sqlite(suite + "/shop.sqlite", slurp(fixtures() + "/serve/shop.sql"));
  }
};

VerdictRequest request(const OptionShop& s, const std::string& gold, const std::string& sql) {
  VerdictRequest r;
  r.benchmark = "bird";
  r.db = s.db;
  r.gold_sql = gold;
  r.sql = sql;
  return r;
}

}  // namespace

TEST(VerdictVerify, ARefutedMatchEarnsNoReward) {
  OptionShop s;
  Grader v;
  // every price is above 1 here, so the prediction without the filter matches on this database
  VerdictRequest r = request(s, "SELECT name FROM item WHERE price > 1", "SELECT name FROM item");
  Verdict plain = v.verdict(r);
  EXPECT_EQ(plain.reward, 1.0);
  EXPECT_FALSE(plain.verify.has_value());
  r.verify = VerdictRequest::VerifyOption{};
  Verdict checked = v.verdict(r);
  EXPECT_TRUE(checked.execution_match);
  EXPECT_EQ(checked.reward, 0.0);
  ASSERT_TRUE(checked.verify.has_value());
  EXPECT_EQ(checked.verify->status, "refuted");
  const json cex = json::parse(checked.verify->counterexample_json);
  EXPECT_FALSE(cex["rows"].empty());
  EXPECT_NE(cex["gold_result"], cex["pred_result"]);
  EXPECT_LE(checked.verify->candidates, 50u + 60u);  // the default budget plus the bounded shrinking
}

TEST(VerdictVerify, EquivalentRewritesAndNonMatchesKeepTheirReward) {
  OptionShop s;
  Grader v;
  VerdictRequest r = request(s, "SELECT name FROM item WHERE qty >= 0 AND price > 1",
                             "SELECT name FROM item WHERE price > 1 AND qty >= 0");
  r.verify = VerdictRequest::VerifyOption{1.0, 40, 0};
  Verdict ok = v.verdict(r);
  EXPECT_EQ(ok.reward, 1.0);
  ASSERT_TRUE(ok.verify.has_value());
  EXPECT_EQ(ok.verify->status, "no_counterexample");
  EXPECT_EQ(ok.verify->candidates, 40u);
  r.sql = "SELECT 1";
  Verdict wrong = v.verdict(r);
  EXPECT_EQ(wrong.reward, 0.0);
  EXPECT_EQ(wrong.verify->status, "skipped");  // not a match: nothing to search
  r.sql = "SELECT name FROM item";  // a gold result alone has no query to run elsewhere
  r.gold_sql.reset();
  r.gold_result_json = json::array({json::array({json::array({"apple"}), json::array({"pear"}), json::array({"fig"}),
                                                 json::array({"kiwi"})})}).dump();
  Verdict rows = v.verdict(r);
  EXPECT_EQ(rows.reward, 1.0);
  EXPECT_EQ(rows.verify->status, "skipped");
  EXPECT_NE(rows.verify->reason.find("gold_sql"), std::string::npos);
}

TEST(VerdictVerify, SpiderSearchesTheQueriesAsTheTestSuiteRunsThem) {
  OptionShop s;
  Grader v;
  VerdictRequest r = request(s, "SELECT DISTINCT name FROM item", "SELECT name FROM item");
  r.benchmark = "spider";
  r.db = s.suite;  // the folder: the search starts from its shop.sqlite
  r.verify = VerdictRequest::VerifyOption{};
  Verdict d = v.verdict(r);  // the test-suite rule removes DISTINCT from both: never a difference
  EXPECT_EQ(d.reward, 1.0);
  EXPECT_EQ(d.verify->status, "no_counterexample");
  r.keep_distinct = true;  // kept: a duplicated name is a counterexample
  Verdict k = v.verdict(r);
  EXPECT_TRUE(k.execution_match);
  EXPECT_EQ(k.verify->status, "refuted");
  EXPECT_EQ(k.reward, 0.0);
}

TEST(VerdictVerify, TheHttpRequestFieldAndItsBadValues) {
  OptionShop s;
  serve::ServerOptions o;
  o.db_dir = s.dir;
  o.max_concurrency = 2;
  serve::RewardServer srv(o);
  json body{{"db_id", "shop"}, {"benchmark", "bird"}, {"sql", "SELECT name FROM item"},
            {"gold_sql", "SELECT name FROM item WHERE price > 1"}};
  json plain = json::parse(srv.verify(body.dump()).body);
  EXPECT_EQ(plain["reward"], 1.0);
  EXPECT_FALSE(plain.contains("verify"));
  body["verify"] = json{{"budget", 0.5}, {"candidates", 30}, {"seed", 7}};
  serve::Reply rep = srv.verify(body.dump());
  ASSERT_EQ(rep.status, 200) << rep.body;
  json j = json::parse(rep.body);
  EXPECT_EQ(j["reward"], 0.0);
  EXPECT_EQ(j["execution_match"], true);
  EXPECT_EQ(j["verify"]["status"], "refuted");
  EXPECT_EQ(j["verify"]["counterexample"]["seed"], 7);
  for (const json& bad : {json{{"budget", -1}}, json("yes"), json{{"rounds", 2}}, json{{"candidates", 0}}}) {
    body["verify"] = bad;
    serve::Reply r = srv.verify(body.dump());
    EXPECT_EQ(r.status, 400) << bad.dump() << " " << r.body;
    std::string msg = json::parse(r.body).value("error", "");
    EXPECT_NE(msg.find("verify"), std::string::npos) << msg;  // names the field
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
}
