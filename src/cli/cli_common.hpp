#pragma once
// Helpers shared by the subcommand files.
#include <CLI/CLI.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/core/bounds.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/errors.hpp"

namespace sqlgrade::cli {

// Thrown by a subcommand callback to end the program with a given exit code after it has printed
// what it needed to.
struct Exit {
  int code;
};

// Errors are printed as one line: their first non-empty line (core/text.hpp).
using sqlgrade::first_line;

// The process's command line (argv), set by main(); run records store it as "command".
inline std::vector<std::string>& invocation() {
  static std::vector<std::string> argv;
  return argv;
}

// The check of a numeric flag: its row of the library's table of bounds (core/bounds.hpp), the same
// check and message as the reward server's request fields and the Python package's arguments. Every
// numeric flag of every subcommand carries one (tests/unit/safety_bounds_test.cpp reads `--help` to
// make sure); the help shows the range after the type: `--timeout FLOAT:(0, 86400] seconds`.
inline CLI::Validator bounded(std::string_view name) {
  const bounds::Bound& b = bounds::bound(name);
  return CLI::Validator(
      [&b](std::string& text) -> std::string {
        auto msg = bounds::violation_of_text(b, text);
        return msg ? *msg : std::string();
      },
      bounds::range_text(b));
}

// The check of a flag that names a choice: the library's parser (`parse(value)`, InputError with its
// message) run as a CLI11 validator, so the flag and the Python argument share one check and one
// message ("--mode: x not in {sql,exec_result}"). `shown` is the help's list of values.
template <class Parse>
CLI::Validator choice(Parse parse, const std::string& shown) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        try {
          parse(text);
          return "";
        } catch (const InputError& e) {
          return e.message();
        }
      },
      shown);
}

}  // namespace sqlgrade::cli
