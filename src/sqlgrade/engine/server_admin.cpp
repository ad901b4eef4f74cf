// `sqlgrade db load`: create a database, load a dump, create the reader login — see server_admin.hpp.
#include "sqlgrade/engine/server_admin.hpp"
#include "sqlgrade/engine/server_loader.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/mariadb.hpp"
#include "sqlgrade/errors.hpp"

extern char** environ;

namespace sqlgrade {

using server_lib::my;
using server_lib::pq;

namespace {

namespace fs = std::filesystem;

// Runs a client program; stdin from `in` ("" : /dev/null); returns its exit code and the last 4 KiB of
// what it wrote on stdout and stderr.
int run_client(const std::vector<std::string>& argv, const std::vector<std::string>& env_add, const std::string& in,
               std::string& output) {
  int pipefd[2];
  if (pipe(pipefd) != 0) throw InputError(argv[0], "cannot create a pipe");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, in.empty() ? "/dev/null" : in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  posix_spawn_file_actions_addclose(&fa, pipefd[0]);
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  for (const std::string& e : env_add) env.push_back(e);
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, argv[0].c_str(), &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    throw InputError(argv[0], std::string("cannot run it: ") + std::strerror(rc));
  }
  char buf[4096];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0) {
    output.append(buf, static_cast<size_t>(n));
    if (output.size() > 8192) output.erase(0, output.size() - 4096);
  }
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// A client program: in `dir` when given, else the first of `names` found on PATH (or the PostgreSQL
// binary folder for psql).
std::string client_path(const std::string& dir, const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    if (!dir.empty()) {
      if (fs::exists(fs::path(dir) / n)) return (fs::path(dir) / n).string();
      continue;
    }
    for (const std::string& p : split(getenv("PATH") ? getenv("PATH") : "/usr/bin", ":"))
      if (!p.empty() && access((fs::path(p) / n).c_str(), X_OK) == 0) return (fs::path(p) / n).string();
  }
  throw InputError("--client-dir", "no " + names[0] + " client found" + (dir.empty() ? " on PATH" : " in " + dir));
}

// ---------------------------------------------------------------- PostgreSQL

struct PgConn {
  PGconn* c = nullptr;
  ~PgConn() {
    if (c) pq().PQfinish(c);
  }
};

void pg_exec(PGconn* c, const std::string& sql, const std::string& what) {
  PGresult* r = pq().PQexec(c, sql.c_str());
  const ExecStatusType st = pq().PQresultStatus(r);
  std::string msg = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? "" : pq().PQresultErrorMessage(r);
  pq().PQclear(r);
  if (!msg.empty()) throw InputError(what, first_line(trim(msg)));
}

bool pg_exists(PGconn* c, const char* sql, const std::string& name) {
  const char* params[] = {name.c_str()};
  PGresult* r = pq().PQexecParams(c, sql, 1, nullptr, params, nullptr, nullptr, 0);
  const bool yes = pq().PQresultStatus(r) == PGRES_TUPLES_OK && pq().PQntuples(r) > 0;
  pq().PQclear(r);
  return yes;
}

std::string pg_ident(PGconn* c, const std::string& s) {
  char* q = pq().PQescapeIdentifier(c, s.c_str(), s.size());
  std::string out = q ? q : "\"\"";
  pq().PQfreemem(q);
  return out;
}

std::string pg_literal(PGconn* c, const std::string& s) {
  char* q = pq().PQescapeLiteral(c, s.c_str(), s.size());
  std::string out = q ? q : "''";
  pq().PQfreemem(q);
  return out;
}

PGconn* pg_connect(const std::string& uri, const std::string& what) {
  PGconn* c = pq().PQconnectdb(uri.c_str());
  if (pq().PQstatus(c) != CONNECTION_OK) {
    std::string msg = pq().PQerrorMessage(c);
    pq().PQfinish(c);
    throw InputError(what, "cannot connect: " + first_line(trim(msg)));
  }
  return c;
}

// The reader role: created when missing; refused when it exists with more than the right to log in.
void pg_reader_role(PGconn* c, const DbLoadOptions& opt) {
  if (pg_exists(c, "SELECT 1 FROM pg_roles WHERE rolname = $1", opt.reader)) {
    if (pg_exists(c,
                  "SELECT 1 FROM pg_roles WHERE rolname = $1 AND (rolsuper OR rolcreaterole OR rolcreatedb OR "
                  "rolreplication OR rolbypassrls)",
                  opt.reader))
      throw InputError("--reader", "the role '" + opt.reader + "' exists and may do more than read");
    return;
  }
  std::string sql = "CREATE ROLE " + pg_ident(c, opt.reader) +
                    " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT CONNECTION LIMIT 64";
  if (!opt.reader_password.empty()) sql += " PASSWORD " + pg_literal(c, opt.reader_password);
  pg_exec(c, sql, "--reader");
}

// Inside the new database: what the reader may do, and the bounds of its sessions there.
void pg_grants(PGconn* db, const DbLoadOptions& opt) {
  const std::string r = pg_ident(db, opt.reader), d = pg_ident(db, opt.database);
  const std::string sql =
      "REVOKE ALL ON DATABASE " + d + " FROM PUBLIC; GRANT CONNECT ON DATABASE " + d + " TO " + r +
      "; REVOKE CREATE ON SCHEMA public FROM PUBLIC; GRANT USAGE ON SCHEMA public TO " + r +
      "; GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + r +
      "; REVOKE EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) FROM PUBLIC"
      "; REVOKE EXECUTE ON FUNCTION pg_catalog.pg_cancel_backend(integer) FROM PUBLIC"
      "; REVOKE EXECUTE ON FUNCTION pg_catalog.pg_terminate_backend(integer, bigint) FROM PUBLIC"
      "; ALTER ROLE " + r + " IN DATABASE " + d + " SET default_transaction_read_only = on" +
      "; ALTER ROLE " + r + " IN DATABASE " + d + " SET statement_timeout = '" +
      std::to_string(static_cast<long long>(opt.statement_timeout_s * 1000)) + "ms'" +
      "; ALTER ROLE " + r + " IN DATABASE " + d + " SET idle_in_transaction_session_timeout = '60s'" +
      "; ALTER ROLE " + r + " IN DATABASE " + d + " SET temp_file_limit = '" + std::to_string(opt.temp_file_limit_mb) + "MB'" +
      "; ALTER ROLE " + r + " IN DATABASE " + d + " SET work_mem = '16MB'" +
      "; ALTER ROLE " + r + " IN DATABASE " + d + " SET client_connection_check_interval = '1s'";
  pg_exec(db, sql, "--reader");
}

DbLoadResult load_postgres(const ServerDsn& admin, const DbLoadOptions& opt) {
  DbLoadResult res;
  PgConn a{pg_connect(admin.uri, "--admin-dsn")};
  if (pg_exists(a.c, "SELECT 1 FROM pg_database WHERE datname = $1", opt.database))
    throw InputError("--database", "the database '" + opt.database + "' exists: sqlgrade db load writes only into a "
                                   "database it creates (drop it first, or choose another name)");
  pg_reader_role(a.c, opt);
  const std::string d = pg_ident(a.c, opt.database);
  pg_exec(a.c, "CREATE DATABASE " + d + " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'", "--database");
  pg_exec(a.c, "COMMENT ON DATABASE " + d + " IS 'created by sqlgrade db load'", "--database");
  const std::string db_uri = with_login(admin, admin.user, admin.password, opt.database);
  try {
    std::string out;
    std::vector<std::string> env;
    if (!admin.password.empty()) env.push_back("PGPASSWORD=" + admin.password);
    const int rc = run_client({client_path(opt.client_dir, {"psql"}), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", db_uri,
                               "-f", opt.dump},
                              env, "", out);
    if (rc != 0) throw InputError(opt.dump, "psql failed (exit " + std::to_string(rc) + "): " + first_line(trim(out)));
    PgConn db{pg_connect(db_uri, "--database")};
    pg_grants(db.c, opt);
    PGresult* r = pq().PQexec(db.c, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'");
    res.tables = pq().PQresultStatus(r) == PGRES_TUPLES_OK ? std::stoul(pq().PQgetvalue(r, 0, 0)) : 0;
    pq().PQclear(r);
  } catch (...) {
    PGresult* r = pq().PQexec(a.c, ("DROP DATABASE IF EXISTS " + d).c_str());  // ours: created above
    pq().PQclear(r);
    throw;
  }
  res.reader_dsn = with_login(admin, opt.reader, opt.reader_password, opt.database);
  return res;
}

// ---------------------------------------------------------------- MySQL / MariaDB

struct MyConn {
  MYSQL* m = nullptr;
  ~MyConn() {
    if (m) my().mysql_close(m);
  }
};

void my_exec(MYSQL* m, const std::string& sql, const std::string& what) {
  if (my().mysql_real_query(m, sql.data(), sql.size()) != 0) throw InputError(what, my().mysql_error(m));
  if (MYSQL_RES* r = my().mysql_store_result(m)) my().mysql_free_result(r);
}

std::vector<std::string> my_column(MYSQL* m, const std::string& sql) {
  std::vector<std::string> out;
  if (my().mysql_real_query(m, sql.data(), sql.size()) != 0) return out;
  if (MYSQL_RES* r = my().mysql_store_result(m)) {
    while (MYSQL_ROW row = my().mysql_fetch_row(r)) out.push_back(row[0] ? row[0] : "");
    my().mysql_free_result(r);
  }
  return out;
}

std::string my_quote(MYSQL* m, const std::string& s) {
  std::string buf(s.size() * 2 + 1, '\0');
  buf.resize(my().mysql_real_escape_string(m, buf.data(), s.c_str(), s.size()));
  return "'" + buf + "'";
}

std::string my_ident(const std::string& s) { return "`" + replace_all(s, "`", "``") + "`"; }

// The reader login at 'localhost' (unix socket) and '%' (TCP): created when missing, refused when it
// exists with more than reading rights; SELECT on the new database only.
void my_reader(MYSQL* m, const DbLoadOptions& opt) {
  for (const char* host : {"localhost", "%"}) {
    const std::string who = my_quote(m, opt.reader) + "@" + my_quote(m, host);
    if (!my_column(m, "SELECT 1 FROM mysql.user WHERE User = " + my_quote(m, opt.reader) + " AND Host = " + my_quote(m, host)).empty()) {
      for (const std::string& g : my_column(m, "SHOW GRANTS FOR " + who))
        if (g.find("GRANT USAGE ON") != 0 && g.find("GRANT SELECT ON") != 0)
          throw InputError("--reader", "the login '" + opt.reader + "'@'" + host + "' exists and may do more than read: " + g);
    } else {
      std::string sql = "CREATE USER " + who;
      if (!opt.reader_password.empty()) sql += " IDENTIFIED BY " + my_quote(m, opt.reader_password);
      my_exec(m, sql + " WITH MAX_USER_CONNECTIONS 64 MAX_STATEMENT_TIME " + std::to_string(opt.statement_timeout_s), "--reader");
    }
    my_exec(m, "GRANT SELECT ON " + my_ident(opt.database) + ".* TO " + who, "--reader");
  }
}

DbLoadResult load_mysql(const ServerDsn& admin, const DbLoadOptions& opt) {
  DbLoadResult res;
  MyConn a{MariaDb::connect(admin, 10)};
  if (!my_column(a.m, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = " + my_quote(a.m, opt.database)).empty())
    throw InputError("--database", "the database '" + opt.database + "' exists: sqlgrade db load writes only into a "
                                   "database it creates (drop it first, or choose another name)");
  my_exec(a.m, "CREATE DATABASE " + my_ident(opt.database) + " CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci", "--database");
  try {
    std::vector<std::string> args = {client_path(opt.client_dir, {"mariadb", "mysql"}), "--no-defaults",
                                      "--default-character-set=utf8mb4", "--batch"};
    if (!admin.socket.empty()) args.push_back("--socket=" + admin.socket);
    if (!admin.host.empty() && admin.socket.empty()) args.push_back("--host=" + admin.host);
    if (admin.port) args.push_back("--port=" + std::to_string(admin.port));
    if (!admin.user.empty()) args.push_back("--user=" + admin.user);
    args.push_back("--database=" + opt.database);
    std::vector<std::string> env;
    if (!admin.password.empty()) env.push_back("MYSQL_PWD=" + admin.password);
    std::string out;
    const int rc = run_client(args, env, opt.dump, out);
    if (rc != 0) throw InputError(opt.dump, "the client failed (exit " + std::to_string(rc) + "): " + first_line(trim(out)));
    const auto tables = my_column(a.m, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = " +
                                           my_quote(a.m, opt.database) + " ORDER BY TABLE_NAME");
    for (const std::string& t : tables) my_exec(a.m, "ANALYZE TABLE " + my_ident(opt.database) + "." + my_ident(t), opt.dump);
    res.tables = tables.size();
    my_reader(a.m, opt);
  } catch (...) {
    my().mysql_query(a.m, ("DROP DATABASE IF EXISTS " + my_ident(opt.database)).c_str());  // ours: created above
    throw;
  }
  auto lctn = my_column(a.m, "SELECT @@lower_case_table_names");
  if (!lctn.empty() && lctn[0] == "0")
    res.notes.push_back("the server has lower_case_table_names=0: table names and aliases are case-sensitive, and 4 "
                        "Mini-Dev MySQL golds fail there (the official outputs were recorded with 1; docs/bird.md)");
  res.reader_dsn = with_login(admin, opt.reader, opt.reader_password, opt.database);
  return res;
}

}  // namespace

DbLoadResult load_database(const DbLoadOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  if (opt.database.empty()) throw InputError("--database", "a name is required");
  if (opt.reader.empty()) throw InputError("--reader", "a login name is required");
  std::error_code ec;
  if (!fs::is_regular_file(opt.dump, ec)) throw InputError(opt.dump, "dump file not found");
  const ServerDsn admin = parse_server_dsn(opt.admin_dsn, "--admin-dsn");
  DbLoadResult res = admin.dialect == ServerDialect::PostgreSQL ? load_postgres(admin, opt) : load_mysql(admin, opt);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace sqlgrade
