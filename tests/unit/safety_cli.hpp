#pragma once
// Running the CLI in the issue-19 safety tests: under a time limit, stdin from any file (/dev/zero),
// and against another binary when $SQLGRADE_CLI_UNDER_TEST is set — how these regression tests were
// shown to fail on the old code (SQLGRADE_CLI_UNDER_TEST=/work/baseline/sqlgrade-515102e).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace sqlgrade::test {

inline std::string cli_under_test() {
  const char* env = std::getenv("SQLGRADE_CLI_UNDER_TEST");
  return env && *env ? env : SQLGRADE_CLI;
}

struct TimedResult : CliResult {
  double seconds = 0;
};

// `timeout <limit> sqlgrade <args> < stdin_path`: rc 124 when it had to be killed, 128+N after signal N
// (139: SIGSEGV).
inline TimedResult run_cli_timed(const std::vector<std::string>& args, double limit_s = 60,
                                 const std::string& stdin_path = "/dev/null") {
  TempDir t;
  std::string cmd = "timeout -s KILL " + std::to_string(limit_s) + " " + shell_quote(cli_under_test());
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += " < " + shell_quote(stdin_path) + " > " + shell_quote((t / "out").string()) + " 2> " +
         shell_quote((t / "err").string());
  const auto t0 = std::chrono::steady_clock::now();
  const int st = std::system(cmd.c_str());
  TimedResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (r.rc == 137) r.rc = 124;  // killed by timeout's SIGKILL
  r.out = slurp(t / "out");
  r.err = slurp(t / "err");
  return r;
}

// Bad input: exit 2 and one line "sqlgrade: ..." holding every piece of `must_contain`.
inline void expect_one_line_error(const CliResult& r, const std::vector<std::string>& must_contain, const std::string& what) {
  EXPECT_EQ(r.rc, 2) << what << "\nstderr: " << r.err.substr(0, 600);
  EXPECT_EQ(r.err.rfind("sqlgrade: ", 0), 0u) << what << ": " << r.err.substr(0, 600);
  EXPECT_TRUE(!r.err.empty() && r.err.find('\n') == r.err.size() - 1) << what << ": not one line: " << r.err.substr(0, 600);
  for (const auto& s : must_contain) EXPECT_NE(r.err.find(s), std::string::npos) << what << ": no '" << s << "' in: " << r.err.substr(0, 600);
}

}  // namespace sqlgrade::test
