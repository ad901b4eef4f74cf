// Issue 22, item 4: one flag vocabulary. `--db`, `--jobs`, `--timeout`, `--quiet` on every command with
// the official scripts' names as aliases (same output byte for byte), hyphen and underscore spellings,
// "did you mean", `--summary-only`, warnings naming their file, `--require-all` on spider, bird and
// spider2, `uda eval -q` printing the score, one short line per `uda gold` error, and an example at the
// end of every `--help`. Run against another binary with SQLGRADE_CLI_UNDER_TEST (safety_cli.hpp): the
// old binary fails them.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "safety_cli.hpp"
#include "sqlgrade/py/io.hpp"
#include "test_support.hpp"

using namespace sqlgrade::test;

namespace {


std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

// Every subcommand path, read from the "Subcommands:" sections of `--help`.
void walk(const std::vector<std::string>& command, std::vector<std::vector<std::string>>& out) {
  out.push_back(command);
  std::vector<std::string> args = command;
  args.push_back("--help");
  TimedResult r = run_cli_timed(args, 30);
  ASSERT_EQ(r.rc, 0) << joined(args) << ": " << r.err;
  bool in_subcommands = false;
  for (const std::string& line : sqlgrade::py::split_lines_universal(r.out)) {
    if (line.rfind("Subcommands:", 0) == 0) in_subcommands = true;
    else if (line.empty() || line[0] != ' ') in_subcommands = false;
    else if (in_subcommands && line.size() > 2 && line[2] != ' ') {
      std::vector<std::string> sub = command;
      sub.push_back(line.substr(2, line.find(' ', 2) - 2));
      walk(sub, out);
    }
  }
}

// A Spider fixture: one database, four questions, tables.json.
struct SpiderFx : ShopSpiderFx {
  SpiderFx()
      : ShopSpiderFx("SELECT name FROM item WHERE price > 2\tshop\nSELECT count(*) FROM item\tshop\n"
                     "SELECT city FROM shop ORDER BY city\tshop\nSELECT avg(price) FROM item\tshop\n") {}
  std::string pred(const std::string& name, const std::string& text) { return file(name, text); }
  std::vector<std::string> args(const std::vector<std::string>& preds, const std::string& etype = "exec") {
    std::vector<std::string> a = {"spider", "--gold", gold, "--db", db, "--table", tables, "--etype", etype, "--no-progress"};
    for (const auto& p : preds) a.insert(a.end(), {"--pred", p});
    return a;
  }
};

const char* kFourPreds =
    "SELECT name FROM item WHERE price > 2\nSELECT count(*) FROM shop\nSELECT city FROM shop ORDER BY city\nSELECT avg(price) FROM item\n";


}  // namespace

// Every subcommand's --help (and the top level's) ends with "Example:" and one command line of that
// subcommand. Before: no help had an example.
TEST(CliFlags, EveryHelpEndsWithAnExampleOfItsOwnSubcommand) {
  std::vector<std::vector<std::string>> commands;
  walk({}, commands);
  ASSERT_GE(commands.size(), 20u);  // spider, spider parse, bird (+2), spider2, uda (+4), serve, verify (+3), ...
  for (const auto& c : commands) {
    TimedResult r = run_cli_timed(plus(c, {"--help"}), 30);
    std::vector<std::string> ls = sqlgrade::py::split_lines_universal(r.out);
    while (!ls.empty() && ls.back().empty()) ls.pop_back();
    ASSERT_GE(ls.size(), 2u) << joined(c);
    EXPECT_EQ(ls[ls.size() - 2], "Example:") << "sqlgrade " << joined(c) << " --help";
    const std::string want = "  sqlgrade " + joined(c) + (c.empty() ? "" : " ");
    EXPECT_EQ(ls.back().rfind(c.empty() ? "  sqlgrade " : want, 0), 0u) << "sqlgrade " << joined(c) << ": " << ls.back();
  }
}

// The shared names and the official ones, in either spelling, reach the same option: the same output
// byte for byte (bird: --db/--db_root_path/--db-root-path, --jobs/--num_cpus, --timeout/--meta_time_out).
TEST(CliFlags, SharedNamesOfficialNamesAndBothSpellingsGiveTheSameOutput) {
  SQLGRADE_REQUIRE_DATA("bird/minidev",
                        "preds/bird_minidev/official_baselines_sql_output_kg/predict_mini_dev_gpt-4_sqlite.json");
  const std::string m = DATA + "/bird/minidev/";
  const std::string pred = DATA + "/preds/bird_minidev/official_baselines_sql_output_kg/predict_mini_dev_gpt-4_sqlite.json";
  const std::vector<std::string> official = {"bird", "--predicted_sql_path", pred, "--ground_truth_path", m + "mini_dev_sqlite_gold.sql",
                                             "--db_root_path", DATA + "/bird/dev_databases/", "--diff_json_path",
                                             DATA + "/expected/bird/inputs/minidev.mini_dev_sqlite.jsonl", "--num_cpus", "2", "--meta_time_out", "30", "--no-progress"};
  const std::vector<std::string> shared = {"bird", "--pred", pred, "--gold", m + "mini_dev_sqlite_gold.sql", "--db",
                                           DATA + "/bird/dev_databases/", "--diff-json-path", DATA + "/expected/bird/inputs/minidev.mini_dev_sqlite.jsonl",
                                           "-j", "2", "--timeout", "30", "--no_progress"};
  const std::vector<std::string> hyphens = {"bird", "--predicted-sql-path", pred, "--ground-truth-path", m + "mini_dev_sqlite_gold.sql",
                                            "--db-root-path=" + DATA + "/bird/dev_databases/", "--diff_json_path",
                                            DATA + "/expected/bird/inputs/minidev.mini_dev_sqlite.jsonl", "--num-cpus", "2", "--meta-time-out=30", "--no-progress"};
  TimedResult a = run_cli_timed(official, 300), b = run_cli_timed(shared, 300), c = run_cli_timed(hyphens, 300);
  ASSERT_EQ(a.rc, 0) << a.err;
  ASSERT_EQ(b.rc, 0) << b.err;
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_NE(a.out.find("Finished EX evaluation"), std::string::npos) << a.out;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.out, c.out);
}

// spider2 and serve: --db beside --db_dir / --db-dir, --jobs beside --max_workers.
TEST(CliFlags, Spider2AcceptsTheSharedNames) {
  SQLGRADE_REQUIRE_DATA("spider2lite/gold", "preds/spider2lite_local/xlang_example_submission/csv_mode");
  const std::string preds = DATA + "/preds/spider2lite_local/xlang_example_submission/csv_mode";
  TempDir t;
  std::filesystem::copy(preds, t / "a", std::filesystem::copy_options::recursive);
  std::filesystem::copy(preds, t / "b", std::filesystem::copy_options::recursive);
  TimedResult a = run_cli_timed({"spider2", "--mode", "exec_result", "--result_dir", (t / "a").string(), "--gold_dir",
                                 DATA + "/spider2lite/gold", "--max_workers", "2", "--no-progress"}, 300);
  TimedResult b = run_cli_timed({"spider2", "--mode", "exec_result", "--pred", (t / "b").string(), "--gold",
                                 DATA + "/spider2lite/gold", "-j", "2", "-q", "--db", DATA + "/spider2lite/databases"}, 300);
  ASSERT_EQ(a.rc, 0) << a.err;
  ASSERT_EQ(b.rc, 0) << b.err;
  std::string want = a.out, got = b.out;  // the official output names its folder
  for (size_t p; (p = want.find((t / "a").string())) != std::string::npos;) want.replace(p, (t / "a").string().size(), "X");
  for (size_t p; (p = got.find((t / "b").string())) != std::string::npos;) got.replace(p, (t / "b").string().size(), "X");
  EXPECT_EQ(want, got);
}

// A mistyped flag or subcommand: exit 2, one line naming the closest known name. Before: CLI11's
// "The following argument was not expected" (flag) or "A subcommand is required" with no hint.
TEST(CliFlags, DidYouMeanOnAMistypedFlagOrSubcommand) {
  struct Case {
    std::vector<std::string> args;
    std::string hint;
  };
  const std::vector<Case> cases = {
      {{"spider", "--tiemout", "5", "--gold", "g"}, "did you mean --timeout?"},
      {{"spider", "--gold=g", "--summary-onyl"}, "did you mean --summary-only?"},
      {{"bird", "--db_rot_path", "x"}, "did you mean --db_root_path?"},
      {{"bird", "--meta-time-uot", "3"}, "did you mean --meta_time_out?"},
      {{"spidr", "--gold", "g"}, "did you mean 'spider'?"},
      {{"uda", "evl"}, "did you mean 'eval'?"},
      {{"uda", "eval", "--sql-fiel", "x"}, "did you mean --sql-file?"},
      {{"verify", "brid"}, "did you mean 'bird'?"},
  };
  for (const auto& c : cases) {
    TimedResult r = run_cli_timed(c.args, 20);
    expect_one_line_error(r, {c.hint}, "sqlgrade " + joined(c.args));
  }
  // Nothing close: CLI11's own message, still one line and exit 2.
  expect_one_line_error(run_cli_timed({"spider", "--completely-unknown-flag"}, 20), {"--completely-unknown-flag"}, "unknown flag");
}

// --require-all: exit 1 when a prediction file is cut short or has lines no gold takes; exit 0 when it
// pairs exactly (and without the flag, as before: a warning and exit 0).
TEST(CliFlags, SpiderRequireAllRefusesMissingAndUnpairedPredictions) {
  SpiderFx f;
  const std::string full = f.pred("full.sql", kFourPreds);
  const std::string cut = f.pred("cut.sql", "SELECT name FROM item WHERE price > 2\nSELECT count(*) FROM shop\n");
  const std::string extra = f.pred("extra.sql", std::string(kFourPreds) + "SELECT 1\n");
  EXPECT_EQ(run_cli_timed(plus(f.args({full}), {"--require-all"}), 60).rc, 0);
  TimedResult r = run_cli_timed(f.args({cut}), 60);
  EXPECT_EQ(r.rc, 0) << r.err;
  r = run_cli_timed(plus(f.args({cut}), {"--require-all"}), 60);
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find(cut + ": 2 of 4 gold questions without a prediction"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("execution"), std::string::npos) << "the table is still printed: " << r.out;
  r = run_cli_timed(plus(f.args({full, extra}), {"--require-all"}), 60);
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find(extra + ": 0 of 4 gold questions without a prediction, 1 unpaired"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(full + ":"), std::string::npos) << r.err;
}

TEST(CliFlags, BirdAndSpider2RequireAllRefuseATruncatedPredictionFile) {
  SQLGRADE_REQUIRE_DATA("bird/minidev");
  TempDir t;
  // BIRD: the first 100 of 500 predictions.
  std::string pred = "{";
  for (int k = 0; k < 100; ++k) pred += std::string(k ? "," : "") + "\"" + std::to_string(k) + "\": \"SELECT 1\\t----- bird -----\\tdebit_card_specializing\"";
  spit(t / "pred.json", pred + "}");
  const std::string m = DATA + "/bird/minidev/";
  const std::vector<std::string> bird = {"bird", "--pred", (t / "pred.json").string(), "--gold", m + "mini_dev_sqlite_gold.sql",
                                         "--db", DATA + "/bird/dev_databases/", "--no-progress", "-q"};
  TimedResult r = run_cli_timed(bird, 300);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "") << "--quiet: no warnings";
  r = run_cli_timed(plus(bird, {"--require-all"}), 300);
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("400 of 500 gold questions without a prediction"), std::string::npos) << r.err;
  // Spider 2.0-Lite: one result CSV of the gold ones, plus one no gold id takes.
  if (!std::filesystem::exists(DATA + "/spider2lite/gold")) return;
  std::filesystem::create_directories(t / "s2");
  std::filesystem::copy_file(DATA + "/spider2lite/gold/exec_result/local002_a.csv", t / "s2" / "local002.csv");
  spit(t / "s2" / "nosuchid.csv", "a\n1\n");
  const std::vector<std::string> s2 = {"spider2", "--mode", "exec_result", "--pred", (t / "s2").string(), "--gold",
                                       DATA + "/spider2lite/gold", "--no-progress"};
  EXPECT_EQ(run_cli_timed(s2, 120).rc, 0);
  r = run_cli_timed(plus(s2, {"--require-all"}), 120);
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("without a prediction, 1 unpaired"), std::string::npos) << r.err;
}

// --summary-only: exactly the end of the full output, from the score table on — without the official
// per-example dump (--etype all prints every mismatch before the table).
TEST(CliFlags, SpiderSummaryOnlyLeavesOutThePerExampleDump) {
  SpiderFx f;
  const std::string p = f.pred("p.sql", kFourPreds);
  TimedResult full = run_cli_timed(f.args({p}, "all"), 60), sum = run_cli_timed(plus(f.args({p}, "all"), {"--summary-only"}), 60);
  ASSERT_EQ(full.rc, 0) << full.err;
  ASSERT_EQ(sum.rc, 0) << sum.err;
  EXPECT_NE(full.out.find("SELECT count(*) FROM shop"), std::string::npos) << "the dump shows the mismatch: " << full.out;
  EXPECT_EQ(sum.out.find("SELECT count(*) FROM shop"), std::string::npos) << sum.out;
  ASSERT_LT(sum.out.size(), full.out.size());
  EXPECT_EQ(full.out.substr(full.out.size() - sum.out.size()), sum.out);
  EXPECT_NE(sum.out.find("exact match"), std::string::npos) << sum.out;
}

// Several systems: every warning line names the prediction file it is about.
TEST(CliFlags, EveryWarningNamesItsFile) {
  SpiderFx f;
  // "error" does not parse: a warning that named no file before ("1 prediction(s) do not parse ...").
  const std::string a = f.pred("a.sql", "SELECT name FROM item WHERE price > 2\nerror\n");
  const std::string b = f.pred("b.sql", "error\n\nSELECT city FROM shop\n");
  TimedResult r = run_cli_timed(f.args({a, b}, "all"), 60);
  ASSERT_EQ(r.rc, 0) << r.err;
  size_t n = 0;
  for (const std::string& line : sqlgrade::py::split_lines_universal(r.err)) {
    if (line.rfind("sqlgrade: warning: ", 0) != 0) continue;
    ++n;
    EXPECT_TRUE(line.find(a) != std::string::npos || line.find(b) != std::string::npos || line.find(f.gold) != std::string::npos)
        << line;
  }
  EXPECT_GE(n, 5u) << r.err;  // a: missing, unparsed; b: a blank line, missing, unparsed
  EXPECT_EQ(run_cli_timed(plus(f.args({a, b}), {"--quiet"}), 60).err, "");
}

// `uda eval -q` prints the score (before: nothing at all).
TEST(CliFlags, UdaEvalQuietPrintsTheScore) {
  TempDir t;
  const std::string shop = fixtures() + "/uda/Shop";
  spit(t / "r" / "result.csv", "id,name,price,stock\n1,Widget,2.5,10\n2,Gadget,10,1200\n");
  TimedResult r = run_cli_timed({"uda", "eval", "--dataset-dir", shop, "--sql-file", shop + "/Select/select_queries.sql",
                                 "--query-id", "1", "--result-csv", (t / "r" / "result.csv").string(), "-q"}, 60);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(std::regex_match(r.out, std::regex("precision [01]\\.\\d{4} recall [01]\\.\\d{4} f1 [01]\\.\\d{4}\n"))) << r.out;
}

// `uda gold`: a gold error is one short line (DuckDB's list of candidate overloads left out); the whole
// message with --list-errors.
TEST(CliFlags, UdaGoldErrorsAreOneShortLine) {
  TempDir t;
  std::filesystem::copy(fixtures() + "/uda/Shop", t / "Shop", std::filesystem::copy_options::recursive);
  spit(t / "Shop" / "Agg" / "agg_queries.sql",
       slurp(t / "Shop" / "Agg" / "agg_queries.sql") + "\n-- Query 9: agg (products)\nSELECT SUM(name) AS s FROM products;\n");
  const std::vector<std::string> gold = {"uda", "gold", "--dataset-dir", (t / "Shop").string(), "--out", (t / "out").string()};
  TimedResult r = run_cli_timed(gold, 60);
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string line;
  for (const auto& l : sqlgrade::py::split_lines_universal(r.out))
    if (l.rfind("gold_error", 0) == 0) line = l;
  ASSERT_FALSE(line.empty()) << r.out;
  EXPECT_LE(line.size(), 300u) << line;
  EXPECT_EQ(line.find("Candidate functions"), std::string::npos) << line;
  EXPECT_NE(line.find("sum(VARCHAR)"), std::string::npos) << line;
  TimedResult all = run_cli_timed(plus(gold, {"--list-errors"}), 60);
  ASSERT_EQ(all.rc, 0) << all.err;
  EXPECT_NE(all.out.find("Candidate functions"), std::string::npos) << all.out;
}
