// The reward server's part of the adversarial corpus (issue 12): tests/adversarial/not_a_query.sql
// (outputs that hold no statement, for every benchmark and extraction form) and
// tests/adversarial/reward_requests.jsonl (hostile verify / aggregate_metrics requests, each with the
// reply it must get). Run through RewardServer on the corpus database.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "safety_corpus.hpp"
#include "safety_server_fixture.hpp"
#include "sqlgrade/serve/server.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::test;
using json = nlohmann::json;

TEST(SafetyReward, NotAQueryScoresZeroForEveryBenchmarkAndExtraction) {
  auto stmts = load_adversarial({"not_a_query"});
  ASSERT_GE(stmts.size(), 15u);
  AdvServer s;
  auto wrappers = std::vector<std::pair<const char*, std::function<std::string(const std::string&)>>>{
      {"fenced", [](const std::string& q) { return "The query:\n```sql\n" + q + "\n```"; }},
      {"tag", [](const std::string& q) { return "<answer>" + q + "</answer>"; }},
      {"json", [](const std::string& q) { return json{{"answer", q}}.dump(); }},
  };
  int checked = 0;
  for (const char* bench : {"spider2", "spider", "bird"}) {
    const json golds[] = {{{"gold_sql", "SELECT name FROM people WHERE id < 0"}}, {{"gold_result", json::array({json::array()})}}};
    for (const json& gold : golds)
      for (auto& [wname, wrap] : wrappers)
        for (auto& st : stmts) {
          json req = gold;
          req["benchmark"] = bench;
          req["db_id"] = "adv";
          req["model_output"] = wrap(st.sql);
          serve::Reply r = s.server->verify(req.dump(-1, ' ', false, json::error_handler_t::replace));
          ASSERT_EQ(r.status, 200) << st.id() << " " << r.body.substr(0, 300);
          json j = json::parse(r.body);
          EXPECT_EQ(j["reward"], 0.0) << bench << " " << wname << " " << st.id();
          EXPECT_EQ(j["failure_reason"], "no_sql_extracted") << bench << " " << wname << " " << st.id() << " "
                                                             << j["failure_detail"];
          ++checked;
        }
  }
  EXPECT_GE(checked, static_cast<int>(stmts.size()) * 6);
}

TEST(SafetyReward, HostileRequestsGetTheirExpectedReplies) {
  std::ifstream in(adversarial_dir() + "/reward_requests.jsonl", std::ios::binary);
  ASSERT_TRUE(in) << "tests/adversarial/reward_requests.jsonl missing";
  AdvServer s;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    json c = json::parse(expand_placeholders(line));
    std::string name = c["name"], body = c["request"].dump();
    const json& e = c["expect"];
    serve::Reply r = c["endpoint"] == "verify" ? s.server->verify(body) : s.server->aggregate_metrics(body);
    ++n;
    EXPECT_EQ(r.status, e["status"].get<int>()) << name << ": " << r.body.substr(0, 300);
    if (r.status != 200) continue;
    json j = json::parse(r.body);
    if (e.contains("reward")) {
      EXPECT_EQ(j["reward"], e["reward"]) << name << ": " << j["failure_detail"];
    }
    if (e.contains("failure_reason")) {
      EXPECT_EQ(j["failure_reason"], e["failure_reason"]) << name;
    }
    if (e.contains("max_reply_bytes")) {
      EXPECT_LE(r.body.size(), e["max_reply_bytes"].get<size_t>()) << name;
    }
    if (e.contains("num_tasks")) {
      EXPECT_EQ(j["agent_metrics"]["num_tasks"], e["num_tasks"]) << name;
    }
  }
  EXPECT_GE(n, 15);
}
