// Issue 7: hostile input files. Truncated/invalid JSON, wrong field types, ragged CSV, embedded NULs,
// BOMs, CRLF, a 100 MB line, missing folders, unreadable files, symlinks out of the tree: each gives
// one line on stderr, "sqlgrade: <file>[:<line>]: <message>", exit code 2 and no output file — or, where
// the input is merely odd (BOM, CRLF, NUL inside a prediction), a normal run.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

#include "safety_corpus.hpp"
#include "safety_spider2_fixture.hpp"
#include "sqlgrade/core/csv.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/bird/inputs.hpp"
#include "sqlgrade/core/fs.hpp"
#include "test_support.hpp"
#include "record_views.hpp"

namespace {

using namespace sqlgrade;
using namespace sqlgrade::test;
using json = nlohmann::json;

// rc 2, exactly one line on stderr in the CLI's format, naming `file` (and `file:line` when line > 0).
void expect_one_line_error(const CliResult& r, const std::string& file, long line, const std::string& what) {
  EXPECT_EQ(r.rc, 2) << what << "\nstderr: " << r.err;
  ASSERT_FALSE(r.err.empty()) << what;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << what << ": not one line:\n" << r.err.substr(0, 2000);
  EXPECT_EQ(r.err.rfind("sqlgrade: ", 0), 0u) << what << ": " << r.err;
  std::string want = line > 0 ? file + ":" + std::to_string(line) + ":" : file;
  EXPECT_NE(r.err.find(want), std::string::npos) << what << ": expected '" << want << "' in: " << r.err;
  EXPECT_LT(r.err.size(), 2000u) << what << ": error line is too long";
}

// Library level: f() throws InputError whose message names `file` (and `line` when > 0) and holds
// `text` when given.
template <class F>
void expect_input_error(F&& f, const std::string& file, long line, const std::string& what, const std::string& text = "") {
  try {
    f();
    ADD_FAILURE() << what << ": accepted";
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(file), std::string::npos) << what << ": " << msg;
    if (line > 0) {
      EXPECT_EQ(e.line(), line) << what << ": " << msg;
    }
    if (!text.empty()) {
      EXPECT_NE(msg.find(text), std::string::npos) << what << ": " << msg;
    }
  }
}

struct SpiderFx {
  TempDir t;
  std::string gold = (t / "gold.txt").string(), pred = (t / "pred.txt").string(), db = (t / "db").string();
  SpiderFx() {
    make_sqlite(t / "db" / "adv" / "adv.sqlite", adversarial_db_script());
    spit(gold, std::string(adversarial_gold_sql()) + "\tadv\nSELECT count(*) FROM pets\tadv\n");
    spit(pred, "SELECT name FROM people WHERE id = 7\nSELECT count(*) FROM pets\n");
  }
  std::vector<std::string> args(std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"spider", "--gold", gold, "--pred", pred, "--db", db, "--no-progress", "-q"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

TEST(SafetyInputs, SpiderMissingAndUnreadableFiles) {
  SpiderFx f;
  auto r = run_cli(f.args());
  ASSERT_EQ(r.rc, 0) << r.err;
  // missing gold file / missing database folder / a folder where a file is expected
  expect_one_line_error(run_cli({"spider", "--gold", f.gold + ".missing", "--pred", f.pred, "--db", f.db, "-q"}),
                        f.gold + ".missing", 0, "missing gold");
  expect_one_line_error(run_cli({"spider", "--gold", f.gold, "--pred", f.pred, "--db", f.db + "/nope", "-q"}),
                        f.db + "/nope", 0, "missing database folder");
  expect_one_line_error(run_cli({"spider", "--gold", f.gold, "--pred", f.db, "--db", f.db, "-q"}), f.db, 0,
                        "folder as prediction file");
  // unreadable file: mode 000 (root reads anyway, so only checked for other users)
  if (::geteuid() != 0) {
    fs::permissions(f.pred, fs::perms::none);
    expect_one_line_error(run_cli(f.args()), f.pred, 0, "unreadable prediction file");
    fs::permissions(f.pred, fs::perms::owner_all);
  }
}

TEST(SafetyInputs, SpiderBomCrlfAndNulAreOrdinaryInput) {
  SpiderFx f;
  std::string js = (f.t / "r.json").string();
  spit(f.gold, "\xEF\xBB\xBF" + std::string(adversarial_gold_sql()) + "\tadv\r\nSELECT count(*) FROM pets\tadv\r\n");
  static const char kPred[] = "\xEF\xBB\xBFSELECT name FROM people WHERE id = 7\r\nSELECT count(*) FROM pets\0 junk\r\n";
  spit(f.pred, std::string(kPred, sizeof kPred - 1));  // the NUL inside is part of the file
  auto r = run_cli(f.args({"--json", js}));
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(slurp(js));
  ASSERT_EQ(sqlgrade::test::spider_examples(j).size(), 2u);
  EXPECT_EQ(sqlgrade::test::spider_examples(j)[0]["exec"].get<double>(), 1) << "BOM/CRLF changed the first prediction";
}

TEST(SafetyInputs, SpiderHundredMegabyteLine) {
  // A 100 MB prediction line: read, refused by the engine's length limit (or timed out), scored 0;
  // no crash, bounded time.
  SpiderFx f;
  std::string big = "SELECT '" + std::string(100u << 20, 'x') + "' AS name\n";
  spit(f.pred, big + "SELECT count(*) FROM pets\n");
  std::string js = (f.t / "r.json").string();
  auto t0 = std::chrono::steady_clock::now();
  auto r = run_cli(f.args({"--json", js, "--timeout", "2"}));
  double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.rc, 0) << r.err.substr(0, 500);
  json j = json::parse(slurp(js));
  EXPECT_EQ(sqlgrade::test::spider_examples(j)[0]["exec"].get<double>(), 0);
  EXPECT_EQ(sqlgrade::test::spider_examples(j)[1]["exec"].get<double>(), 1);
  EXPECT_LT(el, 60) << "100 MB line took " << el << " s";
}

TEST(SafetyInputs, SpiderSymlinkOutOfTree) {
  // The database folder holds a symlink to a file outside it that is not a database.
  SpiderFx f;
  fs::remove(f.t / "db" / "adv" / "adv.sqlite");
  fs::create_symlink("/etc/hostname", f.t / "db" / "adv" / "adv.sqlite");
  std::string js = (f.t / "r.json").string();
  auto r = run_cli(f.args({"--json", js}));
  expect_one_line_error(r, "adv.sqlite", 0, "symlink to a non-database");
  EXPECT_FALSE(fs::exists(js)) << "output written although the run failed";
}

// Files that are not regular files. Before: read_file asked a pipe for its size, got none and
// returned "" — a prediction file given as `--pred <(...)` was silently empty; a symlink to
// /dev/zero now reads a bounded amount and fails.
TEST(SafetyInputs, PipesFifosAndDevices) {
  std::signal(SIGPIPE, SIG_IGN);  // a reader that stops early must fail the test, not kill it
  TempDir t;
  fs::path fifo = t / "pred.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "SELECT name FROM people WHERE id = " + std::to_string(i) + "\n";
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    out << text;
  });
  std::string got = read_file(fifo);
  writer.join();
  EXPECT_EQ(got, text) << "a FIFO must be read whole (" << text.size() << " bytes)";

  fs::create_symlink("/dev/zero", t / "zero.json");
  auto t0 = std::chrono::steady_clock::now();
  expect_input_error([&] { (void)read_file(t / "zero.json", size_t(8) << 20); }, "zero.json", 0, "/dev/zero",
                     "not a regular file");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);

  // Through the CLI: the prediction file is a FIFO (as `--pred <(...)` gives a pipe).
  SpiderFx f;
  fs::path pfifo = f.t / "pred.fifo";
  ASSERT_EQ(::mkfifo(pfifo.c_str(), 0600), 0);
  std::thread w2([&] {
    std::ofstream out(pfifo, std::ios::binary);
    out << "SELECT name FROM people WHERE id = 7\nSELECT count(*) FROM pets\n";
  });
  std::string js = (f.t / "r.json").string();
  auto r = run_cli({"spider", "--gold", f.gold, "--pred", pfifo.string(), "--db", f.db, "--no-progress", "-q", "--json", js});
  w2.join();
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(slurp(js));
  ASSERT_EQ(sqlgrade::test::spider_examples(j).size(), 2u);
  EXPECT_EQ(sqlgrade::test::spider_examples(j)[0]["exec"].get<double>(), 1);
}

TEST(SafetyInputs, SpiderTablesJsonTruncatedAndWrongTypes) {
  SpiderFx f;
  std::string tables = (f.t / "tables.json").string();
  spit(tables, "[{\"db_id\": \"adv\", \"table_names_original\": [\"people\"");
  expect_one_line_error(run_cli(f.args({"--etype", "match", "--table", tables})), tables, 0, "truncated tables.json");
  // Wrong field types and out-of-range indexes (fuzz findings): one line naming the file and entry.
  const char* kPeople = R"("table_names_original": ["people"], )";
  const std::vector<std::pair<std::string, std::string>> wrong = {
      {"db_id is a number", R"([{"db_id": 5, "table_names_original": [], "column_names_original": []}])"},
      {"tables not an array", R"([{"db_id": "adv", "table_names_original": "people", "column_names_original": []}])"},
      {"column item not a pair", std::string(R"([{"db_id": "adv", )") + kPeople + R"("column_names_original": [[0]]}])"},
      {"column names a missing table", std::string(R"([{"db_id": "adv", )") + kPeople +
                                           R"("column_names_original": [[-1, "*"], [3, "id"]]}])"},
      {"negative foreign key", std::string(R"([{"db_id": "adv", )") + kPeople +
                                   R"("column_names_original": [[-1, "*"], [0, "id"]], "foreign_keys": [[-2, 1]]}])"},
      {"foreign key past the columns", std::string(R"([{"db_id": "adv", )") + kPeople +
                                           R"("column_names_original": [[-1, "*"], [0, "id"]], "foreign_keys": [[1, 9]]}])"},
      {"foreign keys not an array", std::string(R"([{"db_id": "adv", )") + kPeople +
                                        R"("column_names_original": [[-1, "*"]], "foreign_keys": {"a": 1}}])"},
  };
  for (const auto& [what, text] : wrong) {
    spit(tables, text);
    auto r = run_cli(f.args({"--etype", "match", "--table", tables}));
    expect_one_line_error(r, tables, 0, what);
    EXPECT_EQ(r.err.find("type_error"), std::string::npos) << what << ": " << r.err;
    EXPECT_EQ(r.err.find("out_of_range"), std::string::npos) << what << ": " << r.err;
  }
  spit(tables, "{\"db_id\": \"adv\"}");
  expect_one_line_error(run_cli(f.args({"--etype", "match", "--table", tables})), tables, 0, "object instead of array");
}

struct BirdFx {
  TempDir t;
  std::string root = (t / "db").string(), gold = (t / "gold.sql").string(), pred = (t / "pred.json").string();
  BirdFx() {
    make_sqlite(t / "db" / "adv" / "adv.sqlite", adversarial_db_script());
    spit(gold, std::string(adversarial_gold_sql()) + "\tadv\nSELECT count(*) FROM pets\tadv\n");
    spit(pred, "{\"0\": \"SELECT name FROM people WHERE id = 7\\t----- bird -----\\tadv\",\n"
               " \"1\": \"SELECT 1\\t----- bird -----\\tadv\"}\n");
  }
  std::vector<std::string> args(std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"bird", "--predicted_sql_path", pred, "--ground_truth_path", gold, "--db_root_path",
                                  root + "/", "--no-progress", "--quiet"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

TEST(SafetyInputs, BirdJsonTruncatedInvalidAndWrongTypes) {
  BirdFx f;
  auto ok = run_cli(f.args());
  ASSERT_EQ(ok.rc, 0) << ok.err;
  spit(f.pred, "{\"0\": \"SELECT 1\",\n \"1\": \"SELE");
  expect_one_line_error(run_cli(f.args()), f.pred, 2, "truncated JSON");
  spit(f.pred, "{\"0\": \"SELECT 1\",\n\n\n oops}");
  expect_one_line_error(run_cli(f.args()), f.pred, 4, "invalid JSON");
  spit(f.pred, "");
  expect_one_line_error(run_cli(f.args()), f.pred, 0, "empty file");
  spit(f.pred, "[\"SELECT 1\"]");
  expect_one_line_error(run_cli(f.args()), f.pred, 0, "array instead of object");
  spit(f.pred, std::string("{\"0\": \"SELECT 1\0\"}", 17));
  expect_one_line_error(run_cli(f.args()), f.pred, 0, "NUL inside JSON");
  // Fuzz finding (fuzz_json_readers): a number too large for a double ("3333e333") is an nlohmann
  // out_of_range, not a parse_error, and escaped the readers as an undocumented exception.
  spit(f.pred, "{\"0\": 3333e333}");
  expect_one_line_error(run_cli(f.args()), f.pred, 0, "number overflow in predictions");
  std::string questions = (f.t / "dev.json").string();
  for (const char* text : {"[{\"question_id\": 0, \"db_id\": \"adv\", \"x\": 1e999}]",
                           "{\"question_id\": 0, \"db_id\": \"adv\"}\n{\"question_id\": 1e999}\n"}) {
    spit(questions, text);
    expect_input_error([&] { (void)bird::load_questions(questions); }, questions, 0, text);
  }
  // wrong type of one value: that question scores 0 with a reason, the run goes on
  spit(f.pred, "{\"0\": 5, \"1\": \"SELECT count(*) FROM pets\\t----- bird -----\\tadv\"}");
  std::string js = (f.t / "r.json").string();
  auto r = run_cli(f.args({"--json", js}));
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(slurp(js));
  json items = sqlgrade::test::bird_results(j);
  ASSERT_EQ(items.size(), 2u) << j.dump().substr(0, 300);
  EXPECT_EQ(items[0]["score"].get<double>(), 0);
  EXPECT_FALSE(items[0].value("reason", "").empty());
  EXPECT_EQ(items[1]["score"].get<double>(), 1);
}

TEST(SafetyInputs, BirdGoldFileLineErrors) {
  BirdFx f;
  spit(f.gold, std::string(adversarial_gold_sql()) + "\tadv\nSELECT 1 without a tab\n");
  expect_one_line_error(run_cli(f.args()), f.gold, 2, "gold line without a TAB");
  spit(f.gold, std::string(adversarial_gold_sql()) + "\tadv\r\nSELECT 1\tmissing_db\r\n");
  expect_one_line_error(run_cli(f.args()), "missing_db", 0, "unknown database");
  expect_one_line_error(run_cli({"bird", "--predicted_sql_path", f.pred, "--ground_truth_path", f.gold,
                                 "--db_root_path", f.root + "/nowhere/", "--quiet"}),
                        "nowhere", 0, "missing database root");
}

using S2Fx = Spider2Fixture;

TEST(SafetyInputs, Spider2JsonlAndCsv) {
  S2Fx f;
  auto ok = run_cli(f.args("sql"));
  ASSERT_EQ(ok.rc, 0) << ok.err;
  std::string ev = (f.gold / "spider2lite_eval.jsonl").string();
  spit(ev, "{\"instance_id\": \"local001\", \"condition_cols\": [], \"ignore_order\": true}\n{\"instance_id\": \"loc");
  expect_one_line_error(run_cli(f.args("sql")), ev, 2, "truncated jsonl");
  spit(ev, "{\"instance_id\": \"local001\", \"condition_cols\": [], \"ignore_order\": true}\n"
           "{\"instance_id\": 7, \"condition_cols\": \"x\", \"ignore_order\": \"yes\"}\n");
  expect_one_line_error(run_cli(f.args("sql")), ev, 2, "wrong field types in jsonl");
  spit(ev, "{\"instance_id\": \"local001\", \"condition_cols\": [], \"ignore_order\": true}\n");
  // ragged gold CSV: a row with more fields than the header
  std::string g = (f.gold / "exec_result" / "local001.csv").string();
  spit(g, "name\np7\np8,extra,fields\n");
  auto r = run_cli(f.args("exec_result"));
  if (r.rc != 0) expect_one_line_error(r, "local001.csv", 3, "ragged gold CSV");
  // missing gold folder
  auto a = f.args("sql");
  a[6] = (f.t / "no_gold").string();
  expect_one_line_error(run_cli(a), "no_gold", 0, "missing gold folder");
}

TEST(SafetyInputs, CsvReaderNamesFileAndLine) {
  // The shared CSV reader: unterminated quotes, embedded NULs, BOM + CRLF (ragged rows:
  // Csv.RaggedRowIsAnErrorWithLine).
  expect_input_error([] { (void)parse_csv("a,b\n1,2\n\"3,4\n5,6\n", "q.csv"); }, "q.csv", 3, "unterminated quote");
  auto d = parse_csv(std::string("\xEF\xBB\xBF" "a,b\r\nx\0y,2\r\n", 15), "n.csv");
  ASSERT_EQ(d.header.size(), 2u);
  EXPECT_EQ(d.header[0], "a");
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_EQ(d.rows[0][0], std::string("x\0y", 3));
}

TEST(SafetyInputs, UdaMissingAndMalformed) {
  TempDir t;
  fs::path shop = fs::path(fixtures()) / "uda" / "Shop";
  expect_one_line_error(run_cli({"uda", "prepare", "--dataset-dir", (t / "nope").string(), "--out", (t / "o").string()}),
                        (t / "nope").string(), 0, "missing dataset folder");
  // a copy of the fixture with a truncated attributes file
  fs::copy(shop, t / "Shop", fs::copy_options::recursive);
  std::string attrs = (t / "Shop" / "Shop_attributes.json").string();
  spit(attrs, "{\n  \"product\": {\n    \"name\": {\"value_type\": ");
  expect_one_line_error(run_cli({"uda", "prepare", "--dataset-dir", (t / "Shop").string(), "--out", (t / "o").string()}),
                        attrs, 0, "truncated attributes JSON");
  EXPECT_FALSE(fs::exists(t / "o" / "Shop")) << "outputs written although the input was bad";
}

}  // namespace
