// engine/duckdb_pool.hpp: workers share at most one connection each, leases come back to the pool,
// and every connection sees the database's tables.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/engine/duckdb_pool.hpp"

using namespace sqlgrade;

TEST(DuckPool, ConnectionsAreReusedAcrossLeases) {
  DuckDb db;
  db.connect()->run("CREATE TABLE t AS SELECT range AS x FROM range(10)");
  std::atomic<int> opened{0};
  DuckPool pool([&] {
    ++opened;
    return db.connect();
  });
  std::atomic<int> bad{0};
  parallel_for(200, 4, [&](size_t i) {
    auto c = pool.lease();
    ExecResult r = c->execute("SELECT count(*) + " + std::to_string(i) + " FROM t", Limits{});
    if (!r.ok() || r.table.rows.size() != 1 || r.table.rows[0][0].i != 10 + static_cast<long long>(i)) ++bad;
  });
  EXPECT_EQ(bad, 0);
  EXPECT_GE(opened, 1);
  EXPECT_LE(opened, 4);  // at most one per worker
  EXPECT_EQ(pool.idle(), static_cast<size_t>(opened.load()));
  { auto a = pool.lease(); auto b = pool.lease(); EXPECT_EQ(pool.idle(), static_cast<size_t>(opened.load()) - 2); }
  EXPECT_EQ(pool.idle(), static_cast<size_t>(opened.load()));
}
