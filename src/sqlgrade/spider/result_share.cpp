// The strict results of the original Spider pass, lent to the test-suite pass of `--compat both`
// (result_share.hpp has the rules and why each one keeps a verdict unchanged).
#include "sqlgrade/spider/result_share.hpp"

#include <cstdint>

namespace sqlgrade::spider {

ResultShare::ResultShare(Limits strict_limits)
    : strict_(strict_limits), memo_(MemoBounds{SIZE_MAX, 256u << 20}, &ResultShare::cost) {}

size_t ResultShare::cost(const std::string& key, const ExecResult& r) {
  return key.size() + sizeof(ExecResult) + heap_bytes(r.table) + heap_bytes(r.error);
}

namespace {
// a is at least b, where a value <= 0 means "no limit" (deadlines, the memory cap).
bool at_least(double a, double b) { return a <= 0 || (b > 0 && a >= b); }
}  // namespace

bool ResultShare::covers(const Limits& lim) const {
  return at_least(lim.timeout_s, strict_.timeout_s) && lim.max_bytes >= strict_.max_bytes &&
         at_least(static_cast<double>(lim.max_memory), static_cast<double>(strict_.max_memory)) &&
         (lim.max_memory == 0 || lim.max_spill >= strict_.max_spill) && !lim.keep_partial;
}

std::shared_ptr<const ExecResult> ResultShare::lend(const std::string& path, const std::string& sql,
                                                    const Limits& lim) const {
  if (!covers(lim)) return nullptr;
  std::shared_ptr<const ExecResult> r = memo_.peek(path, sql);
  if (!r || !r->ok()) return nullptr;
  ++lent_;
  if (r->table.rows.size() <= lim.max_rows) return r;
  // What SqliteDb::execute returns when it steps past max_rows: TooLarge, no rows kept.
  auto capped = std::make_shared<ExecResult>();
  capped->status = ExecStatus::TooLarge;
  capped->error = "result has more than " + std::to_string(lim.max_rows) + " rows";
  capped->table.columns = r->table.columns;
  capped->seconds = r->seconds;
  return capped;
}

}  // namespace sqlgrade::spider
