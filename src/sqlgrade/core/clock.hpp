#pragma once
// The clock SQL reads (issue 30, item 9: `--now TIMESTAMP`, the request field `now`, Python's `now=`).
//
// A query that calls date('now'), CURRENT_DATE, CURRENT_TIMESTAMP, julianday('now'), strftime(..., 'now'),
// datetime('now') (SQLite) or current_date, now(), current_timestamp, today() (DuckDB) reads the machine's
// clock: two identical runs on different days differ (BIRD Mini-Dev 1227 uses julianday('now')). A
// pinned clock makes every such call return one fixed instant. The engines read it where they read
// the time: SQLite through the VFS's xCurrentTime / xCurrentTimeInt64 (engine/sqlite_clock.cpp),
// DuckDB through temporary macros that shadow its clock functions (engine/duckdb_clock.cpp).
//
// The pin is per thread (ClockScope), like the cancellation token: a run installs it around its work
// and parallel_for (parallel.hpp) carries it into every worker, so a Python call and a server request
// can each grade under their own instant while other threads grade under theirs. Not pinned: the real
// clock, as the official scripts have it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sqlgrade::sql_clock {

// An instant: milliseconds since 1970-01-01T00:00:00Z.
using Millis = int64_t;

// Reads a TIMESTAMP: an ISO 8601 date `YYYY-MM-DD` (midnight) or date-time `YYYY-MM-DDTHH:MM[:SS[.fff]]`
// (`T` or one space), UTC unless it ends in `Z` or an offset `+HH:MM` / `-HH:MM` / `+HHMM`; years
// 0001-9999, up to milliseconds (more digits are refused, not rounded). On a bad text returns nullopt
// and sets *error to the reason ("not a timestamp: ...; expected YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±HH:MM]").
std::optional<Millis> parse(std::string_view text, std::string* error);
// parse(), or InputError("", "<label>: <reason>") — label is the flag or field the user wrote
// ("--now", "now"), so the one line reads "--now: not a timestamp: ...".
Millis parse_or_throw(std::string_view text, std::string_view label);
// The canonical text of an instant: "2024-01-31T12:00:00Z", or "...:00.250Z" when it has milliseconds.
// What run records store (options.now) and what replies echo.
std::string format(Millis ms);
// parse + format: the canonical text of a TIMESTAMP ("" stays ""), InputError as parse_or_throw.
std::string canonical(std::string_view text, std::string_view label);

// The calling thread's pinned instant (nullopt: the real clock).
std::optional<Millis> pinned();
// The instant 'now' means on the calling thread: the pinned one, else the real clock.
Millis now();

// Pins the calling thread's clock to `at` for the scope (nullopt: unpins it), then restores the
// previous pin.
class ClockScope {
 public:
  explicit ClockScope(std::optional<Millis> at);
  // From a TIMESTAMP text ("" = leave the thread's pin as it is); InputError as parse_or_throw.
  ClockScope(std::string_view text, std::string_view label);
  ~ClockScope();
  ClockScope(const ClockScope&) = delete;
  ClockScope& operator=(const ClockScope&) = delete;

 private:
  std::optional<Millis> saved_;
};

// The number of times the calling thread's SQL read the clock (the engines call note_read() each time
// they answer 'now'): `sqlgrade audit` runs a gold and looks whether it moved, to tell a gold whose
// result may depend on the day it is graded.
uint64_t reads();
void note_read();

}  // namespace sqlgrade::sql_clock
