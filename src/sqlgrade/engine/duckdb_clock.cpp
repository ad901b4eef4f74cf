// The pinned SQL clock in DuckDB: temporary macros over its clock functions (duckdb_clock.hpp).
#include "sqlgrade/engine/duckdb_clock.hpp"

#include <string>

#include "sqlgrade/engine/duckdb_loader.hpp"

namespace sqlgrade::duck {

namespace {

struct ClockMacro {
  const char* name;
  const char* body;  // "%s" = the pinned instant as a TIMESTAMPTZ literal
};

// Each built-in with the type it returns; the local ones convert in the session's time zone, as the
// built-ins do.
const ClockMacro kMacros[] = {
    {"get_current_timestamp", "%s"},
    {"now", "%s"},
    {"transaction_timestamp", "%s"},
    {"current_date", "CAST(CAST(%s AS TIMESTAMP) AS DATE)"},
    {"today", "CAST(CAST(%s AS TIMESTAMP) AS DATE)"},
    {"get_current_time", "CAST(%s AS TIME WITH TIME ZONE)"},
    {"current_localtimestamp", "CAST(%s AS TIMESTAMP)"},
    {"current_localtime", "CAST(CAST(%s AS TIMESTAMP) AS TIME)"},
};

// "" or DuckDB's message.
std::string run(duckdb_connection con, const std::string& sql) {
  duckdb_result r;
  std::string err;
  if (api().duckdb_query(con, sql.c_str(), &r) != DuckDBSuccess)
    err = "duckdb: pinning the clock: " + std::string(api().duckdb_result_error(&r) ? api().duckdb_result_error(&r) : "unknown error");
  api().duckdb_destroy_result(&r);
  return err;
}

std::string with(const char* body, const std::string& literal) {
  std::string out = body;
  const size_t at = out.find("%s");
  return out.replace(at, 2, literal);
}

}  // namespace

std::string sync_clock(duckdb_connection con, std::optional<sql_clock::Millis>& installed) {
  const std::optional<sql_clock::Millis> want = sql_clock::pinned();
  if (want == installed) return "";
  std::string sql;
  if (want) {
    // "2024-01-31T12:00:00Z" → TIMESTAMPTZ '2024-01-31 12:00:00+00'
    std::string text = sql_clock::format(*want);
    text[10] = ' ';
    text.back() = '+';
    const std::string literal = "TIMESTAMPTZ '" + text + "00'";
    for (const auto& m : kMacros) sql += std::string("CREATE OR REPLACE TEMP MACRO ") + m.name + "() AS " + with(m.body, literal) + ";\n";
  } else {
    for (const auto& m : kMacros) sql += std::string("DROP MACRO IF EXISTS temp.") + m.name + ";\n";
  }
  std::string err = run(con, sql);
  if (err.empty()) installed = want;
  return err;
}

}  // namespace sqlgrade::duck
