// `sqlgrade spider2` against what the official evaluate.py printed (shared/data/expected/spider2lite,
// commands in expected/MANIFEST.json): byte-identical stdout (minus tqdm's progress lines),
// per-instance scores, the ids CSV, the SQL extracted in sql mode; databases never modified.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "sqlgrade/core/csv.hpp"
#include "test_support.hpp"

using namespace sqlgrade::test;
using nlohmann::json;

namespace {

// Official stdout minus tqdm: drop the "Evaluating ..." lines and the blank line tqdm leaves first.
std::string official_stdout(const std::string& raw) {
  std::string out;
  size_t pos = 0;
  while (pos < raw.size()) {
    size_t nl = raw.find('\n', pos);
    std::string line = raw.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos + 1);
    pos = nl == std::string::npos ? raw.size() : nl + 1;
    if (line.rfind("Evaluating ", 0) == 0) continue;
    out += line;
  }
  while (!out.empty() && out[0] == '\n') out.erase(0, 1);
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

std::vector<json> spider2_cases(const std::string& data) {
  json m = json::parse(slurp(data + "/expected/MANIFEST.json"));
  std::vector<json> out;
  for (auto& c : m["cases"])
    if (c["benchmark"].get<std::string>().rfind("spider2", 0) == 0) out.push_back(c);
  return out;
}

}  // namespace

TEST(Spider2Conformance, EveryOfficialCase) {
  SQLGRADE_REQUIRE_DATA("expected/spider2lite");
  auto cases = spider2_cases(DATA);
  ASSERT_GE(cases.size(), 30u);
  // Databases used by the sql cases: prove they are not modified.
  std::map<std::string, std::string> db_hashes;
  for (auto& e : fs::directory_iterator(DATA + "/spider2lite/databases")) db_hashes[e.path().string()] = file_hash(e.path());
  size_t n_sql = 0, n_instances = 0;
  for (auto& c : cases) {
    const std::string name = c["case_meta"]["case"];
    SCOPED_TRACE(name);
    const std::string mode = c["case_meta"]["mode"];
    std::vector<std::string> cmd = c["command"];
    std::string rd_arg;
    for (size_t i = 0; i + 1 < cmd.size(); ++i)
      if (cmd[i] == "--result_dir") rd_arg = cmd[i + 1];
    TempDir t;
    const bool placeholder = rd_arg == "<RESULT_DIR>";
    fs::path rd = placeholder ? t / "preds" : t / rd_arg;
    fs::create_directories(rd);
    const std::string ext = mode == "sql" ? ".sql" : ".csv";
    if (c["inputs"]["source_files"].is_object()) {
      for (auto& [id, src] : c["inputs"]["source_files"].items())
        fs::copy_file(DATA + "/" + src.get<std::string>(), rd / (id + ext));
    } else {
      for (auto& e : fs::directory_iterator(DATA + "/" + c["inputs"]["predictions"].get<std::string>()))
        fs::copy_file(e.path(), rd / e.path().filename());
    }
    std::vector<std::string> args = {"spider2", "--mode", mode, "--result_dir", placeholder ? rd.string() : rd_arg,
                                     "--gold_dir", DATA + "/spider2lite/gold", "--db_dir", DATA + "/spider2lite/databases",
                                     "--json", (t / "scores.json").string()};
    CliResult r = run_cli(args, "", t.str());
    ASSERT_EQ(r.rc, 0) << r.err;
    std::string expected = official_stdout(slurp(DATA + "/expected/" + c["output"].get<std::string>()));
    std::string got = placeholder ? replace_all(r.out, rd.string(), "<RESULT_DIR>") : r.out;
    EXPECT_EQ(got, expected);

    json exp = json::parse(slurp(DATA + "/expected/" + c["scores_json"].get<std::string>()));
    json mine = json::parse(slurp(t / "scores.json"));
    std::map<std::string, int> my_scores;
    std::map<std::string, json> my_items;
    for (auto& it : mine["instances"]) {  // the run record (docs/run-record.schema.json)
      my_scores[it["id"]] = it["scores"]["ex"].get<int>();
      my_items[it["id"]] = it;
    }
    std::map<std::string, int> exp_scores = exp["per_instance_score"];
    EXPECT_EQ(my_scores, exp_scores);
    n_instances += exp_scores.size();
    for (auto& d : exp["details_from_module_run"]) {
      auto& mineit = my_items[d["instance_id"]];
      // The SQL the official script extracted and ran (sql mode), and "Result Error" for mismatches.
      EXPECT_EQ(mineit["pred_sql"].is_null() ? json() : mineit["pred_sql"], d["pred_sql"]) << d["instance_id"];
      if (d["error_info"] == "Result Error") {
        EXPECT_EQ(mineit["detail"]["error_info"], "Result Error") << d["instance_id"];
      }
    }
    // <result_dir>-ids.csv
    std::string ids = slurp(placeholder ? (t / "preds-ids.csv") : fs::path(t.str() + "/" + rd_arg + "-ids.csv"));
    std::string exp_ids = "instance_id\n";
    for (auto& id : exp["correct_ids_csv"]) exp_ids += id.get<std::string>() + "\n";
    EXPECT_EQ(ids, exp_ids);
    if (mode == "sql") {
      ++n_sql;
      // The executed results are written where the official script writes them.
      for (auto& [id, s] : exp_scores) EXPECT_TRUE(fs::exists(fs::path(t.str() + "/" + rd_arg + "_csv") / (id + ".csv"))) << id;
    }
  }
  EXPECT_EQ(n_sql, 2u);
  EXPECT_GE(n_instances, 300u);
  for (auto& [p, h] : db_hashes) EXPECT_EQ(file_hash(p), h) << p << " was modified";
}

// ---- fixtures built at test time: sql mode mechanics, timeouts, read-only, bad input, v2 ----

namespace {

struct Fixture {
  TempDir t;
  fs::path gold, preds, dbs, meta;
  Fixture() {
    gold = t / "gold";
    preds = t / "preds";
    dbs = t / "databases";
    meta = t / "spider2-lite.jsonl";
    fs::create_directories(gold / "exec_result");
    fs::create_directories(preds);
    make_sqlite(dbs / "shop.sqlite",
                "CREATE TABLE t(id INTEGER, name TEXT, price REAL);"
                "INSERT INTO t VALUES (1,'a',1.5),(2,'b',NULL),(3,'NA',2.25);");
    std::string eval, m;
    for (const char* id : {"local900", "local901", "local902", "local903", "local904", "local905"}) {
      eval += std::string("{\"instance_id\": \"") + id + "\", \"condition_cols\": [], \"ignore_order\": true}\n";
      m += std::string("{\"instance_id\": \"") + id + "\", \"db\": \"shop\"}\n";
    }
    eval += "{\"instance_id\": \"sf_bq001\", \"condition_cols\": [], \"ignore_order\": true}\n";
    spit(gold / "spider2lite_eval.jsonl", eval);
    spit(meta, m);
    // local900: names in id order; NULL price == 0; "NA" text becomes NaN == 0 as well.
    spit(gold / "exec_result" / "local900_a.csv", "name,price\na,1.5\nb,0\n,2.25\n");
    spit(gold / "exec_result" / "local901.csv", "n\n3\n");
    spit(gold / "exec_result" / "local902_a.csv", "n\n1\n");
    spit(gold / "exec_result" / "local903_a.csv", "n\n1\n");
    spit(gold / "exec_result" / "local904_a.csv", "n\n1\n");
    spit(gold / "exec_result" / "local905_a.csv", "n\n1\n");
    spit(gold / "exec_result" / "sf_bq001.csv", "n\n1\n");
  }
  std::vector<std::string> args(const std::string& mode) {
    return {"spider2", "--mode", mode, "--result_dir", preds.string(), "--gold_dir", gold.string(),
            "--db_dir", dbs.string(), "--meta", meta.string(), "--no-progress"};
  }
};

}  // namespace

TEST(Spider2SqlMode, ExecutesReadOnlyWithRealTimeout) {
  Fixture f;
  spit(f.preds / "local900.sql", "Here it is:\n```sql\nSELECT name, price FROM t ORDER BY id\n```\n");
  spit(f.preds / "local901.sql", "SELECT count(*) AS n FROM t;");
  spit(f.preds / "local902.sql", "DELETE FROM t");
  spit(f.preds / "local903.sql",
       "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c");
  spit(f.preds / "local904.sql", "SELECT * FROM no_such_table");
  spit(f.preds / "sf_bq001.sql", "SELECT 1");
  std::string before = file_hash(f.dbs / "shop.sqlite");
  auto a = f.args("sql");
  a.insert(a.end(), {"--timeout", "1", "--json", (f.t / "s.json").string()});
  auto t0 = std::chrono::steady_clock::now();
  CliResult r = run_cli(a);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_LT(secs, 20.0) << "the runaway recursive query must be stopped by the timeout";
  EXPECT_EQ(file_hash(f.dbs / "shop.sqlite"), before);
  EXPECT_NE(r.out.find("{'local900': 1, 'local901': 1, 'local902': 0, 'local903': 0, 'local904': 0, 'sf_bq001': 0}"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[local902] An error occurred: "), std::string::npos);
  EXPECT_NE(r.out.find("[local903] An error occurred: "), std::string::npos);
  EXPECT_NE(r.out.find("[sf_bq001] An error occurred: Unsupported instance id prefix"), std::string::npos);
  EXPECT_NE(r.out.find("Final score: 0.3333333333333333, Correct examples: 2, Total examples: 6\n"), std::string::npos);
  EXPECT_NE(r.out.find("Real score: 0.003656307129798903, Correct examples: 2, Total examples: 547\n"), std::string::npos);
  EXPECT_EQ(slurp(f.t / "preds-ids.csv"), "instance_id\nsf_local900\nsf_local901\n");
  EXPECT_EQ(slurp(f.t / "preds_csv" / "local900.csv"), "name,price\na,1.5\nb,\nNA,2.25\n");
  json s = json::parse(slurp(f.t / "s.json"));
  EXPECT_EQ(s["instances"][0]["pred_sql"], "SELECT name, price FROM t ORDER BY id");
}

// The run record names the database folder the run used: without --db_dir that is
// <gold_dir>/../databases, wherever --meta points.
TEST(Spider2SqlMode, RecordNamesTheDefaultDbFolderWithMetaElsewhere) {
  Fixture f;
  const fs::path meta = f.t / "elsewhere" / "m.jsonl";
  fs::create_directories(meta.parent_path());
  fs::rename(f.meta, meta);
  spit(f.preds / "local901.sql", "SELECT count(*) AS n FROM t;");
  CliResult r = run_cli({"spider2", "--mode", "sql", "--result_dir", f.preds.string(), "--gold_dir", f.gold.string(),
                         "--meta", meta.string(), "--no-progress", "--json", (f.t / "s.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  // The run found shop.sqlite in <gold_dir>/../databases (and not next to --meta).
  EXPECT_NE(r.out.find("{'local901': 1}"), std::string::npos) << r.out;
  json s = json::parse(slurp(f.t / "s.json"));
  size_t n_db = 0;
  for (auto& in : s["inputs"]) {
    if (in["role"] != "db") continue;
    ++n_db;
    std::error_code ec;
    EXPECT_TRUE(fs::equivalent(in["path"].get<std::string>(), f.dbs, ec)) << in["path"];
  }
  EXPECT_EQ(n_db, 1u);
}

TEST(Spider2ExecResult, BadPredictionsScoreZeroWithReason) {
  Fixture f;
  spit(f.preds / "local902.csv", "");              // empty file: pandas "No columns to parse"
  spit(f.preds / "local903.csv", "n\n1\n1,2,3\n");  // too many fields
  spit(f.preds / "local904.csv", "n\n1\n");        // correct
  spit(f.preds / "local999.csv", "n\n1\n");        // not in the gold set: ignored
  auto a = f.args("exec_result");
  a.insert(a.end(), {"--json", (f.t / "s.json").string()});
  CliResult r = run_cli(a);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(official_stdout(r.out).substr(0, 47), "{'local902': 0, 'local903': 0, 'local904': 1}\nF");
  json s = json::parse(slurp(f.t / "s.json"));
  EXPECT_NE(s["instances"][0]["failure_reason"].get<std::string>().find("Evaluation Error"), std::string::npos);
  EXPECT_NE(s["instances"][1]["failure_reason"].get<std::string>().find("Expected 1 fields in line 3"), std::string::npos);
}

TEST(Spider2Cli, BadInputIsOneLineExitTwoAndNothingWritten) {
  Fixture f;
  spit(f.preds / "local904.csv", "n\n1\n");
  spit(f.gold / "spider2lite_eval.jsonl", "{\"instance_id\": \"local904\", \"condition_cols\": []}\n{oops\n");
  CliResult r = run_cli(f.args("exec_result"));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("spider2lite_eval.jsonl:2:"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_FALSE(fs::exists(f.t / "preds-ids.csv"));
  auto a = f.args("exec_result");
  a[6] = (f.t / "missing").string();
  r = run_cli(a);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("missing"), std::string::npos);
}

TEST(Spider2Cli, NoOverlap) {
  Fixture f;
  spit(f.preds / "other.csv", "n\n1\n");
  CliResult r = run_cli(f.args("exec_result"));
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out, "No overlapping prediction IDs with gold set. Nothing to evaluate.\n");
}

TEST(Spider2Cli, StrictReportsWithoutChangingTheScore) {
  Fixture f;
  spit(f.gold / "exec_result" / "local900_a.csv", "a,b\n1,x\n2,y\n");
  spit(f.preds / "local900.csv", "a,b\n1,y\n2,x\n");
  spit(f.gold / "exec_result" / "local901.csv", "a\n2.0\n19.999\n");
  spit(f.preds / "local901.csv", "a\n20.0\n2.0\n");
  spit(f.preds / "local904.csv", "n\n1\n");
  auto a = f.args("exec_result");
  a.push_back("--strict");
  CliResult r = run_cli(a);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("{'local900': 1, 'local901': 0, 'local904': 1}\nFinal score: 0.6666666666666666,"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[local900] scored 1, but 2 of 2 gold rows have no matching pred row"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[local901] scored 0, but gold column 0"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("[local904]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Scored 1 with rows scrambled across columns: 1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Scored 0 only because of the string-representation sort: 1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Strict score: 0.3333333333333333, Correct examples: 1, Total examples: 3"), std::string::npos)
      << r.out;
}

TEST(Spider2Cli, V2ErrorsScoreZeroInsteadOfCarryingOver) {
  Fixture f;
  spit(f.gold / "exec_result" / "local900_a.csv", "Customer_ID,total\n1,2.5\n");
  spit(f.preds / "local900.csv", "customer id,TOTAL\n1,2.504\n");  // v2-correct
  spit(f.preds / "local901.csv", "n,m\n3\n4,5,6\n");                // unreadable: error
  auto a = f.args("exec_result");
  a.insert(a.end(), {"--v2", "--errors_log", (f.t / "errors.log").string()});
  CliResult r = run_cli(a);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\n=== Column Comparison Metrics ===\nAverage Column Precision: 0.5000\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Perfect row matches: 1 / 2\n"), std::string::npos);
  EXPECT_NE(r.out.find("Detailed column and row metrics saved to: " + f.preds.string() + "-detailed-metrics.json"),
            std::string::npos);
  json d = json::parse(slurp(f.t / "preds-detailed-metrics.json"));
  EXPECT_EQ(d["summary"]["correct_data_matches"], 1);
  EXPECT_EQ(d["detailed_results"][1]["instance_id"], "local901");
  EXPECT_EQ(d["detailed_results"][1]["data_score"], 0);  // the Python script would inherit the 1
  std::string log = slurp(f.t / "errors.log");
  EXPECT_NE(log.find("| ERROR | Post-exec processing error | context="), std::string::npos) << log;
  EXPECT_NE(log.find("\"instance_id\":\"local901\""), std::string::npos) << log;
  EXPECT_EQ(slurp(f.t / "preds-ids.csv"), "instance_id\nsf_local900\n");
}

// The single-alternative flat-list quirk (spec §4.3) on the shared gold files: local078 has condition_cols
// [1, 2] and only local078_a.csv, so only gold column 1 is checked; local335 has [0], so every column is.
TEST(Spider2Conformance, SingleAlternativeFlatListQuirkOnRealGold) {
  SQLGRADE_REQUIRE_DATA("spider2lite/gold/exec_result/local078_a.csv");
  auto project = [&](const std::string& id, std::vector<size_t> cols) {
    sqlgrade::CsvData d = sqlgrade::read_csv_file(DATA + "/spider2lite/gold/exec_result/" + id + "_a.csv");
    auto pick = [&](const std::vector<std::string>& row) {
      std::vector<std::string> out;
      for (size_t c : cols) out.push_back(row[c]);
      return sqlgrade::csv_line(out);
    };
    std::string text = pick(d.header);
    for (auto& r : d.rows) text += pick(r);
    return text;
  };
  TempDir t;
  fs::create_directories(t / "p");
  spit(t / "p" / "local078.csv", project("local078", {1}));     // gold column 2 missing: still 1
  spit(t / "p" / "local335.csv", project("local335", {0}));     // [0] means every column: 0
  spit(t / "p" / "local130.csv", project("local130", {2, 1, 0}));  // [0, 1]: every column, present: 1
  CliResult r = run_cli({"spider2", "--mode", "exec_result", "--result_dir", (t / "p").string(), "--gold_dir",
                         DATA + "/spider2lite/gold", "--no-progress"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "{'local078': 1, 'local130': 1, 'local335': 0}");
}

// sql mode on the 24 public gold SQL files, then those written CSVs used as the gold: every instance must
// score 1 (the round trip query -> CSV -> pandas typing is deterministic and identical on both sides).
TEST(Spider2SqlMode, GoldSqlAgainstItsOwnResultScoresOne) {
  SQLGRADE_REQUIRE_DATA("spider2lite/gold/sql");
  TempDir t;
  fs::create_directories(t / "sql");
  std::vector<std::string> ids;
  for (auto& e : fs::directory_iterator(DATA + "/spider2lite/gold/sql")) {
    fs::copy_file(e.path(), t / "sql" / e.path().filename());
    ids.push_back(e.path().stem().string());
  }
  ASSERT_EQ(ids.size(), 24u);
  std::vector<std::string> base = {"spider2", "--mode", "sql", "--result_dir", (t / "sql").string(),
                                   "--db_dir", DATA + "/spider2lite/databases", "--meta",
                                   DATA + "/spider2lite/spider2-lite.jsonl", "--no-progress", "--gold_dir"};
  auto a = base;
  a.push_back(DATA + "/spider2lite/gold");
  CliResult r = run_cli(a);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.find("An error occurred"), std::string::npos) << r.out;
  fs::create_directories(t / "g" / "exec_result");
  std::string eval;
  for (auto& id : ids) {
    fs::copy_file(t / "sql_csv" / (id + ".csv"), t / "g" / "exec_result" / (id + ".csv"));
    eval += "{\"instance_id\": \"" + id + "\", \"condition_cols\": [], \"ignore_order\": false}\n";
  }
  spit(t / "g" / "spider2lite_eval.jsonl", eval);
  a = base;
  a.push_back((t / "g").string());
  r = run_cli(a);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("Final score: 1.0, Correct examples: 24, Total examples: 24\n"), std::string::npos) << r.out;
}
