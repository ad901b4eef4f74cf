#include "sqlgrade/serve/server.hpp"

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "sqlgrade/serve/gold_cache.hpp"
#include "sqlgrade/serve/verdict.hpp"
#include "sqlgrade/serve/wire.hpp"
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
  GoldCache cache;
  Judge judge;
  Executor exec;
  std::atomic<uint64_t> verifies{0}, rejected{0}, bad{0};
  std::atomic<size_t> inflight{0};

  explicit Impl(const ServerOptions& o)
      : cache(o.gold_cache_entries, o.gold_cache_bytes), judge(o, cache), exec(o.max_concurrency, o.max_queue) {}
};

RewardServer::RewardServer(ServerOptions opt) : opt_(std::move(opt)) {
  if (opt_.max_concurrency == 0) opt_.max_concurrency = resolve_jobs(0);
  if (opt_.spider_db_dir.empty()) opt_.spider_db_dir = opt_.db_dir;
  if (opt_.bird_db_dir.empty()) opt_.bird_db_dir = opt_.db_dir;
  impl_ = std::make_unique<Impl>(opt_);
}

RewardServer::~RewardServer() = default;

json RewardServer::verify_json(const json& req) {
  if (!req.is_object()) throw BadRequest("the request body must be a JSON object");
  Bench b = parse_bench(req);
  if (!benchmark_available(bench_name(b)))
    throw BadRequest(std::string("benchmark not available in this build: ") + bench_name(b));

  auto db = req.find("db_id");
  if (db == req.end() || !db->is_string()) throw BadRequest("`db_id` (string) is required");
  const std::string& db_id = db->get_ref<const std::string&>();

  bool has_gold_sql = false, has_gold_result = false;
  if (auto it = req.find("gold_sql"); it != req.end() && !it->is_null()) {
    if (!it->is_string()) throw BadRequest("`gold_sql` must be a string");
    has_gold_sql = !it->get_ref<const std::string&>().empty();
  }
  if (auto it = req.find("gold_result"); it != req.end() && !it->is_null()) {
    if (!it->is_array()) throw BadRequest("`gold_result` must be a list of result sets");
    has_gold_result = !it->empty();
  }
  if (!has_gold_sql && !has_gold_result && !(b == Bench::Spider2 && impl_->judge.official_entry(req)))
    throw BadRequest(impl_->judge.official_count() == 0
                         ? "the request needs `gold_sql` or `gold_result`"
                         : "the request needs `gold_sql`, `gold_result` or an instance_id of --spider2-gold-dir");
  if (auto it = req.find("ignore_order"); it != req.end() && !it->is_null() && !it->is_boolean())
    throw BadRequest("`ignore_order` must be a boolean");
  if (auto it = req.find("condition_cols"); it != req.end() && !it->is_null() && !it->is_array() &&
                                               !it->is_number_integer())
    throw BadRequest("`condition_cols` must be null, a list of column indices or a list of such lists");
  if (!has_gold_sql && has_gold_result) {  // shape check only; rows are converted once, on a cache miss
    const json& gr = req["gold_result"];
    for (size_t a = 0; a < gr.size(); ++a) {
      if (!gr[a].is_array()) throw BadRequest("`gold_result[" + std::to_string(a) + "]` must be a list of rows");
      for (auto& row : gr[a])
        if (!row.is_array())
          throw BadRequest("`gold_result[" + std::to_string(a) + "]` holds a row that is not a list");
    }
  }

  if (impl_->judge.db_path(b, db_id).empty()) {
#ifdef SQLGRADE_HAVE_SPIDER
    bool spider_dir_ok = b == Bench::Spider && safe_db_id(db_id) && fs::is_directory(fs::path(opt_.spider_db_dir) / db_id);
#else
    bool spider_dir_ok = false;
#endif
    if (!spider_dir_ok) throw BadRequest("unknown db_id '" + db_id + "' (no database file for it under the database folder)");
  }

  answer::ExtractOptions xo = opt_.extract;
  if (auto it = req.find("extract"); it != req.end() && !it->is_null()) {
    if (!it->is_object()) throw BadRequest("`extract` must be an object");
    set_bool_opt(*it, "word_boundary", xo.word_boundary);
    set_bool_opt(*it, "tags_and_json", xo.tags_and_json);
    set_bool_opt(*it, "raw_fallback", xo.raw_fallback);
  }

  std::string text = model_text(req);

  std::vector<std::string> unechoed;
  json resp = echo_fields(req, &unechoed);

  Verdict v;
  answer::Extracted ex = answer::extract_reward_sql(text, xo);
  if (!ex.sql) {
    v.failure = "no_sql_extracted";
    v.detail = text.empty()                              ? "empty model output"
               : ex.source != answer::ExtractSource::None ? "the extracted text holds no SQL statement (only ';', comments or whitespace)"
                                                         : "no SQL found in the model output";
  } else {
    v = impl_->judge.judge(b, req, db_id, *ex.sql);
  }
  impl_->verifies++;

  resp["reward"] = v.match ? 1.0 : 0.0;
  resp["db_id"] = db_id;
  resp["question"] = req.contains("question") ? req["question"] : json("");
  resp["model_output"] = text;
  resp["execution_match"] = v.match;
  resp["gold_sql"] = has_gold_sql ? req["gold_sql"] : json();
  resp["extracted_sql"] = ex.sql ? json(*ex.sql) : json();
  resp["failure_reason"] = v.failure;
  resp["failure_detail"] = v.detail;
  resp["extraction_source"] = answer::to_string(ex.source);
  resp["benchmark"] = bench_name(b);
  resp["gold_cached"] = v.gold_cached;
  if (!unechoed.empty()) resp["unechoed_fields"] = unechoed;
  return resp;
}

namespace {
Reply busy_reply() { return error_reply(503, "server busy: the verify queue is full, retry later"); }
}  // namespace

Reply RewardServer::handle_verify(std::string_view body) {
  impl_->inflight++;
  struct Dec {
    std::atomic<size_t>& n;
    ~Dec() { n--; }
  } dec{impl_->inflight};
  try {
    return Reply{200, dump(verify_json(parse_body(body)))};
  } catch (const json::parse_error& e) {
    impl_->bad++;
    return error_reply(400, std::string("invalid JSON: ") + e.what());
  } catch (const BadRequest& e) {
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

void RewardServer::verify_async(std::string body, std::function<void(Reply)> done) {
  auto shared = std::make_shared<std::string>(std::move(body));
  submit([this, shared] { return handle_verify(*shared); }, std::move(done));
}

void RewardServer::aggregate_metrics_async(std::string body, std::function<void(Reply)> done) {
  auto shared = std::make_shared<std::string>(std::move(body));
  submit([this, shared] { return aggregate_metrics(*shared); }, std::move(done));
}

Reply RewardServer::verify(std::string_view body) {
  std::promise<Reply> promise;
  auto fut = promise.get_future();
  submit([this, body] { return handle_verify(body); }, [&promise](Reply r) { promise.set_value(std::move(r)); });
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
  s.verifies = impl_->verifies;
  s.rejected_busy = impl_->rejected;
  s.bad_requests = impl_->bad;
  s.gold_cache_hits = impl_->cache.hits();
  s.gold_cache_misses = impl_->cache.misses();
  s.gold_cache_entries = impl_->cache.entries();
  s.gold_cache_bytes = impl_->cache.bytes();
  s.inflight = impl_->inflight;
  return s;
}

Reply RewardServer::health() const { return Reply{200, dump(health_json())}; }

json RewardServer::health_json() const {
  ServerStats s = stats();
  json j;
  j["status"] = "ok";
  j["version"] = SQLGRADE_VERSION;
  j["benchmarks"] = {{"spider2", benchmark_available("spider2")},
                     {"spider", benchmark_available("spider")},
                     {"bird", benchmark_available("bird")}};
  j["max_concurrency"] = opt_.max_concurrency;
  j["max_queue"] = opt_.max_queue;
  j["timeout_s"] = opt_.timeout_s;
  j["spider2_gold_instances"] = impl_->judge.official_count();
  j["pending"] = impl_->exec.pending();
  j["verifies"] = s.verifies;
  j["rejected_busy"] = s.rejected_busy;
  j["bad_requests"] = s.bad_requests;
  j["gold_cache"] = {{"entries", s.gold_cache_entries},
                     {"bytes", s.gold_cache_bytes},
                     {"hits", s.gold_cache_hits},
                     {"misses", s.gold_cache_misses},
                     {"max_entries", opt_.gold_cache_entries},
                     {"max_bytes", opt_.gold_cache_bytes}};
  return j;
}

}  // namespace sqlgrade::serve
