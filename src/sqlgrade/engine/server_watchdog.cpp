// The server engines' timer thread — see server_watchdog.hpp.
#include "sqlgrade/engine/server_watchdog.hpp"

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace sqlgrade::server_watchdog {

namespace {

struct Entry {
  Clock::time_point when;
  const CancelToken* token;
  std::function<void()> action;
};

struct State {
  std::mutex mu;
  std::condition_variable changed, done;
  std::map<Id, Entry> entries;
  Id next = 1;
  Id running = 0;  // the id whose action runs now (outside the lock)
  bool started = false;
};

// Never destroyed: engines may disarm during static destruction.
State& state() {
  static State* s = new State;
  return *s;
}

// The entry due now (its deadline passed or its token cancelled), or 0.
Id due(State& s, Clock::time_point now, Clock::time_point& next_wake) {
  next_wake = Clock::time_point::max();
  for (auto& [id, e] : s.entries) {
    if (e.when <= now || (e.token && e.token->cancelled())) return id;
    next_wake = std::min(next_wake, e.token ? now + std::chrono::milliseconds(20) : e.when);
  }
  return 0;
}

void loop() {
  State& s = state();
  std::unique_lock<std::mutex> lk(s.mu);
  for (;;) {
    if (s.entries.empty()) {
      s.changed.wait(lk);
      continue;
    }
    Clock::time_point wake;
    Id id = due(s, Clock::now(), wake);
    if (!id) {
      s.changed.wait_until(lk, wake);
      continue;
    }
    std::function<void()> action = std::move(s.entries[id].action);
    s.entries.erase(id);
    s.running = id;
    lk.unlock();
    try {
      action();
    } catch (...) {
    }
    lk.lock();
    s.running = 0;
    s.done.notify_all();
  }
}

}  // namespace

Id arm(Clock::time_point when, const CancelToken* token, std::function<void()> action) {
  State& s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  if (!s.started) {
    std::thread(loop).detach();
    s.started = true;
  }
  Id id = s.next++;
  s.entries.emplace(id, Entry{when, token, std::move(action)});
  s.changed.notify_all();
  return id;
}

void disarm(Id id) {
  State& s = state();
  std::unique_lock<std::mutex> lk(s.mu);
  s.entries.erase(id);
  s.done.wait(lk, [&] { return s.running != id; });
}

}  // namespace sqlgrade::server_watchdog
