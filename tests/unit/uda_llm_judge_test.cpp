// LLM judge against a real HTTP server on loopback (tests/tools/fake_llm_server): answers and their
// parsing, deduplication within a batch and across threads, the persistent cache (a second run makes
// no calls), failures degrading to recorded "no answer", giving up on a stalled server, the audit log
// and the per-query counts.
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <set>
#include <thread>

#include "sqlgrade/uda/judge/llm_judge.hpp"
#include "sqlgrade/core/text.hpp"
#include "test_support.hpp"
#include "tools/fake_llm_server.hpp"

using namespace sqlgrade;
using namespace sqlgrade::uda::judge;
using namespace sqlgrade::test;
using Clock = std::chrono::steady_clock;

namespace {

LlmJudgeOptions opts(const FakeLlmServer& s, const std::string& cache = "") {
  LlmJudgeOptions o;
  o.client.base_url = s.base_url();
  o.client.model = "judge-model";
  o.client.timeout_s = 5;
  o.client.backoff_s = 0.01;
  o.client.max_backoff_s = 0.05;
  o.client.max_retries = 1;
  o.cache_path = cache;
  return o;
}

Question cell(const std::string& col, const std::string& pred, const std::string& gold) {
  Question q;
  q.kind = QuestionKind::Cell;
  q.column = col;
  q.description = "desc of " + col;
  q.pred = {pred};
  q.gold = {gold};
  return q;
}

std::string script(const TempDir& t, const std::string& json) {
  spit(t / "script.json", json);
  return (t / "script.json").string();
}

}  // namespace

TEST(UdaLlmJudge, AnswersAreParsedPerKindAndCountsClamped) {
  REQUIRE_CURL();
  TempDir t;
  FakeLlmServer srv({"--script", script(t, R"JS([
      {"contains": "Extracted value: LA Lakers", "reply": "**Yes**."},
      {"contains": "Extracted value: Chicago Bulls", "reply": "No, a different team."},
      {"contains": "Extracted items (2)", "reply": "There are 5 matches"},
      {"contains": "Extracted value: hmm", "reply": "I am not sure"}])JS")});
  LlmJudge jd(opts(srv));
  EXPECT_EQ(jd.name(), "llm");
  EXPECT_EQ(jd.model(), "judge-model");
  Question multi;
  multi.kind = QuestionKind::MultiCount;
  multi.column = "awards";
  multi.pred = {"MVP", "ROY"};
  multi.gold = {"Most Valuable Player", "Rookie of the Year", "All-Star"};
  auto a = jd.ask({cell("team", "LA Lakers", "Los Angeles Lakers"), cell("team", "Chicago Bulls", "Boston Celtics"),
                   multi, cell("team", "hmm", "Boston Celtics")});
  ASSERT_EQ(a.size(), 4u);
  EXPECT_TRUE(a[0].answered && a[0].yes);
  EXPECT_EQ(a[0].raw, "**Yes**.");
  EXPECT_TRUE(a[1].answered);
  EXPECT_FALSE(a[1].yes);
  EXPECT_TRUE(a[2].answered);
  EXPECT_EQ(a[2].count, 2u);  // 5 clamped to min(|pred|, |gold|)
  EXPECT_FALSE(a[3].answered);  // unparsable: recorded, scored as no match
  EXPECT_EQ(a[3].raw, "I am not sure");
  auto s = jd.detailed_stats();
  EXPECT_EQ(s.questions, 4u);
  EXPECT_EQ(s.calls, 4u);
  EXPECT_EQ(s.unparsable, 1u);
  EXPECT_EQ(s.failures, 1u);
  EXPECT_EQ(jd.stats().calls, 4u);
}

TEST(UdaLlmJudge, IdenticalQuestionsAreAskedOncePerRun) {
  REQUIRE_CURL();
  FakeLlmServer srv;
  LlmJudge jd(opts(srv));
  std::vector<Question> qs = {cell("team", "LAL", "Lakers"), cell("team", "LAL", "Lakers"), cell("team", "BOS", "Celtics"),
                              cell("team", "LAL", "Lakers"), cell("city", "LAL", "Lakers")};  // other column: other question
  auto a = jd.ask(qs);
  for (auto& x : a) EXPECT_TRUE(x.answered && x.yes);
  auto again = jd.ask({cell("team", "BOS", "Celtics")});
  EXPECT_TRUE(again[0].yes);
  auto s = jd.detailed_stats();
  EXPECT_EQ(s.questions, 6u);
  EXPECT_EQ(s.calls, 3u);
  EXPECT_EQ(s.deduplicated, 3u);
  EXPECT_EQ(server_stats(srv)["chat_requests"], 3);
}

TEST(UdaLlmJudge, ThreadsSharingTheJudgeAskEachDistinctQuestionOnce) {
  REQUIRE_CURL();
  FakeLlmServer srv({"--delay-ms", "100", "--threads", "32"});
  auto o = opts(srv);
  o.client.concurrency = 4;
  LlmJudge jd(o);
  // 8 threads, each asking the same 6 distinct questions (in different orders) plus one of its own.
  std::vector<std::thread> th;
  std::atomic<int> yes{0};
  for (int t = 0; t < 8; ++t)
    th.emplace_back([&, t] {
      std::vector<Question> qs;
      for (int k = 0; k < 6; ++k) qs.push_back(cell("c", "p" + std::to_string((k + t) % 6), "g"));
      qs.push_back(cell("c", "own" + std::to_string(t), "g"));
      for (auto& a : jd.ask(qs)) yes += a.answered && a.yes;
    });
  for (auto& x : th) x.join();
  EXPECT_EQ(yes, 8 * 7);
  auto st = server_stats(srv);
  EXPECT_EQ(st["chat_requests"], 14);  // 6 shared + 8 own
  EXPECT_EQ(st["distinct_prompts"], 14);
  EXPECT_LE(st["max_in_flight"].get<int>(), 4);
  auto s = jd.detailed_stats();
  EXPECT_EQ(s.calls, 14u);
  EXPECT_EQ(s.deduplicated, 8u * 7 - 14);
}

TEST(UdaLlmJudge, PersistentCacheMakesTheSecondRunFree) {
  REQUIRE_CURL();
  TempDir t;
  FakeLlmServer srv({"--script", script(t, R"JS([{"contains": "Extracted value: odd", "reply": "unclear"}])JS")});
  std::string cache = (t / "cache.sqlite").string();
  std::vector<Question> qs = {cell("team", "LAL", "Lakers"), cell("team", "odd", "Lakers"), cell("team", "LAL", "Lakers")};
  std::vector<Answer> first;
  {
    LlmJudge jd(opts(srv, cache));
    first = jd.ask(qs);
    EXPECT_EQ(jd.detailed_stats().calls, 2u);
    EXPECT_EQ(jd.detailed_stats().cache_hits, 0u);
  }
  EXPECT_EQ(server_stats(srv)["chat_requests"], 2);
  LlmJudge again(opts(srv, cache));
  auto second = again.ask(qs);
  EXPECT_EQ(server_stats(srv)["chat_requests"], 2) << "the second run must not call the server";
  auto s = again.detailed_stats();
  EXPECT_EQ(s.calls, 0u);
  EXPECT_EQ(s.cache_hits, 2u);
  EXPECT_EQ(s.deduplicated, 1u);
  ASSERT_EQ(second.size(), first.size());
  for (size_t i = 0; i < qs.size(); ++i) {
    EXPECT_EQ(second[i].answered, first[i].answered) << i;
    EXPECT_EQ(second[i].yes, first[i].yes) << i;
    EXPECT_EQ(second[i].raw, first[i].raw) << i;
  }
  EXPECT_FALSE(second[1].answered);  // the unparsable reply is cached as given and stays unparsable
  // Another model is another cache key.
  auto o = opts(srv, cache);
  o.client.model = "other-model";
  LlmJudge other(o);
  other.ask({qs[0]});
  EXPECT_EQ(other.detailed_stats().calls, 1u);
}

TEST(UdaLlmJudge, FailuresAreRecordedNotCachedAndNeverHang) {
  REQUIRE_CURL();
  TempDir t;
  FakeLlmServer srv({"--script", script(t, R"JS([{"contains": "Extracted value: broken", "status": 500}])JS")});
  std::string cache = (t / "cache.sqlite").string();
  JudgeLog log(t / "log.jsonl");
  auto o = opts(srv, cache);
  o.log = &log;
  {
    LlmJudge jd(o);
    auto a = jd.ask({cell("c", "broken", "g"), cell("c", "fine", "g"), cell("c", "broken", "g")});
    EXPECT_FALSE(a[0].answered);
    EXPECT_EQ(a[0].raw.rfind("no answer: HTTP 500", 0), 0u) << a[0].raw;
    EXPECT_TRUE(a[1].answered && a[1].yes);
    EXPECT_FALSE(a[2].answered);  // same question: remembered failure, not asked again in this run
    auto s = jd.detailed_stats();
    EXPECT_EQ(s.calls, 2u);
    EXPECT_EQ(s.requests, 3u);  // 1 retry of the 500
    EXPECT_EQ(s.errors, 1u);
    EXPECT_EQ(s.failures, 2u);
  }
  log.write();
  std::string text = slurp(t / "log.jsonl");
  std::vector<nlohmann::json> lines;
  for (auto& l : split(text, "\n"))
    if (!l.empty()) lines.push_back(nlohmann::json::parse(l));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["source"], "call");
  EXPECT_TRUE(lines[0]["verdict"].is_null());
  EXPECT_NE(lines[0]["error"].get<std::string>().find("HTTP 500"), std::string::npos);
  EXPECT_EQ(lines[1]["verdict"], "yes");
  EXPECT_EQ(lines[1]["pred"], "fine");
  EXPECT_EQ(lines[2]["source"], "dedup");
  // Next run: the failure was not cached, so it is asked again; the success comes from the cache.
  LlmJudge jd2(opts(srv, cache));
  jd2.ask({cell("c", "broken", "g"), cell("c", "fine", "g")});
  EXPECT_EQ(jd2.detailed_stats().calls, 1u);
  EXPECT_EQ(jd2.detailed_stats().cache_hits, 1u);
}

TEST(UdaLlmJudge, AStalledServerMakesTheJudgeGiveUpQuickly) {
  REQUIRE_CURL();
  FakeLlmServer srv({"--delay-ms", "30000"});
  auto o = opts(srv);
  o.client.timeout_s = 0.2;
  o.client.max_retries = 0;
  o.client.concurrency = 1;
  o.max_consecutive_failures = 2;
  LlmJudge jd(o);
  std::vector<Question> qs;
  for (int i = 0; i < 20; ++i) qs.push_back(cell("c", "p" + std::to_string(i), "g"));
  auto t0 = Clock::now();
  auto a = jd.ask(qs);
  double took = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_LT(took, 3.0);
  for (auto& x : a) EXPECT_FALSE(x.answered);
  auto s = jd.detailed_stats();
  EXPECT_EQ(s.errors, 2u);
  EXPECT_EQ(s.skipped, 18u);
  EXPECT_EQ(s.failures, 20u);
  EXPECT_NE(jd.disabled_reason().find("2 failed calls in a row"), std::string::npos) << jd.disabled_reason();
  EXPECT_NE(jd.summary().find("warning"), std::string::npos);
}

TEST(UdaLlmJudge, PerQueryCountsGoToTheOpenTrace) {
  REQUIRE_CURL();
  TempDir t;
  FakeLlmServer srv;
  std::string cache = (t / "c.sqlite").string();
  { LlmJudge warm(opts(srv, cache)); warm.ask({cell("c", "cached", "g")}); }
  LlmJudge jd(opts(srv, cache));
  QueryJudgeCounts outer_counts;
  {
    QueryTrace q1("Player/Select/q/1");
    jd.ask({cell("c", "new", "g"), cell("c", "new", "g"), cell("c", "cached", "g")});
    EXPECT_EQ(QueryTrace::current(), &q1);
    outer_counts = q1.counts;
  }
  EXPECT_EQ(QueryTrace::current(), nullptr);
  EXPECT_EQ(outer_counts.questions, 3u);
  EXPECT_EQ(outer_counts.calls, 1u);
  EXPECT_EQ(outer_counts.deduplicated, 1u);
  EXPECT_EQ(outer_counts.cache_hits, 1u);
  EXPECT_EQ(outer_counts.failures, 0u);
}

TEST(UdaLlmJudge, LoggingJudgeRecordsRulesVerdicts) {
  TempDir t;
  JudgeLog log(t / "rules.jsonl");
  RulesJudge rules;
  LoggingJudge jd(rules, log);
  EXPECT_EQ(jd.name(), "rules");
  {
    QueryTrace q("Shop/Select/x/2");
    auto a = jd.ask({cell("name", "LBJ", "LeBron James")});
    EXPECT_TRUE(a[0].answered);
    EXPECT_FALSE(a[0].yes);
  }
  log.write();
  auto j = nlohmann::json::parse(slurp(t / "rules.jsonl"));
  EXPECT_EQ(j["query"], "Shop/Select/x/2");
  EXPECT_EQ(j["source"], "rules");
  EXPECT_EQ(j["verdict"], "no");
  EXPECT_EQ(j["kind"], "cell");
}
