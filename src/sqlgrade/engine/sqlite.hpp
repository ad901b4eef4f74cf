#pragma once
// Read-only SQLite access for benchmark databases.
//
// Guarantees (see README "Safety"):
//  - the file is opened with SQLITE_OPEN_READONLY (URI mode=ro) and PRAGMA query_only=1;
//  - an authorizer denies every write, schema change, ATTACH/DETACH, transaction control,
//    PRAGMA with a value or outside a read-only whitelist, and load_extension(); extension loading
//    is disabled at the connection;
//  - only one statement per call (trailing text other than whitespace/comments is an error, as in
//    Python's sqlite3 module);
//  - a per-statement wall-clock deadline through the progress handler; row and byte caps;
//  - LIKE/GLOB, instr, replace and trim/ltrim/rtrim replaced by functions with SQLite's results that
//    also stop at the deadline or run in linear time (sqlite_guarded.hpp): one built-in call is one VM
//    step, which the progress handler cannot interrupt;
//  - nothing written beside the file: WAL-mode databases open with immutable=1 (no -wal/-shm); one
//    whose -wal holds frames is refused (InputError), as reading it would need a -shm file.
// A SqliteDb is not thread-safe: use one per thread (SqlitePool gives each thread its own).
#include <memory>
#include <string>
#include <vector>

#include "sqlgrade/engine/engine.hpp"

struct sqlite3;

namespace sqlgrade {

struct SqliteOptions {
  // How TEXT that is not valid UTF-8 is read: Ignore drops the invalid bytes (Python
  // decode(errors="ignore"), as the test-suite evaluator does); Error reports the query as failed
  // ("Could not decode to UTF-8", as the original Spider script would crash).
  enum class TextDecode { Ignore, Error } text_decode = TextDecode::Ignore;
  // When true, a statement that is empty (or only comments) returns an empty Ok result like Python's
  // cursor.execute(""); when false it is an Error.
  bool empty_is_ok = true;
};

// Configures SQLite for this process once, before its first use (memory statistics off: they
// serialise every allocation across threads). SqliteDb calls it; call it before opening SQLite any
// other way.
void sqlite_configure_once();

class SqliteDb : public Engine {
 public:
  // Opens `path` read-only. Throws InputError if the file does not exist, is not a database, or has
  // un-checkpointed WAL frames beside it.
  explicit SqliteDb(const std::string& path, SqliteOptions opt = {});
  ~SqliteDb() override;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  ExecResult execute(std::string_view sql, const Limits& limits) override;
  std::string name() const override { return "sqlite"; }
  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }
  struct Deadline;  // per-statement deadline state read by the progress handler

  // Catalogue helpers (read through the same read-only connection).
  std::vector<std::string> table_names();                      // sqlite_master order, incl. sqlite_sequence
  std::vector<std::string> column_names(const std::string& table);  // PRAGMA table_info order

 private:
  std::string path_;
  SqliteOptions opt_;
  sqlite3* db_ = nullptr;
  std::unique_ptr<Deadline> deadline_;
};

// One connection per (thread, path, options); connections live until the thread ends.
class SqlitePool {
 public:
  static SqliteDb& get(const std::string& path, SqliteOptions opt = {});
};

}  // namespace sqlgrade
