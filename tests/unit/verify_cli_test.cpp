// `sqlgrade verify`, `--verify` and `sqlgrade audit` from the command line: outputs, exit codes,
// the official output unchanged, bad input as one line with exit code 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "verify_fixtures.hpp"

using namespace sqlgrade::test;

namespace {

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST(VerifyCli, VerifySpiderReportsVerifiedExAndWritesCounterexamples) {
  SpiderFiles f;
  TempDir out;
  auto r = run_cli({"verify", "spider", "--gold", f.gold, "--pred", f.pred, "--db", f.db, "--verify-candidates", "150",
                    "--counterexamples", (out / "cex").string(), "--json", (out / "v.json").string(), "--no-progress"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("EX            1.000 (3/3)"), std::string::npos) << r.out;  // gold 4 fails: left out
  EXPECT_NE(r.out.find("verified EX   0.667 (2/3)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refuted ids   0"), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(slurp(out / "v.json"));
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["refuted"], 1);
  std::string file = j[0]["instances"][0]["counterexample_file"];
  EXPECT_TRUE(fs::exists(file));
  EXPECT_TRUE(fs::exists(fs::path(file).replace_extension(".json")));
}

TEST(VerifyCli, VerifyFlagKeepsTheOfficialOutputByteForByte) {
  SpiderFiles f;
  auto plain = run_cli(f.spider_args());
  auto args = f.spider_args();
  args.insert(args.end(), {"--verify", "--verify-candidates", "60", "--no-progress"});
  auto with = run_cli(args);
  ASSERT_EQ(plain.rc, 0);
  ASSERT_EQ(with.rc, 0) << with.err;
  ASSERT_GT(with.out.size(), plain.out.size());
  EXPECT_EQ(with.out.substr(0, plain.out.size()), plain.out);
  EXPECT_NE(with.out.find("verified EX", plain.out.size()), std::string::npos);
}

TEST(VerifyCli, BadInputIsOneLineAndExitCodeTwo) {
  SpiderFiles f;
  auto bad_budget = run_cli({"verify", "spider", "--gold", f.gold, "--pred", f.pred, "--db", f.db, "--verify-budget", "-1"});
  EXPECT_EQ(bad_budget.rc, 2);
  EXPECT_EQ(lines(bad_budget.err), 1) << bad_budget.err;
  EXPECT_NE(bad_budget.err.find("--verify-budget"), std::string::npos);
  auto missing = run_cli({"verify", "spider", "--gold", f.gold + ".nope", "--pred", f.pred, "--db", f.db});
  EXPECT_EQ(missing.rc, 2);
  EXPECT_EQ(lines(missing.err), 1) << missing.err;
  auto no_args = run_cli({"verify", "bird"});
  EXPECT_EQ(no_args.rc, 2);
  EXPECT_EQ(lines(no_args.err), 1) << no_args.err;
  auto bad_metric = run_cli({"bird", "--predicted_sql_path", f.pred, "--ground_truth_path", f.gold, "--db_root_path", f.db,
                             "--metric", "soft-f1", "--verify"});
  EXPECT_EQ(bad_metric.rc, 2);
  EXPECT_EQ(lines(bad_metric.err), 1) << bad_metric.err;
  auto args = f.spider_args();
  args.insert(args.end(), {"--compat", "spider", "--verify"});
  auto bad_compat = run_cli(args);
  EXPECT_EQ(bad_compat.rc, 2);
  EXPECT_EQ(bad_compat.out, "");  // refused before anything is graded or printed
  EXPECT_EQ(lines(bad_compat.err), 1) << bad_compat.err;
}

TEST(VerifyCli, AuditFindsFailingAndNondeterministicGolds) {
  SpiderFiles f;
  TempDir out;
  auto r = run_cli({"audit", "--benchmark", "spider", "--gold", f.gold, "--db", f.db, "--pred", f.pred,
                    "--json", (out / "a.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(out / "a.json"));
  EXPECT_EQ(j["nominal"], 4);
  EXPECT_EQ(j["scoreable"], 3);
  std::map<std::string, std::string> kinds;
  for (auto& x : j["findings"]) kinds[x["id"]] = x["kind"];
  EXPECT_EQ(kinds["3"], "gold_fails");
  EXPECT_EQ(kinds["2"], "nondeterministic");  // two items tie on price 7.0 at LIMIT 1
  EXPECT_EQ(kinds.count("0"), 0u);
  EXPECT_NE(r.out.find("scored 1"), std::string::npos) << r.out;  // the prediction graded against gold 2
  auto bad = run_cli({"audit", "--benchmark", "nope"});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
}

TEST(VerifyCli, Spider2SqlModeSearchesMatchesThatHaveAPublicGoldSql) {
  TempDir d;
  make_sqlite(d / "databases/shop.sqlite",
              std::string(kShopSchemaSql) + "INSERT INTO shop VALUES (1,'Paris'),(2,'Lyon');"
                                            "INSERT INTO item VALUES (1,'pen',2.5,1);");
  spit(d / "spider2-lite.jsonl", "{\"instance_id\": \"local001\", \"db\": \"shop\"}\n{\"instance_id\": \"local002\", \"db\": \"shop\"}\n");
  spit(d / "gold/spider2lite_eval.jsonl",
       "{\"instance_id\": \"local001\", \"condition_cols\": [], \"ignore_order\": true, \"toks\": \"1\"}\n"
       "{\"instance_id\": \"local002\", \"condition_cols\": [], \"ignore_order\": true, \"toks\": \"1\"}\n");
  spit(d / "gold/exec_result/local001.csv", "city\nParis\nLyon\n");
  spit(d / "gold/exec_result/local002.csv", "n\n2\n");
  spit(d / "gold/sql/local001.sql", "SELECT DISTINCT city FROM shop");  // local002 has no public gold SQL
  spit(d / "pred/local001.sql", "SELECT city FROM shop");
  spit(d / "pred/local002.sql", "SELECT count(*) FROM shop");
  auto plain = run_cli({"spider2", "--mode", "sql", "--result_dir", (d / "pred").string(), "--gold_dir", (d / "gold").string(),
                        "--no-progress"});
  auto with = run_cli({"spider2", "--mode", "sql", "--result_dir", (d / "pred").string(), "--gold_dir", (d / "gold").string(),
                       "--no-progress", "--verify", "--verify-candidates", "150"});
  ASSERT_EQ(with.rc, 0) << with.err;
  EXPECT_EQ(with.out.substr(0, plain.out.size()), plain.out);
  EXPECT_NE(with.out.find("EX            1.000 (2/2)"), std::string::npos) << with.out;
  EXPECT_NE(with.out.find("verified EX   0.500 (1/2)"), std::string::npos) << with.out;  // two shops in one city
  EXPECT_NE(with.out.find("not searched  1 matches"), std::string::npos) << with.out;  // local002: no gold SQL
  auto exec_mode = run_cli({"spider2", "--mode", "exec_result", "--result_dir", (d / "pred").string(), "--gold_dir",
                            (d / "gold").string(), "--verify"});
  EXPECT_EQ(exec_mode.rc, 2);
  EXPECT_EQ(lines(exec_mode.err), 1) << exec_mode.err;
}
