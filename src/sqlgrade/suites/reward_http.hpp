#pragma once
// HTTP front end of the reward server (docs/serve.md).
#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

#include "sqlgrade/suites/reward_server.hpp"

namespace sqlgrade::reward {

// HTTP front end. Binds host:port (port 0 = any free port), calls on_listening(actual_port) once
// listening, then serves until stop_flag becomes true or SIGINT/SIGTERM arrive (graceful: no new
// connections, requests in progress finish). Returns 0 on a clean shutdown; throws on bind failure.
struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8000;
  size_t max_body_bytes = 32u << 20;
  unsigned http_threads = 0;  // 0 = max_concurrency + max_queue + 4
  bool handle_signals = true;
  bool log_requests = false;
};
int serve_http(RewardServer& server, const HttpOptions& http, const std::function<void(int)>& on_listening,
               std::atomic<bool>* stop_flag = nullptr);

}  // namespace sqlgrade::reward
