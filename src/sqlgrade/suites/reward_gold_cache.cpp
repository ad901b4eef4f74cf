#include "sqlgrade/suites/reward_gold_cache.hpp"

namespace sqlgrade::reward {

size_t table_bytes(const Table& t) {
  size_t b = sizeof(Table);
  for (auto& c : t.columns) b += c.size() + sizeof(std::string);
  for (auto& r : t.rows) {
    b += sizeof(Row) + r.size() * sizeof(Value);
    for (auto& v : r) b += v.s.size();
  }
  return b;
}

#ifdef SQLGRADE_HAVE_SPIDER2
size_t frame_bytes(const spider2::Frame& f) {
  size_t b = sizeof(spider2::Frame);
  for (auto& c : f.columns) {
    b += sizeof(spider2::Column) + c.name.size() + c.cells.size() * sizeof(spider2::Cell);
    for (auto& x : c.cells) b += x.s.size();
  }
  return b;
}
#endif

GoldPtr GoldCache::get(const std::string& key, const std::function<GoldPtr()>& compute, bool* hit) {
  std::unique_lock<std::mutex> lk(mu_);
  auto it = map_.find(key);
  if (it != map_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    auto fut = it->second.fut;
    lk.unlock();
    ++hits_;
    if (hit) *hit = true;
    return fut.get();
  }
  std::promise<GoldPtr> promise;
  auto fut = promise.get_future().share();
  lru_.push_front(key);
  map_.emplace(key, Entry{fut, lru_.begin(), 0, false});
  lk.unlock();
  ++misses_;
  if (hit) *hit = false;
  GoldPtr g;
  try {
    g = compute();
  } catch (const std::exception& e) {
    auto d = std::make_shared<GoldData>();
    d->error = std::string("internal error: ") + e.what();
    g = d;
  }
  promise.set_value(g);
  lk.lock();
  it = map_.find(key);
  if (it != map_.end() && it->second.fut.valid()) {
    if (g->timeout || max_entries_ == 0) {
      lru_.erase(it->second.lru);
      map_.erase(it);
    } else {
      it->second.bytes = g->bytes;
      it->second.ready = true;
      bytes_ += g->bytes;
      evict_locked();
    }
  }
  return g;
}

size_t GoldCache::entries() const {
  std::lock_guard<std::mutex> lk(mu_);
  return map_.size();
}

size_t GoldCache::bytes() const {
  std::lock_guard<std::mutex> lk(mu_);
  return bytes_;
}

void GoldCache::evict_locked() {
  while ((map_.size() > max_entries_ || bytes_ > max_bytes_) && !lru_.empty()) {
    auto it = map_.find(lru_.back());
    if (it != map_.end()) {
      bytes_ -= it->second.bytes;
      map_.erase(it);
    }
    lru_.pop_back();
  }
}

}  // namespace sqlgrade::reward
