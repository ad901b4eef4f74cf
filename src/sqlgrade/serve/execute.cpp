// sqlgrade::execute (include/sqlgrade/execute.hpp): one read-only query on the engine's SQLite
// connection pool, rows cut at the caps instead of failing.
#include "sqlgrade/execute.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>

#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/serve/surrogates.hpp"

namespace sqlgrade {

ExecuteResult execute(const std::string& db, const std::string& sql, const ExecuteLimits& limits) {
  if (!(limits.timeout_s > 0) || !std::isfinite(limits.timeout_s))
    throw InputError("", "timeout must be a number of seconds > 0");
  if (limits.max_rows == 0) throw InputError("", "max_rows must be > 0");
  if (limits.max_bytes == 0) throw InputError("", "max_bytes must be > 0");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(db, ec)) throw InputError(db, "no such database file");
  auto t0 = std::chrono::steady_clock::now();
  auto conn = SqlitePool::lease(db);  // InputError when it is not a readable SQLite database
  if (std::string why = serve::sql_not_unicode(sql); !why.empty()) {  // a lone surrogate (issue 19)
    ExecuteResult out;
    out.status = "error";
    out.error = why;
    return out;
  }
  Limits lim{limits.timeout_s, limits.max_rows, limits.max_bytes, /*keep_partial=*/true};
  ExecResult r = conn->execute(sql, lim);
  ExecuteResult out;
  out.table = std::move(r.table);
  switch (r.status) {
    case ExecStatus::Ok: break;
    case ExecStatus::TooLarge:
      // The row cap stops before row max_rows + 1; the byte cap after the row that crossed it.
      out.truncated = true;
      if (out.table.rows.empty()) {
        out.status = "too_large";
        out.error = r.error;
      }
      break;
    case ExecStatus::Timeout:
      out.status = "timeout";
      out.error = r.error;
      out.table.rows.clear();
      break;
    case ExecStatus::Error:
      out.status = "error";
      out.error = r.error;
      out.table.rows.clear();
      break;
  }
  out.total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace sqlgrade
