#pragma once
// The reward server's gold cache: one cache for every benchmark and every kind of gold (gold SQL,
// gold_result rows, the official gold folder, Spider test-suite databases). Internal to the verdict module.
//
// Bounds: at most `max_entries` entries and `max_bytes` bytes, where an entry's bytes are its key, its
// bookkeeping and the heap its result holds (strings by capacity, vectors by capacity). Keys are
// SHA-256 digests of what defines the gold (benchmark, database file, gold text), so a gold text of
// 8 MiB costs 32 bytes here, and no client can make its gold collide with another one's.
// A result larger than the whole cache is returned but not kept. Failures that depend on load
// (timeouts, out of memory, locked or unreadable files) are returned but never kept.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/core/memo.hpp"
#include "sqlgrade/exec/runner.hpp"
#include "sqlgrade/engine/engine.hpp"
#include "sqlgrade/core/table.hpp"
#include "sqlgrade/exec/benchmark.hpp"

namespace sqlgrade::verdicts {

// A gold result (or the reason there is none).
struct GoldData {
  bool ok = false;
  bool transient = false;  // failed for a reason that depends on load: never cached
  std::string error;
  GoldFormPtr form;          // the alternatives in the form the benchmark compares (Benchmark::gold_form)
  ExecResult exec;           // spider test-suite gold on one database (spider::GoldSource)
  size_t bytes = 0;          // heap bytes held by the result (gold_bytes())
};
using GoldPtr = std::shared_ptr<const GoldData>;

// Heap bytes `d` holds, as allocated (capacities, small-string buffers, allocator headers): its form's
// tables or frames (GoldForm::heap_bytes), exec result and error text.
size_t gold_bytes(const GoldData& d);

// True when a failed execution says something about the machine rather than the query: a timeout,
// out of memory, a locked, busy or unreadable database. Such a gold is tried again next time.
bool load_dependent(const ExecResult& r);

// Its keys: exec::gold_key (exec/runner.hpp), the one key of every gold cache.
using exec::gold_key;

// The server's gold cache: the core memo (core/memo.hpp) keyed by gold_key(), bounded by entries and
// by bytes (entry_overhead + GoldData::bytes), keeping no transient failure.
class GoldCache {
 public:
  GoldCache(size_t max_entries, size_t max_bytes);

  // The cached value of `key`, else compute() (whose exceptions become a transient gold error).
  // Concurrent requests for the same missing key wait for one computation. *hit tells which.
  GoldPtr get(const std::string& key, const std::function<GoldPtr()>& compute, bool* hit);

  size_t entries() const { return memo_.entries(); }
  size_t bytes() const { return memo_.bytes(); }  // keys + bookkeeping + results of the entries kept
  uint64_t hits() const { return memo_.hits(); }
  uint64_t misses() const { return memo_.misses(); }

  // Bytes one entry costs besides its result: the key and the bookkeeping (map and list nodes,
  // future state).
  static size_t entry_overhead(const std::string& key);

 private:
  Memo<std::string, GoldData> memo_;
};

}  // namespace sqlgrade::verdicts
