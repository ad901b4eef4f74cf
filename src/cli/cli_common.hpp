#pragma once
// Helpers shared by the subcommand files.
#include <stdexcept>

namespace sqlgrade::cli {

// Thrown by a subcommand callback to end the program with a given exit code after it has printed
// what it needed to.
struct Exit {
  int code;
};

}  // namespace sqlgrade::cli
