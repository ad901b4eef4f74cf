// Issue 7: regression tests for the problems the adversarial corpus and the fuzzers found.
// Each test names the input that failed and what went wrong before the fix.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>

#include "safety_corpus.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/sql/statements.hpp"
#include "sqlgrade/util/memory.hpp"
#include "test_support.hpp"

namespace {

using namespace sqlgrade;
using namespace sqlgrade::test;

double seconds_of(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Before: SQLite's default SQLITE_LIMIT_LENGTH (1e9 bytes) let one VM step allocate ~1 GB
// (randomblob, zeroblob+hex, printf width) and a string-doubling recursive CTE reach 3 GB of RSS
// before the deadline could act. Now every value is capped at 64 MiB: "string or blob too big".
TEST(SafetyRegression, SqliteHugeValuesRefusedWithoutAllocating) {
  TempDir t;
  make_sqlite(t / "a.sqlite", adversarial_db_script());
  SqliteDb db((t / "a.sqlite").string());
  size_t before = peak_rss_bytes();
  for (const char* q : {"SELECT randomblob(1000000000)", "SELECT length(hex(zeroblob(500000000)))",
                        "WITH RECURSIVE r(s) AS (SELECT 'xxxxxxxx' UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r"}) {
    ExecResult r;
    double el = seconds_of([&] { r = db.execute(q, Limits{10, 1'000'000, 512u << 20}); });
    EXPECT_EQ(r.status, ExecStatus::Error) << q;
    EXPECT_NE(r.error.find("too big"), std::string::npos) << q << ": " << r.error;
    EXPECT_LT(el, 5) << q;
  }
  // printf's %c repetition stops at the limit (no error, at most 64 MiB).
  auto pc = db.execute("SELECT length(printf('%.*c', 70000000, 'x'))", Limits{});
  ASSERT_TRUE(pc.ok()) << pc.error;
  const Value& len = pc.table.rows.at(0).at(0);  // NULL: printf gave up at the limit
  if (!len.is_null()) {
    EXPECT_LE(std::stoll(len.to_string()), 64ll << 20);
  }
  // At most a few 64 MiB values were ever alive.
  EXPECT_LT(peak_rss_bytes(), before + (asan_scaled_mib(400) << 20)) << "peak RSS grew by " << ((peak_rss_bytes() - before) >> 20) << " MiB";
  // Values below the cap still work.
  auto ok = db.execute("SELECT length(randomblob(1000000))", Limits{});
  ASSERT_TRUE(ok.ok()) << ok.error;
  EXPECT_EQ(ok.table.rows[0][0].to_string(), "1000000");
}

// Found by fuzz_extract_sql: a UDA query file whose comment reads "-- Query 44444444444444: ..." made
// split_sql_statements throw std::out_of_range ("stoi"), which the CLI reported as
// "sqlgrade: error: stoi" without naming the file. The label keeps its text; the number is absent.
TEST(SafetyRegression, StatementLabelNumberOverflow) {
  std::string text = "-- Query 4444444444444444uery 1:lect (t)\nSELECT a FROM t;\n-- Query 99999999999: big (t)\nSELECT b FROM t;\n"
                     "-- Query 7: ok (t)\nSELECT c FROM t;\n";
  std::vector<SqlStatement> st;
  ASSERT_NO_THROW(st = split_sql_statements(text, "q.sql"));
  ASSERT_EQ(st.size(), 3u);
  EXPECT_FALSE(st[1].label_number.has_value());
  EXPECT_EQ(st[1].label, "Query 99999999999: big (t)");
  ASSERT_TRUE(st[2].label_number.has_value());
  EXPECT_EQ(*st[2].label_number, 7);
}

}  // namespace
