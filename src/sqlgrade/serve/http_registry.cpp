#include "sqlgrade/serve/http_registry.hpp"

#include <algorithm>
#include <vector>

namespace sqlgrade::serve {

bool Registry::admit(Tracked* s) {
  std::lock_guard<std::mutex> lk(mu_);
  if (conn_ >= max_conn_ && !evict_oldest_locked(nullptr, true)) {
    ++refused_;
    return false;
  }
  ++conn_;
  s->counted = true;
  s->all_pos = all_.insert(all_.end(), s);
  return true;
}

// s enters (on) or leaves one of the lists of connections that may give way.
void Registry::mark_locked(std::list<Tracked*>& list, Tracked* s, bool on, bool& in, std::list<Tracked*>::iterator& pos) {
  if (on && !in && !s->evicted) {
    pos = list.insert(list.end(), s);
    in = true;
  } else if (!on && in) {
    list.erase(pos);
    in = false;
  }
}

void Registry::reading(Tracked* s, bool on) {
  std::lock_guard<std::mutex> lk(mu_);
  mark_locked(waiting_, s, on, s->is_waiting, s->waiting_pos);
}

void Registry::writing(Tracked* s, bool on) {
  std::lock_guard<std::mutex> lk(mu_);
  mark_locked(writing_, s, on, s->is_writing, s->writing_pos);
}

Registry::Reserve Registry::hold(Tracked* s, size_t total) {
  std::lock_guard<std::mutex> lk(mu_);
  if (s->evicted) return Reserve::Evicted;
  if (total <= s->held) {  // a reply smaller than its request, or nothing new
    buffered_ -= s->held - total;
    s->held = total;
    return Reserve::Ok;
  }
  size_t more = total - s->held;
  while (buffered_ + more > max_buffered_)
    if (!evict_oldest_locked(s, true, /*holding_bytes=*/true)) {
      ++over_budget_;
      return Reserve::Refused;
    }
  buffered_ += more;
  peak_buffered_ = std::max(peak_buffered_, buffered_);
  s->held = total;
  return Reserve::Ok;
}

void Registry::release(Tracked* s) {
  std::lock_guard<std::mutex> lk(mu_);
  buffered_ -= s->held;
  s->held = 0;
}

// s leaves every list, gives back its bytes and stops counting.
void Registry::forget_locked(Tracked* s) {
  mark_locked(waiting_, s, false, s->is_waiting, s->waiting_pos);
  mark_locked(writing_, s, false, s->is_writing, s->writing_pos);
  buffered_ -= s->held;
  s->held = 0;
  if (s->counted) {
    --conn_;
    all_.erase(s->all_pos);
  }
  s->counted = false;
}

void Registry::gone(Tracked* s) {
  std::lock_guard<std::mutex> lk(mu_);
  forget_locked(s);
}

// The connection stops counting at once; it is closed on its own strand (reset when its reply is
// unread). `alive` keeps it from being destroyed meanwhile; close_soon() holds its own reference.
void Registry::evict_locked(Tracked* v, const std::shared_ptr<void>& alive) {
  const bool unread_reply = v->is_writing;
  forget_locked(v);
  v->evicted = true;
  v->close_soon(unread_reply);
  (void)alive;
}

// The connection that has waited longest for its request gives way; failing that (and when allowed),
// the one whose reply has waited longest to be taken. To make room in the buffer bound
// (`holding_bytes`), only a connection that holds bytes can help.
bool Registry::evict_oldest_locked(Tracked* except, bool writers_too, bool holding_bytes) {
  for (std::list<Tracked*>* list : {&waiting_, &writing_}) {
    if (list == &writing_ && !writers_too) break;
    for (Tracked* v : *list) {
      if (v == except || (holding_bytes && v->held == 0)) continue;
      std::shared_ptr<void> alive = v->keep_alive();
      if (!alive) continue;  // being destroyed: gone() frees its share
      ++(list == &waiting_ ? evicted_ : evicted_writers_);
      evict_locked(v, alive);
      return true;
    }
  }
  return false;
}

void Registry::close_waiting() {
  std::lock_guard<std::mutex> lk(mu_);
  while (evict_oldest_locked(nullptr, false)) {
  }
}

void Registry::close_all() {
  std::vector<std::shared_ptr<void>> keep;
  std::lock_guard<std::mutex> lk(mu_);
  for (Tracked* v : all_)
    if (auto alive = v->keep_alive()) {
      v->close_soon(true);
      keep.push_back(std::move(alive));
    }
}

nlohmann::json Registry::stats() const {
  std::lock_guard<std::mutex> lk(mu_);
  return nlohmann::json{{"connections", conn_},
                        {"waiting_for_request", waiting_.size()},
                        {"writing_reply", writing_.size()},
                        {"buffered_bytes", buffered_},
                        {"peak_buffered_bytes", peak_buffered_},
                        {"max_connections", max_conn_},
                        {"max_buffered_bytes", max_buffered_},
                        {"evicted", evicted_},
                        {"evicted_unread_replies", evicted_writers_},
                        {"refused", refused_},
                        {"refused_over_buffer", over_budget_},
                        {"timed_out", timed_out_.load()},
                        {"write_timed_out", write_timed_out_.load()},
                        {"client_hung_up", hung_up_.load()}};
}

size_t Registry::connections() const {
  std::lock_guard<std::mutex> lk(mu_);
  return conn_;
}

}  // namespace sqlgrade::serve
