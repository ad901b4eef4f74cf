#pragma once
// The PostgreSQL engine (libpq): server.hpp says what it guarantees; postgres.cpp opens, checks the
// login and reads results, postgres_query.cpp runs a query and its timing.
#include <chrono>
#include <string>
#include <vector>

#include "sqlgrade/engine/server.hpp"

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;
typedef struct pg_cancel PGcancel;

namespace sqlgrade {

class PostgresDb : public ServerDb {
 public:
  PostgresDb(const ServerDsn& dsn, const ServerOptions& opt);
  ~PostgresDb() override;
  ExecResult execute(std::string_view sql, const Limits& limits) override;
  ExecResult timed(std::string_view sql, const Limits& limits) override;
  std::string name() const override { return "postgresql"; }
  bool healthy() const override;
  std::string server_version() override;

 private:
  using Clock = std::chrono::steady_clock;
  // One query's progress: its deadline, whether the cancel was sent, the grace period after it.
  struct Run {
    Limits limits;
    std::string timeout_text;
    bool has_deadline = false;
    Clock::time_point deadline{}, grace_end{};
    bool cancelled = false, timed_out = false;
    bool raw = false;  // cells kept as the server's text (EXPLAIN's JSON)
    size_t rows_seen = 0;
  };
  struct Outcome {
    ExecStatus status = ExecStatus::Ok;
    std::string error;
    bool had_rows = false;
  };

  void close();
  void check_login();
  bool exec_simple(const std::string& sql, std::string* error = nullptr);
  void session_defaults();
  bool session(const Run& run, std::string& error);
  bool wait_ready(Run& run);
  bool skip_to_sync(Run& run, int syncs);
  Outcome pipelined(Run& run, const std::string& text, Table& table, bool keep);
  Outcome one_by_one(Run& run, const std::vector<std::string>& pieces, Table& table, bool explain, double& ms);
  static double piece_ms(const Table& t, Outcome& o);
  Outcome read_piece(Run& run, Table& table, bool keep);
  void add_row(PGresult* r, Table& table, size_t& bytes, Run& run, Outcome& out);
  void stop(Run& run, Outcome& out, ExecStatus status, std::string why);
  Run start_run(const Limits& limits) const;
  ExecResult run_pieces(std::string_view sql, const Limits& limits, bool explain, double* server_ms);

  ServerOptions opt_;
  PGconn* conn_ = nullptr;
  PGcancel* cancel_ = nullptr;
  bool broken_ = false;
  std::string session_timeout_;  // the statement_timeout the session has now ("" : not set yet)
};

}  // namespace sqlgrade
