#pragma once
// Read-only SQLite access for benchmark databases.
//
// Guarantees (docs/safety.md):
//  - the file is opened with SQLITE_OPEN_READONLY (URI mode=ro) and PRAGMA query_only=1, through the
//    "sqlgrade" VFS (sqlite_runtime.hpp), which refuses to create or write any file and keeps SQLite's
//    temporary files in memory;
//  - an authorizer denies every write, schema change, ATTACH/DETACH, transaction control,
//    PRAGMA with a value or outside a read-only whitelist, and load_extension(); extension loading
//    is disabled at the connection;
//  - only one statement per call (trailing text other than whitespace/comments is an error, as in
//    Python's sqlite3 module);
//  - a per-statement wall-clock deadline through the progress handler and, inside a single VM step,
//    through the allocator (a large allocation after the deadline fails); row and byte caps, the byte
//    cap checked before each cell is copied; a memory cap on what SQLite allocates for the statement
//    (sort runs and temporary tables included);
//  - LIKE/GLOB, instr, replace and trim/ltrim/rtrim replaced by functions with SQLite's results that
//    also stop at the deadline or run in linear time (sqlite_builtins.hpp): one built-in call is one VM
//    step, which the progress handler cannot interrupt;
//  - nothing written beside the file: WAL-mode databases open with immutable=1 (no -wal/-shm); one
//    whose -wal holds frames is refused (InputError), as reading it would need a -shm file. Symlinks
//    are resolved first, so the -wal looked at is the one beside the real file.
// A SqliteDb is not thread-safe: one thread at a time (SqlitePool leases each to one thread).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "sqlgrade/engine/engine.hpp"

struct sqlite3;

namespace sqlgrade {

namespace sqlite_guard {
class BuiltinHelper;
}

// The longest string or blob sqlgrade's SQLite builds or reads (SQLITE_LIMIT_LENGTH). One built-in
// call is one VM step that nothing can interrupt, and its work grows with this bound (docs/safety.md,
// "Execution bounds").
inline constexpr size_t kSqliteMaxValueBytes = size_t(16) << 20;

struct SqliteOptions {
  // How TEXT that is not valid UTF-8 is read: Ignore drops the invalid bytes (Python
  // decode(errors="ignore"), as the test-suite evaluator does); Error reports the query as failed
  // ("Could not decode to UTF-8", as the original Spider script would crash).
  enum class TextDecode { Ignore, Error } text_decode = TextDecode::Ignore;
  // When true, a statement that is empty (or only comments) returns an empty Ok result like Python's
  // cursor.execute(""); when false it is an Error.
  bool empty_is_ok = true;
};

// Configures sqlgrade's SQLite for this process once (allocator, statistics off, VFS; see
// sqlite_runtime.hpp). Done before main() already; SqliteDb calls it again (a no-op).
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
  std::unique_ptr<sqlite_guard::BuiltinHelper> helper_;  // printf / json_patch (sqlite_checked.hpp)
};

// Process-wide settings of the connection pool. The CLI, the server and the Python module can expose
// `max_open` as an option (SqlitePool::configure).
struct SqlitePoolOptions {
  // Most SQLite connections open at once in the process; each holds one file descriptor, its schema
  // and up to 2 MiB of page cache. 0 (default): min(256, soft RLIMIT_NOFILE / 4), at least 4,
  // re-read whenever a connection is opened.
  size_t max_open = 0;
};

// Connections to benchmark databases, shared by all threads and bounded: at most max_open() open at
// once. A lease gives one connection to one thread; when it ends the connection goes back to the pool
// as idle. Opening a new connection at the bound first closes the least recently used idle one; a
// leased connection is never closed. When every connection is leased, lease() waits for one to come
// back (a thread must not hold two leases at once when max_open is at most the number of threads).
class SqlitePool {
 public:
  class Lease {
   public:
    Lease(Lease&& o) noexcept;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    ~Lease();
    SqliteDb& operator*() const { return *db_; }
    SqliteDb* operator->() const { return db_; }
    struct Entry;  // the pool's record of one connection

   private:
    friend class SqlitePool;
    explicit Lease(Entry* e);
    Entry* entry_;
    SqliteDb* db_;
  };

  // A connection to `path` opened with `opt` (read-only, as SqliteDb). Throws InputError as SqliteDb.
  static Lease lease(const std::string& path, SqliteOptions opt = {});
  static void configure(const SqlitePoolOptions& opt);
  static size_t max_open();    // the bound in force now
  static size_t open_count();  // connections open now, leased or idle
  static void close_idle();    // closes every idle connection
};

}  // namespace sqlgrade
