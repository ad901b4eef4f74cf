// BIRD run records (issue 15 phase 2): shards merged = the whole run (EX and Soft-F1, a repeated
// question_id), several prediction files in one pass = each graded alone; the same on the real
// Mini-Dev and Spider dev data when SQLGRADE_DATA is present.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "runs_benchmarks_support.hpp"
#include "test_support.hpp"

using namespace sqlgrade::test;

namespace {

const std::string kSep = "\\t----- bird -----\\t";

struct BirdFx {
  TempDir t;
  std::string root, gold, diff, pred_a, pred_b;
  BirdFx() {
    root = (t / "db").string();
    make_sqlite(t / "db" / "d1" / "d1.sqlite",
                "CREATE TABLE t(id INTEGER, name TEXT, v REAL);"
                "INSERT INTO t VALUES (1,'a',1.5),(2,'b',2.5),(3,'c',NULL),(4,'d',4.0);");
    gold = (t / "gold.sql").string();
    diff = (t / "q.jsonl").string();
    std::string g, d;
    const char* diffs[] = {"simple", "moderate", "challenging"};
    for (int i = 0; i < 15; ++i) {
      g += "SELECT id, name FROM t WHERE id <= " + std::to_string(i % 5) + "\td1\n";
      // question_id 95 appears twice (as 137/138 do in Mini-Dev): ids 95 and 95#2.
      int qid = i == 9 ? 95 : 100 - i;
      d += "{\"question_id\": " + std::to_string(qid) + ", \"db_id\": \"d1\", \"difficulty\": \"" + diffs[i % 3] + "\"}\n";
    }
    spit(gold, g);
    spit(diff, d);
    auto preds = [&](int variant) {
      std::string p = "{";
      for (int i = 0; i < 15; ++i) {
        std::string sql = (i + variant) % 4 == 0 ? "SELECT id FROM t WHERE id <= " + std::to_string(i % 5)
                          : (i + variant) % 4 == 1 ? "SELECT nope FROM t"
                                                   : "SELECT id, name FROM t WHERE id <= " + std::to_string((i + variant) % 5);
        p += std::string(i ? ", " : "") + "\"" + std::to_string(i) + "\": \"" + sql + kSep + "d1\"";
      }
      return p + "}";
    };
    pred_a = (t / "sys_a.json").string();
    pred_b = (t / "sys_b.json").string();
    spit(pred_a, preds(0));
    spit(pred_b, preds(1));
  }
  std::vector<std::string> base(const std::string& metric) const {
    return {"bird", "--ground_truth_path", gold, "--db_root_path", root, "--diff_json_path", diff,
            "--metric", metric, "--no-progress", "--quiet"};
  }
};


}  // namespace

TEST(RunsBenchmarks, BirdShardsMergeToTheWholeRun) {
  BirdFx f;
  for (std::string metric : {"ex", "soft-f1"})
    for (int n : {2, 4}) {
      auto b = f.base(metric);
      b.insert(b.end(), {"--predicted_sql_path", f.pred_a});
      check_shards(b, n, "bird " + metric + " n=" + std::to_string(n));
    }
}

TEST(RunsBenchmarks, BirdManySystemsInOnePass) {
  BirdFx f;
  for (std::string metric : {"ex", "soft-f1"})
    check_multi(f.base(metric), "--predicted_sql_path", {f.pred_a, f.pred_b}, "bird " + metric);
}

TEST(RunsBenchmarks, BirdRecordIds) {
  BirdFx f;
  auto b = f.base("soft-f1");
  std::string js = (f.t / "r.json").string();
  b.insert(b.end(), {"--predicted_sql_path", f.pred_a, "--json", js});
  CliResult r = run_cli(b);
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(slurp(js));
  EXPECT_EQ(j["primary_metric"], "soft_f1");
  ASSERT_EQ(j["instances"].size(), 15u);
  // Natural id order (docs/comparing-runs.md §1): 86, 87, …, 95, 95#2, 96, …, 100.
  std::vector<std::string> ids;
  for (const auto& in : j["instances"]) ids.push_back(in["id"]);
  EXPECT_EQ(ids.front(), "86");
  EXPECT_EQ(ids.back(), "100");
  auto at = std::find(ids.begin(), ids.end(), "95");
  ASSERT_NE(at, ids.end());
  EXPECT_EQ(*(at + 1), "95#2");
  const json& second = j["instances"][at - ids.begin() + 1];
  EXPECT_EQ(second["detail"]["index"], 9);
  EXPECT_EQ(second["detail"]["question_id"], 95);
  const json& q99 = j["instances"][ids.size() - 2];  // question 99 = index 1: "SELECT nope"
  EXPECT_EQ(q99["id"], "99");
  EXPECT_EQ(q99["failure_reason"].get<std::string>().rfind("pred_error: ", 0), 0u);
  EXPECT_EQ(j["instances"].back()["category"]["difficulty"], "simple");
  EXPECT_TRUE(j["instances"].back()["scores"].contains("ex"));
}

// ---- real data ----------------------------------------------------------------------------------

TEST(RunsBenchmarksData, SpiderDevShardsAndSystems) {
  SQLGRADE_REQUIRE_DATA("spider/dev_gold.sql", "spider/database", "preds/spider_dev");
  const std::string& D = DATA;
  const std::string sp = D + "/spider";
  auto base = [&](const std::string& compat) {
    return std::vector<std::string>{"spider", "--gold", sp + "/dev_gold.sql", "--db", sp + "/database", "--table",
                                    sp + "/tables.json", "--etype", "all", "--compat", compat, "--no-progress", "--quiet"};
  };
  const std::string p = D + "/preds/spider_dev/";
  for (std::string compat : {"spider", "test-suite"}) {
    auto b = base(compat);
    b.insert(b.end(), {"--pred", p + "dail-sql_gpt4/pred.txt"});
    check_shards(b, 4, "spider dev " + compat);
    check_multi(base(compat), "--pred", {p + "c3sql_gpt35/pred.txt", p + "dail-sql_gpt4/pred.txt", p + "resdsql-3b/pred.sql"},
                "spider dev " + compat, {"c3sql_gpt35__pred", "dail-sql_gpt4__pred", "resdsql-3b__pred"});
  }
}

TEST(RunsBenchmarksData, BirdMiniDevShardsAndSystems) {
  SQLGRADE_REQUIRE_DATA("bird/minidev/mini_dev_sqlite_gold.sql", "bird/dev_databases", "preds/bird_minidev");
  const std::string& D = DATA;
  const std::string kg = D + "/preds/bird_minidev/official_baselines_sql_output_kg/";
  for (std::string metric : {"ex", "soft-f1"}) {
    std::vector<std::string> b = {"bird", "--ground_truth_path", D + "/bird/minidev/mini_dev_sqlite_gold.sql",
                                  "--db_root_path", D + "/bird/dev_databases", "--diff_json_path",
                                  D + "/expected/bird/inputs/minidev.mini_dev_sqlite.jsonl", "--metric", metric,
                                  "--no-progress", "--quiet"};
    auto one = b;
    one.insert(one.end(), {"--predicted_sql_path", kg + "predict_mini_dev_gpt-4_sqlite.json"});
    check_shards(one, 3, "bird minidev " + metric);
    check_multi(b, "--predicted_sql_path",
                {kg + "predict_mini_dev_gpt-4_sqlite.json", kg + "predict_mini_dev_gpt-35-turbo_sqlite.json"},
                "bird minidev " + metric);
  }
}

// Issue 22: BIRD records carry the question (and evidence) from the question file, the first rows of
// both results and the --name of each system.
TEST(RunsBenchmarks, BirdNamesQuestionsAndRows) {
  BirdFx f;
  std::string d;
  for (int i = 0; i < 15; ++i)
    d += "{\"question_id\": " + std::to_string(i == 9 ? 95 : 100 - i) + ", \"db_id\": \"d1\", \"difficulty\": \"simple\", " +
         "\"question\": \"How many rows up to " + std::to_string(i % 5) + "?\", \"evidence\": \"" + (i ? "" : "ids count") + "\"}\n";
  spit(f.diff, d);
  auto b = f.base("ex");
  b.insert(b.end(), {"--predicted_sql_path", f.pred_a, "--name", "A", "--predicted_sql_path", f.pred_b, "--name", "B",
                     "--json-dir", (f.t / "recs").string()});
  CliResult r = run_cli(b);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("==> A (" + f.pred_a + ") <==\n"), std::string::npos) << r.out;
  json a = json::parse(slurp(f.t / "recs" / "A.json"));
  EXPECT_EQ(a["system"], "A");
  for (const auto& in : a["instances"]) {
    if (in["id"] != "100") continue;  // gold index 0: ids <= 0 → no rows; the evidence follows the question
    EXPECT_EQ(in["question"], "How many rows up to 0?\nEvidence: ids count");
    EXPECT_EQ(in["rows"]["gold"], json::array());
    EXPECT_EQ(in["rows"]["gold_columns"], json::array({"id", "name"}));
  }
  for (const auto& in : a["instances"]) {
    if (in["id"] != "98") continue;  // gold index 2: two rows (1,'a'), (2,'b')
    EXPECT_EQ(in["rows"]["gold"], json::parse(R"([["1","a"],["2","b"]])")) << in.dump();
  }
}

// --shard-by db on real data: every question of a database in one shard, the merge equal to the whole run.
TEST(RunsBenchmarksData, ShardsByDatabase) {
  SQLGRADE_REQUIRE_DATA("spider/dev_gold.sql", "bird/minidev/mini_dev_sqlite_gold.sql");
  const std::string& D = DATA;
  const std::string sp = D + "/spider";
  check_shards({"spider", "--gold", sp + "/dev_gold.sql", "--db", sp + "/database", "--etype", "exec", "--pred",
                D + "/preds/spider_dev/dail-sql_gpt4/pred.txt", "--no-progress", "--quiet"},
               4, "spider dev by db", true);
  check_shards({"bird", "--ground_truth_path", D + "/bird/minidev/mini_dev_sqlite_gold.sql", "--db_root_path",
                D + "/bird/dev_databases", "--diff_json_path", D + "/expected/bird/inputs/minidev.mini_dev_sqlite.jsonl",
                "--predicted_sql_path",
                D + "/preds/bird_minidev/official_baselines_sql_output_kg/predict_mini_dev_gpt-4_sqlite.json",
                "--no-progress", "--quiet"},
               3, "bird minidev by db", true);
}
