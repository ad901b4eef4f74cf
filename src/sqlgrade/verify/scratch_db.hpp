#pragma once
// A writable SQLite database that lives in memory only: the one place where sqlgrade builds a
// database (verification candidates, the audit's reversed-scan copy). Scope, on purpose narrow:
//  - it is always opened on ":memory:"; no constructor takes a path, so it never opens a file;
//  - the only file it ever writes is a counterexample, through save_to() (called only for
//    `sqlgrade verify --counterexamples DIR`), which copies the finished database with the backup API;
//  - queries run on it through run(): one read-only statement (sqlite3_stmt_readonly), a wall-clock
//    deadline, a row cap, the engine's deadline-aware built-ins (engine/sqlite_builtins.hpp).
// Benchmark databases are still opened only by engine/SqliteDb (read-only, authorizer); a ScratchDb
// reads one only through load_from(), which attaches nothing and copies it with the backup API.
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/engine/engine.hpp"

struct sqlite3;

namespace sqlgrade::verify {

class ScratchDb {
 public:
  ScratchDb();  // a fresh, empty ":memory:" database
  ~ScratchDb();
  ScratchDb(const ScratchDb&) = delete;
  ScratchDb& operator=(const ScratchDb&) = delete;

  // Executes DDL/DML (schema creation, INSERT); returns "" or SQLite's error message.
  std::string exec(std::string_view sql);
  // Inserts one row into `table` (quoted) with bound values; "" or the constraint error.
  std::string insert(const std::string& table, const std::vector<std::string>& columns, const Row& row);
  // Runs one read-only statement (a query under test) with a deadline and a row cap.
  ExecResult run(std::string_view sql, const Limits& limits);
  // Copies the whole database of `src` (an open read-only connection) into this one.
  bool load_from(sqlite3* src);
  // Writes this database to `path` (a counterexample file); "" or an error message.
  std::string save_to(const std::string& path);
  sqlite3* handle() { return db_; }

 private:
  struct Deadline;
  sqlite3* db_ = nullptr;
  Deadline* dl_ = nullptr;
};

// Reads one value of a result column as sqlgrade's Value (text decoded leniently).
Value read_column(void* stmt, int c);

}  // namespace sqlgrade::verify
