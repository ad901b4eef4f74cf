// Loopback integration test: `sqlgrade serve` as a child process, driven over HTTP by concurrent
// clients with good, wrong, runaway and malicious SQL; queue bound (503); graceful shutdown.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "serve_proc.hpp"
#include "test_support.hpp"

using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {


struct Case {
  std::string text;
  json extra;
  std::string failure;
};

std::vector<Case> cases() {
  json g = {{"gold_sql", "SELECT name, price FROM item"}};
  json gr = {{"gold_result", json::array({json::array({json::array({"apple"}), json::array({"fig"})})})}};
  return {
      {"```sql\nSELECT price, name FROM item ORDER BY id DESC\n```", g, "none"},
      {"```sql\nSELECT name FROM item WHERE id = 1\n```", g, "result_mismatch"},
      {"Sorry, I cannot help.", g, "no_sql_extracted"},
      {"```sql\nSELECT missing_col FROM item\n```", g, "execution_error"},
      {std::string("```sql\n") + kRunaway + "\n```", g, "timeout"},
      {"```sql\nDROP TABLE item\n```", g, "execution_error"},
      {"```sql\nATTACH DATABASE 'x.sqlite' AS x\n```", g, "execution_error"},
      {"```sql\nSELECT name FROM item; DELETE FROM item\n```", g, "execution_error"},
      {"The answer: SELECT name FROM item WHERE id IN (1, 3)", gr, "none"},
      {"<answer>SELECT name FROM item WHERE code = 'A1' OR qty = 7</answer>", gr, "none"},
  };
}

// `sqlgrade serve --db-dir <the shop databases> <flags>`, its stderr kept in a temporary file.
struct ShopServer {
  ShopDbs d;
  std::string db_hash = file_hash(d.file);  // before the server starts
  TempDir t;
  ServerProc srv;
  explicit ShopServer(const std::vector<std::string>& flags) : srv(with_db_dir(d.dir, flags), (t / "err").string()) {}
  std::string err() const { return slurp(t / "err"); }

 private:
  static std::vector<std::string> with_db_dir(const std::string& dir, std::vector<std::string> flags) {
    flags.insert(flags.begin(), {"--db-dir", dir});
    return flags;
  }
};

}  // namespace

TEST(ServeHttp, ConcurrentMixedRequestsOnLoopback) {
  ShopServer s({"--max-concurrency", "2", "--timeout", "0.3"});
  ASSERT_GT(s.srv.port, 0) << s.err();
  ServerProc& srv = s.srv;
  const std::string& hash = s.db_hash;

  httplib::Client c("127.0.0.1", srv.port);
  auto h = c.Get("/health");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  EXPECT_EQ(json::parse(h->body)["status"], "ok");
  // NeMo Gym's contract (issue 21): GET /reverify_mode is the bare JSON string, as FastAPI returns its
  // ReverifyMode enum (Gym's `eval reverify` does ReverifyMode(response.json())); GET / answers 200.
  auto rv = c.Get("/reverify_mode");
  ASSERT_TRUE(rv);
  EXPECT_EQ(rv->status, 200);
  EXPECT_EQ(json::parse(rv->body), json("stateless"));
  auto root = c.Get("/");
  ASSERT_TRUE(root);
  EXPECT_EQ(root->status, 200);
  EXPECT_EQ(json::parse(root->body)["status"], "ok");

  auto cs = cases();
  const int kThreads = 8, kPerThread = 20;
  std::atomic<int> ok{0}, wrong{0};
  std::mutex mu;
  std::vector<std::string> problems;
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([&, th] {
      httplib::Client cl("127.0.0.1", srv.port);
      cl.set_read_timeout(30, 0);
      for (int i = 0; i < kPerThread; ++i) {
        const Case& k = cs[(th * 3 + i) % cs.size()];
        auto res = cl.Post("/verify", serve_request(k.text, k.extra).dump(), "application/json");
        std::string got = !res ? "no response" : res->status != 200 ? "HTTP " + std::to_string(res->status)
                                                                     : json::parse(res->body)["failure_reason"].get<std::string>();
        if (got == k.failure) {
          ok++;
        } else {
          wrong++;
          std::lock_guard<std::mutex> lk(mu);
          problems.push_back(k.text + " -> " + got + " (expected " + k.failure + ")");
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong, 0) << (problems.empty() ? "" : problems[0]);
  EXPECT_EQ(ok, kThreads * kPerThread);
  EXPECT_EQ(file_hash(s.d.file), hash);  // no attack changed the database

  auto hh = c.Get("/health");
  ASSERT_TRUE(hh);
  json hj = json::parse(hh->body);
  EXPECT_EQ(hj["verifies"], kThreads * kPerThread);
  EXPECT_GT(hj["gold_cache"]["hits"].get<int>(), 100);  // two distinct golds, executed/converted once each
  EXPECT_LE(hj["gold_cache"]["misses"].get<int>(), 4);

  // bad requests over HTTP
  auto bad = c.Post("/verify", "{oops", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  auto unk = c.Post("/verify", serve_request("SELECT 1", {{"db_id", "nope"}, {"gold_sql", "SELECT 1"}}).dump(), "application/json");
  ASSERT_TRUE(unk);
  EXPECT_EQ(unk->status, 400);
  auto nf = c.Get("/nothing-here");
  ASSERT_TRUE(nf);
  EXPECT_EQ(nf->status, 404);

  json agg = {{"verify_responses", json::array({{{"_ng_task_index", 0}, {"reward", 1.0}}, {{"_ng_task_index", 0}, {"reward", 0.0}}})}};
  auto am = c.Post("/aggregate_metrics", agg.dump(), "application/json");
  ASSERT_TRUE(am);
  ASSERT_EQ(am->status, 200);
  EXPECT_DOUBLE_EQ(json::parse(am->body)["agent_metrics"]["pass@2"].get<double>(), 1.0);

  EXPECT_EQ(srv.stop(SIGTERM), 0);
  EXPECT_NE(s.err().find("stopped after 160 verifies"), std::string::npos) << s.err();
  EXPECT_EQ(file_hash(s.d.file), hash);
}

TEST(ServeHttp, FullQueueAnswers503AndRecovers) {
  ShopServer s({"--max-concurrency", "1", "--max-queue", "1", "--timeout", "1"});
  ASSERT_GT(s.srv.port, 0) << s.err();
  ServerProc& srv = s.srv;
  json slow = serve_request(std::string("```sql\n") + kRunaway + "\n```", {{"gold_sql", "SELECT 1"}});
  const int kClients = 6;
  std::map<int, int> statuses;
  std::mutex mu;
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i)
    threads.emplace_back([&] {
      httplib::Client cl("127.0.0.1", srv.port);
      cl.set_read_timeout(30, 0);
      auto res = cl.Post("/verify", slow.dump(), "application/json");
      std::lock_guard<std::mutex> lk(mu);
      statuses[res ? res->status : -1]++;
      if (res && res->status == 503) {
        EXPECT_EQ(res->get_header_value("Retry-After"), "1");
      }
      if (res && res->status == 200) {
        EXPECT_EQ(json::parse(res->body)["failure_reason"], "timeout");
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_GE(statuses[503], 1);
  EXPECT_GE(statuses[200], 1);
  EXPECT_EQ(statuses[200] + statuses[503], kClients);
  httplib::Client c("127.0.0.1", srv.port);
  auto ok = c.Post("/verify", serve_request("```sql\nSELECT 1\n```", {{"gold_sql", "SELECT 1"}}).dump(), "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(json::parse(ok->body)["reward"], 1.0);
  EXPECT_EQ(srv.stop(SIGINT), 0);
}

TEST(ServeHttp, GracefulShutdownFinishesRequestInFlight) {
  ShopServer s({"--timeout", "1", "--max-body-mb", "1"});
  ASSERT_GT(s.srv.port, 0) << s.err();
  ServerProc& srv = s.srv;
  // an oversized body is refused without being buffered
  httplib::Client c("127.0.0.1", srv.port);
  auto big = c.Post("/verify", std::string(2 << 20, 'x'), "application/json");
  if (big) {
    EXPECT_EQ(big->status, 413);
  }
  int status = 0;
  std::string failure;
  std::thread th([&] {
    httplib::Client cl("127.0.0.1", srv.port);
    cl.set_read_timeout(30, 0);
    auto res = cl.Post("/verify", serve_request(std::string("```sql\n") + kRunaway + "\n```", {{"gold_sql", "SELECT 1"}}).dump(),
                       "application/json");
    if (res) {
      status = res->status;
      failure = json::parse(res->body)["failure_reason"];
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto t0 = std::chrono::steady_clock::now();
  int rc = srv.stop(SIGTERM);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  th.join();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(status, 200);  // the request in flight got its answer
  EXPECT_EQ(failure, "timeout");
  EXPECT_LT(secs, 10.0);
  // nothing listens any more
  httplib::Client after("127.0.0.1", srv.port);
  after.set_connection_timeout(1, 0);
  EXPECT_FALSE(after.Get("/health"));
}

// The endpoints added for issue 14 are routed, queued and answered over HTTP like /verify.
TEST(ServeHttp, ExecuteAndOpenRlhfRoutes) {
  ShopServer s({"--max-concurrency", "2", "--timeout", "0.3"});
  ASSERT_GT(s.srv.port, 0) << s.err();
  ServerProc& srv = s.srv;
  httplib::Client c("127.0.0.1", srv.port);
  auto e = c.Post("/execute", json{{"db_id", "shop"}, {"sql", "SELECT name FROM item ORDER BY id"}, {"max_rows", 2}}.dump(),
                  "application/json");
  ASSERT_TRUE(e);
  ASSERT_EQ(e->status, 200) << e->body;
  json ej = json::parse(e->body);
  EXPECT_EQ(ej["rows"], json::parse(R"([["apple"], ["pear"]])"));
  EXPECT_EQ(ej["truncated"], true);
  json label = {{"gold_sql", "SELECT name FROM item WHERE qty > 1"}, {"db_id", "shop"}};
  for (const char* path : {"/get_reward", "/openrlhf"}) {
    auto r = c.Post(path, json{{"query", {"p```sql\nSELECT name FROM item WHERE qty >= 2\n```", "p nothing"}},
                               {"prompts", {"p", "p"}}, {"labels", {label, label}}}.dump(),
                    "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(json::parse(r->body)["rewards"], json::parse("[1.0, 0.0]"));
  }
  auto bad = c.Post("/execute", "{\"db_id\": 1}", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  auto get = c.Get("/execute");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  auto v = c.Post("/verify", json{{"db_id", "shop"}, {"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}}.dump(), "application/json");
  ASSERT_TRUE(v);
  json vj = json::parse(v->body);
  EXPECT_EQ(vj["pred_executed"], true);
  EXPECT_TRUE(vj["timings"]["total_s"].is_number());
}
