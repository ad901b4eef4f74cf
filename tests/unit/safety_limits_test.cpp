// Issue 12, item 12: memory per input file. Before: a prediction path that is /dev/zero (or a pipe) was
// read up to 2 GiB (~4 GiB RSS per worker), a 40 GB sparse file ended in "std::bad_alloc" without a file
// name, 20 MB of ',' or '(' on one prediction line cost 1.3-2.3 GB in the Spider tokenizers and 30 MB of
// NUL bytes 2.7 GB (a 300 MB all-NUL file was OOM-killed at 24 GB). Now every input file is bounded
// (256 MiB, --max-input-mb) with a one-line error naming it, and both Spider tokenizers keep a few
// bytes per token.
#include <gtest/gtest.h>

#include <chrono>

#include "safety_corpus.hpp"
#include "sqlgrade/engine/duckdb.hpp"
#include "sqlgrade/uda/judge/judge.hpp"
#include "sqlgrade/uda/query_shape.hpp"
#include "sqlgrade/spider/tokenize.hpp"
#include "sqlgrade/uda/driver.hpp"
#include "sqlgrade/uda/dataset.hpp"
#include "sqlgrade/core/memory.hpp"
#include "test_support.hpp"

namespace {

using namespace sqlgrade;
using namespace sqlgrade::test;
using Clock = std::chrono::steady_clock;


void expect_one_line(const CliResult& r, const std::string& file, const std::string& text, const std::string& what) {
  EXPECT_EQ(r.rc, 2) << what << "\nstderr: " << r.err.substr(0, 500);
  EXPECT_EQ(r.err.rfind("sqlgrade: ", 0), 0u) << what << ": " << r.err.substr(0, 500);
  EXPECT_EQ(r.err.find('\n'), r.err.empty() ? std::string::npos : r.err.size() - 1) << what << ": " << r.err.substr(0, 500);
  EXPECT_NE(r.err.find(file), std::string::npos) << what << ": " << r.err.substr(0, 500);
  EXPECT_NE(r.err.find(text), std::string::npos) << what << ": " << r.err.substr(0, 500);
}

struct LimitsSpiderFx {
  TempDir t;
  fs::path gold = t / "gold.txt", db = t / "db";
  LimitsSpiderFx() {
    make_sqlite(db / "adv" / "adv.sqlite", adversarial_db_script());
    spit(gold, std::string(adversarial_gold_sql()) + "\tadv\n");
  }
  std::vector<std::string> args(const fs::path& pred, std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"spider", "--gold", gold.string(), "--pred", pred.string(), "--db", db.string(),
                                  "--no-progress"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

TEST(SafetyLimits, SparseFileIsRefusedBeforeAnythingIsAllocated) {
  LimitsSpiderFx f;
  fs::path sparse = f.t / "sparse.txt";
  spit(sparse, "");
  fs::resize_file(sparse, size_t(40) << 30);  // 40 GiB of holes: nothing on disk
  auto t0 = Clock::now();
  auto r = run_cli(f.args(sparse));
  double el = std::chrono::duration<double>(Clock::now() - t0).count();
  expect_one_line(r, sparse.string(), "--max-input-mb", "40 GB sparse prediction file");
  EXPECT_NE(r.err.find("40960 MiB"), std::string::npos) << r.err;
  EXPECT_LT(el, 10);
  EXPECT_LT(children_peak_mib(), asan_scaled_mib(200));
}

TEST(SafetyLimits, DevZeroStopsAtTheBound) {
  LimitsSpiderFx f;
  fs::path zero = f.t / "pred.txt";
  fs::create_symlink("/dev/zero", zero);
  auto r = run_cli(f.args(zero));
  expect_one_line(r, zero.string(), "not a regular file", "/dev/zero as prediction file");
  // 256 MiB read in 1 MiB blocks, then refused (before: 2 GiB in a doubling string, 4.2 GB RSS).
  EXPECT_LT(children_peak_mib(), asan_scaled_mib(600)) << "peak RSS of the CLI";
  std::printf("[safety] /dev/zero as --pred: peak RSS %zu MiB\n", children_peak_mib());
}

TEST(SafetyLimits, MaxInputMbRaisesOrLowersTheBound) {
  LimitsSpiderFx f;
  fs::path pred = f.t / "pred.txt";
  spit(pred, std::string(adversarial_gold_sql()) + " -- " + std::string(3 << 20, 'x') + "\n");  // 3 MiB line
  expect_one_line(run_cli(f.args(pred, {"--max-input-mb", "2"})), pred.string(), "input limit of 2 MiB", "bound 2 MiB");
  auto ok = run_cli(f.args(pred, {"--max-input-mb", "4"}));
  EXPECT_EQ(ok.rc, 0) << ok.err;
  // Also before the subcommand, and for any command (bird here).
  auto a = f.args(pred);
  a.insert(a.begin(), {"--max-input-mb", "2"});
  expect_one_line(run_cli(a), pred.string(), "input limit of 2 MiB", "option before the subcommand");
  expect_one_line(run_cli({"bird", "--predicted_sql_path", pred.string(), "--ground_truth_path", f.gold.string(),
                           "--db_root_path", f.db.string(), "--max-input-mb", "1"}),
                  pred.string(), "input limit of 1 MiB", "bird");
  EXPECT_EQ(run_cli(f.args(pred, {"--max-input-mb", "0"})).rc, 2) << "a zero bound is refused";
}

// spider2 sql mode reads one <id>.sql per instance on each worker: /dev/zero there scores 0 with the
// reason, and two workers together stay far below the old 2 x 4 GiB.
TEST(SafetyLimits, Spider2PredictionFromDevZeroScoresZero) {
  TempDir t;
  fs::path gold = t / "gold", preds = t / "preds", dbs = t / "databases";
  fs::create_directories(gold / "exec_result");
  fs::create_directories(preds);
  make_sqlite(dbs / "adv.sqlite", adversarial_db_script());
  std::string eval, meta;
  for (const char* id : {"local001", "local002", "local003"}) {
    eval += std::string("{\"instance_id\": \"") + id + "\", \"condition_cols\": [], \"ignore_order\": true}\n";
    meta += std::string("{\"instance_id\": \"") + id + "\", \"db\": \"adv\"}\n";
    spit(gold / "exec_result" / (std::string(id) + ".csv"), "name\np7\n");
  }
  spit(gold / "spider2lite_eval.jsonl", eval);
  spit(t / "meta.jsonl", meta);
  fs::create_symlink("/dev/zero", preds / "local001.sql");
  fs::create_symlink("/dev/zero", preds / "local002.sql");
  spit(preds / "local003.sql", adversarial_gold_sql());
  auto r = run_cli({"spider2", "--mode", "sql", "--result_dir", preds.string(), "--gold_dir", gold.string(), "--db_dir",
                    dbs.string(), "--meta", (t / "meta.jsonl").string(), "--max_workers", "2", "--no-progress"});
  ASSERT_EQ(r.rc, 0) << r.err.substr(0, 1000);
  EXPECT_NE(r.out.find("Correct examples: 1, Total examples: 3"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("input limit"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_LT(children_peak_mib(), asan_scaled_mib(1000));
  std::printf("[safety] spider2, two /dev/zero predictions on 2 workers: peak RSS %zu MiB\n", children_peak_mib());
}

// The NLTK tokenizer keeps its tokens in one buffer with a 4-byte offset each.
TEST(SafetyLimits, SpiderTokenizerMemoryIsLinear) {
  std::string sql = "SELECT " + std::string(20'000'000, ',');
  size_t before = peak_rss_bytes();
  auto toks = spider::tokenize_list(sql);
  size_t grew = (peak_rss_bytes() - before) >> 20;
  EXPECT_EQ(toks.size(), 20'000'001u);
  EXPECT_EQ(toks[0], "select");
  EXPECT_EQ(toks[20'000'000], ",");
  // ~9 bytes per input byte in all (tokens, offsets and the padded intermediate text); was ~58.
  EXPECT_LT(grew, asan_scaled_mib(400)) << "peak RSS grew by " << grew << " MiB for 20 MB of commas";
  std::printf("[safety] spider tokenizer, 20 MB of ',': peak RSS +%zu MiB\n", grew);
}

// Whole CLI runs: the prediction line goes through the Spider parser, the test-suite evaluator's
// sqlparse lexer and SQLite.
TEST(SafetyLimits, HugeTokenCountsThroughTheSpiderCli) {
  LimitsSpiderFx f;
  struct Case {
    const char* name;
    std::string line;
    std::vector<std::string> extra;
    size_t cap_mib;  // before: 2254, 2254 and 2713 MB
  } cases[] = {
      {"20 MB of ','", "SELECT " + std::string(20'000'000, ','), {"--etype", "all", "--table", ""}, 900},
      {"20 MB of '('", "SELECT " + std::string(20'000'000, '('), {"--etype", "all", "--table", ""}, 900},
      {"30 MB of NUL", std::string(30'000'000, '\0'), {"--etype", "exec"}, 1200},
  };
  // A tables.json for --etype all (exact match needs the schema).
  spit(f.t / "tables.json",
       R"([{"db_id": "adv", "table_names_original": ["people", "pets"], "table_names": ["people", "pets"],
            "column_names_original": [[-1, "*"], [0, "id"], [0, "name"], [0, "score"], [1, "id"], [1, "owner"], [1, "kind"]],
            "column_names": [[-1, "*"], [0, "id"], [0, "name"], [0, "score"], [1, "id"], [1, "owner"], [1, "kind"]],
            "column_types": ["text", "number", "text", "number", "number", "number", "text"],
            "primary_keys": [1, 4], "foreign_keys": [[5, 1]]}])");
  for (auto& c : cases) {
    fs::path pred = f.t / "pred.txt";
    spit(pred, c.line + "\n");
    auto a = f.args(pred);
    for (size_t k = 0; k < c.extra.size(); ++k) a.push_back(c.extra[k] == "" ? (f.t / "tables.json").string() : c.extra[k]);
    // The peak of one child: each case runs in a fresh process and children_peak_rss_bytes keeps the
    // largest, so the cases are ordered by expected size and checked one by one.
    auto r = run_cli(a);
    EXPECT_EQ(r.rc, 0) << c.name << ": " << r.err.substr(0, 500);
    EXPECT_LT(children_peak_mib(), asan_scaled_mib(c.cap_mib)) << c.name;
    std::printf("[safety] spider CLI, %s on one line: peak RSS so far %zu MiB\n", c.name, children_peak_mib());
  }
}

// Item 15: DuckDB builds the list of a scalar range()/generate_series() in one step, outside
// memory_limit (range(1e9): 6 GB of RSS with a 1 GB limit) and beyond the interrupt. The UDA gold side
// now refuses those whose list would pass 64 MiB or whose size is not a constant; table functions
// (FROM range(...)) stream their rows and still run (the deadline stops them).
TEST(SafetyLimits, DuckDbListBuildersAreBoundedOnTheUdaGoldSide) {
  DuckDb db;
  auto c = db.connect();
  auto flagged = [&](const std::string& sql) { return uda::parse_query_shape(*c, sql).oversized_values; };
  const std::vector<std::string> refused = {
      "SELECT len(range(1000000000))", "SELECT range(1e9)", "SELECT generate_series(1, 3000000000)",
      "SELECT unnest(range(0, 2000000000, 2))", "SELECT len(range(1000 * 1000000))",
      "SELECT len(generate_series(TIMESTAMP '2000-01-01', TIMESTAMP '3000-01-01', INTERVAL 1 SECOND))",
      "SELECT list_transform(range(100000000::BIGINT), x -> x + 1)", "SELECT repeat('ab', 40000000)",
      "SELECT len(repeat([1, 2, 3], 10000000))", "SELECT count(*) FROM range(10) t WHERE len(range(t.range * 1000000000)) > 0"};
  for (auto& sql : refused) EXPECT_FALSE(flagged(sql).empty()) << sql;
  for (const char* sql : {"SELECT range(10)", "SELECT generate_series(-5, 5, 2)", "SELECT range(8000000)",
                          "SELECT count(*) FROM range(1000000000000) t", "SELECT * FROM generate_series(1, 3000000000) LIMIT 1",
                          "SELECT repeat('ab', 1000)", "SELECT count(*) FROM repeat(1, 100000000000)"})
    EXPECT_TRUE(flagged(sql).empty()) << sql << ": " << flagged(sql).at(0);

  // Through the gold runner, with a 1 GB memory limit: refused with a reason, no memory taken.
  fs::path shop = fs::path(fixtures()) / "uda" / "Shop";
  uda::DatasetOptions dopt;
  dopt.memory_limit = "1GB";
  uda::Dataset ds(shop, dopt);
  uda::EvalOptions eo;
  eo.gold_timeout_s = 2;
  uda::judge::RulesJudge jd;
  uda::Evaluator ev(ds, eo, jd);
  auto conn = ds.connect();
  size_t before = peak_rss_bytes();
  for (auto& sql : refused) {
    auto t0 = Clock::now();
    uda::GoldRun g = ev.run_gold(*conn, sql);
    double el = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_FALSE(g.error.empty()) << sql;
    EXPECT_LT(el, 5) << sql;
  }
  size_t grew = (peak_rss_bytes() - before) >> 20;
  EXPECT_LT(grew, asan_scaled_mib(300)) << "peak RSS grew by " << grew << " MiB";
  std::printf("[safety] uda gold, %zu list builders: peak RSS +%zu MiB\n", refused.size(), grew);
}

}  // namespace
