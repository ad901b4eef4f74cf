// Writes the CLI's flag table (flag_table.hpp) for the Python package: python/sqlgrade/_cli_flags.json
// (read without the native module) and a C++ include that embeds the same text in the native module
// (_native.cli_flags(); python/native/tables.cpp). Run by the build (src/cli/CMakeLists.txt).
//
//   sqlgrade_flag_table OUT.json OUT.inc
#include <cstdio>
#include <string>

#include "app.hpp"
#include "flag_table.hpp"
#include "sqlgrade/core/fs.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: sqlgrade_flag_table OUT.json OUT.inc\n");
    return 2;
  }
  CLI::App app{"sqlgrade"};
  sqlgrade::cli::build_app(app);
  const std::string text = sqlgrade::cli::flag_table(app).dump(1) + "\n";
  try {
    sqlgrade::write_file_atomic(argv[1], text);
    sqlgrade::write_file_atomic(argv[2], "R\"sqlgrade_flags(" + text + ")sqlgrade_flags\"\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sqlgrade_flag_table: %s\n", e.what());
    return 2;
  }
  return 0;
}
