#pragma once
// Cooperative cancellation of the work one thread does for one request (the reward server's clients
// hang up, run out of their time budget, or the server shuts down).
//
// A CancelToken is cancelled explicitly (cancel(), from any thread), by its deadline, or through its
// parent (the server's token cancels every request's token). The work a thread does runs under one
// token at a time, set with a CancelScope; the SQLite engine's deadline check
// (engine/sqlite_builtins.hpp, Deadline::expired) reads cancel_requested(), so a cancelled request's
// query stops at the next progress-handler tick, as at its own deadline. Header-only: a thread-local
// pointer and an atomic flag, nothing else.
#include <atomic>
#include <chrono>

namespace sqlgrade {

class CancelToken {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Reason { None, Cancelled, Deadline, Parent };

  explicit CancelToken(const CancelToken* parent = nullptr, Clock::time_point deadline = Clock::time_point::max())
      : parent_(parent), deadline_(deadline.time_since_epoch().count()) {}
  CancelToken(const CancelToken&) = delete;
  CancelToken& operator=(const CancelToken&) = delete;

  void cancel() { flag_.store(true, std::memory_order_relaxed); }
  Clock::time_point deadline() const { return Clock::time_point(Clock::duration(deadline_.load(std::memory_order_relaxed))); }
  // Sets the deadline later (the reward server starts a request's budget when a worker takes it, not
  // when it is queued). Any thread; the work reads it at its next check.
  void set_deadline(Clock::time_point d) { deadline_.store(d.time_since_epoch().count(), std::memory_order_relaxed); }
  const CancelToken* parent() const { return parent_; }

  // Why the work must stop (None: it may go on). Cancelled wins over Deadline over Parent.
  Reason reason() const {
    if (flag_.load(std::memory_order_relaxed)) return Reason::Cancelled;
    const Clock::time_point d = deadline();
    if (d != Clock::time_point::max() && Clock::now() >= d) return Reason::Deadline;
    if (parent_ && parent_->cancelled()) return Reason::Parent;
    return Reason::None;
  }
  bool cancelled() const { return reason() != Reason::None; }

 private:
  std::atomic<bool> flag_{false};
  const CancelToken* parent_;
  std::atomic<Clock::rep> deadline_;  // Clock::time_point's count (max(): none)
};

namespace cancel_detail {
inline thread_local const CancelToken* current = nullptr;
}

// The token the calling thread's work runs under (null: none).
inline const CancelToken* current_cancel_token() { return cancel_detail::current; }

// True when the calling thread's work should stop (its token is cancelled, past its deadline, or its
// parent is cancelled). Cheap: one thread-local read when there is no token.
inline bool cancel_requested() {
  const CancelToken* t = cancel_detail::current;
  return t && t->cancelled();
}

// Runs the rest of a scope under `token` (null: under none), then restores the previous token.
class CancelScope {
 public:
  explicit CancelScope(const CancelToken* token) : saved_(cancel_detail::current) { cancel_detail::current = token; }
  ~CancelScope() { cancel_detail::current = saved_; }
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  const CancelToken* saved_;
};

}  // namespace sqlgrade
