// Issue 34 item 4: saturation like NeMo Gym's shared pool (PR #3560). The queue is bounded in length
// (--max-queue, 503 at once) and in time (--queue-timeout: a request no worker took by then gets 503
// with Retry-After, never an unbounded wait); a request's budget (--request-budget) runs from when a
// worker takes it, and the reply says how long it queued (timings.queued_s, the header
// X-Sqlgrade-Queued-S). Each test fails on main before this change: the queued request waited for the
// worker (no 503), or its budget, started at admission, was spent in the queue.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <thread>

#include <nlohmann/json.hpp>

#include "serve_proc.hpp"
#include "sqlgrade/serve/server.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::test;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {



json runaway() { return serve_request(std::string("```sql\n") + kRunaway + "\n```", {{"gold_sql", "SELECT 1"}}); }
json normal() {
  return serve_request("```sql\nSELECT name FROM item ORDER BY id DESC\n```", {{"gold_sql", "SELECT name FROM item"}});
}

serve::ServerOptions one_worker(const ShopDbs& d, double timeout_s) {
  serve::ServerOptions o;
  o.db_dir = d.dir;
  o.max_concurrency = 1;
  o.max_queue = 8;
  o.grader.timeout_s = timeout_s;
  return o;
}

// Waits until the server has `n` requests in flight on its workers.
void wait_inflight(const serve::RewardServer& s, size_t n) {
  for (int i = 0; i < 400 && s.stats().inflight < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

}  // namespace

// One worker held by a runaway (3 s): a /verify queued behind it gets 503 at --queue-timeout (0.5 s),
// not a reply after 3 s; the reply says it saturated and how long it waited.
TEST(ServeSaturation, QueueTimeoutAnswers503) {
  ShopDbs d;
  serve::ServerOptions o = one_worker(d, 3);
  o.queue_timeout_s = 0.5;
  serve::RewardServer s(o);
  auto first = std::async(std::launch::async, [&] { return s.verify(runaway().dump()); });
  wait_inflight(s, 1);
  ASSERT_EQ(s.stats().inflight, 1u);
  auto t0 = Clock::now();
  serve::Reply r = s.verify(normal().dump());
  const double waited = since(t0);
  std::printf("[measure] queued behind a 3 s runaway, --queue-timeout 0.5: %d after %.3f s\n", r.status, waited);
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_NE(r.body.find("server saturated"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("--queue-timeout"), std::string::npos) << r.body;
  EXPECT_GE(waited, 0.45);
  EXPECT_LT(waited, 2.0);  // main: 200 after the runaway's 3 s
  EXPECT_GE(r.queued_s, 0.45);
  serve::Reply f = first.get();
  EXPECT_EQ(json::parse(f.body)["failure_reason"], "timeout");
  json h = s.health_json();
  EXPECT_EQ(h["saturated"], 1);
  EXPECT_EQ(h["queue_timeout_s"], 0.5);
  EXPECT_EQ(h["pending"], 0);  // the expired request's slot is free again
  // The worker pops the expired task and skips it: the next request is served, its wait reported.
  serve::Reply ok = s.verify(normal().dump());
  ASSERT_EQ(ok.status, 200) << ok.body;
  json j = json::parse(ok.body);
  EXPECT_EQ(j["reward"], 1.0);
  ASSERT_TRUE(j["timings"].contains("queued_s"));
  EXPECT_LT(j["timings"]["queued_s"].get<double>(), 0.5);
  EXPECT_GE(ok.queued_s, 0.0);
}

// --request-budget 1: a verify that waited ~1 s behind a runaway (cut by the same budget) still gets
// its whole budget once a worker takes it (main: 503 "budget exceeded before the request ran").
TEST(ServeSaturation, BudgetRunsFromDispatch) {
  ShopDbs d;
  serve::ServerOptions o = one_worker(d, 5);
  o.request_budget_s = 1;
  serve::RewardServer s(o);
  auto first = std::async(std::launch::async, [&] { return s.verify(runaway().dump()); });
  wait_inflight(s, 1);
  serve::Reply r = s.verify(normal().dump());
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  EXPECT_EQ(j["reward"], 1.0);
  const double queued = j["timings"]["queued_s"];
  std::printf("[measure] --request-budget 1 behind a runaway: queued %.3f s, then graded (reward 1)\n", queued);
  EXPECT_GE(queued, 0.8);
  EXPECT_NEAR(queued, r.queued_s, 1e-9);
  json f = json::parse(first.get().body);
  EXPECT_EQ(f["stage"], "timeout");  // the runaway itself is cut by its budget, from its dispatch
  EXPECT_NE(f["failure_detail"].get<std::string>().find("--request-budget"), std::string::npos);
}

// /execute and /get_reward say how long they queued too.
TEST(ServeSaturation, QueuedSecondsOnEveryQueuedEndpoint) {
  ShopDbs d;
  serve::RewardServer s(one_worker(d, 5));
  serve::Reply e = s.execute(R"({"db_id":"shop","sql":"SELECT 1"})");
  ASSERT_EQ(e.status, 200) << e.body;
  EXPECT_GE(json::parse(e.body)["timings"]["queued_s"].get<double>(), 0.0);
  json label = {{"gold_sql", "SELECT 1"}, {"db_id", "shop"}};
  json batch = {{"query", {"```sql\nSELECT 1\n```"}}, {"labels", {label}}};
  serve::Reply b = s.openrlhf(batch.dump());
  ASSERT_EQ(b.status, 200) << b.body;
  EXPECT_GE(json::parse(b.body)["queued_s"].get<double>(), 0.0);
}

// Over HTTP: the saturation 503 carries Retry-After and X-Sqlgrade-Queued-S; a 200 carries the header.
TEST(ServeSaturation, HttpSaturationHasRetryAfter) {
  ShopDbs d;
  TempDir t;
  ServerProc srv({"--db-dir", d.dir, "--max-concurrency", "1", "--timeout", "3", "--queue-timeout", "0.5"},
                 (t / "err").string());
  ASSERT_GT(srv.port, 0) << slurp(t / "err");
  auto first = std::async(std::launch::async, [&] {
    httplib::Client c("127.0.0.1", srv.port);
    c.set_read_timeout(10, 0);
    return c.Post("/verify", runaway().dump(), "application/json");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  httplib::Client c("127.0.0.1", srv.port);
  c.set_read_timeout(10, 0);
  auto t0 = Clock::now();
  auto r = c.Post("/verify", normal().dump(), "application/json");
  const double waited = since(t0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503) << r->body;
  EXPECT_EQ(r->get_header_value("Retry-After"), "1");
  ASSERT_TRUE(r->has_header("X-Sqlgrade-Queued-S"));
  EXPECT_GE(std::stod(r->get_header_value("X-Sqlgrade-Queued-S")), 0.45);
  EXPECT_LT(waited, 2.0);
  auto f = first.get();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, 200);
  EXPECT_TRUE(f->has_header("X-Sqlgrade-Queued-S"));
  auto h = c.Get("/health");
  ASSERT_TRUE(h);
  EXPECT_EQ(json::parse(h->body)["saturated"], 1);
  EXPECT_FALSE(h->has_header("X-Sqlgrade-Queued-S"));  // not a queued endpoint
}

// --queue-timeout takes the table of bounds' row `timeout`: NaN, 0, negatives and 1e300 are one line, exit 2.
TEST(ServeSaturation, QueueTimeoutFlagIsBounded) {
  ShopDbs d;
  for (const char* v : {"nan", "0", "-1", "1e300"}) {
    TempDir t;
    ServerProc srv({"--db-dir", d.dir, "--queue-timeout", v}, (t / "err").string());
    EXPECT_EQ(srv.port, 0) << v;
    EXPECT_EQ(srv.stop(SIGTERM, 10), 2) << v;
    const std::string err = slurp(t / "err");
    EXPECT_NE(err.find("--queue-timeout"), std::string::npos) << v << ": " << err;
  }
}
