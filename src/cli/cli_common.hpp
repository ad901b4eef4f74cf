#pragma once
// Helpers shared by the subcommand files.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/core/text.hpp"

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

}  // namespace sqlgrade::cli
