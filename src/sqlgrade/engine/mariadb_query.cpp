// MariaDb: one query, and its server-side timing (R-VES) — see mariadb.hpp, server.hpp.
//
// START TRANSACTION READ ONLY; the query (its rows streamed with mysql_use_result, converted as PyMySQL
// converts them, under the row and byte caps); ROLLBACK. The session's max_statement_time is the
// query's deadline on the server; the watchdog sends KILL QUERY at the deadline (or on cancellation)
// and shuts the socket down if the server has not stopped within the grace period. Session state a
// query can leave behind (user variables, GET_LOCK locks) is reset after a query that mentions them.
#include <sys/socket.h>

#include <cmath>

#include "sqlgrade/core/cancel.hpp"
#include "sqlgrade/engine/server_loader.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/mariadb.hpp"
#include "sqlgrade/engine/server_sql.hpp"
#include "sqlgrade/engine/server_values.hpp"
#include "sqlgrade/engine/server_watchdog.hpp"

namespace sqlgrade {

using server_lib::my;
using server_lib::pq;

namespace {

constexpr unsigned kQueryInterrupted = 1317;  // ER_QUERY_INTERRUPTED (KILL QUERY)
constexpr unsigned kStatementTimeout = 1969;  // ER_STATEMENT_TIMEOUT (max_statement_time)

struct Rows {
  ExecStatus status = ExecStatus::Ok;
  std::string error;
};

// Reads the streamed rows into `table` under the caps. On a cap or a conversion error the query is
// killed on the server (kill), and the rest drained by mysql_free_result.
Rows read_rows(MYSQL* m, MYSQL_RES* res, Table& table, const Limits& lim, const std::function<void()>& kill) {
  Rows out;
  const unsigned n = my().mysql_num_fields(res);
  MYSQL_FIELD* fields = my().mysql_fetch_fields(res);
  for (unsigned c = 0; c < n; ++c) table.columns.emplace_back(fields[c].name ? fields[c].name : "");
  size_t bytes = 0;
  auto stop = [&](ExecStatus st, std::string why) {
    out = {st, std::move(why)};
    kill();
  };
  while (out.status == ExecStatus::Ok) {
    MYSQL_ROW row = my().mysql_fetch_row(res);
    if (!row) break;
    if (table.rows.size() >= lim.max_rows) {
      stop(ExecStatus::TooLarge, "result has more than " + std::to_string(lim.max_rows) + " rows");
      break;
    }
    unsigned long* len = my().mysql_fetch_lengths(res);
    Row r;
    r.reserve(n);
    for (unsigned c = 0; c < n && out.status == ExecStatus::Ok; ++c) {
      bytes += (row[c] ? len[c] : 0) + 16;
      if (bytes > lim.max_bytes) {
        stop(ExecStatus::TooLarge, "result is larger than " + std::to_string(lim.max_bytes) + " bytes");
      } else if (!row[c]) {
        r.push_back(Value::null());
      } else {
        std::string err;
        auto v = server_values::from_mysql(fields[c].type, fields[c].charsetnr, std::string_view(row[c], len[c]), err);
        if (v) r.push_back(std::move(*v));
        else stop(ExecStatus::Error, err);
      }
    }
    if (out.status == ExecStatus::Ok) table.rows.push_back(std::move(r));
  }
  (void)m;
  return out;
}

bool mentions_session_state(std::string_view sql) {
  const std::string low = to_lower(sql);
  return low.find('@') != std::string::npos || low.find("lock") != std::string::npos;
}

}  // namespace

// The statement under the client's deadline: the watchdog sends KILL QUERY at the deadline (or on
// cancellation) and shuts the socket down after the grace period; past the deadline the answer is a
// timeout whatever the server said.
ExecStatus MariaDb::guarded_query(std::string_view sql, const Limits& limits, Clock::time_point t0, Table& table,
                                  std::string& error) {
  const std::string timeout_msg = "timeout after " + std::to_string(limits.timeout_s) + " s";
  ExecStatus status = ExecStatus::Ok;
  {
    // The deadline from the client: KILL QUERY, then (after the grace period) the socket shut down.
    std::atomic<bool> killed{false}, dropped{false};
    const auto deadline = limits.timeout_s > 0 ? t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.timeout_s))
                                               : Clock::time_point::max();
    const auto grace = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt_.cancel_grace_s));
    const int fd = static_cast<int>(my().mysql_get_socket(m_));
    server_watchdog::Guard kill(deadline, current_cancel_token(), [&] {
      killed = true;
      kill_query();
    });
    server_watchdog::Guard drop(deadline == Clock::time_point::max() ? deadline : deadline + grace, nullptr, [&] {
      dropped = true;
      ::shutdown(fd, SHUT_RDWR);
    });
    auto timed_out = [&](unsigned e) { return e == kQueryInterrupted || e == kStatementTimeout || killed || dropped; };
    if (my().mysql_real_query(m_, sql.data(), sql.size()) != 0) {
      const unsigned e = my().mysql_errno(m_);
      status = timed_out(e) ? ExecStatus::Timeout : ExecStatus::Error;
      error = status == ExecStatus::Timeout ? timeout_msg : error_text();
    } else if (my().mysql_field_count(m_) > 0) {
      MYSQL_RES* r = my().mysql_use_result(m_);
      Rows got = r ? read_rows(m_, r, table, limits, [&] { kill_query(); }) : Rows{ExecStatus::Error, error_text()};
      const unsigned e = my().mysql_errno(m_);
      if (got.status == ExecStatus::Ok && e) got = {timed_out(e) ? ExecStatus::Timeout : ExecStatus::Error, timed_out(e) ? timeout_msg : error_text()};
      if (r) my().mysql_free_result(r);
      status = got.status;
      error = got.error;
    }
    if (dropped) broken_ = true;
    // Past the deadline the answer does not count, whatever the server said: MariaDB ends a killed
    // BENCHMARK() or SLEEP() with a value, not an error.
    if ((killed || dropped) && status != ExecStatus::TooLarge) {
      status = ExecStatus::Timeout;
      error = timeout_msg;
    }
  }
  return status;
}

ExecResult MariaDb::run(std::string_view sql, const Limits& limits, bool profile) {
  ExecResult res;
  const auto t0 = Clock::now();
  auto finish = [&](ExecStatus st, std::string err) {
    res.status = st;
    res.error = std::move(err);
    if (st != ExecStatus::Ok && !(st == ExecStatus::TooLarge && limits.keep_partial)) res.table = Table{};
    res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return std::move(res);
  };
  if (std::string why = server_sql::refusal(sql, ServerDialect::MySQL); !why.empty())
    return finish(ExecStatus::Error, why);
  if (!healthy()) return finish(ExecStatus::Error, "the connection to the server was lost");
  std::string err;
  // The deadline on the server: max_statement_time (seconds; 0 = none), set when it changes.
  const double st = limits.timeout_s > 0 ? limits.timeout_s : 0;
  if (st != statement_time_) {
    if (!exec_simple("SET SESSION max_statement_time = " + std::to_string(st), &err)) return finish(ExecStatus::Error, err);
    statement_time_ = st;
  }
  if (profile && !profiling_) {
    if (!exec_simple("SET SESSION profiling = 1, SESSION profiling_history_size = 1", &err))
      return finish(ExecStatus::Error, err);
    profiling_ = true;
  }
  if (!exec_simple("START TRANSACTION READ ONLY", &err)) return finish(ExecStatus::Error, err);
  std::string error;
  const ExecStatus status = guarded_query(sql, limits, t0, res.table, error);
  if (profile && status == ExecStatus::Ok && !broken_) {
    // The query's own duration, as the server's profile measured it.
    if (my().mysql_real_query(m_, "SHOW PROFILES", 13) == 0) {
      if (MYSQL_RES* r = my().mysql_store_result(m_)) {
        MYSQL_ROW row, last = nullptr;
        while ((row = my().mysql_fetch_row(r))) last = row;
        if (last && last[1]) res.error = last[1];  // Duration (s), read by timed()
        my().mysql_free_result(r);
      }
    }
  }
  if (!broken_ && (!exec_simple("ROLLBACK") || mentions_session_state(sql))) {
    if (my().mysql_reset_connection(m_) != 0 || !session_setup()) broken_ = true;
  }
  const std::string profile_text = res.error;
  ExecResult out = finish(status, error);
  if (profile && status == ExecStatus::Ok) out.error = profile_text;
  return out;
}

ExecResult MariaDb::execute(std::string_view sql, const Limits& limits) { return run(sql, limits, false); }

ExecResult MariaDb::timed(std::string_view sql, const Limits& limits) {
  ExecResult r = run(sql, limits, true);
  if (!r.ok()) return r;
  char* end = nullptr;
  const double s = r.error.empty() ? -1 : std::strtod(r.error.c_str(), &end);
  if (s >= 0 && end && *end == 0) {
    r.seconds = s;
    r.error.clear();
  } else {
    r.error = "client";
  }
  return r;
}

}  // namespace sqlgrade
