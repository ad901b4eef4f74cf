// Issue 7: determinism. The same inputs give byte-identical reports with 1 thread and with several
// (stdout, and the JSON outputs once the wall-clock fields are removed). Real benchmark data with real
// model predictions, plus the adversarial corpus (refusals, timeouts) on a fixture.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "safety_corpus.hpp"
#include "test_support.hpp"

namespace {

using namespace sqlgrade::test;
using json = nlohmann::json;

// A copy of a JSON document without its timing fields (they measure the machine, not the grading),
// nor the run record's environment (the command line names the thread count; start time, time_s).
bool is_timing_key(const std::string& k) {
  static const std::set<std::string> keys = {"exec_seconds", "parse_seconds", "gold_seconds", "pred_seconds",
                                             "query_time", "seconds", "engine_seconds", "wall_seconds", "jobs",
                                             "elapsed", "elapsed_s", "time",
                                             // run records: the command line names the thread count
                                             "command", "started_at", "wall_s", "time_s"};
  return keys.count(k) > 0 || (k.size() > 8 && k.compare(k.size() - 8, 8, "_seconds") == 0);
}

json without_timings(const json& j) {
  if (j.is_object()) {
    json o = json::object();
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!is_timing_key(it.key())) o[it.key()] = without_timings(it.value());
    return o;
  }
  if (j.is_array()) {
    json a = json::array();
    for (const auto& v : j) a.push_back(without_timings(v));
    return a;
  }
  return j;
}

// "" when equal, else the first differing line of each (gtest's own diff is quadratic on big texts).
std::string first_difference(const std::string& a, const std::string& b) {
  if (a == b) return "";
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int n = 1;; ++n) {
    bool ea = !std::getline(sa, la), eb = !std::getline(sb, lb);
    if (ea || eb || la != lb)
      return "line " + std::to_string(n) + ":\n  1 thread:  " + (ea ? "<end>" : la.substr(0, 300)) +
             "\n  4 threads: " + (eb ? "<end>" : lb.substr(0, 300));
  }
}

std::string normalised_json(const fs::path& p) {
  return without_timings(json::parse(slurp(p))).dump(1);
}

// Runs `args + thread flag N` for N in {1, 4} and compares stdout and the JSON written to `json_path`.
void expect_same_reports(std::vector<std::string> args, const std::string& jobs_flag, const fs::path& json_path,
                         const std::string& what) {
  std::string out[2], js[2];
  const char* jobs[2] = {"1", "4"};
  for (int k = 0; k < 2; ++k) {
    auto a = args;
    a.push_back(jobs_flag);
    a.push_back(jobs[k]);
    auto r = run_cli(a);
    ASSERT_EQ(r.rc, 0) << what << " -j" << jobs[k] << ": " << r.err.substr(0, 1000);
    out[k] = r.out;
    if (!json_path.empty()) js[k] = normalised_json(json_path);
  }
  EXPECT_FALSE(out[0].empty()) << what;
  EXPECT_EQ(first_difference(out[0], out[1]), "") << what << ": stdout differs between 1 and 4 threads";
  EXPECT_EQ(first_difference(js[0], js[1]), "") << what << ": JSON differs between 1 and 4 threads";
}

TEST(SafetyDeterminism, SpiderDevAllMetrics) {
  SQLGRADE_REQUIRE_DATA("spider/dev_gold.sql");
  TempDir t;
  std::string s = DATA + "/spider/";
  expect_same_reports({"spider", "--gold", s + "dev_gold.sql", "--pred", DATA + "/preds/spider_dev/c3sql_gpt35/pred.txt",
                       "--db", s + "database", "--table", s + "tables.json", "--etype", "all", "--no-progress", "--json",
                       (t / "r.json").string()},
                      "--jobs", t / "r.json", "spider c3sql --etype all");
}

TEST(SafetyDeterminism, BirdMiniDev) {
  SQLGRADE_REQUIRE_DATA("bird/minidev/mini_dev_sqlite_gold.sql");
  TempDir t;
  expect_same_reports({"bird", "--db_root_path", DATA + "/bird/dev_databases/", "--predicted_sql_path",
                       DATA + "/preds/bird_minidev/official_baselines_TA_output/predict_mini_dev_gpt-4-o_cot_SQLite.json",
                       "--ground_truth_path", DATA + "/bird/minidev/mini_dev_sqlite_gold.sql", "--diff_json_path",
                       DATA + "/bird/minidev/mini_dev_sqlite.json", "--no-progress", "--json", (t / "r.json").string()},
                      "--num_cpus", t / "r.json", "bird mini-dev gpt-4o");
}

TEST(SafetyDeterminism, Spider2LocalSqlMode) {
  SQLGRADE_REQUIRE_DATA("spider2lite/gold/spider2lite_eval.jsonl");
  TempDir t;
  // spider2 writes <result_dir>-ids.csv and <result_dir>_csv/ beside the predictions: they are copied
  // into this test's own folder first, so that the shared (read-only) data is never written to.
  fs::copy(DATA + "/preds/spider2lite_local/xlang_example_submission/sql_mode", t / "sql_mode", fs::copy_options::recursive);
  for (auto& e : fs::recursive_directory_iterator(t / "sql_mode"))  // the shared copy may be read-only
    fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add);
  fs::permissions(t / "sql_mode", fs::perms::owner_all, fs::perm_options::add);
  expect_same_reports({"spider2", "--mode", "sql", "--result_dir", (t / "sql_mode").string(), "--gold_dir",
                       DATA + "/spider2lite/gold", "--db_dir", DATA + "/spider2lite/databases", "--meta",
                       DATA + "/spider2lite/spider2-lite.jsonl", "--timeout", "60", "--no-progress", "--json",
                       (t / "r.json").string()},
                      "--max_workers", t / "r.json", "spider2 xlang sql mode");
}

TEST(SafetyDeterminism, SpiderAdversarialCorpus) {
  // Refusals, parse failures and timeouts are reported the same way whatever the thread count.
  TempDir t;
  make_sqlite(t / "db" / "adv" / "adv.sqlite", adversarial_db_script());
  std::string gold, pred;
  for (auto& s : load_adversarial({"writes", "multi", "runaway", "malformed"})) {
    if (s.has_newline() || s.sql.size() > 100000) continue;
    if (s.group == "runaway" && s.line > 12) continue;  // a few timeouts are enough here
    gold += std::string(adversarial_gold_sql()) + "\tadv\n";
    pred += s.sql + "\n";
  }
  gold += std::string(adversarial_gold_sql()) + "\tadv\n";
  pred += "SELECT name FROM people WHERE id = 7\n";  // one correct answer
  spit(t / "gold.txt", gold);
  spit(t / "pred.txt", pred);
  expect_same_reports({"spider", "--gold", (t / "gold.txt").string(), "--pred", (t / "pred.txt").string(), "--db",
                       (t / "db").string(), "--timeout", "0.5", "--no-progress", "--json", (t / "r.json").string()},
                      "--jobs", t / "r.json", "spider adversarial");
}

TEST(SafetyDeterminism, UdaRunFixture) {
  // `uda gold --as-result` then `uda run` with 1 and 4 threads: same console table and summary.json.
  TempDir t;
  fs::path shop = fs::path(fixtures()) / "uda" / "Shop";
  auto g = run_cli({"uda", "gold", "--dataset-dir", shop.string(), "--out", (t / "res").string(), "--as-result"});
  ASSERT_EQ(g.rc, 0) << g.err;
  std::string out[2], sum[2];
  const char* jobs[2] = {"1", "4"};
  for (int k = 0; k < 2; ++k) {
    auto r = run_cli({"uda", "run", "--dataset-dir", shop.string(), "--results", (t / "res").string(), "--jobs", jobs[k]});
    ASSERT_EQ(r.rc, 0) << r.err;
    out[k] = r.out;
    sum[k] = normalised_json(t / "res" / "Shop" / "summary.json");
  }
  EXPECT_FALSE(out[0].empty());
  EXPECT_EQ(first_difference(out[0], out[1]), "");
  EXPECT_EQ(first_difference(sum[0], sum[1]), "");
}

}  // namespace
