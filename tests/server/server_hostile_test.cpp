// Hostile predictions on a server (issue 33, item 5): each is refused or bounded; the database is
// unchanged (a checksum of every table and of the catalogue before and after); no query of the
// read-only login is still running on the server once the engine has returned (pg_stat_activity,
// information_schema.PROCESSLIST, checked with the superuser's connection); the server answers the
// next query at once. docs/safety.md, "Database servers", lists the rows.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <mysql.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "sqlgrade/engine/mariadb.hpp"
#include "sqlgrade/engine/server.hpp"
#include "server_test_util.hpp"

namespace sqlgrade {
namespace {

using testing::TestServer;
using Clock = std::chrono::steady_clock;

struct Hostile {
  const char* sql;
  // What may come back: the statement is refused or fails (Error), stopped at its deadline (Timeout) or
  // its caps (TooLarge). Ok only where it is harmless and says so.
  std::vector<ExecStatus> allowed;
};

const std::vector<Hostile> kPostgres = {
    {"SELECT pg_sleep(30)", {ExecStatus::Timeout}},
    {"SELECT count(*) FROM generate_series(1, 1e12)", {ExecStatus::Timeout}},
    {"SELECT * FROM generate_series(1, 1e12)", {ExecStatus::Timeout}},  // a function scan materialises
    {"SELECT generate_series(1, 1e12)", {ExecStatus::TooLarge}},        // rows streamed, the row cap
    {"SELECT g FROM generate_series(1, 1e8) g ORDER BY md5(g::text)", {ExecStatus::Timeout, ExecStatus::Error}},
    {"SELECT count(*) FROM generate_series(1, 3e7) a JOIN generate_series(1, 3e7) b ON a = b",
     {ExecStatus::Timeout, ExecStatus::Error}},
    {"SELECT * FROM account FOR UPDATE", {ExecStatus::Error}},
    {"LOCK TABLE account IN ACCESS EXCLUSIVE MODE", {ExecStatus::Error}},
    {"COPY account TO PROGRAM 'touch /tmp/sqlgrade-hostile-copy'", {ExecStatus::Error}},
    {"COPY (SELECT 1) TO '/tmp/sqlgrade-hostile-copy'", {ExecStatus::Error}},
    {"SELECT pg_read_file('/etc/passwd')", {ExecStatus::Error}},
    {"SELECT lo_import('/etc/passwd')", {ExecStatus::Error}},
    {"SET ROLE postgres", {ExecStatus::Error}},
    {"SELECT set_config('role', 'postgres', false)", {ExecStatus::Error}},
    {"SET statement_timeout = 0", {ExecStatus::Error}},
    {"SELECT set_config('statement_timeout', '0', false); SELECT pg_sleep(30)", {ExecStatus::Error, ExecStatus::Timeout}},
    {"SELECT * FROM dblink('dbname=bird', 'DROP TABLE account') AS t(x int)", {ExecStatus::Error}},
    {"SELECT 1; DROP TABLE account", {ExecStatus::Error}},
    {"; DROP TABLE account", {ExecStatus::Error}},
    {"WITH d AS (DELETE FROM account RETURNING *) SELECT count(*) FROM d", {ExecStatus::Error}},
    {"SELECT pg_cancel_backend(pid) FROM pg_stat_activity", {ExecStatus::Error}},
    {"SELECT pg_terminate_backend(pid) FROM pg_stat_activity", {ExecStatus::Error}},
    {"CREATE TEMP TABLE x AS SELECT 1", {ExecStatus::Error}},
    {"SELECT pg_advisory_lock(42)", {ExecStatus::Ok}},  // released when the query ends (checked below)
    {"DO $$BEGIN PERFORM pg_sleep(30); END$$", {ExecStatus::Error}},
    {"PREPARE p AS SELECT 1", {ExecStatus::Error}},
    {"SELECT repeat('x', 40000000), repeat('y', 40000000)", {ExecStatus::TooLarge, ExecStatus::Timeout}},
};

const std::vector<Hostile> kMySql = {
    {"SELECT SLEEP(30)", {ExecStatus::Timeout}},
    {"SELECT BENCHMARK(10000000000, MD5(RAND()))", {ExecStatus::Timeout}},
    {"SELECT count(*) FROM account a, account b, account c, account d, account e, account f", {ExecStatus::Timeout}},
    // MariaDB stops the recursion itself (max_recursive_iterations): bounded, a result.
    {"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
     {ExecStatus::Timeout, ExecStatus::TooLarge, ExecStatus::Error, ExecStatus::Ok}},
    {"SELECT * FROM account FOR UPDATE", {ExecStatus::Error}},
    {"LOCK TABLES account WRITE", {ExecStatus::Error}},
    {"LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE account", {ExecStatus::Error}},
    {"SELECT * FROM account INTO OUTFILE '/tmp/sqlgrade-hostile-outfile'", {ExecStatus::Error}},
    {"SELECT LOAD_FILE('/etc/passwd') IS NOT NULL", {ExecStatus::Ok}},  // NULL without the FILE privilege
    {"SET SESSION max_statement_time = 0", {ExecStatus::Error}},
    {"SET STATEMENT max_statement_time = 0 FOR SELECT SLEEP(30)", {ExecStatus::Error}},
    {"/*!50000 DROP TABLE account */", {ExecStatus::Error}},
    {"SELECT 1; DROP TABLE account", {ExecStatus::Error}},
    {"; DROP TABLE account", {ExecStatus::Error}},
    {"DROP TABLE account", {ExecStatus::Error}},
    {"KILL 1", {ExecStatus::Error}},
    {"SELECT GET_LOCK('sqlgrade', 0)", {ExecStatus::Ok}},  // released after the query (checked below)
    {"SELECT REPEAT('x', 100000000), REPEAT('y', 100000000)", {ExecStatus::TooLarge, ExecStatus::Ok}},
};

// ---- the superuser's view of the server

std::string pg_one(PGconn* c, const std::string& sql) {
  PGresult* r = PQexec(c, sql.c_str());
  std::string v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) ? PQgetvalue(r, 0, 0) : "?" + std::string(PQresultErrorMessage(r));
  PQclear(r);
  return v;
}

// Every table's rows (md5 of their text in order) and the catalogue's relations, roles and privileges.
const char* kPgChecksum = R"SQL(
SELECT md5(coalesce((SELECT string_agg(format('%s:%s', c.relname, c.relkind), ',' ORDER BY c.relname)
                     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'), '')
        || coalesce((SELECT string_agg(rolname || rolsuper::text, ',' ORDER BY rolname) FROM pg_roles), '')
        || coalesce((SELECT string_agg(relname || coalesce(relacl::text, ''), ',' ORDER BY relname) FROM pg_class
                     WHERE relnamespace = 'public'::regnamespace), '')
        || (SELECT string_agg(table_md5, ',' ORDER BY 1) FROM (
              SELECT (xpath('/row/m/text()', query_to_xml(format(
                'SELECT md5(coalesce(string_agg(t::text, ''|'' ORDER BY t::text), '''')) AS m FROM public.%I t', tablename),
                false, true, '')))[1]::text AS table_md5 FROM pg_tables WHERE schemaname = 'public') x))
)SQL";

std::string my_one(MYSQL* m, const std::string& sql) {
  if (mysql_real_query(m, sql.data(), sql.size()) != 0) return "?" + std::string(mysql_error(m));
  MYSQL_RES* r = mysql_store_result(m);
  std::string v;
  while (MYSQL_ROW row = r ? mysql_fetch_row(r) : nullptr)
    for (unsigned c = 0; c < mysql_num_fields(r); ++c) v += std::string(row[c] ? row[c] : "NULL") + "|";
  if (r) mysql_free_result(r);
  return v;
}

std::string my_checksum(MYSQL* m) {
  std::string tables = my_one(m, "SELECT GROUP_CONCAT(TABLE_NAME ORDER BY TABLE_NAME) FROM information_schema.TABLES "
                                  "WHERE TABLE_SCHEMA = 'BIRD'");
  std::string sums;
  for (const std::string& t : {std::string("account"), std::string("yearmonth"), std::string("superhero")})
    sums += my_one(m, "CHECKSUM TABLE BIRD." + t + " EXTENDED");
  return tables + sums + my_one(m, "SELECT GROUP_CONCAT(CONCAT(User, Host) ORDER BY User, Host) FROM mysql.user") +
         my_one(m, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'BIRD'");
}

void check_one(ServerDb& db, const Hostile& h, double timeout, const std::function<int()>& running,
               const std::function<std::string()>& shown) {
  Limits lim;
  lim.timeout_s = timeout;
  lim.max_rows = 100000;
  lim.max_bytes = 64u << 20;
  const auto t0 = Clock::now();
  ExecResult r = db.execute(h.sql, lim);
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_NE(std::find(h.allowed.begin(), h.allowed.end(), r.status), h.allowed.end())
      << h.sql << ": " << to_string(r.status) << " " << r.error;
  EXPECT_LT(took, timeout + 2.5) << h.sql << " outlived its deadline on the client";
  // The server updates a session's state a moment after it has answered: a session that has just sent
  // its last reply may still show its command for a few milliseconds. Nothing may run 0.5 s later.
  int left = running();
  for (int k = 0; k < 10 && left; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = running();
  }
  EXPECT_EQ(left, 0) << h.sql << ": a query of the reader still runs on the server: " << shown();
}

TEST(ServerHostilePostgres, RefusedOrBoundedDatabaseUnchangedNothingLeftRunning) {
  SQLGRADE_REQUIRE_SERVER_DB(TestServer::Kind::PostgreSQL);
  PGconn* admin = PQconnectdb(SERVER->admin_dsn("bird").c_str());
  ASSERT_EQ(PQstatus(admin), CONNECTION_OK);
  const std::string before = pg_one(admin, kPgChecksum);
  ASSERT_EQ(before.size(), 32u) << before;
  auto running = [&] {
    return std::stoi(pg_one(admin, "SELECT count(*) FROM pg_stat_activity WHERE usename = 'sqlgrade_reader' AND state "
                                   "NOT IN ('idle') AND backend_type = 'client backend'"));
  };
  const ServerDsn dsn = parse_server_dsn(DSN);
  for (const Hostile& h : kPostgres) {
    auto db = ServerPool::lease(dsn);
    check_one(*db, h, 2.0, running, [&] {
      return pg_one(admin, "SELECT string_agg(state || ': ' || query, ' / ') FROM pg_stat_activity WHERE usename = "
                           "'sqlgrade_reader' AND state <> 'idle'");
    });
    EXPECT_EQ(pg_one(admin, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"), "0") << h.sql;
    const auto t0 = Clock::now();
    EXPECT_TRUE(ServerPool::lease(dsn)->execute("SELECT count(*) FROM account", Limits{}).ok()) << "after " << h.sql;
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 1.0) << "the server was slow after " << h.sql;
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/sqlgrade-hostile-copy"));
  EXPECT_EQ(pg_one(admin, kPgChecksum), before) << "the database changed";
  PQfinish(admin);
}

TEST(ServerHostileMySql, RefusedOrBoundedDatabaseUnchangedNothingLeftRunning) {
  SQLGRADE_REQUIRE_SERVER_DB(TestServer::Kind::MariaDB);
  MYSQL* admin = MariaDb::connect(parse_server_dsn(SERVER->admin_dsn("BIRD")), 10);
  const std::string before = my_checksum(admin);
  auto running = [&] {
    return std::stoi(my_one(admin, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'sqlgrade_reader' "
                                   "AND COMMAND = 'Query'"));
  };
  const ServerDsn dsn = parse_server_dsn(DSN);
  for (const Hostile& h : kMySql) {
    auto db = ServerPool::lease(dsn);
    check_one(*db, h, 2.0, running, [&] {
      return my_one(admin, "SELECT ID, COMMAND, TIME, STATE, INFO FROM information_schema.PROCESSLIST WHERE USER = "
                           "'sqlgrade_reader'");
    });
    EXPECT_EQ(my_one(admin, "SELECT IS_USED_LOCK('sqlgrade') IS NULL"), "1|") << h.sql;
    const auto t0 = Clock::now();
    EXPECT_TRUE(ServerPool::lease(dsn)->execute("SELECT count(*) FROM account", Limits{}).ok()) << "after " << h.sql;
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 1.0) << "the server was slow after " << h.sql;
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/sqlgrade-hostile-outfile"));
  EXPECT_EQ(my_checksum(admin), before) << "the database changed";
  mysql_close(admin);
}

}  // namespace
}  // namespace sqlgrade
