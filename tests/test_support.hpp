#pragma once
// Shared helpers for sqlgrade's tests: benchmark data location (SQLGRADE_DATA), temporary folders,
// SQLite fixtures built from .sql scripts, running the CLI, hashing files. The data and the CLI are
// there only in slow-tier binaries (tests/CMakeLists.txt defines SQLGRADE_DEFAULT_DATA and
// SQLGRADE_CLI for them alone): a fast test that reaches for either does not compile.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sqlgrade/core/memory.hpp"

namespace sqlgrade::test {

namespace fs = std::filesystem;

// Opens (creating) a database file for writing a fixture. sqlgrade's own VFS, the process's default,
// cannot write a file (engine/sqlite_runtime.hpp): fixtures name the system's VFS.
inline int open_fixture_db(const std::string& path, sqlite3** h) {
  return sqlite3_open_v2(path.c_str(), h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "unix");
}

#ifdef SQLGRADE_DEFAULT_DATA  // slow-tier binaries only (tests/CMakeLists.txt): a fast test reads no real data
// Root of the shared benchmark data, or "" when it is absent: SQLGRADE_DATA, else the build's default
// (../shared/data beside the checkout).
inline std::string data_dir() {
  const char* env = std::getenv("SQLGRADE_DATA");
  std::string d = env && *env ? env : SQLGRADE_DEFAULT_DATA;
  std::error_code ec;
  if (!fs::is_directory(d, ec)) return "";
  return fs::canonical(d, ec).string();
}

// Whether a test that needs the data may skip when it is absent. Not when SQLGRADE_DATA is set
// (scripts/test.sh and .ci/run set it when the data is there): a data test that cannot find its files
// then fails, never skips in silence. SQLGRADE_REQUIRE_DATA=0 allows the skip again (a partial copy of
// the data); SQLGRADE_REQUIRE_DATA=1 requires the data even with SQLGRADE_DATA unset. The same rule for
// the Python tests: tests/tools/data_rule.py.
inline bool data_required() {
  const char* req = std::getenv("SQLGRADE_REQUIRE_DATA");
  if (req && *req) return std::string(req) != "0";
  const char* env = std::getenv("SQLGRADE_DATA");
  return env && *env;
}

// The first of `subs` (paths relative to the data root) that does not exist, or "" when all do.
inline std::string missing_data(const std::string& root, std::initializer_list<const char*> subs) {
  for (const char* sub : subs)
    if (root.empty() || !fs::exists(fs::path(root) / sub)) return sub;
  return "";
}

// At the top of a test that needs the shared data: `SQLGRADE_REQUIRE_DATA("spider/dev.json", ...)`
// declares `DATA` (the data root). Every path given must exist; otherwise the test skips with a message,
// or fails when the data is required (data_required above). Every test that reads the real data goes
// through here: tests/tools/data_rule_check.py checks the rule.
#define SQLGRADE_REQUIRE_DATA(...)                                                                      \
  std::string DATA = ::sqlgrade::test::data_dir();                                                      \
  if (const std::string sqlgrade_missing_ = ::sqlgrade::test::missing_data(DATA, {__VA_ARGS__});        \
      !sqlgrade_missing_.empty()) {                                                                     \
    if (::sqlgrade::test::data_required())                                                              \
      GTEST_FAIL() << "benchmark data missing: " << (DATA.empty() ? "<no data folder>" : DATA) << "/"   \
                   << sqlgrade_missing_                                                                 \
                   << " (SQLGRADE_DATA is set, so a data test may not skip; SQLGRADE_REQUIRE_DATA=0 allows it)"; \
    GTEST_SKIP() << "benchmark data not found (set SQLGRADE_DATA; looked for " << sqlgrade_missing_ << ")"; \
  }                                                                                                     \
  static_assert(true)
#endif

inline std::string fixtures() { return SQLGRADE_FIXTURES; }

// A fresh temporary folder removed at destruction.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("sqlgrade-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
  fs::path operator/(const std::string& p) const { return path / p; }
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const fs::path& p, const std::string& content) {
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << content;
}

// A small Spider-style database "shop" (item → shop) shared by the Spider fixtures: its schema and
// its tables.json entry; each test inserts its own rows.
inline constexpr const char* kShopSchemaSql =
    "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL, shop_id INTEGER);"
    "CREATE TABLE shop(shop_id INTEGER PRIMARY KEY, city TEXT);";
inline constexpr const char* kShopTablesJson =
    R"([{"db_id":"shop","table_names_original":["item","shop"],"table_names":["item","shop"],
      "column_names_original":[[-1,"*"],[0,"id"],[0,"name"],[0,"price"],[0,"shop_id"],[1,"shop_id"],[1,"city"]],
      "column_names":[[-1,"*"],[0,"id"],[0,"name"],[0,"price"],[0,"shop id"],[1,"shop id"],[1,"city"]],
      "column_types":["text","number","text","number","number","number","text"],
      "primary_keys":[1,5],"foreign_keys":[[4,5]]}])";

// Build a SQLite database file from a SQL script (test fixtures are .sql, never binary files).
inline void make_sqlite(const fs::path& db, const std::string& script) {
  std::error_code ec;
  fs::remove(db, ec);
  if (db.has_parent_path()) fs::create_directories(db.parent_path());
  sqlite3* h = nullptr;
  ASSERT_EQ(open_fixture_db(db.string(), &h), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(h, script.c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(h);
  ASSERT_EQ(rc, SQLITE_OK) << msg;
}

// The "shop" Spider database with two shops and three items (dir/db/shop/shop.sqlite) and its
// tables.json (dir/tables.json): the fixture of the small Spider CLI tests.
inline void make_shop_spider(const fs::path& dir) {
  make_sqlite(dir / "db" / "shop" / "shop.sqlite",
              std::string(kShopSchemaSql) + "INSERT INTO shop VALUES (1,'Oslo'),(2,'Rome');"
                                            "INSERT INTO item VALUES (1,'pen',1.5,1),(2,'cup',3.0,2),(3,'hat',7.25,1);");
  spit(dir / "tables.json", kShopTablesJson);
}

// make_shop_spider in a temporary folder, with a gold file of `gold_text` (SQL<TAB>shop lines): the
// paths the small Spider CLI tests pass, and file() to write a prediction beside them.
struct ShopSpiderFx {
  TempDir dir;
  std::string db, tables, gold;
  explicit ShopSpiderFx(const std::string& gold_text) {
    make_shop_spider(dir.path);
    db = (dir / "db").string();
    tables = (dir / "tables.json").string();
    gold = (dir / "gold.sql").string();
    spit(gold, gold_text);
  }
  std::string file(const std::string& name, const std::string& text) {
    spit(dir / name, text);
    return (dir / name).string();
  }
};

// A Spider fixture folder: dir/db/shop/shop.sqlite with the "shop" schema and `rows` (INSERT
// statements), dir/tables.json, and each of `files` (name → content) written into dir.
inline void make_shop_fixture(const fs::path& dir, const std::string& rows,
                              const std::vector<std::pair<std::string, std::string>>& files) {
  make_sqlite(dir / "db" / "shop" / "shop.sqlite", std::string(kShopSchemaSql) + rows);
  spit(dir / "tables.json", kShopTablesJson);
  for (const auto& [name, content] : files) spit(dir / name, content);
}

// FNV-1a 64 of a file's bytes (to prove a database was not modified).
inline std::string file_hash(const fs::path& p) {
  std::string s = slurp(p);
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return std::to_string(h) + ":" + std::to_string(s.size());
}

struct CliResult {
  int rc = -1;
  std::string out, err;
};

inline std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) {
    if (c == '\'') o += "'\\''";
    else o += c;
  }
  return o + "'";
}

#ifdef SQLGRADE_CLI  // slow-tier binaries only: a fast test starts no process
// Run the sqlgrade CLI with arguments (each one shell-quoted), capturing stdout and stderr.
inline CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_text = "",
                         const std::string& cwd = "") {
  TempDir t;
  std::string cmd;
  if (!cwd.empty()) cmd += "cd " + shell_quote(cwd) + " && ";
  cmd += shell_quote(SQLGRADE_CLI);
  for (auto& a : args) cmd += " " + shell_quote(a);
  spit(t / "in", stdin_text);
  cmd += " < " + shell_quote((t / "in").string()) + " > " + shell_quote((t / "out").string()) + " 2> " +
         shell_quote((t / "err").string());
  int st = std::system(cmd.c_str());
  CliResult r;
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(t / "out");
  r.err = slurp(t / "err");
  return r;
}
#endif

// Helpers several test files share, defined once: the test binaries compile their files as unity sources
// (tests/CMakeLists.txt), where two file-local copies of one name collide.
inline constexpr size_t kMiB = size_t(1) << 20;
// A query that runs until a deadline or a cap stops it.
inline constexpr const char* kRunaway =
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c";
// Seconds since t0 (steady clock).
inline double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
// The peak resident memory of the finished child processes, MiB.
inline size_t children_peak_mib() { return children_peak_rss_bytes() >> 20; }
// a followed by b.
inline std::vector<std::string> plus(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace sqlgrade::test
