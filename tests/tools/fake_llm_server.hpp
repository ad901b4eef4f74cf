#pragma once
// Test helper: starts tests/tools/fake_llm_server on 127.0.0.1 (ephemeral port) and stops it at
// destruction (closes its stdin, then SIGTERM to that one process id, then waits for it).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace sqlgrade::test {

class FakeLlmServer {
 public:
  explicit FakeLlmServer(std::vector<std::string> args = {}) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    std::vector<std::string> all = {SQLGRADE_FAKE_LLM, "--exit-on-eof"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    int rc = posix_spawn(&pid_, SQLGRADE_FAKE_LLM, &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    stdin_ = in[1];
    fcntl(stdin_, F_SETFD, FD_CLOEXEC);
    if (rc != 0) {
      close(out[0]);
      throw std::runtime_error("cannot start " + std::string(SQLGRADE_FAKE_LLM));
    }
    // Read "PORT <n>\n" (10 s at most).
    std::string line;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{out[0], POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      char buf[64];
      ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      line.append(buf, static_cast<size_t>(n));
    }
    close(out[0]);
    if (line.rfind("PORT ", 0) != 0) {
      stop();
      throw std::runtime_error("fake_llm_server did not start: '" + line + "'");
    }
    port_ = std::stoi(line.substr(5));
  }
  ~FakeLlmServer() { stop(); }
  FakeLlmServer(const FakeLlmServer&) = delete;
  FakeLlmServer& operator=(const FakeLlmServer&) = delete;

  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

  void stop() {
    if (pid_ <= 0) return;
    if (stdin_ >= 0) close(stdin_);
    stdin_ = -1;
    int st = 0;
    for (int i = 0; i < 50; ++i) {  // graceful: EOF on stdin
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      usleep(20000);
    }
    kill(pid_, SIGTERM);
    for (int i = 0; i < 250; ++i) {  // 5 s, then force
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      usleep(20000);
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, &st, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int port_ = 0;
};

// Skips a test when the LLM client was built without libcurl.
#ifndef SQLGRADE_HAVE_CURL
#define REQUIRE_CURL() GTEST_SKIP() << "built without libcurl"
#else
#define REQUIRE_CURL() (void)0
#endif

// The fake server's own counters (GET /stats), or null when it does not answer.
inline nlohmann::json server_stats(const FakeLlmServer& s) {
  httplib::Client c("127.0.0.1", s.port());
  auto r = c.Get("/stats");
  if (!r || r->status != 200) return nullptr;
  return nlohmann::json::parse(r->body);
}

}  // namespace sqlgrade::test
