#include "sqlgrade/serve/executor.hpp"

#include <algorithm>

namespace sqlgrade::serve {

Executor::Executor(unsigned workers, size_t max_queue) : workers_(std::max(workers, 1u)), max_queue_(max_queue) {
  for (unsigned i = 0; i < workers_; ++i) threads_.emplace_back([this] { loop(); });
}

Executor::~Executor() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

bool Executor::try_admit() {
  std::lock_guard<std::mutex> lk(mu_);
  if (stop_ || admitted_ >= workers_ + max_queue_) return false;
  ++admitted_;
  return true;
}

void Executor::release() {
  std::lock_guard<std::mutex> lk(mu_);
  --admitted_;
}

size_t Executor::admitted() const {
  std::lock_guard<std::mutex> lk(mu_);
  return admitted_;
}

size_t Executor::queued() const {
  std::lock_guard<std::mutex> lk(mu_);
  return requests_.size() + slices_.size();
}

void Executor::post(std::deque<std::function<void()>>& q, std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    q.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void Executor::loop() {
  while (true) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return stop_ || !requests_.empty() || !slices_.empty(); });
      if (requests_.empty() && slices_.empty()) return;  // stopping, nothing left
      bool slice = requests_.empty() || (!slices_.empty() && slice_turn_);
      if (!requests_.empty() && !slices_.empty()) slice_turn_ = !slice_turn_;
      auto& q = slice ? slices_ : requests_;
      fn = std::move(q.front());
      q.pop_front();
    }
    fn();
  }
}

}  // namespace sqlgrade::serve
