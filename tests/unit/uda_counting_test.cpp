// UDA-Bench runs that go wrong: results without their key columns.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sqlgrade/suites/uda.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::uda;
using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

std::string shop() { return fixtures() + "/uda/Shop"; }

QueryEval eval_shop(const std::string& sql, const std::string& result_csv) {
  TempDir tmp;
  spit(tmp / "result.csv", result_csv);
  Dataset ds(shop());
  judge::RulesJudge rules;
  Evaluator ev(ds, EvalOptions{}, rules);
  auto conn = ds.connect();
  return ev.evaluate(*conn, sql, tmp / "result.csv");
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
