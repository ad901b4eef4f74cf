// The pinned SQL clock inside the engines (issue 30, item 9): SQLite answers 'now' through the
// "sqlgrade" VFS (engine/sqlite_clock.cpp), DuckDB through temporary macros (engine/duckdb_clock.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/engine/duckdb.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::test;
namespace clk = sqlgrade::sql_clock;

namespace {

std::vector<std::string> row_text(const ExecResult& r) {
  std::vector<std::string> out;
  if (r.table.rows.empty()) return out;
  for (const auto& v : r.table.rows[0]) {
    switch (v.kind) {
      case Kind::Int: out.push_back(std::to_string(v.i)); break;
      case Kind::Real: {
        char b[64];
        std::snprintf(b, sizeof b, "%.9f", v.r);
        out.push_back(b);
        break;
      }
      case Kind::Null: out.push_back("NULL"); break;
      default: out.push_back(v.s);
    }
  }
  return out;
}

const char* kEveryClock =
    "SELECT date('now'), datetime('now'), time('now'), julianday('now'), strftime('%Y-%m-%d %H:%M:%f', 'now'), "
    "CURRENT_DATE, CURRENT_TIME, CURRENT_TIMESTAMP, unixepoch('now'), date(), strftime('%Y'), "
    "datetime('now', '-1 day'), CAST(round((julianday('now') - julianday('2001-01-01')) * 86400) AS INT)";

}  // namespace

TEST(SqliteClock, EveryWayToReadNowGivesThePinnedInstant) {
  TempDir tmp;
  make_sqlite(tmp / "a.sqlite", "CREATE TABLE t(x INT); INSERT INTO t VALUES (1);");
  SqliteDb db((tmp / "a.sqlite").string());
  clk::ClockScope pin("2001-02-03T04:05:06.250Z", "--now");
  ExecResult r = db.execute(kEveryClock, Limits{});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(row_text(r), (std::vector<std::string>{"2001-02-03", "2001-02-03 04:05:06", "04:05:06", "2451943.670211227",
                                                   "2001-02-03 04:05:06.250", "2001-02-03", "04:05:06",
                                                   "2001-02-03 04:05:06", "981173106", "2001-02-03", "2001",
                                                   "2001-02-02 04:05:06", "2865906"}));
}

TEST(SqliteClock, UnpinnedIsTheRealClockAndPinsDoNotLeak) {
  TempDir tmp;
  make_sqlite(tmp / "a.sqlite", "CREATE TABLE t(x INT);");
  SqliteDb db((tmp / "a.sqlite").string());
  {
    clk::ClockScope pin("1999-12-31T23:59:59Z", "--now");
    ASSERT_EQ(row_text(db.execute("SELECT CURRENT_TIMESTAMP", Limits{}))[0], "1999-12-31 23:59:59");
  }
  // The same connection after the scope: the machine's clock again (within a minute of it).
  ExecResult r = db.execute("SELECT unixepoch('now')", Limits{});
  ASSERT_TRUE(r.ok()) << r.error;
  const int64_t real_s = clk::now() / 1000;
  EXPECT_NEAR(static_cast<double>(r.table.rows[0][0].i), static_cast<double>(real_s), 60.0);
}

TEST(SqliteClock, ReadsAreCountedOnlyForQueriesThatAskTheTime) {
  TempDir tmp;
  make_sqlite(tmp / "a.sqlite", "CREATE TABLE t(d TEXT); INSERT INTO t VALUES ('2000-01-01'),('2010-05-05');");
  SqliteDb db((tmp / "a.sqlite").string());
  uint64_t before = clk::reads();
  ASSERT_TRUE(db.execute("SELECT date(d, '+1 day'), strftime('%Y', d) FROM t", Limits{}).ok());
  EXPECT_EQ(clk::reads(), before);  // dates, but never 'now'
  ASSERT_TRUE(db.execute("SELECT count(*) FROM t WHERE d < date('now')", Limits{}).ok());
  EXPECT_GT(clk::reads(), before);
}

TEST(SqliteClock, WorkersOfParallelForReadTheCallersInstant) {
  TempDir tmp;
  make_sqlite(tmp / "a.sqlite", "CREATE TABLE t(x INT);");
  const std::string path = (tmp / "a.sqlite").string();
  std::vector<std::string> seen(16);
  clk::ClockScope pin("2012-12-21T12:00:00Z", "--now");
  parallel_for(seen.size(), 4, [&](size_t i) {
    auto lease = SqlitePool::lease(path);
    seen[i] = row_text(lease->execute("SELECT datetime('now')", Limits{}))[0];
  });
  for (auto& s : seen) EXPECT_EQ(s, "2012-12-21 12:00:00");
}

TEST(DuckDbClock, ClockFunctionsReturnThePinnedInstantAndComeBackAfter) {
  DuckDb duck;
  auto conn = duck.connect();
  const char* sql =
      "SELECT epoch(now())::BIGINT, epoch(CURRENT_TIMESTAMP)::BIGINT, epoch(get_current_timestamp())::BIGINT, "
      "epoch(transaction_timestamp())::BIGINT, CAST(current_date AS VARCHAR), CAST(today() AS VARCHAR), "
      "year(current_date), CAST(typeof(now()) AS VARCHAR), CAST(typeof(current_date) AS VARCHAR), "
      "CAST(typeof(CURRENT_TIME) AS VARCHAR), CAST(typeof(localtimestamp) AS VARCHAR)";
  {
    clk::ClockScope pin("2001-02-03T12:00:00Z", "--now");  // noon UTC: the same date in every usual time zone
    ExecResult r = conn->execute(sql, Limits{});
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(row_text(r), (std::vector<std::string>{"981201600", "981201600", "981201600", "981201600", "2001-02-03",
                                                     "2001-02-03", "2001", "TIMESTAMP WITH TIME ZONE", "DATE",
                                                     "TIME WITH TIME ZONE", "TIMESTAMP"}));
    clk::ClockScope other("2030-01-01T12:00:00Z", "--now");  // another pin on the same connection
    EXPECT_EQ(row_text(conn->execute("SELECT epoch(now())::BIGINT", Limits{}))[0], "1893499200");
  }
  ExecResult r = conn->execute("SELECT epoch(now())::BIGINT", Limits{});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(static_cast<double>(r.table.rows[0][0].i), static_cast<double>(clk::now() / 1000), 60.0);
}
