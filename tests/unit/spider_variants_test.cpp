// Spider-DK, Spider-Syn and Spider-Realistic graded with `sqlgrade spider` (issue 22 item 5): with
// the gold as the prediction, stdout equals the official test-suite evaluation.py's stdout stored in
// shared/data/spider_variants/<variant>/expected/ (--etype match and --etype exec). Spider-DK's gold
// item 77 lacks a comma and does not execute: the official exec run aborts on its "gold must execute"
// assertion (empty stdout); sqlgrade reports the item and finishes the run, as for Spider dev.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using sqlgrade::test::run_cli;
using sqlgrade::test::slurp;
using sqlgrade::test::TempDir;

// Spider-DK's --db folder: the Spider dev databases plus DK's three modified ones (as DK's README
// says: merge the two database folders), as symbolic links in a temporary folder.
void merge_dk_databases(const std::string& data, const fs::path& into) {
  fs::create_directories(into);
  for (const char* root : {"spider/database", "spider_variants/dk/database"})
    for (const auto& e : fs::directory_iterator(data + "/" + root)) {
      fs::path link = into / e.path().filename();
      std::error_code ec;
      fs::remove(link, ec);
      fs::create_directory_symlink(e.path(), link);
    }
}

// `sqlgrade spider` on a variant with its gold as the prediction (the official runs' command line).
sqlgrade::test::CliResult grade(const std::string& data, const std::string& variant, const std::string& db,
                                const std::string& tables, const std::string& etype, const std::string& json = "") {
  std::string gold = data + "/spider_variants/" + variant + "/gold.sql";
  std::vector<std::string> args{"spider", "--gold", gold, "--pred", gold, "--db", db, "--table", tables,
                                "--etype", etype, "--compat", "test-suite", "--no-progress"};
  if (!json.empty()) args.insert(args.end(), {"--json", json});
  return run_cli(args);
}

void expect_official(const std::string& data, const std::string& variant, const std::string& db,
                     const std::string& tables, const std::string& etype) {
  auto r = grade(data, variant, db, tables, etype);
  ASSERT_EQ(r.rc, 0) << variant << " " << etype << ": " << r.err;
  std::string want =
      slurp(data + "/spider_variants/" + variant + "/expected/testsuite_" + etype + "_gold_as_pred.stdout.txt");
  ASSERT_FALSE(want.empty()) << variant << " " << etype;
  EXPECT_EQ(r.out, want) << variant << " --etype " << etype;
}

}  // namespace

TEST(SpiderVariants, SynMatchesTheOfficialScript) {
  SQLGRADE_REQUIRE_DATA("spider_variants/syn/expected");
  for (const char* etype : {"match", "exec"})
    expect_official(DATA, "syn", DATA + "/spider/database", DATA + "/spider/tables.json", etype);
}

TEST(SpiderVariants, RealisticMatchesTheOfficialScript) {
  SQLGRADE_REQUIRE_DATA("spider_variants/realistic/expected");
  for (const char* etype : {"match", "exec"})
    expect_official(DATA, "realistic", DATA + "/spider/database", DATA + "/spider/tables.json", etype);
}

TEST(SpiderVariants, DkMatchMatchesTheOfficialScript) {
  SQLGRADE_REQUIRE_DATA("spider_variants/dk/expected");
  TempDir tmp;
  merge_dk_databases(DATA, tmp / "db");
  expect_official(DATA, "dk", (tmp / "db").string(), DATA + "/spider_variants/dk/tables.json", "match");
}

TEST(SpiderVariants, DkExecReportsGoldItem77AndFinishes) {
  SQLGRADE_REQUIRE_DATA("spider_variants/dk/expected");
  // The official run aborts: empty stdout, the assertion on stderr.
  ASSERT_EQ(slurp(DATA + "/spider_variants/dk/expected/testsuite_exec_gold_as_pred.stdout.txt"), "");
  ASSERT_NE(slurp(DATA + "/spider_variants/dk/expected/testsuite_exec_gold_as_pred.stderr.txt").find("AssertionError: gold query"),
            std::string::npos);
  TempDir tmp;
  merge_dk_databases(DATA, tmp / "db");
  std::string rec = (tmp / "dk.json").string();
  auto r = grade(DATA, "dk", (tmp / "db").string(), DATA + "/spider_variants/dk/tables.json", "exec", rec);
  ASSERT_EQ(r.rc, 0) << r.err;
  // One warning, naming the file and line of the gold that fails.
  EXPECT_NE(r.err.find("dk/gold.sql:77: gold query failed on its database"), std::string::npos) << r.err;
  auto j = nlohmann::json::parse(slurp(rec));
  ASSERT_EQ(j["warnings"].size(), 1u) << j["warnings"].dump();
  const auto& inst = j["instances"];
  ASSERT_EQ(inst.size(), 535u);
  // Every other item is its own gold and scores 1; item 77 scores 0 and still counts (534 / 535).
  for (size_t i = 0; i < inst.size(); ++i) {
    bool bad = i == 76;
    EXPECT_EQ(inst[i]["scores"]["exec"].get<double>(), bad ? 0.0 : 1.0) << "item " << i + 1;
    EXPECT_EQ(inst[i]["detail"].value("gold_exec_error", false), bad) << "item " << i + 1;
  }
  EXPECT_NE(r.out.find("count                110                  246                  74                   105                  535"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("execution            1.000                0.996                1.000                1.000                0.998"),
            std::string::npos)
      << r.out;
}
