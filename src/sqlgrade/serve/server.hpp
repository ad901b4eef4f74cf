#pragma once
// Reward server for RL training and online grading, wire-compatible with NVIDIA NeMo Gym's
// `spider2_lite` resource server (spec official-evaluators.md §6, users-and-conventions.md §4).
//
//   POST /verify             one rollout -> reward (NeMo request/response shape, see docs/serve.md)
//   POST /aggregate_metrics  {"verify_responses": [...]} -> mean reward, pass@k, failure counts
//   POST /execute            one read-only query -> rows (sqlgrade::execute, for multi-turn agents)
//   POST /get_reward         OpenRLHF's remote reward shape {"query", "prompts", "labels"} ->
//                            {"rewards", "scores", "extra_logs"} (also at POST /openrlhf)
//   GET  /health             liveness + counters
//   POST /seed_session, GET /reverify_mode   trivial NeMo Gym endpoints
//
// Verdicts come from sqlgrade::Grader (include/sqlgrade/verdict.hpp), which the Python module
// uses too; this layer only resolves db_id in the database folders, queues, counts and answers.
// Safety: databases are opened read-only with an authorizer (engine/sqlite.hpp): DROP/ATTACH/PRAGMA
// writes fail as execution errors; every query has a real deadline and row/byte caps.
// Resources: at most max_concurrency verifies run at once, at most max_queue wait; beyond that a
// request gets 503 at once. Gold results are cached (LRU bounded by entries and bytes). Every queued
// request runs under a CancelToken (core/cancel.hpp) with a deadline of request_budget_s from its
// admission: the HTTP layer cancels it when the client hangs up, cancel_all() when the server stops.
// A batch (/get_reward) is graded on the shared workers a time slice at a time (batch.cpp).
// A reply is at most max_reply_bytes as serialised (/execute cuts its rows to fit).
//
// RewardServer is independent of HTTP (tests call it directly); serve_http() (reward_http.hpp) puts an
// HTTP server in front of it.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/cancel.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/verdict.hpp"
#include "sqlgrade/verdict/request.hpp"

namespace sqlgrade::serve {

struct ServerOptions {
  std::string db_dir;         // Spider2 databases: <db_dir>/<db_id>.sqlite (or <db_id>/<db_id>.sqlite)
  std::string spider_db_dir;  // Spider: <dir>/<db_id>/*.sqlite (default: db_dir)
  std::string bird_db_dir;    // BIRD: <dir>/<db_id>/<db_id>.sqlite (default: db_dir)
  // The verdicts' configuration (include/sqlgrade/verdict.hpp): per-query deadlines, row and byte caps,
  // gold cache bounds, default extraction options, the optional official Spider 2.0-Lite gold folder.
  // grader.timeout_s is also the cap on a request's own `timeout` (max_timeout_s is set to it).
  GraderConfig grader;
  unsigned max_concurrency = 0;   // verifies executing at once; 0 = max(4, 2 x cores) (docs/serve.md)
  size_t max_queue = 64;          // verifies waiting for a slot; more -> 503
  // Longest wait for a worker (--queue-timeout): a request still queued then gets 503 with
  // Retry-After (saturation, like NeMo Gym's pool's PoolSaturatedError), never an unbounded wait.
  double queue_timeout_s = 30;
  size_t max_execute_rows = 10'000;  // /execute: cap on a request's max_rows
  size_t max_batch = 4096;           // /get_reward: rollouts per request
  // Total time of one queued request, from when a worker takes it to its reply (--request-budget; its
  // wait in the queue is bounded by queue_timeout_s): its queries stop at this deadline; a batch's
  // rollouts not graded by then score 0 and are flagged.
  double request_budget_s = 120;
  // Largest reply as serialised, escapes counted (--max-reply-mb): /execute cuts its rows to fit, any
  // other reply over it becomes a 413.
  size_t max_reply_bytes = 64u << 20;
  // The benchmark of a /verify or /execute request that names none (empty: spider2, as before).
  // NeMo Gym's resources servers each grade one benchmark and their rows carry no `benchmark`
  // (`sqlgrade serve --benchmark bird` stands in for Gym's bird_sql; integrations/nemo_gym/).
  std::string default_benchmark;
  // BIRD on PostgreSQL / MySQL (serve --dsn, --dialect): the one server database of each dialect, as a
  // URI through a read-only login (engine/server.hpp), and the dialect of a request that names none
  // ("" or "sqlite": the SQLite folders). A request picks a dialect with `dialect`, never a URI.
  std::string postgresql_dsn, mysql_dsn;
  std::string default_dialect;
  // Every /verify reply carries reward_components (--reward-components), as if each request asked.
  bool reward_components = false;
};

// The default of --max-concurrency: max(4, 2 x cores). Verifies wait on SQLite more than they
// compute, and one runaway prediction holds a worker until its deadline: with one worker per core
// the p99 latency of small verifies was 729-776 ms behind runaway queries, 8.4 ms with 4 workers.
unsigned default_max_concurrency();

struct Reply {
  int status = 200;
  std::string body;  // JSON
  // Queued endpoints: seconds the request waited for a worker (HTTP header X-Sqlgrade-Queued-S);
  // negative when it was never queued (refused at once, or not a queued endpoint).
  double queued_s = -1;
};

struct ServerStats {
  uint64_t verifies = 0, rejected_busy = 0, bad_requests = 0, saturated = 0;
  uint64_t gold_cache_hits = 0, gold_cache_misses = 0;
  size_t gold_cache_entries = 0, gold_cache_bytes = 0;
  size_t inflight = 0;
};

class RewardServer {
 public:
  // The URI of the server database a request's `dialect` (or --dialect) names; "" for SQLite.
  // BadRequest for an unknown dialect or one this server has no database for.
  std::string server_db(const nlohmann::json& req) const;
  explicit RewardServer(ServerOptions opt);
  ~RewardServer();
  RewardServer(const RewardServer&) = delete;
  RewardServer& operator=(const RewardServer&) = delete;

  // The endpoints that run on the verify workers. /aggregate_metrics shares the verify queue (its
  // bodies can be as large as any request).
  enum class Queued { Verify, AggregateMetrics, Execute, OpenRlhf };

  // Thread-safe. Bad requests give 400 with {"error": "..."}; a full queue gives 503.
  Reply verify(std::string_view body) { return call(Queued::Verify, body); }
  Reply execute(std::string_view body) { return call(Queued::Execute, body); }
  Reply openrlhf(std::string_view body) { return call(Queued::OpenRlhf, body); }
  Reply aggregate_metrics(std::string_view body);  // on the calling thread
  Reply health() const;
  nlohmann::json health_json() const;

  // A queued endpoint for an event-driven front end: the work runs on a verify worker and `done` is
  // called exactly once, on a worker, or at once on the calling thread with 503 when the queue is
  // full or the server is stopping (then the result is null). The result cancels the request (the
  // client hung up): its queries stop at the next progress tick, and `done` still comes. call()
  // waits for `done`.
  std::shared_ptr<CancelToken> submit_async(Queued endpoint, std::string body, std::function<void(Reply)> done);
  Reply call(Queued endpoint, std::string_view body);
  // Stops everything (shutdown): requests in progress are cancelled and answered 503, new ones too.
  void cancel_all();

  // The verdict part of verify for an already parsed request (throws InputError on invalid input).
  nlohmann::json verify_json(const nlohmann::json& request);
  nlohmann::json execute_json(const nlohmann::json& request);

  // Database file of db_id for a benchmark (spider: the test-suite folder's <db_id>.sqlite), or
  // throws InputError with the reason (unknown id, or a layout the benchmark cannot use).
  std::string db_path(const Benchmark& benchmark, const std::string& db_id) const;

  ServerStats stats() const;
  // Workers one batch grades on at once: max(1, max_concurrency - 1), so a batch alone never holds
  // every worker (unless there is only one).
  unsigned batch_width() const;
  const ServerOptions& options() const { return opt_; }

  using BadRequest = verdicts::BadRequest;

 private:
  // The request with the server's --benchmark and bird_sql's `gt_sql` filled in, when it needs them.
  std::optional<nlohmann::json> with_gym_defaults(const nlohmann::json& request) const;
  // A /verify body as the request it grades: checked (400 messages), gold present, db_id resolved.
  VerdictRequest verdict_request(const nlohmann::json& body) const;
  Grader& grader() const;
  Reply handle(std::string_view body, nlohmann::json (RewardServer::*fn)(const nlohmann::json&));
  Reply handle_verify(std::string_view body);
  Reply bounded(std::string body) const;  // the reply, or a 413 when it is over max_reply_bytes

  // One admitted request: its token, body, and its completion (finish() gives the admission slot back
  // and calls `done`; exactly once: by the worker that takes it, or by the queue watch at
  // --queue-timeout, whichever moves `state` first — queue_watch.hpp).
  struct Job {
    RewardServer* server = nullptr;
    std::shared_ptr<CancelToken> token;
    std::function<void(Reply)> done;
    std::string body;
    std::chrono::steady_clock::time_point queued_at;
    std::atomic<int> state{0};
    double queued_s = -1;
    void finish(Reply r);
  };
  void expire(Job& job);  // the queue timeout: 503, Retry-After
  void run(Queued endpoint, const std::shared_ptr<Job>& job);
  // /get_reward (batch.cpp): checks every label, then grades the rollouts in slices.
  struct Batch;
  void start_batch(const std::string& body, const std::shared_ptr<Job>& job);
  std::vector<VerdictRequest> openrlhf_requests(const nlohmann::json& request) const;
  void grind(const std::shared_ptr<Batch>& batch);
  void grade_rollout(Batch& batch, size_t i);
  void finish_batch(Batch& batch);
  struct Impl;
  ServerOptions opt_;
  std::unique_ptr<Impl> impl_;
  std::atomic<uint64_t> executes_{0};
};

// /aggregate_metrics on a list of verify responses (grouped by _ng_task_index, else instance_id).
nlohmann::json aggregate(const nlohmann::json& verify_responses);

// Unbiased pass@k estimator 1 - C(n-c, k) / C(n, k) (n samples, c correct).
double pass_at_k(size_t n, size_t c, size_t k);

}  // namespace sqlgrade::serve
