// Loopback integration test: `sqlgrade serve` as a child process, driven over HTTP by concurrent
// clients with good, wrong, runaway and malicious SQL; queue bound (503); graceful shutdown.
#include <gtest/gtest.h>
#include <httplib.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

extern char** environ;

using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

// `sqlgrade serve --port 0 ...` in a child process; the port is read from its first stdout line.
struct ServerProc {
  pid_t pid = -1;
  int port = 0;
  int out_fd = -1;
  std::string err_path;

  ServerProc(const std::vector<std::string>& args, const std::string& err) : err_path(err) {
    int fds[2];
    if (pipe(fds) != 0) return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> all = {SQLGRADE_CLI, "serve", "--port", "0", "--host", "127.0.0.1"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    int rc = posix_spawn(&pid, SQLGRADE_CLI, &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    out_fd = fds[0];
    if (rc != 0) {
      pid = -1;
      return;
    }
    std::string line;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{out_fd, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      char buf[256];
      ssize_t n = read(out_fd, buf, sizeof buf);
      if (n <= 0) break;
      line.append(buf, static_cast<size_t>(n));
    }
    std::smatch m;
    if (std::regex_search(line, m, std::regex(R"(listening on http://127\.0\.0\.1:(\d+))"))) port = std::stoi(m[1]);
  }
  // Sends `sig` and waits (at most `secs`) for the exit; returns the exit code, or -1.
  int stop(int sig = SIGTERM, double secs = 15) {
    if (pid <= 0) return -1;
    kill(pid, sig);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
    while (std::chrono::steady_clock::now() < deadline) {
      int st = 0;
      pid_t r = waitpid(pid, &st, WNOHANG);
      if (r == pid) {
        pid = -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }
  ~ServerProc() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      int st;
      waitpid(pid, &st, 0);
    }
    if (out_fd >= 0) close(out_fd);
  }
};

struct Dbs {
  TempDir tmp;
  std::string dir, file;
  Dbs() {
    dir = (tmp / "dbs").string();
    file = (tmp / "dbs" / "shop.sqlite").string();
    make_sqlite(file, slurp(fixtures() + "/serve/shop.sql"));
  }
};

json request(const std::string& text, json extra) {
  json r = {{"responses_create_params", {{"input", json::array()}}},
            {"response",
             {{"output", json::array({{{"type", "message"},
                                       {"role", "assistant"},
                                       {"content", json::array({{{"type", "output_text"}, {"text", text}}})}}})}}},
            {"instance_id", "local901"},
            {"db_id", "shop"},
            {"question", "q"}};
  for (auto& [k, v] : extra.items()) r[k] = v;
  return r;
}

const char* kRunaway = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c";

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
      {"```sql\nSELECT name FROM item WHERE id = 1\n```", g, "execution_error"},
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

}  // namespace

TEST(ServeHttp, ConcurrentMixedRequestsOnLoopback) {
  Dbs d;
  std::string hash = file_hash(d.file);
  TempDir t;
  ServerProc srv({"--db-dir", d.dir, "--max-concurrency", "2", "--timeout", "0.3"}, (t / "err").string());
  ASSERT_GT(srv.port, 0) << slurp(t / "err");

  httplib::Client c("127.0.0.1", srv.port);
  auto h = c.Get("/health");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  EXPECT_EQ(json::parse(h->body)["status"], "ok");

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
        auto res = cl.Post("/verify", request(k.text, k.extra).dump(), "application/json");
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
  EXPECT_EQ(file_hash(d.file), hash);  // no attack changed the database

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
  auto unk = c.Post("/verify", request("SELECT 1", {{"db_id", "nope"}, {"gold_sql", "SELECT 1"}}).dump(), "application/json");
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
  EXPECT_NE(slurp(t / "err").find("stopped after 160 verifies"), std::string::npos) << slurp(t / "err");
  EXPECT_EQ(file_hash(d.file), hash);
}

TEST(ServeHttp, FullQueueAnswers503AndRecovers) {
  Dbs d;
  TempDir t;
  ServerProc srv({"--db-dir", d.dir, "--max-concurrency", "1", "--max-queue", "1", "--timeout", "1"}, (t / "err").string());
  ASSERT_GT(srv.port, 0) << slurp(t / "err");
  json slow = request(std::string("```sql\n") + kRunaway + "\n```", {{"gold_sql", "SELECT 1"}});
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
  auto ok = c.Post("/verify", request("```sql\nSELECT 1\n```", {{"gold_sql", "SELECT 1"}}).dump(), "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(json::parse(ok->body)["reward"], 1.0);
  EXPECT_EQ(srv.stop(SIGINT), 0);
}

TEST(ServeHttp, GracefulShutdownFinishesRequestInFlight) {
  Dbs d;
  TempDir t;
  ServerProc srv({"--db-dir", d.dir, "--timeout", "1", "--max-body-mb", "1"}, (t / "err").string());
  ASSERT_GT(srv.port, 0) << slurp(t / "err");
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
    auto res = cl.Post("/verify", request(std::string("```sql\n") + kRunaway + "\n```", {{"gold_sql", "SELECT 1"}}).dump(),
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
