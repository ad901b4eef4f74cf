// sqlgrade::execute (include/sqlgrade/execute.hpp): one read-only query on the engine's SQLite
// connection pool, rows cut at the caps instead of failing.
#include "sqlgrade/execute.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>

#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/engine/server.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/py/repr.hpp"
#include "sqlgrade/verdict/request.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/verdict/surrogates.hpp"

namespace sqlgrade {

namespace {

// The engine's rows as the public cells (strings moved, not copied).
std::vector<std::vector<ExecuteCell>> cells_of(std::vector<Row> rows) {
  std::vector<std::vector<ExecuteCell>> out;
  out.reserve(rows.size());
  for (Row& row : rows) {
    std::vector<ExecuteCell> cells(row.size());
    for (size_t c = 0; c < row.size(); ++c) {
      Value& v = row[c];
      ExecuteCell& x = cells[c];
      // A server's other Python values (Decimal, dates, lists: engine/server_values.hpp) as their str();
      // a bool as the int it equals.
      if (v.kind == Kind::Bool) v = Value::integer(v.i);
      else if (v.kind > Kind::Blob) v = Value::text(py::str(v));
      x.kind = v.kind == Kind::Int    ? ExecuteCell::Kind::Int
               : v.kind == Kind::Real ? ExecuteCell::Kind::Real
               : v.kind == Kind::Text ? ExecuteCell::Kind::Text
               : v.kind == Kind::Blob ? ExecuteCell::Kind::Blob
                                      : ExecuteCell::Kind::Null;
      x.i = v.i;
      x.r = v.r;
      x.s = std::move(v.s);
    }
    out.push_back(std::move(cells));
  }
  return out;
}

}  // namespace

ExecuteResult execute(const std::string& db, const std::string& sql, const ExecuteLimits& limits) {
  if (!(limits.timeout_s > 0) || !std::isfinite(limits.timeout_s))
    throw InputError("", "timeout must be a number of seconds > 0");
  if (limits.max_rows == 0) throw InputError("", "max_rows must be > 0");
  if (limits.max_bytes == 0) throw InputError("", "max_bytes must be > 0");
  const sql_clock::ClockScope clock(limits.now, "now");
  std::error_code ec;
  const bool server = verdicts::is_server_uri(db);
  if (!server && !std::filesystem::is_regular_file(db, ec)) throw InputError(db, "no such database file");
  auto t0 = std::chrono::steady_clock::now();
  if (std::string why = verdicts::sql_not_unicode(sql); !why.empty()) {  // a lone surrogate (issue 19)
    if (!server) SqlitePool::lease(db);  // InputError when it is not a readable SQLite database
    ExecuteResult out;
    out.status = to_string(ExecStatus::Error);
    out.error = why;
    return out;
  }
  Limits lim{limits.timeout_s, limits.max_rows, limits.max_bytes, /*keep_partial=*/true};
  // A PostgreSQL / MySQL database by its URI (engine/server.hpp: the read-only login, the deadline on
  // the server and from the client); InputError when it cannot be reached or its login may write.
  ExecResult r = server ? ServerPool::lease(parse_server_dsn(db, "db"))->execute(sql, lim) : SqlitePool::lease(db)->execute(sql, lim);
  ExecuteResult out;
  out.columns = std::move(r.table.columns);
  out.rows = cells_of(std::move(r.table.rows));
  switch (r.status) {
    case ExecStatus::Ok: break;
    case ExecStatus::TooLarge:
      // The row cap stops before row max_rows + 1; the byte cap after the row that crossed it.
      out.truncated = true;
      if (out.rows.empty()) {
        out.status = to_string(r.status);
        out.error = r.error;
      }
      break;
    case ExecStatus::Timeout:
    case ExecStatus::Error:
      out.status = to_string(r.status);  // the engine's one word for a query's status
      out.error = r.error;
      out.rows.clear();
      break;
  }
  out.total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace sqlgrade
