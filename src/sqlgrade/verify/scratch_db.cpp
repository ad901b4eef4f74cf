// The in-memory writable database of scratch_db.hpp: never opened on a file; a file is written only by
// save_to() (counterexamples under --counterexamples DIR).
#include "sqlgrade/verify/scratch_db.hpp"

#include <sqlite3.h>

#include <chrono>
#include <memory>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/engine/sqlite_builtins.hpp"
#include "sqlgrade/engine/sqlite_runtime.hpp"

namespace sqlgrade::verify {

struct ScratchDb::Deadline : sqlite_guard::Deadline {};

namespace {
int on_progress(void* p) { return static_cast<sqlite_guard::Deadline*>(p)->expired() ? 1 : 0; }
std::string quote_ident(const std::string& s) { return "\"" + replace_all(s, "\"", "\"\"") + "\""; }

void bind_value(sqlite3_stmt* st, int k, const Value& v) {
  switch (v.kind) {
    case Kind::Null: sqlite3_bind_null(st, k); break;
    case Kind::Int: sqlite3_bind_int64(st, k, v.i); break;
    case Kind::Real: sqlite3_bind_double(st, k, v.r); break;
    case Kind::Text: sqlite3_bind_text(st, k, v.s.data(), static_cast<int>(v.s.size()), SQLITE_TRANSIENT); break;
    case Kind::Blob: sqlite3_bind_blob(st, k, v.s.data(), static_cast<int>(v.s.size()), SQLITE_TRANSIENT); break;
  }
}
}  // namespace

Value read_column(void* stmt, int c) {
  auto* st = static_cast<sqlite3_stmt*>(stmt);
  switch (sqlite3_column_type(st, c)) {
    case SQLITE_INTEGER: return Value::integer(sqlite3_column_int64(st, c));
    case SQLITE_FLOAT: return Value::real(sqlite3_column_double(st, c));
    case SQLITE_TEXT: {
      const char* p = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
      std::string_view sv(p ? p : "", static_cast<size_t>(sqlite3_column_bytes(st, c)));
      return Value::text(is_valid_utf8(sv) ? std::string(sv) : utf8_lenient(sv));
    }
    case SQLITE_BLOB: {
      const char* p = static_cast<const char*>(sqlite3_column_blob(st, c));
      return Value::blob(std::string(p ? p : "", static_cast<size_t>(sqlite3_column_bytes(st, c))));
    }
    default: return Value::null();
  }
}

ScratchDb::ScratchDb() : dl_(new Deadline) {
  sqlite_configure_once();
  // The engine's VFS: its temporary files stay in memory and 'now' is the thread's pinned SQL clock
  // (engine/sqlite_clock.hpp), as on the benchmark databases.
  sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                  sqlite_guard::vfs_name());
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_limit(db_, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_limit(db_, SQLITE_LIMIT_LENGTH, static_cast<int>(kMaxValueBytes));
  sqlite_guard::register_guarded_functions(db_, dl_);
  sqlite3_progress_handler(db_, 1000, on_progress, dl_);
}

ScratchDb::~ScratchDb() {
  if (db_) sqlite3_close_v2(db_);
  delete dl_;
}

std::string ScratchDb::exec(std::string_view sql) {
  char* err = nullptr;
  std::string s(sql);
  if (sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err) == SQLITE_OK) return "";
  std::string msg = err ? err : "error";
  sqlite3_free(err);
  return msg.empty() ? "error" : msg;
}

std::string ScratchDb::insert(const std::string& table, const std::vector<std::string>& columns, const Row& row) {
  std::string sql = "INSERT INTO " + quote_ident(table) + " (";
  for (size_t c = 0; c < columns.size(); ++c) sql += (c ? "," : "") + quote_ident(columns[c]);
  sql += ") VALUES (";
  for (size_t c = 0; c < columns.size(); ++c) sql += c ? ",?" : "?";
  sql += ")";
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    std::string msg = sqlite3_errmsg(db_);
    sqlite3_finalize(st);
    return msg;
  }
  for (size_t c = 0; c < columns.size() && c < row.size(); ++c) bind_value(st, static_cast<int>(c + 1), row[c]);
  int rc = sqlite3_step(st);
  std::string msg = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db_);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? "" : (msg.empty() ? "error" : msg);
}

// One read-only statement; the deadline is checked by the progress handler and the guarded built-ins.
ExecResult ScratchDb::run(std::string_view sql_in, const Limits& limits) {
  using Clock = std::chrono::steady_clock;
  ExecResult res;
  auto t0 = Clock::now();
  dl_->fired = false;
  dl_->active = limits.timeout_s > 0;
  if (dl_->active) dl_->until = t0 + std::chrono::microseconds(static_cast<long long>(limits.timeout_s * 1e6));
  auto done = [&](ExecStatus s, std::string msg) {
    dl_->active = false;
    res.status = s;
    res.error = std::move(msg);
    if (s != ExecStatus::Ok) res.table.rows.clear();
    res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return res;
  };
  std::string sql(sql_in);
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr) != SQLITE_OK || !raw) {
    std::string msg = raw ? sqlite3_errmsg(db_) : (sqlite3_errcode(db_) ? sqlite3_errmsg(db_) : "empty statement");
    sqlite3_finalize(raw);
    return done(dl_->fired ? ExecStatus::Timeout : ExecStatus::Error, msg);
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> st(raw, sqlite3_finalize);
  if (!sqlite3_stmt_readonly(raw)) return done(ExecStatus::Error, "not a read-only statement");
  const int ncol = sqlite3_column_count(raw);
  for (int c = 0; c < ncol; ++c) res.table.columns.emplace_back(sqlite3_column_name(raw, c) ? sqlite3_column_name(raw, c) : "");
  for (int rc; (rc = sqlite3_step(raw)) != SQLITE_DONE;) {
    if (rc != SQLITE_ROW) return done(dl_->fired ? ExecStatus::Timeout : ExecStatus::Error, sqlite3_errmsg(db_));
    if (res.table.rows.size() >= limits.max_rows) return done(ExecStatus::TooLarge, "too many rows");
    Row row;
    row.reserve(static_cast<size_t>(ncol));
    for (int c = 0; c < ncol; ++c) row.push_back(read_column(raw, c));
    res.table.rows.push_back(std::move(row));
  }
  return done(ExecStatus::Ok, "");
}

bool ScratchDb::load_from(sqlite3* src) {
  sqlite3_backup* b = sqlite3_backup_init(db_, "main", src, "main");
  if (!b) return false;
  sqlite3_backup_step(b, -1);
  return sqlite3_backup_finish(b) == SQLITE_OK;
}

std::string ScratchDb::save_to(const std::string& path) {
  sqlite3* out = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  std::string err;
  if (rc == SQLITE_OK) {
    sqlite3_backup* b = sqlite3_backup_init(out, "main", db_, "main");
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

}  // namespace sqlgrade::verify
