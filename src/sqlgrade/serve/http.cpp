// HTTP front end of the reward server: Boost.Beast sessions on an Asio io_context (see reward_http.hpp
// for the bounds). Debian's cpp-httplib 0.11 could not give them: one thread per connection, a
// per-recv read timeout only (a client sending a header line every few seconds held a thread for
// ever), no connection cap besides the thread count, chunked bodies without a size check, gzip
// inflated before any check, and Range answered on POST.
#include "sqlgrade/serve/http.hpp"

#include <poll.h>
#include <signal.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <cstdio>
#include <array>
#include <chrono>
#include <cmath>
#include <csignal>
#include <list>
#include <memory>
#include <mutex>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>
#include <thread>
#include <vector>

#include "sqlgrade/serve/http_body.hpp"
#include "sqlgrade/serve/http_registry.hpp"
#include "sqlgrade/serve/wire.hpp"

namespace sqlgrade::serve {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using json = nlohmann::json;

namespace {

constexpr size_t kHeaderLimit = 16u << 10;                 // request line + headers (+ chunked trailers)
constexpr size_t kReadBufferLimit = kHeaderLimit + (64u << 10);  // bytes read but not parsed yet
constexpr auto kLinger = std::chrono::seconds(2);          // draining after an error reply (see linger())

struct Shared {
  RewardServer& server;
  const HttpOptions& opt;
  Registry registry;
  std::atomic<bool> stopping{false};
  std::atomic<size_t> inflight{0};  // replies still to come back from the verify workers
  std::chrono::steady_clock::duration timeout, write_timeout;
};

constexpr auto kHangupRecheck = std::chrono::milliseconds(100);  // see Session::check_hangup()

class Session : public Tracked, public std::enable_shared_from_this<Session> {
 public:
  Session(Shared& sh, tcp::socket&& socket)
      : sh_(sh),
        stream_(std::move(socket)),
        buf_(kReadBufferLimit),
        recheck_(stream_.get_executor()),
        write_timer_(stream_.get_executor()) {}
  ~Session() override { sh_.registry.gone(this); }

  void start() { net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_request(); }); }
  // From any thread: closes the connection (its pending read, wait or write fails and the session ends).
  void close_soon(bool abort) override {
    net::post(stream_.get_executor(), [self = shared_from_this(), abort] { abort ? self->abort_now() : self->close_now(); });
  }
  std::shared_ptr<void> keep_alive() override { return weak_from_this().lock(); }

 private:
  void read_request() {
    if (sh_.stopping) return close_now();
    if (buf_.size() == 0) buf_.shrink_to_fit();
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(sh_.opt.max_body_bytes);
    stream_.expires_after(sh_.timeout);  // one deadline for the whole request: headers and body
    sh_.registry.reading(this, true);
    http::async_read_header(stream_, buf_, *parser_, beast::bind_front_handler(&Session::on_header, shared_from_this()));
  }

  void on_header(beast::error_code ec, size_t) {
    if (ec) return on_read_error(ec);
    const auto& req = parser_->get();
    auto enc = req[http::field::content_encoding];
    coding_ = body_coding(std::string_view(enc.data(), enc.size()));
    if (coding_ == BodyCoding::Unsupported)
      return fail(415, "unsupported Content-Encoding '" + std::string(enc.data(), enc.size()) +
                           "' (accepted: gzip, deflate, identity)");
    auto expect = req[http::field::expect];
    if (!parser_->is_done() && beast::iequals(expect, "100-continue")) {
      cont_ = std::make_unique<http::response<http::empty_body>>(http::status::continue_, req.version());
      return http::async_write(stream_, *cont_, [self = shared_from_this()](beast::error_code e, size_t) {
        if (e) return self->close_now();
        self->read_body();
      });
    }
    read_body();
  }

  void read_body() {
    if (parser_->is_done()) return on_request();
    http::async_read_some(stream_, buf_, *parser_, beast::bind_front_handler(&Session::on_body, shared_from_this()));
  }

  void on_body(beast::error_code ec, size_t) {
    if (ec) return on_read_error(ec);
    switch (sh_.registry.hold(this, parser_->get().body().size())) {
      case Registry::Reserve::Ok: return read_body();
      case Registry::Reserve::Evicted: return close_now();
      case Registry::Reserve::Refused: return fail(503, "server busy: request bodies in transit fill --max-buffered-mb, retry later");
    }
  }

  void on_read_error(beast::error_code ec) {
    sh_.registry.reading(this, false);
    if (ec == http::error::body_limit)
      return fail(413, "request body over " + std::to_string(sh_.opt.max_body_bytes) + " bytes (--max-body-mb)");
    if (ec == http::error::header_limit) return fail(431, "request headers over 16 KiB");
    if (ec == beast::error::timeout) sh_.registry.timed_out();
    if (ec == beast::error::timeout || ec == http::error::end_of_stream || ec == http::error::partial_message ||
        ec == net::error::eof || ec == net::error::operation_aborted || ec == net::error::connection_reset ||
        ec == net::error::bad_descriptor)
      return close_now();
    fail(400, "malformed HTTP request: " + ec.message());
  }

  void on_request() {
    sh_.registry.reading(this, false);
    auto& req = parser_->get();
    method_ = req.method();
    std::string_view target(req.target().data(), req.target().size());
    path_ = std::string(target.substr(0, target.find('?')));
    version_ = req.version();
    keep_alive_ = req.keep_alive();
    std::string body = std::move(req.body());
    parser_.reset();
    if (coding_ == BodyCoding::Deflate) {
      std::string plain;
      switch (inflate_bounded(body, sh_.opt.max_body_bytes, &plain)) {
        case InflateResult::TooLarge:
          return fail(413, "decoded request body over " + std::to_string(sh_.opt.max_body_bytes) + " bytes (--max-body-mb)");
        case InflateResult::Invalid: return fail(400, "request body is not valid gzip/zlib data");
        case InflateResult::Ok: break;
      }
      body.swap(plain);
      plain = std::string();
      if (sh_.registry.hold(this, body.size()) != Registry::Reserve::Ok)
        return fail(503, "server busy: request bodies in transit fill --max-buffered-mb, retry later");
    }
    route(std::move(body));
  }

  void route(std::string body) {
    const bool get = method_ == http::verb::get, post = method_ == http::verb::post;
    if (path_ == "/health" && get) {
      json h = sh_.server.health_json();
      h["http"] = sh_.registry.stats();
      return reply(Reply{200, dump(h)});
    }
    // NeMo Gym reads the bare JSON string (FastAPI returning its ReverifyMode enum): a verdict depends
    // only on the request, so re-verifying a rollout is "stateless".
    if (path_ == "/reverify_mode" && get) return reply(Reply{200, R"("stateless")"});
    // A launcher's liveness probe (NeMo Gym polls GET /): 200, answered on the I/O thread.
    if (path_ == "/" && get) return reply(Reply{200, R"({"status":"ok","service":"sqlgrade serve","health":"/health"})"});
    if (path_ == "/seed_session" && post) return reply(Reply{200, "{}"});
    using Queued = RewardServer::Queued;
    static const std::pair<std::string_view, Queued> kQueued[] = {
        {"/verify", Queued::Verify},       {"/aggregate_metrics", Queued::AggregateMetrics},
        {"/execute", Queued::Execute},     {"/get_reward", Queued::OpenRlhf},
        {"/openrlhf", Queued::OpenRlhf}};
    auto endpoint = std::find_if(std::begin(kQueued), std::end(kQueued), [&](auto& e) { return e.first == path_; });
    const bool queued = endpoint != std::end(kQueued);
    if (queued && post) {
      ++sh_.inflight;
      awaiting_ = true;
      ++request_gen_;
      auto done = [self = shared_from_this(), &sh = sh_](Reply r) {
        net::post(self->stream_.get_executor(), [self, r = std::move(r)]() mutable { self->on_reply(std::move(r)); });
        --sh.inflight;
      };
      token_ = sh_.server.submit_async(endpoint->second, std::move(body), std::move(done));
      watch_hangup();  // `done` posts to this strand: on_reply() runs after this returns
      return;
    }
    bool known = path_ == "/" || path_ == "/health" || path_ == "/reverify_mode" || path_ == "/seed_session" || queued;
    if (known) return reply(error_reply(405, "method not allowed on " + path_));
    reply(error_reply(404, "no such endpoint: " + path_.substr(0, 200)));
  }

  // While a worker prepares the reply nothing is read, so the socket only becomes readable when the
  // client hangs up (FIN or reset) or pipelines its next request. A hang-up cancels the request: its
  // queries stop at the next progress tick and a batch grades no further rollout (nginx treats a
  // client's FIN the same way).
  void watch_hangup() {
    if (!awaiting_) return;
    stream_.socket().async_wait(tcp::socket::wait_read, [self = shared_from_this(), gen = request_gen_](beast::error_code ec) {
      if (!ec && self->awaiting_ && gen == self->request_gen_) self->check_hangup();
    });
  }
  void check_hangup() {
    pollfd p{stream_.socket().native_handle(), POLLIN | POLLRDHUP, 0};
    const int n = ::poll(&p, 1, 0);
    if (n > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
      hung_up_ = true;
      sh_.registry.hung_up();
      if (token_) token_->cancel();
      return close_now();
    }
    if (n > 0 && (p.revents & POLLIN)) {  // pipelined bytes: readability would fire at once, so poll
      recheck_.expires_after(kHangupRecheck);
      recheck_.async_wait([self = shared_from_this(), gen = request_gen_](beast::error_code ec) {
        if (!ec && self->awaiting_ && gen == self->request_gen_) self->check_hangup();
      });
      return;
    }
    watch_hangup();
  }
  void on_reply(Reply r) {
    awaiting_ = false;
    token_.reset();
    recheck_.cancel();
    if (hung_up_) return;  // closed already; nobody reads this reply
    beast::error_code ec;
    stream_.socket().cancel(ec);  // the hang-up wait
    reply(std::move(r));
  }

  // An error found while reading: the rest of the request is not read, the connection closes.
  void fail(int status, const std::string& message) {
    sh_.registry.reading(this, false);
    if (!version_) version_ = parser_ ? parser_->get().version() : 11;
    if (method_ == http::verb::unknown && parser_) method_ = parser_->get().method();
    if (path_.empty() && parser_) {
      auto t = parser_->get().target();
      path_ = std::string(t.data(), std::min<size_t>(t.size(), 200));
    }
    parser_.reset();
    keep_alive_ = false;
    drain_after_reply_ = true;
    reply(error_reply(status, message));
  }

  void reply(Reply r) {
    // The reply's bytes count against --max-buffered-mb until the client has taken them (in place of
    // the request body's). When they do not fit, the oldest unread reply gives way, else this one is
    // replaced by a 503: no set of clients that do not read makes the server hold more.
    switch (sh_.registry.hold(this, r.body.size())) {
      case Registry::Reserve::Ok: break;
      case Registry::Reserve::Evicted: return close_now();
      case Registry::Reserve::Refused:
        sh_.registry.release(this);
        r = error_reply(503, "server busy: replies not yet read by their clients fill --max-buffered-mb, retry later");
        break;
    }
    res_ = {};
    res_.version(version_ ? version_ : 11);
    res_.result(static_cast<unsigned>(r.status));
    res_.set(http::field::content_type, "application/json");
    if (r.status == 503) res_.set(http::field::retry_after, "1");
    if (r.queued_s >= 0) {  // a queued endpoint: how long the request waited for a worker
      char q[32];
      std::snprintf(q, sizeof q, "%.6f", r.queued_s);
      res_.set("X-Sqlgrade-Queued-S", q);
    }
    res_.body() = std::move(r.body);
    res_.keep_alive(keep_alive_ && !sh_.stopping);
    res_.prepare_payload();
    if (sh_.opt.log)
      sh_.opt.log(std::string(http::to_string(method_).data(), http::to_string(method_).size()) + " " + path_ + " " +
                  std::to_string(r.status));
    // The client must take its reply within --write-timeout. Our own timer rather than the stream's:
    // on expiry the connection is reset (abort_now), so the kernel drops the unsent rest at once.
    stream_.expires_never();
    write_timer_.expires_after(sh_.write_timeout);
    write_timer_.async_wait([self = shared_from_this(), gen = ++write_gen_](beast::error_code ec) {
      if (ec || !self->writing_ || gen != self->write_gen_) return;  // cancelled, or a later reply's
      self->sh_.registry.write_timed_out();
      self->abort_now();
    });
    sh_.registry.writing(this, true);
    writing_ = true;
    http::async_write(stream_, res_, [self = shared_from_this()](beast::error_code ec, size_t) {
      self->writing_ = false;
      self->write_timer_.cancel();
      self->sh_.registry.writing(self.get(), false);
      self->sh_.registry.release(self.get());
      bool again = !ec && self->res_.keep_alive();
      self->res_ = {};
      if (ec) return self->abort_now();  // timed out or failed: what is left of the reply is dropped
      if (!again) return self->drain_after_reply_ ? self->linger() : self->close_now();
      self->version_ = 0;
      self->path_.clear();
      self->read_request();
    });
  }

  // Closing right after an error reply, with request bytes still arriving, would make the kernel
  // answer them with a reset that can destroy the reply before the client reads it. So: send FIN,
  // read and drop what still comes for at most kLinger, then close. A lingering connection gives way
  // like one waiting for a request.
  void linger() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.expires_after(kLinger);
    sh_.registry.reading(this, true);
    drain();
  }
  void drain() {
    stream_.async_read_some(net::buffer(drain_), [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->close_now();
      self->drain();
    });
  }

  void close_now() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }
  // A reset instead of a FIN: the kernel drops the unsent rest of a reply at once instead of keeping
  // it (up to its send buffer) for a client that does not read.
  void abort_now() {
    beast::error_code ec;
    stream_.socket().set_option(net::socket_base::linger(true, 0), ec);
    stream_.close();
  }

  Shared& sh_;
  beast::tcp_stream stream_;
  beast::flat_buffer buf_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::unique_ptr<http::response<http::empty_body>> cont_;
  http::response<http::string_body> res_;
  BodyCoding coding_ = BodyCoding::Identity;
  http::verb method_ = http::verb::unknown;
  std::string path_;
  unsigned version_ = 0;
  bool keep_alive_ = false;
  bool drain_after_reply_ = false;  // the request was not read to its end (an error reply)
  std::array<char, 4096> drain_{};
  bool awaiting_ = false;  // a worker prepares this connection's reply
  bool hung_up_ = false;   // the client went away meanwhile
  uint64_t request_gen_ = 0;  // which queued request the hang-up watch belongs to
  std::shared_ptr<CancelToken> token_;  // cancels that request
  net::steady_timer recheck_;
  net::steady_timer write_timer_;  // --write-timeout of the reply being written
  bool writing_ = false;           // a reply is being written (the strand's view)
  uint64_t write_gen_ = 0;         // which reply the write timer belongs to
};

class Acceptor {
 public:
  Acceptor(net::io_context& ioc, Shared& sh) : ioc_(ioc), sh_(sh), acceptor_(net::make_strand(ioc)), retry_(ioc) {}

  int bind(const std::string& host, int port) {
    beast::error_code ec;
    auto addr = net::ip::make_address(host, ec);
    if (ec) throw std::runtime_error("cannot bind " + host + ": not an IP address");
    tcp::endpoint ep(addr, static_cast<unsigned short>(port));
    acceptor_.open(ep.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(ep, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) throw std::runtime_error("cannot bind " + host + ":" + std::to_string(port) + " (" + ec.message() + ")");
    return acceptor_.local_endpoint().port();
  }
  void start() { accept(); }
  void stop() {
    net::post(acceptor_.get_executor(), [this] {
      beast::error_code ec;
      acceptor_.close(ec);
      retry_.cancel();
    });
  }

 private:
  void accept() {
    acceptor_.async_accept(net::make_strand(ioc_), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
      if (ec) {  // e.g. out of file descriptors: try again shortly
        retry_.expires_after(std::chrono::milliseconds(50));
        retry_.async_wait([this](beast::error_code e) {
          if (!e && acceptor_.is_open()) accept();
        });
        return;
      }
      if (sh_.stopping) {
        beast::error_code ignored;
        socket.close(ignored);
      } else {
        socket.set_option(tcp::no_delay(true), ec);  // no 40 ms Nagle + delayed-ACK stall per reply
        auto session = std::make_shared<Session>(sh_, std::move(socket));
        if (sh_.registry.admit(session.get())) session->start();  // else the session closes its socket as it dies
      }
      accept();
    });
  }
  net::io_context& ioc_;
  Shared& sh_;
  tcp::acceptor acceptor_;
  net::steady_timer retry_;
};

volatile std::sig_atomic_t g_signals = 0;  // SIGINT/SIGTERM received
extern "C" void on_stop_signal(int) { g_signals = g_signals + 1; }

// `s` seconds as a clock duration; `fallback` when s is not a finite number > 0.
std::chrono::steady_clock::duration seconds(double s, double fallback) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s > 0 && std::isfinite(s) ? s : fallback));
}

constexpr auto kFlush = std::chrono::seconds(1);  // after the cancellation: time to send the last replies

// The stop: no new connections; connections waiting for a request close at once; requests in
// progress get `grace` to finish (a second SIGINT/SIGTERM ends it). Then the server cancels them:
// their queries stop at the next progress tick, a batch grades no further rollout, and each client
// gets a 503. kFlush later every connection still open is closed; the loop ends when the last
// worker has handed back its (cancelled) request.
void shut_down(Shared& sh, Acceptor& acceptor, std::chrono::steady_clock::duration grace) {
  using Clock = std::chrono::steady_clock;
  sh.stopping = true;
  acceptor.stop();
  sh.registry.close_waiting();
  const auto t0 = Clock::now();
  std::optional<Clock::time_point> cancelled_at;
  bool closed_all = false;
  while (sh.registry.connections() > 0 || sh.inflight > 0) {
    sh.registry.close_waiting();  // a keep-alive connection that just finished its reply
    const auto now = Clock::now();
    if (!cancelled_at && (now - t0 >= grace || g_signals > 1)) {
      sh.server.cancel_all();
      cancelled_at = now;
    }
    if (cancelled_at && !closed_all && now - *cancelled_at >= kFlush) {
      sh.registry.close_all();
      closed_all = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

int serve_http(RewardServer& server, const HttpOptions& http, const std::function<void(int)>& on_listening,
               std::atomic<bool>* stop_flag) {
  // The buffer bound holds at least one largest body (a reply larger than the bound becomes a 503:
  // the CLI lowers --max-reply-mb to it).
  const size_t buffered = std::max(http.max_buffered_bytes, http.max_body_bytes);
  Shared sh{server, http, Registry(std::max<size_t>(http.max_connections, 1), buffered),
            {false}, {0}, seconds(http.request_timeout_s, 30.0), seconds(http.write_timeout_s, 10.0)};

  net::io_context ioc;
  Acceptor acceptor(ioc, sh);
  int port = acceptor.bind(http.host, http.port);

  // SIGINT/SIGTERM only raise a flag (async-signal-safe); the loop below turns it into a stop.
  struct sigaction old_int {}, old_term {};
  if (http.handle_signals) {
    g_signals = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }

  auto work = net::make_work_guard(ioc);
  acceptor.start();
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < std::clamp(http.io_threads, 1u, 64u); ++i) threads.emplace_back([&ioc] { ioc.run(); });
  if (on_listening) on_listening(port);

  auto tick = [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
  while (!(stop_flag && *stop_flag) && !(http.handle_signals && g_signals > 0)) tick();
  shut_down(sh, acceptor, seconds(http.shutdown_grace_s, 0.0));
  work.reset();  // the threads end once the last closing connection is gone (every wait has a deadline)
  for (auto& t : threads) t.join();
  if (http.handle_signals) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
  return 0;
}

}  // namespace sqlgrade::serve
