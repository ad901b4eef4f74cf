#include "sqlgrade/engine/sqlite.hpp"

#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>

#include "sqlgrade/engine/sqlite_builtins.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/text.hpp"

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
bool opens_immutable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path wal = path + "-wal";
  const bool has_wal = fs::exists(fs::symlink_status(wal, ec));
  if (has_wal) {
    auto size = fs::file_size(wal, ec);
    // 32 bytes: a WAL header without a single frame (a checkpointed, truncated or reset log).
    if (ec || size > 32)
      throw InputError(path, "its -wal file holds changes not yet written into the database; sqlgrade opens "
                             "databases read-only and writes nothing beside them, so it cannot read them "
                             "(checkpoint it first: sqlite3 <file> 'PRAGMA wal_checkpoint(TRUNCATE)')");
  }
  unsigned char header[20] = {0};
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    size_t got = std::fread(header, 1, sizeof header, f);
    std::fclose(f);
    if (got < sizeof header) return has_wal;
  }
  // Bytes 18 and 19 of the header: file format write/read versions, 2 = WAL.
  return has_wal || header[18] == 2 || header[19] == 2;
}

}  // namespace

// SQLite keeps memory statistics by default (SQLITE_CONFIG_MEMSTATUS), which puts one process-wide
// mutex around every allocation: queries run by several threads at once then take longer than run
// one after the other (measured with the system libsqlite3, two recursive-CTE counts to 3 M: 0.97 s
// serially, 1.47 s on two threads; 0.47 s on two threads with the statistics off). sqlgrade never
// reads them (no sqlite3_memory_used, no soft heap limit), so they are switched off before SQLite
// initialises. When something else in the process initialised SQLite first (e.g. Python's sqlite3
// module before sqlgrade._native), sqlite3_config refuses with SQLITE_MISUSE and nothing changes.
void sqlite_configure_once() {
  static const int rc = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)rc;
}

SqliteDb::SqliteDb(const std::string& path, SqliteOptions opt)
    : path_(path), opt_(opt), deadline_(std::make_unique<Deadline>()) {
  sqlite_configure_once();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(path, std::filesystem::exists(path, ec) ? "not a regular file" : "database file not found");
  // URI form so that mode=ro is enforced even if the path has odd characters.
  std::string uri = "file:";
  for (char c : std::filesystem::absolute(path).string()) {
    if (c == '?' || c == '#' || c == '%') {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", static_cast<unsigned char>(c));
      uri += b;
    } else {
      uri += c;
    }
  }
  uri += "?mode=ro";
  if (opens_immutable(path)) uri += "&immutable=1";
  int rc = sqlite3_open_v2(uri.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
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
  // No string or blob above 64 MiB (SQLite's default is 1e9 bytes): randomblob(1e9), printf('%.*c', ..),
  // zeroblob + hex, or a recursive CTE doubling a string would otherwise allocate gigabytes inside one
  // VM step, before the deadline or the result caps can act. Such a query fails with "string or blob
  // too big". No benchmark database holds a value near this size.
  sqlite3_limit(db_, SQLITE_LIMIT_LENGTH, static_cast<int>(kMaxValueBytes));
  // LIKE/GLOB, instr, replace and the trims: SQLite's results, but bounded by the statement's deadline
  // (one call is one VM step, which the progress handler cannot interrupt; sqlite_guarded.hpp).
  sqlite_guard::register_guarded_functions(db_, deadline_.get());
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
}

ExecResult SqliteDb::execute(std::string_view sql_in, const Limits& limits) {
  ExecResult res;
  auto t0 = Clock::now();
  Deadline& dl = *deadline_;
  dl.fired = false;
  dl.active = limits.timeout_s > 0;
  if (dl.active)
    dl.until = t0 + std::chrono::microseconds(static_cast<long long>(limits.timeout_s * 1e6));
  auto finish = [&](ExecStatus st, std::string msg) {
    dl.active = false;
    res.status = st;
    res.error = std::move(msg);
    res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (st != ExecStatus::Ok && !(st == ExecStatus::TooLarge && limits.keep_partial)) res.table.rows.clear();
    return res;
  };

  std::string sql(sql_in);
  sqlite3_stmt* st = nullptr;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &st, &tail);
  if (rc != SQLITE_OK) {
    std::string msg = sqlite3_errmsg(db_);
    if (st) sqlite3_finalize(st);
    if (dl.fired) return finish(ExecStatus::Timeout, "timeout after " + std::to_string(limits.timeout_s) + " s");
    if (rc == SQLITE_AUTH) msg = "not authorized (sqlgrade opens databases read-only): " + msg;
    return finish(ExecStatus::Error, msg);
  }
  if (!st) {
    if (opt_.empty_is_ok) return finish(ExecStatus::Ok, "");
    return finish(ExecStatus::Error, "empty statement");
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(st, sqlite3_finalize);
  if (tail && !only_trailing_noise(tail)) return finish(ExecStatus::Error, "You can only execute one statement at a time.");
  if (!sqlite3_stmt_readonly(st)) return finish(ExecStatus::Error, "not authorized: statement would write");

  int ncol = sqlite3_column_count(st);
  if (ncol == 0) return finish(ExecStatus::Error, "not a query: the statement returns no columns");
  res.table.columns.reserve(ncol);
  for (int c = 0; c < ncol; ++c) {
    const char* nm = sqlite3_column_name(st, c);
    res.table.columns.emplace_back(nm ? nm : "");
  }
  size_t bytes = 0;
  while (true) {
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) {
      if (dl.fired || rc == SQLITE_INTERRUPT)
        return finish(ExecStatus::Timeout, "timeout after " + std::to_string(limits.timeout_s) + " s");
      return finish(ExecStatus::Error, sqlite3_errmsg(db_));
    }
    if (res.table.rows.size() >= limits.max_rows)
      return finish(ExecStatus::TooLarge, "result has more than " + std::to_string(limits.max_rows) + " rows");
    Row row;
    row.reserve(ncol);
    for (int c = 0; c < ncol; ++c) {
      switch (sqlite3_column_type(st, c)) {
        case SQLITE_INTEGER: row.push_back(Value::integer(sqlite3_column_int64(st, c))); bytes += 8; break;
        case SQLITE_FLOAT: row.push_back(Value::real(sqlite3_column_double(st, c))); bytes += 8; break;
        case SQLITE_TEXT: {
          const char* p = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
          int n = sqlite3_column_bytes(st, c);
          std::string_view sv(p ? p : "", static_cast<size_t>(n));
          bytes += sv.size() + 16;
          if (is_valid_utf8(sv)) {
            row.push_back(Value::text(std::string(sv)));
          } else if (opt_.text_decode == SqliteOptions::TextDecode::Ignore) {
            row.push_back(Value::text(utf8_lenient(sv)));
          } else {
            return finish(ExecStatus::Error, "Could not decode to UTF-8 column '" + res.table.columns[c] + "'");
          }
          break;
        }
        case SQLITE_BLOB: {
          const char* p = static_cast<const char*>(sqlite3_column_blob(st, c));
          int n = sqlite3_column_bytes(st, c);
          row.push_back(Value::blob(std::string(p ? p : "", static_cast<size_t>(n))));
          bytes += static_cast<size_t>(n) + 16;
          break;
        }
        default: row.push_back(Value::null()); bytes += 8;
      }
    }
    res.table.rows.push_back(std::move(row));
    if (bytes > limits.max_bytes)
      return finish(ExecStatus::TooLarge, "result is larger than " + std::to_string(limits.max_bytes) + " bytes");
    if (dl.active && Clock::now() >= dl.until)
      return finish(ExecStatus::Timeout, "timeout after " + std::to_string(limits.timeout_s) + " s");
  }
  return finish(ExecStatus::Ok, "");
}

std::vector<std::string> SqliteDb::table_names() {
  std::vector<std::string> out;
  auto r = execute("SELECT name FROM sqlite_master WHERE type='table'", Limits{0, 1000000, 1u << 30});
  for (auto& row : r.table.rows) out.push_back(row[0].to_string());
  return out;
}

std::vector<std::string> SqliteDb::column_names(const std::string& table) {
  std::vector<std::string> out;
  std::string q = "PRAGMA table_info(\"" + replace_all(table, "\"", "\"\"") + "\")";
  auto r = execute(q, Limits{0, 1000000, 1u << 30});
  for (auto& row : r.table.rows) out.push_back(row[1].to_string());
  return out;
}

SqliteDb& SqlitePool::get(const std::string& path, SqliteOptions opt) {
  thread_local std::map<std::string, std::unique_ptr<SqliteDb>> conns;
  std::string key = path + (opt.text_decode == SqliteOptions::TextDecode::Ignore ? "#i" : "#e") +
                    (opt.empty_is_ok ? "1" : "0");
  auto it = conns.find(key);
  if (it == conns.end()) it = conns.emplace(key, std::make_unique<SqliteDb>(path, opt)).first;
  return *it->second;
}

}  // namespace sqlgrade
