#pragma once
// Helpers shared by the subcommand files.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sqlgrade::cli {

// Thrown by a subcommand callback to end the program with a given exit code after it has printed
// what it needed to.
struct Exit {
  int code;
};

// The first non-empty line of an error message: errors are printed as one line. DuckDB appends
// "Possible solutions:" paragraphs and "LINE 1: ..." context after the message itself.
inline std::string first_line(std::string_view msg) {
  size_t b = msg.find_first_not_of("\r\n");
  if (b == std::string_view::npos) return std::string();
  size_t e = msg.find_first_of("\r\n", b);
  return std::string(msg.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
}

// The process's command line (argv), set by main(); run records store it as "command".
inline std::vector<std::string>& invocation() {
  static std::vector<std::string> argv;
  return argv;
}

}  // namespace sqlgrade::cli
