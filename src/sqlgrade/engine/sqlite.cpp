#include "sqlgrade/engine/sqlite.hpp"

#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "sqlgrade/engine/sqlite_builtins.hpp"
#include "sqlgrade/engine/sqlite_checked.hpp"
#include "sqlgrade/engine/sqlite_runtime.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade {

struct SqliteDb::Deadline : sqlite_guard::Deadline {};

namespace {

using Clock = std::chrono::steady_clock;

int progress_cb(void* p) { return static_cast<SqliteDb::Deadline*>(p)->expired() ? 1 : 0; }

bool pragma_allowed(const char* name) {
  static const char* allowed[] = {"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo",
                                  "foreign_key_list", "collation_list", "function_list", "table_list"};
  if (!name) return false;
  for (const char* a : allowed)
    if (sqlite3_stricmp(a, name) == 0) return true;
  return false;
}

int authorizer(void*, int action, const char* a1, const char* a2, const char*, const char*) {
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_FUNCTION:
      if (a2 && (sqlite3_stricmp(a2, "load_extension") == 0 || sqlite3_stricmp(a2, "readfile") == 0 ||
                 sqlite3_stricmp(a2, "writefile") == 0 || sqlite3_stricmp(a2, "fts3_tokenizer") == 0))
        return SQLITE_DENY;
      return SQLITE_OK;
    case SQLITE_PRAGMA:
      // a1 = pragma name, a2 = argument (NULL when the pragma is only read)
      if (pragma_allowed(a1)) return SQLITE_OK;
      return SQLITE_DENY;
    default:
      return SQLITE_DENY;  // every write, DDL, ATTACH/DETACH, transaction, ANALYZE, REINDEX, ...
  }
}

// True when the rest of a statement text holds only whitespace and comments (CPython's rule).
bool only_trailing_noise(const char* p) {
  while (*p) {
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') {
      ++p;
    } else if (p[0] == '-' && p[1] == '-') {
      while (*p && *p != '\n') ++p;
    } else if (p[0] == '/' && p[1] == '*') {
      const char* e = std::strstr(p + 2, "*/");
      if (!e) return true;  // unterminated comment: nothing executable follows
      p = e + 2;
    } else {
      return false;
    }
  }
  return true;
}

// How a database is opened without writing anything beside it. A read-only connection to a WAL-mode
// database (or to any database with a -wal file next to it: SQLite then reads the WAL whatever the
// header says) creates -wal and -shm files in its folder, and fails on read-only media. With no WAL
// content to read, `immutable=1` reads the main file alone and creates nothing. WAL content cannot be
// read without a shared-memory index (the -shm file SQLite would create), so such a database is
// refused with a one-line error instead (the user can checkpoint it).
// `real` is the file's canonical path: SQLite resolves symlinks itself and would read the -wal beside
// the real file, so that is the one to look at (a check beside a symlink missed it, and a -shm file
// appeared beside the real database). `shown` names the file in the error.
bool opens_immutable(const std::string& real, const std::string& shown) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path wal = real + "-wal";
  const bool has_wal = fs::exists(fs::symlink_status(wal, ec));
  if (has_wal) {
    auto size = fs::file_size(wal, ec);
    // 32 bytes: a WAL header without a single frame (a checkpointed, truncated or reset log).
    if (ec || size > 32)
      throw InputError(shown, (real != shown ? "the -wal file beside its real file " + real : std::string("its -wal file")) +
                                  " holds changes not yet written into the database; sqlgrade opens databases "
                                  "read-only and writes nothing beside them, so it cannot read them (checkpoint it "
                                  "first: sqlite3 <file> 'PRAGMA wal_checkpoint(TRUNCATE)')");
  }
  unsigned char header[20] = {0};
  if (std::FILE* f = std::fopen(real.c_str(), "rb")) {
    size_t got = std::fread(header, 1, sizeof header, f);
    std::fclose(f);
    if (got < sizeof header) return has_wal;
  }
  // Bytes 18 and 19 of the header: file format write/read versions, 2 = WAL.
  return has_wal || header[18] == 2 || header[19] == 2;
}

}  // namespace

void sqlite_configure_once() { sqlite_guard::configure_once(); }

namespace {

// file:<absolute path>?mode=ro[&immutable=1]: the URI form enforces mode=ro even when the path has odd
// characters.
std::string open_uri(const std::string& real, bool immutable) {
  std::string uri = "file:";
  for (char c : real) {
    if (c == '?' || c == '#' || c == '%') {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", static_cast<unsigned char>(c));
      uri += b;
    } else {
      uri += c;
    }
  }
  return uri + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
}

// The canonical path of the database `path` names (symlinks resolved), or InputError.
std::string real_database_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw InputError(path, fs::exists(path, ec) ? "not a regular file" : "database file not found");
  fs::path real = fs::canonical(path, ec);
  if (ec) throw InputError(path, "cannot resolve its path: " + ec.message());
  return real.string();
}

}  // namespace

SqliteDb::SqliteDb(const std::string& path, SqliteOptions opt)
    : path_(path), opt_(opt), deadline_(std::make_unique<Deadline>()) {
  sqlite_configure_once();
  const std::string real = real_database_path(path);
  const std::string uri = open_uri(real, opens_immutable(real, path));
  int rc = sqlite3_open_v2(uri.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                           sqlite_guard::vfs_name());
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "cannot open";
    if (db_) sqlite3_close(db_);
    db_ = nullptr;
    throw InputError(path, "cannot open database: " + msg);
  }
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
#ifdef SQLITE_DBCONFIG_DEFENSIVE
  sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
#endif
  sqlite3_limit(db_, SQLITE_LIMIT_ATTACHED, 0);
  // No string or blob above kSqliteMaxValueBytes (SQLite's default is 1e9 bytes): one built-in call is
  // one VM step, and its work grows with the values it reads and builds (docs/safety.md, "Execution
  // bounds"). Such a query fails with "string or blob too big". No benchmark database holds a value
  // near this size.
  sqlite3_limit(db_, SQLITE_LIMIT_LENGTH, static_cast<int>(kSqliteMaxValueBytes));
  // LIKE/GLOB, instr, replace and the trims: SQLite's results, but bounded by the statement's deadline
  // (one call is one VM step, which the progress handler cannot interrupt; sqlite_builtins.hpp).
  sqlite_guard::register_guarded_functions(db_, deadline_.get());
  // printf/format and json_patch: checked first (a '%c' loop or a quadratic merge), then SQLite's own.
  helper_ = std::make_unique<sqlite_guard::BuiltinHelper>();
  sqlite_guard::register_checked_functions(db_, helper_.get(), deadline_.get());
  sqlite3_exec(db_, "PRAGMA query_only=1", nullptr, nullptr, nullptr);
  // Touch the schema once so that "file is not a database" surfaces here, not per query.
  char* err = nullptr;
  rc = sqlite3_exec(db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : "unreadable";
    sqlite3_free(err);
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError(path, "cannot read database: " + msg);
  }
  sqlite3_set_authorizer(db_, authorizer, nullptr);
  sqlite3_progress_handler(db_, 1000, progress_cb, deadline_.get());
}

SqliteDb::~SqliteDb() {
  if (db_) sqlite3_close_v2(db_);
  helper_.reset();
}

namespace {

// One result cell into `row`, unless it would take the result past `max_bytes`: its size is known
// before anything is copied (sqlite3_column_bytes, also for a zeroblob, which is not expanded), so a
// row of twenty 60 MB blobs stops at the first cell that does not fit instead of costing 1.2 GB first.
enum class Cell { Ok, TooLarge, BadUtf8 };
Cell read_cell(sqlite3_stmt* st, int c, Row& row, size_t& bytes, size_t max_bytes, SqliteOptions::TextDecode decode) {
  auto fits = [&](size_t n) {
    if (n > max_bytes - std::min(bytes, max_bytes)) return false;
    bytes += n;
    return true;
  };
  switch (sqlite3_column_type(st, c)) {
    case SQLITE_INTEGER:
      if (!fits(8)) return Cell::TooLarge;
      row.push_back(Value::integer(sqlite3_column_int64(st, c)));
      return Cell::Ok;
    case SQLITE_FLOAT:
      if (!fits(8)) return Cell::TooLarge;
      row.push_back(Value::real(sqlite3_column_double(st, c)));
      return Cell::Ok;
    case SQLITE_TEXT: {
      if (!fits(static_cast<size_t>(sqlite3_column_bytes(st, c)) + 16)) return Cell::TooLarge;
      const char* p = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
      std::string_view sv(p ? p : "", static_cast<size_t>(sqlite3_column_bytes(st, c)));
      if (is_valid_utf8(sv)) row.push_back(Value::text(std::string(sv)));
      else if (decode == SqliteOptions::TextDecode::Ignore) row.push_back(Value::text(utf8_lenient(sv)));
      else return Cell::BadUtf8;
      return Cell::Ok;
    }
    case SQLITE_BLOB: {
      if (!fits(static_cast<size_t>(sqlite3_column_bytes(st, c)) + 16)) return Cell::TooLarge;
      const char* p = static_cast<const char*>(sqlite3_column_blob(st, c));
      row.push_back(Value::blob(std::string(p ? p : "", static_cast<size_t>(sqlite3_column_bytes(st, c)))));
      return Cell::Ok;
    }
    default:
      if (!fits(8)) return Cell::TooLarge;
      row.push_back(Value::null());
      return Cell::Ok;
  }
}

}  // namespace

ExecResult SqliteDb::execute(std::string_view sql_in, const Limits& limits) {
  ExecResult res;
  auto t0 = Clock::now();
  Deadline& dl = *deadline_;
  dl.fired = false;
  dl.active = limits.timeout_s > 0;
  if (dl.active)
    dl.until = t0 + std::chrono::microseconds(static_cast<long long>(limits.timeout_s * 1e6));
  // Everything SQLite allocates on this thread until the statement is finalised is charged here.
  sqlite_guard::QueryBudget budget;
  budget.cap = static_cast<long long>(std::min<size_t>(limits.max_memory, size_t(1) << 62));
  budget.deadline = &dl;
  std::unique_ptr<sqlite_guard::BudgetScope> scope = std::make_unique<sqlite_guard::BudgetScope>(budget);
  sqlite3_stmt* st = nullptr;
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(nullptr, sqlite3_finalize);  // also on exceptions
  auto finish = [&](ExecStatus status, std::string msg) {
    guard.reset();
    st = nullptr;
    scope.reset();
    dl.active = false;
    res.status = status;
    res.error = std::move(msg);
    res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (status != ExecStatus::Ok && !(status == ExecStatus::TooLarge && limits.keep_partial)) res.table.rows.clear();
    return std::move(res);  // every call is the statement's last: moved, not copied (a result can be 500 MiB)
  };
  const std::string timeout_msg = "timeout after " + std::to_string(limits.timeout_s) + " s";
  // Why SQLite stopped a statement with an error: the deadline, the memory cap, or the SQL itself.
  auto failed = [&](std::string msg) {
    if (dl.fired || budget.late) return finish(ExecStatus::Timeout, timeout_msg);
    if (budget.over_cap)
      return finish(ExecStatus::TooLarge, "memory cap: the query needed more than " +
                                              std::to_string(limits.max_memory >> 20) + " MiB inside SQLite");
    return finish(ExecStatus::Error, std::move(msg));
  };

  std::string sql(sql_in);
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &st, &tail);
  guard.reset(st);
  if (rc != SQLITE_OK) {
    std::string msg = sqlite3_errmsg(db_);
    if (rc == SQLITE_AUTH) msg = "not authorized (sqlgrade opens databases read-only): " + msg;
    return failed(msg);
  }
  if (!st) return opt_.empty_is_ok ? finish(ExecStatus::Ok, "") : finish(ExecStatus::Error, "empty statement");
  if (tail && !only_trailing_noise(tail)) return finish(ExecStatus::Error, "You can only execute one statement at a time.");
  if (!sqlite3_stmt_readonly(st)) return finish(ExecStatus::Error, "not authorized: statement would write");

  const int ncol = sqlite3_column_count(st);
  if (ncol == 0) return finish(ExecStatus::Error, "not a query: the statement returns no columns");
  res.table.columns.reserve(ncol);
  for (int c = 0; c < ncol; ++c) {
    const char* nm = sqlite3_column_name(st, c);
    res.table.columns.emplace_back(nm ? nm : "");
  }
  const std::string too_many_bytes = "result is larger than " + std::to_string(limits.max_bytes) + " bytes";
  size_t bytes = 0;
  while ((rc = sqlite3_step(st)) != SQLITE_DONE) {
    if (rc != SQLITE_ROW) return failed(rc == SQLITE_INTERRUPT ? timeout_msg : sqlite3_errmsg(db_));
    if (res.table.rows.size() >= limits.max_rows)
      return finish(ExecStatus::TooLarge, "result has more than " + std::to_string(limits.max_rows) + " rows");
    Row row;
    row.reserve(ncol);
    for (int c = 0; c < ncol; ++c) {
      Cell got = read_cell(st, c, row, bytes, limits.max_bytes, opt_.text_decode);
      if (got == Cell::TooLarge) return budget.over_cap || budget.late ? failed("") : finish(ExecStatus::TooLarge, too_many_bytes);
      if (got == Cell::BadUtf8)
        return finish(ExecStatus::Error, "Could not decode to UTF-8 column '" + res.table.columns[c] + "'");
    }
    if (budget.over_cap || budget.late) return failed("");  // a value could not be read whole
    res.table.rows.push_back(std::move(row));
    if (dl.active && Clock::now() >= dl.until) return finish(ExecStatus::Timeout, timeout_msg);
  }
  return finish(ExecStatus::Ok, "");
}

std::vector<std::string> SqliteDb::table_names() {
  std::vector<std::string> out;
  auto r = execute("SELECT name FROM sqlite_master WHERE type='table'", Limits{0, 1000000, 1u << 30});
  for (auto& row : r.table.rows) out.push_back(py::text(row[0]));
  return out;
}

std::vector<std::string> SqliteDb::column_names(const std::string& table) {
  std::vector<std::string> out;
  std::string q = "PRAGMA table_info(\"" + replace_all(table, "\"", "\"\"") + "\")";
  auto r = execute(q, Limits{0, 1000000, 1u << 30});
  for (auto& row : r.table.rows) out.push_back(py::text(row[1]));
  return out;
}

}  // namespace sqlgrade
