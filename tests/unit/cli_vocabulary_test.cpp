// Issue 32, item 6: one CLI vocabulary. One output flag for a written file (`--out`) and one for a
// folder (`--out-dir`) with the old spellings as aliases; `diff --json FILE` (`-` = stdout; the old
// switch kept); `--no-progress`, `--max-rows`, `--max-result-mb` on every command that executes queries
// (each bound applied: a query past it fails); `audit` and `verify` with the benchmark as a subcommand
// (`--benchmark NAME` accepted) and `--gold`/`--db` meaning that benchmark's; a missing flag reported
// alone; `verify --name/--questions/--json-dir/-q`; and docs/cli.md's flag × subcommand table checked
// against every subcommand's `--help`, cell by cell.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "safety_cli.hpp"
#include "sqlgrade/py/io.hpp"
#include "test_support.hpp"

using namespace sqlgrade::test;

namespace {



// The shop database (db/shop/shop.sqlite: 2 shops, 3 items) with a Spider gold file of four questions.
struct Shop : ShopSpiderFx {
  Shop()
      : ShopSpiderFx("SELECT name FROM item WHERE price > 2\tshop\nSELECT count(*) FROM item\tshop\n"
                     "SELECT city FROM shop ORDER BY city\tshop\nSELECT name FROM item\tshop\n") {}
  std::string spider_pred() {
    return file("pred.sql", "SELECT name FROM item WHERE price > 2\nSELECT count(*) FROM item\n"
                            "SELECT city FROM shop ORDER BY city\nSELECT name FROM item\n");
  }
  // The same four questions as a BIRD prediction JSON (BIRD reads <db>/<db_id>/<db_id>.sqlite too).
  std::string bird_pred() {
    return file("pred.json",
                "{\"0\": \"SELECT name FROM item WHERE price > 2\\t----- bird -----\\tshop\", "
                "\"1\": \"SELECT count(*) FROM item\\t----- bird -----\\tshop\", "
                "\"2\": \"SELECT city FROM shop ORDER BY city\\t----- bird -----\\tshop\", "
                "\"3\": \"SELECT name FROM item\\t----- bird -----\\tshop\"}");
  }
};

}  // namespace

// --out FILE and --out-dir DIR: the old spellings (-o, --output, --output-dir, --out for a folder) give
// the same files.
TEST(CliVocabulary, OutAndOutDirWithTheOldSpellingsAsAliases) {
  Shop s;
  TempDir t;
  const std::string tsv = s.file("q.tsv", "SELECT count(*) FROM item\tshop\n");
  for (const std::string flag : {"--out", "-o", "--output"}) {
    const std::string out = (t / ("parsed" + flag + ".json")).string();
    TimedResult r = run_cli_timed({"spider", "parse", "--table", s.tables, "-i", tsv, flag, out}, 30);
    ASSERT_EQ(r.rc, 0) << flag << ": " << r.err;
    EXPECT_EQ(slurp(out), slurp(t / "parsed--out.json")) << flag;
  }
  // merge and report: --out beside -o / --output.
  const std::string pred = s.spider_pred();
  for (const std::string part : {"1/2", "2/2"}) {
    TimedResult r = run_cli_timed({"spider", "--gold", s.gold, "--pred", pred, "--db", s.db, "--no-progress", "--shard", part,
                                   "--json", (t / ("part" + part.substr(0, 1) + ".json")).string()}, 60);
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  const std::vector<std::string> parts = {(t / "part1.json").string(), (t / "part2.json").string()};
  TimedResult a = run_cli_timed(plus({"merge"}, plus(parts, {"--out", (t / "m1.json").string()})), 60);
  TimedResult b = run_cli_timed(plus({"merge"}, plus(parts, {"-o", (t / "m2.json").string()})), 60);
  ASSERT_EQ(a.rc, 0) << a.err;
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_TRUE(fs::exists(t / "m1.json") && fs::exists(t / "m2.json"));
  TimedResult rep = run_cli_timed({"report", (t / "m1.json").string(), "--out", (t / "r.html").string()}, 60);
  ASSERT_EQ(rep.rc, 0) << rep.err;
  EXPECT_TRUE(fs::exists(t / "r.html"));
  // uda prepare: --out-dir beside --out.
  const std::string shop = fixtures() + "/uda/Shop";
  TimedResult u1 = run_cli_timed({"uda", "prepare", "--dataset-dir", shop, "--out-dir", (t / "u1").string(), "--no-progress"}, 60);
  TimedResult u2 = run_cli_timed({"uda", "prepare", "--dataset-dir", shop, "--out", (t / "u2").string(), "--no-progress"}, 60);
  ASSERT_EQ(u1.rc, 0) << u1.err;
  ASSERT_EQ(u2.rc, 0) << u2.err;
  EXPECT_TRUE(fs::exists(t / "u1" / "Shop") && fs::exists(t / "u2" / "Shop"));
}

// diff --json FILE writes the comparison and prints the table; --json - prints the JSON; the old switch
// (bare --json, at the end or before the records) and --json-out FILE still work.
TEST(CliVocabulary, DiffJsonTakesAFileAndDashPrintsIt) {
  Shop s;
  TempDir t;
  const std::string pa = s.spider_pred(), pb = s.file("b.sql", "SELECT 1\nSELECT count(*) FROM item\n\n\n");
  for (const auto& [p, name] : {std::pair{pa, "a"}, std::pair{pb, "b"}})
    ASSERT_EQ(run_cli_timed({"spider", "--gold", s.gold, "--pred", p, "--db", s.db, "--no-progress", "-q", "--json",
                             (t / (std::string(name) + ".json")).string()}, 60).rc, 0);
  const std::string A = (t / "a.json").string(), B = (t / "b.json").string();
  TimedResult table = run_cli_timed({"diff", A, B}, 60);
  TimedResult file = run_cli_timed({"diff", A, B, "--json", (t / "d.json").string()}, 60);
  TimedResult dash = run_cli_timed({"diff", A, B, "--json", "-"}, 60);
  TimedResult bare = run_cli_timed({"diff", A, B, "--json"}, 60);
  TimedResult before = run_cli_timed({"diff", "--json", A, B}, 60);
  TimedResult old_out = run_cli_timed({"diff", A, B, "--json-out", (t / "d2.json").string()}, 60);
  for (const auto* r : {&table, &file, &dash, &bare, &before, &old_out}) ASSERT_EQ(r->rc, 0) << r->err;
  EXPECT_EQ(file.out, table.out);  // the table, and the JSON in the file
  EXPECT_EQ(old_out.out, table.out);
  EXPECT_EQ(slurp(t / "d.json"), dash.out);
  EXPECT_EQ(slurp(t / "d2.json"), dash.out);
  EXPECT_EQ(bare.out, dash.out);
  EXPECT_EQ(before.out, dash.out);
  EXPECT_TRUE(nlohmann::json::accept(dash.out)) << dash.out;
  expect_one_line_error(run_cli_timed({"diff", A, B, "--json", (t / "x.json").string(), "--json-out", (t / "y.json").string()}, 30),
                        {"--json-out"}, "two JSON files");
}

// --max-rows and --max-result-mb bound what they say on spider, bird, spider2, verify, audit, uda and
// rewards: the same run under a bound its results pass scores lower; bad values are one line naming
// the flag, exit code 2.
TEST(CliVocabulary, MaxRowsAndMaxResultMbBoundEveryCommandThatExecutes) {
  Shop s;
  const std::string sp = s.spider_pred(), bp = s.bird_pred();
  const std::vector<std::string> spider = {"spider", "--gold", s.gold, "--pred", sp, "--db", s.db, "--no-progress"};
  TimedResult full = run_cli_timed(spider, 60);
  TimedResult rows = run_cli_timed(plus(spider, {"--max-rows", "1"}), 60);
  TimedResult bytes = run_cli_timed(plus(spider, {"--max-result-mb", "0.00001"}), 60);
  ASSERT_EQ(full.rc, 0) << full.err;
  EXPECT_NE(full.out.find("1.000"), std::string::npos) << full.out;
  EXPECT_NE(rows.out, full.out) << rows.out;  // golds of 2 and 3 rows fail under --max-rows 1
  EXPECT_NE(bytes.out, full.out) << bytes.out;
  const std::vector<std::string> bird = {"bird", "--pred", bp, "--gold", s.gold, "--db", s.db, "--no-progress", "-q"};
  TimedResult bf = run_cli_timed(bird, 60), br = run_cli_timed(plus(bird, {"--max-rows", "1"}), 60),
              bb = run_cli_timed(plus(bird, {"--max-result-mb", "0.00001"}), 60);
  ASSERT_EQ(bf.rc, 0) << bf.err;
  EXPECT_NE(bf.out.find("100.00"), std::string::npos) << bf.out;
  EXPECT_EQ(br.out.find("100.00"), std::string::npos) << br.out;
  EXPECT_EQ(bb.out.find("100.00"), std::string::npos) << bb.out;
  // spider2 sql mode: a prediction of 2 rows against --max-rows 1.
  TempDir d;
  make_sqlite(d / "databases/shop.sqlite", std::string(kShopSchemaSql) + "INSERT INTO shop VALUES (1,'Paris'),(2,'Lyon');");
  spit(d / "spider2-lite.jsonl", "{\"instance_id\": \"local001\", \"db\": \"shop\"}\n");
  spit(d / "gold/spider2lite_eval.jsonl", "{\"instance_id\": \"local001\", \"condition_cols\": [], \"ignore_order\": true, \"toks\": \"1\"}\n");
  spit(d / "gold/exec_result/local001.csv", "city\nParis\nLyon\n");
  spit(d / "pred/local001.sql", "SELECT city FROM shop");
  const std::vector<std::string> s2 = {"spider2", "--mode", "sql", "--pred", (d / "pred").string(), "--gold", (d / "gold").string(),
                                       "--no-progress", "-q"};
  TimedResult sf = run_cli_timed(s2, 60), sr = run_cli_timed(plus(s2, {"--max-rows", "1"}), 60);
  ASSERT_EQ(sf.rc, 0) << sf.err;
  EXPECT_NE(sf.out.find("Final score: 1.0"), std::string::npos) << sf.out;
  EXPECT_NE(sr.out.find("Final score: 0.0"), std::string::npos) << sr.out;
  // verify: the grading under the bound (EX 4/4 → fewer).
  const std::vector<std::string> verify = {"verify", "spider", "--gold", s.gold, "--pred", sp, "--db", s.db, "--no-progress",
                                           "--verify-candidates", "20"};
  TimedResult vf = run_cli_timed(verify, 120), vr = run_cli_timed(plus(verify, {"--max-rows", "1"}), 120);
  ASSERT_EQ(vf.rc, 0) << vf.err;
  EXPECT_NE(vf.out.find("EX            1.000 (4/4)"), std::string::npos) << vf.out;
  EXPECT_EQ(vr.out.find("EX            1.000 (4/4)"), std::string::npos) << vr.out;
  // audit: golds past --max-rows fail.
  TimedResult af = run_cli_timed({"audit", "spider", "--gold", s.gold, "--db", s.db}, 60);
  TimedResult ar = run_cli_timed({"audit", "spider", "--gold", s.gold, "--db", s.db, "--max-rows", "1"}, 60);
  ASSERT_EQ(af.rc, 0) << af.err;
  EXPECT_EQ(af.out.find("gold_fails"), std::string::npos) << af.out;
  EXPECT_NE(ar.out.find("gold_fails"), std::string::npos) << ar.out;
  // uda eval: the gold query of 2 rows against --max-rows 1.
  const std::string shop = fixtures() + "/uda/Shop";
  TempDir u;
  spit(u / "r" / "result.csv", "id,name,price,stock\n1,Widget,2.5,10\n2,Gadget,10,1200\n");
  const std::vector<std::string> uda = {"uda", "eval", "--dataset-dir", shop, "--sql-file", shop + "/Select/select_queries.sql",
                                        "--query-id", "1", "--result-csv", (u / "r" / "result.csv").string(), "-q"};
  TimedResult uf = run_cli_timed(uda, 60), ur = run_cli_timed(plus(uda, {"--max-rows", "1"}), 60);
  ASSERT_EQ(uf.rc, 0) << uf.err;
  EXPECT_NE(ur.rc, 0) << ur.out;
  EXPECT_NE(ur.err.find("gold"), std::string::npos) << ur.err;
  // rewards: one request whose gold has 3 rows.
  const std::string req = s.file("req.jsonl", "{\"benchmark\": \"spider\", \"db_id\": \"shop\", \"sql\": \"SELECT name FROM item\", "
                                              "\"gold_sql\": \"SELECT name FROM item\"}\n");
  const std::vector<std::string> rw = {"rewards", "--requests", req, "--spider-db-dir", s.db};
  TimedResult rf = run_cli_timed(rw, 60), rr = run_cli_timed(plus(rw, {"--max-rows", "1"}), 60),
              rb = run_cli_timed(plus(rw, {"--max-result-mb", "0.00001"}), 60);
  ASSERT_EQ(rf.rc, 0) << rf.err;
  EXPECT_EQ(nlohmann::json::parse(rf.out)["reward"], 1.0) << rf.out;
  EXPECT_EQ(nlohmann::json::parse(rr.out)["reward"], 0.0) << rr.out;
  EXPECT_EQ(nlohmann::json::parse(rb.out)["reward"], 0.0) << rb.out;
  // Bad values: one line naming the flag, exit 2.
  for (const auto& cmd : {spider, bird, s2, verify})
    for (const auto& [flag, value] : {std::pair<std::string, std::string>{"--max-rows", "0"}, {"--max-result-mb", "-1"},
                                      {"--max-rows", "x"}})
      expect_one_line_error(run_cli_timed(plus(cmd, {flag, value}), 30), {flag}, cmd[0] + " " + flag + " " + value);
}

// --no-progress on every command that executes queries or draws a bar (merge, audit, uda and rewards
// draw none or a bar it switches off): accepted, nothing on stderr.
TEST(CliVocabulary, NoProgressIsAcceptedEverywhere) {
  Shop s;
  TempDir t;
  const std::string shop = fixtures() + "/uda/Shop";
  TimedResult g = run_cli_timed({"uda", "gold", "--dataset-dir", shop, "--out-dir", (t / "g").string(), "--no-progress"}, 60);
  ASSERT_EQ(g.rc, 0) << g.err;
  EXPECT_EQ(g.err, "");
  TimedResult a = run_cli_timed({"audit", "spider", "--gold", s.gold, "--db", s.db, "--no-progress"}, 60);
  EXPECT_EQ(a.rc, 0) << a.err;
  const std::string pred = s.spider_pred();
  ASSERT_EQ(run_cli_timed({"spider", "--gold", s.gold, "--pred", pred, "--db", s.db, "--no-progress", "--shard", "1/1", "--json",
                           (t / "p.json").string()}, 60).rc, 0);
  TimedResult m = run_cli_timed({"merge", (t / "p.json").string(), "--out", (t / "m.json").string(), "--no-progress"}, 60);
  EXPECT_EQ(m.rc, 0) << m.err;
}

// audit: the benchmark is a subcommand; `--benchmark NAME` is the same command. `--gold` and `--db` are
// the benchmark's own (before: `audit --benchmark bird --gold G --db D` answered "--ground_truth_path
// and --db are required"). A missing flag is named alone.
TEST(CliVocabulary, AuditBenchmarkAsSubcommandAndMissingFlagsNamedAlone) {
  Shop s;
  const std::string bp = s.bird_pred();
  TimedResult sub = run_cli_timed({"audit", "bird", "--gold", s.gold, "--db", s.db, "--pred", bp}, 60);
  TimedResult flag = run_cli_timed({"audit", "--benchmark", "bird", "--gold", s.gold, "--db", s.db, "--pred", bp}, 60);
  TimedResult official = run_cli_timed({"audit", "--benchmark=bird", "--ground_truth_path", s.gold, "--db_root_path", s.db,
                                        "--pred", bp}, 60);
  ASSERT_EQ(sub.rc, 0) << sub.err;
  EXPECT_NE(sub.out.find("gold audit (bird)"), std::string::npos) << sub.out;
  EXPECT_EQ(flag.out, sub.out) << flag.err;
  EXPECT_EQ(official.out, sub.out) << official.err;
  TimedResult spider = run_cli_timed({"audit", "spider", "--gold", s.gold, "--db", s.db}, 60);
  TimedResult spider_flag = run_cli_timed({"audit", "--gold", s.gold, "--benchmark", "spider", "--db", s.db}, 60);
  ASSERT_EQ(spider.rc, 0) << spider.err;
  EXPECT_EQ(spider_flag.out, spider.out) << spider_flag.err;
  // Only the missing flags.
  TimedResult r = run_cli_timed({"audit", "spider", "--gold", s.gold}, 30);
  expect_one_line_error(r, {"--db is required"}, "audit spider without --db");
  EXPECT_EQ(r.err.find("--gold"), std::string::npos) << r.err;
  r = run_cli_timed({"audit", "--benchmark", "bird", "--db", s.db}, 30);
  expect_one_line_error(r, {"--gold and --pred are required"}, "audit bird without --gold, --pred");
  EXPECT_EQ(r.err.find("--db"), std::string::npos) << r.err;
  r = run_cli_timed({"verify", "bird", "--gold", s.gold}, 30);
  expect_one_line_error(r, {"--pred and --db are required"}, "verify bird");
  r = run_cli_timed({"verify", "spider2", "--pred", s.db}, 30);
  expect_one_line_error(r, {"--gold is required"}, "verify spider2");
  expect_one_line_error(run_cli_timed({"audit", "--benchmark", "nope"}, 30), {"--benchmark", "nope"}, "bad benchmark");
}

// verify: `verify --benchmark spider` is `verify spider`; --name labels the systems, --json-dir writes
// each system's run record with its verification (as `spider --verify --json-dir`), -q draws nothing.
TEST(CliVocabulary, VerifyTakesNameQuestionsJsonDirAndQuiet) {
  Shop s;
  TempDir t;
  const std::string a = s.spider_pred(), b = s.file("b.sql", "SELECT name FROM item\nSELECT count(*) FROM item\n\n\n");
  const std::vector<std::string> base = {"--gold", s.gold, "--pred", a, "--pred", b, "--db", s.db, "--verify-candidates", "20"};
  TimedResult sub = run_cli_timed(plus({"verify", "spider"}, plus(base, {"-q"})), 120);
  TimedResult flag = run_cli_timed(plus({"verify", "--benchmark", "spider"}, plus(base, {"-q"})), 120);
  ASSERT_EQ(sub.rc, 0) << sub.err;
  EXPECT_EQ(sub.err, "");
  auto untimed = [](const std::string& text) { return std::regex_replace(text, std::regex("\\d+\\.\\d+ s"), "<t> s"); };
  EXPECT_EQ(untimed(flag.out), untimed(sub.out)) << flag.err;
  std::string dev = "[";
  for (int k = 0; k < 4; ++k) dev += std::string(k ? ", " : "") + "{\"question\": \"q" + std::to_string(k) + "\", \"db_id\": \"shop\"}";
  spit(t / "dev.json", dev + "]");
  TimedResult named = run_cli_timed(plus({"verify", "spider"}, plus(base, {"--name", "alpha", "--name", "beta", "--json-dir",
                                                                           (t / "recs").string(), "--questions",
                                                                           (t / "dev.json").string(), "--no-progress"})), 120);
  ASSERT_EQ(named.rc, 0) << named.err;
  EXPECT_NE(named.out.find("alpha"), std::string::npos) << named.out;
  EXPECT_NE(named.out.find("beta"), std::string::npos) << named.out;
  ASSERT_TRUE(fs::exists(t / "recs" / "alpha.json")) << named.err;
  auto rec = nlohmann::json::parse(slurp(t / "recs" / "alpha.json"));
  EXPECT_EQ(rec["system"], "alpha");
  EXPECT_TRUE(rec["summary"].contains("verify")) << rec["summary"].dump();
  EXPECT_EQ(rec["instances"][0]["question"], "q0") << rec["instances"][0].dump();
  // The record is the one `spider --verify --json-dir` writes (timings and the command line aside).
  TimedResult bench = run_cli_timed({"spider", "--gold", s.gold, "--pred", a, "--pred", b, "--db", s.db, "--verify",
                                     "--verify-candidates", "20", "--name", "alpha", "--name", "beta", "--json-dir",
                                     (t / "recs2").string(), "--questions", (t / "dev.json").string(), "--no-progress"}, 120);
  ASSERT_EQ(bench.rc, 0) << bench.err;
  auto rec2 = nlohmann::json::parse(slurp(t / "recs2" / "alpha.json"));
  EXPECT_EQ(rec["instances"].size(), rec2["instances"].size());
  for (auto* r : {&rec, &rec2}) (*r)["summary"]["verify"].erase("cpu_seconds"), (*r)["summary"]["verify"].erase("instance_seconds");
  EXPECT_EQ(rec["summary"]["verify"], rec2["summary"]["verify"]);
  expect_one_line_error(run_cli_timed(plus({"verify", "spider"}, plus(base, {"--name", "only-one"})), 30), {"--name"}, "one --name");
}

// --db: one layout per benchmark (Spider, BIRD: DIR/<db_id>/<db_id>.sqlite; Spider 2.0-Lite:
// DIR/<db>.sqlite). A folder in the other layout is one line naming the layout expected, exit 2.
TEST(CliVocabulary, DbInTheOtherLayoutNamesTheExpectedOne) {
  Shop s;
  TempDir flat;
  fs::copy_file(fs::path(s.db) / "shop" / "shop.sqlite", flat / "shop.sqlite");
  const std::string pred = s.spider_pred(), bp = s.bird_pred();
  expect_one_line_error(run_cli_timed({"spider", "--gold", s.gold, "--pred", pred, "--db", flat.path.string()}, 30),
                        {"--db", "DIR/<db_id>/<db_id>.sqlite"}, "spider on a flat folder");
  expect_one_line_error(run_cli_timed({"bird", "--gold", s.gold, "--pred", bp, "--db", flat.path.string()}, 30),
                        {"--db", "DIR/<db_id>/<db_id>.sqlite"}, "bird on a flat folder");
  expect_one_line_error(run_cli_timed({"audit", "spider", "--gold", s.gold, "--db", flat.path.string()}, 30),
                        {"--db", "DIR/<db_id>/<db_id>.sqlite"}, "audit on a flat folder");
  TempDir d;
  spit(d / "gold/spider2lite_eval.jsonl", "{\"instance_id\": \"local001\", \"condition_cols\": [], \"ignore_order\": true, \"toks\": \"1\"}\n");
  spit(d / "pred/local001.sql", "SELECT 1");
  expect_one_line_error(run_cli_timed({"spider2", "--mode", "sql", "--pred", (d / "pred").string(), "--gold", (d / "gold").string(),
                                       "--db", s.db}, 30),
                        {"--db", "DIR/<db>.sqlite"}, "spider2 on a nested folder");
  // The right layout still runs.
  EXPECT_EQ(run_cli_timed({"spider", "--gold", s.gold, "--pred", pred, "--db", s.db, "--no-progress"}, 30).rc, 0);
}

// docs/cli.md's one table (flag × subcommand) is what the binary takes: a cell with an entry means the
// flag is in that subcommand's `--help`, an empty cell that it is not ("verify"/"audit": each of their
// spider, bird, spider2 subcommands, or the ones the cell names).
TEST(CliVocabulary, TheDocTableMatchesEveryHelp) {
  std::ifstream in(std::string(SQLGRADE_SOURCE_DIR) + "/docs/cli.md");
  std::vector<std::string> rows;
  for (std::string l; std::getline(in, l);)
    if (l.rfind("| ", 0) == 0) rows.push_back(l);
  ASSERT_GT(rows.size(), 10u);
  auto cells = [](const std::string& row) {
    std::vector<std::string> out;
    std::string cur;
    for (size_t k = 1; k < row.size(); ++k) {
      if (row[k] == '|') {
        out.push_back(std::regex_replace(cur, std::regex("^\\s+|\\s+$"), ""));
        cur.clear();
      } else {
        cur += row[k];
      }
    }
    return out;
  };
  const std::vector<std::string> head = cells(rows[0]);
  ASSERT_EQ(head[0], "Flag");
  std::map<std::string, std::set<std::string>> help_names;  // command → long and short names in its --help
  auto names_of = [&](const std::string& command) -> const std::set<std::string>& {
    auto it = help_names.find(command);
    if (it != help_names.end()) return it->second;
    std::vector<std::string> args;
    std::istringstream w(command);
    for (std::string x; w >> x;) args.push_back(x);
    args.push_back("--help");
    TimedResult r = run_cli_timed(args, 30);
    EXPECT_EQ(r.rc, 0) << command;
    std::set<std::string> names;
    for (const std::string& l : sqlgrade::py::split_lines_universal(r.out)) {
      if (l.size() < 3 || l.compare(0, 2, "  ") != 0 || l[2] != '-') continue;
      const std::string col = l.substr(2, l.find("  ", 2) - 2);  // "--db,--db_root_path TEXT"
      // The first long name is the flag; the others are its aliases (`--out-dir,--out`: --out is not
      // bird subset's --out FILE).
      std::smatch m;
      if (std::regex_search(col, m, std::regex("--[A-Za-z0-9][A-Za-z0-9_-]*"))) names.insert(m.str());
    }
    return help_names[command] = names;
  };
  size_t checked = 0;
  for (size_t r = 2; r < rows.size(); ++r) {
    const std::vector<std::string> c = cells(rows[r]);
    std::smatch m;
    if (c.empty() || !std::regex_search(c[0], m, std::regex("`(-{1,2}[A-Za-z0-9-]+)"))) continue;
    const std::string flag = m[1];
    for (size_t k = 1; k < head.size() && k < c.size(); ++k) {
      std::vector<std::pair<std::string, bool>> want;  // command, flag expected
      if (head[k] == "verify" || head[k] == "audit") {
        const bool all = c[k].find("✓") != std::string::npos;
        for (const std::string b : {"spider", "bird", "spider2"})
          want.push_back({head[k] + " " + b, all || std::regex_search(c[k], std::regex("\\b" + b + "\\b(?!2)"))});
      } else {
        want.push_back({head[k], !c[k].empty()});
      }
      for (const auto& [command, expected] : want) {
        EXPECT_EQ(names_of(command).count(flag) > 0, expected) << "docs/cli.md: " << flag << " × " << command;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 300u);
}
