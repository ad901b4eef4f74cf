#pragma once
// HTTP front end of the reward server (docs/serve.md): Boost.Beast on Boost.Asio, event-driven, so
// that no client holds a thread while it sends its request.
//
// Bounds, whatever a client sends:
//  * every request (request line, headers and body) must arrive within `request_timeout_s` of the
//    moment the server starts waiting for it, and each reply must be taken within `write_timeout_s`;
//    past that the connection is closed;
//  * the body is at most `max_body_bytes` on the wire (after chunked decoding) and again after
//    Content-Encoding gzip/deflate is inflated (413); other encodings get 415;
//  * headers at most 16 KiB (431);
//  * at most `max_connections` connections and `max_buffered_bytes` of request bodies and replies
//    held at once (http_registry.hpp). When either is reached, the connection that has waited longest
//    for its request to complete is closed to make room (an idle keep-alive connection or a slow
//    client), then the one whose reply has waited longest to be read; if none can go, the new
//    connection is closed (or the request, or the reply, becomes a 503). So a flood of slow clients,
//    or of clients that never read, cannot keep a new client, /health included, from being served.
//  * backpressure: a connection's next request is read only once its reply is written, so a client
//    that does not read makes the server produce nothing more for it;
//  * a client that hangs up while a worker prepares its reply cancels that request
//    (RewardServer::submit_async's token): its queries stop, a batch grades no further rollout.
//  * Range headers are ignored (replies are small JSON documents, never partial content).
// /health is answered on the I/O threads; /verify and /aggregate_metrics run on the verify workers.
#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

#include "sqlgrade/serve/server.hpp"

namespace sqlgrade::serve {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8000;
  size_t max_body_bytes = 16u << 20;
  size_t max_buffered_bytes = 256u << 20;  // raised to max_body_bytes when lower
  size_t max_connections = 512;
  double request_timeout_s = 30;
  double write_timeout_s = 10;   // a reply must be taken within this time (--write-timeout)
  double shutdown_grace_s = 2;   // SIGTERM: requests in progress may finish within this time
  unsigned io_threads = 2;
  bool handle_signals = true;
  // Called once per answered request ("METHOD /path STATUS"), from an I/O thread; null = silent.
  std::function<void(const std::string&)> log;
};

// Binds host:port (port 0 = any free port), calls on_listening(actual_port) once listening, then
// serves until stop_flag becomes true or SIGINT/SIGTERM arrive. The stop: no new connections,
// connections waiting for a request are closed, requests in progress get `shutdown_grace_s` to
// finish (a second signal ends the grace), then they are cancelled (RewardServer::cancel_all: queries
// interrupted, 503 to their clients) and 1 s later every connection still open is closed. Returns 0
// once the last worker has handed back its request; throws std::runtime_error on bind failure.
int serve_http(RewardServer& server, const HttpOptions& http, const std::function<void(int)>& on_listening,
               std::atomic<bool>* stop_flag = nullptr);

}  // namespace sqlgrade::serve
