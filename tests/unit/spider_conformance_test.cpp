// Byte-for-byte conformance of `sqlgrade spider` with the official scripts' stdout stored in
// shared/data/expected/ (spider_all = taoyds/spider evaluation.py, testsuite_all and
// testsuite_exec_plug_value = test-suite-sql-eval evaluation.py). The command lines are taken from
// expected/MANIFEST.json, so every recorded Spider case is checked.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace {

using sqlgrade::test::run_cli;
using sqlgrade::test::slurp;

struct Case {
  std::string id, output;
  std::vector<std::string> args;
};

std::vector<Case> spider_cases(const std::string& data, const std::string& prefix) {
  auto m = nlohmann::json::parse(slurp(data + "/expected/MANIFEST.json"));
  std::vector<Case> out;
  for (const auto& c : m["cases"]) {
    std::string id = c["id"].get<std::string>();
    if (id.rfind(prefix + "/", 0) != 0) continue;
    Case k{id, c["output"].get<std::string>(), {"spider"}};
    const auto& cmd = c["command"];
    size_t i = 0;
    while (i < cmd.size() && cmd[i].get<std::string>().find("evaluation.py") == std::string::npos) ++i;
    for (++i; i < cmd.size(); ++i) k.args.push_back(cmd[i].get<std::string>());
    k.args.push_back("--compat");
    k.args.push_back(prefix == "spider_all" ? "spider" : "test-suite");
    k.args.push_back("--quiet");
    out.push_back(k);
  }
  return out;
}

void check_prefix(const std::string& data, const std::string& prefix, size_t min_cases) {
  auto cases = spider_cases(data, prefix);
  ASSERT_GE(cases.size(), min_cases) << "MANIFEST.json lists too few " << prefix << " cases";
  for (const auto& c : cases) {
    auto r = run_cli(c.args, "", data);
    EXPECT_EQ(r.rc, 0) << c.id << ": " << r.err;
    std::string want = slurp(data + "/expected/" + c.output);
    ASSERT_FALSE(want.empty()) << c.output;
    if (r.out != want) {
      // Report the first differing line.
      size_t pos = 0;
      while (pos < r.out.size() && pos < want.size() && r.out[pos] == want[pos]) ++pos;
      size_t ls = want.rfind('\n', pos == 0 ? 0 : pos - 1);
      ls = ls == std::string::npos ? 0 : ls + 1;
      ADD_FAILURE() << c.id << ": output differs at byte " << pos << "\n want: "
                    << want.substr(ls, want.find('\n', ls) - ls) << "\n  got: "
                    << r.out.substr(ls, r.out.find('\n', ls) - ls);
    }
  }
}

}  // namespace

TEST(SpiderConformance, OriginalSpiderScriptEtypeAll) {
  SQLGRADE_REQUIRE_DATA("expected/spider_all");
  check_prefix(DATA, "spider_all", 6);
}

TEST(SpiderConformance, TestSuiteScriptEtypeAll) {
  SQLGRADE_REQUIRE_DATA("expected/testsuite_all");
  check_prefix(DATA, "testsuite_all", 6);
}

TEST(SpiderConformance, TestSuitePlugValue) {
  SQLGRADE_REQUIRE_DATA("expected/testsuite_exec_plug_value");
  check_prefix(DATA, "testsuite_exec_plug_value", 1);
}

TEST(SpiderConformance, MatchOnlyEqualsTheMatchPartOfEtypeAll) {
  // --etype match prints the etype=all output minus the execution section (both scripts).
  SQLGRADE_REQUIRE_DATA("expected/spider_all");
  auto r = run_cli({"spider", "--gold", "spider/dev_gold.sql", "--pred", "preds/spider_dev/dail-sql_gpt4/pred.txt", "--db",
                    "spider/database", "--table", "spider/tables.json", "--etype", "match", "--compat", "spider", "-q"},
                   "", DATA);
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string want = slurp(DATA + "/expected/spider_all/dail-sql_gpt4.txt");
  size_t a = want.find("=====================   EXECUTION ACCURACY");
  ASSERT_NE(a, std::string::npos);
  size_t b = want.find('\n', want.find('\n', a) + 1);
  want.erase(a, b + 1 - a);
  EXPECT_EQ(r.out, want);
}

TEST(SpiderConformance, ParseSubcommandReproducesDevJson) {
  SQLGRADE_REQUIRE_DATA("spider/dev.json");
  auto dev = nlohmann::json::parse(slurp(DATA + "/spider/dev.json"));
  std::string input;
  for (const auto& ex : dev) input += ex["query"].get<std::string>() + "\t" + ex["db_id"].get<std::string>() + "\n";
  auto r = run_cli({"spider", "parse", "--table", DATA + "/spider/tables.json"}, input);
  ASSERT_EQ(r.rc, 0) << r.err;
  auto got = nlohmann::json::parse(r.out);
  ASSERT_EQ(got.size(), dev.size());
  size_t same = 0;
  for (size_t i = 0; i < dev.size(); ++i)
    if (got[i]["sql"] == dev[i]["sql"]) ++same;
  EXPECT_EQ(same, dev.size());
}
