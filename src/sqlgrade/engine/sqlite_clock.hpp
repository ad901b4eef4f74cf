#pragma once
// The time sqlgrade's SQLite answers for 'now' (date('now'), CURRENT_DATE, CURRENT_TIMESTAMP,
// julianday('now'), strftime(..., 'now'), datetime('now'), unixepoch('now'), ...): SQLite asks the
// connection's VFS (xCurrentTimeInt64, else xCurrentTime), once per statement. The "sqlgrade" VFS
// (sqlite_runtime.cpp) answers with these: the calling thread's pinned SQL clock (core/clock.hpp) when
// there is one, else the underlying VFS's real clock. Each answer is counted (sql_clock::note_read) so
// that `sqlgrade audit` can tell a gold that reads the clock. 'localtime' still converts with the
// process's time zone (TZ), as SQLite always does.
#include <sqlite3.h>

namespace sqlgrade::sqlite_guard {

// Milliseconds since the Julian epoch (xCurrentTimeInt64's unit).
int clock_time64(sqlite3_vfs* base, sqlite3_int64* out);
// Julian day number with a fraction (xCurrentTime's unit).
int clock_time(sqlite3_vfs* base, double* out);

}  // namespace sqlgrade::sqlite_guard
