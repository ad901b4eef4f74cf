#pragma once
// What every HTTP connection of the reward server shares (internal to serve/http.cpp): the number of
// connections, the bytes they buffer — request bodies being read or processed and replies being
// written, under one process-wide bound (--max-buffered-mb) — and which connections give way when a
// bound is reached. Thread-safe.
//
// Who gives way: first the connection that has waited longest for its request to complete (an idle
// keep-alive connection, a slow or stalled upload), then the one whose reply has waited longest to be
// taken (a client that does not read). A client that reads its reply takes it in milliseconds, so
// the oldest unread reply is almost always one nobody reads.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>

#include <nlohmann/json.hpp>

namespace sqlgrade::serve {

// A connection as the registry sees it.
class Tracked {
 public:
  virtual ~Tracked() = default;
  // From any thread: close the connection; `abort` resets it (an unread reply is dropped, from the
  // kernel's send buffer too, rather than sent after a FIN).
  virtual void close_soon(bool abort) = 0;
  virtual std::shared_ptr<void> keep_alive() = 0;  // null once the connection is being destroyed

  // Registry state, guarded by the registry's mutex.
  std::list<Tracked*>::iterator waiting_pos, writing_pos, all_pos;
  bool is_waiting = false, is_writing = false, counted = false, evicted = false;
  size_t held = 0;
};

class Registry {
 public:
  Registry(size_t max_connections, size_t max_buffered) : max_conn_(max_connections), max_buffered_(max_buffered) {}

  bool admit(Tracked* s);                    // a new connection: true when it may be served
  void reading(Tracked* s, bool on);         // s starts / stops waiting for a request
  void writing(Tracked* s, bool on);         // s starts / stops writing a reply
  enum class Reserve { Ok, Refused, Evicted };
  Reserve hold(Tracked* s, size_t total);    // s now holds `total` bytes (a body or a reply)
  void release(Tracked* s);                  // s holds no bytes any more
  void gone(Tracked* s);                     // s is destroyed
  void close_waiting();                      // shutdown: close every connection waiting for a request
  void close_all();                          // shutdown, after the grace: close every connection
  void timed_out() { ++timed_out_; }
  void write_timed_out() { ++write_timed_out_; }
  void hung_up() { ++hung_up_; }
  nlohmann::json stats() const;
  size_t connections() const;

 private:
  void forget_locked(Tracked* s);
  void mark_locked(std::list<Tracked*>& list, Tracked* s, bool on, bool& in, std::list<Tracked*>::iterator& pos);
  bool evict_oldest_locked(Tracked* except, bool writers_too, bool holding_bytes = false);
  void evict_locked(Tracked* v, const std::shared_ptr<void>& alive);
  mutable std::mutex mu_;
  std::list<Tracked*> waiting_, writing_, all_;
  size_t conn_ = 0, buffered_ = 0, peak_buffered_ = 0;
  const size_t max_conn_, max_buffered_;
  uint64_t evicted_ = 0, evicted_writers_ = 0, refused_ = 0, over_budget_ = 0;
  std::atomic<uint64_t> timed_out_{0}, write_timed_out_{0}, hung_up_{0};
};

}  // namespace sqlgrade::serve
