#pragma once
// Fixtures shared by the verification tests (verify_cli_test.cpp, verify_record_test.cpp): a Spider
// layout (one shop database, four golds, four predictions) whose first match is refuted (a missing
// filter), whose second and third are not, and whose fourth gold fails.
#include <string>
#include <vector>

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

}  // namespace sqlgrade::test
