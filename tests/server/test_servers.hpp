#pragma once
// Throwaway database servers for the tests: a PostgreSQL (initdb + postgres) or a MariaDB
// (mariadb-install-db + mariadbd) in a fresh temporary folder, reachable only through a unix socket in
// that folder, started as a child of the test process (which, run as root, starts it under the
// `postgres` / `mysql` user: neither server runs as root) that dies with it (PR_SET_PDEATHSIG), and
// stopped by its PID. Never a system service, never the machine's own configuration (MariaDB gets
// --defaults-file, PostgreSQL only -c options). `load` creates a database from a dump through
// `sqlgrade db load`'s library function, with the read-only login, once per server and database.
// Each folder records its maker's PID (owner.pid); a folder left by a test process killed outright
// (SIGKILL) is removed by the next start once its owner and its server are gone (sweep_stale_dirs).
#include <sys/types.h>

#include <map>
#include <memory>
#include <string>

namespace sqlgrade::testing {

// Removes the folders under the temporary directory whose name starts with `prefix` ("sqlgrade-pg-",
// "sqlgrade-my-"), that hold an owner.pid naming a process that is gone, and whose server is gone too.
void sweep_stale_dirs(const std::string& prefix);

class TestServer {
 public:
  enum class Kind { PostgreSQL, MariaDB };
  ~TestServer();  // stops the server (SIGINT / SIGTERM, then SIGKILL after 20 s) and removes its folder

  Kind kind() const { return kind_; }
  pid_t pid() const { return pid_; }
  const std::string& dir() const { return dir_; }
  // The superuser's URI (postgres / root) for `database`.
  std::string admin_dsn(const std::string& database) const;
  // Loads `dump` into a new database `name` (sqlgrade db load) once; returns the read-only login's URI.
  // Seconds the load took: load_seconds(name).
  std::string load(const std::string& name, const std::string& dump);
  double load_seconds(const std::string& name) const;
  double start_seconds() const { return start_seconds_; }

  // Starts a server; nullptr with `why` set when the server binaries are not installed (`skip` true) or
  // the server does not start (`skip` false).
  // `tcp_port` > 0: also listen on 127.0.0.1:tcp_port (bench/bird_dialects.sh, for the official script).
  static std::unique_ptr<TestServer> start(Kind kind, std::string& why, bool& skip, int tcp_port = 0);
  int port() const { return port_; }

 private:
  Kind kind_ = Kind::PostgreSQL;
  std::string dir_;
  pid_t pid_ = -1;
  int port_ = 5432;
  double start_seconds_ = 0;
  std::map<std::string, std::string> loaded_;
  std::map<std::string, double> load_seconds_;
};

// One server of each kind per test process, started on first use (and the Mini-Dev dumps loaded into
// it once): the server tests of a binary share it. nullptr (with `why`) when unavailable.
TestServer* shared_server(TestServer::Kind kind, std::string& why, bool& skip);

// The Mini-Dev database of `kind` (bird/minidev_{postgresql,mysql}/BIRD_dev.sql loaded as `bird` /
// `BIRD`) on the shared server: the reader's URI; "" with `why` when the server or the data is missing
// (`skip` true) or the server or the load failed (`skip` false).
std::string minidev_dsn(TestServer::Kind kind, std::string& why, bool& skip);

}  // namespace sqlgrade::testing
