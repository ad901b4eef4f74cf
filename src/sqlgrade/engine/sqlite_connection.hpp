#pragma once
// The one way sqlgrade opens SQLite (docs/safety.md, "One set of bounds for every connection").
//
// Every connection — a benchmark database (SqliteDb, read-only), an in-memory scratch database the
// verification search writes candidates into and the audit runs nothing on (SqliteScratch) — is opened
// by SqliteConnection's constructor, which puts the same guards on it whatever its kind:
//  - the "sqlgrade" VFS (sqlite_runtime.hpp; also the process's default VFS): no file is created or
//    written, temporary files live in memory charged to the statement's budget;
//  - extension loading off, no ATTACH, SQLITE_DBCONFIG_DEFENSIVE, the value limit (kSqliteMaxValueBytes);
//  - the deadline-aware built-ins (sqlite_builtins.hpp) and the checked ones (sqlite_checked.hpp);
//  - changes(), total_changes() and last_insert_rowid() answered as on a clean connection (0): a
//    query sees no write the connection made before it (the search's own candidate rows);
//  - the progress handler on the statement's deadline (cancellation of the thread's work included);
//  - an authorizer: queries may only read; on a scratch database the engine's own statements (schema,
//    rows, transactions) are let through, ATTACH and file functions never.
// And every statement runs inside a StatementScope (sqlite_runtime.hpp): deadline, memory cap with the
// allocator's guard inside a step, spill folder. `tests/tools/architecture_check.py` checks that no
// other file of src/ calls sqlite3_open*.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sqlgrade/engine/engine.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace sqlgrade {

namespace sqlite_guard {
class BuiltinHelper;
}

// The longest string or blob sqlgrade's SQLite builds or reads (SQLITE_LIMIT_LENGTH), on every
// connection. One built-in call is one VM step that nothing can interrupt, and its work grows with this
// bound (docs/safety.md, "Execution bounds").
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

// What the connection pool keeps between uses (SqlitePool, sqlite.hpp): a connection, or a value read
// from a database (the verification search's schema samples), all counted in one byte bound.
class PoolItem {
 public:
  virtual ~PoolItem() = default;
  // Bytes the item holds while idle (for a connection: page cache, schema, statements, bookkeeping).
  virtual size_t resident_bytes() const = 0;
  // Whether it holds an open file (counted against SqlitePool::max_open()).
  virtual bool holds_file() const { return false; }
};

class SqliteConnection : public Engine, public PoolItem {
 public:
  enum class Kind { ReadOnlyFile, Scratch };
  ~SqliteConnection() override;
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  // One read-only statement under every bound of `limits`: deadline, rows and bytes (each cell measured
  // before it is copied), memory inside SQLite, and — on a database file only — the spill quota.
  ExecResult execute(std::string_view sql, const Limits& limits) override;
  std::string name() const override { return "sqlite"; }
  Kind kind() const { return kind_; }
  sqlite3* handle() { return db_; }
  size_t resident_bytes() const override;
  bool holds_file() const override { return kind_ == Kind::ReadOnlyFile; }
  // PRAGMA reverse_unordered_selects, set by the engine itself (a query cannot: the authorizer denies
  // it): another scan order for the same data, how the audit finds golds whose result depends on it.
  void set_reverse_unordered_scans(bool on);
  struct StatementDeadline;  // per-statement deadline state read by the progress handler
  struct Auth {      // what the authorizer lets through
    bool own = false;      // also the engine's own statements (scratch databases)
    bool scratch = false;  // a scratch database (its counterexample checks: integrity_check, ...)
  };

 protected:
  // Opens `target` (a URI of a database file, or ":memory:") through the "sqlgrade" VFS with every guard
  // above. Throws InputError naming `shown` when it cannot be opened.
  SqliteConnection(Kind kind, const std::string& target, const std::string& shown, SqliteOptions opt);
  // One statement of the engine's own (scratch databases: schema, rows, transactions, pragmas) under
  // `limits`' deadline and memory cap; "" or SQLite's message.
  std::string run_own(std::string_view sql, const Limits& limits);
  std::string insert_own(const std::string& table, const std::vector<std::string>& columns, const Row& row,
                         const Limits& limits);

 private:
  Kind kind_;
  SqliteOptions opt_;
  sqlite3* db_ = nullptr;
  std::unique_ptr<StatementDeadline> deadline_;
  std::unique_ptr<sqlite_guard::BuiltinHelper> helper_;  // printf / json_patch (sqlite_checked.hpp)
  Auth auth_;
  // insert_own's prepared INSERTs, by table and columns: the search loads ~100,000s of rows into a few
  // tables, and preparing each INSERT anew was half of `verify`'s time. At most kMaxOwnInserts (then
  // all are dropped); finalized before the connection closes.
  static constexpr size_t kMaxOwnInserts = 256;
  std::unordered_map<std::string, sqlite3_stmt*> own_inserts_;
  void drop_own_inserts();
};

// Unordered scans reversed on `c` for the life of the scope (SqliteConnection::set_reverse_unordered_scans),
// restored even on an exception: a pooled connection goes back as it came.
class ReversedScans {
 public:
  explicit ReversedScans(SqliteConnection& c) : c_(c) { c_.set_reverse_unordered_scans(true); }
  ~ReversedScans() { c_.set_reverse_unordered_scans(false); }
  ReversedScans(const ReversedScans&) = delete;
  ReversedScans& operator=(const ReversedScans&) = delete;

 private:
  SqliteConnection& c_;
};

// A writable database that lives in memory only (the verification search's candidates): never opened on
// a file, at most kScratchMaxBytes of pages, its temporary files never spilled to disk. Its one file
// output is save_copy() (a counterexample, `sqlgrade verify --counterexamples DIR`).
class SqliteScratch : public SqliteConnection {
 public:
  static constexpr size_t kScratchMaxBytes = size_t(64) << 20;
  explicit SqliteScratch(SqliteOptions opt = {});
  // The engine's own statements (DDL, INSERT, BEGIN/ROLLBACK, PRAGMA): "" or SQLite's error message.
  // Each runs under a 10 s deadline and a 64 MiB memory cap.
  std::string exec(std::string_view sql);
  std::string insert(const std::string& table, const std::vector<std::string>& columns, const Row& row);
  bool autocommit();
  // Writes the database to the file `path` (SQLite's backup API, the system VFS); "" or an error.
  std::string save_copy(const std::string& path);
};

// The UDA LLM judge's cache of replies (uda/judge/llm_cache.cpp), the one database sqlgrade opens to
// write on purpose: a file the user names, on the system's VFS (WAL, shared by processes), on which no
// query from a model ever runs. Returns SQLite's code; `*db` is set as sqlite3_open_v2 sets it.
int open_cache_file(const std::string& path, sqlite3** db);

}  // namespace sqlgrade
