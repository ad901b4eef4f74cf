// The audit's clock check (audit_clock.hpp).
#include "sqlgrade/verify/audit_clock.hpp"

#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/engine/sqlite.hpp"

namespace sqlgrade::verify {

namespace {
ExecResult at(const char* instant, const std::string& db_path, const std::string& sql, const Limits& lim) {
  const sql_clock::ClockScope pin(instant, "now");
  return SqlitePool::lease(db_path)->execute(sql, lim);
}
}  // namespace

std::string clock_dependence(const std::string& db_path, const std::string& sql, const RuleSpec& rule, const Limits& lim) {
  ExecResult a = at(kAuditClockA, db_path, sql, lim), b = at(kAuditClockB, db_path, sql, lim);
  if (!a.ok() || !b.ok() || same_result(rule, a.table, b.table)) return "";
  return "reads SQL's clock ('now', CURRENT_DATE, CURRENT_TIMESTAMP, ...) and its result differs between " +
         std::string(kAuditClockA) + " and " + kAuditClockB + ": graded on another day, a prediction meets another answer (pin the clock with --now)";
}

}  // namespace sqlgrade::verify
