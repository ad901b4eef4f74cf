// Issue 7: regression tests for the problems the adversarial corpus and the fuzzers found.
// Each test names the input that failed and what went wrong before the fix.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <random>
#include <regex>

#include "safety_corpus.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/uda/statements.hpp"
#include "sqlgrade/core/memory.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/repr.hpp"
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
    EXPECT_LE(std::stoll(py::text(len)), 64ll << 20);
  }
  // At most a few 64 MiB values were ever alive.
  EXPECT_LT(peak_rss_bytes(), before + (asan_scaled_mib(400) << 20)) << "peak RSS grew by " << ((peak_rss_bytes() - before) >> 20) << " MiB";
  // Values below the cap still work.
  auto ok = db.execute("SELECT length(randomblob(1000000))", Limits{});
  ASSERT_TRUE(ok.ok()) << ok.error;
  EXPECT_EQ(py::text(ok.table.rows[0][0]), "1000000");
}

// Found by fuzz_extract_sql: a UDA query file whose comment reads "-- Query 44444444444444: ..." made
// uda::split_sql_statements throw std::out_of_range ("stoi"), which the CLI reported as
// "sqlgrade: error: stoi" without naming the file. The label keeps its text; the number is absent.
TEST(SafetyRegression, StatementLabelNumberOverflow) {
  std::string text = "-- Query 4444444444444444uery 1:lect (t)\nSELECT a FROM t;\n-- Query 99999999999: big (t)\nSELECT b FROM t;\n"
                     "-- Query 7: ok (t)\nSELECT c FROM t;\n";
  std::vector<uda::SqlStatement> st;
  ASSERT_NO_THROW(st = uda::split_sql_statements(text, "q.sql"));
  ASSERT_EQ(st.size(), 3u);
  EXPECT_FALSE(st[1].label_number.has_value());
  EXPECT_EQ(st[1].label, "Query 99999999999: big (t)");
  ASSERT_TRUE(st[2].label_number.has_value());
  EXPECT_EQ(*st[2].label_number, 7);
}

// Issue 12, item 13: the "-- Query N: ..." / "-- Category K: ..." labels were read with std::regex_match,
// whose recursive matcher overflowed the stack (SIGSEGV in `uda prepare/gold/eval`) on a ~50 KB comment
// line. They are matched by hand now, in linear time.
TEST(SafetyRegression, LongCommentLineDoesNotOverflowTheStack) {
  const std::string filler(400000, 'x');
  std::string text = "-- Category 2: " + filler + "\n-- Query 12: " + filler + " (t)\nSELECT a FROM t;\n-- " + filler +
                     "\nSELECT b FROM t;\n";
  std::vector<uda::SqlStatement> st;
  ASSERT_NO_THROW(st = uda::split_sql_statements(text, "q.sql"));
  ASSERT_EQ(st.size(), 2u);
  ASSERT_TRUE(st[0].label_number.has_value());
  EXPECT_EQ(*st[0].label_number, 12);
  EXPECT_EQ(st[0].category, filler);
  EXPECT_EQ(st[0].group, filler);
  EXPECT_FALSE(st[1].label_number.has_value());
  EXPECT_EQ(st[1].comments.at(0), filler);
}

TEST(SafetyRegression, LongCommentLineThroughUdaPrepare) {
  TempDir t;
  fs::copy(fs::path(fixtures()) / "uda" / "Shop", t / "Shop", fs::copy_options::recursive);
  std::string q = slurp(t / "Shop" / "Select" / "select_queries.sql");
  spit(t / "Shop" / "Select" / "select_queries.sql", "-- Query 1: " + std::string(300000, 'y') + "\n" + q);
  auto r = run_cli({"uda", "prepare", "--dataset-dir", (t / "Shop").string(), "--out", (t / "out").string()});
  EXPECT_EQ(r.rc, 0) << r.err.substr(0, 500);
}

// The hand-written label matcher gives what the std::regex patterns it replaced gave (the test may use
// std::regex: its inputs are short and its own).
TEST(SafetyRegression, LabelMatcherAgreesWithTheRegexItReplaced) {
  const std::regex query_re(R"(^\s*Query\s+(\d+)\s*:?\s*(.*)$)", std::regex::icase);
  const std::regex cat_re(R"(^\s*Category\s+\d+\s*:\s*(.*)$)", std::regex::icase);
  const std::vector<std::string> parts = {"Query", "QUERY", "query", "Category", "category", " ", "  ", "\t", "\n",
                                          "\r", "\v", ":", "1", "42", "x", "(t)", "(", "a b", "Q", "uery", "\f"};
  std::mt19937 rng(12);
  int labelled = 0, grouped = 0;
  for (int k = 0; k < 20000; ++k) {
    std::string c;
    int n = 1 + static_cast<int>(rng() % 7);
    for (int j = 0; j < n; ++j) c += parts[rng() % parts.size()];
    if (rng() % 2) c = (rng() % 2 ? "Query " : "Category ") + std::to_string(rng() % 100) + c;
    // As a block comment the text reaches the matcher trimmed; newlines inside it stay.
    auto st = uda::split_sql_statements("/*" + c + "*/\nSELECT 1;", "q.sql");
    ASSERT_EQ(st.size(), 1u);
    const std::string& seen = st[0].comments.at(0);
    std::smatch m;
    std::optional<int> num;
    std::string category, group;
    if (std::regex_match(seen, m, query_re)) {
      std::string d = m[1].str();
      if (d.size() <= 9) num = std::stoi(d);  // larger numbers may not fit an int: no label_number then
      else num.reset();
      std::string rest = m[2].str();
      category = trim(rest.substr(0, rest.find('(')));
      ++labelled;
    } else if (std::regex_match(seen, m, cat_re)) {
      group = trim(m[1].str());
      ++grouped;
    }
    if (num) {
      EXPECT_EQ(st[0].label_number, num) << "[" << seen << "]";
    } else if (category.empty() && group.empty() && st[0].label.empty()) {
      EXPECT_FALSE(st[0].label_number.has_value()) << "[" << seen << "]";
    }
    EXPECT_EQ(st[0].category, category) << "[" << seen << "]";
    EXPECT_EQ(st[0].group, group) << "[" << seen << "]";
  }
  EXPECT_GT(labelled, 1000);
  EXPECT_GT(grouped, 200);
}

// No std::regex on untrusted text anywhere in the sources: the only two uses are gone.
TEST(SafetyRegression, NoStdRegexInSources) {
  for (auto& e : fs::recursive_directory_iterator(fs::path(SQLGRADE_SOURCE_DIR) / "src")) {
    if (!e.is_regular_file()) continue;
    std::string text = slurp(e.path());
    EXPECT_EQ(text.find("std::regex"), std::string::npos) << e.path();
    EXPECT_EQ(text.find("#include <regex>"), std::string::npos) << e.path();
  }
}

}  // namespace
