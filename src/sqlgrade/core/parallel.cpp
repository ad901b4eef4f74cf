#include "sqlgrade/core/parallel.hpp"

#include "sqlgrade/core/clock.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>
#include <unistd.h>
#include <vector>

namespace sqlgrade {

unsigned resolve_jobs(int requested) {
  if (requested > 0) return static_cast<unsigned>(requested);
  unsigned hc = std::thread::hardware_concurrency();
  return hc ? hc : 1;
}

static long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Progress::Progress(std::string label, size_t total, int enabled)
    : label_(std::move(label)), total_(total) {
  if (enabled < 0)
    enabled_ = ::isatty(2) && std::getenv("CI") == nullptr && total > 1;
  else
    enabled_ = enabled > 0;
  start_ms_ = now_ms();
}

Progress::~Progress() { finish(); }

void Progress::tick(size_t n) {
  done_ += n;
  if (!enabled_) return;
  long long t = now_ms();
  std::lock_guard<std::mutex> lk(mu_);
  if (t - last_draw_ms_ < 100 && done_ < total_) return;
  last_draw_ms_ = t;
  draw(false);
}

void Progress::draw(bool final) {
  size_t d = done_.load();
  double frac = total_ ? static_cast<double>(d) / static_cast<double>(total_) : 1.0;
  int width = 30, fill = static_cast<int>(frac * width);
  std::string bar(fill, '#');
  bar += std::string(width - fill, '.');
  double secs = static_cast<double>(now_ms() - start_ms_) / 1000.0;
  std::fprintf(stderr, "\r%s [%s] %zu/%zu %.1fs%s", label_.c_str(), bar.c_str(), d, total_, secs,
               final ? "\n" : "");
  std::fflush(stderr);
}

void Progress::finish() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lk(mu_);
  if (finished_) return;
  finished_ = true;
  draw(true);
}

void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& fn, Progress* progress) {
  if (n == 0) return;
  if (jobs <= 1 || n == 1) {
    for (size_t i = 0; i < n; ++i) {
      fn(i);
      if (progress) progress->tick();
    }
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr first_error;
  std::mutex err_mu;
  std::atomic<bool> stop{false};
  // The caller's pinned SQL clock holds in every worker (core/clock.hpp).
  const std::optional<sql_clock::Millis> clock = sql_clock::pinned();
  auto worker = [&] {
    sql_clock::ClockScope pin(clock);
    while (!stop) {
      size_t i = next++;
      if (i >= n) break;
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lk(err_mu);
        if (!first_error) first_error = std::current_exception();
        stop = true;
      }
      if (progress) progress->tick();
    }
  };
  unsigned t = std::min<size_t>(jobs, n);
  std::vector<std::thread> threads;
  threads.reserve(t);
  for (unsigned k = 0; k < t; ++k) threads.emplace_back(worker);
  for (auto& th : threads) th.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace sqlgrade
