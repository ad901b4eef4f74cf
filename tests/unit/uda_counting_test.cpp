// UDA-Bench runs that go wrong: results without their key columns, missing and unreadable results in
// the summary's counts and averages, --require-all, a trailing comma; matched CSVs in id order; gold
// rows without an id reported once at load time.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sqlgrade/uda/driver.hpp"
#include "uda_test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::uda;
using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {


// A one-table dataset whose gold rows are not in id order; `extra` rows are appended to the CSV.
fs::path zoo(const TempDir& tmp, const std::string& extra = "") {
  fs::path d = tmp / "Query/Zoo";
  spit(d / "animals.csv", "id,name,legs\n10,Zebra,4\n2,Bear,4\n1,Ant,6\n3,Cat,4\n" + extra);
  spit(d / "Zoo_attributes.json",
       R"({"animals": {"name": {"value_type": "str", "description": "animal"},
                        "legs": {"value_type": "int", "description": "number of legs"}}})");
  spit(d / "Select/select_queries.sql", "-- Query 1: select (animals)\nSELECT name, legs FROM animals;\n");
  return d;
}

QueryEval eval_shop(const std::string& sql, const std::string& result_csv) {
  TempDir tmp;
  spit(tmp / "result.csv", result_csv);
  Dataset ds(shop());
  judge::RulesJudge rules;
  Evaluator ev(ds, EvalOptions{}, rules);
  auto conn = ds.connect();
  return ev.evaluate(*conn, sql, tmp / "result.csv");
}

// Numbers of the "all" line of `uda run`'s table.
std::vector<std::string> all_line(const std::string& out) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("all ", 0) == 0) {
      std::istringstream ws(line);
      std::vector<std::string> v;
      for (std::string w; ws >> w;) v.push_back(w);
      return v;
    }
  return {};
}

}  // namespace

TEST(UdaKeys, MissingKeyColumnScoresZeroWithReason) {
  // Select/filter: no id / file_name column.
  auto s = eval_shop("SELECT name, price, stock FROM products", "name,price,stock\nWidget,2.5,10\nGadget,10,1200\n");
  EXPECT_EQ(s.status, "error");
  EXPECT_NE(s.reason.find("'id'"), std::string::npos) << s.reason;
  EXPECT_EQ(s.match.macro_f1, 0.0);
  EXPECT_EQ(s.match.len_gold, 4u);  // the real gold size, also when the query cannot be scored
  EXPECT_EQ(s.match.len_pred, 2u);

  // Join: one of the <t>.id keys missing.
  auto j = eval_shop("SELECT products.name, company.country FROM products JOIN company ON products.maker = company.company_name",
                     "products.file_name,name,country\n1.txt,Widget,USA\n");
  EXPECT_EQ(j.status, "error");
  EXPECT_NE(j.reason.find("'company.id'"), std::string::npos) << j.reason;

  // Aggregation: the GROUP BY column missing. The gold has a NULL group (Initech's employees);
  // treated as NULL keys, the result's one row used to match it and score n with P = 1.0.
  auto a = eval_shop("SELECT employees, COUNT(*) AS n FROM company GROUP BY employees", "n\n1\n");
  EXPECT_EQ(a.status, "error");
  EXPECT_NE(a.reason.find("'employees'"), std::string::npos) << a.reason;
  EXPECT_EQ(a.match.macro_precision, 0.0);
  EXPECT_EQ(a.match.len_gold, 3u);

  // Through the CLI: exit 1, the reason on stderr and in acc.json.
  TempDir tmp;
  spit(tmp / "q/result.csv", "name,price,stock\nWidget,2.5,10\n");
  auto r = run_cli({"uda", "eval", "--dataset-dir", shop(), "--sql-file", shop() + "/Select/select_queries.sql",
                    "--query-id", "1", "--result-csv", (tmp / "q/result.csv").string(), "--quiet"});
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("'id'"), std::string::npos) << r.err;
  json acc = json::parse(slurp(tmp / "q/acc_result/acc.json"));
  EXPECT_EQ(acc["status"], "error");
  EXPECT_EQ(acc["rows"]["len_gold"], 4);
}

TEST(UdaSummary, EveryGoldBearingStatementCounts) {
  TempDir tmp;
  // Shop (6 statements) plus one statement whose gold SQL cannot run.
  fs::path q = tmp / "Query/Shop";
  fs::create_directories(q.parent_path());
  fs::copy(shop(), q, fs::copy_options::recursive);
  spit(q / "Filter/zz_broken.sql", "-- Query 1: broken (products)\nSELECT no_such_column FROM products;\n");
  fs::path runs = tmp / "runs";
  auto g = run_cli({"uda", "gold", "--dataset-dir", q.string(), "--out", runs.string(), "--as-result"});
  ASSERT_EQ(g.rc, 0) << g.err;
  // Select 1: no result at all; Select 2: a row with an extra non-empty field (unreadable).
  fs::remove(runs / "Shop/Select/select_queries/1/result.csv");
  spit(runs / "Shop/Select/select_queries/2/result.csv", "file_name,name,tags\n1.txt,Widget,red\n2.txt,Gadget,blue,oops\n");

  auto r = run_cli({"uda", "run", "--dataset-dir", q.string(), "--results", runs.string()});
  ASSERT_EQ(r.rc, 0) << r.err;  // without --require-all a run with errors still succeeds
  json s = json::parse(slurp(runs / "Shop/summary.json"));
  json& all = s["overall"];
  EXPECT_EQ(all["statements"], 7);
  EXPECT_EQ(all["scored"], 4);
  EXPECT_EQ(all["result_errors"], 1);
  EXPECT_EQ(all["missing_results"], 1);
  EXPECT_EQ(all["gold_errors"], 1);
  EXPECT_EQ(all["averaged_over"], 6);
  // Headline: 4 perfect statements and 2 zeros over the 6 statements with a gold result.
  EXPECT_NEAR(all["macro_f1"].get<double>(), 4.0 / 6, 1e-12);
  EXPECT_NEAR(all["macro_precision"].get<double>(), 4.0 / 6, 1e-12);
  EXPECT_EQ(all["scored_only"]["statements"], 4);
  EXPECT_EQ(all["scored_only"]["macro_f1"], 1.0);
  json& sel = s["by_task"]["Select"];
  EXPECT_EQ(sel["statements"], 2);
  EXPECT_EQ(sel["scored"], 0);
  EXPECT_EQ(sel["macro_f1"], 0.0);
  json& fil = s["by_task"]["Filter"];
  EXPECT_EQ(fil["gold_errors"], 1);
  EXPECT_EQ(fil["macro_f1"], 1.0);
  ASSERT_EQ(s["gold_errors"].size(), 1u);
  EXPECT_EQ(s["gold_errors"][0]["path"], "Shop/Filter/zz_broken/1");
  EXPECT_NE(s["gold_errors"][0]["reason"].get<std::string>().find("no_such_column"), std::string::npos);
  std::map<std::string, json> by_path;
  for (auto& e : s["queries"]) by_path[e["path"]] = e;
  ASSERT_EQ(by_path.size(), 7u);
  EXPECT_EQ(by_path["Shop/Select/select_queries/1"]["error_kind"], "missing_result");
  EXPECT_EQ(by_path["Shop/Select/select_queries/1"]["len_gold"], 4);
  EXPECT_EQ(by_path["Shop/Select/select_queries/2"]["error_kind"], "result_error");
  EXPECT_EQ(by_path["Shop/Filter/zz_broken/1"]["error_kind"], "gold_error");
  // acc.json of the unreadable result: status, the line, and the real gold size.
  json acc = json::parse(slurp(runs / "Shop/Select/select_queries/2/acc_result/acc.json"));
  EXPECT_EQ(acc["status"], "error");
  EXPECT_NE(acc["reason"].get<std::string>().find(":3"), std::string::npos) << acc["reason"];
  EXPECT_EQ(acc["rows"]["len_gold"], 4);
  // summary.csv has the kind of every error.
  std::string csv = slurp(runs / "Shop/summary.csv");
  EXPECT_NE(csv.find("error_kind"), std::string::npos);
  EXPECT_NE(csv.find("missing_result"), std::string::npos);
  // The printed table: named columns, the headline and the scored-only F1 on the "all" line.
  EXPECT_NE(r.out.find("statements"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("missing"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("scored_only_f1"), std::string::npos) << r.out;
  auto line = all_line(r.out);
  ASSERT_GE(line.size(), 10u) << r.out;
  EXPECT_EQ(line[1], "7");                      // statements
  EXPECT_EQ(line[line.size() - 2], "0.667");    // f1 over the 6 gold-bearing statements
  EXPECT_EQ(line.back(), "1.000");              // f1 of the scored statements only

  // --require-all: exit 1 when a result is missing or unreadable, the counts on stderr.
  auto strict = run_cli({"uda", "run", "--dataset-dir", q.string(), "--results", runs.string(), "--require-all"});
  EXPECT_EQ(strict.rc, 1);
  EXPECT_NE(strict.err.find("1 missing"), std::string::npos) << strict.err;
  // ... and 0 when every gold-bearing statement has a readable result (gold errors do not count).
  auto g2 = run_cli({"uda", "gold", "--dataset-dir", q.string(), "--out", runs.string(), "--as-result"});
  ASSERT_EQ(g2.rc, 0);
  auto ok = run_cli({"uda", "run", "--dataset-dir", q.string(), "--results", runs.string(), "--require-all"});
  EXPECT_EQ(ok.rc, 0) << ok.err;
}

TEST(UdaResultCsv, TrailingCommaOnOneRowIsTolerated) {
  auto r = eval_shop("SELECT name, price, stock FROM products",
                     "file_name,name,price,stock\n1.txt,Widget,2.5,10,\n2.txt,Gadget,10,1200\n3.txt,Doohickey,0.75,0\n"
                     "4.txt,Thingamajig,100,5\n");
  ASSERT_EQ(r.status, "ok") << r.reason;
  EXPECT_EQ(r.match.macro_f1, 1.0);
  bool noted = false;
  for (auto& w : r.warnings) noted |= w.find("line 2") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(UdaOutputs, MatchedCsvsInIdOrder) {
  TempDir tmp;
  fs::path d = zoo(tmp);
  spit(tmp / "q/result.csv", "file_name,name,legs\n3.txt,cat,4\n10.txt,Zebra,4\n1.txt,Ant,8\n2.txt,Bear,4\n");
  auto r = run_cli({"uda", "eval", "--dataset-dir", d.string(), "--sql-file", (d / "Select/select_queries.sql").string(),
                    "--result-csv", (tmp / "q/result.csv").string(), "--quiet"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(slurp(tmp / "q/acc_result/matched_gold_result.csv"), "id,name,legs\n1,Ant,6\n2,Bear,4\n3,Cat,4\n10,Zebra,4\n");
  EXPECT_EQ(slurp(tmp / "q/acc_result/matched_result.csv"),
            "file_name,name,legs\n1.txt,Ant,8\n2.txt,Bear,4\n3.txt,cat,4\n10.txt,Zebra,4\n");
}

TEST(UdaGold, IdLessGoldRowsReportedOnceAtLoad) {
  TempDir tmp;
  fs::path d = zoo(tmp, ",Ghost,0\n,Phantom,0\n");
  fs::path runs = tmp / "runs";
  auto g = run_cli({"uda", "gold", "--dataset-dir", d.string(), "--out", runs.string(), "--as-result"});
  ASSERT_EQ(g.rc, 0) << g.err;
  json gs = json::parse(slurp(runs / "Zoo/gold_summary.json"));
  std::string notes = gs["load_notes"].dump();
  EXPECT_NE(notes.find("animals.csv: 2 rows without an id"), std::string::npos) << notes;
  auto r = run_cli({"uda", "run", "--dataset-dir", d.string(), "--results", runs.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  json acc = json::parse(slurp(runs / "Zoo/Select/select_queries/1/acc_result/acc.json"));
  EXPECT_EQ(acc["macro_f1"], 1.0);  // gold fed back still scores 1, the id-less rows included
  for (auto& w : acc["warnings"]) EXPECT_EQ(w.get<std::string>().find("several rows"), std::string::npos) << w;
}
