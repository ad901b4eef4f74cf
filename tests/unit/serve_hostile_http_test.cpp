// The reward server's HTTP layer against hostile clients (issue 12): chunked and gzip bodies over the
// limit, Range on POST, slow clients, bodies that stall, cache attacks. `sqlgrade serve` runs as a
// child process; its peak RSS comes from /proc/<pid>/status. Each test prints its measured figures
// ("[measure] ...", quoted in docs/safety.md).
#include <gtest/gtest.h>
#include <httplib.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve_proc.hpp"
#include "test_support.hpp"

using namespace sqlgrade::test;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kMemScale = 3;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr size_t kMemScale = 3;
#else
constexpr size_t kMemScale = 1;
#endif
#else
constexpr size_t kMemScale = 1;
#endif

double mib(size_t bytes) { return static_cast<double>(bytes) / kMiB; }

std::string fenced(const std::string& sql) { return "```sql\n" + sql + "\n```"; }
const json kGold = {{"gold_sql", "SELECT name FROM item"}};
std::string good_body() { return serve_request(fenced("SELECT name FROM item ORDER BY id DESC"), kGold).dump(); }

std::string post_head(const std::string& path, const std::string& headers) {
  return "POST " + path + " HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n" + headers + "\r\n";
}

// gzip of `prefix_spaces` spaces followed by `tail` (streamed: the plain text is never held).
std::string gzip_of(size_t prefix_spaces, const std::string& tail, int window_bits = 15 + 16) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, window_bits, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out, spaces(kMiB, ' ');
  char buf[1 << 16];
  auto feed = [&](const char* data, size_t n, int flush) {
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    zs.avail_in = static_cast<uInt>(n);
    do {
      zs.next_out = reinterpret_cast<Bytef*>(buf);
      zs.avail_out = sizeof buf;
      deflate(&zs, flush);
      out.append(buf, sizeof buf - zs.avail_out);
    } while (zs.avail_out == 0 || (flush == Z_FINISH && zs.avail_in > 0));
  };
  for (size_t left = prefix_spaces; left > 0;) {
    size_t n = std::min(left, spaces.size());
    feed(spaces.data(), n, Z_NO_FLUSH);
    left -= n;
  }
  feed(tail.data(), tail.size(), Z_FINISH);
  deflateEnd(&zs);
  return out;
}

// Sends `head` then `chunk` up to `times` times on a new connection while reading the reply; stops
// sending once a reply arrived or the server closed. Returns the reply ("" when none).
std::string send_until_answered(int port, const std::string& head, const std::string& chunk, size_t times) {
  int fd = connect_loopback(port);
  if (fd < 0) return "";
  std::atomic<bool> answered{false};
  std::thread writer([&] {
    if (!send_all(fd, head)) return;
    for (size_t i = 0; i < times && !answered; ++i)
      if (!send_all(fd, chunk)) return;
  });
  std::string reply = read_response(fd, 60);
  answered = true;
  shutdown(fd, SHUT_RDWR);
  writer.join();
  close(fd);
  return reply;
}

json body_of(const std::string& reply) {
  size_t at = reply.find("\r\n\r\n");
  return json::parse(at == std::string::npos ? std::string("null") : reply.substr(at + 4), nullptr, false);
}

}  // namespace

// Item 1: the body limit holds whatever the framing. Four clients each send 96 MiB chunked against a
// 1 MiB limit: each gets 413 after 1 MiB and the server never holds more.
TEST(ServeHostileHttp, ChunkedBodyOverTheLimitIs413) {
  ShopDbs d;
  TempDir t;
  ServerProc srv({"--db-dir", d.dir, "--max-body-mb", "1"}, (t / "err").string());
  ASSERT_GT(srv.port, 0) << slurp(t / "err");
  // a chunked request within the limit is served
  std::string body = good_body();
  char size_line[32];
  std::snprintf(size_line, sizeof size_line, "%zx\r\n", body.size());
  std::string small = send_until_answered(
      srv.port, post_head("/verify", "Transfer-Encoding: chunked\r\n") + size_line + body + "\r\n0\r\n\r\n", "", 0);
  ASSERT_EQ(status_of(small), 200) << small.substr(0, 300);
  EXPECT_EQ(body_of(small)["reward"], 1.0);

  size_t base = srv.memory();
  std::string chunk = "10000\r\n" + std::string(0x10000, ' ') + "\r\n";  // 64 KiB of JSON whitespace
  std::vector<int> statuses(4, 0);
  std::vector<std::thread> clients;
  auto t0 = Clock::now();
  for (int i = 0; i < 4; ++i)
    clients.emplace_back([&, i] {
      statuses[i] = status_of(send_until_answered(srv.port, post_head("/verify", "Transfer-Encoding: chunked\r\n"), chunk, 1536));
    });
  for (auto& c : clients) c.join();
  double secs = since(t0);
  size_t peak = srv.memory();
  for (int s : statuses) EXPECT_EQ(s, 413);
  EXPECT_LT(peak - std::min(peak, base), 48 * kMiB * kMemScale) << "peak RSS " << mib(peak) << " MiB, base " << mib(base);
  std::printf("[measure] chunked: 4 x 96 MiB against --max-body-mb 1: 413 each in %.2f s; server peak RSS %.1f MiB (%.1f before)\n",
              secs, mib(peak), mib(base));
}

// Item 1: a gzip body is inflated only up to --max-body-mb: 256 MiB of whitespace compressed to
// ~250 KB gets 413 (it used to be inflated whole: 2.7 GiB peak RSS). Gzip and zlib bodies within the
// limit are served; corrupt ones get 400, other codings 415.
TEST(ServeHostileHttp, GzipBombIs413AndInflatedOnlyToTheLimit) {
  ShopDbs d;
  TempDir t;
  ServerProc srv({"--db-dir", d.dir, "--max-body-mb", "1"}, (t / "err").string());
  ASSERT_GT(srv.port, 0) << slurp(t / "err");
  auto post_coded = [&](const std::string& coding, const std::string& data) {
    return send_until_answered(srv.port,
                               post_head("/verify", "Content-Encoding: " + coding + "\r\nContent-Length: " +
                                                        std::to_string(data.size()) + "\r\n") + data,
                               "", 0);
  };
  std::string gz = gzip_of(1000, good_body());
  std::string r = post_coded("gzip", gz);
  ASSERT_EQ(status_of(r), 200) << r.substr(0, 300);
  EXPECT_EQ(body_of(r)["reward"], 1.0);
  r = post_coded("deflate", gzip_of(10, good_body(), 15));  // zlib wrapper, as RFC 9110 defines deflate
  EXPECT_EQ(status_of(r), 200) << r.substr(0, 300);
  EXPECT_EQ(status_of(post_coded("gzip", gz.substr(0, gz.size() / 2))), 400);  // truncated
  EXPECT_EQ(status_of(post_coded("br", gz)), 415);

  size_t base = srv.memory();
  std::string bomb = gzip_of(256 * kMiB, good_body());
  std::vector<int> statuses(4, 0);
  std::vector<std::thread> clients;
  auto t0 = Clock::now();
  for (int i = 0; i < 4; ++i) clients.emplace_back([&, i] { statuses[i] = status_of(post_coded("gzip", bomb)); });
  for (auto& c : clients) c.join();
  double secs = since(t0);
  size_t peak = srv.memory();
  for (int s : statuses) EXPECT_EQ(s, 413);
  EXPECT_LT(peak - std::min(peak, base), 48 * kMiB * kMemScale) << "peak RSS " << mib(peak) << " MiB, base " << mib(base);
  std::printf("[measure] gzip bomb: 4 x %.0f KB inflating to 256 MiB, --max-body-mb 1: 413 each in %.2f s; "
              "server peak RSS %.1f MiB (%.1f before)\n",
              bomb.size() / 1024.0, secs, mib(peak), mib(base));
}

// Item 2: Range is ignored on POST. `Range: bytes=0-,0-,...` used to make cpp-httplib build a
// multipart reply with one copy of the reply per range (1 MiB request -> 2 GB reply).
TEST(ServeHostileHttp, RangeIsIgnoredOnPost) {
  ShopDbs d;
  TempDir t;
  ServerProc srv({"--db-dir", d.dir}, (t / "err").string());
  ASSERT_GT(srv.port, 0) << slurp(t / "err");
  json req = serve_request(fenced("SELECT name FROM item"), kGold);
  req["metadata"] = {{"note", std::string(200 << 10, 'm')}};  // echoed in full (a NeMo field)
  std::string body = req.dump(), ranges = "bytes=0-";
  for (int i = 0; i < 1500; ++i) ranges += ",0-";
  size_t base = srv.memory();
  std::string r = send_until_answered(
      srv.port, post_head("/verify", "Range: " + ranges + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n") + body,
      "", 0);
  size_t peak = srv.memory();
  ASSERT_EQ(status_of(r), 200) << r.substr(0, 200);
  EXPECT_EQ(r.find("multipart"), std::string::npos);
  EXPECT_EQ(body_of(r)["reward"], 1.0);
  EXPECT_LT(r.size(), 3 * body.size());
  EXPECT_LT(peak - std::min(peak, base), 32 * kMiB * kMemScale);
  std::printf("[measure] range: %zu-byte request with 1501 ranges: 200 with a %zu-byte reply; server peak RSS %.1f MiB (%.1f before)\n",
              body.size(), r.size(), mib(peak), mib(base));
}

// Item 3: 80 clients that send one header line every 0.5 s (a per-read timeout never fires) neither
// hold the server nor keep /health and /verify from answering; each is closed within the request
// deadline, or at once when the connection cap needs its place.
TEST(ServeHostileHttp, SlowClientsDoNotBlockHealthOrVerify) {
  ShopDbs d;
  TempDir t;
  ServerProc srv({"--db-dir", d.dir, "--max-concurrency", "1", "--max-queue", "1", "--max-connections", "32",
                  "--request-timeout", "3"},
                 (t / "err").string());
  ASSERT_GT(srv.port, 0) << slurp(t / "err");
  const int kSlow = 80;
  std::vector<int> slow;
  for (int i = 0; i < kSlow; ++i) {
    int fd = connect_loopback(srv.port);
    ASSERT_GE(fd, 0);
    send_all(fd, "POST /verify HTTP/1.1\r\nHost: slow\r\n");
    slow.push_back(fd);
  }
  std::atomic<bool> done{false};
  std::thread drip([&] {
    while (!done) {
      for (int fd : slow) send_all(fd, "X-Slow: y\r\n");
      for (int i = 0; i < 10 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  std::vector<double> health_secs;
  int health_failures = 0, verify_status = 0;
  double verify_reward = -1;
  auto t0 = Clock::now();
  while (since(t0) < 8) {
    httplib::Client c("127.0.0.1", srv.port);
    c.set_connection_timeout(10, 0);
    c.set_read_timeout(10, 0);
    auto h0 = Clock::now();
    auto res = c.Get("/health");
    health_secs.push_back(since(h0));
    if (!res || res->status != 200) ++health_failures;
    if (verify_status == 0 && since(t0) > 2) {
      auto v = c.Post("/verify", good_body(), "application/json");
      verify_status = v ? v->status : -1;
      if (v && v->status == 200) verify_reward = json::parse(v->body)["reward"].get<double>();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  done = true;
  drip.join();
  int closed = count_closed_by_peer(slow, 5.0);
  for (int fd : slow) close(fd);
  std::sort(health_secs.begin(), health_secs.end());
  double p50 = health_secs[health_secs.size() / 2], worst = health_secs.back();
  EXPECT_EQ(health_failures, 0);
  EXPECT_LT(worst, 2.0) << "slowest /health " << worst << " s";
  EXPECT_EQ(verify_status, 200);
  EXPECT_EQ(verify_reward, 1.0);
  EXPECT_EQ(closed, kSlow) << "slow connections still open after the 3 s request deadline";
  httplib::Client c("127.0.0.1", srv.port);
  auto h = c.Get("/health");
  ASSERT_TRUE(h);
  json hs = json::parse(h->body)["http"];
  EXPECT_GE(hs["evicted"].get<int>() + hs["timed_out"].get<int>(), kSlow);
  std::printf("[measure] slow clients: %d sockets dripping a header line every 0.5 s, --max-connections 32, "
              "--request-timeout 3: /health %zu/%zu answered, p50 %.1f ms, max %.1f ms; %d evicted, %d timed out; "
              "server peak RSS %.1f MiB\n",
              kSlow, health_secs.size() - health_failures, health_secs.size(), p50 * 1e3, worst * 1e3,
              hs["evicted"].get<int>(), hs["timed_out"].get<int>(), mib(srv.memory()));
}

// Item 3: bodies that stall hold at most --max-buffered-mb; the longest-waiting one gives way, so a
// new request is still served.
TEST(ServeHostileHttp, StalledBodiesStayWithinTheBufferBudget) {
  ShopDbs d;
  TempDir t;
  ServerProc srv({"--db-dir", d.dir, "--max-body-mb", "2", "--max-buffered-mb", "4", "--request-timeout", "20"},
                 (t / "err").string());
  ASSERT_GT(srv.port, 0) << slurp(t / "err");
  size_t base = srv.memory();
  std::vector<int> stalled;
  for (int i = 0; i < 12; ++i) {  // 12 x 1.5 MiB sent, the last 0.5 MiB never
    int fd = connect_loopback(srv.port);
    ASSERT_GE(fd, 0);
    send_all(fd, post_head("/verify", "Content-Length: 2097152\r\n") + std::string(3 * kMiB / 2, ' '));
    stalled.push_back(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  httplib::Client c("127.0.0.1", srv.port);
  c.set_read_timeout(10, 0);
  auto v = c.Post("/verify", good_body(), "application/json");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, 200);
  auto h = c.Get("/health");
  ASSERT_TRUE(h);
  json hs = json::parse(h->body)["http"];
  EXPECT_LE(hs["buffered_bytes"].get<size_t>(), 4 * kMiB);
  EXPECT_GE(hs["evicted"].get<int>(), 8);
  size_t peak = srv.memory();
  EXPECT_LT(peak - std::min(peak, base), 32 * kMiB * kMemScale);
  int closed = count_closed_by_peer(stalled, 1.0);
  for (int fd : stalled) close(fd);
  EXPECT_GE(closed, 8);
  std::printf("[measure] stalled bodies: 12 x 1.5 MiB held back, --max-buffered-mb 4: %d evicted, buffered %zu bytes; "
              "server peak RSS %.1f MiB (%.1f before)\n",
              hs["evicted"].get<int>(), hs["buffered_bytes"].get<size_t>(), mib(peak), mib(base));
}

// Item 4 over HTTP: distinct 4 MiB gold_sql texts and big gold results of every benchmark keep the
// server within its cache bound (16 MiB here) plus what the requests in flight need.
TEST(ServeHostileHttp, GoldCacheAttacksKeepTheServerSmall) {
  ShopDbs d;
  make_sqlite(d.tmp / "dbs" / "shop" / "shop.sqlite", slurp(fixtures() + "/serve/shop.sql"));  // Spider's layout
  TempDir t;
  ServerProc srv({"--db-dir", d.dir, "--cache-mb", "16", "--max-concurrency", "2"}, (t / "err").string());
  ASSERT_GT(srv.port, 0) << slurp(t / "err");
  httplib::Client c("127.0.0.1", srv.port);
  c.set_read_timeout(60, 0);
  ASSERT_TRUE(c.Post("/verify", good_body(), "application/json"));
  size_t base = srv.memory();
  for (int i = 0; i < 24; ++i) {
    std::string gold = "SELECT name FROM item /* " + std::to_string(i) + std::string(4 * kMiB, 'x') + " */";
    auto r = c.Post("/verify", serve_request(fenced("SELECT name FROM item"), {{"gold_sql", gold}}).dump(), "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200);
  }
  size_t after_texts = srv.memory();
  for (const char* bench : {"spider2", "spider", "bird"})
    for (int i = 0; i < 6; ++i) {
      std::string gold = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100000) SELECT x + " +
                         std::to_string(i) + ", 'row ' || x FROM c";
      auto r = c.Post("/verify", serve_request(fenced("SELECT 1"), {{"benchmark", bench}, {"gold_sql", gold}}).dump(),
                      "application/json");
      ASSERT_TRUE(r);
      ASSERT_EQ(r->status, 200) << r->body;
    }
  size_t peak = srv.memory();
  auto h = c.Get("/health");
  ASSERT_TRUE(h);
  json cache = json::parse(h->body)["gold_cache"];
  EXPECT_LE(cache["bytes"].get<size_t>(), 16 * kMiB);
  EXPECT_LT(after_texts - std::min(after_texts, base), 128 * kMiB * kMemScale);
  EXPECT_LT(peak - std::min(peak, base), 200 * kMiB * kMemScale);
  std::printf("[measure] gold cache (--cache-mb 16): 24 distinct 4 MiB gold_sql texts -> server peak RSS %.1f MiB; "
              "then 18 gold results of 100 000 rows (6 per benchmark) -> %.1f MiB (%.1f before); cache %zu entries, "
              "%.1f MiB\n",
              mib(after_texts), mib(peak), mib(base), cache["entries"].get<size_t>(), mib(cache["bytes"].get<size_t>()));
}
