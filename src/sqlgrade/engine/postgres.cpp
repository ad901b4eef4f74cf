// The PostgreSQL engine (libpq) — guarantees in server.hpp, docs/safety.md "Database servers".
//
// One query: BEGIN READ ONLY with statement_timeout and work_mem set for the transaction; each piece of
// the text (server_sql::split_postgres; psycopg2 keeps the last result) sent alone through the extended
// protocol in single-row mode, its rows converted as psycopg2 converts them while the row and byte caps
// are checked; at the deadline (or on cancellation) PQcancel, then the connection is dropped if the
// server has not stopped within the grace period; ROLLBACK, and session-level advisory locks released.
#include <poll.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>

#include "sqlgrade/core/cancel.hpp"
#include "sqlgrade/engine/server_loader.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/postgres.hpp"
#include "sqlgrade/engine/server_sql.hpp"
#include "sqlgrade/engine/server_values.hpp"
#include "sqlgrade/errors.hpp"

namespace sqlgrade {

using server_lib::my;
using server_lib::pq;

namespace {

using Clock = std::chrono::steady_clock;

// psycopg2's str(exception): the server's message without its "ERROR:  " prefix, trailing newline cut.
std::string error_text(const PGresult* r, PGconn* c) {
  std::string m = r ? pq().PQresultErrorMessage(r) : pq().PQerrorMessage(c);
  for (const char* p : {"ERROR:  ", "FATAL:  "})
    if (m.rfind(p, 0) == 0) m.erase(0, std::char_traits<char>::length(p));
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

std::string sqlstate(const PGresult* r) {
  const char* s = r ? pq().PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  return s ? s : "";
}

// The login check: refused when it is a superuser, may create roles or databases, owns or may change a
// table, may create in a schema or the database, or is a member of the roles that read or write server
// files, run programs or signal other backends.
const char* kLoginCheck = R"SQL(
SELECT r.rolsuper, r.rolcreaterole OR r.rolcreatedb OR r.rolreplication OR r.rolbypassrls,
  EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
            AND (pg_has_role(c.relowner, 'USAGE')
                 OR has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER'))),
  has_database_privilege(current_database(), 'CREATE')
    OR EXISTS (SELECT 1 FROM pg_namespace n WHERE n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'
               AND has_schema_privilege(n.oid, 'CREATE')),
  EXISTS (SELECT 1 FROM pg_roles g WHERE g.rolname IN ('pg_read_server_files', 'pg_write_server_files',
          'pg_execute_server_program', 'pg_signal_backend') AND pg_has_role(current_user, g.oid, 'MEMBER')),
  current_user
FROM pg_roles r WHERE r.rolname = current_user)SQL";

}  // namespace

PostgresDb::PostgresDb(const ServerDsn& dsn, const ServerOptions& opt) : ServerDb(dsn), opt_(opt) {
  const std::string timeout = std::to_string(std::max(1, static_cast<int>(std::ceil(opt.connect_timeout_s))));
  const char* keys[] = {"dbname", "application_name", "client_encoding", "connect_timeout", nullptr};
  const char* vals[] = {dsn.uri.c_str(), "sqlgrade", "UTF8", timeout.c_str(), nullptr};
  conn_ = pq().PQconnectdbParams(keys, vals, 1);
  if (!conn_ || pq().PQstatus(conn_) != CONNECTION_OK) {
    std::string msg = conn_ ? error_text(nullptr, conn_) : "out of memory";
    close();
    throw InputError(dsn.redacted(), "cannot connect to PostgreSQL: " + first_line(msg));
  }
  check_login();
  session_defaults();
  cancel_ = pq().PQgetCancel(conn_);
}

PostgresDb::~PostgresDb() { close(); }

void PostgresDb::close() {
  if (cancel_) pq().PQfreeCancel(cancel_);
  cancel_ = nullptr;
  if (conn_) pq().PQfinish(conn_);
  conn_ = nullptr;
}

bool PostgresDb::healthy() const { return conn_ && pq().PQstatus(conn_) == CONNECTION_OK && !broken_; }

std::string PostgresDb::server_version() {
  const char* v = conn_ ? pq().PQparameterStatus(conn_, "server_version") : nullptr;
  return v ? std::string("PostgreSQL ") + v : "PostgreSQL";
}

// psycopg2 sets DateStyle to ISO; a backend whose client is gone stops its query within a second
// (PostgreSQL 14 and later; an older server refuses the setting, and the client's cancel still holds).
void PostgresDb::session_defaults() {
  exec_simple("SET DateStyle TO 'ISO'");
  exec_simple("SET client_connection_check_interval = 1000");
}

bool PostgresDb::exec_simple(const std::string& sql, std::string* error) {
  PGresult* r = pq().PQexec(conn_, sql.c_str());
  const ExecStatusType st = r ? pq().PQresultStatus(r) : PGRES_FATAL_ERROR;
  const bool ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
  if (!ok && error) *error = error_text(r, conn_);
  pq().PQclear(r);
  return ok;
}

void PostgresDb::check_login() {
  PGresult* r = pq().PQexec(conn_, kLoginCheck);
  if (!r || pq().PQresultStatus(r) != PGRES_TUPLES_OK || pq().PQntuples(r) != 1) {
    std::string msg = error_text(r, conn_);
    pq().PQclear(r);
    close();
    throw InputError(dsn_.redacted(), "cannot check what the login may do: " + first_line(msg));
  }
  auto yes = [&](int c) { return pq().PQgetvalue(r, 0, c)[0] == 't'; };
  std::string why;
  if (yes(0)) why = "is a superuser";
  else if (yes(1)) why = "may create roles or databases, replicate or bypass row security";
  else if (yes(2)) why = "owns or may change a table";
  else if (yes(3)) why = "may create objects in the database or a schema";
  else if (yes(4)) why = "may read or write server files, run programs or signal other sessions";
  const std::string user = pq().PQgetvalue(r, 0, 5);
  pq().PQclear(r);
  if (why.empty()) return;
  close();
  throw InputError(dsn_.redacted(), "the login '" + user + "' " + why +
                                        ": sqlgrade queries a server only through a login that can only read "
                                        "(`sqlgrade db load` creates one; docs/bird.md)");
}

// Waits until the pending command's next result is available, or the deadline, the grace period after
// the cancel, or the connection breaks. Returns false when the connection was dropped.
bool PostgresDb::wait_ready(Run& run) {
  while (pq().PQisBusy(conn_)) {
    const auto now = Clock::now();
    if (!run.cancelled && ((run.has_deadline && now >= run.deadline) || cancel_requested())) {
      char err[256];
      pq().PQcancel(cancel_, err, sizeof err);
      run.cancelled = true;
      run.timed_out = true;
      run.grace_end = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt_.cancel_grace_s));
    }
    if (run.cancelled && now >= run.grace_end) {
      broken_ = true;  // the server did not stop the query: drop the connection (the backend notices)
      close();
      return false;
    }
    auto limit = run.cancelled ? run.grace_end : run.has_deadline ? run.deadline : now + std::chrono::hours(1);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(limit - now).count();
    pollfd p{pq().PQsocket(conn_), POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(std::clamp<long long>(ms, 0, 20)));  // 20 ms ticks: cancellation
    if (!pq().PQconsumeInput(conn_)) {
      broken_ = true;
      return false;
    }
  }
  return true;
}

// Reads one piece's results: the rows of its single-row mode results, under the caps. `keep`: the rows
// are kept (the last piece), else only counted.
PostgresDb::Outcome PostgresDb::read_piece(Run& run, Table& table, bool keep) {
  Outcome out;
  size_t bytes = 0;
  bool columns_set = false;
  for (;;) {
    if (!wait_ready(run)) return {ExecStatus::Timeout, "timeout after " + run.timeout_text + " (the server did not stop)"};
    PGresult* r = pq().PQgetResult(conn_);
    if (!r) break;
    const ExecStatusType st = pq().PQresultStatus(r);
    if (st == PGRES_SINGLE_TUPLE || st == PGRES_TUPLES_OK) {
      if (keep && !columns_set) {
        table.columns.clear();
        for (int c = 0; c < pq().PQnfields(r); ++c) table.columns.emplace_back(pq().PQfname(r, c));
        columns_set = true;
      }
      if (st == PGRES_SINGLE_TUPLE && out.status == ExecStatus::Ok && keep) add_row(r, table, bytes, run, out);
      else if (st == PGRES_SINGLE_TUPLE && out.status == ExecStatus::Ok && ++run.rows_seen > run.limits.max_rows)
        stop(run, out, ExecStatus::TooLarge, "result has more than " + std::to_string(run.limits.max_rows) + " rows");
      out.had_rows = true;
    } else if (st == PGRES_COMMAND_OK || st == PGRES_EMPTY_QUERY) {
      out.had_rows = false;
    } else if (out.status == ExecStatus::Ok) {
      const std::string state = sqlstate(r);
      if (state == "57014" || run.timed_out) out = {ExecStatus::Timeout, "timeout after " + run.timeout_text};
      else out = {ExecStatus::Error, error_text(r, conn_)};
    }
    pq().PQclear(r);
  }
  return out;
}

void PostgresDb::stop(Run& run, Outcome& out, ExecStatus status, std::string why) {
  out = {status, std::move(why)};
  if (!run.cancelled) {
    char err[256];
    pq().PQcancel(cancel_, err, sizeof err);  // the server stops sending; the rest is read and dropped
    run.cancelled = true;
    run.grace_end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt_.cancel_grace_s));
  }
}

void PostgresDb::add_row(PGresult* r, Table& table, size_t& bytes, Run& run, Outcome& out) {
  if (table.rows.size() >= run.limits.max_rows)
    return stop(run, out, ExecStatus::TooLarge, "result has more than " + std::to_string(run.limits.max_rows) + " rows");
  const int n = pq().PQnfields(r);
  Row row;
  row.reserve(n);
  for (int c = 0; c < n; ++c) {
    if (pq().PQgetisnull(r, 0, c)) {
      row.push_back(Value::null());
      bytes += 8;
      continue;
    }
    const size_t len = static_cast<size_t>(pq().PQgetlength(r, 0, c));
    bytes += len + 16;
    if (bytes > run.limits.max_bytes)
      return stop(run, out, ExecStatus::TooLarge, "result is larger than " + std::to_string(run.limits.max_bytes) + " bytes");
    std::string err;
    const std::string_view text(pq().PQgetvalue(r, 0, c), len);
    auto v = run.raw ? std::optional<Value>(Value::text(std::string(text))) : server_values::from_postgres(pq().PQftype(r, c), text, err);
    if (!v) return stop(run, out, ExecStatus::Error, err);
    row.push_back(std::move(*v));
  }
  table.rows.push_back(std::move(row));
}

}  // namespace sqlgrade
