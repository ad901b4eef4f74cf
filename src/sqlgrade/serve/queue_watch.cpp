#include "sqlgrade/serve/queue_watch.hpp"

namespace sqlgrade::serve {

QueueWatch::QueueWatch() : thread_([this] { loop(); }) {}

QueueWatch::~QueueWatch() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void QueueWatch::prune_front() {
  while (!q_.empty()) {
    auto s = q_.front().state.lock();
    if (s && s->load() == Queued) return;
    q_.pop_front();
  }
}

void QueueWatch::add(Clock::time_point when, std::weak_ptr<std::atomic<int>> state, std::function<void()> expire) {
  bool first;
  {
    std::lock_guard<std::mutex> lk(mu_);
    prune_front();
    first = q_.empty();
    q_.push_back(Entry{when, std::move(state), std::move(expire)});
  }
  if (first) cv_.notify_all();
}

size_t QueueWatch::watched() const {
  std::lock_guard<std::mutex> lk(mu_);
  return q_.size();
}

void QueueWatch::loop() {
  std::unique_lock<std::mutex> lk(mu_);
  while (!stop_) {
    prune_front();
    if (q_.empty()) {
      cv_.wait(lk);
      continue;
    }
    const Clock::time_point when = q_.front().when;
    if (Clock::now() < when) {
      cv_.wait_until(lk, when);
      continue;
    }
    Entry e = std::move(q_.front());
    q_.pop_front();
    auto s = e.state.lock();
    int expected = Queued;
    if (!s || !s->compare_exchange_strong(expected, Expired)) continue;
    lk.unlock();
    e.expire();  // answers the request (503); never under the lock
    lk.lock();
  }
}

}  // namespace sqlgrade::serve
