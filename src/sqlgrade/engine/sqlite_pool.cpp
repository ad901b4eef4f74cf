// SqlitePool (sqlite.hpp): a bounded set of read-only connections shared by every thread.
//
// Before, each thread kept one connection per database file for its whole life: 5,000 databases meant
// 5,006 open files and 539 MiB, and under the common limit of 1,024 open files a third of the correct
// answers scored 0 ("unable to open database file"). Now at most max_open() connections are open;
// opening one more first closes the least recently used idle connection.
#include <sys/resource.h>

#include <algorithm>
#include <condition_variable>
#include <list>
#include <mutex>
#include <unordered_map>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/engine/sqlite.hpp"

namespace sqlgrade {

struct SqlitePool::Lease::Entry {
  std::string key;
  std::unique_ptr<SqliteDb> db;
};

namespace {

using Entry = SqlitePool::Lease::Entry;
using Idle = std::list<std::unique_ptr<Entry>>;

struct PoolState {
  std::mutex mu;
  std::condition_variable returned;
  size_t max_open_opt = 0;
  size_t default_bound = 0;  // from RLIMIT_NOFILE, re-read whenever a connection is about to open
  size_t open = 0;  // leased + idle + being opened
  Idle idle;        // most recently used first
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

// The file's version is part of the key (core/fs.hpp file_version): a database replaced at the same
// path (a rename over it, or rewritten in place) never gets a connection that still reads the old file
// — such connections are left idle until the least-recently-used rule closes them.
std::string key_of(const std::string& path, const SqliteOptions& opt) {
  return path + (opt.text_decode == SqliteOptions::TextDecode::Ignore ? "\n#i" : "\n#e") + (opt.empty_is_ok ? "1" : "0") +
         "\n" + file_version(path);
}

// Moves the least recently used idle connection out (to be closed outside the lock).
std::unique_ptr<Entry> take_lru(PoolState& s) {
  auto last = std::prev(s.idle.end());
  auto range = s.idle_by_key.equal_range((*last)->key);
  for (auto it = range.first; it != range.second; ++it)
    if (it->second == last) {
      s.idle_by_key.erase(it);
      break;
    }
  std::unique_ptr<Entry> e = std::move(*last);
  s.idle.erase(last);
  --s.open;
  return e;
}

}  // namespace

SqlitePool::Lease::Lease(Entry* e) : entry_(e), db_(e->db.get()) {}
SqlitePool::Lease::Lease(Lease&& o) noexcept : entry_(o.entry_), db_(o.db_) { o.entry_ = nullptr; }

SqlitePool::Lease::~Lease() {
  if (!entry_) return;
  PoolState& s = state();
  std::vector<std::unique_ptr<Entry>> closing;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.idle.emplace_front(entry_);
    s.idle_by_key.emplace(entry_->key, s.idle.begin());
    while (s.open > bound(s) && !s.idle.empty()) closing.push_back(take_lru(s));  // the bound was lowered
  }
  s.returned.notify_one();
}

SqlitePool::Lease SqlitePool::lease(const std::string& path, SqliteOptions opt) {
  PoolState& s = state();
  std::string key = key_of(path, opt);
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
        return Lease(e);
      }
      s.default_bound = 0;  // a connection is needed: follow the current RLIMIT_NOFILE
      if (s.open < bound(s)) break;
      if (!s.idle.empty()) {
        victim = take_lru(s);
        break;
      }
      s.returned.wait(lk);  // every connection is leased: wait for one to come back
    }
    ++s.open;  // reserved for the connection opened below
  }
  victim.reset();  // closed outside the lock
  auto e = std::make_unique<Entry>();
  e->key = std::move(key);
  try {
    e->db = std::make_unique<SqliteDb>(path, opt);
  } catch (...) {
    {
      std::lock_guard<std::mutex> lk(s.mu);
      --s.open;
    }
    s.returned.notify_one();
    throw;
  }
  return Lease(e.release());
}

void SqlitePool::configure(const SqlitePoolOptions& opt) {
  PoolState& s = state();
  std::vector<std::unique_ptr<Entry>> closing;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.max_open_opt = opt.max_open;
    while (s.open > bound(s) && !s.idle.empty()) closing.push_back(take_lru(s));
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

void SqlitePool::close_idle() {
  PoolState& s = state();
  std::vector<std::unique_ptr<Entry>> closing;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    while (!s.idle.empty()) closing.push_back(take_lru(s));
  }
  s.returned.notify_all();
}

}  // namespace sqlgrade
