#pragma once
// One interface for the SQL engines sqlgrade runs queries on.
//   SqliteDb: benchmark databases (.sqlite files), always read-only, with an authorizer, a per-statement
//             deadline, row/byte caps and a memory cap (sqlite.hpp, sqlite_runtime.hpp).
//   DuckDb:   in-memory DuckDB for CSV gold tables (memory limit, interrupt on deadline).
// Engines never throw for a failing query: the status says what happened.
#include <string>
#include <string_view>

#include "sqlgrade/core/table.hpp"

namespace sqlgrade {

// The bound the UDA gold side enforces on DuckDB calls with constant sizes (QueryShape::oversized_values).
// SQLite's own value limit is lower: kSqliteMaxValueBytes (sqlite.hpp).
inline constexpr size_t kMaxValueBytes = size_t(64) << 20;

struct Limits {
  double timeout_s = 30.0;         // wall-clock deadline per statement; <= 0 means none
  size_t max_rows = 1'000'000;     // result rows before the query is stopped (TooLarge)
  size_t max_bytes = 512u << 20;   // approximate result bytes before the query is stopped (TooLarge)
  bool keep_partial = false;       // TooLarge keeps the rows read so far (sqlgrade::execute's truncation)
  // SQLite: what the engine may allocate for the statement (values, sort runs, temporary b-trees, the
  // pages it reads into its cache) before it is stopped (TooLarge, "memory cap"); 0 means none. DuckDB
  // has its database-wide memory_limit instead (DuckOptions).
  size_t max_memory = 512u << 20;
  // SQLite: what the statement's temporary files (sorts, temporary b-trees) may hold on disk once they
  // no longer fit in max_memory, in a private folder removed when the statement ends
  // (engine/sqlite_spill.hpp); 0: nothing on disk, the memory cap stops the statement. In-memory
  // scratch databases never spill.
  size_t max_spill = size_t(4) << 30;
};

enum class ExecStatus { Ok, Error, Timeout, TooLarge };
// The error of a TooLarge statement stopped because other statements held the process's temporary
// disk space (engine/sqlite_spill.hpp): a matter of load, not of the query (never cached as its result).
inline constexpr const char* kSpillCrowded = "memory cap: the process's temporary disk space was in use by other queries";
const char* to_string(ExecStatus s);

struct ExecResult {
  ExecStatus status = ExecStatus::Ok;
  std::string error;  // engine message for Error / TooLarge / Timeout
  Table table;
  double seconds = 0;  // wall time spent in the engine
  // SQLite: the most memory the statement held inside SQLite, and on disk in spilled temporary files
  // (what a real query needs: bench/sqlite_needs.cpp).
  size_t peak_memory = 0;
  size_t peak_spill = 0;
  bool ok() const { return status == ExecStatus::Ok; }
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual ExecResult execute(std::string_view sql, const Limits& limits) = 0;
  virtual std::string name() const = 0;
};

}  // namespace sqlgrade
