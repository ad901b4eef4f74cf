// /get_reward and /openrlhf (OpenRLHF's remote reward model): a batch of rollouts graded on the
// shared workers, bounded and fair to the other clients.
//
//  * Width: at most batch_width() = max(1, max_concurrency - 1) tasks of one batch are queued or
//    running at once, so a batch alone never holds every worker (unless there is only one).
//  * Slices: a task grades rollouts (taken in order from the batch's shared counter) until kBatchSlice
//    has passed, then goes back to the end of the workers' slice queue. The workers take requests and
//    slices in turn, so a /verify that arrives during a batch waits for one finishing slice or
//    rollout, never for the batch.
//  * Cancellation: the batch runs under its request's token. When the client hangs up (the HTTP layer
//    cancels the token) or the server stops, no further rollout starts and the queries in flight stop
//    at their next progress tick; the request's budget (--request-budget) stops it the same way.
//    Rollouts not graded by the budget score 0 and are flagged (extra_logs.sql_graded = 0,
//    `ungraded`, `budget_exceeded`): one request can never hold workers past its budget.
#include "sqlgrade/serve/server_impl.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <vector>

#include "sqlgrade/serve/wire.hpp"

namespace sqlgrade::serve {

using json = nlohmann::json;
using Reason = CancelToken::Reason;

CancelToken::Clock::time_point deadline_after(double seconds) {
  if (!(seconds > 0) || !std::isfinite(seconds) || seconds > 1e9) return CancelToken::Clock::time_point::max();
  return CancelToken::Clock::now() +
         std::chrono::duration_cast<CancelToken::Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string budget_exceeded_message(double budget_s) {
  char b[64];
  std::snprintf(b, sizeof b, "%g", budget_s);
  return std::string("request budget of ") + b + " s (--request-budget) exceeded";
}

Reply cancelled_reply(Reason why, double budget_s) {
  switch (why) {
    case Reason::Parent: return error_reply(503, "server shutting down: request cancelled, retry");
    case Reason::Deadline: return error_reply(503, "server busy: " + budget_exceeded_message(budget_s) + " before the request ran");
    case Reason::Cancelled:
    case Reason::None: break;
  }
  return error_reply(503, "request cancelled: the client closed the connection");
}

json BatchStats::to_json() const {
  return nlohmann::json{{"started", started.load()},           {"active", active.load()},
                        {"rollouts_graded", rollouts_graded.load()}, {"rollouts_ungraded", rollouts_ungraded.load()},
                        {"over_budget", over_budget.load()},   {"cancelled", cancelled.load()}};
}

struct RewardServer::Batch {
  std::shared_ptr<Job> job;
  std::vector<VerdictRequest> requests;
  std::vector<Verdict> verdicts;
  std::vector<char> graded;           // per rollout (distinct elements: written by different workers)
  std::atomic<size_t> next{0};        // the next rollout to grade
  std::atomic<unsigned> tasks{0};     // tasks of this batch queued or running
  std::atomic<bool> failed{false};
  std::mutex mu;
  Reply error;  // the first failure (a label whose database cannot be graded: 400)
};

void RewardServer::start_batch(const std::string& body, const std::shared_ptr<Job>& job) {
  auto b = std::make_shared<Batch>();
  b->job = job;
  Reply bad = guarded([&] {
    b->requests = openrlhf_requests(parse_body(body));
    return Reply{};
  }, impl_->bad);
  if (bad.status != 200) return job->finish(std::move(bad));
  const size_t n = b->requests.size();
  b->verdicts.resize(n);
  b->graded.assign(n, 0);
  impl_->batches.started++;
  impl_->batches.active++;
  if (n == 0) return finish_batch(*b);
  const unsigned width = static_cast<unsigned>(std::min<size_t>(batch_width(), n));
  b->tasks = width;
  for (unsigned i = 0; i < width; ++i) impl_->exec.post_slice([this, b] { grind(b); });
}

void RewardServer::grind(const std::shared_ptr<Batch>& b) {
  const CancelToken& token = *b->job->token;
  CancelScope scope(&token);  // the engine's deadline checks read it
  const auto slice_end = CancelToken::Clock::now() + kBatchSlice;
  const size_t n = b->requests.size();
  while (!b->failed && !token.cancelled()) {
    const size_t i = b->next.fetch_add(1);
    if (i >= n) break;
    grade_rollout(*b, i);
    if (CancelToken::Clock::now() >= slice_end && b->next.load() < n) {
      impl_->exec.post_slice([this, b] { grind(b); });  // the worker goes back to the other requests
      return;
    }
  }
  if (b->tasks.fetch_sub(1) == 1) finish_batch(*b);
}

void RewardServer::grade_rollout(Batch& b, size_t i) {
  auto fail = [&](Reply r) {
    std::lock_guard<std::mutex> lk(b.mu);
    if (!b.failed) b.error = std::move(r);
    b.failed = true;
  };
  try {
    Verdict v = grader().verdict(b.requests[i]);
    // A query or a `verify` search stopped by the request's budget or by a cancellation is no verdict
    // on the rollout.
    const bool cut = v.stage == VerdictStage::Timeout || (v.verify && v.verify->status == "unverified");
    if (cut && b.job->token->cancelled()) return;
    b.verdicts[i] = std::move(v);
    b.graded[i] = 1;
  } catch (const InputError& e) {
    impl_->bad++;
    fail(error_reply(400, "labels[" + std::to_string(i) + "]: " + e.what()));
  } catch (const std::exception& e) {
    fail(error_reply(500, std::string("internal error: ") + e.what()));
  }
}

void RewardServer::finish_batch(Batch& b) {
  impl_->batches.active--;
  if (b.failed) return b.job->finish(std::move(b.error));
  const Reason why = b.job->token->reason();
  if (why == Reason::Cancelled || why == Reason::Parent) {
    impl_->batches.cancelled++;
    impl_->cancelled++;
    return b.job->finish(cancelled_reply(why, opt_.request_budget_s));
  }
  json rewards = json::array(), scores = json::array(), acc = json::array(), found = json::array(), executed = json::array(),
       graded = json::array(), refuted = json::array(), unverified = json::array();
  size_t ungraded = 0;
  for (size_t i = 0; i < b.requests.size(); ++i) {
    const Verdict& v = b.verdicts[i];
    const bool ok = b.graded[i] != 0;
    ungraded += ok ? 0 : 1;
    // rewards: the shaped score (= the reward under the default shaping: a refuted match scores 0);
    // scores: the reward; sql_acc: the official verdict (execution_match) — as the file-mode adapter
    // (sqlgrade/openrlhf.py) answers.
    rewards.push_back(ok ? v.score : 0.0);
    scores.push_back(ok ? v.reward : 0.0);
    acc.push_back(ok && v.execution_match ? 1.0 : 0.0);  // the official verdict (sql_refuted: verify said no)
    found.push_back(ok && v.extracted_sql ? 1.0 : 0.0);
    executed.push_back(ok && v.pred_executed.value_or(false) ? 1.0 : 0.0);
    graded.push_back(ok ? 1.0 : 0.0);
    refuted.push_back(ok && v.stage == VerdictStage::Refuted ? 1.0 : 0.0);
    unverified.push_back(ok && v.verify && v.verify->status == "unverified" ? 1.0 : 0.0);
  }
  impl_->batches.rollouts_graded += b.requests.size() - ungraded;
  impl_->batches.rollouts_ungraded += ungraded;
  json reply = {{"rewards", rewards},
                {"scores", scores},
                {"extra_logs", {{"sql_acc", acc}, {"sql_found", found}, {"sql_executed", executed}, {"sql_graded", graded},
                                {"sql_refuted", refuted}, {"sql_unverified", unverified}}},
                {"ungraded", ungraded},
                {"queued_s", b.job->queued_s}};
  if (ungraded > 0) {
    impl_->batches.over_budget++;
    reply["budget_exceeded"] = budget_exceeded_message(opt_.request_budget_s) + ": " + std::to_string(ungraded) + " of " +
                               std::to_string(b.requests.size()) + " rollouts not graded (reward 0, sql_graded 0)";
  }
  b.job->finish(bounded(dump(reply)));
}

Reply guarded(const std::function<Reply()>& work, std::atomic<uint64_t>& bad) {
  try {
    return work();
  } catch (const json::parse_error& e) {
    bad++;
    return error_reply(400, std::string("invalid JSON: ") + e.what());
  } catch (const InputError& e) {  // BadRequest included
    bad++;
    return error_reply(400, e.what());
  } catch (const json::exception& e) {
    bad++;
    return error_reply(400, std::string("bad request field: ") + e.what());
  } catch (const std::exception& e) {
    return error_reply(500, std::string("internal error: ") + e.what());
  }
}

}  // namespace sqlgrade::serve
