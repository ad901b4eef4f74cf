#pragma once
// The reward server's state (RewardServer::Impl) and the life of a queued request (internal to the
// serve module; server.cpp and batch.cpp): its deadline, the reply of a cancelled request, and the
// counters of the batch endpoint (/get_reward, batch.cpp).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/cancel.hpp"
#include "sqlgrade/serve/executor.hpp"
#include "sqlgrade/serve/queue_watch.hpp"
#include "sqlgrade/serve/server.hpp"
#include "sqlgrade/verdict.hpp"

namespace sqlgrade::serve {

// A batch task gives its worker back after this long (it then waits its turn behind the requests
// queued meanwhile): the longest a /verify waits for a worker busy with a batch, besides the
// rollout that worker is grading.
inline constexpr auto kBatchSlice = std::chrono::milliseconds(10);

// now + `seconds` (the far future for a budget beyond any clock).
CancelToken::Clock::time_point deadline_after(double seconds);

// The seconds the calling worker's request waited in the queue (-1: none): /verify and /execute put
// them in `timings.queued_s`, /get_reward at the top level.
double current_queued_s();
void set_current_queued_s(double s);

// The reply to a request that was cancelled before or while it ran: 503 (Retry-After) naming why.
Reply cancelled_reply(CancelToken::Reason why, double budget_s);
// "request budget of N s (--request-budget) exceeded"
std::string budget_exceeded_message(double budget_s);

// work(), or the error reply of what it throws: 400 for invalid JSON, a bad request (InputError) or a
// bad field (counted in `bad`), 500 for anything else.
Reply guarded(const std::function<Reply()>& work, std::atomic<uint64_t>& bad);

struct BatchStats {
  std::atomic<uint64_t> started{0}, rollouts_graded{0}, rollouts_ungraded{0}, over_budget{0}, cancelled{0};
  std::atomic<size_t> active{0};
  nlohmann::json to_json() const;
};

struct RewardServer::Impl {
  CancelToken root;  // cancel_all(); every request's token is its child (declared first: destroyed last)
  Grader grader;
  Executor exec;
  std::atomic<uint64_t> rejected{0}, bad{0}, cancelled{0}, saturated{0};
  std::atomic<size_t> inflight{0};
  BatchStats batches;
  QueueWatch watch;  // declared after exec: stopped first, the workers answer what it still held

  explicit Impl(const ServerOptions& o) : grader(o.grader), exec(o.max_concurrency, o.max_queue) {}
};

}  // namespace sqlgrade::serve
