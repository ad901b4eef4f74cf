// The pinned SQL clock inside SQLite (sqlite_clock.hpp).
#include "sqlgrade/engine/sqlite_clock.hpp"

#include "sqlgrade/core/clock.hpp"

namespace sqlgrade::sqlite_guard {

namespace {
// 1970-01-01T00:00:00Z as milliseconds since the Julian epoch (Julian day 2440587.5).
constexpr sqlite3_int64 kUnixEpochJulianMs = 210866760000000LL;
constexpr double kMsPerDay = 86400000.0;
}  // namespace

int clock_time64(sqlite3_vfs* base, sqlite3_int64* out) {
  sql_clock::note_read();
  if (auto at = sql_clock::pinned()) {
    *out = kUnixEpochJulianMs + *at;
    return SQLITE_OK;
  }
  if (base->iVersion >= 2 && base->xCurrentTimeInt64) return base->xCurrentTimeInt64(base, out);
  double d = 0;
  int rc = base->xCurrentTime(base, &d);
  *out = static_cast<sqlite3_int64>(d * kMsPerDay);
  return rc;
}

int clock_time(sqlite3_vfs* base, double* out) {
  sqlite3_int64 ms = 0;
  int rc = clock_time64(base, &ms);
  *out = static_cast<double>(ms) / kMsPerDay;
  return rc;
}

}  // namespace sqlgrade::sqlite_guard
