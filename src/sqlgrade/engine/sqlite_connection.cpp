// SqliteConnection and SqliteScratch (sqlite_connection.hpp): the one place sqlgrade opens SQLite, and
// the one statement loop every query runs through.
#include "sqlgrade/engine/sqlite_connection.hpp"

#include <sqlite3.h>

#include <chrono>
#include <cstring>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/sqlite_builtins.hpp"
#include "sqlgrade/engine/sqlite_checked.hpp"
#include "sqlgrade/engine/sqlite_runtime.hpp"
#include "sqlgrade/engine/sqlite_spill.hpp"
#include "sqlgrade/errors.hpp"

namespace sqlgrade {

struct SqliteConnection::StatementDeadline : sqlite_guard::StatementDeadline {};

namespace {

using Clock = std::chrono::steady_clock;

int progress_cb(void* p) { return static_cast<SqliteConnection::StatementDeadline*>(p)->expired() ? 1 : 0; }

bool name_in(const char* name, std::initializer_list<const char*> names) {
  if (!name) return false;
  for (const char* a : names)
    if (sqlite3_stricmp(a, name) == 0) return true;
  return false;
}

bool pragma_allowed(const char* name, bool scratch) {
  if (name_in(name, {"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list",
                     "collation_list", "function_list", "table_list"}))
    return true;
  // A scratch database's own checks of a counterexample (read-only, bounded by the deadline).
  return scratch && name_in(name, {"integrity_check", "quick_check", "foreign_key_check"});
}

int authorizer(void* p, int action, const char* a1, const char* a2, const char*, const char*) {
  const auto* st = static_cast<const SqliteConnection::Auth*>(p);
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_FUNCTION:
      return name_in(a2, {"load_extension", "readfile", "writefile", "fts3_tokenizer"}) ? SQLITE_DENY : SQLITE_OK;
    case SQLITE_PRAGMA:
      // a1 = pragma name, a2 = argument (NULL when the pragma is only read)
      return st->own || pragma_allowed(a1, st->scratch) ? SQLITE_OK : SQLITE_DENY;
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
      return SQLITE_DENY;
    default:
      // Queries: every write, DDL, transaction, ANALYZE, REINDEX, ... is denied. The engine's own
      // statements on a scratch database (schema, rows, transactions) pass.
      return st->own ? SQLITE_OK : SQLITE_DENY;
  }
}

// changes(), total_changes() and last_insert_rowid() as a clean connection answers them: 0. They read
// the connection's own history, and a query only reads; but the verification search inserts each
// candidate's rows on the connection its queries then run on, so SQLite's own functions would show
// those inserts (an equivalent pair refuted, and not refuted once the counterexample file is replayed
// on a fresh read-only connection). Every connection answers the same, whatever it wrote before.
void clean_state_fn(sqlite3_context* ctx, int, sqlite3_value**) { sqlite3_result_int64(ctx, 0); }

void register_clean_state_functions(sqlite3* db) {
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  for (const char* name : {"changes", "total_changes", "last_insert_rowid"})
    sqlite3_create_function_v2(db, name, 0, flags, nullptr, clean_state_fn, nullptr, nullptr, nullptr);
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

// Why a statement SQLite stopped with an error was cut by a bound: other statements held the process's
// spill space, its temporary files passed their quota, or it passed its memory cap ("" when none).
std::string cut_reason(sqlite_guard::StatementScope& scope, const Limits& limits) {
  const std::string memory = "memory cap: the query needed more than " + std::to_string(limits.max_memory >> 20) + " MiB inside SQLite";
  if (scope.spill_crowded()) return std::string(kSpillCrowded) + " (" + std::to_string(sqlite_guard::spill_limit() >> 20) + " MiB)";
  if (scope.spill_over_quota()) return memory + " and " + std::to_string(limits.max_spill >> 20) + " MiB of temporary files on disk";
  if (scope.budget().over_cap) return memory;
  return "";
}

void bind_value(sqlite3_stmt* st, int k, const Value& v) {
  switch (v.kind) {
    case Kind::Null: sqlite3_bind_null(st, k); break;
    case Kind::Int: sqlite3_bind_int64(st, k, v.i); break;
    case Kind::Real: sqlite3_bind_double(st, k, v.r); break;
    case Kind::Text: sqlite3_bind_text(st, k, v.s.data(), static_cast<int>(v.s.size()), SQLITE_TRANSIENT); break;
    case Kind::Blob: sqlite3_bind_blob(st, k, v.s.data(), static_cast<int>(v.s.size()), SQLITE_TRANSIENT); break;
    default: sqlite3_bind_text(st, k, v.s.data(), static_cast<int>(v.s.size()), SQLITE_TRANSIENT); break;  // server kinds (issue 33)
  }
}

std::string quote_ident(const std::string& s) { return "\"" + replace_all(s, "\"", "\"\"") + "\""; }

}  // namespace

SqliteConnection::SqliteConnection(Kind kind, const std::string& target, const std::string& shown, SqliteOptions opt)
    : kind_(kind), opt_(opt), deadline_(std::make_unique<StatementDeadline>()) {
  sqlite_guard::configure_once();
  const int flags = SQLITE_OPEN_NOMUTEX | (kind == Kind::ReadOnlyFile ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
                                                                       : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  int rc = sqlite3_open_v2(target.c_str(), &db_, flags, sqlite_guard::vfs_name());
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "cannot open";
    if (db_) sqlite3_close(db_);
    db_ = nullptr;
    throw InputError(shown, "cannot open database: " + msg);
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
  register_clean_state_functions(db_);
  if (kind == Kind::ReadOnlyFile) {
    sqlite3_exec(db_, "PRAGMA query_only=1", nullptr, nullptr, nullptr);
    // Touch the schema once so that "file is not a database" surfaces here, not per query.
    char* err = nullptr;
    rc = sqlite3_exec(db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
      std::string msg = err ? err : "unreadable";
      sqlite3_free(err);
      sqlite3_close(db_);
      db_ = nullptr;
      throw InputError(shown, "cannot read database: " + msg);
    }
  } else {
    // A scratch database's pages are memory: at most kScratchMaxBytes of them (an insert past it fails).
    const std::string pages = std::to_string(SqliteScratch::kScratchMaxBytes / 4096);
    sqlite3_exec(db_, ("PRAGMA page_size=4096; PRAGMA max_page_count=" + pages).c_str(), nullptr, nullptr, nullptr);
  }
  auth_.scratch = kind == Kind::Scratch;
  sqlite3_set_authorizer(db_, authorizer, &auth_);
  sqlite3_progress_handler(db_, 1000, progress_cb, deadline_.get());
}

void SqliteConnection::drop_own_inserts() {
  for (auto& [key, st] : own_inserts_) sqlite3_finalize(st);
  own_inserts_.clear();
}

SqliteConnection::~SqliteConnection() {
  drop_own_inserts();
  if (db_) sqlite3_close_v2(db_);
  helper_.reset();
}

size_t SqliteConnection::resident_bytes() const {
  // What SQLite reports for the connection (page cache, schema, prepared statements) and a fixed
  // share for the connection object, its helper and the pool's bookkeeping.
  size_t total = 48 << 10;
  for (int op : {SQLITE_DBSTATUS_CACHE_USED, SQLITE_DBSTATUS_SCHEMA_USED, SQLITE_DBSTATUS_STMT_USED}) {
    int cur = 0, hi = 0;
    if (db_ && sqlite3_db_status(db_, op, &cur, &hi, 0) == SQLITE_OK && cur > 0) total += static_cast<size_t>(cur);
  }
  return total;
}

void SqliteConnection::set_reverse_unordered_scans(bool on) {
  auth_.own = true;
  sqlite3_exec(db_, on ? "PRAGMA reverse_unordered_selects=1" : "PRAGMA reverse_unordered_selects=0", nullptr, nullptr,
               nullptr);
  auth_.own = false;
}

ExecResult SqliteConnection::execute(std::string_view sql_in, const Limits& limits) {
  ExecResult res;
  const auto t0 = Clock::now();
  StatementDeadline& dl = *deadline_;
  // Everything SQLite allocates on this thread until the statement is finalised is charged to the
  // scope's budget; only a database file's statements may spill temporary files to disk.
  auto scope = std::make_unique<sqlite_guard::StatementScope>(dl, limits, kind_ == Kind::ReadOnlyFile);
  sqlite_guard::QueryBudget& budget = scope->budget();
  sqlite3_stmt* st = nullptr;
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(nullptr, sqlite3_finalize);  // also on exceptions
  auto finish = [&](ExecStatus status, std::string msg) {
    guard.reset();
    st = nullptr;
    res.peak_memory = static_cast<size_t>(std::max(0LL, budget.peak));
    res.peak_spill = static_cast<size_t>(scope->spill_peak());
    scope.reset();
    res.status = status;
    res.error = std::move(msg);
    res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (status != ExecStatus::Ok && !(status == ExecStatus::TooLarge && limits.keep_partial)) res.table.rows.clear();
    return std::move(res);  // every call is the statement's last: moved, not copied (a result can be 500 MiB)
  };
  const std::string timeout_msg = "timeout after " + std::to_string(limits.timeout_s) + " s";
  // Why SQLite stopped a statement with an error: the deadline, the memory cap (and spill quota), or
  // the SQL itself.
  auto failed = [&](std::string msg) {
    if (dl.fired || budget.late) return finish(ExecStatus::Timeout, timeout_msg);
    if (std::string cut = cut_reason(*scope, limits); !cut.empty()) return finish(ExecStatus::TooLarge, std::move(cut));
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
    if (dl.limit.active() && Clock::now() >= dl.limit.until()) return finish(ExecStatus::Timeout, timeout_msg);
  }
  return finish(ExecStatus::Ok, "");
}

std::string SqliteConnection::run_own(std::string_view sql, const Limits& limits) {
  sqlite_guard::StatementScope scope(*deadline_, limits, false);
  auth_.own = true;
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &err);
  auth_.own = false;
  if (rc == SQLITE_OK) return "";
  std::string msg = err ? err : "error";
  sqlite3_free(err);
  return msg.empty() ? "error" : msg;
}

std::string SqliteConnection::insert_own(const std::string& table, const std::vector<std::string>& columns, const Row& row,
                                         const Limits& limits) {
  std::string key = table;
  for (const std::string& c : columns) (key += '\0') += c;
  sqlite_guard::StatementScope scope(*deadline_, limits, false);
  // The authorizer runs at prepare and again when step re-prepares a statement after a schema change.
  auth_.own = true;
  struct OwnOff {
    Auth& a;
    ~OwnOff() { a.own = false; }
  } own_off{auth_};
  auto it = own_inserts_.find(key);
  if (it == own_inserts_.end()) {
    std::string sql = "INSERT INTO " + quote_ident(table) + " (";
    for (size_t c = 0; c < columns.size(); ++c) sql += (c ? "," : "") + quote_ident(columns[c]);
    sql += ") VALUES (";
    for (size_t c = 0; c < columns.size(); ++c) sql += c ? ",?" : "?";
    sql += ")";
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      sqlite3_finalize(st);
      return sqlite3_errmsg(db_);
    }
    if (own_inserts_.size() >= kMaxOwnInserts) drop_own_inserts();
    it = own_inserts_.emplace(std::move(key), st).first;
  }
  sqlite3_stmt* st = it->second;
  // A statement used before: every parameter NULL again (a row shorter than `columns` leaves the rest NULL).
  sqlite3_clear_bindings(st);
  for (size_t c = 0; c < columns.size() && c < row.size(); ++c) bind_value(st, static_cast<int>(c + 1), row[c]);
  const int rc = sqlite3_step(st);
  std::string msg;
  if (rc != SQLITE_DONE) {
    msg = sqlite3_errmsg(db_);
    if (msg.empty()) msg = "error";
  }
  sqlite3_reset(st);
  return msg;
}

namespace {
// The bounds of a scratch database's own statements (a row, a table, a transaction: small work).
Limits own_limits() {
  Limits l;
  l.timeout_s = 10;
  l.max_memory = SqliteScratch::kScratchMaxBytes;
  l.max_spill = 0;
  return l;
}
}  // namespace

SqliteScratch::SqliteScratch(SqliteOptions opt) : SqliteConnection(Kind::Scratch, ":memory:", ":memory:", opt) {}

std::string SqliteScratch::exec(std::string_view sql) { return run_own(sql, own_limits()); }

std::string SqliteScratch::insert(const std::string& table, const std::vector<std::string>& columns, const Row& row) {
  return insert_own(table, columns, row, own_limits());
}

bool SqliteScratch::autocommit() { return sqlite3_get_autocommit(handle()) != 0; }

int open_cache_file(const std::string& path, sqlite3** db) {
  sqlite_guard::configure_once();
  return sqlite3_open_v2(path.c_str(), db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                         sqlite_guard::file_vfs_name());
}

std::string SqliteScratch::save_copy(const std::string& path) {
  sqlite3* out = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           sqlite_guard::file_vfs_name());
  std::string err;
  if (rc == SQLITE_OK) {
    sqlite3_backup* b = sqlite3_backup_init(out, "main", handle(), "main");
    if (!b) err = sqlite3_errmsg(out);
    else {
      sqlite3_backup_step(b, -1);
      if (sqlite3_backup_finish(b) != SQLITE_OK) err = sqlite3_errmsg(out);
    }
  } else {
    err = out ? sqlite3_errmsg(out) : "cannot open";
  }
  sqlite3_close_v2(out);
  return err;
}

}  // namespace sqlgrade
