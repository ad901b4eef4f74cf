#pragma once
// The deadline of one query's whole life: started before the prediction runs, it also bounds what is
// done with the result afterwards — converting it (the Spider 2.0-Lite CSV round trip, pandas
// typing), comparing it (every benchmark's rule) and serialising it. The engines keep their own
// per-statement state (engine/sqlite_builtins.hpp); work after the engine takes a `const Deadline&`
// and checks it through a DeadlineTicker, which reads the clock once per few thousand units of work
// (a cell, a comparison), so that a check costs a counter increment.
//
// When the deadline has passed, the work throws DeadlineExceeded; the benchmark turns it into a
// verdict of 0 with the reason "timeout", exactly as for a query that times out. A default Deadline
// never expires and changes nothing.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "sqlgrade/core/cancel.hpp"

namespace sqlgrade {

// Thrown by work that checks a Deadline once it has passed.
class DeadlineExceeded : public std::runtime_error {
 public:
  DeadlineExceeded() : std::runtime_error("timeout") {}
};

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  Deadline() = default;  // none: never expires

  // `seconds` from now. None when `seconds` is not a positive finite number, or is so large (over
  // ten years) that the time point would be meaningless: a deadline never overflows the clock.
  static Deadline in(double seconds) {
    Deadline d;
    if (!(seconds > 0) || !std::isfinite(seconds) || seconds > 3.2e8) return d;
    d.until_ = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
    d.active_ = true;
    return d;
  }
  // What a `timeout_s` deadline leaves, from now, once `spent_s` of it went to the query itself (the
  // engine reports its time): the comparison gets the rest. None when `timeout_s` sets none.
  static Deadline left_of(double timeout_s, double spent_s) {
    Deadline d = in(timeout_s);
    if (!d.active_) return d;
    const double left = timeout_s - (std::isfinite(spent_s) ? spent_s : timeout_s);
    return in(left > 1e-6 ? left : 1e-6);
  }
  static Deadline at(Clock::time_point t) {
    Deadline d;
    d.until_ = t;
    d.active_ = true;
    return d;
  }

  bool active() const { return active_; }
  Clock::time_point until() const { return until_; }
  // Also true once the work this thread does was cancelled (core/cancel.hpp: the reward server's
  // client hung up, its request budget ran out, or the server stops): the work then ends as at its
  // deadline.
  bool expired() const { return active_ && (Clock::now() >= until_ || cancel_requested()); }
  // Seconds left (0 once expired); +infinity without a deadline.
  double remaining_s() const {
    if (!active_) return INFINITY;
    double s = std::chrono::duration<double>(until_ - Clock::now()).count();
    return s > 0 ? s : 0;
  }
  void check() const {
    if (expired()) throw DeadlineExceeded();
  }

 private:
  Clock::time_point until_{};
  bool active_ = false;
};

// Amortised checking: tick(n) after n units of work; the clock is read once per `every` units.
class DeadlineTicker {
 public:
  explicit DeadlineTicker(const Deadline& d, uint32_t every = 4096) : d_(d.active() ? &d : nullptr), every_(every) {}
  void tick(uint64_t work = 1) {
    if (!d_) return;
    n_ += work;
    if (n_ >= every_) {
      n_ = 0;
      d_->check();
    }
  }

 private:
  const Deadline* d_;
  uint64_t every_;
  uint64_t n_ = 0;
};

}  // namespace sqlgrade
