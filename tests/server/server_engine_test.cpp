// The server engines on throwaway servers (test_servers.hpp): values as the official drivers return
// them, psycopg2's several statements, the read-only rules, the deadline on the server and from the
// client, the caps, the pool. The expected reprs below were printed by psycopg2 2.9.9 and PyMySQL 1.1.1
// (the versions evaluation_utils.py names) on the same queries against PostgreSQL 15 and MariaDB 10.11;
// python/tests/test_server_values.py compares the two live when the drivers are installed.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "sqlgrade/engine/server.hpp"
#include "sqlgrade/engine/server_admin.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/py/repr.hpp"
#include "server_test_util.hpp"

namespace sqlgrade {
namespace {

using testing::TestServer;
using Clock = std::chrono::steady_clock;

std::string row_repr(const ExecResult& r) {
  std::string s = "[";
  for (size_t i = 0; i < r.table.rows.size(); ++i) {
    s += i ? ", (" : "(";
    const Row& row = r.table.rows[i];
    for (size_t c = 0; c < row.size(); ++c) s += (c ? ", " : "") + py::repr(row[c]);
    s += row.size() == 1 ? ",)" : ")";
  }
  return s + "]";
}

Limits limits(double timeout = 10) {
  Limits l;
  l.timeout_s = timeout;
  return l;
}

TEST(ServerPostgres, ValuesAsPsycopg2) {
  SQLGRADE_REQUIRE_SERVER_DB(TestServer::Kind::PostgreSQL);
  auto db = ServerPool::lease(parse_server_dsn(DSN));
  struct Case {
    const char* sql;
    const char* psycopg2;
  } cases[] = {
      {"SELECT 1::int2, 2::int4, 3::int8, CAST(1.1 AS REAL), CAST(9.1285325 AS REAL) * 100 / 7, 0.1::float8, "
       "33.33333::numeric, 1.0::numeric, 0.00000001::numeric",
       "[(1, 2, 3, 1.1, 130.40760585239954, 0.1, Decimal('33.33333'), Decimal('1.0'), Decimal('1E-8'))]"},
      {"SELECT true, false, 'x'::text, 'y'::varchar, 'z'::char(3), NULL, 'NaN'::float8, 'Infinity'::float8, 'NaN'::numeric",
       "[(True, False, 'x', 'y', 'z  ', None, nan, inf, Decimal('NaN'))]"},
      {"SELECT DATE '2020-01-02', TIMESTAMP '2020-01-02 03:04:05.5', TIME '01:02:03', "
       "interval '1 year 2 mons 3 days 04:05:06.7', interval '-1 days +02:00:00', interval '00:00:01.5'",
       "[(datetime.date(2020, 1, 2), datetime.datetime(2020, 1, 2, 3, 4, 5, 500000), datetime.time(1, 2, 3), "
       "datetime.timedelta(days=428, seconds=14706, microseconds=700000), datetime.timedelta(days=-1, seconds=7200), "
       "datetime.timedelta(seconds=1, microseconds=500000))]"},
      {"SELECT ARRAY[1,2], ARRAY['a b','c',NULL], '{\"a\": [1, 2.5, \"x\", null, true]}'::json, '3'::jsonb, "
       "int4range(1,5), 'infinity'::date, 12345678901234567890::numeric, 'abc'::name, 1::oid, '12:00'::time",
       "[([1, 2], ['a b', 'c', None], {'a': [1, 2.5, 'x', None, True]}, 3, NumericRange(1, 5, '[)'), "
       "datetime.date(9999, 12, 31), Decimal('12345678901234567890'), 'abc', 1, datetime.time(12, 0))]"},
      {"SELECT 10/4, 10/4.0, CAST(10 AS REAL)/4, SUM(x), AVG(x) FROM (VALUES (1),(2)) v(x)",
       "[(2, Decimal('2.5000000000000000'), 2.5, 3, Decimal('1.5000000000000000'))]"},
      {"SELECT '\\x0102ff'::bytea", "[(b'\\x01\\x02\\xff',)]"},  // psycopg2: a memoryview of those bytes
  };
  for (const Case& c : cases) {
    ExecResult r = db->execute(c.sql, limits());
    ASSERT_TRUE(r.ok()) << c.sql << ": " << r.error;
    EXPECT_EQ(row_repr(r), c.psycopg2) << c.sql;
  }
}

TEST(ServerPostgres, SeveralStatementsKeepTheLastResultAsPsycopg2) {
  SQLGRADE_REQUIRE_SERVER_DB(TestServer::Kind::PostgreSQL);
  auto db = ServerPool::lease(parse_server_dsn(DSN));
  ExecResult r = db->execute("SELECT 1; SELECT 2 AS b; -- done", limits());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(row_repr(r), "[(2,)]");
  EXPECT_EQ(r.table.columns, std::vector<std::string>{"b"});
  // A semicolon inside quotes, dollar quotes and comments does not end a statement.
  r = db->execute("SELECT 'a;b', $x$c;d$x$, \"e;f\" FROM (SELECT 1 AS \"e;f\") t /* ; */", limits());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(row_repr(r), "[('a;b', 'c;d', 1)]");
  // Each piece must be a query; the last must give rows (psycopg2: "no results to fetch").
  EXPECT_NE(db->execute("SELECT 1; DROP TABLE account", limits()).error.find("not a query"), std::string::npos);
  EXPECT_EQ(db->execute("", limits()).error, "can't execute an empty query");
  EXPECT_EQ(db->execute("-- nothing", limits()).error, "no results to fetch");
  // The official script's single-statement quirk of the same file: a trailing semicolon is fine.
  EXPECT_TRUE(db->execute("SELECT 1;", limits()).ok());
}

TEST(ServerPostgres, ErrorsReadAsPsycopg2Prints) {
  SQLGRADE_REQUIRE_SERVER_DB(TestServer::Kind::PostgreSQL);
  auto db = ServerPool::lease(parse_server_dsn(DSN));
  ExecResult r = db->execute("SELECT nosuch FROM account", limits());
  EXPECT_EQ(r.status, ExecStatus::Error);
  EXPECT_EQ(r.error, "column \"nosuch\" does not exist\nLINE 1: SELECT nosuch FROM account\n               ^");
  EXPECT_TRUE(db->execute("SELECT 1", limits()).ok()) << "the connection is usable after an error";
}

TEST(ServerPostgres, LoginThatMayWriteIsRefused) {
  SQLGRADE_REQUIRE_SERVER_DB(TestServer::Kind::PostgreSQL);
  try {
    open_server(parse_server_dsn(SERVER->admin_dsn("bird")));
    FAIL() << "the superuser login was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a superuser"), std::string::npos) << e.what();
  }
}

TEST(ServerMySql, ValuesAsPyMySql) {
  SQLGRADE_REQUIRE_SERVER_DB(TestServer::Kind::MariaDB);
  auto db = ServerPool::lease(parse_server_dsn(DSN));
  struct Case {
    const char* sql;
    const char* pymysql;
  } cases[] = {
      {"SELECT 1, CAST(2 AS SIGNED), 400/27, 10/4, 1.5, CAST(1.1 AS FLOAT), CAST(0.1 AS DOUBLE), ROUND(1/3, 5), 1e0/3, "
       "NULL, 'x', _binary 'ab', CAST('ab' AS BINARY), b'101'",
       "[(1, 2, Decimal('14.8148'), Decimal('2.5000'), Decimal('1.5'), 1.1, 0.1, Decimal('0.33333'), "
       "0.3333333333333333, None, 'x', b'ab', b'ab', b'\\x05')]"},
      {"SELECT DATE '2020-01-02', TIMESTAMP '2020-01-02 03:04:05.5', CAST('2020-01-02 03:04:05' AS DATETIME), "
       "TIME '01:02:03', TIME '-25:00:00.5', YEAR(DATE '2020-01-01'), CAST('0000-00-00' AS DATE), JSON_ARRAY(1,2)",
       "[(datetime.date(2020, 1, 2), datetime.datetime(2020, 1, 2, 3, 4, 5, 500000), "
       "datetime.datetime(2020, 1, 2, 3, 4, 5), datetime.timedelta(seconds=3723), "
       "datetime.timedelta(days=-2, seconds=82799, microseconds=500000), 2020, '0000-00-00', '[1, 2]')]"},
      {"SELECT SUM(x), AVG(x), COUNT(*), MAX(x) FROM (SELECT 1 AS x UNION ALL SELECT 2) t",
       "[(Decimal('3'), Decimal('1.5000'), 2, 2)]"},
      {"SELECT 1 INTO @x", "[]"},
  };
  for (const Case& c : cases) {
    ExecResult r = db->execute(c.sql, limits());
    ASSERT_TRUE(r.ok()) << c.sql << ": " << r.error;
    EXPECT_EQ(row_repr(r), c.pymysql) << c.sql;
  }
  // PyMySQL sends no CLIENT_MULTI_STATEMENTS: two statements are a syntax error (1064).
  ExecResult two = db->execute("SELECT 1; SELECT 2", limits());
  EXPECT_EQ(two.status, ExecStatus::Error);
  EXPECT_EQ(two.error.rfind("(1064, \"You have an error in your SQL syntax", 0), 0u) << two.error;
}

TEST(ServerMySql, LoginThatMayWriteIsRefused) {
  SQLGRADE_REQUIRE_SERVER_DB(TestServer::Kind::MariaDB);
  try {
    open_server(parse_server_dsn(SERVER->admin_dsn("BIRD")));
    FAIL() << "root was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("may do more than read"), std::string::npos) << e.what();
  }
}

// sqlgrade db load writes only into a database it creates: an existing one is refused, and one whose dump
// fails is dropped again (the same name then loads, which it could not if anything were left of it).
void check_db_load_refusals(TestServer* server, const std::string& admin_db, const std::string& existing,
                            const std::string& bad_sql) {
  DbLoadOptions o;
  o.admin_dsn = server->admin_dsn(admin_db);
  o.database = existing;
  o.dump = std::string(std::getenv("SQLGRADE_DATA") ? std::getenv("SQLGRADE_DATA") : SQLGRADE_DEFAULT_DATA) +
           (server->kind() == TestServer::Kind::PostgreSQL ? "/bird/minidev_postgresql/BIRD_dev.sql"
                                                            : "/bird/minidev_mysql/BIRD_dev.sql");
  try {
    load_database(o);
    FAIL() << "loaded into the existing database " << existing;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("exists"), std::string::npos) << e.what();
  }
  const std::string bad = server->dir() + "/bad_dump.sql";
  FILE* f = std::fopen(bad.c_str(), "w");
  std::fputs(bad_sql.c_str(), f);
  std::fclose(f);
  o.database = "sqlgrade_bad_load";
  o.dump = bad;
  EXPECT_THROW(load_database(o), InputError);
  o.dump = std::string(std::getenv("SQLGRADE_DATA") ? std::getenv("SQLGRADE_DATA") : SQLGRADE_DEFAULT_DATA) +
           (server->kind() == TestServer::Kind::PostgreSQL ? "/bird/minidev_postgresql/BIRD_dev.sql"
                                                            : "/bird/minidev_mysql/BIRD_dev.sql");
  // The failed load left nothing behind: the same name loads now (and its login can read it).
  const DbLoadResult r = load_database(o);
  EXPECT_EQ(r.tables, 75u);
  EXPECT_TRUE(ServerPool::lease(parse_server_dsn(r.reader_dsn))->execute("SELECT count(*) FROM account", limits()).ok());
}

TEST(ServerPostgres, DbLoadWritesOnlyIntoADatabaseItCreates) {
  SQLGRADE_REQUIRE_SERVER_DB(TestServer::Kind::PostgreSQL);
  check_db_load_refusals(SERVER, "postgres", "bird", "CREATE TABLE t (a int);\nSELECT nosuch_function();\n");
}

TEST(ServerMySql, DbLoadWritesOnlyIntoADatabaseItCreates) {
  SQLGRADE_REQUIRE_SERVER_DB(TestServer::Kind::MariaDB);
  check_db_load_refusals(SERVER, "mysql", "BIRD", "CREATE TABLE t (a int);\nSELECT nosuch_function();\n");
}

// A folder a killed test process left is removed by the next start; one whose owner lives, or that has no
// owner.pid (not ours), stays. The dead owner is a child that has exited and been reaped.
TEST(ServerPostgres, StaleTestFoldersAreSweptOnlyWhenTheirOwnerIsGone) {
  namespace fs = std::filesystem;
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  waitpid(child, nullptr, 0);
  const std::string prefix = "sqlgrade-sweeptest-" + std::to_string(getpid()) + "-";
  const fs::path tmp = fs::temp_directory_path();
  auto make = [&](const std::string& name, pid_t owner) {
    fs::create_directories(tmp / (prefix + name) / "data");
    if (owner > 0) std::ofstream(tmp / (prefix + name) / "owner.pid") << owner << "\n";
    return tmp / (prefix + name);
  };
  const fs::path dead = make("dead", child), live = make("live", getpid()), unmarked = make("unmarked", 0);
  const fs::path serving = make("serving", child);
  std::ofstream(serving / "data" / "postmaster.pid") << getpid() << "\n";  // its "server" still runs
  testing::sweep_stale_dirs(prefix);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(unmarked));
  EXPECT_TRUE(fs::exists(serving));
  for (const fs::path& p : {live, unmarked, serving}) fs::remove_all(p);
}

}  // namespace
}  // namespace sqlgrade
