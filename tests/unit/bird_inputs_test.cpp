// BIRD input handling: pairing by id with loud warnings, bad input files, real timeouts (gold timeouts
// reported separately), read-only execution, the original BIRD layout, VES / R-VES.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sqlgrade/bird/inputs.hpp"
#include "sqlgrade/bird.hpp"
#include "test_support.hpp"
#include "record_views.hpp"

using namespace sqlgrade;
using namespace sqlgrade::test;
using nlohmann::json;

namespace {

const char* kDb = R"SQL(
CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL);
INSERT INTO t VALUES (1, 'a', 1.5), (2, 'b', 2.0), (3, 'c', NULL);
CREATE TABLE u (x INTEGER);
INSERT INTO u VALUES (1), (2);
)SQL";

// A query that runs for a long time (far beyond the test timeouts).
const char* kSlow =
    "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 2000000000) SELECT count(*) FROM r";

struct Fixture {
  TempDir t;
  std::string root, gold, diff, pred;
  Fixture() {
    root = (t / "db").string();
    make_sqlite(t / "db" / "d1" / "d1.sqlite", kDb);
    make_sqlite(t / "db" / "d2" / "d2.sqlite", kDb);
    gold = (t / "gold.sql").string();
    diff = (t / "diff.jsonl").string();
    pred = (t / "pred.json").string();
    spit(gold,
         "SELECT name FROM t WHERE id = 1\td1\n"
         "SELECT id, name FROM t\td1\n"
         "SELECT count(*) FROM u\td2\n"
         "SELECT x FROM u ORDER BY x\td2\n");
    spit(diff,
         "{\"question_id\": 10, \"db_id\": \"d1\", \"difficulty\": \"simple\"}\n"
         "{\"question_id\": 11, \"db_id\": \"d1\", \"difficulty\": \"moderate\"}\n"
         "{\"question_id\": 12, \"db_id\": \"d2\", \"difficulty\": \"moderate\"}\n"
         "{\"question_id\": 12, \"db_id\": \"d2\", \"difficulty\": \"challenging\"}\n");
  }
  std::vector<std::string> args(std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"bird", "--predicted_sql_path", pred, "--ground_truth_path", gold,
                                  "--db_root_path", root, "--diff_json_path", diff};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  json run_json(std::vector<std::string> extra, CliResult* out = nullptr) const {
    std::string js = (t / "out.json").string();
    extra.push_back("--json");
    extra.push_back(js);
    auto r = run_cli(args(extra));
    if (out) *out = r;
    EXPECT_EQ(r.rc, 0) << r.err;
    return json::parse(slurp(js));
  }
};

const std::string kSep = "\t----- bird -----\t";

}  // namespace

TEST(BirdInputs, PairsByKeyAndWarnsOnMissingExtraDuplicateNonString) {
  Fixture f;
  // Keys out of order; "1" duplicated (last value wins, as in Python); "2" missing; "9" extra; "3" not a string.
  spit(f.pred, "{\"1\": \"SELECT 0" + std::string("\\t----- bird -----\\t") + "d1\", "
               "\"0\": \"SELECT name FROM t WHERE id = 1\\t----- bird -----\\td1\", "
               "\"1\": \"SELECT id, name FROM t ORDER BY id DESC\\t----- bird -----\\td1\", "
               "\"9\": \"SELECT 1\\t----- bird -----\\td1\", \"3\": 42}");
  CliResult r;
  json j = f.run_json({}, &r);
  auto res = sqlgrade::test::bird_results(j);
  EXPECT_EQ(res[0]["score"], 1.0);
  EXPECT_EQ(res[1]["score"], 1.0);  // the last "1" is used
  EXPECT_EQ(res[2]["status"], "no_prediction");
  EXPECT_EQ(res[2]["score"], 0.0);
  EXPECT_EQ(res[3]["status"], "not_a_string");
  EXPECT_EQ(res[3]["score"], 0.0);
  EXPECT_NE(r.err.find("DUPLICATE prediction key \"1\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("MISSING predictions: 1 of 4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("EXTRA predictions: 1 keys"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("NON-STRING predictions: 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("DUPLICATE question_id 12"), std::string::npos) << r.err;
  // Table: simple 1/1, moderate (1 + 0) / 2, challenging 0/1, total 2/4.
  EXPECT_NE(r.out.find("EX                   100.00               50.00                0.00                 50.00"),
            std::string::npos)
      << r.out;
}

TEST(BirdInputs, QuestionIdKeysAreRecognised) {
  Fixture f;
  spit(f.gold, "SELECT name FROM t WHERE id = 1\td1\nSELECT id, name FROM t\td1\nSELECT count(*) FROM u\td2\n");
  spit(f.diff,
       "[{\"question_id\": 10, \"difficulty\": \"simple\"}, {\"question_id\": 11, \"difficulty\": \"moderate\"},"
       " {\"question_id\": 12, \"difficulty\": \"challenging\"}]");  // dev.json-style array
  spit(f.pred, "{\"12\": \"SELECT 2" + std::string("\\t----- bird -----\\t") + "d2\", "
               "\"10\": \"SELECT 'a'\\t----- bird -----\\td1\", \"11\": \"SELECT 1\\t----- bird -----\\td1\"}");
  json j = f.run_json({});
  EXPECT_EQ(j["options"]["pair_by"], "question_id");
  EXPECT_EQ(sqlgrade::test::bird_results(j)[0]["score"], 1.0);
  EXPECT_EQ(sqlgrade::test::bird_results(j)[1]["score"], 0.0);
  EXPECT_EQ(sqlgrade::test::bird_results(j)[2]["score"], 1.0);
}

TEST(BirdInputs, BadFilesAreOneLineErrorsWithExitCode2) {
  Fixture f;
  spit(f.pred, "{\"0\": \"SELECT 1\"}");
  spit(f.gold, "SELECT 1\td1\nSELECT 2 no tab here\n");
  auto r = run_cli(f.args());
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("gold.sql:2:"), std::string::npos) << r.err;

  spit(f.gold, "SELECT 1\td1\n");
  spit(f.pred, "{\"0\": \"SELECT 1\",\n oops}");
  r = run_cli(f.args());
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("pred.json:2:"), std::string::npos) << r.err;

  spit(f.pred, "[\"SELECT 1\"]");
  r = run_cli(f.args());
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("pred.json"), std::string::npos) << r.err;

  spit(f.pred, "{\"0\": \"SELECT 1\"}");
  spit(f.gold, "SELECT 1\tnot_there\n");
  std::string js = (f.t / "never.json").string();
  r = run_cli(f.args({"--json", js}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("database not found"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(js));
  EXPECT_EQ(r.out, "");

  spit(f.gold, "SELECT 1\td1\n");
  spit(f.diff, "{\"difficulty\": \"simple\"}\nnot json\n");
  r = run_cli(f.args());
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("diff.jsonl:2:"), std::string::npos) << r.err;

  r = run_cli({"bird", "--predicted_sql_path", f.pred});
  EXPECT_EQ(r.rc, 2);
}

TEST(BirdInputs, RealTimeoutsAndGoldTimeoutsReportedSeparately) {
  Fixture f;
  spit(f.gold, std::string("SELECT 1\td1\n") + kSlow + "\td1\n");
  spit(f.diff, "{\"difficulty\": \"simple\"}\n{\"difficulty\": \"simple\"}\n");
  json p = {{"0", std::string(kSlow) + kSep + "d1"}, {"1", "SELECT 1" + kSep + "d1"}};
  spit(f.pred, p.dump());
  auto t0 = std::chrono::steady_clock::now();
  CliResult r;
  json j = f.run_json({"--meta_time_out", "0.5"}, &r);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 20.0);
  EXPECT_EQ(sqlgrade::test::bird_results(j)[0]["status"], "pred_timeout");
  EXPECT_EQ(sqlgrade::test::bird_results(j)[1]["status"], "gold_timeout");
  EXPECT_EQ(j["summary"]["gold_timeouts"], 1);
  EXPECT_NE(r.err.find("GOLD TIMEOUT: 1"), std::string::npos) << r.err;
}

TEST(BirdInputs, DatabasesAreNeverWritten) {
  Fixture f;
  std::string before = file_hash(f.t / "db" / "d1" / "d1.sqlite");
  json p = {{"0", "DELETE FROM t" + kSep + "d1"},
            {"1", "DROP TABLE t" + kSep + "d1"},
            {"2", "SELECT 1; DELETE FROM u" + kSep + "d2"},
            {"3", "ATTACH DATABASE 'x.db' AS x" + kSep + "d2"}};
  spit(f.pred, p.dump());
  json j = f.run_json({});
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(sqlgrade::test::bird_results(j)[i]["status"], "pred_error") << i;
    EXPECT_EQ(sqlgrade::test::bird_results(j)[i]["score"], 0.0) << i;
  }
  EXPECT_EQ(sqlgrade::test::bird_results(j)[2]["reason"], "You can only execute one statement at a time.");
  EXPECT_EQ(file_hash(f.t / "db" / "d1" / "d1.sqlite"), before);
}

TEST(BirdInputs, GoldCachedAndEmptyStatementLikePython) {
  Fixture f;
  // Two questions share the same gold; a whitespace-only prediction returns no rows (cursor.execute(" ")).
  spit(f.gold, "SELECT x FROM u WHERE x > 5\td2\nSELECT x FROM u WHERE x > 5\td2\n");
  spit(f.diff, "{\"difficulty\": \"simple\"}\n{\"difficulty\": \"simple\"}\n");
  json p = {{"0", " " + kSep + "d2"}, {"1", "SELECT 1" + kSep + "d2"}};
  spit(f.pred, p.dump());
  json j = f.run_json({"--metric", "soft-f1"});
  EXPECT_EQ(sqlgrade::test::bird_results(j)[0]["score"], 1.0);  // both empty
  EXPECT_EQ(sqlgrade::test::bird_results(j)[1]["score"], 0.0);

  // The shared gold runs once per (database, gold SQL): for both questions, and across systems graded
  // in one pass (a second system with other predictions, a third with the first one's).
  std::string pred2 = (f.t / "pred2.json").string();
  spit(pred2, json{{"0", "SELECT 2" + kSep + "d2"}, {"1", "SELECT x FROM u WHERE x > 5" + kSep + "d2"}}.dump());
  bird::Options opt;
  opt.gold = f.gold;
  opt.db_dir = f.root;
  opt.diff_json = f.diff;
  opt.metric = bird::Metric::SoftF1;
  opt.progress = 0;
  EXPECT_EQ(bird::evaluate([&] { bird::Options o = opt; o.pred = f.pred; return o; }()).gold_executions, 1u);
  auto runs = bird::evaluate_many(opt, {f.pred, pred2, f.pred});
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].gold_executions, 1u);
  EXPECT_EQ(runs[1].gold_executions, 0u);
  EXPECT_EQ(runs[2].gold_executions, 0u);
  EXPECT_EQ(runs[1].items[0].outcome.score, 0.0);
  EXPECT_EQ(runs[1].items[1].outcome.score, 1.0);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(runs[2].items[i].outcome.score, runs[0].items[i].outcome.score) << i;
}

TEST(BirdInputs, OriginalLayoutUsesPredictionDatabaseAndPrintsAccuracyTable) {
  Fixture f;
  fs::create_directories(f.t / "preds");
  fs::create_directories(f.t / "gold");
  // d1 and d2 differ: the prediction's db_id decides where both queries run (original BIRD quirk).
  make_sqlite(f.t / "db" / "d3" / "d3.sqlite", "CREATE TABLE u (x INTEGER); INSERT INTO u VALUES (7);");
  spit(f.t / "gold" / "dev_gold.sql", "SELECT x FROM u\td2\nSELECT count(*) FROM t\td1\n");
  json p = {{"0", "SELECT x FROM u" + kSep + "d3"}, {"1", "SELECT 3" + kSep + "d1"}};
  spit(f.t / "preds" / "predict_dev.json", p.dump());
  spit(f.t / "dev.json", "[{\"difficulty\": \"simple\"}, {\"difficulty\": \"moderate\"}]");
  auto r = run_cli({"bird", "--predicted_sql_path", (f.t / "preds").string() + "/", "--ground_truth_path",
                    (f.t / "gold").string() + "/", "--data_mode", "dev", "--db_root_path", f.root + "/",
                    "--diff_json_path", (f.t / "dev.json").string(), "--json", (f.t / "o.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string want =
      "start calculate\n"
      "                     simple               moderate             challenging          total               \n"
      "count                1                    1                    0                    2                   \n"
      "======================================    ACCURACY    =====================================\n"
      "accuracy             100.00               100.00               -                    100.00              \n"
      "===========================================================================================\n"
      "Finished evaluation\n";
  EXPECT_EQ(r.out, want);
  json j = json::parse(slurp(f.t / "o.json"));
  EXPECT_EQ(sqlgrade::test::bird_results(j)[0]["db_id"], "d3");
  EXPECT_NE(r.err.find("different db_id"), std::string::npos) << r.err;
}

TEST(BirdInputs, VesAndRvesTimeCorrectPairsOnly) {
  Fixture f;
  json p = {{"0", "SELECT name FROM t WHERE id = 1" + kSep + "d1"},
            {"1", "SELECT 1" + kSep + "d1"},
            {"2", "SELECT count(*) FROM u" + kSep + "d2"},
            {"3", "SELECT x FROM u" + kSep + "d2"}};
  spit(f.pred, p.dump());
  CliResult r;
  json j = f.run_json({"--metric", "r-ves", "--repeat", "20"}, &r);
  EXPECT_EQ(r.out.rfind("start calculate R-VES\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("Finished R-VES evaluation for SQLite on Mini Dev set"), std::string::npos);
  auto res = sqlgrade::test::bird_results(j);
  EXPECT_EQ(res[1]["score"], 0.0);
  EXPECT_EQ(res[1]["time_ratio"], 0.0);
  for (int i : {0, 2, 3}) {
    double s = res[i]["score"].get<double>();
    // reward in {0, 0.25, 0.5, 0.75, 1, 1.25} -> 100 * sqrt(reward)
    bool ok = false;
    for (double w : {0.0, 0.25, 0.5, 0.75, 1.0, 1.25})
      if (std::abs(s - 100 * std::sqrt(w)) < 1e-9) ok = true;
    EXPECT_TRUE(ok) << s;
  }
  json v = f.run_json({"--metric", "ves", "--repeat", "20"});
  EXPECT_EQ(sqlgrade::test::bird_results(v)[1]["score"], 0.0);
  double r0 = sqlgrade::test::bird_results(v)[0]["time_ratio"].get<double>();
  EXPECT_GT(r0, 0.0);  // a correct pair has a positive mean ratio (20 timings are never all identical)
  EXPECT_NEAR(sqlgrade::test::bird_results(v)[0]["score"].get<double>(), 100 * std::sqrt(r0), 1e-9);
}

TEST(BirdInputs, OutputLogIsAppended) {
  Fixture f;
  json p = {{"0", "SELECT name FROM t WHERE id = 1" + kSep + "d1"}};
  spit(f.pred, p.dump());
  std::string log = (f.t / "log.txt").string();
  spit(log, "previous run\n");
  auto r1 = run_cli(f.args({"--output_log_path", log, "--metric", "soft-f1"}));
  ASSERT_EQ(r1.rc, 0) << r1.err;
  auto r2 = run_cli(f.args({"--output_log_path", log, "--metric", "soft-f1"}));
  ASSERT_EQ(r2.rc, 0) << r2.err;
  std::string block =
      "start calculate Soft-F1\n"
      "                     simple               moderate             challenging          total               \n"
      "count                1                    2                    1                    4                   \n"
      "======================================    Soft-F1   =====================================\n"
      "Soft-F1              100.00               0.00                 0.00                 25.00               \n"
      "===========================================================================================\n"
      "Finished Soft-F1 evaluation for mini dev set\n\n";
  EXPECT_EQ(slurp(log), "previous run\n" + block + block);
  EXPECT_EQ(r1.out.rfind("start calculate Soft F1\n", 0), 0u);
}

TEST(BirdInputs, OriginalVesTableFormat) {
  bird::Run r;
  r.layout = bird::Layout::Original;
  r.metric = bird::Metric::Ves;
  for (int i = 0; i < 3; ++i) {
    bird::Instance it;
    it.difficulty = i == 0 ? "simple" : "moderate";
    it.outcome.score = i == 0 ? 200.0 : 50.0;
    r.items.push_back(it);
  }
  EXPECT_EQ(bird::render_text(r),
            "start calculate\n"
            "                     simple               moderate             challenging          total               \n"
            "count                1                    2                    0                    3                   \n"
            "=========================================    VES   ========================================\n"
            "ves                  200.00               50.00                -                    100.00              \n"
            "===========================================================================================\n"
            "Finished evaluation\n");
}
