#pragma once
// Shared by runs_benchmarks_test.cpp (Spider) and runs_benchmarks_bird_test.cpp: shards merged equal the
// whole run; several systems in one pass equal each graded alone.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sqlgrade/runs/ids.hpp"
#include "test_support.hpp"

namespace sqlgrade::test {

using json = nlohmann::json;


// What a record's instances say, without times: ids, scores, categories, SQL, failure reasons.
inline json verdicts(const json& rec) {
  json out = json::array();
  for (const auto& in : rec["instances"])
    out.push_back({in["id"], in["scores"], in["category"], in.value("pred_sql", json()), in.value("failure_reason", json())});
  return out;
}

// The database an instance of a record (JSON) belongs to: its "db" category (UDA: "dataset").
inline std::string db_of(const json& in) {
  for (const char* axis : {"db", "dataset"})
    if (in.contains("category") && in["category"].contains(axis)) return in["category"][axis].get<std::string>();
  return {};
}

// Grades `base` whole and in n shards (by_db: --shard-by db); checks every shard's record, the merge and
// its printed table.
inline void check_shards(const std::vector<std::string>& base, int n, const std::string& what, bool by_db = false) {
  TempDir t;
  std::string whole = (t / "whole.json").string();
  std::vector<std::string> a = base;
  a.insert(a.end(), {"--json", whole});
  CliResult w = run_cli(a);
  ASSERT_EQ(w.rc, 0) << what << ": " << w.err;
  json wj = json::parse(slurp(whole));
  ASSERT_TRUE(wj["summary_text"].is_string()) << what;
  const std::string table = wj["summary_text"].get<std::string>();
  EXPECT_GE(w.out.size(), table.size());
  EXPECT_EQ(w.out.substr(w.out.size() - table.size()), table) << what << ": the record's table ends the printed output";

  std::vector<std::string> merge = {"merge"};
  std::map<std::string, std::set<int>> dbs_seen;  // database -> the shards its instances are in
  size_t total = 0;
  for (int i = 1; i <= n; ++i) {
    std::string part = (t / ("part" + std::to_string(i) + ".json")).string();
    std::vector<std::string> pa = base;
    pa.insert(pa.end(), {"--shard", std::to_string(i) + "/" + std::to_string(n), "--json", part});
    if (by_db) pa.insert(pa.end(), {"--shard-by", "db"});
    CliResult r = run_cli(pa);
    ASSERT_EQ(r.rc, 0) << what << " shard " << i << ": " << r.err;
    json pj = json::parse(slurp(part));
    json expect_shard = {{"index", i}, {"count", n}};
    if (by_db) expect_shard["by"] = "db";
    EXPECT_EQ(pj["shard"], expect_shard) << what;
    // Recomputed here from the id or the database (the hash of ids.hpp), not read from the record.
    for (const auto& in : pj["instances"]) {
      const std::string key = by_db ? db_of(in) : in["id"].get<std::string>();
      EXPECT_FALSE(key.empty()) << what << ": " << in["id"] << " has no database";
      EXPECT_EQ(sqlgrade::runs::shard_of(key, static_cast<uint64_t>(n)), static_cast<uint64_t>(i - 1))
          << what << ": " << in["id"] << " (" << key << ") is not in shard " << i;
      if (by_db) dbs_seen[db_of(in)].insert(i);
    }
    total += pj["instances"].size();
    merge.push_back(part);
  }
  EXPECT_EQ(total, wj["instances"].size()) << what << ": the shards partition the questions";
  for (const auto& [db, shards] : dbs_seen) EXPECT_EQ(shards.size(), 1u) << what << ": database " << db << " in several shards";
  if (by_db) {
    EXPECT_GT(dbs_seen.size(), 1u) << what;
  }
  std::string merged = (t / "merged.json").string();
  merge.insert(merge.end(), {"-o", merged});
  CliResult m = run_cli(merge);
  ASSERT_EQ(m.rc, 0) << what << ": " << m.err;
  json mj = json::parse(slurp(merged));
  EXPECT_EQ(mj["summary"], wj["summary"]) << what;
  EXPECT_EQ(mj["summary_text"], wj["summary_text"]) << what;
  EXPECT_EQ(m.out, table) << what << ": merge prints the whole run's table";
  EXPECT_EQ(verdicts(mj), verdicts(wj)) << what;
}

// Grades each prediction file alone and all of them in one pass (--json-dir); same tables and records.
// records: each system's record name in --json-dir (default: the prediction file's stem).
inline void check_multi(const std::vector<std::string>& base, const std::string& flag, const std::vector<std::string>& preds,
                 const std::string& what, std::vector<std::string> records = {}) {
  TempDir t;
  std::vector<std::string> a = base;
  for (const auto& p : preds) a.insert(a.end(), {flag, p});
  a.insert(a.end(), {"--json-dir", (t / "records").string()});
  CliResult all = run_cli(a);
  ASSERT_EQ(all.rc, 0) << what << ": " << all.err;
  std::string expected;
  for (size_t k = 0; k < preds.size(); ++k) {
    std::string js = (t / ("alone" + std::to_string(k) + ".json")).string();
    std::vector<std::string> b = base;
    b.insert(b.end(), {flag, preds[k], "--json", js});
    CliResult one = run_cli(b);
    ASSERT_EQ(one.rc, 0) << what << ": " << one.err;
    expected += (k ? "\n" : "") + ("==> " + preds[k] + " <==\n") + one.out;
    std::string name = k < records.size() ? records[k] : fs::path(preds[k]).stem().string();
    json rec = json::parse(slurp(t / "records" / (name + ".json")));
    json alone = json::parse(slurp(js));
    EXPECT_EQ(rec["summary"], alone["summary"]) << what << " " << preds[k];
    EXPECT_EQ(rec["summary_text"], alone["summary_text"]) << what << " " << preds[k];
    EXPECT_EQ(verdicts(rec), verdicts(alone)) << what << " " << preds[k];
    EXPECT_EQ(rec["inputs"][1]["path"], preds[k]) << what;
  }
  EXPECT_EQ(all.out, expected) << what << ": each system's table byte-identical to grading it alone";
}


}  // namespace sqlgrade::test
