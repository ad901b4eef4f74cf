#pragma once
// Fixtures shared by the verification tests: a Spider layout (verify_cli_test.cpp,
// verify_record_test.cpp: one shop database, four golds, four predictions) whose first match is refuted
// (a missing filter), whose second and third are not, and whose fourth gold fails; and the search item
// and budget of the search's own tests (witness, suspect, constraints).
#include <string>
#include <vector>

#include "sqlgrade/verify/verify.hpp"
#include "test_support.hpp"

namespace sqlgrade::test {

struct SpiderFiles {
  TempDir dir;
  std::string db = (dir / "db").string(), gold = (dir / "gold.sql").string(), pred = (dir / "pred.sql").string();
  SpiderFiles() {
    make_sqlite(dir / "db/shop/shop.sqlite",
                std::string(kShopSchemaSql) +
                    "INSERT INTO shop VALUES (1,'Paris'),(2,'Lyon');"
                    "INSERT INTO item VALUES (1,'pen',2.5,1),(2,'ink',4.0,1),(3,'cup',7.0,2),(4,'mug',7.0,2);");
    spit(dir / "gold.sql",
         "SELECT name FROM item WHERE price > 1\tshop\n"
         "SELECT count(*) FROM item\tshop\n"
         "SELECT name FROM item ORDER BY price DESC LIMIT 1\tshop\n"
         "SELECT nope FROM item\tshop\n");
    spit(dir / "pred.sql",
         "SELECT name FROM item\n"
         "SELECT count(id) FROM item\n"
         "SELECT name FROM item ORDER BY price DESC LIMIT 1\n"
         "SELECT 1\n");
  }
  std::vector<std::string> spider_args() const { return {"spider", "--gold", gold, "--pred", pred, "--db", db, "--etype", "exec"}; }
};

// One search item on a database file under Spider's test-suite rule.
inline verify::Item search_item(const std::string& db, const std::string& gold, const std::string& pred,
                                bool order_matters = false, const std::string& id = "t") {
  verify::Item it;
  it.id = id;
  it.db_path = db;
  it.gold_sql = gold;
  it.pred_sql = pred;
  it.rule.rule = verify::Rule::SpiderTestSuite;
  it.rule.order_matters = order_matters;
  return it;
}

// The search tests' budget: 200 candidates (the bound that decides), a 30 s cap that never does.
inline verify::Budget search_budget() {
  verify::Budget b;
  b.candidates = 200;
  b.seconds = 30;
  return b;
}

}  // namespace sqlgrade::test
