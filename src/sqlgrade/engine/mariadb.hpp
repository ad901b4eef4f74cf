#pragma once
// The MySQL / MariaDB engine (MariaDB Connector/C): server.hpp says what it guarantees; mariadb.cpp
// opens and checks the login, mariadb_query.cpp runs a query.
#include <atomic>
#include <chrono>
#include <string>

#include "sqlgrade/engine/server.hpp"

typedef struct st_mysql MYSQL;

namespace sqlgrade {

class MariaDb : public ServerDb {
 public:
  MariaDb(const ServerDsn& dsn, const ServerOptions& opt);
  ~MariaDb() override;
  ExecResult execute(std::string_view sql, const Limits& limits) override;
  ExecResult timed(std::string_view sql, const Limits& limits) override;
  std::string name() const override { return "mysql"; }
  bool healthy() const override;
  std::string server_version() override;

  // A new connection to `dsn` (no login check): for KILL QUERY and the tests. Throws InputError.
  static MYSQL* connect(const ServerDsn& dsn, double timeout_s);

 private:
  using Clock = std::chrono::steady_clock;
  void check_login();
  bool exec_simple(const std::string& sql, std::string* error = nullptr);
  bool session_setup(std::string* error = nullptr);
  ExecResult run(std::string_view sql, const Limits& limits, bool profile);
  ExecStatus guarded_query(std::string_view sql, const Limits& limits, Clock::time_point t0, Table& table,
                           std::string& error);
  std::string error_text() const;
  void kill_query() const;

  ServerOptions opt_;
  MYSQL* m_ = nullptr;
  unsigned long thread_id_ = 0;
  double statement_time_ = -1;  // the session's max_statement_time now (s)
  bool profiling_ = false;
  bool broken_ = false;
};

}  // namespace sqlgrade
