// HTTP front end of the reward server (cpp-httplib).
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "sqlgrade/suites/reward_http.hpp"
#include "sqlgrade/suites/reward_wire.hpp"

namespace sqlgrade::reward {

using json = nlohmann::json;

namespace {

// Connection queue for httplib with a bound: when `max_pending` accepted connections wait for a
// thread, the accept loop blocks, so further clients wait in the kernel's listen backlog instead of
// in our memory.
class BoundedTaskQueue : public httplib::TaskQueue {
 public:
  BoundedTaskQueue(size_t threads, size_t max_pending) : max_pending_(max_pending) {
    for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { loop(); });
  }
  void enqueue(std::function<void()> fn) override {
    std::unique_lock<std::mutex> lk(mu_);
    space_.wait(lk, [&] { return jobs_.size() < max_pending_ || shutdown_; });
    jobs_.push_back(std::move(fn));
    lk.unlock();
    work_.notify_one();
  }
  void shutdown() override {
    {
      std::lock_guard<std::mutex> lk(mu_);
      shutdown_ = true;
    }
    work_.notify_all();
    space_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void loop() {
    while (true) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lk(mu_);
        work_.wait(lk, [&] { return shutdown_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      space_.notify_one();
      fn();
    }
  }
  std::mutex mu_;
  std::condition_variable work_, space_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t max_pending_;
  bool shutdown_ = false;
};

volatile std::sig_atomic_t g_signal_stop = 0;
extern "C" void on_stop_signal(int) { g_signal_stop = 1; }

}  // namespace

int serve_http(RewardServer& server, const HttpOptions& http, const std::function<void(int)>& on_listening,
               std::atomic<bool>* stop_flag) {
  const ServerOptions& so = server.options();
  size_t threads = http.http_threads ? http.http_threads : so.max_concurrency + so.max_queue + 4;
  threads = std::clamp<size_t>(threads, 2, 1024);

  // SIGINT/SIGTERM only raise a flag (async-signal-safe); a watcher thread turns it into stop().
  struct sigaction old_int {}, old_term {};
  if (http.handle_signals) {
    g_signal_stop = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }

  httplib::Server svr;
  svr.new_task_queue = [threads] { return new BoundedTaskQueue(threads, threads); };
  svr.set_payload_max_length(http.max_body_bytes);
  svr.set_tcp_nodelay(true);  // header and body go out in separate writes: avoid Nagle + delayed-ACK stalls (40 ms)
  svr.set_keep_alive_max_count(1000);
  svr.set_keep_alive_timeout(2);
  svr.set_read_timeout(30, 0);
  svr.set_write_timeout(30, 0);

  auto send = [](httplib::Response& res, const Reply& r) {
    res.status = r.status;
    if (r.status == 503) res.set_header("Retry-After", "1");
    res.set_content(r.body, "application/json");
  };
  svr.Post("/verify", [&](const httplib::Request& req, httplib::Response& res) { send(res, server.verify(req.body)); });
  svr.Post("/aggregate_metrics",
           [&](const httplib::Request& req, httplib::Response& res) { send(res, server.aggregate_metrics(req.body)); });
  svr.Get("/health", [&](const httplib::Request&, httplib::Response& res) { send(res, server.health()); });
  svr.Post("/seed_session", [&](const httplib::Request&, httplib::Response& res) { send(res, Reply{200, "{}"}); });
  svr.Get("/reverify_mode", [&](const httplib::Request&, httplib::Response& res) {
    send(res, Reply{200, R"({"reverify_mode":"stateless"})"});
  });
  svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string msg = "internal error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      msg += std::string(": ") + e.what();
    } catch (...) {
    }
    res.status = 500;
    res.set_content(error_reply(500, msg).body, "application/json");
  });
  if (http.log_requests)
    svr.set_logger([](const httplib::Request& req, const httplib::Response& res) {
      std::fprintf(stderr, "%s %s %d\n", req.method.c_str(), req.path.c_str(), res.status);
    });

  int port = http.port;
  if (port == 0) {
    port = svr.bind_to_any_port(http.host.c_str());
    if (port < 0) throw std::runtime_error("cannot bind " + http.host + " to a free port");
  } else if (!svr.bind_to_port(http.host.c_str(), port)) {
    throw std::runtime_error("cannot bind " + http.host + ":" + std::to_string(port) + " (in use?)");
  }

  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done) {
      if (stop_flag && *stop_flag) break;
      if (http.handle_signals && g_signal_stop) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // stop() is a no-op until listen_after_bind() runs: repeat until the listen loop has returned.
    while (!done) {
      svr.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  if (on_listening) on_listening(port);
  svr.listen_after_bind();
  done = true;
  watcher.join();
  if (http.handle_signals) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
  return 0;
}

}  // namespace sqlgrade::reward
