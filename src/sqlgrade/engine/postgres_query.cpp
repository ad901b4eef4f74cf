// PostgresDb: one query, and its server-side timing (R-VES) — see postgres.hpp / server.hpp.
#include <libpq-fe.h>

#include <nlohmann/json.hpp>

#include <cmath>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/postgres.hpp"
#include "sqlgrade/engine/server_sql.hpp"

namespace sqlgrade {

namespace {

std::string ms_text(double seconds) {
  return std::to_string(std::max<long long>(1, static_cast<long long>(std::ceil(seconds * 1000))));
}

// EXPLAIN (ANALYZE, FORMAT JSON)'s planning + execution time, in ms; negative when not found.
double explain_ms(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_array() || j.empty() || !j[0].is_object()) return -1;
  double ms = 0;
  for (const char* k : {"Planning Time", "Execution Time"})
    if (j[0].contains(k) && j[0][k].is_number()) ms += j[0][k].get<double>();
  return ms;
}

}  // namespace

PostgresDb::Run PostgresDb::start_run(const Limits& limits) const {
  Run run;
  run.limits = limits;
  run.timeout_text = std::to_string(limits.timeout_s) + " s";
  run.has_deadline = limits.timeout_s > 0;
  if (run.has_deadline)
    run.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.timeout_s));
  return run;
}

// BEGIN READ ONLY, with the transaction's deadline (statement_timeout, lock_timeout) and work_mem.
bool PostgresDb::begin(const Run& run, std::string& error) {
  std::string sql = "BEGIN READ ONLY; SET LOCAL work_mem = '" + std::to_string(opt_.work_mem_kb) + "kB'";
  if (run.has_deadline) {
    const std::string ms = ms_text(run.limits.timeout_s);
    sql += "; SET LOCAL statement_timeout = " + ms + "; SET LOCAL lock_timeout = " + ms;
  }
  if (exec_simple(sql, &error)) return true;
  if (PQstatus(conn_) != CONNECTION_OK) {  // the server dropped an idle connection: reconnect once
    PQreset(conn_);
    if (PQstatus(conn_) == CONNECTION_OK) {
      exec_simple("SET DateStyle TO 'ISO'; SET client_connection_check_interval = 1000");
      if (cancel_) PQfreeCancel(cancel_);
      cancel_ = PQgetCancel(conn_);
      return exec_simple(sql, &error);
    }
  }
  return false;
}

// The transaction is rolled back; session-level advisory locks (which survive a rollback) released.
void PostgresDb::end() {
  if (!conn_ || broken_) return;
  if (!exec_simple("ROLLBACK; SELECT pg_advisory_unlock_all()")) exec_simple("ROLLBACK");
}

PostgresDb::Outcome PostgresDb::send(Run& run, const std::string& piece) {
  // The extended protocol: the server refuses a text holding more than one statement.
  if (!PQsendQueryParams(conn_, piece.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0))
    return {ExecStatus::Error, PQerrorMessage(conn_)};
  PQsetSingleRowMode(conn_);
  (void)run;
  return {};
}

ExecResult PostgresDb::run_pieces(std::string_view sql, const Limits& limits, bool explain, double* server_ms) {
  ExecResult res;
  const auto t0 = Clock::now();
  auto finish = [&](ExecStatus st, std::string err) {
    res.status = st;
    res.error = std::move(err);
    if (st != ExecStatus::Ok) res.table = Table{};
    res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return std::move(res);
  };
  if (trim_view(sql).empty()) return finish(ExecStatus::Error, "can't execute an empty query");
  std::vector<std::string> pieces = server_sql::split_postgres(sql);
  if (pieces.empty()) return finish(ExecStatus::Error, "no results to fetch");
  if (pieces.size() > 1 && !opt_.pg_last_result)
    return finish(ExecStatus::Error, "You can only execute one statement at a time.");
  // One statement goes as it was written (its semicolon, spaces and comments too), so that the server's
  // messages quote the same text and LINE as psycopg2's.
  if (pieces.size() == 1) pieces[0] = std::string(sql);
  for (const std::string& p : pieces)
    if (std::string why = server_sql::refusal(p, ServerDialect::PostgreSQL); !why.empty())
      return finish(ExecStatus::Error, why);
  if (!healthy()) return finish(ExecStatus::Error, "the connection to the server was lost");
  Run run = start_run(limits);
  run.raw = explain;
  std::string err;
  if (!begin(run, err)) return finish(ExecStatus::Error, err);
  Outcome o;
  double ms = 0;
  for (size_t k = 0; k < pieces.size() && o.status == ExecStatus::Ok; ++k) {
    const bool last = k + 1 == pieces.size();
    if (k > 0 && run.has_deadline) {  // a piece before may have changed it (set_config): the time left
      const double left = std::chrono::duration<double>(run.deadline - Clock::now()).count();
      exec_simple("SET LOCAL statement_timeout = " + ms_text(std::max(left, 0.001)));
    }
    Table t;
    o = send(run, explain ? "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, FORMAT JSON) " + pieces[k] : pieces[k]);
    if (o.status == ExecStatus::Ok) o = read_piece(run, t, last || explain);
    if (o.status == ExecStatus::Ok && explain) {
      const double m = t.rows.empty() || t.rows[0].empty() ? -1 : explain_ms(t.rows[0][0].s);
      if (m < 0) o = {ExecStatus::Error, "EXPLAIN gave no time"};
      ms += m;
    } else if (o.status == ExecStatus::Ok && last) {
      if (!o.had_rows) o = {ExecStatus::Error, "no results to fetch"};
      else res.table = std::move(t);
    }
  }
  end();
  if (server_ms) *server_ms = ms;
  if (run.timed_out && o.status == ExecStatus::Ok) o = {ExecStatus::Timeout, "timeout after " + run.timeout_text};
  return finish(o.status, o.error);
}

ExecResult PostgresDb::execute(std::string_view sql, const Limits& limits) {
  return run_pieces(sql, limits, false, nullptr);
}

ExecResult PostgresDb::timed(std::string_view sql, const Limits& limits) {
  double ms = 0;
  ExecResult r = run_pieces(sql, limits, true, &ms);
  if (r.ok()) {
    r.seconds = ms / 1000.0;
    return r;
  }
  if (r.status == ExecStatus::Timeout || r.status == ExecStatus::TooLarge) return r;
  ExecResult c = execute(sql, limits);  // EXPLAIN refused the text: the client's wall time
  if (c.ok()) c.error = "client";
  return c;
}

}  // namespace sqlgrade
