#pragma once
// A one-instance Spider 2.0-Lite local setup (gold folder, metadata, one SQLite database, one
// prediction as <id>.sql and <id>.csv) for the safety tests that run `sqlgrade spider2`.
#include <string>
#include <vector>

#include "safety_corpus.hpp"
#include "test_support.hpp"

namespace sqlgrade::test {

struct Spider2Fixture {
  TempDir t;
  // The predictions sit one level down so that <result_dir>_csv and <result_dir>-ids.csv stay inside t.
  fs::path gold = t / "gold", preds = t / "preds" / "sql_mode", dbs = t / "databases", meta = t / "meta.jsonl";
  Spider2Fixture() {
    fs::create_directories(gold / "exec_result");
    fs::create_directories(preds);
    make_sqlite(dbs / "adv.sqlite", adversarial_db_script());
    spit(gold / "spider2lite_eval.jsonl", "{\"instance_id\": \"local001\", \"condition_cols\": [], \"ignore_order\": true}\n");
    spit(meta, "{\"instance_id\": \"local001\", \"db\": \"adv\"}\n");
    spit(gold / "exec_result" / "local001.csv", "name\np7\n");
    spit(preds / "local001.sql", adversarial_gold_sql());
    spit(preds / "local001.csv", "name\np7\n");
  }
  // spider2 --mode MODE on this setup; argument 6 is the gold folder.
  std::vector<std::string> args(const std::string& mode = "sql", std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"spider2", "--mode", mode, "--result_dir", preds.string(), "--gold_dir", gold.string(),
                                  "--db_dir", dbs.string(), "--meta", meta.string(), "--no-progress"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

}  // namespace sqlgrade::test
