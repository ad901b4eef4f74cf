#pragma once
// The reward server's workers (internal to the serve module): fixed threads fed by two FIFO queues.
//
//  * requests: one task per queued request (/verify, /execute, /aggregate_metrics, and the admission
//    of a batch). Admission is bounded: at most `workers + max_queue` admitted requests at once
//    (running, waiting, or — for a batch — grading); beyond that try_admit() refuses (503).
//  * batch slices: the rollouts of admitted batches (/get_reward), a time slice at a time
//    (serve/batch.cpp). Not admitted separately: each batch has at most `workers - 1` slices queued or
//    running, and the batches themselves hold admission slots.
//
// When both queues hold work, the workers take from them in turn, so a /verify that arrives while
// batches grade waits for at most one finishing slice (or rollout), never for a whole batch.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sqlgrade::serve {

class Executor {
 public:
  Executor(unsigned workers, size_t max_queue);
  ~Executor();  // runs what is queued, then joins the threads
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Takes an admission slot (false when they are all taken: the caller answers 503). The slot is
  // given back with release(), once the request's reply is ready.
  bool try_admit();
  void release();
  // Queues a request task (after try_admit) or a batch slice. Never refused.
  void post_request(std::function<void()> fn) { post(requests_, std::move(fn)); }
  void post_slice(std::function<void()> fn) { post(slices_, std::move(fn)); }

  size_t admitted() const;  // admission slots taken
  size_t queued() const;    // tasks waiting in both queues
  unsigned workers() const { return workers_; }

 private:
  void post(std::deque<std::function<void()>>& q, std::function<void()> fn);
  void loop();
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> requests_, slices_;
  std::vector<std::thread> threads_;
  unsigned workers_ = 0;
  size_t max_queue_ = 0, admitted_ = 0;
  bool slice_turn_ = false;  // both queues hold work: whose turn it is
  bool stop_ = false;
};

}  // namespace sqlgrade::serve
