#include "sqlgrade/serve/gold_cache.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace sqlgrade::serve {

namespace {

constexpr size_t kMallocHeader = 16;  // glibc: size word + alignment of every block

size_t string_heap(const std::string& s) {
  // libstdc++ keeps up to 15 bytes inside the object (small-string buffer).
  return s.capacity() > 15 ? s.capacity() + 1 + kMallocHeader : 0;
}

template <class T>
size_t vector_heap(const std::vector<T>& v) {
  return v.capacity() ? v.capacity() * sizeof(T) + kMallocHeader : 0;
}

}  // namespace

size_t table_bytes(const Table& t) {
  size_t b = vector_heap(t.columns) + vector_heap(t.rows);
  for (auto& c : t.columns) b += string_heap(c);
  for (auto& r : t.rows) {
    b += vector_heap(r);
    for (auto& v : r) b += string_heap(v.s);
  }
  return b;
}

size_t frame_bytes(const spider2::Frame& f) {
  size_t b = vector_heap(f.columns);
  for (auto& c : f.columns) {
    b += string_heap(c.name) + vector_heap(c.cells);
    for (auto& x : c.cells) b += string_heap(x.s);
  }
  return b;
}

size_t gold_bytes(const GoldData& d) {
  size_t b = sizeof(GoldData) + kMallocHeader + string_heap(d.error) + vector_heap(d.tables);
  for (auto& t : d.tables) b += table_bytes(t);
  b += vector_heap(d.frames);
  for (auto& f : d.frames) b += frame_bytes(f);
  b += table_bytes(d.exec.table) + string_heap(d.exec.error);
  return b;
}

bool load_dependent(const ExecResult& r) {
  if (r.status == ExecStatus::Timeout) return true;
  if (r.status != ExecStatus::Error) return false;  // Ok and TooLarge are properties of query and data
  for (const char* m : {"out of memory", "is locked", "database is busy", "disk I/O error", "unable to open",
                        "cannot open", "interrupted", "Too many open files"})
    if (r.error.find(m) != std::string::npos) return true;
  return false;
}

std::string gold_key(std::initializer_list<std::string_view> parts) {
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) throw std::runtime_error("SHA-256 unavailable");
  for (std::string_view p : parts) {
    uint64_t n = p.size();
    EVP_DigestUpdate(ctx.get(), &n, sizeof n);
    EVP_DigestUpdate(ctx.get(), p.data(), p.size());
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), md, &len);
  return std::string(reinterpret_cast<const char*>(md), len);
}

size_t GoldCache::entry_overhead(const std::string& key) {
  // unordered_map node (key, Entry, hash) + list node (key copy) + bucket + shared future state.
  return 2 * (sizeof(std::string) + string_heap(key)) + sizeof(Entry) + 4 * sizeof(void*) + 3 * kMallocHeader + 64;
}

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
    d->transient = true;  // std::bad_alloc and the like: the next request may well succeed
    g = d;
  }
  promise.set_value(g);
  std::vector<std::shared_future<GoldPtr>> evicted;
  lk.lock();
  it = map_.find(key);
  if (it != map_.end() && it->second.fut.valid()) {
    size_t cost = g->bytes + entry_overhead(key);
    if (g->transient || max_entries_ == 0 || cost > max_bytes_) {
      evicted.push_back(std::move(it->second.fut));
      lru_.erase(it->second.lru);
      map_.erase(it);
    } else {
      it->second.bytes = cost;
      it->second.ready = true;
      bytes_ += cost;
      evict_locked(evicted);
    }
  }
  lk.unlock();
  evicted.clear();  // large results are freed outside the lock (/health reads the counters)
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

void GoldCache::evict_locked(std::vector<std::shared_future<GoldPtr>>& out) {
  // Entries still being computed are skipped (their waiters hold them); they are at most one per
  // running verify.
  auto pos = lru_.end();
  while ((map_.size() > max_entries_ || bytes_ > max_bytes_) && pos != lru_.begin()) {
    --pos;
    auto it = map_.find(*pos);
    if (it == map_.end() || !it->second.ready) continue;
    bytes_ -= it->second.bytes;
    out.push_back(std::move(it->second.fut));
    map_.erase(it);
    pos = lru_.erase(pos);
  }
}

}  // namespace sqlgrade::serve
