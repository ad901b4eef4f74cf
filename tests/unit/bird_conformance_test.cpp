// Conformance: sqlgrade bird vs what the official Mini-Dev scripts printed (expected/bird_minidev_*),
// on the official baseline predictions, the original Mini-Dev gold and the synthetic dev databases.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

#include "test_support.hpp"
#include "record_views.hpp"

using namespace sqlgrade::test;
using nlohmann::json;

namespace {

struct Case {
  const char* system;
  const char* file;
};

const Case kCases[] = {
    {"official_baselines_TA_output", "predict_mini_dev_gpt-4-o_cot_SQLite"},
    {"official_baselines_sql_output_kg", "predict_mini_dev_gpt-35-turbo_sqlite"},
    {"official_baselines_sql_output_kg", "predict_mini_dev_gpt-4_sqlite"},
    {"official_baselines_sql_output_kg", "predict_mini_dev_meta-llama-3-70b-instruct-2_sqlite"},
};

void check_case(const std::string& DATA, const Case& c, const std::string& metric, const std::string& dir) {
  TempDir t;
  std::string name = std::string(c.system) + "__" + c.file;
  std::string log = (t / "log.txt").string(), js = (t / "out.json").string();
  auto r = run_cli({"bird", "--db_root_path", DATA + "/bird/dev_databases/", "--predicted_sql_path",
                    DATA + "/preds/bird_minidev/" + c.system + "/" + c.file + ".json", "--ground_truth_path",
                    DATA + "/bird/minidev/mini_dev_sqlite_gold.sql", "--num_cpus", "2", "--output_log_path", log,
                    "--diff_json_path", DATA + "/expected/bird/inputs/minidev.mini_dev_sqlite.jsonl",
                    "--meta_time_out", "30.0", "--sql_dialect", "SQLite", "--metric", metric, "--json", js});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string base = DATA + "/expected/" + dir + "/" + name;
  EXPECT_EQ(r.out, slurp(base + ".txt")) << name;
  EXPECT_EQ(slurp(log), slurp(base + ".output_log.txt")) << name;

  json exp = json::parse(slurp(base + ".per_instance.json"));
  json got = json::parse(slurp(js));
  const auto& er = exp["results"];
  const json gr = sqlgrade::test::bird_results(got);
  ASSERT_EQ(er.size(), gr.size());
  size_t errors_checked = 0;
  for (size_t i = 0; i < er.size(); ++i) {
    ASSERT_EQ(er[i]["sql_idx"].get<size_t>(), gr[i]["index"].get<size_t>());
    EXPECT_EQ(er[i]["db"].get<std::string>(), gr[i]["db_id"].get<std::string>()) << name << " #" << i;
    EXPECT_NEAR(er[i]["res"].get<double>(), gr[i]["score"].get<double>(), 1e-12) << name << " #" << i;
    std::string st = er[i]["status"].get<std::string>();
    if (st == "ok") {
      EXPECT_EQ(gr[i]["status"].get<std::string>(), "ok") << name << " #" << i;
    } else {
      // "OperationalError: <sqlite message>" -> our reason is the SQLite message.
      EXPECT_EQ(gr[i]["status"].get<std::string>(), "pred_error") << name << " #" << i;
      std::string msg = st.substr(st.find(": ") + 2);
      EXPECT_EQ(gr[i].value("reason", ""), msg) << name << " #" << i;
      ++errors_checked;
    }
  }
  EXPECT_GT(errors_checked, 0u);
}

}  // namespace

TEST(BirdConformance, MiniDevExTablesLogsAndPerQuestion) {
  SQLGRADE_REQUIRE_DATA("expected/bird_minidev_ex");
  for (const Case& c : kCases) check_case(DATA, c, "ex", "bird_minidev_ex");
}

TEST(BirdConformance, MiniDevSoftF1TablesLogsAndPerQuestion) {
  SQLGRADE_REQUIRE_DATA("expected/bird_minidev_f1");
  for (const Case& c : kCases) check_case(DATA, c, "soft-f1", "bird_minidev_f1");
}

// mini_dev#41: the same predictions written with sorted keys ("0", "1", "10", "100", ...) score about 0
// officially (file order); pairing by key gives the same table as the original file.
TEST(BirdConformance, SortedKeysStillPairByKey) {
  SQLGRADE_REQUIRE_DATA("expected/bird_minidev_ex");
  const Case& c = kCases[0];
  json preds = json::parse(slurp(DATA + "/preds/bird_minidev/" + c.system + "/" + c.file + ".json"));
  TempDir t;
  spit(t / "sorted.json", preds.dump(1));  // nlohmann::json sorts object keys as strings
  ASSERT_NE(slurp(t / "sorted.json").find("\"10\""), std::string::npos);
  std::vector<std::string> base = {"bird", "--db_root_path", DATA + "/bird/dev_databases", "--predicted_sql_path",
                                   (t / "sorted.json").string(), "--ground_truth_path",
                                   DATA + "/bird/minidev/mini_dev_sqlite_gold.sql", "--diff_json_path",
                                   DATA + "/expected/bird/inputs/minidev.mini_dev_sqlite.jsonl"};
  auto r = run_cli(base);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, slurp(DATA + "/expected/bird_minidev_ex/" + std::string(c.system) + "__" + c.file + ".txt"));
  // The official file-order pairing is available and warns.
  auto pos = base;
  pos.insert(pos.end(), {"--pair-by", "position"});
  auto r2 = run_cli(pos);
  ASSERT_EQ(r2.rc, 0) << r2.err;
  EXPECT_NE(r2.out, r.out);
  EXPECT_NE(r2.err.find("mini_dev#41"), std::string::npos) << r2.err;
}

// Gold as prediction on the latest Mini-Dev revision: every metric is 100 in every bucket, every
// gold query executes, and no warning about duplicates is raised (the latest release fixed them).
TEST(BirdConformance, GoldAsPredictionScoresFullMarks) {
  SQLGRADE_REQUIRE_DATA("bird/minidev_latest");
  std::string gold = DATA + "/bird/minidev_latest/mini_dev_sqlite_gold.sql";
  std::vector<std::string> lines;
  {
    std::stringstream ss(slurp(gold));
    std::string l;
    while (std::getline(ss, l))
      if (!l.empty()) lines.push_back(l);
  }
  ASSERT_EQ(lines.size(), 500u);
  json preds = json::object();
  for (size_t i = 0; i < lines.size(); ++i) {
    auto tab = lines[i].rfind('\t');
    preds[std::to_string(i)] = lines[i].substr(0, tab) + "\t----- bird -----\t" + lines[i].substr(tab + 1);
  }
  TempDir t;
  spit(t / "pred.json", preds.dump());
  for (std::string metric : {"ex", "soft-f1", "em-f1"}) {
    auto r = run_cli({"bird", "--predicted_sql_path", (t / "pred.json").string(), "--ground_truth_path", gold,
                      "--db_root_path", DATA + "/bird/dev_databases", "--diff_json_path",
                      DATA + "/expected/bird/inputs/minidev_latest.mini_dev_sqlite.jsonl", "--metric", metric});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err.find("DUPLICATE"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("100.00               100.00               100.00               100.00"), std::string::npos)
        << metric << "\n" << r.out;
  }
}
