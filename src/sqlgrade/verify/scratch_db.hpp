#pragma once
// A writable SQLite database that lives in memory only: the one place where sqlgrade builds a
// database (verification candidates). It is the engine's SqliteScratch (engine/sqlite_connection.hpp),
// so it has every bound of every connection — the "sqlgrade" VFS (no file, no temporary file on disk),
// the value limit, the guarded and checked built-ins, the deadline with the allocator's guard inside a
// step, the cancellation of the thread's work, a memory cap on every statement — and:
//  - it is always opened on ":memory:"; no constructor takes a path, so it never opens a file, and its
//    pages are capped (SqliteScratch::kScratchMaxBytes);
//  - the only file it ever writes is a counterexample, through save_to() (called only for
//    `sqlgrade verify --counterexamples DIR`), which copies the finished database with the backup API;
//  - queries run on it through run(): one read-only statement (the engine's authorizer), its result
//    read under kScratchResultBytes and the row cap, at most kScratchQueryMemory inside SQLite.
// Benchmark databases are still opened only by engine/SqliteDb (read-only, authorizer); a ScratchDb
// never copies one.
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/engine/sqlite_connection.hpp"

namespace sqlgrade::verify {

// The bounds of a query run on a candidate database (a few rows per table): whatever `Limits` asks,
// at most this many result bytes (each cell measured before it is copied) and this much memory inside
// SQLite; never a temporary file on disk. A query past either stops (TooLarge) and the candidate does
// not count, as for a timeout.
inline constexpr size_t kScratchResultBytes = size_t(8) << 20;
inline constexpr size_t kScratchQueryMemory = size_t(64) << 20;

class ScratchDb : public SqliteScratch {
 public:
  ScratchDb();  // a fresh, empty ":memory:" database
  // Runs one read-only statement (a query under test) under `limits` within the bounds above.
  ExecResult run(std::string_view sql, const Limits& limits);
  // Writes this database to `path` (a counterexample file); "" or an error message.
  std::string save_to(const std::string& path) { return save_copy(path); }
};

}  // namespace sqlgrade::verify
