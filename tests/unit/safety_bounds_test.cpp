// Issue 19, finding 9: numbers that switched a bound off. `--timeout nan`, `-1` or `0` disabled the
// deadline (a `serve` worker held for ever), `inf` or `1e300` made every query time out at once, all
// with exit 0. Now every numeric flag of every subcommand, every numeric request field and every
// numeric argument of the Python package is checked against one table (src/sqlgrade/core/bounds.hpp)
// with one message. These tests read `--help` to find every numeric flag, so a flag added without a
// bound fails here.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "safety_cli.hpp"
#include "safety_corpus.hpp"
#include "safety_server_fixture.hpp"
#include "sqlgrade/core/bounds.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/serve/server.hpp"
#include "sqlgrade/py/io.hpp"
#include "test_support.hpp"

namespace {

using namespace sqlgrade;
using namespace sqlgrade::test;
using json = nlohmann::json;

struct NumericFlag {
  std::vector<std::string> command;  // e.g. {"uda", "eval"}
  std::string flag, type, range;     // "--timeout", "FLOAT", "(0, 86400] seconds" (after the type's ':')
};


bool is_numeric_type(const std::string& t) { return t == "INT" || t == "UINT" || t == "FLOAT" || t == "NUMBER"; }

// Every subcommand (recursively) and every option whose value is a number, read from `--help`.
void collect(const std::vector<std::string>& command, std::vector<NumericFlag>& flags, std::set<std::string>& commands) {
  std::vector<std::string> args = command;
  args.push_back("--help");
  TimedResult r = run_cli_timed(args, 30);
  ASSERT_EQ(r.rc, 0) << "sqlgrade help failed: " << r.err;
  std::string joined;
  for (const auto& c : command) joined += (joined.empty() ? "" : " ") + c;
  commands.insert(joined);
  bool in_subcommands = false;
  for (const std::string& line : py::split_lines_universal(r.out)) {
    if (line.rfind("Subcommands:", 0) == 0) {
      in_subcommands = true;
      continue;
    }
    if (in_subcommands && (line.empty() || line[0] != ' ')) in_subcommands = false;  // the help's footer (its example)
    if (in_subcommands) {
      if (line.size() > 2 && line[0] == ' ' && line[1] == ' ' && line[2] != ' ') {
        std::string name = line.substr(2, line.find(' ', 2) - 2);
        std::vector<std::string> sub = command;
        sub.push_back(name);
        collect(sub, flags, commands);
      }
      continue;
    }
    // "  -j,--jobs INT:[0, 1024] threads (0 = all cores) ..." / "  --timeout FLOAT:(0, 86400] seconds"
    size_t dash = line.find("--");
    if (line.rfind("  ", 0) != 0 || dash == std::string::npos || dash > 6) continue;
    size_t name_end = line.find_first_of(" ,", dash);
    if (name_end == std::string::npos) continue;
    std::string flag = line.substr(dash, name_end - dash);
    size_t type_start = line.find_first_not_of(" ,", name_end);
    if (line[name_end] == ',') {  // "--jobs,-j TYPE"
      type_start = line.find(' ', name_end);
      type_start = type_start == std::string::npos ? type_start : line.find_first_not_of(' ', type_start);
    }
    if (type_start == std::string::npos) continue;
    size_t type_end = line.find_first_of(": ", type_start);
    std::string type = line.substr(type_start, type_end == std::string::npos ? std::string::npos : type_end - type_start);
    if (!is_numeric_type(type)) continue;
    std::string range;
    if (type_end != std::string::npos && line[type_end] == ':') range = line.substr(type_end + 1, 40);
    flags.push_back({command, flag, type, range});
  }
}

std::vector<NumericFlag> all_numeric_flags(std::set<std::string>* commands_out = nullptr) {
  std::vector<NumericFlag> flags;
  std::set<std::string> commands;
  collect({}, flags, commands);
  if (commands_out) *commands_out = commands;
  return flags;
}

// Does the range printed in the help ("(0, 86400] seconds", "[1, 4095] MiB") exclude `v`?
bool range_excludes_zero(const std::string& range) { return range.rfind("(0,", 0) == 0 || range.rfind("[1,", 0) == 0; }

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

}  // namespace

// The enumeration itself: it must find the flags the issue names, in every subcommand.
TEST(SafetyBounds, HelpListsEveryNumericFlagWithItsBound) {
  std::set<std::string> commands;
  std::vector<NumericFlag> flags = all_numeric_flags(&commands);
  for (const char* c : {"spider", "bird", "bird subset", "bird schema-prompt", "spider2", "uda eval", "uda run", "uda gold",
                        "uda prepare", "serve", "diff", "report", "merge", "extract-sql", "spider parse"})
    EXPECT_TRUE(commands.count(c)) << "subcommand not found in --help: " << c;
  std::set<std::string> seen;
  for (const auto& f : flags) {
    seen.insert(joined(f.command) + " " + f.flag);
    EXPECT_FALSE(f.range.empty()) << joined(f.command) << " " << f.flag << " (" << f.type
                                  << ") has no bound from the table (cli::bounded)";
  }
  for (const char* f : {"spider --timeout", "spider --jobs", "bird --timeout", "bird --jobs", "spider2 --timeout",
                        "serve --timeout", "serve --gold-timeout", "serve --request-timeout", "serve --port",
                        "serve --max-rows", "uda eval --llm-timeout", "uda run --gold-timeout", "diff --confidence",
                        "report --bootstrap", " --max-input-mb"})
    EXPECT_TRUE(seen.count(f[0] == ' ' ? std::string(f + 1) : std::string(f)) || seen.count(f)) << "not found: " << f;
  EXPECT_GE(flags.size(), 45u);
  std::printf("[bounds] %zu numeric flags in %zu commands\n", flags.size(), commands.size());
}

// nan, inf, -inf, -1, 1e300 (and 0 where the range excludes it) on every numeric flag of every
// subcommand: exit 2 at once with one line naming the flag. Before: exit 0 and the bound off
// (`serve --timeout nan` served for ever; here it would hit the 20 s limit: rc 124).
TEST(SafetyBounds, EveryNumericFlagRefusesNanInfinityAndOutOfRangeValues) {
  std::vector<NumericFlag> flags = all_numeric_flags();
  ASSERT_GE(flags.size(), 45u);
  size_t runs = 0;
  for (const auto& f : flags) {
    std::vector<std::string> values = {"nan", "inf", "-inf", "-1", "1e300", "1e999"};
    if (range_excludes_zero(f.range)) values.push_back("0");
    for (const auto& v : values) {
      std::vector<std::string> args = f.command;
      args.push_back(f.flag + "=" + v);
      TimedResult r = run_cli_timed(args, 20);
      ++runs;
      const std::string what = "sqlgrade " + joined(args);
      expect_one_line_error(r, {f.flag, "must be", v}, what);
      EXPECT_LT(r.seconds, 10) << what;
    }
  }
  std::printf("[bounds] %zu bad values refused\n", runs);
}

// The value may also follow the flag as its own word ("--timeout -1").
TEST(SafetyBounds, TimeoutOfServeAndSpiderRefusedAsASeparateWord) {
  TempDir t;
  fs::create_directories(t / "db");
  for (const auto& v : {"nan", "-1", "0", "inf", "1e300"}) {
    TimedResult s = run_cli_timed({"serve", "--db-dir", (t / "db").string(), "--port", "0", "--timeout", v}, 20);
    expect_one_line_error(s, {"--timeout", "must be a number of seconds in (0, 86400]"}, std::string("serve --timeout ") + v);
    TimedResult p = run_cli_timed({"spider", "--timeout", v, "--gold", "g", "--pred", "p", "--db", "d"}, 20);
    expect_one_line_error(p, {"--timeout", "must be"}, std::string("spider --timeout ") + v);
  }
}

// Good values still pass the check (the validators do not refuse everything).
TEST(SafetyBounds, AcceptedValuesStillWork) {
  TimedResult r = run_cli_timed({"extract-sql", "--max-input-mb", "1"}, 20);
  EXPECT_EQ(r.rc, 1) << r.err;  // empty stdin: "no SQL found", past the flag check
  TempDir t;
  spit(t / "in.txt", "SELECT 1");
  r = run_cli_timed({"--max-input-mb=1.5", "extract-sql"}, 20, (t / "in.txt").string());
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "SELECT 1;\n");
}

TEST(SafetyBounds, TableRowsAndMessages) {
  using namespace sqlgrade::bounds;
  const Bound& t = bound("timeout");
  EXPECT_EQ(describe(t), "a number of seconds in (0, 86400]");
  EXPECT_FALSE(violation(t, 30));
  EXPECT_FALSE(violation(t, 86400));
  EXPECT_FALSE(violation(t, 1e-3));
  for (double bad : std::vector<double>{0.0, -1.0, NAN, INFINITY, -INFINITY, 1e300, 86400.5}) EXPECT_TRUE(violation(t, bad)) << bad;
  EXPECT_EQ(*violation(t, NAN), "must be a number of seconds in (0, 86400]; got nan");
  EXPECT_EQ(*violation(t, 1e300), "must be a number of seconds in (0, 86400]; got 1e+300");
  EXPECT_EQ(*violation(t, -1), "must be a number of seconds in (0, 86400]; got -1");
  EXPECT_EQ(*violation(t, 0.25 - 1), "must be a number of seconds in (0, 86400]; got -0.75");
  EXPECT_EQ(*violation_of_text(t, "12abc"), "must be a number of seconds in (0, 86400]; got 12abc");
  EXPECT_TRUE(violation_of_text(t, ""));
  EXPECT_TRUE(violation_of_text(t, "1e999"));
  EXPECT_FALSE(violation_of_text(t, "2.5"));
  const Bound& j = bound("jobs");
  EXPECT_EQ(describe(j), "an integer in [0, 1024] threads (0 = all cores)");
  EXPECT_TRUE(violation(j, 1.5));
  EXPECT_FALSE(violation(j, 0));
  EXPECT_FALSE(violation(bound("seed"), 18446744073709551615.0));
  EXPECT_TRUE(violation(bound("confidence"), 1));
  EXPECT_FALSE(violation(bound("confidence"), 0.95));
  EXPECT_THROW(bound("no-such-row"), std::logic_error);
  try {
    check("timeout", NAN, "--timeout");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--timeout: must be a number of seconds in (0, 86400]; got nan");
  }
  std::set<std::string> names;
  for (const Bound& b : table()) {
    EXPECT_TRUE(names.insert(std::string(b.name)).second) << "row twice: " << b.name;
    EXPECT_TRUE(std::isfinite(b.min) && std::isfinite(b.max) && b.min < b.max) << b.name;
  }
}


// Request fields: the same check and message, HTTP 400. JSON has no NaN or infinity; 1e999 overflows
// (a parse error, also 400), 1e300 and the rest reach the check. Before: `timeout` 1e300 on /execute
// was accepted (and capped), `max_rows` 0.5 became 0.
TEST(SafetyBounds, RequestFieldsGet400WithTheTablesMessage) {
  AdvServer s;
  const json verify = {{"benchmark", "spider2"}, {"db_id", "adv"}, {"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}};
  const json execute = {{"benchmark", "spider2"}, {"db_id", "adv"}, {"sql", "SELECT 1"}};
  EXPECT_EQ(s.server->verify(verify.dump()).status, 200);
  EXPECT_EQ(s.server->execute(execute.dump()).status, 200);
  struct Case {
    const json* base;
    bool is_verify;
    const char* field;
    json value;
    const char* message;
  };
  const std::vector<Case> cases = {
      {&verify, true, "timeout", 0, "timeout: must be a number of seconds in (0, 86400]; got 0"},
      {&verify, true, "timeout", -1, "timeout: must be a number of seconds in (0, 86400]; got -1"},
      {&verify, true, "timeout", 1e300, "timeout: must be a number of seconds in (0, 86400]; got 1e+300"},
      {&verify, true, "timeout", "30", "timeout: must be a number of seconds in (0, 86400]; got \"30\""},
      {&execute, false, "timeout", 1e300, "timeout: must be a number of seconds in (0, 86400]; got 1e+300"},
      {&execute, false, "timeout", 0, "timeout: must be a number of seconds in (0, 86400]; got 0"},
      {&execute, false, "max_rows", 0.5, "max_rows: must be an integer in [1, 1000000000] rows; got 0.5"},
      {&execute, false, "max_rows", -5, "max_rows: must be an integer in [1, 1000000000] rows; got -5"},
      {&execute, false, "max_bytes", 1e300, "max_bytes: must be an integer in [1, 4294967296] bytes; got 1e+300"},
  };
  for (const auto& c : cases) {
    json body = *c.base;
    body[c.field] = c.value;
    serve::Reply r = c.is_verify ? s.server->verify(body.dump()) : s.server->execute(body.dump());
    EXPECT_EQ(r.status, 400) << body.dump() << " → " << r.body;
    json err = json::parse(r.body, nullptr, false);
    EXPECT_EQ(err.value("error", ""), c.message) << body.dump();
  }
  // 1e999 does not survive JSON parsing: 400 too.
  std::string huge = verify.dump();
  huge.insert(huge.size() - 1, ",\"timeout\":1e999");
  EXPECT_EQ(s.server->verify(huge).status, 400);
}
