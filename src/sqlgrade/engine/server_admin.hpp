#pragma once
// `sqlgrade db load`: the only code in sqlgrade that writes to a database, and only into a database it
// creates. It creates the database, loads a plain SQL dump into it with the server's own client (psql,
// mariadb/mysql), and creates (or checks) the login that can only read, through which every other
// command reaches the server (server.hpp). docs/bird.md "PostgreSQL and MySQL" gives the commands.
//
// PostgreSQL: CREATE DATABASE ... TEMPLATE template0 ENCODING UTF8 LC_COLLATE/LC_CTYPE 'C' (ORDER BY on
// text as the recorded BIRD outputs); psql -X -v ON_ERROR_STOP=1 -f dump; no ANALYZE (the recorded
// outputs used the database as restored: ANALYZE reorders 26 golds' rows); the reader login gets
// CONNECT, USAGE and SELECT only, CREATE and TEMP are revoked from PUBLIC, set_config and the backend
// signalling functions too, and the login's settings in that database bound what a query may do
// (default_transaction_read_only, statement_timeout, temp_file_limit, work_mem,
// idle_in_transaction_session_timeout, client_connection_check_interval).
// MySQL/MariaDB: CREATE DATABASE ... utf8mb4 / utf8mb4_general_ci; the client reads the dump; ANALYZE
// TABLE on every table (as `mariadb-check --analyze`, which the recorded outputs ran); the reader login
// ('user'@'localhost' and 'user'@'%') gets SELECT on that database only, MAX_STATEMENT_TIME and
// MAX_USER_CONNECTIONS.
#include <string>
#include <vector>

#include "sqlgrade/engine/server.hpp"

namespace sqlgrade {

struct DbLoadOptions {
  std::string admin_dsn;        // a login that may create databases and roles (postgres, root)
  std::string database;         // the database to create (refused when it exists)
  std::string dump;             // a plain SQL dump (pg_dump --format=plain, mariadb-dump)
  std::string reader = "sqlgrade_reader";
  std::string reader_password;  // empty: none (PostgreSQL trust/peer, MariaDB unix socket or no password)
  double statement_timeout_s = 300;  // the login's own bound on one statement (the engines set their own, lower)
  size_t temp_file_limit_mb = 1024;  // PostgreSQL: temporary file space one query may use
  std::string client_dir;       // where psql / mariadb are ("" : next to the server's binaries, then PATH)
};

struct DbLoadResult {
  std::string reader_dsn;  // the URI to grade with (--dsn)
  size_t tables = 0;
  double seconds = 0;
  std::vector<std::string> notes;  // e.g. MariaDB with lower_case_table_names=0 (docs/bird.md)
};

// Throws InputError naming the option or the file: the admin login cannot connect, the database exists,
// the dump fails (the database created is dropped again), the reader login exists with more than read
// rights.
DbLoadResult load_database(const DbLoadOptions& opt);

// The URI of `dsn` with another login and database (the reader's URI from the admin's).
std::string with_login(const ServerDsn& dsn, const std::string& user, const std::string& password,
                       const std::string& database);

}  // namespace sqlgrade
