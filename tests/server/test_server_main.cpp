// sqlgrade_test_server: a throwaway PostgreSQL or MariaDB (test_servers.hpp) for the Python tests and
// bench/bird_dialects.sh.
//   sqlgrade_test_server --kind postgresql|mariadb [--tcp-port N] [--load NAME=DUMP]...
// Starts the server, loads each dump into a new database NAME with the read-only login (sqlgrade db load),
// prints one JSON line — {"kind", "pid", "dir", "port", "admin_dsn", "readers": {NAME: URI},
// "start_seconds", "load_seconds": {NAME: s}} — then waits until its standard input closes (or SIGTERM /
// SIGINT), stops the server by its PID, removes its folder and exits. The server also stops when this
// process dies (PR_SET_PDEATHSIG).
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "test_servers.hpp"

namespace {
volatile sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }
}  // namespace

int main(int argc, char** argv) {
  using sqlgrade::testing::TestServer;
  std::string kind;
  int port = 0;
  std::vector<std::pair<std::string, std::string>> loads;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--kind") kind = v;
    else if (a == "--tcp-port") port = std::stoi(v);
    else if (a == "--load" && v.find('=') != std::string::npos) loads.emplace_back(v.substr(0, v.find('=')), v.substr(v.find('=') + 1));
    else {
      std::fprintf(stderr, "usage: sqlgrade_test_server --kind postgresql|mariadb [--tcp-port N] [--load NAME=DUMP]...\n");
      return 2;
    }
  }
  if (kind != "postgresql" && kind != "mariadb") {
    std::fprintf(stderr, "sqlgrade_test_server: --kind postgresql or mariadb\n");
    return 2;
  }
  ::signal(SIGTERM, on_signal);
  ::signal(SIGINT, on_signal);
  std::string why;
  bool skip = false;
  auto server = TestServer::start(kind == "postgresql" ? TestServer::Kind::PostgreSQL : TestServer::Kind::MariaDB, why, skip, port);
  if (!server) {
    std::fprintf(stderr, "sqlgrade_test_server: %s\n", why.c_str());
    return skip ? 77 : 1;
  }
  nlohmann::json out{{"kind", kind}, {"pid", server->pid()}, {"dir", server->dir()}, {"port", server->port()},
                     {"admin_dsn", server->admin_dsn(kind == "postgresql" ? "postgres" : "mysql")},
                     {"start_seconds", server->start_seconds()}, {"readers", nlohmann::json::object()},
                     {"load_seconds", nlohmann::json::object()}};
  try {
    for (auto& [name, dump] : loads) {
      out["readers"][name] = server->load(name, dump);
      out["load_seconds"][name] = server->load_seconds(name);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sqlgrade_test_server: loading failed: %s\n", e.what());
    return 1;
  }
  std::printf("%s\n", out.dump().c_str());
  std::fflush(stdout);
  char buf[256];
  while (!g_stop) {
    pollfd p{0, POLLIN, 0};
    if (poll(&p, 1, 200) > 0 && read(0, buf, sizeof buf) <= 0) break;  // stdin closed
  }
  return 0;  // ~TestServer stops the server
}
