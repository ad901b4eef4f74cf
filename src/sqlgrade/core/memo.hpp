#pragma once
// The one memo of sqlgrade: a thread-safe, single-flight, bounded (LRU) map from a key to a computed,
// shared, immutable value. Every gold cache is one of these: the CLI runners' gold results (unbounded,
// one run), the Spider test-suite evaluator's gold results, and the reward server's SHA-256-keyed gold
// cache (bounded by entries and bytes).
//
// Semantics (tests/unit/core_memo_test.cpp):
// - Single flight: concurrent get() calls for the same missing key run compute() once; the others wait
//   for it and receive the same value. Each call counts one hit (the key was present, computed or still
//   being computed) or one miss (this call computed it).
// - Failures are never cached. When compute() throws, the entry is removed and the exception reaches
//   the caller that computed *and* every caller that was already waiting for that computation (they
//   asked for the same thing at the same moment; retrying for each of them would multiply a failing,
//   possibly slow computation by the number of waiters). The next get() after the failure computes
//   anew. A value for which keep(value) is false (e.g. a gold that timed out under load) is handed to
//   the computing caller and its waiters, then dropped in the same way.
// - Bounds: at most max_entries entries (in flight ones included) and max_bytes bytes, where an
//   entry costs cost(key, value) bytes (0 without a cost function). After each insertion the least
//   recently used *finished* entries are evicted until both bounds hold; entries in flight are never
//   evicted (their waiters hold them). A value that alone costs more than max_bytes is returned but
//   not kept, and evicts nothing.
// - Values are shared_ptr<const V>: an evicted value stays alive for as long as a caller holds it, and
//   evicted values are released outside the lock.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <limits>
#include <stdexcept>
#include <list>
#include <memory>
#include <mutex>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sqlgrade {

struct MemoBounds {
  size_t max_entries = std::numeric_limits<size_t>::max();
  size_t max_bytes = std::numeric_limits<size_t>::max();
};

template <class Key, class Value, class Hash = std::hash<Key>, class Eq = std::equal_to<Key>>
class Memo {
 public:
  using Ptr = std::shared_ptr<const Value>;
  using Cost = std::function<size_t(const Key&, const Value&)>;
  using Keep = std::function<bool(const Value&)>;

  explicit Memo(MemoBounds bounds = {}, Cost cost = nullptr, Keep keep = nullptr)
      : bounds_(bounds), cost_(std::move(cost)), keep_(std::move(keep)) {}
  Memo(const Memo&) = delete;
  Memo& operator=(const Memo&) = delete;

  // The value of `key`: the memoised one, else compute()'s (which returns a Value or a Ptr).
  // *hit (when given) tells which. Rethrows compute()'s exception (see above).
  template <class F>
  Ptr get(const Key& key, F&& compute, bool* hit = nullptr) {
    std::unique_lock<std::mutex> lk(mu_);
    auto it = map_.find(key);
    if (it != map_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.lru);
      std::shared_future<Ptr> fut = it->second.fut;
      lk.unlock();
      ++hits_;
      if (hit) *hit = true;
      return fut.get();
    }
    std::promise<Ptr> promise;
    std::shared_future<Ptr> fut = promise.get_future().share();
    lru_.push_front(key);
    const uint64_t id = ++next_id_;
    map_.emplace(key, Entry{fut, lru_.begin(), 0, false, id});
    lk.unlock();
    ++misses_;
    if (hit) *hit = false;
    Ptr v;
    try {
      if constexpr (std::is_convertible_v<std::invoke_result_t<F&>, Ptr>)
        v = compute();
      else
        v = std::make_shared<const Value>(compute());
      if (!v) throw std::logic_error("Memo: compute() returned no value");
    } catch (...) {
      promise.set_exception(std::current_exception());
      std::vector<std::shared_future<Ptr>> dropped;
      lk.lock();
      drop_locked(key, id, dropped);
      lk.unlock();
      throw;
    }
    promise.set_value(v);
    std::vector<std::shared_future<Ptr>> dropped;  // released after the lock
    const bool keep = !keep_ || keep_(*v);
    const size_t cost = keep && cost_ ? cost_(key, *v) : 0;
    lk.lock();
    it = map_.find(key);
    if (it != map_.end() && it->second.id == id) {
      if (!keep || bounds_.max_entries == 0 || cost > bounds_.max_bytes) {
        drop_locked(key, id, dropped);
      } else {
        it->second.bytes = cost;
        it->second.ready = true;
        bytes_ += cost;
        evict_locked(dropped);
      }
    }
    lk.unlock();
    dropped.clear();
    return v;
  }

  // The memoised value of key, or null (in flight or absent); counts nothing, does not touch the LRU.
  Ptr peek(const Key& key) const {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = map_.find(key);
    return it != map_.end() && it->second.ready ? it->second.fut.get() : nullptr;
  }

  size_t entries() const {
    std::lock_guard<std::mutex> lk(mu_);
    return map_.size();
  }
  size_t bytes() const {  // the sum of the kept entries' costs
    std::lock_guard<std::mutex> lk(mu_);
    return bytes_;
  }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

  // Bytes of bookkeeping per entry besides the key's own heap: map node (key, entry, hash, bucket),
  // LRU list node (a copy of the key) and the shared state of the future. For cost functions that
  // count the whole entry.
  static constexpr size_t entry_bookkeeping() {
    return 2 * sizeof(Key) + sizeof(Entry) + 4 * sizeof(void*) + 3 * 16 + 64;
  }

 private:
  struct Entry {
    std::shared_future<Ptr> fut;
    typename std::list<Key>::iterator lru;
    size_t bytes = 0;
    bool ready = false;
    uint64_t id = 0;  // which computation created it (a failed one removes only its own entry)
  };

  void drop_locked(const Key& key, uint64_t id, std::vector<std::shared_future<Ptr>>& out) {
    auto it = map_.find(key);
    if (it == map_.end() || it->second.id != id) return;
    bytes_ -= it->second.bytes;
    lru_.erase(it->second.lru);
    out.push_back(std::move(it->second.fut));
    map_.erase(it);
  }

  void evict_locked(std::vector<std::shared_future<Ptr>>& out) {
    auto pos = lru_.end();
    while ((map_.size() > bounds_.max_entries || bytes_ > bounds_.max_bytes) && pos != lru_.begin()) {
      --pos;
      auto it = map_.find(*pos);
      if (it == map_.end() || !it->second.ready) continue;
      bytes_ -= it->second.bytes;
      out.push_back(std::move(it->second.fut));
      map_.erase(it);
      pos = lru_.erase(pos);
    }
  }

  MemoBounds bounds_;
  Cost cost_;
  Keep keep_;
  mutable std::mutex mu_;
  std::unordered_map<Key, Entry, Hash, Eq> map_;
  std::list<Key> lru_;
  size_t bytes_ = 0;
  uint64_t next_id_ = 0;
  std::atomic<uint64_t> hits_{0}, misses_{0};
};

}  // namespace sqlgrade
