// SqlitePool (sqlite.hpp): a bounded set of SQLite items — read-only connections to files, and items
// kept per database by the verification search — shared by every thread.
//
// Before, each thread kept one connection per database file for its whole life: 5,000 databases meant
// 5,006 open files and 539 MiB, and under the common limit of 1,024 open files a third of the correct
// answers scored 0 ("unable to open database file"). Then at most max_open() connections were open.
// Issue 31: the verification search kept a scratch database per thread and a schema sample per
// database for the life of the process (+679 MiB in the server after 100 databases); they are items of
// this pool now, and every item counts against one byte bound.
#include <sys/resource.h>

#include <algorithm>
#include <condition_variable>
#include <list>
#include <mutex>
#include <unordered_map>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/engine/sqlite.hpp"

namespace sqlgrade {

struct SqlitePool::Entry {
  std::string key;
  std::unique_ptr<PoolItem> item;
  size_t bytes = 0;   // as measured when it was made or last came back
  bool file = false;  // holds an open file (counted against max_open)
};

namespace {

using Entry = SqlitePool::Entry;
using Idle = std::list<std::unique_ptr<Entry>>;

struct PoolState {
  std::mutex mu;
  std::condition_variable returned;
  size_t max_open_opt = 0;
  size_t max_bytes_opt = 0;
  size_t default_bound = 0;  // from RLIMIT_NOFILE, re-read whenever a connection is about to open
  size_t open = 0;           // file connections leased + idle + being opened
  size_t bytes = 0;          // bytes of every item, leased or idle
  size_t items = 0;          // items leased + idle
  Idle idle;                 // most recently used first
  std::unordered_multimap<std::string, Idle::iterator> idle_by_key;
};

// Never destroyed: leases may end in threads that outlive static destruction.
PoolState& state() {
  static PoolState* s = new PoolState;
  return *s;
}

size_t default_max_open() {
  struct rlimit rl;
  size_t soft = 1024;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) soft = static_cast<size_t>(rl.rlim_cur);
  return std::max<size_t>(4, std::min<size_t>(256, soft / 4));
}

size_t bound(PoolState& s) {
  if (s.max_open_opt > 0) return s.max_open_opt;
  if (s.default_bound == 0) s.default_bound = default_max_open();
  return s.default_bound;
}

size_t byte_bound(const PoolState& s) {
  return s.max_bytes_opt > 0 ? s.max_bytes_opt : SqlitePoolOptions::kDefaultMaxBytes;
}

// The file's version is part of the key (core/fs.hpp file_version): a database replaced at the same
// path (a rename over it, or rewritten in place) never gets a connection that still reads the old file
// — such connections are left idle until the least-recently-used rule closes them.
std::string key_of(const std::string& path, const SqliteOptions& opt) {
  return "file\n" + path + (opt.text_decode == SqliteOptions::TextDecode::Ignore ? "\n#i" : "\n#e") +
         (opt.empty_is_ok ? "1" : "0") + "\n" + file_version(path);
}

// Moves an idle entry out of the pool (to be closed outside the lock).
std::unique_ptr<Entry> take_out(PoolState& s, Idle::iterator pos) {
  auto range = s.idle_by_key.equal_range((*pos)->key);
  for (auto it = range.first; it != range.second; ++it)
    if (it->second == pos) {
      s.idle_by_key.erase(it);
      break;
    }
  std::unique_ptr<Entry> e = std::move(*pos);
  s.idle.erase(pos);
  if (e->file) --s.open;
  s.bytes -= std::min(s.bytes, e->bytes);
  --s.items;
  return e;
}

// The least recently used idle connection to a file, or idle.end().
Idle::iterator lru_file(PoolState& s) {
  for (auto it = s.idle.end(); it != s.idle.begin();) {
    --it;
    if ((*it)->file) return it;
  }
  return s.idle.end();
}

// Closes idle items, least recently used first, until both bounds hold (or nothing idle is left).
void evict_locked(PoolState& s, std::vector<std::unique_ptr<Entry>>& closing) {
  while (s.open > bound(s)) {
    auto it = lru_file(s);
    if (it == s.idle.end()) break;
    closing.push_back(take_out(s, it));
  }
  while (s.bytes > byte_bound(s) && !s.idle.empty()) closing.push_back(take_out(s, std::prev(s.idle.end())));
}

}  // namespace

PoolItem* SqlitePool::item_of(Entry* e) { return e->item.get(); }

void SqlitePool::give_back(Entry* e) {
  PoolState& s = state();
  const size_t now = e->item->resident_bytes();  // the item is still this thread's
  std::vector<std::unique_ptr<Entry>> closing;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.bytes = s.bytes - std::min(s.bytes, e->bytes) + now;
    e->bytes = now;
    s.idle.emplace_front(e);
    s.idle_by_key.emplace(e->key, s.idle.begin());
    evict_locked(s, closing);
  }
  s.returned.notify_one();
}

SqlitePool::Entry* SqlitePool::take(const std::string& key, bool file, const std::function<std::unique_ptr<PoolItem>()>& make) {
  PoolState& s = state();
  std::unique_ptr<Entry> victim;
  {
    std::unique_lock<std::mutex> lk(s.mu);
    for (;;) {
      auto it = s.idle_by_key.find(key);
      if (it != s.idle_by_key.end()) {
        Idle::iterator pos = it->second;
        s.idle_by_key.erase(it);
        Entry* e = pos->release();
        s.idle.erase(pos);
        return e;
      }
      if (!file) break;
      s.default_bound = 0;  // a connection is needed: follow the current RLIMIT_NOFILE
      if (s.open < bound(s)) break;
      if (auto lru = lru_file(s); lru != s.idle.end()) {
        victim = take_out(s, lru);
        break;
      }
      s.returned.wait(lk);  // every connection is leased: wait for one to come back
    }
    if (file) ++s.open;  // reserved for the connection opened below
  }
  victim.reset();  // closed outside the lock
  auto e = std::make_unique<Entry>();
  e->key = key;
  e->file = file;
  try {
    e->item = make();
  } catch (...) {
    if (file) {
      {
        std::lock_guard<std::mutex> lk(s.mu);
        --s.open;
      }
      s.returned.notify_one();
    }
    throw;
  }
  e->bytes = e->item->resident_bytes();
  std::vector<std::unique_ptr<Entry>> closing;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.bytes += e->bytes;
    ++s.items;
    evict_locked(s, closing);
  }
  return e.release();
}

SqlitePool::Lease SqlitePool::lease(const std::string& path, SqliteOptions opt) {
  Entry* e = take(key_of(path, opt), true, [&]() -> std::unique_ptr<PoolItem> { return std::make_unique<SqliteDb>(path, opt); });
  return Lease(e, static_cast<SqliteDb*>(e->item.get()));
}

void SqlitePool::configure(const SqlitePoolOptions& opt) {
  PoolState& s = state();
  std::vector<std::unique_ptr<Entry>> closing;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.max_open_opt = opt.max_open;
    s.max_bytes_opt = opt.max_bytes;
    evict_locked(s, closing);
  }
  s.returned.notify_all();
}

size_t SqlitePool::max_open() {
  PoolState& s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  return bound(s);
}

size_t SqlitePool::open_count() {
  PoolState& s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  return s.open;
}

size_t SqlitePool::max_bytes() {
  PoolState& s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  return byte_bound(s);
}

size_t SqlitePool::resident_bytes() {
  PoolState& s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  return s.bytes;
}

size_t SqlitePool::item_count() {
  PoolState& s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  return s.items;
}

void SqlitePool::close_idle() {
  PoolState& s = state();
  std::vector<std::unique_ptr<Entry>> closing;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    while (!s.idle.empty()) closing.push_back(take_out(s, std::prev(s.idle.end())));
  }
  s.returned.notify_all();
}

}  // namespace sqlgrade
