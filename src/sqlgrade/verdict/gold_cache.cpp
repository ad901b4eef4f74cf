#include "sqlgrade/verdict/gold_cache.hpp"

#include <stdexcept>

#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/core/cancel.hpp"

namespace sqlgrade::verdicts {

size_t gold_bytes(const GoldData& d) {
  size_t b = sizeof(GoldData) + kMallocHeader + heap_bytes(d.error);
  if (d.form) b += d.form->heap_bytes();
  b += heap_bytes(d.exec.table) + heap_bytes(d.exec.error);
  return b;
}

bool load_dependent(const ExecResult& r) {
  if (r.status == ExecStatus::Timeout) return true;
  if (r.status == ExecStatus::TooLarge) return r.error.rfind(kSpillCrowded, 0) == 0;  // the others' temporary files
  if (r.status != ExecStatus::Error) return false;  // Ok and TooLarge are properties of query and data
  for (const char* m : {"out of memory", "is locked", "database is busy", "disk I/O error", "unable to open",
                        "cannot open", "interrupted", "Too many open files"})
    if (r.error.find(m) != std::string::npos) return true;
  return false;
}

size_t GoldCache::entry_overhead(const std::string& key) {
  return Memo<std::string, GoldData>::entry_bookkeeping() + 2 * heap_bytes(key);
}

GoldCache::GoldCache(size_t max_entries, size_t max_bytes)
    : memo_(MemoBounds{max_entries, max_bytes},
            [](const std::string& key, const GoldData& g) { return g.bytes + entry_overhead(key); },
            [](const GoldData& g) { return !g.transient; }) {}

GoldPtr GoldCache::get(const std::string& key, const std::function<GoldPtr()>& compute, bool* hit) {
  return memo_.get(key, [&]() -> GoldPtr {
    // Every request asking for this gold meanwhile waits for this one computation, so it must not end
    // because the request that happened to start it was cancelled (its client left, its budget ran
    // out): it runs under the server's token only (core/cancel.hpp), bounded by --gold-timeout.
    const CancelToken* root = current_cancel_token();
    while (root && root->parent()) root = root->parent();
    CancelScope shared(root);
    try {
      return compute();
    } catch (const std::exception& e) {
      auto d = std::make_shared<GoldData>();
      d->error = std::string("internal error: ") + e.what();
      d->transient = true;  // std::bad_alloc and the like: the next request may well succeed
      return d;
    }
  }, hit);
}

}  // namespace sqlgrade::verdicts
