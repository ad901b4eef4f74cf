#pragma once
// The reward server's queue timeout (internal to the serve module): one thread that answers, at its
// deadline, a request still waiting for a worker. Like NeMo Gym's shared process pool (PR #3560:
// bounded queue, PoolSaturatedError after a queue timeout), a request never waits for a worker
// longer than --queue-timeout: it gets a 503 with Retry-After instead (docs/serve.md, "Saturation").
//
// Each watched request has a state word shared with its worker: 0 queued, 1 taken by a worker,
// 2 expired. Whoever moves it from 0 first owns the reply (a compare-and-swap), so a request is
// answered exactly once. The deadlines are added in admission order with one timeout, so the queue
// is FIFO; entries of requests already taken are dropped as they reach the front.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace sqlgrade::serve {

class QueueWatch {
 public:
  using Clock = std::chrono::steady_clock;
  enum State : int { Queued = 0, Taken = 1, Expired = 2 };

  QueueWatch();
  ~QueueWatch();  // drops what is still watched (the workers answer those requests)
  QueueWatch(const QueueWatch&) = delete;
  QueueWatch& operator=(const QueueWatch&) = delete;

  // At `when`, if `state` is still Queued, sets it to Expired and calls `expire` (on the watch's thread).
  void add(Clock::time_point when, std::weak_ptr<std::atomic<int>> state, std::function<void()> expire);
  size_t watched() const;

  // Queued -> Taken; false when the request had already expired (its 503 is sent).
  static bool take(std::atomic<int>& state) {
    int expected = Queued;
    return state.compare_exchange_strong(expected, Taken);
  }

 private:
  struct Entry {
    Clock::time_point when;
    std::weak_ptr<std::atomic<int>> state;
    std::function<void()> expire;
  };
  void loop();
  void prune_front();  // with mu_ held: drops the entries at the front whose request is no longer queued
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Entry> q_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace sqlgrade::serve
