// PostgresDb: one query, and its server-side timing (R-VES) — see postgres.hpp / server.hpp.

#include <nlohmann/json.hpp>

#include <cmath>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/server_loader.hpp"
#include "sqlgrade/engine/postgres.hpp"
#include "sqlgrade/engine/server_sql.hpp"

namespace sqlgrade {

using server_lib::my;
using server_lib::pq;

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

// The session's deadline (statement_timeout, lock_timeout) and work_mem, set when they change. A query
// cannot keep a change it makes (set_config): it runs in a transaction that is rolled back, and settings
// roll back with it. A connection the server dropped while idle is reconnected once.
bool PostgresDb::session(const Run& run, std::string& error) {
  const std::string ms = run.has_deadline ? ms_text(run.limits.timeout_s) : "0";
  if (ms == session_timeout_ && pq().PQstatus(conn_) == CONNECTION_OK) return true;
  const std::string sql = "SET statement_timeout = " + ms + "; SET lock_timeout = " + ms + "; SET work_mem = '" +
                          std::to_string(opt_.work_mem_kb) + "kB'";
  session_timeout_.clear();
  if (!exec_simple(sql, &error)) {
    if (pq().PQstatus(conn_) == CONNECTION_OK) return false;
    pq().PQreset(conn_);
    if (pq().PQstatus(conn_) != CONNECTION_OK) return false;
    session_defaults();
    if (cancel_) pq().PQfreeCancel(cancel_);
    cancel_ = pq().PQgetCancel(conn_);
    if (!exec_simple(sql, &error)) return false;
  }
  session_timeout_ = ms;
  return true;
}

// Reads results until `syncs` pipeline synchronisation points have gone by (the ROLLBACK's results).
bool PostgresDb::skip_to_sync(Run& run, int syncs) {
  while (syncs > 0) {
    if (!wait_ready(run)) return false;
    PGresult* r = pq().PQgetResult(conn_);
    if (r && pq().PQresultStatus(r) == PGRES_PIPELINE_SYNC) --syncs;
    pq().PQclear(r);
  }
  return true;
}

// One statement in one round trip (libpq pipeline mode): BEGIN READ ONLY, the statement (single-row
// mode), a sync point (an error aborts the pipeline up to it), ROLLBACK and the release of session-level
// advisory locks (which survive a rollback), a sync point.
PostgresDb::Outcome PostgresDb::pipelined(Run& run, const std::string& text, Table& table, bool keep) {
  auto send = [&](const char* q) { return pq().PQsendQueryParams(conn_, q, 0, nullptr, nullptr, nullptr, nullptr, 0) == 1; };
  // The extended protocol: the server refuses a text holding more than one statement.
  if (!pq().PQenterPipelineMode(conn_) || !send("BEGIN READ ONLY") || !send(text.c_str()) || !pq().PQpipelineSync(conn_) ||
      !send("ROLLBACK") || !send("SELECT pg_advisory_unlock_all()") || !pq().PQpipelineSync(conn_)) {
    broken_ = true;
    return {ExecStatus::Error, first_line(pq().PQerrorMessage(conn_))};
  }
  Outcome begin;
  Table none;
  begin = read_piece(run, none, false);  // BEGIN's result
  if (!conn_) return {ExecStatus::Timeout, "timeout after " + run.timeout_text + " (the server did not stop)"};
  pq().PQsetSingleRowMode(conn_);
  Outcome o = read_piece(run, table, keep);
  if (begin.status != ExecStatus::Ok) o = begin;
  if (!conn_ || !skip_to_sync(run, 2)) return {ExecStatus::Timeout, "timeout after " + run.timeout_text + " (the server did not stop)"};
  pq().PQexitPipelineMode(conn_);
  return o;
}

// Several statements (psycopg2: all run, the last result kept), one after the other in one READ ONLY
// transaction; before each one after the first the deadline is set again to what is left of it (an
// earlier statement may have changed it).
PostgresDb::Outcome PostgresDb::one_by_one(Run& run, const std::vector<std::string>& pieces, Table& table, bool explain,
                                          double& ms) {
  std::string err;
  if (!exec_simple("BEGIN READ ONLY", &err)) return {ExecStatus::Error, err};
  Outcome o;
  for (size_t k = 0; k < pieces.size() && o.status == ExecStatus::Ok; ++k) {
    const bool last = k + 1 == pieces.size();
    if (k > 0 && run.has_deadline) {
      const double left = std::chrono::duration<double>(run.deadline - Clock::now()).count();
      exec_simple("SET LOCAL statement_timeout = " + ms_text(std::max(left, 0.001)));
    }
    Table t;
    const std::string text = explain ? "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, FORMAT JSON) " + pieces[k] : pieces[k];
    if (!pq().PQsendQueryParams(conn_, text.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0)) {
      o = {ExecStatus::Error, first_line(pq().PQerrorMessage(conn_))};
      break;
    }
    pq().PQsetSingleRowMode(conn_);
    o = read_piece(run, t, last || explain);
    if (!conn_) return o;
    if (o.status == ExecStatus::Ok && explain) ms += piece_ms(t, o);
    if (o.status == ExecStatus::Ok && last && !explain) table = std::move(t);
  }
  if (!broken_ && !exec_simple("ROLLBACK; SELECT pg_advisory_unlock_all()")) exec_simple("ROLLBACK");
  return o;
}

// EXPLAIN ANALYZE's time of one piece, in ms (an Error in `o` when it gave none).
double PostgresDb::piece_ms(const Table& t, Outcome& o) {
  const double m = t.rows.empty() || t.rows[0].empty() ? -1 : explain_ms(t.rows[0][0].s);
  if (m < 0) o = {ExecStatus::Error, "EXPLAIN gave no time"};
  return m < 0 ? 0 : m;
}

ExecResult PostgresDb::run_pieces(std::string_view sql, const Limits& limits, bool explain, double* server_ms) {
  ExecResult res;
  const auto t0 = Clock::now();
  auto finish = [&](ExecStatus st, std::string err) {
    res.status = st;
    res.error = std::move(err);
    if (st != ExecStatus::Ok && !(st == ExecStatus::TooLarge && limits.keep_partial)) res.table = Table{};
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
  if (!session(run, err)) return finish(ExecStatus::Error, err);
  Outcome o;
  double ms = 0;
  Table t;
  if (pieces.size() == 1) {
    o = pipelined(run, explain ? "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, FORMAT JSON) " + pieces[0] : pieces[0], t, true);
    if (o.status == ExecStatus::Ok && explain) ms = piece_ms(t, o);
  } else {
    o = one_by_one(run, pieces, t, explain, ms);
  }
  if (o.status == ExecStatus::Ok && !explain) {
    if (!o.had_rows) o = {ExecStatus::Error, "no results to fetch"};
    else res.table = std::move(t);
  } else if (o.status == ExecStatus::TooLarge && limits.keep_partial) {
    res.table = std::move(t);  // sqlgrade::execute: the rows that fit
  }
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
