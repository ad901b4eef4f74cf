#pragma once
// One timer thread for the server engines: an action runs when its deadline passes, or as soon as the
// cancellation token it watches is cancelled (core/cancel.hpp: the reward server's client hung up),
// unless it is disarmed first. The MySQL engine's calls block inside MariaDB Connector/C, so the
// KILL QUERY of its deadline, and the socket shutdown after the grace period, are sent from here.
#include <chrono>
#include <cstdint>
#include <functional>

#include "sqlgrade/core/cancel.hpp"

namespace sqlgrade::server_watchdog {

using Clock = std::chrono::steady_clock;
using Id = uint64_t;

// Runs `action` on the watchdog thread at `when`, or when `token` (may be null) is cancelled — checked
// every 20 ms. Returns its id.
Id arm(Clock::time_point when, const CancelToken* token, std::function<void()> action);

// After disarm() returns, the action is not running and will never run.
void disarm(Id id);

// Arms in the constructor, disarms in the destructor.
class Guard {
 public:
  Guard(Clock::time_point when, const CancelToken* token, std::function<void()> action)
      : id_(arm(when, token, std::move(action))) {}
  ~Guard() { disarm(id_); }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

 private:
  Id id_;
};

}  // namespace sqlgrade::server_watchdog
