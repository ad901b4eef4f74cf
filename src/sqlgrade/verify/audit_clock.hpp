#pragma once
// `sqlgrade audit`'s clock check (issue 30, item 9): a gold that reads SQL's clock (date('now'),
// CURRENT_TIMESTAMP, julianday('now'), strftime('%Y') with no time value, ...) may grade a prediction
// differently on another day (BIRD Mini-Dev 1227: the average age of patients, year('now') - year(birthday)).
#include <string>

#include "sqlgrade/engine/engine.hpp"
#include "sqlgrade/verify/verify.hpp"

namespace sqlgrade::verify {

// The two instants the audit runs a clock-reading gold at (far apart, so a result that depends on the
// year, the day or the hour shows it).
inline constexpr const char* kAuditClockA = "2000-01-01T00:00:00Z";
inline constexpr const char* kAuditClockB = "2040-07-01T12:30:00Z";

// For a gold that read the clock on its database (the audit looks at sql_clock::reads(), which the engine
// moves each time it answers 'now'): the finding's detail when its result under the benchmark's rule
// differs between kAuditClockA and kAuditClockB; else "" (a gold that reads the clock to the same result
// at both, e.g. `date('now') > '1990'`, is not flagged; one that fails is left to the other checks).
std::string clock_dependence(const std::string& db_path, const std::string& sql, const RuleSpec& rule, const Limits& lim);

}  // namespace sqlgrade::verify
