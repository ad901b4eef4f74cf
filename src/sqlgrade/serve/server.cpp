#include "sqlgrade/serve/server.hpp"

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "sqlgrade/serve/wire.hpp"
#include "sqlgrade/verdict.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/version.hpp"

namespace sqlgrade::serve {

using json = nlohmann::json;
namespace fs = std::filesystem;
using BadRequest = RewardServer::BadRequest;

namespace {

// Fixed worker threads with a bounded queue: at most `workers` tasks run, at most `max_queue` wait.
class Executor {
 public:
  Executor(unsigned workers, size_t max_queue) : max_queue_(max_queue) {
    for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { loop(); });
    workers_ = workers;
  }
  ~Executor() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  // false when the queue is full (the caller answers 503).
  bool try_submit(std::function<void()> fn) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (stop_ || pending_ >= workers_ + max_queue_) return false;
      ++pending_;
      q_.push_back(std::move(fn));
    }
    cv_.notify_one();
    return true;
  }
  size_t pending() const {
    std::lock_guard<std::mutex> lk(mu_);
    return pending_;
  }
  // Frees the slot of a finished task (so a caller that saw the result can submit again at once).
  void release() {
    std::lock_guard<std::mutex> lk(mu_);
    --pending_;
  }

 private:
  void loop() {
    while (true) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return stop_ || !q_.empty(); });
        if (q_.empty()) return;
        fn = std::move(q_.front());
        q_.pop_front();
      }
      fn();  // the task calls release() itself, before it publishes its result
    }
  }
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> q_;
  std::vector<std::thread> threads_;
  size_t workers_ = 0, max_queue_ = 0, pending_ = 0;
  bool stop_ = false;
};

}  // namespace

struct RewardServer::Impl {
  Verifier verifier;
  Executor exec;
  std::atomic<uint64_t> rejected{0}, bad{0};
  std::atomic<size_t> inflight{0};

  explicit Impl(const ServerOptions& o) : verifier(o.verifier), exec(o.max_concurrency, o.max_queue) {}
};

unsigned default_max_concurrency() { return std::max(4u, 2 * resolve_jobs(0)); }

RewardServer::RewardServer(ServerOptions opt) : opt_(std::move(opt)) {
  if (opt_.max_concurrency == 0) opt_.max_concurrency = default_max_concurrency();
  if (opt_.spider_db_dir.empty()) opt_.spider_db_dir = opt_.db_dir;
  if (opt_.bird_db_dir.empty()) opt_.bird_db_dir = opt_.db_dir;
  opt_.verifier.max_timeout_s = opt_.verifier.timeout_s;  // a request may lower its deadline, never raise it
  impl_ = std::make_unique<Impl>(opt_);
}

RewardServer::~RewardServer() = default;

std::string RewardServer::db_path(std::string_view bench, const std::string& db_id) const {
  if (!safe_db_id(db_id)) throw BadRequest("unknown db_id '" + db_id + "' (not a file name)");
  const Bench b = bench_from_name(std::string(bench));
  fs::path dir = b == Bench::Spider2 ? opt_.db_dir : b == Bench::Spider ? opt_.spider_db_dir : opt_.bird_db_dir;
  fs::path flat = dir / (db_id + ".sqlite"), nested = dir / db_id / (db_id + ".sqlite");
  std::error_code ec;
  const bool has_flat = fs::is_regular_file(flat, ec), has_nested = fs::is_regular_file(nested, ec);
  if (b == Bench::Spider) {
    // The test suite is every *.sqlite of <dir>/<db_id>/; a flat <dir>/<db_id>.sqlite has no such
    // folder (its own folder holds the other databases), so it cannot be graded as Spider.
    if (has_nested || fs::is_directory(dir / db_id, ec)) return nested.string();
    if (has_flat)
      throw BadRequest("db_id '" + db_id + "': benchmark spider needs the test-suite layout <dir>/" + db_id + "/" + db_id +
                       ".sqlite, found the flat " + db_id + ".sqlite (use benchmark bird or spider2 for it)");
  } else if (b == Bench::Spider2) {
    if (has_flat) return flat.string();
    if (has_nested) return nested.string();
  } else {
    if (has_nested) return nested.string();
    if (has_flat) return flat.string();
  }
  throw BadRequest("unknown db_id '" + db_id + "' (no database file for it under the database folder)");
}

Verifier& RewardServer::verifier() const { return impl_->verifier; }

VerdictRequest RewardServer::verdict_request(const json& req) const {
  if (!req.is_object()) throw BadRequest("the request body must be a JSON object");
  (void)parse_bench(req);  // an unknown benchmark is the first error, before a missing db_id
  auto db = req.find("db_id");
  if (db == req.end() || !db->is_string()) throw BadRequest("`db_id` (string) is required");
  if (req.contains("db")) throw BadRequest("`db` (a path) is not accepted by the server: send `db_id`");
  // field errors first, then gold, then the database
  VerdictRequest r = Verifier::parse_request(req, impl_->verifier.config().extract);
  impl_->verifier.require_gold(r);
  r.db = db_path(r.benchmark, db->get_ref<const std::string&>());
  return r;
}

// NeMo Gym rows as its resources servers take them: no `benchmark` (the server's --benchmark applies),
// and bird_sql's gold named `gt_sql` (read as `gold_sql` when that is absent; both are echoed).
std::optional<json> RewardServer::with_gym_defaults(const json& req) const {
  if (!req.is_object()) return std::nullopt;
  auto absent = [&](const char* k) { auto it = req.find(k); return it == req.end() || it->is_null(); };
  const bool bench = !opt_.default_benchmark.empty() && absent("benchmark");
  auto gt = req.find("gt_sql");
  const bool gold = gt != req.end() && gt->is_string() && absent("gold_sql") && absent("gold_result");
  if (!bench && !gold) return std::nullopt;
  json r = req;
  if (bench) r["benchmark"] = opt_.default_benchmark;
  if (gold) r["gold_sql"] = *gt;
  return r;
}

json RewardServer::verify_json(const json& req) {
  if (auto r = with_gym_defaults(req)) return impl_->verifier.verdict_json(verdict_request(*r), *r);
  return impl_->verifier.verdict_json(verdict_request(req), req);
}

namespace {
Reply busy_reply() { return error_reply(503, "server busy: the verify queue is full, retry later"); }
}  // namespace

Reply RewardServer::handle(std::string_view body, json (RewardServer::*fn)(const json&)) {
  impl_->inflight++;
  struct Dec {
    std::atomic<size_t>& n;
    ~Dec() { n--; }
  } dec{impl_->inflight};
  try {
    return Reply{200, dump((this->*fn)(parse_body(body)))};
  } catch (const json::parse_error& e) {
    impl_->bad++;
    return error_reply(400, std::string("invalid JSON: ") + e.what());
  } catch (const InputError& e) {  // BadRequest included
    impl_->bad++;
    return error_reply(400, e.what());
  } catch (const json::exception& e) {
    impl_->bad++;
    return error_reply(400, std::string("bad request field: ") + e.what());
  } catch (const std::exception& e) {
    return error_reply(500, std::string("internal error: ") + e.what());
  }
}

void RewardServer::submit(std::function<Reply()> work, std::function<void(Reply)> done) {
  auto task = [this, work = std::move(work), done]() {
    Reply r;
    try {
      r = work();
    } catch (...) {
      r = error_reply(500, "internal error");
    }
    impl_->exec.release();  // the slot is free before the caller sees the result
    done(std::move(r));
  };
  if (!impl_->exec.try_submit(std::move(task))) {
    impl_->rejected++;
    done(busy_reply());
  }
}

void RewardServer::submit_async(Queued endpoint, std::string body, std::function<void(Reply)> done) {
  auto shared = std::make_shared<std::string>(std::move(body));
  submit([this, endpoint, shared] {
    switch (endpoint) {
      case Queued::Verify: return handle(*shared, &RewardServer::verify_json);
      case Queued::Execute: return handle(*shared, &RewardServer::execute_json);
      case Queued::OpenRlhf: return handle(*shared, &RewardServer::openrlhf_json);
      case Queued::AggregateMetrics: break;
    }
    return aggregate_metrics(*shared);
  }, std::move(done));
}

Reply RewardServer::call(Queued endpoint, std::string_view body) {
  std::promise<Reply> promise;
  auto fut = promise.get_future();
  submit_async(endpoint, std::string(body), [&promise](Reply r) { promise.set_value(std::move(r)); });
  return fut.get();
}

Reply RewardServer::aggregate_metrics(std::string_view body) {
  try {
    json req = parse_body(body);
    const json& list = req.is_array() ? req : req.is_object() && req.contains("verify_responses") ? req["verify_responses"]
                                                                                                  : json();
    if (list.is_null()) throw BadRequest("expected {\"verify_responses\": [...]}");
    return Reply{200, dump(aggregate(list))};
  } catch (const json::parse_error& e) {
    return error_reply(400, std::string("invalid JSON: ") + e.what());
  } catch (const std::exception& e) {
    return error_reply(400, e.what());
  }
}

ServerStats RewardServer::stats() const {
  ServerStats s;
  VerifierStats v = impl_->verifier.stats();
  s.verifies = v.verdicts;
  s.rejected_busy = impl_->rejected;
  s.bad_requests = impl_->bad;
  s.gold_cache_hits = v.gold_cache_hits;
  s.gold_cache_misses = v.gold_cache_misses;
  s.gold_cache_entries = v.gold_cache_entries;
  s.gold_cache_bytes = v.gold_cache_bytes;
  s.inflight = impl_->inflight;
  return s;
}

Reply RewardServer::health() const { return Reply{200, dump(health_json())}; }

json RewardServer::health_json() const {
  ServerStats s = stats();
  json j;
  j["status"] = "ok";
  j["version"] = SQLGRADE_VERSION;
  j["benchmarks"] = {{"spider2", true}, {"spider", true}, {"bird", true}};  // every build grades all three
  j["max_concurrency"] = opt_.max_concurrency;
  j["max_queue"] = opt_.max_queue;
  j["timeout_s"] = opt_.verifier.timeout_s;
  j["spider2_gold_instances"] = impl_->verifier.stats().spider2_gold_instances;
  j["executes"] = executes_.load();
  j["endpoints"] = {"/verify", "/aggregate_metrics", "/execute", "/get_reward", "/openrlhf", "/health",
                    "/seed_session", "/reverify_mode", "/"};
  j["pending"] = impl_->exec.pending();
  j["verifies"] = s.verifies;
  j["rejected_busy"] = s.rejected_busy;
  j["bad_requests"] = s.bad_requests;
  j["gold_cache"] = {{"entries", s.gold_cache_entries},
                     {"bytes", s.gold_cache_bytes},
                     {"hits", s.gold_cache_hits},
                     {"misses", s.gold_cache_misses},
                     {"max_entries", opt_.verifier.gold_cache_entries},
                     {"max_bytes", opt_.verifier.gold_cache_bytes}};
  return j;
}

}  // namespace sqlgrade::serve
