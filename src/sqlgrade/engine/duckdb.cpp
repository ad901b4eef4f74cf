#include "sqlgrade/engine/duckdb.hpp"

#include "sqlgrade/engine/duckdb_clock.hpp"
#include "sqlgrade/engine/duckdb_loader.hpp"

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

namespace sqlgrade {

struct DuckDb::Impl {
  duckdb_database db = nullptr;
};

struct DuckConn::Impl {
  duckdb_connection con = nullptr;
  std::optional<sql_clock::Millis> clock;  // the pinned instant its clock macros say (duckdb_clock.hpp)
};

DuckDb::DuckDb(DuckOptions opt) : impl_(std::make_unique<Impl>()) {
  duckdb_config cfg;
  if (duck::api().duckdb_create_config(&cfg) != DuckDBSuccess) throw std::runtime_error("duckdb: cannot create config");
  duck::api().duckdb_set_config(cfg, "memory_limit", opt.memory_limit.c_str());
  std::string th = std::to_string(opt.threads);
  duck::api().duckdb_set_config(cfg, "threads", th.c_str());
  // No spilling: an in-memory DuckDB offloads blocks past memory_limit into "<cwd>/.tmp" by default
  // (134 MiB written for a 2 M-row table under a 64 MB limit when external access is on;
  // max_temp_directory_size=0B did not stop it). Without a temporary directory such a query fails
  // "Out of Memory" (TooLarge) and nothing is ever written to disk; the locked configuration keeps SQL
  // from setting one. Set before external access is switched off, which refuses the setting.
  if (duck::api().duckdb_set_config(cfg, "temp_directory", "") != DuckDBSuccess) {
    duck::api().duckdb_destroy_config(&cfg);
    throw std::runtime_error("duckdb: cannot switch off the temporary directory");
  }
  duck::api().duckdb_set_config(cfg, "enable_external_access", opt.external_access ? "true" : "false");
  duck::api().duckdb_set_config(cfg, "autoinstall_known_extensions", "false");
  duck::api().duckdb_set_config(cfg, "autoload_known_extensions", "false");
  duck::api().duckdb_set_config(cfg, "lock_configuration", "true");
  char* err = nullptr;
  if (duck::api().duckdb_open_ext(nullptr, &impl_->db, cfg, &err) != DuckDBSuccess) {
    std::string msg = err ? err : "unknown error";
    if (err) duck::api().duckdb_free(err);
    duck::api().duckdb_destroy_config(&cfg);
    throw std::runtime_error("duckdb: cannot open: " + msg);
  }
  duck::api().duckdb_destroy_config(&cfg);
}

DuckDb::~DuckDb() {
  if (impl_ && impl_->db) duck::api().duckdb_close(&impl_->db);
}

std::unique_ptr<DuckConn> DuckDb::connect() {
  std::unique_ptr<DuckConn> c(new DuckConn());
  c->impl_ = std::make_unique<DuckConn::Impl>();
  if (duck::api().duckdb_connect(impl_->db, &c->impl_->con) != DuckDBSuccess) throw std::runtime_error("duckdb: cannot connect");
  return c;
}

std::string DuckDb::version() { return duck::api().duckdb_library_version(); }

DuckConn::~DuckConn() {
  if (impl_ && impl_->con) duck::api().duckdb_disconnect(&impl_->con);
}

void DuckConn::run(std::string_view sql) {
  duckdb_result r;
  std::string s(sql);
  if (duck::api().duckdb_query(impl_->con, s.c_str(), &r) != DuckDBSuccess) {
    std::string msg = duck::api().duckdb_result_error(&r) ? duck::api().duckdb_result_error(&r) : "unknown error";
    duck::api().duckdb_destroy_result(&r);
    throw std::runtime_error(msg);
  }
  duck::api().duckdb_destroy_result(&r);
}

void DuckConn::load_table(const std::string& name, const std::vector<std::string>& columns,
                          const std::vector<std::string>& types, const std::vector<Row>& rows) {
  std::string ddl = "CREATE TABLE " + duck_ident(name) + " (";
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c) ddl += ", ";
    ddl += duck_ident(columns[c]) + " " + types[c];
  }
  run(ddl + ")");
  duckdb_appender app;
  if (duck::api().duckdb_appender_create(impl_->con, nullptr, name.c_str(), &app) != DuckDBSuccess)
    throw std::runtime_error("duckdb: cannot create appender for " + name);
  auto fail = [&](const std::string& what) {
    std::string msg = duck::api().duckdb_appender_error(app) ? duck::api().duckdb_appender_error(app) : what;
    duck::api().duckdb_appender_destroy(&app);
    throw std::runtime_error("duckdb: loading " + name + ": " + msg);
  };
  for (auto& row : rows) {
    for (size_t c = 0; c < columns.size(); ++c) {
      const Value& v = c < row.size() ? row[c] : Value();
      duckdb_state st;
      switch (v.kind) {
        case Kind::Null: st = duck::api().duckdb_append_null(app); break;
        case Kind::Int: st = duck::api().duckdb_append_int64(app, v.i); break;
        case Kind::Real: st = duck::api().duckdb_append_double(app, v.r); break;
        default: st = duck::api().duckdb_append_varchar_length(app, v.s.data(), v.s.size()); break;
      }
      if (st != DuckDBSuccess) fail("append failed");
    }
    if (duck::api().duckdb_appender_end_row(app) != DuckDBSuccess) fail("end row failed");
  }
  if (duck::api().duckdb_appender_close(app) != DuckDBSuccess) fail("close failed");
  duck::api().duckdb_appender_destroy(&app);
}

namespace {

Value hugeint_value(duckdb_hugeint h) {
  // In int64 range when upper is 0 (non-negative, lower < 2^63) or -1 (negative, lower >= 2^63).
  if ((h.upper == 0 && h.lower <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) ||
      (h.upper == -1 && h.lower > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())))
    return Value::integer(static_cast<int64_t>(h.lower));
  return Value::real(duck::api().duckdb_hugeint_to_double(h));
}

// A cell's text as DuckDB renders it (nullptr: none); free with duckdb_free.
char* rendered(duckdb_result* r, idx_t c, idx_t row) { return duck::api().duckdb_value_varchar(r, c, row); }

Value integer_cell(duckdb_result* r, idx_t c, idx_t row, duckdb_type t) {
  switch (t) {
    case DUCKDB_TYPE_UBIGINT: {
      uint64_t u = duck::api().duckdb_value_uint64(r, c, row);
      if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return Value::integer(static_cast<int64_t>(u));
      return Value::real(static_cast<double>(u));
    }
    case DUCKDB_TYPE_HUGEINT:
      return hugeint_value(duck::api().duckdb_value_hugeint(r, c, row));
    case DUCKDB_TYPE_UHUGEINT: {
      duckdb_uhugeint u = duck::api().duckdb_value_uhugeint(r, c, row);
      if (u.upper == 0 && u.lower <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return Value::integer(static_cast<int64_t>(u.lower));
      return Value::real(duck::api().duckdb_uhugeint_to_double(u));
    }
    case DUCKDB_TYPE_DECIMAL: {
      duckdb_decimal d = duck::api().duckdb_value_decimal(r, c, row);
      if (d.scale == 0) return hugeint_value(d.value);
      return Value::real(duck::api().duckdb_decimal_to_double(d));
    }
    default:
      return Value::integer(duck::api().duckdb_value_int64(r, c, row));
  }
}

// One cell, unless it would take the result past `max_bytes` (`bytes` counts what is kept). A VARCHAR
// is measured in DuckDB's own result before it is copied; a BLOB or a value rendered as text (DATE,
// LIST, ...) exists once in a DuckDB buffer, freed at once when it does not fit.
bool read_cell(duckdb_result* r, idx_t c, idx_t row, duckdb_type t, size_t& bytes, size_t max_bytes, Row& out) {
  auto fits = [&](size_t n) {
    if (n > max_bytes - std::min(bytes, max_bytes)) return false;
    bytes += n;
    return true;
  };
  if (duck::api().duckdb_value_is_null(r, c, row)) return fits(16) && (out.push_back(Value::null()), true);
  switch (t) {
    case DUCKDB_TYPE_TINYINT: case DUCKDB_TYPE_SMALLINT: case DUCKDB_TYPE_INTEGER: case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_UTINYINT: case DUCKDB_TYPE_USMALLINT: case DUCKDB_TYPE_UINTEGER: case DUCKDB_TYPE_UBIGINT:
    case DUCKDB_TYPE_HUGEINT: case DUCKDB_TYPE_UHUGEINT: case DUCKDB_TYPE_DECIMAL:
      return fits(16) && (out.push_back(integer_cell(r, c, row, t)), true);
    case DUCKDB_TYPE_FLOAT:
    case DUCKDB_TYPE_DOUBLE:
      return fits(16) && (out.push_back(Value::real(duck::api().duckdb_value_double(r, c, row))), true);
    case DUCKDB_TYPE_VARCHAR: {
      duckdb_string s = duck::api().duckdb_value_string_internal(r, c, row);  // no copy
      if (!fits(static_cast<size_t>(s.size) + 16)) return false;
      out.push_back(Value::text(std::string(s.data ? s.data : "", static_cast<size_t>(s.size))));
      return true;
    }
    case DUCKDB_TYPE_BLOB: {
      duckdb_blob b = duck::api().duckdb_value_blob(r, c, row);
      bool ok = fits(static_cast<size_t>(b.size) + 16);
      if (ok) out.push_back(Value::blob(std::string(static_cast<const char*>(b.data), b.size)));
      duck::api().duckdb_free(b.data);
      return ok;
    }
    default: {  // BOOLEAN, DATE, TIME, TIMESTAMP, INTERVAL, LIST, ...: DuckDB's text rendering
      char* p = rendered(r, c, row);
      std::string_view sv(p ? p : "");
      bool ok = fits(sv.size() + 16);
      if (ok) out.push_back(Value::text(std::string(sv)));
      if (p) duck::api().duckdb_free(p);
      return ok;
    }
  }
}

}  // namespace

ExecResult DuckConn::execute(std::string_view sql, const Limits& limits) {
  ExecResult res;
  // The thread's pinned SQL clock, if any (duckdb_clock.hpp); failing to pin it fails the query.
  if (std::string e = duck::sync_clock(impl_->con, impl_->clock); !e.empty()) return ExecResult{ExecStatus::Error, e, {}, 0};
  auto t0 = std::chrono::steady_clock::now();
  std::mutex mu;
  std::condition_variable cv;
  bool done = false, fired = false;
  std::thread watchdog;
  if (limits.timeout_s > 0) {
    watchdog = std::thread([&] {
      std::unique_lock<std::mutex> lk(mu);
      if (!cv.wait_for(lk, std::chrono::microseconds(static_cast<long long>(limits.timeout_s * 1e6)),
                       [&] { return done; })) {
        fired = true;
        duck::api().duckdb_interrupt(impl_->con);
      }
    });
  }
  duckdb_result r;
  std::string s(sql);
  duckdb_state st = duck::api().duckdb_query(impl_->con, s.c_str(), &r);
  {
    std::lock_guard<std::mutex> lk(mu);
    done = true;
  }
  cv.notify_all();
  if (watchdog.joinable()) watchdog.join();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  if (st != DuckDBSuccess) {
    const std::string e = duck::api().duckdb_result_error(&r) ? duck::api().duckdb_result_error(&r) : "unknown error";
    // Past memory_limit a query fails (nothing spills to disk): the memory cap, not an SQL error.
    const bool oom = e.rfind("Out of Memory Error", 0) == 0;
    res.status = fired ? ExecStatus::Timeout : oom ? ExecStatus::TooLarge : ExecStatus::Error;
    res.error = fired ? "timeout after " + std::to_string(limits.timeout_s) + " s"
                : oom ? "memory cap: " + e.substr(0, e.find('\n'))
                      : e;
    duck::api().duckdb_destroy_result(&r);
    res.seconds = elapsed();
    return res;
  }
  idx_t ncol = duck::api().duckdb_column_count(&r), nrow = duck::api().duckdb_row_count(&r);
  if (nrow > limits.max_rows) {
    duck::api().duckdb_destroy_result(&r);
    res.status = ExecStatus::TooLarge;
    res.error = "result has more than " + std::to_string(limits.max_rows) + " rows";
    res.seconds = elapsed();
    return res;
  }
  std::vector<duckdb_type> types(ncol);
  for (idx_t c = 0; c < ncol; ++c) {
    const char* nm = duck::api().duckdb_column_name(&r, c);
    res.table.columns.emplace_back(nm ? nm : "");
    types[c] = duck::api().duckdb_column_type(&r, c);
  }
  res.table.rows.reserve(std::min<idx_t>(nrow, 1 << 16));
  size_t bytes = 0;
  for (idx_t row = 0; row < nrow; ++row) {
    Row out;
    out.reserve(ncol);
    for (idx_t c = 0; c < ncol; ++c) {
      if (read_cell(&r, c, row, types[c], bytes, limits.max_bytes, out)) continue;
      duck::api().duckdb_destroy_result(&r);
      res.table.rows.clear();
      res.status = ExecStatus::TooLarge;
      res.error = "result is larger than " + std::to_string(limits.max_bytes) + " bytes";
      res.seconds = elapsed();
      return res;
    }
    res.table.rows.push_back(std::move(out));
  }
  duck::api().duckdb_destroy_result(&r);
  res.seconds = elapsed();
  return res;
}

std::string duck_ident(std::string_view name) {
  std::string o = "\"";
  for (char c : name) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

std::string duck_literal(std::string_view text) {
  std::string o = "'";
  for (char c : text) {
    if (c == '\'') o += '\'';
    o += c;
  }
  return o + "'";
}

}  // namespace sqlgrade
