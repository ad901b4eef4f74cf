#pragma once
// Run a work list on N threads with deterministic results (each item writes its own slot), and a
// progress bar on stderr when stderr is a terminal (silent in pipes and CI).
#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>

namespace sqlgrade {

// Number of worker threads to use: `requested` if > 0, else the number of cores.
unsigned resolve_jobs(int requested);

class Progress {
 public:
  // enabled: -1 = auto (stderr is a TTY and CI is unset), 0 = off, 1 = on.
  Progress(std::string label, size_t total, int enabled = -1);
  ~Progress();
  void tick(size_t n = 1);
  void finish();
  bool enabled() const { return enabled_; }

 private:
  void draw(bool final);
  std::string label_;
  size_t total_;
  bool enabled_;
  std::atomic<size_t> done_{0};
  std::mutex mu_;
  long long last_draw_ms_ = 0;
  long long start_ms_ = 0;
  bool finished_ = false;
};

// Calls fn(i) for i in [0, n) on `jobs` threads. Exceptions escaping fn are rethrown (the first one)
// after all threads stop. progress may be null.
void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& fn, Progress* progress = nullptr);

}  // namespace sqlgrade
