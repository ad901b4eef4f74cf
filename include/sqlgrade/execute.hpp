#pragma once
// sqlgrade::execute — one read-only query for a multi-turn agent's observation (SkyRL-style
// environments, tool calls): the database is opened read-only with the authorizer of
// engine/sqlite.hpp (no writes, no ATTACH, no PRAGMA changes), one statement only, a real deadline,
// and caps on rows and bytes. Rows past `max_rows` are cut off (truncated = true), never an error.
// A failing query is a result with status Error/Timeout, never an exception; only a missing or
// unreadable database throws sqlgrade::InputError. Nothing here prints. Thread-safe (one SQLite
// connection per thread and file).
// Standard library only.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sqlgrade {

struct ExecuteLimits {
  double timeout_s = 10.0;         // wall-clock deadline; must be > 0
  size_t max_rows = 100;           // rows returned at most (more: truncated)
  size_t max_bytes = 16u << 20;    // approximate result bytes at most (more: truncated)
  // Not a limit: SQL's clock for the query (date('now'), CURRENT_TIMESTAMP, ... return this instant; a
  // TIMESTAMP, ISO 8601, UTC unless it carries an offset); "" = the real clock. InputError "now: ..."
  // when malformed.
  std::string now;
};

// One value of a result row, as SQLite returned it.
struct ExecuteCell {
  enum class Kind { Null, Int, Real, Text, Blob };
  Kind kind = Kind::Null;
  int64_t i = 0;  // Int
  double r = 0;   // Real
  std::string s;  // Text (UTF-8) or Blob (bytes)
};

struct ExecuteResult {
  // "ok" | "error" | "timeout" | "too_large" (too_large: not even the first row fits max_bytes): the
  // engine's one table of a query's status words (to_string(ExecStatus)). A query with no gold has no
  // Outcome (outcome.hpp): this is the query's status, not a verdict.
  std::string status = "ok";
  std::vector<std::string> columns;
  std::vector<std::vector<ExecuteCell>> rows;
  bool truncated = false;  // rows were cut at max_rows or max_bytes
  std::string error;       // engine message when status != "ok"
  double total_s = 0;      // wall time
  bool ok() const { return status == "ok"; }
};

// Runs `sql` on the SQLite file `db` under `limits`. Throws InputError when `db` is not a readable
// SQLite database, or when a limit is not positive.
ExecuteResult execute(const std::string& db, const std::string& sql, const ExecuteLimits& limits = {});

}  // namespace sqlgrade
