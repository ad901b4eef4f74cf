#pragma once
// The pinned SQL clock in DuckDB (core/clock.hpp). DuckDB has no setting for the time its clock
// functions read, but a temporary macro shadows a built-in function of the same name for the
// connection that made it (DuckDB 1.4: current_date, CURRENT_TIMESTAMP, now(), ...), so a pinned
// connection gets one macro per clock function, each returning the pinned instant with the type the
// built-in has:
//   current_date, today()                        DATE       (in the session's time zone)
//   current_timestamp, now(), get_current_timestamp(), transaction_timestamp()   TIMESTAMP WITH TIME ZONE
//   current_time, get_current_time()             TIME WITH TIME ZONE
//   localtimestamp, current_localtimestamp()     TIMESTAMP  (in the session's time zone)
//   localtime, current_localtime()               TIME       (in the session's time zone)
// Not covered: a clock read through a table function or an extension's function.
#include <duckdb.h>

#include <optional>
#include <string>

#include "sqlgrade/core/clock.hpp"

namespace sqlgrade::duck {

// Makes `con`'s clock macros say the calling thread's pinned instant (or drops them when the thread is
// not pinned); `installed` is what the connection has now, updated. A no-op when they agree. Returns ""
// or, when a macro cannot be made, DuckDB's message ("duckdb: pinning the clock: ...").
std::string sync_clock(duckdb_connection con, std::optional<sql_clock::Millis>& installed);

}  // namespace sqlgrade::duck
