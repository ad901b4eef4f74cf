#pragma once
// Deadline-aware replacements for the SQLite built-ins whose single call can run for hours.
//
// SQLite checks its progress handler between VM instructions, and one function call is one
// instruction: LIKE/GLOB (pattern × string), instr, replace (needle × haystack) and trim/ltrim/rtrim
// (characters × set) are O(n·m) on values of up to 16 MiB (64 MiB before issue 19), so a prediction could pin a worker far past
// its deadline. These replacements give exactly the results of SQLite 3.40's own functions (same
// argument conversions, NULL rules, error messages, limits and UTF-8 decoding; checked against the
// built-ins by tests/unit/safety_builtins_test.cpp), but instr and replace search in linear time and
// LIKE/GLOB and the trims check the statement's deadline while they work. docs/safety.md explains the
// choice over lower length limits or worker processes.
#include "sqlgrade/engine/sqlite_runtime.hpp"

struct sqlite3;

namespace sqlgrade::sqlite_guard {

// Registers like/2, like/3, glob/2, instr/2, replace/3, trim/ltrim/rtrim 1 and 2 on `db`. A call that
// reaches the deadline fails with "interrupted", and `dl->fired` tells the caller it was a timeout.
// Registering like() turns off SQLite's LIKE-prefix index optimisation: row order can differ only for
// queries without ORDER BY on an indexed TEXT column with NOCASE collation (LIKE) or with BINARY
// collation (GLOB) — results as sets are unchanged.
void register_guarded_functions(sqlite3* db, StatementDeadline* dl);

}  // namespace sqlgrade::sqlite_guard
