// Issue 31, item 4: no bound changes an official number. RESDSQL-base's published answer to Spider dev
// question 463 (wta_1, a 29 M-row join grouped and ordered) sorts about 1 GB inside SQLite; the
// 512 MiB statement memory cap graded it too_large, where both official scripts complete it and score
// it a match. It now spills past the cap into a private, bounded folder (engine/sqlite_spill.hpp).
// The fixture is the SQL line and the gold line (tests/fixtures/spider/heavy_prediction, SOURCE.json),
// the database the shared one, and the expected stdout what the official scripts printed on them.
// Optionally ($SQLGRADE_PREDS_EXTERNAL): the whole published prediction files listed in its
// expected/MANIFEST.json, against the official scripts' stdout stored beside them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "safety_child.hpp"
#include "sqlgrade/core/memory.hpp"
#include "test_support.hpp"

namespace {

using namespace sqlgrade::test;
const std::string kFixture = std::string(SQLGRADE_FIXTURES) + "/spider/heavy_prediction";

// The first line where `got` and `want` differ, for the failure message.
std::string first_difference(const std::string& got, const std::string& want) {
  size_t pos = 0;
  while (pos < got.size() && pos < want.size() && got[pos] == want[pos]) ++pos;
  size_t ls = want.rfind('\n', pos == 0 ? 0 : pos - 1);
  ls = ls == std::string::npos ? 0 : ls + 1;
  return "\n want: " + want.substr(ls, want.find('\n', ls) - ls) + "\n  got: " + got.substr(ls, got.find('\n', ls) - ls);
}

TEST(SpiderHeavyPrediction, GradedAsTheOfficialScriptsGradeIt) {
  SQLGRADE_REQUIRE_DATA("spider/database/wta_1/wta_1.sqlite");
  TempDir t;
  for (const std::string compat : {"test-suite", "spider"}) {
    const std::string want = slurp(kFixture + "/" + (compat == "spider" ? "spider_all.txt" : "testsuite_all.txt"));
    ASSERT_FALSE(want.empty());
    fs::create_directories(t / compat);
    Report r = in_child([&](Report& out) {
      setenv("TMPDIR", (t / compat).c_str(), 1);
      setenv("SQLITE_TMPDIR", (t / compat).c_str(), 1);
      // The official scripts have no working timeout; 30 s (the default) is plenty on an idle machine
      // (measured in docs/safety.md), 900 s keeps a loaded one from turning this into a timeout.
      auto res = run_cli({"spider", "--gold", kFixture + "/gold.sql", "--pred", kFixture + "/pred.sql", "--db",
                          DATA + "/spider/database", "--table", DATA + "/spider/tables.json", "--etype", "all",
                          "--compat", compat, "--quiet", "--timeout", "900"});
      out["rc"] = res.rc;
      out["same"] = res.out == want;
      out["peak"] = static_cast<double>(sqlgrade::children_peak_rss_bytes()) / (1 << 20);
      if (res.out != want) std::fprintf(stderr, "%s: %s\n", compat.c_str(), first_difference(res.out, want).c_str());
    });
    ASSERT_EQ(r["exit"], 0);
    EXPECT_EQ(r["rc"], 0) << compat;
    EXPECT_EQ(r["same"], 1) << compat << ": stdout differs from the official script's";
    // The statement's memory inside SQLite stays within its 512 MiB cap; the rest spilled to disk.
    EXPECT_LT(r["peak"], 512 + 160) << compat << ": peak RSS, MiB";
    size_t left = 0;
    for ([[maybe_unused]] auto& e : fs::recursive_directory_iterator(t / compat)) ++left;
    EXPECT_EQ(left, 0u) << compat << ": the spill folder is removed with the statement";
    std::printf("[measure] question 463, --compat %s: peak RSS %.0f MiB\n", compat.c_str(), r["peak"]);
  }
}

// $SQLGRADE_PREDS_EXTERNAL/expected/MANIFEST.json: [{"pred": path under $SQLGRADE_PREDS_EXTERNAL, "compat":
// "spider"|"test-suite", "output": path of the official stdout}]; each graded with --etype all.
TEST(SpiderHeavyPrediction, PublishedSystemsAsTheOfficialScripts) {
  const char* ext = std::getenv("SQLGRADE_PREDS_EXTERNAL");
  if (!ext || !*ext || !fs::exists(fs::path(ext) / "expected" / "MANIFEST.json"))
    GTEST_SKIP() << "SQLGRADE_PREDS_EXTERNAL (published prediction files and the official outputs) is not set";
  SQLGRADE_REQUIRE_DATA("spider/dev_gold.sql");
  auto cases = nlohmann::json::parse(slurp(fs::path(ext) / "expected" / "MANIFEST.json"));
  ASSERT_FALSE(cases.empty());
  for (const auto& c : cases) {
    const std::string pred = (fs::path(ext) / c["pred"].get<std::string>()).string();
    auto res = run_cli({"spider", "--gold", DATA + "/spider/dev_gold.sql", "--pred", pred, "--db", DATA + "/spider/database",
                        "--table", DATA + "/spider/tables.json", "--etype", "all", "--compat", c["compat"].get<std::string>(),
                        "--quiet", "--timeout", "900"});
    EXPECT_EQ(res.rc, 0) << pred << ": " << res.err;
    const std::string want = slurp(fs::path(ext) / "expected" / c["output"].get<std::string>());
    EXPECT_FALSE(want.empty()) << c["output"];
    EXPECT_TRUE(res.out == want) << pred << " --compat " << c["compat"] << first_difference(res.out, want);
  }
}

}  // namespace
