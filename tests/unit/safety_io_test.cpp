// Issue 19, findings 10-13: stdin, outputs over inputs, deeply nested JSON, and the report's cost.
//  10. `extract-sql`, `extract-sql --jsonl` and `spider parse` read stdin with no bound: /dev/zero
//      passed 3 GB in ~50 s even with --max-input-mb 10. Now stdin goes through the bounded reader.
//  11. `bird --json-dir <the predictions' folder>` replaced the prediction files with run records;
//      --json / --output_log_path / -o could overwrite a prediction, gold or record. Now refused.
//  12. `diff`, `report` and `merge` crashed (SIGSEGV, exit 139) on a run record nested 200,000 deep.
//  13. `report` was quadratic in the distinct values of a category (2 x 20,000 instances with one
//      database each: 48 s against 2.5 s with one value).
// Every test here fails on 515102e (SQLGRADE_CLI_UNDER_TEST=/work/baseline/sqlgrade-515102e), except
// the ones marked "(extra)", which cover other inputs the same change bounds.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runs_support.hpp"
#include "safety_cli.hpp"
#include "safety_corpus.hpp"
#include "safety_spider2_fixture.hpp"
#include "sqlgrade/core/memory.hpp"
#include "test_support.hpp"

namespace {

using namespace sqlgrade;
using namespace sqlgrade::test;
using json = nlohmann::json;


// ---------------------------------------------------------------- 10: stdin

void expect_stdin_bounded(const std::vector<std::string>& args, size_t limit_mib) {
  TimedResult r = run_cli_timed(args, 30, "/dev/zero");
  std::string what;
  for (const auto& a : args) what += a + " ";
  expect_one_line_error(r, {"<stdin>", "is not a regular file and yields more than", "--max-input-mb"}, what + "< /dev/zero");
  EXPECT_LT(r.seconds, 10) << what;
  EXPECT_LT(children_peak_mib(), asan_scaled_mib(limit_mib)) << what << ": peak RSS of the CLI";
  std::printf("[safety] %s< /dev/zero: %.2f s, peak RSS so far %zu MiB\n", what.c_str(), r.seconds, children_peak_mib());
}

}  // namespace

TEST(SafetyStdin, DevZeroStopsAtTheInputBound) {
  TempDir t;
  spit(t / "tables.json", kShopTablesJson);
  expect_stdin_bounded({"--max-input-mb", "10", "extract-sql"}, 120);
  expect_stdin_bounded({"--max-input-mb", "10", "extract-sql", "--jsonl"}, 120);
  expect_stdin_bounded({"--max-input-mb", "10", "spider", "parse", "--table", (t / "tables.json").string()}, 120);
  // The default bound (256 MiB) holds too.
  expect_stdin_bounded({"extract-sql", "--jsonl"}, 600);
}

TEST(SafetyStdin, RegularFileOnStdinIsCheckedBeforeReading) {
  TempDir t;
  fs::path big = t / "big.txt";
  spit(big, "");
  fs::resize_file(big, size_t(20) << 20);  // 20 MiB of holes
  TimedResult r = run_cli_timed({"--max-input-mb", "10", "extract-sql"}, 30, big.string());
  expect_one_line_error(r, {"<stdin>", "is 20 MiB, more than the input limit of 10 MiB"}, "extract-sql < 20 MiB file");
  // Within the bound stdin still works, as before.
  spit(t / "a.txt", "Here:\n```sql\nSELECT 1\n```\n");
  r = run_cli_timed({"extract-sql"}, 30, (t / "a.txt").string());
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "SELECT 1\n");
}

// ---------------------------------------------------------------- 11: outputs over inputs

namespace {

struct IoFx {
  TempDir t;
  fs::path db = t / "db", preds = t / "preds", spider_gold = t / "gold.txt", bird_gold = t / "gold.sql";
  IoFx() {
    make_sqlite(db / "adv" / "adv.sqlite", adversarial_db_script());
    const std::string sql = adversarial_gold_sql();
    spit(spider_gold, sql + "\tadv\n");
    spit(preds / "c3.txt", sql + "\n");
    spit(bird_gold, sql + "\tadv\n");
    spit(preds / "gpt.json", json{{"0", sql + "\t----- bird -----\tadv"}}.dump());
  }
  std::vector<std::string> spider(std::vector<std::string> extra) const {
    std::vector<std::string> a = {"spider", "--gold", spider_gold.string(), "--pred", (preds / "c3.txt").string(), "--db",
                                  db.string(), "--no-progress"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  std::vector<std::string> bird(std::vector<std::string> extra) const {
    std::vector<std::string> a = {"bird", "--predicted_sql_path", (preds / "gpt.json").string(), "--ground_truth_path",
                                  bird_gold.string(), "--db_root_path", db.string(), "--no-progress", "--quiet"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

// The command is refused with one line naming both files, and every input is byte-identical after.
void expect_refused(const std::vector<std::string>& args, const fs::path& output, const fs::path& input,
                    const std::vector<fs::path>& untouched) {
  std::vector<std::string> before;
  for (const auto& f : untouched) before.push_back(file_hash(f));
  TimedResult r = run_cli_timed(args, 60);
  std::string what;
  for (const auto& a : args) what += a + " ";
  expect_one_line_error(r, {output.string(), input.string(), "would replace"}, what);
  for (size_t i = 0; i < untouched.size(); ++i) EXPECT_EQ(file_hash(untouched[i]), before[i]) << untouched[i] << " changed: " << what;
}

}  // namespace

TEST(SafetyOutputs, BirdRecordsAndLogNeverReplaceAnInput) {
  IoFx f;
  const fs::path pred = f.preds / "gpt.json", db = f.db / "adv" / "adv.sqlite";
  const std::vector<fs::path> inputs = {pred, f.bird_gold, db};
  // The issue's case: --json-dir names the record after the prediction file: preds/gpt.json.
  expect_refused(f.bird({"--json-dir", f.preds.string()}), pred, pred, inputs);
  expect_refused(f.bird({"--json", pred.string()}), pred, pred, inputs);
  expect_refused(f.bird({"--json", f.bird_gold.string()}), f.bird_gold, f.bird_gold, inputs);
  expect_refused(f.bird({"--output_log_path", f.bird_gold.string()}), f.bird_gold, f.bird_gold, inputs);
  expect_refused(f.bird({"--output_log_path", pred.string()}), pred, pred, inputs);
  expect_refused(f.bird({"--json", db.string()}), db, f.db, inputs);
  // A hard link or a path through a symlinked folder is the same file.
  fs::create_hard_link(pred, f.t / "link.json");
  expect_refused(f.bird({"--json", (f.t / "link.json").string()}), f.t / "link.json", pred, inputs);
  fs::create_directory_symlink(f.preds, f.t / "alias");
  expect_refused(f.bird({"--json-dir", (f.t / "alias").string()}), f.t / "alias" / "gpt.json", pred, inputs);
  // Outputs elsewhere still work.
  TimedResult ok = run_cli_timed(f.bird({"--json-dir", (f.t / "records").string(), "--output_log_path", (f.t / "log.txt").string()}));
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_TRUE(fs::exists(f.t / "records" / "gpt.json"));
}

TEST(SafetyOutputs, SpiderRecordsAndParseOutputNeverReplaceAnInput) {
  IoFx f;
  const fs::path pred = f.preds / "c3.txt", db = f.db / "adv" / "adv.sqlite";
  const std::vector<fs::path> inputs = {pred, f.spider_gold, db};
  expect_refused(f.spider({"--json", pred.string()}), pred, pred, inputs);
  expect_refused(f.spider({"--json", f.spider_gold.string()}), f.spider_gold, f.spider_gold, inputs);
  expect_refused(f.spider({"--json", db.string()}), db, f.db, inputs);
  // --json-dir names the record after the prediction file: p2/c3.json for the prediction p2/c3.json.
  spit(f.t / "p2" / "c3.json", "SELECT 1\n");
  expect_refused({"spider", "--gold", f.spider_gold.string(), "--pred", (f.t / "p2" / "c3.json").string(), "--db", f.db.string(),
                  "--json-dir", (f.t / "p2").string()},
                 f.t / "p2" / "c3.json", f.t / "p2" / "c3.json", {f.t / "p2" / "c3.json", f.spider_gold});
  spit(f.t / "tables.json", kShopTablesJson);
  spit(f.t / "in.tsv", "SELECT city FROM shop\tshop\n");
  expect_refused({"spider", "parse", "--table", (f.t / "tables.json").string(), "--input", (f.t / "in.tsv").string(), "-o",
                  (f.t / "tables.json").string()},
                 f.t / "tables.json", f.t / "tables.json", {f.t / "tables.json"});
  expect_refused({"spider", "parse", "--table", (f.t / "tables.json").string(), "--input", (f.t / "in.tsv").string(), "-o",
                  (f.t / "in.tsv").string()},
                 f.t / "in.tsv", f.t / "in.tsv", {f.t / "in.tsv"});
}

TEST(SafetyOutputs, RunRecordCommandsNeverReplaceAnInput) {
  IoFx f;
  runs::RunRecord a = base_run("a"), b = base_run("b");
  for (int i = 0; i < 20; ++i) {
    a.instances.push_back(inst(std::to_string(i), i % 2, 0.5, "easy"));
    b.instances.push_back(inst(std::to_string(i), i % 3 == 0, 0.5, "easy"));
  }
  const fs::path ra = write_run(f.t, "a.json", a), rb = write_run(f.t, "b.json", b);
  expect_refused({"diff", ra.string(), rb.string(), "--json-out", rb.string()}, rb, rb, {ra, rb});
  expect_refused({"report", ra.string(), rb.string(), "-o", ra.string()}, ra, ra, {ra, rb});
  a.shard = runs::Shard{1, 2}, b.shard = runs::Shard{2, 2};
  const fs::path pa = write_run(f.t, "p1.json", a), pb = write_run(f.t, "p2.json", b);
  expect_refused({"merge", pa.string(), pb.string(), "-o", pb.string()}, pb, pb, {pa, pb});
  TimedResult ok = run_cli_timed({"report", ra.string(), rb.string(), "-o", (f.t / "r.html").string()});
  EXPECT_EQ(ok.rc, 0) << ok.err;
}

TEST(SafetyOutputs, Spider2OutputsNeverReplaceAnInput) {
  Spider2Fixture f;
  const fs::path meta = f.meta, eval = f.gold / "spider2lite_eval.jsonl", pred = f.preds / "local001.sql";
  const std::vector<fs::path> inputs = {meta, eval, pred, f.gold / "exec_result" / "local001.csv"};
  expect_refused(f.args("sql", {"--json", meta.string()}), meta, meta, inputs);
  expect_refused(f.args("sql", {"--json", pred.string()}), pred, f.preds, inputs);
  expect_refused(f.args("sql", {"--json", eval.string()}), eval, f.gold, inputs);
  expect_refused(f.args("sql", {"--v2", "--errors_log", meta.string()}), meta, meta, inputs);
  // <result_dir>_csv is cleared of its CSVs: a gold CSV hard-linked there is an input.
  fs::create_directories(f.t / "preds" / "sql_mode_csv");
  fs::create_hard_link(f.gold / "exec_result" / "local001.csv", f.t / "preds" / "sql_mode_csv" / "gold.csv");
  expect_refused(f.args("sql"), f.t / "preds" / "sql_mode_csv" / "gold.csv", f.gold / "exec_result" / "local001.csv", inputs);
}

TEST(SafetyOutputs, UdaOutputsNeverReplaceAnInput) {
  TempDir t;
  const fs::path q = t / "Query" / "Shop";
  fs::create_directories(q.parent_path());
  fs::copy(std::string(SQLGRADE_FIXTURES) + "/uda/Shop", q, fs::copy_options::recursive);
  spit(t / "r" / "result.csv", "name,price,stock\nWidget,2.5,10\n");
  const fs::path sqlf = q / "Select" / "select_queries.sql", attrs = q / "Shop_attributes.json";
  const std::vector<fs::path> inputs = {sqlf, attrs, q / "Products.csv"};
  // --output-dir is replaced whole: the dataset folder would have been deleted.
  std::vector<std::string> before;
  TimedResult r = run_cli_timed({"uda", "eval", "--dataset-dir", q.string(), "--sql-file", sqlf.string(), "--query-id", "1",
                                 "--result-csv", (t / "r" / "result.csv").string(), "--output-dir", q.string(), "--quiet"});
  expect_one_line_error(r, {q.string(), "would remove"}, "uda eval --output-dir <dataset>");
  for (const auto& f : inputs) EXPECT_TRUE(fs::exists(f)) << f;
  expect_refused({"uda", "run", "--dataset-dir", q.string(), "--results", (t / "runs").string(), "--json", attrs.string()},
                 attrs, q, inputs);
  expect_refused({"uda", "eval", "--dataset-dir", q.string(), "--sql-file", sqlf.string(), "--query-id", "1", "--result-csv",
                  (t / "r" / "result.csv").string(), "--judge-log", sqlf.string(), "--quiet"},
                 sqlf, sqlf, inputs);
  // `gold` writes <out>/<Dataset>/gold_summary.json: here that is the attributes file it reads.
  fs::copy_file(attrs, q / "gold_summary.json");
  expect_refused({"uda", "gold", "--dataset-dir", q.string(), "--out", (t / "Query").string(), "--attributes-file",
                  (q / "gold_summary.json").string()},
                 q / "gold_summary.json", q / "gold_summary.json", {q / "gold_summary.json", sqlf});
}

TEST(SafetyOutputs, BirdSubsetNeverReplacesItsData) {
  TempDir t;
  spit(t / "bird" / "train.json", R"([{"db_id": "works_cycles", "question": "q", "SQL": "SELECT 1", "evidence": ""}])");
  expect_refused({"bird", "subset", "--data", (t / "bird" / "train.json").string(), "--out", (t / "bird").string()},
                 t / "bird" / "train.json", t / "bird" / "train.json", {t / "bird" / "train.json"});
}

// ---------------------------------------------------------------- issue 31: every command, every input
// `verify spider|bird|spider2 --json`, `audit --json` and --counterexamples were not checked: they replaced
// the prediction, the gold or a benchmark database (exit 0). Every test below fails on c44d4a9
// (SQLGRADE_CLI_UNDER_TEST=<c44d4a9's build/sqlgrade>).

namespace {

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& extra) {
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

}  // namespace

TEST(SafetyOutputs, VerifyAndAuditNeverReplaceAnInput) {
  IoFx f;
  const fs::path c3 = f.preds / "c3.txt", gpt = f.preds / "gpt.json", db = f.db / "adv" / "adv.sqlite";
  const std::vector<fs::path> inputs = {c3, gpt, f.spider_gold, f.bird_gold, db};
  const std::vector<std::string> vs = {"verify", "spider", "--gold", f.spider_gold.string(), "--pred", c3.string(),
                                       "--db", f.db.string(), "--verify-budget", "1", "--verify-candidates", "5",
                                       "--no-progress"};
  const std::vector<std::string> vb = {"verify", "bird", "--pred", gpt.string(), "--gold", f.bird_gold.string(), "--db",
                                       f.db.string(), "--verify-budget", "1", "--verify-candidates", "5", "--no-progress"};
  const std::vector<std::string> au = {"audit", "--benchmark", "spider", "--gold", f.spider_gold.string(), "--db",
                                       f.db.string(), "--pred", c3.string()};
  // The issue's cases: a database, the prediction, the gold.
  expect_refused(with(vs, {"--json", db.string()}), db, f.db, inputs);
  expect_refused(with(vs, {"--json", c3.string()}), c3, c3, inputs);
  expect_refused(with(vs, {"--json", f.spider_gold.string()}), f.spider_gold, f.spider_gold, inputs);
  expect_refused(with(vb, {"--json", db.string()}), db, f.db, inputs);
  expect_refused(with(vb, {"--json", gpt.string()}), gpt, gpt, inputs);
  expect_refused(with(vb, {"--json", f.bird_gold.string()}), f.bird_gold, f.bird_gold, inputs);
  expect_refused(with(au, {"--json", db.string()}), db, f.db, inputs);
  expect_refused(with(au, {"--json", c3.string()}), c3, c3, inputs);
  // The same file through another path: "./", "..", a symlinked folder, a hard link.
  expect_refused(with(vs, {"--json", (f.preds / "." / "c3.txt").string()}), f.preds / "." / "c3.txt", c3, inputs);
  expect_refused(with(vb, {"--json", (f.db / "adv" / ".." / "adv" / "adv.sqlite").string()}),
                 f.db / "adv" / ".." / "adv" / "adv.sqlite", f.db, inputs);
  fs::create_directory_symlink(f.db / "adv", f.t / "alias");
  expect_refused(with(au, {"--json", (f.t / "alias" / "adv.sqlite").string()}), f.t / "alias" / "adv.sqlite", f.db, inputs);
  fs::create_hard_link(f.spider_gold, f.t / "gold-link.txt");
  expect_refused(with(vs, {"--json", (f.t / "gold-link.txt").string()}), f.t / "gold-link.txt", f.spider_gold, inputs);
  // --counterexamples writes <system>/<id>.sqlite into its folder: a folder holding an input is refused.
  expect_refused(with(vs, {"--counterexamples", f.db.string()}), f.db, f.db, inputs);
  expect_refused(with(vb, {"--counterexamples", f.preds.string()}), f.preds, gpt, inputs);
  expect_refused(with(vs, {"--counterexamples", f.t.path.string()}), f.t.path, f.spider_gold, inputs);
  // Outputs elsewhere still work.
  TimedResult ok = run_cli_timed(with(vs, {"--json", (f.t / "v.json").string(), "--counterexamples", (f.t / "cex").string()}), 120);
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_TRUE(fs::exists(f.t / "v.json"));
  TimedResult ok2 = run_cli_timed(with(au, {"--json", (f.t / "audit.json").string()}), 120);
  EXPECT_EQ(ok2.rc, 0) << ok2.err;
}

TEST(SafetyOutputs, VerifySpider2AndTheVerifyOptionNeverReplaceAnInput) {
  Spider2Fixture s;
  const fs::path pred = s.preds / "local001.sql", eval = s.gold / "spider2lite_eval.jsonl", db = s.dbs / "adv.sqlite";
  const std::vector<fs::path> inputs = {pred, eval, db, s.meta};
  const std::vector<std::string> v2 = {"verify", "spider2", "--pred", s.preds.string(), "--gold", s.gold.string(), "--db",
                                       s.dbs.string(), "--meta", s.meta.string(), "--verify-budget", "1", "--no-progress"};
  expect_refused(with(v2, {"--json", pred.string()}), pred, s.preds, inputs);
  expect_refused(with(v2, {"--json", eval.string()}), eval, s.gold, inputs);
  expect_refused(with(v2, {"--json", db.string()}), db, s.dbs, inputs);
  expect_refused(with(v2, {"--json", s.meta.string()}), s.meta, s.meta, inputs);
  expect_refused(with(v2, {"--counterexamples", s.dbs.string()}), s.dbs, s.dbs, inputs);
  expect_refused(s.args("sql", {"--verify", "--counterexamples", s.gold.string()}), s.gold, s.gold, inputs);
  // spider and bird --verify: the same folder check.
  IoFx f;
  const std::vector<fs::path> in2 = {f.preds / "c3.txt", f.preds / "gpt.json", f.spider_gold, f.db / "adv" / "adv.sqlite"};
  expect_refused(f.spider({"--verify", "--counterexamples", f.preds.string()}), f.preds, f.preds / "c3.txt", in2);
  expect_refused(f.bird({"--verify", "--counterexamples", f.db.string()}), f.db, f.db, in2);
}

TEST(SafetyOutputs, EveryInputOfTheCommandCounts) {
  IoFx f;
  // spider reads dev.json beside the gold when it writes a record (the questions).
  spit(f.t / "dev.json", json::array({{{"question", "q"}, {"db_id", "adv"}}}).dump());
  expect_refused(f.spider({"--json", (f.t / "dev.json").string()}), f.t / "dev.json", f.t / "dev.json", {f.t / "dev.json"});
  // rewards: the databases the replies are graded on.
  spit(f.t / "r.jsonl", "{\"benchmark\": \"spider\", \"db_id\": \"adv\", \"sql\": \"SELECT 1\", \"gold_sql\": \"SELECT 1\"}\n");
  const fs::path db = f.db / "adv" / "adv.sqlite";
  expect_refused({"rewards", "--requests", (f.t / "r.jsonl").string(), "--spider-db-dir", f.db.string(), "--out", db.string()},
                 db, f.db, {db});
  // uda: the LLM judge's answer cache (an SQLite file it writes) is an output too.
  TempDir t;
  const fs::path q = t / "Shop";
  fs::copy(std::string(SQLGRADE_FIXTURES) + "/uda/Shop", q, fs::copy_options::recursive);
  const fs::path attrs = q / "Shop_attributes.json";
  expect_refused({"uda", "run", "--dataset-dir", q.string(), "--results", (t / "runs").string(), "--judge", "llm",
                  "--llm-base-url", "http://127.0.0.1:9/v1", "--llm-model", "m", "--llm-cache", attrs.string()},
                 attrs, q, {attrs, q / "Products.csv"});
}

// ---------------------------------------------------------------- 12: deeply nested JSON

namespace {

// A valid run record whose `field` (options, summary or instances[0].detail) is 200,000 nested arrays
// (~400 KB, the issue's 412 KB record).
std::string deep_record(const std::string& field) {
  runs::RunRecord r = base_run("deep");
  r.instances.push_back(inst("0", 1, 1, "easy"));
  r.instances.push_back(inst("1", 0, 0, "easy"));
  json j = runs::to_json(r);
  const std::string mark = "\"@@deep@@\"";
  if (field == "detail") j["instances"][0]["detail"] = "@@deep@@";
  else j[field] = "@@deep@@";
  std::string text = j.dump();
  const size_t n = 200000;
  text.replace(text.find(mark), mark.size(), std::string(n, '[') + std::string(n, ']'));
  return text;
}

}  // namespace

TEST(SafetyJsonDepth, DiffReportAndMergeRefuseDeepRecords) {
  TempDir t;
  runs::RunRecord ok = base_run("ok");
  ok.instances.push_back(inst("0", 1, 1, "easy"));
  ok.instances.push_back(inst("1", 1, 1, "easy"));
  const std::string good = write_run(t, "ok.json", ok);
  size_t combos = 0;
  for (const std::string field : {"options", "summary", "detail"}) {
    const fs::path deep = t / ("deep_" + field + ".json");
    spit(deep, deep_record(field));
    const std::vector<std::vector<std::string>> commands = {
        {"diff", good, deep.string()},
        {"report", deep.string(), good, "-o", (t / "r.html").string()},
        {"merge", deep.string(), good, "-o", (t / "m.json").string()},
    };
    for (const auto& args : commands) {
      TimedResult r = run_cli_timed(args, 60);
      expect_one_line_error(r, {deep.string(), "nested deeper than 256 levels"}, args[0] + " with " + field + " nested 200,000 deep");
      ++combos;
    }
  }
  EXPECT_EQ(combos, 9u);
  EXPECT_FALSE(fs::exists(t / "r.html"));
  EXPECT_FALSE(fs::exists(t / "m.json"));
}

// (extra) The other JSON inputs of the CLI share the bound: predictions, tables.json, JSONL lines.
TEST(SafetyJsonDepth, OtherJsonInputsRefuseDeepNesting) {
  IoFx f;
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  spit(f.t / "deep_pred.json", "{\"0\": " + deep + "}");
  TimedResult r = run_cli_timed({"bird", "--predicted_sql_path", (f.t / "deep_pred.json").string(), "--ground_truth_path",
                                 f.bird_gold.string(), "--db_root_path", f.db.string(), "--no-progress"});
  expect_one_line_error(r, {"deep_pred.json", "nested deeper"}, "bird deep predictions");
  spit(f.t / "deep_tables.json", deep);
  r = run_cli_timed(f.spider({"--etype", "match", "--table", (f.t / "deep_tables.json").string()}));
  expect_one_line_error(r, {"deep_tables.json", "nested deeper"}, "spider deep tables.json");
  spit(f.t / "lines.jsonl", "\"SELECT 1\"\n{\"response\": " + deep + "}\n");
  r = run_cli_timed({"extract-sql", "--jsonl"}, 60, (f.t / "lines.jsonl").string());
  expect_one_line_error(r, {"<stdin>:2", "nested deeper"}, "extract-sql --jsonl deep line");
}

// ---------------------------------------------------------------- 13: the report's cost

namespace {

void write_pair(const TempDir& t, const std::string& tag, size_t n, bool distinct_db) {
  for (int side = 0; side < 2; ++side) {
    runs::RunRecord r = base_run(side ? "b" : "a");
    r.instances.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      runs::Instance in = inst(std::to_string(i), (i * 7 + side) % 3 == 0, 0.5, i % 2 ? "easy" : "hard");
      in.category.push_back({"db", distinct_db ? "db" + std::to_string(i) : std::string("db")});
      r.instances.push_back(std::move(in));
    }
    write_run(t, tag + (side ? "_b.json" : "_a.json"), r);
  }
}

}  // namespace

// 2 x 20,000 instances, one database each: the category tables took 48 s (quadratic); now about the
// time of one database for all (measured together, so a loaded machine slows both alike).
TEST(SafetyReportCost, DistinctCategoryValuesCostAboutAsMuchAsOne) {
  TempDir t;
  write_pair(t, "one", 20000, false);
  write_pair(t, "distinct", 20000, true);
  auto timed = [&](const std::string& tag) {
    TimedResult r = run_cli_timed({"report", (t / (tag + "_a.json")).string(), (t / (tag + "_b.json")).string(), "-o",
                                   (t / (tag + ".html")).string()},
                                  120);
    EXPECT_EQ(r.rc, 0) << tag << ": " << r.err;
    return r.seconds;
  };
  const double one = timed("one"), distinct = timed("distinct");
  std::printf("[safety] report 2 x 20,000 instances: one db %.2f s, 20,000 distinct dbs %.2f s\n", one, distinct);
  EXPECT_LT(distinct, 3 * one + 2) << "distinct category values still cost far more than one";
  EXPECT_LT(distinct, 30);
  // The page holds at most 1000 values per axis, with a note saying what was left out.
  const std::string html = slurp(t / "distinct.html");
  EXPECT_NE(html.find("19000 more values (19000 instances) not shown per category"), std::string::npos);
}

TEST(SafetyReportCost, DiffCapsCategoryValuesWithANote) {
  TempDir t;
  write_pair(t, "distinct", 3000, true);
  TimedResult r = run_cli_timed({"diff", (t / "distinct_a.json").string(), (t / "distinct_b.json").string(), "--json"}, 120);
  ASSERT_EQ(r.rc, 0) << r.err;
  json d = json::parse(r.out);
  size_t db_rows = 0;
  for (const auto& c : d["by_category"]) db_rows += c["axis"] == "db";
  EXPECT_EQ(db_rows, 1000u);
  bool noted = false;
  for (const auto& n : d["notes"]) noted = noted || n.get<std::string>().find("db: 2000 more values") != std::string::npos;
  EXPECT_TRUE(noted) << d["notes"].dump();
}
