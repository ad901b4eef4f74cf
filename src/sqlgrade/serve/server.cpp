#include "sqlgrade/serve/server.hpp"

#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <future>

#include "sqlgrade/serve/server_impl.hpp"
#include "sqlgrade/serve/wire.hpp"
#include "sqlgrade/verdict.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/version.hpp"

namespace sqlgrade::serve {

using json = nlohmann::json;
namespace fs = std::filesystem;
using BadRequest = RewardServer::BadRequest;

unsigned default_max_concurrency() { return std::max(4u, 2 * resolve_jobs(0)); }

RewardServer::RewardServer(ServerOptions opt) : opt_(std::move(opt)) {
  if (opt_.max_concurrency == 0) opt_.max_concurrency = default_max_concurrency();
  if (opt_.spider_db_dir.empty()) opt_.spider_db_dir = opt_.db_dir;
  if (opt_.bird_db_dir.empty()) opt_.bird_db_dir = opt_.db_dir;
  opt_.grader.max_timeout_s = opt_.grader.timeout_s;  // a request may lower its deadline, never raise it
  impl_ = std::make_unique<Impl>(opt_);
}

RewardServer::~RewardServer() {
  impl_->root.cancel();  // whatever is still queued ends at once; the executor then joins its threads
}

namespace {
// What a request that names no benchmark is told when it cannot be graded as Spider 2.0.
std::string no_benchmark_hint(const ServerOptions& o) {
  return o.default_benchmark.empty()
             ? "; the request names no `benchmark`, so it is graded as spider2: set \"benchmark\": \"bird\" or "
               "\"spider\", or start serve with --benchmark"
             : "";
}
}  // namespace

// The server's database folder of a benchmark (--db-dir, --spider-db-dir, --bird-db-dir).
static const std::string& folder_of(const ServerOptions& o, const Benchmark& b) {
  const std::string_view name = b.name();
  return name == "spider" ? o.spider_db_dir : name == "bird" ? o.bird_db_dir : o.db_dir;
}

// The file is where the benchmark's own lookup finds it (Benchmark::locate: its layout, then the other
// one where it accepts it).
std::string RewardServer::db_path(const Benchmark& b, const std::string& db_id) const {
  if (!safe_db_id(db_id)) throw BadRequest("unknown db_id '" + db_id + "' (not a file name)");
  const std::string& dir = folder_of(opt_, b);
  if (dir.empty())
    throw BadRequest(std::string("benchmark ") + b.name() + ": this server has no database folder for it (" +
                     b.folder_flags() + ")");
  Located at = b.locate(dir, db_id);
  if (!at.path.empty()) return at.path;
  if (!at.error.empty()) throw BadRequest(at.error);
  throw BadRequest("unknown db_id '" + db_id + "' (no database file for it under the database folder)");
}

Grader& RewardServer::grader() const { return impl_->grader; }

// The server database of a request's dialect (its `dialect`, else --dialect): its URI, or "" for SQLite.
std::string RewardServer::server_db(const json& req) const {
  std::string dialect = opt_.default_dialect;
  if (auto d = req.find("dialect"); d != req.end() && !d->is_null()) {
    if (!d->is_string()) throw BadRequest("`dialect` must be a string: sqlite, postgresql or mysql");
    try {
      dialect = verdicts::dialect_of(d->get<std::string>());
    } catch (const InputError& e) {
      throw BadRequest(e.what());
    }
  }
  if (dialect.empty() || dialect == "sqlite") return "";
  const std::string& dsn = dialect == "postgresql" ? opt_.postgresql_dsn : opt_.mysql_dsn;
  if (dsn.empty())
    throw BadRequest("dialect " + dialect + ": this server has no " + (dialect == "postgresql" ? "PostgreSQL" : "MySQL") +
                     " database (serve --dsn " + dialect + "://...)");
  return dsn;
}

VerdictRequest RewardServer::verdict_request(const json& req) const {
  if (!req.is_object()) throw BadRequest("the request body must be a JSON object");
  (void)parse_bench(req);  // an unknown benchmark is the first error, before a missing db_id
  if (req.contains("db")) throw BadRequest("`db` (a path) is not accepted by the server: send `db_id`");
  const std::string server = server_db(req);
  auto db = req.find("db_id");
  if (server.empty() && (db == req.end() || !db->is_string())) throw BadRequest("`db_id` (string) is required");
  // field errors first, then gold, then the database
  VerdictRequest r = verdicts::parse_request(req, impl_->grader.config().extract);
  impl_->grader.require_gold(r);
  if (!server.empty()) {  // BIRD in PostgreSQL / MySQL: every db_id is in the one database
    r.db = server;
    return r;
  }
  try {
    r.db = db_path(verdicts::bench_of(r), db->get_ref<const std::string&>());
  } catch (const BadRequest& e) {
    // A request without `benchmark` is Spider 2.0's; when its database is not one, say so.
    auto named = req.find("benchmark");
    if (named != req.end() && !named->is_null()) throw;
    throw BadRequest(e.message() + no_benchmark_hint(opt_));
  }
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
  const bool components = opt_.reward_components && absent("reward_components");
  if (!bench && !gold && !components) return std::nullopt;
  json r = req;
  if (bench) r["benchmark"] = opt_.default_benchmark;
  if (gold) r["gold_sql"] = *gt;
  if (components) r["reward_components"] = true;
  return r;
}

json RewardServer::verify_json(const json& req) {
  const std::optional<json> gym = with_gym_defaults(req);
  const json& r = gym ? *gym : req;
  json reply = verdicts::verdict_json(impl_->grader, verdict_request(r), r);
  // A query stopped by the request's budget reads as a timeout: say which deadline it was.
  const CancelToken* t = current_cancel_token();
  if (t && t->reason() == CancelToken::Reason::Deadline && reply["stage"] == "timeout")
    reply["failure_detail"] = budget_exceeded_message(opt_.request_budget_s);
  if (current_queued_s() >= 0 && reply.contains("timings")) reply["timings"]["queued_s"] = current_queued_s();
  return reply;
}

namespace {
Reply busy_reply() { return error_reply(503, "server busy: the verify queue is full, retry later"); }
}  // namespace

Reply RewardServer::bounded(std::string body) const {
  if (body.size() <= opt_.max_reply_bytes) return Reply{200, std::move(body)};
  return error_reply(413, "the reply to this request would be " + std::to_string(body.size()) + " bytes, over --max-reply-mb (" +
                              std::to_string(opt_.max_reply_bytes) + " bytes); send a smaller request");
}

Reply RewardServer::handle(std::string_view body, json (RewardServer::*fn)(const json&)) {
  impl_->inflight++;
  struct Dec {
    std::atomic<size_t>& n;
    ~Dec() { n--; }
  } dec{impl_->inflight};
  return guarded([&] { return bounded(dump((this->*fn)(parse_body(body)))); }, impl_->bad);
}

// /verify: the verdict, with the request's `response` echoed as the bytes the client sent.
Reply RewardServer::handle_verify(std::string_view body) {
  impl_->inflight++;
  struct Dec {
    std::atomic<size_t>& n;
    ~Dec() { n--; }
  } dec{impl_->inflight};
  return guarded(
      [&] {
        json reply = verify_json(parse_body(body));
        auto raw = reply.contains("response") ? raw_member(body, "response") : std::nullopt;
        if (!raw) return bounded(dump(reply));
        reply.erase("response");
        return bounded(with_raw_member(dump(reply), "response", *raw));
      },
      impl_->bad);
}

void RewardServer::Job::finish(Reply r) {
  server->impl_->exec.release();  // the slot is free before the caller sees the result
  r.queued_s = queued_s;
  done(std::move(r));
}

namespace {
thread_local double tl_queued_s = -1;
double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

double current_queued_s() { return tl_queued_s; }
void set_current_queued_s(double s) { tl_queued_s = s; }

std::shared_ptr<CancelToken> RewardServer::submit_async(Queued endpoint, std::string body,
                                                        std::function<void(Reply)> done) {
  if (impl_->root.cancelled()) {
    done(cancelled_reply(CancelToken::Reason::Parent, opt_.request_budget_s));
    return nullptr;
  }
  if (!impl_->exec.try_admit()) {
    impl_->rejected++;
    done(busy_reply());
    return nullptr;
  }
  // The budget starts when a worker takes the request (run()); until then the queue timeout bounds it.
  auto job = std::make_shared<Job>();
  job->server = this;
  job->token = std::make_shared<CancelToken>(&impl_->root);
  job->done = std::move(done);
  job->body = std::move(body);
  job->queued_at = std::chrono::steady_clock::now();
  std::shared_ptr<std::atomic<int>> state(job, &job->state);
  impl_->watch.add(deadline_after(opt_.queue_timeout_s), state, [this, w = std::weak_ptr<Job>(job)] {
    if (auto j = w.lock()) expire(*j);
  });
  impl_->exec.post_request([this, endpoint, job] { run(endpoint, job); });
  return job->token;
}

// On the queue watch's thread, once it has moved the job from Queued to Expired: its worker will skip it.
void RewardServer::expire(Job& job) {
  job.queued_s = since(job.queued_at);
  job.body = std::string();  // the executor's task stays queued until a worker pops and skips it
  impl_->saturated++;
  char b[160];
  std::snprintf(b, sizeof b,
                "server saturated: no worker took the request within --queue-timeout (%g s; waited %.3f s, %u workers "
                "busy), retry later",
                opt_.queue_timeout_s, job.queued_s, opt_.max_concurrency);
  Reply r = error_reply(503, b);
  job.finish(std::move(r));
}

void RewardServer::run(Queued endpoint, const std::shared_ptr<Job>& job) {
  if (!QueueWatch::take(job->state)) return;  // answered 503 at --queue-timeout
  job->queued_s = since(job->queued_at);
  job->token->set_deadline(deadline_after(opt_.request_budget_s));  // the budget runs from dispatch
  const std::string body = std::move(job->body);
  if (job->token->cancelled()) {  // the client left, or the server stops
    impl_->cancelled++;
    return job->finish(cancelled_reply(job->token->reason(), opt_.request_budget_s));
  }
  set_current_queued_s(job->queued_s);
  struct Reset {
    ~Reset() { set_current_queued_s(-1); }
  } reset;
  if (endpoint == Queued::OpenRlhf) return start_batch(body, job);  // finishes the job when graded
  Reply r;
  {
    CancelScope scope(job->token.get());  // the engine's deadline checks read it
    try {
      switch (endpoint) {
        case Queued::Verify: r = handle_verify(body); break;
        case Queued::Execute: r = handle(body, &RewardServer::execute_json); break;
        case Queued::AggregateMetrics: r = aggregate_metrics(body); break;
        case Queued::OpenRlhf: break;
      }
    } catch (...) {
      r = error_reply(500, "internal error");
    }
  }
  const CancelToken::Reason why = job->token->reason();
  if (why == CancelToken::Reason::Cancelled || why == CancelToken::Reason::Parent) {
    impl_->cancelled++;  // its queries may have been cut short: not a verdict to hand out
    r = cancelled_reply(why, opt_.request_budget_s);
  }
  job->finish(std::move(r));
}

void RewardServer::cancel_all() { impl_->root.cancel(); }

unsigned RewardServer::batch_width() const { return std::max(1u, opt_.max_concurrency - 1); }

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
    return bounded(dump(aggregate(list)));
  } catch (const json::parse_error& e) {
    return error_reply(400, std::string("invalid JSON: ") + e.what());
  } catch (const std::exception& e) {
    return error_reply(400, e.what());
  }
}

ServerStats RewardServer::stats() const {
  ServerStats s;
  GraderStats v = impl_->grader.stats();
  s.verifies = v.verdicts;
  s.rejected_busy = impl_->rejected;
  s.saturated = impl_->saturated;
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
  j["timeout_s"] = opt_.grader.timeout_s;
  j["spider2_gold_instances"] = impl_->grader.stats().spider2_gold_instances;
  j["executes"] = executes_.load();
  j["endpoints"] = {"/verify", "/aggregate_metrics", "/execute", "/get_reward", "/openrlhf", "/health",
                    "/seed_session", "/reverify_mode", "/"};
  j["request_budget_s"] = opt_.request_budget_s;
  j["max_reply_bytes"] = opt_.max_reply_bytes;
  j["batch_width"] = batch_width();
  j["pending"] = impl_->exec.admitted();
  j["queued_tasks"] = impl_->exec.queued();
  j["cancelled"] = impl_->cancelled.load();
  j["batches"] = impl_->batches.to_json();
  j["verifies"] = s.verifies;
  j["rejected_busy"] = s.rejected_busy;
  j["saturated"] = s.saturated;
  j["queue_timeout_s"] = opt_.queue_timeout_s;
  j["bad_requests"] = s.bad_requests;
  j["gold_cache"] = {{"entries", s.gold_cache_entries},
                     {"bytes", s.gold_cache_bytes},
                     {"hits", s.gold_cache_hits},
                     {"misses", s.gold_cache_misses},
                     {"max_entries", opt_.grader.gold_cache_entries},
                     {"max_bytes", opt_.grader.gold_cache_bytes}};
  return j;
}

}  // namespace sqlgrade::serve
