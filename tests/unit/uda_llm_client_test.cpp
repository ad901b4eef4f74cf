// LLM judge: the chat-completions client against a real HTTP server on loopback
// (tests/tools/fake_llm_server, started by each test): replies, API key, retries with backoff on
// 429/5xx, no retry on other 4xx, timeouts, the concurrency limit, unreachable servers.
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "sqlgrade/uda/judge/llm_client.hpp"
#include "test_support.hpp"
#include "tools/fake_llm_server.hpp"

using namespace sqlgrade;
using namespace sqlgrade::uda::judge;
using namespace sqlgrade::test;
using Clock = std::chrono::steady_clock;

namespace {

std::string write_script(const TempDir& t, const std::string& json) {
  fs::path p = t / "script.json";
  spit(p, json);
  return p.string();
}

LlmConfig cfg_for(const FakeLlmServer& s) {
  LlmConfig c;
  c.base_url = s.base_url();
  c.model = "test-model";
  c.timeout_s = 5;
  c.backoff_s = 0.01;
  c.max_backoff_s = 0.2;
  c.max_retries = 3;
  return c;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

TEST(UdaLlmClient, SendsAValidChatCompletionAndReadsTheReply) {
  REQUIRE_CURL();
  FakeLlmServer srv({"--default-reply", "**Yes**."});
  LlmClient cl(cfg_for(srv));
  EXPECT_EQ(cl.endpoint(), srv.base_url() + "/chat/completions");
  ChatReply r = cl.chat("system text", "user text", 8);
  ASSERT_TRUE(r.ok) << r.error;  // the server answers 400 to anything but a well-formed request
  EXPECT_EQ(r.content, "**Yes**.");
  EXPECT_EQ(r.http_status, 200);
  EXPECT_EQ(r.attempts, 1);
  auto st = server_stats(srv);
  EXPECT_EQ(st["chat_requests"], 1);
  EXPECT_EQ(st["prompts"]["user text"], 1);
  // A base URL that already names the endpoint is used as is; trailing slashes are fine.
  LlmConfig c2 = cfg_for(srv);
  c2.base_url = srv.base_url() + "/chat/completions";
  EXPECT_TRUE(LlmClient(c2).chat("s", "u", 8).ok);
  c2.base_url = srv.base_url() + "/";
  EXPECT_TRUE(LlmClient(c2).chat("s", "u", 8).ok);
}

TEST(UdaLlmClient, ApiKeyIsSentAsBearerAndA401IsNotRetried) {
  REQUIRE_CURL();
  FakeLlmServer srv({"--require-key", "sk-test-123"});
  LlmConfig c = cfg_for(srv);
  ChatReply r = LlmClient(c).chat("s", "u", 8);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.http_status, 401);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_NE(r.error.find("HTTP 401"), std::string::npos) << r.error;
  c.api_key = "sk-test-123";
  r = LlmClient(c).chat("s", "u", 8);
  EXPECT_TRUE(r.ok) << r.error;
}

TEST(UdaLlmClient, RetriesWith429AndRetryAfterThenSucceeds) {
  REQUIRE_CURL();
  TempDir t;
  FakeLlmServer srv({"--script", write_script(t, R"JS([{"contains": "", "status": 429, "times": 2, "retry_after": 1}])JS")});
  LlmConfig c = cfg_for(srv);
  c.max_backoff_s = 5;  // Retry-After: 1 must be honoured (it is above the 10 ms backoff)
  auto t0 = Clock::now();
  ChatReply r = LlmClient(c).chat("s", "u", 8);
  double took = seconds_since(t0);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.content, "YES");
  EXPECT_EQ(r.attempts, 3);
  EXPECT_GE(took, 1.9) << "Retry-After not honoured";
  auto st = server_stats(srv);
  EXPECT_EQ(st["by_status"]["429"], 2);
  EXPECT_EQ(st["by_status"]["200"], 1);
}

TEST(UdaLlmClient, ServerErrorsAreRetriedThenReported) {
  REQUIRE_CURL();
  TempDir t;
  FakeLlmServer srv({"--script", write_script(t, R"JS([{"contains": "flaky", "status": 503, "times": 1},
                                                    {"contains": "down", "status": 500}])JS")});
  LlmConfig c = cfg_for(srv);
  c.max_retries = 2;
  LlmClient cl(c);
  ChatReply ok = cl.chat("s", "flaky question", 8);
  EXPECT_TRUE(ok.ok) << ok.error;
  EXPECT_EQ(ok.attempts, 2);
  ChatReply bad = cl.chat("s", "down question", 8);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.attempts, 3);
  EXPECT_EQ(bad.http_status, 500);
  EXPECT_NE(bad.error.find("HTTP 500"), std::string::npos) << bad.error;
  EXPECT_NE(bad.error.find("3 attempts"), std::string::npos) << bad.error;
  EXPECT_EQ(cl.requests_sent(), 5u);
}

TEST(UdaLlmClient, BadRequestAndGarbageBodiesAreNotRetried) {
  REQUIRE_CURL();
  TempDir t;
  FakeLlmServer srv({"--script", write_script(t, R"JS([{"contains": "garbage", "raw_body": "<html>oops</html>"},
                                                    {"contains": "notfound", "status": 404}])JS")});
  LlmClient cl(cfg_for(srv));
  ChatReply g = cl.chat("s", "garbage", 8);
  EXPECT_FALSE(g.ok);
  EXPECT_EQ(g.attempts, 1);
  EXPECT_NE(g.error.find("not JSON"), std::string::npos) << g.error;
  ChatReply nf = cl.chat("s", "notfound", 8);
  EXPECT_FALSE(nf.ok);
  EXPECT_EQ(nf.attempts, 1);
  // max_tokens above what the judge ever asks for: the server rejects it with 400, not retried.
  ChatReply big = cl.chat("s", "u", 1000);
  EXPECT_FALSE(big.ok);
  EXPECT_EQ(big.http_status, 400);
  EXPECT_EQ(big.attempts, 1);
}

TEST(UdaLlmClient, ATimeoutEndsTheRequestAndIsRetriedBoundedly) {
  REQUIRE_CURL();
  FakeLlmServer srv({"--delay-ms", "20000"});
  LlmConfig c = cfg_for(srv);
  c.timeout_s = 0.3;
  c.max_retries = 1;
  auto t0 = Clock::now();
  ChatReply r = LlmClient(c).chat("s", "u", 8);
  double took = seconds_since(t0);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_NE(r.error.find("timeout"), std::string::npos) << r.error;
  EXPECT_GE(took, 0.55);
  EXPECT_LT(took, 3.0);
}

TEST(UdaLlmClient, ConcurrencyLimitHoldsAcrossThreads) {
  REQUIRE_CURL();
  FakeLlmServer srv({"--delay-ms", "150", "--threads", "32"});
  LlmConfig c = cfg_for(srv);
  c.concurrency = 3;
  LlmClient cl(c);
  std::atomic<int> ok{0};
  std::vector<std::thread> th;
  auto t0 = Clock::now();
  for (int i = 0; i < 12; ++i)
    th.emplace_back([&, i] {
      if (cl.chat("s", "q" + std::to_string(i), 8).ok) ++ok;
    });
  for (auto& x : th) x.join();
  double took = seconds_since(t0);
  EXPECT_EQ(ok, 12);
  auto st = server_stats(srv);
  EXPECT_LE(st["max_in_flight"].get<int>(), 3);
  EXPECT_GE(st["max_in_flight"].get<int>(), 2) << "requests were not concurrent at all";
  EXPECT_LE(st["connections"].get<int>(), 3) << "more connections than the limit (keep-alive handles leak)";
  EXPECT_GE(took, 0.58);  // 12 requests / 3 at a time × 150 ms
}

TEST(UdaLlmClient, UnreachableServerFailsFastWithTheReason) {
  REQUIRE_CURL();
  int port;
  {
    FakeLlmServer gone;
    port = gone.port();
  }  // stopped: the port now refuses connections
  LlmConfig c;
  c.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  c.model = "m";
  c.max_retries = 2;
  c.backoff_s = 0.01;
  auto t0 = Clock::now();
  ChatReply r = LlmClient(c).chat("s", "u", 8);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(r.http_status, 0);
  EXPECT_FALSE(r.error.empty());
  EXPECT_LT(seconds_since(t0), 3.0);
}
