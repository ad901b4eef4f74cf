// sqlite_builtins: the cost of sqlgrade's deadline-aware LIKE, GLOB, instr, replace and trim
// (engine/sqlite_guarded.cpp) against SQLite's built-ins, on 2 million rows each. Each query runs on a
// SqliteDb (replacements) and on a plain in-memory connection (built-ins); best of REPEATS runs.
//   usage: sqlite_builtins [REPEATS]     (build with -DSQLGRADE_BENCH=ON)
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/py/repr.hpp"

int main(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  int repeats = argc > 1 ? std::atoi(argv[1]) : 3;
  const std::string rows = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000000) ";
  const std::string qs[] = {
      rows + "SELECT count(*) FROM n WHERE 'name' || i LIKE '%99%'",
      rows + "SELECT count(*) FROM n WHERE 'Name' || i LIKE 'name1%'",
      rows + "SELECT count(*) FROM n WHERE 'name' || i GLOB '*9?9*'",
      rows + "SELECT sum(instr('some text ' || i, '99')) FROM n",
      rows + "SELECT sum(length(replace('some text ' || i, 'e', 'E'))) FROM n",
      rows + "SELECT sum(length(trim('  x ' || i || '  '))) FROM n",
      rows + "SELECT sum(length(ltrim('xyx' || i, 'xy'))) FROM n",
      rows + "SELECT count(*) FROM n",  // the row generator alone
  };
  std::filesystem::path db = std::filesystem::temp_directory_path() / "sqlgrade-bench-builtins.sqlite";
  std::filesystem::remove(db);
  sqlite3* w = nullptr;
  sqlite3_open_v2(db.c_str(), &w, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "unix");  // sqlgrade's default VFS writes no file
  sqlite3_exec(w, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
  sqlite3_close(w);
  sqlgrade::SqliteDb guarded(db.string());
  sqlite3* plain = nullptr;
  sqlite3_open(":memory:", &plain);
  std::printf("%-10s %-10s %-12s query\n", "guarded s", "built-in s", "same answer");
  for (const auto& q : qs) {
    double best_g = 1e9, best_p = 1e9;
    std::string ag, ap;
    for (int r = 0; r < repeats; ++r) {
      auto t0 = Clock::now();
      auto res = guarded.execute(q, sqlgrade::Limits{600, 10, 1u << 30});
      best_g = std::min(best_g, std::chrono::duration<double>(Clock::now() - t0).count());
      ag = res.ok() ? sqlgrade::py::text(res.table.rows.at(0).at(0)) : res.error;
      t0 = Clock::now();
      sqlite3_stmt* st = nullptr;
      sqlite3_prepare_v2(plain, q.c_str(), -1, &st, nullptr);
      if (sqlite3_step(st) == SQLITE_ROW) ap = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      sqlite3_finalize(st);
      best_p = std::min(best_p, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    std::printf("%-10.3f %-10.3f %-12s %s\n", best_g, best_p, ag == ap ? "yes" : "NO", q.substr(rows.size()).c_str());
  }
  sqlite3_close(plain);
  std::filesystem::remove(db);
}
