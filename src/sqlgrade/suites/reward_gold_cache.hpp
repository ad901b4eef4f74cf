#pragma once
// The reward server's gold cache: gold results (or the reason there is none), shared by every request
// that needs them. Internal to the serve module.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "sqlgrade/table.hpp"

#ifdef SQLGRADE_HAVE_SPIDER2
#include "sqlgrade/compare/spider2.hpp"
#endif

namespace sqlgrade::reward {

// A gold result (or the reason there is none).
struct GoldData {
  bool ok = false;
  bool timeout = false;
  std::string error;
  std::vector<Table> tables;  // spider / bird alternatives
#ifdef SQLGRADE_HAVE_SPIDER2
  std::vector<spider2::Frame> frames;  // spider2 alternatives
#endif
  bool single_file = false;  // official gold folder: <id>.csv (single) rather than <id>_a.csv, ...
  size_t bytes = 0;
};
using GoldPtr = std::shared_ptr<const GoldData>;

size_t table_bytes(const Table& t);
#ifdef SQLGRADE_HAVE_SPIDER2
size_t frame_bytes(const spider2::Frame& f);
#endif

// LRU cache of gold results bounded by entries and bytes. Concurrent requests for the same missing
// key wait for one computation. Timeouts are not cached (they depend on load).
class GoldCache {
 public:
  GoldCache(size_t max_entries, size_t max_bytes) : max_entries_(max_entries), max_bytes_(max_bytes) {}

  // The cached value of `key`, else compute() (whose exceptions become a gold error). *hit tells which.
  GoldPtr get(const std::string& key, const std::function<GoldPtr()>& compute, bool* hit);

  size_t entries() const;
  size_t bytes() const;
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  struct Entry {
    std::shared_future<GoldPtr> fut;
    std::list<std::string>::iterator lru;
    size_t bytes = 0;
    bool ready = false;
  };
  void evict_locked();
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> map_;
  std::list<std::string> lru_;
  size_t bytes_ = 0;
  size_t max_entries_, max_bytes_;
  std::atomic<uint64_t> hits_{0}, misses_{0};
};

}  // namespace sqlgrade::reward
