// Writes the library's table of numeric bounds (src/sqlgrade/core/bounds.cpp) as JSON data for the
// Python package: python/sqlgrade/_bounds.py reads it when the native module is not there (the
// server-only mode), so that the package never carries a copy of the table. Run by the build
// (python/CMakeLists.txt), installed into the wheel beside the module.
//
//   sqlgrade_bounds_table OUT.json
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/bounds.hpp"
#include "sqlgrade/core/fs.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: sqlgrade_bounds_table OUT.json\n");
    return 2;
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& b : sqlgrade::bounds::table())
    rows.push_back({std::string(b.name), b.min, b.max, b.min_open, b.max_open, b.integer, std::string(b.unit),
                    std::string(b.note), sqlgrade::bounds::describe(b)});
  try {
    sqlgrade::write_file_atomic(argv[1], rows.dump(1) + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sqlgrade_bounds_table: %s\n", e.what());
    return 2;
  }
  return 0;
}
