// Verification in the run record (issue 24 item 6): `--verify` with --json/--json-dir writes the
// metric verified_ex, each match's outcome (the counterexample's rows and both results) and the
// totals; `diff` compares verified EX like any metric, `merge` of shards keeps the verification
// exactly, `report` embeds it; records without --verify are unchanged.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "verify_fixtures.hpp"

using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

std::map<std::string, json> by_id(const json& rec) {
  std::map<std::string, json> out;
  for (const json& in : rec["instances"]) out[in["id"].get<std::string>()] = in;
  return out;
}

json record(const SpiderFiles& f, const fs::path& out, std::vector<std::string> extra) {
  auto args = f.spider_args();
  args.insert(args.end(), {"--json", out.string(), "--no-progress"});
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_cli(args);
  EXPECT_EQ(r.rc, 0) << r.err;
  return json::parse(slurp(out));
}

std::string status_of(const json& in) {
  if (!in.contains("detail") || !in["detail"].is_object() || !in["detail"].contains("verify")) return "-";
  return in["detail"]["verify"].value("status", "");
}

bool has_metric(const json& rec, const std::string& name) {
  for (const json& m : rec["metrics"])
    if (m["name"] == name) return true;
  return false;
}

}  // namespace

TEST(VerifyRecord, SpiderRecordCarriesVerifiedExAndTheCounterexample) {
  SpiderFiles f;
  TempDir out;
  json plain = record(f, out / "plain.json", {});
  EXPECT_FALSE(has_metric(plain, "verified_ex"));
  EXPECT_FALSE(plain["summary"].contains("verify"));
  json rec = record(f, out / "v.json", {"--verify", "--verify-candidates", "150"});
  ASSERT_TRUE(has_metric(rec, "verified_ex"));
  EXPECT_EQ(rec["options"]["verify"]["candidates"], 150);
  EXPECT_EQ(rec["summary_text"], plain["summary_text"]);  // the official table is untouched
  auto in = by_id(rec);
  EXPECT_EQ(in["0"]["scores"]["exec"], 1);
  EXPECT_EQ(in["0"]["scores"]["verified_ex"], 0);  // missing filter: refuted
  const json& v0 = in["0"]["detail"]["verify"];
  EXPECT_EQ(v0["status"], "refuted");
  EXPECT_GT(v0["candidates"].get<int>(), 0);
  const json& cex = v0["counterexample"];
  ASSERT_FALSE(cex["rows"].empty());
  EXPECT_EQ(cex["rows"][0]["table"], "item");
  EXPECT_NE(cex["gold_result"]["rows"], cex["pred_result"]["rows"]);
  EXPECT_EQ(cex["pred_sql"], "SELECT name FROM item");
  EXPECT_EQ(in["1"]["scores"]["verified_ex"], 1);
  EXPECT_EQ(in["1"]["detail"]["verify"]["status"], "no_counterexample");
  EXPECT_FALSE(in["3"]["scores"].contains("verified_ex"));  // its gold fails: not graded by execution
  EXPECT_FALSE(in["3"]["detail"].contains("verify"));
  const json& s = rec["summary"]["verify"];
  EXPECT_EQ(s["graded"], 3);
  EXPECT_EQ(s["ex"], 3);
  EXPECT_EQ(s["verified_ex"], 2);
  EXPECT_EQ(s["refuted"], 1);
  EXPECT_EQ(s["refuted_ids"], json::array({"0"}));
}

TEST(VerifyRecord, DiffMergeAndReportReadVerifiedRecords) {
  SpiderFiles f;
  TempDir out;
  json a = record(f, out / "a.json", {"--verify", "--verify-candidates", "120"});
  // system B fixes the missing filter: same EX, one more verified match
  spit(fs::path(f.pred), "SELECT name FROM item WHERE price > 1\nSELECT count(id) FROM item\n"
                         "SELECT name FROM item ORDER BY price DESC LIMIT 1\nSELECT 1\n");
  json b = record(f, out / "b.json", {"--verify", "--verify-candidates", "120"});
  auto d = run_cli({"diff", (out / "a.json").string(), (out / "b.json").string(), "--json"});
  ASSERT_EQ(d.rc, 0) << d.err;
  json dj = json::parse(d.out);
  bool seen = false;
  for (const json& m : dj["overall"])
    if (m["metric"] == "verified_ex") {
      seen = true;
      EXPECT_EQ(m["n"], 3);
      EXPECT_NEAR(m["delta"].get<double>(), 1.0 / 3.0, 1e-9) << m.dump();
      EXPECT_TRUE(m.contains("mcnemar")) << m.dump();  // the binary metrics' statistics
    }
  EXPECT_TRUE(seen) << d.out;
  // shards 1/2 and 2/2 merged: the same verification as one run
  record(f, out / "s1.json", {"--verify", "--verify-candidates", "120", "--shard", "1/2"});
  record(f, out / "s2.json", {"--verify", "--verify-candidates", "120", "--shard", "2/2"});
  auto m = run_cli({"merge", (out / "s1.json").string(), (out / "s2.json").string(), "-o", (out / "m.json").string(), "--quiet"});
  ASSERT_EQ(m.rc, 0) << m.err;
  json merged = json::parse(slurp(out / "m.json"));
  for (const char* k : {"graded", "ex", "verified_ex", "refuted", "no_counterexample", "not_searched", "candidates", "refuted_ids"})
    EXPECT_EQ(merged["summary"]["verify"][k], b["summary"]["verify"][k]) << k;
  auto mi = by_id(merged), bi = by_id(b);
  ASSERT_EQ(mi.size(), bi.size());
  for (const auto& [id, in] : bi) {
    EXPECT_EQ(mi[id]["scores"], in["scores"]) << id;
    EXPECT_EQ(status_of(mi[id]), status_of(in)) << id;
  }
  // the report embeds the outcome for the page's "Refuted" filter and drill-down
  auto r = run_cli({"report", (out / "a.json").string(), (out / "b.json").string(), "-o", (out / "r.html").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string html = slurp(out / "r.html");
  EXPECT_NE(html.find("\"verify\":{"), std::string::npos);
  EXPECT_NE(html.find("addVerifyFilters"), std::string::npos);
}

TEST(VerifyRecord, BirdRecordCarriesTheVerificationUnderItsOwnIds) {
  TempDir t;
  make_sqlite(t / "db" / "d1" / "d1.sqlite",
              "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);"
              "INSERT INTO t VALUES (1,'a',1.5),(2,'b',2.5),(3,'c',NULL),(4,'d',4.0);");
  spit(t / "gold.sql", "SELECT name FROM t WHERE v > 1\td1\nSELECT count(*) FROM t\td1\nSELECT id FROM t\td1\n");
  spit(t / "q.jsonl", "{\"question_id\": 7, \"db_id\": \"d1\", \"difficulty\": \"simple\"}\n"
                      "{\"question_id\": 8, \"db_id\": \"d1\", \"difficulty\": \"simple\"}\n"
                      "{\"question_id\": 9, \"db_id\": \"d1\", \"difficulty\": \"simple\"}\n");
  const std::string sep = "\\t----- bird -----\\t";
  spit(t / "pred.json", "{\"0\": \"SELECT name FROM t WHERE v IS NOT NULL" + sep + "d1\", \"1\": \"SELECT count(id) FROM t" + sep +
                            "d1\", \"2\": \"SELECT name FROM t" + sep + "d1\"}");
  auto r = run_cli({"bird", "--predicted_sql_path", (t / "pred.json").string(), "--ground_truth_path", (t / "gold.sql").string(),
                    "--db_root_path", (t / "db").string(), "--diff_json_path", (t / "q.jsonl").string(), "--no-progress",
                    "--quiet", "--verify", "--verify-candidates", "120", "--json", (t / "rec.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  json rec = json::parse(slurp(t / "rec.json"));
  ASSERT_TRUE(has_metric(rec, "verified_ex"));
  auto in = by_id(rec);
  ASSERT_EQ(in.size(), 3u);
  const json& first = rec["instances"][0];
  EXPECT_EQ(first["scores"]["ex"], 1);
  EXPECT_EQ(first["scores"]["verified_ex"], 0);  // v = 0.5 is not NULL and not > 1
  EXPECT_EQ(first["detail"]["verify"]["status"], "refuted");
  EXPECT_EQ(rec["instances"][1]["detail"]["verify"]["status"], "no_counterexample");
  EXPECT_EQ(rec["instances"][2]["scores"]["verified_ex"], 0);  // not a match: no search, no verified score 1
  EXPECT_FALSE(rec["instances"][2]["detail"].contains("verify"));
  EXPECT_EQ(rec["summary"]["verify"]["refuted_ids"], json::array({first["id"]}));
  EXPECT_EQ(rec["summary"]["verify"]["graded"], 3);
}
