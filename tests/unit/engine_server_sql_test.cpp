// Statement texts before they reach a server (engine/server_sql.hpp), connection URIs and the value
// conversions of psycopg2 / PyMySQL on the servers' text (engine/server_values.hpp) — no server needed.
#include <gtest/gtest.h>

#include "sqlgrade/engine/server.hpp"
#include "sqlgrade/engine/server_admin.hpp"
#include "sqlgrade/engine/server_sql.hpp"
#include "sqlgrade/engine/server_values.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade {
namespace {

using server_sql::first_word;
using server_sql::refusal;
using server_sql::split_postgres;
using V = std::vector<std::string>;

TEST(ServerSql, SplitsPostgresStatementsOutsideQuotesAndComments) {
  EXPECT_EQ(split_postgres("SELECT 1; SELECT 2"), (V{"SELECT 1", "SELECT 2"}));
  EXPECT_EQ(split_postgres("SELECT 1;"), (V{"SELECT 1"}));
  EXPECT_EQ(split_postgres("SELECT ';' -- ;\n; /* ; /* ; */ ; */ SELECT 2"), (V{"SELECT ';' -- ;", "/* ; /* ; */ ; */ SELECT 2"}));
  EXPECT_EQ(split_postgres("SELECT $$;$$, $a$ $$; $a$; SELECT \"x;\""), (V{"SELECT $$;$$, $a$ $$; $a$", "SELECT \"x;\""}));
  EXPECT_EQ(split_postgres("SELECT E'\\';'; SELECT 'a\\'; SELECT 3"), (V{"SELECT E'\\';'", "SELECT 'a\\'", "SELECT 3"}));
  EXPECT_EQ(split_postgres("SELECT $1; SELECT a$b"), (V{"SELECT $1", "SELECT a$b"}));
  EXPECT_EQ(split_postgres(" ; -- only a comment\n ;"), V{});
  // Unterminated: the rest is one piece (the server refuses it).
  EXPECT_EQ(split_postgres("SELECT 'x; DROP TABLE t"), (V{"SELECT 'x; DROP TABLE t"}));
}

TEST(ServerSql, OnlyQueriesReachTheServer) {
  for (auto d : {ServerDialect::PostgreSQL, ServerDialect::MySQL}) {
    EXPECT_EQ(refusal("  -- c\n/* c */ (SELECT 1) UNION (SELECT 2)", d), "");
    EXPECT_EQ(refusal("with x as (select 1) select * from x", d), "");
    EXPECT_EQ(refusal("VALUES (1)", d), "");
    EXPECT_EQ(refusal("```sql\nSELECT 1\n```", d), "");  // the server's own syntax error
    for (const char* bad : {"SET statement_timeout = 0", "DROP TABLE t", "LOCK TABLE t", "COPY t TO PROGRAM 'x'",
                            "BEGIN", "COMMIT; DROP TABLE t", "KILL 1", "sql\nSELECT 1", "DO $$ $$", "CALL p()"})
      EXPECT_NE(refusal(bad, d).find("not a query"), std::string::npos) << bad;
  }
  // MySQL's executable comments are code, not comments.
  EXPECT_EQ(first_word("/*!50000 DROP TABLE t */", ServerDialect::MySQL), "/");
  EXPECT_NE(refusal("/*!50000 DROP TABLE t */ SELECT 1", ServerDialect::MySQL), "");
  EXPECT_EQ(first_word("# c\nSELECT 1", ServerDialect::MySQL), "SELECT");
  EXPECT_EQ(first_word("--x\nSELECT 1", ServerDialect::MySQL), "-");  // "--x" is not a MySQL comment
}

TEST(ServerDsn, UrisAsClientsWriteThem) {
  ServerDsn p = parse_server_dsn("postgresql://reader:s%40cret@db.example:6543/bird?sslmode=disable");
  EXPECT_EQ(p.dialect, ServerDialect::PostgreSQL);
  EXPECT_EQ(p.user, "reader");
  EXPECT_EQ(p.password, "s@cret");
  EXPECT_EQ(p.host, "db.example");
  EXPECT_EQ(p.port, 6543);
  EXPECT_EQ(p.database, "bird");
  EXPECT_EQ(p.redacted(), "postgresql://reader:***@db.example:6543/bird?sslmode=disable");
  ServerDsn m = parse_server_dsn("mysql://reader@localhost/BIRD?socket=/run/mysqld/mysqld.sock");
  EXPECT_EQ(m.dialect, ServerDialect::MySQL);
  EXPECT_EQ(m.socket, "/run/mysqld/mysqld.sock");
  EXPECT_EQ(parse_server_dsn("mysql://r@%2Ftmp%2Fmy.sock/BIRD").socket, "/tmp/my.sock");
  EXPECT_THROW(parse_server_dsn("sqlite:///x.db"), InputError);
  EXPECT_THROW(parse_server_dsn("mysql://r@host/"), InputError);
  EXPECT_THROW(parse_server_dsn("mysql://r@host:99999/BIRD"), InputError);
  EXPECT_THROW(parse_server_dsn("mysql://r@host/BIRD?ssl=1"), InputError);
  EXPECT_EQ(with_login(p, "other", "", "x"), "postgresql://other@db.example:6543/x?sslmode=disable");
  EXPECT_EQ(parse_server_dsn("MariaDB://r@h/BIRD").dialect, ServerDialect::MySQL);  // schemes: one list
  EXPECT_EQ(parse_server_dsn("Postgres://r@h/bird").dialect, ServerDialect::PostgreSQL);
}

TEST(ServerDsn, SchemesAreOneList) {
  std::vector<std::string> seen;
  for (const ServerScheme& s : server_schemes()) {
    seen.emplace_back(s.scheme);
    EXPECT_EQ(dialect_of_scheme(s.scheme), s.dialect);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"postgresql", "postgres", "mysql", "mariadb"}));
  EXPECT_EQ(dialect_of_scheme("MYSQL"), ServerDialect::MySQL);
  EXPECT_FALSE(dialect_of_scheme("sqlite").has_value());
  EXPECT_FALSE(dialect_of_scheme("").has_value());
  EXPECT_STREQ(dialect_word(ServerDialect::PostgreSQL), "postgresql");
  EXPECT_STREQ(dialect_word(ServerDialect::MySQL), "mysql");
}

std::string pg(uint32_t oid, const char* text) {
  std::string err;
  auto v = server_values::from_postgres(oid, text, err);
  return v ? py::repr(*v) : "ERR " + err;
}

std::string my(int type, unsigned charset, const char* text) {
  std::string err;
  auto v = server_values::from_mysql(type, charset, text, err);
  return v ? py::repr(*v) : "ERR " + err;
}

TEST(ServerValues, AsPsycopg2ReadsTheTextFormat) {
  EXPECT_EQ(pg(700, "9.128532"), "9.128532");  // float4 through its text: the float4 rounding stays
  EXPECT_EQ(pg(1700, "0.50"), "Decimal('0.50')");
  EXPECT_EQ(pg(16, "t"), "True");
  EXPECT_EQ(pg(1082, "2020-01-02"), "datetime.date(2020, 1, 2)");
  EXPECT_EQ(pg(1082, "0044-03-15 BC"), "ERR ValueError: year -43 is out of range (the date 0044-03-15 BC)");
  EXPECT_EQ(pg(1184, "2020-01-02 03:04:05.25+05:30"),
            "datetime.datetime(2020, 1, 2, 3, 4, 5, 250000, tzinfo=datetime.timezone(datetime.timedelta(seconds=19800)))");
  EXPECT_EQ(pg(1186, "1 year 2 mons 3 days 04:05:06.7"), "datetime.timedelta(days=428, seconds=14706, microseconds=700000)");
  EXPECT_EQ(pg(17, "\\x00ff"), "b'\\x00\\xff'");
  EXPECT_EQ(pg(1007, "{1,NULL,3}"), "[1, None, 3]");
  EXPECT_EQ(pg(1009, "{\"a,b\",c}"), "['a,b', 'c']");
  EXPECT_EQ(pg(3802, "{\"k\": [1, 2.5]}"), "{'k': [1, 2.5]}");
  EXPECT_EQ(pg(2950, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'");  // uuid: str
}

TEST(ServerValues, AsPyMySqlReadsTheTextProtocol) {
  EXPECT_EQ(my(246, 63, "14.8148"), "Decimal('14.8148')");  // integer division's 4 decimals
  EXPECT_EQ(my(5, 63, "0.1"), "0.1");
  EXPECT_EQ(my(8, 63, "18446744073709551615"), "Decimal('18446744073709551615')");  // Python int, same number
  EXPECT_EQ(my(10, 63, "0000-00-00"), "'0000-00-00'");                               // convert_date: the text
  EXPECT_EQ(my(12, 63, "2020-01-02 03:04:05.5"), "datetime.datetime(2020, 1, 2, 3, 4, 5, 500000)");
  EXPECT_EQ(my(11, 63, "-25:00:00.5"), "datetime.timedelta(days=-2, seconds=82799, microseconds=500000)");
  EXPECT_EQ(my(252, 63, "ab"), "b'ab'");   // a BLOB: bytes
  EXPECT_EQ(my(252, 45, "ab"), "'ab'");    // a TEXT: str
  EXPECT_EQ(my(253, 45, "\xff"), "ERR UnicodeDecodeError: 'utf-8' codec can't decode a result cell");
}

}  // namespace
}  // namespace sqlgrade
