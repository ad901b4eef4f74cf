#pragma once
// `sqlgrade serve` as a child process on a loopback port, plus raw-socket helpers, for the reward
// server's HTTP tests (serve_http_test.cpp, serve_hostile_http_test.cpp).
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/serve/server.hpp"
#include "test_support.hpp"

extern char** environ;

namespace sqlgrade::test {

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
    // SQLGRADE_TEST_SERVE_CLI runs the HTTP tests against another binary (e.g. the baseline, to show
    // that a regression test fails there).
    const char* other = std::getenv("SQLGRADE_TEST_SERVE_CLI");
    const std::string cli = other && *other ? other : SQLGRADE_CLI;
    std::vector<std::string> all = {cli, "serve", "--port", "0", "--host", "127.0.0.1"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    int rc = posix_spawn(&pid, cli.c_str(), &fa, nullptr, argv.data(), environ);
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
    const std::string marker = "listening on http://127.0.0.1:";
    size_t at = line.find(marker);
    if (at != std::string::npos) port = std::atoi(line.c_str() + at + marker.size());
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
  // A "VmHWM" (peak resident set) or "VmRSS" figure of the server process, in bytes (0 if unknown).
  size_t memory(const char* field = "VmHWM") const {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string key;
    while (in >> key) {
      if (key == std::string(field) + ":") {
        size_t kb = 0;
        in >> kb;
        return kb << 10;
      }
    }
    return 0;
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

// The fixture database of the HTTP tests: <tmp>/dbs/shop.sqlite.
struct ShopDbs {
  TempDir tmp;
  std::string dir, file;
  ShopDbs() {
    dir = (tmp / "dbs").string();
    file = (tmp / "dbs" / "shop.sqlite").string();
    make_sqlite(file, slurp(fixtures() + "/serve/shop.sql"));
  }
};

// The in-process server's reply to one /verify request, as JSON; a status other than expect_status fails
// the test.
inline nlohmann::json verify_json(serve::RewardServer& s, const nlohmann::json& req, int expect_status = 200) {
  serve::Reply r = s.verify(req.dump());
  EXPECT_EQ(r.status, expect_status) << r.body;
  return nlohmann::json::parse(r.body);
}

// A NeMo-shaped verify request whose model answer is `text`, plus the fields of `extra`.
inline nlohmann::json serve_request(const std::string& text, const nlohmann::json& extra) {
  using json = nlohmann::json;
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

// A plain TCP connection to 127.0.0.1:port (-1 when the connection fails).
inline int connect_loopback(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Writes all of `data` (no SIGPIPE); false when the peer closed or reset the connection.
inline bool send_all(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// Reads one HTTP response (headers, then Content-Length bytes) within `secs`; "" on timeout/close first.
inline std::string read_response(int fd, double secs) {
  std::string got;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
  while (std::chrono::steady_clock::now() < deadline) {
    size_t hdr = got.find("\r\n\r\n");
    if (hdr != std::string::npos) {
      size_t cl = got.find("Content-Length: ");
      if (cl == std::string::npos) cl = got.find("content-length: ");
      size_t want = cl != std::string::npos && cl < hdr ? std::strtoul(got.c_str() + cl + 16, nullptr, 10) : 0;
      if (got.size() >= hdr + 4 + want) return got.substr(0, hdr + 4 + want);
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    char buf[65536];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return "";
}

// The status code of a raw response ("HTTP/1.1 413 ..." -> 413), or -1.
inline int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.", 0) != 0 || response.size() < 12) return -1;
  return std::atoi(response.c_str() + 9);
}

// How many of `fds` the server has closed (EOF or reset), waiting at most `secs` in all.
inline int count_closed_by_peer(const std::vector<int>& fds, double secs) {
  std::vector<bool> closed(fds.size(), false);
  int n_closed = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
  do {
    for (size_t i = 0; i < fds.size(); ++i) {
      if (closed[i]) continue;
      char buf[4096];
      ssize_t n;
      while ((n = recv(fds[i], buf, sizeof buf, MSG_DONTWAIT)) > 0) {
      }
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
        closed[i] = true;
        ++n_closed;
      }
    }
    if (n_closed == static_cast<int>(fds.size())) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (std::chrono::steady_clock::now() < deadline);
  return n_closed;
}

}  // namespace sqlgrade::test
